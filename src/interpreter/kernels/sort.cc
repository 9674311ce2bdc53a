// sort (variadic, any dimension, any comparator) and topk. Sorting is always stable (also a
// valid answer for is_stable=false), so results are deterministic. A comparator of the form
// compare(p[2k], p[2k+1]) runs natively on operand k; anything else is called per comparison.
#include <algorithm>
#include <numeric>

#include "interpreter/kernels/common.h"

namespace spmdc {
namespace kernels {
namespace {

// Calls f(base_offset) for each 1-D line along `dim` of an array of `dims`; the line's elements
// are at base + i * stride(dim).
template <typename F>
void ForEachLine(const std::vector<int64_t>& dims, int64_t dim, F&& f) {
  std::vector<int64_t> strides = RowMajorStrides(dims);
  std::vector<int64_t> outer = dims;
  outer[dim] = 1;
  if (Product(outer) == 0) return;
  std::vector<int64_t> idx(dims.size(), 0);
  do {
    int64_t base = 0;
    for (size_t d = 0; d < dims.size(); ++d) base += idx[d] * strides[d];
    f(base);
  } while (NextIndex(idx, outer));
}

// Permutes one line of `in` into `out` by `perm`.
void PermuteLine(const Literal& in, Literal& out, int64_t base, int64_t stride,
                 const std::vector<int64_t>& perm) {
  const int bytes = DTypeByteSize(in.shape().dtype());
  const std::byte* s = in.raw();
  std::byte* d = out.mutable_raw();
  for (size_t i = 0; i < perm.size(); ++i)
    CopyElement(d + (base + static_cast<int64_t>(i) * stride) * bytes,
                s + (base + perm[i] * stride) * bytes, bytes);
}

}  // namespace
}  // namespace kernels

StatusOr<Literal> SortKernel(const Instruction& sort, const std::vector<Literal>& operands,
                             const KernelContext& ctx) {
  using namespace kernels;
  if (operands.empty()) return InvalidArgument("sort: no operands");
  const Computation* comp = sort.to_apply();
  if (comp == nullptr) return InvalidArgument("sort: missing comparator");
  const std::vector<int64_t>& dims = operands[0].shape().dims();
  const int64_t rank = static_cast<int64_t>(dims.size());
  for (const Literal& o : operands)
    if (o.shape().dims() != dims) return InvalidArgument("sort: operand dims differ");
  int64_t dim = sort.dimensions().empty() ? rank - 1 : sort.dimensions()[0];
  std::vector<Literal> outs;
  for (const Literal& o : operands) {
    ASSIGN_OR_RETURN(Literal r, AllocateResult(Shape(o.shape().dtype(), dims), ctx));
    outs.push_back(std::move(r));
  }
  auto pack = [&]() -> Literal {
    if (outs.size() == 1) return std::move(outs[0]);
    return Literal::Tuple(std::move(outs));
  };
  if (rank == 0) {
    for (size_t k = 0; k < operands.size(); ++k) outs[k] = operands[k];
    return pack();
  }
  if (dim < 0 || dim >= rank) return InvalidArgument("sort: dimension out of range");
  const int64_t len = dims[dim];
  const int64_t stride = RowMajorStrides(dims)[dim];
  Comparator cmp = RecognizeComparator(comp);
  if (cmp.recognised && (cmp.operand >= static_cast<int>(operands.size()) ||
                         comp->num_parameters() != 2 * static_cast<int64_t>(operands.size())))
    cmp.recognised = false;
  std::vector<int64_t> perm(len);
  Status st = absl::OkStatus();
  if (cmp.recognised) {
    const Literal& key = operands[cmp.operand];
    DispatchDType(key.shape().dtype(), [&](auto tr) {
      using Tr = decltype(tr);
      using S = typename Tr::Storage;
      using C = typename Tr::Compute;
      if constexpr (!IsComplexT<C>::value) {
        const S* x = key.data<S>();
        std::vector<C> keys(len);
        ForEachLine(dims, dim, [&](int64_t base) {
          for (int64_t i = 0; i < len; ++i) keys[i] = Tr::Load(x[base + i * stride]);
          std::iota(perm.begin(), perm.end(), 0);
          std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
            return CompareValues<C>(cmp.dir, cmp.total_order, keys[a], keys[b]);
          });
          for (size_t k = 0; k < operands.size(); ++k)
            PermuteLine(operands[k], outs[k], base, stride, perm);
        });
      }
    });
    return pack();
  }
  if (!ctx.call) return Unimplemented("sort needs KernelContext::call");
  ForEachLine(dims, dim, [&](int64_t base) {
    if (!st.ok()) return;
    std::iota(perm.begin(), perm.end(), 0);
    std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
      if (!st.ok()) return false;
      std::vector<Literal> args;
      for (const Literal& o : operands) {
        args.push_back(ScalarAt(o, base + a * stride));
        args.push_back(ScalarAt(o, base + b * stride));
      }
      auto r = ctx.call(*comp, args);
      if (!r.ok()) {
        st = r.status();
        return false;
      }
      if (r->shape().dtype() != DType::kPred || r->shape().rank() != 0) {
        st = InvalidArgument("sort: comparator must return pred[]");
        return false;
      }
      return r->data<uint8_t>()[0] != 0;
    });
    for (size_t k = 0; k < operands.size(); ++k)
      PermuteLine(operands[k], outs[k], base, stride, perm);
  });
  RETURN_IF_ERROR(st);
  return pack();
}

StatusOr<Literal> TopKKernel(const Instruction& topk, const Literal& operand,
                             const KernelContext& ctx) {
  using namespace kernels;
  const Shape& s = operand.shape();
  if (s.rank() < 1) return InvalidArgument("topk: operand must have rank >= 1");
  const int64_t n = s.dim(s.rank() - 1);
  // The topk op carries k=; the TopK custom call (as JAX emits it) only has it in its result
  // shape, (values[..., k], indices[..., k]).
  const Shape& result = topk.shape();
  const int64_t k = topk.attrs().Has(AttrId::kK) ? topk.int_attr(AttrId::kK)
                    : result.IsTuple() && result.tuple_size() > 0 && result.tuple_shape(0).rank() > 0
                        ? result.tuple_shape(0).dims().back()
                        : 1;
  const bool largest = topk.bool_attr(AttrId::kLargest, true);
  if (k < 0 || k > n) return InvalidArgument("topk: k={} out of range for {}", k, s.ToString(false));
  std::vector<int64_t> odims = s.dims();
  odims.back() = k;
  ASSIGN_OR_RETURN(Literal values, AllocateResult(Shape(s.dtype(), odims), ctx));
  ASSIGN_OR_RETURN(Literal indices, AllocateResult(Shape(DType::kS32, odims), ctx));
  const int64_t rows = n == 0 ? 0 : s.num_elements() / n;
  int32_t* idx_out = indices.mutable_data<int32_t>();
  const int bytes = DTypeByteSize(s.dtype());
  std::vector<int64_t> perm(n);
  bool ok = true;
  DispatchDType(s.dtype(), [&](auto tr) {
    using Tr = decltype(tr);
    using S = typename Tr::Storage;
    using C = typename Tr::Compute;
    if constexpr (IsComplexT<C>::value) {
      ok = false;
    } else {
      const S* x = operand.data<S>();
      std::vector<C> keys(n);
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t i = 0; i < n; ++i) keys[i] = Tr::Load(x[r * n + i]);
        std::iota(perm.begin(), perm.end(), 0);
        // Total order (NaN above +inf); ties keep the lower index first.
        auto before = [&](int64_t a, int64_t b) {
          bool gt = CompareValues<C>(CmpDir::kGt, true, keys[a], keys[b]);
          bool lt = CompareValues<C>(CmpDir::kLt, true, keys[a], keys[b]);
          if (largest ? gt : lt) return true;
          if (largest ? lt : gt) return false;
          return a < b;
        };
        std::partial_sort(perm.begin(), perm.begin() + k, perm.end(), before);
        for (int64_t j = 0; j < k; ++j) {
          std::memcpy(values.mutable_raw() + (r * k + j) * bytes,
                      operand.raw() + (r * n + perm[j]) * bytes, bytes);
          idx_out[r * k + j] = static_cast<int32_t>(perm[j]);
        }
      }
    }
  });
  if (!ok) return Unimplemented("topk on {}", DTypeName(s.dtype()));
  return Literal::Tuple({std::move(values), std::move(indices)});
}

}  // namespace spmdc

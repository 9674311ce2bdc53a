// The dot variants: ragged-dot and scaled-dot. Both are defined by the dot they generalise
// (interpreter/kernels/dot.cc), so the reference results are:
//   scaled-dot: each operand multiplied by its block-repeated scale (in the result type, or f32
//     for a non-float result), then the dot kernel;
//   ragged-dot: a direct loop over the result, accumulating in double (int64 for integers,
//     complex<double> for complex) and rounding once on store, where each term of the sum is
//     kept or dropped by the group its lhs ragged coordinate falls in (shape_inference.h,
//     RaggedDotMode). Coordinates past the sum of the group sizes belong to no group, so their
//     results (or terms, for a ragged contracting dimension) are zero.
#include <complex>
#include <vector>

#include "interpreter/kernels/common.h"
#include "ir/shape_inference.h"

namespace spmdc {
namespace {

std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int64_t d = static_cast<int64_t>(dims.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * dims[d + 1];
  return strides;
}

// Advances a row-major multi-index; returns false after the last one.
bool Next(std::vector<int64_t>& idx, const std::vector<int64_t>& dims) {
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    if (++idx[d] < dims[d]) return true;
    idx[d] = 0;
  }
  return false;
}

int64_t Linear(const std::vector<int64_t>& idx, const std::vector<int64_t>& strides) {
  int64_t off = 0;
  for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * strides[d];
  return off;
}

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// x * S(scale), S repeating each scale element over its block, as an array of type `to`.
StatusOr<Literal> Dequantize(const Literal& x, const Literal& scale, DType to) {
  if (IsComplex(x.shape().dtype()) || IsComplex(scale.shape().dtype()))
    return Unimplemented("'scaled-dot' of complex operands cannot be executed by the interpreter");
  Literal out(Shape(to, x.shape().dims()));
  const std::vector<int64_t>& dims = x.shape().dims();
  const int64_t n = x.num_elements();
  if (n == 0) return out;
  if (scale.shape().rank() == 0) {
    const double s = scale.GetDouble(0);
    for (int64_t i = 0; i < n; ++i) out.SetDouble(i, x.GetDouble(i) * s);
    return out;
  }
  const std::vector<int64_t>& sdims = scale.shape().dims();
  const std::vector<int64_t> sstrides = RowMajorStrides(sdims);
  std::vector<int64_t> idx(dims.size(), 0), sidx(dims.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    for (size_t d = 0; d < dims.size(); ++d) sidx[d] = idx[d] / (dims[d] / sdims[d]);
    out.SetDouble(i, x.GetDouble(i) * scale.GetDouble(Linear(sidx, sstrides)));
    Next(idx, dims);
  }
  return out;
}

// Accumulates in Acc and stores through the Literal's generic setters.
template <typename Acc>
struct Accumulator {
  static Acc Load(const Literal& l, int64_t i) {
    if constexpr (std::is_same_v<Acc, std::complex<double>>) return l.GetComplex(i);
    else if constexpr (std::is_same_v<Acc, int64_t>) return l.GetInt(i);
    else return l.GetDouble(i);
  }
  static void Store(Literal& l, int64_t i, Acc v) {
    if constexpr (std::is_same_v<Acc, std::complex<double>>) l.SetComplex(i, v);
    else if constexpr (std::is_same_v<Acc, int64_t>) l.SetInt(i, v);
    else l.SetDouble(i, v);
  }
};

template <typename Acc>
StatusOr<Literal> RaggedDotLoop(const Instruction& instr, const RaggedDotMode& mode,
                                const Literal& lhs, const Literal& rhs, const Literal& sizes) {
  const auto& lb = instr.ints_attr(AttrId::kLhsBatchDims);
  const auto& rb = instr.ints_attr(AttrId::kRhsBatchDims);
  const auto& lc = instr.ints_attr(AttrId::kLhsContractingDims);
  const auto& rc = instr.ints_attr(AttrId::kRhsContractingDims);
  const std::vector<int64_t>& ldims = lhs.shape().dims();
  const std::vector<int64_t>& rdims = rhs.shape().dims();
  std::vector<int64_t> lfree, rfree;
  for (int64_t d = 0; d < lhs.shape().rank(); ++d)
    if (!Contains(lb, d) && !Contains(lc, d)) lfree.push_back(d);
  for (int64_t d = 0; d < rhs.shape().rank(); ++d)
    if (!Contains(rb, d) && !Contains(rc, d) && d != mode.rhs_group.value_or(-1)) rfree.push_back(d);
  const std::vector<int64_t> lstrides = RowMajorStrides(ldims), rstrides = RowMajorStrides(rdims);
  const std::vector<int64_t>& sdims = sizes.shape().dims();
  const int64_t groups = sdims.back();
  const std::vector<int64_t> sstrides = RowMajorStrides(sdims);

  // The group of the lhs element at `l`, or -1 when its ragged coordinate is past every group.
  auto group_of = [&](const std::vector<int64_t>& l) -> int64_t {
    int64_t row = 0;
    if (sdims.size() > 1)
      for (size_t k = 0; k < mode.group_prefix.size(); ++k)
        row += l[mode.group_prefix[k]] * sstrides[k];
    const int64_t v = l[mode.lhs_ragged];
    int64_t end = 0;
    for (int64_t g = 0; g < groups; ++g) {
      end += sizes.GetInt(row + g);
      if (v < end) return g;
    }
    return -1;
  };

  Literal out(instr.shape());
  const std::vector<int64_t>& odims = instr.shape().dims();
  std::vector<int64_t> kdims;
  for (int64_t d : lc) kdims.push_back(ldims[d]);
  const int64_t lead = mode.kind == RaggedDotMode::kContracting ? 1 : 0;
  std::vector<int64_t> o(odims.size(), 0), l(ldims.size(), 0), r(rdims.size(), 0);
  const int64_t n = out.num_elements();
  for (int64_t oi = 0; oi < n; ++oi, Next(o, odims)) {
    size_t p = lead;
    for (size_t i = 0; i < lb.size(); ++i, ++p) l[lb[i]] = r[rb[i]] = o[p];
    for (int64_t d : lfree) l[d] = o[p++];
    for (int64_t d : rfree) r[d] = o[p++];
    Acc acc{};
    bool whole = true;  // every term of the sum takes part
    if (mode.kind != RaggedDotMode::kContracting) {
      const int64_t g = group_of(l);
      if (g < 0) whole = false;
      else if (mode.rhs_group) r[*mode.rhs_group] = g;
    }
    if (whole || mode.kind == RaggedDotMode::kContracting) {
      std::vector<int64_t> k(kdims.size(), 0);
      const bool any = std::all_of(kdims.begin(), kdims.end(), [](int64_t s) { return s > 0; });
      if (any) do {
        for (size_t t = 0; t < lc.size(); ++t) l[lc[t]] = r[rc[t]] = k[t];
        if (mode.kind == RaggedDotMode::kContracting && group_of(l) != o[0]) continue;
        acc += Accumulator<Acc>::Load(lhs, Linear(l, lstrides)) *
               Accumulator<Acc>::Load(rhs, Linear(r, rstrides));
      } while (Next(k, kdims));
    }
    Accumulator<Acc>::Store(out, oi, acc);
  }
  return out;
}

}  // namespace

StatusOr<Literal> RaggedDotKernel(const Instruction& instr, const Literal& lhs, const Literal& rhs,
                                  const Literal& group_sizes, const KernelContext& ctx) {
  ASSIGN_OR_RETURN(RaggedDotMode mode,
                   ClassifyRaggedDot(instr, lhs.shape().rank(), rhs.shape().rank()));
  if (instr.shape().byte_size() > ctx.max_value_bytes)
    return InvalidArgument("ragged-dot result {} exceeds the value size limit",
                           instr.shape().ToString(false));
  const DType t = instr.shape().dtype();
  if (IsComplex(t)) return RaggedDotLoop<std::complex<double>>(instr, mode, lhs, rhs, group_sizes);
  if (IsFloat(t)) return RaggedDotLoop<double>(instr, mode, lhs, rhs, group_sizes);
  return RaggedDotLoop<int64_t>(instr, mode, lhs, rhs, group_sizes);
}

StatusOr<Literal> ScaledDotKernel(const Instruction& instr, const Literal& lhs,
                                  const Literal& lhs_scale, const Literal& rhs,
                                  const Literal& rhs_scale, const KernelContext& ctx) {
  const DType t = IsFloat(instr.shape().dtype()) ? instr.shape().dtype() : DType::kF32;
  ASSIGN_OR_RETURN(Literal l, Dequantize(lhs, lhs_scale, t));
  ASSIGN_OR_RETURN(Literal r, Dequantize(rhs, rhs_scale, t));
  // The dot it stands for: same result shape and dimension numbers.
  Instruction dot(Opcode::kDot, instr.shape(), instr.name());
  dot.attrs() = instr.attrs();
  return DotKernel(dot, l, r, ctx);
}

}  // namespace spmdc

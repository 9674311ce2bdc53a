// Data-movement ops: iota, broadcast, transpose, slice, dynamic-slice, dynamic-update-slice, pad,
// concatenate, reverse. All of them are one StridedCopy (an N-d copy with per-dimension source
// and destination strides, contiguous runs merged and copied with memcpy), never per-element
// generic access.
#include <algorithm>
#include <complex>
#include <cstring>

#include "interpreter/dtype_traits.h"
#include "interpreter/ops.h"

// The typed loops below must vectorise; GCC's -O2 cost model ("very cheap") refuses loops with
// an unknown trip count, so this file is built at O3.
#pragma GCC optimize("O3")

namespace spmdc::interp {
namespace {

struct B16 {
  uint64_t a, b;
};

struct Dim {
  int64_t n, ss, ds;  // count, source stride, destination stride (elements)
};

template <typename T>
void StridedCopyImpl(const T* src, T* dst, const std::vector<Dim>& dims) {
  const Dim inner = dims.back();
  const int64_t outer_rank = static_cast<int64_t>(dims.size()) - 1;
  std::vector<int64_t> idx(outer_rank, 0);
  int64_t so = 0, d_o = 0;
  while (true) {
    const T* s = src + so;
    T* d = dst + d_o;
    if (inner.ss == 1 && inner.ds == 1) {
      std::memcpy(d, s, inner.n * sizeof(T));
    } else if (inner.ss == 0) {
      const T v = *s;
      for (int64_t i = 0; i < inner.n; ++i) d[i * inner.ds] = v;
    } else if (inner.ds == 1) {
      for (int64_t i = 0; i < inner.n; ++i) d[i] = s[i * inner.ss];
    } else {
      for (int64_t i = 0; i < inner.n; ++i) d[i * inner.ds] = s[i * inner.ss];
    }
    int64_t k = outer_rank - 1;
    for (; k >= 0; --k) {
      so += dims[k].ss;
      d_o += dims[k].ds;
      if (++idx[k] < dims[k].n) break;
      so -= dims[k].ss * dims[k].n;
      d_o -= dims[k].ds * dims[k].n;
      idx[k] = 0;
    }
    if (k < 0) break;
  }
}

// 2-D blocked transpose for the case where the innermost destination dimension reads the
// source with a large stride: tile (inner, the dimension whose source stride is 1).
template <typename T>
bool TryBlockedTranspose(const T* src, T* dst, std::vector<Dim> dims) {
  const int64_t r = static_cast<int64_t>(dims.size());
  if (r < 2 || dims.back().ds != 1 || dims.back().ss == 1 || dims.back().ss == 0) return false;
  int64_t j = -1;
  for (int64_t k = 0; k < r - 1; ++k)
    if (dims[k].ss == 1) j = k;
  if (j < 0 || dims[j].n < 16 || dims.back().n < 16) return false;
  // Move dim j to position r-2 (order of outer dims does not matter for a copy).
  Dim dj = dims[j];
  dims.erase(dims.begin() + j);
  dims.insert(dims.end() - 1, dj);
  const Dim a = dims[r - 2], b = dims[r - 1];
  std::vector<Dim> outer(dims.begin(), dims.end() - 2);
  // Each tile is gathered row by row (contiguous reads) into a local buffer, then written out
  // row by row (contiguous writes): no cache-set thrashing on power-of-two strides.
  constexpr int64_t kB = sizeof(T) <= 4 ? 64 : 32;
  std::vector<T> buf(kB * kB);
  auto tile = [&](const T* s, T* d) {
    for (int64_t i0 = 0; i0 < a.n; i0 += kB) {
      for (int64_t j0 = 0; j0 < b.n; j0 += kB) {
        const int64_t ni = std::min(kB, a.n - i0), nj = std::min(kB, b.n - j0);
        for (int64_t jj = 0; jj < nj; ++jj)
          std::memcpy(&buf[jj * kB], s + i0 + (j0 + jj) * b.ss, ni * sizeof(T));
        for (int64_t i = 0; i < ni; ++i) {
          T* row = d + (i0 + i) * a.ds + j0;
          for (int64_t jj = 0; jj < nj; ++jj) row[jj] = buf[jj * kB + i];
        }
      }
    }
  };
  if (outer.empty()) {
    tile(src, dst);
    return true;
  }
  std::vector<int64_t> idx(outer.size(), 0);
  int64_t so = 0, d_o = 0;
  while (true) {
    tile(src + so, dst + d_o);
    int64_t k = static_cast<int64_t>(outer.size()) - 1;
    for (; k >= 0; --k) {
      so += outer[k].ss;
      d_o += outer[k].ds;
      if (++idx[k] < outer[k].n) break;
      so -= outer[k].ss * outer[k].n;
      d_o -= outer[k].ds * outer[k].n;
      idx[k] = 0;
    }
    if (k < 0) break;
  }
  return true;
}

std::vector<int64_t> SliceStarts(const Literal* const* idx, int64_t rank) {
  std::vector<int64_t> out(rank);
  for (int64_t k = 0; k < rank; ++k) {
    const Literal& l = *idx[k];
    out[k] = IsUnsigned(l.shape().dtype())
                 ? static_cast<int64_t>(std::min<uint64_t>(l.GetUint(0), uint64_t{1} << 62))
                 : l.GetInt(0);
  }
  return out;
}

// Start indices of dynamic-slice / dynamic-update-slice: scalars, one per dimension (or the old
// form: one rank-1 operand). Clamped so that the window fits: start in [0, dim - size].
StatusOr<std::vector<int64_t>> DynamicStarts(const std::vector<const Literal*>& ops, size_t first,
                                             const Shape& operand, const std::vector<int64_t>& sizes,
                                             std::string_view what) {
  const int64_t rank = operand.rank();
  std::vector<int64_t> starts;
  if (ops.size() == first + 1 && ops[first]->shape().IsArray() && ops[first]->shape().rank() == 1 &&
      ops[first]->num_elements() == rank && IsInteger(ops[first]->shape().dtype())) {
    // The old form: one rank-1 operand holding every start index.
    const Literal& v = *ops[first];
    for (int64_t k = 0; k < rank; ++k) starts.push_back(v.GetInt(k));
  } else {
    if (static_cast<int64_t>(ops.size() - first) != rank)
      return InvalidArgument("{}: expected {} start indices, got {}", what, rank, ops.size() - first);
    for (size_t k = first; k < ops.size(); ++k) {
      if (!ops[k]->shape().IsArray() || ops[k]->num_elements() != 1 || !IsInteger(ops[k]->shape().dtype()))
        return InvalidArgument("{}: start indices must be integer scalars", what);
    }
    starts = SliceStarts(ops.data() + first, rank);
  }
  for (int64_t k = 0; k < rank; ++k) {
    if (sizes[k] > operand.dim(k) || sizes[k] < 0)
      return InvalidArgument("{}: size {} exceeds dimension {} of {}", what, sizes[k], k, operand.ToString());
    starts[k] = std::clamp<int64_t>(starts[k], 0, operand.dim(k) - sizes[k]);
  }
  return starts;
}

void FillPattern(std::byte* dst, int64_t n, const std::byte* value, int elem_bytes) {
  if (n <= 0) return;
  switch (elem_bytes) {
    case 1: std::memset(dst, static_cast<int>(*value), n); return;
    case 2: { uint16_t v; std::memcpy(&v, value, 2); std::fill_n(reinterpret_cast<uint16_t*>(dst), n, v); return; }
    case 4: { uint32_t v; std::memcpy(&v, value, 4); std::fill_n(reinterpret_cast<uint32_t*>(dst), n, v); return; }
    case 8: { uint64_t v; std::memcpy(&v, value, 8); std::fill_n(reinterpret_cast<uint64_t*>(dst), n, v); return; }
    default:
      for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * elem_bytes, value, elem_bytes);
  }
}

Status CheckArray(const Instruction& instr, const Literal& in) {
  if (!instr.shape().IsArray() || !in.shape().IsArray())
    return InvalidArgument("{}: expected array operand and result", OpcodeName(instr.opcode()));
  if (instr.shape().dtype() != in.shape().dtype())
    return InvalidArgument("{}: result type {} differs from operand type {}", OpcodeName(instr.opcode()),
                           DTypeName(instr.shape().dtype()), DTypeName(in.shape().dtype()));
  return absl::OkStatus();
}

}  // namespace

void StridedCopy(int elem_bytes, const std::byte* src, int64_t src_offset,
                 const std::vector<int64_t>& src_strides, std::byte* dst, int64_t dst_offset,
                 const std::vector<int64_t>& dst_strides, const std::vector<int64_t>& counts) {
  std::vector<Dim> dims;
  for (size_t k = 0; k < counts.size(); ++k) {
    if (counts[k] == 0) return;
    if (counts[k] == 1) continue;
    dims.push_back({counts[k], src_strides[k], dst_strides[k]});
  }
  // Merge a dimension into the next inner one when both sides are contiguous across them.
  std::vector<Dim> out;
  for (int64_t k = static_cast<int64_t>(dims.size()) - 1; k >= 0; --k) {
    Dim d = dims[k];
    if (!out.empty()) {
      Dim& in = out.back();
      if (d.ss == in.ss * in.n && d.ds == in.ds * in.n) {
        in.n *= d.n;
        continue;
      }
    }
    out.push_back(d);
  }
  std::reverse(out.begin(), out.end());
  if (out.empty()) out.push_back({1, 1, 1});
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const T* s = reinterpret_cast<const T*>(src) + src_offset;
    T* d = reinterpret_cast<T*>(dst) + dst_offset;
    if (!TryBlockedTranspose(s, d, out)) StridedCopyImpl(s, d, out);
  };
  switch (elem_bytes) {
    case 1: run(uint8_t{}); break;
    case 2: run(uint16_t{}); break;
    case 4: run(uint32_t{}); break;
    case 8: run(uint64_t{}); break;
    case 16: run(B16{}); break;
    default: SPMDC_CHECK_MSG(false, "StridedCopy: unsupported element size");
  }
}

StatusOr<Literal> EvalIota(const Instruction& instr, int64_t max_bytes) {
  const Shape& shape = instr.shape();
  if (!shape.IsArray())
    return InvalidArgument("iota needs an array shape");
  const int64_t d = instr.int_attr(AttrId::kIotaDimension, 0);
  if (shape.rank() == 0 || d < 0 || d >= shape.rank())
    return InvalidArgument("iota: iota_dimension {} out of range for {}", d, shape.ToString());
  ASSIGN_OR_RETURN(Literal out, NewArray(shape, max_bytes));
  const int64_t len = shape.dim(d);
  Literal ramp(Shape(DType::kS64, {len}));
  int64_t* r = ramp.mutable_data<int64_t>();
  for (int64_t i = 0; i < len; ++i) r[i] = i;
  ASSIGN_OR_RETURN(Literal values, ConvertLiteral(ramp, shape.dtype(), max_bytes));
  std::vector<int64_t> src_strides(shape.rank(), 0);
  src_strides[d] = 1;
  StridedCopy(DTypeByteSize(shape.dtype()), values.raw(), 0, src_strides, out.mutable_raw(), 0,
              RowMajorStrides(shape.dims()), shape.dims());
  return out;
}

StatusOr<Literal> EvalBroadcast(const Instruction& instr, const Literal& in, int64_t max_bytes) {
  RETURN_IF_ERROR(CheckArray(instr, in));
  const Shape& shape = instr.shape();
  const std::vector<int64_t>& dims = instr.dimensions();
  if (static_cast<int64_t>(dims.size()) != in.shape().rank())
    return InvalidArgument("broadcast: dimensions has {} entries for an operand of rank {}",
                           dims.size(), in.shape().rank());
  std::vector<int64_t> in_strides = RowMajorStrides(in.shape().dims());
  std::vector<int64_t> src_strides(shape.rank(), 0);
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0 || dims[i] >= shape.rank() || shape.dim(dims[i]) != in.shape().dim(i))
      return InvalidArgument("broadcast: operand dimension {} does not map onto the result", i);
    src_strides[dims[i]] = in_strides[i];
  }
  // Same element count and operand dims in order: only size-1 dims are added, the data is shared.
  if (in.num_elements() == shape.num_elements() && std::is_sorted(dims.begin(), dims.end()))
    return in.Reshaped(Shape(shape.dtype(), shape.dims()));
  ASSIGN_OR_RETURN(Literal out, NewArray(shape, max_bytes));
  StridedCopy(DTypeByteSize(shape.dtype()), in.raw(), 0, src_strides, out.mutable_raw(), 0,
              RowMajorStrides(shape.dims()), shape.dims());
  return out;
}

StatusOr<Literal> EvalTranspose(const Instruction& instr, const Literal& in, int64_t max_bytes) {
  RETURN_IF_ERROR(CheckArray(instr, in));
  const Shape& shape = instr.shape();
  const std::vector<int64_t>& perm = instr.dimensions();
  if (static_cast<int64_t>(perm.size()) != in.shape().rank() || shape.rank() != in.shape().rank())
    return InvalidArgument("transpose: bad permutation");
  std::vector<int64_t> in_strides = RowMajorStrides(in.shape().dims());
  std::vector<int64_t> src_strides(shape.rank());
  std::vector<bool> seen(perm.size(), false);
  for (size_t k = 0; k < perm.size(); ++k) {
    if (perm[k] < 0 || perm[k] >= shape.rank() || seen[perm[k]] || shape.dim(k) != in.shape().dim(perm[k]))
      return InvalidArgument("transpose: bad permutation");
    seen[perm[k]] = true;
    src_strides[k] = in_strides[perm[k]];
  }
  ASSIGN_OR_RETURN(Literal out, NewArray(shape, max_bytes));
  StridedCopy(DTypeByteSize(shape.dtype()), in.raw(), 0, src_strides, out.mutable_raw(), 0,
              RowMajorStrides(shape.dims()), shape.dims());
  return out;
}

StatusOr<Literal> EvalSlice(const Instruction& instr, const Literal& in, int64_t max_bytes) {
  RETURN_IF_ERROR(CheckArray(instr, in));
  const Shape& shape = instr.shape();
  const SliceSpec* spec = instr.attr<SliceSpec>(AttrId::kSlice);
  const int64_t rank = in.shape().rank();
  if (!spec || static_cast<int64_t>(spec->starts.size()) != rank || shape.rank() != rank)
    return InvalidArgument("slice: missing or malformed slice attribute");
  std::vector<int64_t> in_strides = RowMajorStrides(in.shape().dims());
  std::vector<int64_t> src_strides(rank);
  int64_t offset = 0;
  for (int64_t k = 0; k < rank; ++k) {
    const int64_t start = spec->starts[k], limit = spec->limits[k];
    const int64_t stride = k < static_cast<int64_t>(spec->strides.size()) ? spec->strides[k] : 1;
    if (start < 0 || limit > in.shape().dim(k) || start > limit || stride < 1 ||
        shape.dim(k) != (limit - start + stride - 1) / stride)
      return InvalidArgument("slice: [{}:{}:{}] is invalid for dimension {} of {}", start, limit,
                             stride, k, in.shape().ToString());
    offset += start * in_strides[k];
    src_strides[k] = in_strides[k] * stride;
  }
  ASSIGN_OR_RETURN(Literal out, NewArray(shape, max_bytes));
  StridedCopy(DTypeByteSize(shape.dtype()), in.raw(), offset, src_strides, out.mutable_raw(), 0,
              RowMajorStrides(shape.dims()), shape.dims());
  return out;
}

StatusOr<Literal> EvalDynamicSlice(const Instruction& instr, const std::vector<const Literal*>& ops,
                                   int64_t max_bytes) {
  const Literal& in = *ops[0];
  RETURN_IF_ERROR(CheckArray(instr, in));
  const Shape& shape = instr.shape();
  if (shape.rank() != in.shape().rank()) return InvalidArgument("dynamic-slice: rank mismatch");
  ASSIGN_OR_RETURN(std::vector<int64_t> starts,
                   DynamicStarts(ops, 1, in.shape(), shape.dims(), "dynamic-slice"));
  std::vector<int64_t> in_strides = RowMajorStrides(in.shape().dims());
  int64_t offset = 0;
  for (int64_t k = 0; k < shape.rank(); ++k) offset += starts[k] * in_strides[k];
  ASSIGN_OR_RETURN(Literal out, NewArray(shape, max_bytes));
  StridedCopy(DTypeByteSize(shape.dtype()), in.raw(), offset, in_strides, out.mutable_raw(), 0,
              RowMajorStrides(shape.dims()), shape.dims());
  return out;
}

StatusOr<Literal> EvalDynamicUpdateSlice(const Instruction& instr, Literal base,
                                         const std::vector<const Literal*>& ops, int64_t max_bytes) {
  RETURN_IF_ERROR(CheckArray(instr, base));
  const Literal& update = *ops[1];
  if (!update.shape().IsArray() || update.shape().dtype() != base.shape().dtype() ||
      update.shape().rank() != base.shape().rank())
    return InvalidArgument("dynamic-update-slice: update {} does not match operand {}",
                           update.shape().ToString(), base.shape().ToString());
  ASSIGN_OR_RETURN(std::vector<int64_t> starts,
                   DynamicStarts(ops, 2, base.shape(), update.shape().dims(), "dynamic-update-slice"));
  std::vector<int64_t> strides = RowMajorStrides(base.shape().dims());
  int64_t offset = 0;
  for (int64_t k = 0; k < base.shape().rank(); ++k) offset += starts[k] * strides[k];
  Literal out = base.Reshaped(Shape(base.shape().dtype(), base.shape().dims()));
  base = Literal();  // drop our extra reference so that a donated buffer is updated in place
  std::byte* dst = out.mutable_raw();
  StridedCopy(DTypeByteSize(out.shape().dtype()), update.raw(), 0,
              RowMajorStrides(update.shape().dims()), dst, offset, strides, update.shape().dims());
  return out;
}

StatusOr<Literal> EvalPad(const Instruction& instr, const Literal& in, const Literal& pad_value,
                          int64_t max_bytes) {
  RETURN_IF_ERROR(CheckArray(instr, in));
  const Shape& shape = instr.shape();
  const PaddingConfig* cfg = instr.attr<PaddingConfig>(AttrId::kPadding);
  const int64_t rank = in.shape().rank();
  if (!cfg || static_cast<int64_t>(cfg->dims.size()) != rank || shape.rank() != rank)
    return InvalidArgument("pad: missing or malformed padding attribute");
  if (!pad_value.shape().IsArray() || pad_value.num_elements() != 1 ||
      pad_value.shape().dtype() != shape.dtype())
    return InvalidArgument("pad: padding value must be a scalar of the operand type");
  const int eb = DTypeByteSize(shape.dtype());
  std::vector<int64_t> counts(rank), src_strides(rank), dst_strides(rank);
  std::vector<int64_t> in_strides = RowMajorStrides(in.shape().dims());
  std::vector<int64_t> out_strides = RowMajorStrides(shape.dims());
  int64_t src_off = 0, dst_off = 0;
  bool empty = false;
  for (int64_t k = 0; k < rank; ++k) {
    const PaddingDim& p = cfg->dims[k];
    const int64_t n = in.shape().dim(k);
    if (p.interior < 0) return InvalidArgument("pad: negative interior padding");
    const int64_t step = p.interior + 1;
    const int64_t expect = p.low + p.high + (n == 0 ? 0 : n + (n - 1) * p.interior);
    if (expect != shape.dim(k) || expect < 0)
      return InvalidArgument("pad: dimension {} pads to {}, result has {}", k, expect, shape.dim(k));
    // Operand element i lands at p.low + i * step; keep those inside [0, out_dim).
    int64_t i0 = p.low >= 0 ? 0 : (-p.low + step - 1) / step;
    int64_t i1 = n == 0 ? -1 : std::min(n - 1, (shape.dim(k) - 1 - p.low) >= 0
                                                   ? (shape.dim(k) - 1 - p.low) / step
                                                   : -1);
    if (i1 < i0) {
      empty = true;
      counts[k] = 0;
    } else {
      counts[k] = i1 - i0 + 1;
    }
    src_off += i0 * in_strides[k];
    dst_off += (p.low + i0 * step) * out_strides[k];
    src_strides[k] = in_strides[k];
    dst_strides[k] = out_strides[k] * step;
  }
  ASSIGN_OR_RETURN(Literal out, NewArray(shape, max_bytes));
  std::byte* dst = out.mutable_raw();
  FillPattern(dst, out.num_elements(), pad_value.raw(), eb);
  if (!empty) StridedCopy(eb, in.raw(), src_off, src_strides, dst, dst_off, dst_strides, counts);
  return out;
}

StatusOr<Literal> EvalConcatenate(const Instruction& instr, const std::vector<const Literal*>& ops,
                                  int64_t max_bytes) {
  const Shape& shape = instr.shape();
  if (!shape.IsArray() || instr.dimensions().size() != 1)
    return InvalidArgument("concatenate: expected one dimension");
  const int64_t dim = instr.dimensions()[0];
  if (dim < 0 || dim >= shape.rank()) return InvalidArgument("concatenate: dimension out of range");
  ASSIGN_OR_RETURN(Literal out, NewArray(shape, max_bytes));
  std::vector<int64_t> out_strides = RowMajorStrides(shape.dims());
  int64_t at = 0;
  for (const Literal* l : ops) {
    RETURN_IF_ERROR(CheckArray(instr, *l));
    if (l->shape().rank() != shape.rank()) return InvalidArgument("concatenate: rank mismatch");
    for (int64_t k = 0; k < shape.rank(); ++k) {
      if (k != dim && l->shape().dim(k) != shape.dim(k))
        return InvalidArgument("concatenate: operand {} does not fit {}", l->shape().ToString(),
                               shape.ToString());
    }
    if (at + l->shape().dim(dim) > shape.dim(dim))
      return InvalidArgument("concatenate: operands exceed the result");
    StridedCopy(DTypeByteSize(shape.dtype()), l->raw(), 0, RowMajorStrides(l->shape().dims()),
                out.mutable_raw(), at * out_strides[dim], out_strides, l->shape().dims());
    at += l->shape().dim(dim);
  }
  if (at != shape.dim(dim)) return InvalidArgument("concatenate: operands do not fill the result");
  return out;
}

StatusOr<Literal> EvalReverse(const Instruction& instr, const Literal& in, int64_t max_bytes) {
  RETURN_IF_ERROR(CheckArray(instr, in));
  const Shape& shape = instr.shape();
  if (!(shape.dims() == in.shape().dims())) return InvalidArgument("reverse: shape mismatch");
  std::vector<int64_t> strides = RowMajorStrides(shape.dims());
  std::vector<int64_t> src_strides = strides;
  int64_t offset = 0;
  std::vector<bool> seen(shape.rank(), false);
  for (int64_t d : instr.dimensions()) {
    if (d < 0 || d >= shape.rank()) return InvalidArgument("reverse: dimension {} out of range", d);
    if (shape.dim(d) == 0 || seen[d]) continue;
    seen[d] = true;
    offset += (shape.dim(d) - 1) * strides[d];
    src_strides[d] = -strides[d];
  }
  ASSIGN_OR_RETURN(Literal out, NewArray(shape, max_bytes));
  StridedCopy(DTypeByteSize(shape.dtype()), in.raw(), offset, src_strides, out.mutable_raw(), 0,
              strides, shape.dims());
  return out;
}

}  // namespace spmdc::interp

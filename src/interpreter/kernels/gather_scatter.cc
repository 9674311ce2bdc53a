// gather and scatter with XLA's full semantics, including operand/input batching dims.
// gather clamps every start index so that the slice fits in the operand; scatter skips an
// update window entirely when any part of it would fall outside the operand (XLA's evaluator
// and backends agree on this), and applies updates in row-major order of the updates' scatter
// dims, window elements innermost.
#include <algorithm>

#include "interpreter/kernels/common.h"

namespace spmdc {
namespace kernels {
namespace {

// The batch positions of an indices array: all of its dims but index_vector_dim.
struct IndexSpace {
  const Literal* indices = nullptr;
  int64_t ivd = 0;              // index_vector_dim
  int64_t vec_len = 1;          // length of each index vector
  std::vector<int64_t> dims;    // indices dims (with ivd, or with a unit ivd appended)
  std::vector<int64_t> strides;
  std::vector<int64_t> batch_axes;  // indices dims other than ivd
  std::vector<int64_t> batch_dims;
  bool is_unsigned = false;

  // Index vector element k at full index `full` (ivd component ignored).
  int64_t Read(const std::vector<int64_t>& full, int64_t k) const {
    int64_t off = 0;
    for (size_t d = 0; d < dims.size(); ++d)
      off += (static_cast<int64_t>(d) == ivd ? k : full[d]) * strides[d];
    if (is_unsigned) {
      uint64_t u = indices->GetUint(off);
      return u > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(u);
    }
    return indices->GetInt(off);
  }
};

StatusOr<IndexSpace> MakeIndexSpace(const Literal& indices, int64_t ivd) {
  IndexSpace s;
  s.indices = &indices;
  s.ivd = ivd;
  s.dims = indices.shape().dims();
  if (ivd < 0 || ivd > static_cast<int64_t>(s.dims.size()))
    return InvalidArgument("index_vector_dim {} out of range", ivd);
  if (!IsInteger(indices.shape().dtype())) return InvalidArgument("indices must be integers");
  s.is_unsigned = IsUnsigned(indices.shape().dtype());
  if (ivd == static_cast<int64_t>(s.dims.size())) s.dims.push_back(1);
  s.strides = RowMajorStrides(s.dims);
  s.vec_len = s.dims[ivd];
  for (int64_t d = 0; d < static_cast<int64_t>(s.dims.size()); ++d) {
    if (d == ivd) continue;
    s.batch_axes.push_back(d);
    s.batch_dims.push_back(s.dims[d]);
  }
  return s;
}

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

bool ValidDims(const std::vector<int64_t>& v, int64_t rank) {
  for (int64_t d : v)
    if (d < 0 || d >= rank) return false;
  return true;
}

}  // namespace
}  // namespace kernels

// ---------------------------------------------------------------------------------------------
StatusOr<Literal> GatherKernel(const Instruction& gather, const Literal& operand,
                               const Literal& indices, const KernelContext& ctx) {
  using namespace kernels;
  const auto& offset_dims = gather.ints_attr(AttrId::kOffsetDims);
  const auto& collapsed = gather.ints_attr(AttrId::kCollapsedSliceDims);
  const auto& start_index_map = gather.ints_attr(AttrId::kStartIndexMap);
  const auto& operand_batching = gather.ints_attr(AttrId::kOperandBatchingDims);
  const auto& indices_batching = gather.ints_attr(AttrId::kStartIndicesBatchingDims);
  const auto& slice_sizes = gather.ints_attr(AttrId::kSliceSizes);
  const int64_t ivd = gather.int_attr(AttrId::kIndexVectorDim, indices.shape().rank());
  ASSIGN_OR_RETURN(IndexSpace is, MakeIndexSpace(indices, ivd));
  const Shape& osh = operand.shape();
  const int64_t orank = osh.rank();
  Shape out_shape = gather.shape();
  out_shape.set_layout(std::nullopt);
  if (!out_shape.IsArray() || out_shape.dtype() != osh.dtype())
    return InvalidArgument("gather: result type differs from the operand's");
  const int64_t out_rank = out_shape.rank();
  if (static_cast<int64_t>(slice_sizes.size()) != orank ||
      static_cast<int64_t>(start_index_map.size()) != is.vec_len ||
      operand_batching.size() != indices_batching.size() || !ValidDims(collapsed, orank) ||
      !ValidDims(start_index_map, orank) || !ValidDims(operand_batching, orank) ||
      !ValidDims(offset_dims, out_rank) ||
      !ValidDims(indices_batching, static_cast<int64_t>(is.dims.size())))
    return InvalidArgument("gather: inconsistent dimension numbers");
  std::vector<int64_t> window_operand_dims;
  for (int64_t d = 0; d < orank; ++d) {
    if (slice_sizes[d] < 0 || slice_sizes[d] > osh.dim(d))
      return InvalidArgument("gather: slice size out of range");
    if (!Contains(collapsed, d) && !Contains(operand_batching, d)) window_operand_dims.push_back(d);
  }
  if (window_operand_dims.size() != offset_dims.size() ||
      static_cast<int64_t>(is.batch_dims.size() + offset_dims.size()) != out_rank)
    return InvalidArgument("gather: result rank does not match dimension numbers");
  std::vector<int64_t> batch_out_pos;
  for (int64_t d = 0; d < out_rank; ++d)
    if (!Contains(offset_dims, d)) batch_out_pos.push_back(d);
  for (size_t k = 0; k < batch_out_pos.size(); ++k)
    if (out_shape.dim(batch_out_pos[k]) != is.batch_dims[k])
      return InvalidArgument("gather: result batch dims do not match the indices");
  std::vector<int64_t> win_dims;
  for (size_t k = 0; k < offset_dims.size(); ++k) {
    win_dims.push_back(slice_sizes[window_operand_dims[k]]);
    if (out_shape.dim(offset_dims[k]) != win_dims.back())
      return InvalidArgument("gather: result offset dims do not match slice sizes");
  }
  // Every result element is some batch position's window element: all are written.
  ASSIGN_OR_RETURN(Literal out, AllocateResult(out_shape, ctx, /*overwrite=*/true));
  if (out.num_elements() == 0) return out;
  const int bytes = DTypeByteSize(osh.dtype());
  const std::vector<int64_t> ostr = RowMajorStrides(osh.dims());
  const std::vector<int64_t> rstr = RowMajorStrides(out_shape.dims());
  const std::byte* src = operand.raw();
  std::byte* dst = out.mutable_raw();
  const int64_t nwin = win_dims.empty() ? 1 : 0;
  (void)nwin;
  // Innermost window dim: a strided (often contiguous) run.
  const int64_t nw = static_cast<int64_t>(win_dims.size());
  const int64_t run = nw > 0 ? win_dims[nw - 1] : 1;
  const int64_t run_src_stride = nw > 0 ? ostr[window_operand_dims[nw - 1]] : 0;
  const int64_t run_dst_stride = nw > 0 ? rstr[offset_dims[nw - 1]] : 0;
  std::vector<int64_t> outer_win(win_dims.begin(), win_dims.end() - (nw > 0 ? 1 : 0));

  std::vector<int64_t> full(is.dims.size(), 0);
  std::vector<int64_t> bidx(is.batch_dims.size(), 0);
  std::vector<int64_t> start(orank, 0);
  const int64_t nbatch = Product(is.batch_dims);
  for (int64_t b = 0; b < nbatch; ++b) {
    for (size_t k = 0; k < is.batch_axes.size(); ++k) full[is.batch_axes[k]] = bidx[k];
    std::fill(start.begin(), start.end(), 0);
    for (int64_t k = 0; k < is.vec_len; ++k) {
      int64_t d = start_index_map[k];
      int64_t v = is.Read(full, k);
      start[d] = std::clamp<int64_t>(v, 0, osh.dim(d) - slice_sizes[d]);
    }
    for (size_t k = 0; k < operand_batching.size(); ++k)
      start[operand_batching[k]] = full[indices_batching[k]];
    int64_t src_base = 0, dst_base = 0;
    for (int64_t d = 0; d < orank; ++d) src_base += start[d] * ostr[d];
    for (size_t k = 0; k < batch_out_pos.size(); ++k) dst_base += bidx[k] * rstr[batch_out_pos[k]];
    std::vector<int64_t> widx(outer_win.size(), 0);
    do {
      int64_t s = src_base, o = dst_base;
      for (size_t k = 0; k < outer_win.size(); ++k) {
        s += widx[k] * ostr[window_operand_dims[k]];
        o += widx[k] * rstr[offset_dims[k]];
      }
      if (run_src_stride == 1 && run_dst_stride == 1) {
        std::memcpy(dst + o * bytes, src + s * bytes, run * bytes);
      } else {
        for (int64_t j = 0; j < run; ++j)
          CopyElement(dst + (o + j * run_dst_stride) * bytes, src + (s + j * run_src_stride) * bytes,
                      bytes);
      }
    } while (NextIndex(widx, outer_win));
    NextIndex(bidx, is.batch_dims);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
StatusOr<Literal> ScatterKernel(const Instruction& scatter, const std::vector<Literal>& operands,
                                const KernelContext& ctx) {
  using namespace kernels;
  if (operands.size() < 3 || operands.size() % 2 != 1)
    return InvalidArgument("scatter: expects inputs, indices and as many updates");
  const size_t n = (operands.size() - 1) / 2;
  const Literal& indices = operands[n];
  const auto& update_window_dims = scatter.ints_attr(AttrId::kUpdateWindowDims);
  const auto& inserted = scatter.ints_attr(AttrId::kInsertedWindowDims);
  const auto& to_operand = scatter.ints_attr(AttrId::kScatterDimsToOperandDims);
  const auto& input_batching = scatter.ints_attr(AttrId::kInputBatchingDims);
  const auto& indices_batching = scatter.ints_attr(AttrId::kScatterIndicesBatchingDims);
  const int64_t ivd = scatter.int_attr(AttrId::kIndexVectorDim, indices.shape().rank());
  const Computation* comp = scatter.to_apply();
  if (comp == nullptr) return InvalidArgument("scatter: missing to_apply");
  ASSIGN_OR_RETURN(IndexSpace is, MakeIndexSpace(indices, ivd));
  const Shape& osh = operands[0].shape();
  const Shape& ush = operands[n + 1].shape();
  const int64_t orank = osh.rank(), urank = ush.rank();
  if (static_cast<int64_t>(to_operand.size()) != is.vec_len ||
      input_batching.size() != indices_batching.size() || !ValidDims(inserted, orank) ||
      !ValidDims(to_operand, orank) || !ValidDims(input_batching, orank) ||
      !ValidDims(update_window_dims, urank) ||
      !ValidDims(indices_batching, static_cast<int64_t>(is.dims.size())))
    return InvalidArgument("scatter: inconsistent dimension numbers");
  for (size_t k = 0; k < n; ++k) {
    if (operands[k].shape().dims() != osh.dims() || operands[n + 1 + k].shape().dims() != ush.dims())
      return InvalidArgument("scatter: operand or update shapes differ");
    if (operands[k].shape().dtype() != operands[n + 1 + k].shape().dtype())
      return InvalidArgument("scatter: updates {} differ in type from the operand", k);
  }
  std::vector<int64_t> window_operand_dims;
  for (int64_t d = 0; d < orank; ++d)
    if (!Contains(inserted, d) && !Contains(input_batching, d)) window_operand_dims.push_back(d);
  if (window_operand_dims.size() != update_window_dims.size())
    return InvalidArgument("scatter: update_window_dims do not match the operand");
  std::vector<int64_t> scatter_upd_dims;
  for (int64_t d = 0; d < urank; ++d)
    if (!Contains(update_window_dims, d)) scatter_upd_dims.push_back(d);
  if (scatter_upd_dims.size() != is.batch_dims.size())
    return InvalidArgument("scatter: update scatter dims do not match the indices");
  for (size_t k = 0; k < scatter_upd_dims.size(); ++k)
    if (ush.dim(scatter_upd_dims[k]) != is.batch_dims[k])
      return InvalidArgument("scatter: update scatter dims do not match the indices");
  // Window extent per operand dim (1 for inserted/batching dims).
  std::vector<int64_t> win_extent(orank, 1), win_dims;
  for (size_t k = 0; k < window_operand_dims.size(); ++k) {
    int64_t sz = ush.dim(update_window_dims[k]);
    if (sz > osh.dim(window_operand_dims[k]))
      return InvalidArgument("scatter: update window larger than the operand");
    win_extent[window_operand_dims[k]] = sz;
    win_dims.push_back(sz);
  }
  std::vector<Literal> outs;
  for (size_t k = 0; k < n; ++k) outs.push_back(operands[k]);  // shares; copied on first write
  for (Literal& o : outs) {
    Shape s = o.shape();
    if (s.byte_size() > ctx.max_value_bytes) return InvalidArgument("scatter: result too large");
    o.mutable_raw();  // detach from the operand's buffer
  }
  const std::vector<int64_t> ostr = RowMajorStrides(osh.dims());
  const std::vector<int64_t> ustr = RowMajorStrides(ush.dims());
  const int64_t nbatch = Product(is.batch_dims);
  const int64_t nwin = Product(win_dims);

  const DType t = osh.dtype();
  BinOp op = n == 1 ? RecognizeBinary(comp) : BinOp::kNone;
  const bool native = op != BinOp::kNone && BinOpSupported(op, t) && ush.dtype() == t &&
                      comp->parameter(0)->shape().dtype() == t;
  if (!native && !ctx.call) return Unimplemented("scatter needs KernelContext::call");

  std::vector<int64_t> full(is.dims.size(), 0), bidx(is.batch_dims.size(), 0), start(orank, 0);
  std::vector<int64_t> widx(win_dims.size(), 0);
  // Operand and update offsets of every window element (row-major), computed once.
  std::vector<int64_t> win_op_off(nwin), win_up_off(nwin);
  for (int64_t j = 0; j < nwin; ++j) {
    int64_t a = 0, u = 0;
    for (size_t k = 0; k < win_dims.size(); ++k) {
      a += widx[k] * ostr[window_operand_dims[k]];
      u += widx[k] * ustr[update_window_dims[k]];
    }
    win_op_off[j] = a;
    win_up_off[j] = u;
    NextIndex(widx, win_dims);
  }
  for (int64_t b = 0; b < nbatch; ++b) {
    for (size_t k = 0; k < is.batch_axes.size(); ++k) full[is.batch_axes[k]] = bidx[k];
    std::fill(start.begin(), start.end(), 0);
    for (int64_t k = 0; k < is.vec_len; ++k) start[to_operand[k]] = is.Read(full, k);
    for (size_t k = 0; k < input_batching.size(); ++k)
      start[input_batching[k]] = full[indices_batching[k]];
    bool in_bounds = true;
    for (int64_t d = 0; d < orank; ++d)
      if (start[d] < 0 || start[d] > osh.dim(d) - win_extent[d]) in_bounds = false;
    int64_t upd_base = 0;
    for (size_t k = 0; k < scatter_upd_dims.size(); ++k) upd_base += bidx[k] * ustr[scatter_upd_dims[k]];
    NextIndex(bidx, is.batch_dims);
    if (!in_bounds) continue;
    int64_t op_base = 0;
    for (int64_t d = 0; d < orank; ++d) op_base += start[d] * ostr[d];
    if (native) {
      DispatchDType(t, [&](auto tr) {
        using Tr = decltype(tr);
        using S = typename Tr::Storage;
        S* dst = outs[0].template mutable_data<S>();
        const S* upd = operands[n + 1].data<S>();
        for (int64_t j = 0; j < nwin; ++j) {
          S& a = dst[op_base + win_op_off[j]];
          a = Tr::Store(ApplyBinOp<Tr>(op, Tr::Load(a), Tr::Load(upd[upd_base + win_up_off[j]])));
        }
      });
    } else {
      for (int64_t j = 0; j < nwin; ++j) {
        const int64_t oo = op_base + win_op_off[j], uo = upd_base + win_up_off[j];
        std::vector<Literal> args;
        for (size_t k = 0; k < n; ++k) args.push_back(ScalarAt(outs[k], oo));
        for (size_t k = 0; k < n; ++k) args.push_back(ScalarAt(operands[n + 1 + k], uo));
        ASSIGN_OR_RETURN(Literal r, ctx.call(*comp, args));
        std::vector<const Literal*> leaves = Leaves(r);
        if (leaves.size() != n) return InvalidArgument("scatter: combiner arity mismatch");
        for (size_t k = 0; k < n; ++k) {
          if (leaves[k]->shape().dtype() != outs[k].shape().dtype() || leaves[k]->shape().rank() != 0)
            return InvalidArgument("scatter: combiner result {} has the wrong type", k);
          SetFromScalar(outs[k], oo, *leaves[k]);
        }
      }
    }
  }
  if (n == 1) return std::move(outs[0]);
  return Literal::Tuple(std::move(outs));
}

}  // namespace spmdc

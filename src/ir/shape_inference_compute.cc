// Shape inference for computing ops: reductions and windows, dot and convolution, gather and
// scatter, sort, map, fft, linear algebra, random numbers, batch norm and top-k.
#include <algorithm>

#include "ir/shape_inference.h"
#include "ir/shape_inference_internal.h"
#include "fmt/ranges.h"

namespace spmdc::shape_inference {
namespace {

std::vector<Shape> Scalars(const std::vector<Shape>& arrays) {
  std::vector<Shape> out;
  for (const Shape& s : arrays) out.push_back(Shape::Scalar(s.dtype()));
  return out;
}

// Splits a variadic op's operands into N arrays of equal dims followed by N scalar inits.
struct InputsAndInits {
  std::vector<Shape> inputs, inits;
};
StatusOr<InputsAndInits> SplitInputsAndInits(const Instruction& instr, int64_t extra_tail = 0) {
  int64_t n = instr.operand_count() - extra_tail;
  if (n < 2 || n % 2 != 0)
    return InvalidArgument("{} needs N inputs followed by N init values, got {} operands",
                           OpcodeName(instr.opcode()), instr.operand_count());
  InputsAndInits out;
  for (int64_t i = 0; i < n; ++i) {
    ASSIGN_OR_RETURN(Shape s, ArrayOperand(instr, i));
    (i < n / 2 ? out.inputs : out.inits).push_back(std::move(s));
  }
  for (size_t i = 0; i < out.inputs.size(); ++i) {
    if (!SameDims(out.inputs[i], out.inputs[0]))
      return InvalidArgument("{} inputs {} and {} have different dimensions",
                             OpcodeName(instr.opcode()), ShapeText(out.inputs[0]),
                             ShapeText(out.inputs[i]));
    if (out.inits[i].rank() != 0)
      return InvalidArgument("{} init value {} must be a scalar", OpcodeName(instr.opcode()),
                             ShapeText(out.inits[i]));
    if (!SameTypeIgnoringFpPrecision(out.inputs[i].dtype(), out.inits[i].dtype()))
      return InvalidArgument("{} input type {} does not match init value type {}",
                             OpcodeName(instr.opcode()), DTypeName(out.inputs[i].dtype()),
                             DTypeName(out.inits[i].dtype()));
  }
  return out;
}

StatusOr<Shape> InferReduce(const Instruction& instr) {
  ASSIGN_OR_RETURN(InputsAndInits io, SplitInputsAndInits(instr));
  ASSIGN_OR_RETURN(const Computation* reducer, RequiredComputation(instr, AttrId::kToApply));
  const Shape& in = io.inputs[0];
  const std::vector<int64_t>& dims = instr.dimensions();
  RETURN_IF_ERROR(CheckDimList(dims, in.rank(), "reduce dimension"));
  ASSIGN_OR_RETURN(bool tuple, CheckReducer(*reducer, Scalars(io.inits), "reducer",
                                            /*allow_tuple_of_one=*/true));
  std::vector<Shape> outs;
  for (const Shape& init : io.inits) {
    Shape out(init.dtype(), {});
    for (int64_t d = 0; d < in.rank(); ++d) {
      if (std::find(dims.begin(), dims.end(), d) != dims.end()) continue;
      out.mutable_dims().push_back(in.dim(d));
      if (in.is_dynamic_dim(d)) out.set_dynamic_dim(out.rank() - 1, true);
    }
    outs.push_back(std::move(out));
  }
  return tuple ? Shape::Tuple(std::move(outs)) : TupleOrSingle(std::move(outs));
}

StatusOr<Shape> WindowedShape(const Shape& in, const Window& window, DType type) {
  RETURN_IF_ERROR(CheckWindow(window, in.rank()));
  Shape out(type, {});
  for (int64_t d = 0; d < in.rank(); ++d) {
    ASSIGN_OR_RETURN(int64_t size, WindowedOutputSize(in.dim(d), window.dims[d], d));
    out.mutable_dims().push_back(size);
  }
  return out;
}

StatusOr<Shape> InferReduceWindow(const Instruction& instr) {
  ASSIGN_OR_RETURN(InputsAndInits io, SplitInputsAndInits(instr));
  ASSIGN_OR_RETURN(const Computation* reducer, RequiredComputation(instr, AttrId::kToApply));
  // Like XLA, no window means the empty window (valid only for scalar operands).
  static const Window kNoWindow;
  const Window* window = instr.attr<Window>(AttrId::kWindow);
  if (!window) window = &kNoWindow;
  ASSIGN_OR_RETURN(bool tuple, CheckReducer(*reducer, Scalars(io.inits), "reducer",
                                            /*allow_tuple_of_one=*/true));
  std::vector<Shape> outs;
  for (const Shape& init : io.inits) {
    ASSIGN_OR_RETURN(Shape out, WindowedShape(io.inputs[0], *window, init.dtype()));
    outs.push_back(std::move(out));
  }
  return tuple ? Shape::Tuple(std::move(outs)) : TupleOrSingle(std::move(outs));
}

StatusOr<Shape> InferSelectAndScatter(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectOperandCount(instr, 3));
  ASSIGN_OR_RETURN(Shape operand, ArrayOperand(instr, 0));
  ASSIGN_OR_RETURN(Shape source, ArrayOperand(instr, 1));
  ASSIGN_OR_RETURN(Shape init, ArrayOperand(instr, 2));
  if (init.rank() != 0 || !SameTypeIgnoringFpPrecision(init.dtype(), operand.dtype()))
    return InvalidArgument("select-and-scatter init value {} must be a scalar of the operand's type",
                           ShapeText(init));
  ASSIGN_OR_RETURN(const Computation* select, RequiredComputation(instr, AttrId::kSelect));
  ASSIGN_OR_RETURN(const Computation* scatter, RequiredComputation(instr, AttrId::kScatter));
  // Like XLA, no window means the empty window (valid only for scalar operands).
  static const Window kNoWindow;
  const Window* window = instr.attr<Window>(AttrId::kWindow);
  if (!window) window = &kNoWindow;
  Shape elem = Shape::Scalar(operand.dtype());
  ASSIGN_OR_RETURN(Shape select_root, CheckSignature(*select, {elem, elem}, "select computation", true));
  if (!SameShape(select_root, Shape::Scalar(DType::kPred)))
    return InvalidArgument("select computation %{} must return pred[], returns {}", select->name(),
                           ShapeText(select_root));
  Shape src_elem = Shape::Scalar(source.dtype());
  RETURN_IF_ERROR(CheckReducer(*scatter, {src_elem}, "scatter computation"));
  ASSIGN_OR_RETURN(Shape windowed, WindowedShape(operand, *window, source.dtype()));
  if (!SameDims(windowed, source))
    return InvalidArgument("select-and-scatter source {} does not match the windowed operand {}",
                           ShapeText(source), ShapeText(windowed));
  return operand;
}

// Parses the ratio of a `sparsity=L.1@2:4` attribute: returns (n, m), or (1, 1) when absent.
std::pair<int64_t, int64_t> SparsityRatio(const Instruction& instr) {
  const std::string* raw = instr.attr<std::string>(AttrId::kSparsity);
  if (!raw) return {1, 1};
  size_t at = raw->find('@'), colon = raw->find(':');
  if (at == std::string::npos || colon == std::string::npos || colon < at) return {0, 0};
  try {
    return {std::stoll(raw->substr(at + 1, colon - at - 1)), std::stoll(raw->substr(colon + 1))};
  } catch (...) {
    return {0, 0};
  }
}

}  // namespace
}  // namespace spmdc::shape_inference

namespace spmdc {

StatusOr<RaggedDotMode> ClassifyRaggedDot(const Instruction& instr, int64_t lhs_rank,
                                          int64_t rhs_rank) {
  const auto& lb = instr.ints_attr(AttrId::kLhsBatchDims);
  const auto& lc = instr.ints_attr(AttrId::kLhsContractingDims);
  const auto& ragged = instr.ints_attr(AttrId::kLhsRaggedDims);
  const auto& group = instr.ints_attr(AttrId::kRhsGroupDims);
  if (ragged.size() != 1)
    return InvalidArgument("ragged-dot needs exactly one lhs_ragged_dims entry, has {}",
                           ragged.size());
  if (group.size() > 1)
    return InvalidArgument("ragged-dot takes at most one rhs_group_dims entry, has {}",
                           group.size());
  RaggedDotMode mode;
  const int64_t r = mode.lhs_ragged = ragged[0];
  if (r < 0 || r >= lhs_rank)
    return InvalidArgument("lhs_ragged_dims {} out of range for rank {}", r, lhs_rank);
  auto lb_pos = std::find(lb.begin(), lb.end(), r);
  auto lc_pos = std::find(lc.begin(), lc.end(), r);
  mode.group_prefix = lb;
  if (lb_pos != lb.end()) {
    mode.kind = RaggedDotMode::kBatch;
    mode.group_prefix.assign(lb.begin(), lb_pos);
  } else if (lc_pos != lc.end()) {
    mode.kind = RaggedDotMode::kContracting;
    mode.group_prefix.insert(mode.group_prefix.end(), lc.begin(), lc_pos);
  } else {
    mode.kind = RaggedDotMode::kNonContracting;
    for (int64_t d = 0; d < r; ++d)
      if (std::find(lb.begin(), lb.end(), d) == lb.end() &&
          std::find(lc.begin(), lc.end(), d) == lc.end())
        mode.group_prefix.push_back(d);
  }
  if (mode.kind == RaggedDotMode::kNonContracting) {
    if (group.size() != 1)
      return InvalidArgument("ragged-dot with a ragged non-contracting lhs dimension needs one "
                             "rhs_group_dims entry");
    if (group[0] < 0 || group[0] >= rhs_rank)
      return InvalidArgument("rhs_group_dims {} out of range for rank {}", group[0], rhs_rank);
    mode.rhs_group = group[0];
  } else if (!group.empty()) {
    return InvalidArgument("ragged-dot with a ragged {} lhs dimension takes no rhs_group_dims",
                           mode.kind == RaggedDotMode::kBatch ? "batch" : "contracting");
  }
  return mode;
}

}  // namespace spmdc

namespace spmdc::shape_inference {
namespace {

// The dot family (dot, ragged-dot, scaled-dot) shares one dimension-number rule: the result is
// (batch..., lhs free..., rhs free...). `rhs_group` (ragged-dot's rhs group dimension) is neither
// batch nor contracting nor free: it selects which rhs slice a row of the lhs meets.
StatusOr<Shape> DotFamilyShape(const Instruction& instr, const Shape& lhs, const Shape& rhs,
                               std::optional<int64_t> rhs_group = std::nullopt) {
  const auto& lb = instr.ints_attr(AttrId::kLhsBatchDims);
  const auto& rb = instr.ints_attr(AttrId::kRhsBatchDims);
  const auto& lc = instr.ints_attr(AttrId::kLhsContractingDims);
  const auto& rc = instr.ints_attr(AttrId::kRhsContractingDims);
  if (lb.size() != rb.size())
    return InvalidArgument("lhs_batch_dims and rhs_batch_dims have different sizes ({} vs {})",
                           lb.size(), rb.size());
  if (lc.size() != rc.size())
    return InvalidArgument("lhs_contracting_dims and rhs_contracting_dims have different sizes "
                           "({} vs {})", lc.size(), rc.size());
  std::vector<int64_t> lall = lb, rall = rb;
  lall.insert(lall.end(), lc.begin(), lc.end());
  rall.insert(rall.end(), rc.begin(), rc.end());
  if (rhs_group) rall.push_back(*rhs_group);
  RETURN_IF_ERROR(CheckDimList(lall, lhs.rank(), "lhs batch/contracting dimension"));
  RETURN_IF_ERROR(CheckDimList(rall, rhs.rank(), rhs_group ? "rhs batch/contracting/group dimension"
                                                           : "rhs batch/contracting dimension"));
  for (size_t i = 0; i < lb.size(); ++i)
    if (lhs.dim(lb[i]) != rhs.dim(rb[i]))
      return InvalidArgument("{} batch dimensions lhs {} (size {}) and rhs {} (size {}) differ",
                             OpcodeName(instr.opcode()), lb[i], lhs.dim(lb[i]), rb[i],
                             rhs.dim(rb[i]));
  auto [n, m] = instr.opcode() == Opcode::kDot ? SparsityRatio(instr) : std::pair<int64_t, int64_t>{1, 1};
  if (n <= 0 || m <= 0 || n > m || m > 64) return InvalidArgument("malformed attribute sparsity");
  for (size_t i = 0; i < lc.size(); ++i) {
    int64_t l = lhs.dim(lc[i]), r = rhs.dim(rc[i]);
    bool ok = l == r || (n != m && l >= 0 && r >= 0 &&
                         static_cast<__int128>(l) * m == static_cast<__int128>(r) * n);
    if (!ok)
      return InvalidArgument("{} contracting dimensions lhs {} (size {}) and rhs {} (size {}) "
                             "differ", OpcodeName(instr.opcode()), lc[i], l, rc[i], r);
  }
  if (lhs.dtype() == DType::kPred || rhs.dtype() == DType::kPred) {
    if (lhs.dtype() != rhs.dtype())
      return InvalidArgument("{} of pred and non-pred operands", OpcodeName(instr.opcode()));
  }
  DType type = instr.shape().IsArray() ? instr.shape().dtype() : lhs.dtype();
  Shape out(type, {});
  auto add = [&](const Shape& s, int64_t d) {
    out.mutable_dims().push_back(s.dim(d));
    if (s.is_dynamic_dim(d)) out.set_dynamic_dim(out.rank() - 1, true);
  };
  for (int64_t d : lb) add(lhs, d);
  for (int64_t d = 0; d < lhs.rank(); ++d)
    if (std::find(lall.begin(), lall.end(), d) == lall.end()) add(lhs, d);
  for (int64_t d = 0; d < rhs.rank(); ++d)
    if (std::find(rall.begin(), rall.end(), d) == rall.end()) add(rhs, d);
  return out;
}

StatusOr<Shape> InferDot(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectMinOperandCount(instr, 2));
  ASSIGN_OR_RETURN(Shape lhs, ArrayOperand(instr, 0));
  ASSIGN_OR_RETURN(Shape rhs, ArrayOperand(instr, 1));
  return DotFamilyShape(instr, lhs, rhs);
}

// ragged-dot(lhs, rhs, group_sizes): lhs_ragged_dims names one lhs dimension split into g
// consecutive groups of group_sizes[...]; its kind fixes the mode (jax.lax.ragged_dot_general):
//   non-contracting (m): rhs has a group dimension g (rhs_group_dims); result = dot shape;
//   contracting (k):     no rhs group dimension; result = [g] + dot shape;
//   batch (b):           no rhs group dimension; result = dot shape.
// group_sizes is [g], or [prefix..., g] where prefix is the lhs batch dimensions then the lhs
// dimensions of the ragged one's kind that precede it (for a ragged batch dimension: only the
// batch dimensions before it), in the order RaggedDotGroupPrefix gives.
StatusOr<Shape> InferRaggedDot(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectOperandCount(instr, 3));
  ASSIGN_OR_RETURN(Shape lhs, ArrayOperand(instr, 0));
  ASSIGN_OR_RETURN(Shape rhs, ArrayOperand(instr, 1));
  ASSIGN_OR_RETURN(Shape sizes, ArrayOperand(instr, 2));
  ASSIGN_OR_RETURN(RaggedDotMode mode, ClassifyRaggedDot(instr, lhs.rank(), rhs.rank()));
  if (!IsInteger(sizes.dtype()))
    return InvalidArgument("ragged-dot group_sizes must be an integer array, got {}",
                           ShapeText(sizes));
  if (sizes.rank() < 1) return InvalidArgument("ragged-dot group_sizes must have rank >= 1");
  // First the dot's own dimension numbers (each checked in range), which the group prefix reads.
  ASSIGN_OR_RETURN(Shape out, DotFamilyShape(instr, lhs, rhs, mode.rhs_group));
  const int64_t g = sizes.dim(sizes.rank() - 1);
  if (mode.rhs_group && rhs.dim(*mode.rhs_group) != g)
    return InvalidArgument("ragged-dot has {} groups in group_sizes but rhs group dimension {} has "
                           "size {}", g, *mode.rhs_group, rhs.dim(*mode.rhs_group));
  if (sizes.rank() > 1) {
    std::vector<int64_t> want;
    for (int64_t d : mode.group_prefix) want.push_back(lhs.dim(d));
    want.push_back(g);
    if (sizes.dims() != want)
      return InvalidArgument("ragged-dot group_sizes {} must be [{}] or [{}]", ShapeText(sizes), g,
                             fmt::join(want, ","));
  }
  if (mode.kind == RaggedDotMode::kContracting) out.mutable_dims().insert(out.mutable_dims().begin(), g);
  return out;
}

// scaled-dot(lhs, rhs, lhs_scale, rhs_scale) (XLA's operand order) is
// dot(lhs * S(lhs_scale), rhs * S(rhs_scale)), where S repeats each scale element over a block:
// a scale has the rank of its operand and each of its dimensions divides the operand's (block
// size = operand size / scale size), or is a scalar (one block).
StatusOr<Shape> InferScaledDot(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectOperandCount(instr, 4));
  ASSIGN_OR_RETURN(Shape lhs, ArrayOperand(instr, 0));
  ASSIGN_OR_RETURN(Shape rhs, ArrayOperand(instr, 1));
  ASSIGN_OR_RETURN(Shape lhs_scale, ArrayOperand(instr, 2));
  ASSIGN_OR_RETURN(Shape rhs_scale, ArrayOperand(instr, 3));
  auto check = [&](const Shape& x, const Shape& scale, std::string_view which) -> Status {
    if (IsComplex(scale.dtype()) || scale.dtype() == DType::kPred)
      return InvalidArgument("scaled-dot {} scale must be real, got {}", which, ShapeText(scale));
    if (scale.rank() == 0) return absl::OkStatus();
    if (scale.rank() != x.rank())
      return InvalidArgument("scaled-dot {} scale {} must have the rank of {} or be a scalar",
                             which, ShapeText(scale), ShapeText(x));
    for (int64_t d = 0; d < x.rank(); ++d)
      if (scale.dim(d) <= 0 || x.dim(d) % scale.dim(d) != 0)
        return InvalidArgument("scaled-dot {} scale {}: dimension {} (size {}) does not divide "
                               "the operand's {} into blocks", which, ShapeText(scale), d,
                               scale.dim(d), x.dim(d));
    return absl::OkStatus();
  };
  RETURN_IF_ERROR(check(lhs, lhs_scale, "lhs"));
  RETURN_IF_ERROR(check(rhs, rhs_scale, "rhs"));
  return DotFamilyShape(instr, lhs, rhs);
}

StatusOr<Shape> InferConvolution(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectOperandCount(instr, 2));
  ASSIGN_OR_RETURN(Shape lhs, ArrayOperand(instr, 0));
  ASSIGN_OR_RETURN(Shape rhs, ArrayOperand(instr, 1));
  const ConvDims* dn = instr.attr<ConvDims>(AttrId::kDimLabels);
  if (!dn) return InvalidArgument("missing attribute dim_labels");
  int64_t ns = static_cast<int64_t>(dn->input_spatial.size());
  if (static_cast<int64_t>(dn->kernel_spatial.size()) != ns ||
      static_cast<int64_t>(dn->output_spatial.size()) != ns)
    return InvalidArgument("dim_labels have different numbers of spatial dimensions");
  int64_t rank = ns + 2;
  if (lhs.rank() != rank || rhs.rank() != rank)
    return InvalidArgument("convolution operands {} and {} must have rank {} per dim_labels",
                           ShapeText(lhs), ShapeText(rhs), rank);
  std::vector<int64_t> in = dn->input_spatial, k = dn->kernel_spatial, o = dn->output_spatial;
  in.push_back(dn->input_batch);
  in.push_back(dn->input_feature);
  k.push_back(dn->kernel_input_feature);
  k.push_back(dn->kernel_output_feature);
  o.push_back(dn->output_batch);
  o.push_back(dn->output_feature);
  RETURN_IF_ERROR(CheckDimList(in, rank, "dim_labels input dimension"));
  RETURN_IF_ERROR(CheckDimList(k, rank, "dim_labels kernel dimension"));
  RETURN_IF_ERROR(CheckDimList(o, rank, "dim_labels output dimension"));
  int64_t fgc = instr.int_attr(AttrId::kFeatureGroupCount, 1);
  int64_t bgc = instr.int_attr(AttrId::kBatchGroupCount, 1);
  if (fgc < 1) return InvalidArgument("feature_group_count must be positive, got {}", fgc);
  if (bgc < 1) return InvalidArgument("batch_group_count must be positive, got {}", bgc);
  if (fgc > 1 && bgc > 1)
    return InvalidArgument("feature_group_count and batch_group_count cannot both exceed 1");
  int64_t batch = lhs.dim(dn->input_batch), in_feature = lhs.dim(dn->input_feature);
  int64_t k_in = rhs.dim(dn->kernel_input_feature), k_out = rhs.dim(dn->kernel_output_feature);
  if (in_feature % fgc != 0 || in_feature / fgc != k_in)
    return InvalidArgument("input feature size {} must equal kernel input feature size {} times "
                           "feature_group_count {}", in_feature, k_in, fgc);
  if (k_out % fgc != 0)
    return InvalidArgument("kernel output feature size {} is not divisible by feature_group_count "
                           "{}", k_out, fgc);
  if (batch % bgc != 0)
    return InvalidArgument("input batch size {} is not divisible by batch_group_count {}", batch, bgc);
  if (k_out % bgc != 0)
    return InvalidArgument("kernel output feature size {} is not divisible by batch_group_count {}",
                           k_out, bgc);
  Window window;
  if (const Window* w = instr.attr<Window>(AttrId::kWindow)) window = *w;
  else if (ns != 0) return InvalidArgument("missing attribute window");
  RETURN_IF_ERROR(CheckWindow(window, ns));
  // Like XLA's shape inference (and dot here), the operand element types may differ (bf16
  // activations with an s8 kernel, a pred mask): the result type is the declared one. A complex
  // operand with a real one has no meaning in XLA's convolution either.
  if (IsComplex(lhs.dtype()) != IsComplex(rhs.dtype()))
    return InvalidArgument("convolution operand types {} and {} do not match",
                           DTypeName(lhs.dtype()), DTypeName(rhs.dtype()));
  DType type = instr.shape().IsArray() ? instr.shape().dtype() : lhs.dtype();
  Shape out(type, std::vector<int64_t>(rank, 0));
  out.set_dim(dn->output_batch, batch / bgc);
  out.set_dim(dn->output_feature, k_out);
  for (int64_t i = 0; i < ns; ++i) {
    if (window.dims[i].size != rhs.dim(dn->kernel_spatial[i]))
      return InvalidArgument("window size {} in spatial dimension {} does not match kernel size {}",
                             window.dims[i].size, i, rhs.dim(dn->kernel_spatial[i]));
    ASSIGN_OR_RETURN(int64_t size,
                     WindowedOutputSize(lhs.dim(dn->input_spatial[i]), window.dims[i], i));
    out.set_dim(dn->output_spatial[i], size);
  }
  return out;
}

// Dims of `indices` other than index_vector_dim (the "batch" dims of gather/scatter).
std::vector<int64_t> IndexBatchDims(const Shape& indices, int64_t index_vector_dim) {
  std::vector<int64_t> out;
  for (int64_t d = 0; d < indices.rank(); ++d)
    if (d != index_vector_dim) out.push_back(d);
  return out;
}

Status CheckSortedDims(const std::vector<int64_t>& dims, int64_t rank, std::string_view what) {
  RETURN_IF_ERROR(CheckDimList(dims, rank, what));
  if (!std::is_sorted(dims.begin(), dims.end()))
    return InvalidArgument("{} must be sorted", what);
  return absl::OkStatus();
}

// Common checks of gather/scatter index operands. Returns the index vector size.
StatusOr<int64_t> CheckIndices(const Shape& indices, int64_t index_vector_dim) {
  if (!IsInteger(indices.dtype()))
    return InvalidArgument("indices must be integers, got {}", ShapeText(indices));
  if (index_vector_dim < 0 || index_vector_dim > indices.rank())
    return InvalidArgument("index_vector_dim {} out of range for indices {}", index_vector_dim,
                           ShapeText(indices));
  return index_vector_dim == indices.rank() ? 1 : indices.dim(index_vector_dim);
}

StatusOr<Shape> InferGather(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectOperandCount(instr, 2));
  ASSIGN_OR_RETURN(Shape operand, ArrayOperand(instr, 0));
  ASSIGN_OR_RETURN(Shape indices, ArrayOperand(instr, 1));
  ASSIGN_OR_RETURN(std::vector<int64_t> offset_dims, RequiredInts(instr, AttrId::kOffsetDims));
  const auto& collapsed = instr.ints_attr(AttrId::kCollapsedSliceDims);
  ASSIGN_OR_RETURN(std::vector<int64_t> start_index_map, RequiredInts(instr, AttrId::kStartIndexMap));
  ASSIGN_OR_RETURN(int64_t ivd, RequiredInt(instr, AttrId::kIndexVectorDim));
  ASSIGN_OR_RETURN(std::vector<int64_t> slice_sizes, RequiredInts(instr, AttrId::kSliceSizes));
  const auto& obatch = instr.ints_attr(AttrId::kOperandBatchingDims);
  const auto& ibatch = instr.ints_attr(AttrId::kStartIndicesBatchingDims);
  ASSIGN_OR_RETURN(int64_t index_size, CheckIndices(indices, ivd));
  std::vector<int64_t> batch_dims = IndexBatchDims(indices, ivd);
  int64_t out_rank = static_cast<int64_t>(batch_dims.size() + offset_dims.size());
  RETURN_IF_ERROR(CheckSortedDims(offset_dims, out_rank, "offset_dims"));
  RETURN_IF_ERROR(CheckSortedDims(collapsed, operand.rank(), "collapsed_slice_dims"));
  RETURN_IF_ERROR(CheckSortedDims(obatch, operand.rank(), "operand_batching_dims"));
  for (int64_t d : collapsed)
    if (std::find(obatch.begin(), obatch.end(), d) != obatch.end())
      return InvalidArgument("dimension {} is both collapsed and a batching dimension", d);
  if (static_cast<int64_t>(slice_sizes.size()) != operand.rank())
    return InvalidArgument("slice_sizes has {} entries but the operand has rank {}",
                           slice_sizes.size(), operand.rank());
  if (offset_dims.size() + collapsed.size() + obatch.size() != slice_sizes.size())
    return InvalidArgument("offset_dims ({}) + collapsed_slice_dims ({}) + operand_batching_dims "
                           "({}) must equal the operand rank {}", offset_dims.size(),
                           collapsed.size(), obatch.size(), operand.rank());
  if (static_cast<int64_t>(start_index_map.size()) != index_size)
    return InvalidArgument("start_index_map has {} entries but the index vector has {}",
                           start_index_map.size(), index_size);
  RETURN_IF_ERROR(CheckDimList(start_index_map, operand.rank(), "start_index_map"));
  for (int64_t d : start_index_map)
    if (std::find(obatch.begin(), obatch.end(), d) != obatch.end())
      return InvalidArgument("start_index_map contains batching dimension {}", d);
  if (ibatch.size() != obatch.size())
    return InvalidArgument("start_indices_batching_dims has {} entries but operand_batching_dims "
                           "has {}", ibatch.size(), obatch.size());
  RETURN_IF_ERROR(CheckDimList(ibatch, indices.rank(), "start_indices_batching_dims"));
  for (size_t i = 0; i < ibatch.size(); ++i) {
    if (ibatch[i] == ivd)
      return InvalidArgument("start_indices_batching_dims contains index_vector_dim {}", ivd);
    if (indices.dim(ibatch[i]) != operand.dim(obatch[i]))
      return InvalidArgument("batching dimension sizes differ: operand {} has {}, indices {} has {}",
                             obatch[i], operand.dim(obatch[i]), ibatch[i], indices.dim(ibatch[i]));
  }
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (slice_sizes[d] < 0 || (operand.dim(d) >= 0 && slice_sizes[d] > operand.dim(d)))
      return InvalidArgument("slice_sizes[{}] = {} is out of bounds for dimension size {}", d,
                             slice_sizes[d], operand.dim(d));
  }
  for (const auto* list : {&collapsed, &obatch})
    for (int64_t d : *list)
      if (slice_sizes[d] > 1)
        return InvalidArgument("slice_sizes[{}] must be at most 1 for a collapsed or batching "
                               "dimension, got {}", d, slice_sizes[d]);
  std::vector<int64_t> window_sizes;
  for (int64_t d = 0; d < operand.rank(); ++d)
    if (std::find(collapsed.begin(), collapsed.end(), d) == collapsed.end() &&
        std::find(obatch.begin(), obatch.end(), d) == obatch.end())
      window_sizes.push_back(slice_sizes[d]);
  Shape out(operand.dtype(), {});
  size_t next_offset = 0, next_batch = 0;
  for (int64_t d = 0; d < out_rank; ++d) {
    if (std::find(offset_dims.begin(), offset_dims.end(), d) != offset_dims.end()) {
      out.mutable_dims().push_back(window_sizes[next_offset++]);
    } else {
      int64_t id = batch_dims[next_batch++];
      out.mutable_dims().push_back(indices.dim(id));
      if (indices.is_dynamic_dim(id)) out.set_dynamic_dim(d, true);
    }
  }
  return out;
}

StatusOr<Shape> InferScatter(const Instruction& instr) {
  int64_t count = instr.operand_count();
  if (count < 3 || count % 2 != 1)
    return InvalidArgument("scatter needs N operands, indices and N updates, got {} operands", count);
  int64_t n = (count - 1) / 2;
  std::vector<Shape> operands, updates;
  for (int64_t i = 0; i < n; ++i) {
    ASSIGN_OR_RETURN(Shape s, ArrayOperand(instr, i));
    operands.push_back(std::move(s));
    ASSIGN_OR_RETURN(Shape u, ArrayOperand(instr, n + 1 + i));
    updates.push_back(std::move(u));
  }
  ASSIGN_OR_RETURN(Shape indices, ArrayOperand(instr, n));
  for (int64_t i = 1; i < n; ++i) {
    if (!SameDims(operands[i], operands[0]))
      return InvalidArgument("scatter operands {} and {} have different dimensions",
                             ShapeText(operands[0]), ShapeText(operands[i]));
    if (!SameDims(updates[i], updates[0]))
      return InvalidArgument("scatter updates {} and {} have different dimensions",
                             ShapeText(updates[0]), ShapeText(updates[i]));
  }
  for (int64_t i = 0; i < n; ++i)
    if (!SameTypeIgnoringFpPrecision(operands[i].dtype(), updates[i].dtype()))
      return InvalidArgument("scatter update type {} does not match operand type {}",
                             DTypeName(updates[i].dtype()), DTypeName(operands[i].dtype()));
  const Shape& operand = operands[0];
  const Shape& update = updates[0];
  ASSIGN_OR_RETURN(std::vector<int64_t> window_dims, RequiredInts(instr, AttrId::kUpdateWindowDims));
  const auto& inserted = instr.ints_attr(AttrId::kInsertedWindowDims);
  ASSIGN_OR_RETURN(std::vector<int64_t> to_operand,
                   RequiredInts(instr, AttrId::kScatterDimsToOperandDims));
  ASSIGN_OR_RETURN(int64_t ivd, RequiredInt(instr, AttrId::kIndexVectorDim));
  const auto& obatch = instr.ints_attr(AttrId::kInputBatchingDims);
  const auto& ibatch = instr.ints_attr(AttrId::kScatterIndicesBatchingDims);
  ASSIGN_OR_RETURN(const Computation* reducer, RequiredComputation(instr, AttrId::kToApply));
  ASSIGN_OR_RETURN(int64_t index_size, CheckIndices(indices, ivd));
  std::vector<int64_t> scatter_dims = IndexBatchDims(indices, ivd);
  if (update.rank() != static_cast<int64_t>(scatter_dims.size() + window_dims.size()))
    return InvalidArgument("scatter update rank {} must equal {} scatter dimensions plus {} "
                           "update_window_dims", update.rank(), scatter_dims.size(),
                           window_dims.size());
  RETURN_IF_ERROR(CheckSortedDims(window_dims, update.rank(), "update_window_dims"));
  RETURN_IF_ERROR(CheckSortedDims(inserted, operand.rank(), "inserted_window_dims"));
  RETURN_IF_ERROR(CheckSortedDims(obatch, operand.rank(), "input_batching_dims"));
  for (int64_t d : inserted)
    if (std::find(obatch.begin(), obatch.end(), d) != obatch.end())
      return InvalidArgument("dimension {} is both inserted and a batching dimension", d);
  if (static_cast<int64_t>(window_dims.size() + inserted.size() + obatch.size()) != operand.rank())
    return InvalidArgument("update_window_dims ({}) + inserted_window_dims ({}) + "
                           "input_batching_dims ({}) must equal the operand rank {}",
                           window_dims.size(), inserted.size(), obatch.size(), operand.rank());
  if (static_cast<int64_t>(to_operand.size()) != index_size)
    return InvalidArgument("scatter_dims_to_operand_dims has {} entries but the index vector has {}",
                           to_operand.size(), index_size);
  RETURN_IF_ERROR(CheckDimList(to_operand, operand.rank(), "scatter_dims_to_operand_dims"));
  if (ibatch.size() != obatch.size())
    return InvalidArgument("scatter_indices_batching_dims has {} entries but input_batching_dims "
                           "has {}", ibatch.size(), obatch.size());
  RETURN_IF_ERROR(CheckDimList(ibatch, indices.rank(), "scatter_indices_batching_dims"));
  for (size_t i = 0; i < ibatch.size(); ++i)
    if (ibatch[i] == ivd)
      return InvalidArgument("scatter_indices_batching_dims contains index_vector_dim {}", ivd);
  // Window dims of the update fit inside the operand's non-inserted, non-batching dims.
  size_t w = 0;
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (std::find(inserted.begin(), inserted.end(), d) != inserted.end() ||
        std::find(obatch.begin(), obatch.end(), d) != obatch.end())
      continue;
    int64_t ud = window_dims[w++];
    if (operand.dim(d) >= 0 && update.dim(ud) > operand.dim(d))
      return InvalidArgument("scatter update window dimension {} (size {}) exceeds operand "
                             "dimension {} (size {})", ud, update.dim(ud), d, operand.dim(d));
  }
  // Scatter dims of the update match the indices' batch dims.
  size_t s = 0;
  for (int64_t d = 0; d < update.rank(); ++d) {
    if (std::find(window_dims.begin(), window_dims.end(), d) != window_dims.end()) continue;
    int64_t id = scatter_dims[s++];
    if (update.dim(d) != indices.dim(id))
      return InvalidArgument("scatter update dimension {} (size {}) does not match indices "
                             "dimension {} (size {})", d, update.dim(d), id, indices.dim(id));
  }
  RETURN_IF_ERROR(CheckReducer(*reducer, Scalars(operands), "scatter computation"));
  return TupleOrSingle(operands);
}

StatusOr<Shape> InferSort(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectMinOperandCount(instr, 1));
  std::vector<Shape> shapes, params;
  for (int64_t i = 0; i < instr.operand_count(); ++i) {
    ASSIGN_OR_RETURN(Shape s, ArrayOperand(instr, i));
    if (!SameDims(s, shapes.empty() ? s : shapes[0]))
      return InvalidArgument("sort operands {} and {} have different dimensions",
                             ShapeText(shapes[0]), ShapeText(s));
    params.push_back(Shape::Scalar(s.dtype()));
    params.push_back(Shape::Scalar(s.dtype()));
    shapes.push_back(std::move(s));
  }
  const std::vector<int64_t>& dims = instr.dimensions();
  if (dims.size() != 1) return InvalidArgument("sort needs exactly one dimension in dimensions");
  RETURN_IF_ERROR(CheckDimList(dims, shapes[0].rank(), "sort dimension"));
  ASSIGN_OR_RETURN(const Computation* cmp, RequiredComputation(instr, AttrId::kToApply));
  ASSIGN_OR_RETURN(Shape root, CheckSignature(*cmp, params, "comparator", true));
  if (!SameShape(root, Shape::Scalar(DType::kPred)))
    return InvalidArgument("comparator %{} must return pred[], returns {}", cmp->name(),
                           ShapeText(root));
  if (shapes.size() == 1) return shapes[0];
  return Shape::Tuple(std::move(shapes));
}

StatusOr<Shape> InferMap(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectMinOperandCount(instr, 1));
  std::vector<Shape> params;
  ASSIGN_OR_RETURN(Shape first, ArrayOperand(instr, 0));
  for (int64_t i = 0; i < instr.operand_count(); ++i) {
    ASSIGN_OR_RETURN(Shape s, ArrayOperand(instr, i));
    if (!SameDims(s, first))
      return InvalidArgument("map operands {} and {} have different dimensions", ShapeText(first),
                             ShapeText(s));
    params.push_back(Shape::Scalar(s.dtype()));
  }
  const auto& dims = instr.dimensions();
  if (!dims.empty()) {
    if (static_cast<int64_t>(dims.size()) != first.rank())
      return InvalidArgument("map dimensions must list every operand dimension");
    for (size_t i = 0; i < dims.size(); ++i)
      if (dims[i] != static_cast<int64_t>(i))
        return InvalidArgument("map dimensions must be {{0, ..., rank-1}} in order");
  }
  ASSIGN_OR_RETURN(const Computation* f, RequiredComputation(instr, AttrId::kToApply));
  ASSIGN_OR_RETURN(Shape root, CheckSignature(*f, params, "mapped computation"));
  if (!root.IsArray() || root.rank() != 0)
    return InvalidArgument("mapped computation %{} must return a scalar, returns {}", f->name(),
                           ShapeText(root));
  first.set_dtype(root.dtype());
  return first;
}

StatusOr<Shape> InferFft(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectOperandCount(instr, 1));
  ASSIGN_OR_RETURN(Shape in, ArrayOperand(instr, 0));
  const std::string& type = instr.string_attr(AttrId::kFftType);
  if (type.empty()) return InvalidArgument("missing attribute fft_type");
  ASSIGN_OR_RETURN(std::vector<int64_t> len, RequiredInts(instr, AttrId::kFftLength));
  int64_t n = static_cast<int64_t>(len.size());
  if (n < 1 || n > 3) return InvalidArgument("fft_length must have 1 to 3 entries, got {}", n);
  if (in.rank() < n)
    return InvalidArgument("fft operand {} has fewer dimensions than fft_length", ShapeText(in));
  int64_t first = in.rank() - n;
  auto check_dims = [&](int64_t last_expected) -> Status {
    for (int64_t i = 0; i < n; ++i) {
      int64_t want = i == n - 1 ? last_expected : len[i];
      if (in.dim(first + i) != want)
        return InvalidArgument("fft operand dimension {} has size {} but fft_length requires {}",
                               first + i, in.dim(first + i), want);
    }
    return absl::OkStatus();
  };
  Shape out = in;
  if (type == "FFT" || type == "IFFT") {
    // Like XLA, fft_length need not match the transformed dims: the result keeps the operand's
    // shape, and the evaluator pads (with zeros) or truncates each transformed dim to its length
    // on the way in and on the way out.
    if (!IsComplex(in.dtype()))
      return InvalidArgument("{} needs a complex operand, got {}", type, ShapeText(in));
    return out;
  }
  if (type == "RFFT") {
    if (in.dtype() != DType::kF32 && in.dtype() != DType::kF64)
      return InvalidArgument("RFFT needs an f32 or f64 operand, got {}", ShapeText(in));
    RETURN_IF_ERROR(check_dims(len[n - 1]));
    out.set_dtype(in.dtype() == DType::kF32 ? DType::kC64 : DType::kC128);
    if (len[n - 1] != 0) out.set_dim(in.rank() - 1, len[n - 1] / 2 + 1);
    return out;
  }
  if (type == "IRFFT") {
    if (!IsComplex(in.dtype()))
      return InvalidArgument("IRFFT needs a complex operand, got {}", ShapeText(in));
    RETURN_IF_ERROR(check_dims(len[n - 1] == 0 ? 0 : len[n - 1] / 2 + 1));
    out.set_dtype(ComplexComponentType(in.dtype()));
    out.set_dim(in.rank() - 1, len[n - 1]);
    return out;
  }
  return InvalidArgument("unknown fft_type {}", type);
}

StatusOr<Shape> InferCholesky(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectOperandCount(instr, 1));
  ASSIGN_OR_RETURN(Shape a, ArrayOperand(instr, 0));
  if (!IsFloat(a.dtype()) && !IsComplex(a.dtype()))
    return InvalidArgument("cholesky needs a floating-point operand, got {}", ShapeText(a));
  if (a.rank() < 2 || a.dim(a.rank() - 1) != a.dim(a.rank() - 2))
    return InvalidArgument("cholesky needs square matrices in its two minor dimensions, got {}",
                           ShapeText(a));
  return a;
}

StatusOr<Shape> InferTriangularSolve(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectOperandCount(instr, 2));
  ASSIGN_OR_RETURN(Shape a, ArrayOperand(instr, 0));
  ASSIGN_OR_RETURN(Shape b, ArrayOperand(instr, 1));
  if (!IsFloat(a.dtype()) && !IsComplex(a.dtype()))
    return InvalidArgument("triangular-solve needs floating-point operands, got {}", ShapeText(a));
  if (a.dtype() != b.dtype())
    return InvalidArgument("triangular-solve operand types {} and {} differ", DTypeName(a.dtype()),
                           DTypeName(b.dtype()));
  int64_t r = a.rank();
  if (r < 2 || b.rank() != r)
    return InvalidArgument("triangular-solve operands {} and {} must have equal rank >= 2",
                           ShapeText(a), ShapeText(b));
  if (a.dim(r - 1) != a.dim(r - 2))
    return InvalidArgument("triangular-solve matrix {} must be square", ShapeText(a));
  for (int64_t d = 0; d < r - 2; ++d)
    if (a.dim(d) != b.dim(d))
      return InvalidArgument("triangular-solve batch dimensions of {} and {} differ", ShapeText(a),
                             ShapeText(b));
  bool left = instr.bool_attr(AttrId::kLeftSide);
  int64_t solved = left ? b.dim(r - 2) : b.dim(r - 1);
  if (solved != a.dim(r - 1))
    return InvalidArgument("triangular-solve: {} dimension of {} must match {} (left_side={})",
                           left ? "second-minor" : "minor", ShapeText(b), a.dim(r - 1), left);
  const std::string& t = instr.string_attr(AttrId::kTransposeA);
  if (!t.empty() && t != "NO_TRANSPOSE" && t != "TRANSPOSE" && t != "ADJOINT")
    return InvalidArgument("unknown transpose_a {}", t);
  return b;
}

StatusOr<Shape> InferRng(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectOperandCount(instr, 2));
  ASSIGN_OR_RETURN(Shape a, ArrayOperand(instr, 0));
  ASSIGN_OR_RETURN(Shape b, ArrayOperand(instr, 1));
  if (a.rank() != 0 || b.rank() != 0 || a.dtype() != b.dtype())
    return InvalidArgument("rng parameters {} and {} must be scalars of one type", ShapeText(a),
                           ShapeText(b));
  const std::string& dist = instr.string_attr(AttrId::kDistribution);
  if (dist == "rng_normal") {
    if (!IsFloat(a.dtype()))
      return InvalidArgument("rng_normal needs floating-point parameters, got {}", ShapeText(a));
  } else if (dist != "rng_uniform") {
    return dist.empty() ? InvalidArgument("missing attribute distribution")
                        : InvalidArgument("unknown distribution {}", dist);
  }
  if (!instr.shape().IsArray())
    return InvalidArgument("rng must produce an array, got {}", ShapeText(instr.shape()));
  Shape out = StripLayout(instr.shape());
  out.set_dtype(a.dtype());
  return out;
}

StatusOr<Shape> InferRngBitGenerator(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectOperandCount(instr, 1));
  ASSIGN_OR_RETURN(Shape state, ArrayOperand(instr, 0));
  if (state.rank() != 1 || !IsUnsigned(state.dtype()))
    return InvalidArgument("rng-bit-generator state must be an unsigned vector, got {}",
                           ShapeText(state));
  const Shape& d = instr.shape();
  if (!d.IsTuple() || d.tuple_size() != 2 || !d.tuple_shape(1).IsArray())
    return InvalidArgument("rng-bit-generator must produce (state, values), got {}", ShapeText(d));
  Shape values = StripLayout(d.tuple_shape(1));
  if (!IsInteger(values.dtype()))
    return InvalidArgument("rng-bit-generator values must be integers, got {}", ShapeText(values));
  return Shape::Tuple({state, values});
}

StatusOr<Shape> FeatureCheck(const Instruction& instr, const Shape& operand,
                             const std::vector<int64_t>& feature_operands, int64_t* feature_size) {
  ASSIGN_OR_RETURN(int64_t fi, RequiredInt(instr, AttrId::kFeatureIndex));
  if (fi < 0 || fi >= operand.rank())
    return InvalidArgument("feature_index {} out of range for {}", fi, ShapeText(operand));
  if (!IsFloat(operand.dtype()))
    return InvalidArgument("batch norm needs a floating-point operand, got {}", ShapeText(operand));
  *feature_size = operand.dim(fi);
  for (int64_t i : feature_operands) {
    ASSIGN_OR_RETURN(Shape s, ArrayOperand(instr, i));
    if (s.rank() != 1 || s.dim(0) != operand.dim(fi) ||
        !SameTypeIgnoringFpPrecision(s.dtype(), operand.dtype()))
      return InvalidArgument("batch norm operand {} is {}, expected a {} vector of {} elements", i,
                             ShapeText(s), DTypeName(operand.dtype()), operand.dim(fi));
  }
  return Shape(operand.dtype(), {operand.dim(fi)});
}

StatusOr<Shape> InferBatchNorm(const Instruction& instr) {
  Opcode op = instr.opcode();
  int64_t want = op == Opcode::kBatchNormTraining ? 3 : 5;
  RETURN_IF_ERROR(ExpectOperandCount(instr, want));
  ASSIGN_OR_RETURN(Shape operand, ArrayOperand(instr, 0));
  int64_t fs = 0;
  switch (op) {
    case Opcode::kBatchNormTraining: {
      ASSIGN_OR_RETURN(Shape f, FeatureCheck(instr, operand, {1, 2}, &fs));
      return Shape::Tuple({operand, f, f});
    }
    case Opcode::kBatchNormInference: {
      ASSIGN_OR_RETURN(Shape f, FeatureCheck(instr, operand, {1, 2, 3, 4}, &fs));
      return operand;
    }
    default: {
      ASSIGN_OR_RETURN(Shape f, FeatureCheck(instr, operand, {1, 2, 3}, &fs));
      ASSIGN_OR_RETURN(Shape grad, ArrayOperand(instr, 4));
      if (!SameShapeIgnoringFpPrecision(grad, operand))
        return InvalidArgument("batch-norm-grad output gradient {} must match operand {}",
                               ShapeText(grad), ShapeText(operand));
      return Shape::Tuple({operand, f, f});
    }
  }
}

StatusOr<Shape> InferTopK(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectOperandCount(instr, 1));
  ASSIGN_OR_RETURN(Shape in, ArrayOperand(instr, 0));
  ASSIGN_OR_RETURN(int64_t k, RequiredInt(instr, AttrId::kK));
  if (in.rank() < 1) return InvalidArgument("topk needs an operand of rank at least 1");
  if (k < 0 || (in.dim(in.rank() - 1) >= 0 && k > in.dim(in.rank() - 1)))
    return InvalidArgument("topk k={} out of range for {}", k, ShapeText(in));
  Shape values = in;
  values.set_dim(in.rank() - 1, k);
  values.set_dynamic_dim(in.rank() - 1, false);
  Shape indices = values;
  indices.set_dtype(DType::kS32);
  return Shape::Tuple({values, indices});
}

StatusOr<Shape> InferStochasticConvert(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectOperandCount(instr, 2));
  ASSIGN_OR_RETURN(Shape operand, ArrayOperand(instr, 0));
  ASSIGN_OR_RETURN(Shape random, ArrayOperand(instr, 1));
  if (!IsFloat(operand.dtype()))
    return InvalidArgument("stochastic-convert operand must be floating point, got {}",
                           ShapeText(operand));
  if (!IsUnsigned(random.dtype()) || DTypeBitWidth(random.dtype()) != DTypeBitWidth(operand.dtype()))
    return InvalidArgument("stochastic-convert random bits {} must be unsigned of the operand's "
                           "width", ShapeText(random));
  if (!SameDims(operand, random))
    return InvalidArgument("stochastic-convert shapes {} and {} do not match", ShapeText(operand),
                           ShapeText(random));
  if (!instr.shape().IsArray())
    return InvalidArgument("stochastic-convert must produce an array");
  operand.set_dtype(instr.shape().dtype());
  return operand;
}

// scan(inputs..., inits...) with num_carries trailing carries: to_apply takes (one slice of
// each input along dimensions={d}, i.e. without that dimension; then each carry) and returns
// (outputs..., new carries...) (a lone array: the carry when num_carries > 0, else the output).
// The result is (each output stacked along d..., final carries...), or that lone array.
StatusOr<Shape> InferScan(const Instruction& instr) {
  ASSIGN_OR_RETURN(int64_t carries, RequiredInt(instr, AttrId::kNumCarries));
  const int64_t n = instr.operand_count();
  if (carries < 0 || carries > n)
    return InvalidArgument("scan num_carries={} must be between 0 and the operand count {}",
                           carries, n);
  const int64_t inputs = n - carries;
  if (inputs == 0) return InvalidArgument("scan needs at least one input besides its carries");
  const std::vector<int64_t>& dims = instr.dimensions();
  if (dims.size() != 1) return InvalidArgument("scan needs exactly one dimension in dimensions");
  std::vector<Shape> params;
  int64_t length = -1;
  for (int64_t i = 0; i < n; ++i) {
    ASSIGN_OR_RETURN(Shape s, ArrayOperand(instr, i));
    if (i < inputs) {
      RETURN_IF_ERROR(CheckDimList(dims, s.rank(), "scan dimension"));
      if (length < 0) length = s.dim(dims[0]);
      if (s.dim(dims[0]) != length)
        return InvalidArgument("scan inputs differ in the length of dimension {} ({} vs {})",
                               dims[0], length, s.dim(dims[0]));
      s.mutable_dims().erase(s.mutable_dims().begin() + dims[0]);
    }
    params.push_back(std::move(s));
  }
  ASSIGN_OR_RETURN(const Computation* body, RequiredComputation(instr, AttrId::kToApply));
  ASSIGN_OR_RETURN(Shape root, CheckSignature(*body, params, "scan body"));
  std::vector<Shape> parts = root.IsTuple() ? root.tuple_shapes() : std::vector<Shape>{root};
  const int64_t outputs = static_cast<int64_t>(parts.size()) - carries;
  if (outputs < 0 || (!root.IsTuple() && carries > 1))
    return InvalidArgument("scan body %{} returns {} but the scan has {} carries", body->name(),
                           ShapeText(root), carries);
  for (int64_t c = 0; c < carries; ++c)
    if (!SameShape(parts[outputs + c], params[inputs + c]))
      return InvalidArgument("scan body %{} returns carry {} as {} but takes it as {}",
                             body->name(), c, ShapeText(parts[outputs + c]),
                             ShapeText(params[inputs + c]));
  for (int64_t o = 0; o < outputs; ++o) {
    if (!parts[o].IsArray())
      return InvalidArgument("scan output {} must be an array, is {}", o, ShapeText(parts[o]));
    if (dims[0] > parts[o].rank())
      return InvalidArgument("scan dimension {} is past the rank of output {} ({})", dims[0], o,
                             ShapeText(parts[o]));
    parts[o].mutable_dims().insert(parts[o].mutable_dims().begin() + dims[0], length);
  }
  if (!root.IsTuple()) return parts[0];
  return Shape::Tuple(std::move(parts));
}

// shuffle(x), dimensions={...}: moves elements within the listed dimensions (by its mode:
// rotate, permute, ...); the result has the operand's shape.
StatusOr<Shape> InferShuffle(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectOperandCount(instr, 1));
  ASSIGN_OR_RETURN(Shape s, ArrayOperand(instr, 0));
  RETURN_IF_ERROR(CheckDimList(instr.dimensions(), s.rank(), "shuffle dimension"));
  return s;
}

}  // namespace

StatusOr<Shape> InferCompute(const Instruction& instr) {
  switch (instr.opcode()) {
    case Opcode::kReduce: return InferReduce(instr);
    case Opcode::kReduceWindow: return InferReduceWindow(instr);
    case Opcode::kSelectAndScatter: return InferSelectAndScatter(instr);
    case Opcode::kDot: return InferDot(instr);
    case Opcode::kRaggedDot: return InferRaggedDot(instr);
    case Opcode::kScaledDot: return InferScaledDot(instr);
    case Opcode::kScan: return InferScan(instr);
    case Opcode::kShuffle: return InferShuffle(instr);
    case Opcode::kConvolution: return InferConvolution(instr);
    case Opcode::kGather: return InferGather(instr);
    case Opcode::kScatter: return InferScatter(instr);
    case Opcode::kSort: return InferSort(instr);
    case Opcode::kMap: return InferMap(instr);
    case Opcode::kFft: return InferFft(instr);
    case Opcode::kCholesky: return InferCholesky(instr);
    case Opcode::kTriangularSolve: return InferTriangularSolve(instr);
    case Opcode::kRng: return InferRng(instr);
    case Opcode::kRngBitGenerator: return InferRngBitGenerator(instr);
    case Opcode::kRngGetAndUpdateState:
      RETURN_IF_ERROR(ExpectOperandCount(instr, 0));
      return Shape(DType::kU64, {2});
    case Opcode::kBatchNormTraining: case Opcode::kBatchNormInference:
    case Opcode::kBatchNormGrad:
      return InferBatchNorm(instr);
    case Opcode::kTopK: return InferTopK(instr);
    case Opcode::kStochasticConvert: return InferStochasticConvert(instr);
    default: return Unimplemented("no compute rule for {}", OpcodeName(instr.opcode()));
  }
}

}  // namespace spmdc::shape_inference

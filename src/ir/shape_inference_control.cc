// Shape inference for control flow (while, conditional, call, fusion, async wrappers),
// collectives and their -start/-done forms, tokens, host transfers and the remaining
// structural ops (opt-barrier, domain, copy-start/-done, partition-id, replica-id).
//
// Async tuple shapes (GSPMD.md §4.2): a generic async-start produces
// ((operands...), result, context...); async-update passes it through; async-done yields the
// result. all-gather-start produces (operand, result) (each a tuple when variadic),
// collective-permute-start (operand, result, contexts...), copy-start (result, operand, context).
#include <algorithm>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "ir/collective_groups.h"
#include "ir/module.h"
#include "ir/shape_inference_internal.h"

namespace spmdc::shape_inference {
namespace {

std::vector<Shape> OperandShapes(const Instruction& instr, int64_t from = 0, int64_t to = -1) {
  std::vector<Shape> out;
  if (to < 0) to = instr.operand_count();
  for (int64_t i = from; i < to; ++i) out.push_back(StripLayout(instr.operand(i)->shape()));
  return out;
}

StatusOr<std::vector<Shape>> ArrayOperands(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectMinOperandCount(instr, 1));
  std::vector<Shape> out;
  for (int64_t i = 0; i < instr.operand_count(); ++i) {
    ASSIGN_OR_RETURN(Shape s, ArrayOperand(instr, i));
    out.push_back(std::move(s));
  }
  return out;
}

// ---- Control flow ----------------------------------------------------------------------------

StatusOr<Shape> InferWhile(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectOperandCount(instr, 1));
  ASSIGN_OR_RETURN(const Computation* cond, RequiredComputation(instr, AttrId::kCondition));
  ASSIGN_OR_RETURN(const Computation* body, RequiredComputation(instr, AttrId::kBody));
  Shape init = StripLayout(instr.operand(0)->shape());
  ASSIGN_OR_RETURN(Shape cond_root, CheckSignature(*cond, {init}, "while condition"));
  if (!SameShape(cond_root, Shape::Scalar(DType::kPred)))
    return InvalidArgument("while condition %{} must return pred[], returns {}", cond->name(),
                           ShapeText(cond_root));
  ASSIGN_OR_RETURN(Shape body_root, CheckSignature(*body, {init}, "while body"));
  if (!SameShape(body_root, init))
    return InvalidArgument("while body %{} returns {} but the loop state is {}", body->name(),
                           ShapeText(body_root), ShapeText(init));
  return init;
}

StatusOr<Shape> InferConditional(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectMinOperandCount(instr, 1));
  ASSIGN_OR_RETURN(Shape selector, ArrayOperand(instr, 0));
  std::vector<const Computation*> branches;
  if (selector.rank() != 0 || (selector.dtype() != DType::kPred && selector.dtype() != DType::kS32))
    return InvalidArgument("conditional selector must be pred[] or s32[], got {}",
                           ShapeText(selector));
  const auto* list = instr.attr<std::vector<Computation*>>(AttrId::kBranchComputations);
  if (list) {
    for (const Computation* c : *list) {
      if (!c) return InvalidArgument("null computation in branch_computations");
      branches.push_back(c);
    }
    if (branches.empty()) return InvalidArgument("branch_computations is empty");
    if (selector.dtype() == DType::kPred && branches.size() != 2)
      return InvalidArgument("a pred conditional needs exactly 2 branches, got {}", branches.size());
  } else if (selector.dtype() == DType::kPred) {
    ASSIGN_OR_RETURN(const Computation* t, RequiredComputation(instr, AttrId::kTrueComputation));
    ASSIGN_OR_RETURN(const Computation* f, RequiredComputation(instr, AttrId::kFalseComputation));
    branches = {t, f};
  } else {
    return InvalidArgument("missing attribute branch_computations");
  }
  if (instr.operand_count() != static_cast<int64_t>(branches.size()) + 1)
    return InvalidArgument("conditional with {} branches needs {} operands, got {}",
                           branches.size(), branches.size() + 1, instr.operand_count());
  std::optional<Shape> result;
  for (size_t i = 0; i < branches.size(); ++i) {
    Shape arg = StripLayout(instr.operand(i + 1)->shape());
    ASSIGN_OR_RETURN(Shape root, CheckSignature(*branches[i], {arg}, "branch computation"));
    if (result && !SameShape(*result, root))
      return InvalidArgument("branch computations return different shapes: {} and {}",
                             ShapeText(*result), ShapeText(root));
    if (!result) result = root;
  }
  return *result;
}

StatusOr<Shape> InferCallLike(const Instruction& instr, AttrId attr, std::string_view role) {
  ASSIGN_OR_RETURN(const Computation* c, RequiredComputation(instr, attr));
  for (Instruction* op : instr.operands())
    if (!op) return InvalidArgument("null operand");
  return CheckSignature(*c, OperandShapes(instr), role);
}

// ---- Async wrappers --------------------------------------------------------------------------

StatusOr<Shape> InferAsyncStart(const Instruction& instr) {
  ASSIGN_OR_RETURN(Shape root, InferCallLike(instr, AttrId::kCalls, "async computation"));
  std::vector<Shape> parts = {Shape::Tuple(OperandShapes(instr)), root};
  const Shape& d = instr.shape();
  if (d.IsTuple() && d.tuple_size() >= 2) {
    for (int64_t i = 2; i < d.tuple_size(); ++i) parts.push_back(StripLayout(d.tuple_shape(i)));
  } else {
    parts.push_back(Shape::Scalar(DType::kS32));
  }
  return Shape::Tuple(std::move(parts));
}

// The async state operand of an -update/-done: a tuple of at least `min_size` elements.
StatusOr<Shape> AsyncState(const Instruction& instr, int64_t min_size) {
  RETURN_IF_ERROR(ExpectOperandCount(instr, 1));
  const Shape& s = instr.operand(0)->shape();
  if (!s.IsTuple() || s.tuple_size() < min_size)
    return InvalidArgument("{} operand must be an async state tuple of at least {} elements, got {}",
                           OpcodeName(instr.opcode()), min_size, ShapeText(s));
  return StripLayout(s);
}

// ---- Collectives -----------------------------------------------------------------------------

// The number of devices in every group, or nullopt when the groups are absent or empty (all
// devices): the ids of a group, times the partition count in cross-replica-and-partition mode.
// As XLA's verifier (CheckReplicaGroups) requires: no empty group, every id of 0..n-1 exactly
// once, n the replica count, partition count or their product (as the group mode says, when the
// module sets them), groups of one size (all-reduce may mix sizes; the first is returned), and
// groups given in flattened-id mode.
StatusOr<std::optional<int64_t>> GroupSize(const Instruction& instr) {
  ASSIGN_OR_RETURN(GroupMode mode, CollectiveGroupMode(instr));
  const ReplicaGroups* rg = instr.attr<ReplicaGroups>(AttrId::kReplicaGroups);
  const bool empty = !rg || (!rg->iota && rg->groups.empty());
  if (empty) {
    if (mode == GroupMode::kFlattenedId)
      return InvalidArgument("replica_groups must be given with use_global_device_ids=true");
    return std::optional<int64_t>();
  }
  int64_t total = 0;
  std::optional<int64_t> size;
  if (rg->iota) {
    const auto& io = *rg->iota;
    if (io.num_groups < 1 || io.group_size < 1)
      return InvalidArgument("replica_groups iota form needs positive sizes");
    int64_t n = 1;
    for (int64_t d : io.reshape_dims) {
      if (d < 1) return InvalidArgument("replica_groups iota reshape dims must be positive");
      ASSIGN_OR_RETURN(n, CheckedMul(n, d));
    }
    ASSIGN_OR_RETURN(total, CheckedMul(io.num_groups, io.group_size));
    if (!io.reshape_dims.empty() && n != total)
      return InvalidArgument("replica_groups [{},{}] do not match reshape dims of {} devices",
                             io.num_groups, io.group_size, n);
    if (!io.transpose_perm.empty()) {
      if (io.transpose_perm.size() != io.reshape_dims.size())
        return InvalidArgument("replica_groups transpose has the wrong number of dimensions");
      RETURN_IF_ERROR(CheckDimList(io.transpose_perm, io.reshape_dims.size(),
                                   "replica_groups transpose dimension"));
    }
    size = io.group_size;
  } else {
    const bool uniform = instr.opcode() != Opcode::kAllReduce && instr.opcode() != Opcode::kAllReduceStart;
    absl::flat_hash_set<int64_t> seen;
    for (const auto& g : rg->groups) {
      if (g.empty()) return InvalidArgument("replica_groups contain an empty group");
      if (uniform && g.size() != rg->groups[0].size())
        return InvalidArgument("replica_groups have different sizes ({} and {})", rg->groups[0].size(), g.size());
      for (int64_t id : g) {
        if (id < 0) return InvalidArgument("replica_groups contain negative id {}", id);
        if (!seen.insert(id).second) return InvalidArgument("replica_groups contain id {} more than once", id);
      }
    }
    total = static_cast<int64_t>(seen.size());
    for (int64_t i = 0; i < total; ++i)
      if (!seen.contains(i)) return InvalidArgument("replica_groups do not name id {} (ids must be 0..{})", i, total - 1);
    size = static_cast<int64_t>(rg->groups[0].size());
  }
  const Module* module = instr.parent() ? instr.parent()->parent() : nullptr;
  if (module) {
    const int64_t replicas = module->replica_count(), partitions = module->num_partitions();
    const int64_t expected = GroupIdSpace(mode, replicas, partitions);
    std::string_view what = mode == GroupMode::kCrossPartition ? "partitions"
                            : mode == GroupMode::kFlattenedId  ? "devices (replicas x partitions)"
                                                               : "replicas";
    if (expected != 1 && total != expected)
      return InvalidArgument("replica_groups name {} ids, but the module has {} {}", total, expected, what);
    // A group of replica ids spans every partition of its replicas (XLA's GetSubgroupSize).
    if (mode == GroupMode::kCrossReplicaAndPartition) {
      ASSIGN_OR_RETURN(size, CheckedMul(*size, std::max<int64_t>(1, partitions)));
    }
  }
  return size;
}

// The collective's dimension from dimensions={d} (one entry), in range for `rank`.
StatusOr<int64_t> CollectiveDim(const Instruction& instr, int64_t rank) {
  const std::vector<int64_t>& dims = instr.dimensions();
  if (dims.size() != 1)
    return InvalidArgument("{} needs exactly one dimension in dimensions",
                           OpcodeName(instr.opcode()));
  if (dims[0] < 0 || dims[0] >= rank)
    return InvalidArgument("{} dimension {} out of range for rank {}", OpcodeName(instr.opcode()),
                           dims[0], rank);
  return dims[0];
}

// The declared result element `i` of a (possibly tuple) collective result, if any.
const Shape* DeclaredElement(const Shape& declared, int64_t i, int64_t n) {
  if (n == 1 && declared.IsArray()) return &declared;
  if (declared.IsTuple() && i < declared.tuple_size() && declared.tuple_shape(i).IsArray())
    return &declared.tuple_shape(i);
  return nullptr;
}

StatusOr<std::vector<Shape>> AllGatherResults(const Instruction& instr,
                                              const std::vector<Shape>& operands,
                                              const Shape* declared_results) {
  ASSIGN_OR_RETURN(std::optional<int64_t> shards, GroupSize(instr));
  int64_t n = static_cast<int64_t>(operands.size());
  std::vector<Shape> outs;
  // All devices take part when there are no groups: the count comes from the module, so the
  // declared multiple of operand 0 is accepted and applies to every operand (as in XLA's
  // verifier, which derives one shard count from the first operand).
  int64_t k = shards.value_or(-1);
  for (int64_t i = 0; i < n; ++i) {
    Shape out = operands[i];
    ASSIGN_OR_RETURN(int64_t d, CollectiveDim(instr, out.rank()));
    if (k < 0) {
      const Shape* decl = declared_results ? DeclaredElement(*declared_results, i, n) : nullptr;
      if (!decl || decl->rank() != out.rank() || out.dim(d) <= 0 || decl->dim(d) % out.dim(d) != 0)
        k = 1;
      else
        k = decl->dim(d) / out.dim(d);
    }
    if (out.dim(d) >= 0) {
      ASSIGN_OR_RETURN(int64_t size, CheckedMul(out.dim(d), k));
      out.set_dim(d, size);
    }
    outs.push_back(std::move(out));
  }
  return outs;
}

StatusOr<Shape> InferAllGather(const Instruction& instr) {
  ASSIGN_OR_RETURN(std::vector<Shape> ops, ArrayOperands(instr));
  ASSIGN_OR_RETURN(std::vector<Shape> outs, AllGatherResults(instr, ops, &instr.shape()));
  return TupleOrSingle(std::move(outs));
}

StatusOr<Shape> InferAllGatherStart(const Instruction& instr) {
  ASSIGN_OR_RETURN(std::vector<Shape> ops, ArrayOperands(instr));
  const Shape& d = instr.shape();
  const Shape* declared = d.IsTuple() && d.tuple_size() == 2 ? &d.tuple_shape(1) : nullptr;
  ASSIGN_OR_RETURN(std::vector<Shape> outs, AllGatherResults(instr, ops, declared));
  return Shape::Tuple({TupleOrSingle(ops), TupleOrSingle(std::move(outs))});
}

Status CheckAllReduceReducer(const Instruction& instr, const std::vector<Shape>& ops) {
  ASSIGN_OR_RETURN(const Computation* reducer, RequiredComputation(instr, AttrId::kToApply));
  return CheckReducer(*reducer, {Shape::Scalar(ops[0].dtype())}, "reducer");
}

StatusOr<Shape> InferAllReduce(const Instruction& instr) {
  ASSIGN_OR_RETURN(std::vector<Shape> ops, ArrayOperands(instr));
  RETURN_IF_ERROR(GroupSize(instr).status());
  RETURN_IF_ERROR(CheckAllReduceReducer(instr, ops));
  return TupleOrSingle(std::move(ops));
}

StatusOr<Shape> InferReduceScatter(const Instruction& instr) {
  ASSIGN_OR_RETURN(std::vector<Shape> ops, ArrayOperands(instr));
  ASSIGN_OR_RETURN(std::optional<int64_t> shards, GroupSize(instr));
  RETURN_IF_ERROR(CheckAllReduceReducer(instr, ops));
  int64_t n = static_cast<int64_t>(ops.size());
  int64_t k = shards.value_or(-1);  // without groups: from operand 0 (as for all-gather)
  for (int64_t i = 0; i < n; ++i) {
    Shape& out = ops[i];
    ASSIGN_OR_RETURN(int64_t d, CollectiveDim(instr, out.rank()));
    if (out.dim(d) < 0) continue;
    if (k < 0) {
      const Shape* decl = DeclaredElement(instr.shape(), i, n);
      if (!decl || decl->rank() != out.rank() || decl->dim(d) <= 0 || out.dim(d) % decl->dim(d) != 0)
        k = 1;
      else
        k = out.dim(d) / decl->dim(d);
    }
    if (out.dim(d) % k != 0)
      return InvalidArgument("reduce-scatter dimension {} of size {} is not divisible by the {} "
                             "participants", d, out.dim(d), k);
    out.set_dim(d, out.dim(d) / k);
  }
  return TupleOrSingle(std::move(ops));
}

StatusOr<Shape> InferAllToAll(const Instruction& instr) {
  ASSIGN_OR_RETURN(std::vector<Shape> ops, ArrayOperands(instr));
  ASSIGN_OR_RETURN(std::optional<int64_t> shards, GroupSize(instr));
  std::optional<int64_t> split;
  if (const int64_t* s = instr.attr<int64_t>(AttrId::kSplitDimension)) split = *s;
  else if (!instr.dimensions().empty()) split = instr.dimensions()[0];
  if (!split) return Shape::Tuple(std::move(ops));  // one chunk per operand
  for (const Shape& s : ops) {
    if (*split < 0 || *split >= s.rank())
      return InvalidArgument("all-to-all split dimension {} out of range for {}", *split,
                             ShapeText(s));
    if (shards && s.dim(*split) >= 0 && s.dim(*split) % *shards != 0)
      return InvalidArgument("all-to-all split dimension {} of size {} is not divisible by the {} "
                             "participants", *split, s.dim(*split), *shards);
  }
  return TupleOrSingle(std::move(ops));
}

// The in-place form (input, output, input start indices, output start indices): XLA's parser
// takes it when there are four operands and slice_sizes=, or (older text) tuple start indices.
bool IsInPlacePermute(const Instruction& instr) {
  if (instr.operand_count() != 4) return false;
  if (instr.operand(2)->shape().IsTuple()) return true;
  for (const auto& [k, v] : instr.attrs().unknown())
    if (k == "slice_sizes") return true;
  return false;
}

// How often one id may appear as a source (or a target): once, except in the in-place form,
// which sends one slice per start-index entry, each possibly along the same pair (XLA's
// CheckDuplicatedSourceOrTarget: the entries of the input start indices, per buffer).
int64_t AllowedPairRepeats(const Instruction& instr) {
  if (!IsInPlacePermute(instr)) return 1;
  const Shape& starts = instr.operand(2)->shape();
  const Shape* per_buffer = &starts;
  if (!instr.operand(0)->shape().IsArray()) {
    if (!starts.IsTuple() || starts.tuple_size() == 0) return 1;
    per_buffer = &starts.tuple_shape(0);
  }
  return per_buffer->IsTuple() && per_buffer->tuple_size() > 0 ? per_buffer->tuple_size() : 1;
}

Status CheckSourceTargetPairs(const Instruction& instr) {
  const PairList* pairs = instr.attr<PairList>(AttrId::kSourceTargetPairs);
  if (!pairs) return absl::OkStatus();
  const int64_t allowed = AllowedPairRepeats(instr);
  absl::flat_hash_map<int64_t, int64_t> sources, targets;
  auto repeats = [&](int64_t n) {
    return n == 1 ? std::string("more than once") : fmt::format("more than {} times", n);
  };
  for (const auto& [s, t] : *pairs) {
    if (s < 0 || t < 0) return InvalidArgument("source_target_pairs contain a negative id");
    if (++sources[s] > allowed)
      return InvalidArgument("source_target_pairs name source {} {}", s, repeats(allowed));
    if (++targets[t] > allowed)
      return InvalidArgument("source_target_pairs name target {} {}", t, repeats(allowed));
  }
  return absl::OkStatus();
}

// collective-permute's result: in-place form (input, output, input_starts, output_starts)
// yields the output buffer (an array, or a tuple of them with one start-index entry each, as
// XLA's CheckInplaceCollectivePermute allows); otherwise the operands' shapes.
StatusOr<Shape> PermuteResult(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectMinOperandCount(instr, 1));
  if (IsInPlacePermute(instr)) {
    const Shape& in = instr.operand(0)->shape();
    const Shape& out = instr.operand(1)->shape();
    const bool arrays = in.IsArray() && out.IsArray();
    const bool tuples = in.IsTuple() && out.IsTuple() && in.tuple_size() == out.tuple_size() &&
                        instr.operand(2)->shape().IsTuple() &&
                        instr.operand(2)->shape().tuple_size() == in.tuple_size() &&
                        instr.operand(3)->shape().IsTuple() &&
                        instr.operand(3)->shape().tuple_size() == out.tuple_size();
    if (!arrays && !tuples)
      return InvalidArgument("in-place collective-permute needs input and output buffers that are "
                             "both arrays, or both tuples with one start-index entry per buffer");
  }
  RETURN_IF_ERROR(CheckSourceTargetPairs(instr));
  if (IsInPlacePermute(instr)) return StripLayout(instr.operand(1)->shape());
  ASSIGN_OR_RETURN(std::vector<Shape> ops, ArrayOperands(instr));
  return TupleOrSingle(std::move(ops));
}

StatusOr<Shape> InferRaggedAllToAll(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectOperandCount(instr, 6));
  ASSIGN_OR_RETURN(std::vector<Shape> ops, ArrayOperands(instr));
  if (ops[0].rank() != ops[1].rank() || !SameTypeIgnoringFpPrecision(ops[0].dtype(), ops[1].dtype()))
    return InvalidArgument("ragged-all-to-all input {} and output {} must have the same rank and "
                           "type", ShapeText(ops[0]), ShapeText(ops[1]));
  for (int i = 2; i < 6; ++i) {
    if (!IsInteger(ops[i].dtype()) || ops[i].rank() < 1)
      return InvalidArgument("ragged-all-to-all operand {} must be an integer array, got {}", i,
                             ShapeText(ops[i]));
    if (!SameShape(ops[i], ops[2]))
      return InvalidArgument("ragged-all-to-all offsets and sizes {} and {} differ",
                             ShapeText(ops[2]), ShapeText(ops[i]));
  }
  RETURN_IF_ERROR(GroupSize(instr).status());
  return ops[1];
}

// ---- Tokens and host transfers ---------------------------------------------------------------

Status ExpectToken(const Instruction& instr, int64_t i) {
  ASSIGN_OR_RETURN(const Instruction* op, Operand(instr, i));
  if (!op->shape().IsToken())
    return InvalidArgument("operand {} must be a token, got {}", i, ShapeText(op->shape()));
  return absl::OkStatus();
}

const Shape& U32() {
  static const Shape* s = new Shape(DType::kU32, {});
  return *s;
}

StatusOr<Shape> InferInfeed(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectOperandCount(instr, 1));
  RETURN_IF_ERROR(ExpectToken(instr, 0));
  const Shape& d = instr.shape();
  if (!d.IsTuple() || d.tuple_size() != 2 || !d.tuple_shape(1).IsToken())
    return InvalidArgument("infeed must produce (data, token[]), got {}", ShapeText(d));
  return StripLayout(d);
}

StatusOr<Shape> InferOutfeed(const Instruction& instr) {
  RETURN_IF_ERROR(ExpectOperandCount(instr, 2));
  RETURN_IF_ERROR(ExpectToken(instr, 1));
  if (const Shape* s = instr.attr<Shape>(AttrId::kOutfeedShape)) {
    if (!SameShape(StripLayout(*s), StripLayout(instr.operand(0)->shape())))
      return InvalidArgument("outfeed_shape {} does not match the outfed value {}", ShapeText(*s),
                             ShapeText(instr.operand(0)->shape()));
  }
  return Shape::Token();
}

StatusOr<Shape> InferSendRecv(const Instruction& instr) {
  switch (instr.opcode()) {
    case Opcode::kSend:
      RETURN_IF_ERROR(ExpectOperandCount(instr, 2));
      RETURN_IF_ERROR(ExpectToken(instr, 1));
      return Shape::Tuple({StripLayout(instr.operand(0)->shape()), U32(), Shape::Token()});
    case Opcode::kRecv: {
      RETURN_IF_ERROR(ExpectOperandCount(instr, 1));
      RETURN_IF_ERROR(ExpectToken(instr, 0));
      const Shape& d = instr.shape();
      if (!d.IsTuple() || d.tuple_size() != 3)
        return InvalidArgument("recv must produce (data, u32[], token[]), got {}", ShapeText(d));
      return Shape::Tuple({StripLayout(d.tuple_shape(0)), U32(), Shape::Token()});
    }
    case Opcode::kSendDone: {
      ASSIGN_OR_RETURN(Shape s, AsyncState(instr, 3));
      if (!s.tuple_shape(2).IsToken())
        return InvalidArgument("send-done operand must come from send, got {}", ShapeText(s));
      return Shape::Token();
    }
    default: {  // recv-done
      ASSIGN_OR_RETURN(Shape s, AsyncState(instr, 3));
      if (!s.tuple_shape(2).IsToken())
        return InvalidArgument("recv-done operand must come from recv, got {}", ShapeText(s));
      return Shape::Tuple({s.tuple_shape(0), Shape::Token()});
    }
  }
}

}  // namespace

StatusOr<Shape> InferControl(const Instruction& instr) {
  switch (instr.opcode()) {
    case Opcode::kWhile: return InferWhile(instr);
    case Opcode::kConditional: return InferConditional(instr);
    case Opcode::kCall: return InferCallLike(instr, AttrId::kToApply, "called computation");
    case Opcode::kFusion: return InferCallLike(instr, AttrId::kCalls, "fused computation");
    case Opcode::kAsyncStart: return InferAsyncStart(instr);
    case Opcode::kAsyncUpdate: return AsyncState(instr, 2);
    case Opcode::kAsyncDone: {
      ASSIGN_OR_RETURN(Shape s, AsyncState(instr, 2));
      return s.tuple_shape(1);
    }
    case Opcode::kAllGather: return InferAllGather(instr);
    case Opcode::kAllGatherStart: return InferAllGatherStart(instr);
    case Opcode::kAllReduce: case Opcode::kAllReduceStart: return InferAllReduce(instr);
    case Opcode::kReduceScatter: return InferReduceScatter(instr);
    case Opcode::kCollectiveReduce: {
      // A reduction whose result lands on one root device of each group (ncclReduce); the
      // operands are reduced with to_apply. A trailing s32[] operand beyond the declared
      // results picks the root at run time and is not reduced.
      ASSIGN_OR_RETURN(std::vector<Shape> ops, ArrayOperands(instr));
      RETURN_IF_ERROR(GroupSize(instr).status());
      const Shape& d = instr.shape();
      const size_t declared = d.IsTuple() ? d.tuple_size() : 1;
      if (ops.size() == declared + 1 && SameShape(ops.back(), Shape::Scalar(DType::kS32)))
        ops.pop_back();
      RETURN_IF_ERROR(CheckAllReduceReducer(instr, ops));
      return TupleOrSingle(std::move(ops));
    }
    case Opcode::kAllToAll: return InferAllToAll(instr);
    case Opcode::kRaggedAllToAll: return InferRaggedAllToAll(instr);
    case Opcode::kCollectivePermute: return PermuteResult(instr);
    case Opcode::kCollectivePermuteStart: {
      ASSIGN_OR_RETURN(Shape out, PermuteResult(instr));
      Shape in = IsInPlacePermute(instr)
                     ? StripLayout(instr.operand(0)->shape())
                     : out;
      std::vector<Shape> parts = {in, out};
      const Shape& d = instr.shape();
      if (d.IsTuple() && d.tuple_size() > 2)
        for (int64_t i = 2; i < d.tuple_size(); ++i) parts.push_back(StripLayout(d.tuple_shape(i)));
      return Shape::Tuple(std::move(parts));
    }
    case Opcode::kCollectiveBroadcast: {
      ASSIGN_OR_RETURN(std::vector<Shape> ops, ArrayOperands(instr));
      RETURN_IF_ERROR(GroupSize(instr).status());
      return TupleOrSingle(std::move(ops));
    }
    case Opcode::kAllGatherDone: case Opcode::kCollectivePermuteDone: {
      ASSIGN_OR_RETURN(Shape s, AsyncState(instr, 2));
      return s.tuple_shape(1);
    }
    case Opcode::kAllReduceDone:
      RETURN_IF_ERROR(ExpectOperandCount(instr, 1));
      return StripLayout(instr.operand(0)->shape());
    case Opcode::kCopyStart: {
      RETURN_IF_ERROR(ExpectOperandCount(instr, 1));
      Shape op = StripLayout(instr.operand(0)->shape());
      const Shape& d = instr.shape();
      Shape context = d.IsTuple() && d.tuple_size() == 3 ? StripLayout(d.tuple_shape(2)) : U32();
      return Shape::Tuple({op, op, context});
    }
    case Opcode::kCopyDone: {
      ASSIGN_OR_RETURN(Shape s, AsyncState(instr, 2));
      return s.tuple_shape(0);
    }
    case Opcode::kAfterAll:
      // Any operands: XLA's verifier (ShapeVerifier::HandleAfterAll) only requires the token
      // result; the operands only order the token after them. (XlaBuilder's AfterAll, which
      // takes tokens only, is not a rule of the HLO.)
      return Shape::Token();
    case Opcode::kAddDependency:
      RETURN_IF_ERROR(ExpectOperandCount(instr, 2));
      RETURN_IF_ERROR(ExpectToken(instr, 1));
      return StripLayout(instr.operand(0)->shape());
    case Opcode::kInfeed: return InferInfeed(instr);
    case Opcode::kOutfeed: return InferOutfeed(instr);
    case Opcode::kSend: case Opcode::kRecv: case Opcode::kSendDone: case Opcode::kRecvDone:
      return InferSendRecv(instr);
    case Opcode::kOptimizationBarrier: case Opcode::kDomain:
      RETURN_IF_ERROR(ExpectOperandCount(instr, 1));
      return StripLayout(instr.operand(0)->shape());
    case Opcode::kPartitionId: case Opcode::kReplicaId:
      RETURN_IF_ERROR(ExpectOperandCount(instr, 0));
      return U32();
    default:
      return Unimplemented("no shape rule for {}", OpcodeName(instr.opcode()));
  }
}

}  // namespace spmdc::shape_inference

// The partitioning visitor: walks each computation in post order and emits, for every
// instruction, its per-device form (GSPMD.md §3.6). Handlers follow the op families; anything
// without a dedicated handler goes through the default action (replicate the operands, run the
// op whole, slice the result), which is always correct.
//
// This file holds the entry points, the driver over computations (Partitioner), the
// per-instruction plumbing (targets, values, manual-region boundaries), the opcode dispatch with
// its few inline cases, and the default action; the handlers live one file per op family
// (listed in computation_partitioner.h).
#include "partitioner/partitioner.h"

#include <algorithm>
#include <numeric>

#include "ir/shape_inference.h"
#include "partitioner/computation_partitioner.h"
#include "passes/passes.h"
#include "propagation/dim_mapping.h"
#include "sharding/algebra.h"
#include "sharding/validation.h"
#include "support/check.h"

namespace spmdc {

// Rough per-device bytes a reshard moves (for choosing between strategies; declared in reshard.h).
int64_t ReshardCost(const Shape& shape, const Sharding& from, const Sharding& to) {
  if (from == to || !shape.IsArray()) return 0;
  if (to.IsTileMaximal()) {
    return from.IsReplicated() ? 0 : shape.byte_size();
  }
  if (from.IsReplicated()) return 0;  // a local dynamic-slice
  int64_t rank = shape.rank();
  bool refines = true, same = true;
  int64_t common = 1;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t a = from.NumTilesOnDim(d), b = to.NumTilesOnDim(d);
    refines &= b % a == 0;
    same &= a == b;
    common *= std::min(a, b);
  }
  if (refines && !same) return 0;  // dynamic-slice, possibly after a permute
  if (same) return to.ShardShape(shape).byte_size();
  return shape.byte_size() / std::max<int64_t>(common, 1);
}

namespace partitioner_internal {

Sharding ComputationTarget(const Instruction* instr) {
  if (!instr->has_sharding()) return Sharding::Single(instr->shape(), Sharding::Replicate());
  return instr->sharding()->NormalizeTupleSharding(instr->shape());
}

Sharding ComputationPartitioner::TargetOf(const Instruction* instr) const {
  if (target_override_) return *target_override_;
  if (default_target_ && !instr->has_sharding()) return Sharding::Single(instr->shape(), *default_target_);
  return ComputationTarget(instr);
}

void ComputationPartitioner::Set(const Instruction* instr, PValue v) {
  // The instruction that stands for `instr` keeps its name when it is a fresh one.
  if (v.hlo->opcode() != Opcode::kParameter && !named_.contains(v.hlo) && v.hlo->name() != instr->name() &&
      !b_.module()->IsNameTaken(instr->name() + "\x01")) {
    if (!value_hlos_.contains(v.hlo)) {
      v.hlo->set_name(instr->name());
      b_.module()->ReserveName(instr->name() + "\x01");
    }
  }
  named_.insert(v.hlo);
  value_hlos_.insert(v.hlo);
  values_[instr] = std::move(v);
}

// What the per-device form of a value of `base` must be under `s` (a leaf): the element type
// always; the dims where the sharding says what a device holds (tiled, replicated, maximal:
// every device holds a value of the program's one shape). nullopt dims: not checked (manual
// values are per-device already; manual subgroups hold their group's block).
namespace {
struct ExpectedLeaf {
  DType dtype;
  std::optional<std::vector<int64_t>> dims;
};
void LeafShapes(const Shape& s, std::vector<const Shape*>& out) {
  if (!s.IsTuple()) return out.push_back(&s);
  for (const Shape& e : s.tuple_shapes()) LeafShapes(e, out);
}
// Same tuple structure, element types and dims (layouts aside).
bool SameLeaves(const Shape& a, const Shape& b) {
  std::vector<const Shape*> la, lb;
  LeafShapes(a, la);
  LeafShapes(b, lb);
  if (la.size() != lb.size() || a.IsTuple() != b.IsTuple()) return false;
  for (size_t i = 0; i < la.size(); ++i)
    if (la[i]->IsArray() != lb[i]->IsArray() || la[i]->dtype() != lb[i]->dtype() || la[i]->dims() != lb[i]->dims())
      return false;
  return true;
}
// Mixed precision: `instr` declares floating-point types other than the ones its operands give
// (the verifier accepts that, as XLA's does with allow_mixed_precision; dots and convolutions
// declare their result type and are not mixed).
// Also mixed: array operands of different floating-point types (concatenate(f32, f64) is
// inferred from its first operand, so the declared type matches, but the partitioned operands
// give both).
bool MixedPrecision(const Instruction& instr) {
  StatusOr<Shape> inferred = InferShape(instr);
  if (inferred.ok() && !SameLeaves(*inferred, instr.shape())) return true;
  std::optional<DType> fp;
  for (const Instruction* op : instr.operands()) {
    if (!op->shape().IsArray() || !IsFloat(op->shape().dtype())) continue;
    if (fp && *fp != op->shape().dtype()) return true;
    fp = op->shape().dtype();
  }
  return false;
}
ExpectedLeaf ExpectLeaf(const Shape& base, const Sharding& s) {
  if (!base.IsArray() || s.IsManual() || s.IsManualSubgroup() || s.IsUnknown()) return {base.dtype(), std::nullopt};
  if (s.IsTiled()) {
    if (s.TiledDataRank() != base.rank()) return {base.dtype(), std::nullopt};
    return {base.dtype(), s.ShardShape(base).dims()};
  }
  return {base.dtype(), base.dims()};
}
}  // namespace

// Every handler's value must hold, on each device, the element type of the original instruction
// and the shard dims its sharding implies: a mismatch is a partitioner bug, reported here (naming
// the instruction) rather than as a wrong result type when a device runs the program.
Status ComputationPartitioner::CheckValueShape(const Instruction* instr, const PValue& v) const {
  if (topk_k_.contains(instr)) return absl::OkStatus();  // holds the top-k candidates, not the sort
  const Shape& got = v.hlo->shape();
  std::vector<const Shape*> base_leaves, got_leaves;
  LeafShapes(v.base_shape, base_leaves);
  LeafShapes(got, got_leaves);
  auto bug = [&](const std::string& what) {
    return Internal("partitioner bug: %{} became {} where its sharding {} of {} expects {}", instr->name(),
                    got.ToString(false), v.sharding.ToString(false), v.base_shape.ToString(false), what);
  };
  if (base_leaves.size() != got_leaves.size()) return bug(fmt::format("{} leaves", base_leaves.size()));
  if (v.base_shape.IsTuple() != got.IsTuple()) return bug(v.base_shape.IsTuple() ? "a tuple" : "an array");
  std::vector<Sharding> shardings;
  if (v.sharding.IsTuple() && v.sharding.tuple_elements().size() == base_leaves.size())
    shardings = v.sharding.tuple_elements();
  else if (!v.sharding.IsTuple())
    shardings.assign(base_leaves.size(), v.sharding);
  for (size_t i = 0; i < base_leaves.size(); ++i) {
    const Shape& b = *base_leaves[i];
    const Shape& g = *got_leaves[i];
    if (b.IsArray() != g.IsArray()) return bug(fmt::format("leaf {} to be {}", i, b.ToString(false)));
    if (!b.IsArray()) continue;
    ExpectedLeaf e = shardings.empty() ? ExpectedLeaf{b.dtype(), std::nullopt} : ExpectLeaf(b, shardings[i]);
    if (b.dtype() != g.dtype() || (e.dims && *e.dims != g.dims())) {
      std::string want = Shape(e.dtype, e.dims ? *e.dims : g.dims()).ToString(false);
      return bug(base_leaves.size() == 1 ? want : fmt::format("{} at leaf {}", want, i));
    }
  }
  return absl::OkStatus();
}

Instruction* ComputationPartitioner::CloneWith(const Instruction* instr, const std::vector<Instruction*>& operands,
                                               const Shape& shape) {
  Attributes attrs = instr->attrs();
  attrs.Remove(AttrId::kControlPredecessors);
  Instruction* c = b_.Add(instr->opcode(), operands, std::move(attrs), &shape, instr->name());
  if (instr->literal()) c->set_literal(*instr->literal());
  c->set_parameter_number(instr->parameter_number());
  return c;
}

StatusOr<PValue> ComputationPartitioner::Run(const std::vector<Sharding>& param_shardings,
                                             const Sharding& root_sharding) {
  for (const Instruction* instr : src_.MakeInstructionPostOrder()) {
    if (instr->opcode() == Opcode::kParameter) {
      int64_t k = instr->parameter_number();
      Sharding s = k < static_cast<int64_t>(param_shardings.size()) ? param_shardings[k] : TargetOf(instr);
      Shape shard = s.ShardShape(instr->shape());
      Instruction* p = b_.Parameter(k, shard, instr->name());
      named_.insert(p);
      values_[instr] = PValue{p, s, instr->shape()};
      continue;
    }
    b_.set_metadata(instr->attr<KeyValueList>(AttrId::kMetadata));
    RETURN_IF_ERROR(Handle(instr));
    RETURN_IF_ERROR(r_.status());
    Status shape_ok = CheckValueShape(instr, Get(instr));
    // A handler builds its local ops with the element types their operands give; where the
    // instruction declares others (mixed precision) and its value comes out so, that is a form
    // the partitioner does not support, not a bug on well-typed input.
    // A handler may also read past a mixed-precision operand to its own operands (a slice
    // folded into a windowed concatenate): the mismatch then shows one instruction later.
    if (!shape_ok.ok()) {
      const Instruction* mixed = MixedPrecision(*instr) ? instr : nullptr;
      for (const Instruction* op : instr->operands())
        if (!mixed && MixedPrecision(*op)) mixed = op;
      if (mixed) {
        std::string operands;
        for (const Instruction* op : mixed->operands())
          operands += (operands.empty() ? "" : ", ") + op->shape().ToString(false);
        return Unimplemented("%{}: mixed precision is not partitioned: the {} declares {} from operands {}",
                             mixed->name(), OpcodeName(mixed->opcode()), mixed->shape().ToString(false), operands);
      }
    }
    RETURN_IF_ERROR(shape_ok);
  }
  b_.set_metadata(src_.root()->attr<KeyValueList>(AttrId::kMetadata));
  PValue root = r_.Reshard(Get(src_.root()), root_sharding, src_.root()->name());
  RETURN_IF_ERROR(r_.status());
  b_.computation()->set_root(root.hlo);
  RETURN_IF_ERROR(b_.computation()->RebuildParameterList());
  return root;
}

// Whether every instruction but the parameters (which take the call's operand shardings) of the
// computations control-flow `instr` calls has a sharding, through nested control flow (reducers and
// comparators are scalar code that carries none).
static bool CalledComputationsAnnotated(const Instruction* instr) {
  for (const Computation* c : instr->called_computations())
    for (const Instruction* i : c->instructions()) {
      if (!i->has_sharding() && i->opcode() != Opcode::kParameter) return false;
      bool nested = i->opcode() == Opcode::kWhile || i->opcode() == Opcode::kConditional || i->opcode() == Opcode::kCall;
      if (nested && !CalledComputationsAnnotated(i)) return false;
    }
  return true;
}

Status ComputationPartitioner::Handle(const Instruction* instr) {
  const Sharding target = TargetOf(instr);
  auto any_leaf = [](const Sharding& s, auto pred) {
    if (!s.IsTuple()) return pred(s);
    return std::any_of(s.tuple_elements().begin(), s.tuple_elements().end(), pred);
  };
  auto manual_leaf = [](const Sharding& s) { return s.IsManual(); };
  bool subgroup = HasManualSubgroup(target);
  for (const Instruction* op : instr->operands()) subgroup |= HasManualSubgroup(Get(op).sharding);
  // The region's boundaries keep their operand's element type (a custom call's shape is not
  // inferred, so the verifier lets another through); checked here for both paths below.
  if ((instr->IsCustomCall("SPMDFullToShardShape") || instr->IsCustomCall("SPMDShardToFullShape")) &&
      instr->operand_count() == 1 && instr->shape().IsArray() &&
      instr->operand(0)->shape().dtype() != instr->shape().dtype())
    return Unimplemented("%{}: custom-call {} from {} to {} is not supported (it keeps the element type)",
                         instr->name(), instr->custom_call_target(), DTypeName(instr->operand(0)->shape().dtype()),
                         DTypeName(instr->shape().dtype()));
  if (subgroup) return ManualSubgroup(instr);
  if (instr->IsCustomCall("SPMDFullToShardShape")) {
    // The operand's own tiling becomes per-device (manual) data of the shard shape.
    const PValue& v = Get(instr->operand(0));
    bool auto_src = v.sharding.IsReplicated() || (v.sharding.IsTiled() && IsPlainTiled(v.sharding));
    // The shard shape, element type included (a custom call's shape is not inferred, so the
    // verifier lets any through).
    if (!target.IsManual() || !auto_src || v.base_shape.dtype() != instr->shape().dtype() ||
        !(v.sharding.ShardShape(v.base_shape).dims() == instr->shape().dims()))
      return Unimplemented("%{}: custom-call SPMDFullToShardShape from {} to {} with shape {} is not supported",
                           instr->name(), v.sharding.ToString(false), target.ToString(false),
                           instr->shape().ToString(false));
    // Uneven shards: the padding becomes data of the manual region; make it zero.
    Instruction* x = r_.MaskPadding(v, b_.Zero(instr->shape().dtype()));
    Set(instr, PValue{b_.Add(Opcode::kCopy, {x}), target, instr->shape()});
    return absl::OkStatus();
  }
  if (instr->IsCustomCall("SPMDShardToFullShape")) {
    const PValue& v = Get(instr->operand(0));
    bool auto_dst = target.IsReplicated() || (target.IsTiled() && IsPlainTiled(target));
    if (!v.sharding.IsManual() || !auto_dst || v.hlo->shape().dtype() != instr->shape().dtype() ||
        !(target.ShardShape(instr->shape()).dims() == v.hlo->shape().dims()))
      return Unimplemented("%{}: custom-call SPMDShardToFullShape from {} to {} with shape {} is not supported",
                           instr->name(), v.sharding.ToString(false), target.ToString(false),
                           instr->shape().ToString(false));
    Set(instr, PValue{b_.Add(Opcode::kCopy, {v.hlo}), target, instr->shape()});
    return absl::OkStatus();
  }
  if (any_leaf(target, manual_leaf)) {
    // Already per-device: clone as is. Every array operand must be manual (or a replicated scalar)
    // too; anything else would need a SPMDFullToShardShape transition.
    // Control flow whose computations carry shardings throughout (after propagation) partitions
    // them with the manual shardings it carries, so the output module owns them. When they are
    // unannotated (a module that is per-device as written), partitioning would read them as
    // replicated: the clone below gets copies of them partitioned as manual throughout (the
    // output module must own every computation it calls).
    bool control_flow = instr->opcode() == Opcode::kWhile || instr->opcode() == Opcode::kConditional ||
                        instr->opcode() == Opcode::kCall;
    if (target.IsManual() && control_flow && CalledComputationsAnnotated(instr)) return Dispatch(instr);
    if (!target.IsManual()) {
      // Tuples mixing manual and automatic leaves: the ops that only move leaves around handle
      // each leaf with its own sharding (a manual leaf moves to the same manual sharding).
      switch (instr->opcode()) {
        case Opcode::kTuple: case Opcode::kGetTupleElement: case Opcode::kWhile: case Opcode::kConditional:
        case Opcode::kCall: case Opcode::kOptimizationBarrier:
          return Dispatch(instr);
        default:
          return Unimplemented("%{}: mixed manual and automatic tuple shardings are not partitioned yet",
                               instr->name());
      }
    }
    std::vector<Instruction*> ops;
    for (const Instruction* op : instr->operands()) {
      const PValue& v = Get(op);
      bool ok = v.sharding.IsManual() || !v.base_shape.IsArray() || v.base_shape.rank() == 0 ||
                (v.sharding.IsReplicated() && !v.base_shape.IsTuple());
      if (!ok)
        return Unimplemented("%{}: operand %{} goes from {} to manual without SPMDFullToShardShape", instr->name(),
                             op->name(), v.sharding.ToString(false));
      ops.push_back(v.hlo);
    }
    Instruction* clone = CloneWith(instr, ops, instr->shape());
    // The clone's called computations must be the output module's own copies, not the source
    // module's: reducers and comparators (scalar code) partitioned replicated; per-device control
    // flow's computations manual throughout (where they carry a sharding, theirs).
    const Sharding leaf = control_flow ? Sharding::Manual() : Sharding::Replicate();
    for (Computation* c : instr->called_computations()) {
      std::vector<Sharding> params;
      for (Instruction* p : c->parameters()) params.push_back(Sharding::Single(p->shape(), leaf));
      ASSIGN_OR_RETURN(Computation* pc,
                       p_->PartitionCalled(*c, params, Sharding::Single(c->root()->shape(), leaf),
                                           control_flow ? std::optional<Sharding>(leaf) : std::nullopt));
      clone->ReplaceCalledComputation(c, pc);
    }
    Set(instr, PValue{clone, target, instr->shape()});
    return absl::OkStatus();
  }
  for (const Instruction* op : instr->operands()) {
    const PValue& v = Get(op);
    if (any_leaf(v.sharding, manual_leaf) && v.base_shape.IsArray() && v.base_shape.rank() > 0)
      return Unimplemented("%{}: operand %{} leaves a manual region without SPMDShardToFullShape", instr->name(),
                           op->name());
  }
  return Dispatch(instr);
}

Status ComputationPartitioner::Dispatch(const Instruction* instr) {
  const Sharding target = TargetOf(instr);
  switch (instr->opcode()) {
    case Opcode::kConstant: return Constant(instr);
    case Opcode::kIota: return Iota(instr);
    case Opcode::kBroadcast: return Broadcast(instr);
    case Opcode::kTranspose: return Transpose(instr);
    case Opcode::kReshape: return Reshape(instr);
    case Opcode::kReduce: return Reduce(instr);
    case Opcode::kDot: case Opcode::kRaggedDot: case Opcode::kScaledDot: return Dot(instr);
    case Opcode::kConvolution: return Convolution(instr);
    case Opcode::kReduceWindow: return ReduceWindow(instr);
    case Opcode::kSelectAndScatter: return SelectAndScatter(instr);
    case Opcode::kSlice: case Opcode::kPad: case Opcode::kConcatenate: case Opcode::kReverse:
    case Opcode::kSort:
      return Slicing(instr);
    case Opcode::kDynamicSlice: case Opcode::kDynamicUpdateSlice: return DynamicSlicing(instr);
    case Opcode::kGather: case Opcode::kScatter: return GatherScatter(instr);
    case Opcode::kTuple: return Tuple(instr);
    case Opcode::kGetTupleElement: return GetTupleElement(instr);
    case Opcode::kWhile: return While(instr);
    case Opcode::kConditional: return Conditional(instr);
    case Opcode::kCall: return Call(instr);
    case Opcode::kOptimizationBarrier: {
      // Identity on its (tuple) operand.
      PValue v = Operand(instr, 0, target);
      Set(instr, PValue{CloneWith(instr, {v.hlo}, v.hlo->shape()), target, instr->shape()});
      return absl::OkStatus();
    }
    case Opcode::kTopK: return TopK(instr);
    case Opcode::kMap: case Opcode::kStochasticConvert:
      return instr->shape().IsArray() ? Elementwise(instr) : Default(instr);
    case Opcode::kAddDependency: {
      // Its first operand, ordered after the token: keep it as sharded.
      PValue v = Operand(instr, 0, target);
      Instruction* token = Get(instr->operand(1)).hlo;
      Set(instr, PValue{CloneWith(instr, {v.hlo, token}, v.hlo->shape()), target, instr->shape()});
      return absl::OkStatus();
    }
    case Opcode::kBitcastConvert: {
      // Elementwise between types of one width; a narrower (wider) type adds (drops) a minor dim
      // that must stay whole (GSPMD HandleBitcastConvert).
      const Shape& in = instr->operand(0)->shape();
      int64_t rank = instr->shape().rank();
      if (!instr->shape().IsArray() || !in.IsArray()) return Default(instr);
      if (in.rank() == rank) return Elementwise(instr);
      Sharding target = TargetOf(instr);
      const PValue& x = Get(instr->operand(0));
      // The sharding of the side with the extra minor dim: from the result, else the operand.
      int64_t wide_rank = std::max(in.rank(), rank), narrow_rank = std::min(in.rank(), rank);
      const Sharding& wide_src = rank > in.rank() ? target : x.sharding;
      const Sharding& narrow_src = rank > in.rank() ? x.sharding : target;
      std::vector<int64_t> dims(narrow_rank);
      std::iota(dims.begin(), dims.end(), 0);
      std::optional<Sharding> wide;
      if (wide_src.IsTiled() && IsPlainTiled(wide_src) && wide_src.TiledDataRank() == wide_rank) {
        const int64_t minor[] = {wide_rank - 1};
        wide = PartiallyReplicateTiledShardingOnDims(wide_src, minor);
      } else if (narrow_src.IsTiled() && IsPlainTiled(narrow_src) && narrow_src.TiledDataRank() == narrow_rank) {
        wide = MapShardingDims(narrow_src, dims, dims, wide_rank);
      }
      if (!wide || !wide->IsTiled()) return Default(instr);
      Sharding narrow = MapShardingDims(*wide, dims, dims, narrow_rank);
      const Sharding& in_sharding = in.rank() > rank ? *wide : narrow;
      const Sharding& out_sharding = in.rank() > rank ? narrow : *wide;
      PValue v = Operand(instr, 0, in_sharding);
      Instruction* c = CloneWith(instr, {v.hlo}, out_sharding.ShardShape(instr->shape()));
      Set(instr, r_.Reshard(PValue{c, out_sharding, instr->shape()}, target, instr->name()));
      return absl::OkStatus();
    }
    case Opcode::kCholesky: case Opcode::kTriangularSolve: {
      // Batched linear algebra on the two minor dims (GSPMD: elementwise with those replicated).
      int64_t rank = instr->shape().rank();
      if (!instr->shape().IsArray() || rank < 2) return Default(instr);
      return ElementwiseExceptDims(instr, {rank - 2, rank - 1});
    }
    case Opcode::kFft: {
      // Transforms over the fft_length minor dims; the leading (batch) dims are independent.
      int64_t rank = instr->shape().rank();
      int64_t lengths = static_cast<int64_t>(instr->ints_attr(AttrId::kFftLength).size());
      if (!instr->shape().IsArray() || lengths < 1 || lengths > rank) return Default(instr);
      std::vector<int64_t> whole;
      for (int64_t d = rank - lengths; d < rank; ++d) whole.push_back(d);
      return ElementwiseExceptDims(instr, whole);
    }
    case Opcode::kCustomCall:
      if (instr->IsCustomCall("TopK")) {
        // Values of another precision than the operand (mixed precision, which the verifier
        // allows) would come out in the operand's type.
        if (instr->shape().IsTuple() && instr->shape().tuple_size() == 2 && instr->operand_count() == 1 &&
            instr->shape().tuple_shapes()[0].dtype() != instr->operand(0)->shape().dtype())
          return Unimplemented("%{}: TopK with values of type {} from a {} operand is not supported", instr->name(),
                               DTypeName(instr->shape().tuple_shapes()[0].dtype()),
                               DTypeName(instr->operand(0)->shape().dtype()));
        return TopK(instr);
      }
      if (instr->IsCustomCall("CustomSPMDPartitioning")) return CustomPartitioning(instr);
      if (instr->IsCustomCall("Sharding") || instr->IsCustomCall("LayoutConstraint") ||
          instr->IsCustomCall("ShardBarrierFrom") || instr->IsCustomCall("ShardBarrierTo")) {
        // Annotations of their operand, partitioned to a copy of it: they must have its shape (a
        // custom call's shape is not inferred, so the verifier lets any through).
        if (instr->operand_count() != 1 || !SameLeaves(instr->operand(0)->shape(), instr->shape()))
          return Unimplemented("%{}: custom-call {} of shape {} on {} is not supported (it annotates one "
                               "value and keeps its shape)",
                               instr->name(), instr->custom_call_target(), instr->shape().ToString(false),
                               instr->operand_count() == 1 ? instr->operand(0)->shape().ToString(false)
                                                           : fmt::format("{} operands", instr->operand_count()));
        PValue v = Operand(instr, 0, target);
        Set(instr, PValue{b_.Add(Opcode::kCopy, {v.hlo}), target, instr->shape()});
        return absl::OkStatus();
      }
      // The memory-space annotations move or pin a value without changing it: each device
      // annotates its own shard (as XLA partitions them, elementwise).
      if ((instr->IsCustomCall("MoveToHost") || instr->IsCustomCall("MoveToDevice") ||
           instr->IsCustomCall("PinToDevice") || instr->IsCustomCall("PinToDeviceSram")) &&
          instr->operand_count() == 1 && instr->shape().IsArray() &&
          instr->operand(0)->shape().dims() == instr->shape().dims())
        return Elementwise(instr);
      return Default(instr);
    case Opcode::kPartitionId: case Opcode::kReplicaId:
      return Unimplemented("%{}: {} is only meaningful inside a manually partitioned region", instr->name(),
                           OpcodeName(instr->opcode()));
    case Opcode::kRng: {
      // Random numbers need no agreement across devices, except where devices hold the same
      // data: a tiled result draws its shard locally; a replicated one is drawn on device 0 and
      // broadcast; a partially replicated one per replica group (GSPMD.md §3.6).
      Sharding target = TargetOf(instr);
      std::vector<Instruction*> ops;
      for (const Instruction* op : instr->operands())
        ops.push_back(r_.Reshard(Get(op), Sharding::Replicate(), instr->name()).hlo);
      if (target.IsTiled() && !target.HasPartialReplication()) {
        Set(instr, PValue{CloneWith(instr, ops, target.ShardShape(instr->shape())), target, instr->shape()});
        return absl::OkStatus();
      }
      if (target.IsTiled() && IsPlainTiled(target)) {
        // Partially replicated: the first device of each group of replicas draws the shard and
        // broadcasts it within the group (GSPMD: once per group), moving a shard, not the whole.
        Shape shard = target.ShardShape(instr->shape());
        Instruction* local = CloneWith(instr, ops, shard);
        auto groups = Resharder::GroupsAlong(target, {target.TiledDataRank()});
        std::vector<int64_t> first(b_.num_devices(), 0);
        for (const auto& g : groups) first[g[0]] = 1;
        Instruction* mine = b_.Compare(b_.TableLookup(first), b_.ScalarS32(1), "EQ");
        Instruction* kept = b_.Select(b_.BroadcastScalar(mine, Shape(DType::kPred, shard.dims())), local,
                                      b_.BroadcastScalar(b_.Zero(shard.dtype()), shard));
        Instruction* r = b_.AllReduce(kept, groups, shard.dtype() == DType::kPred ? "or" : "add");
        Set(instr, PValue{r, target, instr->shape()});
        return absl::OkStatus();
      }
      PValue drawn{CloneWith(instr, ops, instr->shape()), Sharding::AssignDevice(0), instr->shape()};
      Set(instr, r_.Reshard(drawn, target, instr->name()));
      return absl::OkStatus();
    }
    case Opcode::kInfeed: case Opcode::kOutfeed: {
      // Evenly tiled feeds move each device's shard through its own feed (GSPMD: local when
      // evenly divisible; uneven shards need per-shape branches, not done here). Data leaves
      // must be tiled or replicated; the token passes through.
      bool outfeed = instr->opcode() == Opcode::kOutfeed;
      const Shape& data = outfeed ? instr->operand(0)->shape() : instr->shape().tuple_shape(0);
      // Both carry a sharding over (data, token): the infeed's result, the outfeed's operands.
      Sharding data_sharding = target;
      if (target.IsTuple()) {
        const int64_t zero[] = {0};
        Shape whole = outfeed ? Shape::Tuple({data, instr->operand(1)->shape()}) : instr->shape();
        data_sharding = target.GetSubSharding(whole, zero);
      }
      bool plain = true;
      auto check = [&](const Sharding& s) { plain &= s.IsReplicated() || (s.IsTiled() && IsPlainTiled(s)); };
      if (data_sharding.IsTuple()) for (const Sharding& s : data_sharding.tuple_elements()) check(s);
      else check(data_sharding);
      if (!plain || !data_sharding.EvenlyPartitions(data))
        return Unimplemented("%{}: {} with sharding {} is not partitioned yet (only evenly tiled or replicated "
                             "data)", instr->name(), OpcodeName(instr->opcode()), target.ToString(false));
      if (outfeed) {
        PValue v = Operand(instr, 0, data_sharding.IsTuple() ? data_sharding : Sharding::Single(data, data_sharding));
        Instruction* token = Get(instr->operand(1)).hlo;
        Instruction* c = CloneWith(instr, {v.hlo, token}, instr->shape());
        c->attrs().Set(AttrId::kOutfeedShape, v.hlo->shape());
        Set(instr, PValue{c, target, instr->shape()});
      } else {
        Instruction* token = Get(instr->operand(0)).hlo;
        Shape local = Shape::Tuple({data_sharding.ShardShape(data), instr->shape().tuple_shape(1)});
        Set(instr, PValue{CloneWith(instr, {token}, local), target, instr->shape()});
      }
      return absl::OkStatus();
    }
    case Opcode::kRngGetAndUpdateState:
    case Opcode::kSend: case Opcode::kRecv: case Opcode::kSendDone: case Opcode::kRecvDone:
    // Its result on non-root devices is unspecified (ncclReduce), so no SPMD program for it
    // can be checked against the one-device one.
    case Opcode::kCollectiveReduce:
      return Unimplemented("%{}: {} cannot be partitioned yet", instr->name(), OpcodeName(instr->opcode()));
    default:
      if (IsElementwiseOpcode(instr->opcode()) && instr->shape().IsArray()) return Elementwise(instr);
      return Default(instr);
  }
}

// jax.custom_partitioning: the partitioning is a Python callback (keyed by backend_config) that
// the module does not contain. Never replicated silently: refused, or with the explicit option
// run on whole values with a warning naming what the gather moves.
Status ComputationPartitioner::CustomPartitioning(const Instruction* instr) {
  std::string op_name;
  if (const auto* md = instr->attr<KeyValueList>(AttrId::kMetadata))
    for (const auto& [k, v] : *md)
      if (k == "op_name") op_name = UnquoteRaw(v);
  const std::string what = fmt::format("%{}: custom-call CustomSPMDPartitioning{}", instr->name(),
                                       op_name.empty() ? "" : fmt::format(" (op_name \"{}\")", op_name));
  if (!b_.state()->replicate_custom_partitioning) {
    return Unimplemented("{} is partitioned by a Python callback spmdc cannot run "
                         "(--replicate-custom-partitioning runs it replicated)", what);
  }
  int64_t bytes = 0;
  for (const Instruction* op : instr->operands()) {
    const PValue v = Get(op);
    if (v.sharding.IsReplicated()) continue;
    bytes += op->shape().byte_size() - v.sharding.ShardShape(op->shape()).byte_size();
  }
  b_.state()->warnings.push_back(fmt::format(
      "{} runs replicated (--replicate-custom-partitioning): gathering its operands moves {} bytes per device",
      what, bytes));
  return Default(instr);
}

Status ComputationPartitioner::Default(const Instruction* instr) {
  // Replicate every operand, run the op on whole values, then slice the result to its sharding.
  std::vector<Instruction*> ops;
  for (int64_t i = 0; i < instr->operand_count(); ++i) {
    const Instruction* op = instr->operand(i);
    ops.push_back(r_.Reshard(Get(op), Sharding::Single(op->shape(), Sharding::Replicate()), instr->name()).hlo);
  }
  std::vector<Computation*> called = instr->called_computations();
  Instruction* whole = CloneWith(instr, ops, instr->shape());
  // Called computations (reducers, comparators, branches) run whole on every device.
  for (Computation* c : called) {
    std::vector<Sharding> params;
    for (Instruction* p : c->parameters()) params.push_back(Sharding::Single(p->shape(), Sharding::Replicate()));
    ASSIGN_OR_RETURN(Computation* pc,
                     p_->PartitionCalled(*c, params, Sharding::Single(c->root()->shape(), Sharding::Replicate())));
    whole->ReplaceCalledComputation(c, pc);
  }
  PValue v{whole, Sharding::Single(instr->shape(), Sharding::Replicate()), instr->shape()};
  Set(instr, r_.Reshard(v, TargetOf(instr), instr->name()));
  return absl::OkStatus();
}

StatusOr<Computation*> Partitioner::PartitionCalled(const Computation& c, const std::vector<Sharding>& params,
                                                    const Sharding& root,
                                                    const std::optional<Sharding>& default_target) {
  auto comp = std::make_unique<Computation>(out_->UniqueName(c.name()));
  comp->set_execution_thread(c.execution_thread());
  Computation* raw = out_->AddComputation(std::move(comp));
  ComputationPartitioner cp(this, &state_, c, raw);
  if (default_target) cp.set_default_target(*default_target);
  RETURN_IF_ERROR(cp.Run(params, root).status());
  return raw;
}

StatusOr<PartitionResult> Partitioner::Run() {
  if (options_.num_partitions < 1) return InvalidArgument("--num-partitions must be >= 1");
  out_ = std::make_unique<Module>(src_.name());
  out_->config() = src_.config();
  out_->config().Remove(AttrId::kEntryComputationLayout);
  out_->config().Remove(AttrId::kInputOutputAlias);
  out_->config().Remove(AttrId::kBufferDonor);
  out_->set_num_partitions(options_.num_partitions);
  state_.module = out_.get();
  state_.num_devices = options_.num_partitions;
  state_.replicate_custom_partitioning = options_.replicate_custom_partitioning;
  // Original names stay available for the instructions that stand for them.
  for (Computation* c : src_.computations()) {
    out_->ReserveName(c->name());
    for (Instruction* i : c->instructions()) out_->ReserveName(i->name());
  }
  const Computation* entry = src_.entry();
  PartitionResult result;
  for (Instruction* p : entry->parameters()) result.parameter_shardings.push_back(ComputationTarget(p));
  result.result_sharding = ComputationTarget(entry->root());
  auto comp = std::make_unique<Computation>(entry->name());
  Computation* raw = out_->AddComputation(std::move(comp), /*is_entry=*/true);
  ComputationPartitioner cp(this, &state_, *entry, raw);
  RETURN_IF_ERROR(cp.Run(result.parameter_shardings, result.result_sharding).status());
  for (Instruction* p : raw->parameters()) {
    result.stats.parameter_bytes += p->shape().byte_size();
    p->set_sharding(std::make_shared<const Sharding>(result.parameter_shardings[p->parameter_number()]));
  }
  result.stats.output_bytes = raw->root()->shape().byte_size();
  raw->root()->set_sharding(std::make_shared<const Sharding>(result.result_sharding));
  for (const auto& [kind, st] : state_.stats) result.stats.collectives[kind] = {st.count, st.bytes};
  result.stats.warnings = state_.warnings;
  result.module = std::move(out_);
  return result;
}

}  // namespace partitioner_internal

StatusOr<PartitionResult> PartitionAndCleanUp(const Module& module, const PartitionOptions& options) {
  PhaseClock partition;
  ASSIGN_OR_RETURN(PartitionResult result, PartitionModule(module, options));
  result.stats.times.push_back(partition.Read("partition"));
  PhaseClock cleanup;
  RETURN_IF_ERROR(RunCleanup(*result.module).status());
  result.stats.times.push_back(cleanup.Read("cleanup"));
  result.stats.collectives = CountCollectives(*result.module);
  return result;
}

std::map<std::string, PartitionStats::Collective> CountCollectives(const Module& module) {
  std::map<std::string, PartitionStats::Collective> out;
  for (const Computation* c : module.computations()) {
    for (const Instruction* i : c->instructions()) {
      if (!IsCollectiveOpcode(i->opcode())) continue;
      int64_t operand_bytes = 0;
      for (const Instruction* op : i->operands()) operand_bytes += op->shape().byte_size();
      auto& entry = out[std::string(OpcodeName(i->opcode()))];
      entry.count += 1;
      entry.bytes += std::max(operand_bytes, i->shape().byte_size());
    }
  }
  return out;
}

StatusOr<PartitionResult> PartitionModule(const Module& module, const PartitionOptions& options) {
  if (!module.entry()) return InvalidArgument("module has no entry computation");
  if (options.num_partitions < 1) return InvalidArgument("--num-partitions must be >= 1");
  // Every sharding must describe exactly num_partitions devices (the handlers index devices
  // 0..N-1 in tile assignments).
  RETURN_IF_ERROR(VerifyModuleShardings(module, nullptr, options.num_partitions));
  // An unbounded dynamic dimension (`?`) has no size to tile: the handlers would compute shard
  // shapes from kUnbounded (a partitioned module that does not verify, found by pipeline_fuzzer).
  for (const Computation* c : module.computations()) {
    for (const Instruction* i : c->instructions()) {
      std::vector<const Shape*> leaves;
      partitioner_internal::LeafShapes(i->shape(), leaves);
      for (const Shape* leaf : leaves)
        if (leaf->IsArray())
          for (int64_t d = 0; d < leaf->rank(); ++d)
            if (leaf->dim(d) == Shape::kUnbounded)
              return Unimplemented("%{} ({}): unbounded dynamic dimensions are not partitioned",
                                   i->name(), i->shape().ToString(false));
    }
  }
  partitioner_internal::Partitioner p(module, options);
  return p.Run();
}

}  // namespace spmdc

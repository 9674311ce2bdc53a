// The partitioning visitor: walks each computation in post order and emits, for every
// instruction, its per-device form (GSPMD.md §3.6). Handlers follow the op families; anything
// without a dedicated handler goes through the default action (replicate the operands, run the
// op whole, slice the result), which is always correct.
#include "partitioner/partitioner.h"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"
#include "partitioner/computation_partitioner.h"
#include "partitioner/gather_scatter.h"
#include "partitioner/halo.h"
#include "passes/passes.h"
#include "propagation/dim_mapping.h"
#include "propagation/dot_dims.h"
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

namespace {


// ReshardCost, except that as many tiles moving to other dims are priced as all-to-alls of about
// one shard each (the resharder's factor moves) rather than like a gather. For the convolution
// choices between keeping a tiling and moving it (ReshardCost itself drives the dot plans).
int64_t MoveCost(const Shape& shape, const Sharding& from, const Sharding& to) {
  if (!(from == to) && IsPlainTiled(from) && IsPlainTiled(to) && from.NumTiles() == to.NumTiles())
    return to.ShardShape(shape).byte_size();
  return ReshardCost(shape, from, to);
}

}  // namespace

Sharding ComputationTarget(const Instruction* instr) {
  if (!instr->has_sharding()) return Sharding::Single(instr->shape(), Sharding::Replicate());
  return instr->sharding()->NormalizeTupleSharding(instr->shape());
}

Sharding ComputationPartitioner::TargetOf(const Instruction* instr) const {
  return target_override_ ? *target_override_ : ComputationTarget(instr);
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
    RETURN_IF_ERROR(Handle(instr));
    RETURN_IF_ERROR(r_.status());
  }
  PValue root = r_.Reshard(Get(src_.root()), root_sharding, src_.root()->name());
  RETURN_IF_ERROR(r_.status());
  b_.computation()->set_root(root.hlo);
  RETURN_IF_ERROR(b_.computation()->RebuildParameterList());
  return root;
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
  if (subgroup) return ManualSubgroup(instr);
  if (instr->IsCustomCall("SPMDFullToShardShape")) {
    // The operand's own tiling becomes per-device (manual) data of the shard shape.
    const PValue& v = Get(instr->operand(0));
    bool auto_src = v.sharding.IsReplicated() || (v.sharding.IsTiled() && IsPlainTiled(v.sharding));
    if (!target.IsManual() || !auto_src ||
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
    if (!v.sharding.IsManual() || !auto_dst ||
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
    Set(instr, PValue{CloneWith(instr, ops, instr->shape()), target, instr->shape()});
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
    case Opcode::kDot: return Dot(instr);
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
      if (instr->IsCustomCall("TopK")) return TopK(instr);
      if (instr->IsCustomCall("Sharding") || instr->IsCustomCall("LayoutConstraint") ||
          instr->IsCustomCall("ShardBarrierFrom") || instr->IsCustomCall("ShardBarrierTo")) {
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
      return Unimplemented("%{}: {} cannot be partitioned yet", instr->name(), OpcodeName(instr->opcode()));
    default:
      if (IsElementwiseOpcode(instr->opcode()) && instr->shape().IsArray()) return Elementwise(instr);
      return Default(instr);
  }
}

// ---- partial-manual regions -------------------------------------------------------------------

Status ComputationPartitioner::ManualSubgroup(const Instruction* instr) {
  const Sharding target = TargetOf(instr);
  if (instr->IsCustomCall("SPMDFullToShardShape") || instr->IsCustomCall("SPMDShardToFullShape")) {
    // Each device's shard of the full value (automatic) is its shard of its group's value
    // (manual subgroup), as in XLA, where the two line up; where they do not (the full value's
    // sharding places the data elsewhere), the full value is resharded first (entering) or
    // after (leaving), so the group values are always the full value's blocks.
    const bool enter = instr->IsCustomCall("SPMDFullToShardShape");
    const PValue& v = Get(instr->operand(0));
    const Sharding& manual = enter ? target : v.sharding;
    const Sharding& automatic = enter ? v.sharding : target;
    const Shape& full = enter ? v.base_shape : instr->shape();
    const Shape& shard = enter ? instr->shape() : v.base_shape;
    bool auto_ok = automatic.IsReplicated() || IsPlainTiled(automatic);
    std::optional<Sharding> lined_up, blocks;
    if (manual.IsManualSubgroup() && auto_ok) {
      lined_up = FullValueSharding(manual, full, shard, automatic);
      if (!lined_up) blocks = GroupBlockSharding(manual, full, shard, automatic);
    }
    if (blocks) {
      // In-group tiles that do not line up with any tiling of the full value (uneven): every
      // device moves its whole group block, which is the group's value replicated in the group.
      std::optional<ManualFrame> frame = FrameOf(manual);
      Sharding whole = ReplicatedInGroups(*frame, full.rank());
      if (enter) {
        PValue w = r_.Reshard(v, *blocks, instr->name());
        PValue g{b_.Add(Opcode::kCopy, {w.hlo}), whole, instr->shape()};
        Set(instr, r_.Reshard(g, target, instr->name()));
      } else {
        PValue w = r_.Reshard(v, whole, instr->name());
        PValue f{b_.Add(Opcode::kCopy, {w.hlo}), *blocks, instr->shape()};
        Set(instr, r_.Reshard(f, target, instr->name()));
      }
      return absl::OkStatus();
    }
    if (!lined_up)
      return Unimplemented(
          "%{}: custom-call {} between {} (shape {}) and the manual subgroup sharding {} (shape {}) is not "
          "supported: the full value must be the manual groups' values laid out in blocks",
          instr->name(), instr->custom_call_target(), automatic.ToString(false), full.ToString(false),
          manual.ToString(false), shard.ToString(false));
    if (enter) {
      PValue w = r_.Reshard(v, *lined_up, instr->name());
      Instruction* x = r_.MaskPadding(w, b_.Zero(instr->shape().dtype()));
      Set(instr, PValue{b_.Add(Opcode::kCopy, {x}), target, instr->shape()});
    } else {
      PValue w{b_.Add(Opcode::kCopy, {v.hlo}), *lined_up, instr->shape()};
      Set(instr, r_.Reshard(w, target, instr->name()));
    }
    return absl::OkStatus();
  }
  switch (instr->opcode()) {
    case Opcode::kTuple: case Opcode::kGetTupleElement: case Opcode::kWhile: case Opcode::kConditional:
    case Opcode::kCall: case Opcode::kOptimizationBarrier:
      // Plumbing: handled with global shardings (the resharder moves manual subgroup leaves inside
      // their groups and refuses to move them out), so called computations see the region's own
      // shardings.
      return Dispatch(instr);
    default:
      break;
  }
  if (!HasManualSubgroup(target)) {
    for (const Instruction* op : instr->operands())
      if (HasManualSubgroup(Get(op).sharding))
        return Unimplemented(
            "%{}: operand %{} has the manual subgroup sharding {} but the result's sharding {} has none; leave a "
            "partial-manual region through SPMDShardToFullShape",
            instr->name(), op->name(), Get(op).sharding.ToString(false), target.ToString(false));
  }
  switch (instr->opcode()) {
    case Opcode::kAllReduce: case Opcode::kAllGather: case Opcode::kReduceScatter:
    case Opcode::kCollectivePermute:
      return CrossGroupCollective(instr);
    case Opcode::kAllToAll: case Opcode::kPartitionId: case Opcode::kReplicaId:
      return Unimplemented("%{}: {} in a partial-manual region is not partitioned yet", instr->name(),
                           OpcodeName(instr->opcode()));
    default: {
      std::vector<Sharding> all = {target};
      for (const Instruction* op : instr->operands()) all.push_back(Get(op).sharding);
      std::optional<ManualFrame> frame = CommonFrame(all);
      return InGroups(instr, frame ? *frame : *FrameOf(target));  // without one, InGroups names the culprit
    }
  }
}

Status ComputationPartitioner::CrossGroupCollective(const Instruction* instr) {
  // A collective written in the region (a psum / all_gather / ppermute over manual axes): every
  // replica group (source-target pair) must join devices that hold the same in-group tile, at
  // most one per manual group, and an all-gather / reduce-scatter dim must be whole inside each
  // group. The operand takes the result's in-group tiling and the collective runs as written.
  const Sharding target = TargetOf(instr);
  std::optional<ManualFrame> frame = FrameOf(target);
  const std::string_view op_name = OpcodeName(instr->opcode());
  if (target.IsTuple() || !frame || instr->operand_count() != 1 || !instr->shape().IsArray())
    return Unimplemented("%{}: {} in a partial-manual region needs one array operand", instr->name(), op_name);
  absl::flat_hash_map<int64_t, std::pair<int64_t, int64_t>> where;  // device -> (group, in-group id)
  for (size_t m = 0; m < frame->groups.size(); ++m)
    for (size_t l = 0; l < frame->groups[m].size(); ++l)
      where[frame->groups[m][l]] = {static_cast<int64_t>(m), static_cast<int64_t>(l)};
  auto joins_same_tiles = [&](const std::vector<int64_t>& g) {
    absl::flat_hash_set<int64_t> manual_groups;
    for (int64_t d : g) {
      auto it = where.find(d);
      if (it == where.end() || it->second.second != where.find(g[0])->second.second ||
          !manual_groups.insert(it->second.first).second)
        return false;
    }
    return true;
  };
  std::vector<std::vector<int64_t>> groups;
  if (instr->opcode() == Opcode::kCollectivePermute) {
    if (const PairList* pairs = instr->attr<PairList>(AttrId::kSourceTargetPairs))
      for (auto [from, to] : *pairs) groups.push_back(from == to ? std::vector<int64_t>{from} : std::vector<int64_t>{from, to});
  } else {
    if (const ReplicaGroups* rg = instr->attr<ReplicaGroups>(AttrId::kReplicaGroups)) groups = rg->Expanded();
    if (groups.empty()) {
      groups.emplace_back(b_.num_devices());
      std::iota(groups[0].begin(), groups[0].end(), 0);
    }
  }
  for (const std::vector<int64_t>& g : groups)
    if (g.empty() || !joins_same_tiles(g))
      return Unimplemented(
          "%{}: {} group {{{}}} does not join devices holding the same in-group tile of {}, one per manual group",
          instr->name(), op_name, fmt::join(g, ","), target.ToString(false));
  if (instr->opcode() == Opcode::kAllGather || instr->opcode() == Opcode::kReduceScatter) {
    const std::vector<int64_t>& dims = instr->dimensions();
    if (dims.size() != 1 || target.NumTilesOnDim(dims[0]) != 1)
      return Unimplemented("%{}: {} along a dim tiled inside the manual groups ({}) is not partitioned yet",
                           instr->name(), op_name, target.ToString(false));
  }
  PValue v = Operand(instr, 0, target);
  Instruction* c = CloneWith(instr, {v.hlo}, target.ShardShape(instr->shape()));
  if (instr->to_apply()) {
    std::vector<Sharding> params(instr->to_apply()->num_parameters(), Sharding::Replicate());
    ASSIGN_OR_RETURN(Computation* reducer,
                     p_->PartitionCalled(*instr->to_apply(), params, Sharding::Replicate()));
    c->ReplaceCalledComputation(instr->to_apply(), reducer);
  }
  Set(instr, PValue{c, target, instr->shape()});
  return absl::OkStatus();
}

Status ComputationPartitioner::InGroups(const Instruction* instr, const ManualFrame& frame) {
  // The instruction partitioned over the devices of one manual group (in-group shardings and
  // ids); the builder runs what it emits in every group at once.
  const Sharding target = TargetOf(instr);
  std::optional<Sharding> local_target = ToGroupLocal(target, frame);
  if (!local_target)
    return Unimplemented("%{}: sharding {} mixes manual subgroup and other shardings, or its manual groups differ "
                         "in their in-group layout", instr->name(), target.ToString(false));
  std::vector<std::pair<const Instruction*, PValue>> saved;
  for (const Instruction* op : instr->operands()) {
    if (std::any_of(saved.begin(), saved.end(), [&](const auto& e) { return e.first == op; })) continue;
    const PValue& v = Get(op);
    std::optional<Sharding> local = ToGroupLocal(v.sharding, frame);
    if (!local)
      return Unimplemented(
          "%{}: operand %{} with sharding {} is not a manual subgroup sharding in the manual groups of {}",
          instr->name(), op->name(), v.sharding.ToString(false), target.ToString(false));
    saved.emplace_back(op, v);
  }
  for (auto& [op, v] : saved) values_[op] = PValue{v.hlo, *ToGroupLocal(v.sharding, frame), v.base_shape};
  target_override_ = *local_target;
  const ManualFrame* outer = b_.EnterFrame(&frame);
  Status st = Dispatch(instr);
  if (st.ok()) st = r_.status();
  PValue result;
  if (st.ok()) {
    result = r_.Reshard(values_.at(instr), *local_target, instr->name());
    st = r_.status();
  }
  b_.EnterFrame(outer);
  target_override_.reset();
  for (auto& [op, v] : saved) values_[op] = v;
  RETURN_IF_ERROR(st);
  Set(instr, PValue{result.hlo, target, instr->shape()});
  return absl::OkStatus();
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

Status ComputationPartitioner::Reduce(const Instruction* instr) {
  int64_t n = instr->operand_count() / 2;
  Sharding target = TargetOf(instr);
  const auto& dims = instr->dimensions();
  std::optional<std::string> kind = SpmdBuilder::ReducerKind(*instr->to_apply());
  // Inputs keep the first input's sharding (all alike); reduced dims may be tiled when the
  // reducer is recognised (partial results are then all-reduced).
  const PValue& first = Get(instr->operand(0));
  Sharding in = first.sharding;
  if (in.IsTuple() || !in.IsTiled()) {
    // Derive the input sharding from the target: reduced dims untiled.
    Sharding leaf = target.IsTuple() ? target.tuple_elements()[0] : target;
    if (!leaf.IsTiled()) return Default(instr);
    std::vector<int64_t> src, dst;
    int64_t next = 0;
    for (int64_t d = 0; d < instr->operand(0)->shape().rank(); ++d) {
      if (std::find(dims.begin(), dims.end(), d) != dims.end()) continue;
      src.push_back(next++);
      dst.push_back(d);
    }
    in = MapShardingDims(leaf, src, dst, instr->operand(0)->shape().rank());
  }
  bool reduced_tiled = false;
  for (int64_t d : dims) reduced_tiled |= in.NumTilesOnDim(d) > 1;
  if (reduced_tiled && (!kind || n != 1)) {
    // Reduce each shard, gather the (small) partial results along a new leading dim within the
    // groups of the reduced tiles (in tile order), and reduce them again.
    ASSIGN_OR_RETURN(bool done, ReduceThenCombine(instr, in));
    if (done) return absl::OkStatus();
    in = PartiallyReplicateTiledShardingOnDims(in, dims);
    reduced_tiled = false;
  }
  std::vector<Instruction*> ops;
  for (int64_t k = 0; k < n; ++k) {
    PValue v = Operand(instr, k, in);
    // Padding of reduced dims must not contribute: fill it with the init value.
    Instruction* init = r_.Reshard(Get(instr->operand(n + k)), Sharding::Replicate(), instr->name()).hlo;
    ops.push_back(r_.MaskPadding(v, init, &dims));
  }
  for (int64_t k = 0; k < n; ++k)
    ops.push_back(r_.Reshard(Get(instr->operand(n + k)), Sharding::Replicate(), instr->name()).hlo);
  Sharding out_leaf = in.IsTiled() ? RemoveShapeDimensions(PartiallyReplicateTiledShardingOnDims(in, dims), dims)
                                   : in;
  Shape local_shape = instr->shape();
  if (local_shape.IsTuple()) {
    for (auto& s : local_shape.mutable_tuple_shapes()) s = out_leaf.ShardShape(s);
  } else {
    local_shape = out_leaf.ShardShape(local_shape);
  }
  Instruction* local = CloneWith(instr, ops, local_shape);
  std::vector<Sharding> params(instr->to_apply()->num_parameters(), Sharding::Replicate());
  ASSIGN_OR_RETURN(Computation* reducer, p_->PartitionCalled(*instr->to_apply(), params,
                                                             Sharding::Single(instr->to_apply()->root()->shape(), Sharding::Replicate())));
  local->ReplaceCalledComputation(instr->to_apply(), reducer);
  if (reduced_tiled) {
    std::vector<int64_t> tile_dims(dims.begin(), dims.end());
    auto groups = Resharder::GroupsAlong(in, tile_dims);
    if (!target.IsTuple()) {
      if (std::optional<PValue> rs = ReduceScatterTo(PValue{local, out_leaf, instr->shape()}, groups, target, *kind)) {
        Set(instr, r_.Reshard(*rs, target, instr->name()));
        return absl::OkStatus();
      }
    }
    local = b_.AllReduce(local, groups, *kind);
  }
  PValue v{local, Sharding::Single(instr->shape(), out_leaf), instr->shape()};
  Set(instr, r_.Reshard(v, target, instr->name()));
  return absl::OkStatus();
}

StatusOr<bool> ComputationPartitioner::ReduceThenCombine(const Instruction* instr, const Sharding& in) {
  if (!IsPlainTiled(in)) return false;
  int64_t n = instr->operand_count() / 2;
  const auto& dims = instr->dimensions();
  Sharding target = TargetOf(instr);
  std::vector<Instruction*> inits, ops;
  for (int64_t k = 0; k < n; ++k)
    inits.push_back(r_.Reshard(Get(instr->operand(n + k)), Sharding::Replicate(), instr->name()).hlo);
  for (int64_t k = 0; k < n; ++k) ops.push_back(r_.MaskPadding(Operand(instr, k, in), inits[k], &dims));
  ops.insert(ops.end(), inits.begin(), inits.end());
  Sharding out_leaf = RemoveShapeDimensions(PartiallyReplicateTiledShardingOnDims(in, dims), dims);
  Shape local_shape = instr->shape();
  if (local_shape.IsTuple()) {
    for (auto& sh : local_shape.mutable_tuple_shapes()) sh = out_leaf.ShardShape(sh);
  } else {
    local_shape = out_leaf.ShardShape(local_shape);
  }
  std::vector<Sharding> params(instr->to_apply()->num_parameters(), Sharding::Replicate());
  ASSIGN_OR_RETURN(Computation* reducer,
                   p_->PartitionCalled(*instr->to_apply(), params,
                                       Sharding::Single(instr->to_apply()->root()->shape(), Sharding::Replicate())));
  Instruction* local = CloneWith(instr, ops, local_shape);
  local->ReplaceCalledComputation(instr->to_apply(), reducer);
  std::vector<int64_t> tile_dims(dims.begin(), dims.end());
  auto groups = Resharder::GroupsAlong(in, tile_dims);
  std::vector<Instruction*> gathered;
  for (int64_t k = 0; k < n; ++k) {
    Instruction* e = local_shape.IsTuple() ? b_.GetTupleElement(local, k) : local;
    std::vector<int64_t> with_one = e->shape().dims();
    with_one.insert(with_one.begin(), 1);
    gathered.push_back(b_.AllGather(b_.Reshape(e, with_one), 0, groups));
  }
  gathered.insert(gathered.end(), inits.begin(), inits.end());
  Attributes attrs;
  attrs.Set(AttrId::kDimensions, std::vector<int64_t>{0});
  attrs.Set(AttrId::kToApply, reducer);
  Instruction* combined = b_.Add(Opcode::kReduce, gathered, std::move(attrs), &local_shape);
  PValue v{combined, Sharding::Single(instr->shape(), out_leaf), instr->shape()};
  Set(instr, r_.Reshard(v, target, instr->name()));
  return true;
}

namespace {

// The plan for a local dot of operands sharded `ls`, `rs`: valid when every device holds matching
// batch and contracting tiles on both sides. The result is tiled by the batch and non-contracting
// tiles; devices that hold different contracting tiles of the same result tile sum their partials.
std::optional<DotPlan> PlanLocalDot(const Instruction& dot, const DotDims& d, const Sharding& ls,
                                    const Sharding& rs, int64_t num_devices) {
  // Single-device (maximal) or manual operands are not held by every device.
  auto usable = [](const Sharding& s) { return s.IsReplicated() || (s.IsTiled() && !s.IsManualSubgroup()); };
  if (!usable(ls) || !usable(rs)) return std::nullopt;
  for (const DotDim& x : d.batch)
    if (TilesOnDim(ls, x.lhs) != TilesOnDim(rs, x.rhs)) return std::nullopt;
  for (const DotDim& x : d.contracting)
    if (TilesOnDim(ls, x.lhs) != TilesOnDim(rs, x.rhs)) return std::nullopt;
  int64_t out_rank = dot.shape().rank();
  std::vector<int64_t> out_tiles(out_rank, 1);
  for (const DotDim& x : d.batch) out_tiles[x.output] = TilesOnDim(ls, x.lhs);
  for (const DotDim& x : d.lhs_non_contracting) out_tiles[x.output] = TilesOnDim(ls, x.lhs);
  for (const DotDim& x : d.rhs_non_contracting) out_tiles[x.output] = TilesOnDim(rs, x.rhs);
  int64_t tile_count = Product(out_tiles);
  if (num_devices % tile_count != 0) return std::nullopt;
  // Both operands must hold matching batch and contracting tiles on every device.
  for (int64_t dev = 0; dev < num_devices; ++dev) {
    for (const DotDim& x : d.batch)
      if (TileCoord(ls, dev, x.lhs) != TileCoord(rs, dev, x.rhs)) return std::nullopt;
    for (const DotDim& x : d.contracting)
      if (TileCoord(ls, dev, x.lhs) != TileCoord(rs, dev, x.rhs)) return std::nullopt;
  }
  // Per device: output tile coordinates and contracting coordinates. Every result tile needs
  // every contracting tile (else some partial sums are never computed).
  auto out = [&](int64_t dev) {
    std::vector<int64_t> o(out_rank, 0);
    for (const DotDim& x : d.batch) o[x.output] = TileCoord(ls, dev, x.lhs);
    for (const DotDim& x : d.lhs_non_contracting) o[x.output] = TileCoord(ls, dev, x.lhs);
    for (const DotDim& x : d.rhs_non_contracting) o[x.output] = TileCoord(rs, dev, x.rhs);
    return o;
  };
  auto con = [&](int64_t dev) {
    std::vector<int64_t> c;
    for (const DotDim& x : d.contracting) c.push_back(TileCoord(ls, dev, x.lhs));
    return c;
  };
  int64_t contracting_tiles = 1;
  for (const DotDim& x : d.contracting) contracting_tiles *= TilesOnDim(ls, x.lhs);
  std::optional<TileGrouping> grouping = GroupDevicesByTile(num_devices, out_tiles, out, con, contracting_tiles);
  if (!grouping) return std::nullopt;
  return DotPlan{ls, rs, std::move(grouping->sharding), std::move(grouping->groups), 0};
}

}  // namespace

// Partial sums `v` (summed over `groups`) delivered tiled like `target` with a reduce-scatter
// instead of all-reduce + dynamic-slice, when the target splits each tile of one dim of `v` (or
// the whole dim) into as many tiles as a group has members and keeps the other dims' tiling.
std::optional<PValue> ComputationPartitioner::ReduceScatterTo(const PValue& v,
                                                               const std::vector<std::vector<int64_t>>& groups,
                                                               const Sharding& target, const std::string& kind) {
  if (!target.IsTiled() || !IsPlainTiled(target) || groups.empty()) return std::nullopt;
  if (!v.sharding.IsReplicated() && !IsPlainTiled(v.sharding)) return std::nullopt;
  auto tiles_on = [&](int64_t d) { return TilesOnDim(v.sharding, d); };
  int64_t k = static_cast<int64_t>(groups[0].size());
  for (const auto& g : groups)
    if (static_cast<int64_t>(g.size()) != k) return std::nullopt;
  int64_t rank = v.base_shape.rank(), dim = -1;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t have = tiles_on(d), want = target.NumTilesOnDim(d);
    if (have == want) continue;
    // The dim may already be tiled: each tile then splits into k (all-reduce + dynamic-slice in
    // XLA, which its ReduceScatterCreator turns into this).
    if (want != have * k || dim >= 0) return std::nullopt;
    dim = d;
  }
  if (dim < 0) return std::nullopt;
  const int64_t have = tiles_on(dim), size = v.base_shape.dim(dim);
  const int64_t chunk = (size + have * k - 1) / (have * k);
  // The k pieces of a tile must be the target's tiles (same padded layout).
  if (have > 1 && (size + have - 1) / have != k * chunk) return std::nullopt;
  int64_t n = b_.num_devices();
  std::vector<std::vector<int64_t>> tile_of(n);
  std::vector<int64_t> member(n, -1);
  for (const auto& g : groups)
    for (int64_t j = 0; j < k; ++j) member[g[j]] = j;
  for (int64_t dev = 0; dev < n; ++dev) {
    if (member[dev] < 0) return std::nullopt;
    tile_of[dev] = v.sharding.IsTiled() ? v.sharding.TileIndexForDevice(dev) : std::vector<int64_t>(rank, 0);
    tile_of[dev][dim] = tile_of[dev][dim] * k + member[dev];
  }
  std::vector<int64_t> tdims(rank);
  for (int64_t d = 0; d < rank; ++d) tdims[d] = target.NumTilesOnDim(d);
  std::optional<Sharding> inter = Resharder::ShardingFromTiles(tdims, tile_of);
  if (!inter) return std::nullopt;
  std::vector<int64_t> padded = v.hlo->shape().dims();
  padded[dim] = chunk * k;
  Instruction* x = b_.PadHigh(v.hlo, padded);
  Instruction* rs = b_.ReduceScatter(x, dim, groups, kind);
  return PValue{rs, *inter, v.base_shape};
}

Status ComputationPartitioner::Dot(const Instruction* instr) {
  Sharding target = TargetOf(instr);
  DotDims d = DotDimsOfDot(*instr);
  const PValue& L = Get(instr->operand(0));
  const PValue& R = Get(instr->operand(1));
  const Shape& ls = instr->operand(0)->shape();
  const Shape& rs = instr->operand(1)->shape();
  int64_t n = b_.num_devices();
  if (L.sharding.IsTuple() || R.sharding.IsTuple() || target.IsTuple()) return Default(instr);
  auto own = [](const std::vector<DotDim>& dims, bool lhs) {
    std::vector<int64_t> out_dims, op_dims;
    for (const DotDim& x : dims) {
      out_dims.push_back(x.output);
      op_dims.push_back(lhs ? x.lhs : x.rhs);
    }
    return std::make_pair(out_dims, op_dims);
  };
  // Layers repeat the same dot with the same shardings: plan once per distinct situation.
  std::string key = fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", ls.ToString(false), rs.ToString(false),
                                instr->shape().ToString(false), fmt::join(instr->ints_attr(AttrId::kLhsBatchDims), ","),
                                fmt::join(instr->ints_attr(AttrId::kLhsContractingDims), ","),
                                fmt::join(instr->ints_attr(AttrId::kRhsBatchDims), ","),
                                fmt::join(instr->ints_attr(AttrId::kRhsContractingDims), ","),
                                L.sharding.ToString(false), R.sharding.ToString(false), target.ToString(false));
  std::vector<DotPlan> plans;
  auto cached = dot_plans_.find(key);
  if (cached != dot_plans_.end()) plans.push_back(cached->second);
  auto consider = [&](const Sharding& lsh, const Sharding& rsh) {
    if (cached != dot_plans_.end()) return;
    std::optional<DotPlan> plan = PlanLocalDot(*instr, d, lsh, rsh, n);
    if (!plan) return;
    // Local compute counts too (as bytes at ~64 flops per byte moved), so that a plan that
    // replicates the work on every device loses to one that splits it.
    int64_t contracted = 1;
    Shape lshard = lsh.IsTiled() ? lsh.ShardShape(ls) : ls;
    for (const DotDim& x : d.contracting) contracted *= lshard.dim(x.lhs);
    int64_t flops = 2 * plan->result.ShardShape(instr->shape()).num_elements() * contracted;
    plan->cost = flops / 64 + ReshardCost(ls, L.sharding, lsh) + ReshardCost(rs, R.sharding, rsh) +
                 (plan->reduce_groups.empty() ? 0 : plan->result.ShardShape(instr->shape()).byte_size()) +
                 ReshardCost(instr->shape(), plan->result, target);
    plans.push_back(*plan);
  };
  // (1) Output-driven: operands tiled like the result on batch and non-contracting dims.
  const bool plan_cached = cached != dot_plans_.end();
  if (!plan_cached && !target.IsManual()) {
    auto [lb_out, lb_op] = own(d.batch, true);
    auto [ln_out, ln_op] = own(d.lhs_non_contracting, true);
    auto [rb_out, rb_op] = own(d.batch, false);
    auto [rn_out, rn_op] = own(d.rhs_non_contracting, false);
    std::vector<int64_t> lsrc = lb_out, ldst = lb_op, rsrc = rb_out, rdst = rb_op;
    lsrc.insert(lsrc.end(), ln_out.begin(), ln_out.end());
    ldst.insert(ldst.end(), ln_op.begin(), ln_op.end());
    rsrc.insert(rsrc.end(), rn_out.begin(), rn_out.end());
    rdst.insert(rdst.end(), rn_op.begin(), rn_op.end());
    consider(MapShardingDims(target, lsrc, ldst, ls.rank()), MapShardingDims(target, rsrc, rdst, rs.rank()));
  }
  // (2) Operands as they are.
  if (!plan_cached) consider(L.sharding, R.sharding);
  // (3) One side as it is, the other following it on batch and contracting dims.
  std::vector<int64_t> l_bc, r_bc;
  for (const DotDim& x : d.batch) l_bc.push_back(x.lhs), r_bc.push_back(x.rhs);
  for (const DotDim& x : d.contracting) l_bc.push_back(x.lhs), r_bc.push_back(x.rhs);
  if (!plan_cached && L.sharding.IsTiled()) consider(L.sharding, MapShardingDims(L.sharding, l_bc, r_bc, rs.rank()));
  if (!plan_cached && R.sharding.IsTiled()) consider(MapShardingDims(R.sharding, r_bc, l_bc, ls.rank()), R.sharding);
  if (plans.empty()) return Default(instr);
  const DotPlan& best = *std::min_element(plans.begin(), plans.end(),
                                          [](const DotPlan& a, const DotPlan& b) { return a.cost < b.cost; });
  dot_plans_.emplace(key, best);
  PValue lv = Operand(instr, 0, best.lhs);
  PValue rv = Operand(instr, 1, best.rhs);
  Instruction* lhs = lv.hlo;
  Instruction* rhs = rv.hlo;
  if (!best.reduce_groups.empty()) {
    // Padding on the contracting dims must be zero on both sides (garbage may be NaN).
    std::vector<int64_t> lc, rc;
    for (const DotDim& x : d.contracting) lc.push_back(x.lhs), rc.push_back(x.rhs);
    lhs = r_.MaskPadding(lv, b_.Zero(ls.dtype()), &lc);
    rhs = r_.MaskPadding(rv, b_.Zero(rs.dtype()), &rc);
  }
  Shape local = best.result.ShardShape(instr->shape());
  Instruction* out = CloneWith(instr, {lhs, rhs}, local);
  if (!best.reduce_groups.empty()) {
    if (std::optional<PValue> rs = ReduceScatterTo(PValue{out, best.result, instr->shape()}, best.reduce_groups,
                                                   target, "add")) {
      Set(instr, r_.Reshard(*rs, target, instr->name()));
      return absl::OkStatus();
    }
    out = b_.AllReduce(out, best.reduce_groups, "add");
  }
  Set(instr, r_.Reshard(PValue{out, best.result, instr->shape()}, target, instr->name()));
  return absl::OkStatus();
}

Status ComputationPartitioner::Convolution(const Instruction* instr) {
  // Batch and output-feature tiling runs locally; spatially tiled results take halos of the input
  // from their neighbours (the kernel is replicated or tiled on its output feature). Spatial dims
  // whose windows cannot be computed that way (input dilation with a stride, halos as large as
  // the dim) are gathered, the result sliced afterwards.
  Sharding target = TargetOf(instr);
  const ConvDims* cd = instr->attr<ConvDims>(AttrId::kDimLabels);
  if (target.IsTuple() || target.IsManual() || !cd) return Default(instr);
  if (instr->int_attr(AttrId::kBatchGroupCount, 1) != 1) {
    ASSIGN_OR_RETURN(bool done, BatchGroupedConvolution(instr, target));
    return done ? absl::OkStatus() : Default(instr);
  }
  const Sharding final_target = target;
  if (instr->int_attr(AttrId::kFeatureGroupCount, 1) == 1) {
    ASSIGN_OR_RETURN(bool done, ContractingConvolution(instr, target));
    if (done) return absl::OkStatus();
  }
  // Grouped (depthwise) convolutions: output-feature tiles that hold whole groups take the
  // matching input-feature tiles of the input (GSPMD aligns lhs feature with rhs output feature)
  // and convolve with fewer groups locally; otherwise every device holds all groups.
  const int64_t group_count = instr->int_attr(AttrId::kFeatureGroupCount, 1);
  const bool grouped = group_count != 1;
  if (grouped && target.IsTiled()) {
    if (!IsPlainTiled(target)) return Default(instr);
    int64_t t = target.NumTilesOnDim(cd->output_feature);
    bool whole_groups = group_count % t == 0 && instr->operand(0)->shape().dim(cd->input_feature) % t == 0 &&
                        instr->shape().dim(cd->output_feature) % t == 0;
    if (t > 1 && !whole_groups) {
      const int64_t feature[] = {cd->output_feature};
      target = PartiallyReplicateTiledShardingOnDims(target, feature);
    }
  }
  const Shape& lhs_shape = instr->operand(0)->shape();
  const Window* window = instr->attr<Window>(AttrId::kWindow);
  auto spatially_tiled = [&](const Sharding& s, const std::vector<int64_t>& dims) {
    return s.IsTiled() && std::any_of(dims.begin(), dims.end(), [&](int64_t d) { return s.NumTilesOnDim(d) > 1; });
  };
  // An input tiled on spatial dims with a result that is not: compute tiled like the input when
  // the result is cheaper to move afterwards than the input to gather now.
  const PValue& L = Get(instr->operand(0));
  if (window && !spatially_tiled(target, cd->output_spatial) && !L.sharding.IsTuple() &&
      IsPlainTiled(L.sharding) && spatially_tiled(L.sharding, cd->input_spatial)) {
    std::vector<int64_t> in_dims = {cd->input_batch}, out_dims = {cd->output_batch};
    in_dims.insert(in_dims.end(), cd->input_spatial.begin(), cd->input_spatial.end());
    out_dims.insert(out_dims.end(), cd->output_spatial.begin(), cd->output_spatial.end());
    Sharding like_input = MapShardingDims(L.sharding, in_dims, out_dims, instr->shape().rank());
    Sharding input_for_target =
        target.IsTiled() ? MapShardingDims(target, {cd->output_batch}, {cd->input_batch}, lhs_shape.rank())
                         : Sharding::Replicate();
    if (ReshardCost(instr->shape(), like_input, target) <= ReshardCost(lhs_shape, L.sharding, input_for_target))
      target = like_input;
  } else if (!L.sharding.IsTuple() && IsPlainTiled(L.sharding) && TilesOnDim(L.sharding, cd->input_batch) > 1 &&
             TilesOnDim(target, cd->output_batch) == 1 && !spatially_tiled(target, cd->output_spatial)) {
    // An input tiled on its batch with a result tiled elsewhere (output features): compute tiled
    // like the input with the kernel whole when that and moving the result afterwards (an
    // all-to-all of one result shard) cost less than gathering the input now (XLA would gather).
    const Shape& rhs_shape = instr->operand(1)->shape();
    const PValue& R = Get(instr->operand(1));
    Sharding like_input = MapShardingDims(L.sharding, {cd->input_batch}, {cd->output_batch}, instr->shape().rank());
    Sharding input_for_target = target.IsTiled() ? MapShardingDims(target, {cd->output_batch}, {cd->input_batch},
                                                                   lhs_shape.rank())
                                                 : Sharding::Replicate();
    Sharding kernel_for_target =
        target.IsTiled() && !grouped
            ? MapShardingDims(target, {cd->output_feature}, {cd->kernel_output_feature}, rhs_shape.rank())
            : Sharding::Replicate();
    if (!R.sharding.IsTuple() && like_input.IsTiled()) {
      int64_t keep = MoveCost(instr->shape(), like_input, target) + ReshardCost(rhs_shape, R.sharding, Sharding::Replicate());
      int64_t now = ReshardCost(lhs_shape, L.sharding, input_for_target) + ReshardCost(rhs_shape, R.sharding, kernel_for_target);
      if (keep < now) target = like_input;
    }
  }
  if (!target.IsTiled()) return Default(instr);
  std::vector<int64_t> gather;
  std::vector<std::pair<size_t, HaloPlan>> halos;  // (spatial index, plan)
  for (size_t i = 0; i < cd->output_spatial.size(); ++i) {
    int64_t od = cd->output_spatial[i];
    if (target.NumTilesOnDim(od) == 1) continue;
    std::optional<HaloPlan> plan;
    if (window && IsPlainTiled(target))
      plan = PlanHalo(lhs_shape.dim(cd->input_spatial[i]), target.NumTilesOnDim(od), window->dims[i]);
    if (plan && plan->out == instr->shape().dim(od)) halos.emplace_back(i, *plan);
    else gather.push_back(od);
  }
  if (!gather.empty()) {
    if (!IsPlainTiled(target)) return Default(instr);
    target = PartiallyReplicateTiledShardingOnDims(target, gather);
    if (!target.IsTiled()) return Default(instr);
  }
  std::vector<int64_t> out_dims = {cd->output_batch}, in_dims = {cd->input_batch};
  const int64_t group_tiles = grouped ? target.NumTilesOnDim(cd->output_feature) : 1;
  if (group_tiles > 1) {
    out_dims.push_back(cd->output_feature);
    in_dims.push_back(cd->input_feature);
  }
  for (const auto& [i, plan] : halos) {
    out_dims.push_back(cd->output_spatial[i]);
    in_dims.push_back(cd->input_spatial[i]);
  }
  Sharding lsh = MapShardingDims(target, out_dims, in_dims, lhs_shape.rank());
  Sharding rsh = MapShardingDims(target, {cd->output_feature}, {cd->kernel_output_feature},
                                 instr->operand(1)->shape().rank());
  PValue lv = Operand(instr, 0, lsh), rv = Operand(instr, 1, rsh);
  Instruction* lhs = lv.hlo;
  Window local_window = window ? *window : Window{};
  for (const auto& [i, plan] : halos) {
    lhs = ExchangeHalo(b_, lhs, lsh, cd->input_spatial[i], plan, b_.Zero(lhs_shape.dtype()));
    local_window.dims[i] = plan.local;
  }
  Instruction* out = nullptr;
  if (halos.empty()) {
    out = CloneWith(instr, {lhs, rv.hlo}, target.ShardShape(instr->shape()));
    if (group_tiles > 1) out->attrs().Set(AttrId::kFeatureGroupCount, group_count / group_tiles);
  } else {
    Attributes attrs = instr->attrs();
    attrs.Remove(AttrId::kControlPredecessors);
    attrs.Set(AttrId::kWindow, local_window);
    if (group_tiles > 1) attrs.Set(AttrId::kFeatureGroupCount, group_count / group_tiles);
    out = b_.Add(Opcode::kConvolution, {lhs, rv.hlo}, std::move(attrs), nullptr, instr->name());
    for (const auto& [i, plan] : halos) out = SliceOutputTile(b_, out, target, cd->output_spatial[i], plan);
  }
  Set(instr, r_.Reshard(PValue{out, target, instr->shape()}, final_target, instr->name()));
  return absl::OkStatus();
}

// A convolution whose input feature dim (the contraction) is tiled on an operand (GSPMD's dot
// handler on convolutions, grouping on the contracting dims): like a dot, each device convolves
// its feature slice of both operands (batch, output features and spatial dims tiled as they come,
// spatial ones with halos from their neighbours) and the partial results are summed with an
// all-reduce, or a reduce-scatter when the result is tiled on a dim they hold whole. This is the
// filter gradient of data parallelism (the batch is the contraction there), which would otherwise
// gather the activations. Taken only when cheaper than the plan that tiles the operands like the
// result; false leaves the convolution to that plan.
StatusOr<bool> ComputationPartitioner::ContractingConvolution(const Instruction* instr, const Sharding& target) {
  const ConvDims* cd = instr->attr<ConvDims>(AttrId::kDimLabels);
  const PValue& L = Get(instr->operand(0));
  const PValue& R = Get(instr->operand(1));
  const Shape& ls = instr->operand(0)->shape();
  const Shape& rs = instr->operand(1)->shape();
  if (L.sharding.IsTuple() || R.sharding.IsTuple() || !(target.IsReplicated() || IsPlainTiled(target)))
    return false;
  if (TilesOnDim(L.sharding, cd->input_feature) == 1 && TilesOnDim(R.sharding, cd->kernel_input_feature) == 1)
    return false;
  DotDims d;
  d.lhs_non_contracting.push_back({cd->input_batch, -1, cd->output_batch, -1});
  d.rhs_non_contracting.push_back({-1, cd->kernel_output_feature, cd->output_feature, -1});
  d.contracting.push_back({cd->input_feature, cd->kernel_input_feature, -1, -1});
  // Input spatial dims tiled like the result's take halos from their neighbours (as in the main
  // path); the kernel's spatial dims stay whole.
  const Window* window = instr->attr<Window>(AttrId::kWindow);
  for (size_t i = 0; i < cd->input_spatial.size(); ++i)
    d.lhs_non_contracting.push_back({cd->input_spatial[i], -1, cd->output_spatial[i], -1});
  auto spatial_whole = [](const Sharding& s, const std::vector<int64_t>& dims) {
    return std::all_of(dims.begin(), dims.end(), [&](int64_t x) { return TilesOnDim(s, x) == 1; });
  };
  // The halo plans of the spatially tiled dims of an input sharding (nullopt: not computable).
  auto halo_plans = [&](const Sharding& lsh) -> std::optional<std::vector<std::pair<size_t, HaloPlan>>> {
    std::vector<std::pair<size_t, HaloPlan>> plans;
    for (size_t i = 0; i < cd->input_spatial.size(); ++i) {
      int64_t tiles = TilesOnDim(lsh, cd->input_spatial[i]);
      if (tiles == 1) continue;
      if (!window) return std::nullopt;
      std::optional<HaloPlan> plan = PlanHalo(ls.dim(cd->input_spatial[i]), tiles, window->dims[i]);
      if (!plan || plan->out != instr->shape().dim(cd->output_spatial[i])) return std::nullopt;
      plans.emplace_back(i, *plan);
    }
    return plans;
  };
  int64_t n = b_.num_devices();
  int64_t kernel_window = 1;
  for (int64_t x : cd->kernel_spatial) kernel_window *= rs.dim(x);
  // Bytes moved plus local flops / 64 (as in Dot), for this plan and for tiling like the result.
  auto flops = [&](const Sharding& out, int64_t features) {
    return 2 * out.ShardShape(instr->shape()).num_elements() * features * kernel_window / 64;
  };
  std::vector<int64_t> out_dims = {cd->output_batch}, in_dims = {cd->input_batch};
  out_dims.insert(out_dims.end(), cd->output_spatial.begin(), cd->output_spatial.end());
  in_dims.insert(in_dims.end(), cd->input_spatial.begin(), cd->input_spatial.end());
  Sharding base_l = MapShardingDims(target, out_dims, in_dims, ls.rank());
  Sharding base_r = MapShardingDims(target, {cd->output_feature}, {cd->kernel_output_feature}, rs.rank());
  int64_t base_cost = MoveCost(ls, L.sharding, base_l) + MoveCost(rs, R.sharding, base_r) +
                      flops(target, ls.dim(cd->input_feature));
  std::optional<DotPlan> best;
  auto consider = [&](const Sharding& lsh, const Sharding& rsh) {
    if (!IsPlainTilingOrReplicated(lsh) || !IsPlainTilingOrReplicated(rsh)) return;
    if (!spatial_whole(rsh, cd->kernel_spatial) || !halo_plans(lsh)) return;
    std::optional<DotPlan> plan = PlanLocalDot(*instr, d, lsh, rsh, n);
    if (!plan || plan->reduce_groups.empty()) return;
    int64_t features = (ls.dim(cd->input_feature) + TilesOnDim(lsh, cd->input_feature) - 1) /
                       TilesOnDim(lsh, cd->input_feature);
    plan->cost = ReshardCost(ls, L.sharding, lsh) + ReshardCost(rs, R.sharding, rsh) +
                 plan->result.ShardShape(instr->shape()).byte_size() +
                 ReshardCost(instr->shape(), plan->result, target) + flops(plan->result, features);
    if (!best || plan->cost < best->cost) best = std::move(plan);
  };
  consider(L.sharding, R.sharding);
  if (L.sharding.IsTiled())
    consider(L.sharding, MapShardingDims(L.sharding, {cd->input_feature}, {cd->kernel_input_feature}, rs.rank()));
  if (R.sharding.IsTiled())
    consider(MapShardingDims(R.sharding, {cd->kernel_input_feature}, {cd->input_feature}, ls.rank()), R.sharding);
  if (!best || best->cost >= base_cost) return false;
  PValue lv = Operand(instr, 0, best->lhs);
  PValue rv = Operand(instr, 1, best->rhs);
  // Padding of an uneven feature dim must be zero on both sides (garbage may be NaN).
  std::vector<int64_t> lf = {cd->input_feature}, rf = {cd->kernel_input_feature};
  Instruction* lhs = r_.MaskPadding(lv, b_.Zero(ls.dtype()), &lf);
  Instruction* rhs = r_.MaskPadding(rv, b_.Zero(rs.dtype()), &rf);
  std::vector<std::pair<size_t, HaloPlan>> halos = *halo_plans(best->lhs);
  Instruction* out = nullptr;
  if (halos.empty()) {
    out = CloneWith(instr, {lhs, rhs}, best->result.ShardShape(instr->shape()));
  } else {
    Window local_window = *window;
    for (const auto& [i, plan] : halos) {
      lhs = ExchangeHalo(b_, lhs, best->lhs, cd->input_spatial[i], plan, b_.Zero(ls.dtype()));
      local_window.dims[i] = plan.local;
    }
    Attributes attrs = instr->attrs();
    attrs.Remove(AttrId::kControlPredecessors);
    attrs.Set(AttrId::kWindow, local_window);
    out = b_.Add(Opcode::kConvolution, {lhs, rhs}, std::move(attrs), nullptr, instr->name());
    for (const auto& [i, plan] : halos) out = SliceOutputTile(b_, out, best->result, cd->output_spatial[i], plan);
  }
  if (std::optional<PValue> rs_out =
          ReduceScatterTo(PValue{out, best->result, instr->shape()}, best->reduce_groups, target, "add")) {
    Set(instr, r_.Reshard(*rs_out, target, instr->name()));
    return true;
  }
  out = b_.AllReduce(out, best->reduce_groups, "add");
  Set(instr, r_.Reshard(PValue{out, best->result, instr->shape()}, target, instr->name()));
  return true;
}

// batch_group_count > 1 (the filter gradient of a grouped convolution): group g convolves input
// batch block g (group-major) into output features block g. Output-feature tiles that hold whole
// groups take the matching input-batch tiles and convolve locally with fewer groups; the other
// dims stay whole. The tiles come from the result, else from the input. False: not applicable.
StatusOr<bool> ComputationPartitioner::BatchGroupedConvolution(const Instruction* instr, const Sharding& target) {
  const ConvDims* cd = instr->attr<ConvDims>(AttrId::kDimLabels);
  const int64_t groups = instr->int_attr(AttrId::kBatchGroupCount, 1);
  const Shape& ls = instr->operand(0)->shape();
  const int64_t out_rank = instr->shape().rank();
  const PValue& L = Get(instr->operand(0));
  auto usable = [&](int64_t t) {
    return t > 1 && groups % t == 0 && ls.dim(cd->input_batch) % t == 0 &&
           instr->shape().dim(cd->output_feature) % t == 0;
  };
  std::optional<Sharding> compute;
  std::vector<int64_t> others;
  if (target.IsTiled() && IsPlainTiled(target) && usable(target.NumTilesOnDim(cd->output_feature))) {
    for (int64_t d = 0; d < out_rank; ++d)
      if (d != cd->output_feature) others.push_back(d);
    compute = PartiallyReplicateTiledShardingOnDims(target, others);
  } else if (!L.sharding.IsTuple() && L.sharding.IsTiled() && IsPlainTiled(L.sharding) &&
             usable(L.sharding.NumTilesOnDim(cd->input_batch))) {
    compute = MapShardingDims(L.sharding, {cd->input_batch}, {cd->output_feature}, out_rank);
  }
  if (!compute || !compute->IsTiled()) return false;
  const int64_t t = compute->NumTilesOnDim(cd->output_feature);
  Sharding lsh = MapShardingDims(*compute, {cd->output_feature}, {cd->input_batch}, ls.rank());
  Sharding rsh = MapShardingDims(*compute, {cd->output_feature}, {cd->kernel_output_feature},
                                 instr->operand(1)->shape().rank());
  PValue lv = Operand(instr, 0, lsh), rv = Operand(instr, 1, rsh);
  Instruction* out = CloneWith(instr, {lv.hlo, rv.hlo}, compute->ShardShape(instr->shape()));
  out->attrs().Set(AttrId::kBatchGroupCount, groups / t);
  Set(instr, r_.Reshard(PValue{out, *compute, instr->shape()}, target, instr->name()));
  return true;
}

Status ComputationPartitioner::ReduceWindow(const Instruction* instr) {
  // Every input is tiled like the result; tiled window dims take halos from their neighbours
  // (padding positions hold the init value), dims that cannot (base dilation with a stride, halos
  // as large as the dim) are gathered and the result sliced afterwards.
  int64_t n = instr->operand_count() / 2;
  Sharding target = TargetOf(instr);
  const Window* window = instr->attr<Window>(AttrId::kWindow);
  if (!window) return Default(instr);
  Sharding leaf = target.IsTuple() ? target.tuple_elements()[0] : target;
  if (target.IsTuple())
    for (const Sharding& s : target.tuple_elements())
      if (!(s == leaf)) return Default(instr);
  const Shape& in_shape = instr->operand(0)->shape();
  auto windowed = [&](const Sharding& s) {
    if (!s.IsTiled()) return false;
    for (int64_t d = 0; d < in_shape.rank(); ++d) {
      const WindowDim& w = window->dims[d];
      bool trivial = w.size == 1 && w.stride == 1 && w.padding_low == 0 && w.padding_high == 0 && w.base_dilation == 1;
      if (s.NumTilesOnDim(d) > 1 && !trivial) return true;
    }
    return false;
  };
  // An input tiled on window dims with a result that is not: compute tiled like the input when
  // the result is no dearer to move afterwards than the input to gather now.
  Sharding compute = leaf;
  const PValue& first = Get(instr->operand(0));
  if (!windowed(leaf) && !first.sharding.IsTuple() && IsPlainTiled(first.sharding) && windowed(first.sharding) &&
      ReshardCost(in_shape, first.sharding, leaf) >=
          ReshardCost(instr->shape().IsTuple() ? instr->shape().tuple_shapes()[0] : instr->shape(), first.sharding, leaf))
    compute = first.sharding;
  if (!compute.IsTiled() || !IsPlainTiled(compute)) return Default(instr);
  std::vector<int64_t> gather;
  std::vector<std::pair<int64_t, HaloPlan>> halos;
  for (int64_t d = 0; d < in_shape.rank(); ++d) {
    const WindowDim& w = window->dims[d];
    bool trivial = w.size == 1 && w.stride == 1 && w.padding_low == 0 && w.padding_high == 0 && w.base_dilation == 1;
    if (compute.NumTilesOnDim(d) == 1 || trivial) continue;
    if (std::optional<HaloPlan> plan = PlanHalo(in_shape.dim(d), compute.NumTilesOnDim(d), w)) halos.emplace_back(d, *plan);
    else gather.push_back(d);
  }
  if (!gather.empty()) {
    compute = PartiallyReplicateTiledShardingOnDims(compute, gather);
    if (!compute.IsTiled()) return Default(instr);
  }
  std::vector<Instruction*> inits, ops;
  for (int64_t k = 0; k < n; ++k)
    inits.push_back(r_.Reshard(Get(instr->operand(n + k)), Sharding::Replicate(), instr->name()).hlo);
  Window local_window = *window;
  for (const auto& [d, plan] : halos) local_window.dims[d] = plan.local;
  for (int64_t k = 0; k < n; ++k) {
    Instruction* x = Operand(instr, k, compute).hlo;
    for (const auto& [d, plan] : halos) x = ExchangeHalo(b_, x, compute, d, plan, inits[k]);
    ops.push_back(x);
  }
  ops.insert(ops.end(), inits.begin(), inits.end());
  // The local result's shape comes from shape inference (base-dilated dims yield more than the
  // tile and are cut below).
  Attributes attrs = instr->attrs();
  attrs.Remove(AttrId::kControlPredecessors);
  attrs.Set(AttrId::kWindow, local_window);
  Instruction* local = b_.Add(Opcode::kReduceWindow, ops, std::move(attrs), nullptr, instr->name());
  std::vector<Sharding> params(instr->to_apply()->num_parameters(), Sharding::Replicate());
  ASSIGN_OR_RETURN(Computation* reducer,
                   p_->PartitionCalled(*instr->to_apply(), params,
                                       Sharding::Single(instr->to_apply()->root()->shape(), Sharding::Replicate())));
  local->ReplaceCalledComputation(instr->to_apply(), reducer);
  auto cut = [&](Instruction* y) {
    for (const auto& [d, plan] : halos) y = SliceOutputTile(b_, y, compute, d, plan);
    return y;
  };
  bool dilated = std::any_of(halos.begin(), halos.end(), [](const auto& h) { return !h.second.out_offset.empty(); });
  if (dilated && local->shape().IsTuple()) {
    std::vector<Instruction*> elements;
    for (int64_t k = 0; k < n; ++k) elements.push_back(cut(b_.GetTupleElement(local, k)));
    local = b_.Tuple(elements);
  } else if (dilated) {
    local = cut(local);
  }
  Sharding local_sharding = target.IsTuple() ? Sharding::Tuple(std::vector<Sharding>(n, compute)) : compute;
  Set(instr, r_.Reshard(PValue{local, local_sharding, instr->shape()}, target, instr->name()));
  return absl::OkStatus();
}

Status ComputationPartitioner::SelectAndScatter(const Instruction* instr) {
  // The backward of max-pooling. Along a tiled window dim (no base dilation) tile t takes the
  // source positions whose windows touch its operand tile, and the operand elements those
  // windows cover, from its neighbours; it scatters locally and keeps its own tile. Source
  // positions past the end are fetched as zeros, so the scatter must be an add (their windows,
  // over unspecified data, then add nothing). Operand positions outside the base must never be
  // selected: tiles whose windows reach them cut them off and run the local op with that much
  // padding, one branch of a conditional per distinct cut. Other tiled window dims are gathered.
  Sharding target = TargetOf(instr);
  const Window* window = instr->attr<Window>(AttrId::kWindow);
  Computation* scatter = instr->computation_attr(AttrId::kScatter);
  std::optional<std::string> kind = scatter ? SpmdBuilder::ReducerKind(*scatter) : std::nullopt;
  if (!window || !kind || *kind != "add" || target.IsTuple()) return Default(instr);
  const Shape& base = instr->operand(0)->shape();
  const Shape& source = instr->operand(1)->shape();
  auto trivial = [](const WindowDim& w) {
    return w.size == 1 && w.stride == 1 && w.padding_low == 0 && w.padding_high == 0 && w.base_dilation == 1;
  };
  auto windowed = [&](const Sharding& s) {
    if (!s.IsTiled()) return false;
    for (int64_t d = 0; d < base.rank(); ++d)
      if (s.NumTilesOnDim(d) > 1 && !trivial(window->dims[d])) return true;
    return false;
  };
  Sharding compute = target;
  const PValue& first = Get(instr->operand(0));
  if (!windowed(target) && !first.sharding.IsTuple() && IsPlainTiled(first.sharding) && windowed(first.sharding))
    compute = first.sharding;  // the result has the operand's shape: no dearer to move than it
  if (!compute.IsTiled() || !IsPlainTiled(compute)) return Default(instr);
  struct Halo {
    int64_t dim;
    HaloPlan operand, source;
    int64_t pad_low, pad_high;
    std::vector<int64_t> offset;  // per tile: its own tile in the padded local result
    std::vector<std::pair<int64_t, int64_t>> cut;  // per tile: operand positions outside the base
  };
  std::vector<int64_t> gather;
  std::vector<Halo> halos;
  for (int64_t d = 0; d < base.rank(); ++d) {
    const WindowDim& w = window->dims[d];
    int64_t n = compute.NumTilesOnDim(d);
    if (n == 1 || trivial(w)) continue;
    if (w.base_dilation != 1) {
      gather.push_back(d);
      continue;
    }
    int64_t size = base.dim(d), out = source.dim(d), ci = (size + n - 1) / n;
    int64_t span = (w.size - 1) * w.window_dilation + 1, s = w.stride;
    std::vector<int64_t> first_j(n), op_start(n), windows(n, 0);
    int64_t count = 1;
    for (int64_t t = 0; t < n; ++t) {
      // Windows j with j*s - low < (t+1)*ci and j*s - low + span > t*ci touch tile t.
      int64_t lo = std::max<int64_t>(0, FloorDiv(t * ci + w.padding_low - span, s) + 1);
      int64_t hi = std::min(out - 1, FloorDiv((t + 1) * ci + w.padding_low + s - 1, s) - 1);
      if (t * ci >= size || lo > hi) lo = out, hi = out - 1;  // no window: all source masked
      first_j[t] = lo;
      windows[t] = hi - lo + 1;
      count = std::max(count, hi - lo + 1);
    }
    int64_t length = (count - 1) * s + span;
    for (int64_t t = 0; t < n; ++t) op_start[t] = first_j[t] * s - w.padding_low;
    std::optional<HaloPlan> src_plan = PlanFetch(out, n, count, first_j);
    // Windows past a tile's last one do not touch it: their operand data may be anything.
    std::vector<int64_t> needed(n, 0);
    for (int64_t t = 0; t < n; ++t) needed[t] = windows[t] > 0 ? (windows[t] - 1) * s + span : 0;
    std::optional<HaloPlan> op_plan = PlanFetch(size, n, length, op_start, needed);
    if (!src_plan || !op_plan) {
      gather.push_back(d);
      continue;
    }
    // Operand positions outside the base are cut off below (or lie only in windows of masked
    // source positions).
    op_plan->mask = false;
    Halo h{d, *op_plan, *src_plan, 0, 0, std::vector<int64_t>(n), std::vector<std::pair<int64_t, int64_t>>(n)};
    // Only padded sides can put positions outside the base into windows of real source.
    for (int64_t t = 0; t < n; ++t) {
      int64_t low = w.padding_low > 0 ? std::max<int64_t>(0, -op_start[t]) : 0;
      int64_t high = w.padding_high > 0 ? std::max<int64_t>(0, op_start[t] + length - size) : 0;
      if (low + high < length) h.cut[t] = {low, high};  // else no real window: nothing to protect
    }
    for (int64_t t = 0; t < n; ++t) {
      int64_t off = t * ci - op_start[t];
      h.pad_low = std::max(h.pad_low, -off);
      h.pad_high = std::max(h.pad_high, off + ci - length);
      h.offset[t] = off;
    }
    for (int64_t& off : h.offset) off += h.pad_low;
    halos.push_back(std::move(h));
  }
  if (!gather.empty()) {
    compute = PartiallyReplicateTiledShardingOnDims(compute, gather);
    if (!compute.IsTiled()) return Default(instr);
  }
  Instruction* init = r_.Reshard(Get(instr->operand(2)), Sharding::Replicate(), instr->name()).hlo;
  Instruction* x = Operand(instr, 0, compute).hlo;
  Instruction* y = Operand(instr, 1, compute).hlo;
  Window local_window = *window;
  for (const Halo& h : halos) {
    x = ExchangeHalo(b_, x, compute, h.dim, h.operand, init);
    y = ExchangeHalo(b_, y, compute, h.dim, h.source, b_.Zero(source.dtype()));
    local_window.dims[h.dim] = LocalWindowDim(window->dims[h.dim]);
  }
  Attributes attrs = instr->attrs();
  attrs.Remove(AttrId::kControlPredecessors);
  for (Computation* c : instr->called_computations()) {
    std::vector<Sharding> params(c->num_parameters(), Sharding::Replicate());
    ASSIGN_OR_RETURN(Computation* pc,
                     p_->PartitionCalled(*c, params, Sharding::Single(c->root()->shape(), Sharding::Replicate())));
    attrs.Set(c == instr->computation_attr(AttrId::kSelect) ? AttrId::kSelect : AttrId::kScatter, pc);
  }
  // The local op on (operand, source, init) with each halo dim's cut (low, high) removed from
  // the operand and given back as window padding; the result has the operand's shape.
  auto scatter_locally = [&](SpmdBuilder& bb, Instruction* op, Instruction* src, Instruction* ini,
                             const std::vector<std::pair<int64_t, int64_t>>& cuts) {
    Window wnd = local_window;
    std::vector<int64_t> starts(op->shape().rank(), 0), limits = op->shape().dims();
    std::vector<PaddingDim> back(op->shape().rank());
    for (size_t k = 0; k < halos.size(); ++k) {
      int64_t d = halos[k].dim;
      starts[d] = cuts[k].first;
      limits[d] -= cuts[k].second;
      wnd.dims[d].padding_low = back[d].low = cuts[k].first;
      wnd.dims[d].padding_high = back[d].high = cuts[k].second;
    }
    Attributes a = attrs;
    a.Set(AttrId::kWindow, wnd);
    Instruction* r = bb.Add(Opcode::kSelectAndScatter, {bb.Slice(op, starts, limits), src, ini}, std::move(a));
    return bb.Pad(r, ini, back);
  };
  const TileAssignment& ta = compute.tile_assignment();
  std::vector<std::vector<std::pair<int64_t, int64_t>>> keys;  // distinct cuts
  std::vector<int64_t> branch_of(b_.num_devices(), 0);
  for (int64_t dev = 0; dev < b_.num_devices(); ++dev) {
    std::vector<int64_t> c = *ta.IndexOf(dev);
    std::vector<std::pair<int64_t, int64_t>> key;
    for (const Halo& h : halos) key.push_back(h.cut[c[h.dim]]);
    auto it = std::find(keys.begin(), keys.end(), key);
    branch_of[dev] = it - keys.begin();
    if (it == keys.end()) keys.push_back(key);
  }
  Instruction* local = nullptr;
  if (keys.size() == 1) {
    local = scatter_locally(b_, x, y, init, keys[0]);
  } else {
    // One branch per distinct cut, chosen by partition-id.
    Instruction* args = b_.Tuple({x, y, init});
    std::vector<Computation*> branches;
    for (const auto& key : keys) {
      Computation* c = b_.module()->AddComputation(
          std::make_unique<Computation>(b_.module()->UniqueName(instr->name() + "_cut")));
      SpmdBuilder bb(b_.state(), c);
      Instruction* p = bb.Parameter(0, args->shape(), b_.module()->UniqueName("args"));
      c->set_root(scatter_locally(bb, bb.GetTupleElement(p, 0), bb.GetTupleElement(p, 1), bb.GetTupleElement(p, 2), key));
      RETURN_IF_ERROR(c->RebuildParameterList());
      branches.push_back(c);
    }
    std::vector<Instruction*> ops = {b_.TableLookup(branch_of)};
    ops.insert(ops.end(), branches.size(), args);
    Attributes ca;
    ca.Set(AttrId::kBranchComputations, branches);
    local = b_.Add(Opcode::kConditional, ops, std::move(ca));
  }
  // Keep this device's tile; parts of it no window reaches hold the init value.
  for (const Halo& h : halos) {
    std::vector<PaddingDim> pad(local->shape().rank());
    pad[h.dim].low = h.pad_low;
    pad[h.dim].high = h.pad_high;
    local = b_.Pad(local, init, pad);
    std::vector<int64_t> table(b_.num_devices());
    for (int64_t dev = 0; dev < b_.num_devices(); ++dev) table[dev] = h.offset[ta.IndexOf(dev)->at(h.dim)];
    std::vector<Instruction*> starts;
    for (int64_t d = 0; d < local->shape().rank(); ++d)
      starts.push_back(d == h.dim ? b_.TableLookup(table) : b_.ScalarS32(0));
    std::vector<int64_t> sizes = local->shape().dims();
    sizes[h.dim] = h.operand.ci;
    local = b_.DynamicSlice(local, starts, sizes);
  }
  Set(instr, r_.Reshard(PValue{local, compute, instr->shape()}, target, instr->name()));
  return absl::OkStatus();
}

namespace {

// Input tiles (of ci) a window of co elements starting at lo[t] overlaps, at most over t.
int64_t WindowHops(int64_t n, int64_t ci, int64_t co, const std::vector<int64_t>& lo) {
  int64_t hops = 1;
  for (int64_t t = 0; t < n; ++t) {
    int64_t first = std::clamp<int64_t>(FloorDiv(lo[t], ci), 0, n - 1);
    int64_t last = std::min(FloorDiv(lo[t] + co - 1, ci), n - 1);
    hops = std::max(hops, last - first + 1);
  }
  return hops;
}

}  // namespace

// Per device (tiled like `target`, n tiles of ci input elements on `dim`), the window of co
// elements of `x`'s dim starting at global input index lo(t) for its tile t: the elements it
// needs past its own tile come from neighbours (halo exchange: collective-permutes of the edge
// elements; else of the whole input tiles it overlaps), are concatenated and the window is
// (dynamic-)sliced out. Windows may start before 0 or run past the end: those elements are
// unspecified (callers mask them). Nullopt when that would move as much as a gather.
std::optional<Instruction*> ComputationPartitioner::FetchWindow(Instruction* x, const Sharding& target, int64_t dim,
                                                                int64_t ci, int64_t co,
                                                                const std::vector<int64_t>& lo) {
  int64_t n = target.NumTilesOnDim(dim);
  // Only the edge elements the windows reach past their own tile (never more than whole tiles).
  if (std::optional<HaloPlan> plan = PlanFetch(n * ci, n, co, lo)) {
    plan->mask = false;
    return ExchangeHalo(b_, x, target, dim, *plan, b_.Zero(x->shape().dtype()));
  }
  std::vector<int64_t> first(n);
  int64_t hops = WindowHops(n, ci, co, lo), left = 0, right = 0;
  if (hops >= n) return std::nullopt;
  for (int64_t t = 0; t < n; ++t) {
    first[t] = std::clamp<int64_t>(FloorDiv(lo[t], ci), 0, n - 1);
    // The buffer must hold every window whole (a dynamic-slice would otherwise clamp its start
    // and shift the data): parts before the first or past the last tile are padded.
    left = std::max(left, first[t] * ci - lo[t]);
    right = std::max(right, lo[t] + co - (first[t] + hops) * ci);
  }
  int64_t num = b_.num_devices();
  const TileAssignment& ta = target.tile_assignment();
  std::vector<Instruction*> pieces;
  for (int64_t k = 0; k < hops; ++k) {
    // Rounds keep sources (and targets) unique within one collective-permute.
    std::vector<std::vector<std::pair<int64_t, int64_t>>> rounds;
    std::vector<int64_t> round_of(num, -1);  // -1: the local tile
    for (int64_t dev = 0; dev < num; ++dev) {
      std::vector<int64_t> c = *ta.IndexOf(dev);
      c[dim] = std::min(first[c[dim]] + k, n - 1);
      int64_t src = ta(c);
      if (src == dev) continue;
      size_t r = 0;
      for (; r < rounds.size(); ++r) {
        bool clash = std::any_of(rounds[r].begin(), rounds[r].end(), [&](auto& p) { return p.first == src; });
        if (!clash) break;
      }
      if (r == rounds.size()) rounds.emplace_back();
      rounds[r].emplace_back(src, dev);
      round_of[dev] = static_cast<int64_t>(r);
    }
    Instruction* piece = x;
    if (!rounds.empty()) {
      Instruction* which = b_.TableLookup(round_of);
      Shape pred(DType::kPred, x->shape().dims());
      for (size_t r = 0; r < rounds.size(); ++r) {
        Instruction* got = b_.CollectivePermute(x, rounds[r]);
        Instruction* mine = b_.Compare(which, b_.ScalarS32(static_cast<int64_t>(r)), "EQ");
        piece = b_.Select(b_.BroadcastScalar(mine, pred), got, piece);
      }
    }
    pieces.push_back(piece);
  }
  Instruction* buffer = b_.Concatenate(pieces, dim);
  if (left > 0 || right > 0) {
    std::vector<PaddingDim> pad(buffer->shape().rank());
    pad[dim].low = left;
    pad[dim].high = right;
    buffer = b_.Pad(buffer, b_.Zero(buffer->shape().dtype()), pad);
  }
  std::vector<int64_t> offset(num, 0);
  for (int64_t dev = 0; dev < num; ++dev) {
    int64_t t = ta.IndexOf(dev)->at(dim);
    offset[dev] = lo[t] - first[t] * ci + left;
  }
  std::vector<Instruction*> starts;
  for (int64_t d = 0; d < buffer->shape().rank(); ++d)
    starts.push_back(d == dim ? b_.TableLookup(offset) : b_.ScalarS32(0));
  std::vector<int64_t> sizes = buffer->shape().dims();
  sizes[dim] = co;
  return b_.DynamicSlice(buffer, starts, sizes);
}

// A slice along one tiled dim d (the other sliced dims untiled), or an edge pad (no interior
// padding) along one: a windowed fetch from the neighbours instead of a gather of d.
StatusOr<bool> ComputationPartitioner::WindowedSlice(const Instruction* instr, const Sharding& target,
                                                     const std::vector<int64_t>& moved) {
  bool is_pad = instr->opcode() == Opcode::kPad;
  const SliceSpec* spec = instr->attr<SliceSpec>(AttrId::kSlice);
  const PaddingConfig* padding = instr->attr<PaddingConfig>(AttrId::kPadding);
  if ((is_pad ? !padding : !spec) || !IsPlainTiled(target)) return false;
  int64_t dim = -1;
  for (int64_t d : moved) {
    if (target.NumTilesOnDim(d) == 1) continue;
    if (dim >= 0) return false;
    if (is_pad && padding->dims[d].interior != 0) return false;
    dim = d;
  }
  if (dim < 0) return false;
  const Shape& in = instr->operand(0)->shape();
  const Shape& out = instr->shape();
  int64_t n = target.NumTilesOnDim(dim), size = in.dim(dim);
  int64_t ci = (size + n - 1) / n, co = (out.dim(dim) + n - 1) / n;
  int64_t start = is_pad ? -padding->dims[dim].low : spec->starts[dim];
  // A strided slice (XLA: a window with a stride) fetches the span its co outputs stride over
  // and takes every stride-th element locally: often the tile's own elements only.
  const int64_t stride = is_pad ? 1 : spec->strides[dim];
  const int64_t span = (co - 1) * stride + 1;
  std::vector<int64_t> lo(n);
  for (int64_t t = 0; t < n; ++t) lo[t] = start + t * co * stride;
  if (WindowHops(n, ci, span, lo) >= n) return false;  // as much as a gather
  PValue v = Operand(instr, 0, target);
  // The other (untiled) moved dims are sliced / padded locally first; dim d stays whole.
  Instruction* x = nullptr;
  Instruction* pad_value = nullptr;
  if (is_pad) {
    pad_value = r_.Reshard(Get(instr->operand(1)), Sharding::Replicate(), instr->name()).hlo;
    std::vector<PaddingDim> local(in.rank());
    for (int64_t d = 0; d < in.rank(); ++d)
      if (d != dim && std::find(moved.begin(), moved.end(), d) != moved.end()) local[d] = padding->dims[d];
    x = b_.Pad(v.hlo, pad_value, local);
  } else {
    SliceSpec local = *spec;
    for (int64_t d = 0; d < in.rank(); ++d) {
      if (d == dim || std::find(moved.begin(), moved.end(), d) == moved.end()) {
        local.starts[d] = 0;
        local.limits[d] = v.hlo->shape().dim(d);
        local.strides[d] = 1;
      }
    }
    Attributes attrs;
    attrs.Set(AttrId::kSlice, local);
    x = b_.Add(Opcode::kSlice, {v.hlo}, std::move(attrs));
  }
  std::optional<Instruction*> y = FetchWindow(x, target, dim, ci, span, lo);
  if (!y) return false;
  Instruction* result = *y;
  if (stride > 1) {
    SliceSpec every;
    every.starts.assign(in.rank(), 0);
    every.limits = result->shape().dims();
    every.strides.assign(in.rank(), 1);
    every.strides[dim] = stride;
    Attributes attrs;
    attrs.Set(AttrId::kSlice, every);
    result = b_.Add(Opcode::kSlice, {result}, std::move(attrs));
  }
  if (is_pad) {
    // Window positions outside the input [0, size) are padding.
    std::vector<int64_t> table(b_.num_devices());
    for (int64_t dev = 0; dev < b_.num_devices(); ++dev) table[dev] = lo[target.TileIndexForDevice(dev)[dim]];
    Shape s32(DType::kS32, result->shape().dims());
    Instruction* index =
        b_.Binary(Opcode::kAdd, b_.Iota(s32, dim), b_.BroadcastScalar(b_.TableLookup(table), s32));
    Instruction* ge = b_.Compare(index, b_.BroadcastScalar(b_.ScalarS32(0), s32), "GE");
    Instruction* lt = b_.Compare(index, b_.BroadcastScalar(b_.ScalarS32(size), s32), "LT");
    Instruction* inside = b_.Binary(Opcode::kAnd, ge, lt);
    result = b_.Select(inside, result, b_.BroadcastScalar(pad_value, result->shape()));
  }
  Set(instr, PValue{result, target, out});
  return true;
}

// Concatenate along a tiled dim: each operand (tiled like the result) is fetched as a window
// over the result tile's range and selected where it lies inside the operand's part.
// A sort along a tiled dim whose results are only read through slices of their first k elements
// along that dim (top-k written as sort + slice; GSPMD HandleSort's top-k case): each device
// sorts its shard, keeps its first k, the T*k candidates are gathered along the dim (in tile
// order, so a stable sort still puts ties in index order) and sorted once more; the slices cut
// the first k of that. Moves T*k per row instead of the whole dim. Even dims only: the padding
// of an uneven one would have to sort last under an arbitrary comparator.
StatusOr<bool> ComputationPartitioner::TopKSort(const Instruction* instr, const Sharding& target) {
  if (instr->dimensions().empty() || instr == src_.root()) return false;
  const int64_t dim = instr->dimensions()[0];
  const Shape& shape0 = instr->operand(0)->shape();
  Sharding leaf = target.IsTuple() ? target.tuple_elements()[0] : target;
  if (target.IsTuple())
    for (const Sharding& s : target.tuple_elements())
      if (!(s == leaf)) return false;
  // A result not tiled on the sort dim (e.g. replicated, the slices gathered): the operand's
  // tiling, when it has the sort dim tiled, still gives the shards their candidates.
  if (TilesOnDim(leaf, dim) == 1) {
    const PValue& x = Get(instr->operand(0));
    if (!x.sharding.IsTuple() && IsPlainTiled(x.sharding) && TilesOnDim(x.sharding, dim) > 1) leaf = x.sharding;
  }
  if (!leaf.IsTiled() || !IsPlainTiled(leaf) || leaf.TiledDataRank() != shape0.rank()) return false;
  const int64_t tiles = leaf.NumTilesOnDim(dim), size = shape0.dim(dim);
  if (tiles == 1 || size % tiles != 0) return false;
  // Every use: a slice [0:k] along dim (whole elsewhere), directly or through a get-tuple-element.
  int64_t k = -1;
  auto first_k = [&](const Instruction* user) {
    if (user->opcode() != Opcode::kSlice || user == src_.root()) return false;
    const SliceSpec* spec = user->attr<SliceSpec>(AttrId::kSlice);
    for (int64_t d = 0; d < shape0.rank(); ++d) {
      if (spec->starts[d] != 0 || spec->strides[d] != 1) return false;
      if (d != dim && spec->limits[d] != shape0.dim(d)) return false;
    }
    if (k >= 0 && spec->limits[dim] != k) return false;
    k = spec->limits[dim];
    return true;
  };
  if (instr->users().empty()) return false;
  for (const Instruction* u : instr->users()) {
    if (instr->shape().IsTuple()) {
      if (u->opcode() != Opcode::kGetTupleElement || u == src_.root() || u->users().empty()) return false;
      for (const Instruction* s : u->users())
        if (!first_k(s)) return false;
    } else if (!first_k(u)) {
      return false;
    }
  }
  if (k < 1 || k > size / tiles || k * tiles >= size) return false;
  std::vector<Sharding> params(instr->to_apply()->num_parameters(), Sharding::Replicate());
  ASSIGN_OR_RETURN(Computation* cmp, p_->PartitionCalled(*instr->to_apply(), params, Sharding::Replicate()));
  std::vector<Instruction*> ops;
  std::vector<Shape> shapes;
  for (int64_t i = 0; i < instr->operand_count(); ++i) {
    ops.push_back(Operand(instr, i, leaf).hlo);
    shapes.push_back(ops.back()->shape());
  }
  Instruction* local = CloneWith(instr, ops, instr->shape().IsTuple() ? Shape::Tuple(shapes) : shapes[0]);
  local->ReplaceCalledComputation(instr->to_apply(), cmp);
  auto groups = Resharder::GroupsAlong(leaf, {dim});
  std::vector<Instruction*> candidates;
  std::vector<Shape> cshapes;
  for (int64_t i = 0; i < instr->operand_count(); ++i) {
    Instruction* e = instr->shape().IsTuple() ? b_.GetTupleElement(local, i) : local;
    std::vector<int64_t> starts(shape0.rank(), 0), limits = e->shape().dims();
    limits[dim] = k;
    candidates.push_back(b_.AllGather(b_.Slice(e, starts, limits), dim, groups));
    cshapes.push_back(candidates.back()->shape());
  }
  Attributes attrs = instr->attrs();
  attrs.Remove(AttrId::kControlPredecessors);
  attrs.Set(AttrId::kToApply, cmp);
  Shape merged_shape = instr->shape().IsTuple() ? Shape::Tuple(cshapes) : cshapes[0];
  Instruction* merged = b_.Add(Opcode::kSort, candidates, std::move(attrs), &merged_shape, instr->name());
  const int64_t sort_dim[] = {dim};
  Sharding rows = PartiallyReplicateTiledShardingOnDims(leaf, sort_dim);
  Sharding s = instr->shape().IsTuple() ? Sharding::Tuple(std::vector<Sharding>(instr->operand_count(), rows)) : rows;
  // Not a value of the sort's shape: only the slices above read it, through topk_k_.
  Set(instr, PValue{merged, s, instr->shape()});
  topk_k_[instr] = k;
  return true;
}

// A concatenate of stride-1 slices of one value x along a dim where each piece starts where the
// previous one ended, wrapping from the end of x to its start: a rotation (jnp.roll) or a
// wrap-around pad (XLA's PreprocessHlos rewrites both into SPMDInternalOp_RotateRight plus
// selects). result[i] = x[(start + i) mod N]: each device fetches its result tile's range of the
// periodically repeated x from the devices holding x's tiles (one or two collective-permutes of a
// tile), instead of fetching every slice and operand window. x's dim tiled evenly, the result
// tiled on it with the same tiling as x elsewhere.
StatusOr<bool> ComputationPartitioner::WrappedConcat(const Instruction* instr, const Sharding& target) {
  int64_t dim = instr->dimensions()[0];
  if (!target.IsTiled() || !IsPlainTiled(target) || target.NumTilesOnDim(dim) == 1) return false;
  const Instruction* x = nullptr;
  int64_t first = 0, pos = 0;
  for (int64_t i = 0; i < instr->operand_count(); ++i) {
    const Instruction* op = instr->operand(i);
    const Instruction* base = op;
    int64_t lo = 0, hi = op->shape().dim(dim);
    if (op->opcode() == Opcode::kSlice) {
      const SliceSpec* spec = op->attr<SliceSpec>(AttrId::kSlice);
      for (int64_t d = 0; d < op->shape().rank(); ++d) {
        bool whole = spec->starts[d] == 0 && spec->strides[d] == 1 && spec->limits[d] == op->operand(0)->shape().dim(d);
        if (d != dim && !whole) return false;
      }
      if (spec->strides[dim] != 1) return false;
      base = op->operand(0);
      lo = spec->starts[dim];
      hi = spec->limits[dim];
    }
    if (i == 0) {
      x = base;
      first = pos = lo;
    } else if (base != x || lo != pos) {
      return false;
    }
    pos = hi == x->shape().dim(dim) ? 0 : hi;
    if (lo >= hi) return false;
  }
  if (!x || instr->operand_count() < 2) return false;
  const PValue& v = Get(x);
  const Sharding& xs = v.sharding;
  int64_t size = x->shape().dim(dim), rank = x->shape().rank();
  if (xs.IsTuple() || !xs.IsTiled() || !IsPlainTiled(xs) || xs.TiledDataRank() != rank) return false;
  int64_t ns = xs.NumTilesOnDim(dim);
  if (ns == 1 || size % ns != 0) return false;
  int64_t n = b_.num_devices();
  for (int64_t dev = 0; dev < n; ++dev) {
    std::vector<int64_t> have = xs.TileIndexForDevice(dev), want = target.TileIndexForDevice(dev);
    for (int64_t d = 0; d < rank; ++d)
      if (d != dim && have[d] != want[d]) return false;
  }
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim && xs.NumTilesOnDim(d) != target.NumTilesOnDim(d)) return false;
  int64_t cs = size / ns, nt = target.NumTilesOnDim(dim), total = instr->shape().dim(dim);
  int64_t ct = (total + nt - 1) / nt;
  std::map<std::vector<int64_t>, std::vector<int64_t>> holders;
  for (int64_t dev = 0; dev < n; ++dev) holders[xs.TileIndexForDevice(dev)].push_back(dev);
  std::map<std::vector<int64_t>, int64_t> next;
  // Piece p of the repeated x is x's tile p mod ns.
  auto holder = [&](int64_t dev, int64_t p) -> int64_t {
    std::vector<int64_t> tile = xs.TileIndexForDevice(dev);
    if (tile[dim] == p % ns) return dev;
    tile[dim] = p % ns;
    const std::vector<int64_t>& hs = holders.at(tile);
    return hs[next[tile]++ % hs.size()];
  };
  std::vector<int64_t> start(n);
  for (int64_t dev = 0; dev < n; ++dev) start[dev] = first + target.TileIndexForDevice(dev)[dim] * ct;
  int64_t pieces = ns * ((first + nt * ct + size - 1) / size + 1);
  Instruction* range = r_.FetchRange(v.hlo, dim, cs, pieces, holder, start, ct);
  Set(instr, PValue{range, target, instr->shape()});
  return true;
}

StatusOr<bool> ComputationPartitioner::WindowedConcat(const Instruction* instr, const Sharding& target) {
  int64_t dim = instr->dimensions()[0];
  if (!IsPlainTiled(target) || target.NumTilesOnDim(dim) == 1) return false;
  const Shape& out = instr->shape();
  int64_t n = target.NumTilesOnDim(dim), co = (out.dim(dim) + n - 1) / n;
  std::vector<std::vector<int64_t>> los;
  int64_t offset = 0;
  for (const Instruction* op : instr->operands()) {
    int64_t size = op->shape().dim(dim), ci = (size + n - 1) / n;
    if (size == 0) return false;
    std::vector<int64_t> lo(n), fetch(n);
    for (int64_t t = 0; t < n; ++t) lo[t] = t * co - offset;
    // Windows wholly outside the operand are masked anyway: fetch them from near its edge.
    for (int64_t t = 0; t < n; ++t) fetch[t] = std::clamp<int64_t>(lo[t], -co, size);
    if (WindowHops(n, ci, co, fetch) >= n) return false;
    los.push_back(lo);
    offset += size;
  }
  Shape shard = target.ShardShape(out);
  Instruction* result = nullptr;
  Shape s32(DType::kS32, shard.dims());
  Instruction* iota = b_.Iota(s32, dim);
  offset = 0;
  for (int64_t k = 0; k < instr->operand_count(); ++k) {
    const Instruction* op = instr->operand(k);
    int64_t size = op->shape().dim(dim), ci = (size + n - 1) / n;
    std::vector<int64_t> fetch(n);
    for (int64_t t = 0; t < n; ++t) fetch[t] = std::clamp<int64_t>(los[k][t], -co, size);
    PValue v = Operand(instr, k, target);
    std::optional<Instruction*> w = FetchWindow(v.hlo, target, dim, ci, co, fetch);
    if (!w) return Internal("%{}: concatenate window fetch failed", instr->name());
    if (!result) {
      result = *w;
      offset += size;
      continue;
    }
    // Result positions at or past this operand's start take it (later operands override).
    std::vector<int64_t> table(b_.num_devices());
    for (int64_t dev = 0; dev < b_.num_devices(); ++dev) table[dev] = target.TileIndexForDevice(dev)[dim] * co;
    Instruction* index = b_.Binary(Opcode::kAdd, iota, b_.BroadcastScalar(b_.TableLookup(table), s32));
    Instruction* here = b_.Compare(index, b_.BroadcastScalar(b_.ScalarS32(offset), s32), "GE");
    result = b_.Select(here, *w, result);
    offset += size;
  }
  Set(instr, PValue{result, target, out});
  return true;
}

namespace {

// The sharding of `s` (plain tiling, possibly partially replicated) with the tiles of dims a and b
// swapped in the tile array: the sharding the resharder's all-to-all yields when it moves a's
// tiles onto an untiled b.
Sharding SwapTileDims(const Sharding& s, int64_t a, int64_t b) {
  std::vector<int64_t> dims = s.tile_assignment().dims();
  std::swap(dims[a], dims[b]);
  std::vector<int64_t> devices, idx(dims.size(), 0);
  for (int64_t i = 0, total = Product(dims); i < total; ++i) {
    std::vector<int64_t> sidx = idx;
    std::swap(sidx[a], sidx[b]);
    devices.push_back(s.tile_assignment()(sidx));
    for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
      if (++idx[d] < dims[d]) break;
      idx[d] = 0;
    }
  }
  TileAssignment ta = TileAssignment::FromDevices(dims, devices);
  return s.HasPartialReplication() ? Sharding::PartialTile(ta) : Sharding::Tile(ta);
}

}  // namespace

// Sort along a tiled dim (GSPMD HandleSort): the sort dim's tiles move onto another dim that is
// untiled and divides by their number (one all-to-all), so the sort runs locally on whole rows.
// The largest such dim is taken; nullopt when there is none.
std::optional<Sharding> SortLocalSharding(const Sharding& leaf, const Shape& shape, int64_t dim) {
  if (!leaf.IsTiled() || !IsPlainTiled(leaf) || leaf.TiledDataRank() != shape.rank()) return std::nullopt;
  int64_t k = leaf.NumTilesOnDim(dim);
  if (k == 1) return std::nullopt;
  int64_t best = -1;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    if (d == dim || leaf.NumTilesOnDim(d) != 1 || shape.dim(d) % k != 0) continue;
    if (best < 0 || shape.dim(d) > shape.dim(best)) best = d;
  }
  if (best < 0) return std::nullopt;
  return SwapTileDims(leaf, dim, best);
}

// Pad with interior padding along tiled dims: on such a dim the pad is a base-dilated window of
// size 1 (padding low/high), so each tile fetches the input elements its output range covers from
// its neighbours (halo exchange; positions outside the input hold the pad value), pads them
// locally with the interior padding only and cuts its output tile. Dims without interior padding
// go through this too when some dim has it; untiled dims are padded locally as given.
StatusOr<bool> ComputationPartitioner::InteriorPad(const Instruction* instr, const Sharding& target) {
  const PaddingConfig* padding = instr->attr<PaddingConfig>(AttrId::kPadding);
  if (!padding || !IsPlainTiled(target)) return false;
  const Shape& in = instr->operand(0)->shape();
  bool interior = false;
  std::vector<std::pair<int64_t, HaloPlan>> halos;
  for (int64_t d = 0; d < in.rank(); ++d) {
    const PaddingDim& p = padding->dims[d];
    if (target.NumTilesOnDim(d) == 1 || (p.low == 0 && p.high == 0 && p.interior == 0)) continue;
    interior |= p.interior > 0;
    WindowDim w;
    w.padding_low = p.low;
    w.padding_high = p.high;
    w.base_dilation = p.interior + 1;
    std::optional<HaloPlan> plan = PlanHalo(in.dim(d), target.NumTilesOnDim(d), w);
    if (!plan || plan->out != instr->shape().dim(d)) return false;
    halos.emplace_back(d, *plan);
  }
  if (!interior) return false;
  Instruction* pad_value = r_.Reshard(Get(instr->operand(1)), Sharding::Replicate(), instr->name()).hlo;
  Instruction* x = Operand(instr, 0, target).hlo;
  std::vector<PaddingDim> local = padding->dims;
  for (const auto& [d, plan] : halos) {
    x = ExchangeHalo(b_, x, target, d, plan, pad_value);
    local[d] = PaddingDim{0, 0, plan.local.base_dilation - 1};
  }
  x = b_.Pad(x, pad_value, local);
  for (const auto& [d, plan] : halos) x = SliceOutputTile(b_, x, target, d, plan);
  if (x->shape().dims() != target.ShardShape(instr->shape()).dims())
    return Internal("%{}: interior pad local shape {} is not the tile's", instr->name(), x->shape().ToString());
  Set(instr, PValue{x, target, instr->shape()});
  return true;
}

// Reverse along tiled dims (GSPMD HandleReverse): tile t takes the tile mirrored on every
// reversed tiled dim (one collective-permute) and reverses it locally. With uneven tiles the
// mirrored tiles' padding ends up in front: the buffer of reversed tiles then holds the result
// shifted by the padding, which a window fetch from the right neighbour (halo exchange) undoes.
StatusOr<bool> ComputationPartitioner::TiledReverse(const Instruction* instr, const Sharding& target) {
  if (!IsPlainTiled(target)) return false;
  const Shape& shape = instr->shape();
  std::vector<int64_t> tiled;
  for (int64_t d : instr->dimensions())
    if (target.NumTilesOnDim(d) > 1) tiled.push_back(d);
  if (tiled.empty()) return false;
  auto shift = [&](int64_t d) {  // the windows that undo uneven tiles' padding on d
    int64_t n = target.NumTilesOnDim(d), c = (shape.dim(d) + n - 1) / n, pad = n * c - shape.dim(d);
    std::vector<int64_t> lo(n);
    for (int64_t t = 0; t < n; ++t) lo[t] = t * c + pad;
    return lo;
  };
  for (int64_t d : tiled) {
    int64_t n = target.NumTilesOnDim(d), c = (shape.dim(d) + n - 1) / n;
    if (n * c != shape.dim(d) && !PlanFetch(n * c, n, c, shift(d)) && WindowHops(n, c, c, shift(d)) >= n)
      return false;
  }
  PValue v = Operand(instr, 0, target);
  const TileAssignment& ta = target.tile_assignment();
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for (int64_t dev = 0; dev < b_.num_devices(); ++dev) {
    std::vector<int64_t> c = *ta.IndexOf(dev);
    for (int64_t d : tiled) c[d] = ta.dim(d) - 1 - c[d];
    // Middle tiles (odd counts) keep their own: a device that is no target would receive zeros.
    pairs.emplace_back(ta(c), dev);
  }
  Instruction* x = b_.CollectivePermute(v.hlo, pairs);
  Attributes attrs;
  attrs.Set(AttrId::kDimensions, instr->dimensions());
  x = b_.Add(Opcode::kReverse, {x}, std::move(attrs));
  for (int64_t d : tiled) {
    int64_t n = target.NumTilesOnDim(d), c = (shape.dim(d) + n - 1) / n;
    if (n * c == shape.dim(d)) continue;
    std::optional<Instruction*> w = FetchWindow(x, target, d, c, c, shift(d));
    if (!w) return Internal("%{}: reverse window fetch failed", instr->name());
    x = *w;
  }
  Set(instr, PValue{x, target, shape});
  return true;
}

Status ComputationPartitioner::Slicing(const Instruction* instr) {
  // Local when every dim the op rearranges is untiled in the result.
  Sharding target = TargetOf(instr);
  if (instr->opcode() == Opcode::kSlice && topk_k_.contains(instr->operand(0))) {
    // The first k of a top-k sort: cut from its candidates (whole on the sort dim).
    const PValue& c = Get(instr->operand(0));
    std::vector<int64_t> starts(instr->shape().rank(), 0), limits = c.sharding.ShardShape(instr->shape()).dims();
    Set(instr, r_.Reshard(PValue{b_.Slice(c.hlo, starts, limits), c.sharding, instr->shape()}, target,
                          instr->name()));
    return absl::OkStatus();
  }
  if (instr->opcode() == Opcode::kSort) {
    ASSIGN_OR_RETURN(bool topk, TopKSort(instr, target));
    if (topk) return absl::OkStatus();
  }
  if (instr->opcode() == Opcode::kSort) {
    // All operands alike: their (common) sharding, the sort dim's tiles moved onto a free dim.
    int64_t dim = instr->dimensions().empty() ? 0 : instr->dimensions()[0];
    const Shape& shape0 = instr->operand(0)->shape();
    std::optional<Sharding> leaf;
    if (target.IsTuple()) {
      const Sharding& l = target.tuple_elements()[0];
      if (std::all_of(target.tuple_elements().begin(), target.tuple_elements().end(),
                      [&](const Sharding& s) { return s == l; }))
        leaf = l;
    } else {
      leaf = target;
    }
    std::optional<Sharding> local = leaf ? SortLocalSharding(*leaf, shape0, dim) : std::nullopt;
    if (local) {
      std::vector<Instruction*> ops;
      std::vector<Shape> shapes;
      for (int64_t i = 0; i < instr->operand_count(); ++i) {
        ops.push_back(Operand(instr, i, *local).hlo);
        shapes.push_back(ops.back()->shape());
      }
      Shape shape = target.IsTuple() ? Shape::Tuple(shapes) : shapes[0];
      Instruction* c = CloneWith(instr, ops, shape);
      std::vector<Sharding> params(instr->to_apply()->num_parameters(), Sharding::Replicate());
      ASSIGN_OR_RETURN(Computation* cmp, p_->PartitionCalled(*instr->to_apply(), params, Sharding::Replicate()));
      c->ReplaceCalledComputation(instr->to_apply(), cmp);
      Sharding s = target.IsTuple() ? Sharding::Tuple(std::vector<Sharding>(instr->operand_count(), *local)) : *local;
      Set(instr, r_.Reshard(PValue{c, s, instr->shape()}, target, instr->name()));
      return absl::OkStatus();
    }
  }
  if (target.IsTuple() && instr->opcode() == Opcode::kSort) {
    const Sharding& leaf = target.tuple_elements()[0];
    bool same = std::all_of(target.tuple_elements().begin(), target.tuple_elements().end(),
                            [&](const Sharding& s) { return s == leaf; });
    if (!same) return Default(instr);
    int64_t dim = instr->dimensions().empty() ? 0 : instr->dimensions()[0];
    if (!leaf.IsTiled() || !IsPlainTiled(leaf)) return Default(instr);
    // The sort dim is gathered (only it); the other dims stay tiled.
    const int64_t sort_dims[] = {dim};
    Sharding local = leaf.NumTilesOnDim(dim) > 1 ? PartiallyReplicateTiledShardingOnDims(leaf, sort_dims) : leaf;
    std::vector<Instruction*> ops;
    std::vector<Shape> shapes;
    for (int64_t i = 0; i < instr->operand_count(); ++i) {
      ops.push_back(Operand(instr, i, local).hlo);
      shapes.push_back(ops.back()->shape());
    }
    Instruction* c = CloneWith(instr, ops, Shape::Tuple(shapes));
    std::vector<Sharding> params(instr->to_apply()->num_parameters(), Sharding::Replicate());
    ASSIGN_OR_RETURN(Computation* cmp, p_->PartitionCalled(*instr->to_apply(), params, Sharding::Replicate()));
    c->ReplaceCalledComputation(instr->to_apply(), cmp);
    Sharding local_tuple = Sharding::Tuple(std::vector<Sharding>(instr->operand_count(), local));
    Set(instr, r_.Reshard(PValue{c, local_tuple, instr->shape()}, target, instr->name()));
    return absl::OkStatus();
  }
  if (!target.IsTiled()) return Default(instr);
  const Shape& out = instr->shape();
  std::vector<int64_t> moved;
  switch (instr->opcode()) {
    case Opcode::kSlice: case Opcode::kPad:
      for (int64_t d = 0; d < out.rank(); ++d)
        if (out.dim(d) != instr->operand(0)->shape().dim(d)) moved.push_back(d);
      if (const SliceSpec* s = instr->attr<SliceSpec>(AttrId::kSlice))
        for (int64_t d = 0; d < out.rank(); ++d)
          if (s->strides[d] != 1 || s->starts[d] != 0) moved.push_back(d);
      if (const PaddingConfig* p = instr->attr<PaddingConfig>(AttrId::kPadding))
        for (int64_t d = 0; d < out.rank(); ++d)
          if (p->dims[d].low != 0 || p->dims[d].interior != 0 || p->dims[d].high != 0) moved.push_back(d);
      break;
    case Opcode::kConcatenate: case Opcode::kReverse: case Opcode::kSort:
      moved = instr->dimensions();
      break;
    default:
      break;
  }
  if (instr->opcode() == Opcode::kPad) {
    ASSIGN_OR_RETURN(bool done, InteriorPad(instr, target));
    if (done) return absl::OkStatus();
  }
  if (instr->opcode() == Opcode::kReverse) {
    // A target coarser than the operand's tiling (e.g. partially replicated): reverse the finer
    // tiles (the mirror permute moves the smaller shards), then gather to the target.
    const PValue& x = Get(instr->operand(0));
    bool coarser = !x.sharding.IsTuple() && IsPlainTiled(x.sharding) && !(x.sharding == target) &&
                   x.sharding.TiledDataRank() == out.rank() && x.sharding.NumTiles() > target.NumTiles();
    for (int64_t d = 0; coarser && d < out.rank(); ++d)
      coarser = x.sharding.NumTilesOnDim(d) % target.NumTilesOnDim(d) == 0;
    if (coarser) {
      ASSIGN_OR_RETURN(bool done, TiledReverse(instr, x.sharding));
      if (done) {
        Set(instr, r_.Reshard(Get(instr), target, instr->name()));
        return absl::OkStatus();
      }
    }
    ASSIGN_OR_RETURN(bool done, TiledReverse(instr, target));
    if (done) return absl::OkStatus();
  }
  if (instr->opcode() == Opcode::kConcatenate) {
    ASSIGN_OR_RETURN(bool wrapped, WrappedConcat(instr, target));
    if (wrapped) return absl::OkStatus();
    ASSIGN_OR_RETURN(bool done, WindowedConcat(instr, target));
    if (done) return absl::OkStatus();
  }
  if (instr->opcode() == Opcode::kSlice || instr->opcode() == Opcode::kPad) {
    std::sort(moved.begin(), moved.end());
    moved.erase(std::unique(moved.begin(), moved.end()), moved.end());
    ASSIGN_OR_RETURN(bool done, WindowedSlice(instr, target, moved));
    if (done) return absl::OkStatus();
  }
  // Rearranged dims tiled in the result are gathered (only they; the other dims stay tiled), the
  // op runs locally, and the result is sliced to the target afterwards (a local dynamic-slice).
  std::sort(moved.begin(), moved.end());
  moved.erase(std::unique(moved.begin(), moved.end()), moved.end());
  const Sharding final_target = target;
  bool tiled_moved = false;
  for (int64_t d : moved) tiled_moved |= target.NumTilesOnDim(d) > 1;
  if (tiled_moved) {
    if (!IsPlainTiled(target)) return Default(instr);
    target = PartiallyReplicateTiledShardingOnDims(target, moved);
  }
  std::vector<Instruction*> ops;
  for (int64_t i = 0; i < instr->operand_count(); ++i) {
    const Instruction* op = instr->operand(i);
    if (op->shape().rank() == 0) ops.push_back(r_.Reshard(Get(op), Sharding::Replicate(), instr->name()).hlo);
    else ops.push_back(Operand(instr, i, target).hlo);
  }
  Instruction* c = nullptr;
  if (instr->opcode() == Opcode::kSlice) {
    // Dims kept whole (start 0, stride 1, full limit) are sliced whole in their shard too.
    const SliceSpec* spec = instr->attr<SliceSpec>(AttrId::kSlice);
    SliceSpec local = *spec;
    for (int64_t d = 0; d < out.rank(); ++d)
      if (std::find(moved.begin(), moved.end(), d) == moved.end()) local.limits[d] = ops[0]->shape().dim(d);
    Attributes attrs;
    attrs.Set(AttrId::kSlice, local);
    c = b_.Add(Opcode::kSlice, {ops[0]}, std::move(attrs), nullptr, instr->name());
  } else {
    c = CloneWith(instr, ops, target.ShardShape(out));
  }
  if (instr->opcode() == Opcode::kSort) {
    std::vector<Sharding> params(instr->to_apply()->num_parameters(), Sharding::Replicate());
    ASSIGN_OR_RETURN(Computation* cmp, p_->PartitionCalled(*instr->to_apply(), params, Sharding::Replicate()));
    c->ReplaceCalledComputation(instr->to_apply(), cmp);
  }
  Set(instr, r_.Reshard(PValue{c, target, instr->shape()}, final_target, instr->name()));
  return absl::OkStatus();
}

// TopK along the last dim (the topk op; the TopK custom call, whose k is its result's last dim).
// Other dims tiled: a local topk per shard. The last dim tiled with at least k elements per
// shard (GSPMD's TopK partitioning): each shard takes its own top k (the padding of an uneven dim
// filled with the value that ranks last), its indices made global by the tile offset; the T*k
// candidates per row are gathered along that dim and sorted once more (stable: gathered in tile
// order, ties keep the lower index first) and the first k kept. That moves T*k values and indices
// per row instead of gathering the whole dim.
Status ComputationPartitioner::TopK(const Instruction* instr) {
  Sharding target = TargetOf(instr);
  const Shape& in = instr->operand(0)->shape();
  if (!instr->shape().IsTuple() || instr->shape().tuple_size() != 2 || in.rank() < 1 || target.IsManual())
    return Default(instr);
  const int64_t last = in.rank() - 1;
  const Shape& values_shape = instr->shape().tuple_shape(0);
  const Shape& indices_shape = instr->shape().tuple_shape(1);
  const int64_t k = values_shape.dim(last);
  const bool largest = instr->bool_attr(AttrId::kLargest, true);
  const DType dt = in.dtype();
  const PValue& x = Get(instr->operand(0));
  const int64_t last_dims[] = {last};
  auto whole_last = [&](const Sharding& s) {
    return s.NumTilesOnDim(last) > 1 ? PartiallyReplicateTiledShardingOnDims(s, last_dims) : s;
  };
  // A local topk of `op` (last dim whole or a shard of it), with the called comparator if any.
  auto local_topk = [&](Instruction* op) -> StatusOr<Instruction*> {
    std::vector<int64_t> dims = op->shape().dims();
    dims[last] = k;
    Shape shape = Shape::Tuple({Shape(dt, dims), Shape(indices_shape.dtype(), dims)});
    Instruction* c = CloneWith(instr, {op}, shape);
    for (Computation* called : instr->called_computations()) {
      std::vector<Sharding> params(called->num_parameters(), Sharding::Replicate());
      ASSIGN_OR_RETURN(Computation* pc, p_->PartitionCalled(*called, params, Sharding::Replicate()));
      c->ReplaceCalledComputation(called, pc);
    }
    return c;
  };
  // The value every real element outranks (or ties with, then losing on its higher index).
  std::optional<Literal> last_rank;
  if (IsFloat(dt) && !IsF8(dt)) {
    last_rank.emplace(Shape::Scalar(dt));
    last_rank->SetDouble(0, largest ? -std::numeric_limits<double>::infinity()
                                    : std::numeric_limits<double>::infinity());
  } else if (IsInteger(dt) && DTypeByteSize(dt) <= 4) {
    int64_t bits = 8 * DTypeByteSize(dt);
    int64_t lo = IsSigned(dt) ? -(int64_t{1} << (bits - 1)) : 0;
    int64_t hi = IsSigned(dt) ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
    last_rank.emplace(Shape::Scalar(dt));
    last_rank->SetInt(0, largest ? lo : hi);
  }
  const Sharding& xs = x.sharding;
  if (!xs.IsTuple() && IsPlainTiled(xs) && xs.NumTilesOnDim(last) > 1 && indices_shape.dtype() == DType::kS32 &&
      last_rank && k <= (in.dim(last) + xs.NumTilesOnDim(last) - 1) / xs.NumTilesOnDim(last)) {
    const std::vector<int64_t> sort_dim = {last};
    Instruction* op = r_.MaskPadding(x, b_.Constant(*last_rank), &sort_dim);
    ASSIGN_OR_RETURN(Instruction* top, local_topk(op));
    Instruction* values = b_.GetTupleElement(top, 0);
    Instruction* indices = b_.GetTupleElement(top, 1);
    Instruction* offset = r_.TileOffsets(in, xs)[last];
    indices = b_.Binary(Opcode::kAdd, indices, b_.BroadcastScalar(offset, indices->shape()));
    auto groups = Resharder::GroupsAlong(xs, {last});
    values = b_.AllGather(values, last, groups);
    indices = b_.AllGather(indices, last, groups);
    Attributes attrs;
    attrs.Set(AttrId::kDimensions, std::vector<int64_t>{last});
    attrs.Set(AttrId::kIsStable, true);
    attrs.Set(AttrId::kToApply, b_.TopKComparator(dt, largest));
    Shape sorted_shape = Shape::Tuple({values->shape(), indices->shape()});
    Instruction* sorted = b_.Add(Opcode::kSort, {values, indices}, std::move(attrs), &sorted_shape);
    std::vector<int64_t> starts(in.rank(), 0), limits = values->shape().dims();
    limits[last] = k;
    Instruction* result = b_.Tuple({b_.Slice(b_.GetTupleElement(sorted, 0), starts, limits),
                                    b_.Slice(b_.GetTupleElement(sorted, 1), starts, limits)});
    Sharding rows = whole_last(xs);
    Set(instr, r_.Reshard(PValue{result, Sharding::Tuple({rows, rows}), instr->shape()}, target, instr->name()));
    return absl::OkStatus();
  }
  // The last dim whole: tiled like the result on the other dims, or like the operand when the
  // result is not tiled (the small result is gathered afterwards instead of the operand now).
  Sharding leaf = target.IsTuple() ? target.tuple_elements()[0] : target;
  std::optional<Sharding> compute;
  if (leaf.IsTiled() && IsPlainTiled(leaf)) compute = whole_last(leaf);
  else if (!xs.IsTuple() && IsPlainTiled(xs)) compute = whole_last(xs);
  if (!compute || !compute->IsTiled()) return Default(instr);
  PValue op = Operand(instr, 0, *compute);
  ASSIGN_OR_RETURN(Instruction* top, local_topk(op.hlo));
  Set(instr, r_.Reshard(PValue{top, Sharding::Tuple({*compute, *compute}), instr->shape()}, target, instr->name()));
  return absl::OkStatus();
}

// Dynamic-update-slice with the operand tiled on updated dims (GSPMD HandleDynamicUpdateSlice):
// the operand stays tiled and each device writes the part of the update that falls in its own
// tile. The update (replicated on the tiled updated dims `tiled`) is padded by a tile on both
// sides of each such dim, the tile-sized window at (tile start - clamped global start) is sliced
// out and selected where the tile's positions lie inside the update's range. Updated dims that
// are untiled are written with a local dynamic-update-slice at the clamped start (the same as
// the op's own clamping). Integer indices of any width (false otherwise: the caller's path).
bool ComputationPartitioner::LocalUpdate(const Instruction* instr, const Sharding& target,
                                         const std::vector<int64_t>& tiled) {
  const Shape& data = instr->operand(0)->shape();
  const Shape& update = instr->operand(1)->shape();
  int64_t rank = data.rank();
  for (int64_t d = 0; d < rank; ++d)
    if (update.dim(d) != data.dim(d) && !IsInteger(instr->operand(2 + d)->shape().dtype())) return false;
  PValue v = Operand(instr, 0, target);
  Instruction* upd = Operand(instr, 1, PartiallyReplicateTiledShardingOnDims(target, tiled)).hlo;
  Shape shard = v.hlo->shape();
  DType dt = shard.dtype();
  // Clamped global starts: the whole update fits in the operand.
  std::vector<Instruction*> start(rank, nullptr);
  for (int64_t d = 0; d < rank; ++d) {
    if (update.dim(d) == data.dim(d)) continue;
    Instruction* idx = r_.Reshard(Get(instr->operand(2 + d)), Sharding::Replicate(), instr->name()).hlo;
    // Clamped in the index type (no overflow), then s32 for the tile arithmetic.
    DType it = idx->shape().dtype();
    idx = b_.Binary(Opcode::kMaximum, idx, b_.ScalarOf(it, 0));
    idx = b_.Binary(Opcode::kMinimum, idx, b_.ScalarOf(it, static_cast<double>(data.dim(d) - update.dim(d))));
    start[d] = it == DType::kS32 ? idx : b_.Convert(idx, DType::kS32);
  }
  std::vector<PaddingDim> pad(rank);
  std::vector<Instruction*> window_start(rank, nullptr);
  std::vector<int64_t> sizes = upd->shape().dims();
  std::vector<Instruction*> tile_start(rank, nullptr);
  for (int64_t d : tiled) {
    int64_t c = shard.dim(d);
    pad[d].low = pad[d].high = c;
    std::vector<int64_t> table(b_.num_devices());
    for (int64_t dev = 0; dev < b_.num_devices(); ++dev) table[dev] = target.TileIndexForDevice(dev)[d] * c;
    tile_start[d] = b_.TableLookup(table);
    window_start[d] = b_.Binary(Opcode::kAdd, b_.Binary(Opcode::kSubtract, tile_start[d], start[d]), b_.ScalarS32(c));
    sizes[d] = c;
  }
  Instruction* padded = b_.Pad(upd, b_.Zero(dt), pad);
  for (int64_t d = 0; d < rank; ++d)
    if (!window_start[d]) window_start[d] = b_.ScalarS32(0);
  Instruction* window = b_.DynamicSlice(padded, window_start, sizes);
  std::vector<Instruction*> local_start(rank);
  for (int64_t d = 0; d < rank; ++d)
    local_start[d] = start[d] && !tile_start[d] ? start[d] : b_.ScalarS32(0);
  Instruction* written = b_.DynamicUpdateSlice(v.hlo, window, local_start);
  Shape s32(DType::kS32, shard.dims());
  Instruction* inside = nullptr;
  for (int64_t d : tiled) {
    Instruction* g = b_.Binary(Opcode::kAdd, b_.Iota(s32, d), b_.BroadcastScalar(tile_start[d], s32));
    Instruction* ge = b_.Compare(g, b_.BroadcastScalar(start[d], s32), "GE");
    Instruction* end = b_.Binary(Opcode::kAdd, start[d], b_.ScalarS32(update.dim(d)));
    Instruction* lt = b_.Compare(g, b_.BroadcastScalar(end, s32), "LT");
    Instruction* in = b_.Binary(Opcode::kAnd, ge, lt);
    inside = inside ? b_.Binary(Opcode::kAnd, inside, in) : in;
  }
  Set(instr, PValue{b_.Select(inside, written, v.hlo), target, data});
  return true;
}

Status ComputationPartitioner::DynamicSlicing(const Instruction* instr) {
  Sharding target = TargetOf(instr);
  if (!target.IsTiled()) return Default(instr);
  bool is_ds = instr->opcode() == Opcode::kDynamicSlice;
  const Shape& data = instr->operand(0)->shape();
  const Shape& slice = is_ds ? instr->shape() : instr->operand(1)->shape();
  int64_t first_index = is_ds ? 1 : 2;
  if (instr->operand_count() != first_index + data.rank()) return Default(instr);  // vector index form
  // Sliced dims tiled in the result are gathered first (only they) and the result sliced after.
  const Sharding final_target = target;
  std::vector<int64_t> sliced;
  for (int64_t d = 0; d < data.rank(); ++d)
    if (slice.dim(d) != data.dim(d) && target.NumTilesOnDim(d) > 1) sliced.push_back(d);
  if (!sliced.empty()) {
    if (!IsPlainTiled(target)) return Default(instr);
    if (!is_ds && LocalUpdate(instr, target, sliced)) return absl::OkStatus();
    target = PartiallyReplicateTiledShardingOnDims(target, sliced);
  }
  std::vector<Instruction*> ops = {Operand(instr, 0, target).hlo};
  if (!is_ds) ops.push_back(Operand(instr, 1, target).hlo);
  for (int64_t d = 0; d < data.rank(); ++d) {
    const Instruction* idx = instr->operand(first_index + d);
    // Dims sliced whole take index 0 (the local shard is smaller than the global dim).
    if (slice.dim(d) == data.dim(d)) ops.push_back(b_.Zero(idx->shape().dtype()));
    else ops.push_back(r_.Reshard(Get(idx), Sharding::Replicate(), instr->name()).hlo);
  }
  Shape local = target.ShardShape(instr->shape());
  Instruction* c = CloneWith(instr, ops, local);
  if (is_ds) c->attrs().Set(AttrId::kDynamicSliceSizes, target.ShardShape(slice).dims());
  Set(instr, r_.Reshard(PValue{c, target, instr->shape()}, final_target, instr->name()));
  return absl::OkStatus();
}

Status ComputationPartitioner::GatherScatter(const Instruction* instr) {
  GatherScatterContext ctx;
  ctx.b = &b_;
  ctx.r = &r_;
  ctx.get = [this](const Instruction* op) -> const PValue& { return values_.at(op); };
  ctx.partition_replicated = [this](const Computation& c) {
    std::vector<Sharding> params;
    for (Instruction* p : c.parameters()) params.push_back(Sharding::Single(p->shape(), Sharding::Replicate()));
    return p_->PartitionCalled(c, params, Sharding::Single(c.root()->shape(), Sharding::Replicate()));
  };
  ctx.reduce_scatter_to = [this](const PValue& v, const std::vector<std::vector<int64_t>>& groups,
                                 const Sharding& target, const std::string& kind) {
    return ReduceScatterTo(v, groups, target, kind);
  };
  StatusOr<std::optional<PValue>> v = instr->opcode() == Opcode::kGather
                                          ? PartitionGather(ctx, *instr, TargetOf(instr))
                                          : PartitionScatter(ctx, *instr, TargetOf(instr));
  RETURN_IF_ERROR(v.status());
  if (!*v) return Default(instr);
  Set(instr, std::move(**v));
  return absl::OkStatus();
}

Status ComputationPartitioner::Tuple(const Instruction* instr) {
  Sharding target = TargetOf(instr);
  std::vector<Instruction*> ops;
  for (int64_t i = 0; i < instr->operand_count(); ++i)
    ops.push_back(Operand(instr, i, target.GetSubSharding(instr->shape(), {&i, 1})).hlo);
  Set(instr, PValue{b_.Tuple(ops), target, instr->shape()});
  return absl::OkStatus();
}

Status ComputationPartitioner::GetTupleElement(const Instruction* instr) {
  const PValue& t = Get(instr->operand(0));
  int64_t i = instr->tuple_index();
  if (auto it = topk_k_.find(instr->operand(0)); it != topk_k_.end()) {
    // An element of a top-k sort's candidates: only its slices read it (TopKSort checked).
    Sharding leaf = t.sharding.IsTuple() ? t.sharding.tuple_elements()[i] : t.sharding;
    Set(instr, PValue{b_.GetTupleElement(t.hlo, i), leaf, instr->shape()});
    topk_k_[instr] = it->second;
    return absl::OkStatus();
  }
  PValue e{b_.GetTupleElement(t.hlo, i), t.sharding.GetSubSharding(t.base_shape, {&i, 1}), instr->shape()};
  Set(instr, r_.Reshard(e, TargetOf(instr), instr->name()));
  return absl::OkStatus();
}

Status ComputationPartitioner::While(const Instruction* instr) {
  Sharding state = TargetOf(instr);
  Computation* cond = instr->computation_attr(AttrId::kCondition);
  Computation* body = instr->computation_attr(AttrId::kBody);
  PValue init = Operand(instr, 0, state);
  ASSIGN_OR_RETURN(Computation* pbody, p_->PartitionCalled(*body, {state}, state));
  // Every device must take the same branch: the predicate is replicated (in a partial-manual
  // region: within each manual group, which is all its collectives need).
  Sharding pred = Sharding::Replicate();
  if (cond->root()->has_sharding() && HasManualSubgroup(ComputationTarget(cond->root())))
    pred = ComputationTarget(cond->root());
  ASSIGN_OR_RETURN(Computation* pcond, p_->PartitionCalled(*cond, {state}, pred));
  Instruction* w = CloneWith(instr, {init.hlo}, init.hlo->shape());
  w->ReplaceCalledComputation(cond, pcond);
  w->ReplaceCalledComputation(body, pbody);
  Set(instr, PValue{w, state, instr->shape()});
  return absl::OkStatus();
}

Status ComputationPartitioner::Conditional(const Instruction* instr) {
  Sharding target = TargetOf(instr);
  // Every device takes the same branch (in a partial-manual region: within each manual group).
  const PValue& selector = Get(instr->operand(0));
  Sharding agreed = Sharding::Replicate();
  if (std::optional<ManualFrame> frame = FrameOf(selector.sharding)) agreed = ReplicatedInGroups(*frame, 0);
  std::vector<Instruction*> ops = {r_.Reshard(selector, agreed, instr->name()).hlo};
  std::vector<Computation*> branches = instr->called_computations();
  std::vector<Computation*> partitioned;
  for (size_t b = 0; b < branches.size(); ++b) {
    const PValue& arg = Get(instr->operand(b + 1));
    ops.push_back(arg.hlo);
    ASSIGN_OR_RETURN(Computation* pb, p_->PartitionCalled(*branches[b], {arg.sharding}, target));
    partitioned.push_back(pb);
  }
  Instruction* c = CloneWith(instr, ops, target.ShardShape(instr->shape()));
  for (size_t b = 0; b < branches.size(); ++b) c->ReplaceCalledComputation(branches[b], partitioned[b]);
  Set(instr, PValue{c, target, instr->shape()});
  return absl::OkStatus();
}

Status ComputationPartitioner::Call(const Instruction* instr) {
  Sharding target = TargetOf(instr);
  Computation* callee = instr->to_apply();
  std::vector<Instruction*> ops;
  std::vector<Sharding> params;
  for (const Instruction* op : instr->operands()) {
    ops.push_back(Get(op).hlo);
    params.push_back(Get(op).sharding);
  }
  ASSIGN_OR_RETURN(Computation* pc, p_->PartitionCalled(*callee, params, target));
  Instruction* c = CloneWith(instr, ops, target.ShardShape(instr->shape()));
  c->ReplaceCalledComputation(callee, pc);
  Set(instr, PValue{c, target, instr->shape()});
  return absl::OkStatus();
}

StatusOr<Computation*> Partitioner::PartitionCalled(const Computation& c, const std::vector<Sharding>& params,
                                                    const Sharding& root) {
  auto comp = std::make_unique<Computation>(out_->UniqueName(c.name()));
  comp->set_execution_thread(c.execution_thread());
  Computation* raw = out_->AddComputation(std::move(comp));
  ComputationPartitioner cp(this, &state_, c, raw);
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
  ASSIGN_OR_RETURN(PartitionResult result, PartitionModule(module, options));
  RETURN_IF_ERROR(RunCleanup(*result.module).status());
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
  partitioner_internal::Partitioner p(module, options);
  return p.Run();
}

}  // namespace spmdc

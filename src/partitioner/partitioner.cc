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

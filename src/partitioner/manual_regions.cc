// Partial-manual regions (manual_groups.h): instructions whose operands or result carry manual
// subgroup shardings (ManualSubgroup), the region boundaries (SPMDFullToShardShape /
// SPMDShardToFullShape) among them; instructions partitioned within each manual group
// (InGroups); and collectives written in a region over its manual axes (CrossGroupCollective:
// all-reduce, all-gather, reduce-scatter, all-to-all, collective-permute),
// which run as written once the operand takes the result's in-group tiling.
#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"
#include "ir/collective_groups.h"
#include "partitioner/computation_partitioner.h"
#include "sharding/algebra.h"

namespace spmdc {
namespace partitioner_internal {

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
    if (manual.IsManual() && automatic.IsManualSubgroup()) {
      // A fully manual region nested in a partial-manual one (shard_map inside shard_map; JAX's
      // axis_index in a shard_map with automatic axes is a shard_map over the remaining axes):
      // each device's in-group tile of the outer region's value is its value in the inner
      // region, as XLA reads it (it trusts the values to agree where the outer sharding
      // replicates them). Evenly divided tiles only: a padded tile would expose its padding as
      // manual data.
      bool even = full.IsArray() && automatic.ShardShape(full).dims() == shard.dims();
      for (int64_t d = 0; even && d < full.rank(); ++d)
        even = shard.dim(d) * automatic.NumTilesOnDim(d) == full.dim(d);
      if (!even)
        return Unimplemented(
            "%{}: custom-call {} between {} (shape {}) and {} (shape {}): the manual value is not "
            "an even shard of the partial-manual one",
            instr->name(), instr->custom_call_target(), automatic.ToString(false),
            full.ToString(false), manual.ToString(false), shard.ToString(false));
      Set(instr, PValue{b_.Add(Opcode::kCopy, {v.hlo}), target, instr->shape()});
      return absl::OkStatus();
    }
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
    case Opcode::kCollectivePermute: case Opcode::kAllToAll:
      return CrossGroupCollective(instr);
    case Opcode::kPartitionId: case Opcode::kReplicaId:
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
  // most one per manual group, and an all-gather / reduce-scatter / all-to-all dim must be whole
  // inside each group. The operand takes the result's in-group tiling and the collective runs as written.
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
  // The devices each group joins, read as the runtime reads them (one replica).
  std::vector<std::vector<int64_t>> groups;
  if (instr->opcode() == Opcode::kCollectivePermute) {
    ASSIGN_OR_RETURN(auto pairs, GlobalPermutePairs(*instr, 1, b_.num_devices()));
    for (auto [from, to] : pairs) groups.push_back(from == to ? std::vector<int64_t>{from} : std::vector<int64_t>{from, to});
  } else {
    ASSIGN_OR_RETURN(groups, GlobalDeviceGroups(*instr, 1, b_.num_devices()));
  }
  for (const std::vector<int64_t>& g : groups)
    if (g.empty() || !joins_same_tiles(g))
      return Unimplemented(
          "%{}: {} group {{{}}} does not join devices holding the same in-group tile of {}, one per manual group",
          instr->name(), op_name, fmt::join(g, ","), target.ToString(false));
  if (instr->opcode() == Opcode::kAllGather || instr->opcode() == Opcode::kReduceScatter ||
      instr->opcode() == Opcode::kAllToAll) {
    const std::vector<int64_t>& dims = instr->dimensions();
    if (dims.size() != 1 || target.NumTilesOnDim(dims[0]) != 1)
      return Unimplemented("%{}: {} along a dim tiled inside the manual groups ({}) is not partitioned yet",
                           instr->name(), op_name, target.ToString(false));
  }
  PValue v = Operand(instr, 0, target);
  Instruction* c = CloneWith(instr, {v.hlo}, target.ShardShape(instr->shape()));
  if (instr->to_apply()) {
    // The reducer runs on scalars of every device. JAX's psum in a partial-manual region puts a
    // sharding constraint (the region's replicated subgroup sharding) on its sum: partitioned
    // with that sharding throughout, the constraint is a no-op, as in XLA.
    const Instruction* root = instr->to_apply()->root();
    Sharding scalar = root->has_sharding() && !root->sharding()->IsTuple() ? *root->sharding() : Sharding::Replicate();
    std::vector<Sharding> params(instr->to_apply()->num_parameters(), scalar);
    ASSIGN_OR_RETURN(Computation* reducer, p_->PartitionCalled(*instr->to_apply(), params, scalar));
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

}  // namespace partitioner_internal
}  // namespace spmdc

#include "ir/collective_groups.h"

#include "ir/attributes.h"
#include "ir/module.h"

namespace spmdc {

std::string_view GroupModeName(GroupMode mode) {
  switch (mode) {
    case GroupMode::kCrossReplica: return "cross-replica";
    case GroupMode::kCrossPartition: return "cross-partition";
    case GroupMode::kCrossReplicaAndPartition: return "cross-replica-and-partition";
    case GroupMode::kFlattenedId: return "flattened-id";
  }
  return "?";
}

bool TakesGlobalDeviceIds(Opcode op) {
  return op == Opcode::kAllReduce || op == Opcode::kAllReduceStart || op == Opcode::kAllGather ||
         op == Opcode::kAllGatherStart || op == Opcode::kReduceScatter;
}

StatusOr<GroupMode> CollectiveGroupMode(const Instruction& instr) {
  const bool channel = instr.attrs().Has(AttrId::kChannelId);
  // XLA passes no use_global_device_ids for the other collectives (the parser refuses it on
  // them), whatever the attribute table holds.
  if (!TakesGlobalDeviceIds(instr.opcode()))
    return channel ? GroupMode::kCrossPartition : GroupMode::kCrossReplica;
  const bool global = instr.bool_attr(AttrId::kUseGlobalDeviceIds, false);
  if (!channel) {
    if (global)
      return InvalidArgument("use_global_device_ids=true needs a channel_id");
    return GroupMode::kCrossReplica;
  }
  return global ? GroupMode::kFlattenedId : GroupMode::kCrossReplicaAndPartition;
}

int64_t GroupIdSpace(GroupMode mode, int64_t replicas, int64_t partitions) {
  switch (mode) {
    case GroupMode::kCrossReplica: case GroupMode::kCrossReplicaAndPartition: return replicas;
    case GroupMode::kCrossPartition: return partitions;
    case GroupMode::kFlattenedId: return replicas * partitions;
  }
  return 0;
}

StatusOr<std::vector<std::vector<int64_t>>> GlobalDeviceGroups(const Instruction& instr,
                                                               int64_t replicas,
                                                               int64_t partitions) {
  ASSIGN_OR_RETURN(GroupMode mode, CollectiveGroupMode(instr));
  const int64_t R = replicas, P = partitions, space = GroupIdSpace(mode, R, P);
  std::vector<std::vector<int64_t>> groups;
  if (const ReplicaGroups* rg = instr.attr<ReplicaGroups>(AttrId::kReplicaGroups))
    groups = rg->Expanded();
  if (groups.empty()) {
    if (mode == GroupMode::kFlattenedId)
      return InvalidArgument("{} '{}': replica_groups must be given with use_global_device_ids=true",
                             OpcodeName(instr.opcode()), instr.name());
    groups.emplace_back();
    for (int64_t i = 0; i < space; ++i) groups[0].push_back(i);
  }
  std::vector<bool> seen(space, false);
  for (const auto& g : groups)
    for (int64_t id : g) {
      if (id < 0 || id >= space)
        return InvalidArgument("{} '{}': replica group id {} is outside 0..{} ({} mode, {} replicas x {} partitions)",
                               OpcodeName(instr.opcode()), instr.name(), id, space - 1,
                               GroupModeName(mode), R, P);
      if (seen[id])
        return InvalidArgument("{} '{}': id {} appears in two replica groups",
                               OpcodeName(instr.opcode()), instr.name(), id);
      seen[id] = true;
    }
  std::vector<std::vector<int64_t>> out;
  switch (mode) {
    case GroupMode::kCrossReplica:
      for (int64_t p = 0; p < P; ++p)
        for (const auto& g : groups) {
          std::vector<int64_t>& ids = out.emplace_back();
          for (int64_t r : g) ids.push_back(r * P + p);
        }
      break;
    case GroupMode::kCrossPartition:
      for (int64_t r = 0; r < R; ++r)
        for (const auto& g : groups) {
          std::vector<int64_t>& ids = out.emplace_back();
          for (int64_t p : g) ids.push_back(r * P + p);
        }
      break;
    case GroupMode::kCrossReplicaAndPartition:
      for (const auto& g : groups) {
        std::vector<int64_t>& ids = out.emplace_back();
        for (int64_t r : g)
          for (int64_t p = 0; p < P; ++p) ids.push_back(r * P + p);
      }
      break;
    case GroupMode::kFlattenedId:
      out = std::move(groups);
      break;
  }
  return out;
}

StatusOr<std::vector<int64_t>> DeviceGroupOf(const Instruction& instr, int64_t replicas,
                                             int64_t partitions, int64_t device) {
  ASSIGN_OR_RETURN(auto groups, GlobalDeviceGroups(instr, replicas, partitions));
  for (auto& g : groups)
    for (int64_t d : g)
      if (d == device) return std::move(g);
  ASSIGN_OR_RETURN(GroupMode mode, CollectiveGroupMode(instr));
  return InvalidArgument(
      "{} '{}': device {} (replica {}, partition {}) is in no replica group ({} mode, {} replicas "
      "x {} partitions)",
      OpcodeName(instr.opcode()), instr.name(), device, device / partitions, device % partitions,
      GroupModeName(mode), replicas, partitions);
}

StatusOr<std::vector<std::pair<int64_t, int64_t>>> GlobalPermutePairs(const Instruction& instr,
                                                                      int64_t replicas,
                                                                      int64_t partitions) {
  ASSIGN_OR_RETURN(GroupMode mode, CollectiveGroupMode(instr));
  const int64_t R = replicas, P = partitions, space = GroupIdSpace(mode, R, P);
  std::vector<std::pair<int64_t, int64_t>> out;
  const PairList* pairs = instr.attr<PairList>(AttrId::kSourceTargetPairs);
  if (!pairs) return out;
  for (const auto& [a, b] : *pairs)
    if (a < 0 || a >= space || b < 0 || b >= space)
      return InvalidArgument("{} '{}': pair {{{},{}}} outside 0..{} ({} mode, {} replicas x {} partitions)",
                             OpcodeName(instr.opcode()), instr.name(), a, b, space - 1,
                             GroupModeName(mode), R, P);
  const bool cross_partition = mode == GroupMode::kCrossPartition;
  for (int64_t o = 0; o < (cross_partition ? R : P); ++o)
    for (const auto& [a, b] : *pairs) {
      if (cross_partition) out.emplace_back(o * P + a, o * P + b);
      else out.emplace_back(a * P + o, b * P + o);
    }
  return out;
}

Status CheckCollectiveGroups(const Module& module, int64_t replicas, int64_t partitions) {
  for (const Computation* c : module.computations())
    for (const Instruction* instr : c->instructions()) {
      const Opcode op = instr->opcode();
      if (op == Opcode::kCollectivePermute || op == Opcode::kCollectivePermuteStart) {
        RETURN_IF_ERROR(GlobalPermutePairs(*instr, replicas, partitions).status());
        continue;
      }
      if (!IsGroupedCollectiveOpcode(op) && op != Opcode::kRaggedAllToAll) continue;
      ASSIGN_OR_RETURN(auto groups, GlobalDeviceGroups(*instr, replicas, partitions));
      std::vector<bool> covered(replicas * partitions, false);
      for (const auto& g : groups)
        for (int64_t d : g) covered[d] = true;
      for (int64_t d = 0; d < replicas * partitions; ++d)
        if (!covered[d]) return DeviceGroupOf(*instr, replicas, partitions, d).status();
    }
  return absl::OkStatus();
}

}  // namespace spmdc

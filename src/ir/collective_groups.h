// Collective replica groups as XLA reads them: the one place that says which devices a
// collective joins. The verifier (shape inference), the SPMD runtime, the one-device reference
// and the cost model all read groups through here.
//
// Group mode (XLA's CollectiveOpGroupMode, implied by channel_id and use_global_device_ids):
//   no channel_id                                  cross-replica: groups of replica ids, formed
//                                                  within each partition
//   channel_id, op without use_global_device_ids   cross-partition: groups of partition ids,
//     (all-to-all, ragged-all-to-all,              formed within each replica
//      collective-broadcast, collective-permute)
//   channel_id, use_global_device_ids=false        cross-replica-and-partition: groups of
//     (all-reduce, all-gather, reduce-scatter and  replica ids, each spanning every partition of
//      their -start forms; false when not written) its replicas
//   channel_id, use_global_device_ids=true         flattened ids: groups of global device ids
// Global device id = replica * num_partitions + partition (GSPMD.md §3.2). Empty replica_groups
// means one group of every id of the mode's kind (not allowed with flattened ids).
// collective-permute's source_target_pairs are replica ids (cross-replica) or partition ids
// (cross-partition), one set of pairs per partition or replica.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/instruction.h"
#include "support/status.h"

namespace spmdc {

class Module;

enum class GroupMode { kCrossReplica, kCrossPartition, kCrossReplicaAndPartition, kFlattenedId };

std::string_view GroupModeName(GroupMode mode);

// Whether `op` carries use_global_device_ids (XLA: HloAllGatherInstruction and
// HloAllReduceInstructionBase): with a channel_id and without the attribute it is
// cross-replica-and-partition, not cross-partition.
bool TakesGlobalDeviceIds(Opcode op);

// The group mode of a collective (any opcode with replica_groups or source_target_pairs).
// InvalidArgument for use_global_device_ids=true without a channel_id.
StatusOr<GroupMode> CollectiveGroupMode(const Instruction& instr);

// How many ids the mode's groups name on a system of `replicas` x `partitions` devices.
int64_t GroupIdSpace(GroupMode mode, int64_t replicas, int64_t partitions);

// Every group of global device ids `instr` forms on `replicas` x `partitions` devices, each in
// the order its members contribute (all-gather's concatenation order): cross-replica groups
// partition by partition, cross-partition ones replica by replica, a cross-replica-and-partition
// group as its replicas in order, every partition of each. Any replica_groups form (explicit,
// iota, mesh axes). InvalidArgument when an id is outside the mode's space or repeated, or
// flattened-id groups are absent. Ids the groups do not name form no group (a device without
// one cannot run the collective: DeviceGroupOf says so).
StatusOr<std::vector<std::vector<int64_t>>> GlobalDeviceGroups(const Instruction& instr,
                                                               int64_t replicas,
                                                               int64_t partitions);

// The group of global device `device` (from GlobalDeviceGroups); InvalidArgument when it is in
// none.
StatusOr<std::vector<int64_t>> DeviceGroupOf(const Instruction& instr, int64_t replicas,
                                             int64_t partitions, int64_t device);

// collective-permute(-start)'s pairs as global device ids: each written pair once per partition
// (cross-replica) or per replica (cross-partition). InvalidArgument for an id outside the space.
StatusOr<std::vector<std::pair<int64_t, int64_t>>> GlobalPermutePairs(const Instruction& instr,
                                                                      int64_t replicas,
                                                                      int64_t partitions);

// Every collective of `module` forms valid groups on `replicas` x `partitions` devices: ids in
// range, none repeated, every device in a group (what running it needs). InvalidArgument naming
// the first collective that does not.
Status CheckCollectiveGroups(const Module& module, int64_t replicas, int64_t partitions);

}  // namespace spmdc

// SpmdDeviceContext: the DeviceContext of one device of an SPMD run, backed by a Communicator.
//
// Device ids follow GSPMD.md §3.2: global id = replica * num_partitions + partition, and the
// communicator's rank is the global id. Replica groups and collective-permute pairs are read as
// XLA reads them, by ir/collective_groups.h; collective-broadcast sends from the first device of
// each group.
#pragma once

#include <cstdint>
#include <vector>

#include "interpreter/device_context.h"
#include "runtime/communicator.h"

namespace spmdc {

class SpmdDeviceContext final : public DeviceContext {
 public:
  // `comm` (used from this device's thread only) outlives the context.
  SpmdDeviceContext(Communicator* comm, int64_t num_partitions, int64_t replica_count);

  int64_t partition_id() const override { return partition_; }
  int64_t replica_id() const override { return replica_; }
  int64_t num_partitions() const override { return num_partitions_; }
  int64_t replica_count() const override { return replica_count_; }

  StatusOr<Literal> AllReduce(const Instruction& instr, const std::vector<Literal>& operands,
                              const ReduceFn& reduce) override;
  StatusOr<Literal> AllGather(const Instruction& instr,
                              const std::vector<Literal>& operands) override;
  StatusOr<Literal> ReduceScatter(const Instruction& instr, const std::vector<Literal>& operands,
                                  const ReduceFn& reduce) override;
  StatusOr<Literal> AllToAll(const Instruction& instr,
                             const std::vector<Literal>& operands) override;
  StatusOr<Literal> CollectivePermute(const Instruction& instr,
                                      const std::vector<Literal>& operands) override;
  StatusOr<Literal> CollectiveBroadcast(const Instruction& instr,
                                        const std::vector<Literal>& operands) override;

  // The global device ids this device's group of `instr` holds, in group order.
  StatusOr<DeviceGroup> GroupOf(const Instruction& instr) const;

 private:
  Communicator* comm_;
  int64_t num_partitions_, replica_count_, replica_, partition_;
};

}  // namespace spmdc

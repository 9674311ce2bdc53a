// DeviceContext: everything an executing program may ask of "the other devices". The reference
// interpreter runs one device (partition-id 0, replica-id 0, collectives over one-device groups
// are identities); the SPMD runtime (src/runtime) implements it with real communicators, one
// context per device thread or MPI rank.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include "ir/instruction.h"
#include "ir/literal.h"
#include "support/status.h"

namespace spmdc {

class Computation;

class DeviceContext {
 public:
  virtual ~DeviceContext() = default;
  virtual int64_t partition_id() const = 0;
  virtual int64_t replica_id() const = 0;
  virtual int64_t num_partitions() const = 0;
  virtual int64_t replica_count() const = 0;

  // The collective instructions. `operands` are the evaluated operands of `instr` (all-reduce
  // may be variadic); the result has instr.shape(). `reduce` evaluates the instruction's
  // reduction computation on two scalar-shaped literals (for all-reduce / reduce-scatter).
  using ReduceFn = std::function<StatusOr<Literal>(const Literal&, const Literal&)>;
  virtual StatusOr<Literal> AllReduce(const Instruction& instr, const std::vector<Literal>& operands,
                                      const ReduceFn& reduce) = 0;
  virtual StatusOr<Literal> AllGather(const Instruction& instr,
                                      const std::vector<Literal>& operands) = 0;
  virtual StatusOr<Literal> ReduceScatter(const Instruction& instr,
                                          const std::vector<Literal>& operands,
                                          const ReduceFn& reduce) = 0;
  virtual StatusOr<Literal> AllToAll(const Instruction& instr,
                                     const std::vector<Literal>& operands) = 0;
  virtual StatusOr<Literal> CollectivePermute(const Instruction& instr,
                                              const std::vector<Literal>& operands) = 0;
  virtual StatusOr<Literal> CollectiveBroadcast(const Instruction& instr,
                                                const std::vector<Literal>& operands) = 0;
};

// The single-device context: ids 0, one partition, one replica. It stands for the module
// running on a system of `replicas` x `partitions` devices (1 x 1 when the module itself runs on
// one device; verify's reference passes the partition count under test): a collective runs only
// when, read for that system (ir/collective_groups.h), it joins no two devices (every group one
// device; every device permuting to itself, or no pairs at all), so that it is the same identity
// (or zeros) on every device; then it returns its operand. Otherwise Unimplemented: the module
// is a per-device program that one device cannot stand for.
class SingleDeviceContext : public DeviceContext {
 public:
  SingleDeviceContext() = default;
  SingleDeviceContext(int64_t replicas, int64_t partitions)
      : replicas_(std::max<int64_t>(1, replicas)), partitions_(std::max<int64_t>(1, partitions)) {}
  int64_t partition_id() const override { return 0; }
  int64_t replica_id() const override { return 0; }
  int64_t num_partitions() const override { return 1; }
  int64_t replica_count() const override { return 1; }
  StatusOr<Literal> AllReduce(const Instruction& instr, const std::vector<Literal>& operands,
                              const ReduceFn& reduce) override;
  StatusOr<Literal> AllGather(const Instruction& instr, const std::vector<Literal>& operands) override;
  StatusOr<Literal> ReduceScatter(const Instruction& instr, const std::vector<Literal>& operands,
                                  const ReduceFn& reduce) override;
  StatusOr<Literal> AllToAll(const Instruction& instr, const std::vector<Literal>& operands) override;
  StatusOr<Literal> CollectivePermute(const Instruction& instr,
                                      const std::vector<Literal>& operands) override;
  StatusOr<Literal> CollectiveBroadcast(const Instruction& instr,
                                        const std::vector<Literal>& operands) override;

 private:
  Status CheckSingleDeviceGroups(const Instruction& instr) const;
  int64_t replicas_ = 1, partitions_ = 1;
};

}  // namespace spmdc

// DeviceContext: everything an executing program may ask of "the other devices". The reference
// interpreter runs one device (partition-id 0, replica-id 0, collectives over one-device groups
// are identities); the SPMD runtime (src/runtime) implements it with real communicators, one
// context per device thread or MPI rank.
#pragma once

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

// The single-device context: ids 0, one partition, one replica. A collective is valid only if
// every replica group (or source-target pair) involves device 0 alone; it then returns its
// operand (reduce-scatter/all-gather/all-to-all with one participant are identities).
class SingleDeviceContext : public DeviceContext {
 public:
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
};

}  // namespace spmdc

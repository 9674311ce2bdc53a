// Pieces the cost model's files share: per-device sizes of values and what an instruction's
// result is made of (new buffers or its operands' buffers). Not part of the public interface.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"

#include "cost/cost.h"
#include "ir/instruction.h"

namespace spmdc::cost_internal {

// Per-device bytes of each array leaf of `instr`'s result (pre-order; tokens are 0).
std::vector<int64_t> LeafBytes(const Instruction& instr, const CostOptions& options);
// Their sum.
int64_t ValueBytes(const Instruction& instr, const CostOptions& options);
// Per-device bytes of a shape carried by `instr` (one of its operands' shapes, sized by that
// operand's sharding in an unpartitioned module).
int64_t OperandBytes(const Instruction& instr, int64_t operand, const CostOptions& options);
// Fraction of `instr`'s result one device computes: 1 for a partitioned module, the shard's
// share of the (first leaf of the) result otherwise.
double ResultFraction(const Instruction& instr, const CostOptions& options);

// How the result's leaves relate to the operands' leaves. Mirrors what every executor of the
// project and XLA's buffer assignment do: tuples, get-tuple-element, bitcast, reshape, copy
// (layouts carry no meaning here, so a copy is a bitcast), while (the loop state) and the
// identity custom calls reuse their operands' buffers; async starts carry their operands.
enum class ResultBuffers : uint8_t {
  kNew,          // every leaf is a new buffer
  kOperand0,     // the leaves of operand 0, unchanged
  kConcat,       // tuple: the operands' leaves in order
  kTupleElement, // get-tuple-element: a range of operand 0's leaves
  kStartTuple,   // *-start: element 0 is the operands' leaves, the rest new
  kCopyStart,    // copy-start: elements 0 and 1 are operand 0's leaves, the rest new
  kDoneElement0, // copy-done: element 0 of the start tuple
  kDoneElement1, // *-done: element 1 of the start tuple
  kConstant,     // a constant: read-only data allocated for the whole program
};
ResultBuffers ResultBuffersOf(const Instruction& instr);
// Identity custom calls (Sharding, SPMDFullToShardShape, ...): no work, no memory.
bool IsIdentityCustomCall(const Instruction& instr);

// Leaf range [begin, end) of tuple element `index` of a tuple shape.
std::pair<int64_t, int64_t> TupleElementLeaves(const Shape& tuple, int64_t index);

// How many times each computation runs per execution of the entry: while bodies times their
// trip count (1 when unknown, with a warning), conditions once more, call/conditional/async
// callees once per call. Computations absent from the map never run on their own (reducers,
// fused bodies, dead code).
absl::flat_hash_map<const Computation*, int64_t> ExecutionCounts(const Module& module,
                                                                 std::vector<std::string>* warnings);

// Instructions of `c` reachable from its root through operands, in post order (what every
// executor runs: unreachable instructions are dead code).
std::vector<const Instruction*> ScheduleOf(const Computation& c);

}  // namespace spmdc::cost_internal

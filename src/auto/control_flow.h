// Control flow, tuples and manual regions in `spmdc auto`'s strategy space (reference/AUTO.md
// §1.1: tuple-shaped instructions per leaf; loops: costs x trip count). The strategy space
// (strategy_space.h) has one node per decision; this module says which instructions of the
// module are planned, in which order, how often they run, and which node decides each array
// leaf of each value:
//
// - The planned program is the entry computation with, recursively, the condition and body of
//   every `while` and the branches of every `conditional` (calls are inlined before planning:
//   PrepareForPlanning). They are flattened into one schedule: a while's point comes before its
//   condition's and body's instructions (its state is live while they run), a conditional's
//   after its branches'. Each instruction runs `executions` times per step: a body runs the
//   loop's trip count (the cost model's KnownTripCount: backend_config known_trip_count or the
//   `i < N` pattern; unknown: once, as the cost model counts it, with a note), its condition
//   once more, a branch once per conditional (every branch counts, as in the cost model's
//   collective counts: an upper bound of the one that runs).
// - Roles. An instruction that computes arrays is a node (kNode); a tuple-valued op whose leaves
//   the per-op rule splits alike (topk's values and indices, a variadic reduce's or sort's
//   results: propagation's InferReduce / InferSort give every element the same sharding, and the
//   partitioner's TopK computes both leaves in one split) is one node for all its leaves. The
//   loop state is one decision per leaf (kLeafNodes on the while), shared by the while operand's
//   reading, the body and condition parameters, the body root's writing and the while result:
//   the partitioner gives them all the while's sharding and reshards the operand and the body
//   root's leaves into it, so those two are edges into the state node. A conditional's results
//   are a node per leaf the same way, each branch root an edge into them; a branch parameter is
//   the conditional operand's value (the partitioner partitions the branch for its operand's
//   sharding). An rng-bit-generator's state and bits are a node each (kLeafNodes): every device
//   generates the whole value and keeps its part, so the bits take any split for free; the
//   state stays replicated, and its operand is an edge into it. tuple, get-tuple-element, optimization-barrier and the non-entry parameters are
//   aliases (kAlias): their leaves are other instructions' (Origin). One of them that carries a
//   kept annotation reshards into it (the partitioner's tuple / get-tuple-element /
//   opt-barrier handlers do), so it is a node per leaf with that one strategy; the entry root's
//   annotation stays the output constraint the space prices as before. A tuple-shaped entry
//   parameter is a node per leaf.
// - Manual regions (shard_map: SPMDFullToShardShape ... SPMDShardToFullShape) are the user's
//   per-device code: every instruction inside (what flows from a FullToShard up to a
//   ShardToFull, what only those instructions read, and whatever carries a manual sharding) is
//   kManual: not planned, its sharding left as written (propagation fills partially manual
//   regions' inside when the plan is priced), its loops not expanded; its array values stay in
//   the memory profile with their (local) bytes. The boundaries keep their shardings as
//   constraints even with --ignore-annotations (strategy_space.cc).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "ir/module.h"
#include "support/status.h"

namespace spmdc::autoshard {

// How a planned instruction takes part in the strategy space (above).
enum class FlowRole : uint8_t {
  kNode,       // one node for its (array, or every leaf of a tuple-valued op's) result
  kLeafNodes,  // one node per array leaf: loop state, conditional results, tuple parameters,
               // annotated aliases, an rng-bit-generator's state and bits
  kAlias,      // its leaves are other values' leaves (Origin)
  kManual,     // inside a manual region: not planned
  kNone,       // no array value (tokens)
};

struct PlannedInstruction {
  const Instruction* instr = nullptr;
  int64_t point = 0;       // position in the flattened schedule
  int64_t executions = 1;  // runs per step
  FlowRole role = FlowRole::kNode;
};

// A leaf of an instruction's value: `leaf` indexes the non-tuple leaves of its shape in
// pre-order (a tuple sharding's elements); -1 for a kNode instruction (all its leaves).
struct ValueLeaf {
  const Instruction* instr = nullptr;
  int64_t leaf = -1;
  friend bool operator==(const ValueLeaf&, const ValueLeaf&) = default;
};

class ProgramFlow {
 public:
  // Unimplemented (exit 3) for what the space does not take: a loop body, condition or branch
  // called from two places (each value has one sharding per step), tuple-valued instructions
  // other than while, conditional, tuple, get-tuple-element, optimization-barrier, topk,
  // variadic reduce / sort and rng-bit-generator (tuple-valued custom calls, ...), calls left after
  // inlining, array instructions that read a tuple (custom calls, ...).
  static StatusOr<ProgramFlow> Analyze(const Module& module, bool keep_annotations);

  const std::vector<PlannedInstruction>& schedule() const { return schedule_; }
  int64_t num_points() const { return static_cast<int64_t>(schedule_.size()); }
  // The schedule entry of a planned instruction (null when not planned: reducers' computations,
  // loops inside manual regions).
  const PlannedInstruction* Find(const Instruction* instr) const;
  // The kNode / kLeafNodes value that decides leaf `leaf` of `instr`'s value (-1: an array
  // value's only leaf); nullopt where no node does (a token, a manual region's value).
  std::optional<ValueLeaf> Origin(const Instruction* instr, int64_t leaf) const;
  // What a kLeafNodes leaf is resharded from, with how often: a while's operand (once per loop)
  // and body root (per iteration); each branch root of a conditional; an annotated alias's
  // underlying leaf; an rng-bit-generator's state operand (into its state leaf; its bits come
  // from no value). Origins, so several entries may be one node; none for tuple parameters.
  std::vector<std::pair<ValueLeaf, int64_t>> LeafInputs(const Instruction* instr, int64_t leaf) const;
  // Instructions inside manual regions that sit on their boundary: the operands of
  // SPMDFullToShardShape and the SPMDShardToFullShape calls (planned; they keep their shardings).
  bool IsRegionBoundary(const Instruction* instr) const { return boundary_.contains(instr); }
  // Assumptions the schedule makes (while loops of unknown trip count).
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  friend class FlowAnalyzer;
  std::vector<PlannedInstruction> schedule_;
  absl::flat_hash_map<const Instruction*, int64_t> index_;  // instruction -> schedule_ index
  // Called computation -> (the while / conditional calling it, its branch index or -1).
  absl::flat_hash_map<const Computation*, std::pair<const Instruction*, int64_t>> caller_;
  absl::flat_hash_set<const Instruction*> boundary_;
  std::vector<std::string> notes_;
};

// The shape of leaf `leaf` (pre-order over non-tuple leaves) of `shape`; -1: `shape` itself.
const Shape& LeafShape(const Shape& shape, int64_t leaf);
// Index of the first leaf of tuple element `index` of `shape`.
int64_t FirstLeafOfElement(const Shape& shape, int64_t index);
// Whether `instr` carries a manual sharding (fully manual, manual subgroups, or a tuple with such
// an element).
bool HasManualSharding(const Instruction& instr);

}  // namespace spmdc::autoshard

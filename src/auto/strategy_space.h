// The strategy space of `spmdc auto` (reference/AUTO.md §1.1): for every array value the program
// computes (the entry computation and the loop bodies, conditions and branches it runs; tuple
// values per leaf: control_flow.h), the shardings of its result over subsets of the mesh axes,
// each with the operand shardings it needs, its cost (compute + communication, times how often
// it runs) and its per-device memory; between a producer and a consumer, the cost of resharding
// the producer's result into what the consumer's strategy needs. The result is an IOPDDL Problem
// (iopddl.h), so `spmdc solve`'s presolve, search, certified bound and CBC path solve it
// unchanged.
//
// Per-op behaviour is not written again here: the operand sharding a strategy needs comes from
// propagation's backward rules (ShardingFromUserWith, the rule table propagation and the
// partitioner share), except for the places where the strategy carries something a result
// sharding cannot say — a dot's or a convolution's split contracting dims and a reduce's split
// reduced dims (a partial result that the strategy all-reduces) — which use the shared einsum
// view of dots and convolutions (DotDimsOfDotFamily, DotDimsOfConvolution: the view the
// partitioner's dot/convolution handler works in) and the reduce's `dimensions`.
//
// A strategy assigns each mesh axis to at most one dim (of the result, or a dot's contracting /
// a reduce's reduced dims); the axes of one dim are taken in mesh order, and their product must
// divide the dim. Costs are in picoseconds under a hardware profile, with the cost model's
// collective algorithms (CollectiveSeconds) and per-op roofline (CostOfInstruction).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "auto/iopddl.h"
#include "cost/hardware.h"
#include "ir/module.h"
#include "sharding/mesh.h"
#include "support/status.h"

namespace spmdc::autoshard {

// Per tensor dim, the set of mesh axes (bit i: axis i) it is split over, in mesh order.
using AxisMasks = std::vector<uint32_t>;

struct Strategy {
  AxisMasks output;              // the result's split
  uint32_t partial_axes = 0;     // axes over which the result is a partial sum (all-reduced)
  // All-reduce reassociation (the clean-up's add(all-reduce(a), all-reduce(b)) -> all-reduce(a +
  // b)): axes over which the result is left a partial sum for its one user, an add, to all-reduce
  // (0: reduced here, or nothing to reduce); and per operand, the axes over which it must arrive
  // such a pending partial sum (empty or 0: reduced). A pending value feeds only that.
  uint32_t pending_axes = 0;
  std::vector<uint32_t> operand_pending;
  std::vector<AxisMasks> operands;  // the split each operand must have (per operand index)
  double compute_seconds = 0;
  double communication_seconds = 0;
  int64_t bytes = 0;             // the result's per-device bytes
};

struct StrategyNode {
  const Instruction* instr = nullptr;
  // -1: the node is `instr`'s value (an array, or every leaf of a tuple-valued op whose leaves
  // share one split: topk, variadic reduce / sort); else that array leaf of `instr` (pre-order
  // over its shape's leaves): a loop's state, a conditional's result, a tuple parameter's leaf,
  // an annotated tuple's element (control_flow.h).
  int64_t leaf = -1;
  std::vector<Strategy> strategies;
  int64_t lower = 0, upper = 0;  // live over [lower, upper) of the flattened schedule
  int64_t executions = 1;        // runs per step (loop trip counts); costs include it
  bool annotated = false;        // restricted to the user's sharding
  // Inside a manual region: not planned; one strategy standing for the region's own sharding,
  // kept only for its memory (its local bytes). Never written.
  bool manual = false;
  std::vector<int> operand_nodes;  // per operand index: the node deciding it (-1: none)
};

// A planned instruction whose sharding the plan writes, with the node deciding each of its
// leaves (-1: none; an array has one leaf).
struct SpaceValue {
  const Instruction* instr = nullptr;
  std::vector<int> leaf_nodes;
};

struct StrategyEdge {
  int producer = 0, consumer = 0;  // node indices
  int64_t operand = 0;             // operand index in the consumer (-1: a leaf node's input)
  // Seconds of resharding, row-major: producer strategy s, consumer strategy t; infinity where a
  // pending partial sum would meet a consumer that does not sum it (forbidden in the problem).
  std::vector<double> seconds;
};

struct StrategySpaceOptions {
  explicit StrategySpaceOptions(Mesh m) : mesh(std::move(m)) {}
  Mesh mesh;
  const HardwareProfile* hardware = nullptr;  // required
  // Instructions that already have an (array) sharding keep it: their node has that one strategy;
  // a root tuple's sharding fixes how the outputs come out (else they are part of the plan).
  bool keep_annotations = true;
  std::optional<int64_t> memory_limit;        // bytes per device; none: no limit
  // Price the state the step hands the next (carried_state.h; PlanOptions::carried_state).
  bool carried_state = true;
};

struct StrategySpace {
  explicit StrategySpace(Mesh m) : mesh(std::move(m)) {}
  Mesh mesh;
  std::vector<StrategyNode> nodes;
  std::vector<StrategyEdge> edges;
  std::vector<SpaceValue> values;
  std::optional<int64_t> memory_limit;
  int64_t num_points = 0;  // schedule length
  std::vector<std::string> notes;  // assumptions the space makes (loops of unknown trip count)

  int64_t num_strategies() const;
  // The IOPDDL problem (costs in picoseconds, usages in bytes).
  Problem ToProblem() const;
  // Estimated seconds of a choice (one strategy index per node), as ToProblem prices it.
  double SecondsOf(const std::vector<int64_t>& choice) const;
  // The peak of the per-device memory profile of a choice (bytes).
  int64_t PeakBytesOf(const std::vector<int64_t>& choice) const;
  // The smallest peak any choice can have (each node at its smallest strategy).
  int64_t SmallestPeakBytes() const;
  // The sharding strategy `s` of node `n` gives its result.
  Sharding OutputSharding(int n, int64_t s) const;
};

// The sharding `masks` means on `mesh` (replicated over unused axes).
Sharding ShardingFromMasks(const Mesh& mesh, const AxisMasks& masks);
// The masks of `sharding` for a value of `rank`, when it is a mesh slicing with each dim's axes
// in mesh order; nullopt otherwise.
std::optional<AxisMasks> MasksFromSharding(const Mesh& mesh, const Sharding& sharding, int64_t rank);
// "[data, None]"-style text of masks.
std::string MasksToString(const Mesh& mesh, const AxisMasks& masks);

// Builds the space for `module`'s entry computation and the loop bodies, conditions and branches
// it runs (control_flow.h). InvalidArgument for an annotation the mesh cannot express (with
// --ignore-annotations the caller drops them first); Unimplemented for what ProgramFlow::Analyze
// refuses and for a manual region's boundary that is not a slicing of the mesh.
StatusOr<StrategySpace> BuildStrategySpace(const Module& module, const StrategySpaceOptions& options);

}  // namespace spmdc::autoshard

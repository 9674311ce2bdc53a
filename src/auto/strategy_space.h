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
//
// Repeated layers (reference/AUTO.md §3). The layers of the entry and their tie classes come from
// the stage search's clustering (layers.h: ClusterLayers). Nodes at one position of the layers of
// a class are identical (the same instruction text up to names, the same operands by position), so
// they share one strategy list, and edges between nodes with shared lists share one cost matrix:
// the space of a 96-layer model holds a few layers' worth of strategies and matrices. On top of
// that sharing, the layers of a class except its first and last `untie_boundary` ones are *tied*:
// their nodes at one position are one decision variable. The tied problem (ToProblem) has a node
// per variable, whose cost is the sum of its nodes' costs and which is live over each node's
// interval, and an edge per kind of edge between two variables (K instances: K times the matrix);
// an edge between two nodes of one variable (copy k to copy k + 1 at one position) costs its
// diagonal R(s, s) there. A tied assignment has exactly the cost and memory profile of its
// expansion to the nodes (Expand), so the tied optimum bounds the untied one from above; a lower
// bound valid for the untied problem comes from untied_bound.h. Only the entry computation's
// array values are tied (loop bodies, tuple leaves and manual regions keep their own nodes).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "auto/iopddl.h"
#include "cost/hardware.h"
#include "ir/module.h"
#include "sharding/mesh.h"
#include "support/status.h"

namespace spmdc::autoshard {

// Below this many edge-matrix entries a space is not tied (StrategySpaceOptions::tie_min_entries).
inline constexpr int64_t kTieMinEntries = 4'000'000;

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

// A node's strategies, immutable once built; identical nodes of repeated layers share one list.
class StrategyList {
 public:
  StrategyList() : list_(std::make_shared<const std::vector<Strategy>>()) {}
  explicit StrategyList(std::vector<Strategy> s) : list_(std::make_shared<const std::vector<Strategy>>(std::move(s))) {}
  size_t size() const { return list_->size(); }
  bool empty() const { return list_->empty(); }
  const Strategy& operator[](size_t i) const { return (*list_)[i]; }
  std::vector<Strategy>::const_iterator begin() const { return list_->begin(); }
  std::vector<Strategy>::const_iterator end() const { return list_->end(); }
  // Lists with one id are one list.
  const void* id() const { return list_.get(); }

 private:
  std::shared_ptr<const std::vector<Strategy>> list_;
};

struct StrategyNode {
  const Instruction* instr = nullptr;
  // -1: the node is `instr`'s value (an array, or every leaf of a tuple-valued op whose leaves
  // share one split: topk, variadic reduce / sort); else that array leaf of `instr` (pre-order
  // over its shape's leaves): a loop's state, a conditional's result, a tuple parameter's leaf,
  // an annotated tuple's element (control_flow.h).
  int64_t leaf = -1;
  StrategyList strategies;
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

// One producer -> consumer edge (an instance; the tied problem has fewer edges, above).
struct StrategyEdge {
  int producer = 0, consumer = 0;  // node indices
  int64_t operand = 0;             // operand index in the consumer (-1: a leaf node's input)
  // Seconds of resharding, row-major: producer strategy s, consumer strategy t; infinity where a
  // pending partial sum would meet a consumer that does not sum it (forbidden in the problem). One
  // matrix serves every edge whose producers share a strategy list and whose consumers do (same
  // operand, bytes and executions).
  std::shared_ptr<const std::vector<double>> seconds;
  // The edge of carried state (carried_state.h): the consumer is the parameter the producer's
  // output becomes in the next step. Such edges close cycles (weight -> step -> update -> weight)
  // that the search's relaxation can leave fractional (tied_search.h).
  bool carried = false;
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
  // Repeated layers (above): tie the layers of a class, except its first and last
  // `untie_boundary` layers, which keep decisions of their own. Off: every node is a variable
  // (lists and matrices are shared all the same). Tying applies to spaces whose edge matrices
  // (all instances) hold more than `tie_min_entries` entries: below that the untied search is
  // fast, and it can give identical layers different plans where that pays (an MLP stack
  // alternating column- and row-parallel weights), which tying cannot.
  bool tie_layers = true;
  int untie_boundary = 1;
  int64_t tie_min_entries = kTieMinEntries;
};

// Which nodes share a decision.
struct Ties {
  std::vector<int> var_of;  // per node: its variable (the tied problem's node)
  std::vector<int> first;   // per variable: its first node
  std::vector<int> count;   // per variable: how many nodes it decides
  // Per node of a tied layer: which of its class's tied layers it is in (0, 1, ... in layer
  // order); -1 for the others.
  std::vector<int> copy;
  int num_vars = 0;
  // What the layer clustering found (0 layers: it found none, e.g. no single-value cut).
  int layers = 0, classes = 0;
  int tied_layers = 0;      // layers whose decisions are another layer's
  bool tied() const { return num_vars < static_cast<int>(var_of.size()); }
  // Every node its own variable (what was found about layers stays).
  void Untie();
};

// An edge of the tied problem: the instances with one producer variable, one consumer variable and
// one matrix. `self()`: both ends are one variable (the cost is the matrix's diagonal).
struct EdgeKind {
  int producer_var = 0, consumer_var = 0;
  std::shared_ptr<const std::vector<double>> seconds;
  std::vector<int> instances;  // indices into StrategySpace::edges
  bool self() const { return producer_var == consumer_var; }
};

struct StrategySpace {
  explicit StrategySpace(Mesh m) : mesh(std::move(m)) {}
  Mesh mesh;
  std::vector<StrategyNode> nodes;
  std::vector<StrategyEdge> edges;
  std::vector<SpaceValue> values;
  Ties ties;
  std::optional<int64_t> memory_limit;
  int64_t num_points = 0;  // schedule length
  std::vector<std::string> notes;  // assumptions the space makes (loops of unknown trip count)

  int64_t num_strategies() const;
  // The IOPDDL problem of the variables (costs in picoseconds, usages in bytes): a node per
  // variable (its nodes' intervals after the first are extra_intervals), an edge per EdgeKind that
  // is not a self edge. Without ties: a node per node, an edge per instance.
  Problem ToProblem() const;
  // A node per node and an edge per instance, ties or not: the problem whose optimum the tied one
  // bounds from above (for checks on small models; large ones do not fit in memory).
  Problem ToUntiedProblem() const;
  // The tied problem's edges, self edges included, in the order of their first instance.
  std::vector<EdgeKind> EdgeKinds() const;
  // The choice per node of a choice per variable (a solution of ToProblem).
  std::vector<int64_t> Expand(const std::vector<int64_t>& var_choice) const;
  // Estimated seconds of a choice (one strategy index per node), as ToProblem prices it.
  double SecondsOf(const std::vector<int64_t>& choice) const;
  // The same in the problem's picoseconds, exactly as ToUntiedProblem's Evaluate would sum them.
  TotalCost CostOf(const std::vector<int64_t>& choice) const;
  // The peak of the per-device memory profile of a choice (bytes).
  int64_t PeakBytesOf(const std::vector<int64_t>& choice) const;
  // The smallest peak any choice can have (each node at its smallest strategy; tied nodes can).
  int64_t SmallestPeakBytes() const;
  // The sharding strategy `s` of node `n` gives its result.
  Sharding OutputSharding(int n, int64_t s) const;
};

// Seconds as the IOPDDL problem counts them: picoseconds, rounded, capped at kMaxSpaceCost (far
// below the forbidden marker, so that nothing the space can price is "forbidden", however absurd);
// infinity (a pending partial sum meeting what does not sum it) is kForbiddenCost.
inline constexpr Cost kMaxSpaceCost = 100'000'000'000'000'000;
Cost PicosecondsOf(double seconds);
// `count` instances of a cost of `ps` picoseconds (a tied variable's nodes, an edge kind's
// instances), capped likewise; forbidden stays forbidden.
Cost RepeatedCost(int64_t count, Cost ps);
// a + b of two such costs: forbidden when either is, else capped at kMaxSpaceCost.
inline Cost AddSpaceCost(Cost a, Cost b) {
  if (IsForbidden(a) || IsForbidden(b)) return kForbiddenCost;
  return std::min<Cost>(a + b, kMaxSpaceCost);
}

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

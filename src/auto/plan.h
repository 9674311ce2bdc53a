// `spmdc auto` as a library: choose a sharding for every instruction of a module's entry on a
// mesh, and compare the choice with the standard plans under the same cost model.
//
// 1. The strategy space (strategy_space.h) becomes an IOPDDL problem; the solver of `spmdc solve`
//    (presolve, Lagrangian search with a certified lower bound, CBC on small models) picks one
//    strategy per instruction under the memory limit. The space counts values over their live
//    intervals only; when the full cost model (3.) finds the plan over the limit, the search is
//    repeated with the space's limit tightened by the excess (a few rounds).
//    With SearchKind::kMcts, a tactic search over entry-parameter splits and propagation
//    (tactic_search.h) finds the search's plan instead.
// 2. The standard plans are what a user writes by hand: entry parameters annotated, propagation
//    fills in the rest. Parameters are told apart by role: a *weight* is a parameter whose shape
//    is that of an element of the entry's result tuple (a training step returns new weights or
//    gradients); every other parameter of rank >= 1 is an *input*, whose dim 0 is the batch.
//      data-parallel  inputs' dim 0 over every mesh axis that divides it, weights replicated;
//      fsdp           as data-parallel, each weight split over the axes on its largest such dim
//                     (ZeRO-3: the partitioner all-gathers it where it is used);
//      megatron / 2-d tensor parallelism over the last mesh axis (inputs' dim 0 over the other
//                     axes): the weights' splits are the best ones over that axis alone in the
//                     strategy space (which finds the column-/row-parallel pairs), then propagation.
// 3. Every plan, the search's included, is priced the same way: annotated, propagated,
//    partitioned and cleaned up as `spmdc compile` does, then the cost model (`spmdc report`'s
//    step time and peak memory) on the per-device program. The chosen plan is the fastest that
//    fits the memory limit; when a standard plan beats the search's plan under the full cost
//    model (the strategy space prices resharding and liveness more coarsely than the partitioner
//    emits them) that plan is chosen, and the report says so.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "auto/solver.h"
#include "auto/strategy_space.h"
#include "cost/cost.h"
#include "ir/module.h"
#include "sharding/mesh.h"
#include "support/status.h"

namespace spmdc::autoshard {

// How the search's plan is found: the strategy space as an IOPDDL problem (1. above), or the
// tactic search over entry-parameter splits and propagation (tactic_search.h).
enum class SearchKind { kIlp, kMcts };

struct PlanOptions {
  explicit PlanOptions(Mesh m) : mesh(std::move(m)) {}
  Mesh mesh;
  const HardwareProfile* hardware = nullptr;  // required
  std::optional<int64_t> memory_limit;        // bytes per device; none: the profile's HBM
  double time_limit_s = 60;                   // for each search
  bool keep_annotations = true;               // the module's shardings are constraints
  // Per-thread work limit of each search (results depend only on the input when it, not the time
  // limit, ends the search); 0: a default proportional to the problem size.
  int64_t work_limit = 0;
  bool standard_plans = true;                 // also price the standard plans
  // Also run the exact MILP (CBC) on small models. The stage search (stage_search.h) turns it off:
  // it solves hundreds of small spans, where CBC's proof costs more than the search.
  bool use_milp = true;
  SearchKind search = SearchKind::kIlp;
};

// A plan priced by the full cost model.
struct PricedPlan {
  std::string name;
  std::string description;
  std::unique_ptr<Module> annotated;   // what `compile`/`report`/`verify` take
  double step_seconds = 0;             // report's step time (as scheduled)
  double compute_seconds = 0;
  double communication_seconds = 0;
  int64_t collective_bytes = 0;        // per device, every collective of the step
  int64_t peak_bytes = 0;
  bool fits = true;                    // peak_bytes <= the memory limit
  // The strategy space's estimate (search plans only).
  std::optional<double> model_seconds;
  std::vector<std::string> warnings;   // full rematerializations, ...
  Sharding result_sharding;            // how the outputs come out
  std::vector<Sharding> parameter_shardings;
};

// What the tactic search did (SearchKind::kMcts).
struct TacticSearchStats {
  int64_t playouts = 0;     // selection, expansion, rollout, backup
  int64_t states = 0;       // tactic sets evaluated (one propagation each): the work
  int64_t tree_nodes = 0;
  int64_t priced = 0;       // states priced by the full cost model
  int rounds = 0;           // searches (more than one when the full model's peak exceeded the limit)
  bool exhausted = false;   // every tactic set was visited
};

struct AutoResult {
  std::optional<StrategySpace> space;
  PresolveStats presolve;
  double search_seconds = 0;        // wall time of the search
  double model_cost_seconds = 0;    // the search's plan in the strategy space
  double lower_bound_seconds = 0;   // certified, for the strategy space
  std::string bound_method;
  double gap = 0;                   // (cost - bound) / cost
  bool optimal = false;
  int64_t memory_limit = 0;
  PricedPlan search;                // the search's plan
  std::vector<PricedPlan> standard; // in the order above, the ones that apply
  int chosen = -1;                  // -1: the search's plan, else an index into `standard`
  // SearchKind::kMcts: the search's plan as tactics, in the order applied ("w1.3[1] -> model").
  std::vector<std::string> tactics;
  std::optional<TacticSearchStats> tactic_stats;
  const PricedPlan& Chosen() const { return chosen < 0 ? search : standard[chosen]; }
};

// Errors: those of BuildStrategySpace; ResourceExhausted "no plan fits in X: the smallest needs Y"
// when no choice of strategies fits the memory limit; partitioning errors of a plan (Unimplemented
// for operations the partitioner cannot handle).
StatusOr<AutoResult> PlanAuto(const Module& module, const PlanOptions& options);

// What `spmdc auto` does to a module before PlanAuto: its calls inlined (RunInlineCalls: JAX's
// export wraps helpers in calls returning tuples), then the tuples they returned simplified
// away; loop bodies, conditions and branches named by several loops / conditionals cloned so
// that each has one caller (RunFlattenControlFlow: one sharding per value).
Status PrepareForPlanning(Module& module);

// What --ignore-annotations drops: every sharding but the Sharding constraints' (which PlanAuto
// without keep_annotations plans anyway) and the manual regions' (shard_map bodies are written
// for their shardings: manual values, SPMDFullToShardShape / SPMDShardToFullShape and the values
// entering a region keep theirs).
void DropAnnotations(Module& module);

// OK when `result`'s chosen plan fits its memory limit, else ResourceExhausted "no plan fits in
// X: the smallest needs Y" (the smallest peak of the plans priced).
Status ChosenPlanFits(const AutoResult& result);

// `module` with every node's chosen sharding set (and num_partitions the mesh's devices).
std::unique_ptr<Module> AnnotateWithChoice(const Module& module, const StrategySpace& space,
                                           const std::vector<int64_t>& choice);

// Partitions `annotated` as `compile` does (propagation, partition, clean-up) and prices it.
StatusOr<PricedPlan> PricePlan(std::unique_ptr<Module> annotated, const Mesh& mesh, const HardwareProfile& hw,
                               int64_t memory_limit);

// "1.5 GiB"-style text of a byte count.
std::string FormatBytes(int64_t bytes);

}  // namespace spmdc::autoshard

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
//      expert-parallel (GShard) where the module has experts: a weight dim that a dot treats
//                     as a batch dim (each expert's slice multiplies its own tokens) is an experts
//                     dim; it is split over the axes that divide it, and so are the optimizer
//                     state parameters of an expert weight's shape; inputs as data-parallel,
//                     every other weight replicated;
//      megatron / 2-d tensor parallelism over the last mesh axis (inputs' dim 0 over the other
//                     axes): the weights' splits are the best ones over that axis alone in the
//                     strategy space (which finds the column-/row-parallel pairs), then propagation.
// 3. Weight-update sharding (partitioner/weight_update.h) as a choice: every plan above, the
//    search's included, is also priced with its optimizer update sharded over its data axis (the
//    axis named `data` among those its inputs' batch is split over, else the largest of them),
//    in both modes: new weights all-gathered back ("+wus") and kept sharded ("+wus-keep", FSDP-
//    like), where the rewrite shards at least one update. Such a plan's module is written after
//    the rewrite (every instruction annotated, the root's output shardings set), so `compile`
//    and `verify` turn it into the same program without a flag.
// 4. Every plan is priced the same way: annotated, propagated, partitioned and cleaned up as
//    `spmdc compile` does, then the cost model (`spmdc report`'s step time and peak memory) on
//    the per-device program. The chosen plan is the fastest that fits the memory limit (so a
//    weight-update-sharded one when it is faster, or when only it fits); when a standard plan
//    beats the search's plan under the full cost model (the strategy space prices resharding and
//    liveness more coarsely than the partitioner emits them) that plan is chosen, and the report
//    says so.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "auto/solver.h"
#include "auto/strategy_space.h"
#include "auto/tied_search.h"
#include "cost/cost.h"
#include "ir/module.h"
#include "partitioner/weight_update.h"
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
  // Also price the standard plans and (with weight_update_sharding) every plan's weight-update-
  // sharded variants; false: the search's plan alone (what the stage search wants).
  bool standard_plans = true;
  bool weight_update_sharding = true;
  // Also run the exact MILP (CBC) on small models. The stage search (stage_search.h) turns it off:
  // it solves hundreds of small spans, where CBC's proof costs more than the search.
  bool use_milp = true;
  // Each solve stops when its plan is within this fraction of its certified bound (solver.h:
  // deterministic): closing the last hundredths of a percent can take CBC the whole time limit.
  double relative_gap = 1e-4;
  SearchKind search = SearchKind::kIlp;
  // The module is a training step run step after step: the state it hands the next step
  // (carried_state.h) is priced, in the strategy space and in every plan's step time. The stage
  // search turns it off: its units are pieces of a step (a layer's output activation is not the
  // next step's input, though the data flow would pair it with the layer's input).
  bool carried_state = true;
  // Tie the repeated layers (strategy_space.h: above `tie_min_entries`): on by default; off for
  // checks against the untied search.
  bool tie_layers = true;
  int64_t tie_min_entries = kTieMinEntries;
  // Called from the search as it goes (the tied search: after each step).
  std::function<void(const SearchProgress&)> progress;
};

// A plan priced by the full cost model.
struct PricedPlan {
  std::string name;
  std::string description;
  // What `compile`/`report`/`verify --propagate` take: the module as the plan annotates it, its
  // outputs' shardings set (a weight-update-sharded plan: after propagation and the rewrite,
  // every instruction annotated).
  std::unique_ptr<Module> annotated;
  // report's step time (as scheduled), plus carry_seconds: a training step's plan runs step
  // after step, so the state it hands the next step split unlike the parameters it came in as
  // (carried_state.h) is resharded once per step.
  double step_seconds = 0;
  double carry_seconds = 0;
  int64_t carried_resharded = 0;       // such values (their collectives are in collective_bytes)
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
  std::string weight_update;           // variants: what the rewrite did (WeightUpdateResult::Summary)
};

// CPU seconds of this process per phase of PlanAuto (the search runs on one thread; the MILP,
// when it runs, is a child process on another core and is not counted).
struct PlanTimes {
  double space = 0;      // the strategy space (layer clustering and tying included)
  double search = 0;     // every search round (presolve included)
  double bound = 0;      // the lower bound of the untied problem (when tied)
  double pricing = 0;    // partitioning and pricing the search's plans
  double standard = 0;   // the standard plans (their search and pricing)
  double update_sharded = 0;  // pricing the plans with their weight update sharded (+wus)
  double Total() const { return space + search + bound + pricing + standard + update_sharded; }
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
  PlanTimes cpu;
  PresolveStats presolve;
  double search_seconds = 0;        // wall time of the search
  double model_cost_seconds = 0;    // the search's plan in the strategy space
  double lower_bound_seconds = 0;   // certified, for the strategy space
  std::string bound_method;
  double gap = 0;                   // (cost - bound) / cost
  bool optimal = false;
  std::string search_how;           // what the search's plan is, when it says (tied search)
  int64_t memory_limit = 0;
  PricedPlan search;                // the search's plan
  std::vector<PricedPlan> standard; // in the order above, the ones that apply
  // The plans above with the weight update sharded (3.), named "<plan>+wus" / "<plan>+wus-keep".
  std::vector<PricedPlan> update_sharded;
  int chosen = -1;                  // -1: the search's plan, else an index into `standard`
  int chosen_update = -1;           // >= 0: the chosen plan is update_sharded[chosen_update]
  // SearchKind::kMcts: the search's plan as tactics, in the order applied ("w1.3[1] -> model").
  std::vector<std::string> tactics;
  std::optional<TacticSearchStats> tactic_stats;
  const PricedPlan& Chosen() const {
    return chosen_update >= 0 ? update_sharded[chosen_update] : chosen < 0 ? search : standard[chosen];
  }
  PricedPlan& Chosen() { return const_cast<PricedPlan&>(std::as_const(*this).Chosen()); }
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
// With `weight_update`, `compile --shard-weight-update` instead: the update is sharded after
// propagation, and the plan's module is the rewritten one; FailedPrecondition when the rewrite
// shards no update.
// With `carried_state`, the resharding the next step needs for the state this one hands it
// (carried_state.h) is added to the step time (PricedPlan::carry_seconds).
StatusOr<PricedPlan> PricePlan(std::unique_ptr<Module> annotated, const Mesh& mesh, const HardwareProfile& hw,
                               int64_t memory_limit, const WeightUpdateOptions* weight_update = nullptr,
                               bool carried_state = true);

// "1.5 GiB"-style text of a byte count.
std::string FormatBytes(int64_t bytes);

}  // namespace spmdc::autoshard

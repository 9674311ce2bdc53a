// `spmdc auto --search mcts`: PartIR-style tactic search (reference/AUTO.md §5; Automap, the
// MCTS paper, TOAST), a complement to the strategy-space ILP of plan.h that returns the same
// priced plan.
//
// A *tactic* shards one entry parameter's dim over one mesh axis ("w1.3[1] -> model"); a plan is
// a set of tactics, and sharding propagation (src/propagation, the real pass, allowed to fill in
// the parameters no tactic decides and the outputs) infers every other sharding from it.
//  - Decisions are grouped and pruned before the search (TOAST's static analysis). Parameters of
//    equal dims joined by elementwise data flow (a weight, its optimizer state) form one group,
//    with the outputs they flow into (the updated weight, which a Sharding constraint makes come
//    out as the weight went in); groups of equal dims whose parameters are used alike (the same
//    weight of repeated layers; q, k and v) are one decision (Automap's grouping); groups under
//    1/32 of the largest one's bytes (biases, norm scales, labels) are left to propagation. Each
//    axis is used once per group and only where the dim's split divides it; a tactic that
//    propagation already implies in the state it would extend is dropped.
//  - Every state is evaluated once (cached): propagation, then each instruction's propagated
//    sharding read as the strategy space's strategy of that output split (for a dot, the
//    cheapest of those given its operands'), priced by the space: step seconds and peak bytes,
//    the cheapest faithful estimate. The search's objective is seconds x (peak / limit)^4 over
//    the limit: soft, so that it can pass through states that do not fit yet (one half of a
//    Megatron pair), and continuous at the limit, since the space's peak is an estimate. Reward:
//    1 / (1 + ln(cost / best cost so far)), in (0, 1].
//  - The tree's states are sets of tactics. Tactics are numbered (groups by bytes, largest
//    first, then dim, then axis) and a state's children add a tactic numbered above all of its
//    own, so that each set has one node; a "stop" child ends the plan there. UCT selects (mean
//    reward + 0.7 sqrt(ln N / n)); each playout expands one child (stop first, then by prior) and
//    runs a rollout from it: a randomised descent that draws tactics in proportion to their
//    priors (how much each alone improves on the empty state, a one-step look-ahead), keeps
//    those that improve the objective and ends after 3 draws in a row that do not.
//  - The best states by the objective are then priced by PricePlan (partitioned and costed like
//    every other plan) and the fastest that fits is kept; when none fits under the full model
//    (collective buffers, temporaries the space does not count), the search runs again with the
//    space's limit tightened by the excess, reusing the cached evaluations (a few rounds).
//    Finally tactics whose removal does not raise the estimate are dropped when the full model
//    finds the simpler plan no worse: the tactics reported are the ones that matter.
// Deterministic: a fixed seed, ordered containers, and a work limit counted in states evaluated;
// only a search the time limit cuts short can differ between runs.
#pragma once

#include "auto/plan.h"
#include "ir/module.h"
#include "support/status.h"

namespace spmdc::autoshard {

// Runs the search for `module` under `options` with `result.space` built and
// `result.memory_limit` set (PlanAuto does both); fills result.search (named "auto"; it may not
// fit: ChosenPlanFits says so), search_seconds, model_cost_seconds, tactics and tactic_stats. No
// lower bound: bound_method says so. options.work_limit counts states evaluated per round (0: 20
// per tactic, within [300, 4000]). Errors: those of propagation, and PricePlan's when no
// candidate could be priced.
Status SearchTactics(const Module& module, const PlanOptions& options, AutoResult& result);

}  // namespace spmdc::autoshard

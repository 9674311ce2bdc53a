// The tied model of a strategy space with repeated layers, and a certified lower bound of the
// *untied* problem computed on it (reference/AUTO.md §3 and §7).
//
// Tying (strategy_space.h) makes the identical nodes of repeated layers one decision, so the tied
// optimum only bounds the untied optimum U* from above: the untied problem may give every copy of
// a layer its own plan (under a memory limit, some layers sharded further than others). A bound
// valid for U comes from U's Lagrangian dual over the memory rows,
//   L(lambda) = min_x  sum_i [c_i(x_i) + Lambda_i m_i(x_i)] + sum_e R_e(x_u, x_v) - sum_p lambda_p M,
// where Lambda_i sums lambda over the time points node i is live at, and from any
// reparameterisation of U's pairwise problem by messages mu on each edge instance:
//   L(lambda) >= sum_i min_s [c_i(s) + Lambda_i m_i(s) + sum_(e at i) mu_e,i(s)]
//              + sum_e min_(s,t) [R_e(s,t) - mu_e,u(s) - mu_e,v(t)]  -  sum_p lambda_p M.
// The messages come from the tied model T: one variable per tied group, one edge per edge kind
// (its K instances: K R), message passing on T (dual.h, each variable handing each edge a share of
// its belief proportional to the fraction of its copies the edge touches, so that each copy's part
// stays with that copy's edges); every instance of a kind takes 1/K of the kind's messages
// (rounded down in fixed point). Then the edge terms are T's own, and each variable's term splits
// into one minimum per node, sum_i min_s f_i(s) instead of min_s sum_i f_i(s): the price of letting the
// copies disagree, which is what tying forbids and the untied problem allows. A self kind (copy k
// to copy k + 1 at one position, a diagonal in T) gives each instance half its diagonal at each
// end, or nothing; the better of the two is kept. Nothing of U is built: its nodes are visited
// once per evaluation, its matrices are T's.
//
// One multiplier, on the peak of a seed plan (the unconstrained optimum): in a training step the
// weights and every layer's stashed activations are live there, so it is the point that binds,
// and a multiplier there charges every copy of a tied node alike (which keeps the copies' terms
// equal). L is concave in it: bracketed by the caller (the prices where penalised plans cross the
// limit) or by doubling from the price of memory that the seed and the best known plan suggest,
// narrowed by golden sections; each evaluation runs passes warm from the last until they gain
// little. Everything reported is recomputed in exact integer arithmetic (multipliers and messages
// in fixed point, as dual.h). For a space without ties this is the untied problem's own dual.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "auto/model.h"
#include "auto/strategy_space.h"

namespace spmdc::autoshard {

// T: the tied problem as a Model, without presolve (which may merge edge kinds and compare their
// sums, valid for T but not for U): a variable per tied group, unary = its nodes' costs plus its
// self kinds' diagonals, an edge per kind that is not a self kind (K instances: K times the
// matrix), time points at every distinct start of a node's interval, and a variable's memory over
// each of its nodes' intervals (overlaps add up). A tied assignment x costs T.CostOf(x), exactly
// the untied cost of space.Expand(x), and T.Profile(x) is its untied usage at every point.
struct TiedModel {
  Model model;
  std::vector<int64_t> points;        // the schedule time of each model time point
  std::vector<int> kind_of_edge;      // model edge -> its index in `kinds`
  std::vector<EdgeKind> kinds;        // space.EdgeKinds()
  int64_t pair_entries() const { return static_cast<int64_t>(model.pair.size()); }
};
TiedModel BuildTiedModel(const StrategySpace& space, int64_t memory_limit);

struct UntiedBoundOptions {
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  int64_t work_limit = 0;          // pair entries touched; 0: none
  TotalCost upper_bound = 0;       // the best untied cost known (the step target); 0: none
  std::vector<int64_t> seed;       // a choice per node whose peak carries the multiplier (or empty)
  int inner_iterations = 8;        // message-passing iterations per round
  // Where the multiplier's best value lies, when the caller knows (e.g. the prices at which the
  // plans of a penalised search cross the limit); 0: unknown.
  double lambda_lo = 0, lambda_hi = 0;
  std::function<void(TotalCost bound, int64_t work)> progress;  // after each improvement
};

struct UntiedBoundResult {
  TotalCost bound = 0;             // certified: no untied assignment within the limit costs less
  int64_t steps = 0;               // evaluations
  int64_t work = 0;
  int active_points = 0;           // time points with a multiplier (0 or 1)
  int64_t time = -1;               // the schedule time of that point
  double lambda = 0;               // the multiplier of the best bound (cost per byte)
  bool diagonal_split = false;     // the self kinds' halves were kept (else nothing)
  std::string method;
};

// The bound for `space` (tied or not: without ties it is the Lagrangian dual of the untied
// problem itself) at the space's memory limit (none: the plain pairwise dual).
UntiedBoundResult BoundUntiedProblem(const StrategySpace& space, const TiedModel& tied,
                                     const UntiedBoundOptions& options);

}  // namespace spmdc::autoshard

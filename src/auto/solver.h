// spmdc's solver for the IOPDDL problem (iopddl.h): one strategy per node, minimal node + edge
// cost, the usage profile within the limit at every time.
//
// 1. Presolve (model.h) shrinks the problem without changing its optimum.
// 2. Each search thread runs a Lagrangian loop over the memory rows (dual.h): message passing on
//    the penalised pairwise problem gives a certified lower bound and, decoded, an assignment that
//    is cheap under the penalties; the multipliers follow subgradient steps. Every decoded
//    assignment is repaired under the limit and improved by local search with memory as a hard
//    constraint (local_search.h); between rounds, random paths are re-optimised exactly under the
//    penalised costs and random regions perturbed (iterated local search).
// 3. Small models also go to an exact MILP (milp.h, COIN-OR CBC), which can prove optimality.
// The answer is the best assignment found (ties: the lowest thread), checked with Evaluate, and the
// best bound of any thread. Threads do not communicate, so a run with a work limit that ends
// before the time limit is deterministic for a given input, seed and thread count (the MILP, when
// used, then also stops at a node limit; it adds timing dependence only if its clock runs out).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "auto/iopddl.h"
#include "auto/model.h"
#include "support/status.h"

namespace spmdc::autoshard {

struct SolveProgress {
  double elapsed_s = 0;
  TotalCost cost = 0;         // incumbent (valid when has_solution)
  bool has_solution = false;
  TotalCost lower_bound = 0;
  int64_t iterations = 0;
};

struct SolveOptions {
  double time_limit_s = 60;     // wall clock, presolve included
  // Units of work per thread (pair-matrix entries touched); 0: none. With a work limit and no
  // time limit reached, the result depends only on the input, the seed and `threads`.
  int64_t work_limit = 0;
  int threads = 1;
  uint64_t seed = 1;
  bool use_milp = true;         // exact MILP (CBC) on small models
  // Stop when the incumbent is within this fraction of the certified bound (0: only at a proof of
  // optimality). In a work-limited run the decision is deterministic: each search thread stops on
  // its own incumbent and bound; once all have stopped, a MILP still running is cancelled and its
  // results ignored if the threads' best is within the gap (else it runs to its node limit as
  // before). `spmdc auto` uses 1e-4; `spmdc solve` keeps 0 (the contest scores cost, not time).
  double relative_gap = 0;
  // Called from the solver's threads, serialised, about every `progress_interval_s`.
  std::function<void(const SolveProgress&)> progress;
  double progress_interval_s = 1.0;
};

struct SolveResult {
  Solution solution;
  TotalCost cost = 0;          // Evaluate's cost of `solution`
  TotalCost lower_bound = 0;   // certified: no solution costs less
  std::string bound_method;    // how lower_bound was obtained
  bool optimal = false;        // lower_bound == cost
  double elapsed_s = 0;
  int64_t iterations = 0;      // Lagrangian iterations, all threads
  PresolveStats presolve;
  // (cost - lower_bound) / cost, 0 when cost is 0.
  double Gap() const;
};

// Errors: those of Presolve (bad problem, every solution forbidden, fixed usage over the limit)
// and ResourceExhausted when the search found no assignment within the usage limit (the message
// gives the smallest peak it reached).
StatusOr<SolveResult> Solve(const Problem& problem, const SolveOptions& options);

}  // namespace spmdc::autoshard

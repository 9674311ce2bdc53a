// The search of `spmdc auto` on a strategy space with tied repeated layers (strategy_space.h,
// reference/AUTO.md §3): plans come from the tied problem (a few layers' worth of variables) and,
// under a memory limit, are untied where that pays.
//
// 1. The tied problem without the memory limit, by the solver of `spmdc solve`: x0, the fastest
//    plan. When its peak fits the limit it is the answer.
// 2. Otherwise x0 is repaired greedily under the limit on the tied model (every time point), and
//    the tied problem without a limit but with every node charged `price` per byte it holds at
//    x0's peak is solved for prices from the repaired plan's cost per byte saved, up (or down) by
//    1.5x until the plans cross the limit, then twice between: plans on the lower hull of
//    (memory at the peak, cost), on both sides of the limit.
// 3. Mixing, which tying forbids: a plan that follows one candidate on the tied layers before copy
//    j and another from copy j on (the other nodes follow either) is priced exactly, for every j,
//    both orders and every pair of candidates; the cheapest that fits wins. Under a memory limit
//    the best untied plans are of this kind: some layers sharded further than others, the
//    fractional tied plan of the bound realised layer by layer.
// 4. The best mix improved by local search on the problem whose tied layers form two groups (the
//    copies before its split and those after), every time point within the limit.
// 5. When nothing fits yet, the tied problem with the hard limit.
// The solves of x0 and of step 5 are conditioned when the relaxation stays loose (more than 1%
// between the plan and its bound) and the space has carried state: the edges from a step's
// outputs back to its parameters close cycles (weight -> forward -> backward -> update -> weight)
// on which the local-polytope relaxation can be fractional, mixing plans that are each optimal, so that the
// decoded plan follows none of them (GPT-3 on data=8,fsdp=8,model=8: plan 7% above the bound).
// Fixing one carried parameter to its strategy in the plan cuts those cycles; the relaxation of
// what is left is then usually tight and its plan optimal given that choice. The parameters are
// tried largest first, each alone, a few at most, until one leaves its own relaxation loose; the
// best plan is kept, with the unconditioned bound. Step 2's solves are not: they are many.
// With `bound`, the untied problem's certified lower bound (untied_bound.h), its multiplier on
// x0's peak searched within the prices where the plans of step 2 crossed the limit.
// Candidates are kept across calls, so the rounds that tighten the limit (plan.h) reuse them.
// Everything runs on the calling thread with work budgets: deterministic for a given input unless
// a time limit cuts a solve short.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "auto/solver.h"
#include "auto/strategy_space.h"
#include "auto/untied_bound.h"

namespace spmdc::autoshard {

// Where a search stands, for progress lines (seconds of the strategy space's estimate).
struct SearchProgress {
  double elapsed_s = 0;
  std::optional<double> estimate_s;  // the best plan so far
  std::optional<double> bound_s;     // certified for the problem searched
  std::string phase;
};

struct TiedSearchOptions {
  double time_limit_s = 60;   // per solve
  int64_t work_limit = 0;     // per solve and for the bound; 0: proportional to the tied problem
  bool use_milp = true;
  double relative_gap = 0;    // per solve (SolveOptions::relative_gap)
  // The bound works on the untied problem itself when its edge matrices hold at most this many
  // times the tied model's entries (few copies: no lifting loss), else on the tied model
  // (untied_bound.h). 0: always the tied model.
  int64_t direct_bound_factor = 4;
  std::function<void(const SearchProgress&)> progress;
};

struct TiedSearchResult {
  std::vector<int64_t> choice;  // a strategy per node
  TotalCost cost = 0;           // its untied cost (StrategySpace::CostOf), picoseconds
  std::string how;              // what the plan is (tied, or which candidates it mixes)
  bool has_bound = false;       // the calls with `bound`:
  TotalCost lower_bound = 0;    // certified for the untied problem at the call's limit
  std::string bound_method;
  double bound_cpu_s = 0;       // CPU seconds the bound took
  PresolveStats presolve;       // of the unconstrained tied problem
};

// Conditioning on carried state (above), for the tied search and for an untied space's single
// solve (plan.h): the variables of the space's ToProblem() that are carried parameters, largest
// first; and `solve` on `problem`, then, while its plan is more than kConditionGap above its
// bound, on the problem with one of `carried` fixed to its strategy in the best plan so far (at
// most `conditionings` of them, each alone). The result has the best plan and the unconditioned
// bound.
// `solve(p, share)` solves p with `share` of a solve's time and work: 1 for the first solve,
// kConditionedShare for each conditioned one (which ends early when it is tight, the case that
// matters). Conditioning stops at the first conditioned solve that is itself loose.
inline constexpr double kConditionGap = 0.01;
inline constexpr double kConditionedShare = 0.25;
std::vector<int> CarriedVariables(const StrategySpace& space);
StatusOr<SolveResult> SolveConditioned(const Problem& problem, const std::vector<int>& carried, int conditionings,
                                       const std::function<StatusOr<SolveResult>(const Problem&, double)>& solve);

// The work budget (solver.h units) of one of the searches' solves of `problem`: `share` of
// `work_limit` when that is given (> 0), else of `work_per_entry` per entry of its edge matrices,
// at least 300M (well under a second on the zoo's small models).
int64_t SolveWork(const Problem& problem, int64_t work_limit, int64_t work_per_entry, double share);

class TiedSearch {
 public:
  TiedSearch(const StrategySpace& space, TiedSearchOptions options);
  ~TiedSearch();
  // The best plan found whose peak (the space's accounting) fits `limit`; with `bound`, also the
  // untied problem's lower bound at `limit`. Errors: ResourceExhausted when nothing fits, and
  // those of the solver.
  StatusOr<TiedSearchResult> Run(int64_t limit, bool bound);

 private:
  struct Candidate {
    std::vector<int64_t> choice;
    TotalCost cost = 0;
    int64_t peak = 0;
    std::string name;
    double price = 0;  // of memory at the peak, for the plans of step 2 (else 0)
    int split = -1;    // for a mix of two tied plans: its first copy from the second plan
  };
  Status Unconstrained();
  // Conditioned on at most `conditionings` carried parameters while loose (above).
  StatusOr<SolveResult> SolveTied(const Problem& problem, int conditionings);
  StatusOr<SolveResult> SolveOnce(const Problem& problem, double share = 1.0);
  void Add(std::vector<int64_t> choice, std::string name, double price = 0);
  std::optional<Candidate> Mix(const Candidate& a, const Candidate& b, int64_t limit) const;
  const Candidate* BestFitting(int64_t limit) const;
  std::optional<Candidate> Improve(const Candidate& mix, int64_t limit) const;
  void Report(const std::string& phase, std::optional<TotalCost> bound);

  const StrategySpace& space_;
  TiedSearchOptions options_;
  Problem problem_;
  std::chrono::steady_clock::time_point start_;
  std::vector<Candidate> candidates_;
  std::unique_ptr<TiedModel> tied_;     // built for the bound and the repair
  PresolveStats presolve_;
  int64_t peak_time_ = -1;              // where memory is priced
  std::optional<TotalCost> best_bound_;
  int64_t limit_ = 0;                   // of the current call
  std::string phase_;                   // for progress lines
  std::string last_phase_;
  double last_report_s_ = -1e9;
  int copies_ = 0;                      // tied copies per class (the largest)
  std::vector<int> carried_vars_;       // tied variables of carried parameters, largest first
};

}  // namespace spmdc::autoshard

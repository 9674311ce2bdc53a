// One search thread of the solver (solver.h): the Lagrangian loop over the memory multipliers with
// the primal heuristics it feeds. Deterministic for its parameters and work budget.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <vector>

#include "auto/model.h"

namespace spmdc::autoshard {

struct SearchParams {
  uint64_t seed = 1;
  int inner_iterations = 20;  // message-passing iterations per multiplier update
  double theta = 1.0;         // initial Polyak step factor
  int patience = 5;           // updates without a better bound before the step halves
  double target_mix = 1.0;    // Polyak target: best bound + target_mix * (incumbent - best bound)
  double deflection = 0.5;    // direction = subgradient + deflection * previous direction
  int ils_every = 4;          // iterated-local-search round every this many updates
  int ils_kicks = 8;          // perturbations per round
  int kick_size = 8;          // largest region a perturbation changes
  int path_moves = 32;        // path re-optimisations per round
  int path_length = 16;       // longest path
};

// When a thread must stop: a wall-clock deadline, a work limit (0: none) and a shared flag; also
// when its incumbent is within `relative_gap` of its own certified bound (0: only when equal).
struct SearchBudget {
  std::chrono::steady_clock::time_point deadline;
  int64_t work_limit = 0;
  const std::atomic<bool>* stop = nullptr;
  double relative_gap = 0;
};

class LagrangianSearch {
 public:
  LagrangianSearch(const Model& model, SearchParams params);

  // Starts from `start` when given (e.g. the shared initial assignment), else from the assignment
  // with the least usage. Returns when the budget is spent or the bound meets the incumbent (or
  // comes within the budget's relative gap of it).
  void Run(const SearchBudget& budget, const std::vector<int>* start = nullptr);

  bool has_solution() const { return has_solution_; }
  const std::vector<int>& best() const { return best_x_; }
  // Model cost of best() (offset included).
  TotalCost best_cost() const { return best_cost_; }
  TotalCost lower_bound() const { return best_lb_; }
  bool has_bound() const { return has_lb_; }
  int64_t iterations() const { return iterations_; }
  int64_t work() const { return work_; }
  // Smallest peak usage reached by any assignment (for the message when none fits).
  int64_t smallest_peak() const { return smallest_peak_; }

  // Polled by the progress reporter (relaxed reads from another thread).
  std::atomic<int64_t> shared_cost{0};
  std::atomic<bool> shared_has_solution{false};
  std::atomic<int64_t> shared_bound{0};
  std::atomic<bool> shared_has_bound{false};

 private:
  bool Spent(const SearchBudget& b) const;
  void Offer(const std::vector<int>& x, int64_t cost);
  void OfferBound(TotalCost lb);

  const Model& model_;
  SearchParams params_;
  bool has_solution_ = false;
  std::vector<int> best_x_;
  TotalCost best_cost_ = 0;
  bool has_lb_ = false;
  TotalCost best_lb_ = 0;
  int64_t iterations_ = 0;
  int64_t work_ = 0;
  int64_t smallest_peak_ = INT64_MAX;
};

// The assignment with the least usage (per variable: least usage summed over its segments, then
// least cost).
std::vector<int> LeastUsageAssignment(const Model& model);

}  // namespace spmdc::autoshard

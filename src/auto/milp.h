// The exact MILP of a small Model with COIN-OR CBC (the solver Alpa uses), AUTO.md §1.2:
// binary x[v][s], continuous e[edge][s][t] >= 0 for the allowed pairs, one-hot rows, the
// local-polytope marginal rows (sum_t e[s][t] = x_u[s], sum_s e[s][t] = x_v[t], which make e
// integral once x is), and memory rows sum u x <= limit - baseline. Forbidden pairs have no
// column. Memory rows are added lazily: solve with the rows that the incumbent makes tight, add the
// rows the MILP's answer violates, solve again; an answer that fits every row is optimal, and the
// bound of every round is a lower bound (fewer rows relax the problem).
//
// CBC does not stop promptly at its time limit (preprocessing and root cuts ignore it), so it runs
// in a child process: Start() forks it while the caller is still single-threaded, the child sends
// every solution and bound through a pipe, and Collect() reads them until the child ends or the
// deadline passes, then kills it.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <vector>

#include "auto/model.h"

namespace spmdc::autoshard {

class MilpSearch {
 public:
  explicit MilpSearch(const Model& model);
  // Whether the model is small enough to be worth handing to CBC.
  static bool Suitable(const Model& model);

  // Forks the child that solves until proven optimal or the deadline. `bounded_nodes`: also stop
  // each round after a fixed number of branch-and-bound nodes (a run that does not depend on
  // timing). Call before starting other threads. False if the child could not be started.
  bool Start(std::chrono::steady_clock::time_point deadline, bool bounded_nodes);
  // Reads the child's results until it exits, the deadline passes or `cancel` is set (then kills
  // it).
  void Collect(std::chrono::steady_clock::time_point deadline, const std::atomic<bool>* cancel = nullptr);
  // The solve itself, in the calling process (what the child runs); `report` is called with every
  // improvement.
  void Run(std::chrono::steady_clock::time_point deadline, bool bounded_nodes,
           int report_fd = -1);

  bool has_solution() const { return has_solution_; }
  const std::vector<int>& best() const { return best_x_; }
  TotalCost best_cost() const { return best_cost_; }  // offset included
  bool has_bound() const { return has_bound_; }
  TotalCost lower_bound() const { return lower_bound_; }
  bool optimal() const { return optimal_; }

 private:
  void Send(int fd, int type) const;

  const Model& model_;
  int child_ = -1;
  int pipe_fd_ = -1;
  bool has_solution_ = false;
  std::vector<int> best_x_;
  TotalCost best_cost_ = 0;
  bool has_bound_ = false;
  TotalCost lower_bound_ = 0;
  bool optimal_ = false;
};

}  // namespace spmdc::autoshard

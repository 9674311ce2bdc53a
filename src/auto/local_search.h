// Primal search on a Model with the memory limit as a hard constraint: an assignment, its cost
// and its usage profile (a segment tree), single-variable and two-variable moves that are applied
// only when every time point stays within the limit, a repair that brings an infeasible assignment
// under the limit, and random perturbations for iterated local search. One instance per thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <random>
#include <vector>

#include "auto/model.h"
#include "auto/profile.h"

namespace spmdc::autoshard {

class LocalSearch {
 public:
  // `unary`: costs to use instead of the model's (same layout), e.g. Lagrangian-penalised ones;
  // `hard_memory` false ignores the limit (the profile is still kept).
  explicit LocalSearch(const Model& model, const std::vector<Cost>* unary = nullptr,
                       bool hard_memory = true);

  // Starts from x (any assignment, feasible or not); ends any Mark().
  void Set(const std::vector<int>& x);
  const std::vector<int>& x() const { return x_; }
  // Model cost of x without the offset (finite pairs only; see forbidden()).
  int64_t cost() const { return cost_; }
  int64_t forbidden() const { return forbidden_; }
  bool MemoryOk() const { return !limited_ || profile_.GlobalMax() <= model_.limit; }
  bool Feasible() const { return forbidden_ == 0 && MemoryOk(); }
  int64_t Peak() const { return profile_.GlobalMax(); }

  // Greedy repair: forbidden pairs first, then, while some time point is over the limit, the change
  // that frees memory there at the least cost per unit freed. Returns Feasible().
  bool Repair(int64_t max_steps);
  // Improving moves until none is left (single-variable moves, then two-variable moves along
  // edges, driven by worklists; a last sweep catches moves that freed memory made possible); keeps
  // feasibility. Returns the number of moves; `work` counts evaluated candidates.
  int64_t Descend(int64_t& work);
  // The same, starting from the variables changed since Mark() and their neighbours only.
  int64_t DescendLocal(int64_t& work);
  // Starts recording changes, so that Undo() can restore the assignment of this moment cheaply.
  void Mark();
  void Undo();
  // Changes `count` variables of a random connected region to random strategies that avoid
  // forbidden pairs with their current neighbours (memory ignored: call Repair next).
  void Kick(std::mt19937_64& rng, int count);
  // Makes Descend and Repair return early once `deadline` has passed or `*stop` is set.
  void SetDeadline(std::chrono::steady_clock::time_point deadline, const std::atomic<bool>* stop) {
    deadline_ = deadline;
    stop_ = stop;
  }
  // Re-optimises a random path of up to `length` variables exactly (dynamic programming along the
  // path, every other variable fixed) under `guide` costs (e.g. the Lagrangian-penalised unary
  // costs, which price memory; same layout as the model's unary), then keeps the result only if it
  // fits the limit and lowers the true cost. Returns whether it was kept.
  bool PathMove(std::mt19937_64& rng, int length, const std::vector<Cost>& guide, int64_t& work);
  // Sets v to s unconditionally (cost, forbidden count and profile follow).
  void Apply(int v, int s);
  // Cost change of v -> s; false if it would choose a forbidden pair.
  bool Delta(int v, int s, int64_t& delta) const;
  // Whether v -> s keeps every time point within the limit.
  bool FitsMemory(int v, int s) const;

 private:
  int64_t Worklist(std::vector<int> queue, std::vector<int> edges, int64_t& work);
  bool BestSingle(int v, int64_t& work);
  bool BestPair(int e, int64_t& work);
  bool SegmentsFit(int v) const;
  void RepairForbidden();

  // Whether the deadline has passed (the clock is read every 64 calls).
  bool Expired() {
    if (expired_) return true;
    if (++check_counter_ % 64 != 0) return false;
    expired_ = (stop_ && stop_->load(std::memory_order_relaxed)) ||
               std::chrono::steady_clock::now() >= deadline_;
    return expired_;
  }
  Cost Unary(int v, int s) const { return unary_[model_.unary_offset[v] + s]; }

  const Model& model_;
  const Cost* unary_;
  bool limited_;
  std::vector<int> x_;
  int64_t cost_ = 0;
  int64_t forbidden_ = 0;
  UsageProfile profile_;
  std::vector<int64_t> scratch_a_, scratch_b_;
  std::chrono::steady_clock::time_point deadline_ = std::chrono::steady_clock::time_point::max();
  const std::atomic<bool>* stop_ = nullptr;
  int check_counter_ = 0;
  bool expired_ = false;
  bool journaling_ = false;
  std::vector<std::pair<int, int>> journal_;  // (variable, previous strategy) since Mark()
  std::vector<char> queued_, edge_dirty_;
};

}  // namespace spmdc::autoshard

// The memory profile of an assignment as a segment tree over the model's time points: range add
// (a variable changes strategy: its usage changes over each of its segments) and range max (does a
// change still fit under the limit?), both O(log T). The search keeps one per thread.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace spmdc::autoshard {

class UsageProfile {
 public:
  UsageProfile() = default;
  // Starts from `values` (one per time point).
  explicit UsageProfile(const std::vector<int64_t>& values) { Reset(values); }

  void Reset(const std::vector<int64_t>& values) {
    n_ = static_cast<int>(values.size());
    size_ = 1;
    while (size_ < std::max(n_, 1)) size_ *= 2;
    max_.assign(2 * size_, std::numeric_limits<int64_t>::min() / 4);
    add_.assign(2 * size_, 0);
    for (int i = 0; i < n_; ++i) max_[size_ + i] = values[i];
    for (int i = size_ - 1; i >= 1; --i) max_[i] = std::max(max_[2 * i], max_[2 * i + 1]);
  }

  int size() const { return n_; }
  // Adds `delta` to every point of [lo, hi).
  void Add(int lo, int hi, int64_t delta) {
    if (lo < hi && delta != 0) Add(1, 0, size_, lo, hi, delta);
  }
  // Max over [lo, hi) (the lowest int64 / 4 when empty).
  int64_t Max(int lo, int hi) const {
    if (lo >= hi) return std::numeric_limits<int64_t>::min() / 4;
    return Max(1, 0, size_, lo, hi);
  }
  int64_t GlobalMax() const { return n_ == 0 ? std::numeric_limits<int64_t>::min() / 4 : max_[1]; }
  // The first point of [lo, hi) whose value exceeds `bound`, or -1.
  int FirstAbove(int lo, int hi, int64_t bound) const {
    if (lo >= hi) return -1;
    return FirstAbove(1, 0, size_, lo, hi, bound, 0);
  }
  int64_t At(int i) const { return Max(i, i + 1); }

 private:
  void Add(int node, int l, int r, int lo, int hi, int64_t delta) {
    if (lo <= l && r <= hi) {
      max_[node] += delta;
      add_[node] += delta;
      return;
    }
    const int mid = (l + r) / 2;
    if (lo < mid) Add(2 * node, l, mid, lo, hi, delta);
    if (hi > mid) Add(2 * node + 1, mid, r, lo, hi, delta);
    max_[node] = std::max(max_[2 * node], max_[2 * node + 1]) + add_[node];
  }
  int64_t Max(int node, int l, int r, int lo, int hi) const {
    if (lo <= l && r <= hi) return max_[node];
    const int mid = (l + r) / 2;
    int64_t best = std::numeric_limits<int64_t>::min() / 4;
    if (lo < mid) best = std::max(best, Max(2 * node, l, mid, lo, hi));
    if (hi > mid) best = std::max(best, Max(2 * node + 1, mid, r, lo, hi));
    return best + add_[node];
  }
  // `above`: the adds of the ancestors, not yet in max_[node].
  int FirstAbove(int node, int l, int r, int lo, int hi, int64_t bound, int64_t above) const {
    if (max_[node] + above <= bound) return -1;
    if (r - l == 1) return l;
    const int mid = (l + r) / 2;
    above += add_[node];
    if (lo < mid) {
      int f = FirstAbove(2 * node, l, mid, lo, hi, bound, above);
      if (f >= 0) return f;
    }
    if (hi > mid) return FirstAbove(2 * node + 1, mid, r, lo, hi, bound, above);
    return -1;
  }

  int n_ = 0, size_ = 1;
  std::vector<int64_t> max_;  // max of the subtree, including this node's pending add
  std::vector<int64_t> add_;  // added to the whole subtree
};

}  // namespace spmdc::autoshard

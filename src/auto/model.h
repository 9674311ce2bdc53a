// The reduced problem the search works on, and the presolve that builds it from a Problem.
//
// Presolve keeps the optimum (over solutions without forbidden choices) unchanged, so a lower bound
// of the reduced problem is a lower bound of the original one:
// - strategies with a forbidden cost, or with an incident edge whose every entry is forbidden for
//   them, are removed (arc consistency, to a fixed point);
// - a strategy p is dropped when another strategy q of the same variable is no worse in cost, in
//   every memory term and entry by entry in every incident edge (ties keep the lower index);
// - an edge whose finite entries map each strategy of one end to exactly one strategy of the other
//   makes that end a function of the other: it is merged into it (XLA's "follow" chains, the 3rd
//   place team's merge); a variable left with one strategy is fixed;
// - a variable without memory terms and with one neighbour (a leaf) or two (a chain link) is
//   eliminated exactly (its best choice given the neighbours' is folded into them); edges whose
//   matrix is a sum of a row and a column term become node costs; parallel edges are summed;
// - memory: each term's minimum usage becomes a fixed baseline; only the time steps where some
//   choice could exceed the limit are kept (and of those, only the last before an interval ends);
//   terms that touch none of them are dropped.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "auto/iopddl.h"
#include "support/status.h"

namespace spmdc::autoshard {

// Saturating sum: anything at or above kForbiddenCost stays exactly kForbiddenCost.
inline Cost AddCost(Cost a, Cost b) {
  if (a >= kForbiddenCost || b >= kForbiddenCost) return kForbiddenCost;
  Cost s = a + b;
  return s >= kForbiddenCost ? kForbiddenCost : s;
}

struct Model {
  struct Edge {
    int u = 0, v = 0;    // u != v
    int64_t offset = 0;  // pair[offset + s * k[v] + t]: cost of (u = s, v = t)
  };
  struct Incidence {
    int edge = 0;
    int other = 0;
    bool first = false;  // this variable is the edge's u
  };
  // A variable's memory over the time points [lo, hi): its usage per strategy there (minimum 0).
  // A variable's segments are disjoint.
  struct Segment {
    int lo = 0, hi = 0;
    int64_t usage_offset = 0;  // seg_usage[usage_offset + s]
  };

  std::vector<int> k;               // strategies per variable
  std::vector<int64_t> unary_offset;  // unary[unary_offset[v] + s], size V + 1
  std::vector<Cost> unary;           // finite
  std::vector<Edge> edges;
  std::vector<Cost> pair;            // kForbiddenCost marks a forbidden pair
  std::vector<int> adj_offset;       // adj[adj_offset[v] .. adj_offset[v + 1])
  std::vector<Incidence> adj;
  std::vector<int> seg_offset;       // segments[seg_offset[v] .. seg_offset[v + 1])
  std::vector<Segment> segments;
  std::vector<Usage> seg_usage;
  std::vector<int> seg_var;          // segment -> its variable
  // Which segments cover a time point: a segment tree over the points whose node j lists, in
  // cover[cover_offset[j] ..], the segments that cover its whole range but not its parent's.
  int cover_size = 1;
  std::vector<int> cover_offset;
  std::vector<int> cover;
  std::vector<Usage> baseline;       // per time point: the fixed usage
  bool has_limit = false;
  Usage limit = 0;
  TotalCost offset = 0;              // cost of everything presolve fixed or eliminated

  int num_vars() const { return static_cast<int>(k.size()); }
  int num_points() const { return static_cast<int>(baseline.size()); }
  Cost Unary(int v, int s) const { return unary[unary_offset[v] + s]; }
  // Cost of the edge seen from `inc`'s variable: this side takes `mine`, the other `theirs`.
  Cost Pair(const Incidence& inc, int mine, int theirs) const {
    const Edge& e = edges[inc.edge];
    return inc.first ? pair[e.offset + static_cast<int64_t>(mine) * k[e.v] + theirs]
                     : pair[e.offset + static_cast<int64_t>(theirs) * k[e.v] + mine];
  }
  Usage SegUsage(const Segment& seg, int s) const { return seg_usage[seg.usage_offset + s]; }

  // Calls f(segment index) for every segment that covers time point p.
  template <typename F>
  void ForEachSegmentAt(int p, F&& f) const {
    int node = 1, l = 0, r = cover_size;
    while (true) {
      for (int i = cover_offset[node]; i < cover_offset[node + 1]; ++i) f(cover[i]);
      if (r - l == 1) break;
      const int mid = (l + r) / 2;
      if (p < mid) {
        node = 2 * node, r = mid;
      } else {
        node = 2 * node + 1, l = mid;
      }
    }
  }
  // Builds seg_var and the cover index from the segments.
  void BuildIndex();

  // Cost of an assignment (offset included); kForbiddenCost-saturated pairs count as forbidden.
  TotalCost CostOf(const std::vector<int>& x) const;
  // Number of forbidden pairs chosen by x.
  int64_t ForbiddenPairs(const std::vector<int>& x) const;
  // Usage per time point (baseline included).
  std::vector<Usage> Profile(const std::vector<int>& x) const;
};

struct PresolveStats {
  int64_t nodes = 0, edges = 0, strategies = 0;        // of the problem
  int64_t vars = 0, model_edges = 0, model_strategies = 0, pair_entries = 0;
  int64_t points = 0, segments = 0;
  int64_t merged = 0, fixed = 0, eliminated = 0, dominated = 0, inconsistent = 0, folded = 0;
  int rounds = 0;
  std::string ToString() const;
};

// How a model solution maps back to the problem's nodes.
class Reconstruction {
 public:
  // x: one strategy per model variable.
  Solution Expand(const std::vector<int>& x) const;

 private:
  friend class Presolver;
  struct Step {
    int node = 0;
    int target = -1, target2 = -1;  // -1: fixed
    int target2_k = 0;              // original strategies of target2
    std::vector<int32_t> map;       // target's (x target2's) original strategy -> node's
  };
  int64_t num_nodes_ = 0;
  std::vector<int> var_node_;               // model variable -> its node
  std::vector<std::vector<int32_t>> var_dom_;  // model strategy -> the node's strategy
  std::vector<Step> steps_;                 // in elimination order
};

struct Presolved {
  Model model;
  Reconstruction reconstruction;
  PresolveStats stats;
};

// InvalidArgument for problems outside the invariants of Problem, Unimplemented for edges over
// three or more nodes, InvalidArgument("...no strategy left...") when every solution makes a
// forbidden choice, ResourceExhausted when the fixed usage alone exceeds the limit.
StatusOr<Presolved> Presolve(const Problem& problem);

}  // namespace spmdc::autoshard

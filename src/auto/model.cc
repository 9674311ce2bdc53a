// The reduced model's own queries (see model.h); presolve.cc builds it.
#include "auto/model.h"

#include <algorithm>

namespace spmdc::autoshard {

Solution Reconstruction::Expand(const std::vector<int>& x) const {
  Solution out(num_nodes_, -1);
  for (size_t i = 0; i < var_node_.size(); ++i) out[var_node_[i]] = var_dom_[i][x[i]];
  for (auto it = steps_.rbegin(); it != steps_.rend(); ++it) {
    if (it->target < 0) {
      out[it->node] = it->map[0];
    } else if (it->target2 < 0) {
      out[it->node] = it->map[out[it->target]];
    } else {
      out[it->node] = it->map[out[it->target] * it->target2_k + out[it->target2]];
    }
  }
  return out;
}

void Model::BuildIndex() {
  seg_var.assign(segments.size(), 0);
  for (int v = 0; v < num_vars(); ++v) {
    for (int i = seg_offset[v]; i < seg_offset[v + 1]; ++i) seg_var[i] = v;
  }
  cover_size = 1;
  while (cover_size < std::max(num_points(), 1)) cover_size *= 2;
  std::vector<std::vector<int>> lists(2 * cover_size);
  auto insert = [&](auto&& self, int node, int l, int r, int lo, int hi, int id) -> void {
    if (lo <= l && r <= hi) {
      lists[node].push_back(id);
      return;
    }
    const int mid = (l + r) / 2;
    if (lo < mid) self(self, 2 * node, l, mid, lo, hi, id);
    if (hi > mid) self(self, 2 * node + 1, mid, r, lo, hi, id);
  };
  for (int i = 0; i < static_cast<int>(segments.size()); ++i) {
    if (segments[i].lo < segments[i].hi) insert(insert, 1, 0, cover_size, segments[i].lo, segments[i].hi, i);
  }
  cover_offset.assign(2 * cover_size + 1, 0);
  cover.clear();
  for (int j = 0; j < 2 * cover_size; ++j) {
    cover.insert(cover.end(), lists[j].begin(), lists[j].end());
    cover_offset[j + 1] = static_cast<int>(cover.size());
  }
}

TotalCost Model::CostOf(const std::vector<int>& x) const {
  TotalCost c = offset;
  for (int v = 0; v < num_vars(); ++v) c += Unary(v, x[v]);
  for (const Edge& e : edges) c += pair[e.offset + static_cast<int64_t>(x[e.u]) * k[e.v] + x[e.v]];
  return c;
}

int64_t Model::ForbiddenPairs(const std::vector<int>& x) const {
  int64_t n = 0;
  for (const Edge& e : edges) {
    n += IsForbidden(pair[e.offset + static_cast<int64_t>(x[e.u]) * k[e.v] + x[e.v]]);
  }
  return n;
}

std::vector<Usage> Model::Profile(const std::vector<int>& x) const {
  std::vector<Usage> diff(num_points() + 1, 0);
  for (int v = 0; v < num_vars(); ++v) {
    for (int i = seg_offset[v]; i < seg_offset[v + 1]; ++i) {
      const Segment& s = segments[i];
      Usage u = SegUsage(s, x[v]);
      diff[s.lo] += u;
      diff[s.hi] -= u;
    }
  }
  std::vector<Usage> out(num_points());
  Usage run = 0;
  for (int p = 0; p < num_points(); ++p) {
    run += diff[p];
    out[p] = run + baseline[p];
  }
  return out;
}

std::string PresolveStats::ToString() const {
  return fmt::format(
      "{} nodes, {} edges, {} strategies -> {} variables, {} edges, {} strategies, {} pair "
      "entries, {} time points, {} memory segments ({} merged, {} fixed, {} eliminated, {} "
      "dominated and {} inconsistent strategies, {} additive edges; {} rounds)",
      nodes, edges, strategies, vars, model_edges, model_strategies, pair_entries, points, segments,
      merged, fixed, eliminated, dominated, inconsistent, folded, rounds);
}

}  // namespace spmdc::autoshard

#include "auto/local_search.h"

#include <algorithm>
#include <deque>
#include <limits>

namespace spmdc::autoshard {

LocalSearch::LocalSearch(const Model& model, const std::vector<Cost>* unary, bool hard_memory)
    : model_(model),
      unary_(unary ? unary->data() : model.unary.data()),
      limited_(model.has_limit && hard_memory) {}

void LocalSearch::Set(const std::vector<int>& x) {
  journaling_ = false;
  journal_.clear();
  x_ = x;
  cost_ = 0;
  forbidden_ = 0;
  for (int v = 0; v < model_.num_vars(); ++v) cost_ += Unary(v, x_[v]);
  for (const Model::Edge& e : model_.edges) {
    const Cost c = model_.pair[e.offset + static_cast<int64_t>(x_[e.u]) * model_.k[e.v] + x_[e.v]];
    if (IsForbidden(c)) {
      ++forbidden_;
    } else {
      cost_ += c;
    }
  }
  std::vector<Usage> prof = model_.Profile(x_);
  profile_.Reset(prof);
}

void LocalSearch::Mark() {
  journaling_ = true;
  journal_.clear();
}

void LocalSearch::Undo() {
  journaling_ = false;
  for (auto it = journal_.rbegin(); it != journal_.rend(); ++it) Apply(it->first, it->second);
  journal_.clear();
}

void LocalSearch::Apply(int v, int s) {
  const int old = x_[v];
  if (old == s) return;
  if (journaling_) journal_.push_back({v, old});
  cost_ += Unary(v, s) - Unary(v, old);
  for (int i = model_.adj_offset[v]; i < model_.adj_offset[v + 1]; ++i) {
    const Model::Incidence& inc = model_.adj[i];
    const int o = x_[inc.other];
    const Cost before = model_.Pair(inc, old, o), after = model_.Pair(inc, s, o);
    if (IsForbidden(before)) {
      --forbidden_;
    } else {
      cost_ -= before;
    }
    if (IsForbidden(after)) {
      ++forbidden_;
    } else {
      cost_ += after;
    }
  }
  for (int i = model_.seg_offset[v]; i < model_.seg_offset[v + 1]; ++i) {
    const Model::Segment& seg = model_.segments[i];
    profile_.Add(seg.lo, seg.hi, model_.SegUsage(seg, s) - model_.SegUsage(seg, old));
  }
  x_[v] = s;
}

bool LocalSearch::Delta(int v, int s, int64_t& delta) const {
  const int old = x_[v];
  delta = Unary(v, s) - Unary(v, old);
  for (int i = model_.adj_offset[v]; i < model_.adj_offset[v + 1]; ++i) {
    const Model::Incidence& inc = model_.adj[i];
    const int o = x_[inc.other];
    const Cost after = model_.Pair(inc, s, o);
    if (IsForbidden(after)) return false;
    const Cost before = model_.Pair(inc, old, o);
    if (!IsForbidden(before)) delta += after - before;
  }
  return true;
}

bool LocalSearch::FitsMemory(int v, int s) const {
  if (!limited_) return true;
  const int old = x_[v];
  for (int i = model_.seg_offset[v]; i < model_.seg_offset[v + 1]; ++i) {
    const Model::Segment& seg = model_.segments[i];
    const Usage d = model_.SegUsage(seg, s) - model_.SegUsage(seg, old);
    if (d > 0 && profile_.Max(seg.lo, seg.hi) + d > model_.limit) return false;
  }
  return true;
}

bool LocalSearch::SegmentsFit(int v) const {
  if (!limited_) return true;
  for (int i = model_.seg_offset[v]; i < model_.seg_offset[v + 1]; ++i) {
    const Model::Segment& seg = model_.segments[i];
    if (profile_.Max(seg.lo, seg.hi) > model_.limit) return false;
  }
  return true;
}

bool LocalSearch::BestSingle(int v, int64_t& work) {
  const int kv = model_.k[v];
  if (kv < 2) return false;
  const int old = x_[v];
  std::vector<int64_t>& delta = scratch_a_;
  delta.assign(kv, 0);
  std::vector<char> ok(kv, 1);
  for (int s = 0; s < kv; ++s) delta[s] = Unary(v, s) - Unary(v, old);
  for (int i = model_.adj_offset[v]; i < model_.adj_offset[v + 1]; ++i) {
    const Model::Incidence& inc = model_.adj[i];
    const int o = x_[inc.other];
    const Cost before = model_.Pair(inc, old, o);
    const Cost base = IsForbidden(before) ? 0 : before;
    for (int s = 0; s < kv; ++s) {
      const Cost after = model_.Pair(inc, s, o);
      if (IsForbidden(after)) {
        ok[s] = 0;
      } else {
        delta[s] += after - base;
      }
    }
  }
  work += static_cast<int64_t>(kv) * (1 + model_.adj_offset[v + 1] - model_.adj_offset[v]);
  // Best first; the memory check only for improving candidates.
  while (true) {
    int best = -1;
    for (int s = 0; s < kv; ++s) {
      if (s != old && ok[s] && delta[s] < 0 && (best < 0 || delta[s] < delta[best])) best = s;
    }
    if (best < 0) return false;
    if (FitsMemory(v, best)) {
      Apply(v, best);
      return true;
    }
    ok[best] = 0;
  }
}

bool LocalSearch::BestPair(int e, int64_t& work) {
  const Model::Edge& ed = model_.edges[e];
  const int u = ed.u, v = ed.v, ku = model_.k[u], kv = model_.k[v];
  if (ku * kv < 4) return false;
  const int xu = x_[u], xv = x_[v];
  // a[s]: u's change without the edge (u, v); b[t] likewise.
  auto partial = [&](int w, int skip_edge, std::vector<int64_t>& out) {
    const int kw = model_.k[w], xw = x_[w];
    out.assign(kw, 0);
    for (int s = 0; s < kw; ++s) out[s] = Unary(w, s) - Unary(w, xw);
    for (int i = model_.adj_offset[w]; i < model_.adj_offset[w + 1]; ++i) {
      const Model::Incidence& inc = model_.adj[i];
      if (inc.edge == skip_edge) continue;
      const int o = x_[inc.other];
      const Cost before = model_.Pair(inc, xw, o);
      const Cost base = IsForbidden(before) ? 0 : before;
      for (int s = 0; s < kw; ++s) {
        const Cost after = model_.Pair(inc, s, o);
        out[s] = IsForbidden(after) || out[s] == std::numeric_limits<int64_t>::max()
                     ? std::numeric_limits<int64_t>::max()
                     : out[s] + after - base;
      }
    }
  };
  partial(u, e, scratch_a_);
  partial(v, e, scratch_b_);
  const Cost cur = model_.pair[ed.offset + static_cast<int64_t>(xu) * kv + xv];
  if (IsForbidden(cur)) return false;
  work += static_cast<int64_t>(ku) * kv;
  struct Cand {
    int64_t delta;
    int s, t;
  };
  std::vector<Cand> cands;
  for (int s = 0; s < ku; ++s) {
    if (scratch_a_[s] == std::numeric_limits<int64_t>::max()) continue;
    for (int t = 0; t < kv; ++t) {
      if (scratch_b_[t] == std::numeric_limits<int64_t>::max() || (s == xu && t == xv)) continue;
      const Cost c = model_.pair[ed.offset + static_cast<int64_t>(s) * kv + t];
      if (IsForbidden(c)) continue;
      const int64_t d = scratch_a_[s] + scratch_b_[t] + c - cur;
      if (d < 0) cands.push_back({d, s, t});
    }
  }
  if (cands.empty()) return false;
  std::sort(cands.begin(), cands.end(), [](const Cand& a, const Cand& b) {
    return a.delta != b.delta ? a.delta < b.delta : (a.s != b.s ? a.s < b.s : a.t < b.t);
  });
  const int tries = std::min<int>(static_cast<int>(cands.size()), 16);
  for (int i = 0; i < tries; ++i) {
    Apply(u, cands[i].s);
    Apply(v, cands[i].t);
    if (SegmentsFit(u) && SegmentsFit(v)) return true;
    Apply(v, xv);
    Apply(u, xu);
  }
  return false;
}

int64_t LocalSearch::Worklist(std::vector<int> queue, std::vector<int> edges, int64_t& work) {
  const int V = model_.num_vars();
  queued_.assign(V, 0);
  edge_dirty_.assign(model_.edges.size(), 0);
  for (int v : queue) queued_[v] = 1;
  for (int e : edges) edge_dirty_[e] = 1;
  int64_t moves = 0;
  // After a change of v, v and its neighbours may have new single moves, and the edges around
  // them new pair moves.
  auto touched = [&](int v) {
    for (int w : {v}) {
      if (!queued_[w]) queued_[w] = 1, queue.push_back(w);
    }
    for (int i = model_.adj_offset[v]; i < model_.adj_offset[v + 1]; ++i) {
      const Model::Incidence& inc = model_.adj[i];
      if (!queued_[inc.other]) queued_[inc.other] = 1, queue.push_back(inc.other);
      if (!edge_dirty_[inc.edge]) edge_dirty_[inc.edge] = 1, edges.push_back(inc.edge);
      const int o = inc.other;
      for (int j = model_.adj_offset[o]; j < model_.adj_offset[o + 1]; ++j) {
        const int e2 = model_.adj[j].edge;
        if (!edge_dirty_[e2]) edge_dirty_[e2] = 1, edges.push_back(e2);
      }
    }
  };
  while ((!queue.empty() || !edges.empty()) && !Expired()) {
    while (!queue.empty() && !Expired()) {
      const int v = queue.back();
      queue.pop_back();
      queued_[v] = 0;
      if (BestSingle(v, work)) {
        ++moves;
        touched(v);
      }
    }
    std::vector<int> batch;
    batch.swap(edges);
    for (int e : batch) {
      if (!edge_dirty_[e] || Expired()) continue;
      edge_dirty_[e] = 0;
      if (BestPair(e, work)) {
        ++moves;
        touched(model_.edges[e].u);
        touched(model_.edges[e].v);
      }
    }
  }
  return moves;
}

int64_t LocalSearch::Descend(int64_t& work) {
  const int V = model_.num_vars();
  std::vector<int> all(V), all_edges(model_.edges.size());
  for (int v = 0; v < V; ++v) all[v] = V - 1 - v;  // popped from the back: 0 first
  for (size_t e = 0; e < all_edges.size(); ++e) all_edges[e] = static_cast<int>(e);
  int64_t moves = Worklist(all, all_edges, work);
  // Memory freed anywhere may allow a move anywhere else: sweep until nothing changes.
  while (!Expired()) {
    std::vector<int> changed;
    for (int v = 0; v < V; ++v) {
      if (BestSingle(v, work)) changed.push_back(v);
    }
    if (changed.empty()) break;
    moves += static_cast<int64_t>(changed.size());
    std::vector<int> edges;
    for (int v : changed) {
      for (int i = model_.adj_offset[v]; i < model_.adj_offset[v + 1]; ++i) {
        edges.push_back(model_.adj[i].edge);
        edges.push_back(model_.adj[i].edge);
      }
    }
    std::sort(edges.begin(), edges.end());
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    moves += Worklist(changed, edges, work);
  }
  return moves;
}

int64_t LocalSearch::DescendLocal(int64_t& work) {
  std::vector<int> seeds, edges;
  std::vector<char> seen(model_.num_vars(), 0);
  for (const auto& [v, old] : journal_) {
    if (seen[v]) continue;
    seen[v] = 1;
    seeds.push_back(v);
    for (int i = model_.adj_offset[v]; i < model_.adj_offset[v + 1]; ++i) {
      const Model::Incidence& inc = model_.adj[i];
      if (!seen[inc.other]) seen[inc.other] = 1, seeds.push_back(inc.other);
      edges.push_back(inc.edge);
    }
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  return Worklist(seeds, edges, work);
}

void LocalSearch::RepairForbidden() {
  for (int round = 0; round < 4 && forbidden_ > 0; ++round) {
    for (const Model::Edge& e : model_.edges) {
      if (!IsForbidden(model_.pair[e.offset + static_cast<int64_t>(x_[e.u]) * model_.k[e.v] + x_[e.v]])) {
        continue;
      }
      // The cheapest strategy of either end that has no forbidden pair with its neighbours.
      int best_v = -1, best_s = -1;
      int64_t best_d = std::numeric_limits<int64_t>::max();
      for (int w : {e.u, e.v}) {
        for (int s = 0; s < model_.k[w]; ++s) {
          int64_t d;
          if (s != x_[w] && Delta(w, s, d) && d < best_d) best_d = d, best_v = w, best_s = s;
        }
      }
      if (best_v >= 0) Apply(best_v, best_s);
    }
  }
}

bool LocalSearch::Repair(int64_t max_steps) {
  RepairForbidden();
  if (forbidden_ > 0) return false;
  for (int64_t step = 0; step < max_steps && !MemoryOk() && !Expired(); ++step) {
    const int p = profile_.FirstAbove(0, model_.num_points(), model_.limit);
    int best_v = -1, best_s = -1;
    bool best_clean = false;
    double best_score = 0;
    model_.ForEachSegmentAt(p, [&](int i) {
      const int v = model_.seg_var[i];
      const Model::Segment& seg = model_.segments[i];
      const Usage cur = model_.SegUsage(seg, x_[v]);
      if (cur == 0) return;
      for (int s = 0; s < model_.k[v]; ++s) {
        const Usage freed = cur - model_.SegUsage(seg, s);
        if (freed <= 0) continue;
        int64_t d;
        if (!Delta(v, s, d)) continue;
        // A change that pushes another (now fitting) point over the limit is a last resort.
        bool clean = true;
        for (int j = model_.seg_offset[v]; j < model_.seg_offset[v + 1] && clean; ++j) {
          const Model::Segment& sj = model_.segments[j];
          const Usage dj = model_.SegUsage(sj, s) - model_.SegUsage(sj, x_[v]);
          if (dj > 0 && profile_.Max(sj.lo, sj.hi) + dj > model_.limit) clean = false;
        }
        const double score = static_cast<double>(d) / static_cast<double>(freed);
        if (best_v < 0 || (clean && !best_clean) || (clean == best_clean && score < best_score)) {
          best_v = v, best_s = s, best_clean = clean, best_score = score;
        }
      }
    });
    if (best_v < 0) return false;
    Apply(best_v, best_s);
  }
  return Feasible();
}

bool LocalSearch::PathMove(std::mt19937_64& rng, int length, const std::vector<Cost>& guide,
                           int64_t& work) {
  const int V = model_.num_vars();
  if (V == 0) return false;
  // A random walk without revisits; edge[i] joins path[i - 1] and path[i].
  std::vector<int> path{static_cast<int>(rng() % V)}, edge{-1};
  std::vector<char> on(V, 0);
  on[path[0]] = 1;
  while (static_cast<int>(path.size()) < length) {
    const int v = path.back();
    std::vector<const Model::Incidence*> next;
    for (int i = model_.adj_offset[v]; i < model_.adj_offset[v + 1]; ++i) {
      if (!on[model_.adj[i].other]) next.push_back(&model_.adj[i]);
    }
    if (next.empty()) break;
    const Model::Incidence* inc = next[rng() % next.size()];
    path.push_back(inc->other);
    edge.push_back(inc->edge);
    on[inc->other] = 1;
  }
  const int n = static_cast<int>(path.size());
  if (n < 2) return false;
  constexpr int64_t kNone = std::numeric_limits<int64_t>::max() / 4;
  // f[i][s]: best guide cost of path[0..i] with path[i] = s; arg[i][s] the choice of path[i - 1].
  std::vector<std::vector<int64_t>> f(n);
  std::vector<std::vector<int>> arg(n);
  for (int i = 0; i < n; ++i) {
    const int v = path[i], kv = model_.k[v];
    std::vector<int64_t> unary(kv);
    for (int s = 0; s < kv; ++s) unary[s] = guide[model_.unary_offset[v] + s];
    // Edges to variables off the path (or to non-adjacent path variables) at their current values.
    for (int j = model_.adj_offset[v]; j < model_.adj_offset[v + 1]; ++j) {
      const Model::Incidence& inc = model_.adj[j];
      if (inc.edge == edge[i] || (i + 1 < n && inc.edge == edge[i + 1])) continue;
      const int o = x_[inc.other];
      for (int s = 0; s < kv; ++s) {
        const Cost c = model_.Pair(inc, s, o);
        unary[s] = unary[s] >= kNone || IsForbidden(c) ? kNone : unary[s] + c;
      }
    }
    f[i].assign(kv, kNone);
    arg[i].assign(kv, -1);
    if (i == 0) {
      f[0] = unary;
      continue;
    }
    const int u = path[i - 1], ku = model_.k[u];
    const Model::Edge& e = model_.edges[edge[i]];
    const bool u_first = e.u == u;
    for (int s = 0; s < kv; ++s) {
      if (unary[s] >= kNone) continue;
      for (int t = 0; t < ku; ++t) {
        if (f[i - 1][t] >= kNone) continue;
        const Cost c = u_first ? model_.pair[e.offset + static_cast<int64_t>(t) * model_.k[e.v] + s]
                               : model_.pair[e.offset + static_cast<int64_t>(s) * model_.k[e.v] + t];
        if (IsForbidden(c)) continue;
        const int64_t val = f[i - 1][t] + c + unary[s];
        if (val < f[i][s]) f[i][s] = val, arg[i][s] = t;
      }
    }
    work += static_cast<int64_t>(ku) * kv;
  }
  int best = -1;
  for (int s = 0; s < model_.k[path[n - 1]]; ++s) {
    if (f[n - 1][s] < kNone && (best < 0 || f[n - 1][s] < f[n - 1][best])) best = s;
  }
  if (best < 0) return false;
  std::vector<int> choice(n);
  choice[n - 1] = best;
  for (int i = n - 1; i > 0; --i) choice[i - 1] = arg[i][choice[i]];
  bool same = true;
  for (int i = 0; i < n && same; ++i) same = choice[i] == x_[path[i]];
  if (same) return false;
  // Keep it only if it fits and the true cost drops.
  const int64_t before = cost_;
  const bool was_journaling = journaling_;
  const size_t mark = journal_.size();
  journaling_ = true;
  for (int i = 0; i < n; ++i) Apply(path[i], choice[i]);
  bool ok = forbidden_ == 0 && cost_ < before;
  for (int i = 0; i < n && ok; ++i) ok = SegmentsFit(path[i]);
  if (!ok) {
    journaling_ = false;
    while (journal_.size() > mark) {
      auto [v, old] = journal_.back();
      journal_.pop_back();
      Apply(v, old);
    }
  }
  journaling_ = was_journaling;
  if (!was_journaling) journal_.resize(mark);
  return ok;
}

void LocalSearch::Kick(std::mt19937_64& rng, int count) {
  const int V = model_.num_vars();
  if (V == 0) return;
  std::vector<int> region;
  std::vector<char> seen(V, 0);
  std::deque<int> queue;
  int start = static_cast<int>(rng() % V);
  queue.push_back(start);
  seen[start] = 1;
  while (!queue.empty() && static_cast<int>(region.size()) < count) {
    int v = queue.front();
    queue.pop_front();
    region.push_back(v);
    for (int i = model_.adj_offset[v]; i < model_.adj_offset[v + 1]; ++i) {
      int o = model_.adj[i].other;
      if (!seen[o]) {
        seen[o] = 1;
        queue.push_back(o);
      }
    }
  }
  for (int v : region) {
    std::vector<int> options;
    for (int s = 0; s < model_.k[v]; ++s) {
      int64_t d;
      if (s != x_[v] && Delta(v, s, d)) options.push_back(s);
    }
    if (!options.empty()) Apply(v, options[rng() % options.size()]);
  }
}

}  // namespace spmdc::autoshard

// Presolve: Problem -> Model (model.h states the reductions and why each keeps the optimum).
#include <algorithm>
#include <numeric>

#include "absl/container/flat_hash_map.h"
#include "auto/model.h"

namespace spmdc::autoshard {
namespace {

// A memory term over the problem's own time steps [lower, upper).
struct WTerm {
  int64_t lower = 0, upper = 0;
  std::vector<Usage> usage;  // per current strategy
};

struct WVar {
  bool alive = true;
  std::vector<int32_t> dom;  // current strategy -> the node's strategy
  std::vector<Cost> cost;    // per current strategy
  std::vector<WTerm> terms;
  std::vector<int> edges;    // incident edges (dead ones are dropped lazily)
};

// Matrix over the current strategies of a and b, a-major.
struct WEdge {
  bool alive = true;
  int a = 0, b = 0;
  std::vector<Cost> m;
};

struct FixedTerm {
  int64_t lower = 0, upper = 0;
  Usage usage = 0;
};

uint64_t PairKey(int a, int b) {
  if (a > b) std::swap(a, b);
  return (static_cast<uint64_t>(a) << 32) | static_cast<uint32_t>(b);
}

// The time points of a set of intervals: the distinct lower bounds (the usage profile can only
// peak where something starts).
struct TimeAxis {
  std::vector<int64_t> points;
  void Build(std::vector<int64_t> lowers) {
    std::sort(lowers.begin(), lowers.end());
    lowers.erase(std::unique(lowers.begin(), lowers.end()), lowers.end());
    points = std::move(lowers);
  }
  // [first point >= lower, first point >= upper)
  std::pair<int, int> Range(int64_t lower, int64_t upper) const {
    int lo = static_cast<int>(std::lower_bound(points.begin(), points.end(), lower) - points.begin());
    int hi = static_cast<int>(std::lower_bound(points.begin(), points.end(), upper) - points.begin());
    return {lo, hi};
  }
};

}  // namespace

class Presolver {
 public:
  explicit Presolver(const Problem& p) : problem_(p) {}
  StatusOr<Presolved> Run();

 private:
  int K(int v) const { return static_cast<int>(vars_[v].cost.size()); }
  // Entry of edge e with variable v at s_v and the other end at s_o.
  Cost At(const WEdge& e, int v, int s_v, int s_o) const {
    return e.a == v ? e.m[static_cast<int64_t>(s_v) * K(e.b) + s_o]
                    : e.m[static_cast<int64_t>(s_o) * K(e.b) + s_v];
  }
  int Other(const WEdge& e, int v) const { return e.a == v ? e.b : e.a; }
  void CleanEdges(int v) {
    auto& es = vars_[v].edges;
    es.erase(std::remove_if(es.begin(), es.end(), [&](int e) { return !edges_[e].alive; }),
             es.end());
  }
  void AddEdge(int a, int b, std::vector<Cost> m);
  void KillEdge(int e) {
    edges_[e].alive = false;
    edge_index_.erase(PairKey(edges_[e].a, edges_[e].b));
    std::vector<Cost>().swap(edges_[e].m);
  }
  void RemoveStrategies(int v, const std::vector<char>& keep);
  Status ConsistencyAndFix(std::vector<int> work);
  void Fix(int v);
  void MemoryStep();
  void FoldAdditive();
  void Merges();
  void Merge(int u, int v, const std::vector<int>& f, int e);
  void Eliminate();
  void Dominance();
  Status BuildModel(Presolved& out);
  std::vector<int> AliveVars() const {
    std::vector<int> out;
    for (int v = 0; v < static_cast<int>(vars_.size()); ++v) {
      if (vars_[v].alive) out.push_back(v);
    }
    return out;
  }

  const Problem& problem_;
  std::vector<WVar> vars_;
  std::vector<WEdge> edges_;
  absl::flat_hash_map<uint64_t, int> edge_index_;
  std::vector<FixedTerm> fixed_;
  TotalCost offset_ = 0;
  Reconstruction rec_;
  PresolveStats stats_;
  bool changed_ = false;
};

void Presolver::AddEdge(int a, int b, std::vector<Cost> m) {
  if (a == b) {  // a self-loop is the diagonal
    const int k = K(a);
    for (int s = 0; s < k; ++s) {
      vars_[a].cost[s] = AddCost(vars_[a].cost[s], m[static_cast<int64_t>(s) * k + s]);
    }
    return;
  }
  auto it = edge_index_.find(PairKey(a, b));
  if (it != edge_index_.end()) {
    WEdge& e = edges_[it->second];
    if (e.a == a) {
      for (size_t i = 0; i < m.size(); ++i) e.m[i] = AddCost(e.m[i], m[i]);
    } else {
      const int ka = K(a), kb = K(b);
      for (int s = 0; s < ka; ++s) {
        for (int t = 0; t < kb; ++t) {
          Cost& dst = e.m[static_cast<int64_t>(t) * ka + s];
          dst = AddCost(dst, m[static_cast<int64_t>(s) * kb + t]);
        }
      }
    }
    return;
  }
  int id = static_cast<int>(edges_.size());
  edges_.push_back({true, a, b, std::move(m)});
  edge_index_[PairKey(a, b)] = id;
  vars_[a].edges.push_back(id);
  vars_[b].edges.push_back(id);
}

void Presolver::RemoveStrategies(int v, const std::vector<char>& keep) {
  WVar& var = vars_[v];
  const int k = K(v);
  std::vector<int> idx;
  for (int s = 0; s < k; ++s) {
    if (keep[s]) idx.push_back(s);
  }
  if (static_cast<int>(idx.size()) == k) return;
  changed_ = true;
  CleanEdges(v);
  for (int eid : var.edges) {
    WEdge& e = edges_[eid];
    const int ka = K(e.a), kb = K(e.b);
    std::vector<Cost> m;
    if (e.a == v) {
      m.reserve(idx.size() * kb);
      for (int s : idx) {
        m.insert(m.end(), e.m.begin() + static_cast<int64_t>(s) * kb,
                 e.m.begin() + static_cast<int64_t>(s + 1) * kb);
      }
    } else {
      m.reserve(static_cast<size_t>(ka) * idx.size());
      for (int r = 0; r < ka; ++r) {
        for (int s : idx) m.push_back(e.m[static_cast<int64_t>(r) * kb + s]);
      }
    }
    e.m = std::move(m);
  }
  auto compact = [&](auto& vec) {
    std::decay_t<decltype(vec)> out;
    out.reserve(idx.size());
    for (int s : idx) out.push_back(vec[s]);
    vec = std::move(out);
  };
  compact(var.dom);
  compact(var.cost);
  for (WTerm& t : var.terms) compact(t.usage);
}

void Presolver::Fix(int v) {
  WVar& var = vars_[v];
  offset_ += var.cost[0];
  for (const WTerm& t : var.terms) {
    if (t.usage[0] != 0) fixed_.push_back({t.lower, t.upper, t.usage[0]});
  }
  var.terms.clear();
  CleanEdges(v);
  for (int eid : var.edges) {
    WEdge& e = edges_[eid];
    int w = Other(e, v);
    for (int r = 0; r < K(w); ++r) vars_[w].cost[r] = AddCost(vars_[w].cost[r], At(e, v, 0, r));
    KillEdge(eid);
  }
  var.edges.clear();
  rec_.steps_.push_back({v, -1, -1, 0, {var.dom[0]}});
  var.alive = false;
  ++stats_.fixed;
  changed_ = true;
}

// Arc consistency: a strategy goes when its cost is forbidden or some incident edge forbids every
// strategy of the neighbour with it. Variables left with one strategy are fixed, which may make
// their neighbours' costs forbidden in turn.
Status Presolver::ConsistencyAndFix(std::vector<int> work) {
  std::vector<char> queued(vars_.size(), 0);
  for (int v : work) queued[v] = 1;
  while (!work.empty()) {
    int v = work.back();
    work.pop_back();
    queued[v] = 0;
    if (!vars_[v].alive) continue;
    CleanEdges(v);
    const int k = K(v);
    std::vector<char> keep(k, 1);
    for (int s = 0; s < k; ++s) keep[s] = !IsForbidden(vars_[v].cost[s]);
    for (int eid : vars_[v].edges) {
      const WEdge& e = edges_[eid];
      const int ko = K(Other(e, v));
      for (int s = 0; s < k; ++s) {
        if (!keep[s]) continue;
        bool any = false;
        for (int r = 0; r < ko && !any; ++r) any = !IsForbidden(At(e, v, s, r));
        keep[s] = any;
      }
    }
    int left = static_cast<int>(std::count(keep.begin(), keep.end(), 1));
    if (left == 0) {
      return InvalidArgument(
          "every solution makes a forbidden choice: node {} has no strategy left that avoids "
          "forbidden costs (>= 1e18)",
          v);
    }
    bool removed = left < k;
    if (removed) {
      stats_.inconsistent += k - left;
      RemoveStrategies(v, keep);
    }
    std::vector<int> neighbours;
    for (int eid : vars_[v].edges) neighbours.push_back(Other(edges_[eid], v));
    if (K(v) == 1) Fix(v);
    if (removed || !vars_[v].alive) {
      for (int w : neighbours) {
        if (!queued[w] && vars_[w].alive) {
          queued[w] = 1;
          work.push_back(w);
        }
      }
    }
  }
  return absl::OkStatus();
}

// Minimum usages become fixed terms; terms that cannot reach a time point where the limit could be
// exceeded are dropped (the point analysis is redone by BuildModel on what is left).
void Presolver::MemoryStep() {
  for (int v : AliveVars()) {
    auto& terms = vars_[v].terms;
    for (WTerm& t : terms) {
      Usage mn = *std::min_element(t.usage.begin(), t.usage.end());
      if (mn != 0) {
        fixed_.push_back({t.lower, t.upper, mn});
        for (Usage& u : t.usage) u -= mn;
      }
    }
    terms.erase(std::remove_if(terms.begin(), terms.end(),
                               [](const WTerm& t) {
                                 return t.lower >= t.upper ||
                                        std::all_of(t.usage.begin(), t.usage.end(),
                                                    [](Usage u) { return u == 0; });
                               }),
                terms.end());
  }
  fixed_.erase(std::remove_if(fixed_.begin(), fixed_.end(),
                              [](const FixedTerm& f) { return f.lower >= f.upper || f.usage == 0; }),
               fixed_.end());
  if (!problem_.usage_limit) {
    for (int v : AliveVars()) {
      if (!vars_[v].terms.empty()) changed_ = true;
      vars_[v].terms.clear();
    }
    return;
  }
  const Usage limit = *problem_.usage_limit;
  std::vector<int64_t> lowers;
  for (const FixedTerm& f : fixed_) lowers.push_back(f.lower);
  for (int v : AliveVars()) {
    for (const WTerm& t : vars_[v].terms) lowers.push_back(t.lower);
  }
  TimeAxis axis;
  axis.Build(std::move(lowers));
  const int P = static_cast<int>(axis.points.size());
  std::vector<absl::int128> load(P + 1, 0);
  std::vector<char> end_after(P, 0);  // some interval ends in (t_j, t_j+1]
  bool nonnegative = true;
  auto add = [&](int64_t lower, int64_t upper, Usage u) {
    auto [lo, hi] = axis.Range(lower, upper);
    load[lo] += u;
    load[hi] -= u;
    if (hi > 0) end_after[hi - 1] = 1;
  };
  for (const FixedTerm& f : fixed_) {
    add(f.lower, f.upper, f.usage);
    if (f.usage < 0) nonnegative = false;
  }
  for (int v : AliveVars()) {
    for (const WTerm& t : vars_[v].terms) {
      add(t.lower, t.upper, *std::max_element(t.usage.begin(), t.usage.end()));
    }
  }
  std::vector<int> kept_prefix(P + 1, 0);
  absl::int128 run = 0;
  for (int j = 0; j < P; ++j) {
    run += load[j];
    bool dominated = nonnegative && !end_after[j] && j + 1 < P;
    kept_prefix[j + 1] = kept_prefix[j] + (run > limit && !dominated ? 1 : 0);
  }
  for (int v : AliveVars()) {
    auto& terms = vars_[v].terms;
    size_t before = terms.size();
    terms.erase(std::remove_if(terms.begin(), terms.end(),
                               [&](const WTerm& t) {
                                 auto [lo, hi] = axis.Range(t.lower, t.upper);
                                 return kept_prefix[hi] == kept_prefix[lo];
                               }),
                terms.end());
    if (terms.size() != before) changed_ = true;
  }
}

// An edge whose matrix is r[s] + c[t] (no forbidden entry) is two node costs.
void Presolver::FoldAdditive() {
  for (int eid = 0; eid < static_cast<int>(edges_.size()); ++eid) {
    WEdge& e = edges_[eid];
    if (!e.alive) continue;
    const int ka = K(e.a), kb = K(e.b);
    bool additive = true;
    for (int64_t i = 0; i < static_cast<int64_t>(e.m.size()) && additive; ++i) {
      additive = !IsForbidden(e.m[i]);
    }
    for (int s = 1; s < ka && additive; ++s) {
      const Cost d = e.m[static_cast<int64_t>(s) * kb] - e.m[0];
      for (int t = 1; t < kb && additive; ++t) {
        additive = e.m[static_cast<int64_t>(s) * kb + t] - e.m[t] == d;
      }
    }
    if (!additive) continue;
    for (int s = 0; s < ka; ++s) {
      vars_[e.a].cost[s] = AddCost(vars_[e.a].cost[s], e.m[static_cast<int64_t>(s) * kb]);
    }
    for (int t = 0; t < kb; ++t) {
      vars_[e.b].cost[t] = AddCost(vars_[e.b].cost[t], e.m[t] - e.m[0]);
    }
    KillEdge(eid);
    ++stats_.folded;
    changed_ = true;
  }
}

// u's strategy is f[v's strategy]: u's cost, memory and edges move onto v.
void Presolver::Merge(int u, int v, const std::vector<int>& f, int e_uv) {
  WVar& U = vars_[u];
  const int kv = K(v);
  const WEdge& e = edges_[e_uv];
  for (int t = 0; t < kv; ++t) {
    vars_[v].cost[t] = AddCost(vars_[v].cost[t], AddCost(U.cost[f[t]], At(e, v, t, f[t])));
  }
  for (WTerm& term : U.terms) {
    WTerm moved{term.lower, term.upper, std::vector<Usage>(kv)};
    for (int t = 0; t < kv; ++t) moved.usage[t] = term.usage[f[t]];
    vars_[v].terms.push_back(std::move(moved));
  }
  U.terms.clear();
  Reconstruction::Step step{u, v, -1, 0,
                            std::vector<int32_t>(problem_.nodes[v].costs.size(), -1)};
  for (int t = 0; t < kv; ++t) step.map[vars_[v].dom[t]] = U.dom[f[t]];
  rec_.steps_.push_back(std::move(step));
  KillEdge(e_uv);
  CleanEdges(u);
  std::vector<int> u_edges = U.edges;
  for (int eid : u_edges) {
    const WEdge& eo = edges_[eid];
    const int w = Other(eo, u);
    const int kw = K(w);
    std::vector<Cost> m(static_cast<size_t>(kv) * kw);
    for (int t = 0; t < kv; ++t) {
      for (int r = 0; r < kw; ++r) m[static_cast<int64_t>(t) * kw + r] = At(eo, u, f[t], r);
    }
    KillEdge(eid);
    AddEdge(v, w, std::move(m));
  }
  U.edges.clear();
  U.alive = false;
  ++stats_.merged;
  changed_ = true;
}

void Presolver::Merges() {
  for (int eid = 0; eid < static_cast<int>(edges_.size()); ++eid) {
    if (!edges_[eid].alive) continue;
    const WEdge& e = edges_[eid];
    const int a = e.a, b = e.b, ka = K(a), kb = K(b);
    // col_of[t]: the one finite s of column t (-1 none, -2 several); row_of likewise.
    std::vector<int> col_of(kb, -1), row_of(ka, -1);
    for (int s = 0; s < ka; ++s) {
      for (int t = 0; t < kb; ++t) {
        if (IsForbidden(e.m[static_cast<int64_t>(s) * kb + t])) continue;
        col_of[t] = col_of[t] == -1 ? s : -2;
        row_of[s] = row_of[s] == -1 ? t : -2;
      }
    }
    bool a_of_b = std::all_of(col_of.begin(), col_of.end(), [](int x) { return x >= 0; });
    bool b_of_a = std::all_of(row_of.begin(), row_of.end(), [](int x) { return x >= 0; });
    if (!a_of_b && !b_of_a) continue;
    // With a bijection, keep the variable with more edges (fewer edges to rewire).
    CleanEdges(a);
    CleanEdges(b);
    if (a_of_b && b_of_a) {
      if (vars_[a].edges.size() + vars_[a].terms.size() > vars_[b].edges.size() + vars_[b].terms.size()) {
        a_of_b = false;
      } else {
        b_of_a = false;
      }
    }
    if (a_of_b) {
      Merge(a, b, col_of, eid);
    } else {
      Merge(b, a, row_of, eid);
    }
  }
}

// Variables without memory and with at most two neighbours are eliminated exactly.
void Presolver::Eliminate() {
  for (int v : AliveVars()) {
    WVar& var = vars_[v];
    if (!var.alive || !var.terms.empty()) continue;
    CleanEdges(v);
    const int k = K(v);
    if (var.edges.empty()) {
      int best = static_cast<int>(std::min_element(var.cost.begin(), var.cost.end()) - var.cost.begin());
      offset_ += var.cost[best];
      rec_.steps_.push_back({v, -1, -1, 0, {var.dom[best]}});
      var.alive = false;
      ++stats_.eliminated;
      changed_ = true;
    } else if (var.edges.size() == 1) {
      const int eid = var.edges[0];
      const WEdge& e = edges_[eid];
      const int w = Other(e, v), kw = K(w);
      Reconstruction::Step step{v, w, -1, 0,
                                std::vector<int32_t>(problem_.nodes[w].costs.size(), -1)};
      for (int r = 0; r < kw; ++r) {
        Cost best = kForbiddenCost;
        int arg = 0;
        for (int s = 0; s < k; ++s) {
          Cost c = AddCost(var.cost[s], At(e, v, s, r));
          if (c < best) best = c, arg = s;
        }
        vars_[w].cost[r] = AddCost(vars_[w].cost[r], best);
        step.map[vars_[w].dom[r]] = var.dom[arg];
      }
      rec_.steps_.push_back(std::move(step));
      KillEdge(eid);
      var.edges.clear();
      var.alive = false;
      ++stats_.eliminated;
      changed_ = true;
    } else if (var.edges.size() == 2) {
      const WEdge& e1 = edges_[var.edges[0]];
      const WEdge& e2 = edges_[var.edges[1]];
      const int w1 = Other(e1, v), w2 = Other(e2, v);
      const int k1 = K(w1), k2 = K(w2);
      const int64_t o1 = problem_.nodes[w1].costs.size(), o2 = problem_.nodes[w2].costs.size();
      if (o1 * o2 > (1 << 16) || static_cast<int64_t>(k1) * k2 > 4 * k * (k1 + k2) + 256) continue;
      Reconstruction::Step step{v, w1, w2, static_cast<int>(o2), std::vector<int32_t>(o1 * o2, -1)};
      std::vector<Cost> m(static_cast<size_t>(k1) * k2);
      for (int r1 = 0; r1 < k1; ++r1) {
        for (int r2 = 0; r2 < k2; ++r2) {
          Cost best = kForbiddenCost;
          int arg = 0;
          for (int s = 0; s < k; ++s) {
            Cost c = AddCost(AddCost(var.cost[s], At(e1, v, s, r1)), At(e2, v, s, r2));
            if (c < best) best = c, arg = s;
          }
          m[static_cast<int64_t>(r1) * k2 + r2] = best;
          step.map[vars_[w1].dom[r1] * o2 + vars_[w2].dom[r2]] = var.dom[arg];
        }
      }
      rec_.steps_.push_back(std::move(step));
      int id1 = var.edges[0], id2 = var.edges[1];
      KillEdge(id1);
      KillEdge(id2);
      var.edges.clear();
      var.alive = false;
      AddEdge(w1, w2, std::move(m));
      ++stats_.eliminated;
      changed_ = true;
    }
  }
}

// p goes when some q is no worse in cost, memory and every incident edge entry (ties: lower
// index wins, so the relation is a strict order and a dominator always survives).
void Presolver::Dominance() {
  for (int v : AliveVars()) {
    const int k = K(v);
    if (k < 2 || k > 1024) continue;
    const WVar& var = vars_[v];
    CleanEdges(v);
    // Pairs of strategies times the entries compared per pair: skip hubs where this explodes.
    int64_t row = static_cast<int64_t>(var.terms.size());
    for (int eid : var.edges) row += K(Other(edges_[eid], v));
    if (static_cast<int64_t>(k) * k * row > 50'000'000) continue;
    std::vector<char> keep(k, 1);
    for (int p = 0; p < k; ++p) {
      for (int q = 0; q < k && keep[p]; ++q) {
        if (q == p || var.cost[q] > var.cost[p]) continue;
        bool strict = var.cost[q] < var.cost[p] || q < p;
        bool ok = true;
        for (const WTerm& t : var.terms) {
          if (t.usage[q] > t.usage[p]) {
            ok = false;
            break;
          }
          strict |= t.usage[q] < t.usage[p];
        }
        for (size_t i = 0; i < var.edges.size() && ok; ++i) {
          const WEdge& e = edges_[var.edges[i]];
          const int ko = K(Other(e, v));
          for (int r = 0; r < ko; ++r) {
            Cost cq = At(e, v, q, r), cp = At(e, v, p, r);
            if (cq > cp) {
              ok = false;
              break;
            }
            strict |= cq < cp;
          }
        }
        if (ok && strict) keep[p] = 0;
      }
    }
    int left = static_cast<int>(std::count(keep.begin(), keep.end(), 1));
    if (left < k) {
      stats_.dominated += k - left;
      RemoveStrategies(v, keep);
    }
  }
}

StatusOr<Presolved> Presolver::Run() {
  RETURN_IF_ERROR(CheckProblem(problem_));
  const int64_t n = static_cast<int64_t>(problem_.nodes.size());
  if (n >= (int64_t{1} << 31)) return Unimplemented("{} nodes: at most 2^31 are supported", n);
  stats_.nodes = n;
  stats_.edges = static_cast<int64_t>(problem_.edges.size());
  vars_.resize(n);
  for (int64_t i = 0; i < n; ++i) {
    const ProblemNode& node = problem_.nodes[i];
    WVar& var = vars_[i];
    const int k = static_cast<int>(node.costs.size());
    stats_.strategies += k;
    var.dom.resize(k);
    std::iota(var.dom.begin(), var.dom.end(), 0);
    var.cost.resize(k);
    for (int s = 0; s < k; ++s) var.cost[s] = AddCost(node.costs[s], 0);
    if (node.lower < node.upper) var.terms.push_back({node.lower, node.upper, node.usages});
    for (const auto& [lower, upper] : node.extra_intervals)
      if (lower < upper) var.terms.push_back({lower, upper, node.usages});
  }
  for (size_t k = 0; k < problem_.edges.size(); ++k) {
    const ProblemEdge& edge = problem_.edges[k];
    if (edge.nodes.size() > 2) {
      return Unimplemented("edge {} joins {} nodes: the solver supports edges over one or two", k,
                           edge.nodes.size());
    }
    if (edge.nodes.empty()) {
      if (IsForbidden(edge.costs[0])) {
        return InvalidArgument("every solution makes a forbidden choice: edge {} has no nodes "
                               "and a forbidden cost", k);
      }
      offset_ += edge.costs[0];
    } else if (edge.nodes.size() == 1) {
      WVar& var = vars_[edge.nodes[0]];
      for (size_t s = 0; s < var.cost.size(); ++s) var.cost[s] = AddCost(var.cost[s], edge.costs[s]);
    } else {
      std::vector<Cost> m(edge.costs.size());
      for (size_t i = 0; i < m.size(); ++i) m[i] = AddCost(edge.costs[i], 0);
      AddEdge(static_cast<int>(edge.nodes[0]), static_cast<int>(edge.nodes[1]), std::move(m));
    }
  }
  std::vector<int> all(n);
  std::iota(all.begin(), all.end(), 0);
  RETURN_IF_ERROR(ConsistencyAndFix(all));
  for (stats_.rounds = 1; stats_.rounds <= 30; ++stats_.rounds) {
    changed_ = false;
    MemoryStep();
    FoldAdditive();
    Merges();
    RETURN_IF_ERROR(ConsistencyAndFix(AliveVars()));
    Eliminate();
    Dominance();
    RETURN_IF_ERROR(ConsistencyAndFix(AliveVars()));
    if (!changed_) break;
  }
  MemoryStep();
  Presolved out;
  RETURN_IF_ERROR(BuildModel(out));
  return out;
}

Status Presolver::BuildModel(Presolved& out) {
  Model& m = out.model;
  const std::vector<int> alive = AliveVars();
  std::vector<int> index(vars_.size(), -1);
  for (size_t i = 0; i < alive.size(); ++i) index[alive[i]] = static_cast<int>(i);
  // Time points: as in MemoryStep, now keeping the binding, undominated ones.
  std::vector<int64_t> lowers;
  for (const FixedTerm& f : fixed_) lowers.push_back(f.lower);
  for (int v : alive) {
    for (const WTerm& t : vars_[v].terms) lowers.push_back(t.lower);
  }
  TimeAxis axis;
  axis.Build(std::move(lowers));
  const int P = static_cast<int>(axis.points.size());
  std::vector<absl::int128> fixed_load(P + 1, 0), max_load(P + 1, 0);
  std::vector<char> end_after(P, 0);
  bool nonnegative = true;
  for (const FixedTerm& f : fixed_) {
    auto [lo, hi] = axis.Range(f.lower, f.upper);
    fixed_load[lo] += f.usage;
    fixed_load[hi] -= f.usage;
    if (hi > 0) end_after[hi - 1] = 1;
    if (f.usage < 0) nonnegative = false;
  }
  max_load = fixed_load;
  for (int v : alive) {
    for (const WTerm& t : vars_[v].terms) {
      auto [lo, hi] = axis.Range(t.lower, t.upper);
      Usage mx = *std::max_element(t.usage.begin(), t.usage.end());
      max_load[lo] += mx;
      max_load[hi] -= mx;
      if (hi > 0) end_after[hi - 1] = 1;
    }
  }
  std::vector<int> point_index(P + 1, 0);  // kept points before j
  std::vector<Usage> baseline;
  absl::int128 fixed_run = 0, max_run = 0;
  const bool has_limit = problem_.usage_limit.has_value();
  const Usage limit = problem_.usage_limit.value_or(0);
  for (int j = 0; j < P; ++j) {
    fixed_run += fixed_load[j];
    max_run += max_load[j];
    if (has_limit && fixed_run > limit) {
      return absl::ResourceExhaustedError(fmt::format(
          "no solution fits in the usage limit {}: at time {} the usage no choice avoids is "
          "already {}",
          limit, axis.points[j], Int128ToString(fixed_run)));
    }
    bool dominated = nonnegative && !end_after[j] && j + 1 < P;
    bool kept = has_limit && max_run > limit && !dominated;
    point_index[j + 1] = point_index[j] + (kept ? 1 : 0);
    if (kept) baseline.push_back(static_cast<Usage>(fixed_run));
  }
  m.baseline = std::move(baseline);
  m.has_limit = has_limit;
  m.limit = limit;
  m.offset = offset_;
  // Variables, unary costs and segments.
  const int V = static_cast<int>(alive.size());
  m.k.resize(V);
  m.unary_offset.assign(V + 1, 0);
  m.seg_offset.assign(V + 1, 0);
  rec_.num_nodes_ = static_cast<int64_t>(problem_.nodes.size());
  rec_.var_node_ = alive;
  rec_.var_dom_.resize(V);
  for (int i = 0; i < V; ++i) {
    const WVar& var = vars_[alive[i]];
    const int k = K(alive[i]);
    m.k[i] = k;
    m.unary.insert(m.unary.end(), var.cost.begin(), var.cost.end());
    m.unary_offset[i + 1] = static_cast<int64_t>(m.unary.size());
    rec_.var_dom_[i] = var.dom;
    // Disjoint segments: cut the terms' kept-point ranges at every boundary, sum per piece.
    std::vector<std::pair<int, int>> ranges;
    std::vector<int> cuts;
    for (const WTerm& t : var.terms) {
      auto [lo, hi] = axis.Range(t.lower, t.upper);
      int a = point_index[lo], b = point_index[hi];
      ranges.push_back({a, b});
      if (a < b) {
        cuts.push_back(a);
        cuts.push_back(b);
      }
    }
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    std::vector<Usage> prev;
    for (size_t c = 0; c + 1 < cuts.size(); ++c) {
      const int a = cuts[c], b = cuts[c + 1];
      std::vector<Usage> sum(k, 0);
      bool any = false;
      for (size_t t = 0; t < var.terms.size(); ++t) {
        if (ranges[t].first <= a && b <= ranges[t].second) {
          any = true;
          for (int s = 0; s < k; ++s) sum[s] += var.terms[t].usage[s];
        }
      }
      if (!any) {
        prev.clear();
        continue;
      }
      Usage mn = *std::min_element(sum.begin(), sum.end());
      for (Usage& u : sum) u -= mn;
      for (int p = a; p < b; ++p) m.baseline[p] += mn;
      if (std::all_of(sum.begin(), sum.end(), [](Usage u) { return u == 0; })) {
        prev.clear();
        continue;
      }
      if (!prev.empty() && prev == sum && m.segments.back().hi == a &&
          static_cast<int>(m.segments.size()) > m.seg_offset[i]) {
        m.segments.back().hi = b;  // the same usage continues
        continue;
      }
      m.segments.push_back({a, b, static_cast<int64_t>(m.seg_usage.size())});
      m.seg_usage.insert(m.seg_usage.end(), sum.begin(), sum.end());
      prev = std::move(sum);
    }
    m.seg_offset[i + 1] = static_cast<int>(m.segments.size());
  }
  // Edges and adjacency.
  std::vector<std::vector<Model::Incidence>> adj(V);
  for (size_t eid = 0; eid < edges_.size(); ++eid) {
    const WEdge& e = edges_[eid];
    if (!e.alive) continue;
    const int u = index[e.a], v = index[e.b];
    const int id = static_cast<int>(m.edges.size());
    m.edges.push_back({u, v, static_cast<int64_t>(m.pair.size())});
    m.pair.insert(m.pair.end(), e.m.begin(), e.m.end());
    adj[u].push_back({id, v, true});
    adj[v].push_back({id, u, false});
  }
  m.adj_offset.assign(V + 1, 0);
  for (int i = 0; i < V; ++i) {
    m.adj.insert(m.adj.end(), adj[i].begin(), adj[i].end());
    m.adj_offset[i + 1] = static_cast<int>(m.adj.size());
  }
  m.BuildIndex();
  // The search sums costs in 64 bits: every assignment's cost must fit with room to spare.
  absl::int128 worst = 0;
  for (int v = 0; v < V; ++v) {
    Cost mx = 0;
    for (int s = 0; s < m.k[v]; ++s) mx = std::max(mx, std::abs(m.Unary(v, s)));
    worst += mx;
  }
  for (const Model::Edge& e : m.edges) {
    Cost mx = 0;
    for (int64_t i = 0; i < static_cast<int64_t>(m.k[e.u]) * m.k[e.v]; ++i) {
      const Cost c = m.pair[e.offset + i];
      if (!IsForbidden(c)) mx = std::max(mx, std::abs(c));
    }
    worst += mx;
  }
  if (worst > (absl::int128(1) << 62)) {
    return Unimplemented("the costs of one assignment can reach {}: the solver needs them below 2^62",
                         Int128ToString(worst));
  }
  stats_.vars = V;
  stats_.model_edges = static_cast<int64_t>(m.edges.size());
  stats_.model_strategies = static_cast<int64_t>(m.unary.size());
  stats_.pair_entries = static_cast<int64_t>(m.pair.size());
  stats_.points = m.num_points();
  stats_.segments = static_cast<int64_t>(m.segments.size());
  out.reconstruction = std::move(rec_);
  out.stats = stats_;
  return absl::OkStatus();
}

StatusOr<Presolved> Presolve(const Problem& problem) { return Presolver(problem).Run(); }

}  // namespace spmdc::autoshard

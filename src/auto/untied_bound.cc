#include "auto/untied_bound.h"

#include <algorithm>
#include <cmath>

#include "auto/dual.h"
#include "fmt/format.h"

namespace spmdc::autoshard {
namespace {

constexpr double kScale = static_cast<double>(int64_t{1} << kLambdaScaleBits);
// Message passing at one multiplier stops when a round of passes gains less than this fraction of
// the bound, or after this many rounds (from scratch / while searching the multiplier).
constexpr double kConverged = 2e-4;
constexpr int kMaxRounds = 30;
constexpr int kSearchRounds = 3;
constexpr int kGoldenSections = 8;

absl::int128 FloorDiv(absl::int128 a, absl::int128 b) {
  absl::int128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t Fixed(double lambda) { return static_cast<int64_t>(std::llround(lambda * kScale)); }

}  // namespace

TiedModel BuildTiedModel(const StrategySpace& space, int64_t memory_limit) {
  TiedModel t;
  Model& m = t.model;
  const Ties& ties = space.ties;
  const int V = ties.num_vars;
  for (const StrategyNode& n : space.nodes)
    if (n.lower < n.upper) t.points.push_back(n.lower);
  std::sort(t.points.begin(), t.points.end());
  t.points.erase(std::unique(t.points.begin(), t.points.end()), t.points.end());
  auto point = [&](int64_t time) {
    return static_cast<int>(std::lower_bound(t.points.begin(), t.points.end(), time) - t.points.begin());
  };
  // Unary: the nodes' costs, then the self kinds' diagonals.
  m.k.resize(V);
  m.unary_offset.assign(V + 1, 0);
  for (int v = 0; v < V; ++v) {
    const StrategyList& list = space.nodes[ties.first[v]].strategies;
    m.k[v] = static_cast<int>(list.size());
    for (const Strategy& s : list)
      m.unary.push_back(RepeatedCost(ties.count[v], PicosecondsOf(s.compute_seconds + s.communication_seconds)));
    m.unary_offset[v + 1] = static_cast<int64_t>(m.unary.size());
  }
  t.kinds = space.EdgeKinds();
  std::vector<std::vector<Model::Incidence>> adj(V);
  for (int kind = 0; kind < static_cast<int>(t.kinds.size()); ++kind) {
    const EdgeKind& ek = t.kinds[kind];
    const int64_t count = static_cast<int64_t>(ek.instances.size());
    const std::vector<double>& r = *ek.seconds;
    if (ek.self()) {
      const int v = ek.producer_var, k = m.k[v];
      for (int s = 0; s < k; ++s) {
        Cost& u = m.unary[m.unary_offset[v] + s];
        u = AddSpaceCost(u, RepeatedCost(count, PicosecondsOf(r[static_cast<int64_t>(s) * k + s])));
      }
      continue;
    }
    const int id = static_cast<int>(m.edges.size());
    m.edges.push_back({ek.producer_var, ek.consumer_var, static_cast<int64_t>(m.pair.size())});
    for (double x : r) m.pair.push_back(RepeatedCost(count, PicosecondsOf(x)));
    adj[ek.producer_var].push_back({id, ek.consumer_var, true});
    adj[ek.consumer_var].push_back({id, ek.producer_var, false});
    t.kind_of_edge.push_back(kind);
  }
  m.adj_offset.assign(V + 1, 0);
  for (int v = 0; v < V; ++v) {
    m.adj.insert(m.adj.end(), adj[v].begin(), adj[v].end());
    m.adj_offset[v + 1] = static_cast<int>(m.adj.size());
  }
  // Memory: per variable, its nodes' point ranges cut into disjoint pieces, each using the usage
  // times the number of nodes live there.
  std::vector<std::vector<int>> nodes_of(V);
  for (int i = 0; i < static_cast<int>(space.nodes.size()); ++i) nodes_of[ties.var_of[i]].push_back(i);
  m.seg_offset.assign(V + 1, 0);
  std::vector<std::pair<int, int>> events;
  for (int v = 0; v < V; ++v) {
    events.clear();
    for (int i : nodes_of[v]) {
      const int lo = point(space.nodes[i].lower), hi = point(space.nodes[i].upper);
      if (lo >= hi) continue;
      events.push_back({lo, 1});
      events.push_back({hi, -1});
    }
    std::sort(events.begin(), events.end());
    const StrategyList& list = space.nodes[ties.first[v]].strategies;
    int live = 0, last_live = 0;
    for (size_t e = 0; e < events.size();) {
      const int at = events[e].first;
      for (; e < events.size() && events[e].first == at; ++e) live += events[e].second;
      if (live == 0 || e == events.size()) {
        last_live = 0;
        continue;
      }
      const int next = events[e].first;
      if (live == last_live && m.segments.back().hi == at) {
        m.segments.back().hi = next;  // as many nodes live as just before: the same usages
        continue;
      }
      last_live = live;
      m.segments.push_back({at, next, static_cast<int64_t>(m.seg_usage.size())});
      for (const Strategy& s : list) m.seg_usage.push_back(live * s.bytes);
    }
    m.seg_offset[v + 1] = static_cast<int>(m.segments.size());
  }
  m.baseline.assign(t.points.size(), 0);
  m.has_limit = true;
  m.limit = memory_limit;
  m.offset = 0;
  m.BuildIndex();
  return t;
}

namespace {

// The untied problem's Lagrangian bound for fixed multipliers and T's messages (header), in exact
// arithmetic, with the per-node minimisers.
class UntiedDual {
 public:
  UntiedDual(const StrategySpace& space, const TiedModel& tied) : space_(space), tied_(tied), m_(tied.model) {
    const int N = static_cast<int>(space.nodes.size());
    const int V = m_.num_vars();
    // Per variable: its strategies' costs per node and usages.
    cost_offset_.assign(V + 1, 0);
    for (int v = 0; v < V; ++v) {
      for (const Strategy& s : space.nodes[space.ties.first[v]].strategies) {
        node_cost_.push_back(PicosecondsOf(s.compute_seconds + s.communication_seconds));
        usage_.push_back(s.bytes);
      }
      cost_offset_[v + 1] = static_cast<int64_t>(node_cost_.size());
    }
    // Per node: its point range and its incidences.
    range_.resize(N);
    for (int i = 0; i < N; ++i) {
      auto point = [&](int64_t time) {
        return static_cast<int>(std::lower_bound(tied.points.begin(), tied.points.end(), time) - tied.points.begin());
      };
      range_[i] = {point(space.nodes[i].lower), point(space.nodes[i].upper)};
    }
    std::vector<std::vector<Incidence>> inc(N);
    count_.resize(m_.edges.size());
    for (int e = 0; e < static_cast<int>(m_.edges.size()); ++e) {
      const EdgeKind& kind = tied.kinds[tied.kind_of_edge[e]];
      count_[e] = static_cast<int64_t>(kind.instances.size());
      for (int idx : kind.instances) {
        inc[space.edges[idx].producer].push_back({e, true, false});
        inc[space.edges[idx].consumer].push_back({e, false, false});
      }
    }
    // Self kinds: the diagonal per strategy, and the kind's edge term for each choice of messages
    // (none: n min R; half the diagonal at each end: n min (R(s,t) - d(s)/2 - d(t)/2)), in units of
    // 1 / 2^kLambdaScaleBits.
    const absl::int128 D = absl::int128(1) << kLambdaScaleBits;
    for (int kind = 0; kind < static_cast<int>(tied.kinds.size()); ++kind) {
      const EdgeKind& ek = tied.kinds[kind];
      if (!ek.self()) continue;
      const int v = ek.producer_var, k = m_.k[v];
      const std::vector<double>& r = *ek.seconds;
      SelfKind sk;
      sk.diag_offset = static_cast<int64_t>(diag_.size());
      // A forbidden diagonal entry (a pending partial sum) passes no message: any finite
      // reparameterisation is valid, an infinite one is not.
      for (int s = 0; s < k; ++s) {
        const Cost d = PicosecondsOf(r[static_cast<int64_t>(s) * k + s]);
        diag_.push_back(IsForbidden(d) ? 0 : d);
      }
      Cost plain = kForbiddenCost;
      absl::int128 split = 0;
      bool any = false;
      for (int s = 0; s < k; ++s)
        for (int t = 0; t < k; ++t) {
          const Cost c = PicosecondsOf(r[static_cast<int64_t>(s) * k + t]);
          if (IsForbidden(c)) continue;  // infinite: never an edge term's minimum
          plain = std::min(plain, c);
          const absl::int128 x = 2 * absl::int128(c) - diag_[sk.diag_offset + s] - diag_[sk.diag_offset + t];
          if (!any || x < split) split = x, any = true;
        }
      const int64_t n = static_cast<int64_t>(ek.instances.size());
      self_plain_ += D * plain * n;
      self_split_ += D / 2 * split * n;
      const int id = static_cast<int>(self_.size());
      self_.push_back(sk);
      for (int idx : ek.instances) {
        inc[space.edges[idx].producer].push_back({id, true, true});
        inc[space.edges[idx].consumer].push_back({id, false, true});
      }
    }
    inc_offset_.assign(N + 1, 0);
    for (int i = 0; i < N; ++i) {
      inc_.insert(inc_.end(), inc[i].begin(), inc[i].end());
      inc_offset_[i + 1] = static_cast<int64_t>(inc_.size());
    }
    msg_offset_.assign(m_.edges.size() + 1, 0);
    for (size_t e = 0; e < m_.edges.size(); ++e)
      msg_offset_[e + 1] = msg_offset_[e] + m_.k[m_.edges[e].u] + m_.k[m_.edges[e].v];
    mu_.assign(msg_offset_.back(), 0);
  }

  // The bound for `lambda` (per model point, fixed point) and `dual`'s messages; fills `x` with
  // the per-node minimisers of the better message choice.
  TotalCost Evaluate(const DualSolver& dual, const FixedLambda& lambda, std::vector<int>& x, bool& split_kept) {
    const absl::int128 D = absl::int128(1) << kLambdaScaleBits;
    const int N = static_cast<int>(space_.nodes.size());
    // Each instance's share of the kind's messages.
    for (int e = 0; e < static_cast<int>(m_.edges.size()); ++e) {
      const Model::Edge& ed = m_.edges[e];
      const double* mu = dual.Messages(e, true);
      const double* mv = dual.Messages(e, false);
      absl::int128* out = &mu_[msg_offset_[e]];
      for (int s = 0; s < m_.k[ed.u]; ++s) out[s] = FloorDiv(absl::int128(static_cast<long double>(mu[s]) * kScale), count_[e]);
      for (int t = 0; t < m_.k[ed.v]; ++t)
        out[m_.k[ed.u] + t] = FloorDiv(absl::int128(static_cast<long double>(mv[t]) * kScale), count_[e]);
    }
    // Edge terms: n min_(s,t) (D R - mu_u(s) - mu_v(t)), R = one instance's cost (the kind's
    // matrix over n, rounded down: never more than an instance's own cost).
    absl::int128 total = 0;
    std::vector<absl::int128> col;
    for (int e = 0; e < static_cast<int>(m_.edges.size()); ++e) {
      const Model::Edge& ed = m_.edges[e];
      const int ku = m_.k[ed.u], kv = m_.k[ed.v];
      const absl::int128* mu = &mu_[msg_offset_[e]];
      const absl::int128* mv = mu + ku;
      const int64_t n = count_[e];
      absl::int128 best = 0;
      bool any = false;
      for (int s = 0; s < ku; ++s) {
        const Cost* row = &m_.pair[ed.offset + static_cast<int64_t>(s) * kv];
        // Row minimum in 64 bits first where the messages allow (they are small against D R).
        for (int t = 0; t < kv; ++t) {
          // A forbidden pair is infinite in every instance (the kind's entry is not n times it).
          if (IsForbidden(row[t])) continue;
          const absl::int128 val = D * (row[t] / n) - mu[s] - mv[t];
          if (!any || val < best) best = val, any = true;
        }
      }
      total += best * n;
    }
    // Node terms, per message choice for the self kinds.
    std::vector<absl::int128> prefix(m_.num_points() + 1, 0);
    for (int p = 0; p < m_.num_points(); ++p) prefix[p + 1] = prefix[p] + (lambda.empty() ? 0 : lambda[p]);
    absl::int128 nodes_plain = 0, nodes_split = 0;
    x_plain_.resize(N);
    x_split_.resize(N);
    std::vector<absl::int128> f;
    for (int i = 0; i < N; ++i) {
      const int v = space_.ties.var_of[i];
      const int k = m_.k[v];
      const absl::int128 lam = prefix[range_[i].second] - prefix[range_[i].first];
      f.assign(k, 0);
      for (int s = 0; s < k; ++s) f[s] = D * node_cost_[cost_offset_[v] + s] + lam * usage_[cost_offset_[v] + s];
      bool has_self = false;
      for (int64_t j = inc_offset_[i]; j < inc_offset_[i + 1]; ++j) {
        const Incidence& in = inc_[j];
        if (in.self) {
          has_self = true;
          continue;
        }
        const absl::int128* mu = &mu_[msg_offset_[in.edge] + (in.u_side ? 0 : m_.k[m_.edges[in.edge].u])];
        for (int s = 0; s < k; ++s) f[s] += mu[s];
      }
      int arg = 0;
      for (int s = 1; s < k; ++s)
        if (f[s] < f[arg]) arg = s;
      nodes_plain += f[arg];
      x_plain_[i] = arg;
      if (has_self) {
        for (int64_t j = inc_offset_[i]; j < inc_offset_[i + 1]; ++j) {
          const Incidence& in = inc_[j];
          if (!in.self) continue;
          const Cost* d = &diag_[self_[in.edge].diag_offset];
          for (int s = 0; s < k; ++s) f[s] += D / 2 * d[s];
        }
        arg = 0;
        for (int s = 1; s < k; ++s)
          if (f[s] < f[arg]) arg = s;
      }
      nodes_split += f[arg];
      x_split_[i] = arg;
    }
    absl::int128 limit_term = 0;
    for (int p = 0; p < static_cast<int>(lambda.size()); ++p) limit_term += absl::int128(lambda[p]) * m_.limit;
    const absl::int128 plain = total + self_plain_ + nodes_plain - limit_term;
    const absl::int128 split = total + self_split_ + nodes_split - limit_term;
    split_kept = split > plain;
    x = split_kept ? x_split_ : x_plain_;
    return static_cast<TotalCost>(FloorDiv(std::max(plain, split), D));
  }

  // The usage per model point of a per-node choice.
  std::vector<Usage> Loads(const std::vector<int>& x) const {
    std::vector<Usage> diff(m_.num_points() + 1, 0);
    for (int i = 0; i < static_cast<int>(x.size()); ++i) {
      const int v = space_.ties.var_of[i];
      const Usage u = usage_[cost_offset_[v] + x[i]];
      diff[range_[i].first] += u;
      diff[range_[i].second] -= u;
    }
    std::vector<Usage> out(m_.num_points());
    Usage run = 0;
    for (int p = 0; p < m_.num_points(); ++p) out[p] = run += diff[p];
    return out;
  }

  int64_t Work() const {
    return static_cast<int64_t>(m_.pair.size()) + static_cast<int64_t>(inc_.size()) * 64 +
           static_cast<int64_t>(space_.nodes.size()) * 64;
  }

 private:
  struct Incidence {
    int edge = 0;       // model edge, or self kind
    bool u_side = false;
    bool self = false;
  };
  struct SelfKind {
    int64_t diag_offset = 0;
  };
  const StrategySpace& space_;
  const TiedModel& tied_;
  const Model& m_;
  std::vector<int64_t> cost_offset_;
  std::vector<Cost> node_cost_;
  std::vector<Usage> usage_;
  std::vector<std::pair<int, int>> range_;
  std::vector<int64_t> count_;
  std::vector<SelfKind> self_;
  std::vector<Cost> diag_;
  absl::int128 self_plain_ = 0, self_split_ = 0;
  std::vector<int64_t> inc_offset_;
  std::vector<Incidence> inc_;
  std::vector<int64_t> msg_offset_;
  std::vector<absl::int128> mu_;
  std::vector<int> x_plain_, x_split_;
};

}  // namespace

UntiedBoundResult BoundUntiedProblem(const StrategySpace& space, const TiedModel& tied,
                                     const UntiedBoundOptions& options) {
  const Model& m = tied.model;
  UntiedBoundResult out;
  out.method = "Lagrangian relaxation of the memory rows, local-polytope dual of the untied problem with the tied "
               "model's messages (exact arithmetic)";
  if (m.num_vars() == 0) return out;
  const int P = m.num_points();
  UntiedDual ud(space, tied);
  // Per incidence: the fraction of the variable's nodes that the edge kind touches.
  std::vector<double> rate(m.adj.size(), 1.0);
  {
    std::vector<int> seen(space.nodes.size(), -1);
    for (int v = 0; v < m.num_vars(); ++v) {
      for (int a = m.adj_offset[v]; a < m.adj_offset[v + 1]; ++a) {
        const Model::Incidence& inc = m.adj[a];
        int touched = 0;
        for (int idx : tied.kinds[tied.kind_of_edge[inc.edge]].instances) {
          const int node = inc.first ? space.edges[idx].producer : space.edges[idx].consumer;
          if (seen[node] != a) seen[node] = a, ++touched;
        }
        rate[a] = static_cast<double>(touched) / space.ties.count[v];
      }
    }
  }
  // Forbidden pairs (a pending partial sum meets a user other than its add) enter the passes at a
  // finite cost above every finite plan's: lowering a cost from infinity keeps every bound of the
  // lowered problem valid, and Evaluate prices them infinite again (which can only raise its
  // terms). At dual.h's 1e30 the block-coordinate passes stall far below the local polytope's
  // optimum (GPT-3 on 8x64 without a limit: 1.417 s against 1.720 s, the tied optimum).
  Model lowered;
  const bool any_forbidden = std::any_of(m.pair.begin(), m.pair.end(), [](Cost c) { return IsForbidden(c); });
  if (any_forbidden) {
    double ceiling = 0;
    for (int v = 0; v < m.num_vars(); ++v) {
      Cost top = 0;
      for (int64_t i = m.unary_offset[v]; i < m.unary_offset[v + 1]; ++i)
        if (!IsForbidden(m.unary[i])) top = std::max(top, m.unary[i]);
      ceiling += static_cast<double>(top);
    }
    for (const Model::Edge& e : m.edges) {
      Cost top = 0;
      const int64_t n = static_cast<int64_t>(m.k[e.u]) * m.k[e.v];
      for (int64_t i = 0; i < n; ++i)
        if (!IsForbidden(m.pair[e.offset + i])) top = std::max(top, m.pair[e.offset + i]);
      ceiling += static_cast<double>(top);
    }
    const Cost finite = static_cast<Cost>(std::min(2 * ceiling + 1, static_cast<double>(kForbiddenCost / 4)));
    lowered = m;
    for (Cost& c : lowered.pair)
      if (IsForbidden(c)) c = finite;
  }
  DualSolver dual(any_forbidden ? lowered : m, rate);
  const int64_t entries = tied.pair_entries() + static_cast<int64_t>(m.unary.size());
  auto spent = [&] {
    if (options.work_limit > 0 && out.work >= options.work_limit) return true;
    return std::chrono::steady_clock::now() >= options.deadline;
  };
  // The seed's peak, when it is over the limit, carries the multiplier.
  int peak = -1;
  int64_t seed_excess = 0;
  if (!options.seed.empty() && P > 0) {
    std::vector<int> seed(options.seed.begin(), options.seed.end());
    const std::vector<Usage> load = ud.Loads(seed);
    const int p = static_cast<int>(std::max_element(load.begin(), load.end()) - load.begin());
    if (load[p] > m.limit) peak = p, seed_excess = load[p] - m.limit;
  }
  bool have = false;
  std::vector<int> x;
  FixedLambda fixed(P, 0);
  // The bound at multiplier `lambda` (cost per byte at the peak), warm from the messages of the
  // last call: passes in rounds of `iterations` until a round gains less than kConverged of the
  // bound (at most `rounds` rounds).
  auto evaluate = [&](double lambda, int iterations, int rounds) {
    if (peak >= 0) fixed[peak] = Fixed(lambda);
    dual.SetLambda(fixed);
    double last = -HUGE_VAL;
    for (int r = 0; r < rounds && (r == 0 || !spent()); ++r) {
      for (int i = 0; i < iterations && (i == 0 || !spent()); ++i) {
        dual.Iterate();
        out.work += 4 * entries;
      }
      const double now = dual.ApproxBound();
      out.work += entries;
      if (now - last <= kConverged * std::fabs(now)) break;
      last = now;
    }
    bool split = false;
    const TotalCost b = ud.Evaluate(dual, fixed, x, split);
    ++out.steps;
    if (!have || b > out.bound) {
      have = true;
      out.bound = b;
      out.lambda = lambda;
      out.diagonal_split = split;
      if (options.progress) options.progress(out.bound, out.work);
    }
    return static_cast<double>(b);
  };
  auto optimal = [&] { return options.upper_bound > 0 && out.bound >= options.upper_bound; };
  const int inner = std::max(1, options.inner_iterations);
  // The messages converge at lambda = 0 first (from scratch they need many passes; when a
  // multiplier follows, a few rounds, the rest converges at the multiplier).
  double at_zero = evaluate(0, inner, peak < 0 ? kMaxRounds : kSearchRounds);
  if (peak < 0) {
    // Nothing to price: the messages improve while they do.
    while (!spent() && !optimal()) {
      const double b = evaluate(0, inner, kMaxRounds);
      if (b <= at_zero + 1e-6 * std::fabs(at_zero)) break;
      at_zero = b;
    }
  } else {
    out.time = tied.points[peak];
    // L(lambda) is concave: bracket its maximum by doubling from the price of memory the seed and
    // the upper bound suggest, then narrow the bracket by golden sections.
    double lo = 0, lo_value = at_zero;
    double guess = options.upper_bound > 0 ? (static_cast<double>(options.upper_bound) - at_zero) /
                                                 static_cast<double>(seed_excess)
                                           : std::fabs(at_zero) / static_cast<double>(m.limit);
    if (options.lambda_hi > 0) guess = std::sqrt(std::max(options.lambda_lo, options.lambda_hi / 4) * options.lambda_hi);
    double mid = std::max(guess, 1e-9), mid_value = evaluate(mid, inner, kSearchRounds);
    double hi = 0;
    if (options.lambda_hi > 0) {
      // The bracket the caller found (where the penalised plans cross the limit), a little wider.
      lo = options.lambda_lo / 1.25, hi = options.lambda_hi * 1.25;
    } else if (mid_value < lo_value) {
      hi = mid;  // the maximum is below the guess
      mid = hi / 2, mid_value = evaluate(mid, inner, kSearchRounds);
    } else {
      hi = 2 * mid;
      for (int i = 0; i < 40 && !spent() && !optimal(); ++i) {
        const double v = evaluate(hi, inner, kSearchRounds);
        if (v < mid_value) break;
        lo = mid, lo_value = mid_value, mid = hi, mid_value = v, hi *= 2;
      }
    }
    (void)lo_value;
    // Golden sections: keep the better interior point, shrink towards it.
    const double phi = 0.6180339887498949;
    for (int i = 0; i < kGoldenSections && !spent() && !optimal(); ++i) {
      const bool left = mid - lo > hi - mid;
      const double probe = left ? mid - (1 - phi) * (mid - lo) : mid + (1 - phi) * (hi - mid);
      const double v = evaluate(probe, inner, kSearchRounds);
      if (v > mid_value) {
        (left ? hi : lo) = mid;
        mid = probe, mid_value = v;
      } else {
        (left ? lo : hi) = probe;
      }
    }
    // The rest of the budget refines the messages at the best multiplier.
    double last = mid_value;
    while (!spent() && !optimal()) {
      const double b = evaluate(out.lambda, inner, kMaxRounds);
      if (b <= last + 1e-6 * std::fabs(last)) break;
      last = b;
    }
  }
  out.active_points = peak >= 0 ? 1 : 0;
  if (!space.ties.tied())
    out.method = "Lagrangian relaxation of the memory rows, local-polytope dual of the untied problem by message "
                 "passing (exact arithmetic)";
  out.method += fmt::format(", {} evaluations", out.steps);
  return out;
}

}  // namespace spmdc::autoshard

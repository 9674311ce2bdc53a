#include "auto/dual.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace spmdc::autoshard {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Forbidden pairs in the pass arithmetic: finite (so that the passes may be compiled with
// -ffinite-math-only and vectorised) but far above any sum of real costs (< 2^62).
constexpr double kBig = 1e30;
constexpr double kBigThreshold = 1e29;
constexpr double kScale = static_cast<double>(int64_t{1} << kLambdaScaleBits);

absl::int128 FloorDiv(absl::int128 a, absl::int128 b) {
  absl::int128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// Per segment: the sum of the fixed multipliers over its points (prefix sums make it O(1)).
std::vector<absl::int128> SegmentLambda(const Model& m, const FixedLambda& lambda) {
  std::vector<absl::int128> prefix(m.num_points() + 1, 0);
  for (int p = 0; p < m.num_points(); ++p) {
    prefix[p + 1] = prefix[p] + (lambda.empty() ? 0 : lambda[p]);
  }
  std::vector<absl::int128> out(m.segments.size());
  for (size_t i = 0; i < m.segments.size(); ++i) {
    out[i] = prefix[m.segments[i].hi] - prefix[m.segments[i].lo];
  }
  return out;
}

}  // namespace

DualSolver::DualSolver(const Model& model) : DualSolver(model, std::vector<double>(model.adj.size(), 1.0)) {}

DualSolver::DualSolver(const Model& model, const std::vector<double>& rate) : model_(model) {
  const int V = model.num_vars();
  pair_d_.resize(model.pair.size());
  for (size_t i = 0; i < model.pair.size(); ++i) {
    pair_d_[i] = IsForbidden(model.pair[i]) ? kBig : static_cast<double>(model.pair[i]);
  }
  msg_offset_.resize(model.edges.size() + 1, 0);
  for (size_t e = 0; e < model.edges.size(); ++e) {
    msg_offset_[e + 1] = msg_offset_[e] + model.k[model.edges[e].u] + model.k[model.edges[e].v];
  }
  msg_.assign(msg_offset_.back(), 0.0);
  weight_.assign(model.adj.size(), 0.0);
  rank_fwd_.assign(V, 0);
  rank_bwd_.assign(V, 0);
  for (int v = 0; v < V; ++v) {
    double fwd = 0, bwd = 0;
    for (int i = model.adj_offset[v]; i < model.adj_offset[v + 1]; ++i) {
      const bool later = model.adj[i].other > v;
      (later ? rank_fwd_[v] : rank_bwd_[v])++;
      (later ? fwd : bwd) += rate[i];
    }
    const double d = std::max(fwd, bwd);
    for (int i = model.adj_offset[v]; i < model.adj_offset[v + 1]; ++i)
      weight_[i] = d > 0 ? rate[i] / d : 0.0;
  }
  SetLambda({});
}

void DualSolver::SetLambda(const FixedLambda& lambda) {
  lambda_ = lambda;
  theta_.resize(model_.unary.size());
  for (size_t i = 0; i < model_.unary.size(); ++i) theta_[i] = static_cast<double>(model_.unary[i]);
  if (lambda_.empty()) return;
  std::vector<absl::int128> seg_lambda = SegmentLambda(model_, lambda_);
  for (int v = 0; v < model_.num_vars(); ++v) {
    for (int i = model_.seg_offset[v]; i < model_.seg_offset[v + 1]; ++i) {
      const double l = static_cast<double>(seg_lambda[i]) / kScale;
      if (l == 0) continue;
      for (int s = 0; s < model_.k[v]; ++s) {
        theta_[model_.unary_offset[v] + s] += l * static_cast<double>(model_.SegUsage(model_.segments[i], s));
      }
    }
  }
}

// Moves the min-marginal of every incident edge into v's messages.
void DualSolver::Gather(int v) {
  const int kv = model_.k[v];
  for (int i = model_.adj_offset[v]; i < model_.adj_offset[v + 1]; ++i) {
    const Model::Incidence& inc = model_.adj[i];
    const Model::Edge& e = model_.edges[inc.edge];
    const int ku = model_.k[e.u], kw = model_.k[e.v];
    double* mu = &msg_[msg_offset_[inc.edge]];
    double* mv = mu + ku;
    const double* th = &pair_d_[e.offset];
    if (inc.first) {  // v is u: m_eu(s) = min_t theta(s,t) - m_ev(t)
      for (int s = 0; s < kv; ++s) {
        double best = kInf;
        const double* row = th + static_cast<int64_t>(s) * kw;
        for (int t = 0; t < kw; ++t) best = std::min(best, row[t] - mv[t]);
        mu[s] = best;
      }
    } else {  // v is the edge's v: m_ev(t) = min_s theta(s,t) - m_eu(s)
      for (int t = 0; t < kv; ++t) mv[t] = kInf;
      for (int s = 0; s < ku; ++s) {
        const double* row = th + static_cast<int64_t>(s) * kw;
        const double a = mu[s];
        for (int t = 0; t < kv; ++t) mv[t] = std::min(mv[t], row[t] - a);
      }
    }
  }
}

void DualSolver::Pass(bool forward) {
  const int V = model_.num_vars();
  std::vector<double> belief;
  for (int step = 0; step < V; ++step) {
    const int v = forward ? step : V - 1 - step;
    if (model_.adj_offset[v] == model_.adj_offset[v + 1]) continue;
    Gather(v);
    const int kv = model_.k[v];
    belief.assign(theta_.begin() + model_.unary_offset[v], theta_.begin() + model_.unary_offset[v + 1]);
    for (int i = model_.adj_offset[v]; i < model_.adj_offset[v + 1]; ++i) {
      const Model::Incidence& inc = model_.adj[i];
      const double* m = &msg_[msg_offset_[inc.edge] + (inc.first ? 0 : model_.k[model_.edges[inc.edge].u])];
      for (int s = 0; s < kv; ++s) belief[s] += m[s];
    }
    // Keep the numbers small: the belief's minimum stays with the variable.
    const double mn = *std::min_element(belief.begin(), belief.end());
    for (int i = model_.adj_offset[v]; i < model_.adj_offset[v + 1]; ++i) {
      const Model::Incidence& inc = model_.adj[i];
      if ((inc.other > v) != forward) continue;
      const double w = weight_[i];
      double* m = &msg_[msg_offset_[inc.edge] + (inc.first ? 0 : model_.k[model_.edges[inc.edge].u])];
      for (int s = 0; s < kv; ++s) m[s] -= w * (belief[s] - mn);
    }
  }
}

void DualSolver::Iterate() {
  Pass(true);
  Pass(false);
}

double DualSolver::ApproxBound() const {
  double total = 0;
  for (int v = 0; v < model_.num_vars(); ++v) {
    const int kv = model_.k[v];
    double best = kInf;
    for (int s = 0; s < kv; ++s) {
      double b = theta_[model_.unary_offset[v] + s];
      for (int i = model_.adj_offset[v]; i < model_.adj_offset[v + 1]; ++i) {
        const Model::Incidence& inc = model_.adj[i];
        b += msg_[msg_offset_[inc.edge] + (inc.first ? 0 : model_.k[model_.edges[inc.edge].u]) + s];
      }
      best = std::min(best, b);
    }
    total += best;
  }
  for (size_t e = 0; e < model_.edges.size(); ++e) {
    const Model::Edge& ed = model_.edges[e];
    const int ku = model_.k[ed.u], kw = model_.k[ed.v];
    const double* mu = &msg_[msg_offset_[e]];
    const double* mv = mu + ku;
    double best = kInf;
    for (int s = 0; s < ku; ++s) {
      for (int t = 0; t < kw; ++t) {
        best = std::min(best, pair_d_[ed.offset + static_cast<int64_t>(s) * kw + t] - mu[s] - mv[t]);
      }
    }
    total += best;
  }
  if (!lambda_.empty()) {
    for (int p = 0; p < model_.num_points(); ++p) {
      total -= static_cast<double>(lambda_[p]) / kScale *
               static_cast<double>(model_.limit - model_.baseline[p]);
    }
  }
  return total + static_cast<double>(model_.offset);
}

TotalCost DualSolver::CertifiedBound() const {
  const absl::int128 D = absl::int128(1) << kLambdaScaleBits;
  auto fixed = [&](double m) { return absl::int128(static_cast<long double>(m) * kScale); };
  std::vector<absl::int128> seg_lambda = SegmentLambda(model_, lambda_);
  absl::int128 total = 0;
  std::vector<absl::int128> node;
  for (int v = 0; v < model_.num_vars(); ++v) {
    const int kv = model_.k[v];
    node.assign(kv, 0);
    for (int s = 0; s < kv; ++s) node[s] = D * model_.Unary(v, s);
    for (int i = model_.seg_offset[v]; i < model_.seg_offset[v + 1]; ++i) {
      if (seg_lambda[i] == 0) continue;
      for (int s = 0; s < kv; ++s) node[s] += seg_lambda[i] * model_.SegUsage(model_.segments[i], s);
    }
    for (int i = model_.adj_offset[v]; i < model_.adj_offset[v + 1]; ++i) {
      const Model::Incidence& inc = model_.adj[i];
      const double* m = &msg_[msg_offset_[inc.edge] + (inc.first ? 0 : model_.k[model_.edges[inc.edge].u])];
      for (int s = 0; s < kv; ++s) node[s] += fixed(m[s]);
    }
    total += *std::min_element(node.begin(), node.end());
  }
  std::vector<absl::int128> mu, mv;
  for (size_t e = 0; e < model_.edges.size(); ++e) {
    const Model::Edge& ed = model_.edges[e];
    const int ku = model_.k[ed.u], kw = model_.k[ed.v];
    mu.resize(ku);
    mv.resize(kw);
    for (int s = 0; s < ku; ++s) mu[s] = fixed(msg_[msg_offset_[e] + s]);
    for (int t = 0; t < kw; ++t) mv[t] = fixed(msg_[msg_offset_[e] + ku + t]);
    bool any = false;
    absl::int128 best = 0;
    for (int s = 0; s < ku; ++s) {
      for (int t = 0; t < kw; ++t) {
        const Cost c = model_.pair[ed.offset + static_cast<int64_t>(s) * kw + t];
        if (IsForbidden(c)) continue;
        absl::int128 val = D * c - mu[s] - mv[t];
        if (!any || val < best) best = val, any = true;
      }
    }
    total += best;  // every edge has a finite entry (presolve keeps arc consistency)
  }
  for (size_t p = 0; p < lambda_.size(); ++p) {
    total -= absl::int128(lambda_[p]) * (model_.limit - model_.baseline[p]);
  }
  return FloorDiv(total, D) + model_.offset;
}

std::vector<int> DualSolver::Decode() const {
  const int V = model_.num_vars();
  std::vector<int> x(V, -1);
  std::vector<double> score;
  std::vector<int> forbidden;
  for (int v = 0; v < V; ++v) {
    const int kv = model_.k[v];
    score.assign(theta_.begin() + model_.unary_offset[v], theta_.begin() + model_.unary_offset[v + 1]);
    forbidden.assign(kv, 0);
    for (int i = model_.adj_offset[v]; i < model_.adj_offset[v + 1]; ++i) {
      const Model::Incidence& inc = model_.adj[i];
      const Model::Edge& e = model_.edges[inc.edge];
      const int ku = model_.k[e.u], kw = model_.k[e.v];
      const double* th = &pair_d_[e.offset];
      const double* mu = &msg_[msg_offset_[inc.edge]];
      const double* mv = mu + ku;
      const int o = x[inc.other];
      for (int s = 0; s < kv; ++s) {
        double c;
        if (o >= 0) {
          c = inc.first ? th[static_cast<int64_t>(s) * kw + o] : th[static_cast<int64_t>(o) * kw + s];
          if (c >= kBigThreshold) {
            ++forbidden[s];
            continue;
          }
        } else if (inc.first) {
          c = kInf;
          for (int t = 0; t < kw; ++t) c = std::min(c, th[static_cast<int64_t>(s) * kw + t] - mv[t]);
        } else {
          c = kInf;
          for (int r = 0; r < ku; ++r) c = std::min(c, th[static_cast<int64_t>(r) * kw + s] - mu[r]);
        }
        score[s] += c;
      }
    }
    int best = 0;
    for (int s = 1; s < kv; ++s) {
      if (forbidden[s] < forbidden[best] || (forbidden[s] == forbidden[best] && score[s] < score[best])) {
        best = s;
      }
    }
    x[v] = best;
  }
  return x;
}

double DualSolver::PenalisedCost(const std::vector<int>& x) const {
  double total = static_cast<double>(model_.offset);
  for (int v = 0; v < model_.num_vars(); ++v) total += Theta(v, x[v]);
  for (const Model::Edge& e : model_.edges) {
    total += pair_d_[e.offset + static_cast<int64_t>(x[e.u]) * model_.k[e.v] + x[e.v]];
  }
  for (size_t p = 0; p < lambda_.size(); ++p) {
    total -= static_cast<double>(lambda_[p]) / kScale *
             static_cast<double>(model_.limit - model_.baseline[p]);
  }
  return total;
}

}  // namespace spmdc::autoshard

// Lower bounds: the Lagrangian relaxation of the memory rows (AUTO.md §7) with the local-polytope
// LP dual of the remaining pairwise problem, maximised by sequential message passing.
//
// For multipliers lambda_p >= 0 on the model's time points,
//   L(lambda) = min_x [ E(x) + sum_p lambda_p (load_p(x) - limit) ]  <=  OPT,
// and the inner minimum is bounded below by any reparameterisation of the pairwise problem:
//   theta'_v(s) = theta_v(s) + sum_e m_ev(s),  theta'_e(s,t) = theta_e(s,t) - m_eu(s) - m_ev(t),
//   min_x E(x) >= sum_v min_s theta'_v(s) + sum_e min_{s,t} theta'_e(s,t)   (for any messages m).
// The messages are improved by SRMP/TRW-S-style passes (Kolmogorov 2006, 2015): at each variable,
// in order, gather the min-marginals of its edges into it, then hand a share of the result to the
// edges towards later variables. Each pass never lowers the bound. The search runs in doubles; the
// bound it reports is recomputed exactly (128-bit integers, multipliers and messages rounded to a
// fixed scale), so it is certified whatever rounding the passes made.
#pragma once

#include <cstdint>
#include <vector>

#include "auto/model.h"

namespace spmdc::autoshard {

// Multipliers in fixed point: lambda_p = value[p] / 2^kLambdaScaleBits (cost per unit of usage).
inline constexpr int kLambdaScaleBits = 32;
using FixedLambda = std::vector<int64_t>;

class DualSolver {
 public:
  explicit DualSolver(const Model& model);
  // `rate` (one positive value per incidence, in model.adj order): a variable hands each later
  // edge a share of its belief proportional to the incidence's rate (the shares toward later edges
  // sum to at most 1, which keeps every pass from lowering the bound). Default: equal shares. The
  // tied model of repeated layers uses the fraction of the variable's copies that the edge touches
  // (untied_bound.h), so that each copy's part of a variable's belief goes to that copy's edges.
  DualSolver(const Model& model, const std::vector<double>& rate);

  // Sets the memory multipliers (one per time point, >= 0; empty: all zero).
  void SetLambda(const FixedLambda& lambda);
  const FixedLambda& lambda() const { return lambda_; }
  // One forward and one backward pass.
  void Iterate();
  // The bound of the current messages in doubles (for progress), offset included.
  double ApproxBound() const;
  // The same bound computed exactly: a certified lower bound on the model's optimum (offset
  // included). Floor of the exact rational value.
  TotalCost CertifiedBound() const;
  // A primal assignment from the messages: variables in order, each taking its best strategy given
  // the earlier ones and the messages of the later ones (penalised costs; forbidden pairs avoided
  // where possible).
  std::vector<int> Decode() const;
  // Penalised unary cost (lambda included), as the passes use it.
  double Theta(int v, int s) const { return theta_[model_.unary_offset[v] + s]; }
  // Lagrangian value of an assignment for the current lambda: E(x) + sum lambda (load - limit).
  double PenalisedCost(const std::vector<int>& x) const;
  // The messages of edge e: m_eu (k[u] values) when `u_side`, else m_ev (k[v] values). Any
  // messages give a valid bound; untied_bound.h reuses them for a problem with the same edges.
  const double* Messages(int e, bool u_side) const {
    return &msg_[msg_offset_[e] + (u_side ? 0 : model_.k[model_.edges[e].u])];
  }

 private:
  void Gather(int v);
  void Pass(bool forward);
  double PairD(int64_t i) const { return pair_d_[i]; }

  const Model& model_;
  FixedLambda lambda_;
  std::vector<double> theta_;   // per strategy: unary + lambda penalty
  std::vector<double> pair_d_;  // pair costs, +inf where forbidden
  // msg_[msg_offset_[e]] .. : m_eu (k[u] values) then m_ev (k[v] values)
  std::vector<int64_t> msg_offset_;
  std::vector<double> msg_;
  std::vector<double> weight_;  // per incidence (adj index): share handed to that edge when it is later
  std::vector<int> rank_fwd_;   // per variable: edges to later / earlier variables
  std::vector<int> rank_bwd_;
};

}  // namespace spmdc::autoshard

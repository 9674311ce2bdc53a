#include "auto/lagrangian.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "auto/dual.h"
#include "auto/local_search.h"

namespace spmdc::autoshard {

std::vector<int> LeastUsageAssignment(const Model& m) {
  std::vector<int> x(m.num_vars(), 0);
  for (int v = 0; v < m.num_vars(); ++v) {
    absl::int128 best_u = -1;
    for (int s = 0; s < m.k[v]; ++s) {
      absl::int128 u = 0;
      for (int i = m.seg_offset[v]; i < m.seg_offset[v + 1]; ++i) {
        u += absl::int128(m.SegUsage(m.segments[i], s)) * (m.segments[i].hi - m.segments[i].lo);
      }
      if (best_u < 0 || u < best_u || (u == best_u && m.Unary(v, s) < m.Unary(v, x[v]))) {
        best_u = u;
        x[v] = s;
      }
    }
  }
  return x;
}

LagrangianSearch::LagrangianSearch(const Model& model, SearchParams params)
    : model_(model), params_(params) {}

bool LagrangianSearch::Spent(const SearchBudget& b) const {
  if (b.stop && b.stop->load(std::memory_order_relaxed)) return true;
  if (b.work_limit > 0 && work_ >= b.work_limit) return true;
  if (has_solution_ && has_lb_ && best_lb_ >= best_cost_) return true;  // optimal
  // Close enough (a decision of this thread's own state: deterministic).
  if (has_solution_ && has_lb_ && b.relative_gap > 0 &&
      static_cast<double>(best_cost_ - best_lb_) <= b.relative_gap * static_cast<double>(best_cost_))
    return true;
  return std::chrono::steady_clock::now() >= b.deadline;
}

void LagrangianSearch::Offer(const std::vector<int>& x, int64_t cost) {
  const TotalCost total = model_.offset + cost;
  if (has_solution_ && total >= best_cost_) return;
  has_solution_ = true;
  best_x_ = x;
  best_cost_ = total;
  shared_cost.store(static_cast<int64_t>(total), std::memory_order_relaxed);
  shared_has_solution.store(true, std::memory_order_relaxed);
}

void LagrangianSearch::OfferBound(TotalCost lb) {
  if (has_lb_ && lb <= best_lb_) return;
  has_lb_ = true;
  best_lb_ = lb;
  shared_bound.store(static_cast<int64_t>(lb), std::memory_order_relaxed);
  shared_has_bound.store(true, std::memory_order_relaxed);
}

void LagrangianSearch::Run(const SearchBudget& budget, const std::vector<int>* start) {
  const Model& m = model_;
  const int P = m.num_points();
  const int64_t entries = static_cast<int64_t>(m.pair.size()) + static_cast<int64_t>(m.unary.size());
  std::mt19937_64 rng(params_.seed);
  int64_t ls_work = 0;
  auto sync_work = [&] {
    work_ += ls_work;
    ls_work = 0;
  };

  LocalSearch ls(m);
  // A feasible start: the least-usage assignment (or the given one), repaired (whatever the
  // clock says: without it there is no answer at all), then improved.
  ls.Set(start ? *start : LeastUsageAssignment(m));
  const bool repaired = ls.Repair(8 * static_cast<int64_t>(m.num_vars()) + 1000);
  ls.SetDeadline(budget.deadline, budget.stop);
  if (repaired) {
    ls.Descend(ls_work);
    Offer(ls.x(), ls.cost());
  }
  smallest_peak_ = std::min(smallest_peak_, ls.Peak());
  sync_work();

  DualSolver dual(m);
  std::vector<double> lambda(P, 0.0), best_lambda(P, 0.0), direction(P, 0.0);
  const double scale = std::ldexp(1.0, kLambdaScaleBits);
  FixedLambda fixed(P, 0);
  std::vector<Cost> penalised(m.unary.size());
  // Penalised costs are summed over all variables in 64 bits by the soft local search.
  const double theta_cap = std::ldexp(1.0, 61) / (m.num_vars() + 1);
  double theta = params_.theta;
  int stall = 0;
  double best_l = -HUGE_VAL;
  std::vector<int> last_x;

  while (!Spent(budget)) {
    ++iterations_;
    for (int p = 0; p < P; ++p) fixed[p] = static_cast<int64_t>(std::llround(lambda[p] * scale));
    dual.SetLambda(fixed);
    for (int i = 0; i < params_.inner_iterations && (i == 0 || !Spent(budget)); ++i) dual.Iterate();
    work_ += 4 * entries * params_.inner_iterations;
    if (Spent(budget)) break;
    // The step follows the bound in doubles; the exact (certified) bound is computed only when it
    // may beat the best one so far.
    const double l = dual.ApproxBound();
    work_ += entries;
    if (!has_lb_ || l > static_cast<double>(best_lb_)) {
      OfferBound(dual.CertifiedBound());
      work_ += entries;
    }
    if (iterations_ == 1 || l > best_l + 1e-9 * std::fabs(best_l)) {
      best_l = l;
      best_lambda = lambda;
      stall = 0;
    } else if (++stall >= params_.patience) {
      theta *= 0.5;
      stall = 0;
      if (theta < 1e-3) {  // restart from the best multipliers with a fresh step
        theta = params_.theta * 0.5;
        lambda = best_lambda;
      }
    }
    if (Spent(budget)) break;

    // The penalised problem's assignment: decoded, then improved under the penalties.
    std::vector<int> x = dual.Decode();
    work_ += entries;
    for (int v = 0; v < m.num_vars(); ++v) {
      for (int s = 0; s < m.k[v]; ++s) {
        penalised[m.unary_offset[v] + s] =
            static_cast<Cost>(std::llround(std::clamp(dual.Theta(v, s), -theta_cap, theta_cap)));
      }
    }
    {
      LocalSearch soft(m, &penalised, /*hard_memory=*/false);
      soft.SetDeadline(budget.deadline, budget.stop);
      soft.Set(x);
      soft.Descend(ls_work);
      x = soft.x();
    }
    const std::vector<Usage> load = m.Profile(x);

    // The same assignment brought under the limit and improved with true costs.
    if (x != last_x) {
      ls.Set(x);
      if (ls.Repair(8 * static_cast<int64_t>(m.num_vars()) + 1000)) {
        ls.Descend(ls_work);
        Offer(ls.x(), ls.cost());
      }
      smallest_peak_ = std::min(smallest_peak_, ls.Peak());
      last_x = std::move(x);
    }
    sync_work();

    // Iterated local search around the incumbent: perturb, repair, descend locally, keep or undo.
    if (has_solution_ && params_.ils_every > 0 && iterations_ % params_.ils_every == 0) {
      ls.Set(best_x_);
      int64_t cur = ls.cost();
      // Exact re-optimisation of random paths under the penalised costs first.
      for (int r = 0; r < params_.path_moves && !Spent(budget); ++r) {
        const int length = 2 + static_cast<int>(rng() % (params_.path_length - 1));
        if (ls.PathMove(rng, length, penalised, ls_work)) {
          cur = ls.cost();
          Offer(ls.x(), cur);
        }
      }
      for (int r = 0; r < params_.ils_kicks && !Spent(budget); ++r) {
        ls.Mark();
        ls.Kick(rng, 1 + static_cast<int>(rng() % params_.kick_size));
        if (ls.Repair(4 * static_cast<int64_t>(m.num_vars()) + 100)) {
          ls.DescendLocal(ls_work);
          if (ls.Feasible() && ls.cost() < cur) {
            cur = ls.cost();
            Offer(ls.x(), cur);
            ls.Mark();
            continue;
          }
        }
        ls.Undo();
        sync_work();
      }
      sync_work();
    }

    // Subgradient step (Polyak, towards a target between the best bound and the incumbent).
    double norm = 0;
    for (int p = 0; p < P; ++p) {
      const double g = static_cast<double>(load[p] - m.limit) + params_.deflection * direction[p];
      direction[p] = g;
      if (lambda[p] > 0 || g > 0) norm += g * g;
    }
    if (norm == 0) continue;  // the penalised optimum fits: nothing to push
    const double target = has_solution_
                              ? best_l + params_.target_mix * (static_cast<double>(best_cost_) - best_l)
                              : std::fabs(l) * 1.05 + 1.0;
    const double step = theta * std::max(target - l, 1.0) / norm;
    for (int p = 0; p < P; ++p) {
      // Clamped so that the fixed-point form stays far from 64-bit overflow.
      lambda[p] = std::clamp(lambda[p] + step * direction[p], 0.0, 1e9);
    }
  }
}

}  // namespace spmdc::autoshard

#include "auto/solver.h"

#include <algorithm>
#include <memory>
#include <thread>

#include "auto/dual.h"
#include "auto/lagrangian.h"
#include "auto/milp.h"

namespace spmdc::autoshard {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point from) {
  return std::chrono::duration<double>(Clock::now() - from).count();
}

// Threads differ in seed and in how they spend their effort, so that two of them rarely follow
// the same path.
SearchParams ParamsFor(int thread, uint64_t seed) {
  SearchParams p;
  p.seed = seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(thread) + 1;
  switch (thread % 4) {
    case 0: break;
    case 1: p.target_mix = 0.5; break;
    case 2: p.deflection = 0.7; break;
    case 3: p.inner_iterations = 10, p.ils_every = 2; break;
  }
  return p;
}

}  // namespace

double SolveResult::Gap() const {
  if (cost == 0) return 0;
  return static_cast<double>(cost - lower_bound) / static_cast<double>(cost);
}

StatusOr<SolveResult> Solve(const Problem& problem, const SolveOptions& options) {
  const Clock::time_point start = Clock::now();
  // The threads stop a little early: an iteration in flight, joining, expanding and checking the
  // answer must all fit in the limit, also on a loaded machine.
  const double limit = std::max(options.time_limit_s, 0.0);
  const double margin = std::min(2.0, 0.03 * limit);
  const Clock::time_point deadline =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limit - margin));
  ASSIGN_OR_RETURN(Presolved pre, Presolve(problem));
  const Model& m = pre.model;
  SolveResult result;
  result.presolve = pre.stats;

  std::vector<int> best;
  TotalCost best_cost = 0, best_lb = 0;
  bool found = false, proven = false;
  std::string method = "Lagrangian relaxation of the memory rows, local-polytope dual by message "
                       "passing (exact arithmetic)";
  int64_t smallest_peak = INT64_MAX;
  if (m.num_vars() == 0) {
    // Presolve decided everything (and checked the fixed usage against the limit).
    found = proven = true;
    best_cost = best_lb = m.offset;
    method = "presolve (every choice forced or dominated)";
  } else {
    // A bound that needs no search (messages at zero: every variable and edge at its minimum), in
    // case no thread gets as far as its first one.
    best_lb = DualSolver(m).CertifiedBound();
    const int n = std::max(1, options.threads);
    std::atomic<bool> stop{false};
    SearchBudget budget{deadline, options.work_limit, &stop, std::max(options.relative_gap, 0.0)};
    std::vector<std::unique_ptr<LagrangianSearch>> searches;
    for (int t = 0; t < n; ++t) {
      searches.push_back(std::make_unique<LagrangianSearch>(m, ParamsFor(t, options.seed)));
    }
    // The MILP child is forked first, while this process has a single thread.
    std::unique_ptr<MilpSearch> milp;
    if (options.use_milp && MilpSearch::Suitable(m)) {
      milp = std::make_unique<MilpSearch>(m);
      // In a work-limited run the MILP also gets a node limit, so that its answer does not depend
      // on timing; it does not stop the other threads then.
      if (!milp->Start(deadline, options.work_limit > 0)) milp.reset();
    }
    std::atomic<int> running{0}, searching{0};
    std::atomic<bool> cancel_milp{false};
    bool milp_cancelled = false;
    std::vector<std::thread> threads;
    for (int t = 0; t < n; ++t) {
      running.fetch_add(1);
      searching.fetch_add(1);
      threads.emplace_back([&, t] {
        searches[t]->Run(budget);
        searching.fetch_sub(1);
        running.fetch_sub(1);
      });
    }
    if (milp) {
      running.fetch_add(1);
      threads.emplace_back([&] {
        milp->Collect(deadline, &cancel_milp);
        if (milp->optimal() && options.work_limit == 0) stop.store(true);
        running.fetch_sub(1);
      });
    }
    // Once every search thread has stopped (their results no longer change): whether their best is
    // within the gap of their bound. Then the MILP is not waited for, and what it found is ignored
    // whether it finished first or not, so that the answer does not depend on how far it got.
    auto threads_within_gap = [&] {
      bool any = false;
      TotalCost c = 0, lb = best_lb;
      for (const auto& s : searches) {
        if (s->has_solution() && (!any || s->best_cost() < c)) c = s->best_cost(), any = true;
        if (s->has_bound()) lb = std::max(lb, s->lower_bound());
      }
      return any && static_cast<double>(c - lb) <= options.relative_gap * static_cast<double>(c);
    };
    bool gap_checked = options.relative_gap <= 0 || !milp;
    Clock::time_point last_report = start;
    while (running.load() > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      if (!gap_checked && searching.load() == 0) {
        gap_checked = true;
        milp_cancelled = threads_within_gap();
        if (milp_cancelled) cancel_milp.store(true);
      }
      if (options.progress && Seconds(last_report) >= options.progress_interval_s) {
        last_report = Clock::now();
        SolveProgress pr;
        pr.elapsed_s = Seconds(start);
        for (const auto& s : searches) {
          if (s->shared_has_solution.load(std::memory_order_relaxed)) {
            const TotalCost c = s->shared_cost.load(std::memory_order_relaxed);
            if (!pr.has_solution || c < pr.cost) pr.cost = c;
            pr.has_solution = true;
          }
          if (s->shared_has_bound.load(std::memory_order_relaxed)) {
            pr.lower_bound = std::max<TotalCost>(pr.lower_bound, s->shared_bound.load());
          }
        }
        options.progress(pr);
      }
    }
    for (std::thread& th : threads) th.join();
    if (!gap_checked) milp_cancelled = threads_within_gap();  // the MILP ended first
    for (const auto& s : searches) {
      result.iterations += s->iterations();
      smallest_peak = std::min(smallest_peak, s->smallest_peak());
      if (s->has_solution() && (!found || s->best_cost() < best_cost)) {
        found = true;
        best = s->best();
        best_cost = s->best_cost();
      }
      if (s->has_bound() && s->lower_bound() > best_lb) best_lb = s->lower_bound();
    }
    if (milp && !milp_cancelled) {
      if (milp->has_solution() && (!found || milp->best_cost() < best_cost)) {
        found = true;
        best = milp->best();
        best_cost = milp->best_cost();
      }
      if (milp->has_bound() && milp->lower_bound() > best_lb) {
        best_lb = milp->lower_bound();
        method = "MILP (COIN-OR CBC) bound";
      }
    }
    if (found && best_lb >= best_cost) {
      proven = true;
      best_lb = best_cost;
    }
  }
  if (!found) {
    return absl::ResourceExhaustedError(fmt::format(
        "no assignment within the usage limit {} was found; the smallest peak usage reached was {}",
        m.limit, smallest_peak));
  }
  result.solution = pre.reconstruction.Expand(best);
  // Every answer is re-checked with the contest's semantics before it is reported.
  StatusOr<Evaluation> ev = Evaluate(problem, result.solution);
  if (!ev.ok()) {
    return Internal("the solver's answer fails the evaluator: {}", ev.status().message());
  }
  if (ev->cost != best_cost || ev->forbidden_choices != 0) {
    return Internal("the solver's cost {} disagrees with the evaluator's {} ({} forbidden)",
                    Int128ToString(best_cost), Int128ToString(ev->cost), ev->forbidden_choices);
  }
  result.cost = ev->cost;
  result.lower_bound = std::min(best_lb, result.cost);
  result.optimal = proven;
  result.bound_method = proven && method.rfind("MILP", 0) == 0 ? "MILP (COIN-OR CBC) proof of optimality" : method;
  result.elapsed_s = Seconds(start);
  return result;
}

}  // namespace spmdc::autoshard

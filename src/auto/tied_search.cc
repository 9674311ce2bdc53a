#include "auto/tied_search.h"

#include <time.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "auto/local_search.h"
#include "auto/profile.h"
#include "fmt/format.h"

namespace spmdc::autoshard {
namespace {

constexpr double kPicoseconds = 1e12;
// Work per pair entry of the tied problem for each solve and for the bound, and the least.
constexpr int64_t kWorkPerEntry = 300;
constexpr int64_t kBoundWorkPerEntry = 1000;
constexpr int64_t kMinimumBoundWork = 3'000'000'000;
// The prices of step 2: the factor between successive ones, how many are tried up (or down) per
// call, and the bisections between the last that did not fit and the first that did.
constexpr double kPriceFactor = 1.5;
constexpr int kMaxPrices = 6;
constexpr int kBisections = 2;
// Conditioning (x0 and step 5): at most this many carried parameters, one at a time.
constexpr int kConditionings = 4;

double CpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

}  // namespace

TiedSearch::TiedSearch(const StrategySpace& space, TiedSearchOptions options)
    : space_(space), options_(std::move(options)), problem_(space.ToProblem()), start_(std::chrono::steady_clock::now()) {
  for (int c : space.ties.copy) copies_ = std::max(copies_, c + 1);
  carried_vars_ = CarriedVariables(space);
}

TiedSearch::~TiedSearch() = default;

void TiedSearch::Report(const std::string& phase, std::optional<TotalCost> bound) {
  if (bound && (!best_bound_ || *bound > *best_bound_)) best_bound_ = bound;
  if (!options_.progress) return;
  SearchProgress p;
  p.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  // A line per phase, and within one about once a second.
  if (phase == last_phase_ && p.elapsed_s < last_report_s_ + 1.0) return;
  last_phase_ = phase;
  last_report_s_ = p.elapsed_s;
  p.phase = phase;
  for (const Candidate& c : candidates_) {
    const double s = static_cast<double>(c.cost) / kPicoseconds;
    if (c.peak <= limit_ && (!p.estimate_s || s < *p.estimate_s)) p.estimate_s = s;
  }
  if (best_bound_) p.bound_s = static_cast<double>(*best_bound_) / kPicoseconds;
  options_.progress(p);
}

std::vector<int> CarriedVariables(const StrategySpace& space) {
  // By size (a replicated copy), then index: the largest carry the costliest reshards, so fixing
  // them cuts the cycles that matter most.
  std::vector<std::pair<int64_t, int>> carried;
  for (const StrategyEdge& e : space.edges) {
    if (!e.carried) continue;
    int64_t bytes = 0;
    for (const Strategy& st : space.nodes[e.consumer].strategies) bytes = std::max(bytes, st.bytes);
    carried.emplace_back(-bytes, space.ties.var_of[e.consumer]);
  }
  std::sort(carried.begin(), carried.end());
  std::vector<int> vars;
  for (const auto& [minus_bytes, v] : carried)
    if (std::find(vars.begin(), vars.end(), v) == vars.end()) vars.push_back(v);
  return vars;
}

StatusOr<SolveResult> SolveConditioned(const Problem& problem, const std::vector<int>& carried, int conditionings,
                                       const std::function<StatusOr<SolveResult>(const Problem&, double)>& solve) {
  ASSIGN_OR_RETURN(SolveResult best, solve(problem, 1.0));
  auto loose = [](const SolveResult& r) {
    return static_cast<double>(r.cost - r.lower_bound) > kConditionGap * static_cast<double>(r.cost);
  };
  int tries = 0;
  for (int v : carried) {
    if (!loose(best) || tries == conditionings) break;
    if (problem.nodes[v].costs.size() < 2) continue;
    ++tries;
    Problem fixed = problem;
    std::vector<Cost>& costs = fixed.nodes[v].costs;
    for (size_t s = 0; s < costs.size(); ++s)
      if (static_cast<int64_t>(s) != best.solution[v]) costs[s] = kForbiddenCost;
    StatusOr<SolveResult> r = solve(fixed, kConditionedShare);
    if (!r.ok()) {
      if (r.status().code() == absl::StatusCode::kResourceExhausted) continue;  // nothing fits so
      return r.status();
    }
    if (r->cost < best.cost) {
      // The plan is one of the problem's; the bound stays the unconditioned one.
      best.solution = std::move(r->solution);
      best.cost = r->cost;
      best.optimal = best.cost <= best.lower_bound;
    }
    // Still loose with this weight fixed (the largest left): the relaxation is not fractional for
    // the reason conditioning mends (one weight's cycles), and further tries would only spend time.
    if (loose(*r)) break;
  }
  return best;
}

int64_t SolveWork(const Problem& problem, int64_t work_limit, int64_t work_per_entry, double share) {
  constexpr int64_t kMinimumWork = 300'000'000;
  int64_t entries = 0;
  for (const ProblemEdge& e : problem.edges) entries += static_cast<int64_t>(e.costs.size());
  const int64_t whole = work_limit > 0 ? work_limit : std::max(kMinimumWork, work_per_entry * entries);
  return static_cast<int64_t>(share * static_cast<double>(whole));
}

StatusOr<SolveResult> TiedSearch::SolveTied(const Problem& problem, int conditionings) {
  return SolveConditioned(problem, carried_vars_, conditionings,
                          [&](const Problem& p, double share) { return SolveOnce(p, share); });
}

StatusOr<SolveResult> TiedSearch::SolveOnce(const Problem& problem, double share) {
  SolveOptions so;
  so.time_limit_s = share * options_.time_limit_s;
  so.threads = 1;
  so.seed = 1;
  so.use_milp = options_.use_milp;
  so.relative_gap = options_.relative_gap;
  if (options_.progress) so.progress = [&](const SolveProgress&) { Report(phase_, std::nullopt); };
  so.work_limit = SolveWork(problem, options_.work_limit, kWorkPerEntry, share);
  return Solve(problem, so);
}

void TiedSearch::Add(std::vector<int64_t> choice, std::string name, double price) {
  for (const Candidate& c : candidates_)
    if (c.choice == choice) return;
  Candidate c;
  c.cost = space_.CostOf(choice);
  if (c.cost >= kForbiddenCost) return;  // a pending partial sum unsummed (cannot come from a solve)
  c.peak = space_.PeakBytesOf(choice);
  c.choice = std::move(choice);
  c.name = std::move(name);
  c.price = price;
  candidates_.push_back(std::move(c));
}

const TiedSearch::Candidate* TiedSearch::BestFitting(int64_t limit) const {
  const Candidate* best = nullptr;
  for (const Candidate& c : candidates_)
    if (c.peak <= limit && (!best || c.cost < best->cost)) best = &c;
  return best;
}

Status TiedSearch::Unconstrained() {
  Problem free = problem_;
  free.usage_limit.reset();
  phase_ = "unconstrained tied search";
  ASSIGN_OR_RETURN(SolveResult r, SolveTied(free, kConditionings));
  presolve_ = r.presolve;
  Add(space_.Expand(r.solution), "the unconstrained plan");
  Report("unconstrained tied search", std::nullopt);
  return absl::OkStatus();
}

// `a` on the tied copies before j and `b` from j on (or the reverse order), the other nodes from
// one of them: the cheapest mix within `limit`, priced incrementally copy by copy.
std::optional<TiedSearch::Candidate> TiedSearch::Mix(const Candidate& a, const Candidate& b, int64_t limit) const {
  if (copies_ < 2) return std::nullopt;
  const int N = static_cast<int>(space_.nodes.size());
  std::vector<std::vector<int>> of_copy(copies_);
  for (int i = 0; i < N; ++i)
    if (space_.ties.copy[i] >= 0) of_copy[space_.ties.copy[i]].push_back(i);
  // Edge instances per node.
  std::vector<int> inc_offset(N + 1, 0), inc;
  for (const StrategyEdge& e : space_.edges) ++inc_offset[e.producer + 1], ++inc_offset[e.consumer + 1];
  for (int i = 0; i < N; ++i) inc_offset[i + 1] += inc_offset[i];
  inc.resize(inc_offset[N]);
  {
    std::vector<int> fill(inc_offset.begin(), inc_offset.end() - 1);
    for (int k = 0; k < static_cast<int>(space_.edges.size()); ++k) {
      inc[fill[space_.edges[k].producer]++] = k;
      inc[fill[space_.edges[k].consumer]++] = k;
    }
  }
  auto node_cost = [&](int i, int64_t s) {
    const Strategy& st = space_.nodes[i].strategies[s];
    return TotalCost(PicosecondsOf(st.compute_seconds + st.communication_seconds));
  };
  auto edge_cost = [&](int k, const std::vector<int64_t>& y) {
    const StrategyEdge& e = space_.edges[k];
    return TotalCost(PicosecondsOf((*e.seconds)[y[e.producer] * space_.nodes[e.consumer].strategies.size() + y[e.consumer]]));
  };
  std::optional<Candidate> best;
  std::vector<int> stamp(space_.edges.size(), -1);
  int stamp_id = 0;
  for (int others = 0; others < 2; ++others) {
    for (int order = 0; order < 2; ++order) {
      // Start: every copy from the "later" plan, the other nodes from `others`.
      const Candidate& first = order == 0 ? a : b;
      const Candidate& second = order == 0 ? b : a;
      const Candidate& rest = others == 0 ? a : b;
      std::vector<int64_t> y(N);
      for (int i = 0; i < N; ++i) y[i] = space_.ties.copy[i] >= 0 ? second.choice[i] : rest.choice[i];
      TotalCost cost = space_.CostOf(y);
      std::vector<int64_t> start(space_.num_points + 1, 0);
      for (int i = 0; i < N; ++i) {
        start[space_.nodes[i].lower] += space_.nodes[i].strategies[y[i]].bytes;
        start[space_.nodes[i].upper] -= space_.nodes[i].strategies[y[i]].bytes;
      }
      std::vector<int64_t> level(space_.num_points);
      int64_t run = 0;
      for (int64_t t = 0; t < space_.num_points; ++t) level[t] = run += start[t];
      UsageProfile profile(level);
      // j copies (0 .. j - 1) from `first`.
      for (int j = 0; j <= copies_; ++j) {
        if (j > 0) {
          const std::vector<int>& nodes = of_copy[j - 1];
          ++stamp_id;
          std::vector<int> touched;
          for (int i : nodes)
            for (int x = inc_offset[i]; x < inc_offset[i + 1]; ++x)
              if (stamp[inc[x]] != stamp_id) stamp[inc[x]] = stamp_id, touched.push_back(inc[x]);
          for (int k : touched) cost -= edge_cost(k, y);
          for (int i : nodes) {
            const int64_t s = first.choice[i];
            if (s == y[i]) continue;
            cost += node_cost(i, s) - node_cost(i, y[i]);
            const StrategyNode& n = space_.nodes[i];
            profile.Add(static_cast<int>(n.lower), static_cast<int>(n.upper), n.strategies[s].bytes - n.strategies[y[i]].bytes);
            y[i] = s;
          }
          for (int k : touched) cost += edge_cost(k, y);
        }
        // Only real mixes: all copies from one plan with its own other nodes is that plan.
        if ((j == 0 && &rest == &second) || (j == copies_ && &rest == &first)) continue;
        const int64_t peak = std::max<int64_t>(0, profile.GlobalMax());
        // A mix can pair strategies the space forbids across its split (a pending partial sum).
        if (peak <= limit && cost < kForbiddenCost && (!best || cost < best->cost)) {
          Candidate c;
          c.choice = y;
          c.cost = cost;
          c.peak = peak;
          c.split = j;
          c.name = fmt::format("tied layers {} as {}, {} as {}; the other nodes as {}",
                               j == 0 ? "none" : fmt::format("0-{}", j - 1), first.name,
                               j == copies_ ? "none" : fmt::format("{}-{}", j, copies_ - 1), second.name, rest.name);
          best = std::move(c);
        }
      }
    }
  }
  return best;
}

// The tied copies of a mix form two groups (before and after its split), each one variable per
// position: the tied model of that grouping, and local search on it from the mix.
std::optional<TiedSearch::Candidate> TiedSearch::Improve(const Candidate& mix, int64_t limit) const {
  if (mix.split <= 0 || mix.split >= copies_) return std::nullopt;
  StrategySpace two = space_;
  Ties& t = two.ties;
  t.first.clear();
  t.count.clear();
  t.num_vars = 0;
  std::map<std::pair<int, bool>, int> group_var;
  for (size_t i = 0; i < two.nodes.size(); ++i) {
    const int old = space_.ties.var_of[i];
    const int c = space_.ties.copy[i];
    auto [it, fresh] = group_var.try_emplace({old, c >= 0 && c >= mix.split}, t.num_vars);
    if (fresh) {
      ++t.num_vars;
      t.first.push_back(static_cast<int>(i));
      t.count.push_back(0);
    }
    t.var_of[i] = it->second;
    ++t.count[it->second];
  }
  std::vector<int> x(t.num_vars, -1);
  for (size_t i = 0; i < two.nodes.size(); ++i) {
    int& s = x[t.var_of[i]];
    if (s >= 0 && s != mix.choice[i]) return std::nullopt;  // not two tied plans
    s = static_cast<int>(mix.choice[i]);
  }
  const TiedModel model = BuildTiedModel(two, limit);
  LocalSearch ls(model.model);
  ls.Set(x);
  if (!ls.Feasible()) return std::nullopt;
  int64_t work = 0;
  ls.Descend(work);
  Candidate c;
  c.choice = two.Expand(std::vector<int64_t>(ls.x().begin(), ls.x().end()));
  c.cost = space_.CostOf(c.choice);
  c.peak = space_.PeakBytesOf(c.choice);
  if (c.peak > limit || c.cost >= mix.cost) return std::nullopt;
  c.name = mix.name + ", improved by local search";
  return c;
}

StatusOr<TiedSearchResult> TiedSearch::Run(int64_t limit, bool bound) {
  TiedSearchResult out;
  limit_ = limit;
  if (candidates_.empty()) RETURN_IF_ERROR(Unconstrained());
  // candidates_ grows below: x0 is copied out, not referenced.
  const TotalCost x0_cost = candidates_.front().cost;
  const int64_t x0_peak = candidates_.front().peak;
  const std::vector<int64_t> x0_choice = candidates_.front().choice;
  out.presolve = presolve_;
  double bracket_below = 0, bracket_above = 0;  // prices around the limit (step 2)
  if (x0_peak > limit) {
    if (peak_time_ < 0) {
      // x0's peak: where memory binds.
      std::vector<int64_t> delta(space_.num_points + 1, 0);
      for (size_t i = 0; i < space_.nodes.size(); ++i) {
        delta[space_.nodes[i].lower] += space_.nodes[i].strategies[x0_choice[i]].bytes;
        delta[space_.nodes[i].upper] -= space_.nodes[i].strategies[x0_choice[i]].bytes;
      }
      int64_t run = 0, best = -1;
      for (int64_t t = 0; t < space_.num_points; ++t) {
        run += delta[t];
        if (best < 0 || run > best) best = run, peak_time_ = t;
      }
    }
    if (!tied_) tied_ = std::make_unique<TiedModel>(BuildTiedModel(space_, limit));
    // A first plan within the limit: x0 repaired greedily on the tied model.
    if (!BestFitting(limit)) {
      Model m = tied_->model;
      m.limit = limit;
      LocalSearch ls(m);
      std::vector<int> x(problem_.nodes.size(), 0);
      for (size_t i = 0; i < space_.nodes.size(); ++i) x[space_.ties.var_of[i]] = static_cast<int>(x0_choice[i]);
      ls.Set(x);
      int64_t work = 0;
      if (ls.Repair(8 * static_cast<int64_t>(m.num_vars()) + 1000)) {
        ls.Descend(work);
        std::vector<int64_t> choice(space_.nodes.size());
        for (size_t i = 0; i < space_.nodes.size(); ++i) choice[i] = ls.x()[space_.ties.var_of[i]];
        Add(std::move(choice), "the unconstrained plan repaired");
        Report("repair", std::nullopt);
      }
    }
  }
  if (x0_peak > limit) {
    // Step 2: prices up from the repaired plan's until a plan fits, or down until one does not,
    // then between the last that did not and the first that did: hull points on both sides of the
    // limit, for the mixes.
    std::vector<int> live(space_.ties.num_vars, 0);  // per variable, its nodes live at the peak
    for (size_t i = 0; i < space_.nodes.size(); ++i)
      if (space_.nodes[i].lower <= peak_time_ && peak_time_ < space_.nodes[i].upper) ++live[space_.ties.var_of[i]];
    auto solve_at = [&](double price) -> StatusOr<bool> {
      Problem priced = problem_;
      priced.usage_limit.reset();
      for (int v = 0; v < space_.ties.num_vars; ++v) {
        if (live[v] == 0) continue;
        ProblemNode& pn = priced.nodes[v];
        for (size_t s = 0; s < pn.costs.size(); ++s) {
          const double charge = std::min(price * live[v] * static_cast<double>(pn.usages[s]), 1e17);
          pn.costs[s] = AddSpaceCost(pn.costs[s], static_cast<Cost>(std::llround(charge)));
        }
      }
      phase_ = fmt::format("tied search with memory at {:.3g} ps per byte", price);
      ASSIGN_OR_RETURN(SolveResult r, SolveTied(priced, 0));
      std::vector<int64_t> choice = space_.Expand(r.solution);
      const bool fits = space_.PeakBytesOf(choice) <= limit;
      Add(std::move(choice), fmt::format("the plan at {:.3g} ps per byte", price), price);
      Report(phase_, std::nullopt);
      return fits;
    };
    // The largest price tried whose plan does not fit, the smallest whose plan does (this limit).
    double below = 0, above = 0;
    for (const Candidate& c : candidates_) {
      if (c.price == 0) continue;
      if (c.peak > limit) below = std::max(below, c.price);
      else above = above == 0 ? c.price : std::min(above, c.price);
    }
    double price = below > 0 ? below * kPriceFactor
                             : (BestFitting(limit) ? static_cast<double>(BestFitting(limit)->cost - x0_cost) /
                                                                       static_cast<double>(x0_peak - limit)
                                : static_cast<double>(x0_cost) / static_cast<double>(limit));
    if (!(price > 0)) price = static_cast<double>(x0_cost) / static_cast<double>(limit);
    for (int k = 0; k < kMaxPrices && above == 0; ++k, price *= kPriceFactor) {
      ASSIGN_OR_RETURN(bool fits, solve_at(price));
      if (fits) above = price;
      else below = price;
    }
    // The first price fitted: down until one does not (x0, at price 0, does not).
    price = above / kPriceFactor;
    for (int k = 0; k < kMaxPrices && above > 0 && below == 0; ++k, price /= kPriceFactor) {
      ASSIGN_OR_RETURN(bool fits, solve_at(price));
      if (fits) above = price;
      else below = price;
    }
    for (int k = 0; k < kBisections && above > 0 && below > 0 && above / below > 1.02; ++k) {
      const double mid = std::sqrt(below * above);
      ASSIGN_OR_RETURN(bool fits, solve_at(mid));
      (fits ? above : below) = mid;
    }
    bracket_below = below, bracket_above = above;
    // Step 3: mixes of every pair.
    std::optional<Candidate> best_mix;
    const size_t n = candidates_.size();
    for (size_t i = 0; i < n; ++i)
      for (size_t j = i + 1; j < n; ++j)
        if (std::optional<Candidate> m = Mix(candidates_[i], candidates_[j], limit)) {
          if (!best_mix || m->cost < best_mix->cost) best_mix = *m;
          Add(std::move(m->choice), std::move(m->name));
          Report("mixing", std::nullopt);
        }
    // Step 4.
    if (best_mix) {
      if (std::optional<Candidate> better = Improve(*best_mix, limit)) {
        Add(std::move(better->choice), std::move(better->name));
        Report("local search on the mix", std::nullopt);
      }
    }
    // Step 5.
    if (!BestFitting(limit)) {
      Problem hard = problem_;
      hard.usage_limit = limit;
      phase_ = "tied search within the limit";
      StatusOr<SolveResult> r = SolveTied(hard, kConditionings);
      if (r.ok()) Add(space_.Expand(r->solution), "the tied plan within the limit");
      else if (r.status().code() != absl::StatusCode::kResourceExhausted) return r.status();
    }
  }
  if (bound) {
    // The untied problem's bound at this limit (lambda on x0's peak when it does not fit).
    // With few tied copies the bound is the untied problem's own dual (lifting loses most where
    // copies are few and their terms disagree); else the tied model's, lifted (untied_bound.h).
    const double cpu = CpuSeconds();
    if (!tied_) tied_ = std::make_unique<TiedModel>(BuildTiedModel(space_, limit));
    int64_t untied_entries = 0;
    for (const StrategyEdge& e : space_.edges) untied_entries += static_cast<int64_t>(e.seconds->size());
    const bool direct = untied_entries <= options_.direct_bound_factor * tied_->pair_entries();
    std::unique_ptr<StrategySpace> untied;
    std::unique_ptr<TiedModel> untied_model;
    if (direct) {
      untied = std::make_unique<StrategySpace>(space_);
      untied->ties.Untie();
      untied_model = std::make_unique<TiedModel>(BuildTiedModel(*untied, limit));
    }
    const StrategySpace& bound_space = direct ? *untied : space_;
    TiedModel& bound_model = direct ? *untied_model : *tied_;
    bound_model.model.limit = limit;
    UntiedBoundOptions bo;
    bo.work_limit = options_.work_limit > 0 ? options_.work_limit
                                            : std::max(kMinimumBoundWork, kBoundWorkPerEntry * bound_model.pair_entries());
    bo.deadline = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                         std::chrono::duration<double>(std::max(options_.time_limit_s, 0.0)));
    if (const Candidate* c = BestFitting(limit)) bo.upper_bound = c->cost;
    if (x0_peak > limit) {
      bo.seed = x0_choice;
      bo.lambda_lo = bracket_below;
      bo.lambda_hi = bracket_above;
    }
    bo.progress = [&](TotalCost b, int64_t) { Report("untied bound", b); };
    const UntiedBoundResult r = BoundUntiedProblem(bound_space, bound_model, bo);
    out.has_bound = true;
    out.lower_bound = r.bound;
    out.bound_method = r.method;
    out.bound_cpu_s = CpuSeconds() - cpu;
  }
  const Candidate* best = BestFitting(limit);
  if (!best)
    return absl::ResourceExhaustedError(fmt::format("no assignment within the usage limit {} was found", limit));
  out.choice = best->choice;
  out.cost = best->cost;
  out.how = best->name;
  return out;
}

}  // namespace spmdc::autoshard

// The IOPDDL reader and evaluator (src/auto/iopddl.h), presolve, the lower bounds and the solver
// (src/auto/solver.h), checked against brute force on instances small enough to enumerate.
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "auto/dual.h"
#include "auto/iopddl.h"
#include "auto/model.h"
#include "auto/profile.h"
#include "auto/solve_command.h"
#include "auto/solver.h"
#include "gtest/gtest.h"

namespace spmdc::autoshard {
namespace {

// google/iopddl example.json (reference/AUTO.md §2.1).
constexpr const char* kExample = R"({"problem": {"name": "example",
  "nodes": {"intervals": [[30, 70], [40, 70], [50, 120], [110, 140], [110, 150]],
            "costs":  [[15], [55, 65], [25, 45, 35], [85, 75], [95]],
            "usages": [[10], [25, 25], [15, 20, 15], [10, 10], [15]]},
  "edges": {"nodes": [[0, 1], [0, 2], [1, 3], [2, 4], [3, 4]],
            "costs": [[30, 40], [50, 10, 40], [90, 10, 20, 80], [60, 20, 30], [70, 60]]},
  "usage_limit": 50}})";

Problem Example() {
  StatusOr<Problem> p = ParseProblem(kExample, "example.json");
  EXPECT_TRUE(p.ok()) << p.status();
  return *p;
}

// Every assignment of a small problem: the cheapest one that fits and makes no forbidden choice.
struct BruteForce {
  bool feasible = false;
  TotalCost optimum = 0;
};
BruteForce Enumerate(const Problem& p) {
  BruteForce out;
  Solution x(p.nodes.size(), 0);
  while (true) {
    StatusOr<Evaluation> ev = Evaluate(p, x);
    if (ev.ok() && ev->forbidden_choices == 0 && (!out.feasible || ev->cost < out.optimum)) {
      out.feasible = true;
      out.optimum = ev->cost;
    }
    size_t i = 0;
    for (; i < x.size(); ++i) {
      if (++x[i] < static_cast<int64_t>(p.nodes[i].costs.size())) break;
      x[i] = 0;
    }
    if (i == x.size()) break;
  }
  return out;
}

// A random problem: n nodes of 1-4 strategies, some forbidden costs, parallel edges and a limit
// between the least and the largest peak usage.
Problem RandomProblem(std::mt19937_64& rng, int n, double forbidden_rate) {
  auto uni = [&](int lo, int hi) { return static_cast<int>(lo + rng() % (hi - lo + 1)); };
  auto chance = [&](double q) { return std::uniform_real_distribution<double>(0, 1)(rng) < q; };
  Problem p;
  p.name = "random";
  for (int i = 0; i < n; ++i) {
    ProblemNode node;
    node.lower = uni(0, 9);
    node.upper = node.lower + uni(0, 6);
    const int k = uni(1, 4);
    for (int s = 0; s < k; ++s) {
      node.costs.push_back(chance(forbidden_rate) ? kForbiddenCost : uni(0, 100));
      node.usages.push_back(uni(0, 20));
    }
    p.nodes.push_back(node);
  }
  const int edges = uni(n - 1, 2 * n);
  for (int e = 0; e < edges; ++e) {
    ProblemEdge edge;
    int a = uni(0, n - 1), b = uni(0, n - 1);
    if (a == b) b = (a + 1) % n;
    edge.nodes = {a, b};
    const int size = static_cast<int>(p.nodes[a].costs.size() * p.nodes[b].costs.size());
    for (int i = 0; i < size; ++i) edge.costs.push_back(chance(forbidden_rate) ? kForbiddenCost : uni(0, 100));
    p.edges.push_back(edge);
  }
  // Peak usage with every node at its least / largest usage.
  int64_t lo = 0, hi = 0;
  for (int t = 0; t < 16; ++t) {
    int64_t a = 0, b = 0;
    for (const ProblemNode& node : p.nodes) {
      if (node.lower <= t && t < node.upper) {
        a += *std::min_element(node.usages.begin(), node.usages.end());
        b += *std::max_element(node.usages.begin(), node.usages.end());
      }
    }
    lo = std::max(lo, a);
    hi = std::max(hi, b);
  }
  p.usage_limit = lo + static_cast<int64_t>(rng() % (hi - lo + 1));
  return p;
}

// A problem shaped like XLA's: a random tree plus a few extra edges, where some edges are "follow"
// maps (each strategy of one end allows exactly one of the other: presolve merges them), some
// nodes use no memory (presolve eliminates them) and some costs are forbidden.
Problem StructuredProblem(std::mt19937_64& rng, int n) {
  auto uni = [&](int lo, int hi) { return static_cast<int>(lo + rng() % (hi - lo + 1)); };
  Problem p;
  for (int i = 0; i < n; ++i) {
    ProblemNode node;
    node.lower = uni(0, 6);
    node.upper = uni(0, 3) == 0 ? node.lower : node.lower + uni(1, 5);
    const int k = uni(1, 3);
    for (int s = 0; s < k; ++s) {
      node.costs.push_back(uni(0, 9) == 0 ? kForbiddenCost : uni(0, 50));
      node.usages.push_back(uni(0, 3) == 0 ? 0 : uni(1, 12));
    }
    p.nodes.push_back(node);
  }
  auto add_edge = [&](int a, int b) {
    ProblemEdge edge{{a, b}, {}};
    const int ka = static_cast<int>(p.nodes[a].costs.size()), kb = static_cast<int>(p.nodes[b].costs.size());
    const bool follow = uni(0, 1) == 0;
    for (int s = 0; s < ka; ++s) {
      for (int t = 0; t < kb; ++t) {
        edge.costs.push_back(follow ? (t == s % kb ? uni(0, 20) : kForbiddenCost) : uni(0, 40));
      }
    }
    p.edges.push_back(edge);
  };
  for (int i = 1; i < n; ++i) add_edge(uni(0, i - 1), i);
  for (int extra = uni(0, 3); extra > 0; --extra) {
    const int a = uni(0, n - 1), b = uni(0, n - 1);
    if (a != b) add_edge(a, b);
  }
  int64_t lo = 0, hi = 0;
  for (int t = 0; t < 12; ++t) {
    int64_t a = 0, b = 0;
    for (const ProblemNode& node : p.nodes) {
      if (node.lower <= t && t < node.upper) {
        a += *std::min_element(node.usages.begin(), node.usages.end());
        b += *std::max_element(node.usages.begin(), node.usages.end());
      }
    }
    lo = std::max(lo, a);
    hi = std::max(hi, b);
  }
  p.usage_limit = lo + (hi - lo) / 2;
  return p;
}

std::string Message(const Status& s) { return std::string(s.message()); }

TEST(IopddlReader, ParsesTheExample) {
  Problem p = Example();
  EXPECT_EQ(p.name, "example");
  ASSERT_EQ(p.nodes.size(), 5u);
  ASSERT_EQ(p.edges.size(), 5u);
  EXPECT_EQ(p.nodes[2].lower, 50);
  EXPECT_EQ(p.nodes[2].upper, 120);
  EXPECT_EQ(p.nodes[2].costs, (std::vector<Cost>{25, 45, 35}));
  EXPECT_EQ(p.nodes[2].usages, (std::vector<Usage>{15, 20, 15}));
  EXPECT_EQ(p.edges[2].nodes, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(p.edges[2].costs, (std::vector<Cost>{90, 10, 20, 80}));
  ASSERT_TRUE(p.usage_limit.has_value());
  EXPECT_EQ(*p.usage_limit, 50);
}

TEST(IopddlEvaluate, ExampleByHand) {
  Problem p = Example();
  // Nodes 15+55+25+85+95, edges 30+50+90+60+70; usage at t in [50,70) is 10+25+15 = 50.
  StatusOr<Evaluation> ev = Evaluate(p, {0, 0, 0, 0, 0});
  ASSERT_TRUE(ev.ok()) << ev.status();
  EXPECT_EQ(ev->cost, 575);
  EXPECT_EQ(ev->peak_usage, 50);
  EXPECT_EQ(ev->forbidden_choices, 0);
  // Node 2 at strategy 2 and node 3 at 1: 15+55+35+75+95 + 30+40+10+30+60 = 445.
  ev = Evaluate(p, {0, 0, 2, 1, 0});
  ASSERT_TRUE(ev.ok()) << ev.status();
  EXPECT_EQ(ev->cost, 445);
  // Node 2 at strategy 1 uses 20: 10+25+20 = 55 > 50 at time 50.
  ev = Evaluate(p, {0, 0, 1, 0, 0});
  EXPECT_EQ(ev.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(Message(ev.status()).find("time 50"), std::string::npos) << ev.status();
  EXPECT_EQ(Evaluate(p, {0, 0, 3, 0, 0}).status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(Evaluate(p, {0, -1, 0, 0, 0}).status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(Evaluate(p, {0, 0, 0}).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(IopddlEvaluate, HalfOpenIntervalsAndForbiddenSums) {
  Problem p;
  p.usage_limit = 10;
  p.nodes.push_back({0, 5, {1, kForbiddenCost}, {10, 0}});
  p.nodes.push_back({5, 9, {2}, {10}});  // starts where node 0 ends: never live together
  p.nodes.push_back({3, 3, {4}, {1000}});  // empty interval: costs, uses nothing
  p.edges.push_back({{0, 1}, {7, kForbiddenCost}});
  StatusOr<Evaluation> ev = Evaluate(p, {0, 0, 0});
  ASSERT_TRUE(ev.ok()) << ev.status();
  EXPECT_EQ(ev->cost, 1 + 2 + 4 + 7);
  EXPECT_EQ(ev->peak_usage, 10);
  // The contest adds the forbidden marker like any cost (in 128 bits).
  ev = Evaluate(p, {1, 0, 0});
  ASSERT_TRUE(ev.ok()) << ev.status();
  EXPECT_EQ(ev->cost, absl::int128(2) * kForbiddenCost + 2 + 4);
  EXPECT_EQ(ev->forbidden_choices, 2);
}

TEST(IopddlReader, LocatedErrors) {
  struct Case {
    const char* text;
    const char* expect;  // substring of the message
  };
  const Case cases[] = {
      {R"({"problem": {"nodes": )", "bad.json:1:"},
      {R"({"problem": {"name": "x", "nodes": {"intervals": [[0, 1]], "costs": [[1]],
          "usages": [[1, 2]]}, "edges": {"nodes": [], "costs": []}}})",
       "bad.json:2:22: error: node 0 has 1 costs but 2 usages"},
      {R"({"problem": {"nodes": {"intervals": [[0, 1, 2]], "costs": [[1]], "usages": [[1]]},
          "edges": {"nodes": [], "costs": []}}})",
       "bad.json:1:38: error: an interval is [lower, upper]; this one has 3 elements"},
      {R"({"problem": {"nodes": {"intervals": [[0, 1]], "costs": [[1.5]], "usages": [[1]]},
          "edges": {"nodes": [], "costs": []}}})",
       "bad.json:1:58: error: expected an integer, found a floating-point number"},
      {R"({"problem": {"nodes": {"intervals": [[-3, 1]], "costs": [[1]], "usages": [[1]]},
          "edges": {"nodes": [], "costs": []}}})",
       "interval lower bound -3 is negative"},
      {R"({"problem": {"nodes": {"intervals": [[0, 1]], "costs": [[1]], "usages": [[1]]},
          "edges": {"nodes": [[0, 4]], "costs": [[1]]}}})",
       "bad.json:2:31: error: edge 0 names node 4, not in [0, 1)"},
      {R"({"problem": {"nodes": {"intervals": [[0, 1], [0, 1]], "costs": [[1, 2], [1]],
          "usages": [[1, 1], [1]]}, "edges": {"nodes": [[0, 1]], "costs": [[1, 2, 3]]}}})",
       "edge 0 has 3 costs; its nodes' strategies make 2"},
      {R"({"problem": {"nodes": {"intervals": [[0, 1]], "costs": [[]], "usages": [[]]},
          "edges": {"nodes": [], "costs": []}}})",
       "node 0 has no strategies"},
      {R"({"problem": {"nodes": {"intervals": [[0, 1]], "costs": [[1]]},
          "edges": {"nodes": [], "costs": []}}})",
       "\"nodes\" needs \"intervals\", \"costs\" and \"usages\""},
      {R"({"problem": {"nodes": {"intervals": [[0, 1]], "costs": [[1]], "usages": [[1]]}}})",
       "the problem has no \"edges\""},
      {R"([1, 2])", "expected an object, found an array"},
      {R"({"problem": {"usage_limit": "big"}})", "found a string"},
      {R"({"problem": {"nodes": {"intervals": [[0, 1]], "costs": [[99999999999999999999]],
          "usages": [[1]]}, "edges": {"nodes": [], "costs": []}}})",
       "does not fit in 64 bits"},
  };
  for (const Case& c : cases) {
    StatusOr<Problem> p = ParseProblem(c.text, "bad.json");
    ASSERT_FALSE(p.ok()) << c.text;
    EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument) << c.text;
    EXPECT_NE(Message(p.status()).find(c.expect), std::string::npos)
        << "expected \"" << c.expect << "\" in:\n" << p.status().message();
  }
}

TEST(IopddlReader, IgnoresUnknownKeysAndReadsGzip) {
  // Unknown keys (e.g. the edge "usages" of older files) are skipped, as the contest's reader does.
  std::string text = kExample;
  text.insert(text.find("\"usage_limit\""), "\"extra\": [{\"a\": [1.5, null]}], ");
  StatusOr<Problem> p = ParseProblem(text, "x.json");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->nodes.size(), 5u);
  const std::filesystem::path dir = std::filesystem::temp_directory_path();
  const std::string gz = (dir / "spmdc_iopddl_test.json.gz").string();
  gzFile f = gzopen(gz.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(gzwrite(f, kExample, static_cast<unsigned>(std::strlen(kExample))),
            static_cast<int>(std::strlen(kExample)));
  gzclose(f);
  StatusOr<Problem> q = ReadProblem(gz);
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(q->edges[4].costs, (std::vector<Cost>{70, 60}));
  std::filesystem::remove(gz);
  EXPECT_EQ(ReadProblem((dir / "no_such_problem.json").string()).status().code(),
            absl::StatusCode::kNotFound);
}

TEST(UsageProfile, MatchesNaiveArray) {
  std::mt19937_64 rng(7);
  const int n = 37;
  std::vector<int64_t> naive(n);
  for (auto& v : naive) v = static_cast<int64_t>(rng() % 100);
  UsageProfile prof(naive);
  for (int step = 0; step < 2000; ++step) {
    int lo = static_cast<int>(rng() % n), hi = static_cast<int>(rng() % (n + 1));
    if (lo > hi) std::swap(lo, hi);
    if (step % 2 == 0) {
      const int64_t d = static_cast<int64_t>(rng() % 41) - 20;
      prof.Add(lo, hi, d);
      for (int i = lo; i < hi; ++i) naive[i] += d;
    } else if (lo < hi) {
      EXPECT_EQ(prof.Max(lo, hi), *std::max_element(naive.begin() + lo, naive.begin() + hi));
      const int64_t bound = naive[lo] + static_cast<int64_t>(rng() % 20) - 10;
      int first = -1;
      for (int i = lo; i < hi && first < 0; ++i) {
        if (naive[i] > bound) first = i;
      }
      EXPECT_EQ(prof.FirstAbove(lo, hi, bound), first);
    }
  }
  EXPECT_EQ(prof.GlobalMax(), *std::max_element(naive.begin(), naive.end()));
}

TEST(Solver, ExampleIsSolvedToOptimality) {
  Problem p = Example();
  const BruteForce bf = Enumerate(p);
  ASSERT_TRUE(bf.feasible);
  SolveOptions o;
  o.time_limit_s = 10;
  StatusOr<SolveResult> r = Solve(p, o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->cost, bf.optimum);
  EXPECT_EQ(r->lower_bound, bf.optimum);
  EXPECT_TRUE(r->optimal);
  ASSERT_TRUE(Evaluate(p, r->solution).ok());
}

// Presolve keeps the optimum and the Lagrangian bound is valid for any multipliers.
TEST(Solver, BoundsAreValidOnRandomProblems) {
  std::mt19937_64 rng(12345);
  int feasible = 0;
  for (int trial = 0; trial < 60; ++trial) {
    Problem p = RandomProblem(rng, 2 + trial % 6, trial % 3 == 0 ? 0.2 : 0.0);
    const BruteForce bf = Enumerate(p);
    StatusOr<Presolved> pre = Presolve(p);
    if (!pre.ok()) {
      // Presolve only fails when nothing is feasible.
      EXPECT_FALSE(bf.feasible) << pre.status();
      continue;
    }
    if (!bf.feasible) continue;
    ++feasible;
    const Model& m = pre->model;
    DualSolver dual(m);
    for (int round = 0; round < 4; ++round) {
      FixedLambda lambda(m.num_points());
      for (auto& l : lambda) l = round == 0 ? 0 : static_cast<int64_t>(rng() % (int64_t{1} << 36));
      dual.SetLambda(lambda);
      for (int i = 0; i < 5; ++i) {
        dual.Iterate();
        EXPECT_LE(dual.CertifiedBound(), bf.optimum) << "trial " << trial << " round " << round;
      }
    }
  }
  EXPECT_GT(feasible, 20);
}

// The solver against brute force: with the MILP it reaches the optimum; without it, it still
// returns a feasible vector, never a forbidden choice, and a bound <= the optimum.
TEST(Solver, MatchesBruteForce) {
  std::mt19937_64 rng(777);
  int checked = 0;
  for (int trial = 0; trial < 40; ++trial) {
    Problem p = RandomProblem(rng, 3 + trial % 5, trial % 2 == 0 ? 0.25 : 0.0);
    const BruteForce bf = Enumerate(p);
    for (bool milp : {true, false}) {
      SolveOptions o;
      o.time_limit_s = 20;
      o.work_limit = 200000;
      o.use_milp = milp;
      o.threads = 1 + trial % 2;
      StatusOr<SolveResult> r = Solve(p, o);
      if (!bf.feasible) {
        EXPECT_FALSE(r.ok()) << "trial " << trial;
        if (!r.ok()) {
          EXPECT_TRUE(r.status().code() == absl::StatusCode::kResourceExhausted ||
                      r.status().code() == absl::StatusCode::kInvalidArgument)
              << r.status();
        }
        continue;
      }
      ASSERT_TRUE(r.ok()) << "trial " << trial << ": " << r.status();
      StatusOr<Evaluation> ev = Evaluate(p, r->solution);
      ASSERT_TRUE(ev.ok()) << ev.status();
      EXPECT_EQ(ev->forbidden_choices, 0);
      EXPECT_EQ(ev->cost, r->cost);
      EXPECT_GE(r->cost, bf.optimum);
      EXPECT_LE(r->lower_bound, bf.optimum) << "trial " << trial;
      if (milp) {
        EXPECT_EQ(r->cost, bf.optimum) << "trial " << trial;
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 30);
}

// Presolve's merges and eliminations keep the optimum, and the reconstruction is right (Solve
// checks every answer with Evaluate).
TEST(Solver, MatchesBruteForceOnStructuredProblems) {
  std::mt19937_64 rng(4242);
  int checked = 0;
  PresolveStats total;
  for (int trial = 0; trial < 30; ++trial) {
    Problem p = StructuredProblem(rng, 6 + trial % 4);
    const BruteForce bf = Enumerate(p);
    StatusOr<Presolved> pre = Presolve(p);
    if (pre.ok()) {
      total.merged += pre->stats.merged;
      total.eliminated += pre->stats.eliminated;
      total.dominated += pre->stats.dominated;
    }
    SolveOptions o;
    o.time_limit_s = 20;
    o.work_limit = 200000;
    StatusOr<SolveResult> r = Solve(p, o);
    if (!bf.feasible) {
      EXPECT_FALSE(r.ok()) << "trial " << trial;
      continue;
    }
    ASSERT_TRUE(r.ok()) << "trial " << trial << ": " << r.status();
    EXPECT_EQ(r->cost, bf.optimum) << "trial " << trial;
    EXPECT_LE(r->lower_bound, bf.optimum) << "trial " << trial;
    ++checked;
  }
  EXPECT_GT(checked, 10);
  // The reductions were exercised.
  EXPECT_GT(total.merged, 10);
  EXPECT_GT(total.eliminated, 10);
}

TEST(Solver, ZeroTimeStillAnswers) {
  SolveOptions o;
  o.time_limit_s = 0;
  StatusOr<SolveResult> r = Solve(Example(), o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_GE(r->cost, 445);
  EXPECT_LE(r->lower_bound, 445);
}

TEST(Solver, ForbiddenStrategiesAreNeverChosen) {
  // The cheapest choices are all forbidden; the only finite solution is (1, 1, 0).
  Problem p;
  p.usage_limit = 100;
  p.nodes.push_back({0, 4, {kForbiddenCost, 50}, {1, 1}});
  p.nodes.push_back({0, 4, {0, 60}, {1, 1}});
  p.nodes.push_back({0, 4, {70, 0}, {1, 1}});
  p.edges.push_back({{0, 1}, {0, 0, kForbiddenCost, 5}});
  p.edges.push_back({{1, 2}, {0, kForbiddenCost, 3, kForbiddenCost}});
  for (bool milp : {true, false}) {
    SolveOptions o;
    o.time_limit_s = 10;
    o.use_milp = milp;
    StatusOr<SolveResult> r = Solve(p, o);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->solution, (Solution{1, 1, 0}));
    EXPECT_EQ(r->cost, 50 + 60 + 70 + 5 + 3);
  }
  // With node 2's strategy 0 forbidden too, nothing is left.
  p.nodes[2].costs[0] = kForbiddenCost;
  StatusOr<SolveResult> r = Solve(p, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(Message(r.status()).find("forbidden"), std::string::npos) << r.status();
}

TEST(Solver, InfeasibleMemoryIsAnError) {
  Problem p = Example();
  p.usage_limit = 44;  // nodes 0, 1 and 2 are live together and use at least 50
  StatusOr<SolveResult> r = Solve(p, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(Message(r.status()).find("usage limit 44"), std::string::npos) << r.status();
}

TEST(Solver, DeterministicWithAWorkLimit) {
  std::mt19937_64 rng(99);
  // A larger random problem (too big to enumerate), solved twice with two threads.
  Problem p = RandomProblem(rng, 120, 0.02);
  SolveOptions o;
  o.time_limit_s = 120;
  o.work_limit = 3000000;
  o.threads = 2;
  o.use_milp = false;
  StatusOr<SolveResult> a = Solve(p, o);
  StatusOr<SolveResult> b = Solve(p, o);
  ASSERT_EQ(a.ok(), b.ok());
  if (!a.ok()) GTEST_SKIP() << "no feasible assignment: " << a.status();
  EXPECT_EQ(a->solution, b->solution);
  EXPECT_EQ(a->cost, b->cost);
  EXPECT_EQ(a->lower_bound, b->lower_bound);
  EXPECT_EQ(a->iterations, b->iterations);
}

TEST(SolveCommand, PrintsTheVectorLast) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path();
  const std::string path = (dir / "spmdc_solve_example.json").string();
  std::ofstream(path) << kExample;
  std::FILE* out = std::tmpfile();
  std::FILE* err = std::tmpfile();
  SolveCommandOptions o;
  o.time_limit_s = 10;
  StatusOr<SolveResult> r = RunSolve(path, o, out, err);
  ASSERT_TRUE(r.ok()) << r.status();
  auto slurp = [](std::FILE* f) {
    std::rewind(f);
    std::string s;
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
    std::fclose(f);
    return s;
  };
  const std::string stdout_text = slurp(out), stderr_text = slurp(err);
  EXPECT_EQ(stdout_text, FormatSolution(r->solution) + "\n");
  EXPECT_NE(stderr_text.find("cost 445"), std::string::npos) << stderr_text;
  EXPECT_NE(stderr_text.find("lower bound 445"), std::string::npos) << stderr_text;
  std::filesystem::remove(path);
  // A missing file is an exit-2 error, and nothing is printed on stdout.
  std::FILE* out2 = std::tmpfile();
  StatusOr<SolveResult> missing = RunSolve((dir / "no_such.json").string(), o, out2, err = std::tmpfile());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(slurp(out2), "");
  std::fclose(err);
}

}  // namespace
}  // namespace spmdc::autoshard

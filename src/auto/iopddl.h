// The IOPDDL problem (the ASPLOS/EuroSys 2025 contest on intra-operator parallelism,
// github.com/google/iopddl): pick one strategy per node so that the sum of node and edge costs is
// minimal while the memory in use stays within a limit at every time step. This is the
// combinatorial core of automatic sharding (reference/AUTO.md §1-2): `spmdc auto` builds such a
// problem from the per-op sharding rules, `spmdc solve` reads one in the contest's JSON format.
//
// Semantics, exactly as the contest's `Evaluate` (iopddl.cc) defines them:
// - node i with strategy s costs `costs[s]` and uses `usages[s]` at every time t with
//   lower <= t < upper (half-open; an empty interval uses nothing but still costs);
// - an edge over nodes (n0, n1, ...) costs `costs[idx]`, idx row-major over its node list
//   (s_n0 * |S_n1| + s_n1 for two nodes); several edges may join the same nodes, their costs add;
// - costs are summed in 128 bits; a cost >= 10^18 is XLA's "forbidden" marker, which the contest
//   simply adds (a total of k * 10^18 + c means k forbidden choices) and spmdc's solver never picks;
// - a solution is rejected when its size is wrong, an index is out of range, or the usage at some
//   time exceeds `usage_limit` (when present).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/numeric/int128.h"
#include "support/status.h"

namespace spmdc::autoshard {

using Cost = int64_t;
using Usage = int64_t;
using TotalCost = absl::int128;

// XLA's kInfinityInt (auto_sharding_iopddl.h): a strategy or pair of strategies that must not be
// chosen. Everything at or above it counts as forbidden.
inline constexpr Cost kForbiddenCost = 1'000'000'000'000'000'000;
inline bool IsForbidden(Cost c) { return c >= kForbiddenCost; }

struct ProblemNode {
  int64_t lower = 0;  // live over [lower, upper)
  int64_t upper = 0;
  std::vector<Cost> costs;    // per strategy
  std::vector<Usage> usages;  // per strategy, same size as costs
  // Further intervals over which the node uses the same usages, each counted on its own (where
  // they overlap the usage adds up). Not part of the contest's format: a node of `spmdc auto`'s
  // tied problem stands for several identical instructions of repeated layers, one decision for
  // all, each live over its own interval (strategy_space.h).
  std::vector<std::pair<int64_t, int64_t>> extra_intervals;
};

struct ProblemEdge {
  std::vector<int64_t> nodes;  // usually two
  std::vector<Cost> costs;     // row-major over the strategies of `nodes`
};

// Invariants (checked by ParseProblem and CheckProblem): every node has at least one strategy and
// as many usages as costs, 0 <= lower (of every interval); edge nodes are in range and each edge has exactly the product
// of its nodes' strategy counts as costs.
struct Problem {
  std::string name;
  std::vector<ProblemNode> nodes;
  std::vector<ProblemEdge> edges;
  std::optional<Usage> usage_limit;
};

// One strategy index per node.
using Solution = std::vector<int64_t>;

// Parses the contest's JSON (`{"problem": {"name", "nodes": {"intervals", "costs", "usages"},
// "edges": {"nodes", "costs"}, "usage_limit"}}`; unknown keys are ignored, as the contest's reader
// does). Errors are InvalidArgument with `file:line:col` of the offending element, its line and a
// caret.
StatusOr<Problem> ParseProblem(std::string_view text, std::string_view file_name);
// Reads `path`, gzip-compressed or plain, and parses it.
StatusOr<Problem> ReadProblem(const std::string& path);
// The invariants above, for problems built in memory (InvalidArgument naming the element).
Status CheckProblem(const Problem& problem);

struct Evaluation {
  TotalCost cost = 0;         // as the contest sums it, forbidden markers included
  absl::int128 peak_usage = 0;
  int64_t forbidden_choices = 0;  // node strategies and edge entries >= kForbiddenCost chosen
};
// The contest's Evaluate: InvalidArgument for a wrong size, OutOfRange for an index out of range,
// ResourceExhausted when the usage exceeds the limit at some time (the message names the time).
StatusOr<Evaluation> Evaluate(const Problem& problem, const Solution& solution);

// "[s0, s1, ...]", the contest's output line.
std::string FormatSolution(const Solution& solution);
// Decimal text of a 128-bit integer.
std::string Int128ToString(absl::int128 v);

}  // namespace spmdc::autoshard

#include "auto/iopddl.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <limits>

#include "nlohmann/json.hpp"
#include "support/diagnostic.h"

namespace spmdc::autoshard {
namespace {

// A character iterator that records how far the parser has read, so that SAX events can be
// located in the text (nlohmann's SAX interface gives positions only for syntax errors). The
// parser copies the iterator, hence the shared counter.
class CountingIterator {
 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  CountingIterator() = default;
  CountingIterator(const char* p, const char** furthest) : p_(p), furthest_(furthest) {}
  reference operator*() const { return *p_; }
  CountingIterator& operator++() {
    ++p_;
    *furthest_ = p_;
    return *this;
  }
  CountingIterator operator++(int) {
    CountingIterator old = *this;
    ++*this;
    return old;
  }
  bool operator==(const CountingIterator& o) const { return p_ == o.p_; }
  bool operator!=(const CountingIterator& o) const { return p_ != o.p_; }

 private:
  const char* p_ = nullptr;
  const char** furthest_ = nullptr;
};

bool IsTokenChar(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' ||
         c == '+' || c == '-' || c == '_';
}

// The start of the token the parser has just reported, given how many characters it consumed.
// Numbers and literals are followed by one character of lookahead; keys end at their closing quote.
size_t TokenStart(std::string_view text, size_t consumed) {
  if (consumed == 0) return 0;
  size_t p = std::min(consumed, text.size()) - 1;
  if (!IsTokenChar(text[p]) && text[p] != '"' && text[p] != '[' && text[p] != '{' && p > 0 &&
      IsTokenChar(text[p - 1])) {
    --p;  // the lookahead after a number
  }
  if (text[p] == '"' && p > 0) --p;  // the closing quote of a key or string
  while (p > 0 && (IsTokenChar(text[p - 1]) || (text[p] != '"' && text[p - 1] == '"'))) {
    if (text[p - 1] == '"') {
      --p;
      break;
    }
    --p;
  }
  return p;
}

// Where a value sits in the document; the parser keeps a stack of these.
enum class Ctx {
  kRoot,           // the document
  kTop,            // {"problem": ...}
  kProblem,        // {"name", "nodes", "edges", "usage_limit"}
  kNodes,          // {"intervals", "costs", "usages"}
  kEdges,          // {"nodes", "costs"}
  kIntervalList,   // [[lower, upper], ...]
  kInterval,       // [lower, upper]
  kNodeCostList,   // [[c, ...], ...]
  kNodeCosts,      // [c, ...]
  kNodeUsageList,  // [[u, ...], ...]
  kNodeUsages,     // [u, ...]
  kEdgeNodeList,   // [[n0, n1], ...]
  kEdgeNodes,      // [n0, n1]
  kEdgeCostList,   // [[c, ...], ...]
  kEdgeCosts,      // [c, ...]
  kInteger,        // an element of one of the leaf arrays above
  kSkip,           // an unknown key's value (ignored, as the contest's reader does)
};

struct Frame {
  Ctx ctx;
  std::string key;     // objects: the key whose value comes next
  int64_t count = 0;   // arrays: elements seen so far
  size_t start = 0;    // offset of the opening bracket
};

// What the SAX parser fills in, before the cross-checks of Finish().
struct Raw {
  std::optional<std::string> name;
  std::optional<Usage> usage_limit;
  bool has_intervals = false, has_node_costs = false, has_node_usages = false;
  bool has_edge_nodes = false, has_edge_costs = false;
  bool has_problem = false, has_nodes = false, has_edges = false;
  std::vector<std::array<int64_t, 2>> intervals;
  std::vector<size_t> interval_pos;
  std::vector<std::vector<Cost>> node_costs;
  std::vector<size_t> node_cost_pos;
  std::vector<std::vector<Usage>> node_usages;
  std::vector<size_t> node_usage_pos;
  std::vector<std::vector<int64_t>> edge_nodes;
  std::vector<size_t> edge_node_pos;
  std::vector<std::vector<Cost>> edge_costs;
  std::vector<size_t> edge_cost_pos;
  size_t problem_pos = 0, nodes_pos = 0, edges_pos = 0;
};

class Handler {
 public:
  Handler(std::string_view text, std::string_view file, const char** furthest)
      : text_(text), file_(file), furthest_(furthest) {}

  Raw& raw() { return raw_; }
  const Status& status() const { return status_; }

  // Located error at byte offset `pos`.
  Status ErrorAt(size_t pos, const std::string& message) const {
    return absl::InvalidArgumentError(
        FormatDiagnostic(file_, text_, LocationOfOffset(text_, pos), message));
  }

  // --- SAX interface -------------------------------------------------------------------------
  bool null() { return Scalar("null"); }
  bool boolean(bool) { return Scalar("a boolean"); }
  bool number_float(double, const std::string& token) {
    if (token.find_first_of(".eE") == std::string::npos) {  // an integer too large for uint64
      if (Top() == Ctx::kSkip) return true;
      return Fail(Here(), fmt::format("integer {} does not fit in 64 bits", token));
    }
    return Scalar("a floating-point number");
  }
  bool binary(nlohmann::json::binary_t&) { return Scalar("binary data"); }
  bool number_unsigned(uint64_t v) {
    if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      if (Top() == Ctx::kSkip) return true;
      return Fail(Here(), fmt::format("integer {} does not fit in 64 bits", v));
    }
    return Integer(static_cast<int64_t>(v));
  }
  bool number_integer(int64_t v) { return Integer(v); }
  bool string(std::string& s) {
    Ctx slot = Slot();
    if (slot == Ctx::kSkip) return true;
    if (slot == Ctx::kProblem && stack_.back().key == "name") {
      raw_.name = s;
      return true;
    }
    return Fail(Here(), "expected " + Expected(slot) + ", found a string");
  }
  bool start_object(size_t) {
    size_t pos = Here();
    Ctx slot = Slot();
    Ctx next;
    switch (slot) {
      case Ctx::kSkip: next = Ctx::kSkip; break;
      case Ctx::kRoot: next = Ctx::kTop; break;
      case Ctx::kTop:
        if (!Once(raw_.has_problem, pos, "problem")) return false;
        raw_.problem_pos = pos;
        next = Ctx::kProblem;
        break;
      case Ctx::kNodes:
        if (!Once(raw_.has_nodes, pos, "nodes")) return false;
        raw_.nodes_pos = pos;
        next = Ctx::kNodes;
        break;
      case Ctx::kEdges:
        if (!Once(raw_.has_edges, pos, "edges")) return false;
        raw_.edges_pos = pos;
        next = Ctx::kEdges;
        break;
      default: return Fail(pos, "expected " + Expected(slot) + ", found an object");
    }
    stack_.push_back({next, "", 0, pos});
    return true;
  }
  bool key(std::string& k) {
    stack_.back().key = k;
    return true;
  }
  bool end_object() {
    stack_.pop_back();
    return true;
  }
  bool start_array(size_t) {
    size_t pos = Here();
    Ctx slot = Slot();
    Ctx next;
    switch (slot) {
      case Ctx::kSkip: next = Ctx::kSkip; break;
      case Ctx::kIntervalList:
        if (!Once(raw_.has_intervals, pos, "intervals")) return false;
        next = slot;
        break;
      case Ctx::kNodeCostList:
        if (!Once(raw_.has_node_costs, pos, "costs")) return false;
        next = slot;
        break;
      case Ctx::kNodeUsageList:
        if (!Once(raw_.has_node_usages, pos, "usages")) return false;
        next = slot;
        break;
      case Ctx::kEdgeNodeList:
        if (!Once(raw_.has_edge_nodes, pos, "nodes")) return false;
        next = slot;
        break;
      case Ctx::kEdgeCostList:
        if (!Once(raw_.has_edge_costs, pos, "costs")) return false;
        next = slot;
        break;
      case Ctx::kInterval:
        raw_.intervals.push_back({0, 0});
        raw_.interval_pos.push_back(pos);
        next = slot;
        break;
      case Ctx::kNodeCosts:
        raw_.node_costs.emplace_back();
        raw_.node_cost_pos.push_back(pos);
        next = slot;
        break;
      case Ctx::kNodeUsages:
        raw_.node_usages.emplace_back();
        raw_.node_usage_pos.push_back(pos);
        next = slot;
        break;
      case Ctx::kEdgeNodes:
        raw_.edge_nodes.emplace_back();
        raw_.edge_node_pos.push_back(pos);
        next = slot;
        break;
      case Ctx::kEdgeCosts:
        raw_.edge_costs.emplace_back();
        raw_.edge_cost_pos.push_back(pos);
        next = slot;
        break;
      default: return Fail(pos, "expected " + Expected(slot) + ", found an array");
    }
    stack_.push_back({next, "", 0, pos});
    return true;
  }
  bool end_array() {
    const Frame& f = stack_.back();
    if (f.ctx == Ctx::kInterval && f.count != 2) {
      return Fail(f.start, fmt::format("an interval is [lower, upper]; this one has {} elements",
                                       f.count));
    }
    stack_.pop_back();
    return true;
  }
  bool parse_error(size_t position, const std::string&, const nlohmann::json::exception& ex) {
    std::string what = ex.what();
    size_t at = what.find("syntax error");
    if (at == std::string::npos) at = what.find(": ");
    std::string message = at == std::string::npos ? what : what.substr(at);
    if (message.rfind(": ", 0) == 0) message = message.substr(2);
    status_ = ErrorAt(position > 0 ? position - 1 : 0, message);
    return false;
  }

 private:
  Ctx Top() const { return stack_.empty() ? Ctx::kRoot : stack_.back().ctx; }

  // The context of the value that starts now (and counts it in its array).
  Ctx Slot() {
    if (stack_.empty()) return Ctx::kRoot;
    Frame& f = stack_.back();
    switch (f.ctx) {
      case Ctx::kSkip: return Ctx::kSkip;
      case Ctx::kTop: return f.key == "problem" ? Ctx::kTop : Ctx::kSkip;
      case Ctx::kProblem:
        if (f.key == "nodes") return Ctx::kNodes;
        if (f.key == "edges") return Ctx::kEdges;
        if (f.key == "name" || f.key == "usage_limit") return Ctx::kProblem;
        return Ctx::kSkip;
      case Ctx::kNodes:
        if (f.key == "intervals") return Ctx::kIntervalList;
        if (f.key == "costs") return Ctx::kNodeCostList;
        if (f.key == "usages") return Ctx::kNodeUsageList;
        return Ctx::kSkip;
      case Ctx::kEdges:
        if (f.key == "nodes") return Ctx::kEdgeNodeList;
        if (f.key == "costs") return Ctx::kEdgeCostList;
        return Ctx::kSkip;
      case Ctx::kIntervalList: ++f.count; return Ctx::kInterval;
      case Ctx::kNodeCostList: ++f.count; return Ctx::kNodeCosts;
      case Ctx::kNodeUsageList: ++f.count; return Ctx::kNodeUsages;
      case Ctx::kEdgeNodeList: ++f.count; return Ctx::kEdgeNodes;
      case Ctx::kEdgeCostList: ++f.count; return Ctx::kEdgeCosts;
      default: ++f.count; return Ctx::kInteger;  // inside a leaf array: an element
    }
  }

  bool Integer(int64_t v) {
    if (stack_.empty()) return Fail(Here(), "expected an object, found an integer");
    Frame& f = stack_.back();
    switch (f.ctx) {
      case Ctx::kSkip: return true;
      case Ctx::kInterval:
        if (f.count < 2) raw_.intervals.back()[f.count] = v;
        if (f.count == 0 && v < 0) {
          return Fail(Here(), fmt::format("interval lower bound {} is negative", v));
        }
        ++f.count;
        return true;
      case Ctx::kNodeCosts: raw_.node_costs.back().push_back(v); return true;
      case Ctx::kNodeUsages: raw_.node_usages.back().push_back(v); return true;
      case Ctx::kEdgeNodes: raw_.edge_nodes.back().push_back(v); return true;
      case Ctx::kEdgeCosts: raw_.edge_costs.back().push_back(v); return true;
      case Ctx::kProblem:
        if (f.key == "usage_limit") {
          raw_.usage_limit = v;
          return true;
        }
        if (f.key != "name") return true;
        return Fail(Here(), "expected the problem name (a string), found an integer");
      default: {
        Ctx slot = Slot();
        if (slot == Ctx::kSkip) return true;
        return Fail(Here(), "expected " + Expected(slot) + ", found an integer");
      }
    }
  }

  // Any value other than an integer, a string, an object or an array.
  bool Scalar(const char* what) {
    Ctx slot = Slot();
    if (slot == Ctx::kSkip) return true;
    return Fail(Here(), "expected " + Expected(slot) + ", found " + what);
  }

  static std::string Expected(Ctx slot) {
    switch (slot) {
      case Ctx::kRoot: return "an object";
      case Ctx::kTop: return "the problem (an object)";
      case Ctx::kProblem: return "a string (name) or an integer (usage_limit)";
      case Ctx::kNodes: return "the nodes (an object)";
      case Ctx::kEdges: return "the edges (an object)";
      case Ctx::kIntervalList:
      case Ctx::kNodeCostList:
      case Ctx::kNodeUsageList:
      case Ctx::kEdgeNodeList:
      case Ctx::kEdgeCostList: return "an array of arrays";
      case Ctx::kInterval: return "an interval [lower, upper]";
      case Ctx::kNodeCosts:
      case Ctx::kNodeUsages:
      case Ctx::kEdgeNodes:
      case Ctx::kEdgeCosts: return "an array of integers";
      case Ctx::kInteger: return "an integer";
      case Ctx::kSkip: return "anything";
    }
    return "a value";
  }

  bool Once(bool& seen, size_t pos, const char* key) {
    if (seen) return Fail(pos, fmt::format("duplicate key \"{}\"", key));
    seen = true;
    return true;
  }
  bool Fail(size_t pos, const std::string& message) {
    status_ = ErrorAt(pos, message);
    return false;
  }
  size_t Here() const { return TokenStart(text_, static_cast<size_t>(*furthest_ - text_.data())); }

  std::string_view text_;
  std::string_view file_;
  const char** furthest_;
  std::vector<Frame> stack_;
  Raw raw_;
  Status status_;
};

// Cross-checks of the parsed arrays, then the problem itself.
StatusOr<Problem> Assemble(Raw& raw, const Handler& h) {
  if (!raw.has_problem) return h.ErrorAt(0, "missing key \"problem\"");
  if (!raw.has_nodes) return h.ErrorAt(raw.problem_pos, "the problem has no \"nodes\"");
  if (!raw.has_edges) return h.ErrorAt(raw.problem_pos, "the problem has no \"edges\"");
  if (!raw.has_intervals || !raw.has_node_costs || !raw.has_node_usages) {
    return h.ErrorAt(raw.nodes_pos, "\"nodes\" needs \"intervals\", \"costs\" and \"usages\"");
  }
  if (!raw.has_edge_nodes || !raw.has_edge_costs) {
    return h.ErrorAt(raw.edges_pos, "\"edges\" needs \"nodes\" and \"costs\"");
  }
  const size_t n = raw.intervals.size();
  if (raw.node_costs.size() != n || raw.node_usages.size() != n) {
    return h.ErrorAt(raw.nodes_pos,
                     fmt::format("{} intervals, {} cost lists and {} usage lists: they must agree",
                                 n, raw.node_costs.size(), raw.node_usages.size()));
  }
  if (raw.edge_costs.size() != raw.edge_nodes.size()) {
    return h.ErrorAt(raw.edges_pos, fmt::format("{} edge node lists but {} cost lists",
                                                raw.edge_nodes.size(), raw.edge_costs.size()));
  }
  Problem p;
  p.name = raw.name.value_or("");
  p.usage_limit = raw.usage_limit;
  p.nodes.resize(n);
  for (size_t i = 0; i < n; ++i) {
    ProblemNode& node = p.nodes[i];
    node.lower = raw.intervals[i][0];
    node.upper = raw.intervals[i][1];
    if (raw.node_costs[i].empty()) {
      return h.ErrorAt(raw.node_cost_pos[i], fmt::format("node {} has no strategies", i));
    }
    if (raw.node_usages[i].size() != raw.node_costs[i].size()) {
      return h.ErrorAt(raw.node_usage_pos[i],
                       fmt::format("node {} has {} costs but {} usages", i,
                                   raw.node_costs[i].size(), raw.node_usages[i].size()));
    }
    node.costs = std::move(raw.node_costs[i]);
    node.usages = std::move(raw.node_usages[i]);
  }
  p.edges.resize(raw.edge_nodes.size());
  for (size_t k = 0; k < p.edges.size(); ++k) {
    ProblemEdge& edge = p.edges[k];
    absl::int128 size = 1;
    for (int64_t v : raw.edge_nodes[k]) {
      if (v < 0 || v >= static_cast<int64_t>(n)) {
        return h.ErrorAt(raw.edge_node_pos[k],
                         fmt::format("edge {} names node {}, not in [0, {})", k, v, n));
      }
      size *= static_cast<int64_t>(p.nodes[v].costs.size());
      if (size > (absl::int128(1) << 40)) break;
    }
    if (size != static_cast<absl::int128>(raw.edge_costs[k].size())) {
      return h.ErrorAt(raw.edge_cost_pos[k],
                       fmt::format("edge {} has {} costs; its nodes' strategies make {}", k,
                                   raw.edge_costs[k].size(), Int128ToString(size)));
    }
    edge.nodes = std::move(raw.edge_nodes[k]);
    edge.costs = std::move(raw.edge_costs[k]);
  }
  return p;
}

}  // namespace

StatusOr<Problem> ParseProblem(std::string_view text, std::string_view file_name) {
  const char* furthest = text.data();
  Handler handler(text, file_name, &furthest);
  CountingIterator first(text.data(), &furthest), last(text.data() + text.size(), &furthest);
  bool ok = nlohmann::json::sax_parse(first, last, &handler);
  if (!ok) {
    if (!handler.status().ok()) return handler.status();
    return handler.ErrorAt(static_cast<size_t>(furthest - text.data()), "malformed JSON");
  }
  return Assemble(handler.raw(), handler);
}

StatusOr<Problem> ReadProblem(const std::string& path) {
  // zlib reads gzip files and passes plain files through unchanged.
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) {
    return absl::NotFoundError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  }
  gzbuffer(f, 1 << 20);
  std::string text;
  std::vector<char> buf(1 << 22);
  while (true) {
    int got = gzread(f, buf.data(), static_cast<unsigned>(buf.size()));
    if (got < 0) {
      int err = 0;
      std::string message = gzerror(f, &err);
      gzclose(f);
      return absl::InvalidArgumentError(fmt::format("{}: error: cannot read: {}", path, message));
    }
    if (got == 0) break;
    text.append(buf.data(), got);
  }
  gzclose(f);
  return ParseProblem(text, path);
}

Status CheckProblem(const Problem& problem) {
  const size_t n = problem.nodes.size();
  for (size_t i = 0; i < n; ++i) {
    const ProblemNode& node = problem.nodes[i];
    if (node.costs.empty()) return InvalidArgument("node {} has no strategies", i);
    if (node.usages.size() != node.costs.size()) {
      return InvalidArgument("node {} has {} costs but {} usages", i, node.costs.size(),
                             node.usages.size());
    }
    if (node.lower < 0) return InvalidArgument("node {}: lower bound {} is negative", i, node.lower);
    for (const auto& [lower, upper] : node.extra_intervals)
      if (lower < 0) return InvalidArgument("node {}: lower bound {} is negative", i, lower);
  }
  for (size_t k = 0; k < problem.edges.size(); ++k) {
    const ProblemEdge& edge = problem.edges[k];
    absl::int128 size = 1;
    for (int64_t v : edge.nodes) {
      if (v < 0 || v >= static_cast<int64_t>(n)) {
        return InvalidArgument("edge {} names node {}, not in [0, {})", k, v, n);
      }
      size *= static_cast<int64_t>(problem.nodes[v].costs.size());
      if (size > (absl::int128(1) << 40)) break;
    }
    if (size != static_cast<absl::int128>(edge.costs.size())) {
      return InvalidArgument("edge {} has {} costs; its nodes' strategies make {}", k,
                             edge.costs.size(), Int128ToString(size));
    }
  }
  return absl::OkStatus();
}

StatusOr<Evaluation> Evaluate(const Problem& problem, const Solution& solution) {
  if (solution.size() != problem.nodes.size()) {
    return InvalidArgument("the solution has {} entries for {} nodes", solution.size(),
                           problem.nodes.size());
  }
  Evaluation ev;
  // The usage profile changes only where an interval starts or ends: sort those events instead of
  // filling every time step (same result as the contest's dense array, without its memory).
  std::vector<std::pair<int64_t, absl::int128>> events;
  events.reserve(2 * problem.nodes.size());
  for (size_t i = 0; i < problem.nodes.size(); ++i) {
    const ProblemNode& node = problem.nodes[i];
    const int64_t s = solution[i];
    if (s < 0 || s >= static_cast<int64_t>(node.costs.size())) {
      return absl::OutOfRangeError(fmt::format(
          "node {}: strategy {} is out of range [0, {})", i, s, node.costs.size()));
    }
    ev.cost += node.costs[s];
    if (IsForbidden(node.costs[s])) ++ev.forbidden_choices;
    auto live = [&](int64_t lower, int64_t upper) {
      if (lower >= upper) return;
      events.push_back({lower, node.usages[s]});
      events.push_back({upper, -absl::int128(node.usages[s])});
    };
    live(node.lower, node.upper);
    for (const auto& [lower, upper] : node.extra_intervals) live(lower, upper);
  }
  for (const ProblemEdge& edge : problem.edges) {
    int64_t idx = 0;
    for (int64_t v : edge.nodes) idx = idx * problem.nodes[v].costs.size() + solution[v];
    ev.cost += edge.costs[idx];
    if (IsForbidden(edge.costs[idx])) ++ev.forbidden_choices;
  }
  std::sort(events.begin(), events.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  absl::int128 usage = 0;
  for (size_t e = 0; e < events.size();) {
    const int64_t t = events[e].first;
    for (; e < events.size() && events[e].first == t; ++e) usage += events[e].second;
    ev.peak_usage = std::max(ev.peak_usage, usage);
    if (problem.usage_limit && usage > *problem.usage_limit) {
      return absl::ResourceExhaustedError(
          fmt::format("the usage at time {} is {}, over the limit {}", t, Int128ToString(usage),
                      *problem.usage_limit));
    }
  }
  return ev;
}

std::string FormatSolution(const Solution& solution) {
  std::string out = "[";
  for (size_t i = 0; i < solution.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(solution[i]);
  }
  out += "]";
  return out;
}

std::string Int128ToString(absl::int128 v) {
  if (v == 0) return "0";
  bool neg = v < 0;
  absl::uint128 u = neg ? -absl::uint128(v) : absl::uint128(v);
  std::string digits;
  while (u > 0) {
    digits.push_back(static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  if (neg) digits.push_back('-');
  std::reverse(digits.begin(), digits.end());
  return digits;
}

}  // namespace spmdc::autoshard

#include "propagation/provenance.h"

#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"

namespace spmdc {

std::string_view EventKindName(EventKind k) {
  switch (k) {
    case EventKind::kAnnotation: return "annotation";
    case EventKind::kForward: return "forward";
    case EventKind::kBackward: return "backward";
    case EventKind::kControlFlow: return "control-flow";
    case EventKind::kShardGroup: return "shard-group";
    case EventKind::kPostProcess: return "post-process";
  }
  return "?";
}

void Provenance::Record(const Instruction* instr, ShardingEvent event) {
  if (!event.accepted) {
    int& n = rejected_[instr];
    if (n >= kMaxRejected) return;
    ++n;
  }
  events_[instr].push_back(std::move(event));
}

const std::vector<ShardingEvent>* Provenance::Events(const Instruction* instr) const {
  auto it = events_.find(instr);
  return it == events_.end() ? nullptr : &it->second;
}

namespace {

// The last accepted event of `instr` at or before sequence number `seq`.
const ShardingEvent* LastAcceptedBefore(const Provenance& p, const Instruction* instr, int64_t seq) {
  const auto* events = p.Events(instr);
  if (!events) return nullptr;
  const ShardingEvent* best = nullptr;
  for (const ShardingEvent& e : *events)
    if (e.accepted && e.seq <= seq) best = &e;
  return best;
}

std::string Describe(const ShardingEvent& e) {
  std::string from = e.from ? fmt::format(" from %{}", e.from->name()) : "";
  if (e.kind == EventKind::kAnnotation) return fmt::format("{} ({})", e.rule, EventKindName(e.kind));
  return fmt::format("{} rule '{}'{} at aggressiveness {}, iteration {}", EventKindName(e.kind),
                     e.rule, from, e.aggressiveness, e.iteration);
}

}  // namespace

std::string ExplainSharding(const Provenance& p, const Instruction& instr) {
  std::string out;
  if (!instr.has_sharding()) {
    out += fmt::format("%{} has no sharding", instr.name());
  } else {
    out += fmt::format("%{} : {} {}", instr.name(), instr.shape().ToString(false),
                       instr.sharding()->ToString(false));
  }
  out += "\n";
  const auto* events = p.Events(&instr);
  if (!events || events->empty()) {
    out += instr.has_sharding() ? "  set before propagation (no rule changed it)\n"
                                : "  no rule applied: no operand or user offered a sharding\n";
    return out;
  }
  // The chain: follow each accepted event to its source at that time.
  out += "why:\n";
  const Instruction* cur = &instr;
  const ShardingEvent* ev = LastAcceptedBefore(p, cur, INT64_MAX);
  absl::flat_hash_set<std::pair<const Instruction*, int64_t>> seen;
  int depth = 0;
  while (ev && depth < 64 && seen.insert({cur, ev->seq}).second) {
    out += fmt::format("  {}%{} = {}  <- {}\n", std::string(depth * 2, ' '), cur->name(),
                       ev->result.ToString(false), Describe(*ev));
    if (!ev->from) break;
    const Instruction* next = ev->from;
    const ShardingEvent* next_ev = LastAcceptedBefore(p, next, ev->seq);
    if (!next_ev) {
      if (next->has_sharding()) {
        out += fmt::format("  {}%{} = {}  <- given (annotation)\n", std::string((depth + 1) * 2, ' '),
                           next->name(), next->sharding()->ToString(false));
      }
      break;
    }
    cur = next;
    ev = next_ev;
    ++depth;
  }
  bool any_rejected = false;
  for (const ShardingEvent& e : *events) {
    if (e.accepted) continue;
    if (!any_rejected) out += "alternatives that lost:\n";
    any_rejected = true;
    out += fmt::format("  {} : {} ({})\n", e.result.ToString(false), Describe(e), e.why_not);
  }
  return out;
}

}  // namespace spmdc

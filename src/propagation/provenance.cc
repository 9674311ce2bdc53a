#include "propagation/provenance.h"

#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"
#include "ir/computation.h"

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

std::string Name(const Instruction* i) { return fmt::format("%{}", i->name()); }

// "forward from operand %x by the dot(lhs) rule", "backward from user %y (dot)", ...
std::string Describe(const ShardingEvent& e) {
  switch (e.kind) {
    case EventKind::kAnnotation:
      return e.rule;
    case EventKind::kForward:
      return e.from ? fmt::format("forward: rule '{}' applied to operand {}", e.rule, Name(e.from))
                    : fmt::format("forward: rule '{}'", e.rule);
    case EventKind::kBackward:
      return e.from ? fmt::format("backward: from its user {} ({})", Name(e.from), e.rule)
                    : fmt::format("backward: {}", e.rule);
    case EventKind::kControlFlow:
      return e.from ? fmt::format("control flow: kept equal to {} ({})", Name(e.from), e.rule)
                    : fmt::format("control flow: {}", e.rule);
    case EventKind::kShardGroup:
      return e.from ? fmt::format("shard group: from peer {} ({})", Name(e.from), e.rule)
                    : fmt::format("shard group: {}", e.rule);
    case EventKind::kPostProcess:
      return fmt::format("after propagation: {}", e.rule);
  }
  return e.rule;
}

std::string When(const ShardingEvent& e) {
  if (e.kind == EventKind::kAnnotation) return "";
  return fmt::format(" [aggressiveness {}, iteration {}]", e.aggressiveness, e.iteration);
}

}  // namespace

std::string ExplainSharding(const Provenance& p, const Instruction& instr) {
  std::string out;
  if (!instr.has_sharding()) {
    out += fmt::format("{} : {} has no sharding\n", Name(&instr), instr.shape().ToString(false));
  } else {
    out += fmt::format("{} : {} sharding={}\n", Name(&instr), instr.shape().ToString(false),
                       instr.sharding()->ToString(false));
  }
  const auto* events = p.Events(&instr);
  const ShardingEvent* last = events ? LastAcceptedBefore(p, &instr, INT64_MAX) : nullptr;
  if (!last) {
    if (instr.has_sharding()) out += "  why: set before propagation; no rule changed it\n";
    else if (instr.parent()->IsEntry() && instr.IsRoot())
      out += "  why: the entry result keeps its given sharding (none) unless propagation to the output is "
             "allowed (--propagate-to-output)\n";
    else if (instr.parent()->IsEntry() && instr.opcode() == Opcode::kParameter)
      out += "  why: entry parameters keep their given sharding (none) unless propagation to parameters is "
             "allowed (--propagate-to-parameters)\n";
    else if (!instr.parent()->IsEntry() && (!events || events->empty()))
      out += fmt::format("  why: it is in %{}, not the entry computation; computations applied by reduce, "
                         "sort, scatter, map, ... are never sharded\n", instr.parent()->name());
    else if (!events || events->empty()) {
      std::string users;
      for (const Instruction* u : instr.users())
        users += fmt::format("{}{} ({})", users.empty() ? "" : ", ", Name(u), OpcodeName(u->opcode()));
      out += fmt::format("  why: no operand or user offered a sharding{}\n",
                         users.empty() ? std::string() : fmt::format(" (its users, {}, give none to this operand)", users));
    }
    else out += "  why: every offered sharding was refused (see below)\n";
  } else {
    // The chain back to an annotation: each step names the rule and the instruction it came from.
    out += "  why (most recent first, back to the annotations):\n";
    const Instruction* cur = &instr;
    const ShardingEvent* ev = last;
    absl::flat_hash_set<std::pair<const Instruction*, int64_t>> seen;
    int depth = 0;
    while (ev && depth < 64 && seen.insert({cur, ev->seq}).second) {
      std::string indent(4 + depth * 2, ' ');
      out += fmt::format("{}{} = {}  <- {}{}\n", indent, Name(cur), ev->result.ToString(false), Describe(*ev), When(*ev));
      if (ev->merged) {
        out += fmt::format("{}  merged: {} from {} and {} (previous, from {})\n", indent,
                           ev->result.ToString(false), ev->from ? Name(ev->from) : std::string("the rule"),
                           ev->merged_previous.ToString(false),
                           ev->merged_previous_from == cur ? std::string("its own annotation")
                                                           : Name(ev->merged_previous_from));
      }
      if (!ev->from || ev->kind == EventKind::kAnnotation) break;
      const Instruction* next = ev->from;
      const ShardingEvent* next_ev = LastAcceptedBefore(p, next, ev->seq);
      if (!next_ev) {
        if (next->has_sharding())
          out += fmt::format("{}  {} = {}  <- given in the module\n", indent, Name(next),
                             next->sharding()->ToString(false));
        break;
      }
      cur = next;
      ev = next_ev;
      ++depth;
    }
  }
  // Alternatives that lost, deduplicated (the same offer is repeated at every level).
  if (events) {
    struct Alt { const ShardingEvent* e; int count; };
    std::vector<Alt> alts;
    for (const ShardingEvent& e : *events) {
      if (e.accepted) continue;
      bool dup = false;
      for (Alt& a : alts)
        if (a.e->from == e.from && a.e->rule == e.rule && a.e->why_not == e.why_not && a.e->result == e.result) {
          ++a.count;
          dup = true;
          break;
        }
      if (!dup) alts.push_back({&e, 1});
    }
    if (!alts.empty()) out += "  alternatives that lost:\n";
    for (const Alt& a : alts) {
      out += fmt::format("    {}  <- {}{}: {}{}\n", a.e->result.ToString(false), Describe(*a.e), When(*a.e),
                         a.e->why_not, a.count > 1 ? fmt::format(" (offered {} times)", a.count) : "");
    }
  }
  return out;
}

}  // namespace spmdc

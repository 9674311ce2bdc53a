// Provenance of propagated shardings: for every instruction, the rule applications that set its
// sharding (rule, source instruction, direction, aggressiveness) and the candidates that lost and
// why. Recorded always (one small record per change, shardings are shared values), and read by
// `spmdc explain`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/module.h"
#include "sharding/sharding.h"

namespace spmdc {

enum class EventKind : uint8_t {
  kAnnotation,   // given by the user (module text, --shard, a Sharding constraint)
  kForward,      // from operands
  kBackward,     // from a user
  kControlFlow,  // kept equal across while/conditional/call boundaries
  kShardGroup,   // shard_as / shard_like peers
  kPostProcess,  // restored or replicated at the end (entry signature rules)
};
std::string_view EventKindName(EventKind k);

struct ShardingEvent {
  int64_t seq = 0;                 // global order of events
  EventKind kind = EventKind::kAnnotation;
  std::string rule;                // "elementwise", "dot(lhs)", "reshape", ...
  const Instruction* from = nullptr;  // the operand/user/peer it came from
  int aggressiveness = 0;
  int64_t iteration = 0;
  Sharding result;                 // the sharding set (accepted) or offered (rejected)
  bool accepted = true;
  std::string why_not;             // for rejected candidates
  // Set when the result merged the candidate from `from` with the instruction's previous
  // sharding (partial shardings combined): that previous sharding and where it came from.
  bool merged = false;
  Sharding merged_previous;
  const Instruction* merged_previous_from = nullptr;
};

class Provenance {
 public:
  void Record(const Instruction* instr, ShardingEvent event);
  const std::vector<ShardingEvent>* Events(const Instruction* instr) const;
  int64_t NextSeq() { return next_seq_++; }
  // Bound on rejected candidates kept per instruction (the accepted ones are always kept).
  static constexpr int kMaxRejected = 8;

 private:
  absl::flat_hash_map<const Instruction*, std::vector<ShardingEvent>> events_;
  absl::flat_hash_map<const Instruction*, int> rejected_;
  int64_t next_seq_ = 0;
};

// Human-readable explanation of why `instr` has its sharding: the chain of rule applications back
// to user annotations, then the alternatives that lost.
std::string ExplainSharding(const Provenance& provenance, const Instruction& instr);

}  // namespace spmdc

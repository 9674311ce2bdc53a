// SingleDeviceContext: one device standing for the module's replicas x partitions devices
// (device_context.h). A collective over several devices is valid HLO (a per-device program, a
// shard_map body) that one device cannot execute: Unimplemented, exit 3, not bad input.
#include "interpreter/device_context.h"

#include "absl/container/flat_hash_set.h"
#include "fmt/ranges.h"
#include "ir/attributes.h"
#include "ir/collective_groups.h"

namespace spmdc {
namespace {

// The operands themselves (one array, or a tuple of them), checked against the result shape.
StatusOr<Literal> Identity(const Instruction& instr, const std::vector<Literal>& operands) {
  if (operands.empty()) return InvalidArgument("{} has no operands", OpcodeName(instr.opcode()));
  Literal out = operands.size() == 1 ? operands[0] : Literal::Tuple(operands);
  if (!out.shape().Compatible(instr.shape()) &&
      !(instr.shape().IsTuple() && out.shape().CompatibleIgnoringElementType(instr.shape())))
    return Unimplemented(
        "{} '{}': with one participant the result {} should equal the operand {} (this is a "
        "per-device program for several devices; partition and run it on several devices instead)",
        OpcodeName(instr.opcode()), instr.name(), instr.shape().ToString(), out.shape().ToString());
  return out;
}

}  // namespace

Status SingleDeviceContext::CheckSingleDeviceGroups(const Instruction& instr) const {
  const std::string_view op = OpcodeName(instr.opcode());
  StatusOr<std::vector<std::vector<int64_t>>> groups = GlobalDeviceGroups(instr, replicas_, partitions_);
  // Groups this system cannot form may suit a larger one: a per-device program, not bad input.
  if (!groups.ok())
    return Unimplemented("{}; the single-device interpreter runs it as on {} replicas x {} partitions "
                         "(partition the module and run it on several devices instead)",
                         groups.status().message(), replicas_, partitions_);
  for (const auto& g : *groups)
    if (g.size() > 1) {
      ASSIGN_OR_RETURN(GroupMode mode, CollectiveGroupMode(instr));
      return Unimplemented(
          "{} '{}' joins devices {{{}}} ({} mode on {} replicas x {} partitions); the single-device "
          "interpreter cannot stand for a collective between devices (partition the module and run it on "
          "several devices instead)",
          op, instr.name(), fmt::join(g, ","), GroupModeName(mode), replicas_, partitions_);
    }
  return absl::OkStatus();
}

StatusOr<Literal> SingleDeviceContext::AllReduce(const Instruction& instr,
                                                 const std::vector<Literal>& operands,
                                                 const ReduceFn& reduce) {
  RETURN_IF_ERROR(CheckSingleDeviceGroups(instr));
  return Identity(instr, operands);
}

StatusOr<Literal> SingleDeviceContext::AllGather(const Instruction& instr,
                                                 const std::vector<Literal>& operands) {
  RETURN_IF_ERROR(CheckSingleDeviceGroups(instr));
  return Identity(instr, operands);
}

StatusOr<Literal> SingleDeviceContext::ReduceScatter(const Instruction& instr,
                                                     const std::vector<Literal>& operands,
                                                     const ReduceFn& reduce) {
  RETURN_IF_ERROR(CheckSingleDeviceGroups(instr));
  return Identity(instr, operands);
}

StatusOr<Literal> SingleDeviceContext::AllToAll(const Instruction& instr,
                                                const std::vector<Literal>& operands) {
  RETURN_IF_ERROR(CheckSingleDeviceGroups(instr));
  return Identity(instr, operands);
}

StatusOr<Literal> SingleDeviceContext::CollectivePermute(const Instruction& instr,
                                                         const std::vector<Literal>& operands) {
  if (operands.size() != 1)
    return Unimplemented("collective-permute with {} operands (in-place form) on one device",
                         operands.size());
  if (const PairList* written = instr.attr<PairList>(AttrId::kSourceTargetPairs))
    for (const auto& [src, dst] : *written)
      if (src != dst)
        return Unimplemented(
            "collective-permute '{}' has the pair {{{},{}}}; the single-device interpreter cannot stand for a "
            "collective between devices (partition the module and run it on several devices instead)",
            instr.name(), src, dst);
  StatusOr<std::vector<std::pair<int64_t, int64_t>>> pairs = GlobalPermutePairs(instr, replicas_, partitions_);
  if (!pairs.ok())
    return Unimplemented("{}; the single-device interpreter runs it as on {} replicas x {} partitions "
                         "(partition the module and run it on several devices instead)",
                         pairs.status().message(), replicas_, partitions_);
  // The same on every device: each keeps its own value, or none receives anything.
  absl::flat_hash_set<int64_t> to_self;
  for (const auto& [src, dst] : *pairs) to_self.insert(src);
  if (!to_self.empty() && static_cast<int64_t>(to_self.size()) != replicas_ * partitions_)
    return Unimplemented(
        "collective-permute '{}' keeps the value on {} of the {} devices ({} replicas x {} partitions) and "
        "zeros the others; the single-device interpreter cannot stand for that",
        instr.name(), to_self.size(), replicas_ * partitions_, replicas_, partitions_);
  const bool keeps = !to_self.empty();
  if (keeps) return Identity(instr, operands);
  Literal zeros(operands[0].shape());  // nobody sends to device 0
  return Identity(instr, {zeros});
}

StatusOr<Literal> SingleDeviceContext::CollectiveBroadcast(const Instruction& instr,
                                                           const std::vector<Literal>& operands) {
  RETURN_IF_ERROR(CheckSingleDeviceGroups(instr));
  return Identity(instr, operands);
}

}  // namespace spmdc

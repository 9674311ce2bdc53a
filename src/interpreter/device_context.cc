// SingleDeviceContext: device 0 alone. Every collective must involve device 0 only (replica
// groups {{0}} or absent); it is then an identity (or zeros for a collective-permute that sends
// nothing to device 0). A collective over several devices is valid HLO (a per-device program, a
// shard_map body) that one device cannot execute: Unimplemented, exit 3, not bad input.
#include "interpreter/device_context.h"

#include "ir/attributes.h"

namespace spmdc {
namespace {

Status CheckSingleDeviceGroups(const Instruction& instr) {
  const ReplicaGroups* rg = instr.attr<ReplicaGroups>(AttrId::kReplicaGroups);
  if (!rg) return absl::OkStatus();
  for (const auto& group : rg->Expanded()) {
    for (int64_t d : group) {
      if (d != 0)
        return Unimplemented(
            "{} '{}' has a replica group with device {}; the single-device interpreter runs "
            "device 0 alone (partition the module and run it on several devices instead)",
            OpcodeName(instr.opcode()), instr.name(), d);
    }
  }
  return absl::OkStatus();
}

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
  bool to_self = false;
  if (const PairList* pairs = instr.attr<PairList>(AttrId::kSourceTargetPairs)) {
    for (const auto& [src, dst] : *pairs) {
      if (src != 0 || dst != 0)
        return Unimplemented(
            "collective-permute '{}' has the pair {{{},{}}}; the single-device interpreter runs "
            "device 0 alone",
            instr.name(), src, dst);
      to_self = true;
    }
  }
  if (to_self) return Identity(instr, operands);
  Literal zeros(operands[0].shape());  // nobody sends to device 0
  return Identity(instr, {zeros});
}

StatusOr<Literal> SingleDeviceContext::CollectiveBroadcast(const Instruction& instr,
                                                           const std::vector<Literal>& operands) {
  RETURN_IF_ERROR(CheckSingleDeviceGroups(instr));
  return Identity(instr, operands);
}

}  // namespace spmdc

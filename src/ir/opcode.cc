#include "ir/opcode.h"

#include "absl/container/flat_hash_map.h"

namespace spmdc {
namespace {
struct OpcodeInfo {
  std::string_view name;
  int arity;
  OpKind kind;
};
constexpr OpcodeInfo kOpcodeInfos[] = {
#define V(e, name, arity, kind) {name, arity, OpKind::kind},
#include "ir/opcodes.def"
#undef V
};
}  // namespace

std::string_view OpcodeName(Opcode op) { return kOpcodeInfos[static_cast<int>(op)].name; }
int OpcodeArity(Opcode op) { return kOpcodeInfos[static_cast<int>(op)].arity; }
OpKind OpcodeKind(Opcode op) { return kOpcodeInfos[static_cast<int>(op)].kind; }

std::optional<Opcode> OpcodeFromName(std::string_view name) {
  static const auto* map = [] {
    auto* m = new absl::flat_hash_map<std::string_view, Opcode>();
    for (int i = 0; i < kNumOpcodes; ++i) (*m)[kOpcodeInfos[i].name] = static_cast<Opcode>(i);
    return m;
  }();
  auto it = map->find(name);
  if (it == map->end()) return std::nullopt;
  return it->second;
}

bool OpcodeHasSideEffect(Opcode op) {
  switch (op) {
    case Opcode::kAfterAll: case Opcode::kInfeed: case Opcode::kOutfeed: case Opcode::kSend:
    case Opcode::kSendDone: case Opcode::kRecv: case Opcode::kRecvDone: case Opcode::kRng:
    case Opcode::kRngGetAndUpdateState: case Opcode::kAddDependency:
      return true;
    default:
      return false;
  }
}

bool IsCollectiveOpcode(Opcode op) {
  switch (op) {
    case Opcode::kAllGather: case Opcode::kAllGatherStart: case Opcode::kAllReduce:
    case Opcode::kAllReduceStart: case Opcode::kAllToAll: case Opcode::kCollectiveBroadcast:
    case Opcode::kCollectivePermute: case Opcode::kCollectivePermuteStart:
    case Opcode::kReduceScatter: case Opcode::kRaggedAllToAll: case Opcode::kCollectiveReduce:
      return true;
    default:
      return false;
  }
}

bool IsGroupedCollectiveOpcode(Opcode op) {
  switch (op) {
    case Opcode::kAllReduce: case Opcode::kAllReduceStart: case Opcode::kAllGather:
    case Opcode::kAllGatherStart: case Opcode::kReduceScatter: case Opcode::kAllToAll:
    case Opcode::kCollectiveBroadcast:
      return true;
    default:
      return false;
  }
}

}  // namespace spmdc

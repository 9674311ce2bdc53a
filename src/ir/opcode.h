// The Opcode enum and its properties, generated from opcodes.def (the single source of truth).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace spmdc {

enum class Opcode : uint8_t {
#define V(e, name, arity, kind) e,
#include "ir/opcodes.def"
#undef V
};

inline constexpr int kNumOpcodes = 0
#define V(e, name, arity, kind) +1
#include "ir/opcodes.def"
#undef V
    ;

inline constexpr int kVariadic = -1;
enum class OpKind : uint8_t { kUnary, kBinary, kTernary, kOther };

std::string_view OpcodeName(Opcode op);
std::optional<Opcode> OpcodeFromName(std::string_view name);
// Fixed operand count, or kVariadic.
int OpcodeArity(Opcode op);
OpKind OpcodeKind(Opcode op);
inline bool IsElementwiseOpcode(Opcode op) { return OpcodeKind(op) != OpKind::kOther; }
// Ops whose execution has an effect beyond their result (never removed by DCE, never CSE'd).
// custom-call is side-effecting only with custom_call_has_side_effect=true (see Instruction).
bool OpcodeHasSideEffect(Opcode op);
// Collectives that communicate across devices (all-reduce, all-gather, ..., their async forms).
bool IsCollectiveOpcode(Opcode op);
// The collectives whose devices are replica groups (all-reduce, all-gather, reduce-scatter,
// all-to-all, collective-broadcast and the async starts), as opposed to collective-permute's
// source-target pairs.
bool IsGroupedCollectiveOpcode(Opcode op);

}  // namespace spmdc

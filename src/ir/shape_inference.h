// Shape inference for every opcode: the result shape of an instruction from its operands' shapes,
// its attributes and its called computations. Used by the verifier (declared == inferred), by
// the parser when a shape is omitted (tuple, get-tuple-element, ...), and by passes that build
// new instructions.
#pragma once

#include <optional>
#include <vector>

#include "ir/instruction.h"
#include "support/status.h"

namespace spmdc {

// Infers the shape `instr` must have. Returns InvalidArgument (unlocated; the verifier adds the
// location) when operands/attributes are inconsistent, and Unimplemented for opcodes whose
// result shape cannot be inferred (e.g. custom-call: any declared shape is accepted there).
StatusOr<Shape> InferShape(const Instruction& instr);

// How a ragged-dot is ragged (one place for shape inference and the interpreter): its lhs
// ragged dimension, the kind of that dimension, the rhs group dimension (non-contracting mode
// only), and the lhs dimensions that index group_sizes before its last (group) dimension when
// group_sizes has rank > 1: the lhs batch dimensions (lhs_batch_dims order), then the dimensions
// of the ragged one's kind that precede it (free: ascending; contracting: lhs_contracting_dims
// order); for a ragged batch dimension, the batch dimensions listed before it.
struct RaggedDotMode {
  enum Kind { kNonContracting, kContracting, kBatch } kind = kNonContracting;
  int64_t lhs_ragged = 0;
  std::optional<int64_t> rhs_group;
  std::vector<int64_t> group_prefix;
};
StatusOr<RaggedDotMode> ClassifyRaggedDot(const Instruction& instr, int64_t lhs_rank,
                                          int64_t rhs_rank);

}  // namespace spmdc

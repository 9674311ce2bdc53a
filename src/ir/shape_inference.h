// Shape inference for every opcode: the result shape of an instruction from its operands' shapes,
// its attributes and its called computations. Used by the verifier (declared == inferred), by
// the parser when a shape is omitted (tuple, get-tuple-element, ...), and by passes that build
// new instructions.
#pragma once

#include <vector>

#include "ir/instruction.h"
#include "support/status.h"

namespace spmdc {

// Infers the shape `instr` must have. Returns InvalidArgument (unlocated; the verifier adds the
// location) when operands/attributes are inconsistent, and Unimplemented for opcodes whose
// result shape cannot be inferred (e.g. custom-call: any declared shape is accepted there).
StatusOr<Shape> InferShape(const Instruction& instr);

}  // namespace spmdc

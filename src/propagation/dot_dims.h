// The einsum view of dot and convolution (GSPMD design idea 8): every dimension of a dot or a
// convolution is classified as batch, contracting, lhs- or rhs-non-contracting, or (for real
// convolutions) spatial, with its index in lhs, rhs and output (-1 where it does not appear).
// Shared by propagation and the partitioner, so both read a convolution the same way.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/instruction.h"

namespace spmdc {

struct DotDim {
  int64_t lhs = -1, rhs = -1, output = -1;
  int64_t spatial = -1;  // the convolution spatial index this came from, or -1
};

struct DotDims {
  std::vector<DotDim> batch, contracting, lhs_non_contracting, rhs_non_contracting;
  std::vector<DotDim> conv_spatial;  // true spatial dims of a convolution (windowed)
};

// For a dot: batch dims come first in the output, then lhs then rhs non-contracting dims.
DotDims DotDimsOfDot(const Instruction& dot);
// The dot family (dot, ragged-dot, scaled-dot) read as a dot of operands 0 and
// DotRhsOperand(). A ragged-dot is read in its ragged non-contracting form (the MoE one) only:
// its lhs ragged dim and rhs group dim take part in no list (they stay unsharded: group sizes
// count rows of the whole lhs, and a row meets the rhs slice of its group), which both users of
// DotDims treat as "must be unsharded". nullopt for the other ragged-dot forms and for malformed
// dimension numbers.
std::optional<DotDims> DotDimsOfDotFamily(const Instruction& instr);
// The operand index of the rhs: 1 for every member (XLA's scaled-dot is (lhs, rhs, lhs_scale,
// rhs_scale): its scales follow the two dot operands, ScaledDotScaleOperand).
int64_t DotRhsOperand(const Instruction& instr);
// A scaled-dot's scale of side k (0: lhs, 1: rhs): operand 2 + k.
constexpr int64_t ScaledDotScaleOperand(int k) { return 2 + k; }
// For a convolution: batch/feature dims plus spatial dims recognised as batch-like, contracting
// or non-contracting (a convolution written as a dot); the rest are conv_spatial.
DotDims DotDimsOfConvolution(const Instruction& conv);
// Either of the above by opcode.
DotDims DotDimsOf(const Instruction& instr);

}  // namespace spmdc

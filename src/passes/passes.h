// Clean-up passes run after partitioning (GSPMD.md §3.1 step 6). Each returns whether it changed
// the module.
#pragma once

#include "ir/module.h"
#include "support/status.h"

namespace spmdc {

// Removes instructions whose values are unused (never side-effecting ones, never roots or
// parameters) and computations nothing calls.
StatusOr<bool> RunDce(Module& module);
// get-tuple-element(tuple(a, b, ...), i) -> the i-th operand.
StatusOr<bool> RunTupleSimplifier(Module& module);
// Merges identical instructions (same opcode, operands, attributes, shape; no side effects, no
// called computations other than identical ones) so that repeated table lookups and reshards of
// the same value are computed once.
StatusOr<bool> RunCse(Module& module);
// Tuple simplification, CSE, DCE.
StatusOr<bool> RunCleanup(Module& module);

}  // namespace spmdc

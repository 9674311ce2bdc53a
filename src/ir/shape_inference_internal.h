// Helpers shared by the shape-inference files (shape_inference*.cc). Not a public API.
//
// Every helper checks before it indexes: the instruction may come from any text a parser accepts
// (missing operands, tuples where arrays belong, absurd attributes), and must yield a Status.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/computation.h"
#include "ir/instruction.h"
#include "ir/shape.h"
#include "support/status.h"

namespace spmdc::shape_inference {

// ---- Families, each defined in one file --------------------------------------------------
// shape_inference.cc: elementwise ops and data movement.
StatusOr<Shape> InferElementwise(const Instruction& instr);
StatusOr<Shape> InferDataMovement(const Instruction& instr);
// shape_inference_compute.cc: reductions, windows, dot, convolution, gather/scatter, sort, fft,
// linear algebra, rng, batch norm, top-k.
StatusOr<Shape> InferCompute(const Instruction& instr);
// shape_inference_control.cc: control flow, calls, async, collectives, tokens and I/O.
StatusOr<Shape> InferControl(const Instruction& instr);

// ---- Small checks --------------------------------------------------------------------------
// The operand at `i`, or an error when the operand list is shorter.
StatusOr<const Instruction*> Operand(const Instruction& instr, int64_t i);
// Requires exactly / at least `n` operands.
Status ExpectOperandCount(const Instruction& instr, int64_t n);
Status ExpectMinOperandCount(const Instruction& instr, int64_t n);
// Shape of operand `i` that must be an array.
StatusOr<Shape> ArrayOperand(const Instruction& instr, int64_t i);
// An array's dims with layout dropped, dynamic flags kept.
Shape StripLayout(const Shape& s);

// Required attributes: InvalidArgument naming the attribute when absent.
StatusOr<int64_t> RequiredInt(const Instruction& instr, AttrId id);
StatusOr<std::vector<int64_t>> RequiredInts(const Instruction& instr, AttrId id);
StatusOr<const Computation*> RequiredComputation(const Instruction& instr, AttrId id);

// Dimension numbers inside [0, rank), pairwise distinct.
Status CheckDimList(const std::vector<int64_t>& dims, int64_t rank, std::string_view what);

// Equal up to floating-point precision (f32 vs bf16) and dynamic flags; layouts ignored.
bool SameShapeIgnoringFpPrecision(const Shape& a, const Shape& b);
// Equal up to dynamic flags; layouts ignored. Unbounded dims match any size.
bool SameShape(const Shape& a, const Shape& b);
bool SameDims(const Shape& a, const Shape& b);
bool SameTypeIgnoringFpPrecision(DType a, DType b);

// A called computation's parameter `i` (error if missing) and root (error if missing).
StatusOr<Shape> ComputationParam(const Computation& c, int64_t i);
StatusOr<Shape> ComputationRoot(const Computation& c);
// Checks that `c` takes exactly `params` (ignoring layouts and fp precision when
// `ignore_fp_precision`) and returns its root shape.
StatusOr<Shape> CheckSignature(const Computation& c, const std::vector<Shape>& params,
                               std::string_view role, bool ignore_fp_precision = false);
// Checks a reducer `(T1..Tn, T1..Tn) -> (T1..Tn)` over scalars `accumulators`.
Status CheckReducer(const Computation& c, const std::vector<Shape>& accumulators,
                    std::string_view role);
// The same for reduce and reduce-window, where XLA (VerifyReducerShape) also lets a reducer over
// one input return a 1-tuple, and the op's result is then a 1-tuple too. Returns whether the
// reducer returns a tuple (so the result is a tuple).
StatusOr<bool> CheckReducer(const Computation& c, const std::vector<Shape>& accumulators,
                            std::string_view role, bool allow_tuple_of_one);

// Window output size along one dimension (the reduce-window / convolution formula).
StatusOr<int64_t> WindowedOutputSize(int64_t input, const WindowDim& w, int64_t dim);
// Validates a window against `rank` dimensions.
Status CheckWindow(const Window& window, int64_t rank);

// Multiplication with overflow detection.
StatusOr<int64_t> CheckedMul(int64_t a, int64_t b);
// Shape of the `index`th operand as a short string, for messages.
std::string ShapeText(const Shape& s);
// "tuple of the given shapes, or the single shape when there is one".
Shape TupleOrSingle(std::vector<Shape> shapes);

}  // namespace spmdc::shape_inference

// Internal to the interpreter: the evaluation functions of the op families implemented outside
// interpreter.cc (elementwise, convert, shape ops, batch norm). Each takes the instruction (for
// attributes and result shape) and evaluated operands and returns the result value.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "ir/instruction.h"
#include "ir/literal.h"
#include "support/status.h"

namespace spmdc::interp {

// A result array of `shape` with unspecified contents (the caller writes every element),
// refused (InvalidArgument) when larger than `max_bytes`.
StatusOr<Literal> NewArray(const Shape& shape, int64_t max_bytes);

// --- elementwise.cc
// Unary/binary/ternary ops of kind kUnary/kBinary/kTernary except convert, copy and
// reduce-precision (see convert.cc).
StatusOr<Literal> EvalElementwise(const Instruction& instr, const std::vector<const Literal*>& ops,
                                  int64_t max_bytes);

// --- convert.cc
StatusOr<Literal> ConvertLiteral(const Literal& in, DType to, int64_t max_bytes);
StatusOr<Literal> EvalBitcastConvert(const Instruction& instr, const Literal& in,
                                     int64_t max_bytes);
StatusOr<Literal> EvalReducePrecision(const Instruction& instr, const Literal& in,
                                      int64_t max_bytes);

// --- shape_ops.cc
// Copies a strided N-d block of `elem_bytes`-sized elements: for every index i of `counts`,
// dst[dst_offset + sum(i*dst_strides)] = src[src_offset + sum(i*src_strides)] (offsets and
// strides in elements; strides may be zero or negative).
void StridedCopy(int elem_bytes, const std::byte* src, int64_t src_offset,
                 const std::vector<int64_t>& src_strides, std::byte* dst, int64_t dst_offset,
                 const std::vector<int64_t>& dst_strides, const std::vector<int64_t>& counts);
StatusOr<Literal> EvalIota(const Instruction& instr, int64_t max_bytes);
StatusOr<Literal> EvalBroadcast(const Instruction& instr, const Literal& in, int64_t max_bytes);
StatusOr<Literal> EvalTranspose(const Instruction& instr, const Literal& in, int64_t max_bytes);
StatusOr<Literal> EvalSlice(const Instruction& instr, const Literal& in, int64_t max_bytes);
StatusOr<Literal> EvalDynamicSlice(const Instruction& instr, const std::vector<const Literal*>& ops,
                                   int64_t max_bytes);
// `base` is the operand (moved in when the caller can donate it: then the update is in place);
// ops[0] is ignored, ops[1] is the update, ops[2...] the start indices.
StatusOr<Literal> EvalDynamicUpdateSlice(const Instruction& instr, Literal base,
                                         const std::vector<const Literal*>& ops, int64_t max_bytes);
StatusOr<Literal> EvalPad(const Instruction& instr, const Literal& in, const Literal& pad_value,
                          int64_t max_bytes);
StatusOr<Literal> EvalConcatenate(const Instruction& instr, const std::vector<const Literal*>& ops,
                                  int64_t max_bytes);
StatusOr<Literal> EvalReverse(const Instruction& instr, const Literal& in, int64_t max_bytes);

// --- batch_norm.cc
StatusOr<Literal> EvalBatchNorm(const Instruction& instr, const std::vector<const Literal*>& ops,
                                int64_t max_bytes);

}  // namespace spmdc::interp

namespace spmdc::interp {

// Threads the data-parallel loops of this file's ops may use on the calling thread (set by the
// executor from InterpreterOptions::intra_op_threads; 1 when unset).
int& IntraOpThreads();

// Runs fn(begin, end) over [0, n) split into contiguous ranges on up to IntraOpThreads() threads
// (the caller's thread included); small ranges run inline. `bytes_per_item` sizes the split.
void ParallelFor(int64_t n, int64_t bytes_per_item, const std::function<void(int64_t, int64_t)>& fn);

}  // namespace spmdc::interp

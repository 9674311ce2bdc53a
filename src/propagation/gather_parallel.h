// Parallel dimensions of gather and scatter (GSPMD.md §1.5): an index dimension produced by an
// iota (directly, through broadcast, a concatenate along index_vector_dim, an s32 constant equal
// to its index, or a loop-invariant while/conditional tuple element traced back to the caller)
// that addresses an operand dimension with slice size 1 makes operand, indices and result
// "parallel" along it: they may all be sharded alike there. Explicit batching dims
// (operand_batching_dims / input_batching_dims) are parallel dims too.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/module.h"

namespace spmdc {

// The while/conditional/call that calls each computation (propagation's computation_map).
using CallerMap = absl::flat_hash_map<const Computation*, Instruction*>;

// The dimension along which `maybe_iota` counts 0, 1, 2, ... (XLA's GetDimensionForIota).
std::optional<int64_t> DimensionForIota(const Instruction& maybe_iota, const CallerMap& callers);

// One entry per parallel dim: indices[k], operand[k] and result[k] (the gather output dim, or the
// scatter update dim) move together.
struct ParallelDims {
  std::vector<int64_t> indices, operand, result;
  bool empty() const { return indices.empty(); }
};
// Which parallel dims: the explicit batching dims, the iota-derived ("implicit") ones, or both
// (explicit first). Forward propagation treats the two kinds in separate steps; backward
// propagation to the operand / updates uses both.
enum class ParallelKind { kAll, kExplicit, kImplicit };
std::optional<ParallelDims> GatherParallelDims(const Instruction& gather, const CallerMap& callers,
                                               ParallelKind kind = ParallelKind::kAll);
// For scatter(operands..., indices, updates...); `result` holds update dims.
std::optional<ParallelDims> ScatterParallelDims(const Instruction& scatter, const CallerMap& callers,
                                                ParallelKind kind = ParallelKind::kAll);

}  // namespace spmdc

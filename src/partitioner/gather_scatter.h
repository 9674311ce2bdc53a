// Gather and scatter without replicating their operands (GSPMD.md §3.9). One plan per pair of
// operand / indices shardings: every device runs the op on its shards, and the plan says what
// the local results are. Operand dims a device may hold a tile of:
//   - passthrough dims (the slice spans the whole dim): the result is tiled alike on the
//     matching offset / update-window dims;
//   - trivially sliced dims (slice size 1, indexed): indices are shifted into the local range;
//     a gather clamps as XLA does, masks rows held elsewhere to zero and sums them over the
//     devices of that dim (all-reduce, or reduce-scatter when the result is wanted tiled); a
//     scatter simply drops the updates that land out of its range;
//   - parallel dims (explicit batching dims, iota-derived ones) tiled like the indices: local.
// Indices (and updates) may be tiled on their batch dims: a gather's result follows them; a
// scatter's partial results are combined with an all-reduce of its combiner (add, mul, min,
// max, and, or) from an identity-initialised operand. Plans are compared by estimated bytes
// moved (ReshardCost) plus local work; when the best one replicates everything, the caller's
// default path runs instead.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "partitioner/reshard.h"

namespace spmdc {

// What the gather/scatter handlers need from the computation partitioner.
struct GatherScatterContext {
  SpmdBuilder* b = nullptr;
  Resharder* r = nullptr;
  // The partitioned value of an operand of the instruction.
  std::function<const PValue&(const Instruction*)> get;
  // `c` partitioned with replicated parameters and root (scatter combiners).
  std::function<StatusOr<Computation*>(const Computation& c)> partition_replicated;
  // Partial results summed over `groups` delivered tiled like `target` with a reduce-scatter,
  // when that applies (the dot handler's ReduceScatterTo).
  std::function<std::optional<PValue>(const PValue& v, const std::vector<std::vector<int64_t>>& groups,
                                      const Sharding& target, const std::string& kind)>
      reduce_scatter_to;
};

// The partitioned gather / scatter, resharded to `target`; nullopt when no plan does better than
// replicating every operand (the caller then takes its default path).
StatusOr<std::optional<PValue>> PartitionGather(const GatherScatterContext& ctx, const Instruction& gather,
                                                const Sharding& target);
StatusOr<std::optional<PValue>> PartitionScatter(const GatherScatterContext& ctx, const Instruction& scatter,
                                                 const Sharding& target);

}  // namespace spmdc

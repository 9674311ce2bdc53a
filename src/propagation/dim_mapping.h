// Adapters from instructions to the sharding algebra's dimension correspondences (dot operands
// and result, gather/scatter operands, indices, updates and result): the building block of the
// dot, gather and scatter rules of propagation and of the partitioner.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/instruction.h"
#include "sharding/algebra.h"

namespace spmdc {

// MapShardingDims with the correspondence given as parallel lists: dst dim dst_dims[i] is tiled
// like src dim src_dims[i]; other src dims are replicated first, other dst dims untiled.
Sharding MapShardingDims(const Sharding& s, const std::vector<int64_t>& src_dims,
                         const std::vector<int64_t>& dst_dims, int64_t dst_rank);

// GatherDimsOf / ScatterDimsOf come from sharding/algebra.h.

// Gather: indices <-> output batch dims, operand passthrough <-> output offset dims.
struct GatherDimMap {
  std::vector<int64_t> index_passthrough, output_batch;
  std::vector<int64_t> operand_passthrough, output_offset;
};
GatherDimMap GatherDimMapOf(const Instruction& gather);

// Scatter (operands..., indices, updates...): indices <-> update scatter dims, operand
// passthrough <-> update window dims.
struct ScatterDimMap {
  std::vector<int64_t> index_passthrough, update_scatter;
  std::vector<int64_t> operand_passthrough, update_window;
};
ScatterDimMap ScatterDimMapOf(const Instruction& scatter);

}  // namespace spmdc

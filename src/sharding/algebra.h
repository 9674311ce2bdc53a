// The sharding algebra (GSPMD.md §1.5): pure functions from shardings to shardings that both
// propagation and the partitioner build on. Every function keeps the input's metadata unless
// stated; none mutates anything. Dimension arguments refer to data dims unless stated.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "ir/shape.h"
#include "sharding/sharding.h"

namespace spmdc {

class Instruction;

// Output data dim i takes input data dim perm[i]; subgroup dims stay last. `perm` may also cover
// every tile dim (data + subgroup). Tile-maximal and manual shardings are returned unchanged.
Sharding TransposeSharding(const Sharding& sharding, std::span<const int64_t> perm);

// The sharding of reshape(x) : src_shape -> dst_shape when x has `sharding`, if it keeps every
// tile contiguous: splitting a dim whose partition count divides (or is a multiple of) the major
// part, merging dims where only the most-major partitioned dim is partial, size-1 dims anywhere.
// When the partitions cannot be laid out on the target dims, the gcd is kept and the rest becomes
// partial replication. nullopt when the source tiles are not contiguous in the reshaped layout.
std::optional<Sharding> ReshapeSharding(const Shape& src_shape, const Shape& dst_shape,
                                        const Sharding& sharding);

// Always a sharding for the reshape: like ReshapeSharding, but the partitions that would make a
// tile non-contiguous are replicated instead of failing (replicated when nothing survives).
// Manual subgroups are kept.
Sharding PropagateShardingThroughReshape(const Shape& src_shape, const Shape& dst_shape,
                                         const Sharding& sharding);

// Reverses the tile order along `dims` (for reverse(x, dims)).
Sharding ReverseSharding(const Sharding& sharding, std::span<const int64_t> dims);

// Moves the partitions of data `dims` into the replication group (a REPLICATED subgroup), giving
// replicated when no data partition (and no manual subgroup) remains.
Sharding PartiallyReplicateTiledShardingOnDims(const Sharding& sharding,
                                               std::span<const int64_t> dims);
Sharding PartiallyReplicateTiledShardingOnAllDimsExcept(const Sharding& sharding,
                                                        std::span<const int64_t> dims_to_keep);

// Replicates every data dim but keeps a manual subgroup. With data_rank >= 0 the result has that
// many (size-1) data dims (for a different-rank value).
Sharding ReplicateAllDataDims(const Sharding& sharding, int64_t data_rank = -1);

// Drops data `dims`, whose tile counts must be 1 (CHECKed); subgroup dims kept.
Sharding RemoveShapeDimensions(const Sharding& sharding, std::span<const int64_t> dims);

// A transpose where dims may appear or disappear: src_to_tgt[i] is the target dim of source data
// dim i (-1: removed), tgt_to_src[j] the source dim of target data dim j (-1: created, tile 1).
// nullopt when a removed dim is partitioned. Subgroup dims are carried over.
std::optional<Sharding> TransposeShardingWithCollapsedDims(const Sharding& sharding,
                                                           std::span<const int64_t> src_to_tgt,
                                                           std::span<const int64_t> tgt_to_src);

// Devices split into groups by their tile coordinates along `group_dims` (tile dims; subgroup
// dims allowed). `sharding` is the in-group sharding over in-group ids 0..group_size-1 (an iota
// over the remaining tile coordinates, row-major), and device_groups[g][k] is the device with
// in-group id k in group g (groups row-major over the group coordinates).
struct GroupedSharding {
  std::vector<std::vector<int64_t>> device_groups;
  std::vector<int64_t> group_dims;       // tile dims grouped on
  std::vector<int64_t> group_dim_sizes;  // number of groups along each of them
  int64_t data_rank = 0;                 // data rank of the original sharding
  Sharding sharding;                     // per-group sharding
  bool subgroup_manual = false;          // in-group shardings are manual (grouped on manual dim)
  // Subgroup types of the original (replicate_on_last counts as REPLICATED), for ungrouping.
  std::vector<SubgroupType> original_subgroup_types;
};

// `group_dim_shards[i]` (default 1): how many tiles along group_dims[i] stay inside one group
// (the tile dim is split as [groups, shards]). CHECKs divisibility. With `subgroup_manual`, the
// in-group sharding is Manual (used to enter per-group manual partitioning).
GroupedSharding GroupShardingOnDims(const Sharding& sharding, std::span<const int64_t> group_dims,
                                    std::span<const int64_t> group_dim_shards = {},
                                    bool subgroup_manual = false);
// Groups on every data dim except `non_group_dims`.
GroupedSharding GroupShardingOnAllDimsExcept(const Sharding& sharding,
                                             std::span<const int64_t> non_group_dims,
                                             bool subgroup_manual = false);
// The inverse: the full sharding whose group_dims carry the group coordinates (major) times the
// in-group tiling (minor). Works for any in-group sharding (tiled, partially replicated,
// replicated, manual).
Sharding UngroupSharding(const GroupedSharding& grouped);

// Groups on the manual subgroup dim: one group per manual coordinate, in-group sharding = the
// non-manual part. CHECKs that `sharding` has a manual subgroup.
GroupedSharding GetManualSubgroupSharding(const Sharding& sharding);

// `grouped` with `reference`'s device groups. When every group of `grouped` holds exactly the
// devices of one reference group (the same group index unless `ignore_group_order`) and the
// in-group orders differ by one common permutation, the in-group sharding is renumbered so every
// device keeps its data; otherwise only the groups are replaced (the caller reshards).
GroupedSharding AlignGroupsWith(GroupedSharding grouped, const GroupedSharding& reference,
                                bool ignore_group_order = false);

// The shape each group sees: dims along group dims divided (ceil) by the number of groups.
Shape GetPerGroupBaseShape(const GroupedSharding& grouped, const Shape& shape);

// Merges `to_merge` into *dst when both are tiled with the same data rank, the same devices and
// the same manual subgroup, and on every data dim their tile counts are equal or one is 1, and
// the devices of each merged tile form equal-sized groups consistent with both. The merged
// sharding must have at least `minimum_tiles` tiles. A tile-maximal *dst simply takes `to_merge`.
// Metadata: dst's followed by to_merge's entries dst lacks. Returns whether *dst changed.
bool MergeShardingIfCompatible(const Sharding& to_merge, int64_t minimum_tiles, Sharding* dst);

// A sharding with data tiles `tdims` where device d holds tile tile_of[d] (replicas in device
// order); nullopt when the tiles are not held equally often.
std::optional<Sharding> ShardingFromTiles(const std::vector<int64_t>& tdims,
                                          const std::vector<std::vector<int64_t>>& tile_of);

// Every device's tile of `potential_sub` lies inside its tile of `sharding` (for `shape`).
bool IsSubTilingOrEqualSharding(const Shape& shape, const Sharding& potential_sub,
                                const Sharding& sharding);

// lhs is strictly more specific than rhs: manual beats tile-maximal; otherwise more tiles wins,
// any tiled or single-device beats replicated, tiled beats single-device. Tuples: no element
// worse and at least one better.
bool IsShardingMoreSpecific(const Sharding& lhs, const Sharding& rhs);

// All of `shardings` merged when compatible; otherwise `default_sharding` or the first.
Sharding FindCommonSharding(std::span<const Sharding> shardings,
                            std::optional<Sharding> default_sharding = std::nullopt);

// Maps tile counts between two values whose dims correspond by `dim_pairs` (source dim, target
// dim): source dims outside the pairs are replicated first, target dims outside get 1. Subgroup
// dims carried over. Tile-maximal and manual shardings are returned unchanged.
Sharding MapShardingDims(const Sharding& sharding, int64_t target_rank,
                         std::span<const std::pair<int64_t, int64_t>> dim_pairs);

// Gather/scatter dimension correspondences (GSPMD.md §1.5), as (from, to) pairs.
struct GatherDims {
  std::vector<int64_t> offset_dims, collapsed_slice_dims, start_index_map, operand_batching_dims,
      start_indices_batching_dims, slice_sizes;
  int64_t index_vector_dim = 0;
};
struct ScatterDims {
  std::vector<int64_t> update_window_dims, inserted_window_dims, scatter_dims_to_operand_dims,
      input_batching_dims, scatter_indices_batching_dims;
  int64_t index_vector_dim = 0;
};
using DimPairs = std::vector<std::pair<int64_t, int64_t>>;

// (indices dim, output dim): the non-index_vector_dim index dims <-> output batch dims, in order.
DimPairs GatherIndexPassthroughDims(const Shape& indices, const Shape& output, const GatherDims& d);
// (operand dim, output dim): non-collapsed, non-batching operand dims whose slice size is the full
// dim <-> their offset dims (in order).
DimPairs GatherOperandPassthroughDims(const Shape& operand, const GatherDims& d);
// (indices dim, update dim): index dims <-> update scatter (non-window) dims.
DimPairs ScatterIndexPassthroughDims(const Shape& indices, const Shape& updates, const ScatterDims& d);
// (operand dim, update dim): non-inserted operand dims of full size <-> update window dims.
DimPairs ScatterOperandPassthroughDims(const Shape& operand, const Shape& updates,
                                       const ScatterDims& d);
// (operand dim, output dim): explicit batching dims (operand_batching_dims[i] <-> the output batch
// dim of start_indices_batching_dims[i]); these are parallel dims of the gather.
DimPairs GatherOperandBatchingDims(const Shape& indices, const Shape& output, const GatherDims& d);
// (operand dim, update dim): input_batching_dims[i] <-> the update scatter dim of
// scatter_indices_batching_dims[i].
DimPairs ScatterOperandBatchingDims(const Shape& indices, const Shape& updates, const ScatterDims& d);
// Swaps each pair (for the reverse direction, e.g. output -> indices).
DimPairs InvertDimPairs(const DimPairs& pairs);

// The dimension numbers of a gather / scatter instruction (from its attributes).
GatherDims GatherDimsOf(const Instruction& gather);
ScatterDims ScatterDimsOf(const Instruction& scatter);

// Passthrough shardings of gather(operand, indices) -> output (GSPMD.md §2.4). Each maps the
// source sharding's tile counts on the passthrough dims and replicates the rest.
Sharding GatherOutputShardingFromIndex(const Sharding& indices_sharding, const Instruction& gather);
Sharding GatherIndexShardingFromOutput(const Sharding& output_sharding, const Instruction& gather);
Sharding GatherOutputShardingFromOperand(const Sharding& operand_sharding, const Instruction& gather);
Sharding GatherOperandShardingFromOutput(const Sharding& output_sharding, const Instruction& gather);
// Scatter (operands..., indices, updates...): index dims <-> update scatter dims, operand
// passthrough dims <-> update window dims (the output has the operand's shape).
Sharding ScatterUpdateShardingFromIndex(const Sharding& indices_sharding, const Instruction& scatter);
Sharding ScatterIndexShardingFromUpdate(const Sharding& update_sharding, const Instruction& scatter);
Sharding ScatterUpdateShardingFromOutput(const Sharding& output_sharding, const Instruction& scatter);
Sharding ScatterOutputShardingFromUpdate(const Sharding& update_sharding, const Instruction& scatter);

}  // namespace spmdc

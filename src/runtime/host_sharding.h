// Host arrays <-> per-device shards, by a Sharding (GSPMD.md §1.4): splitting an argument into the
// shard a device holds, and assembling a global value from the devices' shards. Also the strided
// box copy the runtime uses to rearrange collective data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ir/literal.h"
#include "sharding/sharding.h"
#include "support/status.h"

namespace spmdc {

// Copies the box of `extent` elements starting at `src_start` in a row-major array of `src_dims`
// to `dst_start` in a row-major array of `dst_dims` (elements of `elem_bytes`). Contiguous
// trailing dims are copied as single runs.
void CopyBox(const std::byte* src, const std::vector<int64_t>& src_dims,
             const std::vector<int64_t>& src_start, std::byte* dst,
             const std::vector<int64_t>& dst_dims, const std::vector<int64_t>& dst_start,
             const std::vector<int64_t>& extent, int64_t elem_bytes);

// The value device `device` (a partition id) holds of `global` under `sharding` (a tuple sharding
// for tuple values): tiled leaves get their tile, ceil-sized and zero-padded on the high side;
// replicated (and unknown) leaves the whole value (shared, no copy); {maximal device=k}: the whole
// value on k, zeros elsewhere. A manual leaf's host value stacks one value per manual group on a
// leading dim (HostShape): fully manual, device d gets element d; a manual subgroup sharding,
// device d gets its tile of its group's element.
StatusOr<Literal> ShardForDevice(const Literal& global, const Sharding& sharding, int64_t device);

// The global value of `global_shape` from the shards of every partition (shards[d] is partition
// d's value): per leaf, tiled values take each tile from the first device of its replication group
// and crop the padding; replicated ones take device 0; {maximal device=k} takes device k; manual
// leaves are stacked per manual group (HostShape).
StatusOr<Literal> AssembleFromShards(const std::vector<Literal>& shards, const Sharding& sharding,
                                     const Shape& global_shape);

// The host shape of a value of the program's `shape` under `sharding` on `num_devices` devices:
// `shape` itself, except manual leaves (the program's shape is a per-device or per-group one),
// which stack one value per manual group: [groups] + shape.
Shape HostShape(const Shape& shape, const Sharding& sharding, int64_t num_devices);

// The global shape implied by a per-device shape when every dim divides evenly: each tiled dim
// scaled by its tile count (tuples per leaf).
StatusOr<Shape> EvenGlobalShape(const Shape& shard_shape, const Sharding& sharding);

}  // namespace spmdc

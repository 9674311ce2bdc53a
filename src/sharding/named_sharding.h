// Named (mesh-axis) shardings, the form Shardy and XLA's HloShardingV3 write (SHARDY.md §2.3,
// §3.2), and their one conversion to and from spmdc's tile-based Sharding (SHARDY.md §2.4, XLA's
// V3ToV2Sharding / convertToHloSharding). Both text forms feed this module: the V3 `sharding=`
// text (sharding_text.cc) and the `#sdy.*` attribute text (sdy_text.cc). One concept, one place:
// neither parser converts by itself.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sharding/sharding.h"
#include "sharding/tile_assignment.h"
#include "support/status.h"

namespace spmdc {

// A device mesh: named axes (major to minor) over a device array. Invariants (checked by
// MakeNamedMesh): names unique, sizes >= 1, `devices` (when set) has dims == sizes. An empty
// mesh is replicated, or maximal on `maximal_device` (sdy's `<[], device_ids=[k]>`).
struct NamedMesh {
  std::vector<std::string> names;
  std::vector<int64_t> sizes;
  std::optional<TileAssignment> devices;  // nullopt: iota (device ids in row-major order)
  std::optional<int64_t> maximal_device;  // only for a mesh without axes
  int64_t num_devices() const;
  // The index of axis `name`, or -1.
  int64_t AxisIndex(std::string_view name) const;
  // The device array with dims == sizes (iota when `devices` is unset; [1] for an empty mesh).
  TileAssignment DeviceArray() const;
  bool operator==(const NamedMesh&) const = default;
};

// A reference to a mesh axis or to the sub-axis `name:(pre)size`: split the axis of size n into
// [pre, size, n/(pre*size)] and take the middle. size == 0 means the whole axis. `offset` is
// where the reference was written (for diagnostics; 0 when built).
struct AxisRef {
  int64_t axis = 0;
  int64_t pre = 1, size = 0;
  size_t offset = 0;
  bool operator==(const AxisRef& o) const { return axis == o.axis && pre == o.pre && size == o.size; }
};

// One tensor dim: its axes major to minor, open (`?`: propagation may append axes) or closed,
// and Shardy's priority (`pN`; -1 when none is written).
struct NamedDim {
  std::vector<AxisRef> axes;
  bool open = false;
  int64_t priority = -1;
  bool operator==(const NamedDim&) const = default;
};

// A named sharding of one array. `manual` are the axes that are manual at this value (the
// enclosing shard_map regions' axes for sdy, `manual=` for V3); they become a MANUAL subgroup.
struct NamedSharding {
  std::vector<NamedDim> dims;
  std::vector<AxisRef> replicated;  // explicitly replicated (propagation may not use them)
  std::vector<AxisRef> unreduced;   // partial values along these axes
  std::string unreduced_op;         // "", "sum", "max" or "min" as written
  std::vector<AxisRef> manual;
};

// Checks a mesh (unique names, positive sizes, device ids a non-identity permutation when
// given explicitly) and fills `devices`. Errors are unlocated InvalidArgument messages.
Status ValidateNamedMesh(NamedMesh& mesh);

// The device array of a mesh of axis sizes `sizes` from an explicit id list (XLA's Mesh: a
// permutation of 0..n-1 other than the identity, which is written without device_ids).
StatusOr<TileAssignment> MeshDevicesFromIds(const std::vector<int64_t>& sizes, std::vector<int64_t> ids);

// Checks `ref` against the mesh: 1 <= pre, 1 < size < axis size, pre*size divides it.
Status ValidateAxisRef(const NamedMesh& mesh, const AxisRef& ref);

// The tile-based sharding `named` means on `mesh` (SHARDY.md §2.4): every mesh axis cut at each
// sub-axis boundary used; the device array reshaped to the pieces, transposed to [dim 0's
// pieces, ..., manual pieces, unreduced pieces, the other pieces in mesh order] and reshaped to
// [dim sizes..., manual, unreduced, replicated]. Open/closed, priorities and names are lost (the
// callers keep what they need). On error (overlapping or repeated axes) returns InvalidArgument;
// `error_offset`, if given, receives the offset of the reference at fault.
StatusOr<Sharding> NamedToTiled(const NamedMesh& mesh, const NamedSharding& named,
                                ShardingMetadata metadata = {}, size_t* error_offset = nullptr);

// The inverse on one mesh: a closed named sharding (no manual or unreduced axes) of an array of
// rank `rank` that NamedToTiled maps back to `sharding` (compared semantically, ignoring shard
// groups and metadata), or nullopt when `sharding` is not expressible on `mesh` (another device
// order, a maximal sharding on a mesh with axes, manual or unreduced parts, tuples).
std::optional<NamedSharding> TiledToNamed(const Sharding& sharding, int64_t rank, const NamedMesh& mesh);

}  // namespace spmdc

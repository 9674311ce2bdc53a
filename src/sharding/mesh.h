// A device mesh with named axes, PartitionSpec-style per-dimension specs, and the people-facing
// notation `f32[8@data,4@model]`.
//
//   Mesh mesh = *Mesh::Parse("data=2,model=4");          // devices arange(8).reshape(2,4)
//   PartitionSpec spec = *ParsePartitionSpec("[data, None]");
//   Sharding s = *ShardingFromSpec(mesh, spec);           // {devices=[2,1,4]<=[8] last_tile_dim_replicate}
//   SpecFromSharding(mesh, s, 2) == spec;                 // back, when expressible
//
// Axes a spec does not mention are replicated (partial replication); axes named in `manual_axes`
// become a MANUAL subgroup (shard_map).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/shape.h"
#include "sharding/sharding.h"
#include "support/status.h"

namespace spmdc {

class Mesh {
 public:
  struct Axis {
    std::string name;
    int64_t size = 1;
    bool operator==(const Axis&) const = default;
  };

  // Validated construction: names unique and non-empty, sizes >= 1; `device_order` (optional)
  // lists the ids row-major over the axes and must be a permutation of [0, num_devices).
  static StatusOr<Mesh> Create(std::vector<Axis> axes, std::vector<int64_t> device_order = {});
  // "data=2,model=4" (spaces allowed), optionally wrapped in braces; an optional trailing
  // " devices=[...]" or " devices=<=[...]T(...)" is not supported: use Create for device orders.
  static StatusOr<Mesh> Parse(std::string_view text);

  const std::vector<Axis>& axes() const { return axes_; }
  int64_t num_axes() const { return static_cast<int64_t>(axes_.size()); }
  int64_t num_devices() const { return devices_.num_elements(); }
  std::optional<int64_t> AxisIndex(std::string_view name) const;
  int64_t AxisSize(std::string_view name) const;  // CHECKs the axis exists
  // The mesh-shaped array of device ids (an iota unless an order was given).
  const TileAssignment& devices() const { return devices_; }

  // "{data=2, model=4}".
  std::string ToString() const;
  bool operator==(const Mesh& o) const { return axes_ == o.axes_ && devices_ == o.devices_; }

 private:
  Mesh(std::vector<Axis> axes, TileAssignment devices)
      : axes_(std::move(axes)), devices_(std::move(devices)) {}
  std::vector<Axis> axes_;
  TileAssignment devices_;
};

// Per data dimension, the mesh axes (major to minor) it is split over; empty = None.
using PartitionSpec = std::vector<std::vector<std::string>>;

// "[data, None]", "[(data,model), None]", "[data, model]", "[]" (also without brackets).
StatusOr<PartitionSpec> ParsePartitionSpec(std::string_view text);
// "[data, None]", "[(data, model), None]".
std::string PartitionSpecToString(const PartitionSpec& spec);

// The sharding of `spec` on `mesh`. Axes not mentioned are replicated; axes in `manual_axes` (not
// allowed in the spec) form a MANUAL subgroup. Errors: unknown or repeated axes.
StatusOr<Sharding> ShardingFromSpec(const Mesh& mesh, const PartitionSpec& spec,
                                    const std::vector<std::string>& manual_axes = {});

// The spec (for a value of rank `rank`) whose sharding equals `sharding` on `mesh`, preferring
// axes in mesh order; nullopt when no spec expresses it (device order not a mesh slicing, maximal,
// manual subgroups...). Replicated gives all-None.
std::optional<PartitionSpec> SpecFromSharding(const Mesh& mesh, const Sharding& sharding,
                                              int64_t rank);

// People-facing text: "f32[8@data,4@model]", "f32[16@(data,model),4]", "f32[8,4]" (replicated),
// "f32[8,4]{manual}", "f32[8,4]{maximal device=3}", tuples as "(a, b)". A sharding the mesh
// cannot express falls back to "f32[8,4] {devices=...}".
std::string DescribeSharding(const Shape& shape, const Sharding& sharding, const Mesh& mesh);

}  // namespace spmdc

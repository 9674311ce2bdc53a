// Sharding: how an HLO value is laid out over the devices (GSPMD.md §1.1, §1.4).
//
// One immutable value type for every kind: replicated, maximal (one device), manual, unknown,
// tiled (with optional partial replication or typed subgroup dims), and tuple (one leaf sharding
// per array leaf, pre-order). Copies share storage (one refcount bump), so annotating 100k
// instructions with the same 4096-device mesh costs one tile array, kept compact as an iota.
//
// The named constructors normalise (§1.1), so operator== is semantic: it compares everything but
// metadata. Text form: ToString() / ParseSharding (sharding_text.h).
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ir/shape.h"
#include "sharding/tile_assignment.h"
#include "support/status.h"

namespace spmdc {

// The type of a trailing "subgroup" dimension of the tile array. kUnreduced (XLA's UNREDUCED):
// devices along the dim hold partial values still to be summed.
enum class SubgroupType : uint8_t { kManual, kReplicated, kMaximal, kUnreduced };
std::string_view SubgroupTypeName(SubgroupType t);

// `shard_as N` (members end up identical) or `shard_like N` (members only feed each other).
struct ShardGroup {
  int64_t id = -1;  // -1: not in a group
  bool shard_as = false;
  bool valid() const { return id >= 0; }
  bool operator==(const ShardGroup&) const = default;
  std::string ToString() const;  // "shard_as 0", "shard_like 1" or ""
};

// OpMetadata entries, each kept as its canonical text, e.g. `op_type="dot" op_name="x"`.
using ShardingMetadata = std::vector<std::string>;

class Sharding {
 public:
  // kUnreduced (XLA's `{unreduced}`): every device holds a partial value of the whole array,
  // the full value being their sum. The value type models it; propagation and partitioning do
  // not, so VerifyModuleShardings rejects it in modules.
  enum class Kind : uint8_t { kReplicated, kMaximal, kManual, kUnknown, kTiled, kTuple, kUnreduced };

  // Replicated.
  Sharding();

  static Sharding Replicate(ShardingMetadata metadata = {});
  static Sharding Manual(ShardingMetadata metadata = {});
  static Sharding Unknown(ShardingMetadata metadata = {});
  static Sharding Unreduced(ShardingMetadata metadata = {});
  // `{maximal device=N}`.
  static Sharding AssignDevice(int64_t device, ShardingMetadata metadata = {});
  // Every tile dim is a data dim.
  static Sharding Tile(TileAssignment tiles, ShardingMetadata metadata = {});
  static Sharding IotaTile(std::vector<int64_t> dims) { return Tile(TileAssignment(std::move(dims))); }
  // The last tile dim replicates; normalises to Tile (last dim 1) or Replicate (all in one group);
  // devices inside each replication group are sorted.
  static Sharding PartialTile(TileAssignment tiles, ShardingMetadata metadata = {});
  // The last types.size() tile dims are typed subgroups. Normalised: same-type dims merged, size-1
  // dims dropped, types ordered MAXIMAL, MANUAL, UNREDUCED, REPLICATED, a lone REPLICATED
  // becomes PartialTile, only-subgroup arrays become Manual / Replicate / Unreduced.
  static Sharding Subgroup(TileAssignment tiles, std::vector<SubgroupType> types,
                           ShardingMetadata metadata = {});
  // Flattened leaf shardings (pre-order); each must not be a tuple.
  static Sharding Tuple(std::vector<Sharding> elements);
  // `sharding` on every leaf of `tuple_shape` (one entry for an empty tuple).
  static Sharding SingleTuple(const Shape& tuple_shape, const Sharding& sharding);
  // SingleTuple for tuple shapes, `sharding` otherwise.
  static Sharding Single(const Shape& shape, const Sharding& sharding);
  // Number of tuple entries a tuple-shaped value's sharding has (leaf count, at least 1).
  static int64_t RequiredLeaves(const Shape& shape);

  Kind kind() const;

  // Whole-value queries (a tuple answers for all its leaves).
  bool IsReplicated() const;
  bool IsTileMaximal() const;  // replicated or a single device
  bool IsManual() const;
  bool IsUnknown() const;
  bool IsUnreduced() const;
  bool IsTuple() const { return kind() == Kind::kTuple; }
  // Leaf queries.
  bool IsTiled() const { return kind() == Kind::kTiled; }
  bool IsMaximal() const { return kind() == Kind::kMaximal; }  // single device (not replicated)
  bool IsManualSubgroup() const;  // tiled with a MANUAL subgroup dim
  bool IsUnreducedSubgroup() const;  // tiled with an UNREDUCED subgroup dim
  bool IsSpatiallyPartitioned() const;  // anything but tile-maximal (recursing into tuples)

  // Tiled leaves.
  const TileAssignment& tile_assignment() const;
  bool ReplicateOnLastTileDim() const;
  const std::vector<SubgroupType>& subgroup_types() const;
  bool HasPartialReplication() const;  // last_tile_dim_replicate or a REPLICATED subgroup
  int64_t TiledDataRank() const;       // tile rank minus replicate/subgroup dims
  int64_t SubgroupReplicationDim() const;  // tile dim index, or -1
  int64_t SubgroupManualDim() const;       // tile dim index, or -1
  int64_t SubgroupUnreducedDim() const;    // tile dim index, or -1
  // Data tile dims only (size TiledDataRank(); empty for tile-maximal / manual).
  std::vector<int64_t> DataTileDims() const;
  int64_t NumTiles() const;       // product of the data tile dims (1 when not tiled)
  int64_t TotalNumTiles() const;  // every tile dim (1 when not tiled)
  // Number of tiles along data dim i (1 when not tiled).
  int64_t NumTilesOnDim(int64_t i) const;

  // Device <-> tile index (data dims only; GSPMD.md §1.4).
  int64_t DeviceForTileIndex(std::span<const int64_t> index) const;
  std::vector<int64_t> TileIndexForDevice(int64_t device) const;
  // TileIndexForDevice(device)[dim] without building the index (the partitioner asks this per
  // device and dim when it groups devices).
  int64_t TileCoordForDevice(int64_t device, int64_t dim) const;
  // Per data dim: [offset, limit) of `device`'s tile of `shape` (ceil-sized chunks; the last
  // tiles may be short or empty). Tile-maximal/manual: the whole shape.
  std::vector<int64_t> TileOffsetForDevice(const Shape& shape, int64_t device) const;
  std::vector<int64_t> TileLimitForDevice(const Shape& shape, int64_t device) const;
  // Calls f(device, offsets, limits) for every device of a tiled leaf (row-major over the tile
  // array; replicas in turn).
  void EachTile(const Shape& shape,
                const std::function<void(int64_t, std::span<const int64_t>, std::span<const int64_t>)>& f) const;
  // The per-device (padded) shape: ceil(D / n_i) on every dim; tuples per leaf.
  Shape ShardShape(const Shape& shape) const;
  // Every dim divides evenly (tuples: every leaf).
  bool EvenlyPartitions(const Shape& shape) const;

  std::optional<int64_t> UniqueDevice() const;
  bool UsesDevice(int64_t device) const;

  // Tuples.
  const std::vector<Sharding>& tuple_elements() const;
  // The sharding of the subshape at `index` (leaf or a tuple of the leaves below it; `{}` for a
  // tuple without leaves, as in XLA).
  Sharding GetSubSharding(const Shape& shape, std::span<const int64_t> index) const;
  // A tuple sharding for `shape` (SingleTuple of a non-tuple sharding); checks the leaf count.
  StatusOr<Sharding> GetTupleSharding(const Shape& shape) const;
  // SingleTuple when `shape` is a tuple and this is not; itself otherwise.
  Sharding NormalizeTupleSharding(const Shape& shape) const;

  // Shard groups and metadata (leaf; a tuple's metadata lives in its elements).
  const ShardGroup& shard_group() const;
  Sharding WithShardGroup(ShardGroup group) const;
  Sharding WithoutShardGroup() const { return WithShardGroup(ShardGroup{}); }
  const ShardingMetadata& metadata() const;
  Sharding WithMetadata(ShardingMetadata metadata) const;  // tuples: every element
  Sharding WithoutMetadata() const { return WithMetadata({}); }

  // Canonical text including braces; metadata printed when `include_metadata`.
  std::string ToString(bool include_metadata = true) const;

  // Semantic equality: everything but metadata.
  friend bool operator==(const Sharding& a, const Sharding& b);
  size_t Hash() const;  // cached in the (shared) representation

  struct Rep;

 private:
  size_t HashUncached() const;
  explicit Sharding(std::shared_ptr<const Rep> rep) : rep_(std::move(rep)) {}
  std::shared_ptr<const Rep> rep_;
};

// Prints ToString() (for gtest and logs).
std::ostream& operator<<(std::ostream& os, const Sharding& sharding);

}  // namespace spmdc

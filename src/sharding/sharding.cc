#include "sharding/sharding.h"

#include <algorithm>
#include <atomic>
#include <numeric>
#include <ostream>

#include "absl/hash/hash.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "support/check.h"

namespace spmdc {

struct Sharding::Rep {
  Kind kind = Kind::kReplicated;
  TileAssignment tiles;  // tiled: the array; maximal: [1] holding the device
  bool replicate_on_last_tile_dim = false;
  std::vector<SubgroupType> subgroup_types;
  std::vector<Sharding> tuple_elements;
  ShardGroup shard_group;
  ShardingMetadata metadata;
  // Hash() of this rep, computed on first use (0: not yet). Not copied with the rep.
  struct HashCache {
    mutable std::atomic<size_t> value{0};
    HashCache() = default;
    HashCache(const HashCache&) {}
    HashCache& operator=(const HashCache&) { return *this; }
  } hash_cache;
};

namespace {

using Rep = Sharding::Rep;

int64_t Product(std::span<const int64_t> v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

int64_t CeilOfRatio(int64_t a, int64_t b) { return (a + b - 1) / b; }

const std::shared_ptr<const Rep>& ReplicatedRep() {
  static const auto* rep = new std::shared_ptr<const Rep>(std::make_shared<Rep>());
  return *rep;
}

const std::vector<Sharding>& EmptyShardings() {
  static const auto* v = new std::vector<Sharding>();
  return *v;
}

// Sorts the ids along the last tile dim within each group (V1 normalisation of replication
// groups). Checks first with lookups, so an already sorted iota stays untouched.
TileAssignment SortLastDimGroups(const TileAssignment& tiles) {
  const int64_t last = tiles.dims().back();
  const int64_t n = tiles.num_elements();
  const bool sorted = tiles.IsSortedAlongLastDim();
  if (sorted) return tiles;
  std::vector<int64_t> ids = tiles.devices();
  for (int64_t base = 0; base < n; base += last) {
    std::sort(ids.begin() + base, ids.begin() + base + last);
  }
  return TileAssignment::FromDevices(tiles.dims(), std::move(ids));
}

// XLA's order of subgroup types: MAXIMAL, MANUAL, UNREDUCED, then REPLICATED last so that the
// replication groups can be sorted.
int SubgroupOrder(SubgroupType t) {
  switch (t) {
    case SubgroupType::kMaximal: return 0;
    case SubgroupType::kManual: return 1;
    case SubgroupType::kUnreduced: return 2;
    case SubgroupType::kReplicated: return 3;
  }
  return 4;
}

}  // namespace

std::string_view SubgroupTypeName(SubgroupType t) {
  switch (t) {
    case SubgroupType::kManual: return "manual";
    case SubgroupType::kReplicated: return "replicated";
    case SubgroupType::kMaximal: return "maximal";
    case SubgroupType::kUnreduced: return "unreduced";
  }
  return "?";
}

std::string ShardGroup::ToString() const {
  if (!valid()) return "";
  return fmt::format("{} {}", shard_as ? "shard_as" : "shard_like", id);
}

Sharding::Sharding() : rep_(ReplicatedRep()) {}

Sharding Sharding::Replicate(ShardingMetadata metadata) {
  if (metadata.empty()) return Sharding();
  auto rep = std::make_shared<Rep>();
  rep->metadata = std::move(metadata);
  return Sharding(std::move(rep));
}

Sharding Sharding::Manual(ShardingMetadata metadata) {
  auto rep = std::make_shared<Rep>();
  rep->kind = Kind::kManual;
  rep->metadata = std::move(metadata);
  return Sharding(std::move(rep));
}

Sharding Sharding::Unknown(ShardingMetadata metadata) {
  auto rep = std::make_shared<Rep>();
  rep->kind = Kind::kUnknown;
  rep->metadata = std::move(metadata);
  return Sharding(std::move(rep));
}

Sharding Sharding::Unreduced(ShardingMetadata metadata) {
  auto rep = std::make_shared<Rep>();
  rep->kind = Kind::kUnreduced;
  rep->metadata = std::move(metadata);
  return Sharding(std::move(rep));
}

Sharding Sharding::AssignDevice(int64_t device, ShardingMetadata metadata) {
  auto rep = std::make_shared<Rep>();
  rep->kind = Kind::kMaximal;
  rep->tiles = TileAssignment::FromDevices({1}, {device});
  rep->metadata = std::move(metadata);
  return Sharding(std::move(rep));
}

Sharding Sharding::Tile(TileAssignment tiles, ShardingMetadata metadata) {
  auto rep = std::make_shared<Rep>();
  rep->kind = Kind::kTiled;
  rep->tiles = std::move(tiles);
  rep->metadata = std::move(metadata);
  return Sharding(std::move(rep));
}

Sharding Sharding::PartialTile(TileAssignment tiles, ShardingMetadata metadata) {
  SPMDC_CHECK(tiles.num_dimensions() >= 1);
  const int64_t last = tiles.dims().back();
  if (last == tiles.num_elements()) return Replicate(std::move(metadata));
  if (last == 1) {
    std::vector<int64_t> dims(tiles.dims().begin(), tiles.dims().end() - 1);
    return Tile(tiles.Reshape(std::move(dims)), std::move(metadata));
  }
  auto rep = std::make_shared<Rep>();
  rep->kind = Kind::kTiled;
  rep->tiles = SortLastDimGroups(tiles);
  rep->replicate_on_last_tile_dim = true;
  rep->metadata = std::move(metadata);
  return Sharding(std::move(rep));
}

Sharding Sharding::Subgroup(TileAssignment tiles, std::vector<SubgroupType> types,
                            ShardingMetadata metadata) {
  if (types.empty()) return Tile(std::move(tiles), std::move(metadata));
  const int64_t rank = tiles.num_dimensions();
  const int64_t num_sub = static_cast<int64_t>(types.size());
  SPMDC_CHECK(num_sub <= rank);
  const int64_t data_rank = rank - num_sub;
  std::span<const int64_t> dims(tiles.dims());
  const int64_t data_tiles = Product(dims.subspan(0, data_rank));
  const bool all_same = std::all_of(types.begin(), types.end(),
                                    [&](SubgroupType t) { return t == types[0]; });
  if (all_same && data_tiles == 1) {
    if (types[0] == SubgroupType::kManual) return Manual(std::move(metadata));
    if (types[0] == SubgroupType::kReplicated) return Replicate(std::move(metadata));
    if (types[0] == SubgroupType::kUnreduced) return Unreduced(std::move(metadata));
  }
  // Order subgroup dims by type (stable), then merge dims of one type and drop size-1 ones.
  std::vector<int64_t> order(num_sub);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return SubgroupOrder(types[a]) < SubgroupOrder(types[b]);
  });
  std::vector<int64_t> perm(rank);
  std::iota(perm.begin(), perm.begin() + data_rank, 0);
  for (int64_t i = 0; i < num_sub; ++i) perm[data_rank + i] = data_rank + order[i];
  TileAssignment transposed = tiles.Transpose(perm);
  std::vector<int64_t> new_dims(dims.begin(), dims.begin() + data_rank);
  std::vector<SubgroupType> new_types;
  for (int64_t i = 0; i < num_sub; ++i) {
    const SubgroupType t = types[order[i]];
    const int64_t size = dims[data_rank + order[i]];
    if (!new_types.empty() && new_types.back() == t) {
      new_dims.back() *= size;
    } else {
      new_dims.push_back(size);
      new_types.push_back(t);
    }
  }
  for (int64_t i = static_cast<int64_t>(new_types.size()) - 1; i >= 0; --i) {
    if (new_dims[data_rank + i] == 1) {
      new_dims.erase(new_dims.begin() + data_rank + i);
      new_types.erase(new_types.begin() + i);
    }
  }
  TileAssignment reshaped = transposed.Reshape(new_dims);
  if (new_types.empty()) return Tile(std::move(reshaped), std::move(metadata));
  if (new_types.size() == 1 && new_types[0] == SubgroupType::kReplicated) {
    return PartialTile(std::move(reshaped), std::move(metadata));
  }
  if (new_types.size() == 1 && new_types[0] == SubgroupType::kManual && data_tiles == 1) {
    return Manual(std::move(metadata));
  }
  auto rep = std::make_shared<Rep>();
  rep->kind = Kind::kTiled;
  rep->tiles = new_types.back() == SubgroupType::kReplicated ? SortLastDimGroups(reshaped)
                                                             : std::move(reshaped);
  rep->subgroup_types = std::move(new_types);
  rep->metadata = std::move(metadata);
  return Sharding(std::move(rep));
}

Sharding Sharding::Tuple(std::vector<Sharding> elements) {
  for (const Sharding& e : elements) SPMDC_CHECK(!e.IsTuple());
  auto rep = std::make_shared<Rep>();
  rep->kind = Kind::kTuple;
  rep->tuple_elements = std::move(elements);
  return Sharding(std::move(rep));
}

int64_t Sharding::RequiredLeaves(const Shape& shape) {
  const int64_t n = shape.leaf_count();
  return n == 0 ? 1 : n;
}

Sharding Sharding::SingleTuple(const Shape& tuple_shape, const Sharding& sharding) {
  SPMDC_CHECK(tuple_shape.IsTuple() && !sharding.IsTuple());
  return Tuple(std::vector<Sharding>(RequiredLeaves(tuple_shape), sharding));
}

Sharding Sharding::Single(const Shape& shape, const Sharding& sharding) {
  return shape.IsTuple() && !sharding.IsTuple() ? SingleTuple(shape, sharding) : sharding;
}

Sharding::Kind Sharding::kind() const { return rep_->kind; }

namespace {
template <typename Pred>
bool AllLeaves(const Sharding& s, Pred pred) {
  if (!s.IsTuple()) return pred(s);
  return std::all_of(s.tuple_elements().begin(), s.tuple_elements().end(), pred);
}
}  // namespace

bool Sharding::IsReplicated() const {
  return AllLeaves(*this, [](const Sharding& s) { return s.kind() == Kind::kReplicated; });
}
bool Sharding::IsTileMaximal() const {
  return AllLeaves(*this, [](const Sharding& s) {
    return s.kind() == Kind::kReplicated || s.kind() == Kind::kMaximal;
  });
}
bool Sharding::IsManual() const {
  return AllLeaves(*this, [](const Sharding& s) { return s.kind() == Kind::kManual; });
}
bool Sharding::IsUnknown() const {
  return AllLeaves(*this, [](const Sharding& s) { return s.kind() == Kind::kUnknown; });
}
bool Sharding::IsUnreduced() const {
  return AllLeaves(*this, [](const Sharding& s) { return s.kind() == Kind::kUnreduced; });
}
bool Sharding::IsManualSubgroup() const {
  return IsTiled() && SubgroupManualDim() >= 0;
}
bool Sharding::IsUnreducedSubgroup() const {
  return IsTiled() && SubgroupUnreducedDim() >= 0;
}
bool Sharding::IsSpatiallyPartitioned() const {
  if (IsTuple()) {
    return std::any_of(tuple_elements().begin(), tuple_elements().end(),
                       [](const Sharding& s) { return s.IsSpatiallyPartitioned(); });
  }
  return !IsTileMaximal() || IsReplicated();
}

const TileAssignment& Sharding::tile_assignment() const { return rep_->tiles; }
bool Sharding::ReplicateOnLastTileDim() const { return rep_->replicate_on_last_tile_dim; }
const std::vector<SubgroupType>& Sharding::subgroup_types() const { return rep_->subgroup_types; }

bool Sharding::HasPartialReplication() const {
  return rep_->replicate_on_last_tile_dim ||
         std::find(rep_->subgroup_types.begin(), rep_->subgroup_types.end(),
                   SubgroupType::kReplicated) != rep_->subgroup_types.end();
}

int64_t Sharding::TiledDataRank() const {
  if (!IsTiled()) return 0;
  return rep_->tiles.num_dimensions() - (rep_->replicate_on_last_tile_dim ? 1 : 0) -
         static_cast<int64_t>(rep_->subgroup_types.size());
}

namespace {
// The tile dim of the first subgroup dim of type `t` (the subgroup dims close the tile array),
// or -1.
int64_t SubgroupDimOfType(const std::vector<SubgroupType>& types, int64_t tile_rank, SubgroupType t) {
  const int64_t k = static_cast<int64_t>(types.size());
  for (int64_t i = 0; i < k; ++i)
    if (types[i] == t) return tile_rank - k + i;
  return -1;
}
}  // namespace

int64_t Sharding::SubgroupReplicationDim() const {
  if (!IsTiled()) return -1;
  const int64_t rank = rep_->tiles.num_dimensions();
  if (rep_->replicate_on_last_tile_dim) return rank - 1;
  return SubgroupDimOfType(rep_->subgroup_types, rank, SubgroupType::kReplicated);
}

int64_t Sharding::SubgroupManualDim() const {
  if (!IsTiled()) return -1;
  return SubgroupDimOfType(rep_->subgroup_types, rep_->tiles.num_dimensions(), SubgroupType::kManual);
}

int64_t Sharding::SubgroupUnreducedDim() const {
  if (!IsTiled()) return -1;
  return SubgroupDimOfType(rep_->subgroup_types, rep_->tiles.num_dimensions(), SubgroupType::kUnreduced);
}

std::vector<int64_t> Sharding::DataTileDims() const {
  if (!IsTiled()) return {};
  const auto& d = rep_->tiles.dims();
  return std::vector<int64_t>(d.begin(), d.begin() + TiledDataRank());
}

int64_t Sharding::NumTiles() const {
  if (!IsTiled()) return 1;
  const auto& d = rep_->tiles.dims();
  return Product(std::span<const int64_t>(d.data(), static_cast<size_t>(TiledDataRank())));
}

int64_t Sharding::TotalNumTiles() const {
  if (!IsTiled()) return 1;
  return rep_->tiles.num_elements();
}

int64_t Sharding::NumTilesOnDim(int64_t i) const {
  if (!IsTiled() || i >= TiledDataRank()) return 1;
  return rep_->tiles.dim(i);
}

int64_t Sharding::DeviceForTileIndex(std::span<const int64_t> index) const {
  if (IsMaximal()) return rep_->tiles.first();
  SPMDC_CHECK(IsTiled());
  std::vector<int64_t> full(rep_->tiles.num_dimensions(), 0);
  SPMDC_CHECK(static_cast<int64_t>(index.size()) <= static_cast<int64_t>(full.size()));
  std::copy(index.begin(), index.end(), full.begin());
  return rep_->tiles(full);
}

std::vector<int64_t> Sharding::TileIndexForDevice(int64_t device) const {
  SPMDC_CHECK(IsTiled());
  auto index = rep_->tiles.IndexOf(device);
  SPMDC_CHECK_MSG(index.has_value(), "device not in the tile assignment");
  index->resize(TiledDataRank());
  return *index;
}

int64_t Sharding::TileCoordForDevice(int64_t device, int64_t dim) const {
  SPMDC_CHECK(IsTiled() && dim >= 0 && dim < TiledDataRank());
  auto linear = rep_->tiles.LinearIndexOf(device);
  SPMDC_CHECK_MSG(linear.has_value(), "device not in the tile assignment");
  const std::vector<int64_t>& dims = rep_->tiles.dims();
  int64_t l = *linear;
  for (int64_t i = static_cast<int64_t>(dims.size()) - 1; i > dim; --i) l /= dims[i];
  return l % dims[dim];
}

std::vector<int64_t> Sharding::TileOffsetForDevice(const Shape& shape, int64_t device) const {
  SPMDC_CHECK(!IsTuple());
  if (!IsTiled()) return std::vector<int64_t>(shape.rank(), 0);
  SPMDC_CHECK(shape.rank() == TiledDataRank());
  std::vector<int64_t> index = TileIndexForDevice(device);
  for (int64_t i = 0; i < shape.rank(); ++i) {
    index[i] = std::min(index[i] * CeilOfRatio(shape.dim(i), rep_->tiles.dim(i)), shape.dim(i));
  }
  return index;
}

std::vector<int64_t> Sharding::TileLimitForDevice(const Shape& shape, int64_t device) const {
  SPMDC_CHECK(!IsTuple());
  if (!IsTiled()) return shape.dims();
  SPMDC_CHECK(shape.rank() == TiledDataRank());
  std::vector<int64_t> index = TileIndexForDevice(device);
  for (int64_t i = 0; i < shape.rank(); ++i) {
    index[i] =
        std::min((index[i] + 1) * CeilOfRatio(shape.dim(i), rep_->tiles.dim(i)), shape.dim(i));
  }
  return index;
}

void Sharding::EachTile(
    const Shape& shape,
    const std::function<void(int64_t, std::span<const int64_t>, std::span<const int64_t>)>& f) const {
  SPMDC_CHECK(IsTiled() && shape.rank() == TiledDataRank());
  const int64_t rank = shape.rank();
  std::vector<int64_t> offsets(rank), limits(rank);
  rep_->tiles.Each([&](std::span<const int64_t> index, int64_t device) {
    for (int64_t i = 0; i < rank; ++i) {
      const int64_t chunk = CeilOfRatio(shape.dim(i), rep_->tiles.dim(i));
      offsets[i] = std::min(index[i] * chunk, shape.dim(i));
      limits[i] = std::min((index[i] + 1) * chunk, shape.dim(i));
    }
    f(device, offsets, limits);
  });
}

Shape Sharding::ShardShape(const Shape& shape) const {
  if (shape.IsTuple()) {
    std::vector<Shape> elements;
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      const int64_t idx[] = {i};
      elements.push_back(GetSubSharding(shape, idx).ShardShape(shape.tuple_shape(i)));
    }
    Shape out = Shape::Tuple(std::move(elements));
    return out;
  }
  if (!IsTiled() || !shape.IsArray()) return shape;
  Shape out = shape;
  for (int64_t i = 0; i < shape.rank() && i < TiledDataRank(); ++i) {
    out.set_dim(i, CeilOfRatio(shape.dim(i), rep_->tiles.dim(i)));
  }
  return out;
}

bool Sharding::EvenlyPartitions(const Shape& shape) const {
  if (shape.IsTuple()) {
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      const int64_t idx[] = {i};
      if (!GetSubSharding(shape, idx).EvenlyPartitions(shape.tuple_shape(i))) return false;
    }
    return true;
  }
  if (!IsTiled() || !shape.IsArray()) return true;
  for (int64_t i = 0; i < shape.rank() && i < TiledDataRank(); ++i) {
    if (shape.dim(i) % rep_->tiles.dim(i) != 0) return false;
  }
  return true;
}

std::optional<int64_t> Sharding::UniqueDevice() const {
  if (IsTuple()) {
    std::optional<int64_t> unique;
    if (tuple_elements().empty()) return std::nullopt;
    for (const Sharding& e : tuple_elements()) {
      auto d = e.UniqueDevice();
      if (!d || (unique && *unique != *d)) return std::nullopt;
      unique = d;
    }
    return unique;
  }
  if (IsMaximal()) return rep_->tiles.first();
  return std::nullopt;
}

bool Sharding::UsesDevice(int64_t device) const {
  if (IsTuple()) {
    return std::any_of(tuple_elements().begin(), tuple_elements().end(),
                       [&](const Sharding& s) { return s.UsesDevice(device); });
  }
  switch (kind()) {
    case Kind::kReplicated:
    case Kind::kManual:
    case Kind::kUnknown:
    case Kind::kUnreduced:
      return true;
    default:
      return rep_->tiles.UsesDevice(device);
  }
}

const std::vector<Sharding>& Sharding::tuple_elements() const {
  return IsTuple() ? rep_->tuple_elements : EmptyShardings();
}

Sharding Sharding::GetSubSharding(const Shape& shape, std::span<const int64_t> index) const {
  if (!IsTuple()) return *this;
  int64_t offset = 0;
  const Shape* sub = &shape;
  for (int64_t i : index) {
    SPMDC_CHECK(sub->IsTuple() && i >= 0 && i < sub->tuple_size());
    for (int64_t j = 0; j < i; ++j) offset += sub->tuple_shape(j).leaf_count();
    sub = &sub->tuple_shape(i);
  }
  const auto& elements = tuple_elements();
  if (sub->IsTuple()) {
    // A leafless (empty) tuple owns no entry of the flattened list (the entry at `offset`
    // belongs to the next leaf), so its sub-sharding is the empty tuple sharding, as in XLA.
    if (sub->leaf_count() == 0) return Tuple({});
    const int64_t count = sub->leaf_count();
    SPMDC_CHECK(offset + count <= static_cast<int64_t>(elements.size()));
    return Tuple(std::vector<Sharding>(elements.begin() + offset, elements.begin() + offset + count));
  }
  SPMDC_CHECK(offset < static_cast<int64_t>(elements.size()));
  return elements[offset];
}

StatusOr<Sharding> Sharding::GetTupleSharding(const Shape& shape) const {
  if (!IsTuple()) return SingleTuple(shape, *this);
  const int64_t leaves = shape.leaf_count();
  const int64_t have = static_cast<int64_t>(tuple_elements().size());
  if (leaves == have || (leaves == 0 && have <= 1)) return *this;
  return InvalidArgument("shape {} has {} leaves but the sharding has {} tuple elements",
                         shape.ToString(), leaves, have);
}

Sharding Sharding::NormalizeTupleSharding(const Shape& shape) const {
  if (shape.IsTuple() && !IsTuple()) return SingleTuple(shape, *this);
  return *this;
}

const ShardGroup& Sharding::shard_group() const { return rep_->shard_group; }

Sharding Sharding::WithShardGroup(ShardGroup group) const {
  if (rep_->shard_group == group) return *this;
  auto rep = std::make_shared<Rep>(*rep_);
  rep->shard_group = group;
  return Sharding(std::move(rep));
}

const ShardingMetadata& Sharding::metadata() const { return rep_->metadata; }

Sharding Sharding::WithMetadata(ShardingMetadata metadata) const {
  if (IsTuple()) {
    std::vector<Sharding> elements;
    for (const Sharding& e : tuple_elements()) elements.push_back(e.WithMetadata(metadata));
    return Tuple(std::move(elements));
  }
  if (rep_->metadata == metadata) return *this;
  auto rep = std::make_shared<Rep>(*rep_);
  rep->metadata = std::move(metadata);
  return Sharding(std::move(rep));
}

std::string Sharding::ToString(bool include_metadata) const {
  if (IsTuple()) {
    const auto& elements = tuple_elements();
    if (elements.empty()) return "{}";
    std::string out = "{";
    for (size_t i = 0; i < elements.size(); ++i) {
      if (i > 0) out += i % 5 == 0 ? fmt::format(", /*index={}*/", i) : std::string(", ");
      out += elements[i].ToString(include_metadata);
    }
    return out + "}";
  }
  std::string out = "{";
  switch (kind()) {
    case Kind::kReplicated: out += "replicated"; break;
    case Kind::kManual: out += "manual"; break;
    case Kind::kUnknown: out += "unknown"; break;
    case Kind::kUnreduced: out += "unreduced"; break;
    case Kind::kMaximal: out += fmt::format("maximal device={}", rep_->tiles.first()); break;
    case Kind::kTiled: {
      out += "devices=" + rep_->tiles.ToString();
      if (rep_->replicate_on_last_tile_dim) out += " last_tile_dim_replicate";
      if (!rep_->subgroup_types.empty()) {
        std::vector<std::string_view> names;
        for (SubgroupType t : rep_->subgroup_types) names.push_back(SubgroupTypeName(t));
        out += fmt::format(" last_tile_dims={{{}}}", fmt::join(names, ", "));
      }
      break;
    }
    case Kind::kTuple: break;
  }
  if (rep_->shard_group.valid()) out += " " + rep_->shard_group.ToString();
  if (include_metadata && !rep_->metadata.empty()) {
    out += " metadata={";
    if (rep_->metadata.size() == 1) {
      out += rep_->metadata[0];
    } else {
      for (size_t i = 0; i < rep_->metadata.size(); ++i) {
        if (i) out += ", ";
        out += "{" + rep_->metadata[i] + "}";
      }
    }
    out += "}";
  }
  return out + "}";
}

bool operator==(const Sharding& a, const Sharding& b) {
  if (a.rep_ == b.rep_) return true;
  const Rep& x = *a.rep_;
  const Rep& y = *b.rep_;
  if (x.kind != y.kind || !(x.shard_group == y.shard_group)) return false;
  switch (x.kind) {
    case Sharding::Kind::kReplicated:
    case Sharding::Kind::kManual:
    case Sharding::Kind::kUnknown:
    case Sharding::Kind::kUnreduced:
      return true;
    case Sharding::Kind::kMaximal:
      return x.tiles.first() == y.tiles.first();
    case Sharding::Kind::kTiled:
      return x.replicate_on_last_tile_dim == y.replicate_on_last_tile_dim &&
             x.subgroup_types == y.subgroup_types && x.tiles == y.tiles;
    case Sharding::Kind::kTuple:
      return x.tuple_elements == y.tuple_elements;
  }
  return false;
}

size_t Sharding::Hash() const {
  const Rep& r = *rep_;
  size_t cached = r.hash_cache.value.load(std::memory_order_relaxed);
  if (cached != 0) return cached;
  size_t h = HashUncached();
  if (h == 0) h = 1;
  r.hash_cache.value.store(h, std::memory_order_relaxed);
  return h;
}

size_t Sharding::HashUncached() const {
  const Rep& r = *rep_;
  size_t h = absl::HashOf(static_cast<int>(r.kind), r.shard_group.id, r.shard_group.shard_as);
  switch (r.kind) {
    case Kind::kMaximal:
      return absl::HashOf(h, r.tiles.first());
    case Kind::kTiled:
      h = absl::HashOf(h, r.tiles.dims(), r.replicate_on_last_tile_dim, r.subgroup_types.size());
      for (SubgroupType t : r.subgroup_types) h = absl::HashOf(h, static_cast<int>(t));
      if (r.tiles.is_iota()) return absl::HashOf(h, r.tiles.reshape_dims(), r.tiles.transpose_perm());
      return absl::HashOf(h, r.tiles.devices());
    case Kind::kTuple:
      for (const Sharding& e : r.tuple_elements) h = absl::HashOf(h, e.Hash());
      return h;
    default:
      return h;
  }
}

std::ostream& operator<<(std::ostream& os, const Sharding& sharding) {
  return os << sharding.ToString();
}

}  // namespace spmdc

#include "sharding/manual_groups.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "sharding/algebra.h"
#include "sharding/memo.h"
#include "fmt/format.h"

namespace spmdc {

// For the memo tables (memo.h): frames are kept when small.
bool Compact(const ManualFrame& frame) {
  return static_cast<int64_t>(frame.groups.size()) * frame.group_size() <= 4096;
}

namespace {

// Devices of `s` (a manual-subgroup leaf) per manual coordinate, each row-major over the other
// tile dims.
std::vector<std::vector<int64_t>> DevicesByManualCoordinate(const Sharding& s) {
  const TileAssignment& ta = s.tile_assignment();
  const int64_t md = s.SubgroupManualDim();
  std::vector<std::vector<int64_t>> out(ta.dim(md));
  std::vector<int64_t> index(ta.num_dimensions(), 0);
  for (int64_t linear = 0; linear < ta.num_elements(); ++linear) {
    out[index[md]].push_back(ta(index));
    for (int64_t d = ta.num_dimensions() - 1; d >= 0; --d) {
      if (++index[d] < ta.dim(d)) break;
      index[d] = 0;
    }
  }
  return out;
}

std::optional<Sharding> ComputeLeafToGroupLocal(const Sharding& s, const ManualFrame& frame);

// Every instruction of a region asks this of the same few shardings and frame: memoized.
std::optional<Sharding> LeafToGroupLocal(const Sharding& s, const ManualFrame& frame) {
  if (s.IsReplicated()) return Sharding::Replicate();
  if (!s.IsManualSubgroup()) return std::nullopt;
  sharding_internal::MemoKey key(sharding_internal::kMemoGroupLocal, s);
  for (const std::vector<int64_t>& group : frame.groups) key.Add(group);
  return sharding_internal::Memoized<std::optional<Sharding>>(std::move(key),
                                                              [&] { return ComputeLeafToGroupLocal(s, frame); });
}

std::optional<Sharding> ComputeLeafToGroupLocal(const Sharding& s, const ManualFrame& frame) {
  absl::flat_hash_map<int64_t, std::pair<int64_t, int64_t>>
      where;  // device -> (group, in-group id)
  for (size_t g = 0; g < frame.groups.size(); ++g)
    for (size_t l = 0; l < frame.groups[g].size(); ++l)
      where[frame.groups[g][l]] = {static_cast<int64_t>(g), static_cast<int64_t>(l)};
  std::vector<std::vector<int64_t>> by_m = DevicesByManualCoordinate(s);
  if (by_m.size() != frame.groups.size()) return std::nullopt;
  // The replication dim (if any) is the last tile dim once the manual dim is dropped.
  const int64_t replicas =
      s.SubgroupReplicationDim() >= 0 ? s.tile_assignment().dim(s.SubgroupReplicationDim()) : 1;
  std::vector<int64_t> local;
  std::vector<bool> taken(frame.groups.size(), false);
  for (const std::vector<int64_t>& devices : by_m) {
    if (static_cast<int64_t>(devices.size()) != frame.group_size()) return std::nullopt;
    std::vector<int64_t> ids;
    int64_t group = -1;
    for (int64_t d : devices) {
      auto it = where.find(d);
      if (it == where.end() || (group >= 0 && it->second.first != group)) return std::nullopt;
      group = it->second.first;
      ids.push_back(it->second.second);
    }
    if (taken[group]) return std::nullopt;
    taken[group] = true;
    // Replicas may sit in any order: compare the in-group layouts up to it.
    if (replicas > 1)
      for (size_t k = 0; k < ids.size(); k += replicas)
        std::sort(ids.begin() + k, ids.begin() + k + replicas);
    if (local.empty())
      local = ids;
    else if (ids != local)
      return std::nullopt;
  }
  const TileAssignment& ta = s.tile_assignment();
  const int64_t md = s.SubgroupManualDim();
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < ta.num_dimensions(); ++d)
    if (d != md) dims.push_back(ta.dim(d));
  std::vector<SubgroupType> types;
  for (SubgroupType t : s.subgroup_types())
    if (t != SubgroupType::kManual) types.push_back(t);
  if (frame.group_size() == 1) return Sharding::Replicate();
  TileAssignment local_ta = TileAssignment::FromDevices(dims, local);
  if (types.empty()) return Sharding::Tile(local_ta);
  return Sharding::Subgroup(local_ta, types);
}

}  // namespace

std::string ManualFrame::Tag() const {
  std::string out = "frame";
  for (const auto& g : groups) out += fmt::format("[{}]", fmt::join(g, ","));
  return out;
}

bool HasManualSubgroup(const Sharding& s) {
  if (!s.IsTuple()) return s.IsManualSubgroup();
  return std::any_of(s.tuple_elements().begin(), s.tuple_elements().end(),
                     [](const Sharding& e) { return e.IsManualSubgroup(); });
}

std::optional<ManualFrame> FrameOf(const Sharding& s) {
  if (s.IsTuple()) {
    for (const Sharding& e : s.tuple_elements())
      if (e.IsManualSubgroup()) return FrameOf(e);
    return std::nullopt;
  }
  if (!s.IsManualSubgroup()) return std::nullopt;
  return sharding_internal::Memoized<ManualFrame>(sharding_internal::MemoKey(sharding_internal::kMemoManualGroups, s),
                                                  [&] { return ManualFrame{DevicesByManualCoordinate(s)}; });
}

std::optional<Sharding> ToGroupLocal(const Sharding& s, const ManualFrame& frame) {
  if (!s.IsTuple()) return LeafToGroupLocal(s, frame);
  std::vector<Sharding> leaves;
  for (const Sharding& e : s.tuple_elements()) {
    std::optional<Sharding> l = LeafToGroupLocal(e, frame);
    if (!l) return std::nullopt;
    leaves.push_back(*l);
  }
  return Sharding::Tuple(std::move(leaves));
}

std::optional<ManualFrame> CommonFrame(const std::vector<Sharding>& shardings) {
  std::vector<const Sharding*> candidates;
  for (const Sharding& s : shardings) {
    if (!s.IsTuple()) {
      if (s.IsManualSubgroup()) candidates.push_back(&s);
      continue;
    }
    for (const Sharding& e : s.tuple_elements())
      if (e.IsManualSubgroup()) candidates.push_back(&e);
  }
  std::stable_sort(candidates.begin(), candidates.end(), [](const Sharding* a, const Sharding* b) {
    return a->NumTiles() > b->NumTiles();
  });
  for (const Sharding* c : candidates) {
    ManualFrame frame = *FrameOf(*c);
    bool all = std::all_of(shardings.begin(), shardings.end(),
                           [&](const Sharding& s) { return ToGroupLocal(s, frame).has_value(); });
    if (all) return frame;
  }
  return std::nullopt;
}

namespace {

// Blocks per dim (full = shard * blocks) and each device's group block, as `reference` places
// the groups; nullopt when the shapes do not divide or a group's devices span several blocks.
struct GroupBlocks {
  std::vector<int64_t> blocks;
  std::vector<std::vector<int64_t>> block_of;  // per device
};

std::optional<GroupBlocks> FindGroupBlocks(const Sharding& s, const Shape& full, const Shape& shard,
                                           const Sharding& reference) {
  std::optional<ManualFrame> frame = FrameOf(s);
  if (!frame || s.IsTuple() || !full.IsArray() || !shard.IsArray() || full.rank() != shard.rank())
    return std::nullopt;
  if (!reference.IsReplicated() && (!reference.IsTiled() || reference.IsManualSubgroup()))
    return std::nullopt;
  const int64_t rank = full.rank();
  GroupBlocks out;
  std::vector<int64_t> inner(rank);
  for (int64_t d = 0; d < rank; ++d) {
    if (shard.dim(d) == 0 ? full.dim(d) != 0 : full.dim(d) % shard.dim(d) != 0) return std::nullopt;
    out.blocks.push_back(shard.dim(d) == 0 ? 1 : full.dim(d) / shard.dim(d));
    const int64_t ref = reference.IsTiled() ? reference.NumTilesOnDim(d) : 1;
    if (ref % out.blocks[d] != 0) return std::nullopt;
    inner[d] = ref / out.blocks[d];
  }
  int64_t n = 0;
  for (const auto& g : frame->groups) n += static_cast<int64_t>(g.size());
  out.block_of.resize(n);
  for (const std::vector<int64_t>& group : frame->groups) {
    for (int64_t dev : group) {
      std::vector<int64_t> t(rank, 0), b(rank);
      if (reference.IsTiled()) t = reference.TileIndexForDevice(dev);
      for (int64_t d = 0; d < rank; ++d) b[d] = t[d] / inner[d];
      if (b != out.block_of[group[0]] && dev != group[0]) return std::nullopt;
      out.block_of[dev] = b;
    }
  }
  return out;
}

}  // namespace

std::optional<Sharding> FullValueSharding(const Sharding& s, const Shape& full, const Shape& shard,
                                          const Sharding& reference) {
  std::optional<GroupBlocks> gb = FindGroupBlocks(s, full, shard, reference);
  if (!gb) return std::nullopt;
  const int64_t rank = full.rank();
  std::vector<int64_t> tdims(rank);
  for (int64_t d = 0; d < rank; ++d) {
    if (gb->blocks[d] > 1 && shard.dim(d) % s.NumTilesOnDim(d) != 0) return std::nullopt;
    tdims[d] = gb->blocks[d] * s.NumTilesOnDim(d);
  }
  std::vector<std::vector<int64_t>> tile_of(gb->block_of.size());
  for (size_t dev = 0; dev < tile_of.size(); ++dev) {
    std::vector<int64_t> local = s.TileIndexForDevice(static_cast<int64_t>(dev));
    for (int64_t d = 0; d < rank; ++d)
      tile_of[dev].push_back(gb->block_of[dev][d] * s.NumTilesOnDim(d) + local[d]);
  }
  return ShardingFromTiles(tdims, tile_of);
}

std::optional<Sharding> GroupLocalSharding(const Sharding& full_sharding, const Sharding& s, const Shape& full,
                                           const Shape& shard, const Sharding& reference) {
  std::optional<GroupBlocks> gb = FindGroupBlocks(s, full, shard, reference);
  if (!gb || full_sharding.IsManualSubgroup() || (!full_sharding.IsReplicated() && !full_sharding.IsTiled()))
    return std::nullopt;
  const int64_t rank = full.rank(), md = s.SubgroupManualDim();
  std::vector<int64_t> tdims(rank);
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t tiles = full_sharding.IsTiled() ? full_sharding.NumTilesOnDim(d) : 1;
    if (tiles % gb->blocks[d] != 0) return std::nullopt;
    tdims[d] = tiles / gb->blocks[d];
    // Uneven tiles would not split each block alike.
    if (tdims[d] > 1 && shard.dim(d) % tdims[d] != 0) return std::nullopt;
  }
  tdims.push_back(s.tile_assignment().dim(md));
  std::vector<std::vector<int64_t>> tile_of(gb->block_of.size());
  for (size_t dev = 0; dev < tile_of.size(); ++dev) {
    const int64_t device = static_cast<int64_t>(dev);
    std::vector<int64_t> t(rank, 0);
    if (full_sharding.IsTiled()) t = full_sharding.TileIndexForDevice(device);
    for (int64_t d = 0; d < rank; ++d) {
      if (t[d] / tdims[d] != gb->block_of[dev][d]) return std::nullopt;  // outside its group's block
      tile_of[dev].push_back(t[d] % tdims[d]);
    }
    tile_of[dev].push_back(s.tile_assignment().IndexOf(device)->at(md));
  }
  // Tiles over (data dims, manual dim); the rest replication.
  std::optional<Sharding> tiled = ShardingFromTiles(tdims, tile_of);
  if (!tiled) return std::nullopt;
  std::vector<SubgroupType> types = {SubgroupType::kManual};
  if (tiled->HasPartialReplication()) types.push_back(SubgroupType::kReplicated);
  return Sharding::Subgroup(tiled->tile_assignment(), types, s.metadata());
}

std::optional<Sharding> GroupBlockSharding(const Sharding& s, const Shape& full, const Shape& shard,
                                           const Sharding& reference) {
  std::optional<GroupBlocks> gb = FindGroupBlocks(s, full, shard, reference);
  if (!gb) return std::nullopt;
  return ShardingFromTiles(gb->blocks, gb->block_of);
}

Sharding ReplicatedInGroups(const ManualFrame& frame, int64_t rank) {
  std::vector<int64_t> dims(rank, 1), devices;
  dims.push_back(static_cast<int64_t>(frame.groups.size()));
  dims.push_back(frame.group_size());
  for (const std::vector<int64_t>& g : frame.groups)
    devices.insert(devices.end(), g.begin(), g.end());
  return Sharding::Subgroup(TileAssignment::FromDevices(dims, devices),
                            {SubgroupType::kManual, SubgroupType::kReplicated});
}

}  // namespace spmdc

#include "partitioner/reshard.h"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>

#include "fmt/format.h"
#include "sharding/algebra.h"
#include "support/check.h"

namespace spmdc {
namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Full tile-array coordinates of `device` (data and subgroup dims).
std::vector<int64_t> Coords(const Sharding& s, int64_t device) {
  auto idx = s.tile_assignment().IndexOf(device);
  SPMDC_CHECK(idx.has_value());
  return *idx;
}

// The devices of `s` in blocks of `f` consecutive tiles along `dim`: each block's devices in
// order along `dim` (the groups of a collective that merges or splits those tiles), and per
// device its position in its block and its tile index with the `dim` coordinate divided by f.
struct TileBlocks {
  std::vector<std::vector<int64_t>> groups;
  std::vector<int64_t> within;
  std::vector<std::vector<int64_t>> tile_of;
};
TileBlocks BlocksAlongDim(const Sharding& s, int64_t num_devices, int64_t dim, int64_t f) {
  TileBlocks out;
  out.within.resize(num_devices);
  out.tile_of.resize(num_devices);
  std::map<std::vector<int64_t>, std::vector<std::pair<int64_t, int64_t>>> blocks;
  for (int64_t dev = 0; dev < num_devices; ++dev) {
    std::vector<int64_t> c = Coords(s, dev);
    out.within[dev] = c[dim] % f;
    c[dim] /= f;
    blocks[c].emplace_back(out.within[dev], dev);
    out.tile_of[dev] = s.TileIndexForDevice(dev);
    out.tile_of[dev][dim] /= f;
  }
  for (auto& [key, members] : blocks) {
    std::sort(members.begin(), members.end());
    std::vector<int64_t> g;
    for (auto& m : members) g.push_back(m.second);
    out.groups.push_back(std::move(g));
  }
  return out;
}

}  // namespace

std::vector<std::vector<int64_t>> Resharder::GroupsAlong(const Sharding& s, const std::vector<int64_t>& dims) {
  // A group per index of the other tile dims (row-major over them), its members ordered by
  // their index along `dims` (row-major in the order given): computed as two linear indices,
  // one pass over the tile array (this runs for every collective the partitioner emits).
  const TileAssignment& ta = s.tile_assignment();
  const std::vector<int64_t>& tdims = ta.dims();
  const int64_t rank = static_cast<int64_t>(tdims.size());
  std::vector<int64_t> along_stride(rank, 0), rest_stride(rank, 0);
  int64_t group_size = 1;
  for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
    along_stride[*it] = group_size;
    group_size *= tdims[*it];
  }
  int64_t groups = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    if (std::find(dims.begin(), dims.end(), d) != dims.end()) continue;
    rest_stride[d] = groups;
    groups *= tdims[d];
  }
  std::vector<std::vector<int64_t>> out(groups, std::vector<int64_t>(group_size, -1));
  ta.Each([&](std::span<const int64_t> index, int64_t device) {
    int64_t key = 0, pos = 0;
    for (int64_t d = 0; d < rank; ++d) {
      key += index[d] * rest_stride[d];
      pos += index[d] * along_stride[d];
    }
    out[key][pos] = device;
  });
  return out;
}

std::vector<Instruction*> Resharder::TileOffsets(const Shape& shape, const Sharding& s) {
  std::vector<Instruction*> offsets;
  int64_t n = b_->num_devices();
  // Every device's tile index from one walk of the tile array (its leading dims are the data
  // dims): asking TileIndexForDevice device by device searches the array once per device,
  // quadratic in the device count (a 512-device module spent a tenth of its partitioning here).
  std::vector<std::vector<int64_t>> index_of(n);
  s.tile_assignment().Each([&](std::span<const int64_t> index, int64_t device) {
    if (device >= 0 && device < n) index_of[device].assign(index.begin(), index.end());
  });
  for (int64_t dim = 0; dim < shape.rank(); ++dim) {
    int64_t tiles = TilesOnDim(s, dim);
    if (tiles == 1) {
      offsets.push_back(b_->ScalarS32(0));
      continue;
    }
    int64_t chunk = CeilDiv(shape.dim(dim), tiles);
    std::vector<int64_t> table(n, 0);
    for (int64_t d = 0; d < n; ++d) table[d] = dim < static_cast<int64_t>(index_of[d].size()) ? index_of[d][dim] * chunk : 0;
    offsets.push_back(b_->TableLookup(table));
  }
  return offsets;
}

Instruction* Resharder::MaskPadding(const PValue& v, Instruction* scalar_value, const std::vector<int64_t>* dims) {
  if (!v.sharding.IsTiled()) return v.hlo;
  const Shape& shard = v.hlo->shape();
  Instruction* mask = nullptr;
  std::vector<Instruction*> offsets;
  for (int64_t dim = 0; dim < v.base_shape.rank(); ++dim) {
    if (dims && std::find(dims->begin(), dims->end(), dim) == dims->end()) continue;
    int64_t tiles = v.sharding.NumTilesOnDim(dim);
    if (tiles == 1 || v.base_shape.dim(dim) % tiles == 0) continue;
    if (offsets.empty()) offsets = TileOffsets(v.base_shape, v.sharding);
    Shape s32(DType::kS32, shard.dims());
    Instruction* index = b_->Binary(Opcode::kAdd, b_->Iota(s32, dim), b_->BroadcastScalar(offsets[dim], s32));
    Instruction* in_range =
        b_->Compare(index, b_->BroadcastScalar(b_->ScalarS32(v.base_shape.dim(dim)), s32), "LT");
    mask = mask ? b_->Binary(Opcode::kAnd, mask, in_range) : in_range;
  }
  if (!mask) return v.hlo;
  return b_->Select(mask, v.hlo, b_->BroadcastScalar(scalar_value, shard));
}

PValue Resharder::Gather(const PValue& v, const std::vector<int64_t>& dims) {
  PValue cur = v;
  for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
    int64_t dim = *it;
    if (!cur.sharding.IsTiled() || cur.sharding.NumTilesOnDim(dim) == 1) continue;
    auto groups = GroupsAlong(cur.sharding, {dim});
    Instruction* gathered = b_->AllGather(cur.hlo, dim, groups);
    if (gathered->shape().dim(dim) != cur.base_shape.dim(dim)) {
      std::vector<int64_t> starts(gathered->shape().rank(), 0), limits = gathered->shape().dims();
      limits[dim] = cur.base_shape.dim(dim);
      gathered = b_->Slice(gathered, starts, limits);
    }
    const int64_t one[] = {dim};
    cur = PValue{gathered, PartiallyReplicateTiledShardingOnDims(cur.sharding, one), cur.base_shape};
  }
  return cur;
}

PValue Resharder::Replicate(const PValue& v, const std::string& context) {
  return Reshard(v, Sharding::Replicate(), context);
}

PValue Resharder::FromReplicated(const PValue& v, const Sharding& target) {
  Shape shard = target.ShardShape(v.base_shape);
  if (shard.dims() == v.hlo->shape().dims()) return PValue{v.hlo, target, v.base_shape};
  std::vector<int64_t> padded(v.base_shape.rank());
  for (int64_t d = 0; d < v.base_shape.rank(); ++d) padded[d] = shard.dim(d) * target.NumTilesOnDim(d);
  Instruction* x = b_->PadHigh(v.hlo, padded);
  Instruction* sliced = b_->DynamicSlice(x, TileOffsets(v.base_shape, target), shard.dims());
  return PValue{sliced, target, v.base_shape};
}

PValue Resharder::FromMaximal(const PValue& v, int64_t device) {
  // all-reduce(select(partition-id == device, x, 0)) broadcasts the owner's value.
  Instruction* is_owner = b_->Compare(b_->PartitionId(), b_->ScalarS32(device), "EQ");
  Instruction* mask = b_->BroadcastScalar(is_owner, Shape(DType::kPred, v.hlo->shape().dims()));
  Instruction* x = b_->Select(mask, v.hlo, b_->BroadcastScalar(b_->Zero(v.hlo->shape().dtype()), v.hlo->shape()));
  Instruction* r = b_->AllReduce(x, {}, v.hlo->shape().dtype() == DType::kPred ? "or" : "add");
  return PValue{r, Sharding::Replicate(), v.base_shape};
}

std::optional<PValue> Resharder::TryPermute(const PValue& v, const Sharding& target) {
  const Sharding& src = v.sharding;
  if (!src.IsTiled() || !target.IsTiled() || src.TiledDataRank() != target.TiledDataRank()) return std::nullopt;
  for (int64_t d = 0; d < src.TiledDataRank(); ++d)
    if (src.NumTilesOnDim(d) != target.NumTilesOnDim(d)) return std::nullopt;
  // Devices holding each data tile, in order; replicas are paired by rank.
  int64_t n = b_->num_devices();
  std::map<std::vector<int64_t>, std::vector<int64_t>> src_holders, dst_holders;
  for (int64_t d = 0; d < n; ++d) {
    src_holders[src.TileIndexForDevice(d)].push_back(d);
    dst_holders[target.TileIndexForDevice(d)].push_back(d);
  }
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for (auto& [tile, dsts] : dst_holders) {
    auto& srcs = src_holders[tile];
    if (srcs.size() != dsts.size()) return std::nullopt;
    for (size_t i = 0; i < dsts.size(); ++i) pairs.emplace_back(srcs[i], dsts[i]);
  }
  bool identity = std::all_of(pairs.begin(), pairs.end(), [](auto& p) { return p.first == p.second; });
  if (identity) return PValue{v.hlo, target, v.base_shape};
  return PValue{b_->CollectivePermute(v.hlo, pairs), target, v.base_shape};
}

namespace {



std::vector<int64_t> DataIndex(const Sharding& s, int64_t dev, int64_t rank) {
  return s.IsTiled() ? s.TileIndexForDevice(dev) : std::vector<int64_t>(rank, 0);
}

// A sharding with `target`'s tiling and replication whose device order is chosen so that every
// device's target tile lies inside the tile it holds under `src` (devices keep their own target
// tile where they can). Nullopt when the target does not refine the source.
std::optional<Sharding> RefiningOrder(const Sharding& src, const Sharding& target, int64_t rank, int64_t n) {
  std::vector<int64_t> factor(rank), tdims(rank);
  for (int64_t d = 0; d < rank; ++d) {
    tdims[d] = target.NumTilesOnDim(d);
    if (tdims[d] % TilesOnDim(src, d) != 0) return std::nullopt;
    factor[d] = tdims[d] / TilesOnDim(src, d);
  }
  int64_t tiles = 1;
  for (int64_t t : tdims) tiles *= t;
  if (n % tiles != 0) return std::nullopt;
  int64_t reps = n / tiles;
  std::map<std::vector<int64_t>, std::vector<int64_t>> holders;  // coarse tile -> free devices
  for (int64_t dev = 0; dev < n; ++dev) holders[DataIndex(src, dev, rank)].push_back(dev);
  // Slots in row-major order over (target tile, replica).
  std::vector<std::vector<int64_t>> slot_tile;
  std::vector<int64_t> own(tiles * reps, -1), assigned(tiles * reps, -1);
  std::vector<int64_t> index(rank, 0);
  for (int64_t t = 0; t < tiles; ++t) {
    for (int64_t r = 0; r < reps; ++r) slot_tile.push_back(index);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < tdims[d]) break;
      index[d] = 0;
    }
  }
  auto coarse = [&](const std::vector<int64_t>& t) {
    std::vector<int64_t> c(rank);
    for (int64_t d = 0; d < rank; ++d) c[d] = t[d] / factor[d];
    return c;
  };
  // Pass 1: devices keep their own target slot when their source tile covers it.
  const TileAssignment& ta = target.tile_assignment();
  ta.Each([&](std::span<const int64_t> idx, int64_t dev) {
    int64_t linear = 0;
    for (int64_t d = 0; d < rank; ++d) linear = linear * tdims[d] + idx[d];
    int64_t r = static_cast<int64_t>(idx.size()) > rank ? idx[rank] : 0;
    own[linear * reps + r] = dev;
  });
  std::vector<bool> used(n, false);
  for (size_t slot = 0; slot < own.size(); ++slot) {
    int64_t dev = own[slot];
    if (dev < 0 || dev >= n) return std::nullopt;
    if (DataIndex(src, dev, rank) == coarse(slot_tile[slot])) {
      assigned[slot] = dev;
      used[dev] = true;
    }
  }
  for (size_t slot = 0; slot < own.size(); ++slot) {
    if (assigned[slot] >= 0) continue;
    for (int64_t dev : holders[coarse(slot_tile[slot])]) {
      if (used[dev]) continue;
      assigned[slot] = dev;
      used[dev] = true;
      break;
    }
    if (assigned[slot] < 0) return std::nullopt;
  }
  std::vector<int64_t> dims = tdims;
  if (reps > 1) {
    dims.push_back(reps);
    return Sharding::PartialTile(TileAssignment::FromDevices(dims, assigned));
  }
  return Sharding::Tile(TileAssignment::FromDevices(dims, assigned));
}

}  // namespace

std::optional<PValue> Resharder::TryRefine(const PValue& v, const Sharding& target) {
  const Sharding& src = v.sharding;
  if (!target.IsTiled() || !IsPlainTilingOrReplicated(src) || !IsPlainTilingOrReplicated(target)) return std::nullopt;
  int64_t rank = v.base_shape.rank();
  if (target.TiledDataRank() != rank || (src.IsTiled() && src.TiledDataRank() != rank)) return std::nullopt;
  std::vector<int64_t> factor(rank, 1), chunk(rank, 1), padded = v.hlo->shape().dims();
  bool pad = false;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t ns = TilesOnDim(src, d);
    int64_t nt = target.NumTilesOnDim(d);
    if (nt % ns != 0) return std::nullopt;
    factor[d] = nt / ns;
    chunk[d] = CeilDiv(v.base_shape.dim(d), nt);
    if (factor[d] == 1) continue;
    int64_t have = CeilDiv(v.base_shape.dim(d), ns);
    if (have != factor[d] * chunk[d]) {
      // Only an unsplit source dim can be padded up: the tiles of a split one would shift.
      if (ns != 1) return std::nullopt;
      padded[d] = factor[d] * chunk[d];
      pad = true;
    }
  }
  int64_t n = b_->num_devices();
  std::optional<Sharding> order = RefiningOrder(src, target, rank, n);
  if (!order) return std::nullopt;
  std::vector<std::vector<int64_t>> tables(rank, std::vector<int64_t>(n, 0));
  for (int64_t dev = 0; dev < n; ++dev) {
    std::vector<int64_t> t = order->TileIndexForDevice(dev);
    for (int64_t d = 0; d < rank; ++d) tables[d][dev] = (t[d] % factor[d]) * chunk[d];
  }
  std::vector<Instruction*> offsets;
  for (int64_t d = 0; d < rank; ++d) offsets.push_back(b_->TableLookup(tables[d]));
  Shape shard = target.ShardShape(v.base_shape);
  Instruction* x = pad ? b_->PadHigh(v.hlo, padded) : v.hlo;
  PValue refined{b_->DynamicSlice(x, offsets, shard.dims()), *order, v.base_shape};
  if (*order == target) return PValue{refined.hlo, target, v.base_shape};
  return TryPermute(refined, target);
}

Instruction* Resharder::ReceiveFrom(Instruction* src, const std::vector<std::pair<int64_t, int64_t>>& moves) {
  // Rounds keep each source unique within one collective-permute.
  std::vector<std::vector<std::pair<int64_t, int64_t>>> rounds;
  std::vector<int64_t> round_of(b_->num_devices(), -1);
  for (const auto& move : moves) {
    // Plain copies: clang 14 (the sanitizer build) cannot capture structured bindings.
    const int64_t from = move.first, dev = move.second;
    if (from == dev) continue;
    size_t r = 0;
    while (r < rounds.size() &&
           std::any_of(rounds[r].begin(), rounds[r].end(), [&](const auto& p) { return p.first == from; }))
      ++r;
    if (r == rounds.size()) rounds.emplace_back();
    rounds[r].emplace_back(from, dev);
    round_of[dev] = static_cast<int64_t>(r);
  }
  if (rounds.empty()) return src;
  Instruction* part = src;
  Instruction* which = b_->TableLookup(round_of);
  Shape pred(DType::kPred, src->shape().dims());
  for (size_t r = 0; r < rounds.size(); ++r) {
    Instruction* got = b_->CollectivePermute(src, rounds[r]);
    Instruction* mine = b_->Compare(which, b_->ScalarS32(static_cast<int64_t>(r)), "EQ");
    part = b_->Select(b_->BroadcastScalar(mine, pred), got, part);
  }
  return part;
}

Instruction* Resharder::FetchWithinPieces(Instruction* x, int64_t dim, int64_t piece, int64_t pieces,
                                          const std::function<int64_t(int64_t, int64_t)>& holder,
                                          const std::vector<int64_t>& start, int64_t len,
                                          const std::vector<int64_t>& first) {
  const int64_t n = b_->num_devices(), have = x->shape().dim(dim);
  // Devices by the offset of their range in its piece; those past the last piece (padding only)
  // keep whatever the first group cuts from their own piece.
  std::map<int64_t, std::vector<int64_t>> by_offset;
  std::vector<int64_t> padding_only;
  for (int64_t dev = 0; dev < n; ++dev) {
    if (start[dev] >= pieces * piece) {
      padding_only.push_back(dev);
      continue;
    }
    const int64_t offset = start[dev] - first[dev] * piece;
    if (offset < 0 || offset + len > have) return nullptr;
    by_offset[offset].push_back(dev);
  }
  if (by_offset.empty() || (by_offset.size() == 1 && len == have)) return nullptr;  // nothing to cut
  by_offset.begin()->second.insert(by_offset.begin()->second.end(), padding_only.begin(), padding_only.end());
  std::vector<int64_t> group_of(n, 0);
  std::vector<Instruction*> parts;
  for (const auto& [offset, devices] : by_offset) {
    std::vector<int64_t> starts(x->shape().rank(), 0), limits = x->shape().dims();
    starts[dim] = offset;
    limits[dim] = offset + len;
    Instruction* src = offset == 0 && len == have ? x : b_->Slice(x, starts, limits);
    std::vector<std::pair<int64_t, int64_t>> moves;
    for (int64_t dev : devices) {
      group_of[dev] = static_cast<int64_t>(parts.size());
      if (start[dev] < pieces * piece) moves.emplace_back(holder(dev, first[dev]), dev);
    }
    parts.push_back(ReceiveFrom(src, moves));
  }
  if (parts.size() == 1) return parts[0];
  Instruction* group = b_->TableLookup(group_of);
  Shape pred(DType::kPred, parts[0]->shape().dims());
  Instruction* out = parts[0];
  for (size_t k = 1; k < parts.size(); ++k) {
    Instruction* mine = b_->Compare(group, b_->ScalarS32(static_cast<int64_t>(k)), "EQ");
    out = b_->Select(b_->BroadcastScalar(mine, pred), parts[k], out);
  }
  return out;
}

Instruction* Resharder::FetchRange(Instruction* x, int64_t dim, int64_t piece, int64_t pieces,
                                   const std::function<int64_t(int64_t, int64_t)>& holder,
                                   const std::vector<int64_t>& start, int64_t len) {
  int64_t n = b_->num_devices();
  // Every device concatenates the same number of pieces (one shape for all).
  std::vector<int64_t> first(n), last(n);
  int64_t count = 1;
  for (int64_t dev = 0; dev < n; ++dev) {
    first[dev] = std::clamp<int64_t>(start[dev] / piece, 0, pieces - 1);
    int64_t end = start[dev] + len;  // exclusive
    last[dev] = std::clamp<int64_t>((end - 1) / piece, first[dev], pieces - 1);
    count = std::max(count, last[dev] - first[dev] + 1);
  }
  if (count == 1)
    if (Instruction* exact = FetchWithinPieces(x, dim, piece, pieces, holder, start, len, first)) return exact;
  // Only the part of a piece some range covers moves: from the earliest start within the first
  // piece, up to the latest end within the last one (the pieces between are whole). Devices whose
  // range starts past the last piece hold padding only and do not count.
  int64_t lo = piece, hi = 0;
  for (int64_t dev = 0; dev < n; ++dev) {
    if (start[dev] >= pieces * piece) continue;
    int64_t offset = start[dev] - first[dev] * piece;
    lo = std::min(lo, offset);
    if (last[dev] - first[dev] + 1 == count) hi = std::max(hi, std::min(piece, offset + len - (count - 1) * piece));
  }
  if (lo >= piece || hi <= 0) lo = 0, hi = piece;
  auto cut = [&](int64_t k) {
    int64_t from = k == 0 ? lo : 0, to = k == count - 1 ? hi : piece;
    if (from == 0 && to == x->shape().dim(dim)) return x;
    std::vector<int64_t> starts(x->shape().rank(), 0), limits = x->shape().dims();
    starts[dim] = from;
    limits[dim] = std::min(to, limits[dim]);
    return b_->Slice(x, starts, limits);
  };
  std::vector<Instruction*> parts;
  for (int64_t k = 0; k < count; ++k) {
    Instruction* src = cut(k);
    // Pieces past the ones a device's range spans are filler: its own data.
    std::vector<std::pair<int64_t, int64_t>> moves;
    for (int64_t dev = 0; dev < n; ++dev)
      if (first[dev] + k <= last[dev]) moves.emplace_back(holder(dev, first[dev] + k), dev);
    parts.push_back(ReceiveFrom(src, moves));
  }
  Instruction* buffer = parts.size() == 1 ? parts[0] : b_->Concatenate(parts, dim);
  std::vector<int64_t> offset(n);
  int64_t need = len;
  for (int64_t dev = 0; dev < n; ++dev) {
    offset[dev] = std::max<int64_t>(0, start[dev] - first[dev] * piece - lo);
    need = std::max(need, offset[dev] + len);
  }
  if (buffer->shape().dim(dim) < need) {
    // Every range must lie inside the buffer (a dynamic-slice would clamp its start and shift
    // the data); positions past the last piece are padding of the result.
    std::vector<int64_t> padded = buffer->shape().dims();
    padded[dim] = need;
    buffer = b_->PadHigh(buffer, padded);
  }
  std::vector<Instruction*> starts;
  for (int64_t d = 0; d < buffer->shape().rank(); ++d)
    starts.push_back(d == dim ? b_->TableLookup(offset) : b_->ScalarS32(0));
  std::vector<int64_t> sizes = buffer->shape().dims();
  sizes[dim] = len;
  return b_->DynamicSlice(buffer, starts, sizes);
}

// One dim refined from ns to nt = ns * f tiles where the chunks do not line up (f32[10] in 2
// tiles of 5 -> 4 tiles of 3; XLA pads and exchanges a halo in
// ReshardFromPartialReplicateWithDynamicSlice): a target tile spans at most two source tiles, so
// every device concatenates the source tile its range starts in with the next one (taking from a
// holder, by collective-permute, those it does not hold itself) and cuts its range out. The other
// dims keep their tiles (and each device its coordinates there). Moves at most two source tiles
// per device instead of gathering the value.
std::optional<PValue> Resharder::TryRefineWithHalo(const PValue& v, const Sharding& target) {
  const Sharding& src = v.sharding;
  if (!src.IsTiled() || !IsPlainTiled(src) || !target.IsTiled() || !IsPlainTiled(target)) return std::nullopt;
  int64_t rank = v.base_shape.rank();
  if (src.TiledDataRank() != rank || target.TiledDataRank() != rank) return std::nullopt;
  int64_t dim = -1;
  for (int64_t d = 0; d < rank; ++d) {
    if (src.NumTilesOnDim(d) == target.NumTilesOnDim(d)) continue;
    if (dim >= 0) return std::nullopt;
    dim = d;
  }
  if (dim < 0) return std::nullopt;
  int64_t ns = src.NumTilesOnDim(dim), nt = target.NumTilesOnDim(dim), size = v.base_shape.dim(dim);
  if (nt <= ns || nt % ns != 0) return std::nullopt;
  int64_t cs = CeilDiv(size, ns), ct = CeilDiv(size, nt);
  int64_t n = b_->num_devices();
  std::map<std::vector<int64_t>, std::vector<int64_t>> holders;
  for (int64_t dev = 0; dev < n; ++dev) holders[src.TileIndexForDevice(dev)].push_back(dev);
  std::vector<int64_t> start(n);
  for (int64_t dev = 0; dev < n; ++dev) {
    std::vector<int64_t> have = src.TileIndexForDevice(dev), want = target.TileIndexForDevice(dev);
    for (int64_t d = 0; d < rank; ++d)
      if (d != dim && have[d] != want[d]) return std::nullopt;
    start[dev] = want[dim] * ct;
  }
  std::map<std::vector<int64_t>, int64_t> next_holder;  // spreads the requests over replicas
  auto holder = [&](int64_t dev, int64_t t) -> int64_t {
    std::vector<int64_t> tile = src.TileIndexForDevice(dev);
    if (tile[dim] == t) return dev;
    tile[dim] = t;
    const std::vector<int64_t>& hs = holders.at(tile);
    return hs[next_holder[tile]++ % hs.size()];
  };
  return PValue{FetchRange(v.hlo, dim, cs, ns, holder, start, ct), target, v.base_shape};
}

// [.., k, .., 1, ..] -> [.., 1, .., k, ..] (other dims alike): one all-to-all per group of the k
// devices that share the other coordinates, then a collective-permute if the device order differs.
std::optional<PValue> Resharder::TryAllToAll(const PValue& v, const Sharding& target) {
  const Sharding& src = v.sharding;
  if (!src.IsTiled() || !target.IsTiled() || !IsPlainTilingOrReplicated(src) || !IsPlainTilingOrReplicated(target)) return std::nullopt;
  int64_t rank = v.base_shape.rank();
  if (src.TiledDataRank() != rank || target.TiledDataRank() != rank) return std::nullopt;
  std::vector<int64_t> differ;
  for (int64_t d = 0; d < rank; ++d)
    if (src.NumTilesOnDim(d) != target.NumTilesOnDim(d)) differ.push_back(d);
  if (differ.size() != 2) return std::nullopt;
  int64_t a = differ[0], b = differ[1];
  if (src.NumTilesOnDim(a) == 1) std::swap(a, b);
  int64_t k = src.NumTilesOnDim(a);
  if (src.NumTilesOnDim(b) != 1 || target.NumTilesOnDim(a) != 1 || target.NumTilesOnDim(b) != k) return std::nullopt;
  int64_t da = v.base_shape.dim(a), db = v.base_shape.dim(b);
  int64_t ca = CeilDiv(da, k), cb = CeilDiv(db, k);
  // Groups along a, ordered by the source coordinate on a.
  auto groups = GroupsAlong(src, {a});
  // Pad dim b to k*cb, exchange the k pieces of dim b.
  std::vector<int64_t> padded = v.hlo->shape().dims();
  padded[b] = k * cb;
  Instruction* x = b_->PadHigh(v.hlo, padded);
  Instruction* y = b_->AllToAll(x, b, groups);
  // y's dim b is [piece from member 0 | ... | member k-1], each piece [ca rows of a, cb of b].
  // Split b into (k, cb), move k just before a, merge (k, ca) and slice off a's padding.
  std::vector<int64_t> split;
  for (int64_t d = 0; d < rank; ++d) {
    if (d == b) {
      split.push_back(k);
      split.push_back(cb);
    } else {
      split.push_back(padded[d]);
    }
  }
  Instruction* s = b_->Reshape(y, split);
  // Positions in `split`: dim d maps to d (d < b) or d + 1 (d > b); k sits at b, cb at b+1.
  auto pos = [&](int64_t d) { return d < b ? d : d + 1; };
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < rank; ++d) {
    if (d == a) perm.push_back(b);  // k goes right before a's rows
    if (d == b) {
      perm.push_back(b + 1);
    } else {
      perm.push_back(pos(d));
    }
  }
  Instruction* t = b_->Transpose(s, perm);
  std::vector<int64_t> merged;
  for (int64_t d = 0; d < rank; ++d) merged.push_back(d == a ? k * ca : d == b ? cb : padded[d]);
  Instruction* m = b_->Reshape(t, merged);
  if (k * ca != da) {
    std::vector<int64_t> starts(rank, 0), limits = merged;
    limits[a] = da;
    m = b_->Slice(m, starts, limits);
  }
  // The sharding that results: member j of each group holds piece j of dim b.
  std::vector<int64_t> dims = src.tile_assignment().dims();
  std::swap(dims[a], dims[b]);
  std::vector<int64_t> devices;
  std::vector<int64_t> idx(dims.size(), 0);
  int64_t total = 1;
  for (int64_t x2 : dims) total *= x2;
  for (int64_t i = 0; i < total; ++i) {
    std::vector<int64_t> sidx = idx;
    std::swap(sidx[a], sidx[b]);
    devices.push_back(src.tile_assignment()(sidx));
    for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
      if (++idx[d] < dims[d]) break;
      idx[d] = 0;
    }
  }
  TileAssignment ta = TileAssignment::FromDevices(dims, devices);
  Sharding inter = src.HasPartialReplication() ? Sharding::PartialTile(ta) : Sharding::Tile(ta);
  PValue out{m, inter, v.base_shape};
  if (inter == target) return PValue{m, target, v.base_shape};
  return TryPermute(out, target);
}

// Device d at tile coordinate c on `from` (c = hi * f + lo) ends at hi on `from` and at
// (its coordinate on `to`) * f + lo on `to`: the f tiles of a merged `from` block are contiguous,
// and each one's `to` range splits into f contiguous pieces, so every device sends piece j of its
// shard to the block's member j and concatenates what it receives along `from` in member order.
// XLA reaches the same layouts through reshapes that split the dims ([8,1] -> [2,4] as
// [2,4,1] -> [2,1,4]); here the pieces are cut directly. Nullopt when the tile layouts of the two
// dims do not line up (uneven shards whose padding would land inside the merged block).
std::optional<PValue> Resharder::MoveTileFactor(const PValue& v, int64_t from, int64_t to, int64_t f, bool emit) {
  const Sharding& src = v.sharding;
  if (!src.IsTiled() || !IsPlainTiled(src) || from == to || f <= 1) return std::nullopt;
  int64_t rank = v.base_shape.rank();
  if (src.TiledDataRank() != rank) return std::nullopt;
  int64_t tf = src.NumTilesOnDim(from), tt = src.NumTilesOnDim(to);
  if (tf % f != 0) return std::nullopt;
  int64_t nf = v.base_shape.dim(from), nt = v.base_shape.dim(to);
  int64_t sf = CeilDiv(nf, tf), st = CeilDiv(nt, tt);
  // The merged block is f old tiles back to back, and the `to` pieces split the old shard evenly.
  if (CeilDiv(nf, tf / f) != f * sf || st % f != 0 || CeilDiv(nt, tt * f) != st / f) return std::nullopt;
  int64_t n = b_->num_devices();
  TileBlocks blocks = BlocksAlongDim(src, n, from, f);
  std::vector<std::vector<int64_t>>& tile_of = blocks.tile_of;
  for (int64_t dev = 0; dev < n; ++dev) tile_of[dev][to] = tile_of[dev][to] * f + blocks.within[dev];
  const std::vector<std::vector<int64_t>>& groups = blocks.groups;
  std::vector<int64_t> tdims(rank);
  for (int64_t d = 0; d < rank; ++d) tdims[d] = src.NumTilesOnDim(d);
  tdims[from] /= f;
  tdims[to] *= f;
  std::optional<Sharding> out = ShardingFromTiles(tdims, tile_of);
  if (!out) return std::nullopt;
  if (!emit) return PValue{nullptr, *out, v.base_shape};
  Instruction* y = b_->AllToAll(v.hlo, to, groups);
  // y's `to` dim is [piece from member 0 | ... | member f-1]: split it as (f, st/f), move the f
  // next to `from` (before it: member order is the order along `from`) and merge.
  const std::vector<int64_t>& local = v.hlo->shape().dims();
  std::vector<int64_t> split;
  for (int64_t d = 0; d < rank; ++d) {
    if (d == to) {
      split.push_back(f);
      split.push_back(st / f);
    } else {
      split.push_back(local[d]);
    }
  }
  auto pos = [&](int64_t d) { return d <= to ? d + (d == to ? 1 : 0) : d + 1; };
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < rank; ++d) {
    if (d == from) perm.push_back(to);  // the member index goes right before `from`'s rows
    perm.push_back(pos(d));
  }
  std::vector<int64_t> merged = local;
  merged[from] = f * local[from];
  merged[to] = st / f;
  Instruction* m = b_->Reshape(b_->Transpose(b_->Reshape(y, split), perm), merged);
  return PValue{m, *out, v.base_shape};
}

// Tile counts that differ by factors moving between dims (e.g. [8,1] -> [2,4], [2,4] -> [4,2],
// [4,1,1] -> [1,2,2]): one all-to-all per moved factor, each moving one shard's worth of data,
// where gathering the shrinking dim would move f shards. Largest common factor first; among
// equal ones the order that ends in the target's device order (e.g. [8,1,1] -> [2,2,2] iota:
// minor dims first), else a final collective-permute fixes the order.
std::optional<PValue> Resharder::TryFactorAllToAll(const PValue& v, const Sharding& target) {
  if (!IsPlainTiled(v.sharding) || !target.IsTiled() || !IsPlainTiled(target)) return std::nullopt;
  int64_t rank = v.base_shape.rank();
  if (v.sharding.TiledDataRank() != rank || target.TiledDataRank() != rank) return std::nullopt;
  if (v.sharding.NumTiles() != target.NumTiles()) return std::nullopt;
  struct Move {
    int64_t from, to, f;
  };
  // The moves in one order of preference among equal factors (minor or major dims first), and
  // the sharding they end at; nullopt when a move is not possible.
  auto plan = [&](bool minor_from, bool minor_to) -> std::optional<std::pair<std::vector<Move>, Sharding>> {
    PValue cur{nullptr, v.sharding, v.base_shape};
    std::vector<Move> moves;
    for (int64_t step = 0; step < 2 * rank; ++step) {
      Move best{-1, -1, 1};
      for (int64_t i = 0; i < rank; ++i) {
        int64_t a = minor_from ? rank - 1 - i : i;
        int64_t sa = cur.sharding.NumTilesOnDim(a), ta = target.NumTilesOnDim(a);
        if (sa <= ta || sa % ta != 0) continue;
        for (int64_t j = 0; j < rank; ++j) {
          int64_t b = minor_to ? rank - 1 - j : j;
          int64_t sb = cur.sharding.NumTilesOnDim(b), tb = target.NumTilesOnDim(b);
          if (b == a || tb <= sb || tb % sb != 0) continue;
          int64_t f = std::gcd(sa / ta, tb / sb);
          if (f > best.f) best = Move{a, b, f};
        }
      }
      if (best.f == 1) break;
      std::optional<PValue> moved = MoveTileFactor(cur, best.from, best.to, best.f, /*emit=*/false);
      if (!moved) return std::nullopt;
      cur = *moved;
      moves.push_back(best);
    }
    for (int64_t d = 0; d < rank; ++d)
      if (cur.sharding.NumTilesOnDim(d) != target.NumTilesOnDim(d)) return std::nullopt;
    return std::make_pair(moves, cur.sharding);
  };
  // Prefer an order that lands on the target's device order (no permute afterwards).
  std::optional<std::pair<std::vector<Move>, Sharding>> chosen;
  for (bool minor_to : {true, false}) {
    for (bool minor_from : {false, true}) {
      auto p = plan(minor_from, minor_to);
      if (!p) continue;
      if (!chosen || (p->second == target && !(chosen->second == target))) chosen = p;
    }
  }
  if (!chosen) return std::nullopt;
  PValue cur = v;
  for (const Move& m : chosen->first) {
    std::optional<PValue> moved = MoveTileFactor(cur, m.from, m.to, m.f);
    if (!moved) return std::nullopt;
    cur = *moved;
  }
  if (cur.sharding == target) return PValue{cur.hlo, target, v.base_shape};
  return TryPermute(cur, target);
}

// A sharding with data tiles `tdims` where device d holds tile tile_of[d] (replicas in device
// order); nullopt when the tiles are not held equally often.
// Coarsens dim `dim` by `f` (ns -> ns/f tiles): an all-gather within each block of f
// consecutive tiles; the result is replicated within the block.
std::optional<PValue> Resharder::PartialGather(const PValue& v, int64_t dim, int64_t f) {
  const Sharding& s = v.sharding;
  TileBlocks blocks = BlocksAlongDim(s, b_->num_devices(), dim, f);
  std::vector<int64_t> tdims(v.base_shape.rank());
  for (int64_t d = 0; d < v.base_shape.rank(); ++d) tdims[d] = s.NumTilesOnDim(d);
  tdims[dim] /= f;
  std::optional<Sharding> coarse = ShardingFromTiles(tdims, blocks.tile_of);
  if (!coarse) return std::nullopt;
  return PValue{b_->AllGather(v.hlo, dim, blocks.groups), *coarse, v.base_shape};
}

void Resharder::WarnFullRematerialization(const PValue& v, const Sharding& target, const std::string& context) {
  b_->state()->warnings.push_back(fmt::format(
      "full rematerialization{}: {} -> {} moves {} bytes per device", context.empty() ? "" : " of %" + context,
      v.sharding.ToString(false), target.ToString(false), v.base_shape.byte_size()));
}

// The reshard paths that never hold the whole value on a device: refinement, permutes, all-to-all,
// and gathering only the dims whose tiling differs. nullopt when none applies (instructions it
// emitted on the way are left for DCE).
std::optional<PValue> Resharder::ReshardWithoutFullRemat(const PValue& v, const Sharding& target) {
  const Sharding& src = v.sharding;
  if (src == target) return PValue{v.hlo, target, v.base_shape};
  if (!src.IsTiled() && !src.IsReplicated()) return std::nullopt;
  if (!target.IsTiled()) return std::nullopt;
  if (src.IsReplicated()) return FromReplicated(v, target);
  if (auto p = TryPermute(v, target)) return *p;
  if (auto r = TryRefine(v, target)) return *r;
  if (auto r = TryRefineWithHalo(v, target)) return *r;
  if (auto r = TryAllToAll(v, target)) return *r;
  if (auto r = TryFactorAllToAll(v, target)) return *r;
  // Gather only the dims whose tiling differs, then refine or permute from there.
  std::vector<int64_t> differ;
  for (int64_t d = 0; d < v.base_shape.rank(); ++d)
    if (src.NumTilesOnDim(d) != target.NumTilesOnDim(d)) differ.push_back(d);
  if (!differ.empty()) {
    // Dims whose tile count shrinks by a factor f (with the same chunk layout) are gathered
    // within blocks of f tiles only; the others whole.
    PValue inter = v;
    std::vector<int64_t> whole;
    for (int64_t d : differ) {
      int64_t ns = src.NumTilesOnDim(d), nt = target.NumTilesOnDim(d), size = v.base_shape.dim(d);
      if (nt > 1 && ns > nt && ns % nt == 0 && IsPlainTilingOrReplicated(inter.sharding) &&
          (ns / nt) * CeilDiv(size, ns) == CeilDiv(size, nt)) {
        if (auto g = PartialGather(inter, d, ns / nt)) {
          inter = *g;
          continue;
        }
      }
      // A dim the target splits further (same chunk layout) is refined later, not gathered.
      if (ns < nt && nt % ns == 0 && (ns == 1 || CeilDiv(size, ns) == (nt / ns) * CeilDiv(size, nt))) continue;
      whole.push_back(d);
    }
    inter = Gather(inter, whole);
    if (inter.sharding == target) return inter;
    if (!inter.sharding.IsReplicated()) {
      if (auto r = TryRefine(inter, target)) return *r;
      if (auto p = TryPermute(inter, target)) return *p;
    }
    // Gathering every dim would rematerialize the whole value: not here.
  }
  return std::nullopt;
}

PValue Resharder::ReshardLeaf(const PValue& v, const Sharding& target, const std::string& context) {
  const Sharding& src = v.sharding;
  if (src == target) return PValue{v.hlo, target, v.base_shape};
  if (!v.base_shape.IsArray()) return PValue{v.hlo, target, v.base_shape};
  if (src.IsManualSubgroup() || target.IsManualSubgroup()) return ReshardManualSubgroup(v, target, context);
  if (src.IsManual() || target.IsManual()) {
    // Manual values are per-device already; nothing can be moved automatically. Crossing between
    // manual and automatic needs the SPMDFullToShardShape / SPMDShardToFullShape custom calls.
    if (src.IsManual() != target.IsManual() && v.base_shape.rank() > 0 && status_.ok()) {
      status_ = absl::UnimplementedError(fmt::format(
          "%{}: resharding {} -> {} crosses a manual region boundary without SPMDFullToShardShape/"
          "SPMDShardToFullShape", context, src.ToString(false), target.ToString(false)));
    }
    return PValue{v.hlo, target, v.base_shape};
  }
  if (auto dev = src.UniqueDevice(); dev && !src.IsReplicated()) {
    return Reshard(FromMaximal(v, *dev), target, context);
  }
  if (target.IsTileMaximal()) {
    // Replicated satisfies a single-device target too (the other devices hold a copy).
    PValue r = src.IsReplicated() ? v : Gather(v, [&] {
      std::vector<int64_t> all(src.TiledDataRank());
      for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
      return all;
    }());
    return PValue{r.hlo, target, v.base_shape};
  }
  if (auto r = ReshardWithoutFullRemat(v, target)) return *r;
  // Two steps through an intermediate that holds the target's tile counts on swapped dims (the
  // merge/split patterns, e.g. [4,1] -> [2,1,2] -> [1,2,2] or [2,1,2] -> [4,1] -> [1,4]).
  const int64_t rank = target.TiledDataRank();
  for (int64_t a = 0; a < rank; ++a) {
    for (int64_t b = a + 1; b < rank; ++b) {
      std::vector<int64_t> perm(rank);
      for (int64_t i = 0; i < rank; ++i) perm[i] = i;
      std::swap(perm[a], perm[b]);
      Sharding mid = TransposeSharding(target, perm);
      if (mid == target || mid == src) continue;
      if (auto m = ReshardWithoutFullRemat(v, mid))
        if (auto t = ReshardWithoutFullRemat(*m, target)) return *t;
    }
  }
  // Last resort: full rematerialization.
  WarnFullRematerialization(v, target, context);
  std::vector<int64_t> all(src.TiledDataRank());
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
  PValue full = Gather(v, all);
  return FromReplicated(PValue{full.hlo, Sharding::Replicate(), v.base_shape}, target);
}

PValue Resharder::Reshard(const PValue& v, const Sharding& target, const std::string& context) {
  if (v.sharding == target) return PValue{v.hlo, target, v.base_shape};
  // In-group (framed) and global shardings of one value are different things: keep them apart.
  std::string frame_tag = b_->frame() ? b_->frame()->Tag() + ":" : "";
  // The source sharding is part of the key: one instruction can stand for values of different
  // shardings (a local op that relabels tiles, e.g. a rotation whose pieces all stay in place).
  auto key = std::make_pair(static_cast<const Instruction*>(v.hlo),
                            frame_tag + v.sharding.ToString(false) + "->" + target.ToString(false));
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  PValue out;
  if (v.base_shape.IsTuple()) {
    std::vector<Instruction*> elements;
    std::vector<Sharding> leaves;
    for (int64_t i = 0; i < v.base_shape.tuple_size(); ++i) {
      const Shape& sub = v.base_shape.tuple_shape(i);
      PValue e{b_->GetTupleElement(v.hlo, i), v.sharding.GetSubSharding(v.base_shape, {&i, 1}), sub};
      PValue r = Reshard(e, target.GetSubSharding(v.base_shape, {&i, 1}), context);
      elements.push_back(r.hlo);
      if (r.sharding.IsTuple()) leaves.insert(leaves.end(), r.sharding.tuple_elements().begin(), r.sharding.tuple_elements().end());
      else if (sub.IsTuple()) for (int64_t k = 0; k < sub.leaf_count(); ++k) leaves.push_back(r.sharding);
      else leaves.push_back(r.sharding);
    }
    out = PValue{b_->Tuple(elements), target, v.base_shape};
  } else {
    out = ReshardLeaf(v, target, context);
  }
  cache_[key] = out;
  return out;
}

PValue Resharder::ReshardManualSubgroup(const PValue& v, const Sharding& target, const std::string& context) {
  // Inside the manual groups of the source (or of the target, from a replicated source), as an
  // ordinary reshard over the devices of one group.
  const Sharding& src = v.sharding;
  std::optional<ManualFrame> frame = CommonFrame({src, target});
  std::optional<Sharding> local_src, local_target;
  if (frame && target.IsManualSubgroup() && !b_->frame()) {
    local_src = ToGroupLocal(src, *frame);
    local_target = ToGroupLocal(target, *frame);
  }
  if (!local_src || !local_target) {
    if (status_.ok())
      status_ = absl::UnimplementedError(fmt::format(
          "%{}: resharding {} -> {} is not supported: a manual subgroup value may only move to a manual subgroup "
          "sharding with the same manual groups (leave the region through SPMDShardToFullShape)",
          context, src.ToString(false), target.ToString(false)));
    return PValue{v.hlo, target, v.base_shape};
  }
  b_->EnterFrame(&*frame);
  PValue local = Reshard(PValue{v.hlo, *local_src, v.base_shape}, *local_target, context);
  b_->EnterFrame(nullptr);
  return PValue{local.hlo, target, v.base_shape};
}

bool IsPlainTiled(const Sharding& s) {
  if (!s.IsTiled() || s.SubgroupManualDim() >= 0) return false;
  int64_t extra = s.tile_assignment().num_dimensions() - s.TiledDataRank();
  return extra == 0 || (extra == 1 && s.HasPartialReplication());
}

std::optional<TileGrouping> GroupDevicesByTile(int64_t n, const std::vector<int64_t>& tiles,
                                     const std::function<std::vector<int64_t>(int64_t)>& out,
                                     const std::function<std::vector<int64_t>(int64_t)>& red, int64_t red_count) {
  int64_t tile_count = 1;
  for (int64_t t : tiles) tile_count *= t;
  if (n % tile_count != 0) return std::nullopt;
  std::map<std::vector<int64_t>, std::map<std::vector<int64_t>, std::vector<int64_t>>> by_tile;
  for (int64_t dev = 0; dev < n; ++dev) by_tile[out(dev)][red(dev)].push_back(dev);
  if (static_cast<int64_t>(by_tile.size()) != tile_count) return std::nullopt;
  int64_t per_tile = n / tile_count;
  TileGrouping g;
  std::vector<int64_t> devices;
  for (auto& [tile, by_red] : by_tile) {
    if (static_cast<int64_t>(by_red.size()) != red_count) return std::nullopt;
    size_t replicas = by_red.begin()->second.size();
    std::vector<int64_t> members;
    for (auto& [r, devs] : by_red) {
      if (devs.size() != replicas) return std::nullopt;
      members.insert(members.end(), devs.begin(), devs.end());
    }
    if (static_cast<int64_t>(members.size()) != per_tile) return std::nullopt;
    std::sort(members.begin(), members.end());
    devices.insert(devices.end(), members.begin(), members.end());
    if (by_red.size() > 1) {
      for (size_t j = 0; j < replicas; ++j) {
        std::vector<int64_t> group;
        for (auto& [r, devs] : by_red) group.push_back(devs[j]);
        std::sort(group.begin(), group.end());
        g.groups.push_back(group);
      }
    }
  }
  std::vector<int64_t> dims = tiles;
  dims.push_back(per_tile);
  g.sharding = Sharding::PartialTile(TileAssignment::FromDevices(dims, devices));
  return g;
}

}  // namespace spmdc

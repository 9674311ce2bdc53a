#include "partitioner/reshard.h"

#include <algorithm>
#include <map>

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

}  // namespace

std::vector<std::vector<int64_t>> Resharder::GroupsAlong(const Sharding& s, const std::vector<int64_t>& dims) {
  std::map<std::vector<int64_t>, std::vector<std::pair<std::vector<int64_t>, int64_t>>> groups;
  const TileAssignment& ta = s.tile_assignment();
  ta.Each([&](std::span<const int64_t> index, int64_t device) {
    std::vector<int64_t> key(index.begin(), index.end()), along;
    for (int64_t d : dims) {
      along.push_back(key[d]);
      key[d] = 0;
    }
    groups[key].emplace_back(along, device);
  });
  std::vector<std::vector<int64_t>> out;
  for (auto& [key, members] : groups) {
    std::sort(members.begin(), members.end());
    std::vector<int64_t> g;
    for (auto& m : members) g.push_back(m.second);
    out.push_back(std::move(g));
  }
  return out;
}

std::vector<Instruction*> Resharder::TileOffsets(const Shape& shape, const Sharding& s) {
  std::vector<Instruction*> offsets;
  int64_t n = b_->num_devices();
  for (int64_t dim = 0; dim < shape.rank(); ++dim) {
    int64_t tiles = s.IsTiled() ? s.NumTilesOnDim(dim) : 1;
    if (tiles == 1) {
      offsets.push_back(b_->ScalarS32(0));
      continue;
    }
    int64_t chunk = CeilDiv(shape.dim(dim), tiles);
    std::vector<int64_t> table(n, 0);
    for (int64_t d = 0; d < n; ++d) table[d] = s.TileIndexForDevice(d)[dim] * chunk;
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

std::optional<PValue> Resharder::TryRefine(const PValue& v, const Sharding& target) {
  const Sharding& src = v.sharding;
  if (!target.IsTiled()) return std::nullopt;
  int64_t rank = v.base_shape.rank();
  std::vector<int64_t> factor(rank, 1), chunk(rank, 1);
  for (int64_t d = 0; d < rank; ++d) {
    int64_t ns = src.IsTiled() ? src.NumTilesOnDim(d) : 1;
    int64_t nt = target.NumTilesOnDim(d);
    if (nt % ns != 0) return std::nullopt;
    factor[d] = nt / ns;
    chunk[d] = CeilDiv(v.base_shape.dim(d), nt);
    if (factor[d] > 1 && CeilDiv(v.base_shape.dim(d), ns) != factor[d] * chunk[d]) return std::nullopt;
  }
  int64_t n = b_->num_devices();
  std::vector<std::vector<int64_t>> tables(rank, std::vector<int64_t>(n, 0));
  for (int64_t dev = 0; dev < n; ++dev) {
    std::vector<int64_t> t = target.TileIndexForDevice(dev);
    std::vector<int64_t> s = src.IsTiled() ? src.TileIndexForDevice(dev) : std::vector<int64_t>(rank, 0);
    for (int64_t d = 0; d < rank; ++d) {
      if (t[d] / factor[d] != s[d]) return std::nullopt;
      tables[d][dev] = (t[d] % factor[d]) * chunk[d];
    }
  }
  std::vector<Instruction*> offsets;
  for (int64_t d = 0; d < rank; ++d) offsets.push_back(b_->TableLookup(tables[d]));
  Shape shard = target.ShardShape(v.base_shape);
  return PValue{b_->DynamicSlice(v.hlo, offsets, shard.dims()), target, v.base_shape};
}

PValue Resharder::ReshardLeaf(const PValue& v, const Sharding& target, const std::string& context) {
  const Sharding& src = v.sharding;
  if (src == target) return PValue{v.hlo, target, v.base_shape};
  if (!v.base_shape.IsArray()) return PValue{v.hlo, target, v.base_shape};
  if (src.IsManual() || target.IsManual()) {
    // Manual values are per-device already; nothing can be moved automatically.
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
  if (src.IsReplicated()) return FromReplicated(v, target);
  if (auto p = TryPermute(v, target)) return *p;
  if (auto r = TryRefine(v, target)) return *r;
  // Gather only the dims whose tiling differs, then refine or permute from there.
  std::vector<int64_t> differ;
  for (int64_t d = 0; d < v.base_shape.rank(); ++d)
    if (src.NumTilesOnDim(d) != target.NumTilesOnDim(d)) differ.push_back(d);
  if (!differ.empty()) {
    PValue inter = Gather(v, differ);
    if (inter.sharding == target) return inter;
    if (!inter.sharding.IsReplicated()) {
      if (auto r = TryRefine(inter, target)) return *r;
      if (auto p = TryPermute(inter, target)) return *p;
    } else {
      return FromReplicated(inter, target);
    }
  }
  // Last resort: full rematerialization.
  b_->state()->warnings.push_back(fmt::format(
      "full rematerialization{}: {} -> {} moves {} bytes per device", context.empty() ? "" : " of %" + context,
      src.ToString(false), target.ToString(false), v.base_shape.byte_size()));
  std::vector<int64_t> all(src.TiledDataRank());
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
  PValue full = Gather(v, all);
  return FromReplicated(PValue{full.hlo, Sharding::Replicate(), v.base_shape}, target);
}

PValue Resharder::Reshard(const PValue& v, const Sharding& target, const std::string& context) {
  if (v.sharding == target) return PValue{v.hlo, target, v.base_shape};
  auto key = std::make_pair(static_cast<const Instruction*>(v.hlo), target.ToString(false));
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

}  // namespace spmdc

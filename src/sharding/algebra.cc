#include "sharding/algebra.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "absl/container/flat_hash_map.h"
#include "ir/instruction.h"
#include "sharding/memo.h"
#include "support/check.h"

namespace spmdc {
namespace {

using namespace sharding_internal;

int64_t Product(std::span<const int64_t> v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

int64_t CeilOfRatio(int64_t a, int64_t b) { return (a + b - 1) / b; }

bool Contains(std::span<const int64_t> v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// The subgroup types of a tiled sharding, with last_tile_dim_replicate as a REPLICATED subgroup.
std::vector<SubgroupType> SubgroupTypesOf(const Sharding& s) {
  if (s.ReplicateOnLastTileDim()) return {SubgroupType::kReplicated};
  return s.subgroup_types();
}

// A tiled sharding with `tiles` whose trailing dims have `types`, normalised, with `metadata`.
Sharding Build(TileAssignment tiles, std::vector<SubgroupType> types, ShardingMetadata metadata) {
  return Sharding::Subgroup(std::move(tiles), std::move(types), std::move(metadata));
}

// Like `s` (same subgroup layout and metadata) but with another tile array of the same rank
// structure.
Sharding WithTiles(const Sharding& s, TileAssignment tiles) {
  return Build(std::move(tiles), SubgroupTypesOf(s), s.metadata());
}

bool PassesThrough(const Sharding& s) { return !s.IsTiled(); }

Sharding TransposeShardingImpl(const Sharding& sharding, std::span<const int64_t> perm) {
  if (PassesThrough(sharding)) return sharding;
  const int64_t rank = sharding.tile_assignment().num_dimensions();
  const int64_t data_rank = sharding.TiledDataRank();
  std::vector<int64_t> full(perm.begin(), perm.end());
  if (static_cast<int64_t>(full.size()) == data_rank) {
    for (int64_t i = data_rank; i < rank; ++i) full.push_back(i);
  }
  SPMDC_CHECK(static_cast<int64_t>(full.size()) == rank);
  // Subgroup dims may be permuted among themselves (their types follow, as in XLA).
  const std::vector<SubgroupType> old_types = SubgroupTypesOf(sharding);
  std::vector<SubgroupType> types;
  for (int64_t i = data_rank; i < rank; ++i) {
    SPMDC_CHECK_MSG(full[i] >= data_rank, "TransposeSharding must not move subgroup dims into data dims");
    types.push_back(old_types[full[i] - data_rank]);
  }
  return Build(sharding.tile_assignment().Transpose(full), std::move(types), sharding.metadata());
}

}  // namespace

Sharding TransposeSharding(const Sharding& sharding, std::span<const int64_t> perm) {
  if (PassesThrough(sharding)) return sharding;
  MemoKey key(kMemoTranspose, sharding);
  key.Add(perm);
  return Memoized<Sharding>(std::move(key), [&] { return TransposeShardingImpl(sharding, perm); });
}

namespace {

// The core of ReshapeSharding / PropagateShardingThroughReshape.
//
// Source and target dims are cut into aligned segments (equal products, size-1 dims on their
// own). Inside a segment the tiles stay contiguous when, major to minor, every partitioned dim
// but the last is fully partitioned (one element per tile) and the partitioned ones divide their
// dims; those partitions P are then laid out on the target dims major to minor. The device
// array is only reshaped (never reordered) into [per-target-dim tiles..., extras...], where
// "extras" are partitions that cannot be expressed and become replication (only allowed with
// `replicate_rest`; otherwise nullopt).
std::optional<Sharding> ReshapeImpl(const Shape& src, const Shape& dst, const Sharding& s,
                                    bool replicate_rest) {
  if (PassesThrough(s)) return s;
  if (src.rank() != s.TiledDataRank() || !src.IsArray() || !dst.IsArray()) return std::nullopt;
  if (src.dims() == dst.dims()) return s;
  const std::vector<int64_t> tiles = s.DataTileDims();
  const int64_t src_rank = src.rank();
  const int64_t dst_rank = dst.rank();
  if (src.num_elements() != dst.num_elements()) return std::nullopt;
  if (src.num_elements() == 0) {
    if (replicate_rest) return ReplicateAllDataDims(s, dst_rank);
    return std::nullopt;
  }

  // The refined device array: dims and, per dim, the target dim it tiles (-1: extra).
  std::vector<int64_t> array_dims;
  std::vector<int64_t> array_target;
  std::vector<int64_t> target_tiles(dst_rank, 1);
  auto push = [&](int64_t size, int64_t target) {
    if (size == 1) return;
    array_dims.push_back(size);
    array_target.push_back(target);
    if (target >= 0) target_tiles[target] = size;
  };
  bool ok = true;
  auto extra = [&](int64_t size) {
    if (size > 1 && !replicate_rest) ok = false;
    push(size, -1);
  };

  int64_t i = 0, j = 0;
  while (ok && (i < src_rank || j < dst_rank)) {
    // Size-1 dims on their own.
    if (i < src_rank && src.dim(i) == 1) {
      extra(tiles[i]);
      ++i;
      continue;
    }
    if (j < dst_rank && dst.dim(j) == 1) {
      ++j;
      continue;
    }
    if (i >= src_rank || j >= dst_rank) return std::nullopt;  // unreachable for equal products
    // Grow a segment until the products agree.
    int64_t i_end = i + 1, j_end = j + 1;
    int64_t ps = src.dim(i), pt = dst.dim(j);
    while (ps != pt) {
      if (ps < pt) {
        ps *= src.dim(i_end++);
      } else {
        pt *= dst.dim(j_end++);
      }
    }
    // Trailing size-1 dims are left for the loop above.
    if (i_end - i == 1 && j_end - j == 1) {
      push(tiles[i], j);  // same size: any (even uneven) tiling carries over
      i = i_end;
      j = j_end;
      continue;
    }
    // Source side: contiguous prefix, then extras.
    int64_t contiguous = 1;
    bool open = true;
    std::vector<int64_t> src_extras;
    for (int64_t k = i; k < i_end; ++k) {
      const int64_t p = tiles[k];
      if (p == 1) {
        if (src.dim(k) > 1) open = false;  // an unpartitioned dim: later partitions are strided
        continue;
      }
      if (open && src.dim(k) % p == 0) {
        contiguous *= p;
        if (p < src.dim(k)) open = false;
      } else {
        open = false;
        src_extras.push_back(p);
      }
    }
    // A dim with tiles > 1 after a partial one must be pushed to the device array after the
    // contiguous part, which is only a reshape if it already comes after it: the contiguous dims
    // form a prefix of the partitioned dims by construction.
    int64_t remaining = contiguous;
    for (int64_t k = j; k < j_end; ++k) {
      const int64_t t = dst.dim(k);
      if (remaining == 1) break;
      if (remaining % t == 0) {
        push(t, k);
        remaining /= t;
      } else if (t % remaining == 0) {
        push(remaining, k);
        remaining = 1;
      } else {
        const int64_t g = std::gcd(remaining, t);
        push(g, k);
        remaining /= g;
        break;
      }
    }
    push(remaining, -1);  // gcd leftovers: partial replication (allowed in both modes)
    for (int64_t p : src_extras) extra(p);
    i = i_end;
    j = j_end;
  }
  if (!ok) return std::nullopt;

  // Reshape the source array (data part) into array_dims, then move extras next to subgroups.
  const TileAssignment& ta = s.tile_assignment();
  const std::vector<int64_t>& all_dims = ta.dims();
  std::vector<int64_t> sub_dims(all_dims.begin() + s.TiledDataRank(), all_dims.end());
  std::vector<int64_t> reshaped_dims = array_dims;
  reshaped_dims.insert(reshaped_dims.end(), sub_dims.begin(), sub_dims.end());
  if (reshaped_dims.empty()) reshaped_dims.push_back(1);
  TileAssignment reshaped = ta.Reshape(reshaped_dims);
  // Order: data dims (by target), extras, then original subgroup dims.
  std::vector<int64_t> perm;
  for (int64_t t = 0; t < dst_rank; ++t) {
    for (size_t k = 0; k < array_target.size(); ++k) {
      if (array_target[k] == t) perm.push_back(static_cast<int64_t>(k));
    }
  }
  int64_t extras = 1;
  for (size_t k = 0; k < array_target.size(); ++k) {
    if (array_target[k] < 0) {
      perm.push_back(static_cast<int64_t>(k));
      extras *= array_dims[k];
    }
  }
  for (size_t k = 0; k < sub_dims.size(); ++k) {
    perm.push_back(static_cast<int64_t>(array_dims.size() + k));
  }
  if (array_dims.empty() && sub_dims.empty()) perm = {0};
  TileAssignment moved = reshaped.Transpose(perm);
  std::vector<int64_t> final_dims = target_tiles;
  std::vector<SubgroupType> types;
  if (extras > 1) {
    final_dims.push_back(extras);
    types.push_back(SubgroupType::kReplicated);
  }
  std::vector<SubgroupType> old_types = SubgroupTypesOf(s);
  final_dims.insert(final_dims.end(), sub_dims.begin(), sub_dims.end());
  types.insert(types.end(), old_types.begin(), old_types.end());
  if (final_dims.empty()) return Sharding::Replicate(s.metadata());
  TileAssignment result = moved.Reshape(final_dims);
  if (Product(target_tiles) == 1 && types.empty()) return Sharding::Replicate(s.metadata());
  return Build(std::move(result), std::move(types), s.metadata());
}

}  // namespace

static std::optional<Sharding> ReshapeImplMemo(const Shape& src, const Shape& dst, const Sharding& s,
                                        bool replicate_rest) {
  if (PassesThrough(s) || !src.IsArray() || !dst.IsArray()) return ReshapeImpl(src, dst, s, replicate_rest);
  MemoKey key(kMemoReshape, s);
  key.Add(replicate_rest ? 1 : 0);
  key.Add(src.dims());
  key.Add(dst.dims());
  return Memoized<std::optional<Sharding>>(std::move(key), [&] { return ReshapeImpl(src, dst, s, replicate_rest); });
}

std::optional<Sharding> ReshapeSharding(const Shape& src_shape, const Shape& dst_shape,
                                        const Sharding& sharding) {
  return ReshapeImplMemo(src_shape, dst_shape, sharding, /*replicate_rest=*/false);
}

namespace {

// XLA's reshape rule for propagation (its ReshapeSharding), which PropagateShardingThroughReshape
// must reproduce exactly, including where it gives up: source and target dims are consumed from
// the major end with three stacks (sizes, tiles, target sizes). Runs of untiled source dims are
// multiplied together and matched against whole target dims; a tiled source dim maps onto an
// equal target dim, or splits off gcd(tiles, target size) tiles onto a target dim (the rest of
// the source dim and of the target dim staying on their stacks, the next tiles multiplying into
// the same target dim); it stops at the first dim it cannot place (later tiles are dropped) and
// fails when a tiled source dim is not divisible by its tiles. The device array is only
// reshaped: the dropped partitions become (more) replication.
std::optional<Sharding> StackReshapeSharding(const Shape& src, const Shape& dst, const Sharding& s) {
  if (!s.IsTiled()) return s;
  const std::vector<int64_t> tiles = s.DataTileDims();
  std::vector<int64_t> src_stack(src.dims().rbegin(), src.dims().rend());
  std::vector<int64_t> tile_stack(tiles.rbegin(), tiles.rend());
  std::vector<int64_t> dst_stack(dst.dims().rbegin(), dst.dims().rend());
  std::vector<int64_t> out;
  std::vector<int64_t> to_replicate;
  int64_t src_index = -1;  // the source dim last popped (XLA's bookkeeping, also for merged entries)
  bool multiply_into_last = false;
  auto append = [&](int64_t t) {
    if (multiply_into_last) out.back() *= t;
    else out.push_back(t);
    multiply_into_last = false;
  };
  auto push_src = [&](int64_t size, int64_t t) {
    src_stack.push_back(size);
    tile_stack.push_back(t);
    --src_index;
  };
  auto pop_src = [&] {
    src_stack.pop_back();
    tile_stack.pop_back();
    ++src_index;
  };
  while (!src_stack.empty() && !dst_stack.empty() && Product(tile_stack) != 1) {
    int64_t untiled = 1;
    while (!tile_stack.empty() && tile_stack.back() == 1) {
      untiled *= src_stack.back();
      pop_src();
    }
    while (!dst_stack.empty() && dst_stack.back() > 1 && untiled % dst_stack.back() == 0) {
      untiled /= dst_stack.back();
      dst_stack.pop_back();
      append(1);
    }
    if (untiled != 1) push_src(untiled, 1);
    if (src_stack.empty() || dst_stack.empty()) break;
    const int64_t s_size = src_stack.back();
    const int64_t s_tiles = tile_stack.back();
    pop_src();
    const int64_t t_size = dst_stack.back();
    dst_stack.pop_back();
    if (s_size == t_size) {
      // The rest of a target dim already split by earlier tiles: tiles that do not divide it
      // would cut across those earlier tiles, so only their gcd with the size is kept (newer
      // XLA; e.g. [2,3] tiled [2,2] -> [6] keeps 2 tiles, not 4).
      if (multiply_into_last && s_size % s_tiles != 0) {
        append(std::gcd(s_size, s_tiles));
        break;
      }
      append(s_tiles);
    } else if (t_size == 1) {
      append(1);
      push_src(s_size, s_tiles);
    } else if (s_size == 1) {
      dst_stack.push_back(t_size);
      if (s_tiles > 1) to_replicate.push_back(src_index);
    } else if (s_tiles == 1) {
      if (!src_stack.empty() && tile_stack.back() == 1) {
        src_stack.back() *= s_size;
      } else {
        break;
      }
    } else if (s_size % s_tiles != 0) {
      return std::nullopt;
    } else {
      const int64_t g = std::gcd(s_tiles, t_size);
      if (g == 1) break;
      push_src(s_size / g, s_tiles / g);
      dst_stack.push_back(t_size / g);
      append(g);
      multiply_into_last = true;
    }
  }
  if (Product(out) == 1) return std::nullopt;
  while (static_cast<int64_t>(out.size()) < dst.rank()) out.push_back(1);
  Sharding base = s;
  if (!to_replicate.empty()) {
    std::vector<int64_t> valid;
    for (int64_t d : to_replicate)
      if (d >= 0 && d < s.TiledDataRank()) valid.push_back(d);
    base = PartiallyReplicateTiledShardingOnDims(s, valid);
    if (!base.IsTiled()) return std::nullopt;
  }
  std::vector<SubgroupType> types = base.subgroup_types();
  const bool last_replicated = base.ReplicateOnLastTileDim();
  const auto& all = base.tile_assignment().dims();
  int64_t replication_dim = -1;
  for (int64_t i = base.TiledDataRank(); i < static_cast<int64_t>(all.size()); ++i) {
    const bool is_replication = last_replicated ? i + 1 == static_cast<int64_t>(all.size())
                                                : types[i - base.TiledDataRank()] == SubgroupType::kReplicated;
    if (is_replication) replication_dim = static_cast<int64_t>(out.size());
    out.push_back(is_replication ? 1 : all[i]);
  }
  const int64_t quot = base.tile_assignment().num_elements() / Product(out);
  if (quot > 1) {
    if (last_replicated) {
      out.back() = quot;
      types = {SubgroupType::kReplicated};
    } else if (replication_dim >= 0) {
      out[replication_dim] = quot;
    } else {
      out.push_back(quot);
      types.push_back(SubgroupType::kReplicated);
    }
  } else if (last_replicated) {
    return std::nullopt;  // cannot happen: a replicated dim keeps at least its own size
  }
  return Build(base.tile_assignment().Reshape(out), std::move(types), base.metadata());
}

// XLA's PropagateShardingThroughReshape: the tiles of maximal intervals of source dims, each
// reshaped with StackReshapeSharding (the other dims' tiles treated as replication) and merged,
// trying the longest interval from each start first.
Sharding IntervalReshapeSharding(const Shape& src, const Shape& dst, const Sharding& s) {
  const int64_t src_rank = src.rank();
  const int64_t dst_rank = dst.rank();
  Sharding result = Sharding::Replicate();
  int64_t start = 0;
  while (start < src_rank) {
    bool found = false;
    for (int64_t end = src_rank; end > start; --end) {
      std::vector<int64_t> grouped(src_rank, 1);
      for (int64_t i = start; i < end; ++i) grouped[i] = s.tile_assignment().dim(i);
      if (Product(grouped) == 1) continue;
      std::optional<Sharding> reshaped = StackReshapeSharding(src, dst, Sharding::Tile(TileAssignment(grouped)));
      if (!reshaped || !reshaped->IsTiled()) continue;
      std::vector<int64_t> perm;
      for (int64_t i = start; i < end; ++i) perm.push_back(i);
      for (int64_t i = 0; i < start; ++i) perm.push_back(i);
      for (int64_t i = end; i < s.tile_assignment().num_dimensions(); ++i) perm.push_back(i);
      std::vector<int64_t> dims = reshaped->tile_assignment().dims();
      const int64_t rest = s.tile_assignment().num_elements() / Product(dims);
      if (static_cast<int64_t>(dims.size()) == dst_rank) dims.push_back(rest);
      else dims.back() *= rest;
      Sharding ungrouped = Build(s.tile_assignment().Transpose(perm).Reshape(dims), {SubgroupType::kReplicated},
                                 ShardingMetadata{});
      if (MergeShardingIfCompatible(ungrouped, result.NumTiles() + 1, &result)) {
        start = end;
        found = true;
        break;
      }
    }
    if (!found) ++start;
  }
  return result;
}

Sharding ReshapeThroughImpl(const Shape& src_shape, const Shape& dst_shape, const Sharding& sharding);

}  // namespace

Sharding PropagateShardingThroughReshape(const Shape& src_shape, const Shape& dst_shape,
                                         const Sharding& sharding) {
  if (sharding.IsTuple() || !sharding.IsTiled()) return sharding;
  if (!src_shape.IsArray() || !dst_shape.IsArray() || src_shape.rank() != sharding.TiledDataRank())
    return ReplicateAllDataDims(sharding, dst_shape.IsArray() ? dst_shape.rank() : -1);
  if (src_shape.dims() == dst_shape.dims()) return sharding;
  MemoKey key(kMemoReshapeThrough, sharding);
  key.Add(src_shape.dims());
  key.Add(dst_shape.dims());
  Sharding result = Memoized<Sharding>(std::move(key), [&] { return ReshapeThroughImpl(src_shape, dst_shape, sharding); });
  return result.WithMetadata(sharding.metadata());
}

namespace {
Sharding ReshapeThroughImpl(const Shape& src_shape, const Shape& dst_shape, const Sharding& sharding) {
  Sharding result = Sharding::Replicate();
  if (sharding.SubgroupManualDim() >= 0) {
    // Per manual group, as if the manual dim were not there.
    const int64_t manual[] = {sharding.SubgroupManualDim()};
    GroupedSharding g = GroupShardingOnDims(sharding, manual);
    if (g.sharding.IsTiled()) g.sharding = IntervalReshapeSharding(src_shape, dst_shape, g.sharding);
    g.data_rank = dst_shape.rank();
    g.group_dims[0] += dst_shape.rank() - src_shape.rank();
    result = UngroupSharding(g);
  } else {
    result = IntervalReshapeSharding(src_shape, dst_shape, sharding);
  }
  return result;
}
}  // namespace

Sharding ReverseSharding(const Sharding& sharding, std::span<const int64_t> dims) {
  if (PassesThrough(sharding)) return sharding;
  const TileAssignment& ta = sharding.tile_assignment();
  bool any = false;
  for (int64_t d : dims) any |= ta.dim(d) > 1;
  if (!any) return sharding;
  std::vector<int64_t> out(ta.num_elements());
  std::vector<int64_t> src(ta.num_dimensions());
  int64_t linear = 0;
  ta.Each([&](std::span<const int64_t> index, int64_t) {
    std::copy(index.begin(), index.end(), src.begin());
    for (int64_t d : dims) src[d] = ta.dim(d) - 1 - index[d];
    out[linear++] = ta(src);
  });
  return WithTiles(sharding, TileAssignment::FromDevices(ta.dims(), std::move(out)));
}

namespace {
Sharding PartiallyReplicateImpl(const Sharding& sharding, std::span<const int64_t> dims) {
  const int64_t data_rank = sharding.TiledDataRank();
  const TileAssignment& ta = sharding.tile_assignment();
  int64_t group = 1;
  for (int64_t d : dims) {
    if (d < data_rank) group *= ta.dim(d);
  }
  if (group == 1) return sharding;
  if (group == sharding.NumTiles() && sharding.subgroup_types().empty()) {
    return Sharding::Replicate(sharding.metadata());
  }
  // Data dims, the replicated ones moved after the others; then the subgroup dims.
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < data_rank; ++d) {
    if (!Contains(dims, d)) perm.push_back(d);
  }
  for (int64_t d = 0; d < data_rank; ++d) {
    if (Contains(dims, d)) perm.push_back(d);
  }
  for (int64_t d = data_rank; d < ta.num_dimensions(); ++d) perm.push_back(d);
  TileAssignment moved = ta.Transpose(perm);
  std::vector<int64_t> new_dims(ta.dims().begin(), ta.dims().begin() + data_rank);
  for (int64_t d : dims) {
    if (d < data_rank) new_dims[d] = 1;
  }
  new_dims.push_back(group);
  new_dims.insert(new_dims.end(), ta.dims().begin() + data_rank, ta.dims().end());
  std::vector<SubgroupType> types = {SubgroupType::kReplicated};
  std::vector<SubgroupType> old = SubgroupTypesOf(sharding);
  types.insert(types.end(), old.begin(), old.end());
  return Build(moved.Reshape(new_dims), std::move(types), sharding.metadata());
}

}  // namespace

Sharding PartiallyReplicateTiledShardingOnDims(const Sharding& sharding,
                                               std::span<const int64_t> dims) {
  if (PassesThrough(sharding)) return sharding;
  MemoKey key(kMemoPartiallyReplicate, sharding);
  key.Add(dims);
  return Memoized<Sharding>(std::move(key), [&] { return PartiallyReplicateImpl(sharding, dims); });
}

Sharding PartiallyReplicateTiledShardingOnAllDimsExcept(const Sharding& sharding,
                                                        std::span<const int64_t> dims_to_keep) {
  if (PassesThrough(sharding)) return sharding;
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < sharding.TiledDataRank(); ++d) {
    if (!Contains(dims_to_keep, d)) dims.push_back(d);
  }
  return PartiallyReplicateTiledShardingOnDims(sharding, dims);
}

Sharding ReplicateAllDataDims(const Sharding& sharding, int64_t data_rank) {
  if (sharding.IsManual()) return sharding;
  if (sharding.IsTuple()) {
    std::vector<Sharding> elements;
    for (const Sharding& e : sharding.tuple_elements()) elements.push_back(ReplicateAllDataDims(e, data_rank));
    return Sharding::Tuple(std::move(elements));
  }
  // Any typed subgroup (manual, or maximal) survives; plain and partially replicated tilings
  // become replicated (XLA tests for "no subgroup types").
  if (sharding.IsTiled() && !sharding.subgroup_types().empty()) {
    std::vector<int64_t> all(sharding.TiledDataRank());
    std::iota(all.begin(), all.end(), 0);
    Sharding s = PartiallyReplicateTiledShardingOnDims(sharding, all);
    if (data_rank >= 0 && s.IsTiled() && data_rank != s.TiledDataRank()) {
      const auto& d = s.tile_assignment().dims();
      std::vector<int64_t> dims(data_rank, 1);
      dims.insert(dims.end(), d.begin() + s.TiledDataRank(), d.end());
      return WithTiles(s, s.tile_assignment().Reshape(dims));
    }
    return s;
  }
  return Sharding::Replicate(sharding.metadata());
}

namespace {
Sharding RemoveShapeDimensionsImpl(const Sharding& sharding, std::span<const int64_t> dims) {
  const TileAssignment& ta = sharding.tile_assignment();
  std::vector<int64_t> new_dims;
  for (int64_t d = 0; d < ta.num_dimensions(); ++d) {
    if (d < sharding.TiledDataRank() && Contains(dims, d)) {
      SPMDC_CHECK_MSG(ta.dim(d) == 1, "RemoveShapeDimensions: removed dim is partitioned");
      continue;
    }
    new_dims.push_back(ta.dim(d));
  }
  if (new_dims.empty()) return Sharding::Replicate(sharding.metadata());
  return WithTiles(sharding, ta.Reshape(new_dims));
}

}  // namespace

Sharding RemoveShapeDimensions(const Sharding& sharding, std::span<const int64_t> dims) {
  if (PassesThrough(sharding) || dims.empty()) return sharding;
  MemoKey key(kMemoRemoveDims, sharding);
  key.Add(dims);
  return Memoized<Sharding>(std::move(key), [&] { return RemoveShapeDimensionsImpl(sharding, dims); });
}

namespace {
std::optional<Sharding> CollapsedTransposeImpl(const Sharding& sharding,
                                               std::span<const int64_t> src_to_tgt,
                                               std::span<const int64_t> tgt_to_src) {
  const int64_t data_rank = sharding.TiledDataRank();
  const TileAssignment& ta = sharding.tile_assignment();
  const int64_t num_sub = ta.num_dimensions() - data_rank;
  // Callers may include the subgroup dims at the end of both maps: drop them.
  const int64_t src_rank = static_cast<int64_t>(src_to_tgt.size()) -
                           (static_cast<int64_t>(src_to_tgt.size()) > data_rank ? num_sub : 0);
  const int64_t tgt_rank = static_cast<int64_t>(tgt_to_src.size()) -
                           (static_cast<int64_t>(src_to_tgt.size()) > data_rank ? num_sub : 0);
  SPMDC_CHECK(src_rank == data_rank);
  std::vector<int64_t> perm;
  std::vector<int64_t> new_dims;
  for (int64_t j = 0; j < tgt_rank; ++j) {
    const int64_t s = tgt_to_src[j];
    if (s >= 0) {
      perm.push_back(s);
      new_dims.push_back(ta.dim(s));
    } else {
      new_dims.push_back(1);
    }
  }
  for (int64_t i = 0; i < data_rank; ++i) {
    const bool mapped = src_to_tgt[i] >= 0 && Contains(tgt_to_src.subspan(0, tgt_rank), i);
    if (!mapped) {
      if (ta.dim(i) != 1) return std::nullopt;
      perm.push_back(i);
    }
  }
  for (int64_t k = 0; k < num_sub; ++k) {
    perm.push_back(data_rank + k);
    new_dims.push_back(ta.dim(data_rank + k));
  }
  if (new_dims.empty()) return Sharding::Replicate(sharding.metadata());
  if (static_cast<int64_t>(perm.size()) != ta.num_dimensions()) return std::nullopt;
  return WithTiles(sharding, ta.Transpose(perm).Reshape(new_dims));
}

}  // namespace

std::optional<Sharding> TransposeShardingWithCollapsedDims(const Sharding& sharding,
                                                           std::span<const int64_t> src_to_tgt,
                                                           std::span<const int64_t> tgt_to_src) {
  if (PassesThrough(sharding)) return sharding;
  MemoKey key(kMemoCollapsedTranspose, sharding);
  key.Add(src_to_tgt);
  key.Add(tgt_to_src);
  return Memoized<std::optional<Sharding>>(std::move(key), [&] {
    return CollapsedTransposeImpl(sharding, src_to_tgt, tgt_to_src);
  });
}

GroupedSharding GroupShardingOnDims(const Sharding& sharding, std::span<const int64_t> group_dims,
                                    std::span<const int64_t> group_dim_shards,
                                    bool subgroup_manual) {
  SPMDC_CHECK(sharding.IsTiled());
  const TileAssignment& ta = sharding.tile_assignment();
  const int64_t rank = ta.num_dimensions();
  GroupedSharding g;
  g.group_dims.assign(group_dims.begin(), group_dims.end());
  g.data_rank = sharding.TiledDataRank();
  g.subgroup_manual = subgroup_manual;
  g.original_subgroup_types = SubgroupTypesOf(sharding);
  // Split each group dim d into [groups, shards]; the refined array has rank + |group_dims| dims.
  std::vector<int64_t> shards(rank, 1), groups(rank, 1);
  for (size_t k = 0; k < group_dims.size(); ++k) {
    const int64_t d = group_dims[k];
    const int64_t sh = k < group_dim_shards.size() ? group_dim_shards[k] : 1;
    SPMDC_CHECK(ta.dim(d) % sh == 0);
    shards[d] = sh;
    groups[d] = ta.dim(d) / sh;
    g.group_dim_sizes.push_back(groups[d]);
  }
  std::vector<int64_t> in_group_dims(rank);
  for (int64_t d = 0; d < rank; ++d) {
    in_group_dims[d] = Contains(group_dims, d) ? shards[d] : ta.dim(d);
  }
  // Refined array [.., groups_d, shards_d, ..]; group coords first (in group_dims order), then the
  // in-group coords in dim order.
  std::vector<int64_t> refined;
  std::vector<int64_t> group_pos(rank, -1), in_pos(rank, -1);
  for (int64_t d = 0; d < rank; ++d) {
    if (Contains(group_dims, d)) {
      group_pos[d] = static_cast<int64_t>(refined.size());
      refined.push_back(groups[d]);
    }
    in_pos[d] = static_cast<int64_t>(refined.size());
    refined.push_back(in_group_dims[d]);
  }
  std::vector<int64_t> perm;
  for (int64_t d : group_dims) perm.push_back(group_pos[d]);
  for (int64_t d = 0; d < rank; ++d) perm.push_back(in_pos[d]);
  TileAssignment arranged = ta.Reshape(refined).Transpose(perm);
  const int64_t num_groups = Product(g.group_dim_sizes);
  const int64_t group_size = ta.num_elements() / num_groups;
  g.device_groups.assign(num_groups, std::vector<int64_t>(group_size));
  for (int64_t gi = 0; gi < num_groups; ++gi) {
    for (int64_t k = 0; k < group_size; ++k) g.device_groups[gi][k] = arranged.At(gi * group_size + k);
  }
  if (subgroup_manual) {
    g.sharding = Sharding::Manual(sharding.metadata());
  } else {
    g.sharding = Build(TileAssignment(in_group_dims), g.original_subgroup_types, sharding.metadata());
  }
  return g;
}

GroupedSharding GroupShardingOnAllDimsExcept(const Sharding& sharding,
                                             std::span<const int64_t> non_group_dims,
                                             bool subgroup_manual) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < sharding.TiledDataRank(); ++d) {
    if (!Contains(non_group_dims, d)) dims.push_back(d);
  }
  return GroupShardingOnDims(sharding, dims, {}, subgroup_manual);
}

Sharding UngroupSharding(const GroupedSharding& grouped) {
  const int64_t num_groups = static_cast<int64_t>(grouped.device_groups.size());
  SPMDC_CHECK(num_groups > 0);
  const int64_t group_size = static_cast<int64_t>(grouped.device_groups[0].size());
  const Sharding& in = grouped.sharding;
  const int64_t data_rank = grouped.data_rank;
  // The in-group sharding as a tile array over [data dims..., one dim per type in `types`].
  std::vector<SubgroupType> types = grouped.original_subgroup_types;
  std::vector<int64_t> in_dims(data_rank, 1);
  TileAssignment in_tiles;
  if (in.IsTiled()) {
    SPMDC_CHECK(in.TiledDataRank() == data_rank);
    const std::vector<SubgroupType> in_types = SubgroupTypesOf(in);
    for (SubgroupType t : in_types) {
      if (std::find(types.begin(), types.end(), t) == types.end()) types.push_back(t);
    }
    // Place the in-group subgroup dims at their type's position; missing types get size 1.
    const auto& d = in.tile_assignment().dims();
    for (int64_t i = 0; i < data_rank; ++i) in_dims[i] = d[i];
    std::vector<int64_t> perm(d.size());
    std::iota(perm.begin(), perm.begin() + data_rank, 0);
    std::vector<int64_t> expanded = in_dims;
    int64_t next = data_rank;
    for (SubgroupType t : types) {
      auto it = std::find(in_types.begin(), in_types.end(), t);
      if (it == in_types.end()) {
        expanded.push_back(1);
      } else {
        const int64_t src_dim = data_rank + (it - in_types.begin());
        perm[next++] = src_dim;
        expanded.push_back(d[src_dim]);
      }
    }
    in_tiles = in.tile_assignment().Transpose(perm).Reshape(expanded);
    in_dims = expanded;
  } else {
    // Replicated / manual / maximal in-group: the whole group in one subgroup dim.
    const SubgroupType t = in.IsManual() ? SubgroupType::kManual : SubgroupType::kReplicated;
    if (std::find(types.begin(), types.end(), t) == types.end()) types.push_back(t);
    for (SubgroupType u : types) in_dims.push_back(u == t ? group_size : 1);
    in_tiles = TileAssignment(in_dims);
  }
  const int64_t rank = static_cast<int64_t>(in_dims.size());
  std::vector<int64_t> out_dims = in_dims;
  for (size_t k = 0; k < grouped.group_dims.size(); ++k) {
    out_dims[grouped.group_dims[k]] *= grouped.group_dim_sizes[k];
  }
  std::vector<int64_t> devices(Product(out_dims));
  std::vector<int64_t> out_index(rank);
  std::vector<int64_t> group_index(grouped.group_dims.size());
  int64_t linear = 0;
  TileAssignment(out_dims).Each([&](std::span<const int64_t> index, int64_t) {
    std::copy(index.begin(), index.end(), out_index.begin());
    int64_t g = 0;
    for (size_t k = 0; k < grouped.group_dims.size(); ++k) {
      const int64_t d = grouped.group_dims[k];
      g = g * grouped.group_dim_sizes[k] + index[d] / in_dims[d];
      out_index[d] = index[d] % in_dims[d];
    }
    devices[linear++] = grouped.device_groups[g][in_tiles(out_index)];
  });
  ShardingMetadata md = in.metadata();
  if (grouped.subgroup_manual && in.IsManual()) {
    // Group coordinates on the manual dim: keep; nothing else to do.
  }
  return Build(TileAssignment::FromDevices(out_dims, std::move(devices)), std::move(types),
               std::move(md));
}

GroupedSharding GetManualSubgroupSharding(const Sharding& sharding) {
  const int64_t manual_dim = sharding.SubgroupManualDim();
  SPMDC_CHECK_MSG(manual_dim >= 0, "GetManualSubgroupSharding needs a manual subgroup");
  const int64_t dims[] = {manual_dim};
  return GroupShardingOnDims(sharding, dims);
}

GroupedSharding AlignGroupsWith(GroupedSharding grouped, const GroupedSharding& reference,
                                bool ignore_group_order) {
  const size_t num_groups = reference.device_groups.size();
  bool aligned = grouped.device_groups.size() == num_groups;
  absl::flat_hash_map<int64_t, std::pair<int64_t, int64_t>> where;  // device -> (group, position)
  for (size_t g = 0; g < num_groups; ++g) {
    for (size_t k = 0; k < reference.device_groups[g].size(); ++k) {
      where[reference.device_groups[g][k]] = {static_cast<int64_t>(g), static_cast<int64_t>(k)};
    }
  }
  // to_reference[k]: the reference in-group id of the device with in-group id k.
  std::vector<int64_t> to_reference;
  std::vector<bool> group_taken(num_groups, false);
  for (size_t g = 0; aligned && g < grouped.device_groups.size(); ++g) {
    const auto& group = grouped.device_groups[g];
    std::vector<int64_t> mapping(group.size());
    int64_t ref_group = -1;
    for (size_t k = 0; k < group.size() && aligned; ++k) {
      auto it = where.find(group[k]);
      if (it == where.end() || (ref_group >= 0 && it->second.first != ref_group)) {
        aligned = false;
        break;
      }
      ref_group = it->second.first;
      mapping[k] = it->second.second;
    }
    if (!aligned) break;
    if (ref_group < 0 || group.size() != reference.device_groups[ref_group].size() ||
        group_taken[ref_group] || (!ignore_group_order && ref_group != static_cast<int64_t>(g))) {
      aligned = false;
      break;
    }
    group_taken[ref_group] = true;
    if (g == 0) {
      to_reference = mapping;
    } else if (mapping != to_reference) {
      aligned = false;
    }
  }
  if (aligned && grouped.sharding.IsTiled()) {
    const TileAssignment& ta = grouped.sharding.tile_assignment();
    std::vector<int64_t> ids(ta.num_elements());
    for (int64_t i = 0; i < ta.num_elements(); ++i) ids[i] = to_reference[ta.At(i)];
    grouped.sharding = Build(TileAssignment::FromDevices(ta.dims(), std::move(ids)),
                             SubgroupTypesOf(grouped.sharding), grouped.sharding.metadata());
  } else if (aligned && grouped.sharding.IsMaximal()) {
    grouped.sharding = Sharding::AssignDevice(to_reference[grouped.sharding.tile_assignment().first()],
                                              grouped.sharding.metadata());
  }
  grouped.device_groups = reference.device_groups;
  return grouped;
}

Shape GetPerGroupBaseShape(const GroupedSharding& grouped, const Shape& shape) {
  Shape out = shape;
  for (size_t k = 0; k < grouped.group_dims.size(); ++k) {
    const int64_t d = grouped.group_dims[k];
    if (d >= grouped.data_rank || d >= shape.rank()) continue;
    const int64_t n = grouped.group_dim_sizes[k];
    out.set_dim(d, (shape.dim(d) + n - 1) / n);
  }
  return out;
}

namespace {
bool MergeImpl(const Sharding& to_merge, int64_t minimum_tiles, Sharding* dst) {
  if (to_merge.IsTileMaximal() || to_merge.IsManual() || to_merge.IsUnknown()) return false;
  if (dst->IsManual() || dst->IsUnknown()) return false;
  auto merged_metadata = [&] {
    ShardingMetadata md = dst->metadata();
    for (const std::string& m : to_merge.metadata()) {
      if (std::find(md.begin(), md.end(), m) == md.end()) md.push_back(m);
    }
    return md;
  };
  if (dst->IsTileMaximal()) {
    *dst = to_merge.WithMetadata(merged_metadata());
    return true;
  }
  if (!dst->HasPartialReplication()) return false;
  const int64_t rank = dst->TiledDataRank();
  if (to_merge.TiledDataRank() != rank) return false;
  if (to_merge.TotalNumTiles() != dst->TotalNumTiles()) return false;
  const int64_t dst_manual = dst->SubgroupManualDim();
  const int64_t merge_manual = to_merge.SubgroupManualDim();
  if ((dst_manual >= 0) != (merge_manual >= 0)) return false;
  const int64_t manual_size = dst_manual >= 0 ? dst->tile_assignment().dim(dst_manual) : 1;
  if (merge_manual >= 0 && to_merge.tile_assignment().dim(merge_manual) != manual_size) return false;
  std::vector<int64_t> merged_tiles(rank);
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t a = dst->NumTilesOnDim(d), b = to_merge.NumTilesOnDim(d);
    if (a != b && a != 1 && b != 1) return false;
    merged_tiles[d] = std::max(a, b);
  }
  const int64_t num_tiles = Product(merged_tiles);
  const int64_t total = dst->TotalNumTiles();
  if (num_tiles < minimum_tiles || total % (num_tiles * manual_size) != 0) return false;
  const int64_t replication = total / (num_tiles * manual_size);
  // Per device: merged tile (and manual coordinate); collect the members of each merged tile.
  std::vector<std::vector<int64_t>> members(num_tiles * manual_size);
  const TileAssignment& dst_ta = dst->tile_assignment();
  const TileAssignment& merge_ta = to_merge.tile_assignment();
  for (int64_t linear = 0; linear < total; ++linear) {
    const int64_t device = dst_ta.At(linear);
    auto a = dst_ta.IndexOf(device);
    auto b = merge_ta.IndexOf(device);
    if (!b) return false;
    int64_t key = 0;
    for (int64_t d = 0; d < rank; ++d) {
      const bool a_tiled = dst_ta.dim(d) > 1, b_tiled = merge_ta.dim(d) > 1;
      if (a_tiled && b_tiled && (*a)[d] != (*b)[d]) return false;
      key = key * merged_tiles[d] + (a_tiled ? (*a)[d] : (*b)[d]);
    }
    if (manual_size > 1) {
      // Both must agree on the manual group: compare the first device of each manual group.
      key = key * manual_size + (*a)[dst_manual];
    }
    members[key].push_back(device);
  }
  if (manual_size > 1) {
    // Every device must sit at the same manual coordinate in both (XLA intersects the groups of
    // equal manual index; groups that are merely relabelled do not merge).
    for (int64_t linear = 0; linear < total; ++linear) {
      const int64_t device = dst_ta.At(linear);
      if ((*dst_ta.IndexOf(device))[dst_manual] != (*merge_ta.IndexOf(device))[merge_manual]) return false;
    }
  }
  std::vector<int64_t> devices;
  devices.reserve(total);
  for (auto& m : members) {
    if (static_cast<int64_t>(m.size()) != replication) return false;
    std::sort(m.begin(), m.end());
    devices.insert(devices.end(), m.begin(), m.end());
  }
  std::vector<int64_t> dims = merged_tiles;
  std::vector<SubgroupType> types;
  if (manual_size > 1) {
    dims.push_back(manual_size);
    types.push_back(SubgroupType::kManual);
  }
  dims.push_back(replication);
  types.push_back(SubgroupType::kReplicated);
  *dst = Build(TileAssignment::FromDevices(dims, std::move(devices)), std::move(types),
               merged_metadata());
  return true;
}

}  // namespace

bool MergeShardingIfCompatible(const Sharding& to_merge, int64_t minimum_tiles, Sharding* dst) {
  SPMDC_CHECK(!to_merge.IsTuple() && !dst->IsTuple());
  MemoKey key(kMemoMerge, to_merge, *dst);
  key.Add(minimum_tiles);
  std::optional<Sharding> merged = Memoized<std::optional<Sharding>>(std::move(key), [&] {
    Sharding out = *dst;
    return MergeImpl(to_merge, minimum_tiles, &out) ? std::optional<Sharding>(std::move(out)) : std::nullopt;
  });
  if (!merged) return false;
  *dst = std::move(*merged);
  return true;
}

namespace {
// XLA's sub-tiling test. Per data dim the sub sharding needs at least as many tiles. When every
// tiled dim splits evenly (tile counts divide, tile sizes divide, and no tile of either is pure
// padding), the answer is read off the tile arrays: without partial replication the two must be
// equal; otherwise each tile of `sharding`, split into its sub tiles (the split factors moved to
// the end, i.e. into the replication dim), must hold the same devices -- manual subgroup dims
// included. Otherwise every device's sub tile must start inside its tile and, unless it runs past
// the end of the dim (where padding differs), end inside it; offsets are unclamped.
bool SubTilingImpl(const Shape& shape, const Sharding& potential_sub, const Sharding& sharding) {
  if (potential_sub.IsManual() || sharding.IsManual()) return false;
  if (sharding.IsTileMaximal()) return true;
  if (potential_sub.IsTileMaximal()) return false;
  if (!potential_sub.IsTiled() || !sharding.IsTiled()) return false;
  if (potential_sub.TiledDataRank() != shape.rank() || sharding.TiledDataRank() != shape.rank()) {
    return false;
  }
  if (potential_sub.TotalNumTiles() != sharding.TotalNumTiles()) return false;
  if (potential_sub == sharding) return true;
  const int64_t rank = shape.rank();
  std::vector<int64_t> sub_base(rank), base(rank);
  bool evenly_nested = true;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t p = potential_sub.NumTilesOnDim(d), t = sharding.NumTilesOnDim(d);
    if (p < t) return false;
    sub_base[d] = CeilOfRatio(shape.dim(d), p);
    base[d] = CeilOfRatio(shape.dim(d), t);
    if (t != 1 && (p % t != 0 || base[d] % sub_base[d] != 0 || shape.dim(d) <= (p - 1) * sub_base[d] ||
                   shape.dim(d) <= (t - 1) * base[d])) {
      evenly_nested = false;
    }
  }
  if (evenly_nested) {
    if (!sharding.HasPartialReplication()) return false;  // equality was checked above
    // Split each refined dim d of the sub array into [t, p / t], move the p / t factors behind
    // everything (in dim order), and read the result with the dims of `sharding`.
    const TileAssignment& sub_ta = potential_sub.tile_assignment();
    std::vector<int64_t> split_dims, front, back;
    for (int64_t d = 0; d < sub_ta.num_dimensions(); ++d) {
      const int64_t p = sub_ta.dim(d);
      const int64_t t = d < rank ? sharding.NumTilesOnDim(d) : p;
      front.push_back(static_cast<int64_t>(split_dims.size()));
      split_dims.push_back(t);
      if (p != t) {
        back.push_back(static_cast<int64_t>(split_dims.size()));
        split_dims.push_back(p / t);
      }
    }
    std::vector<int64_t> perm = front;
    perm.insert(perm.end(), back.begin(), back.end());
    TileAssignment moved = sub_ta.Reshape(split_dims).Transpose(perm).Reshape(sharding.tile_assignment().dims());
    const int64_t group = moved.dims().back();
    std::vector<int64_t> ids = moved.devices();
    for (size_t at = 0; at < ids.size(); at += group) std::sort(ids.begin() + at, ids.begin() + at + group);
    return ids == sharding.tile_assignment().devices();
  }
  absl::flat_hash_map<int64_t, std::vector<int64_t>> index_of;
  sharding.tile_assignment().Each([&](std::span<const int64_t> index, int64_t device) {
    index_of[device].assign(index.begin(), index.begin() + rank);
  });
  bool ok = true;
  potential_sub.tile_assignment().Each([&](std::span<const int64_t> index, int64_t device) {
    if (!ok) return;
    auto it = index_of.find(device);
    if (it == index_of.end()) {
      ok = false;
      return;
    }
    for (int64_t d = 0; d < rank && ok; ++d) {
      const int64_t sub_off = sub_base[d] * index[d];
      const int64_t off = base[d] * it->second[d];
      if (sub_off < off) ok = false;
      // A sub tile reaching past the end of the dim is exempt from the end check.
      if (sub_off + sub_base[d] <= shape.dim(d) && sub_off + sub_base[d] > off + base[d]) ok = false;
    }
  });
  return ok;
}

}  // namespace

bool IsSubTilingOrEqualSharding(const Shape& shape, const Sharding& potential_sub,
                                const Sharding& sharding) {
  if (!shape.IsArray() || !potential_sub.IsTiled() || !sharding.IsTiled())
    return SubTilingImpl(shape, potential_sub, sharding);
  MemoKey key(kMemoSubTiling, potential_sub, sharding);
  key.Add(shape.dims());
  return Memoized<bool>(std::move(key), [&] { return SubTilingImpl(shape, potential_sub, sharding); });
}

bool IsShardingMoreSpecific(const Sharding& lhs, const Sharding& rhs) {
  if (lhs.IsTuple() || rhs.IsTuple()) {
    if (!lhs.IsTuple() || !rhs.IsTuple()) return false;
    const auto& a = lhs.tuple_elements();
    const auto& b = rhs.tuple_elements();
    if (a.size() != b.size()) return false;
    bool better = false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (IsShardingMoreSpecific(b[i], a[i])) return false;
      if (IsShardingMoreSpecific(a[i], b[i])) better = true;
    }
    return better;
  }
  if (lhs.IsManual() || rhs.IsManual()) return lhs.IsManual() && !rhs.IsManual() && rhs.IsTileMaximal();
  if (lhs.IsUnknown()) return false;
  if (rhs.IsUnknown()) return true;
  if (rhs.IsTiled()) return lhs.IsTiled() && lhs.NumTiles() > rhs.NumTiles();
  if (rhs.IsMaximal()) return lhs.IsTiled();
  return !lhs.IsReplicated();  // rhs replicated
}

Sharding FindCommonSharding(std::span<const Sharding> shardings,
                            std::optional<Sharding> default_sharding) {
  SPMDC_CHECK(!shardings.empty());
  Sharding common = shardings[0];
  for (size_t i = 1; i < shardings.size(); ++i) {
    if (common == shardings[i]) continue;
    Sharding candidate = common;
    if (common.IsTuple() || shardings[i].IsTuple() ||
        !MergeShardingIfCompatible(shardings[i], common.NumTiles(), &candidate)) {
      return default_sharding ? *default_sharding : shardings[0];
    }
    common = candidate;
  }
  return common;
}

namespace {
Sharding MapShardingDimsImpl(const Sharding& sharding, int64_t target_rank,
                             std::span<const std::pair<int64_t, int64_t>> dim_pairs) {
  std::vector<int64_t> keep;
  for (const auto& [src, dst] : dim_pairs) keep.push_back(src);
  Sharding kept = PartiallyReplicateTiledShardingOnAllDimsExcept(sharding, keep);
  if (!kept.IsTiled()) return kept;
  std::vector<int64_t> src_to_tgt(kept.TiledDataRank(), -1);
  std::vector<int64_t> tgt_to_src(target_rank, -1);
  for (const auto& [src, dst] : dim_pairs) {
    src_to_tgt[src] = dst;
    tgt_to_src[dst] = src;
  }
  auto mapped = TransposeShardingWithCollapsedDims(kept, src_to_tgt, tgt_to_src);
  SPMDC_CHECK(mapped.has_value());
  return *mapped;
}

}  // namespace

Sharding MapShardingDims(const Sharding& sharding, int64_t target_rank,
                         std::span<const std::pair<int64_t, int64_t>> dim_pairs) {
  if (PassesThrough(sharding)) return sharding;
  MemoKey key(kMemoMapDims, sharding);
  key.Add(target_rank);
  for (const auto& [src, dst] : dim_pairs) {
    key.Add(src);
    key.Add(dst);
  }
  return Memoized<Sharding>(std::move(key), [&] { return MapShardingDimsImpl(sharding, target_rank, dim_pairs); });
}

DimPairs GatherIndexPassthroughDims(const Shape& indices, const Shape& output, const GatherDims& d) {
  std::vector<int64_t> index_dims, batch_dims;
  for (int64_t i = 0; i < indices.rank(); ++i) {
    if (i != d.index_vector_dim) index_dims.push_back(i);
  }
  for (int64_t i = 0; i < output.rank(); ++i) {
    if (!Contains(d.offset_dims, i)) batch_dims.push_back(i);
  }
  DimPairs pairs;
  for (size_t k = 0; k < index_dims.size() && k < batch_dims.size(); ++k) {
    pairs.emplace_back(index_dims[k], batch_dims[k]);
  }
  return pairs;
}

DimPairs GatherOperandPassthroughDims(const Shape& operand, const GatherDims& d) {
  DimPairs pairs;
  size_t offset = 0;
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (Contains(d.collapsed_slice_dims, i) || Contains(d.operand_batching_dims, i)) continue;
    if (offset >= d.offset_dims.size()) break;
    const int64_t out_dim = d.offset_dims[offset++];
    if (i < static_cast<int64_t>(d.slice_sizes.size()) && d.slice_sizes[i] == operand.dim(i)) {
      pairs.emplace_back(i, out_dim);
    }
  }
  return pairs;
}

DimPairs ScatterIndexPassthroughDims(const Shape& indices, const Shape& updates,
                                     const ScatterDims& d) {
  std::vector<int64_t> index_dims, scatter_dims;
  for (int64_t i = 0; i < indices.rank(); ++i) {
    if (i != d.index_vector_dim) index_dims.push_back(i);
  }
  for (int64_t i = 0; i < updates.rank(); ++i) {
    if (!Contains(d.update_window_dims, i)) scatter_dims.push_back(i);
  }
  DimPairs pairs;
  for (size_t k = 0; k < index_dims.size() && k < scatter_dims.size(); ++k) {
    pairs.emplace_back(index_dims[k], scatter_dims[k]);
  }
  return pairs;
}

DimPairs ScatterOperandPassthroughDims(const Shape& operand, const Shape& updates,
                                       const ScatterDims& d) {
  DimPairs pairs;
  size_t window = 0;
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (Contains(d.inserted_window_dims, i) || Contains(d.input_batching_dims, i)) continue;
    if (window >= d.update_window_dims.size()) break;
    const int64_t update_dim = d.update_window_dims[window++];
    if (update_dim < updates.rank() && updates.dim(update_dim) == operand.dim(i)) {
      pairs.emplace_back(i, update_dim);
    }
  }
  return pairs;
}

DimPairs InvertDimPairs(const DimPairs& pairs) {
  DimPairs out;
  for (const auto& [a, b] : pairs) out.emplace_back(b, a);
  return out;
}

namespace {

// Position of `dim` among the dims of a rank-`rank` value other than `skip`.
int64_t PositionSkipping(int64_t dim, int64_t skip) { return dim > skip ? dim - 1 : dim; }

std::vector<int64_t> DimsNotIn(int64_t rank, std::span<const int64_t> excluded) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < rank; ++i) {
    if (!Contains(excluded, i)) out.push_back(i);
  }
  return out;
}

}  // namespace

DimPairs GatherOperandBatchingDims(const Shape& indices, const Shape& output, const GatherDims& d) {
  const std::vector<int64_t> batch_dims = DimsNotIn(output.rank(), d.offset_dims);
  DimPairs pairs;
  for (size_t i = 0; i < d.operand_batching_dims.size() && i < d.start_indices_batching_dims.size(); ++i) {
    const int64_t pos = PositionSkipping(d.start_indices_batching_dims[i], d.index_vector_dim);
    if (pos < static_cast<int64_t>(batch_dims.size())) pairs.emplace_back(d.operand_batching_dims[i], batch_dims[pos]);
  }
  return pairs;
}

DimPairs ScatterOperandBatchingDims(const Shape& indices, const Shape& updates, const ScatterDims& d) {
  const std::vector<int64_t> scatter_dims = DimsNotIn(updates.rank(), d.update_window_dims);
  DimPairs pairs;
  for (size_t i = 0; i < d.input_batching_dims.size() && i < d.scatter_indices_batching_dims.size(); ++i) {
    const int64_t pos = PositionSkipping(d.scatter_indices_batching_dims[i], d.index_vector_dim);
    if (pos < static_cast<int64_t>(scatter_dims.size())) pairs.emplace_back(d.input_batching_dims[i], scatter_dims[pos]);
  }
  return pairs;
}

GatherDims GatherDimsOf(const Instruction& gather) {
  GatherDims d;
  d.offset_dims = gather.ints_attr(AttrId::kOffsetDims);
  d.collapsed_slice_dims = gather.ints_attr(AttrId::kCollapsedSliceDims);
  d.start_index_map = gather.ints_attr(AttrId::kStartIndexMap);
  d.operand_batching_dims = gather.ints_attr(AttrId::kOperandBatchingDims);
  d.start_indices_batching_dims = gather.ints_attr(AttrId::kStartIndicesBatchingDims);
  d.slice_sizes = gather.ints_attr(AttrId::kSliceSizes);
  d.index_vector_dim = gather.int_attr(AttrId::kIndexVectorDim);
  return d;
}

ScatterDims ScatterDimsOf(const Instruction& scatter) {
  ScatterDims d;
  d.update_window_dims = scatter.ints_attr(AttrId::kUpdateWindowDims);
  d.inserted_window_dims = scatter.ints_attr(AttrId::kInsertedWindowDims);
  d.scatter_dims_to_operand_dims = scatter.ints_attr(AttrId::kScatterDimsToOperandDims);
  d.input_batching_dims = scatter.ints_attr(AttrId::kInputBatchingDims);
  d.scatter_indices_batching_dims = scatter.ints_attr(AttrId::kScatterIndicesBatchingDims);
  d.index_vector_dim = scatter.int_attr(AttrId::kIndexVectorDim);
  return d;
}

namespace {
const Shape& ScatterIndices(const Instruction& scatter) {
  return scatter.operand((scatter.operand_count() - 1) / 2)->shape();
}
const Shape& ScatterUpdates(const Instruction& scatter) {
  return scatter.operand((scatter.operand_count() - 1) / 2 + 1)->shape();
}
const Shape& FirstArray(const Shape& shape) {
  return shape.IsTuple() && shape.tuple_size() > 0 ? shape.tuple_shape(0) : shape;
}
}  // namespace

Sharding GatherOutputShardingFromIndex(const Sharding& indices_sharding, const Instruction& gather) {
  const DimPairs pairs = GatherIndexPassthroughDims(gather.operand(1)->shape(), gather.shape(),
                                                    GatherDimsOf(gather));
  return MapShardingDims(indices_sharding, gather.shape().rank(), pairs);
}

Sharding GatherIndexShardingFromOutput(const Sharding& output_sharding, const Instruction& gather) {
  const DimPairs pairs = GatherIndexPassthroughDims(gather.operand(1)->shape(), gather.shape(),
                                                    GatherDimsOf(gather));
  return MapShardingDims(output_sharding, gather.operand(1)->shape().rank(), InvertDimPairs(pairs));
}

Sharding GatherOutputShardingFromOperand(const Sharding& operand_sharding, const Instruction& gather) {
  const DimPairs pairs = GatherOperandPassthroughDims(gather.operand(0)->shape(), GatherDimsOf(gather));
  return MapShardingDims(operand_sharding, gather.shape().rank(), pairs);
}

Sharding GatherOperandShardingFromOutput(const Sharding& output_sharding, const Instruction& gather) {
  const DimPairs pairs = GatherOperandPassthroughDims(gather.operand(0)->shape(), GatherDimsOf(gather));
  return MapShardingDims(output_sharding, gather.operand(0)->shape().rank(), InvertDimPairs(pairs));
}

Sharding ScatterUpdateShardingFromIndex(const Sharding& indices_sharding, const Instruction& scatter) {
  const DimPairs pairs = ScatterIndexPassthroughDims(ScatterIndices(scatter), ScatterUpdates(scatter),
                                                     ScatterDimsOf(scatter));
  return MapShardingDims(indices_sharding, ScatterUpdates(scatter).rank(), pairs);
}

Sharding ScatterIndexShardingFromUpdate(const Sharding& update_sharding, const Instruction& scatter) {
  const DimPairs pairs = ScatterIndexPassthroughDims(ScatterIndices(scatter), ScatterUpdates(scatter),
                                                     ScatterDimsOf(scatter));
  return MapShardingDims(update_sharding, ScatterIndices(scatter).rank(), InvertDimPairs(pairs));
}

Sharding ScatterUpdateShardingFromOutput(const Sharding& output_sharding, const Instruction& scatter) {
  const DimPairs pairs = ScatterOperandPassthroughDims(scatter.operand(0)->shape(),
                                                       ScatterUpdates(scatter), ScatterDimsOf(scatter));
  return MapShardingDims(output_sharding, ScatterUpdates(scatter).rank(), pairs);
}

Sharding ScatterOutputShardingFromUpdate(const Sharding& update_sharding, const Instruction& scatter) {
  const DimPairs pairs = ScatterOperandPassthroughDims(scatter.operand(0)->shape(),
                                                       ScatterUpdates(scatter), ScatterDimsOf(scatter));
  return MapShardingDims(update_sharding, FirstArray(scatter.shape()).rank(), InvertDimPairs(pairs));
}

std::optional<Sharding> ShardingFromTiles(const std::vector<int64_t>& tdims,
                                          const std::vector<std::vector<int64_t>>& tile_of) {
  std::map<std::vector<int64_t>, std::vector<int64_t>> holders;
  for (size_t d = 0; d < tile_of.size(); ++d) holders[tile_of[d]].push_back(static_cast<int64_t>(d));
  int64_t tiles = 1;
  for (int64_t t : tdims) tiles *= t;
  if (static_cast<int64_t>(holders.size()) != tiles || tile_of.size() % tiles != 0) return std::nullopt;
  int64_t reps = static_cast<int64_t>(tile_of.size()) / tiles;
  std::vector<int64_t> devices;
  for (auto& [tile, devs] : holders) {  // std::map iterates tile indices row-major
    if (static_cast<int64_t>(devs.size()) != reps) return std::nullopt;
    devices.insert(devices.end(), devs.begin(), devs.end());
  }
  std::vector<int64_t> dims = tdims;
  if (reps == 1) return Sharding::Tile(TileAssignment::FromDevices(dims, devices));
  dims.push_back(reps);
  return Sharding::PartialTile(TileAssignment::FromDevices(dims, devices));
}

}  // namespace spmdc

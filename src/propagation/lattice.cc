#include "propagation/lattice.h"

#include <algorithm>

#include "sharding/algebra.h"

namespace spmdc {

bool IsPropagatable(const Sharding& s) {
  if (s.IsTuple()) {
    for (const Sharding& e : s.tuple_elements())
      if (IsPropagatable(e)) return true;
    return false;
  }
  return !s.IsTileMaximal() || s.IsReplicated();
}

namespace {
// Sharding::NumTiles without building the data tile dims.
int64_t Tiles(const Sharding& s) {
  if (!s.IsTiled()) return 1;
  const auto& dims = s.tile_assignment().dims();
  const int64_t rank = s.TiledDataRank();
  int64_t n = 1;
  for (int64_t i = 0; i < rank; ++i) n *= dims[i];
  return n;
}

// Bit 1: a is better somewhere; bit 2: b is better somewhere.
int BetterMask(const Sharding& a, const Sharding& b) {
  if (a.IsTuple() && b.IsTuple()) {
    int mask = 0;
    size_t n = std::min(a.tuple_elements().size(), b.tuple_elements().size());
    for (size_t i = 0; i < n && mask != 3; ++i)
      mask |= BetterMask(a.tuple_elements()[i], b.tuple_elements()[i]);
    return mask;
  }
  int mask = 0;
  if (a.IsManual() && b.IsTileMaximal()) mask |= 1;
  if (b.IsManual() && a.IsTileMaximal()) mask |= 2;
  return mask;
}
}  // namespace

bool IsStrictlyBetter(const Sharding& a, const Sharding& b) {
  if (a.IsTuple() != b.IsTuple()) return false;
  return BetterMask(a, b) == 1;
}

bool MergeSharding(const Sharding& to_merge, Sharding* dst, bool may_combine) {
  if (to_merge.IsTuple()) {
    if (!dst->IsTuple() || dst->tuple_elements().size() != to_merge.tuple_elements().size())
      return false;
    std::vector<Sharding> elements = dst->tuple_elements();
    bool changed = false;
    for (size_t i = 0; i < elements.size(); ++i)
      changed |= MergeSharding(to_merge.tuple_elements()[i], &elements[i], may_combine);
    *dst = Sharding::Tuple(std::move(elements));
    return changed;
  }
  if (dst->IsTuple()) return false;
  if (may_combine && to_merge.HasPartialReplication() && dst->HasPartialReplication() &&
      to_merge.tile_assignment().num_elements() == dst->tile_assignment().num_elements() &&
      MergeShardingIfCompatible(to_merge, std::max(Tiles(to_merge), Tiles(*dst)) + 1,
                                dst)) {
    return true;
  }
  return IsShardingMoreSpecific(*dst, to_merge);
}

Improvement Improve(const Sharding& candidate, const Sharding* existing, const Shape& shape,
                    bool may_combine, bool allow_aggressive) {
  if (existing && IsStrictlyBetter(candidate, *existing)) return {candidate, ""};
  if (!IsPropagatable(candidate)) return {std::nullopt, "a single-device sharding is not propagated"};
  if (!existing) return {candidate, ""};
  if (candidate.IsManual()) return {std::nullopt, "manual does not replace an existing sharding"};
  // The common case when a rule is re-run: it offers what the instruction already has.
  if (candidate == *existing) return {std::nullopt, "not more specific than the current sharding"};
  Sharding merged = candidate;
  int64_t tiles_before = candidate.IsTuple() ? 0 : Tiles(candidate);
  if (!MergeSharding(*existing, &merged, may_combine)) {
    return {std::nullopt, "not more specific than the current sharding"};
  }
  // Anti-reshard guard: with as many tiles as before merging, the new sharding must not move data
  // that the current (tiled) one already placed.
  if (!allow_aggressive && shape.IsArray() && !existing->IsTuple() && !existing->IsTileMaximal() &&
      !merged.IsTuple() && Tiles(merged) == tiles_before &&
      !IsSubTilingOrEqualSharding(shape, merged, *existing)) {
    return {std::nullopt, "would reshard: not a sub-tiling of the current sharding"};
  }
  return {merged, ""};
}

}  // namespace spmdc

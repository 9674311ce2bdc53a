// The sharding algebra (GSPMD.md §1.5): worked examples plus property tests on random shardings.
#include "sharding/algebra.h"

#include <gtest/gtest.h>

#include <numeric>
#include <map>
#include <random>
#include <set>

#include "ir/computation.h"
#include "sharding/manual_groups.h"
#include "sharding/sharding_text.h"

namespace spmdc {
namespace {

Sharding P(std::string_view text) {
  auto s = ParseSharding(text);
  EXPECT_TRUE(s.ok()) << text << ": " << s.status().message();
  return s.ok() ? *s : Sharding();
}

Shape F32(std::vector<int64_t> dims) { return Shape(DType::kF32, std::move(dims)); }

std::vector<int64_t> Perm(std::mt19937& rng, int64_t n) {
  std::vector<int64_t> p(n);
  std::iota(p.begin(), p.end(), 0);
  std::shuffle(p.begin(), p.end(), rng);
  return p;
}

// A random tiled sharding: random tile dims (data rank `rank`), random device order (iota or
// explicit), optionally partially replicated or with a manual subgroup.
Sharding RandomSharding(std::mt19937& rng, int64_t rank) {
  std::uniform_int_distribution<int> size(1, 3);
  std::vector<int64_t> dims(rank);
  int64_t n = 1;
  for (auto& d : dims) n *= (d = size(rng));
  std::uniform_int_distribution<int> kind(0, 3);
  std::vector<SubgroupType> types;
  const int k = kind(rng);
  if (k == 1 || k == 3) {
    dims.push_back(2);
    types.push_back(SubgroupType::kReplicated);
    n *= 2;
  }
  if (k == 2) {
    dims.push_back(2);
    types.push_back(SubgroupType::kManual);
    n *= 2;
    dims.push_back(2);
    types.push_back(SubgroupType::kReplicated);
    n *= 2;
  }
  if (n == 1) return Sharding();
  std::vector<int64_t> ids = Perm(rng, n);
  if (rng() % 2) std::iota(ids.begin(), ids.end(), 0);
  return Sharding::Subgroup(TileAssignment::FromDevices(dims, ids), types);
}

// For every device, (data tile index, manual coordinate): the semantic content of a sharding.
std::map<int64_t, std::vector<int64_t>> DeviceTiles(const Sharding& s) {
  std::map<int64_t, std::vector<int64_t>> out;
  const TileAssignment& ta = s.tile_assignment();
  ta.Each([&](std::span<const int64_t> index, int64_t device) {
    std::vector<int64_t> v(index.begin(), index.begin() + s.TiledDataRank());
    if (s.SubgroupManualDim() >= 0) v.push_back(index[s.SubgroupManualDim()]);
    out[device] = v;
  });
  return out;
}

TEST(ShardingAlgebra, Transpose) {
  EXPECT_EQ(TransposeSharding(P("{devices=[2,1,4]<=[8] last_tile_dim_replicate}"), std::vector<int64_t>{1, 0}),
            P("{devices=[1,2,4]<=[8] last_tile_dim_replicate}"));
  EXPECT_EQ(TransposeSharding(P("{devices=[2,4]<=[8]}"), std::vector<int64_t>{1, 0}),
            P("{devices=[4,2]<=[2,4]T(1,0)}"));
  EXPECT_EQ(TransposeSharding(P("{replicated}"), std::vector<int64_t>{1, 0}), P("{replicated}"));
  std::mt19937 rng(7);
  for (int iter = 0; iter < 300; ++iter) {
    const int64_t rank = 1 + rng() % 4;
    Sharding s = RandomSharding(rng, rank);
    std::vector<int64_t> perm = Perm(rng, rank);
    std::vector<int64_t> inverse(rank);
    for (int64_t i = 0; i < rank; ++i) inverse[perm[i]] = i;
    Sharding t = TransposeSharding(s, perm);
    EXPECT_EQ(TransposeSharding(t, inverse), s) << s.ToString() << " " << t.ToString();
    // Parse(ToString) round trip and iota-vs-explicit equality.
    EXPECT_EQ(P(t.ToString()), t);
    if (t.IsTiled()) {
      EXPECT_EQ(Sharding::Subgroup(TileAssignment::FromDevices(t.tile_assignment().dims(),
                                                               t.tile_assignment().devices()),
                                   t.ReplicateOnLastTileDim()
                                       ? std::vector<SubgroupType>{SubgroupType::kReplicated}
                                       : t.subgroup_types()),
                t);
    }
  }
}

TEST(ShardingAlgebra, ReshapeExamples) {
  auto reshape = [](std::vector<int64_t> a, std::vector<int64_t> b, std::string_view s) {
    auto r = ReshapeSharding(F32(a), F32(b), P(s));
    return r ? r->ToString() : std::string("nullopt");
  };
  EXPECT_EQ(reshape({8}, {2, 4}, "{devices=[4]<=[4]}"), "{devices=[2,2]<=[4]}");
  EXPECT_EQ(reshape({8}, {2, 4}, "{devices=[2]<=[2]}"), "{devices=[2,1]<=[2]}");
  EXPECT_EQ(reshape({16}, {8, 2}, "{devices=[4]<=[4]}"), "{devices=[4,1]<=[4]}");
  EXPECT_EQ(reshape({2, 4}, {8}, "{devices=[2,1]<=[2]}"), "{devices=[2]<=[2]}");
  EXPECT_EQ(reshape({2, 4}, {8}, "{devices=[2,2]<=[4]}"), "{devices=[4]<=[4]}");
  EXPECT_EQ(reshape({2, 4}, {8}, "{devices=[1,2]<=[2]}"), "nullopt");
  EXPECT_EQ(reshape({4, 6}, {24}, "{devices=[2,3]<=[6]}"), "nullopt");
  EXPECT_EQ(reshape({8}, {1, 8, 1}, "{devices=[4]<=[4]}"), "{devices=[1,4,1]<=[4]}");
  EXPECT_EQ(reshape({1, 8, 1}, {8}, "{devices=[1,4,1]<=[4]}"), "{devices=[4]<=[4]}");
  EXPECT_EQ(reshape({8, 3}, {2, 4, 3}, "{devices=[4,1,2]<=[8] last_tile_dim_replicate}"),
            "{devices=[2,2,1,2]<=[8] last_tile_dim_replicate}");
  EXPECT_EQ(reshape({8}, {2, 4}, "{devices=[2,2]<=[4] last_tile_dims={manual}}"),
            "{devices=[2,1,2]<=[4] last_tile_dims={manual}}");
  EXPECT_EQ(reshape({8}, {2, 4}, "{devices=[4]0,3,1,2}"), "{devices=[2,2]0,3,1,2}");
  // gcd leftover becomes partial replication.
  EXPECT_EQ(reshape({24}, {6, 4}, "{devices=[4]<=[4]}"), "{devices=[2,1,2]<=[4] last_tile_dim_replicate}");
  // Propagation replicates what cannot be kept.
  EXPECT_EQ(PropagateShardingThroughReshape(F32({4, 6}), F32({24}), P("{devices=[2,3]<=[6]}")),
            P("{devices=[2,3]<=[6] last_tile_dim_replicate}"));
  EXPECT_EQ(PropagateShardingThroughReshape(F32({2, 4}), F32({8}), P("{devices=[1,2]<=[2]}")),
            P("{replicated}"));
  EXPECT_EQ(PropagateShardingThroughReshape(F32({2, 4}), F32({8}), P("{manual}")), P("{manual}"));
}

// Split then merge (and merge then split) round trips on random device orders.
TEST(ShardingAlgebra, ReshapeRoundTrips) {
  std::mt19937 rng(11);
  for (int iter = 0; iter < 300; ++iter) {
    const int64_t p = 1 + rng() % 4;       // partitions
    const int64_t a = p * (1 + rng() % 3);  // major dim, divisible by p
    const int64_t b = 1 + rng() % 5;
    const int64_t c = 1 + rng() % 3;  // an extra trailing dim, tiled q
    const int64_t q = (rng() % 2) ? c : 1;
    if (p * q == 1) continue;
    Sharding s = Sharding::Tile(TileAssignment::FromDevices({p, q}, Perm(rng, p * q)));
    auto merged = ReshapeSharding(F32({a * b, c}), F32({a, b, c}), s);
    ASSERT_TRUE(merged.has_value()) << s.ToString();
    EXPECT_EQ(merged->DataTileDims(), (std::vector<int64_t>{p, 1, q}));
    auto back = ReshapeSharding(F32({a, b, c}), F32({a * b, c}), *merged);
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(*back, s) << s.ToString() << " -> " << merged->ToString();
    // Device of every element is preserved: tile offsets line up.
    for (int64_t d = 0; d < p * q; ++d) {
      auto off1 = s.TileOffsetForDevice(F32({a * b, c}), d);
      auto off2 = merged->TileOffsetForDevice(F32({a, b, c}), d);
      EXPECT_EQ(off1[0], off2[0] * b + off2[1]);
      EXPECT_EQ(off1[1], off2[2]);
    }
  }
}

TEST(ShardingAlgebra, PartialReplication) {
  Sharding s = P("{devices=[2,2]<=[4]}");
  EXPECT_EQ(PartiallyReplicateTiledShardingOnDims(s, std::vector<int64_t>{1}),
            P("{devices=[2,1,2]<=[4] last_tile_dim_replicate}"));
  EXPECT_EQ(PartiallyReplicateTiledShardingOnDims(s, std::vector<int64_t>{0}),
            P("{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}"));
  EXPECT_EQ(PartiallyReplicateTiledShardingOnDims(s, std::vector<int64_t>{0, 1}), P("{replicated}"));
  EXPECT_EQ(PartiallyReplicateTiledShardingOnAllDimsExcept(s, std::vector<int64_t>{0}),
            P("{devices=[2,1,2]<=[4] last_tile_dim_replicate}"));
  Sharding m = P("{devices=[2,2,2]<=[8] last_tile_dims={manual}}");
  Sharding r = PartiallyReplicateTiledShardingOnDims(m, std::vector<int64_t>{0, 1});
  EXPECT_EQ(r, P("{devices=[1,1,2,4]<=[4,2]T(1,0) last_tile_dims={manual, replicated}}"));
  EXPECT_EQ(ReplicateAllDataDims(m), r);
  EXPECT_EQ(ReplicateAllDataDims(m, 1), P("{devices=[1,2,4]<=[4,2]T(1,0) last_tile_dims={manual, replicated}}"));
  EXPECT_EQ(ReplicateAllDataDims(s), P("{replicated}"));
  // Property: kept dims keep every device's tile index; replication groups grow.
  std::mt19937 rng(3);
  for (int iter = 0; iter < 200; ++iter) {
    const int64_t rank = 1 + rng() % 3;
    Sharding x = RandomSharding(rng, rank);
    if (!x.IsTiled()) continue;
    std::vector<int64_t> dims;
    for (int64_t d = 0; d < rank; ++d) {
      if (rng() % 2) dims.push_back(d);
    }
    Sharding y = PartiallyReplicateTiledShardingOnDims(x, dims);
    if (!y.IsTiled()) {
      EXPECT_TRUE(y.IsReplicated());
      continue;
    }
    auto before = DeviceTiles(x);
    auto after = DeviceTiles(y);
    for (auto& [device, tile] : before) {
      for (int64_t d = 0; d < rank; ++d) {
        EXPECT_EQ(after[device][d], std::count(dims.begin(), dims.end(), d) ? 0 : tile[d]);
      }
    }
  }
}

TEST(ShardingAlgebra, RemoveAndCollapse) {
  EXPECT_EQ(RemoveShapeDimensions(P("{devices=[2,1,2]<=[4]}"), std::vector<int64_t>{1}),
            P("{devices=[2,2]<=[4]}"));
  EXPECT_EQ(RemoveShapeDimensions(P("{devices=[1,1,4]<=[4] last_tile_dim_replicate}"), std::vector<int64_t>{0, 1}),
            P("{replicated}"));
  Sharding s = P("{devices=[2,1,3]<=[6]}");
  EXPECT_EQ(*TransposeShardingWithCollapsedDims(s, std::vector<int64_t>{0, -1, 1},
                                                std::vector<int64_t>{0, 2, -1}),
            P("{devices=[2,3,1]<=[6]}"));
  EXPECT_EQ(*TransposeShardingWithCollapsedDims(s, std::vector<int64_t>{1, -1, 0},
                                                std::vector<int64_t>{2, 0}),
            P("{devices=[3,2]<=[2,3]T(1,0)}"));
  EXPECT_FALSE(TransposeShardingWithCollapsedDims(s, std::vector<int64_t>{-1, 0, 1},
                                                  std::vector<int64_t>{1, 2})
                   .has_value());
  Sharding p = P("{devices=[2,1,2]<=[4] last_tile_dim_replicate}");
  EXPECT_EQ(*TransposeShardingWithCollapsedDims(p, std::vector<int64_t>{1, -1},
                                                std::vector<int64_t>{-1, 0}),
            P("{devices=[1,2,2]<=[4] last_tile_dim_replicate}"));
}

TEST(ShardingAlgebra, Reverse) {
  Sharding s = P("{devices=[2,2]<=[4]}");
  Sharding r = ReverseSharding(s, std::vector<int64_t>{0});
  EXPECT_EQ(r.ToString(), "{devices=[2,2]2,3,0,1}");
  EXPECT_EQ(ReverseSharding(r, std::vector<int64_t>{0}), s);
  EXPECT_EQ(ReverseSharding(s, std::vector<int64_t>{0, 1}).ToString(), "{devices=[2,2]3,2,1,0}");
}

TEST(ShardingAlgebra, GroupUngroupRoundTrip) {
  Sharding s = P("{devices=[2,2,2]<=[8]}");
  GroupedSharding g = GroupShardingOnDims(s, std::vector<int64_t>{0});
  ASSERT_EQ(g.device_groups.size(), 2u);
  EXPECT_EQ(g.device_groups[1], (std::vector<int64_t>{4, 5, 6, 7}));
  EXPECT_EQ(g.sharding, P("{devices=[1,2,2]<=[4]}"));
  EXPECT_EQ(UngroupSharding(g), s);
  GroupedSharding h = GroupShardingOnDims(s, std::vector<int64_t>{1}, std::vector<int64_t>{1});
  EXPECT_EQ(h.device_groups[0], (std::vector<int64_t>{0, 1, 4, 5}));
  EXPECT_EQ(UngroupSharding(h), s);
  // Manual subgroup grouping.
  Sharding m = P("{devices=[2,2]<=[4] last_tile_dims={manual}}");
  GroupedSharding gm = GroupShardingOnDims(m, std::vector<int64_t>{1});
  EXPECT_EQ(gm.sharding, P("{devices=[2]<=[2]}"));
  EXPECT_EQ(gm.device_groups[1], (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(UngroupSharding(gm), m);
  // Replicated in-group sharding ungroups to partial replication.
  GroupedSharding rep = GroupShardingOnDims(s, std::vector<int64_t>{0});
  rep.sharding = Sharding();
  EXPECT_EQ(UngroupSharding(rep), P("{devices=[2,1,1,4]<=[8] last_tile_dim_replicate}"));

  std::mt19937 rng(5);
  for (int iter = 0; iter < 300; ++iter) {
    const int64_t rank = 1 + rng() % 3;
    Sharding x = RandomSharding(rng, rank);
    if (!x.IsTiled()) continue;
    const int64_t tile_rank = x.tile_assignment().num_dimensions();
    std::vector<int64_t> dims, shards;
    for (int64_t d = 0; d < tile_rank; ++d) {
      if (rng() % 2) {
        dims.push_back(d);
        const int64_t n = x.tile_assignment().dim(d);
        shards.push_back((n % 2 == 0 && rng() % 2) ? 2 : 1);
      }
    }
    if (dims.empty()) continue;
    std::vector<int64_t> order = Perm(rng, dims.size());
    std::vector<int64_t> sd, ss;
    for (int64_t o : order) {
      sd.push_back(dims[o]);
      ss.push_back(shards[o]);
    }
    dims = sd;
    shards = ss;
    GroupedSharding gx = GroupShardingOnDims(x, dims, shards);
    // Groups partition the devices.
    std::set<int64_t> all;
    for (const auto& grp : gx.device_groups) all.insert(grp.begin(), grp.end());
    EXPECT_EQ(static_cast<int64_t>(all.size()), x.TotalNumTiles());
    EXPECT_EQ(UngroupSharding(gx), x) << x.ToString();
  }
}

TEST(ShardingAlgebra, ManualGroupsAndAlignment) {
  Sharding m = P("{devices=[2,2,2]<=[8] last_tile_dims={manual}}");
  GroupedSharding g = GetManualSubgroupSharding(m);
  EXPECT_EQ(g.device_groups, (std::vector<std::vector<int64_t>>{{0, 2, 4, 6}, {1, 3, 5, 7}}));
  EXPECT_EQ(g.sharding, P("{devices=[2,2]<=[4]}"));
  EXPECT_EQ(GetPerGroupBaseShape(GroupShardingOnDims(P("{devices=[4,2]<=[8]}"), std::vector<int64_t>{0}),
                                 F32({10, 6})),
            F32({3, 6}));

  // Same groups, different in-group order: the in-group sharding is renumbered.
  Sharding a = P("{devices=[2,2]<=[4]}");
  Sharding b = P("{devices=[2,2]1,0,3,2}");
  GroupedSharding ga = GroupShardingOnDims(a, std::vector<int64_t>{0});  // {0,1},{2,3}
  GroupedSharding gb = GroupShardingOnDims(b, std::vector<int64_t>{0});  // {1,0},{3,2}
  GroupedSharding aligned = AlignGroupsWith(gb, ga);
  EXPECT_EQ(aligned.device_groups, ga.device_groups);
  EXPECT_EQ(UngroupSharding(aligned), b);  // every device keeps its data
  // Group order differs: only with ignore_group_order.
  Sharding c = P("{devices=[2,2]2,3,0,1}");
  GroupedSharding gc = GroupShardingOnDims(c, std::vector<int64_t>{0});
  GroupedSharding unordered = AlignGroupsWith(gc, ga, /*ignore_group_order=*/true);
  EXPECT_EQ(unordered.device_groups, ga.device_groups);  // groups matched as sets
  EXPECT_EQ(unordered.sharding, gc.sharding);
  // In-group orders that differ between groups cannot be renumbered: groups replaced only.
  Sharding d = P("{devices=[2,2]1,0,2,3}");
  GroupedSharding gd = AlignGroupsWith(GroupShardingOnDims(d, std::vector<int64_t>{0}), ga);
  EXPECT_EQ(gd.device_groups, ga.device_groups);
  EXPECT_EQ(gd.sharding, P("{devices=[1,2]<=[2]}"));

  // EachTile agrees with the offset/limit queries.
  Sharding t = P("{devices=[2,3,2]<=[12] last_tile_dim_replicate}");
  int count = 0;
  t.EachTile(F32({5, 7}), [&](int64_t device, std::span<const int64_t> off, std::span<const int64_t> lim) {
    EXPECT_EQ(std::vector<int64_t>(off.begin(), off.end()), t.TileOffsetForDevice(F32({5, 7}), device));
    EXPECT_EQ(std::vector<int64_t>(lim.begin(), lim.end()), t.TileLimitForDevice(F32({5, 7}), device));
    ++count;
  });
  EXPECT_EQ(count, 12);
}

TEST(ShardingAlgebra, Merge) {
  Sharding a = P("{devices=[2,1,2]<=[4] last_tile_dim_replicate}");
  Sharding b = P("{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}");
  Sharding dst = a;
  ASSERT_TRUE(MergeShardingIfCompatible(b, 3, &dst));
  EXPECT_EQ(dst, P("{devices=[2,2]<=[4]}"));
  Sharding dst2 = b;
  ASSERT_TRUE(MergeShardingIfCompatible(a, 3, &dst2));
  EXPECT_EQ(dst2, dst);
  // Too few tiles.
  Sharding dst3 = a;
  EXPECT_FALSE(MergeShardingIfCompatible(b, 5, &dst3));
  EXPECT_EQ(dst3, a);
  // Inconsistent groups.
  Sharding c = P("{devices=[1,2,2]<=[4] last_tile_dim_replicate}");
  Sharding dst4 = a;
  EXPECT_FALSE(MergeShardingIfCompatible(c, 0, &dst4));
  // Partial merge keeps replication.
  Sharding e = P("{devices=[2,1,4]<=[8] last_tile_dim_replicate}");
  Sharding f = P("{devices=[1,2,4]<=[2,2,2]T(1,0,2) last_tile_dim_replicate}");
  Sharding dst5 = e;
  ASSERT_TRUE(MergeShardingIfCompatible(f, 0, &dst5));
  EXPECT_EQ(dst5, P("{devices=[2,2,2]<=[8] last_tile_dim_replicate}"));
  // Replicated dst takes the other; tiled (non-partial) dst cannot be refined.
  Sharding dst6;
  EXPECT_TRUE(MergeShardingIfCompatible(a, 0, &dst6));
  EXPECT_EQ(dst6, a);
  Sharding dst7 = P("{devices=[4,1]<=[4]}");
  EXPECT_FALSE(MergeShardingIfCompatible(a, 0, &dst7));
  // Metadata: dst's then new ones.
  Sharding ma = P(R"({devices=[2,1,2]<=[4] last_tile_dim_replicate metadata={op_name="a"}})");
  Sharding mb = P(R"({devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate metadata={op_name="b"}})");
  ASSERT_TRUE(MergeShardingIfCompatible(mb, 0, &ma));
  EXPECT_EQ(ma.metadata(), (ShardingMetadata{R"(op_name="a")", R"(op_name="b")"}));

  // Property: merge is commutative where defined, and the merge refines both inputs.
  std::mt19937 rng(17);
  int merged = 0;
  for (int iter = 0; iter < 400; ++iter) {
    const int64_t rank = 1 + rng() % 2;
    // Build two partial shardings by replicating different dims of one random full tiling.
    std::vector<int64_t> dims(rank);
    int64_t n = 1;
    for (auto& d : dims) n *= (d = 1 + rng() % 3);
    if (n == 1) continue;
    Sharding full = Sharding::Tile(TileAssignment::FromDevices(dims, Perm(rng, n)));
    std::vector<int64_t> da, db;
    for (int64_t d = 0; d < rank; ++d) (rng() % 2 ? da : db).push_back(d);
    Sharding x = PartiallyReplicateTiledShardingOnDims(full, da);
    Sharding y = PartiallyReplicateTiledShardingOnDims(full, db);
    Sharding xy = x, yx = y;
    const bool ok1 = MergeShardingIfCompatible(y, 0, &xy);
    const bool ok2 = MergeShardingIfCompatible(x, 0, &yx);
    if (!x.IsReplicated() && !y.IsReplicated()) {
      EXPECT_EQ(ok1, ok2);
    }
    if (ok1 && ok2) {
      EXPECT_EQ(xy, yx) << x.ToString() << " " << y.ToString();
      if (!x.IsReplicated() && !y.IsReplicated()) {
        EXPECT_EQ(xy, full) << x.ToString() << " + " << y.ToString();
        ++merged;
      }
    }
  }
  EXPECT_GT(merged, 10);
}

TEST(ShardingAlgebra, SubTilingAndSpecificity) {
  Shape shape = F32({8, 8});
  Sharding sub = P("{devices=[2,2]<=[4]}");
  Sharding sup = P("{devices=[2,1,2]<=[4] last_tile_dim_replicate}");
  EXPECT_TRUE(IsSubTilingOrEqualSharding(shape, sub, sup));
  EXPECT_FALSE(IsSubTilingOrEqualSharding(shape, sup, sub));
  EXPECT_TRUE(IsSubTilingOrEqualSharding(shape, sub, sub));
  EXPECT_FALSE(IsSubTilingOrEqualSharding(shape, P("{devices=[2,2]<=[2,2]T(1,0)}"), sup));
  EXPECT_TRUE(IsSubTilingOrEqualSharding(shape, sub, P("{replicated}")));

  EXPECT_TRUE(IsShardingMoreSpecific(sub, sup));
  EXPECT_FALSE(IsShardingMoreSpecific(sup, sub));
  EXPECT_TRUE(IsShardingMoreSpecific(sup, P("{replicated}")));
  EXPECT_TRUE(IsShardingMoreSpecific(P("{maximal device=0}"), P("{replicated}")));
  EXPECT_TRUE(IsShardingMoreSpecific(sup, P("{maximal device=0}")));
  EXPECT_TRUE(IsShardingMoreSpecific(P("{manual}"), P("{maximal device=0}")));
  EXPECT_FALSE(IsShardingMoreSpecific(P("{replicated}"), P("{replicated}")));
  EXPECT_TRUE(IsShardingMoreSpecific(P("{{replicated}, {devices=[2]<=[2]}}"),
                                     P("{{replicated}, {replicated}}")));
  EXPECT_FALSE(IsShardingMoreSpecific(P("{{replicated}, {devices=[2]<=[2]}}"),
                                      P("{{devices=[2]<=[2]}, {replicated}}")));
}

TEST(ShardingAlgebra, SubTilingWithManualSubgroups) {
  Shape shape = F32({8, 8});
  // Evenly nested tilings are compared on the tile arrays, as XLA does: without partial
  // replication in `sharding` only equality counts, even when every device's data would fit
  // (here the manual groups shrink from 4 to 2 devices).
  EXPECT_FALSE(IsSubTilingOrEqualSharding(shape, P("{devices=[2,2,2]<=[8] last_tile_dims={manual}}"),
                                          P("{devices=[2,1,4]<=[8] last_tile_dims={manual}}")));
  // With partial replication, the split tiles must hold the devices of the replication groups:
  // the manual groups have to agree too.
  Sharding sup = P("{devices=[2,1,2,2]<=[8] last_tile_dims={manual, replicated}}");  // a*4+m*2+r
  EXPECT_TRUE(IsSubTilingOrEqualSharding(
      shape, P("{devices=[2,2,2]<=[2,2,2]T(0,2,1) last_tile_dims={manual}}"), sup));  // a*4+m*2+b
  EXPECT_FALSE(IsSubTilingOrEqualSharding(
      shape, P("{devices=[2,2,2]<=[8] last_tile_dims={manual}}"), sup));  // a*4+b*2+m
  // XLA rejects a sub sharding with fewer tiles on some dim before looking at offsets.
  EXPECT_FALSE(IsSubTilingOrEqualSharding(F32({2}), P("{devices=[3,2]<=[6] last_tile_dim_replicate}"),
                                          P("{devices=[6]<=[6]}")));
  // Uneven shapes compare per-device offsets (the tile arrays say nothing there).
  EXPECT_TRUE(IsSubTilingOrEqualSharding(F32({5, 8}), P("{devices=[4,2]<=[8]}"),
                                         P("{devices=[4,1,2]<=[8] last_tile_dim_replicate}")));
  EXPECT_FALSE(IsSubTilingOrEqualSharding(F32({5, 8}), P("{devices=[4,2]<=[2,4]T(1,0)}"),
                                          P("{devices=[4,1,2]<=[8] last_tile_dim_replicate}")));
}

TEST(ShardingAlgebra, MergeWithManualSubgroups) {
  Sharding dst = P("{devices=[2,1,2,2]<=[8] last_tile_dims={manual, replicated}}");  // a*4+m*2+r
  // to_merge tiles dim 1 by bit 0 with the same manual groups: merged.
  Sharding same = P("{devices=[1,2,2,2]0,4,2,6,1,5,3,7 last_tile_dims={manual, replicated}}");
  Sharding merged = dst;
  ASSERT_TRUE(MergeShardingIfCompatible(same, 3, &merged));
  EXPECT_EQ(merged, P("{devices=[2,2,2]<=[2,2,2]T(0,2,1) last_tile_dims={manual}}"));
  // The same device sets with the manual groups relabelled (group 0 <-> group 1): XLA intersects
  // groups of equal manual index, which are disjoint here, so nothing merges.
  Sharding swapped = P("{devices=[1,2,2,2]2,6,0,4,3,7,1,5 last_tile_dims={manual, replicated}}");
  merged = dst;
  EXPECT_FALSE(MergeShardingIfCompatible(swapped, 3, &merged));
  EXPECT_EQ(merged, dst);
}

TEST(ShardingAlgebra, ManualSubgroupGroupingAndReshape) {
  // XLA's GetManualSubgroupSharding: one group per manual coordinate (devices in row-major order
  // of the other tile dims); the in-group sharding is the rest, replication kept as a last tile dim.
  GroupedSharding g = GetManualSubgroupSharding(P("{devices=[2,1,2,2]<=[8] last_tile_dims={manual, replicated}}"));
  EXPECT_EQ(g.device_groups, (std::vector<std::vector<int64_t>>{{0, 1, 4, 5}, {2, 3, 6, 7}}));
  EXPECT_EQ(g.sharding, P("{devices=[2,1,2]<=[4] last_tile_dim_replicate}"));
  EXPECT_EQ(UngroupSharding(g), P("{devices=[2,1,2,2]<=[8] last_tile_dims={manual, replicated}}"));
  // PropagateShardingThroughReshape reshapes per manual group and regroups.
  EXPECT_EQ(PropagateShardingThroughReshape(F32({8, 16}), F32({8, 4, 4}),
                                            P("{devices=[2,2,2]<=[8] last_tile_dims={manual}}")),
            P("{devices=[2,2,1,2]<=[8] last_tile_dims={manual}}"));
  EXPECT_EQ(PropagateShardingThroughReshape(F32({8, 16}), F32({128}),
                                            P("{devices=[1,1,2,4]<=[8] last_tile_dims={manual, replicated}}")),
            P("{devices=[1,2,4]<=[8] last_tile_dims={manual, replicated}}"));
  EXPECT_EQ(PropagateShardingThroughReshape(F32({8, 16}), F32({2, 4, 16}),
                                            P("{devices=[2,1,2,2]<=[8] last_tile_dims={manual, replicated}}")),
            P("{devices=[2,1,1,2,2]<=[8] last_tile_dims={manual, replicated}}"));
}

TEST(ShardingAlgebra, ReshapeMergeKeepsOnlyDividingTilesOfAPartlySplitDim) {
  // [2,3] tiled [2,2] -> [6]: dim 0's 2 tiles split the target; dim 1's 2 tiles do not divide
  // its 3 elements, so newer XLA keeps gcd(3, 2) = 1 of them (4 tiles of [6] would cut rows).
  EXPECT_EQ(PropagateShardingThroughReshape(F32({2, 3}), F32({6}), P("{devices=[2,2]<=[4]}")),
            P("{devices=[2,2]<=[4] last_tile_dim_replicate}"));
  // Dividing tiles still merge.
  EXPECT_EQ(PropagateShardingThroughReshape(F32({2, 4}), F32({8}), P("{devices=[2,2]<=[4]}")),
            P("{devices=[4]<=[4]}"));
}

TEST(ShardingAlgebra, TransposeMayPermuteSubgroupDims) {
  // A full permutation may swap subgroup dims; their types move with them (XLA recomputes the
  // subgroup types from the permutation), and the result is canonicalised again.
  Sharding s = P("{devices=[2,1,2,2]<=[8] last_tile_dims={manual, replicated}}");
  std::vector<int64_t> perm = {0, 1, 3, 2};
  EXPECT_EQ(TransposeSharding(s, perm), s);
}

TEST(ShardingAlgebra, ReplicateAllDataDimsKeepsTypedSubgroups) {
  // XLA keeps every typed subgroup (not only manual ones); only plain or partially replicated
  // tilings become replicated.
  EXPECT_EQ(ReplicateAllDataDims(P("{devices=[2,2,2]<=[8] last_tile_dims={maximal}}")),
            P("{devices=[1,1,2,4]<=[4,2]T(1,0) last_tile_dims={maximal, replicated}}"));
  EXPECT_EQ(ReplicateAllDataDims(P("{devices=[2,2,2]<=[8] last_tile_dims={manual}}"), 3),
            P("{devices=[1,1,1,2,4]<=[4,2]T(1,0) last_tile_dims={manual, replicated}}"));
  EXPECT_EQ(ReplicateAllDataDims(P("{devices=[2,1,4]<=[8] last_tile_dim_replicate}")), P("{replicated}"));
}

TEST(ShardingAlgebra, FindCommon) {
  Sharding a = P("{devices=[2,1,2]<=[4] last_tile_dim_replicate}");
  Sharding b = P("{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}");
  std::vector<Sharding> list = {a, b};
  EXPECT_EQ(FindCommonSharding(list), P("{devices=[2,2]<=[4]}"));
  std::vector<Sharding> bad = {a, P("{devices=[1,2,2]<=[4] last_tile_dim_replicate}")};
  EXPECT_EQ(FindCommonSharding(bad), a);
  EXPECT_EQ(FindCommonSharding(bad, Sharding()), Sharding());
}

TEST(ShardingAlgebra, GatherScatterPassthrough) {
  // operand [8,16], indices [4,1] (index_vector_dim 1) -> output [4,16].
  GatherDims g;
  g.offset_dims = {1};
  g.collapsed_slice_dims = {0};
  g.start_index_map = {0};
  g.slice_sizes = {1, 16};
  g.index_vector_dim = 1;
  DimPairs index = GatherIndexPassthroughDims(F32({4, 1}), F32({4, 16}), g);
  EXPECT_EQ(index, (DimPairs{{0, 0}}));
  DimPairs operand = GatherOperandPassthroughDims(F32({8, 16}), g);
  EXPECT_EQ(operand, (DimPairs{{1, 1}}));
  EXPECT_EQ(MapShardingDims(P("{devices=[2,1]<=[2]}"), 2, index), P("{devices=[2,1]<=[2]}"));
  EXPECT_EQ(MapShardingDims(P("{devices=[2,2]<=[4]}"), 2, operand),
            P("{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}"));
  EXPECT_EQ(MapShardingDims(P("{devices=[1,2]<=[2]}"), 2, InvertDimPairs(operand)),
            P("{devices=[1,2]<=[2]}"));
  // Scatter: operand [8,16], indices [4], updates [4,16], update_window_dims {1},
  // inserted_window_dims {0}, index_vector_dim 1 (implicit).
  ScatterDims s;
  s.update_window_dims = {1};
  s.inserted_window_dims = {0};
  s.scatter_dims_to_operand_dims = {0};
  s.index_vector_dim = 1;
  EXPECT_EQ(ScatterIndexPassthroughDims(F32({4}), F32({4, 16}), s), (DimPairs{{0, 0}}));
  EXPECT_EQ(ScatterOperandPassthroughDims(F32({8, 16}), F32({4, 16}), s), (DimPairs{{1, 1}}));
  EXPECT_EQ(ScatterOperandPassthroughDims(F32({8, 16}), F32({4, 8}), s), DimPairs{});
}

TEST(ShardingAlgebra, GatherScatterInstructions) {
  Computation c("c");
  Instruction* operand = c.AddInstruction(Opcode::kParameter, F32({8, 16}), "operand");
  Instruction* indices = c.AddInstruction(Opcode::kParameter, Shape(DType::kS32, {4, 1}), "indices");
  Instruction* gather = c.AddInstruction(Opcode::kGather, F32({4, 16}), "gather", {operand, indices});
  gather->attrs().Set(AttrId::kOffsetDims, std::vector<int64_t>{1});
  gather->attrs().Set(AttrId::kCollapsedSliceDims, std::vector<int64_t>{0});
  gather->attrs().Set(AttrId::kStartIndexMap, std::vector<int64_t>{0});
  gather->attrs().Set(AttrId::kSliceSizes, std::vector<int64_t>{1, 16});
  gather->attrs().Set(AttrId::kIndexVectorDim, int64_t{1});
  EXPECT_EQ(GatherOutputShardingFromIndex(P("{devices=[2,1]<=[2]}"), *gather), P("{devices=[2,1]<=[2]}"));
  EXPECT_EQ(GatherIndexShardingFromOutput(P("{devices=[2,2]<=[4]}"), *gather),
            P("{devices=[2,1,2]<=[4] last_tile_dim_replicate}"));
  EXPECT_EQ(GatherOutputShardingFromOperand(P("{devices=[2,2]<=[4]}"), *gather),
            P("{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}"));
  EXPECT_EQ(GatherOperandShardingFromOutput(P("{devices=[1,4]<=[4]}"), *gather), P("{devices=[1,4]<=[4]}"));

  Instruction* updates = c.AddInstruction(Opcode::kParameter, F32({4, 16}), "updates");
  Instruction* scatter =
      c.AddInstruction(Opcode::kScatter, F32({8, 16}), "scatter", {operand, indices, updates});
  scatter->attrs().Set(AttrId::kUpdateWindowDims, std::vector<int64_t>{1});
  scatter->attrs().Set(AttrId::kInsertedWindowDims, std::vector<int64_t>{0});
  scatter->attrs().Set(AttrId::kScatterDimsToOperandDims, std::vector<int64_t>{0});
  scatter->attrs().Set(AttrId::kIndexVectorDim, int64_t{1});
  EXPECT_EQ(ScatterUpdateShardingFromIndex(P("{devices=[4,1]<=[4]}"), *scatter), P("{devices=[4,1]<=[4]}"));
  EXPECT_EQ(ScatterIndexShardingFromUpdate(P("{devices=[4,1]<=[4]}"), *scatter), P("{devices=[4,1]<=[4]}"));
  EXPECT_EQ(ScatterUpdateShardingFromOutput(P("{devices=[2,2]<=[4]}"), *scatter),
            P("{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}"));
  EXPECT_EQ(ScatterOutputShardingFromUpdate(P("{devices=[1,4]<=[4]}"), *scatter), P("{devices=[1,4]<=[4]}"));
}

// A shard_map manual over `seq` (mesh data=2 x seq=4, device = data*4 + seq): the full f32[16,4]
// is the four groups' f32[4,4] values stacked on dim 0, group m's block where the reference
// (seq on dim 0) puts it. A free `data` tiling of the group's dim 0 is the full value's dim 0 in
// 8 tiles, seq major; GroupLocalSharding takes it back; a tiling that cuts across the groups'
// blocks (data major) has no in-group form.
TEST(ManualGroups, GroupLocalShardingInvertsFullValueSharding) {
  const Sharding reference = P("{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}");
  const Sharding manual = P("{devices=[1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}");
  const Sharding local = P("{devices=[2,1,4]<=[8] last_tile_dims={manual}}");
  std::optional<Sharding> full = FullValueSharding(local, F32({16, 4}), F32({4, 4}), reference);
  ASSERT_TRUE(full.has_value());
  EXPECT_EQ(*full, P("{devices=[8,1]<=[2,4]T(1,0)}"));
  std::optional<Sharding> back = GroupLocalSharding(*full, manual, F32({16, 4}), F32({4, 4}), reference);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, local);
  // Unrefined: the reference itself is each group's value replicated in the group.
  EXPECT_EQ(GroupLocalSharding(reference, manual, F32({16, 4}), F32({4, 4}), reference), manual);
  EXPECT_FALSE(GroupLocalSharding(P("{devices=[8,1]<=[8]}"), manual, F32({16, 4}), F32({4, 4}), reference));
}

}  // namespace
}  // namespace spmdc

// The improvement lattice of sharding propagation (GSPMD.md §2.3): more tiles wins, ties keep the
// existing sharding, compatible partial shardings merge, the anti-reshard guard, manual.
#include "propagation/lattice.h"

#include <gtest/gtest.h>

#include "sharding/sharding_text.h"

namespace spmdc {
namespace {

Sharding P(std::string_view text) {
  auto s = ParseSharding(text);
  EXPECT_TRUE(s.ok()) << text;
  return s.ok() ? *s : Sharding();
}

const Shape kShape(DType::kF32, {8, 16});

TEST(PropagationLattice, AnyShardingBeatsNone) {
  Improvement imp = Improve(P("{devices=[4,1]<=[4]}"), nullptr, kShape, false, false);
  ASSERT_TRUE(imp.result);
  EXPECT_EQ(*imp.result, P("{devices=[4,1]<=[4]}"));
  EXPECT_TRUE(Improve(P("{replicated}"), nullptr, kShape, false, false).result);
}

TEST(PropagationLattice, SingleDeviceIsNeverPropagated) {
  EXPECT_FALSE(Improve(P("{maximal device=1}"), nullptr, kShape, false, false).result);
}

TEST(PropagationLattice, MoreTilesWins) {
  Sharding existing = P("{devices=[2,1,2]<=[4] last_tile_dim_replicate}");
  Improvement imp = Improve(P("{devices=[4,1]<=[4]}"), &existing, kShape, false, false);
  ASSERT_TRUE(imp.result);
  EXPECT_EQ(*imp.result, P("{devices=[4,1]<=[4]}"));
  // And never the other way round.
  Sharding four = P("{devices=[4,1]<=[4]}");
  EXPECT_FALSE(Improve(existing, &four, kShape, true, false).result);
}

TEST(PropagationLattice, TiesKeepTheExistingSharding) {
  Sharding existing = P("{devices=[2,2]<=[4]}");
  EXPECT_FALSE(Improve(P("{devices=[4,1]<=[4]}"), &existing, kShape, true, true).result);
  EXPECT_FALSE(Improve(existing, &existing, kShape, true, true).result);
}

TEST(PropagationLattice, CompatiblePartialShardingsMergeOnlyWhenCombining) {
  Sharding existing = P("{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}");
  Sharding other = P("{devices=[1,2,2]0,2,1,3 last_tile_dim_replicate}");
  Improvement merged = Improve(other, &existing, kShape, /*may_combine=*/true, false);
  ASSERT_TRUE(merged.result);
  EXPECT_EQ(*merged.result, P("{devices=[2,2]<=[4]}"));
  // At aggressiveness 0 (no combining) an equally tiled candidate is refused.
  EXPECT_FALSE(Improve(other, &existing, kShape, /*may_combine=*/false, false).result);
  // Incompatible device groups do not merge: {0,1} x {0,1} has two devices in one tile.
  Sharding incompatible = P("{devices=[1,2,2]<=[4] last_tile_dim_replicate}");
  EXPECT_FALSE(Improve(incompatible, &existing, kShape, true, false).result);
}

TEST(PropagationLattice, AntiReshardGuard) {
  // [1,4] has more tiles than the current [2,1,2] but is not a sub-tiling of it (device 0 would
  // need columns it does not hold): refused, unless the instruction may be resharded
  // aggressively (it has a single user).
  Sharding existing = P("{devices=[2,1,2]<=[4] last_tile_dim_replicate}");
  Sharding candidate = P("{devices=[1,4]<=[4]}");
  Improvement guarded = Improve(candidate, &existing, kShape, true, /*allow_aggressive=*/false);
  EXPECT_FALSE(guarded.result);
  EXPECT_NE(std::string(guarded.why_not), "");
  Improvement aggressive = Improve(candidate, &existing, kShape, true, /*allow_aggressive=*/true);
  ASSERT_TRUE(aggressive.result);
  EXPECT_EQ(*aggressive.result, candidate);
  // A sub-tiling with more tiles passes the guard.
  Improvement sub = Improve(P("{devices=[4,1]<=[4]}"), &existing, kShape, true, false);
  ASSERT_TRUE(sub.result);
  // A different device order with the same tiles is never an improvement.
  Sharding tiled = P("{devices=[4,1]<=[4]}");
  EXPECT_FALSE(Improve(P("{devices=[4,1]3,2,1,0}"), &tiled, kShape, true, true).result);
}

TEST(PropagationLattice, ManualBeatsTileMaximalButNeverReplacesTiled) {
  Sharding replicated = P("{replicated}");
  Improvement imp = Improve(P("{manual}"), &replicated, kShape, false, false);
  ASSERT_TRUE(imp.result);
  EXPECT_TRUE(imp.result->IsManual());
  Sharding tiled = P("{devices=[4,1]<=[4]}");
  EXPECT_FALSE(Improve(P("{manual}"), &tiled, kShape, false, false).result);
}

TEST(PropagationLattice, TuplesImproveElementWise) {
  Sharding existing = P("{{replicated}, {devices=[4,1]<=[4]}}");
  Sharding better = P("{{devices=[4,1]<=[4]}, {devices=[4,1]<=[4]}}");
  Shape tuple = Shape::Tuple({kShape, kShape});
  Improvement imp = Improve(better, &existing, tuple, false, false);
  ASSERT_TRUE(imp.result);
  EXPECT_EQ(*imp.result, better);
  Sharding worse = P("{{devices=[4,1]<=[4]}, {replicated}}");
  EXPECT_FALSE(Improve(worse, &better, tuple, false, false).result);
}

}  // namespace
}  // namespace spmdc

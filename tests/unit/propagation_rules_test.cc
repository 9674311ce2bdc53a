// Subtle parts of sharding propagation: iota detection and gather/scatter parallel dims, the joint
// refinement of a partially specified constraint with its manual conversion, topk's backward
// rule, idempotence, and provenance naming both sources of a merge.
#include <gtest/gtest.h>

#include "hlo/parser.h"
#include "propagation/gather_parallel.h"
#include "propagation/propagation.h"
#include "sharding/sharding_text.h"

namespace spmdc {
namespace {

std::unique_ptr<Module> Parse(std::string_view text) {
  auto m = ParseHloModule(text);
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? std::move(*m) : nullptr;
}

Instruction* Find(Module& m, std::string_view name) {
  for (Computation* c : m.computations())
    for (Instruction* i : c->instructions())
      if (i->name() == name) return i;
  ADD_FAILURE() << "no instruction " << name;
  return nullptr;
}

std::string ShardingOf(Module& m, std::string_view name) {
  Instruction* i = Find(m, name);
  return i && i->has_sharding() ? i->sharding()->ToString(false) : "none";
}

TEST(PropagationIota, RecognisesIotaBroadcastAndConstant) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  i = s32[4,8] iota(), iota_dimension=1
  j = s32[8] iota(), iota_dimension=0
  b = s32[4,8,2] broadcast(j), dimensions={1}
  c = s32[2,3] constant({{0,1,2},{0,1,2}})
  d = s32[2,3] constant({{0,1,2},{0,1,3}})
  f = f32[2,3] constant({{0,1,2},{0,1,2}})
  ROOT t = (s32[4,8], s32[4,8,2], s32[2,3], s32[2,3], f32[2,3]) tuple(i, b, c, d, f)
})");
  ASSERT_TRUE(m);
  CallerMap callers;
  EXPECT_EQ(DimensionForIota(*Find(*m, "i"), callers), 1);
  EXPECT_EQ(DimensionForIota(*Find(*m, "b"), callers), 1);
  EXPECT_EQ(DimensionForIota(*Find(*m, "c"), callers), 1);
  EXPECT_EQ(DimensionForIota(*Find(*m, "d"), callers), std::nullopt);
  EXPECT_EQ(DimensionForIota(*Find(*m, "f"), callers), std::nullopt);  // s32 only
}

TEST(PropagationIota, GatherParallelDimsThroughConcatenate) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  op = f32[8,32] parameter(0)
  iota = s32[8,4,1] iota(), iota_dimension=0
  col = s32[8,4,1] parameter(1)
  ix = s32[8,4,2] concatenate(iota, col), dimensions={2}
  ROOT g = f32[8,4] gather(op, ix), offset_dims={}, collapsed_slice_dims={0,1}, start_index_map={0,1}, index_vector_dim=2, slice_sizes={1,1}
})");
  ASSERT_TRUE(m);
  std::optional<ParallelDims> par = GatherParallelDims(*Find(*m, "g"), {});
  ASSERT_TRUE(par);
  EXPECT_EQ(par->indices, std::vector<int64_t>{0});
  EXPECT_EQ(par->operand, std::vector<int64_t>{0});
  EXPECT_EQ(par->result, std::vector<int64_t>{0});
}

TEST(PropagationIota, SliceSizeAboveOneIsNotParallel) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  op = f32[8,32] parameter(0)
  ix = s32[8,1] iota(), iota_dimension=0
  ROOT g = f32[8,2,32] gather(op, ix), offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0}, index_vector_dim=1, slice_sizes={2,32}
})");
  ASSERT_TRUE(m);
  EXPECT_FALSE(GatherParallelDims(*Find(*m, "g"), {}));
}

TEST(PropagationIota, LoopInvariantIotaThroughWhile) {
  auto m = Parse(R"(
HloModule m
cond {
  cp = (s32[8,1], f32[8,32]) parameter(0)
  ROOT k = pred[] constant(false)
}
body {
  bp = (s32[8,1], f32[8,32]) parameter(0)
  ix = s32[8,1] get-tuple-element(bp), index=0
  op = f32[8,32] get-tuple-element(bp), index=1
  g = f32[8,32] gather(op, ix), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,32}
  ROOT bt = (s32[8,1], f32[8,32]) tuple(ix, g)
}
ENTRY e {
  iota = s32[8,1] iota(), iota_dimension=0
  p = f32[8,32] parameter(0), sharding={devices=[4,1]<=[4]}
  init = (s32[8,1], f32[8,32]) tuple(iota, p)
  ROOT w = (s32[8,1], f32[8,32]) while(init), condition=cond, body=body
})");
  ASSERT_TRUE(m);
  Instruction* w = Find(*m, "w");
  CallerMap callers;
  callers[Find(*m, "g")->parent()] = w;
  EXPECT_EQ(DimensionForIota(*Find(*m, "ix"), callers), 0);
  EXPECT_TRUE(GatherParallelDims(*Find(*m, "g"), callers));
  EXPECT_FALSE(GatherParallelDims(*Find(*m, "g"), {}));  // without the caller: unknown
}

TEST(PropagationManual, ConstraintAndFullToShardAreRefinedTogether) {
  auto m = Parse(R"(
HloModule m, num_partitions=4
ENTRY e {
  p = f32[8,16] parameter(0), sharding={devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}
  a = f32[8,16] negate(p)
  s = f32[8,16] custom-call(a), custom_call_target="Sharding", sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}, backend_config="unspecified_dims=[1]"
  man = f32[4,16] custom-call(s), custom_call_target="SPMDFullToShardShape", sharding={devices=[1,1,2,2]<=[4] last_tile_dims={manual, replicated}}, backend_config="unspecified_dims=[1]"
  n = f32[4,16] negate(man)
  ROOT r = f32[4,16] copy(n)
})");
  ASSERT_TRUE(m);
  ASSERT_TRUE(PropagateShardings(*m).ok());
  EXPECT_EQ(ShardingOf(*m, "s"), "{devices=[2,2]<=[4]}");
  EXPECT_EQ(ShardingOf(*m, "man"), "{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dims={manual}}");
  EXPECT_EQ(ShardingOf(*m, "n"), "{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dims={manual}}");
}

TEST(PropagationManual, DifferentUnspecifiedDimsAreNotRefinedJointly) {
  auto m = Parse(R"(
HloModule m, num_partitions=4
ENTRY e {
  p = f32[8,16] parameter(0), sharding={devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}
  a = f32[8,16] negate(p)
  s = f32[8,16] custom-call(a), custom_call_target="Sharding", sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}, backend_config="unspecified_dims=[1]"
  man = f32[4,16] custom-call(s), custom_call_target="SPMDFullToShardShape", sharding={devices=[1,1,2,2]<=[4] last_tile_dims={manual, replicated}}
  ROOT r = f32[4,16] copy(man)
})");
  ASSERT_TRUE(m);
  ASSERT_TRUE(PropagateShardings(*m).ok());
  EXPECT_EQ(ShardingOf(*m, "man"), "{devices=[1,1,2,2]<=[4] last_tile_dims={manual, replicated}}");
}

constexpr std::string_view kMergeModule = R"(
HloModule m, num_partitions=4
ENTRY e {
  p0 = f32[8,16] parameter(0), sharding={devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}
  p1 = f32[8,16] parameter(1), sharding={devices=[1,2,2]0,2,1,3 last_tile_dim_replicate}
  a = f32[8,16] add(p0, p1)
  ROOT r = f32[8,16] copy(a)
})";

// A topk with a sharding (a user's, or spmdc auto's plan) gives its operand the values' split
// with the last dim whole: what the partitioner's local top-k reads.
TEST(PropagationTopK, OperandTakesTheValuesSplitWithTheLastDimWhole) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  x = f32[8,16] parameter(0)
  n = f32[8,16] negate(x)
  top = (f32[8,2], s32[8,2]) topk(n), k=2, largest=true, sharding={{devices=[2,2]<=[4]}, {devices=[2,2]<=[4]}}
  ROOT v = f32[8,2] get-tuple-element(top), index=0
})");
  ASSERT_TRUE(m);
  ASSERT_TRUE(PropagateShardings(*m).ok());
  EXPECT_EQ(ShardingOf(*m, "n"), "{devices=[2,1,2]<=[4] last_tile_dim_replicate}");
}

TEST(PropagationDriver, IsIdempotent) {
  auto m = Parse(kMergeModule);
  ASSERT_TRUE(m);
  ASSERT_TRUE(PropagateShardings(*m).ok());
  std::string first = ShardingOf(*m, "a");
  EXPECT_EQ(first, "{devices=[2,2]<=[4]}");
  auto again = PropagateShardings(*m);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(ShardingOf(*m, "a"), first);
}

TEST(PropagationProvenance, MergeNamesBothSources) {
  auto m = Parse(kMergeModule);
  ASSERT_TRUE(m);
  Provenance provenance;
  ASSERT_TRUE(PropagateShardings(*m, {}, &provenance).ok());
  std::string text = ExplainSharding(provenance, *Find(*m, "a"));
  EXPECT_NE(text.find("merged"), std::string::npos) << text;
  EXPECT_NE(text.find("%p0"), std::string::npos) << text;
  EXPECT_NE(text.find("%p1"), std::string::npos) << text;
}

}  // namespace
}  // namespace spmdc

// Sharding queries (GSPMD.md §1.4), validation, tuple handling, Mesh / PartitionSpec / notation.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "ir/module.h"
#include "sharding/mesh.h"
#include "sharding/sharding_text.h"
#include "sharding/validation.h"

namespace spmdc {
namespace {

Sharding P(std::string_view text) {
  auto s = ParseSharding(text);
  EXPECT_TRUE(s.ok()) << text << ": " << s.status().message();
  return s.ok() ? *s : Sharding();
}

Shape F32(std::vector<int64_t> dims) { return Shape(DType::kF32, std::move(dims)); }

TEST(ShardingQueries, Kinds) {
  EXPECT_TRUE(P("{replicated}").IsReplicated());
  EXPECT_TRUE(P("{replicated}").IsTileMaximal());
  EXPECT_TRUE(P("{maximal device=2}").IsTileMaximal());
  EXPECT_FALSE(P("{maximal device=2}").IsReplicated());
  EXPECT_EQ(P("{maximal device=2}").UniqueDevice(), 2);
  EXPECT_TRUE(P("{manual}").IsManual());
  EXPECT_FALSE(P("{manual}").IsTileMaximal());
  EXPECT_TRUE(P("{unknown}").IsUnknown());
  Sharding t = P("{{replicated}, {replicated}}");
  EXPECT_TRUE(t.IsTuple());
  EXPECT_TRUE(t.IsReplicated());
  EXPECT_FALSE(P("{{replicated}, {manual}}").IsReplicated());
  EXPECT_EQ(P("{{maximal device=1}, {maximal device=1}}").UniqueDevice(), 1);
  EXPECT_EQ(P("{{maximal device=1}, {maximal device=0}}").UniqueDevice(), std::nullopt);
}

TEST(ShardingQueries, TiledCounts) {
  Sharding s = P("{devices=[2,1,2,2]<=[8] last_tile_dims={manual, replicated}}");
  EXPECT_EQ(s.TiledDataRank(), 2);
  EXPECT_EQ(s.NumTiles(), 2);
  EXPECT_EQ(s.TotalNumTiles(), 8);
  EXPECT_EQ(s.SubgroupManualDim(), 2);
  EXPECT_EQ(s.SubgroupReplicationDim(), 3);
  EXPECT_TRUE(s.HasPartialReplication());
  EXPECT_TRUE(s.IsManualSubgroup());
  Sharding p = P("{devices=[2,1,4]<=[8] last_tile_dim_replicate}");
  EXPECT_TRUE(p.ReplicateOnLastTileDim());
  EXPECT_EQ(p.SubgroupReplicationDim(), 2);
  EXPECT_EQ(p.SubgroupManualDim(), -1);
  EXPECT_EQ(p.TiledDataRank(), 2);
  EXPECT_EQ(p.NumTiles(), 2);
  EXPECT_EQ(P("{replicated}").NumTiles(), 1);
}

TEST(ShardingQueries, TileIndexAndOffsets) {
  Sharding s = P("{devices=[2,2]<=[2,2]T(1,0)}");  // [[0,2],[1,3]]
  EXPECT_EQ(s.TileIndexForDevice(2), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(s.DeviceForTileIndex(std::vector<int64_t>{1, 0}), 1);
  Sharding p = P("{devices=[2,1,2]<=[4] last_tile_dim_replicate}");
  EXPECT_EQ(p.TileIndexForDevice(3), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(p.DeviceForTileIndex(std::vector<int64_t>{1, 0}), 2);  // first of the group
  // D=3 over 4 tiles: chunk 1; shard 3 is empty.
  Sharding u = P("{devices=[4]<=[4]}");
  Shape shape = F32({3});
  EXPECT_EQ(u.TileOffsetForDevice(shape, 3), (std::vector<int64_t>{3}));
  EXPECT_EQ(u.TileLimitForDevice(shape, 3), (std::vector<int64_t>{3}));
  EXPECT_EQ(u.TileOffsetForDevice(F32({10}), 2), (std::vector<int64_t>{6}));
  EXPECT_EQ(u.TileLimitForDevice(F32({10}), 2), (std::vector<int64_t>{9}));
  EXPECT_EQ(u.TileLimitForDevice(F32({10}), 3), (std::vector<int64_t>{10}));
  EXPECT_EQ(u.ShardShape(F32({10})), F32({3}));
  EXPECT_FALSE(u.EvenlyPartitions(F32({10})));
  EXPECT_TRUE(u.EvenlyPartitions(F32({12})));
  EXPECT_TRUE(s.UsesDevice(3));
  EXPECT_FALSE(s.UsesDevice(4));
}

// TileCoordForDevice is TileIndexForDevice's entry, without the index: on iota (transposed),
// explicit, partially replicated and manual-subgroup arrays.
TEST(ShardingQueries, TileCoordForDevice) {
  for (std::string_view text :
       {"{devices=[2,2]<=[2,2]T(1,0)}", "{devices=[2,4]<=[2,2,2]T(2,0,1)}", "{devices=[2,2]3,0,2,1}",
        "{devices=[2,1,2]<=[4] last_tile_dim_replicate}", "{devices=[2,2,2]<=[8] last_tile_dims={manual}}",
        "{devices=[1,2,2,2]<=[2,2,2]T(1,2,0) last_tile_dims={manual, replicated}}"}) {
    Sharding s = P(text);
    for (int64_t dev = 0; dev < s.tile_assignment().num_elements(); ++dev) {
      std::vector<int64_t> index = s.TileIndexForDevice(dev);
      for (int64_t d = 0; d < static_cast<int64_t>(index.size()); ++d)
        EXPECT_EQ(s.TileCoordForDevice(dev, d), index[d]) << text << " device " << dev << " dim " << d;
    }
  }
}

TEST(ShardingQueries, TupleSubShardings) {
  Shape shape = Shape::Tuple({F32({4}), Shape::Tuple({F32({2}), F32({6})}), F32({8})});
  Sharding t = P("{{replicated}, {maximal device=1}, {devices=[2]<=[2]}, {manual}}");
  EXPECT_EQ(t.GetSubSharding(shape, std::vector<int64_t>{0}), P("{replicated}"));
  EXPECT_EQ(t.GetSubSharding(shape, std::vector<int64_t>{1}),
            P("{{maximal device=1}, {devices=[2]<=[2]}}"));
  EXPECT_EQ(t.GetSubSharding(shape, std::vector<int64_t>{1, 1}), P("{devices=[2]<=[2]}"));
  EXPECT_EQ(t.GetSubSharding(shape, std::vector<int64_t>{2}), P("{manual}"));
  Sharding single = P("{devices=[2]<=[2]}").NormalizeTupleSharding(shape);
  EXPECT_TRUE(single.IsTuple());
  EXPECT_EQ(single.tuple_elements().size(), 4u);
  EXPECT_TRUE(t.GetTupleSharding(shape).ok());
  EXPECT_FALSE(P("{{replicated}}").GetTupleSharding(shape).ok());
  EXPECT_EQ(Sharding::SingleTuple(Shape::Tuple({}), Sharding()).tuple_elements().size(), 1u);
  Shape shard = t.ShardShape(shape);
  EXPECT_EQ(shard.tuple_shape(1).tuple_shape(1), F32({3}));
}

// XLA's GetSubSharding: a leafless tuple inside a tuple owns no flattened entry, so its
// sub-sharding is the empty tuple sharding; the entry after it belongs to the next leaf.
TEST(ShardingQueries, SubShardingOfEmptyNestedTuple) {
  Shape shape = Shape::Tuple({F32({4}), Shape::Tuple({}), F32({2})});
  Sharding t = P("{{replicated}, {maximal device=1}}");
  EXPECT_TRUE(ValidateSharding(t, shape, 2).ok());
  EXPECT_EQ(t.GetSubSharding(shape, std::vector<int64_t>{1}), Sharding::Tuple({}));
  EXPECT_EQ(t.GetSubSharding(shape, std::vector<int64_t>{1}).ToString(), "{}");
  EXPECT_EQ(t.GetSubSharding(shape, std::vector<int64_t>{2}), P("{maximal device=1}"));
  Shape nested = Shape::Tuple({Shape::Tuple({}), Shape::Tuple({F32({3}), Shape::Tuple({})})});
  Sharding one = P("{{manual}}");
  EXPECT_TRUE(ValidateSharding(one, nested, 2).ok());
  EXPECT_EQ(one.GetSubSharding(nested, std::vector<int64_t>{1}), P("{{manual}}"));
  EXPECT_EQ(one.GetSubSharding(nested, std::vector<int64_t>{1, 0}), P("{manual}"));
  EXPECT_EQ(one.GetSubSharding(nested, std::vector<int64_t>{1, 1}), Sharding::Tuple({}));
}

// Edge cases of the queries, each as XLA answers them.
TEST(ShardingQueries, XlaEdgeCases) {
  // Rank 0: subgroup-only tile arrays describe scalars.
  Sharding scalar = P("{devices=[2,2]<=[4] last_tile_dims={manual, replicated}}");
  EXPECT_TRUE(scalar.IsTiled());
  EXPECT_EQ(scalar.TiledDataRank(), 0);
  EXPECT_EQ(scalar.NumTiles(), 1);
  EXPECT_EQ(scalar.TotalNumTiles(), 4);
  EXPECT_EQ(scalar.SubgroupManualDim(), 0);
  EXPECT_EQ(scalar.SubgroupReplicationDim(), 1);
  EXPECT_TRUE(ValidateSharding(scalar, F32({}), 4).ok());
  EXPECT_EQ(scalar.TileOffsetForDevice(F32({}), 3), std::vector<int64_t>{});
  // Size-1 data tile dims stay data dims.
  Sharding ones = P("{devices=[1,4,1]<=[4]}");
  EXPECT_EQ(ones.NumTiles(), 4);
  EXPECT_EQ(ones.NumTilesOnDim(0), 1);
  EXPECT_EQ(ones.TileIndexForDevice(2), (std::vector<int64_t>{0, 2, 0}));
  EXPECT_EQ(ones.TileOffsetForDevice(F32({3, 8, 5}), 2), (std::vector<int64_t>{0, 4, 0}));
  EXPECT_EQ(ones.TileLimitForDevice(F32({3, 8, 5}), 2), (std::vector<int64_t>{3, 6, 5}));
  // An all-ones tile array is a (one-device) tiled sharding, not replicated; it fails validation.
  Sharding single = P("{devices=[1,1]<=[1]}");
  EXPECT_TRUE(single.IsTiled());
  EXPECT_FALSE(single.IsReplicated());
  EXPECT_EQ(single.NumTiles(), 1);
  // Size-1 subgroup dims are dropped, so the remaining kinds decide the form.
  EXPECT_EQ(P("{devices=[2,1,2]<=[4] last_tile_dims={manual, replicated}}"),
            P("{devices=[2,2]<=[4] last_tile_dim_replicate}"));
  EXPECT_EQ(P("{devices=[2,2,1]<=[4] last_tile_dims={manual, replicated}}"),
            P("{devices=[2,2]<=[4] last_tile_dims={manual}}"));
  EXPECT_EQ(P("{devices=[4,1,1]<=[4] last_tile_dims={manual, replicated}}"), P("{devices=[4]<=[4]}"));
  // A size-1 data dim is not a subgroup: no canonicalisation to {manual} here.
  EXPECT_EQ(P("{devices=[1,2,2]<=[4] last_tile_dims={manual, replicated}}").ToString(),
            "{devices=[1,2,2]<=[4] last_tile_dims={manual, replicated}}");
  // One replication group over everything is replicated; a trivial group is a plain tile.
  EXPECT_TRUE(P("{devices=[1,1,4]<=[4] last_tile_dim_replicate}").IsReplicated());
  EXPECT_FALSE(P("{devices=[4,1]<=[4] last_tile_dim_replicate}").HasPartialReplication());
  // Partial replication: the tile index drops the group coordinate; DeviceForTileIndex picks the
  // first (smallest, groups are sorted) member.
  Sharding partial = P("{devices=[2,2]3,2,1,0 last_tile_dim_replicate}");
  EXPECT_EQ(partial.tile_assignment().devices(), (std::vector<int64_t>{2, 3, 0, 1}));
  EXPECT_EQ(partial.DeviceForTileIndex(std::vector<int64_t>{1}), 0);
  EXPECT_EQ(partial.TileIndexForDevice(3), (std::vector<int64_t>{0}));
  // UniqueDevice: only maximal leaves have one.
  EXPECT_EQ(P("{replicated}").UniqueDevice(), std::nullopt);
  EXPECT_EQ(P("{}").UniqueDevice(), std::nullopt);
  EXPECT_EQ(P("{{maximal device=1}}").UniqueDevice(), 1);
  EXPECT_EQ(P("{devices=[2]<=[2]}").UniqueDevice(), std::nullopt);
  // Predicates of the non-tiled kinds.
  EXPECT_FALSE(P("{unknown}").IsTiled());
  EXPECT_FALSE(P("{unknown}").IsTileMaximal());
  EXPECT_FALSE(P("{manual}").IsTiled());
  EXPECT_TRUE(P("{manual}").IsSpatiallyPartitioned());
  EXPECT_TRUE(P("{replicated}").IsSpatiallyPartitioned());
  EXPECT_FALSE(P("{maximal device=0}").IsSpatiallyPartitioned());
  EXPECT_EQ(P("{maximal device=0}").TotalNumTiles(), 1);
}

// Equality is semantic (explicit == iota, metadata ignored) and the hash agrees with it; a tuple
// of one element is not its element.
TEST(ShardingQueries, EqualityAndHash) {
  auto same = [](const Sharding& a, const Sharding& b) {
    EXPECT_EQ(a, b) << a << " vs " << b;
    EXPECT_EQ(a.Hash(), b.Hash()) << a << " vs " << b;
  };
  same(P("{devices=[2,2]0,2,1,3}"), P("{devices=[2,2]<=[2,2]T(1,0)}"));
  same(P("{devices=[2,2]1,0,3,2 last_tile_dim_replicate}"), P("{devices=[2,2]<=[4] last_tile_dim_replicate}"));
  same(P(R"({devices=[4]<=[4] metadata={op_name="x"}})"), P("{devices=[4]0,1,2,3}"));
  same(P("{{replicated}, {devices=[2]1,0}}"), P("{{replicated}, {devices=[2]1,0}}"));
  same(P("{devices=[2,2,2]<=[8] last_tile_dims={replicated, manual}}"),
       P("{devices=[2,2,2]0,2,1,3,4,6,5,7 last_tile_dims={manual, replicated}}"));
  EXPECT_NE(P("{{replicated}}"), P("{replicated}"));
  EXPECT_NE(P("{devices=[2]<=[2] shard_as 1}"), P("{devices=[2]<=[2] shard_like 1}"));
  EXPECT_NE(P("{devices=[2,1]<=[2]}"), P("{devices=[2]<=[2]}"));
  EXPECT_NE(P("{devices=[2,2]<=[4] last_tile_dim_replicate}"),
            P("{devices=[2,2]<=[4] last_tile_dims={manual}}"));
  // Random explicit spellings of random iotas: equal, same hash, same text.
  std::mt19937 rng(7);
  for (int iter = 0; iter < 300; ++iter) {
    std::vector<int64_t> reshape;
    int64_t n = 1;
    for (int k = 0, rank = 1 + rng() % 3; k < rank; ++k) {
      reshape.push_back(1 + rng() % 4);
      n *= reshape.back();
    }
    if (n < 2) continue;
    std::vector<int64_t> perm(reshape.size());
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    TileAssignment iota({n}, reshape, perm);
    Sharding a = Sharding::Tile(iota);
    Sharding b = Sharding::Tile(TileAssignment::FromDevices({n}, iota.devices()));
    same(a, b);
    EXPECT_EQ(a.ToString(), b.ToString());
  }
}

// XLA's unreduced kind and subgroup: predicates and dims as HloSharding answers them.
TEST(ShardingQueries, Unreduced) {
  Sharding u = P("{unreduced}");
  EXPECT_TRUE(u.IsUnreduced());
  EXPECT_FALSE(u.IsTiled());
  EXPECT_FALSE(u.IsTileMaximal());
  EXPECT_FALSE(u.IsManual());
  EXPECT_FALSE(u.IsReplicated());
  EXPECT_TRUE(u.IsSpatiallyPartitioned());
  EXPECT_TRUE(u.UsesDevice(5));
  EXPECT_EQ(u.UniqueDevice(), std::nullopt);
  EXPECT_EQ(u.Hash(), P("{unreduced}").Hash());
  EXPECT_NE(u.Hash(), P("{manual}").Hash());
  EXPECT_TRUE(P("{{unreduced}, {unreduced}}").IsUnreduced());
  EXPECT_FALSE(P("{{unreduced}, {manual}}").IsUnreduced());
  Sharding s = P("{devices=[2,2,2]<=[8] last_tile_dims={replicated, unreduced}}");
  EXPECT_TRUE(s.IsTiled());
  EXPECT_TRUE(s.IsUnreducedSubgroup());
  EXPECT_FALSE(s.IsManualSubgroup());
  EXPECT_TRUE(s.HasPartialReplication());
  EXPECT_EQ(s.TiledDataRank(), 1);
  EXPECT_EQ(s.NumTiles(), 2);
  EXPECT_EQ(s.SubgroupUnreducedDim(), 1);
  EXPECT_EQ(s.SubgroupReplicationDim(), 2);
  EXPECT_EQ(P("{devices=[2,2]<=[4] last_tile_dims={manual}}").SubgroupUnreducedDim(), -1);
  // XLA's Validate accepts unreduced on any shape; the module check refuses it as unsupported
  // (exit 3), since spmdc's passes do not handle unreduced values.
  EXPECT_TRUE(ValidateSharding(u, F32({4, 4}), 4).ok());
  EXPECT_TRUE(ValidateSharding(s, F32({4}), 8).ok());
  Module m("m");
  Computation* c = m.AddComputation(std::make_unique<Computation>("e"), /*is_entry=*/true);
  Instruction* p = c->AddInstruction(Opcode::kParameter, F32({8}), "p");
  p->set_parameter_number(0);
  c->set_root(p);
  p->set_sharding(std::make_shared<const Sharding>(s));
  Status st = VerifyModuleShardings(m);
  EXPECT_EQ(st.code(), absl::StatusCode::kUnimplemented) << st;
  EXPECT_NE(std::string(st.message()).find("unreduced"), std::string::npos) << st;
}

TEST(ShardingQueries, CheapCopies) {
  Sharding big = Sharding::IotaTile({64, 64});
  std::vector<Sharding> many(100000, big);
  EXPECT_EQ(many.back(), big);
  EXPECT_EQ(many.back().tile_assignment().At(4095), 4095);
  EXPECT_EQ(big.Hash(), P(big.ToString()).Hash());
}

TEST(ShardingValidation, Errors) {
  EXPECT_TRUE(ValidateSharding(P("{devices=[2,2]<=[4]}"), F32({4, 4}), 4).ok());
  EXPECT_TRUE(ValidateSharding(P("{replicated}"), F32({4, 4}), 4).ok());
  EXPECT_TRUE(ValidateSharding(P("{devices=[2,1,2]<=[4] last_tile_dim_replicate}"), F32({4, 4}), 4).ok());
  auto expect_error = [](const Sharding& s, const Shape& shape, int64_t n, std::string_view part) {
    Status st = ValidateSharding(s, shape, n);
    ASSERT_FALSE(st.ok()) << s.ToString();
    EXPECT_NE(std::string(st.message()).find(part), std::string::npos) << st.message();
  };
  expect_error(P("{devices=[2,2]<=[4]}"), F32({4}), 4, "rank 1");
  expect_error(P("{devices=[2,2]<=[4]}"), F32({4, 4}), 8, "uses 4 devices but the module has 8");
  expect_error(P("{devices=[2]0,5}"), F32({4}), 4, "device 5 is out of range");
  expect_error(P("{devices=[2]1,1}"), F32({4}), 4, "appears more than once");
  expect_error(P("{devices=[2]0,-1}"), F32({4}), -1, "negative");
  expect_error(P("{maximal device=9}"), F32({4}), 4, "out of range");
  // An explicit one-device list is a parse error; the iota form parses and fails here (as XLA).
  expect_error(P("{devices=[1,1]<=[1]}"), F32({4, 4}), 1, "single device");
  expect_error(P("{{replicated}}"), Shape::Tuple({F32({1}), F32({2})}), 4, "1 elements but the shape has 2 leaves");
  expect_error(P("{{replicated}, {devices=[3]<=[3]}}"), Shape::Tuple({F32({1}), F32({2})}), 4,
               "tuple element 1");
  EXPECT_TRUE(ValidateSharding(P("{}"), Shape::Tuple({}), 4).ok());
  EXPECT_TRUE(ValidateSharding(P("{{replicated}}"), Shape::Tuple({}), 4).ok());
  EXPECT_TRUE(ValidateSharding(P("{devices=[2]<=[2]}"), Shape::Token(), 4).ok());
  // XLA checks for a token before anything else: a tuple sharding on a token is valid too.
  EXPECT_TRUE(ValidateSharding(P("{{replicated}, {maximal device=0}}"), Shape::Token(), 4).ok());
}

TEST(ShardingValidation, ModuleDiagnostics) {
  Module m("m");
  auto comp = std::make_unique<Computation>("e");
  Computation* c = m.AddComputation(std::move(comp), /*is_entry=*/true);
  Instruction* p = c->AddInstruction(Opcode::kParameter, F32({8}), "p");
  p->set_parameter_number(0);
  p->set_location(SourceLocation{2, 3});
  c->set_root(p);
  m.set_num_partitions(4);
  p->set_sharding(std::make_shared<const Sharding>(P("{devices=[4]<=[4]}")));
  EXPECT_TRUE(VerifyModuleShardings(m).ok());
  p->set_sharding(std::make_shared<const Sharding>(P("{devices=[2]<=[2]}")));
  std::string text = "HloModule m\n  p = f32[8] parameter(0), sharding={devices=[2]<=[2]}\n";
  DiagnosticSource source{"x.hlo", text};
  Status st = VerifyModuleShardings(m, &source);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(std::string(st.message()).find("x.hlo:2:3: error: instruction 'p'"), std::string::npos)
      << st.message();
}

TEST(Mesh, ParseAndSpecs) {
  auto mesh = Mesh::Parse("data=2, model=4");
  ASSERT_TRUE(mesh.ok());
  EXPECT_EQ(mesh->num_devices(), 8);
  EXPECT_EQ(mesh->ToString(), "{data=2, model=4}");
  EXPECT_FALSE(Mesh::Parse("data=2,data=3").ok());
  EXPECT_FALSE(Mesh::Parse("data=x").ok());
  EXPECT_TRUE(Mesh::Parse("Mesh{data=2, model=4}").ok());

  auto spec = [](std::string_view t) { return *ParsePartitionSpec(t); };
  auto shard = [&](std::string_view t) { return *ShardingFromSpec(*mesh, spec(t)); };
  EXPECT_EQ(shard("[data, None]"), P("{devices=[2,1,4]<=[8] last_tile_dim_replicate}"));
  EXPECT_EQ(shard("[data, model]"), P("{devices=[2,4]<=[8]}"));
  EXPECT_EQ(shard("[model, data]"), P("{devices=[4,2]<=[2,4]T(1,0)}"));
  EXPECT_EQ(shard("[(data,model), None]"), P("{devices=[8,1]<=[8]}"));
  EXPECT_EQ(shard("[(model,data), None]"), P("{devices=[8,1]<=[2,4]T(1,0)}"));
  EXPECT_EQ(shard("[None, model]"), P("{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"));
  EXPECT_EQ(shard("[None, None]"), P("{replicated}"));
  EXPECT_FALSE(ShardingFromSpec(*mesh, spec("[data, data]")).ok());
  EXPECT_FALSE(ShardingFromSpec(*mesh, spec("[bogus]")).ok());
  EXPECT_EQ(*ShardingFromSpec(*mesh, spec("[None, model]"), {"data"}),
            P("{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dims={manual}}"));

  for (std::string_view t : {"[data, None]", "[data, model]", "[model, data]", "[(data, model), None]",
                             "[(model, data), None]", "[None, model]", "[None, None]"}) {
    auto back = SpecFromSharding(*mesh, shard(t), 2);
    ASSERT_TRUE(back.has_value()) << t;
    EXPECT_EQ(PartitionSpecToString(*back), t);
  }
  EXPECT_FALSE(SpecFromSharding(*mesh, P("{devices=[8]0,3,4,6,1,2,5,7}"), 1).has_value());
}

TEST(Mesh, Describe) {
  Mesh mesh = *Mesh::Parse("data=2,model=4");
  Shape s = F32({8, 4});
  EXPECT_EQ(DescribeSharding(s, *ShardingFromSpec(mesh, {{"data"}, {"model"}}), mesh), "f32[8@data,4@model]");
  EXPECT_EQ(DescribeSharding(s, *ShardingFromSpec(mesh, {{"data", "model"}, {}}), mesh),
            "f32[8@(data,model),4]");
  EXPECT_EQ(DescribeSharding(s, Sharding(), mesh), "f32[8,4]");
  EXPECT_EQ(DescribeSharding(s, Sharding::Manual(), mesh), "f32[8,4]{manual}");
  EXPECT_EQ(DescribeSharding(Shape::Tuple({s, F32({2})}),
                             P("{{devices=[2,1,4]<=[8] last_tile_dim_replicate}, {replicated}}"), mesh),
            "(f32[8@data,4], f32[2])");
  EXPECT_EQ(DescribeSharding(F32({8}), P("{devices=[8]0,3,4,6,1,2,5,7}"), mesh),
            "f32[8] {devices=[8]0,3,4,6,1,2,5,7}");
}

}  // namespace
}  // namespace spmdc

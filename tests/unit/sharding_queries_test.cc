// Sharding queries (GSPMD.md §1.4), validation, tuple handling, Mesh / PartitionSpec / notation.
#include <gtest/gtest.h>

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

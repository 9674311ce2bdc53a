// Shardy's sdy attribute text (SHARDY.md §2.3) and the named -> tile conversion (§2.4) it
// shares with the V3 `sharding=` text; the inverse used when printing modules back.
#include "sharding/sdy_text.h"

#include <gtest/gtest.h>

#include "sharding/sharding_text.h"

namespace spmdc {
namespace {

SdyMeshes Meshes(std::string_view text) {
  size_t at = 0;
  auto m = ParseSdyMeshes(text, &at);
  EXPECT_TRUE(m.ok()) << text << ": " << m.status().message() << " at " << at;
  return m.ok() ? *m : SdyMeshes{};
}

Sharding Convert(std::string_view meshes, std::string_view sharding, std::vector<std::string> manual = {}) {
  SdyMeshes m = Meshes(meshes);
  size_t at = 0;
  auto s = ParseSdySharding(sharding, m, &at);
  EXPECT_TRUE(s.ok()) << sharding << ": " << s.status().message() << " at " << at;
  if (!s.ok()) return Sharding::Unknown();
  for (const std::string& axis : manual) s->named.manual.push_back(AxisRef{s->mesh.AxisIndex(axis), 1, 0, 0});
  auto t = NamedToTiled(s->mesh, s->named);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? *t : Sharding::Unknown();
}

Sharding Classic(std::string_view text) {
  auto s = ParseSharding(text);
  EXPECT_TRUE(s.ok()) << text;
  return s.ok() ? *s : Sharding();
}

// The two conversions SHARDY.md §2.4 checked against XLA.
TEST(SdyText, CheckedExamples) {
  EXPECT_EQ(Convert(R"({mesh = #sdy.mesh<["x"=2, "y"=4]>})", R"(#sdy.sharding<@mesh, [{"y"}, {}]>)").ToString(),
            "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}");
  EXPECT_EQ(Convert(R"({mesh = #sdy.mesh<["x"=8, "y"=4]>})", R"(#sdy.sharding<@mesh, [{"y"}, {"x":(2)2}]>)")
                .ToString(),
            "{devices=[4,2,4]<=[2,2,2,4]T(3,1,0,2) last_tile_dim_replicate}");
}

// The same sharding written in sdy and in V3 mesh text converts to the same tile sharding.
TEST(SdyText, SameConversionAsV3Text) {
  EXPECT_EQ(Convert(R"({m = #sdy.mesh<["a"=2, "b"=4]>})", R"(#sdy.sharding<@m, [{"b"}, {"a"}]>)"),
            Classic("{mesh['a'=2,'b'=4], [{'b'}, {'a'}]}"));
  EXPECT_EQ(Convert(R"({m = #sdy.mesh<["a"=2, "b"=2], device_ids=[3, 1, 2, 0]>})", R"(#sdy.sharding<@m, [{"b"}]>)"),
            Classic("{mesh[a=2,b=2], device_ids=(3,1,2,0), [{b}]}"));
  EXPECT_EQ(Convert(R"({m = #sdy.mesh<["a"=2, "b"=4]>})", R"(#sdy.sharding<@m, [{"a"}, {"b":(2)2, ?}]>)", {}),
            Classic("{mesh[a=2,b=4], [{a}, {b:(2)2, ?}]}"));
  EXPECT_EQ(Convert(R"({m = #sdy.mesh<["a"=2, "b"=4]>})", R"(#sdy.sharding<@m, [{"b"}, {}]>)", {"a"}),
            Classic("{mesh[a=2,b=4], [{b}, {}], manual={a}}"));
}

TEST(SdyText, ReplicatedMaximalAndManual) {
  const char* meshes = R"({mesh = #sdy.mesh<["x"=4]>, maximal_mesh_3 = #sdy.mesh<[], device_ids=[3]>, empty = #sdy.mesh<[]>})";
  EXPECT_EQ(Convert(meshes, R"(#sdy.sharding<@mesh, [{}, {}]>)"), Sharding::Replicate());
  EXPECT_EQ(Convert(meshes, R"(#sdy.sharding<@maximal_mesh_3, []>)"), Sharding::AssignDevice(3));
  EXPECT_EQ(Convert(meshes, R"(#sdy.sharding<@empty, [{}]>)"), Sharding::Replicate());
  EXPECT_EQ(Convert(meshes, R"(#sdy.sharding<@mesh, [{}]>)", {"x"}), Sharding::Manual());
  // Explicitly replicated axes are implicit in the tile form.
  EXPECT_EQ(Convert(meshes, R"(#sdy.sharding<@mesh, [{}], replicated={"x"}>)"), Sharding::Replicate());
  // Inline mesh.
  EXPECT_EQ(Convert("{}", R"(#sdy.sharding<mesh<["x"=2]>, [{"x"}]>)"), Classic("{devices=[2]<=[2]}"));
}

TEST(SdyText, OpenDimsPrioritiesAndUnreduced) {
  SdyMeshes m = Meshes(R"({mesh = #sdy.mesh<["x"=2, "y"=4]>})");
  auto s = ParseSdySharding(R"(#sdy.sharding<@mesh, [{"x", ?}p1, {?}, {}p0], unreduced={"y"}>)", m);
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->named.dims.size(), 3u);
  EXPECT_TRUE(s->named.dims[0].open);
  EXPECT_EQ(s->named.dims[0].priority, 1);
  EXPECT_TRUE(s->named.dims[1].open);
  EXPECT_EQ(s->named.dims[1].priority, -1);
  EXPECT_FALSE(s->named.dims[2].open);
  EXPECT_EQ(s->named.dims[2].priority, 0);
  ASSERT_EQ(s->named.unreduced.size(), 1u);
  EXPECT_FALSE(s->FullyOpen());
  auto open = ParseSdySharding(R"(#sdy.sharding<@mesh, [{?}, {?}]>)", m);
  ASSERT_TRUE(open.ok());
  EXPECT_TRUE(open->FullyOpen());
  // Printing writes what the parser reads.
  EXPECT_EQ(SdyShardingToString("mesh", s->mesh, s->named),
            R"(#sdy.sharding<@mesh, [{"x", ?}p1, {?}, {}p0], unreduced={"y"}>)");
}

TEST(SdyText, PerValueManualAxesAndIntegers) {
  SdyMeshes m = Meshes(R"({mesh = #sdy.mesh<["x"=8]>})");
  auto pv = ParseSdyShardingPerValue(R"(#sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>, <@mesh, [{}]>]>)", m);
  ASSERT_TRUE(pv.ok()) << pv.status().message();
  ASSERT_EQ(pv->size(), 2u);
  EXPECT_EQ((*pv)[1].named.dims.size(), 1u);
  auto one = ParseSdyShardingPerValue(R"(#sdy.sharding<@mesh, [{"x"}]>)", m);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->size(), 1u);
  auto axes = ParseSdyManualAxes(R"(#sdy<manual_axes{"x", "y"}>)");
  ASSERT_TRUE(axes.ok());
  EXPECT_EQ(*axes, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(*ParseSdyInteger("12 : i64"), 12);
  EXPECT_EQ(*ParseSdyInteger("2 : i32"), 2);
  EXPECT_FALSE(ParseSdyInteger("two").ok());
}

TEST(SdyText, ShardingRule) {
  auto r = ParseSdyShardingRule(
      "#sdy.op_sharding_rule<([i, j], [j, k])->([i, k]) {i=8, j=16, k=4} reduction={j}, custom>");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->operands.size(), 2u);
  EXPECT_EQ(r->operands[1], (SdyShardingRule::TensorFactors{{1}, {2}}));
  EXPECT_EQ(r->results[0], (SdyShardingRule::TensorFactors{{0}, {2}}));
  EXPECT_EQ(r->factor_sizes, (std::vector<int64_t>{8, 16, 4}));
  EXPECT_EQ(r->reduction, (std::vector<int64_t>{1}));
  EXPECT_TRUE(r->custom);
  auto compound = ParseSdyShardingRule("#sdy.op_sharding_rule<([ij, z_1])->([i, j, z_1]) {i=2, j=4, z_1=3}>");
  ASSERT_TRUE(compound.ok()) << compound.status().message();
  EXPECT_EQ(compound->operands[0], (SdyShardingRule::TensorFactors{{0, 1}, {18}}));
}

// Malformed text: an error at the offending byte.
TEST(SdyText, Errors) {
  SdyMeshes m = Meshes(R"({mesh = #sdy.mesh<["x"=2, "y"=4]>})");
  struct Case {
    std::string_view text;
    size_t offset;
    std::string_view message;
  };
  const Case cases[] = {
      {R"(#sdy.sharding<@mesh, [{"z"}]>)", 23, "no mesh axis \"z\""},
      {R"(#sdy.sharding<@other, [{}]>)", 14, "unknown mesh @other"},
      {R"(#sdy.sharding<@mesh, [{"x"}, {"x"}]>)", 30, "used twice"},
      {R"(#sdy.sharding<@mesh, [{"y":(2)4}]>)", 23, "not a proper part"},
      {R"(#sdy.sharding<@mesh, [{?, "x"}]>)", 26, "an axis after '?'"},
      {R"(#sdy.sharding<@mesh, [{"x"}])", 28, "'>' ending the sharding"},
      {R"(#sdy.sharding<@mesh, [{"x"}]> junk)", 30, "the end of the attribute"},
  };
  for (const Case& c : cases) {
    size_t at = 0;
    auto s = ParseSdySharding(c.text, m, &at);
    Status st = s.status();
    if (s.ok()) {
      auto t = NamedToTiled(s->mesh, s->named, {}, &at);
      st = t.status();
    }
    ASSERT_FALSE(st.ok()) << c.text;
    EXPECT_NE(std::string(st.message()).find(c.message), std::string::npos) << c.text << ": " << st.message();
    EXPECT_EQ(at, c.offset) << c.text << ": " << st.message();
  }
  size_t at = 0;
  EXPECT_FALSE(ParseSdyMeshes(R"({mesh = #sdy.mesh<["x"=2, "x"=4]>})", &at).ok());
  EXPECT_EQ(at, 26u);
  EXPECT_FALSE(ParseSdyMeshes(R"({mesh = #sdy.mesh<["x"=2], device_ids=[0, 1]>})", &at).ok());
  EXPECT_FALSE(ParseSdyMeshes(R"({mesh = #sdy.mesh<["x"=2], device_ids=[0, 0]>})", &at).ok());
  EXPECT_FALSE(ParseSdyShardingRule("#sdy.op_sharding_rule<([i])->([A])>", &at).ok());
}

// TiledToNamed inverts NamedToTiled on the mesh, and refuses what the mesh cannot express.
TEST(SdyText, TiledToNamedRoundTrip) {
  SdyMeshes m = Meshes(R"({mesh = #sdy.mesh<["x"=8, "y"=4]>, t = #sdy.mesh<["a"=2, "b"=2], device_ids=[3, 1, 2, 0]>})");
  const NamedMesh& mesh = *m.Find("mesh");
  for (const char* text : {R"(#sdy.sharding<@mesh, [{"y"}, {"x":(2)2}]>)", R"(#sdy.sharding<@mesh, [{"x", "y"}, {}]>)",
                           R"(#sdy.sharding<@mesh, [{"y", "x"}, {}]>)", R"(#sdy.sharding<@mesh, [{}, {"x":(1)4}]>)",
                           R"(#sdy.sharding<@mesh, [{}, {}]>)", R"(#sdy.sharding<@mesh, [{"x":(4)2, "y"}, {"x":(1)4}]>)"}) {
    auto s = ParseSdySharding(text, m);
    ASSERT_TRUE(s.ok()) << text;
    Sharding tiled = *NamedToTiled(s->mesh, s->named);
    auto back = TiledToNamed(tiled, 2, mesh);
    ASSERT_TRUE(back.has_value()) << text << " = " << tiled;
    EXPECT_EQ(SdyShardingToString("mesh", mesh, *back), text);
  }
  auto t = ParseSdySharding(R"(#sdy.sharding<@t, [{"b"}]>)", m);
  ASSERT_TRUE(t.ok());
  auto back = TiledToNamed(*NamedToTiled(t->mesh, t->named), 1, t->mesh);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(SdyShardingToString("t", t->mesh, *back), R"(#sdy.sharding<@t, [{"b"}]>)");
  // Another device count or an order the mesh cannot produce: not expressible.
  EXPECT_FALSE(TiledToNamed(Classic("{devices=[2,16]<=[32]}"), 2, *m.Find("t")).has_value());
  EXPECT_FALSE(TiledToNamed(Classic("{devices=[4]0,2,1,3}"), 1, *m.Find("t")).has_value());
  // The axes of t taken minor-first.
  auto swapped = TiledToNamed(Classic("{devices=[4]3,2,1,0}"), 1, *m.Find("t"));
  ASSERT_TRUE(swapped.has_value());
  EXPECT_EQ(SdyShardingToString("t", *m.Find("t"), *swapped), R"(#sdy.sharding<@t, [{"b", "a"}]>)");
  EXPECT_FALSE(TiledToNamed(Classic("{maximal device=1}"), 1, mesh).has_value());
  EXPECT_FALSE(TiledToNamed(Classic("{manual}"), 1, mesh).has_value());
}

}  // namespace
}  // namespace spmdc

// The sharding text form (GSPMD.md §1.3): every accepted form parses, prints canonically, and
// Parse(ToString(s)) == s.
#include "sharding/sharding_text.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace spmdc {
namespace {

Sharding P(std::string_view text) {
  size_t offset = 0;
  auto s = ParseSharding(text, &offset);
  EXPECT_TRUE(s.ok()) << text << ": " << s.status().message() << " at " << offset;
  return s.ok() ? *s : Sharding();
}

// Parses `in`, expects canonical text `out`, and checks the round trip.
void ExpectCanonical(std::string_view in, std::string_view out) {
  Sharding s = P(in);
  EXPECT_EQ(s.ToString(), out) << "input: " << in;
  Sharding again = P(s.ToString());
  EXPECT_EQ(again, s) << in;
  EXPECT_EQ(again.ToString(), s.ToString());
}

TEST(ShardingText, SimpleKinds) {
  ExpectCanonical("{replicated}", "{replicated}");
  ExpectCanonical("{ manual }", "{manual}");
  ExpectCanonical("{unknown}", "{unknown}");
  ExpectCanonical("{maximal device=3}", "{maximal device=3}");
  ExpectCanonical("{device=3 maximal}", "{maximal device=3}");
}

TEST(ShardingText, TiledForms) {
  ExpectCanonical("{devices=[2,1]0,1}", "{devices=[2,1]<=[2]}");
  ExpectCanonical("{devices=[2,1]<=[2]}", "{devices=[2,1]<=[2]}");
  ExpectCanonical("{devices=[2,1,2]2,3,5,7}", "{devices=[2,1,2]2,3,5,7}");
  ExpectCanonical("{devices=[2,2]0,2,1,3}", "{devices=[2,2]<=[2,2]T(1,0)}");
  ExpectCanonical("{devices=[4,4,1]<=[4,2,2]T(1,0,2)}", "{devices=[4,4,1]<=[4,2,2]T(1,0,2)}");
  ExpectCanonical("{devices=[3,4,5]<=[3,4,5]T(0,1,2)}", "{devices=[3,4,5]<=[60]}");
  ExpectCanonical("{devices=[60]<=[3,4,5]T(1,2,0)}", "{devices=[60]<=[3,20]T(1,0)}");
  ExpectCanonical("{devices=[2,2]<=[1,2,1,2]T(3,2,1,0)}", "{devices=[2,2]<=[2,2]T(1,0)}");
}

TEST(ShardingText, IotaExamplesFromReference) {
  Sharding s = P("{devices=[4,4,1]<=[4,2,2]T(1,0,2)}");
  std::vector<int64_t> want = {0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15};
  EXPECT_EQ(s.tile_assignment().devices(), want);
  EXPECT_EQ(P("{devices=[2,2]<=[2,2]T(1,0)}").tile_assignment().devices(),
            (std::vector<int64_t>{0, 2, 1, 3}));
  EXPECT_EQ(P("{devices=[4,4,1]0,1,4,5,8,9,12,13,2,3,6,7,10,11,14,15}"), s);
}

TEST(ShardingText, PartialReplicationAndSubgroups) {
  ExpectCanonical("{devices=[2,1,4]<=[8] last_tile_dim_replicate}",
                  "{devices=[2,1,4]<=[8] last_tile_dim_replicate}");
  // Replication groups are sorted.
  ExpectCanonical("{devices=[2,2]1,0,3,2 last_tile_dim_replicate}",
                  "{devices=[2,2]<=[4] last_tile_dim_replicate}");
  // Last dim == all devices: replicated; last dim 1: plain tile.
  ExpectCanonical("{devices=[1,4]<=[4] last_tile_dim_replicate}", "{replicated}");
  ExpectCanonical("{devices=[4,1]<=[4] last_tile_dim_replicate}", "{devices=[4]<=[4]}");
  ExpectCanonical("{devices=[2,1,2,2]<=[8] last_tile_dims={manual, replicated}}",
                  "{devices=[2,1,2,2]<=[8] last_tile_dims={manual, replicated}}");
  // REPLICATED alone becomes last_tile_dim_replicate.
  ExpectCanonical("{devices=[2,2]<=[4] last_tile_dims={replicated}}",
                  "{devices=[2,2]<=[4] last_tile_dim_replicate}");
  // All subgroup, one type: manual / replicated.
  ExpectCanonical("{devices=[1,1,4]<=[4] last_tile_dims={manual}}", "{manual}");
  ExpectCanonical("{devices=[1,2,2]<=[4] last_tile_dims={replicated, replicated}}", "{replicated}");
  // Same types merged, size-1 dims dropped, manual before replicated.
  ExpectCanonical("{devices=[2,2,1,2]<=[8] last_tile_dims={replicated, manual, manual}}",
                  "{devices=[2,2,2]<=[2,2,2]T(0,2,1) last_tile_dims={manual, replicated}}");
  ExpectCanonical("{devices=[2,2,2]<=[8] last_tile_dims={manual, manual}}",
                  "{devices=[2,4]<=[8] last_tile_dims={manual}}");
  // XLA orders subgroup types by OpSharding enum value (MAXIMAL=1 before MANUAL=4), REPLICATED
  // last; its printer's "maximul" spelling parses too.
  ExpectCanonical("{devices=[2,2,2]<=[8] last_tile_dims={manual, maximal}}",
                  "{devices=[2,2,2]<=[2,2,2]T(0,2,1) last_tile_dims={maximal, manual}}");
  ExpectCanonical("{devices=[2,2,2]<=[8] last_tile_dims={maximul, manual}}",
                  "{devices=[2,2,2]<=[8] last_tile_dims={maximal, manual}}");
}

TEST(ShardingText, Tuples) {
  ExpectCanonical("{}", "{}");
  ExpectCanonical("{{replicated}, {devices=[2,1]0,1}, {maximal device=1}}",
                  "{{replicated}, {devices=[2,1]<=[2]}, {maximal device=1}}");
  ExpectCanonical("{{replicated},{replicated},{replicated},{replicated},{replicated},{manual},{unknown}}",
                  "{{replicated}, {replicated}, {replicated}, {replicated}, {replicated}, "
                  "/*index=5*/{manual}, {unknown}}");
  EXPECT_TRUE(P("{}").IsTuple());
  EXPECT_EQ(P("{}").tuple_elements().size(), 0u);
}

TEST(ShardingText, ShardGroupsAndMetadata) {
  ExpectCanonical("{unknown shard_as 0}", "{unknown shard_as 0}");
  ExpectCanonical("{devices=[4,2]<=[8] shard_like 1}", "{devices=[4,2]<=[8] shard_like 1}");
  ExpectCanonical(R"({replicated metadata={op_name="a" op_type="add"}})",
                  R"({replicated metadata={op_type="add" op_name="a"}})");
  ExpectCanonical(R"({devices=[2]0,1 metadata={{op_name="a"}, {op_name="b", source_line=3}}})",
                  R"({devices=[2]<=[2] metadata={{op_name="a"}, {op_name="b" source_line=3}}})");
  ExpectCanonical(R"({metadata={op_name="x\"y"} maximal device=0 shard_as 2})",
                  R"({maximal device=0 shard_as 2 metadata={op_name="x\"y"}})");
  // Metadata is ignored by equality; shard groups are not.
  EXPECT_EQ(P(R"({replicated metadata={op_name="a"}})"), P("{replicated}"));
  EXPECT_FALSE(P("{replicated shard_as 1}") == P("{replicated}"));
  EXPECT_EQ(P(R"({replicated metadata={op_name="a"}})").ToString(false), "{replicated}");
}

TEST(ShardingText, Errors) {
  struct Case {
    std::string_view text;
    size_t offset;
  };
  for (const Case& c : std::vector<Case>{
           {"", 0},
           {"{", 1},
           {"{replicated", 11},
           {"{bogus}", 1},
           {"{devices=[2,2]0,1,2}", 14},
           {"{devices=[2,2]<=[3]}", 16},
           {"{devices=[2,2]<=[2,2]T(0,0)}", 22},
           {"{devices=[0]<=[1]}", 9},
           {"{replicated manual}", 12},
           {"{maximal}", 1},
           {"{replicated} x", 13},
           {"{{replicated}, {{manual}}}", 16},
           {"{devices=[2]0,1 last_tile_dims={bogus}}", 32},
           {"{devices=[99999999,99999999]<=[1]}", 9},
       }) {
    size_t offset = 12345;
    auto s = ParseSharding(c.text, &offset);
    EXPECT_FALSE(s.ok()) << c.text;
    EXPECT_EQ(offset, c.offset) << c.text << ": " << s.status().message();
  }
}

// Random mutations of valid texts never crash; whatever parses prints canonically and round trips.
TEST(ShardingText, MutationFuzz) {
  const std::vector<std::string> seeds = {
      "{replicated}", "{maximal device=3}", "{devices=[2,1,2]2,3,5,7}",
      "{devices=[4,4,1]<=[4,2,2]T(1,0,2)}", "{devices=[2,1,4]<=[8] last_tile_dim_replicate}",
      "{devices=[2,1,2,2]<=[8] last_tile_dims={manual, replicated}}",
      "{{replicated}, {devices=[2,1]0,1}, {maximal device=1}}", "{unknown shard_as 0}",
      R"({devices=[4,2]<=[8] shard_like 1 metadata={op_name="a" source_line=3}})", "{}",
      "{unreduced}", "{devices=[2,2,2]<=[8] last_tile_dims={unreduced, manual}}",
      "{mesh[a=2,b=4], device_ids=([4,2]T(1,0)), [{a}, {b:(2)2, ?}], manual={b:(1)2}}",
      "{mesh[a=2,b=2], device_ids=(3,1,2,0), [{b}], unreduced={a}}",
      R"({maximal_mesh[device_id=1], metadata={op_name="m"}})"};
  const std::string alphabet = "{}[](),=<T 0123456789-\"abcdemnprt_:?";
  std::mt19937 rng(42);
  int parsed = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::string text = seeds[rng() % seeds.size()];
    const int edits = 1 + rng() % 3;
    for (int e = 0; e < edits && !text.empty(); ++e) {
      const size_t pos = rng() % text.size();
      switch (rng() % 3) {
        case 0: text[pos] = alphabet[rng() % alphabet.size()]; break;
        case 1: text.erase(pos, 1); break;
        default: text.insert(text.begin() + pos, alphabet[rng() % alphabet.size()]); break;
      }
    }
    size_t offset = 0;
    auto s = ParseSharding(text, &offset);
    if (!s.ok()) {
      EXPECT_LE(offset, text.size()) << text;
      continue;
    }
    ++parsed;
    auto again = ParseSharding(s->ToString());
    ASSERT_TRUE(again.ok()) << text << " printed as " << s->ToString();
    EXPECT_EQ(*again, *s) << text;
    EXPECT_EQ(again->ToString(), s->ToString());
  }
  EXPECT_GT(parsed, 100);
}

// Each case below pins a behaviour of XLA's HLO parser (hlo_parser.cc ParseSharding /
// ParseSingleSharding / ParseTileAssignment / ParseSingleOrListMetadata).

// Expects `text` to fail at byte `offset` with a message containing `part`.
void ExpectError(std::string_view text, size_t offset, std::string_view part = "") {
  size_t at = 12345;
  auto s = ParseSharding(text, &at);
  ASSERT_FALSE(s.ok()) << text << " parsed as " << s->ToString();
  EXPECT_EQ(at, offset) << text << ": " << s.status().message();
  EXPECT_NE(std::string(s.status().message()).find(part), std::string::npos)
      << text << ": " << s.status().message();
}

TEST(ShardingTextXla, IotaTransposeSpelling) {
  // Several reshape dims always carry T(...); one reshape dim never does.
  ExpectError("{devices=[2,2]<=[2,2]}", 21, "'T('");
  ExpectError("{devices=[3,4,5]<=[3,4,5] last_tile_dim_replicate}", 26, "'T('");
  ExpectError("{devices=[4]<=[4]T(0)}", 17, "unknown sharding item 'T'");
  ExpectCanonical("{devices=[2,2]<=[2,2]T(0,1)}", "{devices=[2,2]<=[4]}");
  ExpectCanonical("{devices=[2,2]<=[4]}", "{devices=[2,2]<=[4]}");
}

TEST(ShardingTextXla, ExplicitSingleDeviceListIsRejected) {
  ExpectError("{devices=[1]0}", 12, "more than one device");
  ExpectError("{devices=[1,1]3 last_tile_dim_replicate}", 14, "more than one device");
  // The iota spelling of one device parses (validation rejects it later, as in XLA).
  EXPECT_EQ(P("{devices=[1,1]<=[1]}").ToString(), "{devices=[1,1]<=[1]}");
  EXPECT_EQ(P("{devices=[1]<=[1] last_tile_dim_replicate}"), Sharding::Replicate());
}

TEST(ShardingTextXla, LastTileDimsLists) {
  // An empty list means no subgroups.
  ExpectCanonical("{devices=[2,2]<=[4] last_tile_dims={}}", "{devices=[2,2]<=[4]}");
  ExpectCanonical("{devices=[2,2]<=[4] last_tile_dim_replicate last_tile_dims={}}",
                  "{devices=[2,2]<=[4] last_tile_dim_replicate}");
  // A repeated item appends its types.
  ExpectCanonical("{devices=[2,2,2]<=[8] last_tile_dims={manual} last_tile_dims={replicated}}",
                  "{devices=[2,2,2]<=[8] last_tile_dims={manual, replicated}}");
  // Types in any order, with or without spaces.
  EXPECT_EQ(P("{devices=[2,2,2]<=[8] last_tile_dims={replicated,manual}}"),
            P("{devices=[2,2,2]<=[2,2,2]T(0,2,1) last_tile_dims={manual, replicated}}"));
  ExpectError("{devices=[2,2]<=[4] last_tile_dims={manual,}}", 43, "subgroup type");
}

TEST(ShardingTextXla, AttributeNamesIncludeTheirEqualsSign) {
  // XLA lexes `name=` (no space before '=') as one attribute-name token.
  ExpectError("{devices =[2]0,1}", 1, "unknown sharding item 'devices'");
  ExpectError("{maximal device =1}", 9, "unknown sharding item 'device'");
  ExpectError(R"({replicated metadata ={op_name="a"}})", 12, "unknown sharding item 'metadata'");
  ExpectError(R"({replicated metadata={op_name ="a"}})", 22, "metadata field");
  ExpectError("{devices=[2,2]<=[4] last_tile_dims ={manual}}", 20);
  // Space after '=' is fine.
  ExpectCanonical("{devices= [2]0,1}", "{devices=[2]<=[2]}");
  ExpectCanonical("{maximal device= 1}", "{maximal device=1}");
}

TEST(ShardingTextXla, CommentsBetweenTokens) {
  ExpectCanonical("{devices=[2,2]<=[4] // a line comment\n last_tile_dim_replicate}",
                  "{devices=[2,2]<=[4] last_tile_dim_replicate}");
  ExpectCanonical("{/*x*/replicated/*y*/}", "{replicated}");
}

TEST(ShardingTextXla, RepeatedItems) {
  // Repeating an item with the same value is accepted, as XLA does.
  ExpectCanonical("{replicated replicated}", "{replicated}");
  ExpectCanonical("{maximal device=1 device=1 maximal}", "{maximal device=1}");
  ExpectCanonical("{unknown shard_as 1 shard_as 1}", "{unknown shard_as 1}");
  ExpectCanonical("{devices=[2,2]<=[4] last_tile_dim_replicate last_tile_dim_replicate}",
                  "{devices=[2,2]<=[4] last_tile_dim_replicate}");
  // Contradictions stay errors (deliberate: XLA silently picks one by precedence).
  ExpectError("{maximal device=1 device=2}", 18, "twice");
  ExpectError("{replicated shard_as 1 shard_like 1}", 23, "one shard group");
  ExpectError("{devices=[2]0,1 devices=[2]0,1}", 16, "conflicts");
  ExpectError("{maximal devices=[1]5}", 9, "conflicts");                 // XLA: device 5
  ExpectError("{replicated last_tile_dim_replicate}", 1, "need devices=");  // XLA: replicated
}

TEST(ShardingTextXla, Metadata) {
  // Repeated metadata= items accumulate; an empty entry is kept (XLA prints it as {}).
  ExpectCanonical(R"({replicated metadata={op_name="a"} metadata={op_name="b"}})",
                  R"({replicated metadata={{op_name="a"}, {op_name="b"}}})");
  ExpectCanonical("{replicated metadata={}}", "{replicated metadata={}}");
  ExpectCanonical("{manual metadata={{}, {}}}", "{manual metadata={{}, {}}}");
  // Fields at their default value are not printed; fields print in XLA's order.
  ExpectCanonical(R"({replicated metadata={op_name="" source_line=0 op_type="t" profile_type={}}})",
                  R"({replicated metadata={op_type="t"}})");
  ExpectCanonical(
      R"({replicated metadata={stack_frame_id=2, scheduling_name="s" deduplicated_name="d" )"
      R"(profile_type={1,2} source_end_column=9 source_column=8 source_end_line=7 source_line=6 )"
      R"(source_file="f" op_name="n", op_type="t"}})",
      R"({replicated metadata={op_type="t" op_name="n" source_file="f" source_line=6 )"
      R"(source_end_line=7 source_column=8 source_end_column=9 profile_type={1,2} )"
      R"(deduplicated_name="d" scheduling_name="s" stack_frame_id=2}})");
  // On every kind and on tuple elements; equality ignores it.
  ExpectCanonical(R"({{replicated metadata={op_name="a"}}, {maximal device=0 metadata={op_name="b"}}})",
                  R"({{replicated metadata={op_name="a"}}, {maximal device=0 metadata={op_name="b"}}})");
  ExpectCanonical(R"({devices=[2,1,2]<=[4] last_tile_dim_replicate shard_like 3 metadata={op_name="c"}})",
                  R"({devices=[2,1,2]<=[4] last_tile_dim_replicate shard_like 3 metadata={op_name="c"}})");
  EXPECT_EQ(P(R"({maximal device=0 metadata={op_name="b"}})"), P("{maximal device=0}"));
  // XLA's metadata grammar: known fields only, each once, typed values, no trailing comma.
  ExpectError(R"({replicated metadata={bogus="x"}})", 22, "unknown metadata field 'bogus'");
  ExpectError(R"({replicated metadata={preserve_layout=true}})", 22, "unknown metadata field");
  ExpectError(R"({replicated metadata={op_name="a" op_name="b"}})", 34, "twice");
  ExpectError(R"({replicated metadata={source_line="x"}})", 34, "an integer");
  ExpectError(R"({replicated metadata={op_name=3}})", 30, "a string");
  ExpectError(R"({replicated metadata={source_line=4294967296}})", 34, "int32");
  ExpectError(R"({replicated metadata={op_name="a",}})", 34, "metadata field");
  ExpectError(R"({replicated metadata={profile_type={7}}})", 36, "profile type");
  ExpectError(R"({replicated metadata=op_name})", 21, "'{' after metadata=");
  // Strings follow C escape rules, as XLA unescapes them.
  ExpectCanonical(R"({replicated metadata={op_name="a\"b\\c\n\t\x41\101\u00e9"}})",
                  R"({replicated metadata={op_name="a\"b\\c\n\t\x41\101\u00e9"}})");
  ExpectError(R"({replicated metadata={op_name="ab\q"}})", 33, "escape");
  ExpectError(R"({replicated metadata={op_name="\x"}})", 31, "escape");
  ExpectError(R"({replicated metadata={op_name="\400"}})", 31, "escape");
  ExpectError(R"({replicated metadata={op_name="\u12"}})", 31, "escape");
  ExpectError(R"({replicated metadata={op_name="\ud800"}})", 31, "escape");
}

TEST(ShardingTextXla, Unreduced) {
  // XLA's newest parser reads `unreduced` as a kind and as a subgroup type.
  ExpectCanonical("{unreduced}", "{unreduced}");
  ExpectCanonical(R"({metadata={op_name="u"} shard_like 2 unreduced})",
                  R"({unreduced shard_like 2 metadata={op_name="u"}})");
  ExpectCanonical("{devices=[2,2]<=[4] last_tile_dims={unreduced}}",
                  "{devices=[2,2]<=[4] last_tile_dims={unreduced}}");
  // Subgroup normalisation: only-unreduced subgroups become {unreduced}; types are ordered
  // MAXIMAL, MANUAL, UNREDUCED, REPLICATED.
  ExpectCanonical("{devices=[1,4]<=[4] last_tile_dims={unreduced}}", "{unreduced}");
  ExpectCanonical("{devices=[1,2,2]<=[4] last_tile_dims={unreduced, unreduced}}", "{unreduced}");
  EXPECT_EQ(P("{devices=[2,2,2,2]<=[16] last_tile_dims={replicated, unreduced, manual}}"),
            P("{devices=[2,2,2,2]<=[2,2,2,2]T(0,3,2,1) last_tile_dims={manual, unreduced, replicated}}"));
  EXPECT_EQ(P("{devices=[2,2,2]<=[8] last_tile_dims={unreduced, maximal}}").subgroup_types(),
            (std::vector<SubgroupType>{SubgroupType::kMaximal, SubgroupType::kUnreduced}));
  EXPECT_NE(P("{unreduced}"), P("{manual}"));
  EXPECT_NE(P("{unreduced}"), P("{replicated}"));
  ExpectError("{unreduced devices=[2]0,1}", 11, "conflicts");
}

// XLA's named (mesh, "V3") shardings read as the equivalent tile-based sharding (XLA's
// V3ToV2Sharding), which spmdc compares and prints.
TEST(ShardingTextXla, NamedShardings) {
  ExpectCanonical("{mesh[a=2,b=2], [{a}, {b}]}", "{devices=[2,2]<=[4]}");
  ExpectCanonical("{mesh[a=2,b=2], [{b}, {a}]}", "{devices=[2,2]<=[2,2]T(1,0)}");
  ExpectCanonical("{mesh[a=2,b=2], [{a}, {}]}", "{devices=[2,1,2]<=[4] last_tile_dim_replicate}");
  ExpectCanonical("{mesh[a=2,b=2], [{b}, {}]}",
                  "{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}");
  ExpectCanonical("{mesh[a=2,b=4], [{a, b}]}", "{devices=[8]<=[8]}");
  ExpectCanonical("{mesh[a=2,b=2] [{a}, {b}]}", "{devices=[2,2]<=[4]}");  // the comma is optional
  // Sub-axes, with or without the ':' (pre-size in parentheses, then size).
  ExpectCanonical("{mesh[a=4], [{a:(1)2}, {a:(2)2}]}", "{devices=[2,2]<=[4]}");
  ExpectCanonical("{mesh[a=4], [{a(2)2}, {a(1)2}]}", "{devices=[2,2]<=[2,2]T(1,0)}");
  ExpectCanonical("{mesh[a=8], [{a:(2)2}]}", "{devices=[2,4]<=[2,2,2]T(1,0,2) last_tile_dim_replicate}");
  // Manual / unreduced axes become subgroups; open dims ('?') and replicated axes do not change
  // the layout.
  ExpectCanonical("{mesh[a=2,b=2], [{}, {}], manual={a}}",
                  "{devices=[1,1,2,2]<=[4] last_tile_dims={manual, replicated}}");
  ExpectCanonical("{mesh[a=2,b=2], [{a}], unreduced={b}}",
                  "{devices=[2,2]<=[4] last_tile_dims={unreduced}}");
  ExpectCanonical("{mesh[a=2,b=2], [{?}, {b, ?}], replicated={a}}",
                  "{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}");
  ExpectCanonical("{mesh[a=2,b=2], [{}, {}]}", "{replicated}");
  ExpectCanonical("{mesh[a=2,b=2], replicated}", "{replicated}");
  // A size-1 axis adds a size-1 tile dim and no devices.
  ExpectCanonical("{mesh[a=1,b=2], [{a}, {b}]}", "{devices=[1,2]<=[2]}");
  ExpectCanonical("{mesh[a=2,b=1], [{b}, {}], replicated={b}}", "{replicated}");
  ExpectCanonical("{mesh[a=2], manual}", "{manual}");
  ExpectCanonical(R"({mesh[a=2], unreduced, metadata={op_name="u"}})", R"({unreduced metadata={op_name="u"}})");
  ExpectCanonical("{maximal_mesh[device_id=3]}", "{maximal device=3}");
  ExpectCanonical(R"({maximal_mesh[device_id=3], metadata={op_name="m"}})",
                  R"({maximal device=3 metadata={op_name="m"}})");
  ExpectCanonical(R"({mesh[a=2], [{a}], metadata={{op_name="x"}, {op_name="y"}}})",
                  R"({devices=[2]<=[2] metadata={{op_name="x"}, {op_name="y"}}})");
  // Device orders: explicit or iota.
  ExpectCanonical("{mesh[a=2,b=2], device_ids=(0,2,1,3), [{a}, {b}]}", "{devices=[2,2]<=[2,2]T(1,0)}");
  ExpectCanonical("{mesh[a=2,b=2], device_ids=([2,2]T(1,0)), [{a}, {b}]}",
                  "{devices=[2,2]<=[2,2]T(1,0)}");
  ExpectCanonical("{mesh[a=2,b=2], device_ids=(3,2,1,0), [{a}, {}]}",
                  "{devices=[2,1,2]2,3,0,1 last_tile_dim_replicate}");
  // In tuples, and equal to the tile-based spelling.
  ExpectCanonical("{{mesh[a=2], [{a}]}, {replicated}}", "{{devices=[2]<=[2]}, {replicated}}");
  EXPECT_EQ(P("{mesh[x=2,y=4], [{y}, {x}]}"), P("{devices=[4,2]<=[2,4]T(1,0)}"));
  // What XLA's Mesh / AxisRef reject (several by CHECK-failing) is a located error here.
  ExpectError("{mesh[], [{}]}", 1, "at least one axis");
  ExpectError("{mesh[a=2], [{c}]}", 14, "no mesh axis 'c'");
  ExpectError("{mesh[a=2], [{a}, {a}]}", 19, "used twice");
  ExpectError("{mesh[a=4], [{a:(1)4}]}", 14, "proper part");
  ExpectError("{mesh[a=4], [{a:(1)1}]}", 14, "proper part");
  ExpectError("{mesh[a=2], [{?, a}]}", 17, "after '?'");
  ExpectError("{mesh[a=2,a=2], [{a}]}", 10, "twice");
  ExpectError("{mesh[a=2], device_ids=(0,1), [{a}]}", 24, "identity");
  ExpectError("{mesh[a=2], device_ids=(0,2), [{a}]}", 24, "permutation");
  ExpectError("{mesh[a=2], device_ids=(1), [{a}]}", 24, "device ids");
  ExpectError("{mesh[a=2], [{a}], bogus={a}}", 19, "replicated=");
  ExpectError("{mesh[a=8], [{a:(1)4}, {a:(2)4}]}", 14, "overlaps");
  ExpectError("{mesh[a=12], [{a:(1)2}, {a:(3)2}]}", 1, "overlap");
  ExpectError("{mesh[a=2], [{a}] shard_as 1}", 18, "','");
}

TEST(ShardingText, ExplicitArraysAreShared) {
  std::string ids;
  for (int i = 63; i >= 0; --i) ids += (ids.empty() ? "" : ",") + std::to_string(i);
  Sharding a = P("{devices=[8,8]" + ids + R"( metadata={op_name="a"}})");
  Sharding b = P("{devices=[8,8]" + ids + R"( metadata={op_name="b"}})");
  EXPECT_FALSE(a.tile_assignment().is_iota());
  EXPECT_EQ(&a.tile_assignment().devices(), &b.tile_assignment().devices());
}

}  // namespace
}  // namespace spmdc

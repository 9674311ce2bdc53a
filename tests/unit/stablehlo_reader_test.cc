// StableHLO text in (src/stablehlo): each corpus model's shardy.mlir read into a Module agrees
// with the HLO text JAX lowered for the same program (entry parameter/result shapes, and entry
// shardings after propagation); malformed text gives located errors, unsupported ops exit 3.
#include "stablehlo/stablehlo.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fmt/format.h"
#include "hlo/printer.h"
#include "propagation/propagation.h"

namespace spmdc {
namespace {

const std::filesystem::path kCorpus = std::filesystem::path(SPMDC_SOURCE_DIR) / "tests" / "realclient" / "corpus";

std::string Read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The entry's interface after propagation: one line per parameter, then the root.
std::string EntryInterface(Module& m) {
  auto changed = PropagateShardings(m);
  EXPECT_TRUE(changed.ok()) << changed.status().message();
  const Computation* e = m.entry();
  std::string s;
  for (int64_t i = 0; i < e->num_parameters(); ++i) {
    const Instruction* p = e->parameter(i);
    s += "param " + std::to_string(i) + ": " + p->shape().ToString(false) + " " +
         (p->has_sharding() ? p->sharding()->ToString(false) : "none") + "\n";
  }
  const Instruction* r = e->root();
  s += "root: " + r->shape().ToString(false) + " " + (r->has_sharding() ? r->sharding()->ToString(false) : "none") + "\n";
  return s;
}

// Models whose StableHLO the reader supports fully (the others name their first unsupported op).
class CorpusTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CorpusTest, StableHloAgreesWithHloText) {
  const auto dir = kCorpus / GetParam();
  ASSERT_TRUE(std::filesystem::exists(dir / "shardy.mlir")) << dir;
  std::string mlir = Read(dir / "shardy.mlir"), hlo = Read(dir / "shardy.hlo");
  auto a = ParseModuleText(mlir, (dir / "shardy.mlir").string());
  ASSERT_TRUE(a.ok()) << a.status().message();
  auto b = ParseModuleText(hlo, (dir / "shardy.hlo").string());
  ASSERT_TRUE(b.ok()) << b.status().message();
  std::string from_mlir = EntryInterface(**a);
  EXPECT_EQ(from_mlir, EntryInterface(**b));
  // Every corpus model shards some parameter: the comparison is not between two empty sets.
  EXPECT_NE(from_mlir.find("devices="), std::string::npos) << from_mlir;
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusTest,
                         ::testing::Values("fno_fft", "gpt2_adamw", "mlp_bf16_explicit", "resnet_sgd",
                                           "ring_allgather_matmul", "ring_attention", "unet_grad", "vit_grad",
                                           "moe_adam"));

// chlo.top_k (jax.lax.top_k; moe_adam's router) in both forms: HLO's TopK, values and indices.
TEST(StableHloReader, ChloTopK) {
  for (const char* op : {"chlo.top_k(%arg0, k = 2) : tensor<4x8xf32> -> (tensor<4x2xf32>, tensor<4x2xi32>)",
                         "\"chlo.top_k\"(%arg0) {k = 2 : i64} : (tensor<4x8xf32>) -> (tensor<4x2xf32>, tensor<4x2xi32>)"}) {
    auto m = ParseStableHlo(fmt::format(R"(module @m {{
  func.func public @main(%arg0: tensor<4x8xf32>) -> (tensor<4x2xf32>, tensor<4x2xi32>) {{
    %values, %indices = {}
    return %values, %indices : tensor<4x2xf32>, tensor<4x2xi32>
  }}
}})", op), "t.mlir");
    ASSERT_TRUE(m.ok()) << op << ": " << m.status().message();
    const std::string text = PrintModule(**m);
    EXPECT_NE(text.find("(f32[4,2], s32[4,2]) topk("), std::string::npos) << text;
    EXPECT_NE(text.find("k=2, largest=true"), std::string::npos) << text;
  }
  auto bad = ParseStableHlo(R"(module @m {
  func.func public @main(%arg0: tensor<4x8xf32>) -> tensor<4x2xf32> {
    %values = chlo.top_k(%arg0, k = 2) : tensor<4x8xf32> -> tensor<4x2xf32>
    return %values : tensor<4x2xf32>
  }
})", "t.mlir");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message()).find("t.mlir:3:"), std::string::npos) << bad.status().message();
}

StatusOr<std::unique_ptr<Module>> Parse(std::string_view text) { return ParseStableHlo(text, "t.mlir"); }

TEST(StableHloReader, ElementwiseGenericAndPretty) {
  auto m = Parse(R"(module @m {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf32>) -> tensor<2x3xf32> {
    %0 = stablehlo.add %arg0, %arg1 : tensor<2x3xf32>
    %1 = "stablehlo.multiply"(%0, %arg1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    return %1 : tensor<2x3xf32>
  }
})");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ((*m)->entry()->num_parameters(), 2);
  EXPECT_EQ((*m)->entry()->root()->shape().ToString(false), "f32[2,3]");
}

TEST(StableHloReader, GspmdShardingsAndAliasing) {
  const char* text = R"(module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x4xf32> {mhlo.sharding = "{devices=[8,1]<=[8]}", tf.aliasing_output = 0 : i32}, %arg1: tensor<4xf32> {mhlo.sharding = "{replicated}"}) -> (tensor<16x4xf32> {jax.result_info = "result[0]", mhlo.sharding = "{devices=[8,1]<=[8]}"}, tensor<f32> {jax.result_info = "result[1]", mhlo.sharding = "{replicated}"}) {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<4xf32>) -> tensor<16x4xf32>
    %1 = stablehlo.add %arg0, %0 : tensor<16x4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.reduce(%1 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x4xf32>, tensor<f32>) -> tensor<f32>
    return %1, %2 : tensor<16x4xf32>, tensor<f32>
  }
})";
  auto hlo = TranslateStableHloToHloText(text, "t.mlir");
  ASSERT_TRUE(hlo.ok()) << hlo.status().message();
  EXPECT_NE(hlo->find("input_output_alias={ {0}: (0, {}, may-alias) }"), std::string::npos) << *hlo;
  auto m = Parse(text);
  ASSERT_TRUE(m.ok()) << m.status().message();
  const Computation* e = (*m)->entry();
  ASSERT_TRUE(e->parameter(0)->has_sharding());
  EXPECT_EQ(e->parameter(0)->sharding()->ToString(false), "{devices=[8,1]<=[8]}");
  ASSERT_TRUE(e->root()->has_sharding());
  EXPECT_EQ(e->root()->sharding()->ToString(false), "{{devices=[8,1]<=[8]}, {replicated}}");
}

TEST(StableHloReader, OpShardingAttributesAreKept) {
  auto m = Parse(R"(module @m attributes {mhlo.num_partitions = 2 : i32} {
  func.func public @main(%arg0: tensor<4x2xf32>) -> tensor<4x2xf32> {
    %0 = stablehlo.negate %arg0 {mhlo.sharding = "{devices=[2,1]<=[2]}"} : tensor<4x2xf32>
    return %0 : tensor<4x2xf32>
  }
})");
  ASSERT_TRUE(m.ok()) << m.status().message();
  bool found = false;
  for (const Instruction* i : (*m)->entry()->instructions())
    if (i->opcode() == Opcode::kNegate) {
      ASSERT_TRUE(i->has_sharding());
      EXPECT_EQ(i->sharding()->ToString(false), "{devices=[2,1]<=[2]}");
      found = true;
    }
  EXPECT_TRUE(found);
}

TEST(StableHloReader, LocationsBecomeMetadata) {
  auto hlo = TranslateStableHloToHloText(R"(module @m {
  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.tanh %arg0 : tensor<4xf32> loc(#loc3)
    return %0 : tensor<4xf32>
  }
}
#loc3 = loc("jit(f)/tanh"("model.py":12:7))
)", "t.mlir");
  ASSERT_TRUE(hlo.ok()) << hlo.status().message();
  EXPECT_NE(hlo->find(R"(metadata={op_name="jit(f)/tanh" source_file="model.py" source_line=12})"), std::string::npos) << *hlo;
}

TEST(StableHloReader, DenseConstants) {
  auto m = Parse(R"(module @m {
  func.func public @main() -> (tensor<2x2xi32>, tensor<3xf32>, tensor<2xf32>, tensor<f32>) {
    %c = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
    %cst = stablehlo.constant dense<1.500000e+00> : tensor<3xf32>
    %cst_0 = stablehlo.constant dense<"0x0000803F00000040"> : tensor<2xf32>
    %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    return %c, %cst, %cst_0, %cst_1 : tensor<2x2xi32>, tensor<3xf32>, tensor<2xf32>, tensor<f32>
  }
})");
  ASSERT_TRUE(m.ok()) << m.status().message();
  auto hlo = TranslateStableHloToHloText(R"(func.func public @main() -> tensor<2xf32> {
    %cst_0 = stablehlo.constant dense<"0x0000803F00000040"> : tensor<2xf32>
    return %cst_0 : tensor<2xf32>
  })", "t.mlir");
  ASSERT_TRUE(hlo.ok());
  EXPECT_NE(hlo->find("constant({1, 2})"), std::string::npos) << *hlo;
}

TEST(StableHloReader, MalformedTextIsLocated) {
  auto m = Parse("module @m {\n  func.func public @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {\n"
                 "    %0 = stablehlo.add %arg0, %nope : tensor<2xf32>\n    return %0 : tensor<2xf32>\n  }\n}\n");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(m.status().message()).find("t.mlir:3:31: error: use of undefined value %nope"), std::string::npos)
      << m.status().message();

  auto t = Parse("module @m {\n  func.func public @main(%arg0: tensor<2xf32) -> tensor<2xf32> {\n");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(t.status().message()).find("t.mlir:2:"), std::string::npos) << t.status().message();
}

TEST(StableHloReader, MissingAttributeIsLocated) {
  auto m = Parse("func.func public @main() -> tensor<4xi32> {\n  %0 = stablehlo.iota : tensor<4xi32>\n"
                 "  return %0 : tensor<4xi32>\n}\n");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(m.status().message()).find("t.mlir:2:8: error: stablehlo.iota: a required attribute"), std::string::npos)
      << m.status().message();
}

TEST(StableHloReader, HloParserErrorsAreRelocated) {
  // An unknown comparison direction passes the translator; the HLO parser's refusal is
  // located on the .mlir op.
  auto m = Parse("module @m {\n  func.func public @main(%arg0: tensor<2xf32>) -> tensor<2xi1> {\n"
                 "    %0 = stablehlo.compare SIDEWAYS, %arg0, %arg0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>\n"
                 "    return %0 : tensor<2xi1>\n  }\n}\n");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(m.status().message()).find("t.mlir:3:10: error:"), std::string::npos) << m.status().message();
}

TEST(StableHloReader, UnsupportedOpsAreUnimplemented) {
  auto m = Parse("module @m {\n  func.func public @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {\n"
                 "    %0 = stablehlo.frobnicate %arg0 : tensor<2xf32>\n    return %0 : tensor<2xf32>\n  }\n}\n");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(std::string(m.status().message()).find("t.mlir:3:10: error: operation 'stablehlo.frobnicate'"), std::string::npos)
      << m.status().message();
}

TEST(StableHloReader, DispatcherPicksByNameAndContent) {
  EXPECT_TRUE(LooksLikeStableHlo("", "x.mlir"));
  EXPECT_TRUE(LooksLikeStableHlo("// c\nmodule @m {}", "-"));
  EXPECT_FALSE(LooksLikeStableHlo("HloModule m\n", "x.hlo"));
}

}  // namespace
}  // namespace spmdc

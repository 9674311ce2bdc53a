// The tolerance `verify` compares partitioned results with: it follows from the accumulations a
// module performs (long bf16 sums round far from any order-independent result) and stays tight
// for short sums and for f32, so that a real partitioning bug (a lost partial sum) still fails.
#include "runtime/result_comparison.h"

#include <gtest/gtest.h>

#include <cmath>

#include "hlo/parser.h"

namespace spmdc {
namespace {

std::unique_ptr<Module> Parse(const std::string& text) {
  auto m = ParseHloModule(text, "test");
  EXPECT_TRUE(m.ok()) << m.status().message();
  return std::move(*m);
}

constexpr char kScatter[] = R"(
HloModule scatter
add {
  x = bf16[] parameter(0)
  y = bf16[] parameter(1)
  ROOT s = bf16[] add(x, y)
}
ENTRY main {
  op = bf16[8,16] parameter(0)
  idx = s32[4096,1] parameter(1)
  upd = bf16[4096,16] parameter(2)
  ROOT s = bf16[8,16] scatter(op, idx, upd), update_window_dims={1}, inserted_window_dims={0},
      scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
})";

constexpr char kShortSums[] = R"(
HloModule short_sums
add {
  x = bf16[] parameter(0)
  y = bf16[] parameter(1)
  ROOT s = bf16[] add(x, y)
}
ENTRY main {
  a = f32[64,4096] parameter(0)
  b = f32[4096,8] parameter(1)
  d = f32[64,8] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  c = bf16[64,8] convert(d)
  z = bf16[] constant(0)
  r = bf16[64] reduce(c, z), dimensions={1}, to_apply=add
  ROOT t = (f32[64,8], bf16[64]) tuple(d, r)
})";

TEST(ResultComparison, ToleranceGrowsWithTheAccumulationLength) {
  EXPECT_DOUBLE_EQ(ToleranceFor(DType::kBF16), 3e-2);
  EXPECT_DOUBLE_EQ(ToleranceFor(DType::kBF16, 8), 3e-2);  // short sums: the type's own
  EXPECT_DOUBLE_EQ(ToleranceFor(DType::kBF16, 4096), 2 * std::ldexp(1.0, -8) * 64);
  EXPECT_DOUBLE_EQ(ToleranceFor(DType::kF32, 4096), 1e-4);  // f32 stays tight
  EXPECT_DOUBLE_EQ(ToleranceFor(DType::kS32, 4096), 0);
}

TEST(ResultComparison, ModuleToleranceFollowsItsLongestAccumulation) {
  // 4096 updates may land on one element: bf16 sums of 4096 terms.
  EXPECT_DOUBLE_EQ(ModuleTolerance(*Parse(kScatter)), ToleranceFor(DType::kBF16, 4096));
  // An f32 dot over 4096 elements and a bf16 sum of 8: nothing looser than bf16's own.
  EXPECT_DOUBLE_EQ(ModuleTolerance(*Parse(kShortSums)), 3e-2);
}

TEST(ResultComparison, LostPartialSumIsStillCaught) {
  // One output of 8 values near 1: a partitioned sum that dropped one device's part of 16
  // (an error of about 1/16 of the value) fails the f32 comparison even with a module
  // tolerance of long f32 sums, and a bf16 one with short sums.
  Literal want(Shape(DType::kF32, {8})), got(Shape(DType::kF32, {8}));
  for (int64_t i = 0; i < 8; ++i) want.SetDouble(i, 1.0 + 0.01 * i), got.SetDouble(i, 1.0 + 0.01 * i);
  got.SetDouble(3, want.GetDouble(3) * 15 / 16);
  EXPECT_FALSE(CompareLeaf(got, want, ToleranceFor(DType::kF32, 1 << 20)).ok);
  Literal want16(Shape(DType::kBF16, {8})), got16(Shape(DType::kBF16, {8}));
  for (int64_t i = 0; i < 8; ++i) want16.SetDouble(i, 1.0), got16.SetDouble(i, 1.0);
  got16.SetDouble(5, 0.875);
  EXPECT_FALSE(CompareLeaf(got16, want16, ModuleTolerance(*Parse(kShortSums))).ok);
  // ... while rounding-sized differences pass.
  got.SetDouble(3, want.GetDouble(3) * (1 + 2e-5));
  EXPECT_TRUE(CompareLeaf(got, want, 0).ok);
}

}  // namespace
}  // namespace spmdc

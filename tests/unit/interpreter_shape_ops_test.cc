// Data-movement ops of the interpreter: iota, broadcast, transpose, slice, dynamic-slice,
// dynamic-update-slice, pad, concatenate, reverse, reshape, bitcast.
#include "interpreter_test_util.h"

namespace spmdc::testing {
namespace {

TEST(InterpreterShapeOps, Iota) {
  EXPECT_EQ(RunText(Entry("ROOT i = s32[2,3] iota(), iota_dimension=1")), "{{0, 1, 2}, {0, 1, 2}}");
  EXPECT_EQ(RunText(Entry("ROOT i = f32[3,2] iota(), iota_dimension=0")), "{{0, 0}, {1, 1}, {2, 2}}");
  EXPECT_EQ(RunText(Entry("ROOT i = pred[2] iota(), iota_dimension=0")), "{false, true}");
  EXPECT_EQ(RunText(Entry("ROOT i = c64[2] iota(), iota_dimension=0")), "{(0, 0), (1, 0)}");
  EXPECT_EQ(RunText(Entry("ROOT i = u8[0] iota(), iota_dimension=0")), "{}");
  auto r = RunHlo(Entry("ROOT i = bf16[300] iota(), iota_dimension=0"));
  ASSERT_TRUE(r.ok()) << StatusText(r.status());
  EXPECT_EQ(r->GetDouble(257), 256.0);  // 257 ties to 256 in bf16
  EXPECT_EQ(r->GetDouble(259), 260.0);
}

TEST(InterpreterShapeOps, Broadcast) {
  EXPECT_EQ(RunText(Entry(R"(a = s32[2] constant({1, 2})
ROOT b = s32[2,3] broadcast(a), dimensions={0})")),
            "{{1, 1, 1}, {2, 2, 2}}");
  EXPECT_EQ(RunText(Entry(R"(a = s32[2] constant({1, 2})
ROOT b = s32[3,2] broadcast(a), dimensions={1})")),
            "{{1, 2}, {1, 2}, {1, 2}}");
  EXPECT_EQ(RunText(Entry(R"(a = f16[] constant(1.5)
ROOT b = f16[2,2] broadcast(a), dimensions={})")),
            "{{1.5, 1.5}, {1.5, 1.5}}");
  EXPECT_EQ(RunText(Entry(R"(a = s8[2,1] constant({{1}, {2}})
ROOT b = s8[2,2,1] broadcast(a), dimensions={0,2})")),
            "{{{1}, {1}}, {{2}, {2}}}");
}

TEST(InterpreterShapeOps, Transpose) {
  EXPECT_EQ(RunText(Entry(R"(a = s32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
ROOT t = s32[3,2] transpose(a), dimensions={1,0})")),
            "{{1, 4}, {2, 5}, {3, 6}}");
  EXPECT_EQ(RunText(Entry(R"(a = s32[2,1,3] constant({{{1, 2, 3}}, {{4, 5, 6}}})
ROOT t = s32[3,2,1] transpose(a), dimensions={2,0,1})")),
            "{{{1}, {4}}, {{2}, {5}}, {{3}, {6}}}");
  // A big one (takes the blocked path): out[j][i] == in[i][j].
  const int64_t m = 67, n = 45;
  std::vector<float> v(m * n);
  for (int64_t i = 0; i < m * n; ++i) v[i] = static_cast<float>(i);
  auto r = RunHlo(Entry(R"(p = f32[67,45] parameter(0)
ROOT t = f32[45,67] transpose(p), dimensions={1,0})"),
                  {Lit<float>(DType::kF32, {m, n}, v)});
  ASSERT_TRUE(r.ok()) << StatusText(r.status());
  auto out = Values<float>(*r);
  bool ok = true;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) ok &= out[j * m + i] == v[i * n + j];
  EXPECT_TRUE(ok);
  // Rank 3 with 16-byte elements.
  EXPECT_EQ(RunText(Entry(R"(a = c128[1,2,2] constant({{{(1, 0), (2, 0)}, {(3, 0), (4, 0)}}})
ROOT t = c128[2,2,1] transpose(a), dimensions={2,1,0})")),
            "{{{(1, 0)}, {(3, 0)}}, {{(2, 0)}, {(4, 0)}}}");
}

TEST(InterpreterShapeOps, Slice) {
  EXPECT_EQ(RunText(Entry(R"(a = s32[5] constant({0, 1, 2, 3, 4})
ROOT s = s32[2] slice(a), slice={[1:5:2]})")),
            "{1, 3}");
  EXPECT_EQ(RunText(Entry(R"(a = s32[3,3] constant({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}})
ROOT s = s32[2,1] slice(a), slice={[1:3], [2:3]})")),
            "{{6}, {9}}");
  EXPECT_EQ(RunText(Entry(R"(a = s32[3] constant({1, 2, 3})
ROOT s = s32[0] slice(a), slice={[2:2]})")),
            "{}");
}

TEST(InterpreterShapeOps, DynamicSliceClampsIndices) {
  const std::string ds = R"(a = s32[5] constant({0, 1, 2, 3, 4})
i = s32[] constant(IDX)
ROOT s = s32[3] dynamic-slice(a, i), dynamic_slice_sizes={3})";
  auto with = [&](const std::string& idx) {
    std::string t = ds;
    t.replace(t.find("IDX"), 3, idx);
    return RunText(Entry(t));
  };
  EXPECT_EQ(with("1"), "{1, 2, 3}");
  EXPECT_EQ(with("3"), "{2, 3, 4}");
  EXPECT_EQ(with("-1"), "{0, 1, 2}");
  EXPECT_EQ(RunText(Entry(R"(a = s32[3,3] constant({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}})
i = u32[] constant(4294967295)
j = s64[] constant(1)
ROOT s = s32[2,2] dynamic-slice(a, i, j), dynamic_slice_sizes={2,2})")),
            "{{5, 6}, {8, 9}}");
}

TEST(InterpreterShapeOps, DynamicSliceOldVectorIndexForm) {
  EXPECT_EQ(RunText(Entry(R"(a = s32[3,3] constant({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}})
i = s32[2] constant({1, 7})
ROOT s = s32[2,2] dynamic-slice(a, i), dynamic_slice_sizes={2,2})")),
            "{{5, 6}, {8, 9}}");
}

TEST(InterpreterShapeOps, DynamicUpdateSlice) {
  EXPECT_EQ(RunText(Entry(R"(a = s32[5] constant({0, 0, 0, 0, 0})
u = s32[2] constant({7, 8})
i = s32[] constant(4)
ROOT s = s32[5] dynamic-update-slice(a, u, i))")),
            "{0, 0, 0, 7, 8}");
  EXPECT_EQ(RunText(Entry(R"(a = f32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
u = f32[1,2] constant({{9, 9}})
i = s32[] constant(1)
j = s32[] constant(-5)
ROOT s = f32[2,3] dynamic-update-slice(a, u, i, j))")),
            "{{1, 2, 3}, {9, 9, 6}}");
  // The constant itself is not modified (copy on write): using it again gives the old value.
  EXPECT_EQ(RunText(Entry(R"(a = s32[2] constant({1, 2})
u = s32[1] constant({5})
i = s32[] constant(0)
d = s32[2] dynamic-update-slice(a, u, i)
ROOT t = (s32[2], s32[2]) tuple(d, a))")),
            "({5, 2}, {1, 2})");
}

TEST(InterpreterShapeOps, Pad) {
  const std::string base = R"(a = s32[3] constant({1, 2, 3})
z = s32[] constant(0)
ROOT p = s32[N] pad(a, z), padding=CFG)";
  auto pad = [&](const std::string& n, const std::string& cfg) {
    std::string t = base;
    t.replace(t.find("N]"), 1, n);
    t.replace(t.find("CFG"), 3, cfg);
    return RunText(Entry(t));
  };
  EXPECT_EQ(pad("8", "1_2_1"), "{0, 1, 0, 2, 0, 3, 0, 0}");
  EXPECT_EQ(pad("2", "-1_0"), "{2, 3}");
  EXPECT_EQ(pad("3", "-1_-1_1"), "{0, 2, 0}");
  EXPECT_EQ(pad("0", "-3_0"), "{}");
  EXPECT_EQ(pad("1", "-4_2"), "{0}");
  EXPECT_EQ(RunText(Entry(R"(a = f32[2,2] constant({{1, 2}, {3, 4}})
z = f32[] constant(-1)
ROOT p = f32[3,3] pad(a, z), padding=0_0_1x1_0)")),
            "{{-1, 1, 2}, {-1, -1, -1}, {-1, 3, 4}}");
}

TEST(InterpreterShapeOps, ConcatenateReverseReshape) {
  EXPECT_EQ(RunText(Entry(R"(a = s32[2] constant({1, 2})
b = s32[1] constant({3})
c = s32[0] constant({})
ROOT r = s32[3] concatenate(a, c, b), dimensions={0})")),
            "{1, 2, 3}");
  EXPECT_EQ(RunText(Entry(R"(a = s32[2,1] constant({{1}, {2}})
b = s32[2,2] constant({{3, 4}, {5, 6}})
ROOT r = s32[2,3] concatenate(a, b), dimensions={1})")),
            "{{1, 3, 4}, {2, 5, 6}}");
  EXPECT_EQ(RunText(Entry(R"(a = s32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
ROOT r = s32[2,3] reverse(a), dimensions={1})")),
            "{{3, 2, 1}, {6, 5, 4}}");
  EXPECT_EQ(RunText(Entry(R"(a = s32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
ROOT r = s32[2,3] reverse(a), dimensions={0,1})")),
            "{{6, 5, 4}, {3, 2, 1}}");
  EXPECT_EQ(RunText(Entry(R"(a = s32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
ROOT r = s32[3,2] reshape(a))")),
            "{{1, 2}, {3, 4}, {5, 6}}");
  EXPECT_EQ(RunText(Entry(R"(a = s32[2] constant({1, 2})
ROOT r = f32[2] bitcast(a))")),
            "{1e-45, 3e-45}");
  // A bitcast to fewer bytes (XLA's verifier allows it) keeps the operand's leading bytes, as
  // XLA's evaluator does; to more bytes it is unsupported.
  EXPECT_EQ(RunText(Entry(R"(a = s32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
ROOT r = s32[2,2] bitcast(a))")),
            "{{1, 2}, {3, 4}}");
  EXPECT_EQ(RunText(Entry(R"(a = u8[4] constant({1, 1, 0, 0})
ROOT r = u16[1] bitcast(a))")),
            "{257}");
  auto grow = RunHlo(Entry(R"(a = s32[2] constant({1, 2})
ROOT r = s32[3] bitcast(a))"));
  ASSERT_FALSE(grow.ok());
  EXPECT_EQ(grow.status().code(), absl::StatusCode::kUnimplemented) << grow.status();
  EXPECT_EQ(RunText(Entry(R"(a = s32[2,3] parameter(0)
ROOT r = s32[] get-dimension-size(a), dimensions={1})"),
                    {Literal(Shape(DType::kS32, {2, 3}))}),
            "3");
}

}  // namespace
}  // namespace spmdc::testing

// Control flow, calls, tuples, tokens, collectives on one device, custom calls, batch norm and
// the interpreter's errors.
#include "interpreter_test_util.h"

namespace spmdc::testing {
namespace {

TEST(InterpreterControl, WhileSumsAndUpdatesInPlace) {
  EXPECT_EQ(RunText(R"(HloModule t
cond {
  s = (s32[], s32[], f32[5]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], s32[], f32[5]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  acc = s32[] get-tuple-element(s), index=1
  buf = f32[5] get-tuple-element(s), index=2
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  acc1 = s32[] add(acc, i)
  f = f32[] convert(i)
  u = f32[1] reshape(f)
  buf1 = f32[5] dynamic-update-slice(buf, u, i)
  ROOT r = (s32[], s32[], f32[5]) tuple(i1, acc1, buf1)
}
ENTRY e {
  z = s32[] constant(0)
  b = f32[5] constant({9, 9, 9, 9, 9})
  init = (s32[], s32[], f32[5]) tuple(z, z, b)
  w = (s32[], s32[], f32[5]) while(init), condition=cond, body=body
  w.i = s32[] get-tuple-element(w), index=0
  w.acc = s32[] get-tuple-element(w), index=1
  w.buf = f32[5] get-tuple-element(w), index=2
  ROOT t = (s32[], s32[], f32[5], f32[5]) tuple(w.i, w.acc, w.buf, b)
})"),
            "(5, 10, {0, 1, 2, 3, 4}, {9, 9, 9, 9, 9})");
}

const char kConditional[] = R"(HloModule t
b0 {
  x = s32[] parameter(0)
  c = s32[] constant(10)
  ROOT r = s32[] add(x, c)
}
b1 {
  x = s32[] parameter(0)
  ROOT r = s32[] negate(x)
}
b2 {
  x = s32[] parameter(0)
  ROOT r = s32[] multiply(x, x)
}
ENTRY e {
  i = s32[] parameter(0)
  x = s32[] constant(3)
  ROOT c = s32[] conditional(i, x, x, x), branch_computations={b0, b1, b2}
})";

TEST(InterpreterControl, ConditionalIndexed) {
  auto idx = [](int32_t i) { return Lit<int32_t>(DType::kS32, {}, {i}); };
  EXPECT_EQ(RunText(kConditional, {idx(0)}), "13");
  EXPECT_EQ(RunText(kConditional, {idx(1)}), "-3");
  EXPECT_EQ(RunText(kConditional, {idx(2)}), "9");
  EXPECT_EQ(RunText(kConditional, {idx(7)}), "9");   // out of range: last branch
  EXPECT_EQ(RunText(kConditional, {idx(-1)}), "9");
}

TEST(InterpreterControl, ConditionalPred) {
  const char* hlo = R"(HloModule t
t {
  x = f32[] parameter(0)
  ROOT r = f32[] negate(x)
}
f {
  x = s32[] parameter(0)
  ROOT r = f32[] convert(x)
}
ENTRY e {
  p = pred[] parameter(0)
  a = f32[] constant(2)
  b = s32[] constant(5)
  ROOT c = f32[] conditional(p, a, b), true_computation=t, false_computation=f
})";
  EXPECT_EQ(RunText(hlo, {Lit<uint8_t>(DType::kPred, {}, {1})}), "-2");
  EXPECT_EQ(RunText(hlo, {Lit<uint8_t>(DType::kPred, {}, {0})}), "5");
}

TEST(InterpreterControl, CallFusionAsyncTuples) {
  EXPECT_EQ(RunText(R"(HloModule t
sq {
  x = f32[2] parameter(0)
  ROOT r = f32[2] multiply(x, x)
}
fused {
  a = f32[2] parameter(0)
  b = f32[2] parameter(1)
  ROOT r = f32[2] subtract(a, b)
}
ENTRY e {
  a = f32[2] constant({1, 2})
  b = f32[2] constant({3, 5})
  c = f32[2] call(a), to_apply=sq
  f = f32[2] fusion(c, b), kind=kLoop, calls=fused
  s = ((f32[2]), f32[2], s32[]) async-start(b), calls=sq
  d = f32[2] async-done(s)
  cd = (f32[2], f32[2]) tuple(c, d)
  t = (f32[2], (f32[2], f32[2])) tuple(f, cd)
  g = (f32[2], f32[2]) get-tuple-element(t), index=1
  ROOT h = f32[2] get-tuple-element(g), index=1
})"),
            "{9, 25}");
}

TEST(InterpreterControl, DeviceIdsAndCollectivesOnOneDevice) {
  EXPECT_EQ(RunText(R"(HloModule t
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT r = f32[] add(x, y)
}
ENTRY e {
  a = f32[2] constant({1, 2})
  pid = u32[] partition-id()
  rid = u32[] replica-id()
  ar = f32[2] all-reduce(a), replica_groups={{0}}, to_apply=add
  ag = f32[2] all-gather(ar), dimensions={0}, replica_groups={{0}}
  rs = f32[2] reduce-scatter(ag), dimensions={0}, replica_groups={}, to_apply=add
  aa = f32[2] all-to-all(rs), dimensions={0}, replica_groups={{0}}
  cp = f32[2] collective-permute(aa), source_target_pairs={{0,0}}
  ars = f32[2] all-reduce-start(cp), replica_groups={{0}}, to_apply=add
  ard = f32[2] all-reduce-done(ars)
  ags = (f32[2], f32[2]) all-gather-start(ard), dimensions={0}, replica_groups={{0}}
  agd = f32[2] all-gather-done(ags)
  cps = (f32[2], f32[2], u32[], u32[]) collective-permute-start(agd), source_target_pairs={{0,0}}
  cpd = f32[2] collective-permute-done(cps)
  ROOT t = (u32[], u32[], f32[2]) tuple(pid, rid, cpd)
})"),
            "(0, 0, {1, 2})");
}

TEST(InterpreterControl, CollectivesNeedingOtherDevicesAreRefused) {
  auto r = RunHlo(R"(HloModule t
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT r = f32[] add(x, y)
}
ENTRY e {
  a = f32[2] constant({1, 2})
  ROOT ar = f32[2] all-reduce(a), replica_groups={{0,1}}, to_apply=add
})");
  ASSERT_FALSE(r.ok());
  // Valid HLO (a per-device program) that one device cannot execute: unsupported (exit 3).
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(StatusText(r.status()).find("replica group id 1 is outside 0..0"), std::string::npos) << StatusText(r.status());
}

TEST(InterpreterControl, CollectivePermuteWithoutSelfPairGivesZeros) {
  EXPECT_EQ(RunText(Entry(R"(a = f32[2] constant({1, 2})
ROOT cp = f32[2] collective-permute(a), source_target_pairs={})")),
            "{0, 0}");
}

TEST(InterpreterControl, TokensBarriersAndIdentityCustomCalls) {
  EXPECT_EQ(RunText(Entry(R"(a = f32[2] constant({1, 2})
tok = token[] after-all()
d = f32[2] add-dependency(a, tok)
s = f32[2] custom-call(d), custom_call_target="Sharding", sharding={replicated}
m = f32[2] custom-call(s), custom_call_target="SPMDFullToShardShape", sharding={manual}
n = f32[2] custom-call(m), custom_call_target="SPMDShardToFullShape", sharding={replicated}
nt = (f32[2]) tuple(n)
b = (f32[2]) opt-barrier(nt)
ROOT g = f32[2] get-tuple-element(b), index=0)")),
            "{1, 2}");
}

TEST(InterpreterControl, UnimplementedOpsNameTheOpcode) {
  auto expect_unimplemented = [](const std::string& hlo, const std::string& name) {
    auto r = RunHlo(hlo);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), absl::StatusCode::kUnimplemented) << StatusText(r.status());
    EXPECT_NE(StatusText(r.status()).find("'" + name + "'"), std::string::npos)
        << StatusText(r.status());
  };
  expect_unimplemented(Entry(R"(a = f32[2] constant({1, 2})
ROOT c = f32[2] custom-call(a), custom_call_target="my_kernel")"),
                       "my_kernel");
  expect_unimplemented(Entry(R"(a = u32[2] constant({1, 2})
b = u32[2] constant({3, 4})
ROOT c = u64[2] custom-call(a, b), custom_call_target="X64Combine")"),
                       "X64Combine");
  expect_unimplemented(Entry(R"(a = f32[2] constant({1, 2})
u = f32[2] constant({0, 1})
ROOT c = f32[2] stochastic-convert(a, u))"),
                       "stochastic-convert");
  expect_unimplemented(Entry(R"(tok = token[] after-all()
ROOT i = ((f32[2]), token[]) infeed(tok))"),
                       "infeed");
  expect_unimplemented(Entry(R"(a = f32[] constant(0)
b = f32[] constant(1)
ROOT r = f32[4] rng(a, b), distribution=rng_uniform)"),
                       "rng");
}

TEST(InterpreterControl, DeadCodeIsNotExecuted) {
  EXPECT_EQ(RunText(Entry(R"(a = f32[] constant(0)
b = f32[] constant(1)
dead = f32[4] rng(a, b), distribution=rng_uniform
ROOT r = f32[] add(a, b))")),
            "1");
}

TEST(InterpreterControl, BatchNorm) {
  EXPECT_EQ(RunText(Entry(R"(x = f32[2,2] constant({{1, 2}, {3, 4}})
s = f32[2] constant({1, 2})
o = f32[2] constant({0, 10})
ROOT b = (f32[2,2], f32[2], f32[2]) batch-norm-training(x, s, o), epsilon=0, feature_index=1)")),
            "({{-1, 8}, {1, 12}}, {2, 3}, {1, 1})");
  EXPECT_EQ(RunText(Entry(R"(x = f32[2,2] constant({{1, 2}, {3, 4}})
s = f32[2] constant({1, 2})
o = f32[2] constant({0, 10})
m = f32[2] constant({2, 3})
v = f32[2] constant({1, 1})
ROOT b = f32[2,2] batch-norm-inference(x, s, o, m, v), epsilon=0, feature_index=1)")),
            "{{-1, 8}, {1, 12}}");
  EXPECT_EQ(RunText(Entry(R"(x = f32[2,2] constant({{1, 2}, {3, 4}})
s = f32[2] constant({1, 1})
m = f32[2] constant({2, 3})
v = f32[2] constant({1, 1})
g = f32[2,2] constant({{1, 0}, {0, 0}})
ROOT b = (f32[2,2], f32[2], f32[2]) batch-norm-grad(x, s, m, v, g), epsilon=0, feature_index=1)")),
            "({{0, 0}, {0, 0}}, {-1, 0}, {1, 0})");
}

TEST(InterpreterControl, ArgumentsAndLimitsAreChecked) {
  const std::string hlo = Entry(R"(p = f32[1024] parameter(0)
ROOT r = f32[1024] negate(p))");
  auto wrong_count = RunHlo(hlo, {});
  ASSERT_FALSE(wrong_count.ok());
  EXPECT_EQ(wrong_count.status().code(), absl::StatusCode::kInvalidArgument);
  auto wrong_shape = RunHlo(hlo, {Literal(Shape(DType::kF32, {3}))});
  ASSERT_FALSE(wrong_shape.ok());
  EXPECT_EQ(wrong_shape.status().code(), absl::StatusCode::kInvalidArgument);
  InterpreterOptions small;
  small.max_value_bytes = 1000;
  auto too_big = RunHlo(hlo, {Literal(Shape(DType::kF32, {1024}))}, small);
  ASSERT_FALSE(too_big.ok());
  EXPECT_EQ(too_big.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(StatusText(too_big.status()).find("limit"), std::string::npos);
}

TEST(InterpreterControl, ReduceThroughKernel) {
  EXPECT_EQ(RunText(R"(HloModule t
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT r = f32[] add(x, y)
}
ENTRY e {
  a = f32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
  z = f32[] constant(0)
  ROOT r = f32[2] reduce(a, z), dimensions={1}, to_apply=add
})"),
            "{6, 15}");
}

}  // namespace
}  // namespace spmdc::testing

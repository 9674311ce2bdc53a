// Inputs that the libFuzzer targets (fuzz/) found failing, reduced, each checked for the property
// the target checks: the partitioned, cleaned-up module passes the verifier.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "hlo/parser.h"
#include "hlo/printer.h"
#include "ir/verifier.h"
#include "partitioner/partitioner.h"
#include "propagation/propagation.h"

namespace spmdc {
namespace {

// Parses `text`, optionally propagates, partitions for `n` devices and verifies the result.
void ExpectPartitionedModuleVerifies(const std::string& text, int64_t n, bool propagate) {
  auto module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  ASSERT_TRUE(VerifyModule(**module).ok());
  if (propagate) {
    ASSERT_TRUE(PropagateShardings(**module).ok());
  }
  auto result = PartitionAndCleanUp(**module, PartitionOptions{n});
  ASSERT_TRUE(result.ok()) << result.status();
  Status verified = VerifyModule(*result->module);
  EXPECT_TRUE(verified.ok()) << verified << "\n" << PrintModule(*result->module);
}

// A callee partitioned twice (called under two shardings) repeated its parameters' names in the
// output module (names are unique module-wide).
TEST(FuzzRegression, CalleePartitionedTwiceKeepsNamesUnique) {
  ExpectPartitionedModuleVerifies(R"(
HloModule module
%callee (a: f32[8,8], b: f32[8,8]) -> f32[8,8] {
  %a = f32[8,8] parameter(0)
  %b = f32[8,8] parameter(1)
  ROOT %d = f32[8,8] dot(%b, %a), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
ENTRY %entry {
  %p0 = f32[8,8] parameter(0)
  %c1 = f32[8,8] call(%p0, %p0), to_apply=%callee
  %c2 = f32[8,8] call(%c1, %c1), to_apply=%callee, sharding={devices=[4,1]0,1,2,3}
  ROOT %t = (f32[8,8]) tuple(%c2)
})",
                                  4, /*propagate=*/true);
}

// Inside a shard_map region, a call (and the all-reduce in its body) carry sharding={manual}
// after propagation; they were cloned with their called computations still the source module's.
TEST(FuzzRegression, ManualCallGetsTheOutputModulesComputations) {
  ExpectPartitionedModuleVerifies(R"(
HloModule shmap, num_partitions=2
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
body {
  x = f32[3,8] parameter(0)
  ps = f32[3,8] all-reduce(x), channel_id=1, replica_groups={{0,1}}, use_global_device_ids=true, to_apply=sum
  ROOT n = f32[3,8] negate(ps)
}
ENTRY main {
  p = f32[6,8] parameter(0), sharding={devices=[2,1]<=[2]}
  m = f32[3,8] custom-call(p), custom_call_target="SPMDFullToShardShape", sharding={manual}
  c = f32[3,8] call(m), to_apply=body
  ms = f32[3,8] custom-call(c), custom_call_target="Sharding", sharding={manual}
  ROOT f = f32[6,8] custom-call(ms), custom_call_target="SPMDShardToFullShape", sharding={devices=[2,1]<=[2]}
})",
                                  2, /*propagate=*/true);
}

// A module that is per-device as written (tests/lit/partition/manual_entry_signature.hlo): a
// manual while whose condition and body carry no shardings was cloned pointing at the source
// module's computations ("calls a computation that is not in the module"); found by the pipeline
// target on its seeds. Its computations are now copied as manual code, nested control flow too.
TEST(FuzzRegression, UnannotatedManualWhileGetsTheOutputModulesComputations) {
  const std::string text = R"(
HloModule manual_entry, num_partitions=2
cond {
  p = (s32[], f32[4,8]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT c = pred[] compare(i, n), direction=LT
}
inner {
  x = f32[4,8] parameter(0)
  ROOT y = f32[4,8] tanh(x)
}
body {
  p = (s32[], f32[4,8]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[4,8] get-tuple-element(p), index=1
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  y = f32[4,8] call(x), to_apply=inner
  ROOT t = (s32[], f32[4,8]) tuple(i2, y)
}
ENTRY main {
  p = f32[4,8] parameter(0), sharding={manual}
  q = f32[8,3] parameter(1), sharding={manual}
  z = s32[] constant(0), sharding={manual}
  t = (s32[], f32[4,8]) tuple(z, p), sharding={{manual}, {manual}}
  w = (s32[], f32[4,8]) while(t), condition=cond, body=body, sharding={{manual}, {manual}}
  g = f32[4,8] get-tuple-element(w), index=1, sharding={manual}
  d = f32[4,3] dot(g, q), lhs_contracting_dims={1}, rhs_contracting_dims={0}, sharding={manual}
  ROOT r = (f32[4,8], f32[4,3]) tuple(g, d), sharding={{manual}, {manual}}
})";
  ExpectPartitionedModuleVerifies(text, 2, /*propagate=*/false);
  ExpectPartitionedModuleVerifies(text, 2, /*propagate=*/true);
}

// Mixed precision (accepted by the verifier, as by XLA's with allow_mixed_precision): a slice
// whose result type is not its operand's. The partitioner's local slice took the operand's type
// ("partitioner bug: %a became f64[2,8] where ... of f32[8,8] expects f32[2,8]"); found by the
// pipeline target from the strided-slice seed.
TEST(FuzzRegression, MixedPrecisionSliceKeepsTheDeclaredType) {
  const std::string text = R"(
HloModule mixed_slice
ENTRY %e {
  %x = f64[16,8] parameter(0), sharding={devices=[4,1]<=[4]}
  %a = f32[8,8] slice(%x), slice={[0:16:2], [0:8]}, sharding={devices=[4,1]<=[4]}
  %b = f32[16,4] slice(%x), slice={[0:16], [0:4]}, sharding={devices=[4,1]<=[4]}
  %c = f32[5,8] slice(%x), slice={[1:16:3], [0:8]}, sharding={devices=[4,1]<=[4]}
  ROOT %t = (f32[8,8], f32[16,4], f32[5,8]) tuple(%a, %b, %c)
})";
  ExpectPartitionedModuleVerifies(text, 4, /*propagate=*/false);
  ExpectPartitionedModuleVerifies(text, 4, /*propagate=*/true);
}

// SPMDShardToFullShape / SPMDFullToShardShape and the Sharding constraint are custom calls, whose
// shapes the verifier does not infer: one that changes the element type (f32 shard, f64 full
// value) passed the dims check and left an f32 value where f64 was declared ("partitioner bug:
// %f became f32[2,5] ..."); found by the pipeline target. Now it is unsupported (exit 3), like any
// other shape mismatch there.
TEST(FuzzRegression, ManualRegionCustomCallsKeepTheElementType) {
  for (const char* text : {R"(
HloModule to_full
ENTRY %e {
  %a = f32[8,5] parameter(0), sharding={devices=[4,1]<=[4]}
  %m = f32[2,5] custom-call(%a), custom_call_target="SPMDFullToShardShape", sharding={manual}
  %x = f32[2,5] exponential(%m), sharding={manual}
  ROOT %f = f64[8,5] custom-call(%x), custom_call_target="SPMDShardToFullShape", sharding={devices=[4,1]<=[4]}
})",
                           R"(
HloModule constraint
ENTRY %e {
  %a = f64[8,5] parameter(0), sharding={devices=[4,1]<=[4]}
  ROOT %s = f32[8,5] custom-call(%a), custom_call_target="Sharding", sharding={devices=[4,1]<=[4]}
})",
                           R"(
HloModule to_shard
ENTRY %e {
  %a = f32[8,5] parameter(0), sharding={devices=[4,1]<=[4]}
  %m = f64[2,5] custom-call(%a), custom_call_target="SPMDFullToShardShape", sharding={manual}
  %x = f64[2,5] exponential(%m), sharding={manual}
  ROOT %f = f64[8,5] custom-call(%x), custom_call_target="SPMDShardToFullShape", sharding={devices=[4,1]<=[4]}
})"}) {
    auto module = ParseHloModule(text);
    ASSERT_TRUE(module.ok()) << module.status();
    ASSERT_TRUE(VerifyModule(**module).ok());
    auto result = PartitionAndCleanUp(**module, PartitionOptions{4});
    EXPECT_EQ(result.status().code(), absl::StatusCode::kUnimplemented) << result.status();
    EXPECT_THAT(std::string(result.status().message()), ::testing::HasSubstr("is not supported")) << text;
  }
}

// Mixed precision elsewhere (a tuple declaring f32 for an f16 operand): the handlers build local
// ops with their operands' types; a value that comes out so for a mixed-precision instruction is
// unsupported (exit 3), not an internal error ("partitioner bug: %t became (f32[2,2], f16[4,4])
// ..."; found by the pipeline target).
// A replicated rng is drawn on device 0 and all-reduced over every device: the all-reduce had
// empty replica_groups with use_global_device_ids=true, which the verifier (as XLA's) rejects.
TEST(FuzzRegression, CollectiveOverEveryDeviceNamesItsGroup) {
  ExpectPartitionedModuleVerifies(R"(
HloModule r, num_partitions=2
ENTRY e {
  a = f32[] constant(0)
  b = f32[] constant(1)
  r = f32[4] rng(a, b), distribution=rng_uniform, sharding={devices=[2]0,1}
  s = f32[4] rng(a, b), distribution=rng_uniform, sharding={replicated}
  ROOT t = (f32[4], f32[4]) tuple(r, s)
}
)",
                                  2, /*propagate=*/false);
}

// One computation as two branches of a conditional, with operands sharded differently: both
// branches were replaced by the first operand's partitioned computation, applied to a shard of
// the other shape.
TEST(FuzzRegression, ComputationUsedAsTwoBranchesTakesOneSharding) {
  ExpectPartitionedModuleVerifies(R"(
HloModule cf, num_partitions=4
%br { %x = f32[8,4] parameter(0)
  ROOT %n = f32[8,4] exponential(%x) }
ENTRY %e {
  %a = f32[8,4] parameter(0), sharding={devices=[4,1]<=[4]}
  %b = f32[8,4] parameter(1), sharding={devices=[1,4]<=[4]}
  %k = s32[] parameter(2), sharding={replicated}
  ROOT %c = f32[8,4] conditional(%k, %a, %b), branch_computations={%br, %br}, sharding={devices=[2,2]<=[4]}
}
)",
                                  4, /*propagate=*/false);
}

// A Sharding custom call is its operand: one declaring another shape is bad input (a located
// error), where it was partitioned to a copy of the wrong shape inside a manual region.
TEST(FuzzRegression, ShardingCustomCallOfAnotherShapeIsBadInput) {
  auto module = ParseHloModule(R"(
HloModule m
ENTRY e {
  x = f32[16] parameter(0)
  ROOT s = f32[16,8] custom-call(x), custom_call_target="Sharding", sharding={replicated}
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  Status s = VerifyModule(**module);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), ::testing::HasSubstr("inferred shape f32[16] but declared f32[16,8]"));
  // So is a shard barrier (it was partitioned to a value of the operand's dims).
  auto barrier = ParseHloModule(R"(
HloModule m
ENTRY e {
  x = f32[8,15] parameter(0)
  ROOT b = f32[8,16] custom-call(x), custom_call_target="ShardBarrierFrom"
}
)");
  ASSERT_TRUE(barrier.ok()) << barrier.status();
  EXPECT_EQ(VerifyModule(**barrier).code(), absl::StatusCode::kInvalidArgument);
}

// A TopK custom call declaring f64 values for an f32 operand (mixed precision passes the
// verifier) was partitioned to f32 values: now unsupported (exit 3), naming both types.
TEST(FuzzRegression, MixedPrecisionTopKIsUnsupported) {
  auto module = ParseHloModule(R"(
HloModule m, num_partitions=2
ENTRY main {
  p = f32[4,16] parameter(0), sharding={devices=[2,1]<=[2]}
  ROOT t = (f64[4,3], s32[4,3]) custom-call(p), custom_call_target="TopK"
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  auto result = PartitionAndCleanUp(**module, PartitionOptions{2});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kUnimplemented) << result.status();
  EXPECT_THAT(std::string(result.status().message()), ::testing::HasSubstr("values of type f64 from a f32 operand"));
}

// A slice declaring f32 of an f16 operand, read through by the concatenate's windowed
// handler: the mismatch showed at the concatenate, whose own types agree; it names the slice.
TEST(FuzzRegression, MixedPrecisionOperandIsUnsupported) {
  auto module = ParseHloModule(R"(
HloModule m, num_partitions=4
ENTRY %e {
  %x = f16[4] parameter(0), sharding={devices=[4]3,0,2,1}
  %a = f32[3] slice(%x), slice={[1:4]}, sharding={devices=[4]<=[2,2]T(1,0)}
  %b = f32[1] slice(%x), slice={[0:1]}
  %r = f32[4] concatenate(%a, %b), dimensions={0}, sharding={devices=[4]<=[2,2]T(1,0)}
  ROOT %t = (f32[4], f16[4]) tuple(%r, %x), sharding={{replicated}, {replicated}}
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  auto result = PartitionAndCleanUp(**module, PartitionOptions{4});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kUnimplemented) << result.status();
  EXPECT_THAT(std::string(result.status().message()), ::testing::HasSubstr("mixed precision is not partitioned"));
}

// SPMDFullToShardShape into a partially manual region declaring f32 of an f16 operand: the
// manual-subgroup path partitioned it to an f16 value; now unsupported (exit 3).
TEST(FuzzRegression, RegionBoundaryChangingTypeIsUnsupported) {
  auto module = ParseHloModule(R"(
HloModule m, num_partitions=8
ENTRY %e {
  %a = f16[6,16] parameter(0), sharding={devices=[1,2,4]<=[8] last_tile_dim_replicate}
  %am = f32[6,8] custom-call(%a), custom_call_target="SPMDFullToShardShape", sharding={devices=[1,2,2,2]<=[8] last_tile_dims={manual, replicated}}
  %l = f32[6,8] log-plus-one(%am), sharding={devices=[1,2,2,2]<=[8] last_tile_dims={manual, replicated}}
  ROOT %f = f32[6,16] custom-call(%l), custom_call_target="SPMDShardToFullShape", sharding={devices=[1,2,4]<=[8] last_tile_dim_replicate}
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  auto result = PartitionAndCleanUp(**module, PartitionOptions{8});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kUnimplemented) << result.status();
  EXPECT_THAT(std::string(result.status().message()), ::testing::HasSubstr("SPMDFullToShardShape from f16 to f32"));
}

TEST(FuzzRegression, MixedPrecisionTupleIsUnsupported) {
  auto module = ParseHloModule(R"(
HloModule m, num_partitions=4
ENTRY e {
  a = f32[4,4] parameter(0), sharding={devices=[2,2]<=[4]}
  b = f16[4,4] parameter(1), sharding={replicated}
  ROOT t = (f32[4,4], f32[4,4]) tuple(a, b), sharding={{devices=[2,2]<=[4]}, {replicated}}
})");
  ASSERT_TRUE(module.ok()) << module.status();
  ASSERT_TRUE(VerifyModule(**module).ok());
  auto result = PartitionAndCleanUp(**module, PartitionOptions{4});
  EXPECT_EQ(result.status().code(), absl::StatusCode::kUnimplemented) << result.status();
  EXPECT_THAT(std::string(result.status().message()), ::testing::HasSubstr("mixed precision is not partitioned"));
}

// concatenate(f32, f64) declared f32 (mixed precision the verifier accepts): its type is
// inferred from the first operand, so only the partitioned value showed the f64 (an internal
// error, found by pipeline_fuzzer after 645,597 executions); unsupported, exit 3.
TEST(FuzzRegression, MixedPrecisionConcatenateIsUnsupported) {
  auto module = ParseHloModule(R"(
HloModule m, num_partitions=4
ENTRY %e {
  %p4 = f32[8,16] parameter(0)
  %m4 = f32[8,16] negate(%p4)
  %p5 = f64[8,16] parameter(1), sharding={maximal device=0}
  ROOT %cc3 = f32[8,32] concatenate(%m4, %p5), dimensions={1}, sharding={devices=[1,4]<=[4]}
})");
  ASSERT_TRUE(module.ok()) << module.status();
  ASSERT_TRUE(VerifyModule(**module).ok());
  auto result = PartitionAndCleanUp(**module, PartitionOptions{4});
  EXPECT_EQ(result.status().code(), absl::StatusCode::kUnimplemented) << result.status();
  EXPECT_THAT(std::string(result.status().message()),
              ::testing::HasSubstr("%cc3: mixed precision is not partitioned: the concatenate declares f32[8,32] "
                                   "from operands f32[8,16], f64[8,16]"));
}

// A ragged-dot whose lhs_batch_dims names a dimension the lhs does not have: shape inference
// read it for the group-size prefix before the dot's dimension numbers were checked (a heap
// overflow under ASan, found by pipeline_fuzzer); now a located bad-input error.
TEST(FuzzRegression, RaggedDotBatchDimOutOfRange) {
  auto module = ParseHloModule(R"(
HloModule rd
ENTRY main {
  l4 = f32[2,3,1] parameter(0)
  r4 = f32[2,2,1,1] parameter(1)
  g4 = s32[2,2] parameter(2)
  ROOT m4 = f32[2,3,1] ragged-dot(l4, r4, g4), lhs_batch_dims={5}, lhs_contracting_dims={2}, rhs_batch_dims={1}, rhs_contracting_dims={2}, lhs_ragged_dims={1}, rhs_group_dims={0}
})");
  ASSERT_TRUE(module.ok()) << module.status();
  Status verified = VerifyModule(**module);
  EXPECT_EQ(verified.code(), absl::StatusCode::kInvalidArgument) << verified;
  EXPECT_THAT(std::string(verified.message()), ::testing::HasSubstr("out of range")) << verified;
}

// An unbounded dynamic dimension reaching the partitioner: it computed shard shapes from the
// `?` (a partitioned module that does not verify, found by pipeline_fuzzer); unsupported.
TEST(FuzzRegression, UnboundedDynamicDimensionIsUnsupported) {
  auto module = ParseHloModule(R"(
HloModule m, num_partitions=4
ENTRY %e {
  %p1 = f32[?,16] parameter(0)
  %b = f32[6,16] copy(%p1), sharding={devices=[4,1]<=[4]}
  ROOT %nb = f32[6,16] negate(%b)
})");
  ASSERT_TRUE(module.ok()) << module.status();
  auto result = PartitionAndCleanUp(**module, PartitionOptions{4});
  EXPECT_EQ(result.status().code(), absl::StatusCode::kUnimplemented) << result.status();
  EXPECT_THAT(std::string(result.status().message()),
              ::testing::HasSubstr("%p1 (f32[?,16]): unbounded dynamic dimensions are not partitioned"));
}

}  // namespace
}  // namespace spmdc

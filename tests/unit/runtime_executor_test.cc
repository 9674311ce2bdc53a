// The SPMD executor: host split/assemble round trips, and hand-written per-device modules using
// partition-id and every collective, run on several device threads.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "hlo/parser.h"
#include "runtime/executor.h"
#include "runtime/host_sharding.h"
#include "sharding/sharding_text.h"

namespace spmdc {
namespace {

Sharding S(const std::string& text) {
  auto s = ParseSharding(text);
  EXPECT_TRUE(s.ok()) << text << ": " << s.status();
  return s.ok() ? *s : Sharding::Replicate();
}

template <typename T>
Literal Lit(DType t, std::vector<int64_t> dims, const std::vector<T>& values) {
  Literal l(Shape(t, std::move(dims)));
  EXPECT_EQ(static_cast<int64_t>(values.size() * sizeof(T)), l.size_bytes());
  if (!values.empty()) std::memcpy(l.mutable_raw(), values.data(), values.size() * sizeof(T));
  return l;
}
template <typename T>
std::vector<T> Values(const Literal& l) {
  std::vector<T> out(l.size_bytes() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), l.raw(), out.size() * sizeof(T));
  return out;
}
Literal IotaF32(std::vector<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), 1.0f);
  return Lit<float>(DType::kF32, std::move(dims), v);
}

// ---- split / assemble -------------------------------------------------------------------------

struct RoundTrip {
  std::string sharding;
  std::vector<int64_t> dims;
  int64_t devices;
};

class SplitAssemble : public ::testing::TestWithParam<RoundTrip> {};

TEST_P(SplitAssemble, RoundTrips) {
  const RoundTrip& c = GetParam();
  const Sharding s = S(c.sharding);
  const Literal global = IotaF32(c.dims);
  std::vector<Literal> shards;
  for (int64_t d = 0; d < c.devices; ++d) {
    auto shard = ShardForDevice(global, s, d);
    ASSERT_TRUE(shard.ok()) << shard.status();
    EXPECT_EQ(shard->shape().dims(), s.ShardShape(global.shape()).dims());
    // Every element of the shard is the global element at offset + index, or a zero pad.
    const auto lo = s.TileOffsetForDevice(global.shape(), d);
    const auto hi = s.TileLimitForDevice(global.shape(), d);
    const auto& sd = shard->shape().dims();
    const auto sv = Values<float>(*shard);
    const auto gv = Values<float>(global);
    const auto gs = RowMajorStrides(c.dims);
    std::vector<int64_t> idx(sd.size(), 0);
    for (size_t lin = 0; lin < sv.size(); ++lin) {
      bool inside = !s.IsMaximal() || s.UniqueDevice() == d;  // maximal: zeros elsewhere
      int64_t g = 0;
      for (size_t i = 0; i < sd.size(); ++i) {
        inside &= lo[i] + idx[i] < hi[i];
        g += (lo[i] + idx[i]) * gs[i];
      }
      ASSERT_EQ(sv[lin], inside ? gv[g] : 0.0f) << c.sharding << " device " << d << " at " << lin;
      for (int64_t i = int64_t(sd.size()) - 1; i >= 0; --i) {
        if (++idx[i] < sd[i]) break;
        idx[i] = 0;
      }
    }
    shards.push_back(*std::move(shard));
  }
  auto back = AssembleFromShards(shards, s, global.shape());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->BitwiseEqual(global)) << c.sharding;
}

INSTANTIATE_TEST_SUITE_P(
    Shardings, SplitAssemble,
    ::testing::Values(
        RoundTrip{"{devices=[2,2]0,1,2,3}", {4, 6}, 4},
        RoundTrip{"{devices=[4,1]0,1,2,3}", {7, 5}, 4},  // uneven
        RoundTrip{"{devices=[4,1]0,1,2,3}", {3, 5}, 4},  // an empty tile
        RoundTrip{"{devices=[1,3]0,1,2}", {2, 8}, 3},    // uneven columns
        RoundTrip{"{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}", {5, 3}, 4},
        RoundTrip{"{devices=[2,2]<=[2,2]T(1,0)}", {6, 5}, 4},  // iota transposed
        RoundTrip{"{devices=[2,2,2]<=[2,2,2]T(2,0,1) last_tile_dim_replicate}", {3, 9}, 8},
        RoundTrip{"{devices=[2,2]3,1,0,2}", {4, 4}, 4}, RoundTrip{"{replicated}", {3, 3}, 2},
        RoundTrip{"{maximal device=1}", {2, 3}, 3}, RoundTrip{"{devices=[8]<=[8]}", {13}, 8}));

TEST(HostSharding, MaximalGivesZerosElsewhere) {
  const Literal g = IotaF32({2, 2});
  auto on0 = ShardForDevice(g, S("{maximal device=1}"), 0);
  auto on1 = ShardForDevice(g, S("{maximal device=1}"), 1);
  ASSERT_TRUE(on0.ok() && on1.ok());
  EXPECT_EQ(Values<float>(*on0), (std::vector<float>{0, 0, 0, 0}));
  EXPECT_TRUE(on1->BitwiseEqual(g));
}

TEST(HostSharding, ManualLeavesStackOneValuePerGroup) {
  // Fully manual on 2 devices: host f32[2,3] holds device d's f32[3] at row d.
  const Literal g = IotaF32({2, 3});
  EXPECT_EQ(HostShape(Shape(DType::kF32, {3}), S("{manual}"), 2).dims(), (std::vector<int64_t>{2, 3}));
  auto d1 = ShardForDevice(g, S("{manual}"), 1);
  ASSERT_TRUE(d1.ok()) << d1.status();
  EXPECT_EQ(Values<float>(*d1), (std::vector<float>{4, 5, 6}));
  auto d0 = ShardForDevice(g, S("{manual}"), 0);
  auto back = AssembleFromShards({*d0, *d1}, S("{manual}"), Shape(DType::kF32, {3}));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->BitwiseEqual(g));
  // A host value without the group dim is refused.
  EXPECT_EQ(ShardForDevice(IotaF32({1, 3}), S("{manual}"), 1).status().code(), absl::StatusCode::kInvalidArgument);
  // Two manual groups {0,2} and {1,3}, each tiling its f32[4] in two: device 3 holds group 1's
  // second half.
  const Sharding sub = S("{devices=[2,2]<=[2,2]T(1,0) last_tile_dims={manual}}");
  const Literal h = IotaF32({2, 4});
  std::vector<Literal> shards;
  for (int64_t d = 0; d < 4; ++d) {
    auto x = ShardForDevice(h, sub, d);
    ASSERT_TRUE(x.ok()) << x.status();
    shards.push_back(*x);
  }
  EXPECT_EQ(Values<float>(shards[3]), (std::vector<float>{7, 8}));
  auto whole = AssembleFromShards(shards, sub, Shape(DType::kF32, {4}));
  ASSERT_TRUE(whole.ok()) << whole.status();
  EXPECT_TRUE(whole->BitwiseEqual(h));
}

TEST(HostSharding, TuplesPerLeaf) {
  const Literal t = Literal::Tuple({IotaF32({4}), IotaF32({2, 2})});
  const Sharding ts = S("{{devices=[2]0,1}, {replicated}}");
  auto s1 = ShardForDevice(t, ts, 1);
  ASSERT_TRUE(s1.ok()) << s1.status();
  EXPECT_EQ(Values<float>(s1->element(0)), (std::vector<float>{3, 4}));
  EXPECT_EQ(Values<float>(s1->element(1)), (std::vector<float>{1, 2, 3, 4}));
  auto s0 = ShardForDevice(t, ts, 0);
  auto back = AssembleFromShards({*s0, *s1}, ts, t.shape());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->element(0).BitwiseEqual(t.element(0)));
  EXPECT_TRUE(back->element(1).BitwiseEqual(t.element(1)));
}

// ---- per-device modules -----------------------------------------------------------------------

StatusOr<Literal> RunSpmd(const std::string& hlo, int64_t parts, std::vector<Literal> args,
                          std::vector<Sharding> in, const Sharding& out, SpmdOptions opts = {}) {
  auto m = ParseHloModule(hlo);
  if (!m.ok()) return m.status();
  return ExecuteSpmd(**m, parts, args, in, out, opts);
}

constexpr char kAdd[] = R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
)";

TEST(Executor, PartitionId) {
  auto r = RunSpmd(R"(HloModule m, num_partitions=4
ENTRY e {
  p = u32[] partition-id()
  ROOT b = u32[2] broadcast(p), dimensions={}
})",
                   4, {}, {}, S("{devices=[4]0,1,2,3}"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<uint32_t>(*r), (std::vector<uint32_t>{0, 0, 1, 1, 2, 2, 3, 3}));
}

TEST(Executor, AllReduceAcrossPartitions) {
  // x is f32[8,4] split in row blocks; the all-reduce sums the four blocks.
  const Literal x = IotaF32({8, 4});
  auto r = RunSpmd(std::string("HloModule m, num_partitions=4\n") + kAdd + R"(
ENTRY e {
  p = f32[2,4] parameter(0)
  ROOT ar = f32[2,4] all-reduce(p), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=add
})",
                   4, {x}, {S("{devices=[4,1]0,1,2,3}")}, S("{replicated}"));
  ASSERT_TRUE(r.ok()) << r.status();
  const auto xv = Values<float>(x);
  std::vector<float> want(8);
  for (int i = 0; i < 8; ++i)
    for (int b = 0; b < 4; ++b) want[i] += xv[b * 8 + i];
  EXPECT_EQ(Values<float>(*r), want);
}

TEST(Executor, AllReduceIotaGroupsAndCustomReducer) {
  // Groups [2,2]<=[2,2]T(1,0) = {0,2},{1,3}; the reducer is max written as compare+select.
  auto r = RunSpmd(R"(HloModule m, num_partitions=4
mx {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  c = pred[] compare(a, b), direction=GT
  ROOT s = s32[] select(c, a, b)
}
ENTRY e {
  p = u32[] partition-id()
  q = s32[] convert(p)
  k = s32[] constant(7)
  m = s32[] multiply(q, k)
  five = s32[] constant(5)
  r = s32[] remainder(m, five)
  b = s32[1] broadcast(r), dimensions={}
  ROOT ar = s32[1] all-reduce(b), channel_id=1, replica_groups=[2,2]<=[2,2]T(1,0), use_global_device_ids=true, to_apply=mx
})",
                   4, {}, {}, S("{devices=[4]0,1,2,3}"));
  ASSERT_TRUE(r.ok()) << r.status();
  // values (7p mod 5): p0=0 p1=2 p2=4 p3=1 -> groups {0,2}: 4, {1,3}: 2
  EXPECT_EQ(Values<int32_t>(*r), (std::vector<int32_t>{4, 2, 4, 2}));
}

TEST(Executor, AllGatherDims) {
  const Literal x = IotaF32({4, 6});
  // Gather the column blocks back within pairs {0,1} and {2,3}: rows stay split in two.
  auto r = RunSpmd(R"(HloModule m, num_partitions=4
ENTRY e {
  p = f32[2,3] parameter(0)
  ROOT ag = f32[2,6] all-gather(p), channel_id=1, replica_groups={{0,1},{2,3}}, dimensions={1}, use_global_device_ids=true
})",
                   4, {x}, {S("{devices=[2,2]0,1,2,3}")},
                   S("{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->BitwiseEqual(x)) << r->ToHloText();
  // Dim 0 over all four.
  auto r0 = RunSpmd(R"(HloModule m, num_partitions=4
ENTRY e {
  p = f32[1,6] parameter(0)
  ROOT ag = f32[4,6] all-gather(p), channel_id=1, replica_groups={}, dimensions={0}
})",
                    4, {x}, {S("{devices=[4,1]0,1,2,3}")}, S("{replicated}"));
  ASSERT_TRUE(r0.ok()) << r0.status();
  EXPECT_TRUE(r0->BitwiseEqual(x));
}

TEST(Executor, ReduceScatter) {
  // Every device holds the whole x and scales it by (partition+1); the reduce-scatter sums and
  // leaves device d the d-th column block: 10 * x there.
  const Literal x = IotaF32({2, 8});
  auto r = RunSpmd(std::string("HloModule m, num_partitions=4\n") + kAdd + R"(
ENTRY e {
  x = f32[2,8] parameter(0)
  p = u32[] partition-id()
  one = u32[] constant(1)
  q = u32[] add(p, one)
  f = f32[] convert(q)
  fb = f32[2,8] broadcast(f), dimensions={}
  y = f32[2,8] multiply(x, fb)
  ROOT rs = f32[2,2] reduce-scatter(y), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, dimensions={1}, to_apply=add
})",
                   4, {x}, {S("{replicated}")}, S("{devices=[1,4]0,1,2,3}"));
  ASSERT_TRUE(r.ok()) << r.status();
  auto xv = Values<float>(x);
  for (auto& v : xv) v *= 10;
  EXPECT_EQ(Values<float>(*r), xv);
}

TEST(Executor, AllToAllArrayAndTupleForms) {
  // Row-sharded x becomes column-sharded: split columns, concatenate rows.
  const Literal x = IotaF32({4, 8});
  auto r = RunSpmd(R"(HloModule m, num_partitions=4
ENTRY e {
  p = f32[1,8] parameter(0)
  ROOT a = f32[4,2] all-to-all(p), channel_id=1, replica_groups={{0,1,2,3}}, dimensions={0}, split_dimension=1
})",
                   4, {x}, {S("{devices=[4,1]0,1,2,3}")}, S("{devices=[1,4]0,1,2,3}"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->BitwiseEqual(x)) << r->ToHloText();
  // Tuple form on two devices: element j goes to device j.
  auto t = RunSpmd(R"(HloModule m, num_partitions=2
ENTRY e {
  p = u32[] partition-id()
  a = u32[1] broadcast(p), dimensions={}
  k = u32[] constant(10)
  q = u32[] add(p, k)
  b = u32[1] broadcast(q), dimensions={}
  ROOT t = (u32[1], u32[1]) all-to-all(a, b), channel_id=1, replica_groups={{0,1}}
})",
                   2, {}, {}, S("{{devices=[2]0,1}, {devices=[2]0,1}}"));
  ASSERT_TRUE(t.ok()) << t.status();
  // device 0 receives (a from 0, a from 1) = (0, 1); device 1 receives (b from 0, b from 1).
  EXPECT_EQ(Values<uint32_t>(t->element(0)), (std::vector<uint32_t>{0, 10}));
  EXPECT_EQ(Values<uint32_t>(t->element(1)), (std::vector<uint32_t>{1, 11}));
}

TEST(Executor, CollectivePermuteShiftAndZeros) {
  const Literal x = IotaF32({4, 2});
  auto r = RunSpmd(R"(HloModule m, num_partitions=4
ENTRY e {
  p = f32[1,2] parameter(0)
  ROOT cp = f32[1,2] collective-permute(p), channel_id=1, source_target_pairs={{0,1},{1,2},{2,3}}
})",
                   4, {x}, {S("{devices=[4,1]0,1,2,3}")}, S("{devices=[4,1]0,1,2,3}"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<float>(*r), (std::vector<float>{0, 0, 1, 2, 3, 4, 5, 6}));
}

TEST(Executor, CollectiveBroadcast) {
  auto r = RunSpmd(R"(HloModule m, num_partitions=4
ENTRY e {
  p = u32[] partition-id()
  b = u32[1] broadcast(p), dimensions={}
  ROOT cb = u32[1] collective-broadcast(b), channel_id=1, replica_groups={{3,0},{1,2}}
})",
                   4, {}, {}, S("{devices=[4]0,1,2,3}"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<uint32_t>(*r), (std::vector<uint32_t>{3, 1, 1, 3}));
}

TEST(Executor, AllReduceInWhileLoop) {
  // x <- all-reduce(x) five times over three devices: 3^5 * sum of the starts.
  auto r = RunSpmd(R"(HloModule m, num_partitions=3
sum {
  a = s64[] parameter(0)
  b = s64[] parameter(1)
  ROOT s = s64[] add(a, b)
}
cond {
  t = (s32[], s64[2]) parameter(0)
  i = s32[] get-tuple-element(t), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  t = (s32[], s64[2]) parameter(0)
  i = s32[] get-tuple-element(t), index=0
  x = s64[2] get-tuple-element(t), index=1
  y = s64[2] all-reduce(x), channel_id=1, replica_groups={}, to_apply=sum
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT o = (s32[], s64[2]) tuple(j, y)
}
ENTRY e {
  p = u32[] partition-id()
  q = s64[] convert(p)
  x = s64[2] broadcast(q), dimensions={}
  z = s32[] constant(0)
  init = (s32[], s64[2]) tuple(z, x)
  w = (s32[], s64[2]) while(init), condition=cond, body=body
  ROOT y = s64[2] get-tuple-element(w), index=1
})",
                   3, {}, {}, S("{replicated}"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<int64_t>(*r), (std::vector<int64_t>{3 * 81, 3 * 81}));
}

TEST(Executor, UnevenResultCropped) {
  // f32[7] over 4 devices: shards of 2, the last one holds one element and a pad.
  const Literal x = IotaF32({7});
  SpmdOptions opts;
  opts.global_result_shape = Shape(DType::kF32, {7});
  auto r = RunSpmd(R"(HloModule m, num_partitions=4
ENTRY e {
  p = f32[2] parameter(0)
  ROOT n = f32[2] negate(p)
})",
                   4, {x}, {S("{devices=[4]0,1,2,3}")}, S("{devices=[4]0,1,2,3}"), opts);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<float>(*r), (std::vector<float>{-1, -2, -3, -4, -5, -6, -7}));
}

TEST(Executor, ReplicasAndPartitions) {
  // 2 replicas x 2 partitions; no channel_id: cross-replica sums (ids r*2+p).
  std::vector<Literal> raw;
  SpmdOptions opts;
  opts.device_results = &raw;
  auto r = RunSpmd(std::string("HloModule m, num_partitions=2, replica_count=2\n") + R"(
add {
  a = u32[] parameter(0)
  b = u32[] parameter(1)
  ROOT s = u32[] add(a, b)
}
ENTRY e {
  r = u32[] replica-id()
  p = u32[] partition-id()
  ten = u32[] constant(10)
  rt = u32[] multiply(r, ten)
  v = u32[] add(rt, p)
  b = u32[1] broadcast(v), dimensions={}
  ROOT ar = u32[1] all-reduce(b), replica_groups={}, to_apply=add
})",
                   2, {}, {}, S("{devices=[2]0,1}"), opts);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<uint32_t>(*r), (std::vector<uint32_t>{10, 12}));
  ASSERT_EQ(raw.size(), 4u);
  EXPECT_EQ(Values<uint32_t>(raw[3]), (std::vector<uint32_t>{12}));
}

TEST(Executor, ErrorOnOneDeviceDoesNotHang) {
  // Device 1 is the target of two pairs: it fails; the others, waiting in the permute, abort.
  auto r = RunSpmd(R"(HloModule m, num_partitions=3
ENTRY e {
  p = f32[2] parameter(0)
  ROOT cp = f32[2] collective-permute(p), channel_id=1, source_target_pairs={{0,1},{2,1}}
})",
                   3, {IotaF32({2})}, {S("{replicated}")}, S("{replicated}"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(std::string(r.status().message()).find("device 1"), std::string::npos) << r.status();
  // Bad replica groups fail on every device.
  auto g = RunSpmd(std::string("HloModule m, num_partitions=2\n") + kAdd + R"(
ENTRY e {
  p = f32[2] parameter(0)
  ROOT ar = f32[2] all-reduce(p), channel_id=1, replica_groups={{0,5}}, to_apply=add
})",
                   2, {IotaF32({2})}, {}, S("{replicated}"));
  EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument) << g.status();
}

TEST(Executor, DeviceSkippingACollectiveFailsInsteadOfHanging) {
  // Only partition 0 enters the all-reduce; partition 1 finishes, so partition 0 must fail.
  auto r = RunSpmd(std::string("HloModule m, num_partitions=2\n") + kAdd + R"(
tb {
  a = f32[2] parameter(0)
  ROOT ar = f32[2] all-reduce(a), channel_id=1, replica_groups={{0,1}}, use_global_device_ids=true, to_apply=add
}
fb {
  ROOT a = f32[2] parameter(0)
}
ENTRY e {
  x = f32[2] parameter(0)
  p = u32[] partition-id()
  z = u32[] constant(0)
  c = pred[] compare(p, z), direction=EQ
  ROOT r = f32[2] conditional(c, x, x), true_computation=tb, false_computation=fb
})",
                   2, {IotaF32({2})}, {}, S("{replicated}"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(std::string(r.status().message()).find("device 1 finished"), std::string::npos)
      << r.status();
}

TEST(Executor, ArgumentsMustFitParameters) {
  auto r = RunSpmd(R"(HloModule m, num_partitions=2
ENTRY e {
  ROOT p = f32[3] parameter(0)
})",
                   2, {IotaF32({4})}, {S("{devices=[2]0,1}")}, S("{devices=[2]0,1}"));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  // Shardings must span exactly the partitions.
  auto w = RunSpmd(R"(HloModule m, num_partitions=2
ENTRY e {
  ROOT p = f32[2] parameter(0)
})",
                   2, {IotaF32({4})}, {S("{devices=[2]0,1}")}, S("{devices=[4]0,1,2,3}"));
  EXPECT_EQ(w.status().code(), absl::StatusCode::kInvalidArgument);
  auto k = RunSpmd(R"(HloModule m, num_partitions=2
ENTRY e {
  ROOT p = f32[4] parameter(0)
})",
                   2, {IotaF32({4})}, {S("{maximal device=3}")}, S("{replicated}"));
  EXPECT_EQ(k.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace spmdc

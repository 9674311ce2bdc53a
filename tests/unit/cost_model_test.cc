// The cost model against what really happens: predicted peak memory per device against the
// runtime's measured peak of live buffers (within 5%) on the example models and every
// transformer strategy, and per-device communication against the textbook formulas of each
// parallelism strategy, written out below.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "cost/cost.h"
#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "models/models.h"
#include "partitioner/partitioner.h"
#include "propagation/propagation.h"
#include "runtime/executor.h"
#include "runtime/host_values.h"
#include "sharding/sharding_text.h"

namespace spmdc {
namespace {

std::unique_ptr<Module> Parse(const std::string& text) {
  auto m = ParseHloModule(text, "test");
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? std::move(*m) : nullptr;
}

struct Compiled {
  std::unique_ptr<Module> original;
  PartitionResult partitioned;
};

Compiled Compile(const std::string& text, int64_t n, bool to_output = true) {
  Compiled c;
  c.original = Parse(text);
  c.original->set_num_partitions(n);
  PropagationOptions popts;
  if (to_output) popts.allow_to_output = std::vector<bool>{true};
  EXPECT_TRUE(PropagateShardings(*c.original, popts).ok());
  auto r = PartitionAndCleanUp(*c.original, PartitionOptions{n});
  EXPECT_TRUE(r.ok()) << r.status();
  c.partitioned = std::move(*r);
  return c;
}

// --- Memory: predicted peak = measured peak ---------------------------------------------------

struct MemoryCase {
  std::string name;
  std::string text;
  int64_t n;
};

class PeakMemoryTest : public ::testing::TestWithParam<MemoryCase> {};

TEST_P(PeakMemoryTest, PredictedPeakMatchesMeasuredPeak) {
  const MemoryCase& mc = GetParam();
  Compiled c = Compile(mc.text, mc.n);
  std::vector<Literal> args = RandomArguments(*c.original, /*seed=*/7);
  SpmdOptions sopts;
  sopts.global_result_shape = c.original->entry()->root()->shape();
  std::vector<int64_t> measured;
  sopts.device_peak_bytes = &measured;
  auto result = ExecuteSpmd(*c.partitioned.module, mc.n, args, c.partitioned.parameter_shardings,
                            c.partitioned.result_sharding, sopts);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(static_cast<int64_t>(measured.size()), mc.n);
  const int64_t measured_peak = *std::max_element(measured.begin(), measured.end());

  CostOptions copts;
  copts.num_partitions = mc.n;
  MemoryEstimate predicted = EstimateMemory(*c.partitioned.module, copts);
  std::printf("%s: predicted peak %lld bytes, measured %lld (%+.2f%%)\n", mc.name.c_str(),
              static_cast<long long>(predicted.peak_bytes), static_cast<long long>(measured_peak),
              100.0 * (predicted.peak_bytes - measured_peak) / std::max<int64_t>(measured_peak, 1));
  EXPECT_GT(measured_peak, 0);
  EXPECT_NEAR(static_cast<double>(predicted.peak_bytes), static_cast<double>(measured_peak), 0.05 * measured_peak)
      << mc.name << ": predicted " << predicted.peak_bytes << " bytes, measured " << measured_peak;
  // The values listed at the peak are live there: they cannot add up to more than the peak.
  int64_t listed = 0;
  for (const LiveValue& v : predicted.live_at_peak) listed += v.bytes;
  EXPECT_LE(listed, predicted.peak_bytes);
}

std::string Transformer(int64_t data, int64_t model) {
  TransformerOptions o;
  o.batch = 8;
  o.seq = 8;
  o.model = 64;
  o.heads = 8;
  o.ffn = 128;
  o.layers = 2;
  o.parallel.data = data;
  o.parallel.model = model;
  return BuildTransformerTrainingStep(o);
}

std::string Example(int64_t data, int64_t model, bool transformer) {
  if (!transformer) {
    MlpOptions o;
    o.parallel.data = data;
    o.parallel.model = model;
    return BuildMlpTrainingStep(o);
  }
  TransformerOptions o;  // what `spmdc example transformer*` emits
  o.vocab = 32;
  o.parallel.data = data;
  o.parallel.model = model;
  return BuildTransformerTrainingStep(o);
}

std::vector<MemoryCase> MemoryCases() {
  std::vector<MemoryCase> cases = {
      {"example_mlp", Example(1, 1, false), 1},
      {"example_mlp_2d", Example(2, 4, false), 8},
      {"example_transformer", Example(1, 1, true), 1},
      {"example_transformer_dp", Example(4, 1, true), 4},
      {"example_transformer_tp", Example(1, 4, true), 4},
      {"example_transformer_2d", Example(2, 4, true), 8},
  };
  // Every strategy of the transformer acceptance test (transformer_spmd_test.cc).
  for (auto [d, m] : std::vector<std::pair<int64_t, int64_t>>{{2, 1}, {1, 2}, {4, 1}, {1, 4}, {2, 2}, {8, 1}, {1, 8}, {2, 4}, {4, 2}})
    cases.push_back({fmt::format("transformer_data{}_model{}", d, m), Transformer(d, m), d * m});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Models, PeakMemoryTest, ::testing::ValuesIn(MemoryCases()),
                         [](const ::testing::TestParamInfo<MemoryCase>& info) { return info.param.name; });

// --- Communication: per-device bytes against the textbook formulas ----------------------------

namespace comm {

CostOptions OnMesh(const std::string& mesh, int64_t n) {
  CostOptions o;
  o.num_partitions = n;
  o.mesh = *Mesh::Parse(mesh);
  return o;
}

std::vector<CollectiveCost> CollectivesOf(const Compiled& c, const CostOptions& o) {
  return AnalyzeCollectives(*c.partitioned.module, o, nullptr);
}

std::string Describe(const std::vector<CollectiveCost>& cs) {
  std::string s;
  for (const CollectiveCost& c : cs)
    s += fmt::format("  {} {} on {} (n={}): bytes {} wire {}\n", c.name, c.kind, c.axes, c.group_size,
                     c.bytes_per_device, c.wire_bytes_per_device);
  return s;
}

// Ring all-reduce of B bytes over n devices sends 2(n-1)/n·B per device.
int64_t RingAllReduceWire(int64_t b, int64_t n) { return 2 * (n - 1) * b / n; }

TEST(CommunicationTest, DataParallelGradientAllReduceIsTheParameterBytes) {
  // Batch large enough that all-reducing weight gradients is cheaper than moving activations.
  MlpOptions o;
  o.batch = 2048;
  o.input = 64;
  o.hidden = 96;
  o.output = 32;
  o.layers = 2;
  o.parallel.data = 4;
  const int64_t n = 4;
  Compiled c = Compile(BuildMlpTrainingStep(o), n);
  auto cs = CollectivesOf(c, OnMesh("data=4", n));
  // Textbook: one all-reduce of every weight gradient over the data axis, so the bytes each
  // device contributes are the parameter bytes, 4·(64·96 + 96·32); the loss adds one scalar.
  const int64_t param_bytes = 4 * (64 * 96 + 96 * 32);
  int64_t gradient_bytes = 0, gradient_wire = 0;
  for (const CollectiveCost& k : cs) {
    ASSERT_EQ(k.kind, "all-reduce") << Describe(cs);
    EXPECT_EQ(k.mesh_axes, std::vector<std::string>{"data"}) << Describe(cs);
    EXPECT_EQ(k.wire_bytes_per_device, RingAllReduceWire(k.bytes_per_device, n));
    if (k.bytes_per_device <= 4) continue;  // the loss
    gradient_bytes += k.bytes_per_device;
    gradient_wire += k.wire_bytes_per_device;
  }
  EXPECT_EQ(gradient_bytes, param_bytes) << Describe(cs);
  EXPECT_EQ(gradient_wire, 2 * 3 * param_bytes / 4);
}

TEST(CommunicationTest, MegatronForwardAllReducesTwoActivationsPerLayer) {
  // One transformer-shaped layer: column-parallel QKV then row-parallel output projection,
  // column-parallel FFN-in then row-parallel FFN-out (the attention core is elementwise here).
  Compiled c = Compile(R"(
HloModule megatron_forward, num_partitions=4
ENTRY megatron {
  x = f32[8,16,64] parameter(0), sharding={replicated}
  wqkv = f32[64,192] parameter(1), sharding={devices=[1,4]<=[4]}
  wo = f32[192,64] parameter(2), sharding={devices=[4,1]<=[4]}
  w1 = f32[64,256] parameter(3), sharding={devices=[1,4]<=[4]}
  w2 = f32[256,64] parameter(4), sharding={devices=[4,1]<=[4]}
  qkv = f32[8,16,192] dot(x, wqkv), lhs_contracting_dims={2}, rhs_contracting_dims={0}
  act = f32[8,16,192] tanh(qkv)
  attn = f32[8,16,64] dot(act, wo), lhs_contracting_dims={2}, rhs_contracting_dims={0}
  h = f32[8,16,64] add(x, attn)
  f = f32[8,16,256] dot(h, w1), lhs_contracting_dims={2}, rhs_contracting_dims={0}
  g = f32[8,16,256] tanh(f)
  m = f32[8,16,64] dot(g, w2), lhs_contracting_dims={2}, rhs_contracting_dims={0}
  ROOT out = f32[8,16,64] add(h, m), sharding={replicated}
}
)", 4, /*to_output=*/false);
  auto cs = CollectivesOf(c, OnMesh("model=4", 4));
  // Megatron (Shoeybi et al. 2019, §3): per layer forward, 2 all-reduces of the B·S·D
  // activations over the tensor-parallel axis.
  const int64_t activation = 4 * 8 * 16 * 64;
  ASSERT_EQ(cs.size(), 2u) << Describe(cs);
  for (const CollectiveCost& k : cs) {
    EXPECT_EQ(k.kind, "all-reduce");
    EXPECT_EQ(k.mesh_axes, std::vector<std::string>{"model"});
    EXPECT_EQ(k.bytes_per_device, activation);
    EXPECT_EQ(k.wire_bytes_per_device, 2 * 3 * activation / 4);  // 2(n-1)/n·B, n = 4
  }
}

TEST(CommunicationTest, FsdpAllGathersParametersAndReduceScattersGradients) {
  Compiled c = Compile(R"(
HloModule fsdp, num_partitions=4
ENTRY fsdp {
  x = f32[512,64] parameter(0), sharding={devices=[4,1]<=[4]}
  w = f32[64,128] parameter(1), sharding={devices=[4,1]<=[4]}
  dy = f32[512,128] parameter(2), sharding={devices=[4,1]<=[4]}
  y = f32[512,128] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}, sharding={devices=[4,1]<=[4]}
  dw = f32[64,128] dot(x, dy), lhs_contracting_dims={0}, rhs_contracting_dims={0}, sharding={devices=[4,1]<=[4]}
  ROOT t = (f32[512,128], f32[64,128]) tuple(y, dw), sharding={{devices=[4,1]<=[4]}, {devices=[4,1]<=[4]}}
}
)", 4);
  auto cs = CollectivesOf(c, OnMesh("fsdp=4", 4));
  // ZeRO-3 (Rajbhandari et al. 2020): the forward all-gathers the parameter (each device
  // contributes |W|/n and sends (n-1)/n·|W|), the backward reduce-scatters its gradient (each
  // device contributes the full |W| partial sum and sends (n-1)/n·|W|).
  const int64_t w = 4 * 64 * 128;
  ASSERT_EQ(cs.size(), 2u) << Describe(cs);
  EXPECT_EQ(cs[0].kind, "all-gather") << Describe(cs);
  EXPECT_EQ(cs[0].bytes_per_device, w / 4);
  EXPECT_EQ(cs[0].wire_bytes_per_device, 3 * w / 4);
  EXPECT_EQ(cs[1].kind, "reduce-scatter") << Describe(cs);
  EXPECT_EQ(cs[1].bytes_per_device, w);
  EXPECT_EQ(cs[1].wire_bytes_per_device, 3 * w / 4);
  for (const CollectiveCost& k : cs) EXPECT_EQ(k.mesh_axes, std::vector<std::string>{"fsdp"});
}

TEST(CommunicationTest, TwoDimensionalSplitsActivationAndGradientTrafficByAxis) {
  // Batch over `data`, Megatron over `model` (devices iota, data major).
  Compiled c = Compile(R"(
HloModule two_d, num_partitions=8
ENTRY two_d {
  x = f32[512,64] parameter(0), sharding={devices=[2,1,4]<=[8] last_tile_dim_replicate}
  w1 = f32[64,256] parameter(1), sharding={devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}
  w2 = f32[256,64] parameter(2), sharding={devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}
  dy = f32[512,64] parameter(3), sharding={devices=[2,1,4]<=[8] last_tile_dim_replicate}
  h = f32[512,256] dot(x, w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  g = f32[512,256] tanh(h)
  y = f32[512,64] dot(g, w2), lhs_contracting_dims={1}, rhs_contracting_dims={0}, sharding={devices=[2,1,4]<=[8] last_tile_dim_replicate}
  dw2 = f32[256,64] dot(g, dy), lhs_contracting_dims={0}, rhs_contracting_dims={0}, sharding={devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}
  ROOT t = (f32[512,64], f32[256,64]) tuple(y, dw2)
}
)", 8);
  auto cs = CollectivesOf(c, OnMesh("data=2,model=4", 8));
  // The row-parallel matmul all-reduces its (B/data)·D output over `model` (n = 4); the weight
  // gradient, its batch split over `data`, all-reduces its |W2|/model shard over `data` (n = 2).
  const int64_t activation = 4 * (512 / 2) * 64;
  const int64_t gradient_shard = 4 * 256 * 64 / 4;
  ASSERT_EQ(cs.size(), 2u) << Describe(cs);
  int64_t seen = 0;
  for (const CollectiveCost& k : cs) {
    ASSERT_EQ(k.kind, "all-reduce") << Describe(cs);
    if (k.mesh_axes == std::vector<std::string>{"model"}) {
      EXPECT_EQ(k.bytes_per_device, activation);
      EXPECT_EQ(k.wire_bytes_per_device, RingAllReduceWire(activation, 4));
      seen |= 1;
    } else {
      EXPECT_EQ(k.mesh_axes, std::vector<std::string>{"data"}) << Describe(cs);
      EXPECT_EQ(k.bytes_per_device, gradient_shard);
      EXPECT_EQ(k.wire_bytes_per_device, RingAllReduceWire(gradient_shard, 2));  // = B for n = 2
      seen |= 2;
    }
  }
  EXPECT_EQ(seen, 3) << Describe(cs);
}

TEST(CommunicationTest, ExpertParallelAllToAll) {
  // A per-device MoE dispatch and combine: tokens [experts=4, capacity=8, d=16] exchanged over
  // the expert axis of a data=2 x expert=4 mesh.
  auto m = Parse(R"(
HloModule moe_dispatch, num_partitions=8
ENTRY moe {
  tokens = f32[4,8,16] parameter(0)
  dispatched = f32[4,8,16] all-to-all(tokens), channel_id=1, replica_groups=[2,4]<=[8], dimensions={0}
  experts = f32[4,8,16] tanh(dispatched)
  ROOT combined = f32[4,8,16] all-to-all(experts), channel_id=2, replica_groups=[2,4]<=[8], dimensions={0}
}
)");
  auto hw = LoadHardwareProfile("h100");
  ASSERT_TRUE(hw.ok()) << hw.status();
  auto cs = AnalyzeCollectives(*m, OnMesh("data=2,expert=4", 8), &*hw);
  // Each device sends (n-1)/n of its tokens (the rest stay with its own expert), n = 4.
  const int64_t tokens = 4 * 4 * 8 * 16;
  ASSERT_EQ(cs.size(), 2u);
  for (const CollectiveCost& k : cs) {
    EXPECT_EQ(k.kind, "all-to-all");
    EXPECT_EQ(k.mesh_axes, std::vector<std::string>{"expert"});
    EXPECT_EQ(k.bytes_per_device, tokens);
    EXPECT_EQ(k.wire_bytes_per_device, 3 * tokens / 4);
    // α–β: n-1 pairwise steps inside one NVLink node (devices 0..7).
    EXPECT_EQ(k.link, "nvlink");
    EXPECT_DOUBLE_EQ(k.seconds, 3 * hw->links[0].latency + (3.0 * tokens / 4) / hw->links[0].bandwidth);
  }
}

TEST(CommunicationTest, SpatialHaloExchangesOneRowEachWay) {
  // A 3x3 convolution (padding 1) with H split 4 ways: every device needs one row of each
  // neighbour, a collective-permute of B·1·W·C elements in each direction.
  Compiled c = Compile(R"(
HloModule halo, num_partitions=4
ENTRY halo {
  x = f32[2,16,16,8] parameter(0), sharding={devices=[1,4,1,1]<=[4]}
  k = f32[3,3,8,8] parameter(1), sharding={replicated}
  ROOT y = f32[2,16,16,8] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, sharding={devices=[1,4,1,1]<=[4]}
}
)", 4);
  auto cs = CollectivesOf(c, OnMesh("h=4", 4));
  const int64_t row = 4 * 2 * 1 * 16 * 8;
  ASSERT_EQ(cs.size(), 2u) << Describe(cs);
  for (const CollectiveCost& k : cs) {
    EXPECT_EQ(k.kind, "collective-permute");
    EXPECT_EQ(k.mesh_axes, std::vector<std::string>{"h"});
    EXPECT_EQ(k.bytes_per_device, row);
    EXPECT_EQ(k.wire_bytes_per_device, row);
  }
}

}  // namespace comm
}  // namespace
}  // namespace spmdc

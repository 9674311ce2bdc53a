// Acceptance test of issue 4: a 2-layer transformer training step annotated for data, tensor
// (Megatron) and 2-D parallelism propagates, partitions without any full rematerialization, and
// computes on 2, 4 and 8 in-process devices what the single-device program computes.
#include <cmath>

#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "interpreter/interpreter.h"
#include "models/models.h"
#include "partitioner/partitioner.h"
#include "passes/passes.h"
#include "propagation/propagation.h"
#include "runtime/executor.h"

namespace spmdc {
namespace {

struct Config {
  int64_t data, model;
};

class TransformerSpmdTest : public ::testing::TestWithParam<Config> {};

std::vector<Literal> Leaves(const Literal& l) {
  if (!l.shape().IsTuple()) return {l};
  std::vector<Literal> out;
  for (const Literal& e : l.elements())
    for (Literal& x : Leaves(e)) out.push_back(std::move(x));
  return out;
}

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

  std::vector<Literal> args;
  uint64_t state = 12345;
  for (Instruction* p : module->entry()->parameters()) {
    Literal l(p->shape());
    for (int64_t i = 0; i < l.num_elements(); ++i) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      if (IsFloat(p->shape().dtype())) l.SetDouble(i, static_cast<double>(state >> 40) / (1ull << 24) - 0.5);
      else l.SetInt(i, static_cast<int64_t>((state >> 40) % 4));
    }
    args.push_back(std::move(l));
  }
  SingleDeviceContext one;
  auto reference = Execute(*module, args, &one);
  ASSERT_TRUE(reference.ok()) << reference.status();

  PropagationOptions popts;
  popts.allow_to_output = std::vector<bool>{true};
  ASSERT_TRUE(PropagateShardings(*module, popts).ok());
  auto partitioned = PartitionModule(*module, PartitionOptions{n});
  ASSERT_TRUE(partitioned.ok()) << partitioned.status();
  EXPECT_TRUE(partitioned->stats.warnings.empty())
      << "first warning: " << (partitioned->stats.warnings.empty() ? "" : partitioned->stats.warnings[0]);
  ASSERT_TRUE(RunCleanup(*partitioned->module).ok());
  SpmdOptions sopts;
  sopts.global_result_shape = module->entry()->root()->shape();
  auto result = ExecuteSpmd(*partitioned->module, n, args, partitioned->parameter_shardings,
                            partitioned->result_sharding, sopts);
  ASSERT_TRUE(result.ok()) << result.status();

  std::vector<Literal> got = Leaves(*result), want = Leaves(*reference);
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

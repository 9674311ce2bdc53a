// The GShard MoE example (models/examples.h MoeOptions: a top-2 MoE transformer trained with
// Adam, expert parallel over `data`): on 2, 4 and 8 in-process devices it computes what the
// single-device program computes, and its communication is exactly GShard's.
//
// Communication, per device (n devices; G = B groups of S tokens, E experts, capacity C, model
// dim D; f32, 4 bytes):
//   all-to-all   the expert inputs [E,G,C,D] are computed where the tokens are (split over G)
//                and resharded onto the experts (split over E), and the expert outputs back:
//                two forward, and their two transposes backward, each of E·(G/n)·C·D·4 bytes
//                per device, of which a device sends (n-1)/n;
//   all-reduce   one per gradient of a weight replicated over `data` (every weight but the
//                experts' wi and wo, which are split over it), of that weight's bytes, plus the
//                loss (a mean over the split batch) and the load-balancing loss's sum over the
//                split groups (scalars);
// and nothing else: the experts' weights, their gradients and their Adam moments never leave
// their devices.
#include <cmath>

#include "cost/cost.h"
#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "interpreter/interpreter.h"
#include "models/examples.h"
#include "partitioner/partitioner.h"
#include "propagation/propagation.h"
#include "runtime/executor.h"
#include "runtime/host_values.h"

namespace spmdc {
namespace {

class MoeTest : public ::testing::TestWithParam<int64_t> {};

TEST_P(MoeTest, VerifiesWithGShardCommunication) {
  const int64_t n = GetParam();
  const TransformerOptions o = MoeOptions(n);
  auto parsed = ParseHloModule(BuildTransformerTrainingStep(o), "moe");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  std::unique_ptr<Module> module = std::move(*parsed);
  ASSERT_EQ(module->num_partitions(), n);

  std::vector<Literal> args = RandomArguments(*module, /*seed=*/7);
  SingleDeviceContext one;
  auto reference = Execute(*module, args, &one);
  ASSERT_TRUE(reference.ok()) << reference.status();

  ASSERT_TRUE(PropagateShardings(*module).ok());
  auto partitioned = PartitionAndCleanUp(*module, PartitionOptions{n});
  ASSERT_TRUE(partitioned.ok()) << partitioned.status();
  SpmdOptions sopts;
  sopts.global_result_shape = module->entry()->root()->shape();
  auto result = ExecuteSpmd(*partitioned->module, n, args, partitioned->parameter_shardings,
                            partitioned->result_sharding, sopts);
  ASSERT_TRUE(result.ok()) << result.status();
  std::vector<Literal> got = FlattenLeaves(*result), want = FlattenLeaves(*reference);
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < got.size(); ++k) {
    ASSERT_EQ(got[k].shape().dims(), want[k].shape().dims());
    for (int64_t i = 0; i < want[k].num_elements(); ++i) {
      const double w = want[k].GetDouble(i);
      ASSERT_NEAR(got[k].GetDouble(i), w, 1e-4 * std::max(1.0, std::fabs(w))) << "output " << k << " element " << i;
    }
  }

  // The communication, against the formula above.
  const int64_t G = o.batch, S = o.seq, E = o.experts, D = o.model;
  const int64_t C = static_cast<int64_t>(std::ceil(o.capacity_factor * 2.0 * S / E));
  ASSERT_EQ(C, 5);
  const int64_t moe_layers = o.layers / o.moe_every;
  CostOptions copts;
  copts.num_partitions = n;
  const std::vector<CollectiveCost> collectives = AnalyzeCollectives(*partitioned->module, copts, nullptr);
  int64_t all_to_all = 0, all_reduce_bytes = 0, scalar_all_reduces = 0;
  std::string listing;
  for (const CollectiveCost& c : collectives) {
    listing += c.name + " " + c.kind + " " + std::to_string(c.bytes_per_device) + "\n";
    EXPECT_EQ(c.group_size, n) << c.name;
    if (c.kind == "all-to-all") {
      ++all_to_all;
      EXPECT_EQ(c.bytes_per_device, E * (G / n) * C * D * 4) << c.name;
      EXPECT_EQ(c.wire_bytes_per_device, E * (G / n) * C * D * 4 * (n - 1) / n) << c.name;
    } else {
      ASSERT_EQ(c.kind, "all-reduce") << c.name << "\n" << listing;
      all_reduce_bytes += c.bytes_per_device;
      scalar_all_reduces += c.bytes_per_device == 4;
    }
  }
  EXPECT_EQ(all_to_all, 4 * moe_layers) << listing;
  int64_t replicated_weight_bytes = 0;
  for (const Instruction* p : module->entry()->parameters()) {
    const std::string& name = p->name();
    const bool state = name.rfind("m_", 0) == 0 || name.rfind("v_", 0) == 0 || name.rfind("step", 0) == 0;
    const bool expert = name.find("_wi") != std::string::npos || name.find("_wo_experts") != std::string::npos;
    if (name.rfind("x", 0) == 0 || name.rfind("labels", 0) == 0 || state || expert) continue;
    replicated_weight_bytes += p->shape().byte_size();
  }
  // The loss and one load-balancing term per MoE layer (or their sum, when the clean-up
  // reassociated them into one all-reduce).
  EXPECT_GE(scalar_all_reduces, 1) << listing;
  EXPECT_LE(scalar_all_reduces, 1 + moe_layers) << listing;
  EXPECT_EQ(all_reduce_bytes, replicated_weight_bytes + 4 * scalar_all_reduces) << listing;
}

INSTANTIATE_TEST_SUITE_P(Devices, MoeTest, ::testing::Values(2, 4, 8),
                         [](const ::testing::TestParamInfo<int64_t>& info) {
                           return "experts_over_" + std::to_string(info.param);
                         });

}  // namespace
}  // namespace spmdc

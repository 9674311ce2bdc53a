// partitioner/weight_update.h: sharding the weight update across data-parallel replicas.
// On the transformer trained with Adam on 8 replicas (`spmdc example transformer-adam`) the
// sharded update computes what the single-device step computes, every gradient all-reduce has
// become a reduce-scatter plus an all-gather of the new weight with the same wire bytes, and the
// optimizer state per device is 1/8 of data parallelism's; keep-sharded leaves the new weights
// sharded; weights no dim of which the replicas divide are padded, not replicated; outputs that
// are no update are left alone, saying why.
#include <cmath>

#include "cost/cost.h"
#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "interpreter/interpreter.h"
#include "models/examples.h"
#include "partitioner/partitioner.h"
#include "partitioner/weight_update.h"
#include "propagation/propagation.h"
#include "runtime/executor.h"
#include "runtime/host_values.h"

namespace spmdc {
namespace {

struct Partitioned {
  WeightUpdateResult update;
  PartitionResult partitioned;
  std::unique_ptr<Module> module;  // propagated (and sharded), unpartitioned
};

// Propagates, optionally shards the update, partitions, and checks the result on n devices
// against the single-device program.
Partitioned PartitionAndCheck(const std::string& text, int64_t n, std::optional<WeightUpdateOptions> options) {
  auto parsed = ParseHloModule(text, "model");
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  Partitioned run;
  run.module = std::move(*parsed);
  run.module->set_num_partitions(n);
  std::vector<Literal> args = RandomArguments(*run.module, /*seed=*/3);
  SingleDeviceContext one;
  auto reference = Execute(*run.module, args, &one);
  EXPECT_TRUE(reference.ok()) << reference.status();
  EXPECT_TRUE(PropagateShardings(*run.module).ok());
  if (options) {
    auto r = ShardWeightUpdate(*run.module, *options);
    EXPECT_TRUE(r.ok()) << r.status();
    run.update = *r;
  }
  auto partitioned = PartitionAndCleanUp(*run.module, PartitionOptions{n});
  EXPECT_TRUE(partitioned.ok()) << partitioned.status();
  run.partitioned = std::move(*partitioned);
  SpmdOptions sopts;
  sopts.global_result_shape = run.module->entry()->root()->shape();
  auto result = ExecuteSpmd(*run.partitioned.module, n, args, run.partitioned.parameter_shardings,
                            run.partitioned.result_sharding, sopts);
  EXPECT_TRUE(result.ok()) << result.status();
  if (!result.ok() || !reference.ok()) return run;
  std::vector<Literal> got = FlattenLeaves(*result), want = FlattenLeaves(*reference);
  EXPECT_EQ(got.size(), want.size());
  for (size_t k = 0; k < got.size() && k < want.size(); ++k) {
    for (int64_t i = 0; i < want[k].num_elements(); ++i) {
      const double w = want[k].GetDouble(i);
      EXPECT_NEAR(got[k].GetDouble(i), w, 1e-4 * std::max(1.0, std::fabs(w))) << "output " << k << " element " << i;
      if (std::fabs(got[k].GetDouble(i) - w) > 1e-4 * std::max(1.0, std::fabs(w))) return run;
    }
  }
  return run;
}

WeightUpdateOptions Over(const char* mesh, bool keep_sharded = false) {
  WeightUpdateOptions o;
  o.mesh = *Mesh::Parse(mesh);
  o.axis = "data";
  o.keep_sharded = keep_sharded;
  return o;
}

struct Traffic {
  std::map<std::string, int64_t> count;
  int64_t wire = 0;
};

Traffic TrafficOf(const Module& per_device, int64_t n) {
  CostOptions copts;
  copts.num_partitions = n;
  Traffic t;
  for (const CollectiveCost& c : AnalyzeCollectives(per_device, copts, nullptr)) {
    ++t.count[c.kind];
    t.wire += c.wire_bytes_per_device;
  }
  return t;
}

// Bytes per device of the entry parameters whose name starts with m_ or v_ (Adam's moments).
int64_t StateBytes(const Module& per_device) {
  int64_t bytes = 0;
  for (const Instruction* p : per_device.entry()->parameters())
    if (p->name().rfind("m_", 0) == 0 || p->name().rfind("v_", 0) == 0) bytes += p->shape().byte_size();
  return bytes;
}

TEST(WeightUpdateTest, AdamOnEightReplicas) {
  const std::string text = BuildTransformerTrainingStep(AdamDataParallelOptions(8));
  Partitioned plain = PartitionAndCheck(text, 8, std::nullopt);
  Partitioned sharded = PartitionAndCheck(text, 8, Over("data=8"));
  const int64_t weights = static_cast<int64_t>(sharded.update.updates.size());
  ASSERT_GT(weights, 20);
  EXPECT_TRUE(sharded.update.skipped.empty()) << sharded.update.skipped[0];
  int64_t state = 0, state_before = 0, state_after = 0;
  for (const auto& u : sharded.update.updates) {
    EXPECT_EQ(u.weights.size(), 1u);
    EXPECT_EQ(u.state.size(), 2u);  // m and v
    EXPECT_FALSE(u.padded);
    state += static_cast<int64_t>(u.state.size());
    state_before += u.state_bytes_before;
    state_after += u.state_bytes_after;
  }
  EXPECT_EQ(state, 2 * weights);

  // Optimizer state: 1/8 per device, in the partitioned programs and in the summary's figures.
  EXPECT_EQ(StateBytes(*sharded.partitioned.module) * 8, StateBytes(*plain.partitioned.module));
  EXPECT_EQ(state_before, StateBytes(*plain.partitioned.module));
  EXPECT_EQ(state_after, StateBytes(*sharded.partitioned.module));
  // Communication: each weight's all-reduce is now a reduce-scatter and an all-gather, with
  // the same wire bytes; the loss's all-reduce stays.
  Traffic dp = TrafficOf(*plain.partitioned.module, 8), wus = TrafficOf(*sharded.partitioned.module, 8);
  EXPECT_EQ(dp.count["all-reduce"], weights + 1);
  EXPECT_EQ(wus.count["all-reduce"], 1);
  EXPECT_EQ(wus.count["reduce-scatter"], weights);
  EXPECT_EQ(wus.count["all-gather"], weights);
  EXPECT_NEAR(static_cast<double>(wus.wire), static_cast<double>(dp.wire), 2.0 * (weights + 1));
}

TEST(WeightUpdateTest, KeepShardedLeavesNewWeightsSharded) {
  const std::string text = BuildTransformerTrainingStep(AdamDataParallelOptions(4));
  Partitioned run = PartitionAndCheck(text, 4, Over("data=4", /*keep_sharded=*/true));
  ASSERT_FALSE(run.update.updates.empty());
  // Every weight parameter and its new value are split over the replicas: the forward pass
  // all-gathers the weights, the update gathers nothing back.
  const Instruction* root = run.module->entry()->root();
  for (int64_t i = 1; i < root->operand_count(); ++i) {
    const Sharding& s = root->sharding()->tuple_elements()[i];
    EXPECT_FALSE(s.IsReplicated()) << "output " << i << " (" << root->operand(i)->name() << ")";
  }
  Traffic t = TrafficOf(*run.partitioned.module, 4);
  EXPECT_EQ(t.count["reduce-scatter"], static_cast<int64_t>(run.update.updates.size()));
  EXPECT_GE(t.count["all-gather"], static_cast<int64_t>(run.update.updates.size()));
}

TEST(WeightUpdateTest, UnevenWeightsArePaddedNotReplicated) {
  MlpOptions o;
  o.batch = 16;
  o.input = 20;
  o.hidden = 36;
  o.output = 12;
  o.parallel.data = 8;
  Partitioned run = PartitionAndCheck(BuildMlpTrainingStep(o), 8, Over("data=8"));
  ASSERT_EQ(run.update.updates.size(), 2u);
  for (const auto& u : run.update.updates) EXPECT_TRUE(u.padded);
  EXPECT_EQ(TrafficOf(*run.partitioned.module, 8).count["reduce-scatter"], 2);
}

TEST(WeightUpdateTest, GradientOutputsAreNoUpdate) {
  MlpOptions o;
  o.parallel.data = 4;
  o.output_gradients = true;
  Partitioned run = PartitionAndCheck(BuildMlpTrainingStep(o), 4, Over("data=4"));
  EXPECT_TRUE(run.update.updates.empty());
  ASSERT_EQ(run.update.skipped.size(), 2u);
  EXPECT_NE(run.update.skipped[0].find("reads no weight"), std::string::npos) << run.update.skipped[0];
}

TEST(WeightUpdateTest, UnknownAxisIsAnError) {
  auto m = ParseHloModule(BuildTransformerTrainingStep(AdamDataParallelOptions(4)), "model");
  ASSERT_TRUE(m.ok());
  WeightUpdateOptions o = Over("batch=4");
  auto r = ShardWeightUpdate(**m, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'data' is not an axis of the mesh"), std::string::npos) << r.status();
}

}  // namespace
}  // namespace spmdc

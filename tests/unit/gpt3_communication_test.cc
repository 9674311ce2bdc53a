// The communication `spmdc report` finds in the GPT-3 175B-shaped training step (`spmdc example
// gpt3`: data = 8 x model = 64, models/examples.h) against the Megatron + data-parallel formula
// derived below, collective by collective: on the full 96-layer model and on a small model of the
// same structure (the same mesh, heads uneven over `model` as 96 over 64 are) with 1 and 2
// layers, so that the per-layer and the fixed terms are each pinned.
//
// Derivation, per device (b = B / data sequences, s tokens each, h = d_model; bf16, 2 bytes;
// m = 64 model devices, d = 8 data devices; H_loc = ceil(H / m) heads per device, padded when
// uneven, Dh = h / H; F_loc = F / m; V_loc = V / m):
//
//  over `model` (Megatron, Shoeybi et al. 2019, §3: f/g operators), all-reduces of b·s·h
//  activations, per layer:
//    forward   the row-parallel attention output projection (wo: the heads are split, so each
//              device holds a partial sum of [b,s,h]) and the row-parallel FFN-out (w2);
//    backward  the gradient of the attention block's LayerNorm output (the transposes of the
//              three column-parallel QKV dots, one partial sum each; their sum is all-reduced
//              once) and that of the FFN block's LayerNorm output (the transpose of w1);
//  so 4 per layer. The vocab-parallel output layer (w_out split on the vocabulary) adds, once:
//    forward   three all-reduces of b·s values over the vocabulary split: the row max of the
//              logits (max), the sum of their exponentials and the logit of the label (sums);
//    backward  one of b·s (the cotangent of the row max, a sum over the vocabulary) and one of
//              b·s·h (the gradient of the final hidden state through w_out's transpose).
//  Nothing else crosses `model`: attention is local to each device's heads, LayerNorms and
//  residuals run on the replicated [b,s,h] activations, the weight gradients of split weights
//  stay split.
//
//  over `data` (data parallelism), one all-reduce per weight gradient of that weight's
//  per-device bytes (the batch is split, every weight is replicated over `data`):
//    per layer: LayerNorm scales and biases and b2 (5·h), wq, wk, wv (h·H_loc·Dh each),
//               wo (H_loc·Dh·h), w1 (h·F_loc), b1 (F_loc), w2 (F_loc·h): 12 all-reduces;
//    once:      the final LayerNorm (2·h), w_out (h·V_loc), and the loss (a scalar: the mean
//               over the batch sums over `data`).
//  Their bytes sum to the per-device weight bytes plus the loss.
//
// Wire bytes (what each device sends): a ring all-reduce sends 2(n-1)/n of its bytes.
#include <algorithm>
#include <cmath>
#include <map>

#include "cost/cost.h"
#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "models/examples.h"
#include "partitioner/partitioner.h"
#include "propagation/propagation.h"

namespace spmdc {
namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// One expected collective: the mesh axis it spans and the bytes each device contributes.
using Expected = std::vector<std::pair<std::string, int64_t>>;

Expected MegatronDataParallelFormula(const TransformerOptions& o) {
  const int64_t bytes = 2;  // bf16
  const int64_t m = o.parallel.model, d = o.parallel.data;
  const int64_t b = o.batch / d, s = o.seq, h = o.model;
  const int64_t Dh = h / o.heads, H_loc = CeilDiv(o.heads, m), F_loc = o.ffn / m, V_loc = o.vocab / m;
  Expected e;
  for (int64_t l = 0; l < o.layers; ++l) {
    for (int k = 0; k < 4; ++k) e.push_back({"model", b * s * h * bytes});
    for (int k = 0; k < 5; ++k) e.push_back({"data", h * bytes});  // ln1, ln2 scale/bias, b2
    for (int k = 0; k < 4; ++k) e.push_back({"data", h * H_loc * Dh * bytes});  // wq, wk, wv, wo
    e.push_back({"data", h * F_loc * bytes});  // w1
    e.push_back({"data", F_loc * bytes});      // b1
    e.push_back({"data", F_loc * h * bytes});  // w2
  }
  for (int k = 0; k < 4; ++k) e.push_back({"model", b * s * bytes});  // max, sum exp, label logit; max's cotangent
  e.push_back({"model", b * s * h * bytes});                          // d(hidden) through w_out
  e.push_back({"data", h * bytes});                                   // lnf scale
  e.push_back({"data", h * bytes});                                   // lnf bias
  e.push_back({"data", h * V_loc * bytes});                           // w_out
  e.push_back({"data", bytes});                                       // the loss
  std::sort(e.begin(), e.end());
  return e;
}

struct Gpt3Case {
  std::string name;
  TransformerOptions options;
};

// The same structure, small enough to partition in milliseconds: 96 heads over 64 devices
// (uneven, as in GPT-3), d_ff = 4 d_model, a vocabulary divisible by 64.
TransformerOptions SmallGpt3(int64_t layers) {
  TransformerOptions o = Gpt3Options();
  o.layers = layers;
  o.seq = 16;
  o.model = 768;  // 96 heads of 8
  o.ffn = 4 * 768;
  o.vocab = 1024;
  return o;
}

void PrintTo(const Gpt3Case& c, std::ostream* os) { *os << c.name; }

class Gpt3CommunicationTest : public ::testing::TestWithParam<Gpt3Case> {};

TEST_P(Gpt3CommunicationTest, MatchesMegatronAndDataParallelFormula) {
  const TransformerOptions& o = GetParam().options;
  const int64_t n = o.parallel.num_devices();
  ASSERT_EQ(n, 512);
  auto parsed = ParseHloModule(BuildTransformerTrainingStep(o), "gpt3");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  std::unique_ptr<Module> module = std::move(*parsed);
  module->set_num_partitions(n);
  ASSERT_TRUE(PropagateShardings(*module).ok());
  auto partitioned = PartitionAndCleanUp(*module, PartitionOptions{n});
  ASSERT_TRUE(partitioned.ok()) << partitioned.status();
  CostOptions copts;
  copts.num_partitions = n;
  copts.mesh = *Mesh::Parse("data=8,model=64");
  StatusOr<HardwareProfile> hw = LoadHardwareProfile("h100");
  ASSERT_TRUE(hw.ok()) << hw.status();
  CostReport report = AnalyzeCost(*partitioned->module, copts, *hw);

  Expected got;
  std::string listing;
  for (const CollectiveCost& c : report.collectives) {
    listing += fmt::format("  {} {} over {}: {} bytes, wire {}\n", c.name, c.kind, c.axes, c.bytes_per_device,
                           c.wire_bytes_per_device);
    EXPECT_EQ(c.kind, "all-reduce") << c.name;
    EXPECT_EQ(c.executions, 1) << c.name;
    ASSERT_EQ(c.mesh_axes.size(), 1u) << c.name << " spans " << c.axes;
    const int64_t ring = c.mesh_axes[0] == "model" ? 64 : 8;
    EXPECT_EQ(c.group_size, ring) << c.name;
    EXPECT_EQ(c.wire_bytes_per_device, std::llround(2.0 * (ring - 1) / ring * c.bytes_per_device)) << c.name;
    got.push_back({c.mesh_axes[0], c.bytes_per_device});
  }
  std::sort(got.begin(), got.end());
  const Expected want = MegatronDataParallelFormula(o);
  EXPECT_EQ(got, want) << "collectives found:\n" << listing;

  // The data-parallel all-reduces carry exactly the per-device weight bytes (plus the loss).
  int64_t weight_bytes = 0;
  for (const Instruction* p : partitioned->module->entry()->parameters())
    if (p->name().rfind("x", 0) != 0 && p->name().rfind("labels", 0) != 0) weight_bytes += p->shape().byte_size();
  int64_t data_bytes = 0;
  for (const auto& [axis, bytes] : got) data_bytes += axis == "data" ? bytes : 0;
  EXPECT_EQ(data_bytes, weight_bytes + 2);
}

INSTANTIATE_TEST_SUITE_P(
    Configs, Gpt3CommunicationTest,
    ::testing::Values(Gpt3Case{"small_1_layer", SmallGpt3(1)}, Gpt3Case{"small_2_layers", SmallGpt3(2)},
                      Gpt3Case{"gpt3_175b", Gpt3Options()}),
    [](const ::testing::TestParamInfo<Gpt3Case>& info) { return info.param.name; });

}  // namespace
}  // namespace spmdc

// The stage search of `spmdc auto --pipeline` (src/auto/stage_search.h, layers.h): the DP
// against brute force on small synthetic cost tables, exact device cover, the per-stage memory
// check (1F1B and GPipe), layer clustering and span extraction on the transformer example, and
// the search's plan against the uniform pipelines on a small GPT.
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <random>

#include "auto/layers.h"
#include "auto/stage_search.h"
#include "cost/hardware.h"
#include "hlo/parser.h"
#include "hlo/printer.h"
#include "ir/verifier.h"
#include "models/examples.h"
#include "models/models.h"

namespace spmdc::autoshard {
namespace {

const HardwareProfile& H100() {
  static const HardwareProfile hw = *LoadHardwareProfile("h100");
  return hw;
}

StageOption Option(std::string mesh, double seconds, int64_t weights, int64_t activations) {
  StageOption o;
  o.mesh = std::move(mesh);
  o.seconds = seconds;
  o.weight_bytes = weights;
  o.activation_bytes = activations;
  return o;
}

// A table of random options: `options` per (span, submesh), seconds growing with the span's
// length and shrinking (imperfectly) with the devices, memory random around the limit.
StageCostTable RandomTable(int layers, const std::vector<Submesh>& submeshes, int options, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.5, 1.5);
  std::uniform_int_distribution<int64_t> bytes(0, 100);
  StageCostTable t(layers, submeshes);
  for (int k = 0; k < layers; ++k)
    for (int i = k; i < layers; ++i)
      for (size_t m = 0; m < submeshes.size(); ++m)
        for (int o = 0; o < options; ++o) {
          StageOption x;
          x.mesh = "option" + std::to_string(o);
          x.seconds = (i - k + 1) * u(rng) / std::sqrt(static_cast<double>(submeshes[m].devices()));
          x.weight_bytes = bytes(rng);
          x.activation_bytes = bytes(rng) / 4;
          t.at(k, i, static_cast<int>(m)).push_back(x);
        }
  return t;
}

// The optimum by enumeration: every split of the layers into spans, every submesh and option per
// span, the devices covered exactly, every stage within memory.
std::optional<double> BruteForce(const StageCostTable& t, const StageSearchOptions& o) {
  const int L = t.num_layers();
  std::optional<double> best;
  std::vector<std::pair<int, int>> spans;
  std::function<void(int)> split = [&](int k) {
    if (k == L) {
      const int S = static_cast<int>(spans.size());
      if (o.stages && S != *o.stages) return;
      std::vector<double> times(S);
      std::function<void(int, int64_t)> choose = [&](int j, int64_t used) {
        if (j == S) {
          if (used != o.num_devices) return;
          const double T = PipelineLatency(times, o.microbatches);
          if (!best || T < *best) best = T;
          return;
        }
        for (size_t m = 0; m < t.submeshes().size(); ++m) {
          const int64_t n = t.submeshes()[m].devices();
          if (used + n > o.num_devices) continue;
          for (const StageOption& x : t.at(spans[j].first, spans[j].second, static_cast<int>(m))) {
            if (x.MemoryBytes(HeldMicrobatches(o.schedule, S - 1 - j, o.microbatches)) > o.memory_limit) continue;
            times[j] = x.seconds;
            choose(j + 1, used + n);
          }
        }
      };
      choose(0, 0);
      return;
    }
    for (int i = k; i < L; ++i) {
      spans.emplace_back(k, i);
      split(i + 1);
      spans.pop_back();
    }
  };
  split(0);
  return best;
}

void ExpectValid(const StageCostTable& t, const StageSearchOptions& o, const StagePlan& p) {
  int64_t devices = 0;
  int next_layer = 0;
  std::vector<double> times;
  for (size_t j = 0; j < p.stages.size(); ++j) {
    const Stage& s = p.stages[j];
    EXPECT_EQ(s.first_layer, next_layer);
    next_layer = s.last_layer + 1;
    devices += t.submeshes()[s.submesh].devices();
    const StageOption& x = t.at(s.first_layer, s.last_layer, s.submesh)[s.option];
    EXPECT_EQ(s.seconds, x.seconds);
    EXPECT_EQ(s.held_microbatches, HeldMicrobatches(o.schedule, p.stages.size() - 1 - j, o.microbatches));
    EXPECT_LE(x.MemoryBytes(s.held_microbatches), o.memory_limit);
    times.push_back(s.seconds);
  }
  EXPECT_EQ(next_layer, t.num_layers());
  EXPECT_EQ(devices, o.num_devices) << "devices must be covered exactly";
  EXPECT_DOUBLE_EQ(p.step_seconds, PipelineLatency(times, o.microbatches));
}

TEST(StageSearch, PipelineLatencyFormula) {
  EXPECT_DOUBLE_EQ(PipelineLatency({1, 2, 3}, 4), 6 + 3 * 3);
  EXPECT_DOUBLE_EQ(PipelineLatency({5}, 1), 5);
  EXPECT_EQ(HeldMicrobatches(PipelineSchedule::k1F1B, 0, 8), 1);
  EXPECT_EQ(HeldMicrobatches(PipelineSchedule::k1F1B, 3, 8), 4);
  EXPECT_EQ(HeldMicrobatches(PipelineSchedule::k1F1B, 20, 8), 8);
  EXPECT_EQ(HeldMicrobatches(PipelineSchedule::kGPipe, 0, 8), 8);
}

TEST(StageSearch, DpEqualsBruteForce) {
  const std::vector<Submesh> subs = {{1, 1}, {1, 2}, {1, 4}};
  int compared = 0;
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    const int layers = 2 + static_cast<int>(seed % 4);  // 2..5
    const StageCostTable t = RandomTable(layers, subs, 2, seed);
    for (PipelineSchedule schedule : {PipelineSchedule::k1F1B, PipelineSchedule::kGPipe}) {
      for (std::optional<int> stages : {std::optional<int>(), std::optional<int>(2)}) {
        StageSearchOptions o;
        o.num_devices = 2 + seed % 5;  // 2..6
        o.microbatches = 1 + seed % 6;
        o.schedule = schedule;
        o.memory_limit = 60 + seed % 50;
        o.stages = stages;
        if (stages && (*stages > layers || *stages > o.num_devices)) continue;
        auto r = SearchStages(t, o);
        ASSERT_TRUE(r.ok()) << r.status();
        const std::optional<double> want = BruteForce(t, o);
        ASSERT_EQ(r->best.has_value(), want.has_value()) << "seed " << seed;
        if (!want) continue;
        EXPECT_NEAR(r->best->step_seconds, *want, 1e-12 * *want) << "seed " << seed;
        if (stages) EXPECT_EQ(static_cast<int>(r->best->stages.size()), *stages);
        ExpectValid(t, o, *r->best);
        if (r->best_uniform) EXPECT_LE(r->best->step_seconds, r->best_uniform->step_seconds);
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 100);
}

TEST(StageSearch, DevicesAreCoveredExactly) {
  // Only 2-device submeshes: 3 devices cannot be covered, 4 can (two stages, or one if allowed).
  const StageCostTable t = RandomTable(3, {{1, 2}}, 1, 7);
  StageSearchOptions o;
  o.num_devices = 3;
  auto r = SearchStages(t, o);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->best.has_value());
  o.num_devices = 4;
  r = SearchStages(t, o);
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->best.has_value());
  EXPECT_EQ(r->best->stages.size(), 2u);
  ExpectValid(t, o, *r->best);
}

TEST(StageSearch, MemoryCheckRejectsAnOverBudgetStage) {
  // Two layers, one 2-device submesh, two options: "fast" needs 100 bytes of weights, "lean"
  // 10 at twice the time. Under a limit of 50, every stage must take "lean".
  StageCostTable t(2, {{1, 2}});
  for (int k = 0; k < 2; ++k)
    for (int i = k; i < 2; ++i) {
      const double len = i - k + 1;
      t.at(k, i, 0).push_back(Option("fast", 1.0 * len, 100, 0));
      t.at(k, i, 0).push_back(Option("lean", 2.0 * len, 10, 0));
    }
  StageSearchOptions o;
  o.num_devices = 4;
  o.microbatches = 4;
  o.memory_limit = 1000;
  auto r = SearchStages(t, o);
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->best);
  for (const Stage& s : r->best->stages) EXPECT_EQ(t.at(s.first_layer, s.last_layer, 0)[s.option].mesh, "fast");
  o.memory_limit = 50;
  r = SearchStages(t, o);
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->best);
  for (const Stage& s : r->best->stages) EXPECT_EQ(t.at(s.first_layer, s.last_layer, 0)[s.option].mesh, "lean");
  EXPECT_DOUBLE_EQ(r->best->step_seconds, PipelineLatency({2, 2}, 4));
  o.memory_limit = 5;
  r = SearchStages(t, o);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->best.has_value());
  EXPECT_FALSE(r->best_uniform.has_value());
}

TEST(StageSearch, OneF1BHoldsMoreMicrobatchesInEarlierStages) {
  // Activations of 10 bytes per microbatch in flight, a limit of 25: a stage with one later
  // stage holds 2 (20 bytes, fits), with two later stages 3 (30, does not). So 3 stages do not
  // fit under 1F1B, 2 do; under GPipe every stage holds all 4 microbatches (40): none fits.
  StageCostTable t(3, {{1, 1}});
  for (int k = 0; k < 3; ++k)
    for (int i = k; i < 3; ++i) t.at(k, i, 0).push_back(Option("m", 1.0 * (i - k + 1), 0, 10));
  StageSearchOptions o;
  o.num_devices = 3;
  o.microbatches = 4;
  o.memory_limit = 25;
  auto r = SearchStages(t, o);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->best.has_value()) << "3 devices need 3 stages, and the first would hold 3 microbatches";
  o.num_devices = 2;
  r = SearchStages(t, o);
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->best.has_value());
  EXPECT_EQ(r->best->stages.size(), 2u);
  EXPECT_EQ(r->best->stages[0].held_microbatches, 2);
  EXPECT_EQ(r->best->stages[0].memory_bytes, 20);
  o.schedule = PipelineSchedule::kGPipe;
  r = SearchStages(t, o);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->best.has_value());
}

TEST(StageSearch, BadStageCounts) {
  const StageCostTable t = RandomTable(3, {{1, 1}}, 1, 3);
  StageSearchOptions o;
  o.num_devices = 8;
  for (int s : {0, 4}) {
    o.stages = s;
    auto r = SearchStages(t, o);
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << s;
  }
  o.stages.reset();
  o.microbatches = 0;
  EXPECT_EQ(SearchStages(t, o).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(StageSearch, RefusesADpPastItsStateBudget) {
  // 301 x 301 x 4097 states of F(s, k, d): past 2^27, a clear exit 3 instead of gigabytes.
  const StageCostTable t(300, {{512, 8}});
  StageSearchOptions o;
  o.num_devices = 4096;
  EXPECT_EQ(SearchStages(t, o).status().code(), absl::StatusCode::kUnimplemented);
}

std::unique_ptr<Module> SmallGpt(int layers) {
  TransformerOptions g = SmallTransformerOptions();
  g.layers = layers;
  auto m = ParseHloModule(BuildTransformerTrainingStep(g));
  EXPECT_TRUE(m.ok()) << m.status();
  return std::move(*m);
}

TEST(LayerClustering, TransformerLayersAndTieClasses) {
  std::unique_ptr<Module> m = SmallGpt(5);
  auto l = ClusterLayers(*m);
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_TRUE(l->repeated);
  ASSERT_EQ(l->num_layers, 5);
  EXPECT_EQ(l->period_segments, 2);  // attention block, feed-forward block
  // The body is tied; the first layer (no input gradient) and the last (the loss) are not.
  EXPECT_EQ(l->tie_class[1], l->tie_class[2]);
  EXPECT_EQ(l->tie_class[2], l->tie_class[3]);
  EXPECT_NE(l->tie_class[0], l->tie_class[1]);
  EXPECT_NE(l->tie_class[4], l->tie_class[1]);
  EXPECT_EQ(l->num_classes, 3);
  EXPECT_EQ(l->instructions[1], l->instructions[2]);
  // Between layers: the residual stream forward (B x S x D f32), its gradient (in one or two
  // forms, as the layer norm's backward reads it) back; nothing crosses the ends.
  const int64_t activation = 4 * 16 * 64 * 4;
  ASSERT_EQ(l->forward_bytes.size(), 6u);
  EXPECT_EQ(l->forward_bytes[0], 0);
  EXPECT_EQ(l->backward_bytes[5], 0);
  for (int b = 1; b < 5; ++b) {
    EXPECT_EQ(l->forward_bytes[b], activation) << b;
    EXPECT_GE(l->backward_bytes[b], activation) << b;
    EXPECT_LE(l->backward_bytes[b], 2 * activation) << b;
  }
  // Every weight sits in the layer its name says.
  for (size_t i = 0; i < l->schedule.size(); ++i) {
    const Instruction* x = l->schedule[i];
    if (x->opcode() != Opcode::kParameter || x->name()[0] != 'l' || !std::isdigit(x->name()[1])) continue;
    EXPECT_EQ(l->layer_of[i], x->name()[1] - '0') << x->name();
  }
}

TEST(LayerClustering, AValueReadAcrossTheWholeForwardPassIsEveryLayersInput) {
  // `e` is read by the first and the last dot (a tied embedding): it crosses every cut, and
  // counting it would leave no single-value cut at all.
  auto m = ParseHloModule(R"(
HloModule tied

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY tied {
  x = f32[4,8] parameter(0)
  e = f32[8,8] parameter(1)
  w1 = f32[8,8] parameter(2)
  w2 = f32[8,8] parameter(3)
  w3 = f32[8,8] parameter(4)
  h0 = f32[4,8] dot(x, e), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  a1 = f32[4,8] dot(h0, w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  h1 = f32[4,8] tanh(a1)
  a2 = f32[4,8] dot(h1, w2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  h2 = f32[4,8] tanh(a2)
  a3 = f32[4,8] dot(h2, w3), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  h3 = f32[4,8] tanh(a3)
  out = f32[4,8] dot(h3, e), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  zero = f32[] constant(0)
  ROOT loss = f32[] reduce(out, zero), dimensions={0,1}, to_apply=add
}
)");
  ASSERT_TRUE(m.ok()) << m.status();
  auto l = ClusterLayers(**m);
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_TRUE(l->repeated);
  EXPECT_EQ(l->num_layers, 3);  // (dot, tanh) three times; the first dot and the loss join the ends
  auto last = ExtractLayers(**m, *l, 2, 2);
  ASSERT_TRUE(last.ok()) << last.status();
  bool reads_e = false;
  for (const Instruction* p : (*last)->entry()->parameters()) reads_e = reads_e || p->name() == "e";
  EXPECT_TRUE(reads_e) << "the last layer takes the tied weight as its own parameter";
}

TEST(LayerClustering, ExtractedSpansAreValidModules) {
  std::unique_ptr<Module> m = SmallGpt(4);
  auto l = ClusterLayers(*m);
  ASSERT_TRUE(l.ok());
  for (auto [first, last] : {std::pair{0, 0}, {1, 2}, {3, 3}, {0, 3}}) {
    auto sub = ExtractLayers(*m, *l, first, last);
    ASSERT_TRUE(sub.ok()) << sub.status();
    EXPECT_TRUE(VerifyModule(**sub).ok()) << VerifyModule(**sub);
    int inputs = 0;
    std::string names;
    for (const Instruction* p : (*sub)->entry()->parameters())
      if (p->name().find(".in") != std::string::npos) {
        ++inputs;
        names += " " + p->name();
        for (const Instruction* x : m->entry()->instructions())
          if (x->name() + ".in" == p->name()) names += " = " + PrintInstruction(*x) + "\n";
      }
    // Each boundary brings one or two values (the activation; the output gradient, which the
    // layer-norm backward reads in two forms); the whole model brings none.
    const int boundaries = (first == 0 ? 0 : 1) + (last == 3 ? 0 : 1);
    EXPECT_GE(inputs, boundaries) << first << "-" << last << names;
    EXPECT_LE(inputs, 2 * boundaries) << first << "-" << last << names;
  }
  EXPECT_EQ(ExtractLayers(*m, *l, 2, 4).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(PlanPipeline, SearchIsNoSlowerThanTheBestUniformPlanOnASmallGpt) {
  std::unique_ptr<Module> m = SmallGpt(4);
  PipelineOptions o;
  o.num_devices = 4;
  o.hardware = &H100();
  o.microbatches = 4;
  o.work_limit = 5'000'000;  // a small model: the default budget is for GPT-3-sized layers
  auto r = PlanPipeline(*m, o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->layers.num_layers, 4);
  // 3 classes and 3 distinct consecutive pairs, on every logical mesh.
  EXPECT_EQ(r->unit_pricings, 6 * r->logical_meshes);
  ASSERT_TRUE(r->search.best);
  ASSERT_TRUE(r->search.best_uniform);
  EXPECT_LE(r->search.best->step_seconds, r->search.best_uniform->step_seconds);
  for (const StagePlan& u : r->search.uniform) EXPECT_LE(r->search.best->step_seconds, u.step_seconds);
  // Uniform plans of 1, 2 and 4 stages exist (4 devices and 4 layers split evenly).
  std::set<size_t> counts;
  for (const StagePlan& u : r->search.uniform) counts.insert(u.stages.size());
  EXPECT_EQ(counts, (std::set<size_t>{1, 2, 4}));
  StageSearchOptions so;
  so.num_devices = 4;
  so.microbatches = 4;
  so.memory_limit = r->memory_limit;
  ExpectValid(r->table, so, *r->search.best);
  // The pipelined program follows the chosen plan when its stages are uniform, else the best
  // uniform one; either way with a representative layer's plan: its weights' shardings by name.
  ASSERT_TRUE(r->emission);
  const StagePlan& emitted = r->emission->chosen ? *r->search.best : *r->search.best_uniform;
  EXPECT_EQ(r->emission->chosen, r->search.best->uniform);
  EXPECT_EQ(r->emission->plan.step_seconds, emitted.step_seconds);
  EXPECT_EQ(r->emission->stages, static_cast<int>(emitted.stages.size()));
  EXPECT_EQ(r->emission->devices_per_stage * r->emission->stages, 4);
  ASSERT_NE(r->emission->layer_plan, nullptr);
  bool weight = false;
  for (const auto& [name, sharding] : r->emission->layer_plan->parameters) weight = weight || name.find("_wq") != std::string::npos;
  EXPECT_TRUE(weight);
  // A fixed stage count.
  o.stages = 2;
  auto two = PlanPipeline(*m, o);
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_EQ(two->search.best->stages.size(), 2u);
  EXPECT_GE(two->search.best->step_seconds, r->search.best->step_seconds);
  o.stages = 5;
  EXPECT_EQ(PlanPipeline(*m, o).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace spmdc::autoshard

// pipeline/layer_plan.h and what `spmdc auto --pipeline` does with it: the module the stage search
// plans (the layer-call form inlined, its layers on one microbatch, a scan's stacked weights as
// rows), the layers it gives the clustering, the plan carried back onto the layer computations
// (CarryPlan: shardings, parameters by their readers, reshards as custom calls) and through the
// pipeline's vmap (StageSharding, stage-major devices), and the pipelined program of the search's
// emitted plan computing what the unpipelined step computes on one device — with a stage mesh
// that has a model axis too.
#include <fstream>
#include <sstream>

#include "auto/layers.h"
#include "auto/plan.h"
#include "auto/stage_search.h"
#include "cost/hardware.h"
#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "interpreter/interpreter.h"
#include "models/gpt_pipeline.h"
#include "partitioner/partitioner.h"
#include "pipeline/layer_batching.h"
#include "pipeline/layer_forms.h"
#include "pipeline/layer_plan.h"
#include "pipeline/pipeline.h"
#include "propagation/propagation.h"
#include "runtime/executor.h"
#include "runtime/host_values.h"
#include "runtime/result_comparison.h"
#include "sharding/sharding_text.h"

namespace spmdc {
namespace {

using pipeline::InlinedLayers;
using pipeline::InlineLayerCalls;

std::unique_ptr<Module> Parse(const std::string& text) {
  auto m = ParseHloModule(text, "test");
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? std::move(*m) : nullptr;
}

std::unique_ptr<Module> Gpt(int64_t data = 1) {
  GptPipelineOptions o;
  o.data = data;
  o.learning_rate = 0.5f;  // large enough that a wrong gradient shows in the new weights
  return Parse(BuildGptPipelineTrainingStep(o));
}

std::unique_ptr<Module> ReadSource(const std::string& path) {
  std::ifstream in(std::string(SPMDC_SOURCE_DIR) + "/" + path);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream text;
  text << in.rdbuf();
  return Parse(text.str());
}

const Instruction* Find(const Module& m, const std::string& name) {
  for (const Computation* c : m.computations())
    for (const Instruction* i : c->instructions())
      if (i->name() == name) return i;
  return nullptr;
}

TEST(StageSharding, StagesAreTheOutermostAxis) {
  EXPECT_EQ(pipeline::PipelinedDevice(/*d=*/1, /*s=*/2, /*source_devices=*/2), 5);
  const Sharding rows = *ParseSharding("{devices=[2,1]<=[2]}");
  // Staged: [S, 2, 1] with stage s on devices 2s, 2s+1.
  EXPECT_EQ(pipeline::StageSharding(rows, 2, 2, 4, 1, true)->ToString(false), "{devices=[4,2,1]<=[8]}");
  // Unstaged: every tile on its source device at each stage.
  EXPECT_EQ(pipeline::StageSharding(rows, 2, 2, 4, 0, false)->ToString(false),
            "{devices=[2,1,4]<=[4,2]T(1,0) last_tile_dim_replicate}");
  // A leading unsplit dim after the stage's.
  EXPECT_EQ(pipeline::StageSharding(rows, 2, 2, 4, 2, true)->ToString(false), "{devices=[4,1,2,1]<=[8]}");
  // Replicated over the source devices, split over the stages.
  EXPECT_EQ(pipeline::StageSharding(Sharding::Replicate(), 2, 2, 4, 1, true)->ToString(false),
            "{devices=[4,1,1,2]<=[8] last_tile_dim_replicate}");
  EXPECT_FALSE(pipeline::StageSharding(Sharding::Manual(), 2, 2, 4, 1, true));
}

// gpt-pipeline's 8 layer calls inlined on microbatches of 16/4 = 4 examples: every copy named
// with its layer, the clustering taking those layers (3 tie classes: the first layer, which
// computes no input cotangent... its own; the 6 inner ones; the last, with the head), the
// backward's gradients named for accumulation, and each layer's input and input cotangent.
TEST(InlineLayerCalls, GivesTheStageSearchThePipelinesLayersOnAMicrobatch) {
  auto m = Gpt();
  auto chain = pipeline::FindLayerChain(*m);
  ASSERT_TRUE(chain.ok()) << chain.status();
  auto inlined = InlineLayerCalls(*m, /*microbatches=*/4);
  ASSERT_TRUE(inlined.ok()) << inlined.status();
  const Module& p = *inlined->module;
  // The layer calls are inlined (the head's call stays: `spmdc auto` inlines the rest).
  for (const Instruction* i : p.entry()->instructions())
    if (i->opcode() == Opcode::kCall)
      EXPECT_TRUE(i->called_computations()[0]->name() != chain->forward->name() &&
                  i->called_computations()[0]->name() != chain->backward->name())
          << i->name();
  ASSERT_EQ(inlined->forward_copy.size(), 8u);
  for (int l = 0; l < 8; ++l)
    for (const Instruction* x : chain->forward->instructions()) {
      if (x->opcode() == Opcode::kParameter) continue;
      auto it = inlined->forward_copy[l].find(x->name());
      ASSERT_NE(it, inlined->forward_copy[l].end()) << x->name() << " of layer " << l;
      const Instruction* copy = Find(p, it->second);
      if (copy == nullptr) continue;  // dead in the planned module
      EXPECT_EQ(inlined->layer_of.at(copy->name()), l);
      ASSERT_EQ(copy->shape().rank(), x->shape().rank());
      // The layer's values on the batch are a microbatch's.
      if (x == chain->forward->root()) EXPECT_EQ(copy->shape().dim(0), x->shape().dim(0) / 4);
    }
  const int64_t gradients = chain->backward->root()->operand_count() - 1;
  EXPECT_EQ(static_cast<int64_t>(inlined->accumulated.size()), 8 * gradients);
  ASSERT_EQ(inlined->layer_input.size(), 8u);
  ASSERT_EQ(inlined->layer_cotangent.size(), 8u);
  for (int l = 0; l < 8; ++l) {
    EXPECT_NE(Find(p, inlined->layer_input[l]), nullptr) << l;
    // The first layer's input cotangent is read by nothing (x is an input): gone.
    if (l > 0) EXPECT_NE(Find(p, inlined->layer_cotangent[l]), nullptr) << l;
  }
  auto clustering = autoshard::ClusterLayers(p, 64, &inlined->layer_of);
  ASSERT_TRUE(clustering.ok()) << clustering.status();
  EXPECT_TRUE(clustering->given);
  EXPECT_EQ(clustering->num_layers, 8);
  EXPECT_EQ(clustering->num_classes, 3);
  for (int l = 1; l < 7; ++l) EXPECT_EQ(clustering->tie_class[l], clustering->tie_class[1]);
  // Not a multiple of the batch.
  EXPECT_EQ(InlineLayerCalls(*m, 3).status().code(), absl::StatusCode::kInvalidArgument);
}

// A JAX scan (4 layers over stacked weights [4, ...], with momentum): the layers' weights, rows
// of the stacked parameters, are planned as parameters of their own, and so is the momentum's
// state, whose update runs per row; so the inner layers tie.
TEST(InlineLayerCalls, ScannedWeightsArePlannedAsRows) {
  auto scan = ReadSource("tests/lit/pipeline/Inputs/scan_mlp_dp.hlo");
  auto calls = pipeline::ToLayerCallForm(*scan);
  ASSERT_TRUE(calls.ok()) << calls.status();
  EXPECT_EQ(calls->form, pipeline::LayerForm::kScan);
  auto inlined = InlineLayerCalls(*calls->module, 2);
  ASSERT_TRUE(inlined.ok()) << inlined.status();
  ASSERT_FALSE(inlined->unstacked.empty());
  for (const auto& [stacked, rows] : inlined->unstacked) {
    EXPECT_EQ(rows.size(), 4u) << stacked;
    for (const std::string& r : rows) {
      const Instruction* p = Find(*inlined->module, r);
      ASSERT_NE(p, nullptr) << r;
      EXPECT_EQ(p->opcode(), Opcode::kParameter);
    }
  }
  for (const auto& per_layer : inlined->weight)
    for (const std::string& w : per_layer) {
      const Instruction* p = Find(*inlined->module, w);
      ASSERT_NE(p, nullptr) << w;
      EXPECT_EQ(p->opcode(), Opcode::kParameter) << w;
    }
  auto clustering = autoshard::ClusterLayers(*inlined->module, 64, &inlined->layer_of);
  ASSERT_TRUE(clustering.ok()) << clustering.status();
  EXPECT_EQ(clustering->num_layers, 4);
  EXPECT_EQ(clustering->tie_class[1], clustering->tie_class[2]);
  EXPECT_LT(clustering->num_classes, 4);
}

// A plan carried onto a computation: the twins' shardings, a parameter's from what its reader's
// twin reads in its place, and the plan's reshard before a use as a Sharding custom call.
TEST(CarryPlan, ShardingsParametersAndReshards) {
  auto target = Parse(R"(HloModule t
ENTRY e {
  x = f32[8,4] parameter(0)
  w = f32[4,4] parameter(1)
  d = f32[8,4] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = f32[8,4] tanh(d)
})");
  auto plan = Parse(R"(HloModule p, num_partitions=2
ENTRY e {
  x.in = f32[8,4] parameter(0), sharding={devices=[2,1]<=[2]}
  w0 = f32[4,4] parameter(1), sharding={replicated}
  w0.auto_reshard = f32[4,4] custom-call(w0), custom_call_target="Sharding", sharding={devices=[1,2]<=[2]}
  d0 = f32[8,4] dot(x.in, w0.auto_reshard), lhs_contracting_dims={1}, rhs_contracting_dims={0}, sharding={devices=[2,1]<=[2]}
  ROOT t0 = f32[8,4] tanh(d0), sharding={devices=[2,1]<=[2]}
  s0 = f32[] constant(1)
})");
  absl::flat_hash_map<const Instruction*, const Instruction*> twin = {
      {Find(*target, "d"), Find(*plan, "d0")}, {Find(*target, "t"), Find(*plan, "t0")}};
  auto carried = autoshard::CarryPlan(*target, *target->entry(), twin);
  ASSERT_TRUE(carried.ok()) << carried.status();
  EXPECT_EQ(carried->annotated, 4);  // x, w (by their reader d), d, t
  EXPECT_EQ(carried->reshards, 1);
  EXPECT_EQ(Find(*target, "x")->sharding()->ToString(false), "{devices=[2,1]<=[2]}");
  EXPECT_TRUE(Find(*target, "w")->sharding()->IsReplicated());
  const Instruction* d = Find(*target, "d");
  ASSERT_TRUE(d->operand(1)->IsCustomCall("Sharding"));
  EXPECT_EQ(d->operand(1)->operand(0)->name(), "w");
  EXPECT_EQ(d->operand(1)->sharding()->ToString(false), "{devices=[1,2]<=[2]}");
  EXPECT_EQ(Find(*target, "t")->sharding()->ToString(false), "{devices=[2,1]<=[2]}");
  // A twin of another rank is a bug.
  twin = {{Find(*target, "t"), Find(*plan, "s0")}};
  EXPECT_EQ(autoshard::CarryPlan(*target, *target->entry(), twin).status().code(), absl::StatusCode::kInternal);
}

const HardwareProfile& H100() {
  static const HardwareProfile hw = *LoadHardwareProfile("h100");
  return hw;
}

// Runs `result` partitioned on its devices and `source` on one device, on the same inputs.
void ExpectSameStep(const Module& source, const pipeline::PipelineResult& result) {
  const int64_t n = result.module->num_partitions();
  std::unique_ptr<Module> one = source.Clone();
  one->set_num_partitions(1);
  std::vector<Literal> args = RandomArguments(*one, /*seed=*/5);
  SingleDeviceContext device;
  auto want = Execute(*one, args, &device);
  ASSERT_TRUE(want.ok()) << want.status();
  std::unique_ptr<Module> program = result.module->Clone();
  ASSERT_TRUE(PropagateShardings(*program).ok());
  auto part = PartitionAndCleanUp(*program, PartitionOptions{n});
  ASSERT_TRUE(part.ok()) << part.status();
  SpmdOptions options;
  options.global_result_shape = program->entry()->root()->shape();
  auto got = ExecuteSpmd(*part->module, n, pipeline::ToPipelinedArguments(result, args), part->parameter_shardings,
                         part->result_sharding, options);
  ASSERT_TRUE(got.ok()) << got.status();
  auto unstacked = pipeline::ToSourceResults(result, *got, one->entry()->root()->shape());
  ASSERT_TRUE(unstacked.ok()) << unstacked.status();
  std::vector<Literal> g = *std::move(unstacked), w = FlattenLeaves(*want);
  ASSERT_EQ(g.size(), w.size());
  for (size_t k = 0; k < w.size(); ++k) {
    LeafComparison c = CompareLeaf(g[k], w[k], ModuleTolerance(*part->module));
    EXPECT_TRUE(c.ok) << "output " << k << ": " << c.problem;
  }
}

// `spmdc auto --pipeline`'s path on gpt-pipeline-dp over 8 devices in 2 stages: plan the inlined
// microbatched layers, carry the emitted plan's layer (and head, embedding) onto the layer-call
// form, pipeline it. Under a memory limit that a replicated layer does not fit, each stage's mesh
// has a model axis; the program carries the plan into its staged layer computations and computes
// what the step computes on one device.
TEST(AutoPipeline, TheProgramFollowsTheEmittedPlanAndVerifies) {
  auto source = Gpt(/*data=*/2);
  source->set_num_partitions(4);
  for (Computation* c : source->computations())
    for (Instruction* i : c->instructions()) i->clear_sharding();
  auto inlined = InlineLayerCalls(*source, 8);
  ASSERT_TRUE(inlined.ok()) << inlined.status();
  std::unique_ptr<Module> planned = inlined->module->Clone();
  ASSERT_TRUE(autoshard::PrepareForPlanning(*planned).ok());
  autoshard::PipelineOptions o;
  o.num_devices = 8;
  o.hardware = &H100();
  o.microbatches = 8;
  o.schedule = autoshard::PipelineSchedule::kGPipe;
  o.stages = 2;
  o.memory_limit = 450 * 1024;
  o.work_limit = 2'000'000;
  o.given_layers = &inlined->layer_of;
  o.accumulated = &inlined->accumulated;
  o.layer_inputs = &inlined->layer_input;
  o.layer_cotangents = &inlined->layer_cotangent;
  auto r = autoshard::PlanPipeline(*planned, o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->layers.given);
  ASSERT_TRUE(r->emission);
  const autoshard::PipelineEmission& e = *r->emission;
  EXPECT_EQ(e.stage_mesh, "data=2,model=2");
  for (const autoshard::Stage& s : e.plan.stages) EXPECT_EQ(s.held_microbatches, 8);  // GPipe
  ASSERT_NE(e.layer_plan, nullptr);
  ASSERT_NE(e.layer_plan->annotated, nullptr);

  std::unique_ptr<Module> calls = source->Clone();
  std::vector<const Module*> step_plans = {e.last_plan->annotated.get(), e.first_plan->annotated.get()};
  auto stats = pipeline::ApplyLayerPlan(*calls, *inlined, e.layer_plan->layer, *e.layer_plan->annotated, step_plans);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_GT(stats->instructions, 250);
  EXPECT_LE(stats->unmatched, 2);
  EXPECT_GT(stats->step_instructions, 0);
  // Every instruction of the layer computations that computes an array carries the plan.
  auto chain = pipeline::FindLayerChain(*calls);
  ASSERT_TRUE(chain.ok());
  int64_t with = 0, arrays = 0;
  for (const Computation* c : {chain->forward, chain->backward})
    for (const Instruction* i : c->instructions()) {
      if (!i->shape().IsArray()) continue;
      ++arrays;
      with += i->has_sharding();
    }
  EXPECT_GE(with, arrays - 2);

  pipeline::PipelineOptions po;
  po.stages = e.stages;
  po.microbatches = e.microbatches;
  po.source_mesh = e.stage_mesh;
  auto program = pipeline::PipelineModule(*calls, po);
  ASSERT_TRUE(program.ok()) << program.status();
  EXPECT_EQ(program->module->num_partitions(), 8);
  EXPECT_EQ(program->info.mesh, "stage=2,data=2,model=2");
  // The staged layer computations keep the plan: their instructions have shardings over the
  // stages (dim 0) and the stage's devices.
  int64_t staged = 0;
  for (const Computation* c : program->module->computations()) {
    if (c->name().find(".pipelined") == std::string::npos) continue;
    for (const Instruction* i : c->instructions())
      if (i->has_sharding() && i->sharding()->IsTiled() && i->sharding()->tile_assignment().dim(0) == 2) ++staged;
  }
  EXPECT_GT(staged, 250);
  ExpectSameStep(*calls, *program);
}

}  // namespace
}  // namespace spmdc

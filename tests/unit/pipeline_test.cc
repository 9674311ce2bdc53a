// pipeline/pipeline.h: GSPMD-style pipelining of a repeated-layer training step. Recognition of
// the layer chain (gpt-pipeline's 8 layers, and the refusals naming why), the bad options (exit 2
// material: both numbers named), the bubble of the schedule, the program's structure (stage dim
// split over the stages, one collective-permute per loop body) and, on 4 and 8 in-process
// devices, the pipelined step computing what the unpipelined step computes on one device — with
// a learning rate large enough that a wrong gradient shows in the new weights.
#include <cmath>

#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "interpreter/interpreter.h"
#include "models/examples.h"
#include "models/gpt_pipeline.h"
#include "partitioner/partitioner.h"
#include "pipeline/layer_batching.h"
#include "pipeline/pipeline.h"
#include "propagation/propagation.h"
#include "runtime/executor.h"
#include "runtime/host_values.h"
#include "runtime/result_comparison.h"

namespace spmdc {
namespace {

using pipeline::FindLayerChain;
using pipeline::PipelineModule;
using pipeline::PipelineOptions;
using pipeline::PipelineResult;

std::unique_ptr<Module> Parse(const std::string& text) {
  auto m = ParseHloModule(text, "test");
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? std::move(*m) : nullptr;
}

std::unique_ptr<Module> Gpt(int64_t data = 1, float learning_rate = 0.01f) {
  GptPipelineOptions o;
  o.data = data;
  o.learning_rate = learning_rate;
  return Parse(BuildGptPipelineTrainingStep(o));
}

PipelineOptions Options(int64_t stages, int64_t microbatches) {
  PipelineOptions o;
  o.stages = stages;
  o.microbatches = microbatches;
  return o;
}

int64_t Count(const Computation& c, Opcode op) {
  int64_t n = 0;
  for (const Instruction* i : c.instructions()) n += i->opcode() == op;
  return n;
}

TEST(PipelineChain, FindsTheGptLayers) {
  auto m = Gpt();
  auto chain = FindLayerChain(*m);
  ASSERT_TRUE(chain.ok()) << chain.status();
  EXPECT_EQ(chain->layers(), 8);
  EXPECT_EQ(chain->forward->name(), "layer_fwd");
  EXPECT_EQ(chain->backward->name(), "layer_bwd");
  EXPECT_EQ(chain->input->name(), "x");
  ASSERT_EQ(chain->weights.size(), 8u);
  for (int64_t l = 0; l < 8; ++l) {
    ASSERT_EQ(chain->weights[l].size(), 12u);
    EXPECT_EQ(chain->weights[l][0]->name(), fmt::format("l{}_ln1_scale", l));
    EXPECT_EQ(chain->backward_calls[l]->operand(0), l == 0 ? chain->input : chain->forward_calls[l - 1]);
  }
  EXPECT_EQ(chain->cotangent->name(), "dh");
}

TEST(PipelineChain, RefusesModulesWithoutAChain) {
  // The MLP writes its layers inline: no repeated call.
  auto mlp = Parse(*BuildExample("mlp"));
  auto r = FindLayerChain(*mlp);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(r.status().message().find("no repeated layer chain found"), std::string::npos) << r.status();
  // A chain whose layers share a weight.
  auto shared = Parse(R"(
HloModule shared
layer {
  x = f32[4,2] parameter(0)
  w = f32[2,2] parameter(1)
  ROOT y = f32[4,2] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
ENTRY e {
  x = f32[4,2] parameter(0)
  shared = f32[2,2] parameter(1)
  h0 = f32[4,2] call(x, shared), to_apply=layer
  ROOT h1 = f32[4,2] call(h0, shared), to_apply=layer
})");
  r = FindLayerChain(*shared);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("%shared is a weight of more than one layer"), std::string::npos) << r.status();
}

TEST(Pipeline, BadOptionsNameBothNumbers) {
  auto m = Gpt();
  auto r = PipelineModule(*m, Options(3, 8));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "pipeline: --stages 3 does not divide the 8 layers");
  r = PipelineModule(*m, Options(4, 5));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "pipeline: --microbatches 5 does not divide the batch 16 (dim 0 of the layer input %x)");
  PipelineOptions circular = Options(4, 2);
  circular.schedule = pipeline::Schedule::kCircular;
  r = PipelineModule(*m, circular);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("--microbatches (2) >= --stages (4)"), std::string::npos) << r.status();
  circular = Options(4, 8);
  circular.schedule = pipeline::Schedule::kCircular;
  circular.repeats = 3;
  r = PipelineModule(*m, circular);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "pipeline: --repeats 3 does not divide the 2 layers per stage (8 layers / 4 stages)");
}

TEST(Pipeline, BubbleFollowsTheSchedule) {
  for (int64_t s : {1, 2, 4, 8})
    for (int64_t m : {1, 4, 8, 32}) {
      pipeline::PipelineInfo info{.stages = s, .microbatches = m, .layers = 8};
      EXPECT_DOUBLE_EQ(info.Bubble(), static_cast<double>(s - 1) / static_cast<double>(m + s - 1)) << s << " " << m;
    }
  auto m = Gpt();
  auto r = PipelineModule(*m, Options(4, 8));
  ASSERT_TRUE(r.ok()) << r.status();
  auto info = pipeline::ReadPipelineInfo(*r->module);
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->stages, 4);
  EXPECT_EQ(info->microbatches, 8);
  EXPECT_EQ(info->layers, 8);
  EXPECT_EQ(info->axis, "stage");
  EXPECT_DOUBLE_EQ(info->Bubble(), 3.0 / 11.0);
  EXPECT_FALSE(pipeline::ReadPipelineInfo(*m).has_value());
  // Circular: M·R iterations of work in M·R+S-1.
  PipelineOptions circular = Options(4, 8);
  circular.schedule = pipeline::Schedule::kCircular;
  auto c = PipelineModule(*m, circular);
  ASSERT_TRUE(c.ok()) << c.status();
  info = pipeline::ReadPipelineInfo(*c->module);
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->schedule, pipeline::Schedule::kCircular);
  EXPECT_EQ(info->repeats, 2);
  EXPECT_DOUBLE_EQ(info->Bubble(), 3.0 / 19.0);
}

// The loop bodies of the partitioned program: each has exactly one collective-permute (the
// shift) and no other collective when the batch is not split.
TEST(Pipeline, StageDimIsShardedAndShiftsArePermutes) {
  auto m = Gpt();
  auto r = PipelineModule(*m, Options(4, 8));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->module->num_partitions(), 4);
  const Computation* body = nullptr;
  for (const Computation* c : r->module->computations())
    if (c->name().starts_with("pipe.forward_body")) body = c;
  ASSERT_NE(body, nullptr);
  // The layer call runs on [S, microbatch...] split over the stages.
  bool layer_call = false;
  for (const Instruction* i : body->instructions())
    if (i->opcode() == Opcode::kCall) {
      layer_call = true;
      EXPECT_EQ(i->shape().dims(), (std::vector<int64_t>{4, 2, 8, 32}));
      ASSERT_TRUE(i->has_sharding());
      EXPECT_EQ(i->sharding()->ToString(false), "{devices=[4,1,1,1]<=[4]}");
    }
  EXPECT_TRUE(layer_call);
  ASSERT_TRUE(PropagateShardings(*r->module).ok());
  auto part = PartitionAndCleanUp(*r->module, PartitionOptions{4});
  ASSERT_TRUE(part.ok()) << part.status();
  int bodies = 0;
  for (const Computation* c : part->module->computations()) {
    if (!c->name().starts_with("pipe.forward_body") && !c->name().starts_with("pipe.backward_body")) continue;
    ++bodies;
    EXPECT_EQ(Count(*c, Opcode::kCollectivePermute), 1) << c->name();
    EXPECT_EQ(Count(*c, Opcode::kAllGather) + Count(*c, Opcode::kAllReduce) + Count(*c, Opcode::kAllToAll), 0) << c->name();
  }
  EXPECT_EQ(bodies, 2);
}

// Runs `result` partitioned on its devices and the source on one device, on the same inputs.
void ExpectSameStep(const Module& source, const PipelineResult& result) {
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

// Every layer's SGD update is the same elementwise function: all 12 weight slots are taken,
// updated and returned stacked [S, L/S, ...] and split over the stages, so a device stores 1/S of
// the layer weights; the loss, the head's weights and x's gradient-free inputs keep their places.
TEST(Pipeline, GptWeightsAreStackedOverTheStages) {
  auto m = Gpt();
  auto r = PipelineModule(*m, Options(4, 8));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->stacked_slots, 12);
  const Computation* entry = r->module->entry();
  // x, labels, 12 stacked slots, 3 head weights.
  ASSERT_EQ(entry->num_parameters(), 17);
  ASSERT_EQ(r->parameter_sources.size(), 17u);
  EXPECT_EQ(r->parameter_sources[0], std::vector<int64_t>{0});
  EXPECT_EQ(r->parameter_sources[2], (std::vector<int64_t>{2, 14, 26, 38, 50, 62, 74, 86}));  // l*_ln1_scale
  const Instruction* wq = entry->parameter(4);
  EXPECT_EQ(wq->shape().dims(), (std::vector<int64_t>{4, 2, 32, 2, 16}));
  ASSERT_TRUE(wq->has_sharding());
  EXPECT_EQ(wq->sharding()->ToString(false), "{devices=[4,1,1,1,1]<=[4]}");
  // The result: loss, 12 stacked new weights, 3 head weights.
  ASSERT_EQ(r->result_sources.size(), 16u);
  EXPECT_EQ(r->result_sources[0], std::vector<int64_t>{0});
  EXPECT_EQ(r->result_sources[1], (std::vector<int64_t>{1, 13, 25, 37, 49, 61, 73, 85}));
  EXPECT_EQ(r->result_sources[15], std::vector<int64_t>{99});
  // Per device: 2 of the 8 layers' 8416 f32 each; the stash holds 8 microbatches x 2 layers of
  // [2, 8, 32] f32 inputs.
  EXPECT_EQ(r->info.stage_parameter_bytes, 8 * 8416 * 4 / 4);
  EXPECT_EQ(r->info.stash_bytes, 8 * 2 * 2 * 8 * 32 * 4);
  auto info = pipeline::ReadPipelineInfo(*r->module);
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->stage_parameter_bytes, r->info.stage_parameter_bytes);
  EXPECT_EQ(info->stash_bytes, r->info.stash_bytes);
  EXPECT_EQ(info->mesh, "stage=4");
}

TEST(Pipeline, GptVerifiesOnFourDevices) {
  auto m = Gpt(/*data=*/1, /*learning_rate=*/1.0f);
  auto r = PipelineModule(*m, Options(4, 8));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->source_devices, 1);
  ExpectSameStep(*m, *r);
}

TEST(Pipeline, GptVerifiesOnFourStagesTimesTwoData) {
  auto m = Gpt(/*data=*/2, /*learning_rate=*/1.0f);
  auto r = PipelineModule(*m, Options(4, 8));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->module->num_partitions(), 8);
  EXPECT_EQ(r->data_devices, 2);
  ExpectSameStep(*m, *r);
}

// Adam: the moments of every layer weight are per-layer parameters of the same update, so they
// are taken, updated and returned stacked with the weight (three outputs per slot); with the
// step count and the head's state kept as they are, the step verifies on 4 devices.
TEST(Pipeline, GptWithAdamStacksTheMoments) {
  GptPipelineOptions o;
  o.optimizer = "adam";
  o.learning_rate = 0.1f;
  auto m = Parse(BuildGptPipelineTrainingStep(o));
  auto r = PipelineModule(*m, Options(4, 8));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->stacked_slots, 12);
  // x, labels, 12 stacked weights, 3 head weights, 12 + 12 stacked moments, 3 + 3 head moments,
  // step.
  EXPECT_EQ(r->module->entry()->num_parameters(), 2 + 12 + 3 + 24 + 6 + 1);
  // loss, 12 + 3 weights, 12 + 3 first moments, 12 + 3 second moments.
  EXPECT_EQ(r->result_sources.size(), 1u + 3 * 15);
  ExpectSameStep(*m, *r);
}

// Circular with 2 repeats: stage s holds layers s and s+4 (groups of one), so the stacked
// weights list the layers 0, 4, 1, 5, 2, 6, 3, 7; the step verifies on 4 and on 4 x 2 devices.
TEST(Pipeline, CircularGptVerifies) {
  for (int64_t data : {1, 2}) {
    auto m = Gpt(data, /*learning_rate=*/1.0f);
    PipelineOptions o = Options(4, 8);
    o.schedule = pipeline::Schedule::kCircular;
    auto r = PipelineModule(*m, o);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->info.repeats, 2);
    const auto chain = FindLayerChain(*m);
    ASSERT_TRUE(chain.ok());
    std::vector<int64_t> want;
    for (int64_t l : {0, 4, 1, 5, 2, 6, 3, 7}) want.push_back(chain->weights[l][0]->parameter_number());
    EXPECT_EQ(r->parameter_sources[2], want);
    ExpectSameStep(*m, *r);
  }
}

// A wrong pipeline must fail the comparison: the step with one microbatch's gradient left out
// (stage-0 weights updated from 7 of 8 microbatches) is what a broken accumulation computes.
TEST(Pipeline, ComparisonSeesAMissingMicrobatch) {
  auto m = Gpt(/*data=*/1, /*learning_rate=*/1.0f);
  auto r = PipelineModule(*m, Options(2, 8));
  ASSERT_TRUE(r.ok()) << r.status();
  // Break the backward loop's validity bound: microbatch M-1 no longer counts.
  bool changed = false;
  for (Computation* c : r->module->computations()) {
    if (!c->name().starts_with("pipe.backward_body")) continue;
    for (Instruction* i : c->instructions())
      if (i->opcode() == Opcode::kConstant && i->shape().dtype() == DType::kS32 && i->shape().rank() == 0 &&
          i->literal()->GetDouble(0) == 8 && !changed) {
        for (Instruction* u : i->users())
          if (u->opcode() == Opcode::kBroadcast) {
            Instruction* seven = c->AddInstruction(Opcode::kConstant, i->shape(), "seven");
            Literal lit(i->shape());
            lit.SetDouble(0, 7);
            seven->set_literal(std::move(lit));
            u->ReplaceOperandWith(0, seven);
            changed = true;
            break;
          }
      }
  }
  ASSERT_TRUE(changed);
  const int64_t n = r->module->num_partitions();
  std::vector<Literal> args = RandomArguments(*m, /*seed=*/5);
  SingleDeviceContext device;
  auto want = Execute(*m, args, &device);
  ASSERT_TRUE(want.ok());
  ASSERT_TRUE(PropagateShardings(*r->module).ok());
  auto part = PartitionAndCleanUp(*r->module, PartitionOptions{n});
  ASSERT_TRUE(part.ok()) << part.status();
  SpmdOptions options;
  options.global_result_shape = r->module->entry()->root()->shape();
  auto got = ExecuteSpmd(*part->module, n, pipeline::ToPipelinedArguments(*r, args), part->parameter_shardings,
                         part->result_sharding, options);
  ASSERT_TRUE(got.ok()) << got.status();
  auto unstacked = pipeline::ToSourceResults(*r, *got, m->entry()->root()->shape());
  ASSERT_TRUE(unstacked.ok()) << unstacked.status();
  std::vector<Literal> g = *std::move(unstacked), w = FlattenLeaves(*want);
  ASSERT_EQ(g.size(), w.size());
  bool any_mismatch = false;
  for (size_t k = 0; k < w.size(); ++k) any_mismatch |= !CompareLeaf(g[k], w[k], ModuleTolerance(*part->module)).ok;
  EXPECT_TRUE(any_mismatch);
}

// The layer batching: a forward layer that sums over the batch is refused; the rebatched layer
// of a plain one has the stage dim in front and the microbatch in place of the batch.
TEST(PipelineLayerBatching, RebatchesAndRefusesBatchMixing) {
  auto m = Parse(R"(
HloModule layers
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
good {
  x = f32[8,4] parameter(0)
  w = f32[4] parameter(1)
  wb = f32[8,4] broadcast(w), dimensions={1}
  r = f32[32] reshape(x)
  back = f32[8,4] reshape(r)
  ROOT y = f32[8,4] multiply(back, wb)
}
bad {
  x = f32[8,4] parameter(0)
  w = f32[4] parameter(1)
  z = f32[] constant(0)
  col = f32[4] reduce(x, z), dimensions={0}, to_apply=add
  ROOT y = f32[4] multiply(col, w)
}
ENTRY e {
  x = f32[8,4] parameter(0)
  ROOT y = f32[8,4] negate(x)
})");
  pipeline::LayerBatching o{.stages = 2, .batch = 8, .microbatches = 4, .batched_params = {true, false}};
  auto text = pipeline::EmitStagedLayer(*m->GetComputation("good"), o, "good_staged", *m);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_NE(text->find("f32[2,2,4] parameter(0)"), std::string::npos) << *text;
  EXPECT_NE(text->find("f32[2,8] reshape("), std::string::npos) << *text;
  EXPECT_NE(text->find("f32[2,2,4] broadcast("), std::string::npos) << *text;
  auto bad = pipeline::EmitStagedLayer(*m->GetComputation("bad"), o, "bad_staged", *m);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(bad.status().message().find("not batched on dim 0"), std::string::npos) << bad.status();
}

}  // namespace
}  // namespace spmdc

// pipeline/layer_forms.h: the forms a training step's layers come in (calls, a scan, unrolled),
// each converted to the layer-call form and pipelined; the pipelined step computes what the
// source computes on one device. Also the data pieces of layer_batching.h: with a data axis, the
// weight gradients are all-reduced once after the backward loop.
#include <fstream>
#include <sstream>

#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "interpreter/interpreter.h"
#include "models/examples.h"
#include "models/gpt_pipeline.h"
#include "partitioner/partitioner.h"
#include "passes/passes.h"
#include "pipeline/layer_batching.h"
#include "pipeline/layer_forms.h"
#include "pipeline/pipeline.h"
#include "propagation/propagation.h"
#include "runtime/executor.h"
#include "runtime/host_values.h"
#include "runtime/result_comparison.h"

namespace spmdc {
namespace {

using pipeline::LayerForm;
using pipeline::PipelineModule;
using pipeline::PipelineOptions;
using pipeline::PipelineResult;

std::unique_ptr<Module> Parse(const std::string& text) {
  auto m = ParseHloModule(text, "test");
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? std::move(*m) : nullptr;
}

std::unique_ptr<Module> ReadSource(const std::string& path) {
  std::ifstream in(std::string(SPMDC_SOURCE_DIR) + "/" + path);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream text;
  text << in.rdbuf();
  return Parse(text.str());
}

// The module with its calls inlined, as a Python loop over layers exports it.
std::unique_ptr<Module> Inlined(std::unique_ptr<Module> m) {
  EXPECT_TRUE(RunInlineCalls(*m).ok());
  EXPECT_TRUE(RunTupleSimplifier(*m).ok());
  EXPECT_TRUE(RunDce(*m).ok());
  return m;
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

std::unique_ptr<Module> Partitioned(const PipelineResult& r) {
  std::unique_ptr<Module> program = r.module->Clone();
  EXPECT_TRUE(PropagateShardings(*program).ok());
  auto part = PartitionAndCleanUp(*program, PartitionOptions{program->num_partitions()});
  EXPECT_TRUE(part.ok()) << part.status();
  return part.ok() ? std::move(part->module) : nullptr;
}

// Runs `result` partitioned on its devices and the source on one device, on the same inputs.
void ExpectSameStep(const Module& source, const PipelineResult& result) {
  const int64_t n = result.module->num_partitions();
  std::unique_ptr<Module> one = source.Clone();
  one->set_num_partitions(1);
  std::vector<Literal> args = RandomArguments(*one, /*seed=*/3);
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
  std::vector<Literal> g, w = FlattenLeaves(*want);
  for (const Literal& e : *unstacked)
    for (Literal& leaf : FlattenLeaves(e)) g.push_back(std::move(leaf));
  ASSERT_EQ(g.size(), w.size());
  for (size_t k = 0; k < w.size(); ++k) {
    LeafComparison c = CompareLeaf(g[k], w[k], ModuleTolerance(*part->module));
    EXPECT_TRUE(c.ok) << "output " << k << ": " << c.problem;
  }
}

std::unique_ptr<Module> Gpt(int64_t data = 1) {
  GptPipelineOptions o;
  o.data = data;
  o.learning_rate = 1.0f;  // a wrong gradient shows in the new weights
  return Parse(BuildGptPipelineTrainingStep(o));
}

TEST(LayerForms, CallsAreTakenAsTheyAre) {
  auto m = Gpt();
  auto form = pipeline::ToLayerCallForm(*m);
  ASSERT_TRUE(form.ok()) << form.status();
  EXPECT_EQ(form->form, LayerForm::kCalls);
}

// gpt-pipeline with its calls inlined: the clustering finds the 8 blocks, the template layer's
// forward and backward are outlined, and every layer matches them: the same chain (weights by
// name, in order) as the call form, and the step verifies on 4 stages.
TEST(LayerForms, UnrolledGptBecomesTheSameChain) {
  auto calls = Gpt();
  auto want = pipeline::FindLayerChain(*calls);
  ASSERT_TRUE(want.ok());
  auto m = Inlined(Gpt());
  EXPECT_FALSE(pipeline::FindLayerChain(*m).ok());
  auto form = pipeline::ToLayerCallForm(*m);
  ASSERT_TRUE(form.ok()) << form.status();
  EXPECT_EQ(form->form, LayerForm::kUnrolled);
  auto chain = pipeline::FindLayerChain(*form->module);
  ASSERT_TRUE(chain.ok()) << chain.status();
  ASSERT_EQ(chain->layers(), 8);
  for (int64_t l = 0; l < 8; ++l) {
    ASSERT_EQ(chain->weights[l].size(), 12u);
    for (int64_t k = 0; k < 12; ++k) EXPECT_EQ(chain->weights[l][k]->name(), want->weights[l][k]->name()) << l << " " << k;
  }
  EXPECT_EQ(chain->input->name(), "x");
  auto r = PipelineModule(*m, Options(4, 8));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->form, LayerForm::kUnrolled);
  EXPECT_EQ(r->stacked_slots, 12);
  ExpectSameStep(*m, *r);
}

// The transformer example differentiates the whole step at once: its first layer's backward
// computes no input cotangent (x needs none) and its bias gradients read only the next layer's
// cotangent. The template is the last layer; the first matches it in part; the step verifies,
// with 4 data devices too.
TEST(LayerForms, UnrolledTransformerWhoseFirstLayerLacksTheInputCotangent) {
  auto m = Parse(*BuildExample("transformer"));
  auto r = PipelineModule(*m, Options(2, 2));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->form, LayerForm::kUnrolled);
  EXPECT_EQ(r->info.layers, 2);
  EXPECT_EQ(r->stacked_slots, 12);
  ExpectSameStep(*m, *r);
  auto dp = Parse(*BuildExample("transformer-dp"));
  auto rdp = PipelineModule(*dp, Options(2, 1));  // the batch of 4 over 4 data devices
  ASSERT_TRUE(rdp.ok()) << rdp.status();
  EXPECT_EQ(rdp->data_devices, 4);
  ExpectSameStep(*dp, *rdp);
}

// A scanned MLP as JAX exports it (tests/lit/pipeline/Inputs/scan_jax.py: jax.lax.scan over
// stacked [4, ...] weights, the residuals stacked by the forward scan): the two loops become layer
// calls on the weights' rows; the program keeps the source's signature, stores each stage's rows
// of the stacked weights (split over the stages on dim 0) and returns the stacked gradients'
// update the same way.
TEST(LayerForms, JaxScanBecomesLayerCallsOnRows) {
  auto m = ReadSource("tests/lit/pipeline/Inputs/scan_mlp.hlo");
  ASSERT_NE(m, nullptr);
  auto form = pipeline::ToLayerCallForm(*m);
  ASSERT_TRUE(form.ok()) << form.status();
  EXPECT_EQ(form->form, LayerForm::kScan);
  auto chain = pipeline::FindLayerChain(*form->module);
  ASSERT_TRUE(chain.ok()) << chain.status();
  EXPECT_EQ(chain->layers(), 4);
  ASSERT_EQ(chain->weights[0].size(), 3u);
  EXPECT_EQ(chain->weights[2][0]->opcode(), Opcode::kReshape);  // row 2 of the stacked w1
  auto r = PipelineModule(*m, Options(2, 4));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->form, LayerForm::kScan);
  ASSERT_EQ(r->module->entry()->num_parameters(), m->entry()->num_parameters());
  for (const Instruction* p : r->module->entry()->parameters()) {
    const Shape& s = p->shape();
    if (s.rank() == 3 && s.dim(0) == 4) {
      ASSERT_TRUE(p->has_sharding()) << p->name();
      EXPECT_EQ(p->sharding()->ToString(false), "{devices=[2,1,1]<=[2]}") << p->name();
    }
  }
  ExpectSameStep(*m, *r);
  // Remat and SGD with momentum on 2 data devices: 2 stages x 2.
  auto dp = ReadSource("tests/lit/pipeline/Inputs/scan_mlp_dp.hlo");
  ASSERT_NE(dp, nullptr);
  auto rdp = PipelineModule(*dp, Options(2, 4));
  ASSERT_TRUE(rdp.ok()) << rdp.status();
  EXPECT_EQ(rdp->module->num_partitions(), 4);
  EXPECT_EQ(rdp->data_devices, 2);
  ExpectSameStep(*dp, *rdp);
}

// The corpus's GPT-2 (Flax nn.scan(nn.remat(Block)), optax AdamW, data=2 x model=4): 2 layers,
// pipelined over 2 stages of its 8 devices; the layer input (the embedding's output) has no
// sharding, propagation gives it the tokens' batch split over `data`, so the microbatch stays
// split over the 2 data pieces.
TEST(LayerForms, CorpusGpt2AdamwPipelines) {
  auto m = ReadSource("tests/realclient/corpus/gpt2_adamw/gspmd.hlo");
  ASSERT_NE(m, nullptr);
  auto r = PipelineModule(*m, Options(2, 2));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->form, LayerForm::kScan);
  EXPECT_EQ(r->source_devices, 8);
  EXPECT_EQ(r->data_devices, 2);
  EXPECT_EQ(r->module->num_partitions(), 16);
  ExpectSameStep(*m, *r);
}

TEST(LayerForms, RefusalsNameWhatDoesNotFit) {
  // The MLP's two layers differ: no form fits, and each says why.
  auto mlp = Parse(*BuildExample("mlp"));
  auto r = pipeline::ToLayerCallForm(*mlp);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(r.status().message().find("not layer calls (no repeated layer chain found"), std::string::npos) << r.status();
  EXPECT_NE(r.status().message().find("not unrolled layers (unrolled: the forward pass has no block"), std::string::npos)
      << r.status();
  // A scan whose backward walks the layers forwards, not in reverse.
  std::ifstream in(std::string(SPMDC_SOURCE_DIR) + "/tests/lit/pipeline/Inputs/scan_mlp.hlo");
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  // The backward body's index is 4 - i - 1; make it i.
  const std::string reverse = "sub.8 = s32[] subtract(sub.7, constant.39)";
  const size_t at = s.find(reverse);
  ASSERT_NE(at, std::string::npos);
  s.replace(at, reverse.size(), "sub.8 = s32[] add(get-tuple-element.42, constant.39)");
  auto forwards = Parse(s);
  ASSERT_NE(forwards, nullptr);
  auto f = pipeline::ToLayerCallForm(*forwards);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(f.status().message().find("iteration 0 of the backward scan reads row 1"), std::string::npos) << f.status();
}

// With the batch over 2 data devices, the backward loop runs no collective but the shift: each
// device sums its own examples' gradients per microbatch and layer, and the data pieces are
// summed once after the loop (one all-reduce per weight gradient: 12 here).
TEST(LayerForms, DataAxisGradientsAreAllReducedOnceAfterTheBackwardLoop) {
  auto m = Gpt(/*data=*/2);
  auto r = PipelineModule(*m, Options(4, 8));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->data_devices, 2);
  auto part = Partitioned(*r);
  ASSERT_NE(part, nullptr);
  int64_t body_collectives = 0, entry_all_reduces = 0;
  for (const Computation* c : part->computations()) {
    if (c->name().starts_with("pipe.backward_body")) {
      EXPECT_EQ(Count(*c, Opcode::kCollectivePermute), 1);
      body_collectives += Count(*c, Opcode::kAllReduce) + Count(*c, Opcode::kAllGather) + Count(*c, Opcode::kAllToAll);
    }
  }
  entry_all_reduces = Count(*part->entry(), Opcode::kAllReduce);
  EXPECT_EQ(body_collectives, 0);
  EXPECT_GE(entry_all_reduces, 12);
  ExpectSameStep(*m, *r);
}

// The layer batching keeps a gradient's data pieces: the dot over the batch of a backward layer
// becomes a dot with the pieces as a batch dim ([S, D, ...]), and a dot that multiplies such a
// partial sum is FailedPrecondition (the pipeline then sums over the data devices as it goes).
TEST(LayerForms, LayerBatchingKeepsDataPieces) {
  auto m = Parse(R"(
HloModule layers
bwd {
  x = f32[8,4] parameter(0)
  w = f32[4,4] parameter(1)
  dy = f32[8,4] parameter(2)
  dx = f32[8,4] dot(dy, w), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  dw = f32[4,4] dot(x, dy), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  ROOT g = (f32[8,4], f32[4,4]) tuple(dx, dw)
}
twice {
  x = f32[8,4] parameter(0)
  w = f32[4,4] parameter(1)
  dy = f32[8,4] parameter(2)
  dw = f32[4,4] dot(x, dy), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  dw2 = f32[4,4] dot(dw, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT g = (f32[8,4], f32[4,4]) tuple(dy, dw2)
}
ENTRY e {
  x = f32[8,4] parameter(0)
  ROOT y = f32[8,4] negate(x)
})");
  pipeline::LayerBatching o{.stages = 2, .batch = 8, .microbatches = 2, .batched_params = {true, false, true}};
  o.tuple_root = true;
  o.data = 2;
  auto text = pipeline::EmitStagedLayer(*m->GetComputation("bwd"), o, "bwd_staged", *m);
  ASSERT_TRUE(text.ok()) << text.status();
  // x and dy [2, 4, 4] split into [2, 2, 2, 4]; the gradient [S, D, 4, 4].
  EXPECT_NE(text->find("f32[2,2,2,4] reshape("), std::string::npos) << *text;
  EXPECT_NE(text->find("f32[2,2,4,4] dot("), std::string::npos) << *text;
  EXPECT_NE(text->find("lhs_batch_dims={0,1}, lhs_contracting_dims={2}"), std::string::npos) << *text;
  auto twice = pipeline::EmitStagedLayer(*m->GetComputation("twice"), o, "twice_staged", *m);
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.status().code(), absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace spmdc

#include "models/examples.h"

#include "fmt/format.h"
#include "models/gpt_pipeline.h"

namespace spmdc {
namespace {

struct Entry {
  ExampleModel model;
  std::string (*build)();
};

MlpOptions Mlp2d() {
  MlpOptions o;
  o.parallel.data = 2;
  o.parallel.model = 4;
  return o;
}

const std::vector<Entry>& Entries() {
  static const std::vector<Entry>* kEntries = new std::vector<Entry>{
      {{"mlp", "2-layer MLP training step (batch 64, 256 -> 512 -> 128), one device", 1},
       [] { return BuildMlpTrainingStep(MlpOptions{}); }},
      {{"mlp-2d", "the MLP, data=2 x model=4 (8 devices)", 8}, [] { return BuildMlpTrainingStep(Mlp2d()); }},
      {{"transformer", "2-layer transformer training step (B=4 S=16 D=64 H=4 F=256, 32 classes), one device", 1},
       [] { return BuildTransformerTrainingStep(SmallTransformerOptions()); }},
      {{"transformer-dp", "the transformer, data parallel over 4 devices", 4},
       [] { return BuildTransformerTrainingStep(SmallTransformerOptions(4, 1)); }},
      {{"transformer-tp", "the transformer, Megatron tensor parallel over 4 devices", 4},
       [] { return BuildTransformerTrainingStep(SmallTransformerOptions(1, 4)); }},
      {{"transformer-2d", "the transformer, data=2 x model=4 (8 devices)", 8},
       [] { return BuildTransformerTrainingStep(SmallTransformerOptions(2, 4)); }},
      {{"transformer-large", "the transformer with enough layers for 100000 instructions, one device", 1},
       [] { return BuildTransformerTrainingStep(TransformerOptionsForInstructionCount(100000, SmallTransformerOptions())); }},
      {{"transformer-adam", "the transformer (B=8) trained with Adam, data parallel over 8 devices", 8},
       [] { return BuildTransformerTrainingStep(AdamDataParallelOptions(8)); }},
      {{"transformer-adam-long", "transformer-adam on 64-token sequences, one device (activations outweigh the weights)", 1},
       [] { TransformerOptions o = AdamDataParallelOptions(1); o.seq = 64; return BuildTransformerTrainingStep(o); }},
      {{"moe", "GShard MoE transformer training step (top-2 gating over 8 experts, Adam), expert parallel over 4 devices", 4},
       [] { return BuildTransformerTrainingStep(MoeOptions(4)); }},
      {{"moe-8", "the MoE model, expert parallel over 8 devices", 8},
       [] { return BuildTransformerTrainingStep(MoeOptions(8)); }},
      {{"moe-single", "the MoE model unannotated (one device; no expert-parallel constraints), for spmdc auto", 1},
       [] { return BuildTransformerTrainingStep(MoeOptions(1)); }},
      {{"gpt-12", "12-layer GPT training step (B=8 S=16 D=64 H=8 F=256, 32 classes), one device", 1},
       [] { return BuildTransformerTrainingStep(Gpt12Options()); }},
      {{"gpt-12-2d", "gpt-12, data=2 x model=4 (8 devices)", 8},
       [] { return BuildTransformerTrainingStep(Gpt12Options(2, 4)); }},
      {{"gpt-96", "gpt-12's shapes with 96 layers, one device", 1},
       [] { TransformerOptions o = Gpt12Options(); o.layers = 96; return BuildTransformerTrainingStep(o); }},
      {{"unet", "U-Net training step (8 images 64x64x4, channels 16-32-64, strided/transposed convs), one device", 1},
       [] { return BuildUNetTrainingStep(UNetExampleOptions()); }},
      {{"unet-dp", "the U-Net, data parallel over 8 devices", 8},
       [] { return BuildUNetTrainingStep(UNetExampleOptions(8, 1)); }},
      {{"unet-spatial", "the U-Net, batch over data=2 x rows over space=4 (spatial partitioning, 8 devices)", 8},
       [] { return BuildUNetTrainingStep(UNetExampleOptions(2, 4)); }},
      {{"dlrm", "DLRM training step (batch 512, 7 tables of 16384 x 32, 4 lookups each, Adagrad), one device", 1},
       [] { return BuildDlrmTrainingStep(DlrmExampleOptions()); }},
      {{"dlrm-mp", "the DLRM, batch and every table's rows over 8 devices (model-parallel embeddings)", 8},
       [] { return BuildDlrmTrainingStep(DlrmExampleOptions(8)); }},
      {{"gpt-pipeline", "8-layer GPT training step as repeated layer calls (B=16 S=8 D=32), for `spmdc pipeline`, one device", 1},
       [] { return BuildGptPipelineTrainingStep(GptPipelineOptions{}); }},
      {{"gpt-pipeline-dp", "gpt-pipeline, data parallel over 2 devices", 2},
       [] { GptPipelineOptions o; o.data = 2; return BuildGptPipelineTrainingStep(o); }},
      {{"gpt-pipeline-adam", "gpt-pipeline trained with Adam, one device", 1},
       [] { GptPipelineOptions o; o.optimizer = "adam"; return BuildGptPipelineTrainingStep(o); }},
      {{"gpt3", "GPT-3 175B-shaped training step (96 layers, d_model 12288, bf16), data=8 x model=64 (512 devices)", 512},
       [] { return BuildTransformerTrainingStep(Gpt3Options()); }},
  };
  return *kEntries;
}

}  // namespace

const std::vector<ExampleModel>& ExampleModels() {
  static const std::vector<ExampleModel>* kModels = [] {
    auto* v = new std::vector<ExampleModel>;
    for (const Entry& e : Entries()) v->push_back(e.model);
    return v;
  }();
  return *kModels;
}

std::string ExampleNames() {
  std::vector<std::string> names;
  for (const ExampleModel& m : ExampleModels()) names.push_back(m.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

std::optional<std::string> BuildExample(std::string_view name) {
  for (const Entry& e : Entries())
    if (e.model.name == name) return e.build();
  return std::nullopt;
}

const std::vector<ZooModel>& AutoZoo() {
  constexpr int64_t kKiB = 1024, kMiB = 1024 * 1024;
  // Each limit is about half the peak of the replicated step on one device (h100 cost model).
  static const std::vector<ZooModel>* kZoo = new std::vector<ZooModel>{
      {"mlp", "mlp", 1 * kMiB},               // replicated: 2.6 MiB
      {"gpt-2", "transformer", 1200 * kKiB},  // 2.1 MiB
      {"gpt-12", "gpt-12", 8 * kMiB},         // 21 MiB
      {"gpt-96", "gpt-96", 64 * kMiB},        // 163 MiB
      {"unet", "unet", 16 * kMiB},            // 44 MiB
      {"dlrm", "dlrm", 12 * kMiB},            // 20 MiB
      {"moe", "moe-single", 2 * kMiB},        // 4.8 MiB
  };
  return *kZoo;
}

TransformerOptions SmallTransformerOptions(int64_t data, int64_t model) {
  TransformerOptions o;
  o.vocab = 32;
  o.parallel.data = data;
  o.parallel.model = model;
  return o;
}

TransformerOptions Gpt12Options(int64_t data, int64_t model) {
  TransformerOptions o = SmallTransformerOptions(data, model);
  o.batch = 8;
  o.heads = 8;
  o.layers = 12;
  return o;
}

UNetOptions UNetExampleOptions(int64_t data, int64_t space) {
  UNetOptions o;
  o.data = data;
  o.space = space;
  return o;
}

DlrmOptions DlrmExampleOptions(int64_t devices) {
  DlrmOptions o;
  o.optimizer = "adagrad";
  o.devices = devices;
  return o;
}

TransformerOptions AdamDataParallelOptions(int64_t data) {
  TransformerOptions o = SmallTransformerOptions(data, 1);
  o.batch = 8;
  o.optimizer = "adam";
  return o;
}

TransformerOptions MoeOptions(int64_t data) {
  TransformerOptions o = SmallTransformerOptions(data, 1);
  o.batch = 8;
  o.ffn = 128;
  o.experts = 8;
  o.optimizer = "adam";
  o.parallel.annotate_results = data > 1;
  return o;
}

TransformerOptions Gpt3Options() {
  TransformerOptions o;
  o.batch = 8;
  o.seq = 2048;
  o.model = 12288;
  o.heads = 96;
  o.ffn = 4 * 12288;
  o.layers = 96;
  o.vocab = 50304;
  o.vocab_parallel = true;
  o.dtype = "bf16";
  o.parallel.data = 8;
  o.parallel.model = 64;
  o.parallel.annotate_results = true;
  return o;
}

}  // namespace spmdc

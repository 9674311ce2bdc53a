// The example models `spmdc example NAME` emits, by name: one table, read by the CLI, the
// benchmarks and the tests, so that a name means the same module everywhere.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/models.h"

namespace spmdc {

struct ExampleModel {
  std::string name;
  std::string description;   // one line
  int64_t num_devices = 1;   // the devices its annotations are for (num_partitions)
};

// Every example, in the order `spmdc example` lists them.
const std::vector<ExampleModel>& ExampleModels();
// "mlp, mlp-2d, transformer, ..." (for usage and error messages).
std::string ExampleNames();
// The module text of example `name`; nullopt for an unknown name.
std::optional<std::string> BuildExample(std::string_view name);

// The model zoo of `spmdc auto`'s checks (tests/unit/auto_zoo_test.cc, bench/auto_bench.cc,
// README "The zoo"): each an unannotated example with the per-device memory limit it is planned
// under, one that rules out replicating the whole step (so that the plan must split something).
struct ZooModel {
  std::string label;    // "gpt-12"
  std::string example;  // the example it is (ExampleModels)
  int64_t memory_limit = 0;
};
const std::vector<ZooModel>& AutoZoo();

// The options of the transformer examples (B=4 S=16 D=64 H=4 F=256 L=2, softmax
// cross-entropy over 32 classes), with the given mesh.
TransformerOptions SmallTransformerOptions(int64_t data = 1, int64_t model = 1);

// `spmdc example gpt-12`: the small transformer with B = 8, H = 8 (head dim 8) and 12 layers.
TransformerOptions Gpt12Options(int64_t data = 1, int64_t model = 1);

// `spmdc example unet`: 8 images of 64 x 64 x 4, 3 levels of 16, 32, 64 channels; annotated
// with the images' batch over `data` and rows over `space` devices.
UNetOptions UNetExampleOptions(int64_t data = 1, int64_t space = 1);

// `spmdc example dlrm`: the DlrmOptions defaults (batch 512, 16 dense features, bottom MLP 64-32,
// 7 tables of 16384 x 32 with 4 lookups each, top MLP 64-1) trained with Adagrad; annotated
// for `devices` devices (DlrmOptions::devices).
DlrmOptions DlrmExampleOptions(int64_t devices = 1);

// A GPT-3 175B-shaped training step (Brown et al. 2020, table 2.1: 96 layers, d_model 12288,
// 96 heads of 128, d_ff = 4 d_model, context 2048; vocabulary 50257 padded to 50304, a multiple
// of 64 as Megatron pads it) in bf16, annotated for data = 8 x model = 64 devices: batch over
// `data`, Megatron tensor parallelism over `model` (column-parallel QKV and FFN-in, row-parallel
// output projections, vocab-parallel output layer). The batch is one 2048-token sequence per
// data-parallel replica (GPT-3's 1536-sequence batch is accumulated over such micro-batches,
// which one step does not model). 96 heads over 64 devices is uneven: each device holds
// ceil(96/64) = 2 heads' columns, the last 32 devices one padded head each. Generated, checked,
// propagated, partitioned and costed (`spmdc report`), never run (its weights alone are 350 GB).
// `layers` and the other fields can be shrunk for tests with the same structure.
TransformerOptions Gpt3Options();

// `spmdc example transformer-adam`: the small transformer with B = 8, trained with Adam,
// data parallel over `data` devices (the weight-update sharding example).
TransformerOptions AdamDataParallelOptions(int64_t data = 8);

// The GShard MoE example (`spmdc example moe`): the small transformer (B=8 S=16 D=64 H=4 F=128
// L=2, 32 classes) whose second layer's feed-forward block is a top-2 MoE of 8 experts
// (capacity factor 1.25: C = 5), trained with Adam, expert parallel over `data` devices
// (the batch and the experts split over them; 1, 2, 4 or 8).
TransformerOptions MoeOptions(int64_t data = 4);

}  // namespace spmdc

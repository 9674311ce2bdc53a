// GSPMD-style pipelining (AUTO.md §4.2; `spmdc pipeline`): a training step whose layers repeat
// becomes one SPMD program in which a stage dim, sharded over a new mesh axis, runs every stage's
// layers at once, and a `while` over microbatches shifts activations one stage on per iteration
// (a shift of the stage-sharded dim, which the partitioner turns into collective-permutes).
//
// The input form (FindLayerChain): in the entry computation, one computation F called L >= 2
// times as a chain (call l+1's operand 0 is call l; its other operands are entry parameters,
// layer l's weights, no weight shared between layers), and one computation G, the layer's
// backward, called once per layer: G(x_l, weights_l..., dy_l) -> (dx_l, dweights_l...) where x_l
// is layer l's input and dy_l is get-tuple-element 0 of layer l+1's backward call (for the last
// layer: any value, the loss head's cotangent). What the chains compute from and what uses their
// results (the loss head, the optimizer update) is kept as it is.
//
// The program (GPipe): the entry parameters and the result are the source's (the weights are
// stacked into [S, L/S, ...] stage-sharded buffers inside), so the source's inputs run both.
// The batch (dim 0 of x_0) is split into M strided microbatches (microbatch j holds examples
// j, j+M, ...; on a data-sharded batch each device keeps its examples). A forward loop of M+S-1
// iterations runs stage s on microbatch t-s and stores each layer's input; the head then runs on
// the whole batch as in the source; a backward loop of M+S-1 iterations runs stage s on
// microbatch t-(S-1-s) from the stored inputs and sums the weight gradients over microbatches.
// Per-stage indices are iota-over-stages compares and selects (elementwise, so they partition
// along the stage dim with no communication). The layer bodies are vmapped over the stage dim
// and rebatched to the microbatch (layer_batching.h).
//
// Devices: the source's N devices (its annotations, e.g. a data axis) times S stages, device
// d·S + s for the source's device d at stage s; every source sharding is kept over the source's
// axes and replicated over the stages.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/module.h"
#include "support/status.h"

namespace spmdc::pipeline {

enum class Schedule { kGpipe, kCircular };

struct PipelineOptions {
  int64_t stages = 0;        // S: divides the layer count
  int64_t microbatches = 0;  // M: divides the batch; with a data-sharded batch, B/M should
                             // divide by the data devices (else the microbatch is replicated)
  std::string axis = "stage";
  Schedule schedule = Schedule::kGpipe;
};

// The recognised repeated-layer form (see above).
struct LayerChain {
  const Computation* forward = nullptr;   // F
  const Computation* backward = nullptr;  // G
  std::vector<const Instruction*> forward_calls;            // by layer
  std::vector<const Instruction*> backward_calls;           // by layer (layer l's at l)
  std::vector<std::vector<const Instruction*>> weights;     // [layer][k]: entry parameters
  const Instruction* input = nullptr;      // x_0, operand 0 of the first forward call
  const Instruction* cotangent = nullptr;  // dy of the last layer
  int64_t layers() const { return static_cast<int64_t>(forward_calls.size()); }
};

// The chain of `module`'s entry, or Unimplemented "no repeated layer chain found: ..." naming
// what is missing.
StatusOr<LayerChain> FindLayerChain(const Module& module);

// What the module-level frontend attribute `spmdc_pipeline` of a pipelined module records.
struct PipelineInfo {
  int64_t stages = 0, microbatches = 0, layers = 0;
  Schedule schedule = Schedule::kGpipe;
  std::string axis;
  // The bubble: the fraction of every stage's iterations that are idle (both loops alike):
  // GPipe (S-1)/(M+S-1).
  double Bubble() const;
  std::string ToAttribute() const;  // "stages=4;microbatches=8;layers=8;schedule=gpipe;axis=stage"
};
std::string ScheduleName(Schedule s);
// The attribute of a module `PipelineModule` made; nullopt when it has none (or it is malformed).
std::optional<PipelineInfo> ReadPipelineInfo(const Module& module);

struct PipelineResult {
  std::unique_ptr<Module> module;  // num_partitions = source devices × S
  PipelineInfo info;
  int64_t source_devices = 1;
  int64_t data_devices = 1;  // the source devices the microbatch is split over (1: replicated)
};

// InvalidArgument for options that do not fit the module (S not dividing the layers, M not
// dividing the batch, naming both numbers); Unimplemented for forms it cannot pipeline
// (including --schedule circular, not implemented).
StatusOr<PipelineResult> PipelineModule(const Module& module, const PipelineOptions& options);

}  // namespace spmdc::pipeline

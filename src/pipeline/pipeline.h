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
// The program (GPipe): the entry parameters and the result are the source's, except that a layer
// weight slot whose optimizer update is the same elementwise function in every layer is taken,
// updated and returned stacked [S, L/S, ...] and split over the stages (stacked_update.h; the
// other slots are stacked inside the program from the source's per-layer weights).
// The batch (dim 0 of x_0) is split into M strided microbatches (microbatch j holds examples
// j, j+M, ...; on a data-sharded batch each device keeps its examples). A forward loop of M+S-1
// iterations runs stage s on microbatch t-s and stores each layer's input; the head then runs on
// the whole batch as in the source; a backward loop of M+S-1 iterations runs stage s on
// microbatch t-(S-1-s) from the stored inputs and sums the weight gradients over microbatches.
// Per-stage indices are iota-over-stages compares and selects (elementwise, so they partition
// along the stage dim with no communication). The layer bodies are vmapped over the stage dim
// and rebatched to the microbatch (layer_batching.h).
//
// Circular (MaxText's circular pipeline): stage s holds R groups of L/(S·R) layers (group
// r·S + s at slot r), both loops run M·R+S-1 iterations with stage s on virtual step t-s
// (microbatch (t-s) mod M, repeat (t-s) div M), the shift is a rotation of the stage dim (the
// last stage's output re-enters stage 0), and a microbatch that comes back before stage 0 takes
// it waits in a per-stage buffer, which needs M >= S.
//
// Devices: the source's N devices (its annotations, e.g. a data axis) times S stages, device
// s·N + d for the source's device d at stage s (layer_batching.h PipelinedDevice: each stage's
// devices are contiguous, whole hosts for the stage search's submeshes); every source sharding
// is kept over the source's axes and replicated over the stages.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/literal.h"
#include "ir/module.h"
#include "pipeline/layer_forms.h"
#include "support/status.h"

namespace spmdc::pipeline {

enum class Schedule { kGpipe, kCircular };

struct PipelineOptions {
  int64_t stages = 0;        // S: divides the layer count
  int64_t microbatches = 0;  // M: divides the batch; with a data-sharded batch, B/M should
                             // divide by the data devices (else the microbatch is replicated)
  std::string axis = "stage";
  Schedule schedule = Schedule::kGpipe;
  // Circular: each stage holds R groups of L/(S·R) layers and every microbatch passes the stages
  // R times (layer group r·S + s on stage s); 0: R = L/S (one layer per group). R divides L/S;
  // M >= S. GPipe: 1.
  int64_t repeats = 0;
  // The source's devices as a named mesh, major to minor ("data=2,model=8"), for the module's
  // mesh record; empty: "data=N" when the microbatch is split over all of them, else "source=N"
  // (or "data=D,source=N/D").
  std::string source_mesh;
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
  int64_t repeats = 1;  // R: circular repeats (1 for GPipe)
  Schedule schedule = Schedule::kGpipe;
  std::string axis;
  // The device mesh, major to minor ("stage=4,data=2": device s·N + d), for describing
  // collectives on named axes; the source's devices are "data" when the microbatch is split over
  // all of them, else "source".
  std::string mesh;
  // Per device (so per stage device): the stacked layer parameters it stores (its stage's
  // weights and their optimizer state) and the activation stash (the input of each of its L/S
  // layers for each of the M microbatches, kept from the forward loop for the backward one).
  int64_t stage_parameter_bytes = 0;
  int64_t stash_bytes = 0;
  // The bubble: the fraction of every stage's iterations that are idle (both loops alike):
  // (S-1)/(M·R+S-1), GPipe's (S-1)/(M+S-1) with R = 1.
  double Bubble() const;
  // "stages=4;microbatches=8;layers=8;schedule=gpipe;axis=stage" (circular: ";repeats=R" too)
  std::string ToAttribute() const;
};
std::string ScheduleName(Schedule s);
// The attribute of a module `PipelineModule` made; nullopt when it has none (or it is malformed).
std::optional<PipelineInfo> ReadPipelineInfo(const Module& module);

struct PipelineResult {
  std::unique_ptr<Module> module;  // num_partitions = source devices × S
  PipelineInfo info;
  int64_t source_devices = 1;
  int64_t data_devices = 1;  // the source devices the microbatch is split over (1: replicated)
  // The signature against the source's: for each entry parameter of `module`, the source entry
  // parameters it holds (one, or a stacked weight slot's L in layer order: [S, L/S, ...] is the
  // layers' values concatenated); for each element of `module`'s root tuple, the source root
  // elements it holds (one, or a slot's L new weights stacked the same way).
  std::vector<std::vector<int64_t>> parameter_sources;
  std::vector<std::vector<int64_t>> result_sources;
  int64_t stacked_slots = 0;  // weight slots stored and updated stacked (stacked_update.h)
  int64_t weight_slots = 0;   // the layer's weights
  LayerForm form = LayerForm::kCalls;  // the form the source's layers came in (layer_forms.h)
};

// The pipelined program's arguments made from the source's (stacking what it stacks).
std::vector<Literal> ToPipelinedArguments(const PipelineResult& result, const std::vector<Literal>& source_args);
// The source's result tuple elements (array leaves, in order) from the pipelined program's result.
StatusOr<std::vector<Literal>> ToSourceResults(const PipelineResult& result, const Literal& pipelined_result,
                                               const Shape& source_result_shape);

// InvalidArgument for options that do not fit the module (S not dividing the layers, M not
// dividing the batch, naming both numbers; circular with R not dividing L/S or M < S);
// Unimplemented for forms it cannot pipeline.
StatusOr<PipelineResult> PipelineModule(const Module& module, const PipelineOptions& options);

}  // namespace spmdc::pipeline

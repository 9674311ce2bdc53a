// The two sides of one layer in `spmdc auto --pipeline` (reference/AUTO.md §4): the module the
// stage search plans, and the way its intra-op plan comes back onto the program the pipeline
// writes.
//
// - InlineLayerCalls: the layer-call form (layer_forms.h) with its layer calls inlined is what
//   the stage search plans. It prices what the pipelined program runs, each layer's forward and
//   its backward G, which recomputes the forward values it reads from the layer's input (the
//   pipeline stashes only the layer inputs), and it names every copy's layer, so that the search
//   clusters the layers the pipeline has (auto/layers.h's given layers) instead of searching cuts.
// - ApplyLayerPlan: the search's plan of one layer is a module as autoshard::ExtractLayers makes
//   it from that inlined module (instructions keep their names; values from other layers become
//   parameters), annotated by `spmdc auto`'s planner (a sharding on every instruction, a
//   `Sharding` custom call where an operand is resharded before its use). Every instruction of
//   the layer computations F and G takes the sharding of its copy in that layer, each parameter
//   the sharding its readers' copies read in its place, and every reshard becomes a `Sharding`
//   custom call in F or G; the pipeline carries them through its vmap over stages and
//   microbatches (layer_batching.h). The entry's layer weights (every layer's, in the same
//   place), the chain's input and its cotangent take the plan's shardings too.
//
// All shardings are over one stage's devices (the source's devices of the pipeline).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "ir/module.h"
#include "support/status.h"

namespace spmdc::pipeline {

struct InlinedLayers {
  std::unique_ptr<Module> module;  // the layer calls inlined; the rest of the entry as it was
  // Entry instruction name -> layer, for the copies of layer l's forward and backward calls.
  absl::flat_hash_map<std::string, int> layer_of;
  // Per layer: the name of an instruction of F (G) -> the name of its copy in `module`.
  std::vector<absl::flat_hash_map<std::string, std::string>> forward_copy, backward_copy;
  // The copies of the backward's outputs after the input cotangent (the weight gradients, which
  // the pipeline accumulates over microbatches), every layer's.
  absl::flat_hash_set<std::string> accumulated;
  // Per layer: the name of its input in `module` (what the pipeline stashes per microbatch), and
  // of its input cotangent (the backward's output 0, the previous layer's output cotangent).
  std::vector<std::string> layer_input, layer_cotangent;
  // Per layer and weight slot: the name of the layer's weight in `module` (the call form's, or
  // the parameter that stands for a row of a stacked weight; see below).
  std::vector<std::vector<std::string>> weight;
  // A scan's stacked weights [L, ...] (and the optimizer state and results of their shape) are
  // planned as L parameters (results) of their own, so that layers tie and each carries its own
  // rows' update: the source's stacked parameter -> its rows' parameters, by layer.
  std::vector<std::pair<std::string, std::vector<std::string>>> unstacked;
};

// `calls_form` in the layer-call form (FindLayerChain finds its chain), else its error. Layer
// weights that are rows of a stacked entry parameter (a scan's) become parameters of their own,
// and the elementwise update of stacked values runs per row (`unstacked` above). With
// `microbatches` M > 1 the layers run on one microbatch, as every iteration of the pipeline's
// loops does: the layer computations are rebatched to B/M (layer_batching.h, without a stage
// dim), the chain takes the first B/M examples of its input and of its cotangent, and its
// outputs are tiled back to B for what reads them (the loss head, the embedding's backward),
// which runs once per step on the whole batch, as in the pipelined program. (Only the shapes and
// the work are the pipeline's: the values are not the step's.) InvalidArgument when M does not
// divide the batch.
StatusOr<InlinedLayers> InlineLayerCalls(const Module& calls_form, int64_t microbatches = 1);

struct LayerPlanStats {
  int64_t instructions = 0;  // F and G instructions (parameters included) that took a sharding
  int64_t unmatched = 0;     // F and G instructions with no copy in the plan (left to propagation)
  int64_t reshards = 0;      // Sharding custom calls added
  int64_t step_instructions = 0;  // the entry's other instructions that took a sharding
};

// Carries `plan` (layer `layer` of `inlined`, planned; see above) onto `calls_form`, the module
// `inlined` was made from, and `step_plans` (other layers' plans, the first that names it wins)
// onto the entry's other instructions (the embedding, the loss head: they keep their names in
// `inlined`). Internal when a copy's rank or dtype differs from its instruction's.
StatusOr<LayerPlanStats> ApplyLayerPlan(Module& calls_form, const InlinedLayers& inlined, int layer,
                                        const Module& plan, const std::vector<const Module*>& step_plans = {});

}  // namespace spmdc::pipeline

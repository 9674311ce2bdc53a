// Layer clustering for the stage search (reference/AUTO.md §4.1 and §3): the entry computation
// of a training step (or a forward program) is cut into a sequence of layers, each layer is given
// a tie class (layers with identical instructions share one), and a span of consecutive layers
// can be extracted as a module of its own for the intra-op solver to price on a submesh.
//
// 1. The forward pass is what the loss depends on: the ancestors of the result tuple's first
//    floating-point scalar (else its element 0; the whole entry when the result is not a tuple).
// 2. Cut candidates are the points of the forward schedule that exactly one value crosses
//    (constant-only values do not count, nor values read across more than half of the forward
//    pass, such as a tied embedding; a parameter crosses from its first forward use to its last):
//    a transformer's residual stream after each residual add. The pieces between them are
//    segments.
// 3. Layers are the repeating unit of the segments: the period p and offset o that repeat a block
//    of p segment signatures the most times r >= 2 (Alpa's FLOPs balance holds by construction for
//    repeated blocks; its boundary-bytes criterion is the single-value cut). Segments before the
//    first block join layer 0, those after the last join layer r - 1 (embedding, final norm and
//    loss). A forward graph with no repeated block has one layer per segment.
// 4. Everything else (the backward pass, the optimizer update) is placed where its inputs are: an
//    instruction's layer is the smallest over its operands of (the operand's layer, for backward
//    operands; the largest layer that uses it in the forward pass, for forward values), so that a
//    layer's backward stays with its forward even where it reads the previous layer's output.
//    Instructions whose inputs are only parameters that the forward pass does not read (Adam's
//    step count) go to the first layer that uses them. Values computed from constants alone are
//    *free*: copied into every span that uses them.
// With a given assignment (the layer-call form's calls inlined: pipeline/layer_plan.h names each
// copy's layer), steps 2 and 3 are skipped: the named instructions are their layers, a forward
// value it does not name joins the first layer it feeds (an embedding) or, feeding none, the
// last (the loss head), and step 4 places the rest.
// 5. A layer's tie class is decided by its signature: every instruction's opcode, shape and
//    attributes in schedule order, with the free values that only it reads, operands named by
//    position inside the layer or, outside it, by shape (free values by their text). Identical
//    layers get one class; the first and last layers differ (no input gradient, the loss) and so
//    are naturally untied.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/module.h"
#include "support/status.h"

namespace spmdc::autoshard {

struct LayerClustering {
  int num_layers = 0;
  // Per entry instruction, in `schedule` order: its layer, or -1 for free values and the root
  // tuple (which no layer owns; its operands are each layer's outputs).
  std::vector<const Instruction*> schedule;  // the entry's post-order
  std::vector<int> layer_of;
  std::vector<int> tie_class;                // per layer, classes numbered in order of appearance
  int num_classes = 0;
  std::vector<int> forward_instructions;     // per layer, counts (for the report)
  std::vector<int> instructions;             // per layer, forward + backward + update
  // Bytes crossing boundary b (between layers b - 1 and b; entries 0 and num_layers are 0) at the
  // module's batch: computed values one layer passes to a later one (activations), and to an
  // earlier one (gradients). Parameters and free values never cross (every stage has its own).
  std::vector<int64_t> forward_bytes, backward_bytes;
  bool given = false;                        // the layers were given (no cuts were searched)
  bool repeated = false;                     // found a repeated block (else one layer per segment)
  int period_segments = 0;                   // segments per repeated layer
  // The forward pass's segments (what lies between two single-value cuts), for outlining a
  // layer (pipeline/layer_forms.h): per schedule index, the segment of a computed forward value
  // (else -1). With a repeated block, layer l's own segments are first_block_segment +
  // l·period_segments up to the next layer's; the segments before the first block and after
  // the last (an embedding, the loss head) also belong to layers 0 and num_layers - 1.
  std::vector<int> forward_segment;
  int num_segments = 0;
  int first_block_segment = 0;
  // Per layer, for tying decisions (strategy_space.h): the indices (into `schedule`) of its
  // instructions and of the free values that it alone reads (directly or through other free
  // values: the constants and masks a layer builds for itself), in schedule order. The tie class
  // signature covers them, so two layers of one class match here position by position.
  std::vector<std::vector<int>> tie_members;
};

// An instruction's text without its name and operand names: shape, opcode, attributes (and a
// constant's value). Two instructions with the same signature and the same operands compute the
// same function.
std::string BodySignature(const Instruction& instr);

// Errors: InvalidArgument for an entry without instructions; Unimplemented when the forward pass
// has no single-value cut (nothing to pipeline) or has more than `max_untied_layers` segments and
// no repeated block. `given` (entry instruction name -> layer, layers 0.. without gaps) replaces
// the cuts, as above; with it, a forward segment is a layer.
StatusOr<LayerClustering> ClusterLayers(const Module& module, int max_untied_layers = 64,
                                        const absl::flat_hash_map<std::string, int>* given = nullptr);

// Layers [first, last] of `module` as a module of their own: their instructions, the free values
// they use, a parameter for every value another layer computes (named NAME.in) and every original
// parameter they read (a tied embedding that another layer owns, too); its result is a tuple of
// every value of the span that another layer or the original result uses (an empty tuple when
// nothing is). Shardings and Sharding constraints are dropped (stages run on their own submeshes).
StatusOr<std::unique_ptr<Module>> ExtractLayers(const Module& module, const LayerClustering& layers, int first,
                                                int last);

// The instructions of each layer, in schedule order (indices into `layers.schedule`): layers of
// one tie class have as many, and the k-th of each computes the same function of the same
// operands (the class's signature), so a plan for one carries to another by position.
std::vector<std::vector<int>> LayerMembers(const LayerClustering& layers);

// An intra-op plan carried onto a computation instruction by instruction (a tied layer's plan
// onto another layer of its class; a planned layer onto the layer computations the pipeline
// vmaps): an instruction with a twin (in an annotated module, as `spmdc auto` writes it) takes
// the twin's sharding; a parameter without one takes what its readers' twins read in its place;
// an operand that its reader's twin reads through a `Sharding` custom call (a reshard the plan
// puts before that use) gets such a custom call too. Twins have the rank and dtype of their
// instructions (the pipeline's layer computations run on the whole batch, their plans on a
// microbatch), else Internal.
struct CarriedPlan {
  int64_t annotated = 0;  // instructions that took a sharding
  int64_t unmatched = 0;  // array instructions with no twin (left to propagation)
  int64_t reshards = 0;   // Sharding custom calls added
};
StatusOr<CarriedPlan> CarryPlan(Module& module, Computation& target,
                                const absl::flat_hash_map<const Instruction*, const Instruction*>& twin);

}  // namespace spmdc::autoshard

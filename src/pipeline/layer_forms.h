// The forms a training step's repeated layers come in, and their conversion to the layer-call
// form that the pipeline generator reads (pipeline.h): one computation called per layer as a
// chain, and its backward called per layer in reverse.
//
// - Layer calls: as pipeline.h describes (`spmdc example gpt-pipeline`).
// - Scan (jax.lax.scan / flax nn.scan over layers, with or without remat): a forward `while`
//   whose body runs one layer on row i of stacked weights [L, ...] (dynamic-slice at an index of
//   the counter), carries the activation and writes the values the backward needs (residuals)
//   into stacked buffers (dynamic-update-slice); and a backward `while` that reads the rows in
//   reverse, carries the cotangent and writes each layer's weight gradients into stacked
//   outputs. ScanToLayerCalls outlines the forward body as the layer and the backward body as
//   its backward (which recomputes the residuals it reads from the layer's input and weights),
//   and unrolls both loops into call chains on the weights' rows; the stacked gradients become
//   the concatenation of the layers' outputs. The pipeline then takes the stacked weights as
//   they are ([L, ...] is [S, L/S, ...] reshaped) and returns the stacked gradients the same way.
// - Unrolled (a Python loop over layers, or calls inlined): one entry computation in which the
//   layers' instructions repeat. UnrolledToLayerCalls finds the layers with the stage search's
//   clustering (auto/layers.h: the forward pass cut where one value crosses, the repeated
//   block of segments), outlines one layer's forward and its backward (the instructions placed
//   with it that do not only feed the result, up to the sums over the batch that the optimizer
//   reads: the weight gradients), matches every layer against them, and replaces each by calls
//   (unrolled_form.cc says how instructions are placed).
//
// Every conversion keeps the entry's parameters and result as they are (same signature, same
// values) and fails with Unimplemented naming what does not fit; the pipeline never guesses.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "ir/module.h"
#include "support/status.h"

namespace spmdc::pipeline {

enum class LayerForm { kCalls, kScan, kUnrolled };
std::string LayerFormName(LayerForm form);  // "layer calls", "scan", "unrolled layers"

struct LayerCallModule {
  std::unique_ptr<Module> module;  // the layer-call form, with the source's entry signature
  LayerForm form = LayerForm::kCalls;
};

// `module` in the layer-call form: a copy of it when its layers are calls already; else, with
// its calls inlined, the scan or the unrolled conversion. Unimplemented naming why no form fits.
StatusOr<LayerCallModule> ToLayerCallForm(const Module& module);

// The conversions, on a module whose calls are inlined (passes.h RunInlineCalls).
StatusOr<std::unique_ptr<Module>> ScanToLayerCalls(const Module& inlined);
StatusOr<std::unique_ptr<Module>> UnrolledToLayerCalls(const Module& inlined);

// Copies instructions (with the operands they need, operands first) into a computation, except
// those `substitute` maps to an instruction there already (it returns nullptr for "copy it").
// Copies drop shardings and `Sharding` custom calls (a layer's values get the pipeline's).
class InstructionCopier {
 public:
  using Substitute = std::function<StatusOr<Instruction*>(const Instruction*)>;
  InstructionCopier(Module& module, Computation& into, Substitute substitute)
      : module_(module), into_(into), substitute_(std::move(substitute)) {}
  StatusOr<Instruction*> Copy(const Instruction* value);
  Computation& into() { return into_; }

 private:
  Module& module_;
  Computation& into_;
  Substitute substitute_;
  absl::flat_hash_map<const Instruction*, Instruction*> map_;
};

// Helpers that add one instruction to `c` under a fresh name from `hint`.
Instruction* AddReshape(Module& m, Computation& c, Instruction* x, const Shape& shape, const std::string& hint);
Instruction* AddGetTupleElement(Module& m, Computation& c, Instruction* t, int64_t index, const std::string& hint);
Instruction* AddCall(Module& m, Computation& c, Computation* callee, const std::vector<Instruction*>& operands,
                     const std::string& hint);
Instruction* AddParameter(Module& m, Computation& c, int64_t number, const Shape& shape, const std::string& hint);
// The shape without dim 0.
Shape DropLeadingDim(const Shape& s);
// The shape with a leading dim of `n`.
Shape WithLeadingDim(const Shape& s, int64_t n);

}  // namespace spmdc::pipeline

// ToLayerCallForm (layer_forms.h): which form a module's layers come in.
#include "pipeline/layer_forms.h"

#include "fmt/format.h"
#include "ir/verifier.h"
#include "passes/passes.h"
#include "pipeline/pipeline.h"

namespace spmdc::pipeline {
namespace {

// get-tuple-element(opt-barrier(t), k) -> get-tuple-element(t, k): the barrier (remat's, which
// orders a recomputation after the values it waits for) is the identity; the pipeline schedules
// the layers itself.
void SeeThroughOptimizationBarriers(Module& module) {
  for (Computation* c : module.computations())
    for (Instruction* i : c->instructions())
      if (i->opcode() == Opcode::kGetTupleElement && i->operand(0)->opcode() == Opcode::kOptimizationBarrier)
        i->ReplaceOperandWith(0, i->operand(0)->operand(0));
}

}  // namespace

std::string LayerFormName(LayerForm form) {
  switch (form) {
    case LayerForm::kCalls: return "layer calls";
    case LayerForm::kScan: return "scan";
    case LayerForm::kUnrolled: return "unrolled layers";
  }
  return "?";
}

StatusOr<LayerCallModule> ToLayerCallForm(const Module& module) {
  StatusOr<LayerChain> calls = FindLayerChain(module);
  if (calls.ok()) return LayerCallModule{module.Clone(), LayerForm::kCalls};
  if (calls.status().code() != absl::StatusCode::kUnimplemented) return calls.status();
  std::unique_ptr<Module> inlined = module.Clone();
  RETURN_IF_ERROR(RunInlineCalls(*inlined).status());
  SeeThroughOptimizationBarriers(*inlined);
  RETURN_IF_ERROR(RunTupleSimplifier(*inlined).status());
  RETURN_IF_ERROR(RunDce(*inlined).status());
  bool loops = false;
  for (const Instruction* i : inlined->entry()->instructions()) loops |= i->opcode() == Opcode::kWhile;
  auto finish = [&](StatusOr<std::unique_ptr<Module>> converted, LayerForm form) -> StatusOr<LayerCallModule> {
    RETURN_IF_ERROR(converted.status());
    RETURN_IF_ERROR(RunDce(**converted).status());
    Status verified = VerifyModule(**converted);
    if (!verified.ok())
      return Internal("pipeline: the {} form converted to layer calls does not verify: {}", LayerFormName(form),
                      verified.message());
    StatusOr<LayerChain> chain = FindLayerChain(**converted);
    if (!chain.ok() && chain.status().code() == absl::StatusCode::kUnimplemented)
      return Unimplemented("{}: {}", LayerFormName(form), chain.status().message());
    if (!chain.ok()) return chain.status();
    return LayerCallModule{*std::move(converted), form};
  };
  StatusOr<std::unique_ptr<Module>> scan = ScanToLayerCalls(*inlined);
  if (scan.ok() || scan.status().code() != absl::StatusCode::kUnimplemented || loops)
    return finish(std::move(scan), LayerForm::kScan);
  StatusOr<std::unique_ptr<Module>> unrolled = UnrolledToLayerCalls(*inlined);
  if (unrolled.ok() || unrolled.status().code() != absl::StatusCode::kUnimplemented)
    return finish(std::move(unrolled), LayerForm::kUnrolled);
  return Unimplemented("no repeated layers found: not layer calls ({}), not unrolled layers ({})",
                       calls.status().message(), unrolled.status().message());
}

}  // namespace spmdc::pipeline

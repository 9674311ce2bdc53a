// What every command that propagates shares with the Python binding: the pass over `call`
// instructions that runs first (--calls), propagation itself (PropagationArgs::Propagate, declared
// in options.h), and explain's text for one instruction, which follows the names inlining changed.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/module.h"
#include "options.h"
#include "passes/passes.h"
#include "propagation/provenance.h"
#include "sharding/mesh.h"
#include "support/status.h"

namespace spmdc::cli {

// What happens to `call` instructions before propagation: "inline" (the default, as XLA's SPMD
// pipeline: passes.h RunInlineCalls; `renamed` receives the names it changed), "flatten" (one
// callee per call site: RunFlattenCalls) or "keep" (calls stay; a callee shared by several call
// sites is then propagated and partitioned for one of them). Another mode is InvalidArgument.
Status PrepareCalls(Module& module, std::string_view mode, InlinedNames* renamed = nullptr);

// What runs before propagation: PrepareCalls, then every constant expression split per user
// (passes.h RunSplitConstantExpressions, as Shardy's import splits them). With `times`:
// "MODE-calls" (inline-calls, ...) and "split-constants".
Status PrepareForPropagation(Module& module, std::string_view calls, InlinedNames* renamed = nullptr,
                             PhaseTimes* times = nullptr);

// Why `instr` has its sharding (provenance.h), with its source location and, given a mesh, its
// sharding described on the mesh's axes.
std::string ExplainInstruction(const Module& module, const Provenance& provenance, const Instruction& instr,
                               const std::optional<Mesh>& mesh);

// explain NAME on a module propagated after PrepareCalls recorded `renamed`: NAME's explanation,
// and where inlining moved or copied its value, a line saying so followed by the explanation of
// each instruction that holds it now. InvalidArgument when no instruction is or holds NAME.
StatusOr<std::string> ExplainName(const Module& module, const Provenance& provenance, const InlinedNames& renamed,
                                  const std::string& name, const std::optional<Mesh>& mesh);

}  // namespace spmdc::cli

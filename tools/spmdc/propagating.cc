#include "propagating.h"

#include "fmt/format.h"
#include "fmt/ranges.h"

namespace spmdc::cli {

const std::vector<std::string>& CallModes() {
  static const std::vector<std::string> modes = {"inline", "flatten", "keep"};
  return modes;
}

Status PrepareCalls(Module& module, std::string_view mode, InlinedNames* renamed) {
  if (mode == "inline") return RunInlineCalls(module, renamed).status();
  if (mode == "flatten") return RunFlattenCalls(module).status();
  if (mode == "keep") return absl::OkStatus();
  return InvalidArgument("calls: expected one of inline, flatten, keep, got '{}'", mode);
}

PropagationOptions PropagationArgs::ToOptions() const {
  PropagationOptions options;
  if (to_output) options.allow_to_output = std::vector<bool>{true};
  if (to_parameters) options.allow_to_parameters = std::vector<bool>{true};
  if (no_spmd) options.is_spmd = false;
  if (cse_prevention_only) options.cse_prevention_only = true;
  return options;
}

Status PrepareForPropagation(Module& module, std::string_view calls, InlinedNames* renamed, PhaseTimes* times) {
  PhaseClock prepare_calls;
  RETURN_IF_ERROR(PrepareCalls(module, calls, renamed));
  if (times) times->push_back(prepare_calls.Read(fmt::format("{}-calls", calls)));
  PhaseClock split;
  RETURN_IF_ERROR(RunSplitConstantExpressions(module).status());
  if (times) times->push_back(split.Read("split-constants"));
  return absl::OkStatus();
}

Status PropagationArgs::Propagate(Module& module, Provenance* provenance, InlinedNames* renamed,
                                  PhaseTimes* times) const {
  RETURN_IF_ERROR(PrepareForPropagation(module, calls, renamed, times));
  PhaseClock propagate;
  RETURN_IF_ERROR(PropagateShardings(module, ToOptions(), provenance).status());
  if (times) times->push_back(propagate.Read("propagate"));
  return absl::OkStatus();
}

std::string ExplainInstruction(const Module& module, const Provenance& provenance, const Instruction& instr,
                               const std::optional<Mesh>& mesh) {
  std::string out = ExplainSharding(provenance, instr);
  if (std::string where = module.SourceLocationOf(instr); !where.empty()) out += fmt::format("source: {}\n", where);
  if (mesh && instr.has_sharding())
    out += fmt::format("on mesh {}: {}\n", mesh->ToString(), DescribeSharding(instr.shape(), *instr.sharding(), *mesh));
  return out;
}

StatusOr<std::string> ExplainName(const Module& module, const Provenance& provenance, const InlinedNames& renamed,
                                  const std::string& name, const std::optional<Mesh>& mesh) {
  auto find = [&](const std::string& n) -> const Instruction* {
    for (const Computation* c : module.computations())
      for (const Instruction* i : c->instructions())
        if (i->name() == n) return i;
    return nullptr;
  };
  const Instruction* self = find(name);
  std::vector<std::string> now = NamesAfterInlining(module, renamed, name);
  if (!self && now.empty()) return InvalidArgument("no instruction named '{}'", name);
  std::string out;
  if (!now.empty())
    out = self ? fmt::format("{}: its computation was inlined at several call sites (--calls inline); the other "
                             "copies: {}\n\n",
                             name, fmt::join(now, ", "))
               : fmt::format("{} was inlined (--calls inline); its value is now {}\n\n", name, fmt::join(now, ", "));
  if (self) out += ExplainInstruction(module, provenance, *self, mesh);
  for (size_t k = 0; k < now.size(); ++k) {
    if (self || k > 0) out += "\n";
    out += ExplainInstruction(module, provenance, *find(now[k]), mesh);
  }
  return out;
}

}  // namespace spmdc::cli

// spmdc explain IN NAME|--all: why an instruction has its sharding (propagation's provenance).
#include <cstdio>

#include "commands.h"
#include "propagating.h"

namespace spmdc::cli {

Command AddExplainCommand(CLI::App& root) {
  CLI::App* app = root.add_subcommand(
      "explain", "why NAME has its sharding: the rule chain back to annotations");
  struct Args {
    ModuleArgs module;
    PropagationArgs propagation;
    std::string name;
    bool all = false;
  };
  auto args = std::make_shared<Args>();
  AddModuleArgs(app, args->module);
  CLI::Option* name = app->add_option("NAME", args->name, "the instruction to explain");
  app->add_flag("--all", args->all, "explain every instruction")->excludes(name);
  AddPropagationArgs(app, args->propagation, /*rule_choices=*/true);
  return {
      app, [args]() -> Status {
        if (!args->all && args->name.empty())
          return InvalidArgument("expected an instruction NAME after the input module (or --all)");
        ASSIGN_OR_RETURN(auto module, LoadAnnotated(args->module, std::nullopt));
        Provenance provenance;
        InlinedNames renamed;
        RETURN_IF_ERROR(args->propagation.Propagate(*module, &provenance, &renamed));
        std::optional<Mesh> mesh;
        if (args->module.mesh) {
          ASSIGN_OR_RETURN(mesh, Mesh::Parse(*args->module.mesh));
        }
        // NAME, and where calls were inlined, what now holds NAME's value: the copies of a
        // callee's instruction at its other call sites, the inlined callee root of a call.
        std::string out;
        if (args->all) {
          for (Computation* c : module->computations())
            for (Instruction* i : c->instructions()) out += ExplainInstruction(*module, provenance, *i, mesh) + "\n";
        } else {
          ASSIGN_OR_RETURN(out, ExplainName(*module, provenance, renamed, args->name, mesh));
        }
        std::fputs(out.c_str(), stdout);
        return absl::OkStatus();
      }};
}

}  // namespace spmdc::cli

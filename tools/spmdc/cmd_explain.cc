// spmdc explain IN NAME|--all: why an instruction has its sharding (propagation's provenance).
#include <cstdio>

#include "commands.h"
#include "fmt/format.h"
#include "sharding/mesh.h"

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
        RETURN_IF_ERROR(
            PropagateShardings(*module, args->propagation.ToOptions(), &provenance).status());
        std::optional<Mesh> mesh;
        if (args->module.mesh) {
          ASSIGN_OR_RETURN(mesh, Mesh::Parse(*args->module.mesh));
        }
        std::string out;
        for (Computation* c : module->computations()) {
          for (Instruction* i : c->instructions()) {
            if (!args->all && i->name() != args->name) continue;
            out += ExplainSharding(provenance, *i);
            if (std::string where = module->SourceLocationOf(*i); !where.empty())
              out += fmt::format("source: {}\n", where);
            if (mesh && i->has_sharding())
              out += fmt::format("on mesh {}: {}\n", mesh->ToString(),
                                 DescribeSharding(i->shape(), *i->sharding(), *mesh));
            if (args->all) out += "\n";
          }
        }
        if (out.empty()) return InvalidArgument("no instruction named '{}'", args->name);
        std::fputs(out.c_str(), stdout);
        return absl::OkStatus();
      }};
}

}  // namespace spmdc::cli

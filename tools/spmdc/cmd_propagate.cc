// spmdc propagate IN: infer a sharding for every instruction; print the module.
#include "commands.h"
#include "hlo/printer.h"
#include "hlo/shardy_import.h"

namespace spmdc::cli {

Command AddPropagateCommand(CLI::App& root) {
  CLI::App* app =
      root.add_subcommand("propagate", "infer a sharding for every instruction; print the module");
  struct Args {
    ModuleArgs module;
    PropagationArgs propagation;
    std::string out;
  };
  auto args = std::make_shared<Args>();
  AddModuleArgs(app, args->module);
  AddPropagationArgs(app, args->propagation, /*rule_choices=*/true);
  AddOutput(app, args->out);
  return {
      app, [args]() -> Status {
        ASSIGN_OR_RETURN(auto module, LoadAnnotated(args->module, std::nullopt));
        RETURN_IF_ERROR(args->propagation.Propagate(*module));
        ExportShardyAttributes(*module);  // xla.sdy.sharding made to match what propagation chose
        return WriteOutput(args->out, PrintModule(*module));
      }};
}

}  // namespace spmdc::cli

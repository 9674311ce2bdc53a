// spmdc print IN [-o OUT]: the module in canonical HLO text.
#include "commands.h"
#include "hlo/printer.h"
#include "hlo/shardy_import.h"

namespace spmdc::cli {

Command AddPrintCommand(CLI::App& root) {
  CLI::App* app =
      root.add_subcommand("print", "parse + verify; print the module in canonical HLO text");
  struct Args {
    ModuleArgs module;
    std::string out;
  };
  auto args = std::make_shared<Args>();
  AddModuleArgs(app, args->module);
  AddOutput(app, args->out);
  return {app, [args]() -> Status {
            ASSIGN_OR_RETURN(auto module, LoadAnnotated(args->module, std::nullopt));
            ExportShardyAttributes(*module);
            return WriteOutput(args->out, PrintModule(*module));
          }};
}

}  // namespace spmdc::cli

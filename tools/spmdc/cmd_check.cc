// spmdc check IN: parse + verify; one summary line.
#include <cstdio>

#include "commands.h"

namespace spmdc::cli {

Command AddCheckCommand(CLI::App& root) {
  CLI::App* app = root.add_subcommand("check", "parse + verify; print a one-line summary");
  auto args = std::make_shared<ModuleArgs>();
  AddModuleArgs(app, *args);
  return {app, [args]() -> Status {
            ASSIGN_OR_RETURN(auto module, LoadAnnotated(*args, std::nullopt));
            int64_t instructions = 0;
            for (Computation* c : module->computations()) instructions += c->instruction_count();
            std::printf(
                "ok: module %s: %zu computations, %lld instructions, %lld entry parameters, "
                "num_partitions=%lld\n",
                module->name().c_str(), module->computations().size(),
                static_cast<long long>(instructions),
                static_cast<long long>(module->entry()->num_parameters()),
                static_cast<long long>(module->num_partitions()));
            return absl::OkStatus();
          }};
}

}  // namespace spmdc::cli

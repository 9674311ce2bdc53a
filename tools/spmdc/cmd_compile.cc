// spmdc compile IN --num-partitions N: propagate, partition, clean up; print the per-device
// SPMD module.
#include <cstdio>

#include "backend.h"
#include "commands.h"
#include "partitioning.h"

namespace spmdc::cli {

Command AddCompileCommand(CLI::App& root) {
  CLI::App* app = root.add_subcommand(
      "compile", "propagate, partition, clean up; print the per-device SPMD module");
  struct Args {
    ModuleArgs module;
    PropagationArgs propagation;
    std::optional<int64_t> num_partitions;
    bool replicate_custom_partitioning = false;
    WeightUpdateArgs weight_update;
    bool stats = false;
    bool timing = false;
    std::string out;
    BackendArgs backend;
  };
  auto args = std::make_shared<Args>();
  AddModuleArgs(app, args->module);
  AddNumPartitions(app, args->num_partitions);
  app->add_flag("--stats", args->stats, "print collective counts and bytes per device");
  app->add_flag("--timing", args->timing,
                "print the wall and CPU seconds of each phase (parse, Shardy import, call inlining, "
                "propagation, partitioning, clean-up, printing) and of the passes between loading "
                "and printing");
  AddReplicateCustomPartitioning(app, args->replicate_custom_partitioning);
  AddPropagationArgs(app, args->propagation);
  AddWeightUpdateArgs(app, args->weight_update);
  AddOutput(app, args->out);
  // With --stats: which collectives cross ranks under --backend mpi --devices-per-rank K.
  AddBackendArgs(app, args->backend);
  return {app, [args]() -> Status {
            PhaseTimes phases;
            PhaseTimes* times = args->timing ? &phases : nullptr;
            ASSIGN_OR_RETURN(auto module, LoadAnnotated(args->module, args->num_partitions, times));
            ASSIGN_OR_RETURN(int64_t n, NumPartitionsOf(args->num_partitions, *module));
            module->set_num_partitions(n);
            RETURN_IF_ERROR(args->propagation.Propagate(*module, nullptr, nullptr, times));
            PhaseClock weight_update;
            RETURN_IF_ERROR(ApplyWeightUpdateSharding(*module, args->weight_update, args->module.mesh));
            if (!args->weight_update.mode.empty()) phases.push_back(weight_update.Read("weight-update"));
            ASSIGN_OR_RETURN(PartitionResult result,
                             PartitionAndClean(*module, n, args->replicate_custom_partitioning));
            phases.insert(phases.end(), result.stats.times.begin(), result.stats.times.end());
            if (args->backend.mpi() && !args->stats)
              return InvalidArgument("compile --backend mpi goes with --stats (compile runs "
                                     "nothing; the stats say which collectives cross ranks)");
            if (!args->backend.mpi() && args->backend.devices_per_rank != 1)
              return InvalidArgument("--devices-per-rank needs --backend mpi");
            std::string traffic;
            if (args->backend.mpi()) {
              ASSIGN_OR_RETURN(traffic,
                               RankTrafficText(result, n, args->backend.devices_per_rank));
            }
            PhaseClock print;
            RETURN_IF_ERROR(EmitPartitioned(args->out, args->stats, result));
            phases.push_back(print.Read("print"));
            if (args->timing)
              std::fputs(TimingText(phases).c_str(),
                         args->out.empty() || args->out == "-" ? stderr : stdout);
            if (!traffic.empty())
              std::fputs(traffic.c_str(),
                         args->out.empty() || args->out == "-" ? stderr : stdout);
            return absl::OkStatus();
          }};
}

}  // namespace spmdc::cli

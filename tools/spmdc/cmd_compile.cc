// spmdc compile IN --num-partitions N: propagate, partition, clean up; print the per-device
// SPMD module.
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
    std::string out;
  };
  auto args = std::make_shared<Args>();
  AddModuleArgs(app, args->module);
  AddNumPartitions(app, args->num_partitions);
  app->add_flag("--stats", args->stats, "print collective counts and bytes per device");
  AddReplicateCustomPartitioning(app, args->replicate_custom_partitioning);
  AddPropagationArgs(app, args->propagation);
  AddWeightUpdateArgs(app, args->weight_update);
  AddOutput(app, args->out);
  return {app, [args]() -> Status {
            ASSIGN_OR_RETURN(auto module, LoadAnnotated(args->module, args->num_partitions));
            ASSIGN_OR_RETURN(int64_t n, NumPartitionsOf(args->num_partitions, *module));
            module->set_num_partitions(n);
            RETURN_IF_ERROR(PropagateShardings(*module, args->propagation.ToOptions()).status());
            RETURN_IF_ERROR(ApplyWeightUpdateSharding(*module, args->weight_update, args->module.mesh));
            ASSIGN_OR_RETURN(PartitionResult result,
                             PartitionAndClean(*module, n, args->replicate_custom_partitioning));
            return EmitPartitioned(args->out, args->stats, result);
          }};
}

}  // namespace spmdc::cli

// spmdc report IN --num-partitions N: the cost model's report (report.cc builds it).
#include "commands.h"
#include "partitioning.h"
#include "report.h"

namespace spmdc::cli {

Command AddReportCommand(CLI::App& root) {
  CLI::App* app = root.add_subcommand(
      "report",
      "per-device memory, FLOPs, communication and step time (propagates and partitions first)");
  struct Args {
    ModuleArgs module;
    PropagationArgs propagation;
    std::optional<int64_t> num_partitions;
    ReportOptions report;
  };
  auto args = std::make_shared<Args>();
  AddModuleArgs(app, args->module);
  AddNumPartitions(app, args->num_partitions);
  app->add_option("--hardware", args->report.hardware,
                  "a hardware profile: a name (hardware/NAME.json, e.g. h100, tpu-v5p, cpu-local) "
                  "or a .json path")
      ->type_name("NAME|FILE.json")
      ->capture_default_str();
  app->add_option("--hardware-dir", args->report.hardware_dir,
                  "a folder searched first for NAME.json")
      ->type_name("DIR");
  app->add_option("--format", args->report.format, "output format")
      ->type_name("FORMAT")
      ->check(OneOf(ReportFormats()))
      ->capture_default_str();
  app->add_flag("--partitioned", args->report.partitioned, "IN already is a per-device program");
  AddPropagationArgs(app, args->propagation);
  AddWeightUpdateArgs(app, args->report.weight_update);
  AddOutput(app, args->report.out);
  return {app, [args]() -> Status {
            ASSIGN_OR_RETURN(auto module, LoadAnnotated(args->module, args->num_partitions));
            ASSIGN_OR_RETURN(int64_t n, NumPartitionsOf(args->num_partitions, *module));
            module->set_num_partitions(n);
            ReportOptions options = args->report;
            options.mesh = args->module.mesh;
            options.propagation = args->propagation;
            return RunReport(options, std::move(module), n);
          }};
}

}  // namespace spmdc::cli

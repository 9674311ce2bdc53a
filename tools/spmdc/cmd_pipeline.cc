// spmdc pipeline IN --stages S --microbatches M [--axis stage] [--schedule gpipe|circular]
//   [--repeats R] [-o OUT] [--verify [--devices N] [--seed S]]
// GSPMD-style pipelining (src/pipeline/pipeline.h): prints the pipelined module. --verify runs
// the source step on one device (the interpreter) and the pipelined program, propagated and
// partitioned, on the in-process devices, on the same random inputs (the two modules share
// their signature), and compares every output as `spmdc verify` does.
#include <chrono>
#include <cstdio>

#include "commands.h"
#include "fmt/format.h"
#include "hlo/printer.h"
#include "pipeline/pipeline.h"
#include "pipeline_verify.h"

namespace spmdc::cli {
namespace {

struct PipelineArgs {
  ModuleArgs module;
  int64_t stages = 0;
  int64_t microbatches = 0;
  std::string axis = "stage";
  std::string schedule = "gpipe";
  int64_t repeats = 0;
  std::string out;
  bool verify = false;
  std::optional<int64_t> devices;
  uint64_t seed = 0;
};

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

Status RunPipeline(const PipelineArgs& args) {
  ASSIGN_OR_RETURN(auto module, LoadAnnotated(args.module, std::nullopt));
  pipeline::PipelineOptions options;
  options.stages = args.stages;
  options.microbatches = args.microbatches;
  options.axis = args.axis;
  options.schedule = args.schedule == "circular" ? pipeline::Schedule::kCircular : pipeline::Schedule::kGpipe;
  options.repeats = args.repeats;
  const auto start = std::chrono::steady_clock::now();
  ASSIGN_OR_RETURN(pipeline::PipelineResult result, pipeline::PipelineModule(*module, options));
  const int64_t weight_slots = result.weight_slots;
  const int64_t n = result.module->num_partitions();
  std::fprintf(stderr,
               "pipeline: %lld layers in %lld stages x %lld microbatches (%s%s) on %lld devices (%lld per stage, batch "
               "split over %lld), bubble %.1f%%, %lld of %lld weight slots stacked, in %.2f s\n",
               static_cast<long long>(result.info.layers), static_cast<long long>(result.info.stages),
               static_cast<long long>(result.info.microbatches), pipeline::ScheduleName(result.info.schedule).c_str(),
               result.info.schedule == pipeline::Schedule::kCircular ? fmt::format(", {} repeats", result.info.repeats).c_str() : "",
               static_cast<long long>(n), static_cast<long long>(result.source_devices),
               static_cast<long long>(result.data_devices), 100 * result.info.Bubble(),
               static_cast<long long>(result.stacked_slots), static_cast<long long>(weight_slots), Seconds(start));
  if (args.devices && *args.devices != n)
    return InvalidArgument("--devices {}: the pipelined program runs on {} devices ({} stages x the source's {})",
                           *args.devices, n, result.info.stages, result.source_devices);
  if (!args.verify || !args.out.empty()) RETURN_IF_ERROR(WriteOutput(args.out, PrintModule(*result.module)));
  if (args.verify) RETURN_IF_ERROR(VerifyPipelined(*module, result, n, args.seed));
  return absl::OkStatus();
}

}  // namespace

Command AddPipelineCommand(CLI::App& root) {
  CLI::App* app = root.add_subcommand(
      "pipeline",
      "GSPMD-style pipeline: repeated layers -> one SPMD program with a stage-sharded dim and a microbatch loop");
  auto args = std::make_shared<PipelineArgs>();
  AddModuleArgs(app, args->module);
  app->add_option("--stages", args->stages, "pipeline stages S (divides the layer count)")
      ->required()
      ->check(IntegerIn(1, 1 << 16));
  app->add_option("--microbatches", args->microbatches, "microbatches M (divides the batch)")
      ->required()
      ->check(IntegerIn(1, 1 << 20));
  app->add_option("--axis", args->axis, "name of the stage mesh axis (default stage)");
  app->add_option("--schedule", args->schedule, "gpipe (default) or circular")->check(OneOf({"gpipe", "circular"}));
  app->add_option("--repeats", args->repeats,
                  "circular: times every microbatch passes the stages (divides L/S; default L/S)")
      ->check(IntegerIn(1, 1 << 16));
  AddOutput(app, args->out);
  app->add_flag("--verify", args->verify,
                "run the source on one device and the pipelined program on the in-process devices; compare");
  app->add_option("--devices", args->devices, "with --verify: the device count (must be S x the source's devices)")
      ->check(IntegerIn(1, 1 << 20));
  AddSeed(app, args->seed);
  return {app, [args] { return RunPipeline(*args); }};
}

}  // namespace spmdc::cli

#include "partitioning.h"

#include <cstdio>

#include "cli.h"
#include "fmt/format.h"
#include "hlo/printer.h"
#include "cost/cost.h"
#include "hlo/shardy_import.h"
#include "partitioner/weight_update.h"
#include "runtime/executor.h"

namespace spmdc::cli {
namespace {

std::string StatsText(const PartitionResult& r) {
  std::string out = "collectives (per device):\n";
  if (r.stats.collectives.empty()) out += "  none\n";
  for (const auto& [kind, c] : r.stats.collectives)
    out += fmt::format("  {:<20} count={:<4} bytes={}\n", kind, c.count, c.bytes);
  out += fmt::format("parameters: {} bytes per device\noutput: {} bytes per device\n",
                     r.stats.parameter_bytes, r.stats.output_bytes);
  if (!r.stats.warnings.empty())
    out += fmt::format("full rematerializations: {}\n", r.stats.warnings.size());
  return out;
}

}  // namespace

StatusOr<PartitionResult> PartitionAndClean(const Module& module, int64_t n,
                                            bool replicate_custom_partitioning) {
  PartitionOptions options{n};
  options.replicate_custom_partitioning = replicate_custom_partitioning;
  ASSIGN_OR_RETURN(PartitionResult result, PartitionAndCleanUp(module, options));
  for (const std::string& w : result.stats.warnings)
    std::fprintf(stderr, "spmdc: warning: %s\n", w.c_str());
  return result;
}

Status ApplyWeightUpdateSharding(Module& module, const WeightUpdateArgs& args,
                                 const std::optional<std::string>& mesh_text,
                                 std::optional<AppliedWeightUpdate>* applied) {
  if (args.mode.empty()) return absl::OkStatus();
  WeightUpdateOptions options;
  options.keep_sharded = args.mode == "keep-sharded";
  if (mesh_text) {
    ASSIGN_OR_RETURN(options.mesh, Mesh::Parse(*mesh_text));
  } else {
    CostOptions cost;
    cost.num_partitions = module.num_partitions();
    std::optional<Mesh> inferred = MeshForCollectives(module, cost);
    if (!inferred)
      return InvalidArgument("--shard-weight-update: no mesh: give --mesh (with a data axis)");
    options.mesh = *inferred;
  }
  if (!args.axis.empty()) {
    options.axis = args.axis;
  } else if (options.mesh.AxisIndex("data")) {
    options.axis = "data";
  } else if (options.mesh.num_axes() == 1) {
    options.axis = options.mesh.axes()[0].name;
  } else {
    return InvalidArgument("--shard-weight-update: the mesh {} has no axis named 'data': name the data-parallel "
                           "one with --weight-update-axis",
                           options.mesh.ToString());
  }
  ASSIGN_OR_RETURN(WeightUpdateResult result, ShardWeightUpdate(module, options));
  std::fprintf(stderr, "spmdc: %s\n", result.Summary(options).c_str());
  // Why some outputs were left alone: the first few (the rest are usually alike).
  constexpr size_t kShown = 3;
  for (size_t i = 0; i < result.skipped.size() && i < kShown; ++i)
    std::fprintf(stderr, "spmdc:   left alone: %s\n", result.skipped[i].c_str());
  if (result.skipped.size() > kShown)
    std::fprintf(stderr, "spmdc:   ... and %zu more\n", result.skipped.size() - kShown);
  if (applied) *applied = AppliedWeightUpdate{std::move(options), std::move(result)};
  return absl::OkStatus();
}

std::string TimingText(const PhaseTimes& phases) {
  std::string out = "timing (seconds):                wall       cpu\n";
  PhaseTime passes{"passes"}, total{"total"};
  for (const PhaseTime& p : phases) {
    out += fmt::format("  {:<24} {:>10.6f} {:>9.6f}\n", p.name, p.wall_seconds, p.cpu_seconds);
    const bool loading_or_printing =
        p.name == "read" || p.name == "parse" || p.name == "verify" || p.name == "annotate" || p.name == "print";
    if (!loading_or_printing) {
      passes.wall_seconds += p.wall_seconds;
      passes.cpu_seconds += p.cpu_seconds;
    }
    total.wall_seconds += p.wall_seconds;
    total.cpu_seconds += p.cpu_seconds;
  }
  for (const PhaseTime& p : {passes, total})
    out += fmt::format("  {:<24} {:>10.6f} {:>9.6f}\n", p.name, p.wall_seconds, p.cpu_seconds);
  return out;
}

Status EmitPartitioned(const std::string& out_path, bool stats, const PartitionResult& result) {
  DropShardyAttributes(*result.module);  // a per-device program: no sharding is meaningful
  RETURN_IF_ERROR(WriteOutput(out_path, PrintModule(*result.module)));
  if (stats) {
    std::string text = StatsText(result);
    std::fputs(text.c_str(), out_path.empty() || out_path == "-" ? stderr : stdout);
  }
  return absl::OkStatus();
}

StatusOr<Literal> RunOnDevices(const PartitionResult& partitioned, const Shape& global_result_shape,
                               int64_t n, const std::vector<Literal>& arguments) {
  SpmdOptions options;
  options.global_result_shape = global_result_shape;
  return ExecuteSpmd(*partitioned.module, n, arguments, partitioned.parameter_shardings,
                     partitioned.result_sharding, options);
}

}  // namespace spmdc::cli

#include "partitioning.h"

#include <cstdio>

#include "cli.h"
#include "fmt/format.h"
#include "hlo/printer.h"
#include "hlo/shardy_import.h"
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

#include "pipeline_verify.h"

#include <chrono>
#include <cstdio>

#include "fmt/format.h"
#include "inputs.h"
#include "memory_guard.h"
#include "interpreter/interpreter.h"
#include "partitioning.h"
#include "propagation/propagation.h"
#include "runtime/host_values.h"
#include "runtime/result_comparison.h"

namespace spmdc::cli {
namespace {

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace

Status VerifyPipelined(const Module& source, const pipeline::PipelineResult& result, int64_t n, uint64_t seed) {
  const auto start = std::chrono::steady_clock::now();
  std::unique_ptr<Module> program = result.module->Clone();
  RETURN_IF_ERROR(PropagateShardings(*program).status());
  ASSIGN_OR_RETURN(PartitionResult partitioned, PartitionAndClean(*program, n, /*replicate_custom_partitioning=*/false));
  std::fprintf(stderr, "pipeline: propagated and partitioned for %lld devices in %.2f s\n", static_cast<long long>(n),
               Seconds(start));
  // The reference: the source step on one device, on the inputs the devices get.
  std::unique_ptr<Module> one = source.Clone();
  one->set_num_partitions(1);
  // Refused up front when this process could not hold it (as `spmdc verify`): the inputs twice
  // (the source's and the pipelined program's stacked ones), the reference, then its outputs
  // while the devices run.
  const int64_t inputs = HostArgumentBytes(*one, 1);
  const OneDeviceFootprint footprint = EstimateOneDevice(*one);
  const int64_t devices = EstimateDevices(*partitioned.module, n, result.module->entry()->root()->shape());
  const int64_t needed = std::max(AddBytes(inputs, footprint.temporaries),
                                  AddBytes(AddBytes(AddBytes(inputs, inputs), footprint.outputs), devices));
  RETURN_IF_ERROR(CheckMemory(fmt::format("verify on {} devices", n), needed,
                              fmt::format("inputs {} (twice: the source's and the pipelined program's), one-device "
                                          "reference {} (its outputs {}), the {} devices' peaks summed and the result {}",
                                          Size(inputs), Size(footprint.temporaries), Size(footprint.outputs), n,
                                          Size(devices)),
                              std::nullopt));
  ASSIGN_OR_RETURN(std::vector<Literal> arguments, MakeArguments(*one, {}, seed));
  SingleDeviceContext device;
  ASSIGN_OR_RETURN(Literal reference, Execute(*one, arguments, &device));
  const auto run_start = std::chrono::steady_clock::now();
  ASSIGN_OR_RETURN(Literal got, RunOnDevices(partitioned, result.module->entry()->root()->shape(), n,
                                             pipeline::ToPipelinedArguments(result, arguments)));
  std::fprintf(stderr, "pipeline: ran on %lld devices in %.2f s\n", static_cast<long long>(n), Seconds(run_start));
  ASSIGN_OR_RETURN(std::vector<Literal> got_elements,
                   pipeline::ToSourceResults(result, got, one->entry()->root()->shape()));
  std::vector<Literal> got_leaves, want = FlattenLeaves(reference);
  for (const Literal& e : got_elements)
    for (Literal& leaf : FlattenLeaves(e)) got_leaves.push_back(std::move(leaf));
  if (got_leaves.size() != want.size())
    return Internal("pipelined program returned {} outputs, the source {}", got_leaves.size(), want.size());
  const double tolerance = ModuleTolerance(*partitioned.module);
  double max_abs = 0, max_rel = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    LeafComparison c = CompareLeaf(got_leaves[i], want[i], tolerance);
    max_abs = std::max(max_abs, c.max_abs_error);
    max_rel = std::max(max_rel, c.max_rel_error);
    if (!c.ok) {
      std::printf("verify: MISMATCH on %lld devices: output_%zu %s\n", static_cast<long long>(n), i, c.problem.c_str());
      return absl::AbortedError("the pipelined program's result differs from the unpipelined step's");
    }
  }
  std::printf(
      "verify: ok on %lld devices (%lld stages x %lld source devices): %zu outputs, max abs error %.3g, max relative "
      "error %.3g (reference: the unpipelined module on one device)\n",
      static_cast<long long>(n), static_cast<long long>(result.info.stages), static_cast<long long>(result.source_devices),
      want.size(), max_abs, max_rel);
  return absl::OkStatus();
}

}  // namespace spmdc::cli

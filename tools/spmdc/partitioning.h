// What partition, compile, run and verify share: partitioning with the clean-up passes (its
// warnings on stderr), printing a per-device program with its --stats, and running one on
// in-process devices.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/literal.h"
#include "ir/module.h"
#include "options.h"
#include "partitioner/partitioner.h"
#include "partitioner/weight_update.h"
#include "support/status.h"

namespace spmdc::cli {

// Partitions `module` (propagated or annotated) for n devices and cleans the result up; the
// partitioner's warnings (full rematerializations, replicated custom calls) go to stderr.
StatusOr<PartitionResult> PartitionAndClean(const Module& module, int64_t n,
                                            bool replicate_custom_partitioning);

// With args.mode set, shards the weight update of the propagated `module` over the data axis
// (partitioner/weight_update.h) on the mesh of --mesh (else the one its shardings imply) and
// prints what it did on stderr; `applied` (when given) gets it too, for the report. Errors: no
// such axis, or no mesh with one (exit 2).
struct AppliedWeightUpdate {
  WeightUpdateOptions options;
  WeightUpdateResult result;
};
Status ApplyWeightUpdateSharding(Module& module, const WeightUpdateArgs& args,
                                 const std::optional<std::string>& mesh_text,
                                 std::optional<AppliedWeightUpdate>* applied = nullptr);

// The phases of `compile --timing`, one line each (wall and CPU seconds), then "passes": the
// phases between loading and printing (what XLA's SPMD pipeline times: its Shardy import,
// call inlining, propagation, partitioning and clean-up), then "total".
std::string TimingText(const PhaseTimes& phases);

// Prints the per-device program to `out_path` (empty or '-': stdout) and, with `stats`, the
// collective statistics (to stderr when the program goes to stdout).
Status EmitPartitioned(const std::string& out_path, bool stats, const PartitionResult& result);

// Runs a partitioned program on n in-process devices; `global_result_shape` is the unpartitioned
// module's result shape.
StatusOr<Literal> RunOnDevices(const PartitionResult& partitioned, const Shape& global_result_shape,
                               int64_t n, const std::vector<Literal>& arguments);

}  // namespace spmdc::cli

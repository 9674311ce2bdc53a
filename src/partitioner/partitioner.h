// The SPMD partitioner (GSPMD.md §3): rewrites a module whose instructions carry shardings into
// one per-device program with collectives. Partitioning is "as annotated": an instruction without
// a sharding is replicated (run propagation first to infer them).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/module.h"
#include "sharding/sharding.h"
#include "support/status.h"
#include "support/timing.h"

namespace spmdc {

struct PartitionOptions {
  int64_t num_partitions = 1;
  // CustomSPMDPartitioning (jax.custom_partitioning) keeps its partitioning in a Python callback
  // that spmdc cannot run: by default such a call is refused (Unimplemented); with this set it
  // runs replicated (operands gathered), with a warning naming the bytes that moves.
  bool replicate_custom_partitioning = false;
};

struct PartitionStats {
  struct Collective {
    int64_t count = 0;
    int64_t bytes = 0;  // per device, summed over instances (static count, not loop trips)
  };
  std::map<std::string, Collective> collectives;
  int64_t parameter_bytes = 0;  // per-device bytes of the entry parameters
  int64_t output_bytes = 0;     // per-device bytes of the entry result
  std::vector<std::string> warnings;  // full rematerializations, with instruction and bytes
  PhaseTimes times;                    // "partition", "cleanup" (PartitionAndCleanUp)
};

struct PartitionResult {
  std::unique_ptr<Module> module;          // the per-device program
  std::vector<Sharding> parameter_shardings;  // how host inputs are split
  Sharding result_sharding;                // how device outputs are assembled
  PartitionStats stats;
};

// PartitionModule followed by the clean-up passes (passes.h); the collective statistics then
// describe the cleaned-up program. What the CLI, the tests and the benchmarks run.
StatusOr<PartitionResult> PartitionAndCleanUp(const Module& module, const PartitionOptions& options);

// Per-device collective counts and bytes of a (partitioned, cleaned-up) module: static counts,
// one per instruction; bytes are the larger of operand and result sizes. Loop bodies count once.
std::map<std::string, PartitionStats::Collective> CountCollectives(const Module& module);

// Errors: InvalidArgument for shardings that do not fit the device count; Unimplemented for ops
// that cannot be partitioned (side effects without a unique device, ...).
StatusOr<PartitionResult> PartitionModule(const Module& module, const PartitionOptions& options);

}  // namespace spmdc

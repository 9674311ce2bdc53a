// The SPMD executor: runs a per-device module on num_partitions (x replica_count) devices, one
// thread each, every device with the reference interpreter and a SpmdDeviceContext over a shared
// ThreadWorld. Host arguments are split by the entry parameter shardings and the result is
// assembled by the root sharding (host_sharding.h).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "interpreter/interpreter.h"
#include "ir/literal.h"
#include "ir/module.h"
#include "sharding/sharding.h"
#include "support/status.h"

namespace spmdc {

struct SpmdOptions {
  // The global (unpartitioned) result shape. Absent: the per-device result shape with each tiled
  // dim multiplied by its tile count, which is exact only for evenly partitioned results.
  std::optional<Shape> global_result_shape;
  // Replicas (each runs num_partitions devices on the same arguments); 0: the module's
  // replica_count. The result is assembled from replica 0.
  int64_t replica_count = 0;
  // Cores to share between devices; 0: the machine's. Each device's interpreter gets
  // intra_op_threads = max(1, cores / devices).
  int cores = 0;
  InterpreterOptions interpreter;
  // When set, receives every device's raw result (index = global device id).
  std::vector<Literal>* device_results = nullptr;
  // When set, receives every device's peak of live buffer bytes (index = global device id):
  // its argument shards, its values and temporaries as the interpreter holds them
  // (ir/memory_account.h), what the cost model's memory estimate predicts.
  std::vector<int64_t>* device_peak_bytes = nullptr;
  // When set, receives the step's wall time in seconds: from the first device starting its
  // program to the last one finishing it (splitting the arguments and assembling the result
  // excluded), what the cost model's step time predicts.
  double* step_seconds = nullptr;
  // When set, receives each device's CPU time in seconds (index = global device id) over the
  // same span: unlike wall time it does not grow when other processes share the cores.
  std::vector<double>* device_cpu_seconds = nullptr;
};

// `param_shardings` has one sharding per entry parameter (empty: all replicated); global_args are
// the full host values. Errors: the first device error (its device named), or InvalidArgument for
// arguments that do not fit the shardings / the module's parameters.
StatusOr<Literal> ExecuteSpmd(const Module& per_device_module, int64_t num_partitions,
                              const std::vector<Literal>& global_args,
                              const std::vector<Sharding>& param_shardings,
                              const Sharding& result_sharding, const SpmdOptions& options = {});

}  // namespace spmdc

// The SPMD executor on MPI: every rank of an MPI job (mpirun -np R) runs K = devices_per_rank
// devices of the per-device program as threads (device d on rank d / K, R x K devices in all),
// their collectives on MpiCommunicator (mpi_communicator.h). The result is assembled on rank 0.
//
// This header does not include <mpi.h>: the CLI compiles against it whether or not MPI exists
// (mpi_*.cc are built only when CMake finds MPI).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ir/literal.h"
#include "ir/module.h"
#include "runtime/executor.h"
#include "sharding/sharding.h"
#include "support/status.h"

namespace spmdc {

class MpiWorld;

// A process's part of an MPI job: MPI initialised (MPI_THREAD_MULTIPLE) by Start, finalised by
// Finalize or the destructor.
class MpiSession {
 public:
  // `collective_timeout_s` > 0: a device waiting longer than that in one MPI call aborts the job
  // (exit code 5 on every rank) naming itself, the collective and the ranks it waits for.
  static StatusOr<std::unique_ptr<MpiSession>> Start(int64_t devices_per_rank,
                                                     double collective_timeout_s);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const;
  int ranks() const;
  int64_t devices_per_rank() const;
  int64_t devices() const;
  MpiWorld& world() { return *world_; }

  // Every rank's `code`, in rank order (collective; waits by polling with short sleeps, so that
  // ranks waiting for a busy peer leave it the cores). `timed`: the collective timeout applies
  // (exit 5 past it).
  std::vector<int> ExchangeCodes(int code, bool timed = false);
  // All ranks must hold the same per-device program: `hash` (of the program and its signature's
  // shardings) is compared collectively (under the collective timeout); the error names the ranks
  // whose hash differs from rank 0's.
  Status CheckSameProgram(uint64_t hash);
  // Prints "spmdc: rank R of N: MESSAGE" on stderr and ends the whole job with `code`.
  [[noreturn]] void Abort(int code, const std::string& message);
  void Finalize();

 private:
  explicit MpiSession(std::unique_ptr<MpiWorld> world);
  std::unique_ptr<MpiWorld> world_;
};

struct MpiRunOptions {
  SpmdOptions spmd;  // global_result_shape, replica_count, cores, interpreter, step_seconds
  // The exit code of a device's error: a failing device aborts the whole job with it.
  std::function<int(const Status&)> exit_code_for;
  // When set, receives this rank's devices' raw results (index i: device first_local_device()+i)
  // and nothing is collected on rank 0 (the call returns an empty tuple on every rank).
  std::vector<Literal>* local_results = nullptr;
};

// Collective over every rank. The world must have exactly replicas x num_partitions devices.
// `local_args[i]` are the entry arguments of this rank's device i (global device
// first_local_device() + i), already split (its shards; LocalShardsFromGlobal makes them from
// whole host values). Returns the assembled result on rank 0 and an empty tuple on the other
// ranks. A device error aborts the job (MpiSession::Abort) with exit_code_for(error), naming the
// device and its rank.
StatusOr<Literal> ExecuteSpmdMpi(MpiSession& session, const Module& per_device_module,
                                 int64_t num_partitions,
                                 std::vector<std::vector<Literal>> local_args,
                                 const Sharding& result_sharding, const MpiRunOptions& options);

// This rank's devices' shards of whole host arguments (ShardForDevice per parameter).
StatusOr<std::vector<std::vector<Literal>>> LocalShardsFromGlobal(
    const MpiSession& session, int64_t num_partitions, const std::vector<Literal>& global_args,
    const std::vector<Sharding>& param_shardings);

// A stable 64-bit hash (FNV-1a) of `text`.
uint64_t StableHash(const std::string& text);

}  // namespace spmdc

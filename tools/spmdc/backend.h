// --backend threads|mpi for run and verify: the in-process devices (the default), or an MPI job
// (mpirun -np R spmdc run ... --backend mpi [--devices-per-rank K]) with K device threads per
// rank and R x K devices in all (runtime/mpi_executor.h).
//
// Under MPI every rank runs the command: it loads and partitions the module itself, the ranks
// check that they hold the same per-device program, run it, and rank 0 assembles the result,
// prints and writes the outputs. Outcomes are agreed at fixed points (Settle): when any rank
// fails, the first failing rank reports its error and every rank exits with its code; a device
// that fails while its peers wait in collectives ends the whole job (MPI_Abort) with its code,
// naming its rank and device.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/literal.h"
#include "ir/module.h"
#include "partitioner/partitioner.h"
#include "support/status.h"

namespace spmdc::cli {

struct BackendArgs {
  std::string backend = "threads";
  int64_t devices_per_rank = 1;
  double collective_timeout = 0;  // seconds; 0: none
  bool mpi() const { return backend == "mpi"; }
};
// --backend, --devices-per-rank, --collective-timeout.
void AddBackendArgs(CLI::App* app, BackendArgs& args);

// compile --stats --backend mpi --devices-per-rank K: for each collective kind of the per-device
// program, how many collectives (per device, as written in the program) and result bytes cross
// ranks when n devices run as n / K ranks of K device threads (device d on rank d / K), and how
// many stay inside a rank (thread backend). Needs no MPI: it reads the program's groups.
StatusOr<std::string> RankTrafficText(const PartitionResult& partitioned, int64_t n, int64_t k);

// This process's part of an MPI command.
class MpiRun {
 public:
  // Initialises MPI. Unimplemented (exit 3) when this spmdc was built without MPI.
  static StatusOr<std::unique_ptr<MpiRun>> Start(const BackendArgs& args);
  ~MpiRun();

  int rank() const;
  int ranks() const;
  bool root() const { return rank() == 0; }
  // The devices of an n-device job that run on this host: K x the ranks Open MPI placed here
  // (OMPI_COMM_WORLD_LOCAL_SIZE), at most n. What run/verify estimate they hold is scaled to it.
  int64_t DevicesOnThisHost(int64_t n) const;
  // Collective: every rank's outcome so far. OK when every rank is fine. Otherwise the first
  // failing rank reports its `status` (prefixed "rank R of N:" when not every rank failed), and
  // once it has, every rank finalises MPI and exits with that rank's exit code.
  // `timed`: the collective timeout applies (before the run; not after it, where verify's rank 0
  // computes its reference while the others wait).
  Status Settle(const Status& status, bool timed = false);
  // Collective: the same per-device program (module text and signature shardings) on every rank.
  Status CheckSameProgram(const PartitionResult& partitioned);
  // This rank's devices' entry arguments (what MakeArguments makes, split): a tiled array
  // parameter is read box by box from its .npy file (seeking to its slices) or generated for its
  // box alone, so no rank ever holds a whole tiled array; other parameters are made whole, then
  // split. `module` is the unpartitioned module (its parameter shapes are the global ones).
  StatusOr<std::vector<std::vector<Literal>>> LocalArguments(
      const Module& module, const PartitionResult& partitioned, int64_t n,
      const std::vector<std::string>& npy_paths, uint64_t seed);
  // Collective: runs the program; the assembled result on rank 0, an empty tuple elsewhere.
  StatusOr<Literal> Execute(const PartitionResult& partitioned, const Shape& global_result_shape,
                            int64_t n, std::vector<std::vector<Literal>> local_arguments);
  // Collective: runs the program and writes, from the rank holding it, every partition's shard
  // of every output leaf of replica 0 as DIR/output_K.partition_P.npy (nothing is gathered);
  // rank 0 writes DIR/output_K.sharding.txt (the leaf's global shape and sharding) and prints
  // one line per leaf.
  Status ExecuteToShards(const PartitionResult& partitioned, const Shape& global_result_shape,
                         int64_t n, std::vector<std::vector<Literal>> local_arguments,
                         const std::string& dir);

 private:
  struct Impl;
  explicit MpiRun(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace spmdc::cli

// The MPI backend (Open MPI): the Communicator of one device of an SPMD run spread over MPI
// ranks, each rank running `devices_per_rank` (K) devices as threads. Device d lives on rank
// d / K. Collectives between ranks go through MPI; within a rank through the thread backend.
//
// A group's members on one rank are its "local" members; the first of them (in group order) is
// the rank's leader for that group. A collective over a group whose members all live on one rank
// runs on the thread backend alone. Otherwise every group has its own MPI communicator over the
// ranks holding members (in order of their first member), created once and cached (MpiWorld::
// Prepare creates them up front, in the same order on every rank, from the main thread; with
// K = 1 a group not prepared is created on first use by its members). With one member per rank
// the collective is the matching MPI call (MPI_Allreduce, MPI_Allgather, MPI_Reduce_scatter_block,
// MPI_Alltoall, MPI_Bcast, MPI_Barrier). With several, the local members combine on the thread
// backend, the leaders run the MPI call (MPI_Allgatherv / MPI_Alltoallv where the pieces are
// uneven) and the leader hands the result back to its local members.
//
// Reductions use MPI's built-in operations where their semantics are exactly HLO's (integer
// sum/product in unsigned types, so that they wrap; min/max/and/or on integers; f32/f64 and
// complex sums; pred or/and) and user-defined MPI operations for everything else: the NaN-
// propagating float min/max, the narrow floats (f16, bf16, f8, f4), sub-byte integers, complex
// products, and custom reduction computations (declared non-commutative, so MPI combines them in
// rank order). A user operation reads the reduction from a thread-local set by the calling
// thread: blocking MPI collectives run it on the caller.
//
// collective-permute is point to point (MPI_Isend / MPI_Irecv pairs on a communicator of its
// own, tagged by the source's and target's local device index so that messages between one pair
// of devices stay ordered); a device that receives nothing gets zeros.
//
// Timeouts: with a collective timeout, a watchdog thread aborts the whole job (MPI_Abort) when a
// device has waited in one MPI call longer than that, naming the rank, the device, the
// collective and its group.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "runtime/communicator.h"
#include "runtime/thread_communicator.h"

namespace spmdc {

class MpiWorld {
 public:
  // Initialises MPI (MPI_THREAD_MULTIPLE) unless it already is; the destructor finalises it when
  // this object initialised it. Fails when MPI cannot give MPI_THREAD_MULTIPLE with K > 1.
  static StatusOr<std::unique_ptr<MpiWorld>> Create(int64_t devices_per_rank);
  ~MpiWorld();
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  int rank() const { return rank_; }
  int ranks() const { return ranks_; }
  int64_t devices_per_rank() const { return k_; }
  int64_t devices() const { return static_cast<int64_t>(ranks_) * k_; }
  int RankOf(int64_t device) const { return static_cast<int>(device / k_); }
  int64_t first_local_device() const { return static_cast<int64_t>(rank_) * k_; }
  bool IsLocal(int64_t device) const { return RankOf(device) == rank_; }

  // Creates the MPI communicator of every group of `groups` that spans several ranks and holds a
  // member on this rank. Every rank must pass the same list (same order); collective.
  Status Prepare(const std::vector<DeviceGroup>& groups);

  // Aborts every pending MPI call of this process and the job after `seconds` in one call
  // (0: never). Starts the watchdog thread.
  void SetCollectiveTimeout(double seconds);
  double collective_timeout() const { return timeout_s_; }

  // Prints `message` on stderr and aborts the whole job with exit code `code` (MPI_Abort).
  [[noreturn]] void Abort(int code, const std::string& message);

  // Internal to MpiCommunicator.
  struct GroupComm {
    MPI_Comm comm = MPI_COMM_NULL;
    std::vector<int> ranks;                     // ranks holding members, first-member order
    std::vector<std::vector<int64_t>> members;  // per entry of `ranks`: group indices
    int my_position = -1;                       // this rank's entry in `ranks`
  };
  StatusOr<const GroupComm*> CommOf(const DeviceGroup& group);
  ThreadWorld* local() { return local_.get(); }
  // A fresh thread world for the local devices (a run marks its devices done in it at the end).
  void ResetLocal() { local_ = std::make_unique<ThreadWorld>(devices()); }
  MPI_Comm p2p() const { return p2p_; }
  // Records that local device `device` enters (what != nullptr) or leaves an MPI call.
  void Enter(int64_t device, const char* what, const DeviceGroup* group);
  void Leave(int64_t device);

 private:
  MpiWorld(int64_t k, bool initialised_here);
  StatusOr<const GroupComm*> CreateLocked(const DeviceGroup& group);
  void Watch();

  const int64_t k_;
  const bool initialised_here_;
  int rank_ = 0, ranks_ = 1;
  MPI_Comm p2p_ = MPI_COMM_NULL;
  std::unique_ptr<ThreadWorld> local_;
  std::mutex mu_;
  std::map<DeviceGroup, std::unique_ptr<GroupComm>> comms_;
  bool prepared_ = false;

  // The watchdog: per local device, when it entered its current MPI call (steady ns, 0: none).
  struct Pending {
    std::atomic<int64_t> since_ns{0};
    const char* what = nullptr;
    DeviceGroup group;
  };
  std::vector<std::unique_ptr<Pending>> pending_;
  std::mutex pending_mu_;
  double timeout_s_ = 0;
  std::atomic<bool> stop_{false};
  std::thread watchdog_;
};

class MpiCommunicator final : public Communicator {
 public:
  // The communicator of global device `device`, which must live on this rank; use it from one
  // thread only. `world` outlives it.
  MpiCommunicator(MpiWorld* world, int64_t device);

  int64_t rank() const override { return device_; }
  int64_t size() const override { return world_->devices(); }
  Status AllReduce(const DeviceGroup& group, DType dtype, const void* in, void* out, int64_t count,
                   const Reduction& reduction) override;
  Status AllGather(const DeviceGroup& group, const void* in, void* out, int64_t bytes) override;
  Status ReduceScatter(const DeviceGroup& group, DType dtype, const void* in, void* out,
                       int64_t count, const Reduction& reduction) override;
  Status AllToAll(const DeviceGroup& group, const void* in, void* out, int64_t bytes) override;
  Status CollectivePermute(const DeviceGroup& participants,
                           const std::vector<std::pair<int64_t, int64_t>>& pairs, const void* in,
                           void* out, int64_t bytes) override;
  Status CollectiveBroadcast(const DeviceGroup& group, int64_t root, const void* in, void* out,
                             int64_t bytes) override;
  Status Barrier(const DeviceGroup& group) override;

 private:
  struct Layout;
  StatusOr<Layout> LayoutOf(const DeviceGroup& group, const char* what);

  MpiWorld* world_;
  int64_t device_;
  ThreadCommunicator local_;
};

// The MPI datatype and operation that reduce `dtype` by `kind` natively (built-in), or nullopt
// when a user-defined operation is needed. Exposed for the tests and the benchmark.
struct MpiBuiltinReduction {
  MPI_Datatype type;
  MPI_Op op;
};
std::optional<MpiBuiltinReduction> BuiltinMpiReduction(ReductionKind kind, DType dtype);

}  // namespace spmdc

// The in-process backend: one thread per device, collectives through shared memory.
//
// A collective is a rendezvous keyed by (group, per-group call number): each member publishes its
// buffer pointers and arrives (phase 1), every member then reads its peers' buffers directly and
// does its share of the work (all-reduce: member i reduces and broadcasts chunk i), and arrives
// again (phase 2) so that no buffer is released while a peer may still touch it. Waits spin
// briefly, then sleep on the slot's counter (futex); nothing is locked around the data movement.
//
// Abort: ThreadWorld::Abort fails every collective that has not completed phase 1 (and every later
// one), so device threads never hang on a peer that failed. MarkDone(rank) fails collectives that
// wait for a rank that has finished its program, and a rendezvous in which every live rank waits
// for a peer that will never come (devices running mismatched collectives) is detected and
// reported instead of hanging.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/communicator.h"

namespace spmdc {

class ThreadWorld {
 public:
  explicit ThreadWorld(int64_t size);
  ~ThreadWorld();
  ThreadWorld(const ThreadWorld&) = delete;
  ThreadWorld& operator=(const ThreadWorld&) = delete;

  int64_t size() const { return size_; }
  // Fails every pending and future collective with `status` (the first abort's status is kept).
  void Abort(const Status& status);
  bool aborted() const;
  // `rank` issues no more collectives (its program ended): collectives waiting for it fail.
  void MarkDone(int64_t rank);

  struct Slot;
  // Internal to ThreadCommunicator.
  StatusOr<std::shared_ptr<Slot>> Join(const DeviceGroup& group, uint64_t seq, int64_t index,
                                       int64_t rank);
  Status WaitAllArrived(Slot& slot, int64_t rank);
  void Depart(Slot& slot, const std::shared_ptr<Slot>& keep);

 private:
  void AbortSlotLocked(Slot& slot, const std::string& message);
  void CheckDeadlockLocked();

  const int64_t size_;
  mutable std::mutex mu_;
  bool aborted_ = false;
  Status abort_status_;
  std::vector<bool> done_;
  std::vector<Slot*> waiting_;  // the slot each rank sleeps on in phase 1, or null
  std::map<std::pair<DeviceGroup, uint64_t>, std::shared_ptr<Slot>> slots_;
};

class ThreadCommunicator final : public Communicator {
 public:
  // The communicator of `rank`; use it from one thread only. `world` outlives it.
  ThreadCommunicator(ThreadWorld* world, int64_t rank) : world_(world), rank_(rank) {}

  int64_t rank() const override { return rank_; }
  int64_t size() const override { return world_->size(); }
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
  struct Call;
  template <typename Body>
  Status Run(const DeviceGroup& group, const Call& call, Body&& body);

  ThreadWorld* world_;
  int64_t rank_;
  std::map<DeviceGroup, uint64_t> next_seq_;
};

}  // namespace spmdc

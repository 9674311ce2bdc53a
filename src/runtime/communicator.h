// Communicator: the collectives a device program needs from its peers, over raw row-major
// buffers, with MPI-like contiguous semantics. Backends: ThreadCommunicator (one thread per
// device, shared memory; thread_communicator.h); an MPI backend can implement the same interface.
//
// Ranks are global device ids (replica * num_partitions + partition, GSPMD.md §3.2). A
// DeviceGroup lists the participating ranks in HLO order; the caller's position in it is its
// index. Every member of a group must issue the same sequence of collectives on that group (SPMD
// order); a backend matches calls by (group, per-group call count), so the same instruction
// executed repeatedly inside a while loop is fine.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "ir/dtype.h"
#include "support/status.h"

namespace spmdc {

class Computation;

using DeviceGroup = std::vector<int64_t>;

enum class ReductionKind : uint8_t { kSum, kProduct, kMin, kMax, kAnd, kOr, kCustom };

// How all-reduce / reduce-scatter combine values. The common kinds run natively on every dtype
// where they are meaningful (HLO semantics: NaN-propagating float min/max, wrapping integers,
// pred add = or, pred multiply = and); kCustom (and any kind/dtype pair without a native loop)
// calls `combine`, which must then be set.
struct Reduction {
  ReductionKind kind = ReductionKind::kSum;
  // acc[i] = f(acc[i], in[i]) for i < count; elements are stored as the buffer's dtype.
  std::function<Status(void* acc, const void* in, int64_t count)> combine;
};

// True when (kind, dtype) has a native loop.
bool HasNativeReduction(ReductionKind kind, DType dtype);
// acc[i] = acc[i] (op) in[i] for `count` elements of `dtype`.
Status ApplyReduction(const Reduction& reduction, DType dtype, void* acc, const void* in,
                      int64_t count);
// out[i] = a[i] (op) b[i]; `out` may be `a`.
Status ApplyReduction(const Reduction& reduction, DType dtype, void* out, const void* a,
                      const void* b, int64_t count);
// The native kind of a reduction computation (two scalar parameters, root = add/multiply/
// maximum/minimum/and/or of them, in either order); nullopt for anything else.
std::optional<ReductionKind> MatchReductionComputation(const Computation& computation);

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int64_t rank() const = 0;  // global device id of the caller
  virtual int64_t size() const = 0;  // devices in the world

  // out = in_0 (op) in_1 (op) ... in group order; `count` elements of `dtype`. Every member
  // gets bitwise the same result. `in` and `out` may not overlap.
  virtual Status AllReduce(const DeviceGroup& group, DType dtype, const void* in, void* out,
                           int64_t count, const Reduction& reduction) = 0;
  // out = concatenation of every member's `bytes`-long input, in group order.
  virtual Status AllGather(const DeviceGroup& group, const void* in, void* out, int64_t bytes) = 0;
  // `in` holds group.size() chunks of `count` elements; member i gets the reduction of every
  // member's chunk i.
  virtual Status ReduceScatter(const DeviceGroup& group, DType dtype, const void* in, void* out,
                               int64_t count, const Reduction& reduction) = 0;
  // `in` holds group.size() chunks of `bytes`; chunk j goes to member j, and out's chunk i is
  // what member i sent to the caller.
  virtual Status AllToAll(const DeviceGroup& group, const void* in, void* out, int64_t bytes) = 0;
  // `participants` are every rank executing this permute; pairs are (source, target) ranks.
  // A target receives its source's `bytes`; a participant nobody sends to gets zeros.
  virtual Status CollectivePermute(const DeviceGroup& participants,
                                   const std::vector<std::pair<int64_t, int64_t>>& pairs,
                                   const void* in, void* out, int64_t bytes) = 0;
  // Every member gets group[root]'s `bytes`.
  virtual Status CollectiveBroadcast(const DeviceGroup& group, int64_t root, const void* in,
                                     void* out, int64_t bytes) = 0;
  virtual Status Barrier(const DeviceGroup& group) = 0;
};

}  // namespace spmdc

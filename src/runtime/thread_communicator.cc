#include "runtime/thread_communicator.h"

#include <algorithm>
#include <cstring>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define SPMDC_CPU_RELAX() _mm_pause()
#else
#define SPMDC_CPU_RELAX() std::this_thread::yield()
#endif

namespace spmdc {
namespace {

constexpr int32_t kAbortBit = int32_t{1} << 30;
constexpr int kSpins = 128;
constexpr int64_t kBlockBytes = 64 << 10;  // reduction block (stays in L2)

enum class OpTag : uint8_t {
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kAllToAll,
  kPermute,
  kBroadcast,
  kBarrier
};
const char* OpTagName(OpTag t) {
  switch (t) {
    case OpTag::kAllReduce:
      return "all-reduce";
    case OpTag::kAllGather:
      return "all-gather";
    case OpTag::kReduceScatter:
      return "reduce-scatter";
    case OpTag::kAllToAll:
      return "all-to-all";
    case OpTag::kPermute:
      return "collective-permute";
    case OpTag::kBroadcast:
      return "collective-broadcast";
    case OpTag::kBarrier:
      return "barrier";
  }
  return "?";
}

}  // namespace

// One rendezvous. Member i writes entry i before its phase-1 arrival (release) and reads the
// others after observing all arrivals (acquire).
struct ThreadWorld::Slot {
  DeviceGroup group;
  uint64_t seq = 0;
  int32_t n = 0;
  struct Entry {
    OpTag op = OpTag::kBarrier;
    DType dtype = DType::kF32;
    int64_t arg = 0, extra = 0;
    const std::byte* in = nullptr;
    std::byte* out = nullptr;
    bool joined = false;  // guarded by the world mutex
  };
  std::vector<Entry> entries;
  std::vector<Status> body_errors;  // member i writes entry i between the phases
  std::atomic<int32_t> counter{0};
  std::string abort_message;  // written before the abort bit is set
};

ThreadWorld::ThreadWorld(int64_t size) : size_(size), done_(size, false), waiting_(size, nullptr) {}
ThreadWorld::~ThreadWorld() = default;

bool ThreadWorld::aborted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return aborted_;
}

void ThreadWorld::AbortSlotLocked(Slot& slot, const std::string& message) {
  int32_t v = slot.counter.load(std::memory_order_acquire);
  while (!(v & kAbortBit) && v < slot.n) {
    slot.abort_message = message;
    if (slot.counter.compare_exchange_weak(v, v | kAbortBit, std::memory_order_acq_rel)) {
      slot.counter.notify_all();
      return;
    }
  }
}

void ThreadWorld::Abort(const Status& status) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!aborted_) {
    aborted_ = true;
    abort_status_ = status;
  }
  const std::string msg = fmt::format("collective aborted: {}", abort_status_.message());
  for (auto& [key, slot] : slots_) AbortSlotLocked(*slot, msg);
}

void ThreadWorld::MarkDone(int64_t rank) {
  std::lock_guard<std::mutex> lock(mu_);
  if (rank < 0 || rank >= size_) return;
  done_[rank] = true;
  waiting_[rank] = nullptr;
  for (auto& [key, slot] : slots_) {
    for (int32_t i = 0; i < slot->n; ++i) {
      if (slot->group[i] == rank && !slot->entries[i].joined)
        AbortSlotLocked(*slot, fmt::format("device {} finished its program while devices [{}] "
                                           "wait for it in a collective",
                                           rank, fmt::join(slot->group, ",")));
    }
  }
  CheckDeadlockLocked();
}

StatusOr<std::shared_ptr<ThreadWorld::Slot>> ThreadWorld::Join(const DeviceGroup& group,
                                                               uint64_t seq, int64_t index,
                                                               int64_t rank) {
  std::lock_guard<std::mutex> lock(mu_);
  if (aborted_)
    return absl::AbortedError(fmt::format("collective aborted: {}", abort_status_.message()));
  auto& slot = slots_[{group, seq}];
  if (!slot) {
    slot = std::make_shared<Slot>();
    slot->group = group;
    slot->seq = seq;
    slot->n = static_cast<int32_t>(group.size());
    slot->entries.resize(group.size());
    slot->body_errors.resize(group.size());
    for (int64_t r : group) {
      if (done_[r])
        AbortSlotLocked(*slot, fmt::format("device {} finished its program while devices [{}] "
                                           "wait for it in a collective",
                                           r, fmt::join(group, ",")));
    }
  }
  slot->entries[index].joined = true;
  return slot;
}

// Every live rank sleeping in phase 1 of an incomplete rendezvous: nobody can arrive any more.
void ThreadWorld::CheckDeadlockLocked() {
  std::string who;
  for (int64_t r = 0; r < size_; ++r) {
    if (done_[r]) continue;
    Slot* s = waiting_[r];
    if (s == nullptr) return;
    const int32_t v = s->counter.load(std::memory_order_acquire);
    if ((v & kAbortBit) || v >= s->n) return;
    if (!who.empty()) who += "; ";
    const int64_t index = std::find(s->group.begin(), s->group.end(), r) - s->group.begin();
    who += fmt::format("device {} in a {} over [{}]", r, OpTagName(s->entries[index].op),
                       fmt::join(s->group, ","));
  }
  if (who.empty()) return;
  const Status status = absl::FailedPreconditionError(
      fmt::format("deadlock: the devices wait in collectives no peer will join ({})", who));
  if (!aborted_) {
    aborted_ = true;
    abort_status_ = status;
  }
  const std::string msg(status.message());
  for (auto& [key, slot] : slots_) AbortSlotLocked(*slot, msg);
}

Status ThreadWorld::WaitAllArrived(Slot& slot, int64_t rank) {
  for (int i = 0; i < kSpins; ++i) {
    const int32_t v = slot.counter.load(std::memory_order_acquire);
    if (v & kAbortBit) return absl::AbortedError(slot.abort_message);
    if (v >= slot.n) return absl::OkStatus();
    SPMDC_CPU_RELAX();
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    waiting_[rank] = &slot;
    CheckDeadlockLocked();
  }
  Status result;
  for (;;) {
    const int32_t v = slot.counter.load(std::memory_order_acquire);
    if (v & kAbortBit) {
      result = absl::AbortedError(slot.abort_message);
      break;
    }
    if (v >= slot.n) break;
    slot.counter.wait(v, std::memory_order_acquire);
  }
  std::lock_guard<std::mutex> lock(mu_);
  waiting_[rank] = nullptr;
  return result;
}

void ThreadWorld::Depart(Slot& slot, const std::shared_ptr<Slot>& keep) {
  // Phase 1 completed, so every member is past it and will arrive here: no abort can intervene.
  const int32_t target = 2 * slot.n;
  const int32_t mine = slot.counter.fetch_add(1, std::memory_order_acq_rel) + 1;
  if (mine == target) {
    slot.counter.notify_all();
    std::lock_guard<std::mutex> lock(mu_);
    auto it = slots_.find({slot.group, slot.seq});
    if (it != slots_.end() && it->second == keep) slots_.erase(it);
    return;
  }
  for (int i = 0;; ++i) {
    const int32_t v = slot.counter.load(std::memory_order_acquire);
    if (v >= target) return;
    if (i < kSpins) {
      SPMDC_CPU_RELAX();
    } else {
      slot.counter.wait(v, std::memory_order_acquire);
    }
  }
}

struct ThreadCommunicator::Call {
  OpTag op;
  DType dtype = DType::kU8;
  int64_t arg = 0, extra = 0;
  const void* in = nullptr;
  void* out = nullptr;
};

template <typename Body>
Status ThreadCommunicator::Run(const DeviceGroup& group, const Call& call, Body&& body) {
  const auto it = std::find(group.begin(), group.end(), rank_);
  if (it == group.end())
    return InvalidArgument("{}: device {} is not in the group [{}]", OpTagName(call.op), rank_,
                           fmt::join(group, ","));
  const int64_t index = it - group.begin();
  for (int64_t r : group) {
    if (r < 0 || r >= world_->size())
      return InvalidArgument("{}: device {} of the group [{}] is outside 0..{}", OpTagName(call.op),
                             r, fmt::join(group, ","), world_->size() - 1);
    if (std::count(group.begin(), group.end(), r) != 1)
      return InvalidArgument("{}: device {} appears twice in the group [{}]", OpTagName(call.op), r,
                             fmt::join(group, ","));
  }
  const uint64_t seq = next_seq_[group]++;
  ASSIGN_OR_RETURN(std::shared_ptr<ThreadWorld::Slot> slot, world_->Join(group, seq, index, rank_));
  auto& e = slot->entries[index];
  e.op = call.op;
  e.dtype = call.dtype;
  e.arg = call.arg;
  e.extra = call.extra;
  e.in = static_cast<const std::byte*>(call.in);
  e.out = static_cast<std::byte*>(call.out);
  slot->counter.fetch_add(1, std::memory_order_acq_rel);
  slot->counter.notify_all();
  RETURN_IF_ERROR(world_->WaitAllArrived(*slot, rank_));

  // Every member sees every entry, so a mismatch is reported by all of them.
  Status status;
  for (const auto& o : slot->entries) {
    if (o.op != e.op || o.dtype != e.dtype || o.arg != e.arg || o.extra != e.extra) {
      status = InvalidArgument(
          "mismatched collectives over [{}]: device {} runs {} ({}, {}, {}), a peer runs {} ({}, "
          "{}, {})",
          fmt::join(group, ","), rank_, OpTagName(e.op), DTypeName(e.dtype), e.arg, e.extra,
          OpTagName(o.op), DTypeName(o.dtype), o.arg, o.extra);
      break;
    }
  }
  if (status.ok()) slot->body_errors[index] = body(*slot, index);
  world_->Depart(*slot, slot);
  if (!status.ok()) return status;
  for (const Status& s : slot->body_errors)
    if (!s.ok()) return s;
  return absl::OkStatus();
}

namespace {

// Member `index` of n owns the elements [lo, hi) of `count` (chunks aligned to 64 bytes).
std::pair<int64_t, int64_t> ChunkOf(int64_t count, int64_t elem_bytes, int64_t index, int64_t n) {
  const int64_t align = std::max<int64_t>(1, 64 / std::max<int64_t>(1, elem_bytes));
  int64_t per = (count + n - 1) / n;
  per = (per + align - 1) / align * align;
  const int64_t lo = std::min(count, index * per);
  return {lo, std::min(count, lo + per)};
}

// acc[0, count) = in_0 (op) in_1 (op) ... over `inputs` (each offset by `offset` elements), then
// copied to every `copies` pointer (at the same element offsets as acc); block by block, so that
// the accumulator is still in cache when it is reduced further and copied out.
Status ReduceInto(const Reduction& red, DType dtype, int64_t eb, std::byte* acc,
                  const std::vector<const std::byte*>& inputs, int64_t offset, int64_t count,
                  const std::vector<std::byte*>& copies = {}) {
  const int64_t block = std::max<int64_t>(1, kBlockBytes / eb);
  for (int64_t b = 0; b < count; b += block) {
    const int64_t len = std::min(block, count - b);
    std::byte* dst = acc + b * eb;
    auto in = [&](size_t k) { return inputs[k] + (offset + b) * eb; };
    if (inputs.size() == 1) {
      std::memcpy(dst, in(0), len * eb);
    } else {
      RETURN_IF_ERROR(ApplyReduction(red, dtype, dst, in(0), in(1), len));
      for (size_t k = 2; k < inputs.size(); ++k)
        RETURN_IF_ERROR(ApplyReduction(red, dtype, dst, dst, in(k), len));
    }
    for (std::byte* c : copies) std::memcpy(c + b * eb, dst, len * eb);
  }
  return absl::OkStatus();
}

}  // namespace

Status ThreadCommunicator::AllReduce(const DeviceGroup& group, DType dtype, const void* in,
                                     void* out, int64_t count, const Reduction& reduction) {
  const int64_t eb = DTypeByteSize(dtype);
  if (eb <= 0) return InvalidArgument("all-reduce of {}", DTypeName(dtype));
  if (group.size() == 1 && group[0] == rank_) {
    if (count > 0) std::memcpy(out, in, count * eb);
    return absl::OkStatus();
  }
  return Run(group, {OpTag::kAllReduce, dtype, count, 0, in, out},
             [&](ThreadWorld::Slot& s, int64_t index) -> Status {
               const auto [lo, hi] = ChunkOf(count, eb, index, s.n);
               if (hi <= lo) return absl::OkStatus();
               std::vector<const std::byte*> inputs;
               for (const auto& e : s.entries) inputs.push_back(e.in);
               std::vector<std::byte*> peers;
               for (int64_t j = 0; j < s.n; ++j)
                 if (j != index) peers.push_back(s.entries[j].out + lo * eb);
               return ReduceInto(reduction, dtype, eb, s.entries[index].out + lo * eb, inputs, lo,
                                 hi - lo, peers);
             });
}

Status ThreadCommunicator::AllGather(const DeviceGroup& group, const void* in, void* out,
                                     int64_t bytes) {
  return Run(group, {OpTag::kAllGather, DType::kU8, bytes, 0, in, out},
             [&](ThreadWorld::Slot& s, int64_t index) -> Status {
               std::byte* o = static_cast<std::byte*>(out);
               for (int64_t j = 0; j < s.n; ++j)
                 if (bytes > 0) std::memcpy(o + j * bytes, s.entries[j].in, bytes);
               return absl::OkStatus();
             });
}

Status ThreadCommunicator::ReduceScatter(const DeviceGroup& group, DType dtype, const void* in,
                                         void* out, int64_t count, const Reduction& reduction) {
  const int64_t eb = DTypeByteSize(dtype);
  if (eb <= 0) return InvalidArgument("reduce-scatter of {}", DTypeName(dtype));
  return Run(group, {OpTag::kReduceScatter, dtype, count, 0, in, out},
             [&](ThreadWorld::Slot& s, int64_t index) -> Status {
               std::vector<const std::byte*> inputs;
               for (const auto& e : s.entries) inputs.push_back(e.in);
               return ReduceInto(reduction, dtype, eb, static_cast<std::byte*>(out), inputs,
                                 index * count, count);
             });
}

Status ThreadCommunicator::AllToAll(const DeviceGroup& group, const void* in, void* out,
                                    int64_t bytes) {
  return Run(group, {OpTag::kAllToAll, DType::kU8, bytes, 0, in, out},
             [&](ThreadWorld::Slot& s, int64_t index) -> Status {
               std::byte* o = static_cast<std::byte*>(out);
               for (int64_t j = 0; j < s.n; ++j)
                 if (bytes > 0) std::memcpy(o + j * bytes, s.entries[j].in + index * bytes, bytes);
               return absl::OkStatus();
             });
}

Status ThreadCommunicator::CollectivePermute(const DeviceGroup& participants,
                                             const std::vector<std::pair<int64_t, int64_t>>& pairs,
                                             const void* in, void* out, int64_t bytes) {
  int64_t source = -1;
  for (const auto& [src, dst] : pairs) {
    if (dst != rank_) continue;
    if (source >= 0)
      return InvalidArgument("collective-permute: device {} receives from both {} and {}", rank_,
                             source, src);
    source = src;
  }
  int64_t source_index = -1;
  if (source >= 0) {
    const auto it = std::find(participants.begin(), participants.end(), source);
    if (it == participants.end())
      return InvalidArgument("collective-permute: source {} is not among the participants [{}]",
                             source, fmt::join(participants, ","));
    source_index = it - participants.begin();
  }
  // Pairs are the same on every member; a cheap fingerprint guards against mismatches.
  // Unsigned arithmetic: the hash is meant to wrap (a signed overflow here is undefined, UBSan).
  uint64_t fingerprint = pairs.size();
  for (const auto& [a, b] : pairs)
    fingerprint = fingerprint * 1000003u + static_cast<uint64_t>(a) * 1009u + static_cast<uint64_t>(b);
  return Run(participants,
             {OpTag::kPermute, DType::kU8, bytes, static_cast<int64_t>(fingerprint), in, out},
             [&](ThreadWorld::Slot& s, int64_t index) -> Status {
               if (bytes <= 0) return absl::OkStatus();
               if (source_index >= 0)
                 std::memcpy(out, s.entries[source_index].in, bytes);
               else
                 std::memset(out, 0, bytes);
               return absl::OkStatus();
             });
}

Status ThreadCommunicator::CollectiveBroadcast(const DeviceGroup& group, int64_t root,
                                               const void* in, void* out, int64_t bytes) {
  if (root < 0 || root >= static_cast<int64_t>(group.size()))
    return InvalidArgument("collective-broadcast: root index {} outside a group of {}", root,
                           group.size());
  return Run(group, {OpTag::kBroadcast, DType::kU8, bytes, root, in, out},
             [&](ThreadWorld::Slot& s, int64_t index) -> Status {
               if (bytes > 0) std::memcpy(out, s.entries[root].in, bytes);
               return absl::OkStatus();
             });
}

Status ThreadCommunicator::Barrier(const DeviceGroup& group) {
  return Run(group, {OpTag::kBarrier, DType::kU8, 0, 0, nullptr, nullptr},
             [](ThreadWorld::Slot&, int64_t) { return absl::OkStatus(); });
}

}  // namespace spmdc

#include "runtime/mpi_communicator.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>

namespace spmdc {
namespace {

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

Status MpiStatus(int rc, const char* what, int rank) {
  if (rc == MPI_SUCCESS) return absl::OkStatus();
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  return absl::InternalError(
      fmt::format("{} failed on rank {}: {}", what, rank, std::string(text, len)));
}

// A count for one MPI call (MPI counts are int).
StatusOr<int> IntCount(int64_t n, const char* what) {
  if (n < 0 || n > INT_MAX)
    return absl::UnimplementedError(fmt::format(
        "{} over MPI: {} elements in one call exceed MPI's count limit ({})", what, n, INT_MAX));
  return static_cast<int>(n);
}

// The reduction a user-defined MPI operation applies, set by the calling thread around the call.
struct UserReduceContext {
  const Reduction* reduction = nullptr;
  DType dtype = DType::kF32;
  Status status;
  std::vector<std::byte> scratch;
};
thread_local UserReduceContext* t_reduce = nullptr;

// Commutative kinds: inout = inout (op) in.
void UserReduceCommutative(void* in, void* inout, int* len, MPI_Datatype*) {
  UserReduceContext* c = t_reduce;
  if (c == nullptr || !c->status.ok() || *len <= 0) return;
  c->status = ApplyReduction(*c->reduction, c->dtype, inout, in, *len);
}

// Custom computations, in MPI's order for non-commutative operations: inout = in (op) inout.
void UserReduceOrdered(void* in, void* inout, int* len, MPI_Datatype*) {
  UserReduceContext* c = t_reduce;
  if (c == nullptr || !c->status.ok() || *len <= 0) return;
  const size_t bytes = static_cast<size_t>(*len) * DTypeByteSize(c->dtype);
  c->scratch.resize(bytes);
  std::memcpy(c->scratch.data(), in, bytes);
  c->status = ApplyReduction(*c->reduction, c->dtype, c->scratch.data(), inout, *len);
  if (c->status.ok()) std::memcpy(inout, c->scratch.data(), bytes);
}

// Per-process MPI objects of the user-defined reductions (made once, after MPI_Init).
struct UserOps {
  MPI_Op commutative = MPI_OP_NULL, ordered = MPI_OP_NULL;
  MPI_Datatype element[17] = {};  // contiguous bytes, by element size
};
UserOps& GetUserOps() {
  static UserOps ops = [] {
    UserOps o;
    MPI_Op_create(&UserReduceCommutative, 1, &o.commutative);
    MPI_Op_create(&UserReduceOrdered, 0, &o.ordered);
    for (int b : {1, 2, 4, 8, 16}) {
      MPI_Type_contiguous(b, MPI_BYTE, &o.element[b]);
      MPI_Type_commit(&o.element[b]);
    }
    return o;
  }();
  return ops;
}

// Sum/product/min/max/and/or over an integer of `bytes`: the MPI types (unsigned, signed).
std::pair<MPI_Datatype, MPI_Datatype> IntTypes(int bytes) {
  switch (bytes) {
    case 1:
      return {MPI_UINT8_T, MPI_INT8_T};
    case 2:
      return {MPI_UINT16_T, MPI_INT16_T};
    case 4:
      return {MPI_UINT32_T, MPI_INT32_T};
    default:
      return {MPI_UINT64_T, MPI_INT64_T};
  }
}

// Reduces `count` elements from `send` into `recv` over `comm` (MPI_Allreduce), in calls of at
// most 2^30 elements.
Status MpiAllReduce(MPI_Comm comm, int rank, DType dtype, const Reduction& red, const void* send,
                    void* recv, int64_t count) {
  const int64_t eb = DTypeByteSize(dtype);
  const std::optional<MpiBuiltinReduction> builtin = BuiltinMpiReduction(red.kind, dtype);
  UserReduceContext ctx;
  ctx.reduction = &red;
  ctx.dtype = dtype;
  UserReduceContext* saved = t_reduce;
  MPI_Datatype type;
  MPI_Op op;
  if (builtin) {
    type = builtin->type;
    op = builtin->op;
  } else {
    if (red.kind == ReductionKind::kCustom && !red.combine)
      return InvalidArgument("all-reduce of {}: a custom reduction without a function",
                             DTypeName(dtype));
    UserOps& ops = GetUserOps();
    if (eb > 16 || ops.element[eb] == MPI_DATATYPE_NULL)
      return absl::UnimplementedError(fmt::format("all-reduce of {} over MPI", DTypeName(dtype)));
    type = ops.element[eb];
    op = red.kind == ReductionKind::kCustom ? ops.ordered : ops.commutative;
    t_reduce = &ctx;
  }
  constexpr int64_t kMaxChunk = int64_t{1} << 30;
  Status status;
  for (int64_t done = 0; done < count && status.ok(); done += kMaxChunk) {
    const int n = static_cast<int>(std::min(kMaxChunk, count - done));
    const int rc = MPI_Allreduce(static_cast<const std::byte*>(send) + done * eb,
                                 static_cast<std::byte*>(recv) + done * eb, n, type, op, comm);
    status = MpiStatus(rc, "MPI_Allreduce", rank);
  }
  t_reduce = saved;
  if (!status.ok()) return status;
  return ctx.status;
}

Status MpiReduceScatterBlock(MPI_Comm comm, int rank, DType dtype, const Reduction& red,
                             const void* send, void* recv, int count) {
  const int64_t eb = DTypeByteSize(dtype);
  const std::optional<MpiBuiltinReduction> builtin = BuiltinMpiReduction(red.kind, dtype);
  UserReduceContext ctx;
  ctx.reduction = &red;
  ctx.dtype = dtype;
  UserReduceContext* saved = t_reduce;
  MPI_Datatype type;
  MPI_Op op;
  if (builtin) {
    type = builtin->type;
    op = builtin->op;
  } else {
    if (red.kind == ReductionKind::kCustom && !red.combine)
      return InvalidArgument("reduce-scatter of {}: a custom reduction without a function",
                             DTypeName(dtype));
    UserOps& ops = GetUserOps();
    if (eb > 16 || ops.element[eb] == MPI_DATATYPE_NULL)
      return absl::UnimplementedError(
          fmt::format("reduce-scatter of {} over MPI", DTypeName(dtype)));
    type = ops.element[eb];
    op = red.kind == ReductionKind::kCustom ? ops.ordered : ops.commutative;
    t_reduce = &ctx;
  }
  const int rc = MPI_Reduce_scatter_block(send, recv, count, type, op, comm);
  t_reduce = saved;
  RETURN_IF_ERROR(MpiStatus(rc, "MPI_Reduce_scatter_block", rank));
  return ctx.status;
}

}  // namespace

std::optional<MpiBuiltinReduction> BuiltinMpiReduction(ReductionKind kind, DType dtype) {
  switch (dtype) {
    case DType::kS8:
    case DType::kU8:
    case DType::kS16:
    case DType::kU16:
    case DType::kS32:
    case DType::kU32:
    case DType::kS64:
    case DType::kU64: {
      const auto [u, s] = IntTypes(DTypeByteSize(dtype));
      const MPI_Datatype own = IsSigned(dtype) ? s : u;
      switch (kind) {
        case ReductionKind::kSum:  // unsigned arithmetic wraps, as HLO's integers do
          // Open MPI 4.1's AVX-512 operation component sums 8- and 16-bit integers wrongly
          // (tests/mpi/mpi_communicator_test.cc found it): those take our own operation.
          if (DTypeByteSize(dtype) < 4) return std::nullopt;
          return MpiBuiltinReduction{u, MPI_SUM};
        case ReductionKind::kProduct:
          return MpiBuiltinReduction{u, MPI_PROD};
        case ReductionKind::kMax:
          return MpiBuiltinReduction{own, MPI_MAX};
        case ReductionKind::kMin:
          return MpiBuiltinReduction{own, MPI_MIN};
        case ReductionKind::kAnd:
          return MpiBuiltinReduction{u, MPI_BAND};
        case ReductionKind::kOr:
          return MpiBuiltinReduction{u, MPI_BOR};
        default:
          return std::nullopt;
      }
    }
    case DType::kPred:  // 0/1 bytes: add, maximum, or = or; multiply, minimum, and = and
      switch (kind) {
        case ReductionKind::kSum:
        case ReductionKind::kMax:
        case ReductionKind::kOr:
          return MpiBuiltinReduction{MPI_UINT8_T, MPI_BOR};
        case ReductionKind::kProduct:
        case ReductionKind::kMin:
        case ReductionKind::kAnd:
          return MpiBuiltinReduction{MPI_UINT8_T, MPI_BAND};
        default:
          return std::nullopt;
      }
    case DType::kF32:
    case DType::kF64: {
      // MPI_MIN/MPI_MAX do not propagate NaN as HLO does: those are user operations.
      const MPI_Datatype t = dtype == DType::kF32 ? MPI_FLOAT : MPI_DOUBLE;
      if (kind == ReductionKind::kSum) return MpiBuiltinReduction{t, MPI_SUM};
      if (kind == ReductionKind::kProduct) return MpiBuiltinReduction{t, MPI_PROD};
      return std::nullopt;
    }
    case DType::kC64:
      if (kind == ReductionKind::kSum) return MpiBuiltinReduction{MPI_C_FLOAT_COMPLEX, MPI_SUM};
      return std::nullopt;
    case DType::kC128:
      if (kind == ReductionKind::kSum) return MpiBuiltinReduction{MPI_C_DOUBLE_COMPLEX, MPI_SUM};
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

// --- MpiWorld --------------------------------------------------------------------------------

StatusOr<std::unique_ptr<MpiWorld>> MpiWorld::Create(int64_t devices_per_rank) {
  if (devices_per_rank < 1 || devices_per_rank > 128)
    return InvalidArgument("--devices-per-rank {} is outside 1..128", devices_per_rank);
  int initialised = 0;
  MPI_Initialized(&initialised);
  bool here = false;
  if (!initialised) {
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
      return absl::InternalError("MPI_Init_thread failed");
    here = true;
  }
  int provided = 0;
  MPI_Query_thread(&provided);
  if (provided < MPI_THREAD_MULTIPLE && devices_per_rank > 1)
    return absl::UnimplementedError(
        "--devices-per-rank > 1 needs an MPI library with MPI_THREAD_MULTIPLE; this one does "
        "not provide it");
  return std::unique_ptr<MpiWorld>(new MpiWorld(devices_per_rank, here));
}

MpiWorld::MpiWorld(int64_t k, bool initialised_here) : k_(k), initialised_here_(initialised_here) {
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks_);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_dup(MPI_COMM_WORLD, &p2p_);
  MPI_Comm_set_errhandler(p2p_, MPI_ERRORS_RETURN);
  local_ = std::make_unique<ThreadWorld>(devices());
  for (int64_t i = 0; i < k_; ++i) pending_.push_back(std::make_unique<Pending>());
  GetUserOps();
}

MpiWorld::~MpiWorld() {
  stop_ = true;
  if (watchdog_.joinable()) watchdog_.join();
  for (auto& [group, gc] : comms_)
    if (gc->comm != MPI_COMM_NULL) MPI_Comm_free(&gc->comm);
  if (p2p_ != MPI_COMM_NULL) MPI_Comm_free(&p2p_);
  if (initialised_here_) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  }
}

void MpiWorld::Abort(int code, const std::string& message) {
  std::fprintf(stderr, "spmdc: rank %d of %d: %s\n", rank_, ranks_, message.c_str());
  std::fflush(stderr);
  std::fflush(stdout);
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

StatusOr<const MpiWorld::GroupComm*> MpiWorld::CreateLocked(const DeviceGroup& group) {
  auto gc = std::make_unique<GroupComm>();
  for (size_t i = 0; i < group.size(); ++i) {
    const int r = RankOf(group[i]);
    auto it = std::find(gc->ranks.begin(), gc->ranks.end(), r);
    if (it == gc->ranks.end()) {
      gc->ranks.push_back(r);
      gc->members.emplace_back();
      it = gc->ranks.end() - 1;
    }
    gc->members[it - gc->ranks.begin()].push_back(static_cast<int64_t>(i));
  }
  const auto mine = std::find(gc->ranks.begin(), gc->ranks.end(), rank_);
  gc->my_position = mine == gc->ranks.end() ? -1 : static_cast<int>(mine - gc->ranks.begin());
  if (gc->ranks.size() > 1 && gc->my_position >= 0) {
    MPI_Group world_group, sub;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    MPI_Group_incl(world_group, static_cast<int>(gc->ranks.size()), gc->ranks.data(), &sub);
    const int rc = MPI_Comm_create_group(MPI_COMM_WORLD, sub, 0, &gc->comm);
    MPI_Group_free(&sub);
    MPI_Group_free(&world_group);
    RETURN_IF_ERROR(MpiStatus(rc, "MPI_Comm_create_group", rank_));
    MPI_Comm_set_errhandler(gc->comm, MPI_ERRORS_RETURN);
  }
  const GroupComm* out = gc.get();
  comms_[group] = std::move(gc);
  return out;
}

Status MpiWorld::Prepare(const std::vector<DeviceGroup>& groups) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const DeviceGroup& g : groups) {
    if (comms_.count(g)) continue;
    for (int64_t d : g)
      if (d < 0 || d >= devices())
        return InvalidArgument("device {} of the group [{}] is outside 0..{}", d, fmt::join(g, ","),
                               devices() - 1);
    RETURN_IF_ERROR(CreateLocked(g).status());
  }
  prepared_ = true;
  return absl::OkStatus();
}

StatusOr<const MpiWorld::GroupComm*> MpiWorld::CommOf(const DeviceGroup& group) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = comms_.find(group);
  if (it != comms_.end()) return it->second.get();
  bool spans = false;
  for (int64_t d : group) spans |= RankOf(d) != RankOf(group[0]);
  if (spans && k_ > 1)
    return absl::InternalError(fmt::format(
        "no MPI communicator was prepared for the device group [{}]", fmt::join(group, ",")));
  // One device per rank: the group's members are its processes, which all reach this point in
  // the same order of groups (SPMD order), so creating it now among them is safe.
  return CreateLocked(group);
}

void MpiWorld::SetCollectiveTimeout(double seconds) {
  timeout_s_ = seconds;
  if (seconds > 0 && !watchdog_.joinable()) watchdog_ = std::thread([this] { Watch(); });
}

void MpiWorld::Enter(int64_t device, const char* what, const DeviceGroup* group) {
  if (timeout_s_ <= 0) return;
  Pending& p = *pending_[device - first_local_device()];
  {
    std::lock_guard<std::mutex> lock(pending_mu_);
    p.what = what;
    p.group = group ? *group : DeviceGroup{};
  }
  p.since_ns.store(NowNs(), std::memory_order_release);
}

void MpiWorld::Leave(int64_t device) {
  if (timeout_s_ <= 0) return;
  pending_[device - first_local_device()]->since_ns.store(0, std::memory_order_release);
}

void MpiWorld::Watch() {
  while (!stop_) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const int64_t now = NowNs();
    for (size_t i = 0; i < pending_.size(); ++i) {
      const int64_t since = pending_[i]->since_ns.load(std::memory_order_acquire);
      if (since == 0 || (now - since) * 1e-9 <= timeout_s_) continue;
      std::string what, group, ranks;
      {
        std::lock_guard<std::mutex> lock(pending_mu_);
        what = pending_[i]->what ? pending_[i]->what : "an MPI call";
        group = fmt::format("{}", fmt::join(pending_[i]->group, ","));
        std::set<int> rs;
        for (int64_t d : pending_[i]->group) rs.insert(RankOf(d));
        ranks = fmt::format("{}", fmt::join(rs, ","));
      }
      Abort(5, fmt::format("collective timeout: device {} waited more than {} s in {} over "
                           "devices [{}] (ranks [{}]); a peer rank is stuck or gone",
                           first_local_device() + static_cast<int64_t>(i), timeout_s_, what, group,
                           ranks));
    }
  }
}

// --- MpiCommunicator -------------------------------------------------------------------------

struct MpiCommunicator::Layout {
  int64_t index = 0;                        // the caller's position in the group
  std::vector<int64_t> local;               // the group's members on this rank, in group order
  int64_t local_index = 0;                  // the caller's position in `local`
  bool leader = false;                      // local[0] == caller
  const MpiWorld::GroupComm* gc = nullptr;  // null: every member is on this rank
  bool one_per_rank = false;                // every rank of the group holds exactly one member
};

namespace {

// RAII: the watchdog's view of a device inside an MPI call.
class InMpi {
 public:
  InMpi(MpiWorld* w, int64_t device, const char* what, const DeviceGroup* group)
      : w_(w), device_(device) {
    w_->Enter(device, what, group);
  }
  ~InMpi() { w_->Leave(device_); }

 private:
  MpiWorld* w_;
  int64_t device_;
};

}  // namespace

MpiCommunicator::MpiCommunicator(MpiWorld* world, int64_t device)
    : world_(world), device_(device), local_(world->local(), device) {}

StatusOr<MpiCommunicator::Layout> MpiCommunicator::LayoutOf(const DeviceGroup& group,
                                                            const char* what) {
  Layout l;
  const auto it = std::find(group.begin(), group.end(), device_);
  if (it == group.end())
    return InvalidArgument("{}: device {} is not in the group [{}]", what, device_,
                           fmt::join(group, ","));
  l.index = it - group.begin();
  for (int64_t d : group) {
    if (d < 0 || d >= world_->devices())
      return InvalidArgument("{}: device {} of the group [{}] is outside 0..{}", what, d,
                             fmt::join(group, ","), world_->devices() - 1);
    if (std::count(group.begin(), group.end(), d) != 1)
      return InvalidArgument("{}: device {} appears twice in the group [{}]", what, d,
                             fmt::join(group, ","));
    if (world_->IsLocal(d)) {
      if (d == device_) l.local_index = static_cast<int64_t>(l.local.size());
      l.local.push_back(d);
    }
  }
  l.leader = l.local[0] == device_;
  if (l.local.size() == group.size()) return l;
  ASSIGN_OR_RETURN(l.gc, world_->CommOf(group));
  if (l.gc->comm == MPI_COMM_NULL)
    return absl::InternalError(fmt::format("{}: no MPI communicator for the group [{}] on rank {}",
                                           what, fmt::join(group, ","), world_->rank()));
  l.one_per_rank = l.gc->ranks.size() == group.size();
  return l;
}

Status MpiCommunicator::AllReduce(const DeviceGroup& group, DType dtype, const void* in, void* out,
                                  int64_t count, const Reduction& reduction) {
  const int64_t eb = DTypeByteSize(dtype);
  if (eb <= 0) return InvalidArgument("all-reduce of {}", DTypeName(dtype));
  if (group.size() == 1 && group[0] == device_) {
    if (count > 0) std::memcpy(out, in, count * eb);
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(Layout l, LayoutOf(group, "all-reduce"));
  if (!l.gc) return local_.AllReduce(group, dtype, in, out, count, reduction);
  const int rank = world_->rank();
  if (l.local.size() == 1) {
    InMpi guard(world_, device_, "all-reduce", &group);
    return MpiAllReduce(l.gc->comm, rank, dtype, reduction, in, out, count);
  }
  // Local members first, then the leaders across ranks, then back to the local members.
  RETURN_IF_ERROR(local_.AllReduce(l.local, dtype, in, out, count, reduction));
  std::vector<std::byte> total;
  if (l.leader) {
    total.resize(count * eb);
    InMpi guard(world_, device_, "all-reduce", &group);
    RETURN_IF_ERROR(MpiAllReduce(l.gc->comm, rank, dtype, reduction, out, total.data(), count));
  }
  return local_.CollectiveBroadcast(l.local, 0, l.leader ? total.data() : out, out, count * eb);
}

Status MpiCommunicator::AllGather(const DeviceGroup& group, const void* in, void* out,
                                  int64_t bytes) {
  if (group.size() == 1 && group[0] == device_) {
    if (bytes > 0) std::memcpy(out, in, bytes);
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(Layout l, LayoutOf(group, "all-gather"));
  if (!l.gc) return local_.AllGather(group, in, out, bytes);
  const int rank = world_->rank();
  const int64_t n = group.size();
  if (l.one_per_rank) {
    ASSIGN_OR_RETURN(int c, IntCount(bytes, "all-gather"));
    InMpi guard(world_, device_, "all-gather", &group);
    return MpiStatus(MPI_Allgather(in, c, MPI_BYTE, out, c, MPI_BYTE, l.gc->comm), "MPI_Allgather",
                     rank);
  }
  const int64_t nl = l.local.size();
  std::vector<std::byte> mine;
  const void* send = in;
  if (nl > 1) {
    mine.resize(nl * bytes);
    RETURN_IF_ERROR(local_.AllGather(l.local, in, mine.data(), bytes));
    send = mine.data();
  }
  std::vector<std::byte> full;
  if (l.leader) {
    const size_t p = l.gc->ranks.size();
    std::vector<int> counts(p), displs(p);
    int64_t at = 0;
    for (size_t i = 0; i < p; ++i) {
      ASSIGN_OR_RETURN(counts[i], IntCount(l.gc->members[i].size() * bytes, "all-gather"));
      ASSIGN_OR_RETURN(displs[i], IntCount(at, "all-gather"));
      at += counts[i];
    }
    std::vector<std::byte> recv(n * bytes);
    {
      InMpi guard(world_, device_, "all-gather", &group);
      RETURN_IF_ERROR(
          MpiStatus(MPI_Allgatherv(send, static_cast<int>(nl * bytes), MPI_BYTE, recv.data(),
                                   counts.data(), displs.data(), MPI_BYTE, l.gc->comm),
                    "MPI_Allgatherv", rank));
    }
    std::byte* dst = static_cast<std::byte*>(out);
    if (nl > 1) {
      full.resize(n * bytes);
      dst = full.data();
    }
    for (size_t i = 0; i < p; ++i)
      for (size_t k = 0; k < l.gc->members[i].size(); ++k)
        if (bytes > 0)
          std::memcpy(dst + l.gc->members[i][k] * bytes, recv.data() + displs[i] + k * bytes,
                      bytes);
  }
  if (nl == 1) return absl::OkStatus();
  return local_.CollectiveBroadcast(l.local, 0, l.leader ? full.data() : out, out, n * bytes);
}

Status MpiCommunicator::ReduceScatter(const DeviceGroup& group, DType dtype, const void* in,
                                      void* out, int64_t count, const Reduction& reduction) {
  const int64_t eb = DTypeByteSize(dtype);
  if (eb <= 0) return InvalidArgument("reduce-scatter of {}", DTypeName(dtype));
  if (group.size() == 1 && group[0] == device_) {
    if (count > 0) std::memcpy(out, in, count * eb);
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(Layout l, LayoutOf(group, "reduce-scatter"));
  if (!l.gc) return local_.ReduceScatter(group, dtype, in, out, count, reduction);
  if (l.one_per_rank && count <= INT_MAX) {
    InMpi guard(world_, device_, "reduce-scatter", &group);
    return MpiReduceScatterBlock(l.gc->comm, world_->rank(), dtype, reduction, in, out,
                                 static_cast<int>(count));
  }
  // Several members on a rank: the whole reduction, then this member's chunk.
  const int64_t n = group.size();
  std::vector<std::byte> total(n * count * eb);
  RETURN_IF_ERROR(AllReduce(group, dtype, in, total.data(), n * count, reduction));
  if (count > 0) std::memcpy(out, total.data() + l.index * count * eb, count * eb);
  return absl::OkStatus();
}

Status MpiCommunicator::AllToAll(const DeviceGroup& group, const void* in, void* out,
                                 int64_t bytes) {
  if (group.size() == 1 && group[0] == device_) {
    if (bytes > 0) std::memcpy(out, in, bytes);
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(Layout l, LayoutOf(group, "all-to-all"));
  if (!l.gc) return local_.AllToAll(group, in, out, bytes);
  const int rank = world_->rank();
  const int64_t n = group.size();
  if (l.one_per_rank) {
    ASSIGN_OR_RETURN(int c, IntCount(bytes, "all-to-all"));
    InMpi guard(world_, device_, "all-to-all", &group);
    return MpiStatus(MPI_Alltoall(in, c, MPI_BYTE, out, c, MPI_BYTE, l.gc->comm), "MPI_Alltoall",
                     rank);
  }
  const int64_t nl = l.local.size();
  // Every local member's whole input, at every local member (the leader needs them).
  std::vector<std::byte> inputs;
  const std::byte* all_in = static_cast<const std::byte*>(in);
  if (nl > 1) {
    inputs.resize(nl * n * bytes);
    RETURN_IF_ERROR(local_.AllGather(l.local, in, inputs.data(), n * bytes));
    all_in = inputs.data();
  }
  std::vector<std::byte> combined;  // [local member j][group member i] = what i sent j
  if (l.leader) {
    const size_t p = l.gc->ranks.size();
    std::vector<int> scounts(p), sdispls(p), rcounts(p), rdispls(p);
    int64_t sat = 0, rat = 0;
    for (size_t r = 0; r < p; ++r) {
      const int64_t m = l.gc->members[r].size();
      ASSIGN_OR_RETURN(scounts[r], IntCount(m * nl * bytes, "all-to-all"));
      ASSIGN_OR_RETURN(sdispls[r], IntCount(sat, "all-to-all"));
      ASSIGN_OR_RETURN(rcounts[r], IntCount(nl * m * bytes, "all-to-all"));
      ASSIGN_OR_RETURN(rdispls[r], IntCount(rat, "all-to-all"));
      sat += scounts[r];
      rat += rcounts[r];
    }
    std::vector<std::byte> send(sat), recv(rat);
    // To rank r: for each of its members j (group order), each local member's chunk j.
    for (size_t r = 0; r < p; ++r) {
      std::byte* at = send.data() + sdispls[r];
      for (int64_t j : l.gc->members[r])
        for (int64_t li = 0; li < nl; ++li, at += bytes)
          if (bytes > 0) std::memcpy(at, all_in + (li * n + j) * bytes, bytes);
    }
    {
      InMpi guard(world_, device_, "all-to-all", &group);
      RETURN_IF_ERROR(MpiStatus(
          MPI_Alltoallv(send.data(), scounts.data(), sdispls.data(), MPI_BYTE, recv.data(),
                        rcounts.data(), rdispls.data(), MPI_BYTE, l.gc->comm),
          "MPI_Alltoallv", rank));
    }
    // From rank r: for each local member j, each of r's members i: i's chunk for j.
    combined.resize(nl * n * bytes);
    for (size_t r = 0; r < p; ++r) {
      const std::byte* at = recv.data() + rdispls[r];
      for (int64_t lj = 0; lj < nl; ++lj)
        for (int64_t i : l.gc->members[r])
          if (bytes > 0) {
            std::memcpy(combined.data() + (lj * n + i) * bytes, at, bytes);
            at += bytes;
          }
    }
  }
  if (nl == 1) {
    if (n * bytes > 0) std::memcpy(out, combined.data(), n * bytes);
    return absl::OkStatus();
  }
  std::vector<std::byte> mine(nl * n * bytes);
  RETURN_IF_ERROR(local_.CollectiveBroadcast(l.local, 0, l.leader ? combined.data() : mine.data(),
                                             mine.data(), nl * n * bytes));
  if (n * bytes > 0) std::memcpy(out, mine.data() + l.local_index * n * bytes, n * bytes);
  return absl::OkStatus();
}

Status MpiCommunicator::CollectivePermute(const DeviceGroup& participants,
                                          const std::vector<std::pair<int64_t, int64_t>>& pairs,
                                          const void* in, void* out, int64_t bytes) {
  int64_t source = -1;
  std::vector<int64_t> targets;
  for (const auto& [src, dst] : pairs) {
    if (src < 0 || src >= world_->devices() || dst < 0 || dst >= world_->devices())
      return InvalidArgument("collective-permute: pair ({}, {}) names a device outside 0..{}", src,
                             dst, world_->devices() - 1);
    if (dst == device_) {
      if (source >= 0)
        return InvalidArgument("collective-permute: device {} receives from both {} and {}",
                               device_, source, src);
      source = src;
    }
    if (src == device_) targets.push_back(dst);
  }
  ASSIGN_OR_RETURN(int c, IntCount(bytes, "collective-permute"));
  const int64_t k = world_->devices_per_rank();
  auto tag = [k](int64_t s, int64_t t) { return static_cast<int>((s % k) * k + (t % k)); };
  std::vector<MPI_Request> requests;
  const int rank = world_->rank();
  for (int64_t t : targets) {
    if (t == device_) continue;
    MPI_Request r;
    RETURN_IF_ERROR(
        MpiStatus(MPI_Isend(in, c, MPI_BYTE, world_->RankOf(t), tag(device_, t), world_->p2p(), &r),
                  "MPI_Isend", rank));
    requests.push_back(r);
  }
  if (source >= 0 && source != device_) {
    MPI_Request r;
    RETURN_IF_ERROR(MpiStatus(MPI_Irecv(out, c, MPI_BYTE, world_->RankOf(source),
                                        tag(source, device_), world_->p2p(), &r),
                              "MPI_Irecv", rank));
    requests.push_back(r);
  } else if (bytes > 0) {
    if (source == device_)
      std::memcpy(out, in, bytes);
    else
      std::memset(out, 0, bytes);
  }
  if (requests.empty()) return absl::OkStatus();
  InMpi guard(world_, device_, "collective-permute", &participants);
  return MpiStatus(
      MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE),
      "MPI_Waitall (collective-permute)", rank);
}

Status MpiCommunicator::CollectiveBroadcast(const DeviceGroup& group, int64_t root, const void* in,
                                            void* out, int64_t bytes) {
  if (root < 0 || root >= static_cast<int64_t>(group.size()))
    return InvalidArgument("collective-broadcast: root index {} outside a group of {}", root,
                           group.size());
  if (group.size() == 1 && group[0] == device_) {
    if (bytes > 0) std::memcpy(out, in, bytes);
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(Layout l, LayoutOf(group, "collective-broadcast"));
  if (!l.gc) return local_.CollectiveBroadcast(group, root, in, out, bytes);
  ASSIGN_OR_RETURN(int c, IntCount(bytes, "collective-broadcast"));
  const int rank = world_->rank();
  const int64_t root_device = group[root];
  const int root_rank = world_->RankOf(root_device);
  const int root_position = static_cast<int>(
      std::find(l.gc->ranks.begin(), l.gc->ranks.end(), root_rank) - l.gc->ranks.begin());
  const int64_t nl = l.local.size();
  if (root_rank == rank) {
    // The root's rank: the local members get it first, then the leader sends it on.
    if (nl > 1) {
      const int64_t local_root =
          std::find(l.local.begin(), l.local.end(), root_device) - l.local.begin();
      RETURN_IF_ERROR(local_.CollectiveBroadcast(l.local, local_root, in, out, bytes));
    } else if (bytes > 0) {
      std::memcpy(out, in, bytes);
    }
    if (!l.leader) return absl::OkStatus();
    InMpi guard(world_, device_, "collective-broadcast", &group);
    return MpiStatus(MPI_Bcast(out, c, MPI_BYTE, root_position, l.gc->comm), "MPI_Bcast", rank);
  }
  std::vector<std::byte> got;
  if (l.leader) {
    void* dst = out;
    if (nl > 1) {
      got.resize(bytes);
      dst = got.data();
    }
    InMpi guard(world_, device_, "collective-broadcast", &group);
    RETURN_IF_ERROR(
        MpiStatus(MPI_Bcast(dst, c, MPI_BYTE, root_position, l.gc->comm), "MPI_Bcast", rank));
  }
  if (nl == 1) return absl::OkStatus();
  return local_.CollectiveBroadcast(l.local, 0, l.leader ? got.data() : out, out, bytes);
}

Status MpiCommunicator::Barrier(const DeviceGroup& group) {
  ASSIGN_OR_RETURN(Layout l, LayoutOf(group, "barrier"));
  if (!l.gc) return local_.Barrier(group);
  if (l.local.size() > 1) RETURN_IF_ERROR(local_.Barrier(l.local));
  if (l.leader) {
    InMpi guard(world_, device_, "barrier", &group);
    RETURN_IF_ERROR(MpiStatus(MPI_Barrier(l.gc->comm), "MPI_Barrier", world_->rank()));
  }
  if (l.local.size() > 1) RETURN_IF_ERROR(local_.Barrier(l.local));
  return absl::OkStatus();
}

}  // namespace spmdc

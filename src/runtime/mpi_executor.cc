#include "runtime/mpi_executor.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <set>
#include <thread>

#include "ir/attributes.h"
#include "ir/computation.h"
#include "ir/instruction.h"
#include "runtime/host_sharding.h"
#include "runtime/mpi_communicator.h"
#include "runtime/spmd_device_context.h"
#include "support/check.h"

namespace spmdc {
namespace {

// Waits for `requests` by testing them with short sleeps between tests (a blocking MPI wait
// spins on a core).
// With `timeout_s` > 0, waiting longer than that is DeadlineExceeded.
Status WaitPolling(std::vector<MPI_Request>& requests, const char* what, int rank,
                   double timeout_s = 0) {
  if (requests.empty()) return absl::OkStatus();
  const auto start = std::chrono::steady_clock::now();
  for (int spins = 0;; ++spins) {
    if (timeout_s > 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > timeout_s)
      return absl::DeadlineExceededError(what);
    int done = 0;
    const int rc =
        MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS)
      return absl::InternalError(fmt::format("{} failed on rank {}", what, rank));
    if (done) return absl::OkStatus();
    if (spins > 100) std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}


// Every device group any device forms for any collective of `module`, in a deterministic order
// (the same on every rank).
std::vector<DeviceGroup> AllGroups(MpiWorld& world, const Module& module, int64_t num_partitions,
                                   int64_t replicas) {
  std::vector<DeviceGroup> out;
  std::set<DeviceGroup> seen;
  std::vector<std::unique_ptr<MpiCommunicator>> comms;
  std::vector<std::unique_ptr<SpmdDeviceContext>> contexts;
  for (int64_t d = 0; d < world.devices(); ++d) {
    comms.push_back(std::make_unique<MpiCommunicator>(&world, d));
    contexts.push_back(
        std::make_unique<SpmdDeviceContext>(comms.back().get(), num_partitions, replicas));
  }
  for (const Computation* c : module.computations()) {
    for (const Instruction* instr : c->instructions()) {
      if (!IsGroupedCollectiveOpcode(instr->opcode())) continue;
      for (const auto& ctx : contexts) {
        StatusOr<DeviceGroup> g = ctx->GroupOf(*instr);
        if (!g.ok() || seen.count(*g)) continue;  // errors surface when the device runs it
        seen.insert(*g);
        out.push_back(*g);
      }
    }
  }
  return out;
}

// Sends (rank != 0) or receives (rank 0) the array leaves of device `device`'s result.
void CollectLeaves(Literal& l, std::vector<Literal*>& leaves) {
  if (l.shape().IsTuple()) {
    for (Literal& e : l.mutable_elements()) CollectLeaves(e, leaves);
    return;
  }
  if (l.shape().IsArray()) leaves.push_back(&l);
}

constexpr int64_t kMessageBytes = int64_t{1} << 30;

}  // namespace

uint64_t StableHash(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : text) {
    h ^= ch;
    h *= 1099511628211ull;
  }
  return h;
}

// --- MpiSession --------------------------------------------------------------------------------

StatusOr<std::unique_ptr<MpiSession>> MpiSession::Start(int64_t devices_per_rank,
                                                        double collective_timeout_s) {
  ASSIGN_OR_RETURN(std::unique_ptr<MpiWorld> world, MpiWorld::Create(devices_per_rank));
  world->SetCollectiveTimeout(collective_timeout_s);
  return std::unique_ptr<MpiSession>(new MpiSession(std::move(world)));
}

MpiSession::MpiSession(std::unique_ptr<MpiWorld> world) : world_(std::move(world)) {}
MpiSession::~MpiSession() = default;

int MpiSession::rank() const { return world_->rank(); }
int MpiSession::ranks() const { return world_->ranks(); }
int64_t MpiSession::devices_per_rank() const { return world_->devices_per_rank(); }
int64_t MpiSession::devices() const { return world_->devices(); }
void MpiSession::Abort(int code, const std::string& message) { world_->Abort(code, message); }
void MpiSession::Finalize() { world_.reset(); }

std::vector<int> MpiSession::ExchangeCodes(int code, bool timed) {
  std::vector<int> all(ranks(), 0);
  std::vector<MPI_Request> req(1);
  MPI_Iallgather(&code, 1, MPI_INT, all.data(), 1, MPI_INT, MPI_COMM_WORLD, &req[0]);
  const double timeout = timed ? world_->collective_timeout() : 0;
  const Status s = WaitPolling(req, "MPI_Iallgather", rank(), timeout);
  if (absl::IsDeadlineExceeded(s))
    Abort(5, fmt::format("collective timeout: waited more than {} s for the other ranks to load "
                         "and partition the module; a peer rank is stuck or gone",
                         timeout));
  if (!s.ok()) Abort(4, std::string(s.message()));
  return all;
}

Status MpiSession::CheckSameProgram(uint64_t hash) {
  std::vector<unsigned long long> all(ranks(), 0);
  unsigned long long mine = hash;
  std::vector<MPI_Request> req(1);
  MPI_Iallgather(&mine, 1, MPI_UNSIGNED_LONG_LONG, all.data(), 1, MPI_UNSIGNED_LONG_LONG,
                 MPI_COMM_WORLD, &req[0]);
  const Status waited = WaitPolling(req, "MPI_Iallgather", rank(), world_->collective_timeout());
  if (absl::IsDeadlineExceeded(waited))
    Abort(5, fmt::format("collective timeout: waited more than {} s for the other ranks' "
                         "program hashes; a peer rank is stuck or gone",
                         world_->collective_timeout()));
  RETURN_IF_ERROR(waited);
  std::vector<int> differ;
  for (int r = 1; r < ranks(); ++r)
    if (all[r] != all[0]) differ.push_back(r);
  if (differ.empty()) return absl::OkStatus();
  // A launch error (different modules or flags per rank), like a bad command line: exit 2.
  return absl::InvalidArgumentError(fmt::format(
      "the ranks do not hold the same per-device program: rank{} {} partitioned the module "
      "differently from rank 0 (program hash {:016x} vs {:016x}); every rank must run the same "
      "spmdc on the same module and flags",
      differ.size() > 1 ? "s" : "", fmt::join(differ, ","), all[differ[0]], all[0]));
}

// --- ExecuteSpmdMpi ----------------------------------------------------------------------------

StatusOr<std::vector<std::vector<Literal>>> LocalShardsFromGlobal(
    const MpiSession& session, int64_t num_partitions, const std::vector<Literal>& global_args,
    const std::vector<Sharding>& param_shardings) {
  if (!param_shardings.empty() && param_shardings.size() != global_args.size())
    return InvalidArgument("{} parameter shardings for {} arguments", param_shardings.size(),
                           global_args.size());
  std::vector<std::vector<Literal>> out(session.devices_per_rank());
  const int64_t first = session.rank() * session.devices_per_rank();
  for (int64_t i = 0; i < session.devices_per_rank(); ++i) {
    for (size_t p = 0; p < global_args.size(); ++p) {
      const Sharding s = param_shardings.empty() ? Sharding::Replicate() : param_shardings[p];
      ASSIGN_OR_RETURN(Literal shard,
                       ShardForDevice(global_args[p], s, (first + i) % num_partitions));
      out[i].push_back(std::move(shard));
    }
  }
  return out;
}

StatusOr<Literal> ExecuteSpmdMpi(MpiSession& session, const Module& module, int64_t num_partitions,
                                 std::vector<std::vector<Literal>> shards,
                                 const Sharding& result_sharding, const MpiRunOptions& options) {
  MpiWorld& world = session.world();
  const Computation* entry = module.entry();
  if (entry == nullptr)
    return InvalidArgument("module '{}' has no entry computation", module.name());
  const int64_t replicas = options.spmd.replica_count > 0
                               ? options.spmd.replica_count
                               : std::max<int64_t>(1, module.replica_count());
  const int64_t devices = replicas * num_partitions;
  if (devices != world.devices())
    return InvalidArgument(
        "--backend mpi: the program runs on {} devices ({} partitions x {} replicas) but the MPI "
        "job has {} ranks x {} devices per rank = {}; start it with mpirun -np {}",
        devices, num_partitions, replicas, world.ranks(), world.devices_per_rank(), world.devices(),
        devices % world.devices_per_rank() == 0
            ? fmt::format("{}", devices / world.devices_per_rank())
            : fmt::format("R --devices-per-rank K with R x K = {}", devices));
  const int64_t k = world.devices_per_rank();
  const int64_t first = world.first_local_device();
  if (static_cast<int64_t>(shards.size()) != k)
    return InvalidArgument("arguments for {} local devices, the rank runs {}", shards.size(), k);
  for (int64_t i = 0; i < k; ++i) {
    if (static_cast<int64_t>(shards[i].size()) != entry->num_parameters())
      return InvalidArgument("the entry computation takes {} parameters, {} arguments given",
                             entry->num_parameters(), shards[i].size());
    for (int64_t p = 0; p < entry->num_parameters(); ++p) {
      const Shape& want = entry->parameter(p)->shape();
      if (want.IsArray() &&
          (!shards[i][p].shape().IsArray() || shards[i][p].shape().dims() != want.dims() ||
           shards[i][p].shape().dtype() != want.dtype()))
        return InvalidArgument("argument {} of device {} is {}, but the per-device parameter is {}",
                               p, first + i, shards[i][p].shape().ToString(false),
                               want.ToString(false));
    }
  }

  // Communicators first, in the same order on every rank.
  RETURN_IF_ERROR(world.Prepare(AllGroups(world, module, num_partitions, replicas)));

  int cores = options.spmd.cores;
  if (cores <= 0) {
    cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    if (const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE"))
      cores = std::max(1, cores / std::max(1, std::atoi(local)));
  }
  InterpreterOptions iopts = options.spmd.interpreter;
  iopts.intra_op_threads = static_cast<int>(std::max<int64_t>(1, cores / k));

  std::vector<StatusOr<Literal>> results(k, Literal());
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  auto run_device = [&](int64_t i) {
    const int64_t d = first + i;
    MpiCommunicator comm(&world, d);
    SpmdDeviceContext ctx(&comm, num_partitions, replicas);
    StatusOr<Literal> r = Literal();
    try {
      r = Execute(module, shards[i], &ctx, iopts);
    } catch (const InternalError& e) {
      r = absl::InternalError(e.what());
    } catch (const std::bad_alloc&) {
      r = absl::ResourceExhaustedError("out of memory");
    }
    if (!r.ok()) {
      // The peers wait in collectives this device will never join: end the job.
      const int code = options.exit_code_for ? options.exit_code_for(r.status()) : 4;
      session.Abort(code,
                    fmt::format("device {} (replica {}, partition {}) failed: {}", d,
                                d / num_partitions, d % num_partitions, r.status().message()));
    }
    world.local()->MarkDone(d);
    results[i] = std::move(r);
  };
  if (k == 1) {
    run_device(0);
  } else {
    std::vector<std::thread> threads;
    for (int64_t i = 0; i < k; ++i) threads.emplace_back(run_device, i);
    for (auto& t : threads) t.join();
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();

  if (options.local_results) {
    double slowest = seconds;
    MPI_Allreduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (options.spmd.step_seconds) *options.spmd.step_seconds = slowest;
    options.local_results->clear();
    for (auto& r : results) options.local_results->push_back(*std::move(r));
    return Literal();
  }
  // Rank 0 collects partitions 0..P-1 (replica 0) and assembles.
  MPI_Comm results_comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &results_comm);
  const int rank = world.rank();
  const Shape& device_shape = results[0]->shape();
  std::vector<Literal> outs;
  std::vector<MPI_Request> requests;
  if (rank == 0) {
    for (int64_t d = 0; d < num_partitions; ++d)
      outs.push_back(world.IsLocal(d) ? *results[d - first] : Literal(device_shape));
    for (int64_t d = 0; d < num_partitions; ++d) {
      if (world.IsLocal(d)) continue;
      std::vector<Literal*> leaves;
      CollectLeaves(outs[d], leaves);
      for (Literal* leaf : leaves) {
        std::byte* data = leaf->mutable_raw();
        for (int64_t at = 0; at < leaf->size_bytes(); at += kMessageBytes) {
          MPI_Request r;
          MPI_Irecv(data + at, static_cast<int>(std::min(kMessageBytes, leaf->size_bytes() - at)),
                    MPI_BYTE, world.RankOf(d), static_cast<int>(d), results_comm, &r);
          requests.push_back(r);
        }
      }
    }
  } else {
    for (int64_t i = 0; i < k; ++i) {
      const int64_t d = first + i;
      if (d >= num_partitions) break;
      std::vector<Literal*> leaves;
      CollectLeaves(*results[i], leaves);
      for (Literal* leaf : leaves) {
        const std::byte* data = leaf->raw();
        for (int64_t at = 0; at < leaf->size_bytes(); at += kMessageBytes) {
          MPI_Request r;
          MPI_Isend(data + at, static_cast<int>(std::min(kMessageBytes, leaf->size_bytes() - at)),
                    MPI_BYTE, 0, static_cast<int>(d), results_comm, &r);
          requests.push_back(r);
        }
      }
    }
  }
  const Status moved = WaitPolling(requests, "collecting the results on rank 0", rank);
  MPI_Comm_free(&results_comm);
  RETURN_IF_ERROR(moved);
  double slowest = seconds;
  MPI_Allreduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (options.spmd.step_seconds) *options.spmd.step_seconds = slowest;
  if (rank != 0) return Literal();
  Shape global_shape;
  if (options.spmd.global_result_shape) {
    global_shape = *options.spmd.global_result_shape;
  } else {
    ASSIGN_OR_RETURN(global_shape, EvenGlobalShape(outs[0].shape(), result_sharding));
  }
  return AssembleFromShards(outs, result_sharding, global_shape);
}

}  // namespace spmdc

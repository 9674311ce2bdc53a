// The MPI backend's collectives against the same MPI call made directly, 64 KiB to 64 MiB, and
// the transformer training step, data parallel over the ranks (one device per rank, one
// interpreter thread each): run it with -np 1 and -np 2 for the speedup.
// Run under mpirun (e.g. `mpirun -np 2 build/bench/mpi_bench [--step-only]`); rank 0 prints one row
// per collective and size: the bandwidth through MpiCommunicator, the direct call's (on
// MPI_COMM_WORLD) and their ratio, and the thread backend's on as many device threads in one
// process (rank 0 alone, the other ranks sleeping); then the step time. Prints figures; asserts
// nothing.
//
// Bandwidth is "algorithm bandwidth": bytes of one rank's buffer (the all-reduce / reduce-scatter
// input, the all-gather result, the all-to-all / permute / broadcast buffer) over the time of one
// call, the slowest rank's, best of 5 repetitions (backend and direct interleaved).
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "hlo/parser.h"
#include "models/models.h"
#include "partitioner/partitioner.h"
#include "propagation/propagation.h"
#include "runtime/host_values.h"
#include "runtime/mpi_communicator.h"
#include "runtime/mpi_executor.h"
#include "runtime/thread_communicator.h"

namespace {

using Clock = std::chrono::steady_clock;

int Iterations(int64_t bytes) {
  return static_cast<int>(std::clamp<int64_t>((int64_t{512} << 20) / bytes, 3, 200));
}

// Seconds per call of `op` over `iters` calls, the slowest rank's.
double TimeOnce(int iters, const std::function<void()>& op) {
  MPI_Barrier(MPI_COMM_WORLD);
  const auto t0 = Clock::now();
  for (int i = 0; i < iters; ++i) op();
  double mine = std::chrono::duration<double>(Clock::now() - t0).count() / iters, slowest = 0;
  MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

// Best of 5 of each, the two interleaved so that a noisy neighbour hurts both alike.
std::pair<double, double> TimePair(int iters, const std::function<void()>& a,
                                   const std::function<void()>& b) {
  a();  // warm-up (first touch, connections)
  b();
  double ta = 1e30, tb = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    ta = std::min(ta, TimeOnce(iters, a));
    tb = std::min(tb, TimeOnce(iters, b));
  }
  return {ta, tb};
}

// Rank 0 alone runs `fn` while the others wait without spinning (a polled barrier with sleeps).
void OnRootOnly(int rank, const std::function<void()>& fn) {
  if (rank == 0) fn();
  MPI_Request req;
  MPI_Ibarrier(MPI_COMM_WORLD, &req);
  for (int done = 0; !done;) {
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// Seconds per call of `op(comm, device)` on n device threads of the thread backend, the slowest
// thread's, best of 3.
double TimeThreads(int64_t n, int iters,
                   const std::function<void(spmdc::Communicator&, int64_t)>& op) {
  double best = 1e30;
  for (int rep = 0; rep < 3; ++rep) {
    spmdc::ThreadWorld world(n);
    std::vector<double> per(n, 0);
    std::vector<std::thread> threads;
    for (int64_t d = 0; d < n; ++d)
      threads.emplace_back([&, d] {
        spmdc::ThreadCommunicator comm(&world, d);
        op(comm, d);  // warm-up
        const auto t0 = Clock::now();
        for (int i = 0; i < iters; ++i) op(comm, d);
        per[d] = std::chrono::duration<double>(Clock::now() - t0).count() / iters;
      });
    for (auto& t : threads) t.join();
    best = std::min(best, *std::max_element(per.begin(), per.end()));
  }
  return best;
}

void Must(const spmdc::Status& s) {
  if (!s.ok()) {
    std::fprintf(stderr, "mpi_bench: %s\n", std::string(s.message()).c_str());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

}  // namespace

// The transformer layer step of bench/spmd_step_bench, data parallel over every rank.
void TransformerStep(spmdc::MpiSession& session) {
  using namespace spmdc;
  TransformerOptions tf;
  tf.batch = 8;
  tf.seq = 128;
  tf.model = 512;
  tf.heads = 8;
  tf.ffn = 2048;
  tf.layers = 1;
  tf.parallel.data = session.ranks();
  auto parsed = ParseHloModule(BuildTransformerTrainingStep(tf), "transformer");
  if (!parsed.ok()) Must(parsed.status());
  std::unique_ptr<Module> module = std::move(*parsed);
  const int64_t n = session.ranks();
  module->set_num_partitions(n);
  Must(PropagateShardings(*module).status());
  StatusOr<PartitionResult> part = PartitionAndCleanUp(*module, PartitionOptions{n});
  if (!part.ok()) Must(part.status());
  const std::vector<Literal> args = RandomArguments(*module, 1);
  double best = 1e30;
  for (int rep = 0; rep < 3; ++rep) {
    auto local = LocalShardsFromGlobal(session, n, args, part->parameter_shardings);
    if (!local.ok()) Must(local.status());
    double seconds = 0;
    MpiRunOptions options;
    options.spmd.global_result_shape = module->entry()->root()->shape();
    options.spmd.cores = 1;  // one interpreter thread per device
    options.spmd.step_seconds = &seconds;
    Must(
        ExecuteSpmdMpi(session, *part->module, n, std::move(*local), part->result_sharding, options)
            .status());
    best = std::min(best, seconds);
  }
  if (session.rank() == 0)
    std::printf("transformer layer step, data parallel on %d rank(s), 1 thread each: %.1f ms\n",
                session.ranks(), best * 1e3);
}

int main(int argc, char** argv) {
  const bool step_only = argc > 1 && std::string(argv[1]) == "--step-only";
  auto created = spmdc::MpiSession::Start(1, 0);
  if (!created.ok()) {
    std::fprintf(stderr, "mpi_bench: %s\n", std::string(created.status().message()).c_str());
    return 1;
  }
  spmdc::MpiSession& session = **created;
  spmdc::MpiWorld& world = session.world();
  const int rank = world.rank(), n = world.ranks();
  spmdc::DeviceGroup all;
  for (int r = 0; r < n; ++r) all.push_back(r);
  Must(world.Prepare({all}));
  spmdc::MpiCommunicator comm(&world, rank);
  spmdc::Reduction sum;
  std::vector<std::pair<int64_t, int64_t>> ring;
  for (int r = 0; r < n; ++r) ring.push_back({r, (r + 1) % n});

  if (step_only) {
    TransformerStep(session);
    created->reset();
    return 0;
  }
  if (rank == 0) {
    std::printf("MPI backend vs direct MPI calls, %d ranks (algorithm bandwidth, GB/s)\n", n);
    std::printf("%-20s %10s %12s %12s %7s %12s\n", "collective", "bytes", "backend", "direct",
                "ratio", "threads");
  }
  for (int64_t bytes :
       {int64_t{64} << 10, int64_t{1} << 20, int64_t{16} << 20, int64_t{64} << 20}) {
    const int iters = Iterations(bytes);
    const int64_t count = bytes / 4;
    std::vector<float> in(count, 1.0f), out(count, 0.0f);
    std::vector<std::byte> big_in(bytes), big_out(bytes);
    struct Row {
      const char* name;
      std::function<void()> backend, direct;
      // The same collective on the thread backend (device d's call), for the last column.
      std::function<void(spmdc::Communicator&, int64_t, std::vector<std::byte>&,
                         std::vector<std::byte>&)>
          threads;
    };
    const int64_t chunk = bytes / n;  // all-gather / reduce-scatter / all-to-all piece per rank
    std::vector<Row> rows = {
        {"all-reduce f32",
         [&] { Must(comm.AllReduce(all, spmdc::DType::kF32, in.data(), out.data(), count, sum)); },
         [&] {
           MPI_Allreduce(in.data(), out.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM,
                         MPI_COMM_WORLD);
         },
         [&](spmdc::Communicator& c, int64_t, std::vector<std::byte>& i,
             std::vector<std::byte>& o) {
           Must(c.AllReduce(all, spmdc::DType::kF32, i.data(), o.data(), count, sum));
         }},
        {"all-gather", [&] { Must(comm.AllGather(all, big_in.data(), big_out.data(), chunk)); },
         [&] {
           MPI_Allgather(big_in.data(), static_cast<int>(chunk), MPI_BYTE, big_out.data(),
                         static_cast<int>(chunk), MPI_BYTE, MPI_COMM_WORLD);
         },
         [&](spmdc::Communicator& c, int64_t, std::vector<std::byte>& i,
             std::vector<std::byte>& o) { Must(c.AllGather(all, i.data(), o.data(), chunk)); }},
        {"reduce-scatter f32",
         [&] {
           Must(comm.ReduceScatter(all, spmdc::DType::kF32, in.data(), out.data(), count / n, sum));
         },
         [&] {
           MPI_Reduce_scatter_block(in.data(), out.data(), static_cast<int>(count / n), MPI_FLOAT,
                                    MPI_SUM, MPI_COMM_WORLD);
         },
         [&](spmdc::Communicator& c, int64_t, std::vector<std::byte>& i,
             std::vector<std::byte>& o) {
           Must(c.ReduceScatter(all, spmdc::DType::kF32, i.data(), o.data(), count / n, sum));
         }},
        {"all-to-all", [&] { Must(comm.AllToAll(all, big_in.data(), big_out.data(), chunk)); },
         [&] {
           MPI_Alltoall(big_in.data(), static_cast<int>(chunk), MPI_BYTE, big_out.data(),
                        static_cast<int>(chunk), MPI_BYTE, MPI_COMM_WORLD);
         },
         [&](spmdc::Communicator& c, int64_t, std::vector<std::byte>& i,
             std::vector<std::byte>& o) { Must(c.AllToAll(all, i.data(), o.data(), chunk)); }},
        {"collective-permute",
         [&] { Must(comm.CollectivePermute(all, ring, big_in.data(), big_out.data(), bytes)); },
         [&] {
           MPI_Sendrecv(big_in.data(), static_cast<int>(bytes), MPI_BYTE, (rank + 1) % n, 7,
                        big_out.data(), static_cast<int>(bytes), MPI_BYTE, (rank + n - 1) % n, 7,
                        MPI_COMM_WORLD, MPI_STATUS_IGNORE);
         },
         [&](spmdc::Communicator& c, int64_t, std::vector<std::byte>& i,
             std::vector<std::byte>& o) {
           Must(c.CollectivePermute(all, ring, i.data(), o.data(), bytes));
         }},
        {"broadcast",
         [&] { Must(comm.CollectiveBroadcast(all, 0, big_in.data(), big_out.data(), bytes)); },
         [&] { MPI_Bcast(big_out.data(), static_cast<int>(bytes), MPI_BYTE, 0, MPI_COMM_WORLD); },
         [&](spmdc::Communicator& c, int64_t, std::vector<std::byte>& i,
             std::vector<std::byte>& o) {
           Must(c.CollectiveBroadcast(all, 0, i.data(), o.data(), bytes));
         }},
    };
    for (const Row& row : rows) {
      const auto [b, d] = TimePair(iters, row.backend, row.direct);
      double t = 0;
      OnRootOnly(rank, [&] {
        std::vector<std::vector<std::byte>> ins(n, std::vector<std::byte>(bytes)),
            outs(n, std::vector<std::byte>(bytes));
        t = TimeThreads(n, iters, [&](spmdc::Communicator& c, int64_t dev) {
          row.threads(c, dev, ins[dev], outs[dev]);
        });
      });
      if (rank == 0)
        std::printf("%-20s %10lld %12.3f %12.3f %7.3f %12.3f\n", row.name,
                    static_cast<long long>(bytes), bytes / b / 1e9, bytes / d / 1e9, d / b,
                    bytes / t / 1e9);
    }
  }
  TransformerStep(session);
  created->reset();
  return 0;
}

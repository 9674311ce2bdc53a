#include "runtime/executor.h"

#include "support/check.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstring>
#include <memory>
#include <mutex>
#include <string_view>
#include <system_error>
#include <thread>

#include "ir/memory_account.h"
#include "runtime/host_sharding.h"
#include "runtime/spmd_device_context.h"
#include "runtime/thread_communicator.h"

namespace spmdc {
namespace {

bool SameLeafShapes(const Shape& a, const Shape& b) {
  if (a.IsTuple() != b.IsTuple()) return false;
  if (a.IsTuple()) {
    if (a.tuple_size() != b.tuple_size()) return false;
    for (int64_t i = 0; i < a.tuple_size(); ++i)
      if (!SameLeafShapes(a.tuple_shape(i), b.tuple_shape(i))) return false;
    return true;
  }
  if (a.IsToken() || b.IsToken()) return a.IsToken() == b.IsToken();
  return a.dtype() == b.dtype() && a.dims() == b.dims();
}

// Every leaf of `s` must name partitions 0..num_partitions-1 only (a tiled leaf: exactly them).
Status CheckFits(const Sharding& s, int64_t num_partitions, std::string_view what) {
  if (s.IsTuple()) {
    for (const Sharding& e : s.tuple_elements())
      RETURN_IF_ERROR(CheckFits(e, num_partitions, what));
    return absl::OkStatus();
  }
  if (s.IsMaximal() && (*s.UniqueDevice() < 0 || *s.UniqueDevice() >= num_partitions))
    return InvalidArgument("{} sharding {} names a device outside 0..{}", what, s.ToString(false),
                           num_partitions - 1);
  if (s.IsTiled() && s.tile_assignment().num_elements() != num_partitions)
    return InvalidArgument("{} sharding {} spans {} devices, not the {} partitions", what,
                           s.ToString(false), s.tile_assignment().num_elements(), num_partitions);
  return absl::OkStatus();
}

// A copy of `l` in buffers of its own. A replicated argument's shards share the host array's
// buffer; a device really holds its own copy, so that is what a measured run charges it.
Literal PrivateCopy(const Literal& l) {
  if (l.shape().IsTuple()) {
    std::vector<Literal> elems;
    for (const Literal& e : l.elements()) elems.push_back(PrivateCopy(e));
    return Literal::Tuple(std::move(elems));
  }
  if (!l.shape().IsArray()) return l;
  Literal copy = Literal::ForOverwrite(l.shape());
  if (l.size_bytes() > 0) std::memcpy(copy.mutable_raw(), l.raw(), l.size_bytes());
  return copy;
}

}  // namespace

StatusOr<Literal> ExecuteSpmd(const Module& module, int64_t num_partitions,
                              const std::vector<Literal>& global_args,
                              const std::vector<Sharding>& param_shardings,
                              const Sharding& result_sharding, const SpmdOptions& options) {
  const Computation* entry = module.entry();
  if (entry == nullptr)
    return InvalidArgument("module '{}' has no entry computation", module.name());
  if (num_partitions < 1 || num_partitions > (int64_t{1} << 16))
    return InvalidArgument("num_partitions {} is out of range", num_partitions);
  const int64_t replicas = options.replica_count > 0 ? options.replica_count
                                                     : std::max<int64_t>(1, module.replica_count());
  const int64_t devices = replicas * num_partitions;
  if (devices > (int64_t{1} << 16)) return InvalidArgument("{} devices are too many", devices);
  const int64_t params = entry->num_parameters();
  if (static_cast<int64_t>(global_args.size()) != params)
    return InvalidArgument("the entry computation takes {} parameters, {} arguments given", params,
                           global_args.size());
  if (!param_shardings.empty() && static_cast<int64_t>(param_shardings.size()) != params)
    return InvalidArgument("{} parameter shardings for {} parameters", param_shardings.size(),
                           params);

  RETURN_IF_ERROR(CheckFits(result_sharding, num_partitions, "the result"));
  for (const Sharding& s : param_shardings)
    RETURN_IF_ERROR(CheckFits(s, num_partitions, "a parameter"));

  // One memory account per device when peaks are asked for; a partition's shards are charged to
  // its replica-0 device.
  std::vector<std::unique_ptr<MemoryAccount>> accounts;
  if (options.device_peak_bytes)
    for (int64_t d = 0; d < devices; ++d) accounts.push_back(std::make_unique<MemoryAccount>());
  auto account_of = [&](int64_t d) { return accounts.empty() ? nullptr : accounts[d].get(); };

  // Split the arguments (per partition; every replica gets the same shards).
  std::vector<std::vector<Literal>> shards(num_partitions);
  for (int64_t p = 0; p < num_partitions; ++p) {
    ScopedMemoryAccount charge(account_of(p));
    for (int64_t i = 0; i < params; ++i) {
      const Sharding s = param_shardings.empty() ? Sharding::Replicate() : param_shardings[i];
      ASSIGN_OR_RETURN(Literal shard, ShardForDevice(global_args[i], s, p));
      const Shape& want = entry->parameter(i)->shape();
      if (!SameLeafShapes(shard.shape(), want))
        return InvalidArgument(
            "argument {} of shape {} split by {} gives {} on partition {}, but "
            "the per-device parameter is {}",
            i, global_args[i].shape().ToString(false), s.ToString(false),
            shard.shape().ToString(false), p, want.ToString(false));
      shards[p].push_back(accounts.empty() ? std::move(shard) : PrivateCopy(shard));
    }
  }

  int cores = options.cores > 0
                  ? options.cores
                  : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  InterpreterOptions iopts = options.interpreter;
  iopts.intra_op_threads = static_cast<int>(std::max<int64_t>(1, cores / devices));

  ThreadWorld world(devices);
  std::vector<StatusOr<Literal>> results(devices, Literal());
  std::mutex error_mu;
  Status first_error;
  using Clock = std::chrono::steady_clock;
  std::vector<Clock::time_point> started(devices), finished(devices);
  std::vector<double> cpu(devices, 0.0);
  auto thread_cpu = [] {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
  };
  auto run_device = [&](int64_t d) {
    started[d] = Clock::now();
    const double cpu_start = thread_cpu();
    ScopedMemoryAccount charge(account_of(d));
    ThreadCommunicator comm(&world, d);
    SpmdDeviceContext ctx(&comm, num_partitions, replicas);
    StatusOr<Literal> r = Literal();
    try {
      r = Execute(module, shards[d % num_partitions], &ctx, iopts);
    } catch (const InternalError& e) {
      r = absl::InternalError(e.what());
    } catch (const std::bad_alloc&) {
      r = absl::ResourceExhaustedError("out of memory");
    }
    if (!r.ok()) {
      std::lock_guard<std::mutex> lock(error_mu);
      if (first_error.ok()) {
        first_error =
            Status(r.status().code(),
                   fmt::format("device {} (replica {}, partition {}): {}", d, d / num_partitions,
                               d % num_partitions, r.status().message()));
        world.Abort(first_error);
      }
    }
    finished[d] = Clock::now();
    cpu[d] = thread_cpu() - cpu_start;
    world.MarkDone(d);
    results[d] = std::move(r);
  };
  if (devices == 1) {
    run_device(0);
  } else {
    std::vector<std::thread> threads;
    threads.reserve(devices);
    for (int64_t d = 0; d < devices; ++d) {
      try {
        threads.emplace_back(run_device, d);
      } catch (const std::system_error& e) {
        // Out of threads: the started devices abort at their next collective.
        std::lock_guard<std::mutex> lock(error_mu);
        if (first_error.ok()) {
          first_error = absl::ResourceExhaustedError(fmt::format(
              "could not start the thread of device {} of {}: {}", d, devices, e.what()));
          world.Abort(first_error);
        }
        for (int64_t r = d; r < devices; ++r) world.MarkDone(r);
        break;
      }
    }
    for (auto& t : threads) t.join();
  }
  if (!first_error.ok()) return first_error;
  if (options.step_seconds) {
    *options.step_seconds = std::chrono::duration<double>(*std::max_element(finished.begin(), finished.end()) -
                                                          *std::min_element(started.begin(), started.end()))
                                .count();
  }
  if (options.device_cpu_seconds) *options.device_cpu_seconds = cpu;
  if (options.device_peak_bytes) {
    options.device_peak_bytes->clear();
    for (const auto& a : accounts) options.device_peak_bytes->push_back(a->peak_bytes());
  }

  std::vector<Literal> outs;
  for (int64_t p = 0; p < num_partitions; ++p) outs.push_back(*results[p]);
  if (options.device_results) {
    options.device_results->clear();
    for (auto& r : results) options.device_results->push_back(*std::move(r));
  }
  Shape global_shape;
  if (options.global_result_shape) {
    global_shape = *options.global_result_shape;
  } else {
    ASSIGN_OR_RETURN(global_shape, EvenGlobalShape(outs[0].shape(), result_sharding));
  }
  return AssembleFromShards(outs, result_sharding, global_shape);
}

}  // namespace spmdc

// Bandwidth of the thread backend's all-reduce (f32 sum) and all-gather on 2 devices, against a
// single-threaded memcpy of the same size in the same run. Prints figures; asserts nothing.
//
// Figures are "algorithm bandwidth": bytes of one device's result divided by the time of one
// collective (all devices working concurrently), so 100% means as fast as copying the result once.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "runtime/thread_communicator.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

int Iterations(int64_t bytes) {
  return static_cast<int>(
      std::clamp<int64_t>((int64_t{2} << 30) / std::max<int64_t>(bytes, 1), 5, 2000));
}

double MemcpyGBs(int64_t bytes) {
  std::vector<char> a(bytes, 1), b(bytes, 0);
  const int iters = Iterations(bytes);
  std::memcpy(b.data(), a.data(), bytes);
  double best = 1e30;
  for (int rep = 0; rep < 3; ++rep) {
    const auto t0 = Clock::now();
    for (int i = 0; i < iters; ++i) {
      std::memcpy(b.data(), a.data(), bytes);
      asm volatile("" ::"r"(b.data()) : "memory");
    }
    best = std::min(best, Seconds(t0, Clock::now()) / iters);
  }
  return bytes / best / 1e9;
}

// Runs `op` on 2 device threads `iters` times (after a warm-up); returns seconds per call.
template <typename Op>
double TimeOnTwo(int iters, Op op) {
  spmdc::ThreadWorld world(2);
  double per_call[2] = {0, 0};
  auto body = [&](int64_t d) {
    spmdc::ThreadCommunicator comm(&world, d);
    const spmdc::DeviceGroup g = {0, 1};
    op(comm, g, d);  // warm-up (first touch)
    double best = 1e30;
    for (int rep = 0; rep < 3; ++rep) {
      (void)comm.Barrier(g);
      const auto t0 = Clock::now();
      for (int i = 0; i < iters; ++i) op(comm, g, d);
      best = std::min(best, Seconds(t0, Clock::now()) / iters);
    }
    per_call[d] = best;
  };
  std::thread t1(body, 1);
  body(0);
  t1.join();
  world.MarkDone(0);
  world.MarkDone(1);
  return std::max(per_call[0], per_call[1]);
}

}  // namespace

int main() {
  std::printf("thread backend, 2 devices (hardware threads: %u)\n",
              std::thread::hardware_concurrency());
  std::printf("%10s %12s %16s %8s %16s %8s\n", "bytes", "memcpy GB/s", "all-reduce GB/s", "ratio",
              "all-gather GB/s", "ratio");
  for (int64_t bytes :
       {int64_t{64} << 10, int64_t{1} << 20, int64_t{16} << 20, int64_t{64} << 20}) {
    const double mc = MemcpyGBs(bytes);
    const int64_t count = bytes / 4;
    std::vector<std::vector<float>> in(2, std::vector<float>(count, 1.0f)),
        out(2, std::vector<float>(count, 0.0f));
    const int iters = Iterations(bytes);
    const double ar =
        TimeOnTwo(iters, [&](spmdc::ThreadCommunicator& c, const spmdc::DeviceGroup& g, int64_t d) {
          (void)c.AllReduce(g, spmdc::DType::kF32, in[d].data(), out[d].data(), count,
                            {spmdc::ReductionKind::kSum, nullptr});
        });
    // All-gather: each device contributes half of the result.
    const double ag =
        TimeOnTwo(iters, [&](spmdc::ThreadCommunicator& c, const spmdc::DeviceGroup& g, int64_t d) {
          (void)c.AllGather(g, in[d].data(), out[d].data(), bytes / 2);
        });
    const double ar_gbs = bytes / ar / 1e9, ag_gbs = bytes / ag / 1e9;
    std::printf("%10lld %12.2f %16.2f %7.0f%% %16.2f %7.0f%%\n", static_cast<long long>(bytes), mc,
                ar_gbs, 100 * ar_gbs / mc, ag_gbs, 100 * ag_gbs / mc);
  }
  // Rendezvous latency: a one-element all-reduce.
  float x[2] = {1, 2}, y[2];
  const double lat =
      TimeOnTwo(20000, [&](spmdc::ThreadCommunicator& c, const spmdc::DeviceGroup& g, int64_t d) {
        (void)c.AllReduce(g, spmdc::DType::kF32, &x[d], &y[d], 1,
                          {spmdc::ReductionKind::kSum, nullptr});
      });
  std::printf(
      "one-element all-reduce latency: %.2f us (with more runnable threads than cores, "
      "device threads time-share and every figure drops)\n",
      lat * 1e6);
  return 0;
}

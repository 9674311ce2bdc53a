// The clock of the single-threaded compile-time benchmarks (propagation_bench, partition_bench).
//
// CPU time of the calling thread: the machines these run on are often shared, and wall-clock
// time would mostly measure the other tenants. (Benchmarks of multi-threaded execution use wall
// time instead.)
#pragma once

#include <ctime>

namespace spmdc::bench {

inline double ThreadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

}  // namespace spmdc::bench

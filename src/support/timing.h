// Wall-clock and CPU seconds of named phases: what `spmdc compile --timing` prints and what the
// partitioner reports of its own passes (PartitionStats::times), so that spmdc's compile time
// can be compared pass by pass with XLA's pass timing (bench/xla_compare.py).
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace spmdc {

struct PhaseTime {
  std::string name;
  double wall_seconds = 0;  // steady clock
  double cpu_seconds = 0;   // the process's CPU clock (every thread)
};
using PhaseTimes = std::vector<PhaseTime>;

// The process's CPU seconds so far.
double ProcessCpuSeconds();

// Measures from its construction.
class PhaseClock {
 public:
  PhaseClock() : wall_(std::chrono::steady_clock::now()), cpu_(ProcessCpuSeconds()) {}
  PhaseTime Read(std::string name) const {
    return {name, std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_).count(),
            ProcessCpuSeconds() - cpu_};
  }

 private:
  std::chrono::steady_clock::time_point wall_;
  double cpu_;
};

}  // namespace spmdc

// Calibration of the `cpu-local` hardware profile: measures this machine's in-process backend
// (the reference interpreter on N device threads over the thread communicator, what `spmdc run`
// and `verify` execute on) and describes it in the cost model's terms (cost/hardware.h), so
// that `spmdc report --hardware cpu-local` predicts what a run here takes. Used by
// bench/cost_model_bench and meant for `spmdc calibrate`, which writes the profile's JSON.
//
// Every figure is measured with N devices running at once, as a step runs them: a profile
// describes "this machine split into N in-process devices" (with more devices than cores each
// device gets a share of a core, and its rates drop accordingly). Each figure is the median of
// several timed steps after a warm-up, each step long enough (milliseconds) for the clock:
//   matmul FLOP/s     chains of f32 [256,256] x [256,256] and [16,256] x [256,256] dots: the
//                     kernels' peak rate and Hockney's half-performance size n½ (a dot whose
//                     smallest dim is m runs at peak·m/(m + n½): small dots are slow per FLOP);
//   op overhead       a chain of elementwise ops on 16-element arrays: the interpreter's fixed
//                     cost per instruction (dispatch, allocation), the analogue of a GPU's
//                     kernel launch, which the roofline cannot see;
//   dot overhead      a chain of 8x8 dots, minus the op overhead: the fixed cost a dot adds
//                     (oneDNN's primitive execution), which dominates the small dots of small
//                     models;
//   dot set-up        a chain of dots of distinct shapes, minus 8x8 ones: what the first dot of
//                     a shape costs on a device thread (the kernels cache primitives per thread,
//                     and device threads start afresh each step);
//   memory bandwidth  a chain of adds on 4 MiB arrays: bytes read and written (as the cost
//                     model counts them) per second;
//   vector FLOP/s     a chain of sums of such an array (one FLOP per element), when they take
//                     longer than the bandwidth explains;
//   transcendentals   chains of exp and of tanh on 1 MiB arrays: evaluations per second (the
//                     interpreter calls the scalar libm, some twenty times an add's cost);
//   link              all-reduces over every device of 64 bytes (latency α per algorithm step)
//                     and of 4 MiB (bandwidth β per device of the ring's 2(n-1)/n·B), solved
//                     with the cost model's own α–β formulas.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cost/hardware.h"
#include "support/status.h"

namespace spmdc {

struct CalibrationOptions {
  int64_t devices = 2;   // in-process devices running at once
  int cores = 0;         // cores the devices share (SpmdOptions::cores; 0: the machine's)
  // Time steps by UnloadedStepSeconds (the devices' CPU time) instead of the wall clock: on a
  // machine other processes share, the wall clock measures them as much as this backend.
  bool cpu_clock = false;
  int repetitions = 5;   // timed steps per figure (after one warm-up step); the median counts
  double min_seconds = 0.1;  // ... and more steps (up to 200) until they add up to this
};

struct Calibration {
  HardwareProfile profile;  // name "cpu-local", one link "threads" reaching every device
  // The measurements behind it (seconds per op, per step of the chains above).
  double dot_seconds = 0, op_seconds = 0, small_dot_seconds = 0, add_seconds = 0, reduce_seconds = 0;
  double exp_seconds = 0, tanh_seconds = 0, distinct_dot_seconds = 0, skinny_dot_seconds = 0;
  double small_all_reduce_seconds = 0, large_all_reduce_seconds = 0;
  // One line per figure.
  std::string Summary() const;
  // The profile as a hardware/*.json file that LoadHardwareProfile reads back (every figure's
  // "source" says how it was measured, on how many devices and cores).
  std::string ProfileJson() const;
};

// Errors: whatever running the measuring programs returns (they are small; none is expected).
StatusOr<Calibration> CalibrateCpuLocal(const CalibrationOptions& options = {});

// The wall time a step would take on `cores` otherwise idle cores, from its devices' CPU times
// (SpmdOptions::device_cpu_seconds): the slowest device, or all of their work spread over the
// cores when there are more devices than cores. (Time a device spends blocked in a collective
// waiting for a slower one is not CPU time; in SPMD programs the devices' work is balanced.)
double UnloadedStepSeconds(const std::vector<double>& device_cpu_seconds, int cores);

}  // namespace spmdc

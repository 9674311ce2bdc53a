// Calibration of the `cpu-local` hardware profile: measures this machine's in-process backend
// (the reference interpreter on N device threads over the thread communicator, what `spmdc run`
// and `verify` execute on) and describes it in the cost model's terms (cost/hardware.h), so
// that `spmdc report --hardware cpu-local` predicts what a run here takes. The one
// implementation: `spmdc calibrate` writes its ProfileJson, and bench/cost_model_bench either
// reads that file or calibrates in-process through the same function.
//
// Every figure is measured with N devices running at once, as a step runs them: a profile
// describes "this machine split into N in-process devices" (with more devices than cores each
// device gets a share of a core, and its rates drop accordingly). Compute figures are the
// median of several timed steps after a warm-up, each step long enough (milliseconds) for the
// clock, per instruction of a straight chain: (time of 2K instructions - time of K) / K, which
// cancels what a step costs besides its instructions (threads, host values):
//   matmul FLOP/s     chains of f32 [256,256] x [256,256] and [16,256] x [256,256] dots: the
//                     kernels' peak rate and Hockney's half-performance size n½ (a dot whose
//                     smallest dim is m runs at peak·m/(m + n½): small dots are slow per FLOP);
//                     bf16 [256,256] dots for the bf16 rate;
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
//                     interpreter calls the scalar libm, some twenty times an add's cost).
// Collectives are measured inside a while loop at two trip counts, (t(K) - t(0)) / K, for every
// kind (all-reduce, all-gather, reduce-scatter, all-to-all, collective-permute) at sizes from
// 4 KiB up (to 64 MiB; 1 MiB with `quick`) on groups of 2 and of N devices, and α (seconds per
// algorithm step) and β (bytes/s) are fitted per kind to t = α·steps + wire/β with the cost
// model's own steps and wire bytes (cost.h ModelledAlgorithm), least squares on relative error.
// The link's own figures (what a kind without a fit uses) are the all-reduce's.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
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
  int repetitions = 5;   // timed steps per compute figure (after one warm-up step); the median
  double min_seconds = 0.1;  // ... and more steps (up to 200) until they add up to this
  // Fewer and smaller points (tests): one compute step each, collectives up to 1 MiB on 2
  // devices only.
  bool quick = false;
  // Seconds the collective points may take together: sizes beyond the two smallest of each kind
  // are measured while it lasts (larger ones are listed as skipped).
  double collective_seconds = 30;
  std::string invocation = "spmdc's calibration";  // named in every figure's source
  std::function<void(const std::string&)> progress;  // one line per measurement, when set
};

// One collective point: the op's time per execution, and the cost model's terms for it.
struct CollectiveSample {
  std::string kind;
  int64_t devices = 0;
  int64_t bytes = 0;  // what a device contributes (the operand; all-gather: its shard)
  double seconds = 0;
  int64_t steps = 0;
  double wire_bytes = 0;
};

// α and β fitted to some samples; max_error is the largest |predicted / measured - 1|.
struct CollectiveFit {
  double latency = 0;
  double bandwidth = 0;
  double max_error = 0;
  std::string note;  // how a degenerate fit was resolved, when it was
};

struct Calibration {
  HardwareProfile profile;  // name "cpu-local", one link "threads" reaching every device
  CalibrationOptions options;  // as used (devices clamped, cores resolved)
  // The compute measurements behind it (seconds per op, per step of the chains above).
  double dot_seconds = 0, op_seconds = 0, small_dot_seconds = 0, add_seconds = 0, reduce_seconds = 0;
  double exp_seconds = 0, tanh_seconds = 0, distinct_dot_seconds = 0, skinny_dot_seconds = 0;
  double bf16_dot_seconds = 0;
  std::vector<CollectiveSample> collectives;
  std::map<std::string, CollectiveFit> fits;  // per kind, where it has two points or more
  std::vector<std::string> skipped;           // collective points the budget or memory left out
  double seconds = 0;                         // how long the calibration took
  // One line per figure.
  std::string Summary() const;
  // The profile as a hardware/*.json file that LoadHardwareProfile reads back (every figure's
  // "source" says how it was measured, on how many devices and cores, by which command and
  // when), with the raw points under "calibration".
  std::string ProfileJson() const;
};

// Errors: whatever running the measuring programs returns (they are small; none is expected).
StatusOr<Calibration> CalibrateCpuLocal(const CalibrationOptions& options = {});

// α and β minimising Σ ((α·steps + wire/β) / t - 1)² over `samples` (exposed for tests).
CollectiveFit FitAlphaBeta(const std::vector<const CollectiveSample*>& samples);

// The wall time a step would take on `cores` otherwise idle cores, from its devices' CPU times
// (SpmdOptions::device_cpu_seconds): the slowest device, or all of their work spread over the
// cores when there are more devices than cores. (Time a device spends blocked in a collective
// waiting for a slower one is not CPU time; in SPMD programs the devices' work is balanced.)
double UnloadedStepSeconds(const std::vector<double>& device_cpu_seconds, int cores);

}  // namespace spmdc

// `spmdc calibrate`: measures this machine's in-process backend and writes it as the `cpu-local`
// hardware profile (src/cost/hardware.h schema), so that `spmdc report --hardware cpu-local`
// predicts what `run` on in-process devices does.
//
// Everything is measured the way `run` executes: small HLO modules run by the SPMD executor on
// D devices at once (threads of this process, each with the interpreter and its kernels, the
// intra-op threads split as the executor splits them), the measured op inside a while loop.
// Each point is timed at two trip counts, so that what a run costs besides the loop (threads,
// host values) cancels out: per-op time = (t(K) - t(0)) / K.
//   dot FLOP/s           f32 and bf16 dots [S,S]x[S,S] at a few S; the profile takes the
//                        largest S (the rate big dots reach), every size is in the source text
//   memory bandwidth     add and negate of 64 MiB f32 arrays (16 MiB with --quick), bytes
//                        read + written per second, as the cost model counts an op's HBM bytes
//   vector FLOP/s        multiply of a 256 KiB f32 array (cache-resident): elementwise arithmetic
//   collectives          all-reduce, all-gather, reduce-scatter, all-to-all and
//                        collective-permute over the thread communicator, 4 KiB to 64 MiB on 2
//                        and 4 devices; per kind, α (seconds per algorithm step) and β (bytes/s)
//                        fitted to t = α·steps + wire/β with the model's own steps and wire
//                        bytes (cost.h ModelledAlgorithm), least squares on relative error
// Figures are per device while D devices run at once (D defaults to the machine's cores, at
// least 2 and at most 8): D devices share the cores and the memory bus, as in a D-device run.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "support/status.h"

namespace spmdc::cli {

struct CalibrationOptions {
  int64_t devices = 0;                               // 0: the machine's cores, clamped to [2, 8]
  bool quick = false;                                // fewer, smaller points (tests): about 5 s
  double time_budget_seconds = 60;                   // the whole run stays within it
  std::function<void(const std::string&)> progress;  // one line per measurement, when set
};

// Measures and returns the profile as JSON text (validated by the profile parser).
StatusOr<std::string> CalibrateCpuLocal(const CalibrationOptions& options);

}  // namespace spmdc::cli

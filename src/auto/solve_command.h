// What `spmdc solve PROBLEM.json [--time-limit S]` does, as a library call the CLI wraps: read an
// IOPDDL problem (plain or gzip JSON), solve it within the time limit (reading included, as the
// contest counts it) and print, as the contest's harness expects, the solution vector
// `[s0, s1, ...]` as the last line of stdout. The cost (as the contest's Evaluate defines it), the
// certified lower bound, the gap and the time go to stderr, with progress lines while stderr is a
// terminal. No vector is printed unless it fits the usage limit and makes no forbidden choice.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "auto/iopddl.h"
#include "auto/solver.h"
#include "support/status.h"

namespace spmdc::autoshard {

struct SolveCommandOptions {
  double time_limit_s = 60;
  int threads = 0;           // 0: one per hardware thread
  int64_t work_limit = 0;    // per thread; see SolveOptions
  uint64_t seed = 1;
  bool quiet = false;        // no summary and no progress on stderr
};

// Writes "[s0, s1, ...]\n" to `out`.
Status WriteSolutionLine(std::FILE* out, const Solution& solution);

// A progress line of a running search, as `spmdc solve` and `spmdc auto` print them while stderr
// is a terminal: "WHO: ELAPSED s  INCUMBENT[  lower bound BOUND][  gap GAP][  (NOTE)]". The
// incumbent is a whole fragment ("cost 123", "estimate 1.5 s", "no assignment ... yet").
void PrintProgressLine(std::FILE* err, std::string_view who, double elapsed_s, std::string_view incumbent,
                       std::string_view bound = {}, std::string_view gap = {}, std::string_view note = {});

// Reads, solves, prints. Errors: those of ReadProblem (exit-2 class: NotFound, InvalidArgument
// with file:line:col) and of Solve (ResourceExhausted when nothing fits the limit).
StatusOr<SolveResult> RunSolve(const std::string& path, const SolveCommandOptions& options,
                               std::FILE* out = stdout, std::FILE* err = stderr);

}  // namespace spmdc::autoshard

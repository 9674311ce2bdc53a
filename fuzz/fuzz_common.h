// Shared by the libFuzzer targets in this folder: what counts as a clean rejection, how a finding
// is reported, and the resource limits that keep one execution small.
//
// A finding is reported by abort() after printing what went wrong, so that libFuzzer saves the
// input as a crash. The contract being fuzzed is DESIGN.md's: bad input gives a Status that the
// CLI maps to exit 2 (bad input) or 3 (unsupported); anything else (an Internal status, a CHECK
// failure, which throws InternalError, a sanitizer report, a hang) is a bug in spmdc.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "hlo/parser.h"
#include "support/status.h"

namespace spmdc::fuzz {

[[noreturn]] inline void Fail(std::string_view what, std::string_view detail) {
  std::fprintf(stderr, "FUZZ FINDING: %.*s\n%.*s\n", static_cast<int>(what.size()), what.data(),
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

// The status codes the CLI reports as exit 2 or 3 (tools/spmdc/cli.cc, ExitCodeFor).
inline bool IsCleanError(const Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kOutOfRange:
    case absl::StatusCode::kResourceExhausted:
    case absl::StatusCode::kUnimplemented:
      return !status.message().empty();  // an error must say what is wrong
    default:
      return false;
  }
}

// Fails unless `status` is OK or a clean error. Returns status.ok().
inline bool CheckClean(const Status& status, std::string_view stage) {
  if (status.ok()) return true;
  if (!IsCleanError(status)) Fail(std::string(stage) + ": not a clean error", status.ToString());
  return false;
}

// The parser's limits, lowered from the CLI's defaults (2^31 elements, 1 GiB for elided
// constants): those exist so that a real model's large constants load, and a tiny input such as
// `f32[200000000] constant({...})` legitimately allocates that much. The fuzzer checks the limit
// logic, not the machine's memory, so it runs with limits far below libFuzzer's -rss_limit_mb.
inline ParseOptions FuzzParseOptions() {
  ParseOptions options;
  options.max_constant_elements = int64_t{1} << 20;
  options.max_elided_constant_bytes = int64_t{1} << 24;
  return options;
}

}  // namespace spmdc::fuzz

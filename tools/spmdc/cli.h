// Shared pieces of the spmdc command-line tool: exit codes, module loading with located
// diagnostics, atomic output files. Flags are CLI11 options (options.h); each command lives in
// its own cmd_<name>.cc.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/module.h"
#include "support/status.h"
#include "support/timing.h"

namespace spmdc::cli {

// Exit codes (DESIGN.md): 0 ok, 1 verification mismatch, 2 bad input/usage, 3 unsupported
// operation or a run that does not fit this machine's memory, anything else a bug.
inline constexpr int kExitOk = 0;
inline constexpr int kExitMismatch = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitUnsupported = 3;
inline constexpr int kExitInternal = 4;
int ExitCodeFor(const Status& status);
// Prints the status to stderr ("spmdc: error: ..." unless the message is already a located
// diagnostic) and returns its exit code.
int Report(const Status& status);

// The text of IN ("-" reads standard input) and the name used in diagnostics.
struct Source {
  std::string filename;
  std::string text;
};
StatusOr<Source> ReadSource(const std::string& path);

// Parses and verifies a module (syntax, shapes, shardings); errors are located diagnostics.
// With `times`: "parse", for HLO text "shardy-import" (else part of the parse), "verify".
StatusOr<std::unique_ptr<Module>> LoadModule(const Source& source, PhaseTimes* times = nullptr);

// Writes head then tail to `path`: atomically for regular files (temporary file + rename),
// in place for devices and pipes.
Status WriteFile(const std::string& path, std::string_view head, std::string_view tail = {});
// Writes `text` to `path` atomically (temporary file + rename), or to stdout when path is empty.
Status WriteOutput(const std::string& path, const std::string& text);

}  // namespace spmdc::cli

#include "cli.h"

#include <cstdio>
#include <filesystem>
#include <unistd.h>
#include <fstream>
#include <iostream>
#include <iterator>

#include "fmt/format.h"
#include "hlo/parser.h"
#include "hlo/shardy_import.h"
#include "ir/verifier.h"
#include "sharding/validation.h"
#include "stablehlo/stablehlo.h"

namespace spmdc::cli {

int ExitCodeFor(const Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kOk: return kExitOk;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kOutOfRange:
      return kExitBadInput;
    // A run this machine cannot hold (a device out of memory, no thread left for a device) is
    // not the input's fault: like an operation spmdc cannot execute, exit 3.
    case absl::StatusCode::kResourceExhausted:
    case absl::StatusCode::kUnimplemented: return kExitUnsupported;
    case absl::StatusCode::kAborted: return kExitMismatch;
    default: return kExitInternal;
  }
}

int Report(const Status& status) {
  std::string msg(status.message());
  int code = ExitCodeFor(status);
  if (code == kExitInternal) {
    std::fprintf(stderr, "spmdc: internal error (please report): %s\n", msg.c_str());
  } else if (msg.find(": error: ") != std::string::npos) {
    std::fprintf(stderr, "%s\n", msg.c_str());
  } else {
    std::fprintf(stderr, "spmdc: %s: %s\n", code == kExitUnsupported ? "unsupported" : "error",
                 msg.c_str());
  }
  return code;
}

StatusOr<Source> ReadSource(const std::string& path) {
  Source s;
  if (path == "-") {
    s.filename = "<stdin>";
    s.text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    return s;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidArgument("{}: cannot open file", path);
  s.filename = path;
  s.text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return s;
}

StatusOr<std::unique_ptr<Module>> LoadModule(const Source& source, PhaseTimes* times) {
  std::vector<std::string> warnings;
  ParseOptions options;
  options.warnings = &warnings;
  // Timed, the Shardy import of HLO text runs after the parse, as ParseHloModule would run it.
  const bool import_apart = times && !LooksLikeStableHlo(source.text, source.filename);
  if (import_apart) options.import_shardy = false;
  PhaseClock parse;
  StatusOr<std::unique_ptr<Module>> parsed = ParseModuleText(source.text, source.filename, options);
  for (const std::string& w : warnings) std::fprintf(stderr, "%s\n", w.c_str());
  ASSIGN_OR_RETURN(std::unique_ptr<Module> module, std::move(parsed));
  if (times) times->push_back(parse.Read("parse"));
  if (import_apart) {
    PhaseClock import;
    RETURN_IF_ERROR(ImportShardy(*module, source.text, source.filename));
    times->push_back(import.Read("shardy-import"));
  }
  PhaseClock verify;
  DiagnosticSource diag{source.filename, source.text};
  RETURN_IF_ERROR(VerifyModule(*module, &diag));
  RETURN_IF_ERROR(VerifyModuleShardings(*module, &diag));
  if (times) times->push_back(verify.Read("verify"));
  return module;
}

Status WriteFile(const std::string& path, std::string_view head, std::string_view tail) {
  std::error_code ec;
  auto status = std::filesystem::status(path, ec);
  bool special = !ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status);
  // Devices and pipes (-o /dev/null) are written in place; regular files through a temporary
  // file in the same folder, renamed over the target, so that a failure leaves no partial file.
  std::string target = special ? path : fmt::format("{}.tmp.{}", path, static_cast<long>(getpid()));
  {
    std::ofstream f(target, std::ios::binary | std::ios::trunc);
    if (!f) return InvalidArgument("{}: cannot write", path);
    f.write(head.data(), head.size());
    f.write(tail.data(), tail.size());
    f.flush();
    if (!f) {
      if (!special) std::remove(target.c_str());
      return InvalidArgument("{}: write failed", path);
    }
  }
  if (!special && std::rename(target.c_str(), path.c_str()) != 0) {
    std::remove(target.c_str());
    return InvalidArgument("{}: cannot replace the file", path);
  }
  return absl::OkStatus();
}

Status WriteOutput(const std::string& path, const std::string& raw_text) {
  std::string text = raw_text;
  if (!text.empty() && text.back() != '\n') text += '\n';
  if (path.empty() || path == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return absl::OkStatus();
  }
  return WriteFile(path, text);
}

}  // namespace spmdc::cli

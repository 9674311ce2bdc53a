// Located diagnostics for user input: "file:line:col: error: message", then the offending source
// line and a caret under the column. Used by the HLO parser, the verifier and the CLI.
#pragma once

#include <string>
#include <string_view>

namespace spmdc {

struct SourceLocation {
  int line = 0;  // 1-based; 0 means unknown
  int col = 0;   // 1-based
};

// Formats `message` at `loc` inside `source` (the whole text of `file`).
std::string FormatDiagnostic(std::string_view file, std::string_view source, SourceLocation loc,
                             std::string_view message);
// The same with another severity word in place of "error" ("warning", "note").
std::string FormatDiagnostic(std::string_view file, std::string_view source, SourceLocation loc,
                             std::string_view message, std::string_view severity);

// Line/column of byte `offset` in `source`.
SourceLocation LocationOfOffset(std::string_view source, size_t offset);

}  // namespace spmdc

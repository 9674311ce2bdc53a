#include "support/diagnostic.h"

#include "fmt/format.h"

namespace spmdc {

SourceLocation LocationOfOffset(std::string_view source, size_t offset) {
  SourceLocation loc{1, 1};
  if (offset > source.size()) offset = source.size();
  for (size_t i = 0; i < offset; ++i) {
    if (source[i] == '\n') {
      ++loc.line;
      loc.col = 1;
    } else {
      ++loc.col;
    }
  }
  return loc;
}

std::string FormatDiagnostic(std::string_view file, std::string_view source, SourceLocation loc,
                             std::string_view message) {
  return FormatDiagnostic(file, source, loc, message, "error");
}

std::string FormatDiagnostic(std::string_view file, std::string_view source, SourceLocation loc,
                             std::string_view message, std::string_view severity) {
  if (loc.line <= 0) return fmt::format("{}: {}: {}", file, severity, message);
  std::string out = fmt::format("{}:{}:{}: {}: {}", file, loc.line, loc.col, severity, message);
  // Find the text of line `loc.line`.
  size_t start = 0;
  for (int l = 1; l < loc.line && start != std::string_view::npos; ++l) {
    start = source.find('\n', start);
    if (start != std::string_view::npos) ++start;
  }
  if (start == std::string_view::npos || start > source.size()) return out;
  size_t end = source.find('\n', start);
  std::string_view text = source.substr(start, end == std::string_view::npos ? end : end - start);
  // Long lines (a megabyte constant) are cut around the column.
  size_t caret = loc.col > 0 ? static_cast<size_t>(loc.col - 1) : 0;
  std::string prefix;
  if (text.size() > 200) {
    size_t from = caret > 80 ? caret - 80 : 0;
    text = text.substr(from, 160);
    caret -= from;
    if (from > 0) prefix = "...";
  }
  out += fmt::format("\n{}{}\n{}^", prefix, text, std::string(prefix.size() + caret, ' '));
  return out;
}

}  // namespace spmdc

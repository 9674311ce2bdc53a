// Status and StatusOr for spmdc: absl's types, plus the propagation macros every layer uses.
//
// Error codes map onto the CLI's exit codes (DESIGN.md): kInvalidArgument is bad user input
// (exit 2), kUnimplemented is an operation we cannot execute or partition yet (exit 3); any other
// code is a bug in spmdc.
#pragma once

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "fmt/format.h"
#include "fmt/ranges.h"

namespace spmdc {

using absl::Status;
using absl::StatusOr;

// Messages use fmt syntax ("{}"); absl's string helpers are not used because Debian's absl has
// its own string_view type that does not mix with std::string_view.

template <typename... Args>
Status InvalidArgument(fmt::format_string<Args...> format, Args&&... args) {
  return absl::InvalidArgumentError(fmt::format(format, std::forward<Args>(args)...));
}
template <typename... Args>
Status Unimplemented(fmt::format_string<Args...> format, Args&&... args) {
  return absl::UnimplementedError(fmt::format(format, std::forward<Args>(args)...));
}
template <typename... Args>
Status Internal(fmt::format_string<Args...> format, Args&&... args) {
  return absl::InternalError(fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace spmdc

// Lets fmt print absl's own string_view (Status::message() returns one).
template <>
struct fmt::formatter<absl::string_view> : fmt::formatter<std::string_view> {
  template <typename FormatContext>
  auto format(absl::string_view s, FormatContext& ctx) const {
    return fmt::formatter<std::string_view>::format(std::string_view(s.data(), s.size()), ctx);
  }
};

#define SPMDC_CONCAT_INNER(a, b) a##b
#define SPMDC_CONCAT(a, b) SPMDC_CONCAT_INNER(a, b)

// Returns from the enclosing function if `expr` (a Status) is not ok.
#define RETURN_IF_ERROR(expr)                       \
  do {                                              \
    ::absl::Status _spmdc_status = (expr);          \
    if (!_spmdc_status.ok()) return _spmdc_status;  \
  } while (0)

// `ASSIGN_OR_RETURN(auto x, F());` binds the value of a StatusOr or returns its error.
#define ASSIGN_OR_RETURN(lhs, expr) \
  SPMDC_ASSIGN_OR_RETURN_IMPL(SPMDC_CONCAT(_spmdc_statusor_, __LINE__), lhs, expr)
#define SPMDC_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) return std::move(tmp).status();    \
  lhs = std::move(tmp).value()

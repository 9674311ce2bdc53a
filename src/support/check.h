// Internal invariants. A failed CHECK is a bug in spmdc, never a user error: user errors are
// returned as Status (see status.h). CHECKs stay on in release builds, since a wrong answer is
// worse than stopping. A failure throws spmdc::InternalError, which the CLI turns into a message
// and the "internal error" exit code (and the SPMD executor into a device error).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace spmdc {
class InternalError : public std::logic_error {
 public:
  explicit InternalError(const std::string& what) : std::logic_error(what) {}
};
}  // namespace spmdc

namespace spmdc::internal {
[[noreturn]] void CheckFailed(const char* file, int line, const char* cond, const char* msg);
}  // namespace spmdc::internal

#define SPMDC_CHECK(cond)                                                    \
  do {                                                                       \
    if (!(cond)) ::spmdc::internal::CheckFailed(__FILE__, __LINE__, #cond, ""); \
  } while (0)
#define SPMDC_CHECK_MSG(cond, msg)                                              \
  do {                                                                          \
    if (!(cond)) ::spmdc::internal::CheckFailed(__FILE__, __LINE__, #cond, msg); \
  } while (0)

// Internal invariants. A failed CHECK is a bug in spmdc, never a user error: user errors are
// returned as Status (see status.h). CHECKs stay on in release builds, since a wrong answer is
// worse than an abort.
#pragma once

#include <cstdio>
#include <cstdlib>

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

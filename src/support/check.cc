#include "support/check.h"

#include "fmt/format.h"

namespace spmdc::internal {
// A failed invariant is a bug in spmdc. It is reported as an exception so that the tool can
// print it and exit with the "internal error" code instead of dumping core; nothing catches it
// to carry on.
void CheckFailed(const char* file, int line, const char* cond, const char* msg) {
  throw InternalError(fmt::format("{}:{}: CHECK({}) failed {}", file, line, cond, msg));
}
}  // namespace spmdc::internal

#include "support/check.h"

namespace spmdc::internal {
void CheckFailed(const char* file, int line, const char* cond, const char* msg) {
  std::fprintf(stderr, "spmdc internal error: %s:%d: CHECK(%s) failed %s\n", file, line, cond, msg);
  std::abort();
}
}  // namespace spmdc::internal

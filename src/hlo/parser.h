// HLO text -> Module. Accepts what XLA's own test modules and JAX dumps contain (GSPMD.md §4).
// Errors are InvalidArgument statuses whose message is a located diagnostic:
//   file:line:col: error: what was expected
//   <the source line>
//        ^
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/module.h"
#include "support/status.h"

namespace spmdc {

struct ParseOptions {
  // Refuse arrays whose element count exceeds this (a clear error instead of exhausting memory
  // when a constant or a shape is absurd). Shapes of non-constant instructions are only checked
  // against int64 overflow; the interpreter enforces its own limit when allocating.
  int64_t max_constant_elements = int64_t{1} << 31;
  // Elided constants (`{...}`) and one-element array constants (`f32[9] constant(0)`) cost no
  // text, so their buffers are also capped in bytes.
  int64_t max_elided_constant_bytes = int64_t{1} << 30;
  // Where warnings go (located diagnostics with severity "warning"), e.g. stack-frame ids that
  // point nowhere, which XLA also accepts and drops. Null: warnings are discarded.
  std::vector<std::string>* warnings = nullptr;
  // Rewrite Shardy's `xla.sdy.*` attributes and custom calls into shardings (shardy_import.h).
  bool import_shardy = true;
};

StatusOr<std::unique_ptr<Module>> ParseHloModule(std::string_view text,
                                                 std::string_view filename = "<input>",
                                                 const ParseOptions& options = {});

// Parses a shape such as "f32[2,3]{1,0}" or "(s32[], token[])".
StatusOr<Shape> ParseShape(std::string_view text);

}  // namespace spmdc

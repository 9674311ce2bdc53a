// StableHLO MLIR text in (issue 15 item 1): modules as `jax.jit(f).lower(...).as_text()` prints
// them, with Shardy (`sdy.mesh`, `sdy.sharding`, `sdy.sharding_constraint`,
// `sdy.manual_computation`) or GSPMD (`mhlo.sharding`) annotations, read into the same Module the
// HLO parser produces.
//
// How: the reader translates the MLIR, op by op, into the HLO text JAX's own HLO export would
// print (Shardy annotations as `xla.sdy.*` frontend attributes and custom calls), and hands it to
// ParseHloModule, so that one parser, one verifier and one Shardy import (shardy_import.h) define
// what a module means whichever form it came in. Every generated HLO line remembers the MLIR
// offset of the op it came from; an error the HLO parser reports is re-located onto the .mlir.
//
// Errors: malformed MLIR is InvalidArgument with a located diagnostic (file:line:col, exit 2);
// an op with no HLO equivalent, or not handled yet, is Unimplemented, located, naming the op
// (exit 3). `loc(...)` locations become metadata (op_name, source_file, source_line).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "hlo/parser.h"
#include "ir/module.h"
#include "support/status.h"

namespace spmdc {

// The HLO text the MLIR module translates to (exposed for tests and for debugging a translation).
StatusOr<std::string> TranslateStableHloToHloText(std::string_view text, std::string_view filename);

StatusOr<std::unique_ptr<Module>> ParseStableHlo(std::string_view text,
                                                 std::string_view filename = "<input>",
                                                 const ParseOptions& options = {});

// True when `text` (of `filename`) is StableHLO MLIR: a `.mlir` name, or text whose first token
// is `module`, `func.func` or `#loc` rather than `HloModule`.
bool LooksLikeStableHlo(std::string_view text, std::string_view filename);

// The CLI's module loading: StableHLO or HLO text, picked by LooksLikeStableHlo.
StatusOr<std::unique_ptr<Module>> ParseModuleText(std::string_view text, std::string_view filename,
                                                  const ParseOptions& options = {});

}  // namespace spmdc

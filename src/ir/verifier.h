// The verifier: checks a Module's structural invariants and that every instruction's declared
// shape equals the shape inferred from its operands and attributes (shape_inference.h).
// User-facing: errors are InvalidArgument located diagnostics when a DiagnosticSource is given
// (file:line:col of the offending instruction, the line, a caret).
#pragma once

#include <string_view>

#include "ir/module.h"
#include "support/status.h"

namespace spmdc {

struct DiagnosticSource {
  std::string_view filename;
  std::string_view text;
};

struct VerifierOptions {
  // Allow ops spmdc inserts after partitioning (e.g. collectives with any group layout).
  bool allow_mixed_precision = true;
};

Status VerifyModule(const Module& module, const DiagnosticSource* source = nullptr,
                    const VerifierOptions& options = {});

}  // namespace spmdc

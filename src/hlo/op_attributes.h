// Which attributes each opcode takes in HLO text, and which it must have: the per-opcode
// attribute sets of XLA's parser (CreateInstruction in xla/hlo/parser/hlo_parser.cc), so that
// spmdc rejects exactly what XLA rejects ("unexpected attribute", "attribute X is expected but
// not seen") instead of keeping unknown attributes verbatim.
//
// Keyed by the opcode's text name (not the Opcode enum) so that a row may exist before the
// opcode table has the opcode; an opcode without a row accepts any attribute.
// The attribute *syntax* (kind) stays in ir/attributes.def; names absent there are kept as raw
// text. Rules that depend on operands (broadcast of a scalar needs no dimensions; a conditional
// takes true/false computations for a pred index and branch_computations for an s32 one) are
// applied by the parser.
#pragma once

#include <string_view>
#include <vector>

namespace spmdc::hlo {

struct OpAttributes {
  std::vector<std::string_view> required;
  std::vector<std::string_view> optional;
  // XLA cannot infer the result shape: the text must give it (CanInferShape == false).
  bool needs_shape = false;
};

// The row for an opcode name ("all-gather", "custom-call"), or null when there is none.
const OpAttributes* OpAttributesFor(std::string_view opcode_name);

// Attributes every instruction may carry (sharding, metadata, backend_config, ...).
bool IsCommonAttribute(std::string_view name);

// Whether `name` may appear on an instruction of `row` (null row: anything may).
bool IsAllowedAttribute(const OpAttributes* row, std::string_view name);

// Attributes of the async wrapper itself (X-start/X-update/X-done and async-start/...).
bool IsAsyncWrapperAttribute(std::string_view name, bool is_start);

}  // namespace spmdc::hlo

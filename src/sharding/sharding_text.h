// The text form of shardings (GSPMD.md §1.3): parsing every form XLA's HLO parser accepts,
// printing the canonical one (Sharding::ToString). XLA's named (mesh) shardings are read as their
// tile-based equivalent (XLA's V3ToV2Sharding), so they print in the tile-based form.
#pragma once

#include <string_view>

#include "sharding/sharding.h"
#include "support/status.h"

namespace spmdc {

// Parses the value of a `sharding=` attribute, starting at its '{' and spanning all of `text`
// (trailing whitespace allowed). On error returns InvalidArgument with an unlocated message and,
// if `error_offset` is given, the byte offset in `text` where the problem is.
StatusOr<Sharding> ParseSharding(std::string_view text, size_t* error_offset = nullptr);

}  // namespace spmdc

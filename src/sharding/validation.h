// Validation of shardings against shapes and device counts (GSPMD.md §1.3 "Validate"), and a
// module-wide check that locates errors at the offending instruction.
#pragma once

#include <cstdint>
#include <optional>

#include "ir/module.h"
#include "ir/verifier.h"  // DiagnosticSource
#include "sharding/sharding.h"
#include "support/status.h"

namespace spmdc {

// Checks that `sharding` can describe a value of `shape` on `num_devices` devices:
//   * tiled: more than one device; ids non-negative, < num_devices and unique; every device used
//     (the array holds exactly num_devices ids); data tile rank == shape rank;
//   * maximal: 0 <= device < num_devices;
//   * tuple: the shape is a tuple with as many leaves as elements (an empty tuple may carry one
//     entry), each leaf valid; a non-tuple sharding on a tuple shape applies to every leaf;
//   * replicated / manual / unknown: always valid; tokens accept anything (tuples too).
// num_devices <= 0 means "unknown": range and every-device-used checks are skipped.
// Errors are InvalidArgument with a message naming the sharding and the shape.
Status ValidateSharding(const Sharding& sharding, const Shape& shape, int64_t num_devices);

// Validates every instruction's sharding against its shape and `num_devices` (default: the
// module's num_partitions when its header sets it, otherwise unknown), and refuses (Unimplemented)
// the valid shardings spmdc's passes do not handle: unreduced ones. With `source`, errors are
// located diagnostics (file:line:col, the line, a caret) at the instruction.
Status VerifyModuleShardings(const Module& module, const DiagnosticSource* source = nullptr,
                             std::optional<int64_t> num_devices = std::nullopt);

}  // namespace spmdc

// Reading and writing NumPy .npy files (format versions 1.0-3.0, little-endian, C order) as
// Literals. Types numpy lacks (bf16, the f8 family, s2/s4/u2/u4) are written as float32 / int8
// / uint8 arrays, and .npy data of another numeric type is converted (with nearest-even
// rounding) to the dtype the caller asks for.
#pragma once

#include <string>
#include <vector>

#include "ir/literal.h"
#include "support/status.h"

namespace spmdc {

// Reads `path` and converts it to an array of `want` (dims must match exactly).
StatusOr<Literal> ReadNpy(const std::string& path, const Shape& want);
// Reads only the box [lo, hi) of the array in `path` (which must have `want`'s dims), seeking to
// each contiguous run, converted to `want`'s dtype, into a zero array of `out_shape` (want's
// dtype, dims at least hi - lo) at its origin: the whole array is never in memory.
StatusOr<Literal> ReadNpyBox(const std::string& path, const Shape& want,
                             const std::vector<int64_t>& lo, const std::vector<int64_t>& hi,
                             const Shape& out_shape);
// Writes an array literal to `path` (atomically: a temporary file renamed into place).
Status WriteNpy(const std::string& path, const Literal& value);

}  // namespace spmdc

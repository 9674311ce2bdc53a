// Narrow floating-point formats stored as bits (f16, bf16, the f8 family), with conversions to and
// from float that round to nearest even, as XLA's convert does. Arithmetic on these types is done
// in float and rounded once on store.
#pragma once

#include <cstdint>

#include "ir/dtype.h"

namespace spmdc {

// Storage wrappers, so that templates can tell the formats apart.
struct half_bits { uint16_t bits; };
struct bf16_bits { uint16_t bits; };
struct f8_bits { uint8_t bits; };

uint16_t FloatToHalf(float f);
float HalfToFloat(uint16_t h);
uint16_t FloatToBF16(float f);
float BF16ToFloat(uint16_t b);
// `t` is one of the IsF8 dtypes. Values out of range become inf where the format has it, else NaN
// (saturation is not XLA's convert semantics for f8); f4e2m1fn (no inf, no NaN) saturates and
// f8e8m0fnu (powers of two) follows XLA's own rules, see float_types.cc.
uint8_t FloatToF8(DType t, float f);
float F8ToFloat(DType t, uint8_t b);
// Rounds a double to the nearest float of type `t` (f16/bf16/f8/f32/f64) and back, for
// reduce-precision-like rounding and for the interpreter's "compute in wider, store narrow".
double RoundToDType(DType t, double v);

}  // namespace spmdc

#include "ir/float_types.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <vector>

#include "support/check.h"

namespace spmdc {

uint16_t FloatToHalf(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  uint32_t sign = (x >> 16) & 0x8000;
  x &= 0x7fffffff;
  if (x > 0x7f800000) return static_cast<uint16_t>(sign | 0x7e00);   // NaN
  if (x >= 0x477ff000) return static_cast<uint16_t>(sign | 0x7c00);  // >= 65520 -> inf
  if (x <= 0x33000000) return static_cast<uint16_t>(sign);           // <= 2^-25 -> 0 (tie to even)
  int e = static_cast<int>(x >> 23);
  if (e < 113) {  // result is subnormal: count in units of 2^-24
    uint32_t m = (x & 0x7fffff) | 0x800000;
    int shift = 126 - e;
    uint32_t r = m >> shift;
    uint32_t rem = m & ((1u << shift) - 1);
    uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (r & 1))) ++r;
    return static_cast<uint16_t>(sign | r);
  }
  uint32_t r = (static_cast<uint32_t>(e - 112) << 10) | ((x >> 13) & 0x3ff);
  uint32_t rem = x & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (r & 1))) ++r;  // a carry into the exponent is correct
  return static_cast<uint16_t>(sign | r);
}

float HalfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t e = (h >> 10) & 0x1f;
  uint32_t m = h & 0x3ff;
  if (e == 0x1f) return std::bit_cast<float>(sign | 0x7f800000 | (m << 13));
  if (e == 0) {
    float v = std::ldexp(static_cast<float>(m), -24);
    return sign ? -v : v;
  }
  return std::bit_cast<float>(sign | ((e + 112) << 23) | (m << 13));
}

uint16_t FloatToBF16(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffff) > 0x7f800000) return static_cast<uint16_t>((x >> 16) | 0x40);  // quiet NaN
  uint32_t rounding = 0x7fff + ((x >> 16) & 1);
  return static_cast<uint16_t>((x + rounding) >> 16);
}

float BF16ToFloat(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

namespace {

// Parameters of the 8-bit float formats.
struct F8Format {
  int exponent_bits, mantissa_bits, bias;
  enum Kind { kIeee, kFiniteNanAllOnes, kFnuz } kind;
};

F8Format FormatOf(DType t) {
  switch (t) {
    case DType::kF8E5M2: return {5, 2, 15, F8Format::kIeee};
    case DType::kF8E4M3: return {4, 3, 7, F8Format::kIeee};
    case DType::kF8E3M4: return {3, 4, 3, F8Format::kIeee};
    case DType::kF8E4M3FN: return {4, 3, 7, F8Format::kFiniteNanAllOnes};
    case DType::kF8E4M3FNUZ: return {4, 3, 8, F8Format::kFnuz};
    case DType::kF8E5M2FNUZ: return {5, 2, 16, F8Format::kFnuz};
    case DType::kF8E4M3B11FNUZ: return {4, 3, 11, F8Format::kFnuz};
    default: SPMDC_CHECK_MSG(false, "not an f8 type");
  }
  return {};
}

float DecodeF8(const F8Format& f, uint8_t b) {
  bool neg = b & 0x80;
  int e = (b >> f.mantissa_bits) & ((1 << f.exponent_bits) - 1);
  int m = b & ((1 << f.mantissa_bits) - 1);
  int emax = (1 << f.exponent_bits) - 1;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  switch (f.kind) {
    case F8Format::kIeee:
      if (e == emax) return m ? nan : (neg ? -INFINITY : INFINITY);
      break;
    case F8Format::kFiniteNanAllOnes:
      if (e == emax && m == (1 << f.mantissa_bits) - 1) return nan;
      break;
    case F8Format::kFnuz:
      if (b == 0x80) return nan;
      break;
  }
  float v = e == 0 ? std::ldexp(static_cast<float>(m), 1 - f.bias - f.mantissa_bits)
                   : std::ldexp(static_cast<float>(m + (1 << f.mantissa_bits)),
                                e - f.bias - f.mantissa_bits);
  return neg ? -v : v;
}

// Decoded values of the non-negative finite codes of one format, in code order (which is also
// value order), for nearest-even encoding by search.
struct F8Table {
  F8Format format;
  std::vector<float> values;  // values[code] for codes 0..max_finite_code
  uint8_t nan_code, inf_code;
  bool has_inf;
};

const F8Table& TableOf(DType t) {
  static const auto* tables = [] {
    auto* m = new std::array<F8Table, 32>();
    for (DType d : {DType::kF8E5M2, DType::kF8E4M3, DType::kF8E3M4, DType::kF8E4M3FN,
                    DType::kF8E4M3FNUZ, DType::kF8E5M2FNUZ, DType::kF8E4M3B11FNUZ}) {
      F8Table& tab = (*m)[static_cast<int>(d)];
      tab.format = FormatOf(d);
      for (int c = 0; c < 128; ++c) {
        float v = DecodeF8(tab.format, static_cast<uint8_t>(c));
        if (!std::isfinite(v)) break;
        tab.values.push_back(v);
      }
      tab.has_inf = tab.format.kind == F8Format::kIeee;
      int emax = (1 << tab.format.exponent_bits) - 1;
      tab.inf_code = static_cast<uint8_t>(emax << tab.format.mantissa_bits);
      tab.nan_code = tab.format.kind == F8Format::kFnuz ? 0x80
                     : tab.format.kind == F8Format::kIeee
                         ? static_cast<uint8_t>(tab.inf_code | (1 << (tab.format.mantissa_bits - 1)))
                         : 0x7f;
    }
    return m;
  }();
  return (*tables)[static_cast<int>(t)];
}

// f4e2m1fn: sign in bit 3, 2 exponent bits (bias 1), 1 mantissa bit; no inf, no NaN. Its
// non-negative codes 0..7 are 0, 0.5, 1, 1.5, 2, 3, 4, 6.
constexpr float kF4E2M1FNValues[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};

// XLA's convert to f4e2m1fn: nearest, ties to the even code; |f| beyond 6 (inf too) saturates to
// +-6; NaN has no code and becomes -0 (XLA's choice, "undefined").
uint8_t FloatToF4E2M1FN(float f) {
  if (std::isnan(f)) return 0x8;
  uint8_t sign = std::signbit(f) ? 0x8 : 0;
  float a = std::fabs(f);
  uint8_t code = 7;
  for (uint8_t c = 0; c < 7; ++c) {
    float mid = (kF4E2M1FNValues[c] + kF4E2M1FNValues[c + 1]) / 2;
    if (a < mid || (a == mid && c % 2 == 0)) {
      code = c;
      break;
    }
  }
  return sign | code;
}

// f8e8m0fnu: an unsigned power of two 2^(code-127); code 0xff is NaN; no zero, no inf. XLA's
// convert rounds the mantissa half up (x >= 1.5 * 2^e gives 2^(e+1)); zero, negatives, NaN and
// values from 1.5 * 2^127 up become NaN; values up to 2^-127 become the smallest code.
uint8_t FloatToF8E8M0FNU(float f) {
  int32_t bits = std::bit_cast<int32_t>(f);
  if (bits <= 0 || bits >= 0x7F400000) return 0xff;
  if (bits <= 0x400000) return 0;
  return static_cast<uint8_t>((bits + 0x400000) >> 23);
}

float F8E8M0FNUToFloat(uint8_t b) {
  if (b == 0xff) return std::numeric_limits<float>::quiet_NaN();
  if (b == 0) return std::bit_cast<float>(uint32_t{0x400000});  // 2^-127, a float denormal
  return std::bit_cast<float>(static_cast<uint32_t>(b) << 23);
}

}  // namespace

uint8_t FloatToF8(DType t, float f) {
  if (t == DType::kF4E2M1FN) return FloatToF4E2M1FN(f);
  if (t == DType::kF8E8M0FNU) return FloatToF8E8M0FNU(f);
  const F8Table& tab = TableOf(t);
  if (std::isnan(f)) return tab.nan_code;
  bool neg = std::signbit(f);
  float a = std::fabs(f);
  const std::vector<float>& v = tab.values;
  float max_finite = v.back();
  // Half an ulp above the largest finite value rounds away (to inf, or NaN without inf).
  float ulp = v.back() - v[v.size() - 2];
  uint8_t code;
  if (a >= max_finite + ulp / 2 && !(a == max_finite + ulp / 2 && ((v.size() - 1) % 2 == 0))) {
    if (!tab.has_inf) return tab.nan_code;
    code = tab.inf_code;
  } else if (a >= max_finite) {
    code = static_cast<uint8_t>(v.size() - 1);
  } else {
    size_t hi = std::upper_bound(v.begin(), v.end(), a) - v.begin();  // v[hi-1] <= a < v[hi]
    size_t lo = hi - 1;
    float dlo = a - v[lo], dhi = v[hi] - a;
    code = static_cast<uint8_t>(dlo < dhi ? lo : dhi < dlo ? hi : (lo % 2 == 0 ? lo : hi));
  }
  if (neg) {
    if (tab.format.kind == F8Format::kFnuz) return code == 0 ? 0 : code | 0x80;  // no -0
    code |= 0x80;
  }
  return code;
}

float F8ToFloat(DType t, uint8_t b) {
  if (t == DType::kF4E2M1FN) {
    float v = kF4E2M1FNValues[b & 0x7];
    return (b & 0x8) ? -v : v;
  }
  if (t == DType::kF8E8M0FNU) return F8E8M0FNUToFloat(b);
  return DecodeF8(FormatOf(t), b);
}

double RoundToDType(DType t, double v) {
  switch (t) {
    case DType::kF64: return v;
    case DType::kF32: return static_cast<float>(v);
    case DType::kF16: return HalfToFloat(FloatToHalf(static_cast<float>(v)));
    case DType::kBF16: return BF16ToFloat(FloatToBF16(static_cast<float>(v)));
    default:
      if (IsF8(t)) return F8ToFloat(t, FloatToF8(t, static_cast<float>(v)));
      return v;
  }
}

}  // namespace spmdc

// Compile-time element-type traits for the interpreter's typed loops.
//
// Every array dtype D has a storage type S (what a Literal buffer holds, see ir/dtype.h) and a
// compute type C (what arithmetic runs in): narrow floats (f16, bf16, f8) compute in float and are
// rounded once on Store; sub-byte integers compute in their 8-bit container and are wrapped to
// their width on Store; pred computes in uint8 and stores (v != 0). Loops are written as
//   out[i] = Traits<DO>::Store(op(Traits<DI>::Load(in[i])))
// so that for f32/s32/... Load and Store vanish and the compiler vectorises the loop.
#pragma once

#include <cmath>

#include <bit>
#include <complex>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "ir/dtype.h"
#include "ir/float_types.h"
#include "support/check.h"

namespace spmdc::interp {

template <DType D>
using DTag = std::integral_constant<DType, D>;

// Bit-exact inline fast paths for the 16-bit floats (same rounding as float_types.cc).
inline float Bf16Load(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }
inline uint16_t Bf16Store(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffff) > 0x7f800000) return static_cast<uint16_t>((x >> 16) | 0x40);
  uint32_t rounding = 0x7fff + ((x >> 16) & 1);
  return static_cast<uint16_t>((x + rounding) >> 16);
}

template <DType D, typename Enable = void>
struct Traits;

template <typename St, typename Ct, int kBitsV, DTypeFamily kFam>
struct TraitsBase {
  using S = St;
  using C = Ct;
  static constexpr int kBits = kBitsV;
  static constexpr DTypeFamily kFamily = kFam;
  static constexpr bool kIsFloat = kFam == DTypeFamily::kFloat;
  static constexpr bool kIsComplex = kFam == DTypeFamily::kComplex;
  static constexpr bool kIsSigned = kFam == DTypeFamily::kSigned;
  static constexpr bool kIsUnsigned = kFam == DTypeFamily::kUnsigned;
  static constexpr bool kIsInt = kIsSigned || kIsUnsigned;
  static constexpr bool kIsPred = kFam == DTypeFamily::kBool;
};

// Plain integers and the wide floats: storage == compute.
#define SPMDC_PLAIN_TRAITS(D, T, BITS, FAM)                              \
  template <>                                                            \
  struct Traits<DType::D> : TraitsBase<T, T, BITS, DTypeFamily::FAM> {   \
    static T Load(T s) { return s; }                                     \
    static T Store(T c) { return c; }                                    \
  };
SPMDC_PLAIN_TRAITS(kS8, int8_t, 8, kSigned)
SPMDC_PLAIN_TRAITS(kS16, int16_t, 16, kSigned)
SPMDC_PLAIN_TRAITS(kS32, int32_t, 32, kSigned)
SPMDC_PLAIN_TRAITS(kS64, int64_t, 64, kSigned)
SPMDC_PLAIN_TRAITS(kU8, uint8_t, 8, kUnsigned)
SPMDC_PLAIN_TRAITS(kU16, uint16_t, 16, kUnsigned)
SPMDC_PLAIN_TRAITS(kU32, uint32_t, 32, kUnsigned)
SPMDC_PLAIN_TRAITS(kU64, uint64_t, 64, kUnsigned)
SPMDC_PLAIN_TRAITS(kF32, float, 32, kFloat)
SPMDC_PLAIN_TRAITS(kF64, double, 64, kFloat)
SPMDC_PLAIN_TRAITS(kC64, std::complex<float>, 64, kComplex)
SPMDC_PLAIN_TRAITS(kC128, std::complex<double>, 128, kComplex)
#undef SPMDC_PLAIN_TRAITS

template <>
struct Traits<DType::kPred> : TraitsBase<uint8_t, uint8_t, 1, DTypeFamily::kBool> {
  static uint8_t Load(uint8_t s) { return s; }
  static uint8_t Store(uint8_t c) { return c != 0; }
};

// Sub-byte integers: stored unpacked, signed ones sign-extended.
template <int kW>
struct SubByteSigned : TraitsBase<int8_t, int8_t, kW, DTypeFamily::kSigned> {
  static int8_t Load(int8_t s) { return s; }
  static int8_t Store(int8_t c) {
    return static_cast<int8_t>(static_cast<int8_t>(static_cast<uint8_t>(c) << (8 - kW)) >> (8 - kW));
  }
};
template <int kW>
struct SubByteUnsigned : TraitsBase<uint8_t, uint8_t, kW, DTypeFamily::kUnsigned> {
  static uint8_t Load(uint8_t s) { return s; }
  static uint8_t Store(uint8_t c) { return static_cast<uint8_t>(c & ((1u << kW) - 1)); }
};
template <> struct Traits<DType::kS1> : SubByteSigned<1> {};
template <> struct Traits<DType::kS2> : SubByteSigned<2> {};
template <> struct Traits<DType::kS4> : SubByteSigned<4> {};
template <> struct Traits<DType::kU1> : SubByteUnsigned<1> {};
template <> struct Traits<DType::kU2> : SubByteUnsigned<2> {};
template <> struct Traits<DType::kU4> : SubByteUnsigned<4> {};

template <>
struct Traits<DType::kF16> : TraitsBase<uint16_t, float, 16, DTypeFamily::kFloat> {
  static float Load(uint16_t s) { return HalfToFloat(s); }
  static uint16_t Store(float c) { return FloatToHalf(c); }
};
template <>
struct Traits<DType::kBF16> : TraitsBase<uint16_t, float, 16, DTypeFamily::kFloat> {
  static float Load(uint16_t s) { return Bf16Load(s); }
  static uint16_t Store(float c) { return Bf16Store(c); }
};
template <DType D, int kBitsV = 8>
struct F8Traits : TraitsBase<uint8_t, float, kBitsV, DTypeFamily::kFloat> {
  static float Load(uint8_t s) { return F8ToFloat(D, s); }
  static uint8_t Store(float c) { return FloatToF8(D, c); }
};
template <> struct Traits<DType::kF8E5M2> : F8Traits<DType::kF8E5M2> {};
template <> struct Traits<DType::kF8E4M3FN> : F8Traits<DType::kF8E4M3FN> {};
template <> struct Traits<DType::kF8E4M3B11FNUZ> : F8Traits<DType::kF8E4M3B11FNUZ> {};
template <> struct Traits<DType::kF8E5M2FNUZ> : F8Traits<DType::kF8E5M2FNUZ> {};
template <> struct Traits<DType::kF8E4M3FNUZ> : F8Traits<DType::kF8E4M3FNUZ> {};
template <> struct Traits<DType::kF8E4M3> : F8Traits<DType::kF8E4M3> {};
template <> struct Traits<DType::kF8E3M4> : F8Traits<DType::kF8E3M4> {};
template <> struct Traits<DType::kF4E2M1FN> : F8Traits<DType::kF4E2M1FN, 4> {};
template <> struct Traits<DType::kF8E8M0FNU> : F8Traits<DType::kF8E8M0FNU> {};

// XLA's maximum/minimum on floats: NaN wins (propagates), otherwise the usual order.
template <typename C>
inline C NanMax(C a, C b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  return a > b ? a : b;
}
template <typename C>
inline C NanMin(C a, C b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  return a < b ? a : b;
}

// Calls f(DTag<D>{}) for the array dtype `t`. `t` must be an array dtype.
template <typename F>
decltype(auto) DispatchDType(DType t, F&& f) {
  switch (t) {
#define SPMDC_DISPATCH_CASE(e, name, bytes, family) \
  case DType::e:                                    \
    if constexpr (DTypeFamily::family != DTypeFamily::kOther) return f(DTag<DType::e>{});
    SPMDC_DTYPE_LIST(SPMDC_DISPATCH_CASE)
#undef SPMDC_DISPATCH_CASE
    default:
      break;
  }
  SPMDC_CHECK_MSG(false, "DispatchDType: not an array dtype");
  return f(DTag<DType::kF32>{});
}

// Bit pattern of an element as an unsigned integer of its storage width (sub-byte types masked).
template <DType D>
uint64_t StorageBits(typename Traits<D>::S s) {
  using S = typename Traits<D>::S;
  if constexpr (std::is_same_v<S, std::complex<float>> || std::is_same_v<S, std::complex<double>>) {
    return 0;  // not meaningful
  } else {
    uint64_t v = 0;
    std::memcpy(&v, &s, sizeof(S));
    if constexpr (Traits<D>::kBits < 8) v &= (uint64_t{1} << Traits<D>::kBits) - 1;
    return v;
  }
}

}  // namespace spmdc::interp

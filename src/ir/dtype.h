// Element types of HLO arrays (XLA's PrimitiveType), with their text names and storage sizes.
//
// Storage convention for Literal buffers (one element per slot, row-major):
//   pred, s1/s2/s4/u1/u2/u4, s8/u8, all f8 variants and f4e2m1fn: 1 byte (sub-byte types are stored
//   unpacked, one value per byte, sign-extended for s1/s2/s4; f4e2m1fn keeps its 4-bit code); f16/bf16: 2 bytes (IEEE half / bfloat16 bits);
//   c64: two f32; c128: two f64. kTuple and kToken have no storage.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace spmdc {

// V(enum, text name, storage bytes, family)
#define SPMDC_DTYPE_LIST(V)          \
  V(kPred, "pred", 1, kBool)         \
  V(kS1, "s1", 1, kSigned)           \
  V(kS2, "s2", 1, kSigned)           \
  V(kS4, "s4", 1, kSigned)           \
  V(kS8, "s8", 1, kSigned)           \
  V(kS16, "s16", 2, kSigned)         \
  V(kS32, "s32", 4, kSigned)         \
  V(kS64, "s64", 8, kSigned)         \
  V(kU1, "u1", 1, kUnsigned)         \
  V(kU2, "u2", 1, kUnsigned)         \
  V(kU4, "u4", 1, kUnsigned)         \
  V(kU8, "u8", 1, kUnsigned)         \
  V(kU16, "u16", 2, kUnsigned)       \
  V(kU32, "u32", 4, kUnsigned)       \
  V(kU64, "u64", 8, kUnsigned)       \
  V(kF16, "f16", 2, kFloat)          \
  V(kBF16, "bf16", 2, kFloat)        \
  V(kF32, "f32", 4, kFloat)          \
  V(kF64, "f64", 8, kFloat)          \
  V(kF8E5M2, "f8e5m2", 1, kFloat)    \
  V(kF8E4M3FN, "f8e4m3fn", 1, kFloat) \
  V(kF8E4M3B11FNUZ, "f8e4m3b11fnuz", 1, kFloat) \
  V(kF8E5M2FNUZ, "f8e5m2fnuz", 1, kFloat) \
  V(kF8E4M3FNUZ, "f8e4m3fnuz", 1, kFloat) \
  V(kF8E4M3, "f8e4m3", 1, kFloat)    \
  V(kF8E3M4, "f8e3m4", 1, kFloat)    \
  V(kF4E2M1FN, "f4e2m1fn", 1, kFloat) \
  V(kF8E8M0FNU, "f8e8m0fnu", 1, kFloat) \
  V(kC64, "c64", 8, kComplex)        \
  V(kC128, "c128", 16, kComplex)     \
  V(kToken, "token", 0, kOther)      \
  V(kTuple, "tuple", 0, kOther)

enum class DType : uint8_t {
#define SPMDC_DTYPE_ENUM(e, name, bytes, family) e,
  SPMDC_DTYPE_LIST(SPMDC_DTYPE_ENUM)
#undef SPMDC_DTYPE_ENUM
};

enum class DTypeFamily : uint8_t { kBool, kSigned, kUnsigned, kFloat, kComplex, kOther };

std::string_view DTypeName(DType t);
std::optional<DType> DTypeFromName(std::string_view name);
int DTypeByteSize(DType t);  // storage bytes per element (0 for tuple/token)
DTypeFamily DTypeFamilyOf(DType t);
// Bit width of the value (s4 -> 4, pred -> 8 as in XLA's primitive_util::BitWidth for pred? no: 1).
int DTypeBitWidth(DType t);

inline bool IsFloat(DType t) { return DTypeFamilyOf(t) == DTypeFamily::kFloat; }
inline bool IsComplex(DType t) { return DTypeFamilyOf(t) == DTypeFamily::kComplex; }
inline bool IsSigned(DType t) { return DTypeFamilyOf(t) == DTypeFamily::kSigned; }
inline bool IsUnsigned(DType t) { return DTypeFamilyOf(t) == DTypeFamily::kUnsigned; }
inline bool IsInteger(DType t) { return IsSigned(t) || IsUnsigned(t); }
inline bool IsArrayType(DType t) { return t != DType::kTuple && t != DType::kToken; }
// The narrow floats converted through float_types' F8 functions: the f8 family and the MX types
// f4e2m1fn and f8e8m0fnu (one byte of storage each).
bool IsF8(DType t);
// The real component type of a complex type (c64 -> f32, c128 -> f64).
DType ComplexComponentType(DType t);

}  // namespace spmdc

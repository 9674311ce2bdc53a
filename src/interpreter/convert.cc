// convert, bitcast-convert and reduce-precision.
//
// convert goes through a wide intermediate per source family (int64 for pred and integers,
// double for floats, complex<double> for complex), in chunks, so that every (from, to) pair is
// covered by 3 x N store loops instead of N x N. Rounding to a narrow float from double or int64
// first rounds to float with round-to-odd, which makes the second rounding (to f16/bf16/f8) exact
// nearest-even: one correct rounding overall. float -> int saturates, NaN -> 0.
#include <bit>
#include <cfloat>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>

#include "interpreter/dtype_traits.h"
#include "interpreter/ops.h"

// The typed loops below must vectorise; GCC's -O2 cost model ("very cheap") refuses loops with
// an unknown trip count, so this file is built at O3.
#pragma GCC optimize("O3")

namespace spmdc::interp {
namespace {

// Rounds to float with round-to-odd (the float nearest towards zero, made odd if inexact).
float RoundToOddFloat(long double v) {
  float f = static_cast<float>(v);
  if (std::isnan(v) || static_cast<long double>(f) == v) return f;
  if (std::isinf(f)) return std::copysign(FLT_MAX, f);
  if (std::fabs(static_cast<long double>(f)) > std::fabs(v)) f = std::nextafter(f, 0.0f);
  uint32_t bits = std::bit_cast<uint32_t>(f);
  return std::bit_cast<float>(bits | 1u);
}

template <DType D>
constexpr bool kNarrowFloat = Traits<D>::kIsFloat && D != DType::kF32 && D != DType::kF64;

// Stores from the wide intermediates.
template <DType D>
typename Traits<D>::S FromInt(int64_t v, bool is_u64) {
  using T = Traits<D>;
  using C = typename T::C;
  if constexpr (T::kIsPred) {
    return v != 0;
  } else if constexpr (T::kIsInt) {
    return T::Store(static_cast<C>(v));
  } else if constexpr (T::kIsComplex) {
    using R = typename C::value_type;
    R r = is_u64 ? static_cast<R>(static_cast<uint64_t>(v)) : static_cast<R>(v);
    return C(r, 0);
  } else if constexpr (D == DType::kF32 || D == DType::kF64) {
    return is_u64 ? static_cast<C>(static_cast<uint64_t>(v)) : static_cast<C>(v);
  } else {
    long double l = is_u64 ? static_cast<long double>(static_cast<uint64_t>(v))
                           : static_cast<long double>(v);
    return T::Store(RoundToOddFloat(l));
  }
}

template <DType D>
typename Traits<D>::S FromDouble(double d) {
  using T = Traits<D>;
  using C = typename T::C;
  if constexpr (T::kIsPred) {
    return d != 0;
  } else if constexpr (T::kIsInt) {
    if (std::isnan(d)) return 0;
    constexpr int kBits = T::kBits;
    if constexpr (T::kIsSigned) {
      const double lo = -std::ldexp(1.0, kBits - 1);
      const double hi = std::ldexp(1.0, kBits - 1);  // exclusive
      if (d <= lo) return T::Store(static_cast<C>(std::numeric_limits<int64_t>::min() >> (64 - kBits)));
      if (d >= hi) return T::Store(static_cast<C>(std::numeric_limits<int64_t>::max() >> (64 - kBits)));
      return T::Store(static_cast<C>(static_cast<int64_t>(d)));
    } else {
      const double hi = std::ldexp(1.0, kBits);
      if (d <= -1.0) return 0;
      if (d >= hi) return T::Store(static_cast<C>(std::numeric_limits<uint64_t>::max() >> (64 - kBits)));
      return T::Store(static_cast<C>(static_cast<uint64_t>(d < 0 ? 0.0 : d)));
    }
  } else if constexpr (T::kIsComplex) {
    using R = typename C::value_type;
    return C(static_cast<R>(d), 0);
  } else if constexpr (D == DType::kF32 || D == DType::kF64) {
    return static_cast<C>(d);
  } else {
    return T::Store(RoundToOddFloat(d));
  }
}

template <DType D>
typename Traits<D>::S FromComplex(std::complex<double> c) {
  using T = Traits<D>;
  using C = typename T::C;
  if constexpr (T::kIsComplex) {
    using R = typename C::value_type;
    return C(static_cast<R>(c.real()), static_cast<R>(c.imag()));
  } else if constexpr (T::kIsPred) {
    return c != std::complex<double>(0, 0);
  } else {
    return FromDouble<D>(c.real());
  }
}

enum class WideKind { kInt, kDouble, kComplex };

struct WideChunk {
  WideKind kind;
  bool is_u64 = false;
  std::vector<int64_t> ints;
  std::vector<double> doubles;
  std::vector<std::complex<double>> complexes;
};

template <DType D>
void LoadWide(const Literal& in, int64_t begin, int64_t count, WideChunk& w) {
  using T = Traits<D>;
  const auto* p = in.data<typename T::S>() + begin;
  if constexpr (T::kIsComplex) {
    for (int64_t i = 0; i < count; ++i) w.complexes[i] = std::complex<double>(p[i].real(), p[i].imag());
  } else if constexpr (T::kIsFloat) {
    for (int64_t i = 0; i < count; ++i) w.doubles[i] = static_cast<double>(T::Load(p[i]));
  } else {
    for (int64_t i = 0; i < count; ++i) w.ints[i] = static_cast<int64_t>(T::Load(p[i]));
  }
}

template <DType D>
void StoreWide(const WideChunk& w, Literal& out, int64_t begin, int64_t count) {
  auto* p = out.mutable_data<typename Traits<D>::S>() + begin;
  switch (w.kind) {
    case WideKind::kInt:
      for (int64_t i = 0; i < count; ++i) p[i] = FromInt<D>(w.ints[i], w.is_u64);
      break;
    case WideKind::kDouble:
      for (int64_t i = 0; i < count; ++i) p[i] = FromDouble<D>(w.doubles[i]);
      break;
    case WideKind::kComplex:
      for (int64_t i = 0; i < count; ++i) p[i] = FromComplex<D>(w.complexes[i]);
      break;
  }
}

// Direct loops for the common conversions among f32/bf16/f16 (widening to float is exact).
template <DType DI, DType DO>
void FloatToFloat(const Literal& in, Literal& out) {
  const auto* pi = in.data<typename Traits<DI>::S>();
  auto* po = out.mutable_data<typename Traits<DO>::S>();
  ParallelFor(in.num_elements(), sizeof(*pi) + sizeof(*po), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) po[i] = Traits<DO>::Store(Traits<DI>::Load(pi[i]));
  });
}

bool FastFloatConvert(const Literal& in, Literal& out) {
  DType a = in.shape().dtype(), b = out.shape().dtype();
  auto is_fast = [](DType t) { return t == DType::kF32 || t == DType::kBF16 || t == DType::kF16; };
  if (!is_fast(a) || !is_fast(b)) return false;
  auto inner = [&](auto ti) {
    constexpr DType DI = decltype(ti)::value;
    switch (b) {
      case DType::kF32: FloatToFloat<DI, DType::kF32>(in, out); break;
      case DType::kBF16: FloatToFloat<DI, DType::kBF16>(in, out); break;
      default: FloatToFloat<DI, DType::kF16>(in, out); break;
    }
  };
  switch (a) {
    case DType::kF32: inner(DTag<DType::kF32>{}); break;
    case DType::kBF16: inner(DTag<DType::kBF16>{}); break;
    default: inner(DTag<DType::kF16>{}); break;
  }
  return true;
}

// Reduce-precision on the bit pattern of a float type with `SM` mantissa and `SE` exponent bits.
template <typename U, int SM, int SE, typename F>
F ReducePrecisionBits(F input, int exponent_bits, int mantissa_bits) {
  U x = std::bit_cast<U>(input);
  if (mantissa_bits < SM) {
    const int shift = SM - mantissa_bits;
    const U last_bit_mask = U{1} << shift;
    const U base_bias = (last_bit_mask >> 1) - 1;
    const U last_bit = (x & last_bit_mask) >> shift;
    const U truncation_mask = ~(last_bit_mask - 1);
    x = (x + last_bit + base_bias) & truncation_mask;
  }
  if (exponent_bits < SE) {
    const U exponent_mask = ((U{1} << SE) - 1) << SM;
    const U sign_mask = U{1} << (SM + SE);
    const U src_bias = (U{1} << (SE - 1)) - 1;
    const U reduced_bias = exponent_bits >= 1 ? (U{1} << (exponent_bits - 1)) - 1 : 0;
    const U max_exp = src_bias + reduced_bias;
    const U min_exp = src_bias - reduced_bias;
    const U x_exp = x & exponent_mask;
    const bool overflows = x_exp > (max_exp << SM);
    const bool underflows = x_exp <= (min_exp << SM);
    const U signed_zero = x & sign_mask;
    const U signed_inf = signed_zero | exponent_mask;
    if (overflows) x = signed_inf;
    else if (underflows) x = signed_zero;
  }
  F result = std::bit_cast<F>(x);
  return std::isnan(input) ? input : result;
}

template <DType D>
void ReducePrecisionLoop(const Literal& in, Literal& out, int e, int m) {
  using T = Traits<D>;
  const auto* pi = in.data<typename T::S>();
  auto* po = out.mutable_data<typename T::S>();
  const int64_t n = in.num_elements();
  if constexpr (D == DType::kF64) {
    for (int64_t i = 0; i < n; ++i) po[i] = ReducePrecisionBits<uint64_t, 52, 11>(pi[i], e, m);
  } else if constexpr (T::kIsFloat) {
    for (int64_t i = 0; i < n; ++i)
      po[i] = T::Store(ReducePrecisionBits<uint32_t, 23, 8>(T::Load(pi[i]), e, m));
  }
}

// Element bits of sub-byte-or-wider storage, as a little-endian bit stream.
int StorageBitWidth(DType t) {
  int w = DTypeBitWidth(t);
  return w < 8 && t != DType::kPred ? w : DTypeByteSize(t) * 8;
}

}  // namespace

StatusOr<Literal> ConvertLiteral(const Literal& in, DType to, int64_t max_bytes) {
  if (!in.shape().IsArray() || !IsArrayType(to))
    return InvalidArgument("convert needs array types, got {} -> {}", in.shape().ToString(),
                           DTypeName(to));
  Shape shape = in.shape();
  shape.set_dtype(to);
  shape.set_layout(std::nullopt);
  if (in.shape().dtype() == to) return in.Reshaped(shape);
  ASSIGN_OR_RETURN(Literal out, NewArray(shape, max_bytes));
  if (FastFloatConvert(in, out)) return out;
  const DType from = in.shape().dtype();
  const int64_t n = in.num_elements();
  constexpr int64_t kChunk = 2048;
  WideChunk w;
  w.kind = IsComplex(from) ? WideKind::kComplex : IsFloat(from) ? WideKind::kDouble : WideKind::kInt;
  w.is_u64 = from == DType::kU64;
  const int64_t cap = std::min(n, kChunk);
  if (w.kind == WideKind::kInt) w.ints.resize(cap);
  if (w.kind == WideKind::kDouble) w.doubles.resize(cap);
  if (w.kind == WideKind::kComplex) w.complexes.resize(cap);
  for (int64_t begin = 0; begin < n; begin += kChunk) {
    const int64_t count = std::min(kChunk, n - begin);
    DispatchDType(from, [&](auto t) { LoadWide<decltype(t)::value>(in, begin, count, w); });
    DispatchDType(to, [&](auto t) { StoreWide<decltype(t)::value>(w, out, begin, count); });
  }
  return out;
}

StatusOr<Literal> EvalBitcastConvert(const Instruction& instr, const Literal& in,
                                     int64_t max_bytes) {
  const Shape& shape = instr.shape();
  if (!shape.IsArray() || !in.shape().IsArray())
    return InvalidArgument("bitcast-convert needs arrays");
  const DType from = in.shape().dtype(), to = shape.dtype();
  const int wi = StorageBitWidth(from), wo = StorageBitWidth(to);
  if (in.num_elements() * wi != shape.num_elements() * wo)
    return InvalidArgument("bitcast-convert: {} and {} have different bit sizes",
                           in.shape().ToString(), shape.ToString());
  if (wi % 8 == 0 && wo % 8 == 0) {
    // Byte-addressable on both sides: row-major little-endian bytes are the same buffer.
    Shape s = shape;
    s.set_layout(std::nullopt);
    Literal out = in.BitcastTo(s);
    if (to == DType::kPred && from != DType::kPred) {
      // A pred byte must be 0 or 1; normalise (XLA treats any non-zero byte as true).
      uint8_t* p = out.mutable_data<uint8_t>();
      for (int64_t i = 0; i < out.num_elements(); ++i) p[i] = p[i] != 0;
    }
    return out;
  }
  // Sub-byte: stream bits, element 0 in the lowest bits.
  ASSIGN_OR_RETURN(Literal out, NewArray(shape, max_bytes));
  const int64_t total_bits = in.num_elements() * wi;
  std::vector<uint8_t> bits((total_bits + 7) / 8 + 8, 0);
  const auto* src = reinterpret_cast<const uint8_t*>(in.raw());
  auto put = [&](int64_t bit, uint64_t v, int w) {
    for (int k = 0; k < w; ++k)
      if ((v >> k) & 1) bits[(bit + k) / 8] |= static_cast<uint8_t>(1u << ((bit + k) % 8));
  };
  auto get = [&](int64_t bit, int w) {
    uint64_t v = 0;
    for (int k = 0; k < w; ++k) v |= static_cast<uint64_t>((bits[(bit + k) / 8] >> ((bit + k) % 8)) & 1) << k;
    return v;
  };
  const int bi = DTypeByteSize(from), bo = DTypeByteSize(to);
  for (int64_t i = 0; i < in.num_elements(); ++i) {
    uint64_t v = 0;
    std::memcpy(&v, src + i * bi, bi);
    put(i * wi, v, wi);
  }
  auto* dst = reinterpret_cast<uint8_t*>(out.mutable_raw());
  for (int64_t i = 0; i < out.num_elements(); ++i) {
    uint64_t v = get(i * wo, wo);
    if (wo < 8 && IsSigned(to) && ((v >> (wo - 1)) & 1)) v |= ~uint64_t{0} << wo;  // sign-extend
    std::memcpy(dst + i * bo, &v, bo);
  }
  return out;
}

StatusOr<Literal> EvalReducePrecision(const Instruction& instr, const Literal& in,
                                      int64_t max_bytes) {
  const DType t = in.shape().dtype();
  if (!IsFloat(t)) return InvalidArgument("reduce-precision is defined on floats, not {}", DTypeName(t));
  const int64_t e = instr.int_attr(AttrId::kExponentBits, -1);
  const int64_t m = instr.int_attr(AttrId::kMantissaBits, -1);
  if (e < 1 || m < 0) return InvalidArgument("reduce-precision needs exponent_bits >= 1 and mantissa_bits >= 0");
  ASSIGN_OR_RETURN(Literal out, NewArray(instr.shape(), max_bytes));
  if (out.shape().dtype() != t || out.num_elements() != in.num_elements())
    return InvalidArgument("reduce-precision: result shape must equal the operand shape");
  const int ec = static_cast<int>(std::min<int64_t>(e, 64)), mc = static_cast<int>(std::min<int64_t>(m, 64));
  DispatchDType(t, [&](auto tag) { ReducePrecisionLoop<decltype(tag)::value>(in, out, ec, mc); });
  return out;
}

}  // namespace spmdc::interp

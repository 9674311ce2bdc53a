// Elementwise ops of the reference interpreter: one typed loop per (op, dtype), chosen outside
// the loop, so that the common cases (f32 add, s32 compare, ...) compile to vectorised code.
// Integer arithmetic wraps (computed in unsigned types: no undefined behaviour); division by
// zero and INT_MIN / -1 follow XLA; float max/min propagate NaN; narrow floats compute in float
// and round once on store.
#include <bit>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <type_traits>

#include "interpreter/dtype_traits.h"
#include "interpreter/ops.h"

// The typed loops below must vectorise; GCC's -O2 cost model ("very cheap") refuses loops with
// an unknown trip count, so this file is built at O3.
#pragma GCC optimize("O3")

namespace spmdc::interp {
namespace {

template <typename T>
inline constexpr bool kIsStdComplex = false;
template <typename T>
inline constexpr bool kIsStdComplex<std::complex<T>> = true;

// Unsigned type wide enough for wrapping arithmetic on T (avoids int promotion overflow).
template <typename T>
using WrapT = std::conditional_t<(sizeof(T) <= 4), uint32_t, uint64_t>;

template <typename T>
T WrapAdd(T a, T b) { return static_cast<T>(static_cast<WrapT<T>>(a) + static_cast<WrapT<T>>(b)); }
template <typename T>
T WrapSub(T a, T b) { return static_cast<T>(static_cast<WrapT<T>>(a) - static_cast<WrapT<T>>(b)); }
template <typename T>
T WrapMul(T a, T b) { return static_cast<T>(static_cast<WrapT<T>>(a) * static_cast<WrapT<T>>(b)); }
template <typename T>
T WrapNeg(T a) { return static_cast<T>(WrapT<T>{0} - static_cast<WrapT<T>>(a)); }

template <DType D>
constexpr DType RealTypeOf() {
  if constexpr (D == DType::kC64) return DType::kF32;
  else if constexpr (D == DType::kC128) return DType::kF64;
  else return D;
}

// out[i] = Store(op(Load(a[i]))).
template <DType DI, DType DO, typename Op>
void Map1(const Literal& a, Literal& out, Op op) {
  using TI = Traits<DI>;
  using TO = Traits<DO>;
  const auto* __restrict pa = a.data<typename TI::S>();
  auto* __restrict po = out.mutable_data<typename TO::S>();
  ParallelFor(out.num_elements(), sizeof(typename TI::S) + sizeof(typename TO::S),
              [&](int64_t begin, int64_t end) {
                for (int64_t i = begin; i < end; ++i) po[i] = TO::Store(op(TI::Load(pa[i])));
              });
}

// out[i] = Store(op(Load(a[i]), Load(b[i]))); an operand with one element is broadcast.
template <DType DI, DType DO, typename Op>
void Map2(const Literal& a, const Literal& b, Literal& out, Op op) {
  using TI = Traits<DI>;
  using TO = Traits<DO>;
  const auto* __restrict pa = a.data<typename TI::S>();
  const auto* __restrict pb = b.data<typename TI::S>();
  auto* __restrict po = out.mutable_data<typename TO::S>();
  const int64_t n = out.num_elements();
  const bool full_a = a.num_elements() == n, full_b = b.num_elements() == n;
  if (full_a && full_b) {
    ParallelFor(n, 2 * sizeof(typename TI::S) + sizeof(typename TO::S),
                [&](int64_t begin, int64_t end) {
                  for (int64_t i = begin; i < end; ++i)
                    po[i] = TO::Store(op(TI::Load(pa[i]), TI::Load(pb[i])));
                });
  } else {
    const int64_t sa = full_a ? 1 : 0, sb = full_b ? 1 : 0;
    for (int64_t i = 0; i < n; ++i)
      po[i] = TO::Store(op(TI::Load(pa[i * sa]), TI::Load(pb[i * sb])));
  }
}


template <DType D>
typename Traits<D>::C IntDiv(typename Traits<D>::C a, typename Traits<D>::C b) {
  using C = typename Traits<D>::C;
  if (b == 0) return static_cast<C>(~C{0});  // -1 for signed, all ones for unsigned
  if constexpr (Traits<D>::kIsSigned) {
    if (b == C(-1)) return WrapNeg(a);  // INT_MIN / -1 == INT_MIN
  }
  return static_cast<C>(a / b);
}
template <DType D>
typename Traits<D>::C IntRem(typename Traits<D>::C a, typename Traits<D>::C b) {
  using C = typename Traits<D>::C;
  if (b == 0) return a;
  if constexpr (Traits<D>::kIsSigned) {
    if (b == C(-1)) return 0;
  }
  return static_cast<C>(a % b);
}
template <DType D>
typename Traits<D>::C IntPow(typename Traits<D>::C base, typename Traits<D>::C exponent) {
  using C = typename Traits<D>::C;
  if (base == 1 || exponent == 0) return 1;
  if constexpr (Traits<D>::kIsSigned) {
    if (exponent < 0) return 0;
  }
  using U = WrapT<C>;
  U result = 1, b = static_cast<U>(base);
  uint64_t e = static_cast<uint64_t>(exponent);
  while (e) {
    if (e & 1) result *= b;
    b *= b;
    e >>= 1;
  }
  return static_cast<C>(result);
}

// Integer bit manipulation in 64-bit space on the value's kBits-wide pattern.
template <DType D>
uint64_t UBits(typename Traits<D>::C v) {
  constexpr int kBits = Traits<D>::kBits;
  uint64_t u = static_cast<uint64_t>(static_cast<std::make_unsigned_t<typename Traits<D>::C>>(v));
  if constexpr (kBits < 64) u &= (uint64_t{1} << kBits) - 1;
  return u;
}
template <DType D>
int64_t SBits(typename Traits<D>::C v) {
  constexpr int kBits = Traits<D>::kBits;
  uint64_t u = UBits<D>(v);
  if constexpr (kBits < 64) {
    if (u >> (kBits - 1)) u |= ~uint64_t{0} << kBits;
  }
  return static_cast<int64_t>(u);
}

template <DType D>
StatusOr<Literal> Unary(const Instruction& instr, const Literal& x, int64_t max_bytes) {
  using T = Traits<D>;
  using C = typename T::C;
  const Opcode op = instr.opcode();
  ASSIGN_OR_RETURN(Literal out, NewArray(instr.shape(), max_bytes));
  if (out.num_elements() != x.num_elements())
    return InvalidArgument("{}: operand has {} elements, result {}", OpcodeName(op),
                           x.num_elements(), out.num_elements());
  auto same = [&](auto f) -> StatusOr<Literal> {
    if (instr.shape().dtype() != D)
      return InvalidArgument("{}: result type {} differs from operand type {}", OpcodeName(op),
                             DTypeName(instr.shape().dtype()), DTypeName(D));
    Map1<D, D>(x, out, f);
    return std::move(out);
  };
  auto to = [&](auto dtag, auto f) -> StatusOr<Literal> {
    constexpr DType DO = decltype(dtag)::value;
    if (instr.shape().dtype() != DO)
      return InvalidArgument("{}: result type must be {}, not {}", OpcodeName(op), DTypeName(DO),
                             DTypeName(instr.shape().dtype()));
    Map1<D, DO>(x, out, f);
    return std::move(out);
  };
  auto bad = [&]() -> StatusOr<Literal> {
    return InvalidArgument("{} is not defined on {}", OpcodeName(op), DTypeName(D));
  };
  [[maybe_unused]] constexpr DType kReal = RealTypeOf<D>();
  constexpr bool kF = T::kIsFloat, kCx = T::kIsComplex, kFC = kF || kCx;

  switch (op) {
    case Opcode::kAbs:
      if constexpr (kCx) return to(DTag<kReal>{}, [](C v) { return std::abs(v); });
      else if constexpr (kF) return same([](C v) { return std::fabs(v); });
      else if constexpr (T::kIsSigned) return same([](C v) -> C { return v < 0 ? WrapNeg(v) : v; });
      else if constexpr (T::kIsUnsigned) return same([](C v) { return v; });
      else return bad();
    case Opcode::kNegate:
      if constexpr (kFC) return same([](C v) { return -v; });
      else if constexpr (T::kIsInt) return same([](C v) { return WrapNeg(v); });
      else return bad();
    case Opcode::kSign:
      if constexpr (kCx) {
        return same([](C v) { return v == C(0) ? C(0) : v / std::abs(v); });
      } else if constexpr (kF) {
        return same([](C v) -> C { return std::isnan(v) ? v : v > 0 ? C(1) : v < 0 ? C(-1) : v; });
      } else if constexpr (T::kIsSigned) {
        return same([](C v) -> C { return static_cast<C>((v > 0) - (v < 0)); });
      } else if constexpr (T::kIsUnsigned) {
        return same([](C v) -> C { return v != 0; });
      } else {
        return bad();
      }
    case Opcode::kFloor:
      if constexpr (kF) return same([](C v) { return std::floor(v); });
      else return bad();
    case Opcode::kCeil:
      if constexpr (kF) return same([](C v) { return std::ceil(v); });
      else return bad();
    case Opcode::kRoundNearestAfz:
      if constexpr (kF) return same([](C v) { return std::round(v); });
      else return bad();
    case Opcode::kRoundNearestEven:
      if constexpr (kF) return same([](C v) { return std::nearbyint(v); });
      else return bad();
    case Opcode::kSqrt:
      if constexpr (kFC) return same([](C v) { return std::sqrt(v); });
      else return bad();
    case Opcode::kRsqrt:
      if constexpr (kFC) return same([](C v) { return C(1) / std::sqrt(v); });
      else return bad();
    case Opcode::kCbrt:
      if constexpr (kF) return same([](C v) { return std::cbrt(v); });
      else return bad();
    case Opcode::kExp:
      if constexpr (kFC) return same([](C v) { return std::exp(v); });
      else return bad();
    case Opcode::kExpm1:
      if constexpr (kF) return same([](C v) { return std::expm1(v); });
      else if constexpr (kCx) return same([](C v) { return std::exp(v) - C(1); });
      else return bad();
    case Opcode::kLog:
      if constexpr (kFC) return same([](C v) { return std::log(v); });
      else return bad();
    case Opcode::kLog1p:
      if constexpr (kF) return same([](C v) { return std::log1p(v); });
      else if constexpr (kCx) return same([](C v) { return std::log(C(1) + v); });
      else return bad();
    case Opcode::kLogistic:
      if constexpr (kFC) return same([](C v) { return C(1) / (C(1) + std::exp(-v)); });
      else return bad();
    case Opcode::kSin:
      if constexpr (kFC) return same([](C v) { return std::sin(v); });
      else return bad();
    case Opcode::kCos:
      if constexpr (kFC) return same([](C v) { return std::cos(v); });
      else return bad();
    case Opcode::kTan:
      if constexpr (kFC) return same([](C v) { return std::tan(v); });
      else return bad();
    case Opcode::kTanh:
      if constexpr (kFC) return same([](C v) { return std::tanh(v); });
      else return bad();
    case Opcode::kAcos:
      if constexpr (kFC) return same([](C v) { return std::acos(v); });
      else return bad();
    case Opcode::kAcosh:
      if constexpr (kFC) return same([](C v) { return std::acosh(v); });
      else return bad();
    case Opcode::kAsin:
      if constexpr (kFC) return same([](C v) { return std::asin(v); });
      else return bad();
    case Opcode::kAsinh:
      if constexpr (kFC) return same([](C v) { return std::asinh(v); });
      else return bad();
    case Opcode::kAtan:
      if constexpr (kFC) return same([](C v) { return std::atan(v); });
      else return bad();
    case Opcode::kAtanh:
      if constexpr (kFC) return same([](C v) { return std::atanh(v); });
      else return bad();
    case Opcode::kCosh:
      if constexpr (kFC) return same([](C v) { return std::cosh(v); });
      else return bad();
    case Opcode::kSinh:
      if constexpr (kFC) return same([](C v) { return std::sinh(v); });
      else return bad();
    case Opcode::kErf:
      if constexpr (kF) return same([](C v) { return std::erf(v); });
      else return bad();
    case Opcode::kIsFinite:
      if constexpr (kF) return to(DTag<DType::kPred>{}, [](C v) -> uint8_t { return std::isfinite(v); });
      else return bad();
    case Opcode::kNot:
      if constexpr (T::kIsPred) return same([](C v) -> C { return !v; });
      else if constexpr (T::kIsInt) return same([](C v) { return static_cast<C>(~v); });
      else return bad();
    case Opcode::kPopulationCount:
      if constexpr (T::kIsInt) return same([](C v) { return static_cast<C>(std::popcount(UBits<D>(v))); });
      else return bad();
    case Opcode::kClz:
      if constexpr (T::kIsInt) {
        return same([](C v) { return static_cast<C>(T::kBits - std::bit_width(UBits<D>(v))); });
      } else {
        return bad();
      }
    case Opcode::kReal:
      if constexpr (kCx) return to(DTag<kReal>{}, [](C v) { return v.real(); });
      else if constexpr (kF) return same([](C v) { return v; });
      else return bad();
    case Opcode::kImag:
      if constexpr (kCx) return to(DTag<kReal>{}, [](C v) { return v.imag(); });
      else if constexpr (kF) return same([](C v) { return C(0); });
      else return bad();
    default:
      return Internal("{} is not a unary elementwise op", OpcodeName(op));
  }
}

template <DType D>
StatusOr<Literal> CompareOp(const Instruction& instr, const Literal& a, const Literal& b,
                            Literal out) {
  using T = Traits<D>;
  using C = typename T::C;
  const std::string& dir = instr.string_attr(AttrId::kDirection);
  const std::string& type = instr.string_attr(AttrId::kCompareType);
  auto run = [&](auto f) -> StatusOr<Literal> {
    Map2<D, DType::kPred>(a, b, out, f);
    return std::move(out);
  };
  if constexpr (T::kIsComplex) {
    if (dir == "EQ") return run([](C x, C y) -> uint8_t { return x == y; });
    if (dir == "NE") return run([](C x, C y) -> uint8_t { return x != y; });
    return InvalidArgument("compare direction {} is not defined on {}", dir, DTypeName(D));
  } else {
    if (T::kIsFloat && type == "TOTALORDER") {
      // Order float bit patterns as sign-magnitude integers: -NaN < -inf < ... < -0 < +0 < ... < NaN.
      using S = typename T::S;
      using SI = std::conditional_t<sizeof(S) == 1, int8_t,
                 std::conditional_t<sizeof(S) == 2, int16_t,
                 std::conditional_t<sizeof(S) == 4, int32_t, int64_t>>>;
      const auto* pa = a.data<S>();
      const auto* pb = b.data<S>();
      auto* po = out.mutable_data<uint8_t>();
      const int64_t n = out.num_elements();
      const int64_t sa = a.num_elements() == n ? 1 : 0, sb = b.num_elements() == n ? 1 : 0;
      auto key = [](S s) -> int64_t {
        SI v;
        std::memcpy(&v, &s, sizeof(S));
        return v < 0 ? static_cast<int64_t>(v ^ std::numeric_limits<SI>::max()) : v;
      };
      auto loop = [&](auto f) -> StatusOr<Literal> {
        for (int64_t i = 0; i < n; ++i) po[i] = f(key(pa[i * sa]), key(pb[i * sb]));
        return std::move(out);
      };
      if (dir == "EQ") return loop([](int64_t x, int64_t y) -> uint8_t { return x == y; });
      if (dir == "NE") return loop([](int64_t x, int64_t y) -> uint8_t { return x != y; });
      if (dir == "LT") return loop([](int64_t x, int64_t y) -> uint8_t { return x < y; });
      if (dir == "LE") return loop([](int64_t x, int64_t y) -> uint8_t { return x <= y; });
      if (dir == "GT") return loop([](int64_t x, int64_t y) -> uint8_t { return x > y; });
      if (dir == "GE") return loop([](int64_t x, int64_t y) -> uint8_t { return x >= y; });
    } else {
      if (dir == "EQ") return run([](C x, C y) -> uint8_t { return x == y; });
      if (dir == "NE") return run([](C x, C y) -> uint8_t { return x != y; });
      if (dir == "LT") return run([](C x, C y) -> uint8_t { return x < y; });
      if (dir == "LE") return run([](C x, C y) -> uint8_t { return x <= y; });
      if (dir == "GT") return run([](C x, C y) -> uint8_t { return x > y; });
      if (dir == "GE") return run([](C x, C y) -> uint8_t { return x >= y; });
    }
    return InvalidArgument("compare: unknown direction '{}'", dir);
  }
}

template <DType D>
StatusOr<Literal> Binary(const Instruction& instr, const Literal& a, const Literal& b,
                         int64_t max_bytes) {
  using T = Traits<D>;
  using C = typename T::C;
  const Opcode op = instr.opcode();
  ASSIGN_OR_RETURN(Literal out, NewArray(instr.shape(), max_bytes));
  const int64_t n = out.num_elements();
  if ((a.num_elements() != n && a.num_elements() != 1) ||
      (b.num_elements() != n && b.num_elements() != 1))
    return InvalidArgument("{}: operand element counts {} and {} do not match the result's {}",
                           OpcodeName(op), a.num_elements(), b.num_elements(), n);
  if (op == Opcode::kCompare) {
    if (instr.shape().dtype() != DType::kPred)
      return InvalidArgument("compare: result must be pred");
    return CompareOp<D>(instr, a, b, std::move(out));
  }
  auto bad = [&]() -> StatusOr<Literal> {
    return InvalidArgument("{} is not defined on {}", OpcodeName(op), DTypeName(D));
  };
  if (op == Opcode::kComplex) {
    if constexpr (D == DType::kF32 || D == DType::kF64) {
      constexpr DType DO = D == DType::kF32 ? DType::kC64 : DType::kC128;
      if (instr.shape().dtype() != DO) return InvalidArgument("complex: result must be {}", DTypeName(DO));
      Map2<D, DO>(a, b, out, [](C x, C y) { return std::complex<C>(x, y); });
      return out;
    } else {
      return bad();
    }
  }
  if (instr.shape().dtype() != D)
    return InvalidArgument("{}: result type {} differs from operand type {}", OpcodeName(op),
                           DTypeName(instr.shape().dtype()), DTypeName(D));
  auto run = [&](auto f) -> StatusOr<Literal> {
    Map2<D, D>(a, b, out, f);
    return std::move(out);
  };
  constexpr bool kF = T::kIsFloat, kCx = T::kIsComplex, kFC = kF || kCx;
  constexpr bool kIntLike = T::kIsInt || T::kIsPred;
  switch (op) {
    case Opcode::kAdd:
      if constexpr (kFC) return run([](C x, C y) { return x + y; });
      else return run([](C x, C y) { return WrapAdd(x, y); });
    case Opcode::kSubtract:
      if constexpr (kFC) return run([](C x, C y) { return x - y; });
      else return run([](C x, C y) { return WrapSub(x, y); });
    case Opcode::kMultiply:
      if constexpr (kFC) return run([](C x, C y) { return x * y; });
      else return run([](C x, C y) { return WrapMul(x, y); });
    case Opcode::kDivide:
      if constexpr (kFC) return run([](C x, C y) { return x / y; });
      else if constexpr (T::kIsInt) return run([](C x, C y) { return IntDiv<D>(x, y); });
      else return bad();
    case Opcode::kRemainder:
      if constexpr (kF) return run([](C x, C y) { return std::fmod(x, y); });
      else if constexpr (T::kIsInt) return run([](C x, C y) { return IntRem<D>(x, y); });
      else return bad();
    case Opcode::kMaximum:
      if constexpr (kF) return run([](C x, C y) { return NanMax(x, y); });
      else if constexpr (kIntLike) return run([](C x, C y) { return x > y ? x : y; });
      else return bad();
    case Opcode::kMinimum:
      if constexpr (kF) return run([](C x, C y) { return NanMin(x, y); });
      else if constexpr (kIntLike) return run([](C x, C y) { return x < y ? x : y; });
      else return bad();
    case Opcode::kPower:
      if constexpr (kF) {
        return run([](C x, C y) -> C { return (x == C(1) || y == C(0)) ? C(1) : std::pow(x, y); });
      } else if constexpr (kCx) {
        return run([](C x, C y) -> C {
          if (x == C(1) || y == C(0)) return C(1);
          if (x == C(0) && y.imag() == 0 && y.real() > 0) return C(0);
          return std::pow(x, y);
        });
      } else if constexpr (T::kIsInt) {
        return run([](C x, C y) { return IntPow<D>(x, y); });
      } else {
        return run([](C x, C y) -> C { return x || !y; });
      }
    case Opcode::kMulhi:
      // The high half of the double-width product, signed or unsigned as the type is
      // (jax.lax.mulhi: the upper N bits of the 2N-bit product).
      if constexpr (T::kIsInt) {
        return run([](C x, C y) -> C {
          constexpr int kBits = T::kBits;
          if constexpr (T::kIsSigned) {
            const __int128 p = static_cast<__int128>(SBits<D>(x)) * SBits<D>(y);
            return static_cast<C>(static_cast<int64_t>(p >> kBits));
          } else {
            const unsigned __int128 p = static_cast<unsigned __int128>(UBits<D>(x)) * UBits<D>(y);
            return static_cast<C>(static_cast<uint64_t>(p >> kBits));
          }
        });
      } else {
        return bad();
      }
    case Opcode::kAtan2:
      if constexpr (kF) return run([](C x, C y) { return std::atan2(x, y); });
      else return bad();
    case Opcode::kAnd:
      if constexpr (kIntLike) return run([](C x, C y) { return static_cast<C>(x & y); });
      else return bad();
    case Opcode::kOr:
      if constexpr (kIntLike) return run([](C x, C y) { return static_cast<C>(x | y); });
      else return bad();
    case Opcode::kXor:
      if constexpr (kIntLike) return run([](C x, C y) { return static_cast<C>(x ^ y); });
      else return bad();
    case Opcode::kShiftLeft:
      if constexpr (T::kIsInt) {
        return run([](C x, C y) -> C {
          uint64_t s = UBits<D>(y);
          return s >= static_cast<uint64_t>(T::kBits) ? C(0) : static_cast<C>(UBits<D>(x) << s);
        });
      } else {
        return bad();
      }
    case Opcode::kShiftRightArithmetic:
      if constexpr (T::kIsInt) {
        return run([](C x, C y) -> C {
          uint64_t s = UBits<D>(y);
          int64_t v = SBits<D>(x);
          return static_cast<C>(s >= static_cast<uint64_t>(T::kBits) ? (v < 0 ? -1 : 0) : v >> s);
        });
      } else {
        return bad();
      }
    case Opcode::kShiftRightLogical:
      if constexpr (T::kIsInt) {
        return run([](C x, C y) -> C {
          uint64_t s = UBits<D>(y);
          return s >= static_cast<uint64_t>(T::kBits) ? C(0) : static_cast<C>(UBits<D>(x) >> s);
        });
      } else {
        return bad();
      }
    default:
      return Internal("{} is not a binary elementwise op", OpcodeName(op));
  }
}

// select(pred, on_true, on_false): moves storage, no arithmetic.
template <typename S>
void SelectLoop(const Literal& p, const Literal& t, const Literal& f, Literal& out) {
  const uint8_t* pp = p.data<uint8_t>();
  const S* pt = t.data<S>();
  const S* pf = f.data<S>();
  S* po = out.mutable_data<S>();
  const int64_t n = out.num_elements();
  const int64_t sp = p.num_elements() == n ? 1 : 0, st = t.num_elements() == n ? 1 : 0,
                sf = f.num_elements() == n ? 1 : 0;
  if (sp && st && sf) {
    for (int64_t i = 0; i < n; ++i) po[i] = pp[i] ? pt[i] : pf[i];
  } else {
    for (int64_t i = 0; i < n; ++i) po[i] = pp[i * sp] ? pt[i * st] : pf[i * sf];
  }
}

StatusOr<Literal> Select(const Instruction& instr, const Literal& p, const Literal& t,
                         const Literal& f, int64_t max_bytes) {
  ASSIGN_OR_RETURN(Literal out, NewArray(instr.shape(), max_bytes));
  const int64_t n = out.num_elements();
  for (const Literal* l : {&p, &t, &f}) {
    if (l->num_elements() != n && l->num_elements() != 1)
      return InvalidArgument("select: operand element count {} does not match the result's {}",
                             l->num_elements(), n);
  }
  if (p.shape().dtype() != DType::kPred) return InvalidArgument("select: predicate must be pred");
  if (t.shape().dtype() != out.shape().dtype() || f.shape().dtype() != out.shape().dtype())
    return InvalidArgument("select: operand types differ from the result type");
  switch (DTypeByteSize(out.shape().dtype())) {
    case 1: SelectLoop<uint8_t>(p, t, f, out); break;
    case 2: SelectLoop<uint16_t>(p, t, f, out); break;
    case 4: SelectLoop<uint32_t>(p, t, f, out); break;
    case 8: SelectLoop<uint64_t>(p, t, f, out); break;
    case 16: SelectLoop<std::complex<double>>(p, t, f, out); break;
    default: return Internal("select: unexpected element size");
  }
  return out;
}

template <DType D>
StatusOr<Literal> Clamp(const Instruction& instr, const Literal& lo, const Literal& x,
                        const Literal& hi, int64_t max_bytes) {
  using T = Traits<D>;
  using C = typename T::C;
  if constexpr (T::kIsComplex) {
    return InvalidArgument("clamp is not defined on {}", DTypeName(D));
  } else {
    ASSIGN_OR_RETURN(Literal out, NewArray(instr.shape(), max_bytes));
    const int64_t n = out.num_elements();
    for (const Literal* l : {&lo, &x, &hi}) {
      if (l->num_elements() != n && l->num_elements() != 1)
        return InvalidArgument("clamp: operand element count {} does not match the result's {}",
                               l->num_elements(), n);
      if (l->shape().dtype() != D) return InvalidArgument("clamp: operand types differ");
    }
    const auto* pl = lo.data<typename T::S>();
    const auto* px = x.data<typename T::S>();
    const auto* ph = hi.data<typename T::S>();
    auto* po = out.mutable_data<typename T::S>();
    const int64_t sl = lo.num_elements() == n ? 1 : 0, sx = x.num_elements() == n ? 1 : 0,
                  sh = hi.num_elements() == n ? 1 : 0;
    for (int64_t i = 0; i < n; ++i) {
      C l = T::Load(pl[i * sl]), v = T::Load(px[i * sx]), h = T::Load(ph[i * sh]);
      C r;
      if constexpr (T::kIsFloat) {
        r = NanMin(NanMax(v, l), h);
      } else {
        r = v < l ? l : v;
        r = r > h ? h : r;
      }
      po[i] = T::Store(r);
    }
    return out;
  }
}

}  // namespace

StatusOr<Literal> EvalElementwise(const Instruction& instr, const std::vector<const Literal*>& ops,
                                  int64_t max_bytes) {
  const Opcode op = instr.opcode();
  if (!instr.shape().IsArray())
    return InvalidArgument("{}: elementwise ops need an array result", OpcodeName(op));
  for (const Literal* l : ops) {
    if (!l->shape().IsArray())
      return InvalidArgument("{}: elementwise ops need array operands", OpcodeName(op));
  }
  switch (OpcodeKind(op)) {
    case OpKind::kUnary:
      if (ops.size() != 1) return InvalidArgument("{} takes one operand", OpcodeName(op));
      return DispatchDType(ops[0]->shape().dtype(), [&](auto tag) {
        return Unary<decltype(tag)::value>(instr, *ops[0], max_bytes);
      });
    case OpKind::kBinary:
      if (ops.size() != 2) return InvalidArgument("{} takes two operands", OpcodeName(op));
      if (ops[0]->shape().dtype() != ops[1]->shape().dtype())
        return InvalidArgument("{}: operand types {} and {} differ", OpcodeName(op),
                               DTypeName(ops[0]->shape().dtype()), DTypeName(ops[1]->shape().dtype()));
      return DispatchDType(ops[0]->shape().dtype(), [&](auto tag) {
        return Binary<decltype(tag)::value>(instr, *ops[0], *ops[1], max_bytes);
      });
    case OpKind::kTernary:
      if (ops.size() != 3) return InvalidArgument("{} takes three operands", OpcodeName(op));
      if (op == Opcode::kSelect) return Select(instr, *ops[0], *ops[1], *ops[2], max_bytes);
      if (op == Opcode::kClamp) {
        return DispatchDType(ops[1]->shape().dtype(), [&](auto tag) {
          return Clamp<decltype(tag)::value>(instr, *ops[0], *ops[1], *ops[2], max_bytes);
        });
      }
      break;
    default:
      break;
  }
  return Internal("{} is not an elementwise op", OpcodeName(op));
}

}  // namespace spmdc::interp

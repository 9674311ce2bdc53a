// Shared machinery of the interpreter kernels: typed dispatch over the storage convention of
// dtype.h, recognition of the common scalar computations (reducers, comparators, scatter
// combiners) so that kernels run them natively, and small index helpers.
#pragma once

#include "interpreter/dtype_traits.h"

#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "interpreter/kernels.h"
#include "ir/computation.h"
#include "ir/float_types.h"
#include "ir/literal.h"

namespace spmdc::kernels {

// ---------------------------------------------------------------------------------------------
// Typed element access: the interpreter's element traits (interpreter/dtype_traits.h: storage
// type, compute type — narrow floats compute in float and round once on store, sub-byte integers
// wrap on store — and Load/Store), under the names the kernels use.
// ---------------------------------------------------------------------------------------------
template <DType D>
struct Traits : interp::Traits<D> {
  using Storage = typename interp::Traits<D>::S;
  using Compute = typename interp::Traits<D>::C;
  static constexpr DType kDType = D;
};

// Calls f(Traits<D>{}) for the array dtype `t`. Returns f's result.
template <typename F>
decltype(auto) DispatchDType(DType t, F&& f) {
  return interp::DispatchDType(t, [&](auto tag) -> decltype(auto) {
    return f(Traits<decltype(tag)::value>{});
  });
}

template <typename T> struct IsComplexT : std::false_type {};
template <typename T> struct IsComplexT<std::complex<T>> : std::true_type {};

// ---------------------------------------------------------------------------------------------
// Scalar computations recognised natively.
// ---------------------------------------------------------------------------------------------
enum class BinOp { kNone, kAdd, kMul, kMax, kMin, kAnd, kOr, kXor, kTakeOld, kTakeNew };

// A computation of two scalar parameters of one dtype whose root is add/multiply/maximum/
// minimum/and/or/xor of (p0, p1) — or (p1, p0), all being commutative — or a parameter itself
// (kTakeOld = p0, kTakeNew = p1: the "overwrite" scatter combiner). kNone otherwise.
BinOp RecognizeBinary(const Computation* comp);

// Applies a recognised op in the Compute type of Traits. Integer arithmetic wraps; float
// max/min propagate NaN; pred add/max = or, mul/min = and.
template <typename Tr>
inline typename Tr::Compute ApplyBinOp(BinOp op, typename Tr::Compute a, typename Tr::Compute b) {
  using C = typename Tr::Compute;
  if constexpr (Tr::kDType == DType::kPred) {
    switch (op) {
      case BinOp::kAdd: case BinOp::kMax: case BinOp::kOr: return a | b;
      case BinOp::kMul: case BinOp::kMin: case BinOp::kAnd: return a & b;
      case BinOp::kXor: return a ^ b;
      case BinOp::kTakeOld: return a;
      default: return b;
    }
  } else if constexpr (IsComplexT<C>::value) {
    switch (op) {
      case BinOp::kAdd: return a + b;
      case BinOp::kMul: return a * b;
      case BinOp::kTakeOld: return a;
      default: return b;
    }
  } else if constexpr (std::is_floating_point_v<C>) {
    switch (op) {
      case BinOp::kAdd: return a + b;
      case BinOp::kMul: return a * b;
      case BinOp::kMax: return std::isnan(a) ? a : std::isnan(b) ? b : (a >= b ? a : b);
      case BinOp::kMin: return std::isnan(a) ? a : std::isnan(b) ? b : (a <= b ? a : b);
      case BinOp::kTakeOld: return a;
      default: return b;
    }
  } else {
    using U = std::make_unsigned_t<C>;
    switch (op) {
      case BinOp::kAdd: return static_cast<C>(static_cast<U>(a) + static_cast<U>(b));
      case BinOp::kMul: return static_cast<C>(static_cast<U>(a) * static_cast<U>(b));
      case BinOp::kMax: return a >= b ? a : b;
      case BinOp::kMin: return a <= b ? a : b;
      case BinOp::kAnd: return a & b;
      case BinOp::kOr: return a | b;
      case BinOp::kXor: return a ^ b;
      case BinOp::kTakeOld: return a;
      default: return b;
    }
  }
}

// Whether `op` is meaningful for dtype `t` natively (e.g. no max on complex, no and on float).
bool BinOpSupported(BinOp op, DType t);

enum class CmpDir { kEq, kNe, kLt, kLe, kGt, kGe };
// A comparator whose root is compare(p[2k], p[2k+1]) (or swapped) for one k: the sort key is
// operand k. Also used for select-and-scatter's select (k = 0).
struct Comparator {
  bool recognised = false;
  int operand = 0;
  CmpDir dir = CmpDir::kLt;
  bool total_order = false;
};
Comparator RecognizeComparator(const Computation* comp);

// Maps a float to an integer whose order is XLA's total order (-NaN < -inf < ... < -0 < +0 <
// ... < inf < NaN).
inline int64_t TotalOrderKey(double d) {
  int64_t bits = std::bit_cast<int64_t>(d);
  return bits < 0 ? bits ^ INT64_MAX : bits;
}

template <typename C>
inline bool CompareValues(CmpDir dir, bool total_order, C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    if (total_order) {
      int64_t ka = TotalOrderKey(static_cast<double>(a)), kb = TotalOrderKey(static_cast<double>(b));
      // -0.0 and +0.0 differ in total order; the double mapping keeps that.
      return CompareValues<int64_t>(dir, false, ka, kb);
    }
  }
  switch (dir) {
    case CmpDir::kEq: return a == b;
    case CmpDir::kNe: return a != b;
    case CmpDir::kLt: return a < b;
    case CmpDir::kLe: return a <= b;
    case CmpDir::kGt: return a > b;
    case CmpDir::kGe: return a >= b;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Scalars for calls through KernelContext::call.
// ---------------------------------------------------------------------------------------------
// A scalar literal holding element `i` of array `src`.
Literal ScalarAt(const Literal& src, int64_t i);
// Copies the scalar `value` into element `i` of `dst` (same dtype).
void SetFromScalar(Literal& dst, int64_t i, const Literal& value);
// The leaves of a call's result (the literal itself if it is an array).
std::vector<const Literal*> Leaves(const Literal& l);

// Copies one element of `bytes` bytes.
inline void CopyElement(std::byte* dst, const std::byte* src, int bytes) {
  switch (bytes) {
    case 1: *dst = *src; return;
    case 2: std::memcpy(dst, src, 2); return;
    case 4: std::memcpy(dst, src, 4); return;
    case 8: std::memcpy(dst, src, 8); return;
    default: std::memcpy(dst, src, bytes); return;
  }
}

// ---------------------------------------------------------------------------------------------
// Index helpers.
// ---------------------------------------------------------------------------------------------
// Increments `index` in row-major order within `dims`; false after the last index.
inline bool NextIndex(std::vector<int64_t>& index, const std::vector<int64_t>& dims) {
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    if (++index[d] < dims[d]) return true;
    index[d] = 0;
  }
  return false;
}
inline int64_t Product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

// Result literal of `shape`, failing cleanly when it is larger than the context allows.
// With `overwrite`, the contents are left unspecified (the caller writes every element).
StatusOr<Literal> AllocateResult(const Shape& shape, const KernelContext& ctx,
                                 bool overwrite = false);

// Restricts the threads oneDNN (OpenMP) may use on this thread to ctx.intra_op_threads.
void SetIntraOpThreads(const KernelContext& ctx);
// Same with an explicit count (small reorders run on one thread: fanning out costs more).
void SetOmpThreads(int n);

// Runs f(begin, end) over [0, n) split in contiguous chunks on up to `threads` threads (the
// calling thread included). `work` estimates the total cost in simple operations: below ~1M the
// loop runs on the calling thread alone.
void ParallelFor(int64_t n, int64_t work, const KernelContext& ctx,
                 const std::function<void(int64_t, int64_t)>& f);

// Literal converted element-wise to `t` (values through double / complex; exact for the
// integer and narrow-float cases the kernels use).
Literal ConvertLiteral(const Literal& in, DType t);

}  // namespace spmdc::kernels

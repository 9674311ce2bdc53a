// Native reduction loops (one per kind x dtype, written so that the plain types vectorise) and the
// matcher that recognises the common reduction computations.
#include "runtime/communicator.h"

#include <cmath>
#include <cstring>
#include <type_traits>

#include "interpreter/dtype_traits.h"
#include "ir/computation.h"
#include "ir/instruction.h"

namespace spmdc {
namespace {

using interp::DispatchDType;
using interp::DTag;
using interp::Traits;
using interp::NanMax;
using interp::NanMin;


template <DType D, typename Op>
void Loop(void* out_v, const void* a_v, const void* b_v, int64_t count, Op op) {
  // out may be a (accumulating in place); the vectoriser checks the overlap at run time.
  using T = Traits<D>;
  using S = typename T::S;
  S* out = static_cast<S*>(out_v);
  const S* a = static_cast<const S*>(a_v);
  const S* b = static_cast<const S*>(b_v);
  for (int64_t i = 0; i < count; ++i) out[i] = T::Store(op(T::Load(a[i]), T::Load(b[i])));
}

// Returns false when (kind, D) has no native loop.
template <DType D>
bool NativeReduce(ReductionKind kind, void* out, const void* a, const void* in, int64_t count) {
  using T = Traits<D>;
  using C = typename T::C;
  constexpr bool kF = T::kIsFloat;
  constexpr bool kCx = T::kIsComplex;
  constexpr bool kInt = T::kIsInt || T::kIsPred;
  if constexpr (kInt) {
    // Integer arithmetic wraps: compute in uint64 and truncate (no signed overflow).
    switch (kind) {
      case ReductionKind::kSum:
        if (out)
          Loop<D>(out, a, in, count,
                  [](C a, C b) { return static_cast<C>(uint64_t(a) + uint64_t(b)); });
        return true;
      case ReductionKind::kProduct:
        if (out)
          Loop<D>(out, a, in, count,
                  [](C a, C b) { return static_cast<C>(uint64_t(a) * uint64_t(b)); });
        return true;
      case ReductionKind::kMax:
        if (out) Loop<D>(out, a, in, count, [](C a, C b) { return a > b ? a : b; });
        return true;
      case ReductionKind::kMin:
        if (out) Loop<D>(out, a, in, count, [](C a, C b) { return a < b ? a : b; });
        return true;
      case ReductionKind::kAnd:
        if (out) Loop<D>(out, a, in, count, [](C a, C b) { return static_cast<C>(a & b); });
        return true;
      case ReductionKind::kOr:
        if (out) Loop<D>(out, a, in, count, [](C a, C b) { return static_cast<C>(a | b); });
        return true;
      default:
        return false;
    }
  } else if constexpr (kF || kCx) {
    switch (kind) {
      case ReductionKind::kSum:
        if (out) Loop<D>(out, a, in, count, [](C a, C b) { return a + b; });
        return true;
      case ReductionKind::kProduct:
        if (out) Loop<D>(out, a, in, count, [](C a, C b) { return a * b; });
        return true;
      case ReductionKind::kMax:
        if constexpr (kF) {
          if (out) Loop<D>(out, a, in, count, [](C a, C b) { return NanMax(a, b); });
          return true;
        }
        return false;
      case ReductionKind::kMin:
        if constexpr (kF) {
          if (out) Loop<D>(out, a, in, count, [](C a, C b) { return NanMin(a, b); });
          return true;
        }
        return false;
      default:
        return false;
    }
  } else {
    return false;
  }
}

}  // namespace

bool HasNativeReduction(ReductionKind kind, DType dtype) {
  if (!IsArrayType(dtype) || kind == ReductionKind::kCustom) return false;
  return DispatchDType(dtype, [&](auto tag) {
    return NativeReduce<decltype(tag)::value>(kind, nullptr, nullptr, nullptr, 0);
  });
}

Status ApplyReduction(const Reduction& reduction, DType dtype, void* acc, const void* in,
                      int64_t count) {
  return ApplyReduction(reduction, dtype, acc, acc, in, count);
}

Status ApplyReduction(const Reduction& reduction, DType dtype, void* out, const void* a,
                      const void* b, int64_t count) {
  if (count <= 0) return absl::OkStatus();
  if (IsArrayType(dtype) && reduction.kind != ReductionKind::kCustom) {
    const bool done = DispatchDType(dtype, [&](auto tag) {
      return NativeReduce<decltype(tag)::value>(reduction.kind, out, a, b, count);
    });
    if (done) return absl::OkStatus();
  }
  if (!reduction.combine)
    return InvalidArgument("no reduction for {} elements (kind {} has no native loop)",
                           DTypeName(dtype), static_cast<int>(reduction.kind));
  if (out != a) std::memmove(out, a, count * DTypeByteSize(dtype));
  return reduction.combine(out, b, count);
}

std::optional<ReductionKind> MatchReductionComputation(const Computation& c) {
  if (c.num_parameters() != 2) return std::nullopt;
  const Instruction* root = c.root();
  if (root == nullptr || root->operand_count() != 2 || !root->shape().IsArray() ||
      root->shape().rank() != 0)
    return std::nullopt;
  const Instruction* a = root->operand(0);
  const Instruction* b = root->operand(1);
  const bool params = a->opcode() == Opcode::kParameter && b->opcode() == Opcode::kParameter &&
                      a != b && a->shape() == root->shape() && b->shape() == root->shape();
  if (!params) return std::nullopt;
  switch (root->opcode()) {
    case Opcode::kAdd:
      return ReductionKind::kSum;
    case Opcode::kMultiply:
      return ReductionKind::kProduct;
    case Opcode::kMaximum:
      return ReductionKind::kMax;
    case Opcode::kMinimum:
      return ReductionKind::kMin;
    case Opcode::kAnd:
      return ReductionKind::kAnd;
    case Opcode::kOr:
      return ReductionKind::kOr;
    default:
      return std::nullopt;
  }
}

}  // namespace spmdc

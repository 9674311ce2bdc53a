#include "runtime/result_comparison.h"

#include <algorithm>
#include <cmath>
#include <complex>

#include "fmt/format.h"

namespace spmdc {

namespace {

// Unit roundoff (half an ulp at 1) of the floating types; 0 for the others.
double UnitRoundoff(DType t) {
  switch (t) {
    case DType::kF64: case DType::kC128: return std::ldexp(1.0, -53);
    case DType::kF32: case DType::kC64: return std::ldexp(1.0, -24);
    case DType::kF16: return std::ldexp(1.0, -11);
    case DType::kBF16: return std::ldexp(1.0, -8);
    default: return IsF8(t) ? std::ldexp(1.0, -3) : 0.0;
  }
}

// A few ulps after reductions of moderate length (the tolerance of short computations).
double BaseTolerance(DType t) {
  switch (t) {
    case DType::kF64: case DType::kC128: return 1e-9;
    case DType::kF32: case DType::kC64: return 1e-4;
    case DType::kF16: return 4e-3;
    case DType::kBF16: return 3e-2;
    default: return IsF8(t) ? 0.25 : 0.0;
  }
}

bool IsFloating(const Shape& s) { return s.IsArray() && (IsFloat(s.dtype()) || IsComplex(s.dtype())); }

// The loosest base tolerance over the floating leaves of `shape`.
double LoosestTolerance(const Shape& shape) {
  if (shape.IsTuple()) {
    double tol = 0;
    for (const Shape& s : shape.tuple_shapes()) tol = std::max(tol, LoosestTolerance(s));
    return tol;
  }
  return IsFloating(shape) ? BaseTolerance(shape.dtype()) : 0;
}

int64_t Product(const Shape& s, const std::vector<int64_t>& dims) {
  int64_t p = 1;
  for (int64_t d : dims) p *= s.dim(d);
  return p;
}

// Terms summed into one element of `i`'s result, and the type they are summed in (the result's:
// a dot of bf16 operands into f32 accumulates in f32). 1 for ops that do not accumulate.
int64_t AccumulatedTerms(const Instruction& i) {
  switch (i.opcode()) {
    case Opcode::kReduce:
      return i.operand(0)->shape().IsArray() ? Product(i.operand(0)->shape(), i.dimensions()) : 1;
    case Opcode::kReduceWindow: case Opcode::kSelectAndScatter: {
      const Window* w = i.attr<Window>(AttrId::kWindow);
      int64_t p = 1;
      if (w)
        for (const WindowDim& d : w->dims) p *= d.size;
      return p;
    }
    case Opcode::kDot:
      return Product(i.operand(0)->shape(), i.ints_attr(AttrId::kLhsContractingDims));
    case Opcode::kConvolution: {
      const ConvDims* cd = i.attr<ConvDims>(AttrId::kDimLabels);
      const Shape& k = i.operand(1)->shape();
      return cd ? k.num_elements() / std::max<int64_t>(1, k.dim(cd->kernel_output_feature)) : 1;
    }
    case Opcode::kScatter: {
      // Every update index tuple may address the same element (duplicate indices).
      const Shape& updates = i.operand(i.operand_count() - 1)->shape();
      if (!updates.IsArray()) return 1;
      const std::vector<int64_t>& window = i.ints_attr(AttrId::kUpdateWindowDims);
      int64_t p = 1;
      for (int64_t d = 0; d < updates.rank(); ++d)
        if (std::find(window.begin(), window.end(), d) == window.end()) p *= updates.dim(d);
      return p;
    }
    default:
      return 1;
  }
}

}  // namespace

double ToleranceFor(DType t, int64_t terms) {
  double base = BaseTolerance(t);
  if (terms <= 1) return base;
  return std::max(base, 2 * UnitRoundoff(t) * std::sqrt(static_cast<double>(terms)));
}

double ModuleTolerance(const Module& module) {
  double tol = 0;
  for (const Computation* c : module.computations()) {
    for (const Instruction* i : c->instructions()) {
      tol = std::max(tol, LoosestTolerance(i->shape()));
      const Shape& s = i->shape();
      const Shape& leaf = s.IsTuple() && s.tuple_size() > 0 ? s.tuple_shape(0) : s;
      if (IsFloating(leaf)) tol = std::max(tol, ToleranceFor(leaf.dtype(), AccumulatedTerms(*i)));
    }
  }
  return tol;
}

LeafComparison CompareLeaf(const Literal& got, const Literal& want, double tolerance) {
  LeafComparison c;
  if (!(got.shape().dims() == want.shape().dims()) || got.shape().dtype() != want.shape().dtype()) {
    c.ok = false;
    c.problem = fmt::format("shape {} differs from the reference {}", got.shape().ToString(false),
                            want.shape().ToString(false));
    return c;
  }
  DType t = want.shape().dtype();
  int64_t n = want.num_elements();
  if (!IsFloat(t) && !IsComplex(t)) {
    for (int64_t i = 0; i < n; ++i) {
      if (got.GetUint(i) != want.GetUint(i)) {
        c.ok = false;
        c.max_abs_error = std::max(c.max_abs_error, 1.0);
        if (c.problem.empty())
          c.problem = fmt::format("element {}: {} vs reference {}", i, got.ElementToString(i), want.ElementToString(i));
      }
    }
    return c;
  }
  double scale = 0;
  for (int64_t i = 0; i < n; ++i) {
    double v = IsComplex(t) ? std::abs(want.GetComplex(i)) : std::fabs(want.GetDouble(i));
    if (std::isfinite(v)) scale = std::max(scale, v);
  }
  scale = std::max(scale, 1e-30);
  double tol = std::max(ToleranceFor(t), tolerance);
  for (int64_t i = 0; i < n; ++i) {
    std::complex<double> a = got.GetComplex(i), b = want.GetComplex(i);
    bool a_nan = std::isnan(a.real()) || std::isnan(a.imag());
    bool b_nan = std::isnan(b.real()) || std::isnan(b.imag());
    if (a_nan || b_nan) {
      if (a_nan != b_nan) {
        c.ok = false;
        if (c.problem.empty())
          c.problem = fmt::format("element {}: {} vs reference {} (NaN positions differ)", i,
                                  got.ElementToString(i), want.ElementToString(i));
      }
      continue;
    }
    bool a_inf = std::isinf(a.real()) || std::isinf(a.imag());
    bool b_inf = std::isinf(b.real()) || std::isinf(b.imag());
    if (a_inf || b_inf) {
      if (a != b) {
        c.ok = false;
        if (c.problem.empty())
          c.problem = fmt::format("element {}: {} vs reference {}", i, got.ElementToString(i), want.ElementToString(i));
      }
      continue;
    }
    double err = std::abs(a - b);
    c.max_abs_error = std::max(c.max_abs_error, err);
    c.max_rel_error = std::max(c.max_rel_error, err / scale);
    if (err > tol * scale && c.ok) {
      c.ok = false;
      c.problem = fmt::format("element {}: {} vs reference {} (error {:.3g} > {:.3g})", i, got.ElementToString(i),
                              want.ElementToString(i), err, tol * scale);
    }
  }
  return c;
}

}  // namespace spmdc

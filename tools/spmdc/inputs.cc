#include "inputs.h"

#include <algorithm>
#include <cmath>
#include <complex>

#include "fmt/format.h"
#include "npy.h"
#include "runtime/host_values.h"

namespace spmdc::cli {

StatusOr<std::vector<Literal>> MakeArguments(const Module& module,
                                             const std::vector<std::string>& npy_paths,
                                             uint64_t seed) {
  const Computation* entry = module.entry();
  if (npy_paths.size() > static_cast<size_t>(entry->num_parameters())) {
    return InvalidArgument("{} inputs given but the entry computation has {} parameters",
                           npy_paths.size(), entry->num_parameters());
  }
  std::vector<Literal> args;
  for (int64_t i = 0; i < entry->num_parameters(); ++i) {
    const Shape& shape = entry->parameter(i)->shape();
    if (i < static_cast<int64_t>(npy_paths.size())) {
      if (!shape.IsArray()) return InvalidArgument("parameter {} is not an array; it cannot come from .npy", i);
      ASSIGN_OR_RETURN(Literal lit, ReadNpy(npy_paths[i], shape));
      args.push_back(std::move(lit));
    } else {
      // Each parameter gets its own stream so that adding an input does not shift the others.
      args.push_back(RandomLiteral(shape, ParameterSeed(seed, i)));
    }
  }
  return args;
}

std::string SummarizeLeaf(const Literal& leaf) {
  uint64_t fnv = 0xcbf29ce484222325ull;
  const auto* bytes = reinterpret_cast<const unsigned char*>(leaf.raw());
  for (int64_t i = 0; i < leaf.shape().byte_size(); ++i) fnv = (fnv ^ bytes[i]) * 0x100000001b3ull;
  double sum = 0;
  int64_t n = leaf.num_elements();
  bool complex = IsComplex(leaf.shape().dtype());
  for (int64_t i = 0; i < n; ++i) sum += complex ? leaf.GetComplex(i).real() : leaf.GetDouble(i);
  return fmt::format("{} sum={:.6g} fnv={:016x} {}", leaf.shape().ToString(false), sum, fnv,
                     leaf.Summary(6).substr(leaf.shape().ToString(false).size() + 1));
}

}  // namespace spmdc::cli

namespace spmdc::cli {

namespace {
// Relative tolerance per element type: a few ulps after reductions of moderate length.
double ToleranceFor(DType t) {
  switch (t) {
    case DType::kF64: case DType::kC128: return 1e-9;
    case DType::kF32: case DType::kC64: return 1e-4;
    case DType::kF16: return 4e-3;
    case DType::kBF16: return 3e-2;
    default: return IsF8(t) ? 0.25 : 0.0;
  }
}
// The loosest tolerance over the floating-point values of `shape` (0 when there are none).
double LoosestTolerance(const Shape& shape) {
  if (shape.IsTuple()) {
    double tol = 0;
    for (const Shape& s : shape.tuple_shapes()) tol = std::max(tol, LoosestTolerance(s));
    return tol;
  }
  if (!shape.IsArray() || !(IsFloat(shape.dtype()) || IsComplex(shape.dtype()))) return 0;
  return ToleranceFor(shape.dtype());
}

}  // namespace

double WorkingPrecisionTolerance(const Module& module) {
  double tol = 0;
  for (const Computation* c : module.computations())
    for (const Instruction* i : c->instructions()) tol = std::max(tol, LoosestTolerance(i->shape()));
  return tol;
}

LeafComparison CompareLeaf(const Literal& got, const Literal& want, double working_tolerance) {
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
  double tol = std::max(ToleranceFor(t), working_tolerance);
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

}  // namespace spmdc::cli

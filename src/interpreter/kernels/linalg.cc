// cholesky and triangular-solve, batched over the leading dims, computed in double (complex
// double for c64/c128) and rounded once.
//
// cholesky follows XLA's CholeskyExpander: lower=true reads the lower triangle and returns L
// (A = L L^H) with zeros above the diagonal; lower=false works on the plain transpose and
// returns U = L^T (A = U^H U) with zeros below. When a diagonal pivot's square root is NaN
// (not positive definite), the whole matrix of that batch element becomes NaN.
#include <cmath>

#include "interpreter/kernels/common.h"

namespace spmdc {
namespace kernels {
namespace {

using cd = std::complex<double>;

template <typename T>
T Conj(T x) {
  if constexpr (IsComplexT<T>::value) return std::conj(x); else return x;
}
template <typename T>
double RealPart(T x) {
  if constexpr (IsComplexT<T>::value) return x.real(); else return x;
}

template <typename T>
T Get(const Literal& l, int64_t i) {
  if constexpr (IsComplexT<T>::value) return l.GetComplex(i); else return l.GetDouble(i);
}
template <typename T>
void Set(Literal& l, int64_t i, T v) {
  if constexpr (IsComplexT<T>::value) l.SetComplex(i, v); else l.SetDouble(i, v);
}

template <typename T>
void CholeskyBatch(const Literal& a, Literal& out, int64_t n, bool lower) {
  const int64_t batch = n == 0 ? 0 : a.num_elements() / (n * n);
  std::vector<T> m(n * n), l(n * n);
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t base = b * n * n;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j)
        m[i * n + j] = lower ? Get<T>(a, base + i * n + j) : Get<T>(a, base + j * n + i);
    std::fill(l.begin(), l.end(), T(0));
    bool error = false;
    for (int64_t j = 0; j < n; ++j) {
      double d = RealPart(m[j * n + j]);
      for (int64_t k = 0; k < j; ++k) d -= RealPart(l[j * n + k] * Conj(l[j * n + k]));
      const double ljj = std::sqrt(d);
      if (std::isnan(ljj)) error = true;
      l[j * n + j] = T(ljj);
      for (int64_t i = j + 1; i < n; ++i) {
        T s = m[i * n + j];
        for (int64_t k = 0; k < j; ++k) s -= l[i * n + k] * Conj(l[j * n + k]);
        l[i * n + j] = s / T(ljj);
      }
    }
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        T v = error ? T(std::nan("")) : (lower ? l[i * n + j] : l[j * n + i]);
        Set<T>(out, base + i * n + j, v);
      }
    }
  }
}

// Solves op(A) X = B (left side) or X op(A) = B for every batch element.
template <typename T>
void TriangularSolveBatch(const Literal& a, const Literal& b, Literal& out, int64_t m,
                          int64_t rows_b, int64_t cols_b, bool left, bool lower, bool unit,
                          const std::string& transpose) {
  const int64_t batch = m == 0 ? 0 : a.num_elements() / (m * m);
  std::vector<T> M(m * m), X;
  for (int64_t bi = 0; bi < batch; ++bi) {
    const int64_t abase = bi * m * m, bbase = bi * rows_b * cols_b;
    // Effective matrix E = op(tri(A)).
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < m; ++j) {
        // Element (i, j) of op(tri(A)) comes from A(i, j) or A(j, i).
        const bool transposed = transpose == "TRANSPOSE" || transpose == "ADJOINT";
        const int64_t r = transposed ? j : i, c = transposed ? i : j;
        T v;
        if (r == c) v = unit ? T(1) : Get<T>(a, abase + r * m + c);
        else if ((lower && r > c) || (!lower && r < c)) v = Get<T>(a, abase + r * m + c);
        else v = T(0);
        if (transpose == "ADJOINT") v = Conj(v);
        M[i * m + j] = v;
      }
    }
    const bool transposed = transpose == "TRANSPOSE" || transpose == "ADJOINT";
    const bool e_lower = lower != transposed;
    // Right side: X E = B  <=>  E^T X^T = B^T; solve with E^T (lowerness flips).
    std::vector<T> E(m * m);
    bool sys_lower = e_lower;
    if (left) {
      E = M;
    } else {
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < m; ++j) E[i * m + j] = M[j * m + i];
      sys_lower = !e_lower;
    }
    const int64_t ncols = left ? cols_b : rows_b;  // columns of the right-hand side
    X.assign(m * ncols, T(0));
    for (int64_t i = 0; i < m; ++i)
      for (int64_t c = 0; c < ncols; ++c)
        X[i * ncols + c] = left ? Get<T>(b, bbase + i * cols_b + c) : Get<T>(b, bbase + c * cols_b + i);
    for (int64_t c = 0; c < ncols; ++c) {
      if (sys_lower) {
        for (int64_t i = 0; i < m; ++i) {
          T s = X[i * ncols + c];
          for (int64_t k = 0; k < i; ++k) s -= E[i * m + k] * X[k * ncols + c];
          X[i * ncols + c] = s / E[i * m + i];
        }
      } else {
        for (int64_t i = m - 1; i >= 0; --i) {
          T s = X[i * ncols + c];
          for (int64_t k = i + 1; k < m; ++k) s -= E[i * m + k] * X[k * ncols + c];
          X[i * ncols + c] = s / E[i * m + i];
        }
      }
    }
    for (int64_t i = 0; i < m; ++i)
      for (int64_t c = 0; c < ncols; ++c) {
        if (left) Set<T>(out, bbase + i * cols_b + c, X[i * ncols + c]);
        else Set<T>(out, bbase + c * cols_b + i, X[i * ncols + c]);
      }
  }
}

}  // namespace
}  // namespace kernels

StatusOr<Literal> CholeskyKernel(const Instruction& chol, const Literal& a,
                                 const KernelContext& ctx) {
  using namespace kernels;
  const Shape& s = a.shape();
  if (s.rank() < 2 || s.dim(s.rank() - 1) != s.dim(s.rank() - 2))
    return InvalidArgument("cholesky: operand must be batched square matrices");
  if (!IsFloat(s.dtype()) && !IsComplex(s.dtype()))
    return InvalidArgument("cholesky: operand must be floating point or complex");
  ASSIGN_OR_RETURN(Literal out, AllocateResult(Shape(s.dtype(), s.dims()), ctx));
  const int64_t n = s.dim(s.rank() - 1);
  const bool lower = chol.bool_attr(AttrId::kLower, false);
  if (IsComplex(s.dtype())) CholeskyBatch<cd>(a, out, n, lower);
  else CholeskyBatch<double>(a, out, n, lower);
  return out;
}

StatusOr<Literal> TriangularSolveKernel(const Instruction& ts, const Literal& a, const Literal& b,
                                        const KernelContext& ctx) {
  using namespace kernels;
  const Shape& as = a.shape();
  const Shape& bs = b.shape();
  if (as.rank() < 2 || as.rank() != bs.rank() || as.dim(as.rank() - 1) != as.dim(as.rank() - 2))
    return InvalidArgument("triangular-solve: a must be batched square matrices like b");
  if (!IsFloat(as.dtype()) && !IsComplex(as.dtype()))
    return InvalidArgument("triangular-solve: operands must be floating point or complex");
  const int64_t r = as.rank();
  for (int64_t d = 0; d + 2 < r; ++d)
    if (as.dim(d) != bs.dim(d)) return InvalidArgument("triangular-solve: batch dims differ");
  const int64_t m = as.dim(r - 1);
  const bool left = ts.bool_attr(AttrId::kLeftSide, false);
  const int64_t rows_b = bs.dim(r - 2), cols_b = bs.dim(r - 1);
  if ((left && rows_b != m) || (!left && cols_b != m))
    return InvalidArgument("triangular-solve: shapes of a and b do not match");
  std::string transpose = ts.string_attr(AttrId::kTransposeA);
  if (transpose.empty()) transpose = "NO_TRANSPOSE";
  if (transpose != "NO_TRANSPOSE" && transpose != "TRANSPOSE" && transpose != "ADJOINT")
    return InvalidArgument("triangular-solve: bad transpose_a '{}'", transpose);
  ASSIGN_OR_RETURN(Literal out, AllocateResult(Shape(bs.dtype(), bs.dims()), ctx));
  const bool lower = ts.bool_attr(AttrId::kLower, false);
  const bool unit = ts.bool_attr(AttrId::kUnitDiagonal, false);
  if (IsComplex(as.dtype()))
    TriangularSolveBatch<cd>(a, b, out, m, rows_b, cols_b, left, lower, unit, transpose);
  else
    TriangularSolveBatch<double>(a, b, out, m, rows_b, cols_b, left, lower, unit, transpose);
  return out;
}

}  // namespace spmdc

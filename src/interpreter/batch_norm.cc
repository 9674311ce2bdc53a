// batch-norm-training / -inference / -grad, as their elementwise-plus-reduction formulas
// (XLA's operation semantics), accumulated in double and rounded once to the operand type.
#include <cmath>

#include "interpreter/ops.h"

namespace spmdc::interp {
namespace {

struct F64 {
  Literal lit;
  const double* p() const { return lit.data<double>(); }
};

StatusOr<F64> ToF64(const Literal& l, int64_t max_bytes) {
  ASSIGN_OR_RETURN(Literal c, ConvertLiteral(l, DType::kF64, max_bytes));
  return F64{std::move(c)};
}

StatusOr<Literal> FromF64(std::vector<double> v, const Shape& shape, int64_t max_bytes) {
  Literal d(Shape(DType::kF64, shape.dims()));
  std::copy(v.begin(), v.end(), d.mutable_data<double>());
  return ConvertLiteral(d, shape.dtype(), max_bytes);
}

}  // namespace

StatusOr<Literal> EvalBatchNorm(const Instruction& instr, const std::vector<const Literal*>& ops,
                                int64_t max_bytes) {
  const Opcode op = instr.opcode();
  const Literal& x = *ops[0];
  if (!x.shape().IsArray() || !IsFloat(x.shape().dtype()))
    return InvalidArgument("{}: operand must be a float array", OpcodeName(op));
  const int64_t f = instr.int_attr(AttrId::kFeatureIndex, -1);
  const Shape& xs = x.shape();
  if (f < 0 || f >= xs.rank()) return InvalidArgument("{}: feature_index out of range", OpcodeName(op));
  const double* eps_attr = instr.attr<double>(AttrId::kEpsilon);
  const double eps = eps_attr ? static_cast<double>(static_cast<float>(*eps_attr)) : 0.0;
  const int64_t nf = xs.dim(f);
  const int64_t n = xs.num_elements();
  const int64_t per_feature = nf == 0 ? 0 : n / nf;
  const int64_t stride = RowMajorStrides(xs.dims())[f];
  auto feat = [&](int64_t i) { return (i / stride) % nf; };
  for (size_t k = 1; k < ops.size(); ++k) {
    const Literal& l = *ops[k];
    const bool full = op == Opcode::kBatchNormGrad && k == 4;
    if (!l.shape().IsArray() || l.shape().dtype() != xs.dtype() ||
        (full ? l.num_elements() != n : (l.shape().rank() != 1 || l.num_elements() != nf)))
      return InvalidArgument("{}: operand {} has shape {}", OpcodeName(op), k, l.shape().ToString());
  }
  ASSIGN_OR_RETURN(F64 xv, ToF64(x, max_bytes));
  const double* xp = xv.p();
  Shape fshape(xs.dtype(), {nf});

  if (op == Opcode::kBatchNormInference) {
    ASSIGN_OR_RETURN(F64 scale, ToF64(*ops[1], max_bytes));
    ASSIGN_OR_RETURN(F64 offset, ToF64(*ops[2], max_bytes));
    ASSIGN_OR_RETURN(F64 mean, ToF64(*ops[3], max_bytes));
    ASSIGN_OR_RETURN(F64 var, ToF64(*ops[4], max_bytes));
    std::vector<double> out(n);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t c = feat(i);
      out[i] = (xp[i] - mean.p()[c]) / std::sqrt(var.p()[c] + eps) * scale.p()[c] + offset.p()[c];
    }
    return FromF64(std::move(out), xs, max_bytes);
  }

  // Per-feature mean and (biased) variance of x.
  std::vector<double> mean(nf, 0.0), var(nf, 0.0);
  auto stats = [&](const double* p, std::vector<double>& m, std::vector<double>& v) {
    for (int64_t i = 0; i < n; ++i) m[feat(i)] += p[i];
    for (int64_t c = 0; c < nf; ++c) m[c] = per_feature ? m[c] / per_feature : 0.0;
    for (int64_t i = 0; i < n; ++i) {
      const double d = p[i] - m[feat(i)];
      v[feat(i)] += d * d;
    }
    for (int64_t c = 0; c < nf; ++c) v[c] = per_feature ? v[c] / per_feature : 0.0;
  };

  if (op == Opcode::kBatchNormTraining) {
    ASSIGN_OR_RETURN(F64 scale, ToF64(*ops[1], max_bytes));
    ASSIGN_OR_RETURN(F64 offset, ToF64(*ops[2], max_bytes));
    stats(xp, mean, var);
    std::vector<double> out(n);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t c = feat(i);
      out[i] = (xp[i] - mean[c]) / std::sqrt(var[c] + eps) * scale.p()[c] + offset.p()[c];
    }
    std::vector<Literal> elems;
    ASSIGN_OR_RETURN(Literal o, FromF64(std::move(out), xs, max_bytes));
    ASSIGN_OR_RETURN(Literal m, FromF64(mean, fshape, max_bytes));
    ASSIGN_OR_RETURN(Literal v, FromF64(var, fshape, max_bytes));
    elems.push_back(std::move(o));
    elems.push_back(std::move(m));
    elems.push_back(std::move(v));
    return Literal::Tuple(std::move(elems));
  }

  if (op == Opcode::kBatchNormGrad) {
    ASSIGN_OR_RETURN(F64 scale, ToF64(*ops[1], max_bytes));
    ASSIGN_OR_RETURN(F64 mean_in, ToF64(*ops[2], max_bytes));
    ASSIGN_OR_RETURN(F64 var_in, ToF64(*ops[3], max_bytes));
    ASSIGN_OR_RETURN(F64 dy, ToF64(*ops[4], max_bytes));
    const double* g = dy.p();
    std::vector<double> sum_dy(nf, 0.0), sum_dy_xc(nf, 0.0);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t c = feat(i);
      sum_dy[c] += g[i];
      sum_dy_xc[c] += g[i] * (xp[i] - mean_in.p()[c]);
    }
    std::vector<double> grad_x(n), grad_scale(nf), grad_offset(nf);
    for (int64_t c = 0; c < nf; ++c) {
      const double inv = 1.0 / std::sqrt(var_in.p()[c] + eps);
      grad_scale[c] = sum_dy_xc[c] * inv;
      grad_offset[c] = sum_dy[c];
    }
    const double nn = static_cast<double>(per_feature);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t c = feat(i);
      const double ve = var_in.p()[c] + eps;
      const double xc = xp[i] - mean_in.p()[c];
      grad_x[i] = scale.p()[c] / std::sqrt(ve) *
                  (g[i] - sum_dy[c] / nn - xc * sum_dy_xc[c] / (ve * nn));
    }
    std::vector<Literal> elems;
    ASSIGN_OR_RETURN(Literal gx, FromF64(std::move(grad_x), xs, max_bytes));
    ASSIGN_OR_RETURN(Literal gs, FromF64(std::move(grad_scale), fshape, max_bytes));
    ASSIGN_OR_RETURN(Literal go, FromF64(std::move(grad_offset), fshape, max_bytes));
    elems.push_back(std::move(gx));
    elems.push_back(std::move(gs));
    elems.push_back(std::move(go));
    return Literal::Tuple(std::move(elems));
  }
  return Internal("{} is not a batch-norm op", OpcodeName(op));
}

}  // namespace spmdc::interp

// dot: general batch/contracting dimensions, any dtype. Operands are viewed as [B, M, K] and
// [B, K, N] (batch dims, free dims, contracting dims); the result [B, M, N] is the row-major
// result of XLA's dot (batch..., lhs free..., rhs free...). Float results (f32, and f16/bf16/f8
// computed in f32 and rounded once) run on oneDNN's matmul, reading operands in place when their
// layout is already [B][M][K] or [B][K][M]; f64, complex and integers run a blocked loop.
#include <algorithm>
#include <atomic>
#include <numeric>
#include <string>
#include <unordered_map>

#include "interpreter/kernels/common.h"
#include "interpreter/kernels/dnnl_util.h"
#include "interpreter/kernels/pack.h"

namespace spmdc {
namespace kernels {
namespace {

struct DotPlan {
  int64_t B = 1, M = 1, K = 1, N = 1;
  std::vector<int64_t> lhs_perm;  // batch, free, contracting
  std::vector<int64_t> rhs_perm;  // batch, contracting, free
  std::vector<int64_t> lhs_perm_t;  // batch, contracting, free (lhs stored transposed)
  std::vector<int64_t> rhs_perm_t;  // batch, free, contracting (rhs stored transposed)
};

std::vector<int64_t> FreeDims(int64_t rank, const std::vector<int64_t>& a,
                              const std::vector<int64_t>& b) {
  std::vector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(a.begin(), a.end(), d) == a.end() && std::find(b.begin(), b.end(), d) == b.end())
      out.push_back(d);
  }
  return out;
}

std::vector<int64_t> Concat(std::initializer_list<const std::vector<int64_t>*> parts) {
  std::vector<int64_t> out;
  for (const auto* p : parts) out.insert(out.end(), p->begin(), p->end());
  return out;
}

bool IsIdentity(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<int64_t>(i)) return false;
  return true;
}

// out[b, i, j] = sum_k a[b, i, k] * bm[b, k, j], accumulation in order of k (as XLA's evaluator).
// Rows (b, i) are spread over threads.
template <typename C>
void MatmulLoop(const DotPlan& p, const C* a, const C* bm, C* out, const KernelContext& ctx) {
  constexpr int64_t kBlockJ = 256;
  ParallelFor(p.B * p.M, p.B * p.M * p.N * p.K, ctx, [&](int64_t r0, int64_t r1) {
    for (int64_t j0 = 0; j0 < p.N; j0 += kBlockJ) {
      const int64_t j1 = std::min(p.N, j0 + kBlockJ);
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t b = r / p.M, i = r % p.M;
        const C* arow = a + (b * p.M + i) * p.K;
        const C* bb = bm + b * p.K * p.N;
        C* orow = out + (b * p.M + i) * p.N;
        for (int64_t j = j0; j < j1; ++j) orow[j] = C(0);
        for (int64_t k = 0; k < p.K; ++k) {
          const C av = arow[k];
          const C* brow = bb + k * p.N;
          for (int64_t j = j0; j < j1; ++j) orow[j] += av * brow[j];
        }
      }
    }
  });
}

std::atomic<int64_t> g_dnnl_matmuls{0};

// oneDNN matmul on f32 views with the given element strides.
bool DnnlMatmul(const DotPlan& p, const float* a, std::array<int64_t, 3> a_strides,
                const float* bm, std::array<int64_t, 3> b_strides, float* out) {
  using namespace dnnl;
  try {
    engine& eng = CpuEngine();
    memory::desc a_md({p.B, p.M, p.K}, memory::data_type::f32,
                      {a_strides[0], a_strides[1], a_strides[2]});
    memory::desc b_md({p.B, p.K, p.N}, memory::data_type::f32,
                      {b_strides[0], b_strides[1], b_strides[2]});
    memory::desc c_md({p.B, p.M, p.N}, memory::data_type::f32, {p.M * p.N, p.N, 1});
    // Per-thread cache of primitives by descriptor (creating one costs more than a small
    // matmul).
    std::string key = fmt::format("{}|{}|{}|{}|{}|{}|{}", p.B, p.M, p.K, p.N, a_strides,
                                  b_strides, 0);
    thread_local std::unordered_map<std::string, matmul> cache;
    auto it = cache.find(key);
    if (it == cache.end()) {
      if (cache.size() > 64) cache.clear();
      matmul::primitive_desc pd(matmul::desc(a_md, b_md, c_md), eng);
      it = cache.emplace(key, matmul(pd)).first;
    }
    const matmul& prim = it->second;
    memory am(a_md, eng, const_cast<float*>(a));
    memory bmem(b_md, eng, const_cast<float*>(bm));
    memory cm(c_md, eng, out);
    stream s(eng);
    prim.execute(s, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bmem}, {DNNL_ARG_DST, cm}});
    s.wait();
    ++g_dnnl_matmuls;
    return true;
  } catch (const dnnl::error&) {
    return false;
  }
}

// The float path: operands as f32 (in place when possible), oneDNN, then rounding to `out`.
Status FloatDot(const DotPlan& p, const Literal& lhs, const Literal& rhs, Literal& out,
                const KernelContext& ctx) {
  std::vector<float> lbuf, rbuf, obuf;
  const float* a = nullptr;
  const float* bm = nullptr;
  std::array<int64_t, 3> as{p.M * p.K, p.K, 1}, bs{p.K * p.N, p.N, 1};
  if (lhs.shape().dtype() == DType::kF32 && IsIdentity(p.lhs_perm)) {
    a = lhs.data<float>();
  } else if (lhs.shape().dtype() == DType::kF32 && IsIdentity(p.lhs_perm_t)) {
    a = lhs.data<float>();
    as = {p.M * p.K, 1, p.M};
  } else {
    lbuf.resize(p.B * p.M * p.K);
    PackPermuted<float>(lhs, p.lhs_perm, lbuf.data());
    a = lbuf.data();
  }
  if (rhs.shape().dtype() == DType::kF32 && IsIdentity(p.rhs_perm)) {
    bm = rhs.data<float>();
  } else if (rhs.shape().dtype() == DType::kF32 && IsIdentity(p.rhs_perm_t)) {
    bm = rhs.data<float>();
    bs = {p.K * p.N, 1, p.K};
  } else {
    rbuf.resize(p.B * p.K * p.N);
    PackPermuted<float>(rhs, p.rhs_perm, rbuf.data());
    bm = rbuf.data();
  }
  float* o = nullptr;
  const bool direct_out = out.shape().dtype() == DType::kF32;
  if (direct_out) {
    o = out.mutable_data<float>();
  } else {
    obuf.resize(p.B * p.M * p.N);
    o = obuf.data();
  }
  SetIntraOpThreads(ctx);
  if (!DnnlMatmul(p, a, as, bm, bs, o)) {
    // Exotic strides or an unsupported configuration: pack densely and loop.
    if (lbuf.empty()) {
      lbuf.resize(p.B * p.M * p.K);
      PackPermuted<float>(lhs, p.lhs_perm, lbuf.data());
    }
    if (rbuf.empty()) {
      rbuf.resize(p.B * p.K * p.N);
      PackPermuted<float>(rhs, p.rhs_perm, rbuf.data());
    }
    MatmulLoop<float>(p, lbuf.data(), rbuf.data(), o, ctx);
  }
  if (!direct_out) {
    const int64_t n = p.B * p.M * p.N;
    DispatchDType(out.shape().dtype(), [&](auto tr) {
      using Tr = decltype(tr);
      if constexpr (std::is_same_v<typename Tr::Compute, float>) {
        auto* dst = out.mutable_data<typename Tr::Storage>();
        for (int64_t i = 0; i < n; ++i) dst[i] = Tr::Store(obuf[i]);
      }
    });
  }
  return absl::OkStatus();
}

template <typename C>
void TypedDot(const DotPlan& p, const Literal& lhs, const Literal& rhs, C* out,
              const KernelContext& ctx) {
  std::vector<C> a(p.B * p.M * p.K), bm(p.B * p.K * p.N);
  PackPermuted<C>(lhs, p.lhs_perm, a.data());
  PackPermuted<C>(rhs, p.rhs_perm, bm.data());
  MatmulLoop<C>(p, a.data(), bm.data(), out, ctx);
}

}  // namespace

int64_t DnnlMatmulCount() { return g_dnnl_matmuls.load(); }

}  // namespace kernels

StatusOr<Literal> DotKernel(const Instruction& dot, const Literal& lhs, const Literal& rhs,
                            const KernelContext& ctx) {
  using namespace kernels;
  const std::vector<int64_t>& lb = dot.ints_attr(AttrId::kLhsBatchDims);
  const std::vector<int64_t>& lc = dot.ints_attr(AttrId::kLhsContractingDims);
  const std::vector<int64_t>& rb = dot.ints_attr(AttrId::kRhsBatchDims);
  const std::vector<int64_t>& rc = dot.ints_attr(AttrId::kRhsContractingDims);
  const Shape& ls = lhs.shape();
  const Shape& rs = rhs.shape();
  if (!ls.IsArray() || !rs.IsArray() || !dot.shape().IsArray())
    return InvalidArgument("dot: operands and result must be arrays");
  if (lb.size() != rb.size() || lc.size() != rc.size())
    return InvalidArgument("dot: batch/contracting dimension counts differ");
  auto valid = [](const std::vector<int64_t>& ds, int64_t rank) {
    for (int64_t d : ds)
      if (d < 0 || d >= rank) return false;
    return true;
  };
  if (!valid(lb, ls.rank()) || !valid(lc, ls.rank()) || !valid(rb, rs.rank()) ||
      !valid(rc, rs.rank()))
    return InvalidArgument("dot: dimension number out of range");
  auto distinct = [](const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
    std::vector<int64_t> all = a;
    all.insert(all.end(), b.begin(), b.end());
    std::sort(all.begin(), all.end());
    return std::adjacent_find(all.begin(), all.end()) == all.end();
  };
  if (!distinct(lb, lc) || !distinct(rb, rc))
    return InvalidArgument("dot: a dimension is listed twice");
  DotPlan p;
  std::vector<int64_t> lf = FreeDims(ls.rank(), lb, lc), rf = FreeDims(rs.rank(), rb, rc);
  for (size_t i = 0; i < lb.size(); ++i) {
    if (ls.dim(lb[i]) != rs.dim(rb[i])) return InvalidArgument("dot: batch sizes differ");
    p.B *= ls.dim(lb[i]);
  }
  for (size_t i = 0; i < lc.size(); ++i) {
    if (ls.dim(lc[i]) != rs.dim(rc[i])) return InvalidArgument("dot: contracting sizes differ");
    p.K *= ls.dim(lc[i]);
  }
  for (int64_t d : lf) p.M *= ls.dim(d);
  for (int64_t d : rf) p.N *= rs.dim(d);
  p.lhs_perm = Concat({&lb, &lf, &lc});
  p.lhs_perm_t = Concat({&lb, &lc, &lf});
  p.rhs_perm = Concat({&rb, &rc, &rf});
  p.rhs_perm_t = Concat({&rb, &rf, &rc});
  if (dot.shape().num_elements() != p.B * p.M * p.N)
    return InvalidArgument("dot: result shape {} does not match operands {} and {}",
                           dot.shape().ToString(false), ls.ToString(false), rs.ToString(false));
  Shape out_shape = dot.shape();
  out_shape.set_layout(std::nullopt);
  const int64_t n_out = p.B * p.M * p.N;
  // Every element is written below, except for empty sums (K == 0), which are zeros.
  ASSIGN_OR_RETURN(Literal out, AllocateResult(out_shape, ctx, /*overwrite=*/p.K > 0));
  if (n_out == 0 || p.K == 0) return out;

  const DType t = out_shape.dtype();
  if (t == DType::kF32 || t == DType::kF16 || t == DType::kBF16 || IsF8(t)) {
    RETURN_IF_ERROR(FloatDot(p, lhs, rhs, out, ctx));
  } else if (t == DType::kF64) {
    TypedDot<double>(p, lhs, rhs, out.mutable_data<double>(), ctx);
  } else if (t == DType::kC64) {
    TypedDot<std::complex<float>>(p, lhs, rhs, out.mutable_data<std::complex<float>>(), ctx);
  } else if (t == DType::kC128) {
    TypedDot<std::complex<double>>(p, lhs, rhs, out.mutable_data<std::complex<double>>(), ctx);
  } else if (IsInteger(t) || t == DType::kPred) {
    std::vector<uint64_t> a(p.B * p.M * p.K), bm(p.B * p.K * p.N), o(n_out);
    // Signed values convert to their two's complement bit pattern; products and sums wrap.
    std::vector<int64_t> tmp_a(a.size()), tmp_b(bm.size());
    PackPermuted<int64_t>(lhs, p.lhs_perm, tmp_a.data());
    PackPermuted<int64_t>(rhs, p.rhs_perm, tmp_b.data());
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<uint64_t>(tmp_a[i]);
    for (size_t i = 0; i < bm.size(); ++i) bm[i] = static_cast<uint64_t>(tmp_b[i]);
    // Wrapping arithmetic in uint64: the low bits equal XLA's wrapping result.
    MatmulLoop<uint64_t>(p, a.data(), bm.data(), o.data(), ctx);
    for (int64_t i = 0; i < n_out; ++i) out.SetInt(i, static_cast<int64_t>(o[i]));
  } else {
    return Unimplemented("dot: result type {}", DTypeName(t));
  }
  return out;
}

}  // namespace spmdc

// convolution: XLA semantics (dim_labels, window strides/padding/base and window dilation/
// reversal, feature_group_count, batch_group_count, any number of spatial dims).
//
// Fast path: oneDNN forward convolution in f32 (f16/bf16 operands converted, result rounded
// once) when there is no base dilation, no reversal, batch_group_count == 1, no negative padding
// and 0..3 spatial dims; operands are described to oneDNN with their actual strides, so no
// transposition is made by hand. Everything else runs the exact loop below, which accumulates in
// the order of XLA's evaluator (window positions row-major, input features innermost).
#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <unordered_map>

#include "interpreter/kernels/common.h"
#include "interpreter/kernels/dnnl_util.h"
#include "interpreter/kernels/pack.h"

namespace spmdc {
namespace kernels {
namespace {

struct ConvGeometry {
  int64_t N = 0, C = 0, I = 0, O = 0, N_out = 0;
  int64_t fgc = 1, bgc = 1;
  int64_t nsp = 0;
  std::vector<int64_t> S, W, Q;  // input, kernel, output spatial sizes
  std::vector<WindowDim> win;
};

// Writes the canonical buffer `canon` (dims in the order of `perm` over `out`'s dims) into `out`.
template <typename C>
void UnpackPermuted(const C* canon, const std::vector<int64_t>& perm, Literal& out) {
  const std::vector<int64_t>& dims = out.shape().dims();
  const int64_t rank = static_cast<int64_t>(perm.size());
  if (out.num_elements() == 0) return;
  std::vector<int64_t> strides = RowMajorStrides(dims);
  std::vector<int64_t> cdims(rank), cstr(rank);
  for (int64_t k = 0; k < rank; ++k) {
    cdims[k] = dims[perm[k]];
    cstr[k] = strides[perm[k]];
  }
  DispatchDType(out.shape().dtype(), [&](auto tr) {
    using Tr = decltype(tr);
    using S = typename Tr::Storage;
    S* dst = out.mutable_data<S>();
    std::vector<int64_t> idx(rank, 0);
    int64_t i = 0;
    do {
      int64_t off = 0;
      for (int64_t k = 0; k < rank; ++k) off += idx[k] * cstr[k];
      dst[off] = Tr::Store(ConvertTo<typename Tr::Compute>(canon[i++]));
    } while (NextIndex(idx, cdims));
  });
}

// The exact loop. lhs packed as [N][S...][C], rhs as [O][W...][I]; result [N_out][O][Q...].
template <typename C>
void ConvLoop(const ConvGeometry& g, const C* x, const C* w, C* out, const KernelContext& ctx) {
  const int64_t nsp = g.nsp;
  const int64_t Og = g.O / g.fgc, Ob = g.O / g.bgc, Nb = g.N / g.bgc;
  // Input element strides of the packed lhs, and kernel strides of the packed rhs.
  std::vector<int64_t> xs(nsp), ws(nsp);
  int64_t acc = g.C;
  for (int64_t i = nsp - 1; i >= 0; --i) { xs[i] = acc; acc *= g.S[i]; }
  const int64_t x_batch_stride = acc;
  acc = g.I;
  for (int64_t i = nsp - 1; i >= 0; --i) { ws[i] = acc; acc *= g.W[i]; }
  const int64_t w_out_stride = acc;
  // pos[i][q * W + k]: input offset along spatial dim i (times its stride), or -1 (skip).
  std::vector<std::vector<int64_t>> pos(nsp);
  for (int64_t i = 0; i < nsp; ++i) {
    const WindowDim& wd = g.win[i];
    pos[i].assign(g.Q[i] * g.W[i], -1);
    for (int64_t q = 0; q < g.Q[i]; ++q) {
      for (int64_t k = 0; k < g.W[i]; ++k) {
        int64_t p = q * wd.stride - wd.padding_low + k * wd.window_dilation;
        if (wd.base_dilation > 1) {
          if (p % wd.base_dilation != 0) continue;
          p /= wd.base_dilation;
        }
        if (p < 0 || p >= g.S[i]) continue;
        pos[i][q * g.W[i] + k] = p * xs[i];
      }
    }
  }
  // Kernel offsets of each window position (row-major), reversal applied.
  const int64_t nwin = Product(g.W);
  std::vector<int64_t> wk(nwin * (nsp + 1));
  {
    std::vector<int64_t> k(nsp, 0);
    for (int64_t j = 0; j < nwin; ++j) {
      int64_t off = 0;
      for (int64_t i = 0; i < nsp; ++i) {
        wk[j * (nsp + 1) + i] = k[i];
        int64_t kk = g.win[i].window_reversal ? g.W[i] - 1 - k[i] : k[i];
        off += kk * ws[i];
      }
      wk[j * (nsp + 1) + nsp] = off;
      NextIndex(k, g.W);
    }
  }
  const int64_t nq = Product(g.Q);
  ParallelFor(g.N_out * g.O, g.N_out * g.O * nq * nwin * g.I, ctx, [&](int64_t r0, int64_t r1) {
    std::vector<int64_t> q(nsp);
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t n = r / g.O, o = r % g.O;
      const int64_t fg = o / Og, bg = o / Ob;
      const C* xb = x + (bg * Nb + n) * x_batch_stride + fg * g.I;
      const C* wo = w + o * w_out_stride;
      C* ob = out + (n * g.O + o) * nq;
      std::fill(q.begin(), q.end(), 0);
      for (int64_t qi = 0; qi < nq; ++qi) {
        C sum = C(0);
        for (int64_t j = 0; j < nwin; ++j) {
          const int64_t* kj = &wk[j * (nsp + 1)];
          int64_t off = 0;
          bool ok = true;
          for (int64_t i = 0; i < nsp; ++i) {
            int64_t p = pos[i][q[i] * g.W[i] + kj[i]];
            if (p < 0) { ok = false; break; }
            off += p;
          }
          if (!ok) continue;
          const C* xp = xb + off;
          const C* wp = wo + kj[nsp];
          for (int64_t c = 0; c < g.I; ++c) sum += xp[c] * wp[c];
        }
        ob[qi] = sum;
        NextIndex(q, g.Q);
      }
    }
  });
}

template <typename C>
Status ExactConv(const ConvGeometry& g, const ConvDims& dn, const Literal& lhs,
                 const Literal& rhs, Literal& out, const KernelContext& ctx) {
  std::vector<int64_t> lperm{dn.input_batch}, rperm{dn.kernel_output_feature},
      operm{dn.output_batch, dn.output_feature};
  lperm.insert(lperm.end(), dn.input_spatial.begin(), dn.input_spatial.end());
  lperm.push_back(dn.input_feature);
  rperm.insert(rperm.end(), dn.kernel_spatial.begin(), dn.kernel_spatial.end());
  rperm.push_back(dn.kernel_input_feature);
  operm.insert(operm.end(), dn.output_spatial.begin(), dn.output_spatial.end());
  std::vector<C> x(lhs.num_elements()), w(rhs.num_elements()), o(out.num_elements());
  PackPermuted<C>(lhs, lperm, x.data());
  PackPermuted<C>(rhs, rperm, w.data());
  ConvLoop<C>(g, x.data(), w.data(), o.data(), ctx);
  UnpackPermuted<C>(o.data(), operm, out);
  return absl::OkStatus();
}

Status IntegerConv(const ConvGeometry& g, const ConvDims& dn, const Literal& lhs,
                   const Literal& rhs, Literal& out, const KernelContext& ctx) {
  // Wrapping arithmetic: compute in uint64 and keep the low bits.
  Literal l64 = ConvertLiteral(lhs, DType::kU64), r64 = ConvertLiteral(rhs, DType::kU64);
  Shape s = out.shape();
  s.set_dtype(DType::kU64);
  Literal o64(s);
  RETURN_IF_ERROR(ExactConv<uint64_t>(g, dn, l64, r64, o64, ctx));
  for (int64_t i = 0; i < out.num_elements(); ++i) out.SetInt(i, o64.data<int64_t>()[i]);
  return absl::OkStatus();
}

// oneDNN forward convolution on f32 buffers laid out row-major in `*_dims` (the HLO operands'
// dims); g.N / g.O may describe a slice (batch groups), the strides stay those of the full arrays.
bool DnnlConv(const ConvGeometry& g, const ConvDims& dn, const float* x,
              const std::vector<int64_t>& lhs_dims, const float* w,
              const std::vector<int64_t>& rhs_dims, float* out_data,
              const std::vector<int64_t>& out_dims, const KernelContext& ctx) {
  using namespace dnnl;
  using dims_t = memory::dims;
  const int64_t nsp = std::max<int64_t>(g.nsp, 1);
  std::vector<int64_t> ls = RowMajorStrides(lhs_dims);
  std::vector<int64_t> rs = RowMajorStrides(rhs_dims);
  std::vector<int64_t> os = RowMajorStrides(out_dims);
  dims_t src_dims{g.N, g.C}, src_str{ls[dn.input_batch], ls[dn.input_feature]};
  dims_t dst_dims{g.N, g.O}, dst_str{os[dn.output_batch], os[dn.output_feature]};
  dims_t wei_dims, wei_str;
  if (g.fgc > 1) {
    wei_dims = {g.fgc, g.O / g.fgc, g.I};
    wei_str = {(g.O / g.fgc) * rs[dn.kernel_output_feature], rs[dn.kernel_output_feature],
               rs[dn.kernel_input_feature]};
  } else {
    wei_dims = {g.O, g.I};
    wei_str = {rs[dn.kernel_output_feature], rs[dn.kernel_input_feature]};
  }
  dims_t strides, dil, pl, pr;
  if (g.nsp == 0) {  // a 1x1 "convolution" over a unit spatial dim
    src_dims.push_back(1); src_str.push_back(1);
    dst_dims.push_back(1); dst_str.push_back(1);
    wei_dims.push_back(1); wei_str.push_back(1);
    strides = {1}; dil = {0}; pl = {0}; pr = {0};
  }
  for (int64_t i = 0; i < g.nsp; ++i) {
    src_dims.push_back(g.S[i]); src_str.push_back(ls[dn.input_spatial[i]]);
    dst_dims.push_back(g.Q[i]); dst_str.push_back(os[dn.output_spatial[i]]);
    wei_dims.push_back(g.W[i]); wei_str.push_back(rs[dn.kernel_spatial[i]]);
    strides.push_back(g.win[i].stride);
    dil.push_back(g.win[i].window_dilation - 1);
    pl.push_back(g.win[i].padding_low);
    pr.push_back(g.win[i].padding_high);
  }
  (void)nsp;
  try {
    engine& eng = CpuEngine();
    auto f32 = memory::data_type::f32;
    memory::desc src_md(src_dims, f32, src_str), dst_md(dst_dims, f32, dst_str),
        wei_md(wei_dims, f32, wei_str);
    // Primitive descriptors cost far more to create than small convolutions take to run: keep
    // the primitives of recent shapes, per thread (the descriptor text is the key).
    std::string key = fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", src_dims, src_str, dst_dims,
                                  dst_str, wei_dims, wei_str, strides, dil, pl, pr);
    struct Entry {
      convolution_forward prim;
      memory::desc src, wei, dst;
      reorder wei_reorder;
      bool has_wei_reorder = false;
    };
    thread_local std::unordered_map<std::string, std::shared_ptr<Entry>> cache;
    std::shared_ptr<Entry>& e = cache[key];
    if (!e) {
      if (cache.size() > 64) {
        cache.clear();
        return DnnlConv(g, dn, x, lhs_dims, w, rhs_dims, out_data, out_dims, ctx);
      }
      memory::desc wei_any(wei_dims, f32, memory::format_tag::any);
      auto make_pd = [&](const memory::desc& s, const memory::desc& d) {
        convolution_forward::desc cd(prop_kind::forward_inference, algorithm::convolution_direct,
                                     s, wei_any, d, strides, dil, pl, pr);
        return convolution_forward::primitive_desc(cd, eng);
      };
      // Prefer the operands' own layouts (no reorders); fall back to oneDNN's preferred layouts
      // when that would select the slow reference implementation.
      convolution_forward::primitive_desc pd = make_pd(src_md, dst_md);
      if (std::string(pd.impl_info_str()).find("ref") != std::string::npos) {
        memory::desc src_any(src_dims, f32, memory::format_tag::any);
        memory::desc dst_any(dst_dims, f32, memory::format_tag::any);
        pd = make_pd(src_any, dst_any);
      }
      auto entry = std::make_shared<Entry>();
      entry->prim = convolution_forward(pd);
      entry->src = pd.src_desc();
      entry->wei = pd.weights_desc();
      entry->dst = pd.dst_desc();
      if (entry->wei != wei_md) {
        // Small reorders run on one thread (oneDNN fixes the thread count at creation).
        if (Product(rhs_dims) < (int64_t{1} << 20)) SetOmpThreads(1);
        entry->wei_reorder = reorder(reorder::primitive_desc(eng, wei_md, eng, entry->wei));
        SetIntraOpThreads(ctx);
        entry->has_wei_reorder = true;
      }
      e = std::move(entry);
    }
    const Entry& ent = *e;
    stream s(eng);
    memory user_src(src_md, eng, const_cast<float*>(x));
    memory user_wei(wei_md, eng, const_cast<float*>(w));
    memory user_dst(dst_md, eng, out_data);
    memory src_m = user_src, wei_m = user_wei, dst_m = user_dst;
    if (ent.src != src_md) {
      src_m = memory(ent.src, eng);
      reorder(user_src, src_m).execute(s, user_src, src_m);
    }
    if (ent.has_wei_reorder) {
      wei_m = memory(ent.wei, eng);
      if (Product(rhs_dims) < (int64_t{1} << 20)) SetOmpThreads(1);
      ent.wei_reorder.execute(s, user_wei, wei_m);
      s.wait();
      SetIntraOpThreads(ctx);
    }
    if (ent.dst != dst_md) dst_m = memory(ent.dst, eng);
    ent.prim.execute(s, {{DNNL_ARG_SRC, src_m}, {DNNL_ARG_WEIGHTS, wei_m}, {DNNL_ARG_DST, dst_m}});
    if (ent.dst != dst_md) reorder(dst_m, user_dst).execute(s, dst_m, user_dst);
    s.wait();
    return true;
  } catch (const dnnl::error&) {
    return false;
  }
}

// Rewrites base dilation and negative padding into an explicitly dilated, cropped input, and
// window reversal into a reversed kernel, so that oneDNN's forward convolution applies. Returns
// false when the result would be degenerate (the exact loop handles those).
bool Canonicalize(ConvGeometry& g, const ConvDims& dn, Literal& l32, Literal& r32) {
  bool dilate = false, reverse = false;
  for (const WindowDim& wd : g.win) {
    dilate |= wd.base_dilation > 1 || wd.padding_low < 0 || wd.padding_high < 0;
    reverse |= wd.window_reversal;
  }
  if (dilate) {
    std::vector<int64_t> dims = l32.shape().dims();
    std::vector<int64_t> crop(g.nsp), bd(g.nsp);
    for (int64_t i = 0; i < g.nsp; ++i) {
      WindowDim& wd = g.win[i];
      const int64_t dil = (g.S[i] - 1) * wd.base_dilation + 1;
      crop[i] = std::max<int64_t>(0, -wd.padding_low);
      const int64_t size = dil - crop[i] - std::max<int64_t>(0, -wd.padding_high);
      if (size <= 0) return false;
      bd[i] = wd.base_dilation;
      dims[dn.input_spatial[i]] = size;
      g.S[i] = size;
      wd.padding_low = std::max<int64_t>(0, wd.padding_low);
      wd.padding_high = std::max<int64_t>(0, wd.padding_high);
      wd.base_dilation = 1;
    }
    Literal big(Shape(DType::kF32, dims));
    const std::vector<int64_t> ndims = dims;
    const std::vector<int64_t> nstr = RowMajorStrides(ndims);
    const std::vector<int64_t>& odims = l32.shape().dims();
    const float* src = l32.data<float>();
    float* dst = big.mutable_data<float>();
    std::vector<int64_t> idx(odims.size(), 0);
    std::vector<int64_t> spatial_of(odims.size(), -1);
    for (int64_t i = 0; i < g.nsp; ++i) spatial_of[dn.input_spatial[i]] = i;
    for (int64_t e = 0; e < l32.num_elements(); ++e) {
      int64_t off = 0;
      bool ok = true;
      for (size_t d = 0; d < odims.size(); ++d) {
        int64_t p = idx[d];
        if (spatial_of[d] >= 0) {
          p = p * bd[spatial_of[d]] - crop[spatial_of[d]];
          if (p < 0 || p >= ndims[d]) { ok = false; break; }
        }
        off += p * nstr[d];
      }
      if (ok) dst[off] = src[e];
      NextIndex(idx, odims);
    }
    l32 = std::move(big);
  }
  if (reverse) {
    const std::vector<int64_t>& dims = r32.shape().dims();
    Literal rev(Shape(DType::kF32, dims));
    const std::vector<int64_t> str = RowMajorStrides(dims);
    std::vector<bool> flip(dims.size(), false);
    for (int64_t i = 0; i < g.nsp; ++i)
      if (g.win[i].window_reversal) flip[dn.kernel_spatial[i]] = true;
    const float* src = r32.data<float>();
    float* dst = rev.mutable_data<float>();
    std::vector<int64_t> idx(dims.size(), 0);
    for (int64_t e = 0; e < r32.num_elements(); ++e) {
      int64_t off = 0;
      for (size_t d = 0; d < dims.size(); ++d)
        off += (flip[d] ? dims[d] - 1 - idx[d] : idx[d]) * str[d];
      dst[off] = src[e];
      NextIndex(idx, dims);
    }
    for (WindowDim& wd : g.win) wd.window_reversal = false;
    r32 = std::move(rev);
  }
  return true;
}

std::atomic<int64_t> g_dnnl_convs{0};

// The oneDNN path: canonicalise, then one forward convolution per batch group.
bool DnnlConvolution(ConvGeometry g, const ConvDims& dn, const Literal& lhs, const Literal& rhs,
                     float* out, const std::vector<int64_t>& out_dims, const KernelContext& ctx) {
  Literal l32 = ConvertLiteral(lhs, DType::kF32), r32 = ConvertLiteral(rhs, DType::kF32);
  if (!Canonicalize(g, dn, l32, r32)) return false;
  SetIntraOpThreads(ctx);
  if (g.bgc == 1) {
    bool ok = DnnlConv(g, dn, l32.data<float>(), l32.shape().dims(), r32.data<float>(),
                       r32.shape().dims(), out, out_dims, ctx);
    g_dnnl_convs += ok;
    return ok;
  }
  if (g.fgc != 1) return false;
  const std::vector<int64_t> ls = RowMajorStrides(l32.shape().dims());
  const std::vector<int64_t> rs = RowMajorStrides(r32.shape().dims());
  const std::vector<int64_t> os = RowMajorStrides(out_dims);
  ConvGeometry sub = g;
  sub.N = g.N / g.bgc;
  sub.O = g.O / g.bgc;
  sub.bgc = 1;
  for (int64_t b = 0; b < g.bgc; ++b) {
    if (!DnnlConv(sub, dn, l32.data<float>() + b * sub.N * ls[dn.input_batch], l32.shape().dims(),
                  r32.data<float>() + b * sub.O * rs[dn.kernel_output_feature], r32.shape().dims(),
                  out + b * sub.O * os[dn.output_feature], out_dims, ctx))
      return false;
  }
  ++g_dnnl_convs;
  return true;
}

}  // namespace

int64_t DnnlConvolutionCount() { return g_dnnl_convs.load(); }

// Exposed for tests and benchmarks: forces the exact loop (no oneDNN).
StatusOr<Literal> ConvolutionKernelImpl(const Instruction& conv, const Literal& lhs,
                                        const Literal& rhs, const KernelContext& ctx,
                                        bool allow_dnnl) {
  const ConvDims* dnp = conv.attr<ConvDims>(AttrId::kDimLabels);
  if (dnp == nullptr) return InvalidArgument("convolution: missing dim_labels");
  const ConvDims& dn = *dnp;
  const Shape& lsh = lhs.shape();
  const Shape& rsh = rhs.shape();
  const Shape& osh = conv.shape();
  ConvGeometry g;
  g.nsp = static_cast<int64_t>(dn.input_spatial.size());
  if (dn.kernel_spatial.size() != static_cast<size_t>(g.nsp) ||
      dn.output_spatial.size() != static_cast<size_t>(g.nsp) || lsh.rank() != g.nsp + 2 ||
      rsh.rank() != g.nsp + 2 || osh.rank() != g.nsp + 2)
    return InvalidArgument("convolution: dim_labels do not match operand ranks");
  auto is_perm = [](int64_t a, int64_t b, const std::vector<int64_t>& rest, int64_t rank) {
    std::vector<int64_t> all{a, b};
    all.insert(all.end(), rest.begin(), rest.end());
    std::sort(all.begin(), all.end());
    for (int64_t i = 0; i < rank; ++i)
      if (all[i] != i) return false;
    return true;
  };
  if (!is_perm(dn.input_batch, dn.input_feature, dn.input_spatial, g.nsp + 2) ||
      !is_perm(dn.kernel_input_feature, dn.kernel_output_feature, dn.kernel_spatial, g.nsp + 2) ||
      !is_perm(dn.output_batch, dn.output_feature, dn.output_spatial, g.nsp + 2))
    return InvalidArgument("convolution: dim_labels are not permutations of the dims");
  g.N = lsh.dim(dn.input_batch);
  g.C = lsh.dim(dn.input_feature);
  g.I = rsh.dim(dn.kernel_input_feature);
  g.O = rsh.dim(dn.kernel_output_feature);
  g.N_out = osh.dim(dn.output_batch);
  g.fgc = conv.int_attr(AttrId::kFeatureGroupCount, 1);
  g.bgc = conv.int_attr(AttrId::kBatchGroupCount, 1);
  if (g.fgc < 1 || g.bgc < 1 || g.C != g.I * g.fgc || g.O % g.fgc != 0 || g.O % g.bgc != 0 ||
      g.N % g.bgc != 0 || g.N_out != g.N / g.bgc || osh.dim(dn.output_feature) != g.O)
    return InvalidArgument("convolution: inconsistent feature/batch group sizes");
  const Window* window = conv.attr<Window>(AttrId::kWindow);
  g.win.resize(g.nsp);
  if (window != nullptr) {
    if (window->dims.size() != static_cast<size_t>(g.nsp))
      return InvalidArgument("convolution: window rank differs from spatial rank");
    g.win = window->dims;
  } else {
    for (int64_t i = 0; i < g.nsp; ++i) g.win[i].size = rsh.dim(dn.kernel_spatial[i]);
  }
  bool dnnl_ok = allow_dnnl && g.nsp <= 3;
  for (int64_t i = 0; i < g.nsp; ++i) {
    g.S.push_back(lsh.dim(dn.input_spatial[i]));
    g.W.push_back(rsh.dim(dn.kernel_spatial[i]));
    g.Q.push_back(osh.dim(dn.output_spatial[i]));
    const WindowDim& wd = g.win[i];
    if (wd.stride < 1 || wd.window_dilation < 1 || wd.base_dilation < 1)
      return InvalidArgument("convolution: window strides and dilations must be positive");
    if (wd.size != g.W[i]) return InvalidArgument("convolution: window size differs from kernel");
    // The result size must be the window count (XLA's shape inference).
    int64_t eff_k = g.W[i] == 0 ? 0 : (g.W[i] - 1) * wd.window_dilation + 1;
    int64_t dilated = g.S[i] == 0 ? 0 : (g.S[i] - 1) * wd.base_dilation + 1;
    int64_t padded = dilated + wd.padding_low + wd.padding_high;
    int64_t expect = padded < eff_k ? 0 : (padded - eff_k) / wd.stride + 1;
    if (expect != g.Q[i])
      return InvalidArgument("convolution: result spatial size {} differs from the window count {}",
                             g.Q[i], expect);
  }
  Shape out_shape = osh;
  out_shape.set_layout(std::nullopt);
  // Every path below writes every element.
  ASSIGN_OR_RETURN(Literal out, AllocateResult(out_shape, ctx, /*overwrite=*/true));
  if (out.num_elements() == 0) return out;
  const DType t = out_shape.dtype();
  const bool float_out = t == DType::kF32 || t == DType::kF16 || t == DType::kBF16 || IsF8(t);
  if (float_out) {
    if (dnnl_ok && lhs.num_elements() > 0 && rhs.num_elements() > 0 && g.I > 0) {
      if (t == DType::kF32) {
        if (DnnlConvolution(g, dn, lhs, rhs, out.mutable_data<float>(), out_shape.dims(), ctx))
          return out;
      } else {
        Shape s32 = out_shape;
        s32.set_dtype(DType::kF32);
        Literal o32 = Literal::ForOverwrite(s32);
        if (DnnlConvolution(g, dn, lhs, rhs, o32.mutable_data<float>(), out_shape.dims(), ctx))
          return ConvertLiteral(o32, t);
      }
    }
    RETURN_IF_ERROR(ExactConv<float>(g, dn, lhs, rhs, out, ctx));
  } else if (t == DType::kF64) {
    RETURN_IF_ERROR(ExactConv<double>(g, dn, lhs, rhs, out, ctx));
  } else if (t == DType::kC64) {
    RETURN_IF_ERROR(ExactConv<std::complex<float>>(g, dn, lhs, rhs, out, ctx));
  } else if (t == DType::kC128) {
    RETURN_IF_ERROR(ExactConv<std::complex<double>>(g, dn, lhs, rhs, out, ctx));
  } else if (IsInteger(t) || t == DType::kPred) {
    RETURN_IF_ERROR(IntegerConv(g, dn, lhs, rhs, out, ctx));
  } else {
    return Unimplemented("convolution: result type {}", DTypeName(t));
  }
  return out;
}

}  // namespace kernels

StatusOr<Literal> ConvolutionKernel(const Instruction& conv, const Literal& lhs,
                                    const Literal& rhs, const KernelContext& ctx) {
  return kernels::ConvolutionKernelImpl(conv, lhs, rhs, ctx, /*allow_dnnl=*/true);
}

}  // namespace spmdc

// DotKernel and ConvolutionKernel: hand-checked values, every dtype family, odd layouts, empty
// dims, and the oneDNN paths against exact references on random data.
#include "kernels_test_util.h"

namespace spmdc::testing {
namespace {

std::unique_ptr<Instruction> DotInstr(Shape out, std::vector<int64_t> lb, std::vector<int64_t> lc,
                                      std::vector<int64_t> rb, std::vector<int64_t> rc) {
  auto d = Instr(Opcode::kDot, std::move(out));
  d->attrs().Set(AttrId::kLhsBatchDims, lb);
  d->attrs().Set(AttrId::kLhsContractingDims, lc);
  d->attrs().Set(AttrId::kRhsBatchDims, rb);
  d->attrs().Set(AttrId::kRhsContractingDims, rc);
  return d;
}

// Brute-force dot in double, straight from the definition.
std::vector<double> NaiveDot(const Literal& l, const Literal& r, const Shape& out,
                             const std::vector<int64_t>& lb, const std::vector<int64_t>& lc,
                             const std::vector<int64_t>& rb, const std::vector<int64_t>& rc) {
  auto free = [](int64_t rank, const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
    std::vector<int64_t> f;
    for (int64_t d = 0; d < rank; ++d)
      if (std::find(a.begin(), a.end(), d) == a.end() && std::find(b.begin(), b.end(), d) == b.end())
        f.push_back(d);
    return f;
  };
  auto lf = free(l.shape().rank(), lb, lc), rf = free(r.shape().rank(), rb, rc);
  std::vector<int64_t> cdims;
  for (int64_t d : lc) cdims.push_back(l.shape().dim(d));
  auto ls = RowMajorStrides(l.shape().dims()), rs = RowMajorStrides(r.shape().dims());
  std::vector<double> res;
  std::vector<int64_t> oi(out.rank(), 0);
  for (int64_t o = 0; o < out.num_elements(); ++o) {
    int64_t lbase = 0, rbase = 0, k = 0;
    for (size_t j = 0; j < lb.size(); ++j, ++k) { lbase += oi[k] * ls[lb[j]]; rbase += oi[k] * rs[rb[j]]; }
    for (int64_t d : lf) lbase += oi[k++] * ls[d];
    for (int64_t d : rf) rbase += oi[k++] * rs[d];
    double sum = 0;
    std::vector<int64_t> ci(cdims.size(), 0);
    if (kernels::Product(cdims) > 0) {
      do {
        int64_t lo = lbase, ro = rbase;
        for (size_t j = 0; j < lc.size(); ++j) { lo += ci[j] * ls[lc[j]]; ro += ci[j] * rs[rc[j]]; }
        sum += l.GetDouble(lo) * r.GetDouble(ro);
      } while (kernels::NextIndex(ci, cdims));
    }
    res.push_back(sum);
    kernels::NextIndex(oi, out.dims());
  }
  return res;
}

TEST(DotKernel, MatrixTimesMatrixHandChecked) {
  Literal a = Lit(DType::kF32, {2, 3}, {1, 2, 3, 4, 5, 6});
  Literal b = Lit(DType::kF32, {3, 2}, {7, 8, 9, 10, 11, 12});
  auto d = DotInstr(Shape(DType::kF32, {2, 2}), {}, {1}, {}, {0});
  auto r = DotKernel(*d, a, b, Ctx());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Vals(*r), (std::vector<double>{58, 64, 139, 154}));
}

TEST(DotKernel, ScalarsAndVectors) {
  Literal a = Lit(DType::kF32, {}, {3}), b = Lit(DType::kF32, {}, {-2});
  auto d = DotInstr(Shape(DType::kF32, {}), {}, {}, {}, {});
  EXPECT_EQ(Vals(*DotKernel(*d, a, b, Ctx())), (std::vector<double>{-6}));
  Literal u = Lit(DType::kF64, {3}, {1, 2, 3}), v = Lit(DType::kF64, {3}, {4, 5, 6});
  auto dv = DotInstr(Shape(DType::kF64, {}), {}, {0}, {}, {0});
  EXPECT_EQ(Vals(*DotKernel(*dv, u, v, Ctx())), (std::vector<double>{32}));
  auto outer = DotInstr(Shape(DType::kF64, {3, 3}), {}, {}, {}, {});
  EXPECT_EQ(Vals(*DotKernel(*outer, u, v, Ctx()))[5], 12);  // u[1] * v[2]
}

TEST(DotKernel, EmptyDims) {
  Literal a(Shape(DType::kF32, {2, 0})), b(Shape(DType::kF32, {0, 3}));
  auto d = DotInstr(Shape(DType::kF32, {2, 3}), {}, {1}, {}, {0});
  auto r = DotKernel(*d, a, b, Ctx());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Vals(*r), std::vector<double>(6, 0.0));
  Literal c(Shape(DType::kF32, {0, 4})), e(Shape(DType::kF32, {4, 3}));
  auto d2 = DotInstr(Shape(DType::kF32, {0, 3}), {}, {1}, {}, {0});
  EXPECT_EQ(DotKernel(*d2, c, e, Ctx())->num_elements(), 0);
}

TEST(DotKernel, IntegerPredAndComplex) {
  Literal a = Lit(DType::kS32, {2, 2}, {1, -2, 3, 4}), b = Lit(DType::kS32, {2, 2}, {5, 6, 7, 8});
  auto d = DotInstr(Shape(DType::kS32, {2, 2}), {}, {1}, {}, {0});
  EXPECT_EQ(Vals(*DotKernel(*d, a, b, Ctx())), (std::vector<double>{-9, -10, 43, 50}));
  // s8 x s8 -> s32 does not wrap at 8 bits; s8 result does.
  Literal c = Lit(DType::kS8, {1, 2}, {100, 100}), e = Lit(DType::kS8, {2, 1}, {2, 1});
  auto d32 = DotInstr(Shape(DType::kS32, {1, 1}), {}, {1}, {}, {0});
  EXPECT_EQ(Vals(*DotKernel(*d32, c, e, Ctx()))[0], 300);
  auto d8 = DotInstr(Shape(DType::kS8, {1, 1}), {}, {1}, {}, {0});
  EXPECT_EQ(Vals(*DotKernel(*d8, c, e, Ctx()))[0], 300 - 256);
  Literal p = Lit(DType::kPred, {2, 2}, {1, 0, 0, 0}), q = Lit(DType::kPred, {2, 2}, {0, 1, 1, 0});
  auto dp = DotInstr(Shape(DType::kPred, {2, 2}), {}, {1}, {}, {0});
  EXPECT_EQ(Vals(*DotKernel(*dp, p, q, Ctx())), (std::vector<double>{0, 1, 0, 0}));
  Literal x(Shape(DType::kC64, {1, 2})), y(Shape(DType::kC64, {2, 1}));
  x.SetComplex(0, {1, 1}); x.SetComplex(1, {0, 2});
  y.SetComplex(0, {2, 0}); y.SetComplex(1, {1, -1});
  auto dc = DotInstr(Shape(DType::kC64, {1, 1}), {}, {1}, {}, {0});
  auto rc = DotKernel(*dc, x, y, Ctx());
  // (1+i)*2 + (2i)(1-i) = 2+2i + 2i+2 = 4+4i
  EXPECT_EQ(rc->GetComplex(0), std::complex<double>(4, 4));
}

TEST(DotKernel, Bf16AndF16ComputeInF32) {
  Literal a = Lit(DType::kBF16, {1, 3}, {1, 256, 1}), b = Lit(DType::kBF16, {3, 1}, {1, 1, 1});
  // In f32 the sum is 258 exactly; the bf16 result rounds it once (258 -> 258 in bf16? 8 bits:
  // 256 + 2 is representable), and the f32 result keeps it.
  auto df = DotInstr(Shape(DType::kF32, {1, 1}), {}, {1}, {}, {0});
  EXPECT_EQ(Vals(*DotKernel(*df, a, b, Ctx()))[0], 258);
  auto db = DotInstr(Shape(DType::kBF16, {1, 1}), {}, {1}, {}, {0});
  EXPECT_EQ(Vals(*DotKernel(*db, a, b, Ctx()))[0], 258);
  Literal h = Lit(DType::kF16, {2, 2}, {0.5, 1.5, 2, -1}), g = Lit(DType::kF16, {2, 1}, {2, 4});
  auto dh = DotInstr(Shape(DType::kF16, {2, 1}), {}, {1}, {}, {0});
  EXPECT_EQ(Vals(*DotKernel(*dh, h, g, Ctx())), (std::vector<double>{7, 0}));
}

struct DotCase {
  std::vector<int64_t> ldims, rdims, odims, lb, lc, rb, rc;
};

TEST(DotKernel, GeneralDimsAgainstNaiveReference) {
  std::vector<DotCase> cases = {
      {{5, 7}, {7, 3}, {5, 3}, {}, {1}, {}, {0}},               // plain
      {{7, 5}, {7, 3}, {5, 3}, {}, {0}, {}, {0}},               // lhs transposed
      {{5, 7}, {3, 7}, {5, 3}, {}, {1}, {}, {1}},               // rhs transposed
      {{4, 5, 7}, {4, 7, 3}, {4, 5, 3}, {0}, {2}, {0}, {1}},    // batched
      {{5, 4, 7}, {7, 3, 4}, {4, 5, 3}, {1}, {2}, {2}, {0}},    // batch in the middle / last
      {{2, 3, 4, 5}, {3, 5, 2, 6}, {2, 3, 4, 6}, {0, 1}, {3}, {2, 0}, {1}},
      {{3, 4, 5}, {5, 4, 2}, {3, 2}, {}, {1, 2}, {}, {1, 0}},   // two contracting dims
      {{6, 1, 9}, {9, 1}, {6, 1, 1}, {}, {2}, {}, {0}},         // unit dims
  };
  for (DType t : {DType::kF32, DType::kF64, DType::kBF16}) {
    uint32_t seed = 1;
    for (const DotCase& c : cases) {
      Literal l = Random(t, c.ldims, seed++), r = Random(t, c.rdims, seed++);
      DType ot = t == DType::kBF16 ? DType::kF32 : t;
      auto d = DotInstr(Shape(ot, c.odims), c.lb, c.lc, c.rb, c.rc);
      auto got = DotKernel(*d, l, r, Ctx());
      ASSERT_TRUE(got.ok()) << got.status();
      ExpectNear(Vals(*got), NaiveDot(l, r, d->shape(), c.lb, c.lc, c.rb, c.rc),
                 t == DType::kF64 ? 1e-12 : 1e-5);
    }
  }
}

TEST(DotKernel, OneDnnMatchesExactOnLargerRandom) {
  for (auto [m, k, n] : std::vector<std::array<int64_t, 3>>{{64, 129, 33}, {1, 300, 1}, {97, 1, 5}}) {
    Literal l = Random(DType::kF32, {3, m, k}, 7), r = Random(DType::kF32, {3, k, n}, 8);
    auto d = DotInstr(Shape(DType::kF32, {3, m, n}), {0}, {2}, {0}, {1});
    const int64_t before = kernels::DnnlMatmulCount();
    auto got = DotKernel(*d, l, r, Ctx());
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(kernels::DnnlMatmulCount() - before, 1);
    // The same dot in f64 runs the exact loop.
    Literal l64 = kernels::ConvertLiteral(l, DType::kF64), r64 = kernels::ConvertLiteral(r, DType::kF64);
    auto d64 = DotInstr(Shape(DType::kF64, {3, m, n}), {0}, {2}, {0}, {1});
    auto want = DotKernel(*d64, l64, r64, Ctx());
    EXPECT_LT(MaxRelDiff(*got, *want), 1e-5);
  }
}

// ------------------------------------------------------------------------------------------
ConvDims Labels(std::vector<int64_t> in, std::vector<int64_t> ker, std::vector<int64_t> out) {
  // in = {batch, feature, spatial...}, ker = {in feature, out feature, spatial...}, out like in.
  ConvDims d;
  d.input_batch = in[0]; d.input_feature = in[1];
  d.input_spatial.assign(in.begin() + 2, in.end());
  d.kernel_input_feature = ker[0]; d.kernel_output_feature = ker[1];
  d.kernel_spatial.assign(ker.begin() + 2, ker.end());
  d.output_batch = out[0]; d.output_feature = out[1];
  d.output_spatial.assign(out.begin() + 2, out.end());
  return d;
}

std::unique_ptr<Instruction> ConvInstr(Shape out, ConvDims dn, std::vector<WindowDim> win,
                                       int64_t fgc = 1, int64_t bgc = 1) {
  auto c = Instr(Opcode::kConvolution, std::move(out));
  c->attrs().Set(AttrId::kDimLabels, dn);
  Window w;
  w.dims = std::move(win);
  c->attrs().Set(AttrId::kWindow, w);
  if (fgc != 1) c->attrs().Set(AttrId::kFeatureGroupCount, fgc);
  if (bgc != 1) c->attrs().Set(AttrId::kBatchGroupCount, bgc);
  return c;
}

// Brute force from the StableHLO definition, with multi-indices.
std::vector<double> NaiveConv(const Instruction& conv, const Literal& lhs, const Literal& rhs) {
  const ConvDims& dn = *conv.attr<ConvDims>(AttrId::kDimLabels);
  const Window& win = *conv.attr<Window>(AttrId::kWindow);
  int64_t fgc = conv.int_attr(AttrId::kFeatureGroupCount, 1);
  int64_t bgc = conv.int_attr(AttrId::kBatchGroupCount, 1);
  const Shape& os = conv.shape();
  int64_t N = lhs.shape().dim(dn.input_batch), I = rhs.shape().dim(dn.kernel_input_feature);
  int64_t O = rhs.shape().dim(dn.kernel_output_feature);
  size_t nsp = dn.input_spatial.size();
  std::vector<int64_t> kdims;
  for (int64_t d : dn.kernel_spatial) kdims.push_back(rhs.shape().dim(d));
  auto ls = RowMajorStrides(lhs.shape().dims()), rs = RowMajorStrides(rhs.shape().dims());
  std::vector<double> res(os.num_elements());
  std::vector<int64_t> oi(os.rank(), 0);
  auto ostr = RowMajorStrides(os.dims());
  for (int64_t o = 0; o < os.num_elements(); ++o) {
    int64_t n = oi[dn.output_batch], f = oi[dn.output_feature];
    int64_t fg = f / (O / fgc), bg = f / (O / bgc);
    double sum = 0;
    std::vector<int64_t> w(nsp, 0);
    if (kernels::Product(kdims) > 0) do {
      bool ok = true;
      int64_t loff = (bg * (N / bgc) + n) * ls[dn.input_batch];
      int64_t roff = f * rs[dn.kernel_output_feature];
      for (size_t i = 0; i < nsp; ++i) {
        const WindowDim& wd = win.dims[i];
        int64_t p = oi[dn.output_spatial[i]] * wd.stride - wd.padding_low + w[i] * wd.window_dilation;
        if (p % wd.base_dilation != 0) { ok = false; break; }
        p /= wd.base_dilation;
        if (p < 0 || p >= lhs.shape().dim(dn.input_spatial[i])) { ok = false; break; }
        loff += p * ls[dn.input_spatial[i]];
        roff += (wd.window_reversal ? kdims[i] - 1 - w[i] : w[i]) * rs[dn.kernel_spatial[i]];
      }
      if (ok)
        for (int64_t c = 0; c < I; ++c)
          sum += lhs.GetDouble(loff + (fg * I + c) * ls[dn.input_feature]) *
                 rhs.GetDouble(roff + c * rs[dn.kernel_input_feature]);
    } while (kernels::NextIndex(w, kdims));
    int64_t lin = 0;
    for (int64_t d = 0; d < os.rank(); ++d) lin += oi[d] * ostr[d];
    res[lin] = sum;
    kernels::NextIndex(oi, os.dims());
  }
  return res;
}

WindowDim WD(int64_t size, int64_t stride = 1, int64_t lo = 0, int64_t hi = 0, int64_t wdil = 1,
             int64_t bdil = 1, bool rev = false) {
  WindowDim w;
  w.size = size; w.stride = stride; w.padding_low = lo; w.padding_high = hi;
  w.window_dilation = wdil; w.base_dilation = bdil; w.window_reversal = rev;
  return w;
}

TEST(ConvolutionKernel, OneDimensionalHandChecked) {
  // b f 0 / i o 0: x = [1 2 3 4 5], k = [1 0 -1], pad 1 both sides.
  Literal x = Lit(DType::kF32, {1, 1, 5}, {1, 2, 3, 4, 5});
  Literal k = Lit(DType::kF32, {1, 1, 3}, {1, 0, -1});
  auto c = ConvInstr(Shape(DType::kF32, {1, 1, 5}), Labels({0, 1, 2}, {0, 1, 2}, {0, 1, 2}),
                     {WD(3, 1, 1, 1)});
  for (bool dnnl : {true, false}) {
    auto r = kernels::ConvolutionKernelImpl(*c, x, k, Ctx(), dnnl);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(Vals(*r), (std::vector<double>{-2, -2, -2, -2, 4}));
  }
  // lhs dilation 2 (a transposed convolution), window reversal: exact loop only.
  auto c2 = ConvInstr(Shape(DType::kF32, {1, 1, 5}), Labels({0, 1, 2}, {0, 1, 2}, {0, 1, 2}),
                      {WD(3, 1, 1, 1, 1, 2, true)});
  Literal x3 = Lit(DType::kF32, {1, 1, 3}, {1, 2, 3});
  // dilated x: [1 0 2 0 3] padded [0 1 0 2 0 3 0]; reversed kernel [-1 0 1]: out[q] = p[q+2] - p[q].
  auto r2 = ConvolutionKernel(*c2, x3, k, Ctx());
  ASSERT_TRUE(r2.ok()) << r2.status();
  EXPECT_EQ(Vals(*r2), (std::vector<double>{0, 1, 0, 1, 0}));
  // A result shape that does not match the window is rejected.
  auto c3 = ConvInstr(Shape(DType::kF32, {1, 1, 7}), Labels({0, 1, 2}, {0, 1, 2}, {0, 1, 2}),
                      {WD(3, 1, 1, 1, 1, 2, true)});
  EXPECT_FALSE(ConvolutionKernel(*c3, x3, k, Ctx()).ok());
}

TEST(ConvolutionKernel, ZeroSpatialDimsIsAMatmul) {
  Literal x = Lit(DType::kF32, {2, 3}, {1, 2, 3, 4, 5, 6});
  Literal k = Lit(DType::kF32, {3, 1}, {1, 1, 1});
  auto c = ConvInstr(Shape(DType::kF32, {2, 1}), Labels({0, 1}, {0, 1}, {0, 1}), {});
  for (bool dnnl : {true, false})
    EXPECT_EQ(Vals(*kernels::ConvolutionKernelImpl(*c, x, k, Ctx(), dnnl)),
              (std::vector<double>{6, 15}));
}

struct ConvCase {
  std::vector<int64_t> ldims, rdims, odims;
  ConvDims dn;
  std::vector<WindowDim> win;
  int64_t fgc = 1, bgc = 1;
};

TEST(ConvolutionKernel, RandomAgainstNaiveBothPaths) {
  std::vector<ConvCase> cases = {
      // NHWC / HWIO, 3x3 pad 1.
      {{2, 6, 5, 3}, {3, 3, 3, 4}, {2, 6, 5, 4}, Labels({0, 3, 1, 2}, {2, 3, 0, 1}, {0, 3, 1, 2}),
       {WD(3, 1, 1, 1), WD(3, 1, 1, 1)}},
      // NCHW / OIHW, stride 2, asymmetric padding, window dilation 2.
      {{1, 3, 9, 8}, {4, 3, 3, 2}, {1, 4, 4, 4}, Labels({0, 1, 2, 3}, {1, 0, 2, 3}, {0, 1, 2, 3}),
       {WD(3, 2, 1, 2, 2), WD(2, 2, 0, 1, 2)}},
      // Feature groups (depthwise-like): C=4, fgc=2.
      {{2, 5, 5, 4}, {3, 3, 2, 6}, {2, 5, 5, 6}, Labels({0, 3, 1, 2}, {2, 3, 0, 1}, {0, 3, 1, 2}),
       {WD(3, 1, 1, 1), WD(3, 1, 1, 1)}, 2, 1},
      // Batch groups: N=4, bgc=2 (weight-gradient style).
      {{4, 5, 3}, {3, 3, 4}, {2, 3, 4}, Labels({0, 2, 1}, {1, 2, 0}, {0, 2, 1}), {WD(3)}, 1, 2},
      // Base dilation + reversal + negative padding, 2-D.
      {{1, 4, 4, 2}, {2, 2, 2, 3}, {1, 7, 7, 3}, Labels({0, 3, 1, 2}, {2, 3, 0, 1}, {0, 3, 1, 2}),
       {WD(2, 1, 1, 0, 1, 2, true), WD(2, 1, 0, 1, 1, 2)}},
      // 3-D, spatial dims permuted.
      {{1, 2, 4, 5, 3}, {2, 3, 2, 2, 2}, {1, 3, 4, 4, 2}, Labels({0, 1, 4, 2, 3}, {0, 1, 4, 3, 2},
                                                                  {0, 1, 4, 3, 2}),
       {WD(2), WD(2, 1, 1, 0), WD(2)}},
  };
  // Check the 3-D case's dims: input spatial (3,4,5) -> windows 2,2(pad 1,0),2 -> (2,4,4);
  // output spatial dims are {4,3,2} -> out dims[4]=2, [3]=4, [2]=4.
  cases[5].odims = {1, 3, 4, 4, 2};
  uint32_t seed = 11;
  for (DType t : {DType::kF32, DType::kF64, DType::kBF16}) {
    for (const ConvCase& c : cases) {
      Literal l = Random(t, c.ldims, seed++), r = Random(t, c.rdims, seed++);
      DType ot = t;
      auto conv = ConvInstr(Shape(ot, c.odims), c.dn, c.win, c.fgc, c.bgc);
      std::vector<double> want = NaiveConv(*conv, l, r);
      for (bool dnnl : {true, false}) {
        const int64_t before = kernels::DnnlConvolutionCount();
        auto got = kernels::ConvolutionKernelImpl(*conv, l, r, Ctx(), dnnl);
        ASSERT_TRUE(got.ok()) << got.status();
        if (t != DType::kF64) {
          EXPECT_EQ(kernels::DnnlConvolutionCount() - before, dnnl ? 1 : 0);
        }
        ExpectNear(Vals(*got), want, t == DType::kBF16 ? 1e-2 : t == DType::kF64 ? 1e-12 : 1e-5);
      }
    }
  }
}

TEST(ConvolutionKernel, ThreadedExactLoopsMatchNaive) {
  // Large enough for the exact loops to split their rows over threads.
  Literal l = Random(DType::kF64, {256, 256}, 21), r = Random(DType::kF64, {256, 64}, 22);
  auto d = DotInstr(Shape(DType::kF64, {256, 64}), {}, {1}, {}, {0});
  ExpectNear(Vals(*DotKernel(*d, l, r, Ctx())), NaiveDot(l, r, d->shape(), {}, {1}, {}, {0}), 1e-12);
  Literal x = Random(DType::kF64, {2, 16, 16, 32}, 23), k = Random(DType::kF64, {3, 3, 32, 32}, 24);
  auto c = ConvInstr(Shape(DType::kF64, {2, 16, 16, 32}),
                     Labels({0, 3, 1, 2}, {2, 3, 0, 1}, {0, 3, 1, 2}), {WD(3, 1, 1, 1), WD(3, 1, 1, 1)});
  ExpectNear(Vals(*ConvolutionKernel(*c, x, k, Ctx())), NaiveConv(*c, x, k), 1e-12);
}

TEST(ConvolutionKernel, IntegerAndErrors) {
  Literal x = Lit(DType::kS32, {1, 1, 3}, {1, 2, 3});
  Literal k = Lit(DType::kS32, {1, 1, 2}, {10, -1});
  auto c = ConvInstr(Shape(DType::kS32, {1, 1, 2}), Labels({0, 1, 2}, {0, 1, 2}, {0, 1, 2}), {WD(2)});
  EXPECT_EQ(Vals(*ConvolutionKernel(*c, x, k, Ctx())), (std::vector<double>{8, 17}));
  auto bad = ConvInstr(Shape(DType::kS32, {1, 1, 2}), Labels({0, 1, 2}, {0, 1, 2}, {0, 1, 2}),
                       {WD(2)}, /*fgc=*/3);
  EXPECT_FALSE(ConvolutionKernel(*bad, x, k, Ctx()).ok());
}

}  // namespace
}  // namespace spmdc::testing

// SortKernel, TopKKernel, FftKernel, CholeskyKernel, TriangularSolveKernel,
// RngBitGeneratorKernel.
#include "kernels_test_util.h"

namespace spmdc::testing {
namespace {

std::unique_ptr<Instruction> SortInstr(Shape out, int64_t dim, Computation* c, bool stable = true) {
  auto s = Instr(Opcode::kSort, std::move(out));
  s->attrs().Set(AttrId::kDimensions, std::vector<int64_t>{dim});
  s->attrs().Set(AttrId::kToApply, c);
  s->attrs().Set(AttrId::kIsStable, stable);
  return s;
}

TEST(SortKernel, OneOperandBothDims) {
  TestModule m;
  Literal x = Lit(DType::kF32, {2, 3}, {3, 1, 2, 0, 5, -1});
  auto lt = SortInstr(Shape(DType::kF32, {2, 3}), 1, Comparator(m, {DType::kF32}, 0, "LT"));
  EXPECT_EQ(Vals(*SortKernel(*lt, {x}, Ctx())), (std::vector<double>{1, 2, 3, -1, 0, 5}));
  auto gt0 = SortInstr(Shape(DType::kF32, {2, 3}), 0, Comparator(m, {DType::kF32}, 0, "GT"));
  EXPECT_EQ(Vals(*SortKernel(*gt0, {x}, Ctx())), (std::vector<double>{3, 5, 2, 0, 1, -1}));
  Literal s = Lit(DType::kS32, {}, {4});
  auto sc = SortInstr(Shape(DType::kS32, {}), 0, Comparator(m, {DType::kS32}, 0, "LT"));
  EXPECT_EQ(Vals(*SortKernel(*sc, {s}, Ctx())), (std::vector<double>{4}));
  Literal e(Shape(DType::kS32, {0}));
  auto se = SortInstr(Shape(DType::kS32, {0}), 0, Comparator(m, {DType::kS32}, 0, "LT"));
  EXPECT_EQ(SortKernel(*se, {e}, Ctx())->num_elements(), 0);
}

TEST(SortKernel, VariadicStableTotalOrder) {
  TestModule m;
  Literal keys = Lit(DType::kF32, {6}, {2, std::nan(""), -0.0, 0.0, 2, -INFINITY});
  Literal vals = Lit(DType::kS32, {6}, {0, 1, 2, 3, 4, 5});
  Shape tup = Shape::Tuple({Shape(DType::kF32, {6}), Shape(DType::kS32, {6})});
  auto s = SortInstr(tup, 0, Comparator(m, {DType::kF32, DType::kS32}, 0, "LT", "TOTALORDER"));
  auto r = SortKernel(*s, {keys, vals}, Ctx());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Vals(r->element(1)), (std::vector<double>{5, 2, 3, 0, 4, 1}));
  // Sort by the second operand, descending.
  auto s2 = SortInstr(tup, 0, Comparator(m, {DType::kF32, DType::kS32}, 1, "GT"));
  auto r2 = SortKernel(*s2, {keys, vals}, Ctx());
  EXPECT_EQ(Vals(r2->element(1)), (std::vector<double>{5, 4, 3, 2, 1, 0}));
}

TEST(SortKernel, GenericComparatorMatchesNative) {
  TestModule m;
  // Lexicographic on (a, b) through select/compare: generic path.
  Computation* c = m.NewComputation("lex");
  Instruction* a0 = m.Param(c, Shape::Scalar(DType::kS32));
  Instruction* a1 = m.Param(c, Shape::Scalar(DType::kS32));
  Instruction* b0 = m.Param(c, Shape::Scalar(DType::kS32));
  Instruction* b1 = m.Param(c, Shape::Scalar(DType::kS32));
  Instruction* lt = m.Add(c, Opcode::kCompare, Shape::Scalar(DType::kPred), {a0, a1});
  lt->attrs().Set(AttrId::kDirection, std::string("LT"));
  Instruction* eq = m.Add(c, Opcode::kCompare, Shape::Scalar(DType::kPred), {a0, a1});
  eq->attrs().Set(AttrId::kDirection, std::string("EQ"));
  Instruction* lt2 = m.Add(c, Opcode::kCompare, Shape::Scalar(DType::kPred), {b0, b1});
  lt2->attrs().Set(AttrId::kDirection, std::string("LT"));
  Instruction* both = m.Add(c, Opcode::kAnd, Shape::Scalar(DType::kPred), {eq, lt2});
  m.Add(c, Opcode::kOr, Shape::Scalar(DType::kPred), {lt, both});
  Literal a = Lit(DType::kS32, {5}, {2, 1, 2, 1, 0}), b = Lit(DType::kS32, {5}, {9, 8, 7, 6, 5});
  Shape tup = Shape::Tuple({Shape(DType::kS32, {5}), Shape(DType::kS32, {5})});
  auto r = SortKernel(*SortInstr(tup, 0, c), {a, b}, Ctx());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Vals(r->element(0)), (std::vector<double>{0, 1, 1, 2, 2}));
  EXPECT_EQ(Vals(r->element(1)), (std::vector<double>{5, 6, 8, 7, 9}));
}

TEST(TopKKernel, ValuesIndicesTies) {
  Literal x = Lit(DType::kF32, {2, 4}, {1, 3, 3, 2, -1, std::nan(""), 4, 4});
  auto t = Instr(Opcode::kTopK, Shape::Tuple({Shape(DType::kF32, {2, 2}), Shape(DType::kS32, {2, 2})}));
  t->attrs().Set(AttrId::kK, int64_t{2});
  t->attrs().Set(AttrId::kLargest, true);
  auto r = TopKKernel(*t, x, Ctx());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Vals(r->element(1)), (std::vector<double>{1, 2, 1, 2}));
  t->attrs().Set(AttrId::kLargest, false);
  auto r2 = TopKKernel(*t, x, Ctx());
  EXPECT_EQ(Vals(r2->element(0)), (std::vector<double>{1, 2, -1, 4}));
  EXPECT_EQ(Vals(r2->element(1)), (std::vector<double>{0, 3, 0, 2}));
}

std::unique_ptr<Instruction> FftInstr(Shape out, std::string type, std::vector<int64_t> len) {
  auto f = Instr(Opcode::kFft, std::move(out));
  f->attrs().Set(AttrId::kFftType, type);
  f->attrs().Set(AttrId::kFftLength, len);
  return f;
}

Literal Complex(DType t, std::vector<int64_t> dims, std::vector<std::complex<double>> v) {
  Literal l(Shape(t, std::move(dims)));
  for (size_t i = 0; i < v.size(); ++i) l.SetComplex(i, v[i]);
  return l;
}

void ExpectComplexNear(const Literal& got, const std::vector<std::complex<double>>& want, double tol) {
  ASSERT_EQ(got.num_elements(), static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) EXPECT_LT(std::abs(got.GetComplex(i) - want[i]), tol) << i;
}

TEST(FftKernel, HandCheckedRoundTrips) {
  Literal x = Complex(DType::kC64, {4}, {1, 2, 3, 4});
  auto f = FftInstr(Shape(DType::kC64, {4}), "FFT", {4});
  auto X = FftKernel(*f, x, Ctx());
  ASSERT_TRUE(X.ok()) << X.status();
  ExpectComplexNear(*X, {{10, 0}, {-2, 2}, {-2, 0}, {-2, -2}}, 1e-5);
  auto inv = FftInstr(Shape(DType::kC64, {4}), "IFFT", {4});
  ExpectComplexNear(*FftKernel(*inv, *X, Ctx()), {1, 2, 3, 4}, 1e-5);
  Literal r = Lit(DType::kF32, {4}, {1, 2, 3, 4});
  auto rf = FftInstr(Shape(DType::kC64, {3}), "RFFT", {4});
  auto R = FftKernel(*rf, r, Ctx());
  ASSERT_TRUE(R.ok()) << R.status();
  ExpectComplexNear(*R, {{10, 0}, {-2, 2}, {-2, 0}}, 1e-5);
  auto irf = FftInstr(Shape(DType::kF32, {4}), "IRFFT", {4});
  ExpectNear(Vals(*FftKernel(*irf, *R, Ctx())), {1, 2, 3, 4}, 1e-5);
}

// fft_length other than the dims (XLA checks it only for RFFT/IRFFT): as XLA's evaluator, each
// transformed dim is zero-padded or truncated to its length and the result back to the dims.
TEST(FftKernel, LengthOtherThanTheDims) {
  Literal x = Complex(DType::kC64, {4}, {1, 2, 3, 4});
  // Truncated to [1, 2]: DFT [3, -1], padded with zeros.
  ExpectComplexNear(*FftKernel(*FftInstr(Shape(DType::kC64, {4}), "FFT", {2}), x, Ctx()),
                    {3, -1, 0, 0}, 1e-5);
  // Padded to [1, 2, 3, 4, 0, 0, 0, 0]: the first 4 bins of its 8-point DFT.
  ExpectComplexNear(*FftKernel(*FftInstr(Shape(DType::kC64, {4}), "FFT", {8}), x, Ctx()),
                    {{10, 0}, {-0.41421356, -7.24264069}, {-2, 2}, {2.41421356, -1.24264069}}, 1e-5);
  // IFFT of length 2 on [1, 2]: [1.5, -0.5].
  ExpectComplexNear(*FftKernel(*FftInstr(Shape(DType::kC64, {4}), "IFFT", {2}), x, Ctx()),
                    {1.5, -0.5, 0, 0}, 1e-5);
  // A zero length gives zeros; a negative one is unsupported.
  ExpectComplexNear(*FftKernel(*FftInstr(Shape(DType::kC64, {4}), "FFT", {0}), x, Ctx()),
                    {0, 0, 0, 0}, 1e-12);
  auto neg = FftKernel(*FftInstr(Shape(DType::kC64, {4}), "FFT", {-1}), x, Ctx());
  ASSERT_FALSE(neg.ok());
  EXPECT_EQ(neg.status().code(), absl::StatusCode::kUnimplemented);
  // Two dims [2, 3] with lengths {1, 4}: row 0 alone, padded to 4, DFT; row 1 zeros.
  Literal m = Complex(DType::kC64, {2, 3}, {1, 2, 3, 4, 5, 6});
  ExpectComplexNear(*FftKernel(*FftInstr(Shape(DType::kC64, {2, 3}), "FFT", {1, 4}), m, Ctx()),
                    {{6, 0}, {-2, -2}, {2, 0}, 0, 0, 0}, 1e-5);
}

// Naive separable DFT over the last `L` dims (forward).
std::vector<std::complex<double>> NaiveDft(const Literal& x, int64_t L) {
  const auto& dims = x.shape().dims();
  int64_t rank = dims.size();
  std::vector<std::complex<double>> v(x.num_elements());
  for (int64_t i = 0; i < x.num_elements(); ++i) v[i] = x.GetComplex(i);
  auto strides = RowMajorStrides(dims);
  for (int64_t a = rank - L; a < rank; ++a) {
    std::vector<std::complex<double>> out(v.size());
    std::vector<int64_t> idx(rank, 0);
    for (int64_t i = 0; i < x.num_elements(); ++i) {
      std::complex<double> s = 0;
      int64_t base = i - idx[a] * strides[a];
      for (int64_t t = 0; t < dims[a]; ++t)
        s += v[base + t * strides[a]] * std::polar(1.0, -2 * M_PI * idx[a] * t / dims[a]);
      out[i] = s;
      kernels::NextIndex(idx, dims);
    }
    v = out;
  }
  return v;
}

TEST(FftKernel, MultiDimAndOddSizes) {
  for (auto dims : std::vector<std::vector<int64_t>>{{3}, {2, 5}, {2, 4, 6}, {3, 8, 4}}) {
    for (int64_t L = 1; L <= std::min<int64_t>(3, dims.size()); ++L) {
      Literal x = Random(DType::kC128, dims, 5 + L);
      std::vector<int64_t> len(dims.end() - L, dims.end());
      auto f = FftInstr(Shape(DType::kC128, dims), "FFT", len);
      auto got = FftKernel(*f, x, Ctx());
      ASSERT_TRUE(got.ok()) << got.status();
      ExpectComplexNear(*got, NaiveDft(x, L), 1e-9);
      // IRFFT(RFFT(x)) == x for real x.
      Literal r = Random(DType::kF64, dims, 9);
      std::vector<int64_t> half = dims;
      half.back() = dims.back() / 2 + 1;
      auto rf = FftInstr(Shape(DType::kC128, half), "RFFT", len);
      auto R = FftKernel(*rf, r, Ctx());
      ASSERT_TRUE(R.ok()) << R.status();
      auto irf = FftInstr(Shape(DType::kF64, dims), "IRFFT", len);
      auto back = FftKernel(*irf, *R, Ctx());
      ASSERT_TRUE(back.ok()) << back.status();
      ExpectNear(Vals(*back), Vals(r), 1e-9);
    }
  }
}

TEST(CholeskyKernel, LowerUpperBatchedAndNotPositiveDefinite) {
  auto c = Instr(Opcode::kCholesky, Shape(DType::kF32, {2, 2, 2}));
  c->attrs().Set(AttrId::kLower, true);
  // Batch 0: [[4, 2], [2, 3]] (upper entry garbage for lower=true); batch 1 not PD.
  Literal a = Lit(DType::kF32, {2, 2, 2}, {4, 99, 2, 3, 1, 2, 2, 1});
  auto r = CholeskyKernel(*c, a, Ctx());
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<double> v = Vals(*r);
  ExpectNear({v[0], v[1], v[2], v[3]}, {2, 0, 1, std::sqrt(2.0)}, 1e-6);
  for (int i = 4; i < 8; ++i) EXPECT_TRUE(std::isnan(v[i]));
  c->attrs().Set(AttrId::kLower, false);
  Literal u = Lit(DType::kF64, {2, 2}, {4, 2, -99, 3});
  auto cu = Instr(Opcode::kCholesky, Shape(DType::kF64, {2, 2}));
  cu->attrs().Set(AttrId::kLower, false);
  ExpectNear(Vals(*CholeskyKernel(*cu, u, Ctx())), {2, 1, 0, std::sqrt(2.0)}, 1e-12);
  // Complex Hermitian: A = L L^H with L = [[2, 0], [1+i, 1]] -> A = [[4, 2-2i], [2+2i, 3]].
  Literal z = Complex(DType::kC128, {2, 2}, {{4, 0}, {0, 0}, {2, 2}, {3, 0}});
  auto cz = Instr(Opcode::kCholesky, Shape(DType::kC128, {2, 2}));
  cz->attrs().Set(AttrId::kLower, true);
  ExpectComplexNear(*CholeskyKernel(*cz, z, Ctx()), {{2, 0}, {0, 0}, {1, 1}, {1, 0}}, 1e-12);
}

TEST(TriangularSolveKernel, AllVariantsSatisfyTheSystem) {
  const int64_t m = 4, n = 3;
  for (bool left : {true, false})
    for (bool lower : {true, false})
      for (bool unit : {true, false})
        for (std::string tr : {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"})
          for (DType t : {DType::kF64, DType::kC128}) {
            Literal a = Random(t, {2, m, m}, 3);
            for (int64_t b = 0; b < 2; ++b)  // well conditioned: large diagonal
              for (int64_t i = 0; i < m; ++i) a.SetComplex(b * m * m + i * m + i, a.GetComplex(b * m * m + i * m + i) + 4.0);
            std::vector<int64_t> bd = left ? std::vector<int64_t>{2, m, n} : std::vector<int64_t>{2, n, m};
            Literal b = Random(t, bd, 4);
            auto ts = Instr(Opcode::kTriangularSolve, Shape(t, bd));
            ts->attrs().Set(AttrId::kLeftSide, left);
            ts->attrs().Set(AttrId::kLower, lower);
            ts->attrs().Set(AttrId::kUnitDiagonal, unit);
            ts->attrs().Set(AttrId::kTransposeA, tr);
            auto x = TriangularSolveKernel(*ts, a, b, Ctx());
            ASSERT_TRUE(x.ok()) << x.status();
            for (int64_t bb = 0; bb < 2; ++bb) {
              auto E = [&](int64_t i, int64_t j) {  // op(tri(A))[i][j]
                int64_t r = tr == "NO_TRANSPOSE" ? i : j, c = tr == "NO_TRANSPOSE" ? j : i;
                std::complex<double> v = r == c ? (unit ? 1.0 : a.GetComplex(bb * m * m + r * m + c))
                                       : ((lower && r > c) || (!lower && r < c)) ? a.GetComplex(bb * m * m + r * m + c) : 0.0;
                return tr == "ADJOINT" ? std::conj(v) : v;
              };
              const int64_t rows = bd[1], cols = bd[2];
              for (int64_t i = 0; i < rows; ++i)
                for (int64_t j = 0; j < cols; ++j) {
                  std::complex<double> s = 0;
                  for (int64_t k = 0; k < m; ++k)
                    s += left ? E(i, k) * x->GetComplex(bb * rows * cols + k * cols + j)
                              : x->GetComplex(bb * rows * cols + i * cols + k) * E(k, j);
                  EXPECT_LT(std::abs(s - b.GetComplex(bb * rows * cols + i * cols + j)), 1e-9)
                      << left << lower << unit << tr;
                }
            }
          }
}

std::unique_ptr<Instruction> RngInstr(int64_t state_n, Shape values, std::string algo) {
  auto r = Instr(Opcode::kRngBitGenerator,
                 Shape::Tuple({Shape(DType::kU64, {state_n}), std::move(values)}));
  r->attrs().Set(AttrId::kAlgorithm, algo);
  return r;
}

TEST(RngBitGeneratorKernel, KnownAnswers) {
  Literal state(Shape(DType::kU64, {2}));  // zeros
  // ThreeFry2x32-20, key 0, counter 0 -> (0x6b200159, 0x99ba4efe) (Random123 KAT). A [3,2]
  // shape halves along dim 1: row i is the generator at counter i; the state advances by 3.
  auto tf = RngInstr(2, Shape(DType::kU32, {3, 2}), "rng_three_fry");
  auto r = RngBitGeneratorKernel(*tf, state, Ctx());
  ASSERT_TRUE(r.ok()) << r.status();
  const uint32_t* v = r->element(1).data<uint32_t>();
  EXPECT_EQ(v[0], 0x6b200159u);
  EXPECT_EQ(v[1], 0x99ba4efeu);
  EXPECT_EQ(r->element(0).data<uint64_t>()[1], 3u);
  EXPECT_EQ(r->element(0).data<uint64_t>()[0], 0u);
  // Random123 KAT with all-ones key and counter: key = u64 max, counter = u64 max.
  Literal ones(Shape(DType::kU64, {2}));
  ones.mutable_data<uint64_t>()[0] = ~uint64_t{0};
  ones.mutable_data<uint64_t>()[1] = ~uint64_t{0};
  auto tf2 = RngInstr(2, Shape(DType::kU32, {2}), "rng_three_fry");
  auto r2 = RngBitGeneratorKernel(*tf2, ones, Ctx());
  const uint32_t* w = r2->element(1).data<uint32_t>();
  EXPECT_EQ(w[0], 0x1cb996fcu);
  EXPECT_EQ(w[1], 0xbb002be7u);
  // Philox4x32-10, key 0, counter 0 -> 6627e8d5 e169c58d bc57ac4c 9b00dbd8.
  auto ph = RngInstr(2, Shape(DType::kU32, {5}), "rng_philox");
  auto p = RngBitGeneratorKernel(*ph, state, Ctx());
  ASSERT_TRUE(p.ok()) << p.status();
  const uint32_t* pv = p->element(1).data<uint32_t>();
  EXPECT_EQ(pv[0], 0x6627e8d5u);
  EXPECT_EQ(pv[1], 0xe169c58du);
  EXPECT_EQ(pv[2], 0xbc57ac4cu);
  EXPECT_EQ(pv[3], 0x9b00dbd8u);
  EXPECT_EQ(p->element(0).data<uint64_t>()[1], 2u);  // two 128-bit blocks used
  // Default algorithm is Philox; u64 values join word pairs.
  auto d = RngInstr(2, Shape(DType::kU64, {1}), "rng_default");
  EXPECT_EQ(RngBitGeneratorKernel(*d, state, Ctx())->element(1).data<uint64_t>()[0],
            0xe169c58d6627e8d5ull);
  // Philox KAT with all ones: 3-element state (key, counter lo, counter hi).
  Literal s3(Shape(DType::kU64, {3}));
  for (int i = 0; i < 3; ++i) s3.mutable_data<uint64_t>()[i] = ~uint64_t{0};
  auto p3 = RngInstr(3, Shape(DType::kU32, {4}), "rng_philox");
  auto q = RngBitGeneratorKernel(*p3, s3, Ctx());
  const uint32_t* qv = q->element(1).data<uint32_t>();
  EXPECT_EQ(qv[0], 0x408f276du);
  EXPECT_EQ(qv[3], 0x6d5451fdu);
  EXPECT_EQ(q->element(0).data<uint64_t>()[1], 0u);  // counter wraps into the high word
  EXPECT_EQ(q->element(0).data<uint64_t>()[2], 0u);
  // u8 values keep the low bits of the 32-bit numbers.
  auto p8 = RngInstr(2, Shape(DType::kU8, {2}), "rng_philox");
  EXPECT_EQ(RngBitGeneratorKernel(*p8, state, Ctx())->element(1).data<uint8_t>()[0], 0xd5);
}

}  // namespace
}  // namespace spmdc::testing

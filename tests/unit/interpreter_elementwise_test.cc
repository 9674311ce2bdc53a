// Elementwise ops of the interpreter on every dtype family, with hand-checked expected values.
#include <bit>
#include <cmath>
#include <limits>

#include "interpreter_test_util.h"

namespace spmdc::testing {
namespace {

std::string Bin(const std::string& op, const std::string& type, const std::string& a,
                const std::string& b, const std::string& out_type = "", const std::string& extra = "") {
  std::string ot = out_type.empty() ? type : out_type;
  return Entry("a = " + type + " constant(" + a + ")\nb = " + type + " constant(" + b +
               ")\nROOT r = " + ot + " " + op + "(a, b)" + extra);
}
std::string Un(const std::string& op, const std::string& type, const std::string& a,
               const std::string& out_type = "", const std::string& extra = "") {
  std::string ot = out_type.empty() ? type : out_type;
  return Entry("a = " + type + " constant(" + a + ")\nROOT r = " + ot + " " + op + "(a)" + extra);
}

TEST(InterpreterElementwise, IntegerDivisionAndRemainder) {
  EXPECT_EQ(RunText(Bin("divide", "s32[5]", "{7, -7, 5, -2147483648, 3}", "{2, 2, 0, -1, -1}")),
            "{3, -3, -1, -2147483648, -3}");
  EXPECT_EQ(RunText(Bin("remainder", "s32[5]", "{7, -7, 5, -2147483648, 3}", "{2, 2, 0, -1, -1}")),
            "{1, -1, 5, 0, 0}");
  EXPECT_EQ(RunText(Bin("divide", "u32[2]", "{7, 5}", "{2, 0}")), "{3, 4294967295}");
  EXPECT_EQ(RunText(Bin("remainder", "u32[2]", "{7, 5}", "{2, 0}")), "{1, 5}");
  EXPECT_EQ(RunText(Bin("divide", "s8[3]", "{-128, 100, 9}", "{-1, 0, 2}")), "{-128, -1, 4}");
  EXPECT_EQ(RunText(Bin("divide", "s4[3]", "{-8, 7, -7}", "{-1, 0, 2}")), "{-8, -1, -3}");
  EXPECT_EQ(RunText(Bin("divide", "u4[2]", "{15, 9}", "{0, 4}")), "{15, 2}");
  EXPECT_EQ(RunText(Bin("divide", "s64[1]", "{-9223372036854775808}", "{-1}")),
            "{-9223372036854775808}");
}

TEST(InterpreterElementwise, FloatArithmetic) {
  EXPECT_EQ(RunText(Bin("divide", "f32[3]", "{1, -1, 0}", "{0, 0, 0}")), "{inf, -inf, nan}");
  EXPECT_EQ(RunText(Bin("remainder", "f32[2]", "{5.5, -5.5}", "{2, 2}")), "{1.5, -1.5}");
  EXPECT_EQ(RunText(Bin("remainder", "f64[1]", "{7.25}", "{-2}")), "{1.25}");
  EXPECT_EQ(RunText(Bin("add", "f64[2]", "{0.1, 1e300}", "{0.2, 1e300}")),
            "{0.30000000000000004, 2e+300}");
  EXPECT_EQ(RunText(Bin("subtract", "f32[1]", "{1}", "{3}")), "{-2}");
  EXPECT_EQ(RunText(Bin("multiply", "s32[2]", "{65536, -3}", "{65536, 5}")), "{0, -15}");
  EXPECT_EQ(RunText(Bin("add", "s32[1]", "{2147483647}", "{1}")), "{-2147483648}");
  EXPECT_EQ(RunText(Bin("multiply", "u16[1]", "{65535}", "{65535}")), "{1}");
  EXPECT_EQ(RunText(Bin("add", "u4[2]", "{15, 7}", "{1, 1}")), "{0, 8}");
  EXPECT_EQ(RunText(Bin("add", "s4[2]", "{7, -8}", "{1, -1}")), "{-8, 7}");
}

TEST(InterpreterElementwise, NarrowFloatsRoundOnce) {
  // f16: ulp at 2048 is 2; 2049 ties to 2048 (even), 2051 ties to 2052.
  EXPECT_EQ(RunText(Bin("add", "f16[2]", "{2048, 2050}", "{1, 1}")), "{2048, 2052}");
  // bf16: ulp at 256 is 2.
  EXPECT_EQ(RunText(Bin("add", "bf16[2]", "{256, 258}", "{1, 1}")), "{256, 2.6e+02}"  /* 260: shortest text that reads back as bf16 */);
  EXPECT_EQ(RunText(Bin("multiply", "f8e4m3fn[2]", "{2, 448}", "{1.5, 2}")), "{3, nan}");
  EXPECT_EQ(RunText(Bin("add", "f8e5m2[2]", "{1, 57344}", "{0.125, 57344}")), "{1, inf}");
}

TEST(InterpreterElementwise, Power) {
  EXPECT_EQ(RunText(Bin("power", "s32[6]", "{2, 2, 1, 0, 3, -2}", "{10, -1, -5, 0, 0, 3}")),
            "{1024, 0, 1, 1, 1, -8}");
  EXPECT_EQ(RunText(Bin("power", "u8[2]", "{2, 3}", "{9, 5}")), "{0, 243}");
  EXPECT_EQ(RunText(Bin("power", "f32[4]", "{2, 0, 4, nan}", "{3, 0, 0.5, 0}")), "{8, 1, 2, 1}");
}

TEST(InterpreterElementwise, MaxMinPropagateNaN) {
  EXPECT_EQ(RunText(Bin("maximum", "f32[3]", "{1, nan, 2}", "{nan, 1, 3}")), "{nan, nan, 3}");
  EXPECT_EQ(RunText(Bin("minimum", "f32[3]", "{1, nan, 2}", "{nan, 1, 3}")), "{nan, nan, 2}");
  EXPECT_EQ(RunText(Bin("maximum", "s32[2]", "{-5, 7}", "{3, -9}")), "{3, 7}");
  EXPECT_EQ(RunText(Bin("minimum", "u32[2]", "{4294967295, 7}", "{3, 9}")), "{3, 7}");
  EXPECT_EQ(RunText(Bin("maximum", "bf16[2]", "{nan, 1}", "{2, 3}")), "{nan, 3}");
}

TEST(InterpreterElementwise, Shifts) {
  EXPECT_EQ(RunText(Bin("shift-left", "s32[4]", "{1, 1, 1, -1}", "{3, 31, 32, -1}")),
            "{8, -2147483648, 0, 0}");
  EXPECT_EQ(RunText(Bin("shift-right-arithmetic", "s32[4]", "{-8, -8, 16, 5}", "{1, 40, 2, 32}")),
            "{-4, -1, 4, 0}");
  EXPECT_EQ(RunText(Bin("shift-right-logical", "s32[3]", "{-8, -8, 16}", "{28, 32, 2}")),
            "{15, 0, 4}");
  EXPECT_EQ(RunText(Bin("shift-right-arithmetic", "u8[2]", "{128, 64}", "{1, 1}")), "{192, 32}");
  EXPECT_EQ(RunText(Bin("shift-left", "s4[2]", "{1, 1}", "{3, 4}")), "{-8, 0}");
  EXPECT_EQ(RunText(Bin("shift-right-logical", "s4[1]", "{-8}", "{1}")), "{4}");
  EXPECT_EQ(RunText(Bin("shift-right-arithmetic", "s4[1]", "{-8}", "{1}")), "{-4}");
  EXPECT_EQ(RunText(Bin("shift-left", "u64[1]", "{1}", "{63}")), "{9223372036854775808}");
}

TEST(InterpreterElementwise, BitOps) {
  EXPECT_EQ(RunText(Un("popcnt", "s32[3]", "{-1, 0, 7}")), "{32, 0, 3}");
  EXPECT_EQ(RunText(Un("count-leading-zeros", "s32[3]", "{1, 0, -1}")), "{31, 32, 0}");
  EXPECT_EQ(RunText(Un("count-leading-zeros", "u4[2]", "{1, 8}")), "{3, 0}");
  EXPECT_EQ(RunText(Un("popcnt", "s4[1]", "{-1}")), "{4}");
  EXPECT_EQ(RunText(Un("count-leading-zeros", "u64[1]", "{0}")), "{64}");
  EXPECT_EQ(RunText(Un("not", "pred[2]", "{true, false}")), "{false, true}");
  EXPECT_EQ(RunText(Un("not", "s32[1]", "{0}")), "{-1}");
  EXPECT_EQ(RunText(Un("not", "u4[1]", "{5}")), "{10}");
  EXPECT_EQ(RunText(Bin("xor", "u8[1]", "{255}", "{15}")), "{240}");
  EXPECT_EQ(RunText(Bin("and", "pred[4]", "{true, true, false, false}", "{true, false, true, false}")),
            "{true, false, false, false}");
  EXPECT_EQ(RunText(Bin("or", "s8[1]", "{-128}", "{1}")), "{-127}");
}

TEST(InterpreterElementwise, AbsNegateSign) {
  EXPECT_EQ(RunText(Un("abs", "s32[2]", "{-2147483648, -3}")), "{-2147483648, 3}");
  EXPECT_EQ(RunText(Un("negate", "s32[2]", "{-2147483648, 3}")), "{-2147483648, -3}");
  EXPECT_EQ(RunText(Un("abs", "c64[1]", "{(3, 4)}", "f32[1]")), "{5}");
  EXPECT_EQ(RunText(Un("sign", "f32[5]", "{-2, 0, -0, 3, nan}")), "{-1, 0, -0, 1, nan}");
  EXPECT_EQ(RunText(Un("sign", "s32[3]", "{-5, 0, 7}")), "{-1, 0, 1}");
  EXPECT_EQ(RunText(Un("sign", "u8[2]", "{0, 9}")), "{0, 1}");
  EXPECT_EQ(RunText(Un("negate", "c64[1]", "{(1, -2)}")), "{(-1, 2)}");
  EXPECT_EQ(RunText(Un("negate", "f16[1]", "{0}")), "{-0}");
}

TEST(InterpreterElementwise, Rounding) {
  EXPECT_EQ(RunText(Un("round-nearest-afz", "f32[5]", "{0.5, 1.5, -0.5, 2.5, -2.4}")),
            "{1, 2, -1, 3, -2}");
  EXPECT_EQ(RunText(Un("round-nearest-even", "f32[5]", "{0.5, 1.5, -0.5, 2.5, -2.6}")),
            "{0, 2, -0, 2, -3}");
  EXPECT_EQ(RunText(Un("floor", "f64[2]", "{-1.5, 1.5}")), "{-2, 1}");
  EXPECT_EQ(RunText(Un("ceil", "bf16[2]", "{-1.5, 1.5}")), "{-1, 2}");
}

TEST(InterpreterElementwise, Transcendentals) {
  auto r = RunHlo(Entry(R"(a = f32[8] constant({0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 27})
e = f32[8] exponential(a)
l = f32[8] log(a)
t = f32[8] tanh(a)
s = f32[8] logistic(a)
m = f32[8] exponential-minus-one(a)
p = f32[8] log-plus-one(a)
c = f32[8] cbrt(a)
q = f32[8] rsqrt(a)
ROOT out = (f32[8], f32[8], f32[8], f32[8], f32[8], f32[8], f32[8], f32[8]) tuple(e, l, t, s, m, p, c, q))"));
  ASSERT_TRUE(r.ok()) << StatusText(r.status());
  auto v = [&](int k, int i) { return Values<float>(r->element(k))[i]; };
  EXPECT_FLOAT_EQ(v(0, 0), std::exp(0.5f));
  EXPECT_FLOAT_EQ(v(1, 0), std::log(0.5f));
  EXPECT_FLOAT_EQ(v(2, 0), std::tanh(0.5f));
  EXPECT_FLOAT_EQ(v(3, 0), 1.0f / (1.0f + std::exp(-0.5f)));
  EXPECT_FLOAT_EQ(v(4, 0), std::expm1(0.5f));
  EXPECT_FLOAT_EQ(v(5, 0), std::log1p(0.5f));
  EXPECT_FLOAT_EQ(v(6, 7), 3.0f);
  EXPECT_FLOAT_EQ(v(7, 0), 1.0f / std::sqrt(0.5f));
  EXPECT_EQ(RunText(Un("sqrt", "f32[2]", "{4, -1}")), "{2, nan}");
  EXPECT_EQ(RunText(Bin("atan2", "f64[1]", "{0}", "{-1}")), "{3.141592653589793}");
  EXPECT_EQ(RunText(Un("is-finite", "f32[3]", "{1, inf, nan}", "pred[3]")), "{true, false, false}");
  EXPECT_EQ(RunText(Un("erf", "f64[1]", "{0}")), "{0}");
  EXPECT_EQ(RunText(Un("sine", "f32[1]", "{0}")), "{0}");
  EXPECT_EQ(RunText(Un("cosine", "f32[1]", "{0}")), "{1}");
  EXPECT_EQ(RunText(Un("tan", "f32[1]", "{0}")), "{0}");
}

TEST(InterpreterElementwise, Complex) {
  EXPECT_EQ(RunText(Bin("complex", "f32[1]", "{1}", "{2}", "c64[1]")), "{(1, 2)}");
  EXPECT_EQ(RunText(Bin("multiply", "c64[1]", "{(1, 2)}", "{(3, 4)}")), "{(-5, 1e+01)}");
  EXPECT_EQ(RunText(Un("real", "c64[1]", "{(1, 2)}", "f32[1]")), "{1}");
  EXPECT_EQ(RunText(Un("imag", "c128[1]", "{(1, 2)}", "f64[1]")), "{2}");
  EXPECT_EQ(RunText(Un("imag", "f32[1]", "{5}")), "{0}");
  EXPECT_EQ(RunText(Bin("compare", "c64[2]", "{(1, 2), (1, 2)}", "{(1, 2), (1, 3)}", "pred[2]",
                        ", direction=EQ")),
            "{true, false}");
  EXPECT_EQ(RunText(Un("exponential", "c64[1]", "{(0, 0)}")), "{(1, 0)}");
  EXPECT_TRUE(RunText(Bin("maximum", "c64[1]", "{(1, 2)}", "{(1, 2)}")).starts_with("ERROR"));
}

TEST(InterpreterElementwise, Compare) {
  EXPECT_EQ(RunText(Bin("compare", "f32[4]", "{1, nan, 2, -0}", "{2, nan, 2, 0}", "pred[4]",
                        ", direction=LT")),
            "{true, false, false, false}");
  EXPECT_EQ(RunText(Bin("compare", "f32[2]", "{nan, 1}", "{nan, 1}", "pred[2]", ", direction=NE")),
            "{true, false}");
  EXPECT_EQ(RunText(Bin("compare", "s32[3]", "{-1, 5, 5}", "{1, 5, 4}", "pred[3]", ", direction=GE")),
            "{false, true, true}");
  EXPECT_EQ(RunText(Bin("compare", "u32[1]", "{4294967295}", "{1}", "pred[1]",
                        ", direction=GT, type=UNSIGNED")),
            "{true}");
  EXPECT_EQ(RunText(Bin("compare", "pred[2]", "{true, false}", "{false, false}", "pred[2]",
                        ", direction=GT")),
            "{true, false}");
  // Total order: -NaN < -inf < -0 < +0 < 1 < NaN, built from bit patterns.
  std::string hlo = Entry(R"(x = s32[5] constant({-4194304, -8388608, -2147483648, 0, 1065353216})
y = s32[5] constant({-8388608, -2147483648, 0, 1065353216, 2143289344})
a = f32[5] bitcast-convert(x)
b = f32[5] bitcast-convert(y)
lt = pred[5] compare(a, b), direction=LT, type=TOTALORDER
flt = pred[5] compare(a, b), direction=LT
eq = pred[5] compare(a, a), direction=EQ, type=TOTALORDER
ROOT t = (pred[5], pred[5], pred[5]) tuple(lt, flt, eq))");
  EXPECT_EQ(RunText(hlo), "({true, true, true, true, true}, {false, true, false, true, false}, "
                          "{true, true, true, true, true})");
  EXPECT_EQ(RunText(Bin("compare", "bf16[2]", "{-0, 1}", "{0, -1}", "pred[2]",
                        ", direction=LT, type=TOTALORDER")),
            "{true, false}");
}

TEST(InterpreterElementwise, SelectAndClamp) {
  EXPECT_EQ(RunText(Entry(R"(p = pred[3] constant({true, false, true})
a = s32[3] constant({1, 2, 3})
b = s32[3] constant({4, 5, 6})
ROOT r = s32[3] select(p, a, b))")),
            "{1, 5, 3}");
  EXPECT_EQ(RunText(Entry(R"(p = pred[] constant(false)
a = c64[1] constant({(1, 2)})
b = c64[1] constant({(3, 4)})
ROOT r = c64[1] select(p, a, b))")),
            "{(3, 4)}");
  EXPECT_EQ(RunText(Entry(R"(lo = f32[] constant(0)
x = f32[4] constant({-1, 0.5, 2, nan})
hi = f32[] constant(1)
ROOT r = f32[4] clamp(lo, x, hi))")),
            "{0, 0.5, 1, nan}");
  EXPECT_EQ(RunText(Entry(R"(lo = s8[2] constant({0, -5})
x = s8[2] constant({-100, 100})
hi = s8[2] constant({10, 5})
ROOT r = s8[2] clamp(lo, x, hi))")),
            "{0, 5}");
}

TEST(InterpreterElementwise, ConvertFloatToInt) {
  EXPECT_EQ(RunText(Un("convert", "f32[5]", "{1e10, -1e10, nan, -1.9, 2.9}", "s32[5]")),
            "{2147483647, -2147483648, 0, -1, 2}");
  EXPECT_EQ(RunText(Un("convert", "f32[3]", "{-5, 300, 1.5}", "u8[3]")), "{0, 255, 1}");
  EXPECT_EQ(RunText(Un("convert", "f32[2]", "{100, -100}", "s4[2]")), "{7, -8}");
  EXPECT_EQ(RunText(Un("convert", "f64[2]", "{1e30, -1}", "u64[2]")), "{18446744073709551615, 0}");
  EXPECT_EQ(RunText(Un("convert", "f32[2]", "{inf, -inf}", "s64[2]")),
            "{9223372036854775807, -9223372036854775808}");
}

TEST(InterpreterElementwise, ConvertOtherPairs) {
  EXPECT_EQ(RunText(Un("convert", "s32[2]", "{9, -9}", "s4[2]")), "{-7, 7}");
  EXPECT_EQ(RunText(Un("convert", "s32[2]", "{-1, 256}", "u8[2]")), "{255, 0}");
  EXPECT_EQ(RunText(Un("convert", "c64[1]", "{(1.5, 2)}", "f32[1]")), "{1.5}");
  EXPECT_EQ(RunText(Un("convert", "c64[1]", "{(-1.5, 2)}", "s32[1]")), "{-1}");
  EXPECT_EQ(RunText(Un("convert", "f32[1]", "{2}", "c128[1]")), "{(2, 0)}");
  EXPECT_EQ(RunText(Un("convert", "pred[2]", "{true, false}", "f32[2]")), "{1, 0}");
  EXPECT_EQ(RunText(Un("convert", "f32[4]", "{0, -0, 2, nan}", "pred[4]")),
            "{false, false, true, true}");
  EXPECT_EQ(RunText(Un("convert", "s32[2]", "{0, -3}", "pred[2]")), "{false, true}");
  EXPECT_EQ(RunText(Un("convert", "u64[1]", "{18446744073709551615}", "f32[1]")),
            "{1.8446744e+19}");
  EXPECT_EQ(RunText(Un("convert", "u4[1]", "{15}", "s8[1]")), "{15}");
  EXPECT_EQ(RunText(Un("convert", "s4[1]", "{-1}", "u32[1]")), "{4294967295}");
  EXPECT_EQ(RunText(Un("convert", "f8e4m3fn[2]", "{448, -0.5}", "bf16[2]")), "{448, -0.5}");
  EXPECT_EQ(RunText(Un("convert", "f32[2]", "{0.3, 1000}", "f8e4m3fn[2]")), "{0.3, nan}"  /* 0.3125, printed as the shortest f8 text */);
  EXPECT_EQ(RunText(Un("convert", "f32[3]", "{1.125, 1.375, 1e6}", "f8e5m2[3]")), "{1, 1.5, inf}");
}

TEST(InterpreterElementwise, ConvertRoundsToNearestEvenOnTies) {
  const float one = 1.0f;
  std::vector<float> in = {one + std::ldexp(1.0f, -8),                          // tie -> 1
                           one + 3 * std::ldexp(1.0f, -8),                      // tie -> 1+2^-6
                           one + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20),  // above tie
                           one + std::ldexp(1.0f, -11),                         // f16 tie -> 1
                           one + 3 * std::ldexp(1.0f, -11)};                    // f16 tie -> up
  std::string hlo = Entry(R"(p = f32[5] parameter(0)
b = bf16[5] convert(p)
h = f16[5] convert(p)
ROOT t = (bf16[5], f16[5]) tuple(b, h))");
  auto r = RunHlo(hlo, {Lit<float>(DType::kF32, {5}, in)});
  ASSERT_TRUE(r.ok()) << StatusText(r.status());
  EXPECT_EQ(Values<uint16_t>(r->element(0)),
            (std::vector<uint16_t>{0x3F80, 0x3F82, 0x3F81, 0x3F80, 0x3F80}));
  EXPECT_EQ(Values<uint16_t>(r->element(1)),
            (std::vector<uint16_t>{0x3C04, 0x3C0C, 0x3C04, 0x3C00, 0x3C02}));

  // f64 -> bf16 needs one rounding: 1 + 2^-8 + 2^-40 is above the tie (double rounding via f32
  // would give 1.0). s64 -> bf16 likewise: 2^62 + 2^54 + 1 rounds up to 2^62 + 2^55.
  auto r2 = RunHlo(Entry(R"(p = f64[1] parameter(0)
q = s64[1] parameter(1)
b = bf16[1] convert(p)
c = bf16[1] convert(q)
ROOT t = (bf16[1], bf16[1]) tuple(b, c))"),
                   {Lit<double>(DType::kF64, {1}, {1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40)}),
                    Lit<int64_t>(DType::kS64, {1}, {(int64_t{1} << 62) + (int64_t{1} << 54) + 1})});
  ASSERT_TRUE(r2.ok()) << StatusText(r2.status());
  EXPECT_EQ(Values<uint16_t>(r2->element(0)), std::vector<uint16_t>{0x3F81});
  EXPECT_EQ(Values<uint16_t>(r2->element(1)), std::vector<uint16_t>{0x5E81});
}

TEST(InterpreterElementwise, BitcastConvert) {
  EXPECT_EQ(RunText(Un("bitcast-convert", "f32[2]", "{1, -2}", "s32[2]")), "{1065353216, -1073741824}");
  EXPECT_EQ(RunText(Un("bitcast-convert", "f32[2]", "{1, 0}", "u8[2,4]")),
            "{{0, 0, 128, 63}, {0, 0, 0, 0}}");
  EXPECT_EQ(RunText(Un("bitcast-convert", "u8[4]", "{0, 0, 128, 63}", "f32[]")), "1");
  EXPECT_EQ(RunText(Un("bitcast-convert", "s8[2]", "{33, -1}", "s4[2,2]")), "{{1, 2}, {-1, -1}}");
  EXPECT_EQ(RunText(Un("bitcast-convert", "s4[2]", "{-1, 1}", "s8[]")), "31");
  EXPECT_EQ(RunText(Un("bitcast-convert", "s4[2]", "{-1, 7}", "u4[2]")), "{15, 7}");
  EXPECT_EQ(RunText(Un("bitcast-convert", "bf16[1]", "{1}", "s16[1]")), "{16256}");
  EXPECT_EQ(RunText(Un("bitcast-convert", "c64[1]", "{(1, 2)}", "f32[1,2]")), "{{1, 2}}");
}

TEST(InterpreterElementwise, ReducePrecision) {
  EXPECT_EQ(RunText(Un("reduce-precision", "f32[5]", "{1.00048828125, 1e6, 1e-10, nan, -3.5}", "",
                       ", exponent_bits=5, mantissa_bits=10")),
            "{1, inf, 0, nan, -3.5}");
  // bf16-like: 8 exponent bits, 7 mantissa bits; 1 + 3*2^-8 rounds up to 1 + 2^-6.
  EXPECT_EQ(RunText(Un("reduce-precision", "f32[2]", "{1.01171875, 3e38}", "",
                       ", exponent_bits=8, mantissa_bits=7")),
            "{1.015625, 3.0040553e+38}");
  EXPECT_EQ(RunText(Un("reduce-precision", "f64[1]", "{1.00048828125}", "",
                       ", exponent_bits=11, mantissa_bits=10")),
            "{1}");
}

TEST(InterpreterElementwise, TwoBitIntegersAndF8Variants) {
  EXPECT_EQ(RunText(Bin("add", "s2[2]", "{1, -2}", "{1, -1}")), "{-2, 1}");
  EXPECT_EQ(RunText(Bin("add", "u2[2]", "{3, 1}", "{1, 1}")), "{0, 2}");
  EXPECT_EQ(RunText(Un("convert", "s32[2]", "{5, -5}", "u2[2]")), "{1, 3}");
  EXPECT_EQ(RunText(Un("convert", "f32[2]", "{1, -0}", "f8e4m3b11fnuz[2]")), "{1, 0}");
  EXPECT_EQ(RunText(Un("convert", "f32[2]", "{nan, -0}", "f8e5m2fnuz[2]")), "{nan, 0}");
  EXPECT_EQ(RunText(Un("convert", "f32[2]", "{1e6, 0.5}", "f8e4m3[2]")), "{inf, 0.5}");
  EXPECT_EQ(RunText(Un("convert", "f32[1]", "{0.0625}", "f8e3m4[1]")), "{0.06}");  // 0.0625, printed shortest
  EXPECT_EQ(RunText(Un("convert", "f8e4m3fnuz[1]", "{2}", "f8e5m2[1]")), "{2}");
  EXPECT_EQ(RunText(Bin("compare", "f8e5m2[2]", "{-1, 1}", "{1, -1}", "pred[2]",
                        ", direction=LT, type=TOTALORDER")),
            "{true, false}");
  EXPECT_EQ(RunText(Bin("multiply", "f8e4m3fnuz[1]", "{3}", "{-0.5}")), "{-1.5}");
}

// The MX element types of recent XLA/JAX dumps, converted as XLA's elemental emitter does.
TEST(InterpreterElementwise, F4E2M1FNAndF8E8M0FNU) {
  // f4e2m1fn: values 0, 0.5, 1, 1.5, 2, 3, 4, 6; nearest with ties to the even code, saturating.
  EXPECT_EQ(RunText(Un("convert", "f32[8]", "{0.25, 0.75, 1.3, -2.5, 5, 6.9, inf, -100}",
                       "f4e2m1fn[8]")),
            "{0, 1, 1.5, -2, 4, 6, 6, -6}");
  EXPECT_EQ(RunText(Un("convert", "f32[2]", "{nan, 0.3}", "f4e2m1fn[2]")), "{-0, 0.5}");
  EXPECT_EQ(RunText(Bin("add", "f4e2m1fn[2]", "{1.5, 4}", "{1.5, 4}")), "{3, 6}");
  // f8e8m0fnu: powers of two, mantissa rounded half up; zero, negatives, NaN and huge -> NaN.
  EXPECT_EQ(RunText(Un("convert", "f32[5]", "{1, 1.4, 1.5, 0.3, 1024}", "f8e8m0fnu[5]")),
            "{1, 1, 2, 0.2, 1e+03}");  // 0.25 and 1024, printed shortest
  EXPECT_EQ(RunText(Un("convert", "f32[4]", "{0, -1, nan, inf}", "f8e8m0fnu[4]")),
            "{nan, nan, nan, nan}");
  EXPECT_EQ(RunText(Un("convert", "f8e8m0fnu[1]", "{0.5}", "f32[1]")), "{0.5}");
}

TEST(InterpreterElementwise, OddShapes) {
  EXPECT_EQ(RunText(Bin("add", "f32[]", "1.5", "2")), "3.5");
  EXPECT_EQ(RunText(Entry(R"(a = f32[0,3] parameter(0)
ROOT r = f32[0,3] add(a, a))"),
                    {Literal(Shape(DType::kF32, {0, 3}))}),
            "{}");
  EXPECT_EQ(RunText(Bin("add", "s32[1,1,1]", "{{{1}}}", "{{{2}}}")), "{{{3}}}");
}

TEST(InterpreterElementwise, Map) {
  EXPECT_EQ(RunText(R"(HloModule t
f {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  s = f32[] multiply(x, y)
  ROOT r = f32[] add(s, y)
}
ENTRY e {
  a = f32[3] constant({1, 2, 3})
  b = f32[3] constant({4, 5, 6})
  ROOT m = f32[3] map(a, b), dimensions={0}, to_apply=f
})"),
            "{8, 15, 24}");
}

}  // namespace
}  // namespace spmdc::testing

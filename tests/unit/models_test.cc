// Model builders and the traced-graph autodiff: sharding text, emitted modules parse and verify,
// the large-module generator, and gradients checked against central finite differences on the
// reference interpreter.
#include <chrono>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "interpreter/interpreter.h"
#include "ir/verifier.h"
#include "models/graph.h"
#include "models/models.h"

namespace spmdc {
namespace {

using graph::DotDims;
using graph::Graph;
using graph::Mesh;
using graph::ShardingText;
using graph::TensorShape;
using graph::Value;

// ------------------------------------------------------------------------------------------
// Helpers.

std::unique_ptr<Module> ParseAndVerify(const std::string& text) {
  StatusOr<std::unique_ptr<Module>> m = ParseHloModule(text, "<model>");
  EXPECT_TRUE(m.ok()) << m.status().ToString() << "\n" << text.substr(0, 4000);
  if (!m.ok()) return nullptr;
  Status v = VerifyModule(**m);
  EXPECT_TRUE(v.ok()) << v.ToString() << "\n" << text.substr(0, 4000);
  if (!v.ok()) return nullptr;
  return std::move(m).value();
}

DType TypeOf(const std::string& name) { return *DTypeFromName(name); }

// A literal with values uniform in [lo, hi) (integers: [0, int_hi)).
Literal RandomLiteral(const TensorShape& s, std::mt19937& rng, double lo, double hi, int64_t int_hi = 4) {
  Literal lit(Shape(TypeOf(s.dtype), s.dims));
  if (s.dtype == "s32") {
    std::uniform_int_distribution<int64_t> d(0, int_hi - 1);
    for (int64_t i = 0; i < lit.num_elements(); ++i) lit.SetInt(i, d(rng));
  } else {
    std::uniform_real_distribution<double> d(lo, hi);
    for (int64_t i = 0; i < lit.num_elements(); ++i) lit.SetDouble(i, d(rng));
  }
  return lit;
}

StatusOr<Literal> RunModule(const Module& m, const std::vector<Literal>& args) {
  InterpreterOptions options;
  options.intra_op_threads = 1;
  return Execute(m, args, nullptr, options);
}

// Checks the analytic gradients (result elements 1..) of a module whose result is
// (loss, grad of param p for p in wrt_params...) against central differences of the loss.
// At most `samples` elements per parameter are probed.
void CheckGradients(const Module& m, std::vector<Literal> args, const std::vector<int>& wrt_params,
                    double eps, double rtol, double atol, int samples = 1 << 30) {
  StatusOr<Literal> base = RunModule(m, args);
  ASSERT_TRUE(base.ok()) << base.status().ToString();
  ASSERT_EQ(base->elements().size(), wrt_params.size() + 1);
  std::mt19937 rng(7);
  int checked = 0;
  for (size_t k = 0; k < wrt_params.size(); ++k) {
    const int p = wrt_params[k];
    const Literal& grad = base->element(k + 1);
    const int64_t n = args[p].num_elements();
    ASSERT_EQ(grad.num_elements(), n);
    std::vector<int64_t> idx(n);
    for (int64_t i = 0; i < n; ++i) idx[i] = i;
    std::shuffle(idx.begin(), idx.end(), rng);
    if (static_cast<int64_t>(idx.size()) > samples) idx.resize(samples);
    for (int64_t i : idx) {
      const double x = args[p].GetDouble(i);
      args[p].SetDouble(i, x + eps);
      StatusOr<Literal> plus = RunModule(m, args);
      args[p].SetDouble(i, x - eps);
      StatusOr<Literal> minus = RunModule(m, args);
      args[p].SetDouble(i, x);
      ASSERT_TRUE(plus.ok() && minus.ok());
      const double numeric = (plus->element(0).GetDouble(0) - minus->element(0).GetDouble(0)) / (2 * eps);
      const double analytic = grad.GetDouble(i);
      EXPECT_NEAR(analytic, numeric, atol + rtol * std::abs(numeric))
          << "parameter " << p << " element " << i;
      ++checked;
    }
  }
  EXPECT_GT(checked, 0);
}

// ------------------------------------------------------------------------------------------
// Sharding text.

TEST(ShardingTextTest, DataModelMesh) {
  Mesh mesh{{{"data", 2}, {"model", 4}}};
  EXPECT_EQ(ShardingText(mesh, {{"data"}, {}, {}}), "{devices=[2,1,1,4]<=[8] last_tile_dim_replicate}");
  EXPECT_EQ(ShardingText(mesh, {{}, {"model"}}), "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}");
  EXPECT_EQ(ShardingText(mesh, {{"data"}, {"model"}}), "{devices=[2,4]<=[8]}");
  EXPECT_EQ(ShardingText(mesh, {{"model"}, {"data"}}), "{devices=[4,2]<=[2,4]T(1,0)}");
  EXPECT_EQ(ShardingText(mesh, {{"data", "model"}, {}}), "{devices=[8,1]<=[8]}");
  EXPECT_EQ(ShardingText(mesh, {{}, {}}), "{replicated}");
  EXPECT_EQ(ShardingText(mesh, {}), "{replicated}");
}

TEST(ShardingTextTest, SizeOneAxesAndThreeAxes) {
  Mesh mesh{{{"data", 1}, {"model", 4}}};
  EXPECT_EQ(ShardingText(mesh, {{}, {"model"}}), "{devices=[1,4]<=[4]}");
  Mesh m3{{{"a", 2}, {"b", 3}, {"c", 2}}};
  EXPECT_EQ(ShardingText(m3, {{"c"}, {"a"}}), "{devices=[2,2,3]<=[6,2]T(1,0) last_tile_dim_replicate}");
  EXPECT_EQ(ShardingText(m3, {{"b"}, {"c"}}), "{devices=[3,2,2]<=[2,6]T(1,0) last_tile_dim_replicate}");
}

// ------------------------------------------------------------------------------------------
// Builders: text shape, parse + verify.

TEST(ModelsTest, MlpKeepsSignature) {
  MlpOptions o;
  o.batch = 8;
  o.input = 4;
  o.hidden = 6;
  o.output = 3;
  o.layers = 3;
  std::string text = BuildMlpTrainingStep(o);
  EXPECT_NE(text.find("parameter(0)"), std::string::npos);
  EXPECT_NE(text.find("f32[8,4] parameter(0)"), std::string::npos);
  EXPECT_NE(text.find("f32[8,3] parameter(1)"), std::string::npos);
  EXPECT_NE(text.find("f32[4,6] parameter(2)"), std::string::npos);
  EXPECT_NE(text.find("f32[6,6] parameter(3)"), std::string::npos);
  EXPECT_NE(text.find("f32[6,3] parameter(4)"), std::string::npos);
  EXPECT_NE(text.find("(f32[], f32[4,6], f32[6,6], f32[6,3]) tuple("), std::string::npos);
  EXPECT_EQ(text.find("num_partitions"), std::string::npos);
  EXPECT_EQ(text.find("sharding="), std::string::npos);
  auto m = ParseAndVerify(text);
  ASSERT_NE(m, nullptr);
}

TEST(ModelsTest, MlpAnnotated) {
  MlpOptions o;
  o.batch = 8;
  o.input = 4;
  o.hidden = 8;
  o.output = 4;
  o.parallel.data = 2;
  o.parallel.model = 2;
  o.parallel.constrain_activations = true;
  std::string text = BuildMlpTrainingStep(o);
  EXPECT_NE(text.find("HloModule mlp_train_step, num_partitions=4"), std::string::npos);
  EXPECT_NE(text.find("parameter(0), sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}"), std::string::npos);
  EXPECT_NE(text.find("parameter(2), sharding={devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}"),
            std::string::npos);
  EXPECT_NE(text.find("custom_call_target=\"Sharding\""), std::string::npos);
  ParseAndVerify(text);
}

TransformerOptions TinyTransformer() {
  TransformerOptions o;
  o.batch = 2;
  o.seq = 3;
  o.model = 4;
  o.heads = 2;
  o.ffn = 6;
  o.layers = 1;
  return o;
}

TEST(ModelsTest, TransformerVariantsParseAndVerify) {
  for (int vocab : {0, 5})
    for (bool causal : {false, true})
      for (bool gelu : {false, true})
        for (int par : {0, 1, 2, 3}) {
          TransformerOptions o = TinyTransformer();
          o.layers = 2;
          o.vocab = vocab;
          o.causal = causal;
          o.gelu = gelu;
          o.parallel.data = par & 1 ? 2 : 1;
          o.parallel.model = par & 2 ? 2 : 1;
          o.parallel.constrain_activations = par == 3;
          SCOPED_TRACE(::testing::Message() << "vocab=" << vocab << " causal=" << causal << " gelu=" << gelu
                                            << " par=" << par);
          std::string text = BuildTransformerTrainingStep(o);
          if (par) {
            EXPECT_NE(text.find(fmt::format("num_partitions={}", o.parallel.num_devices())), std::string::npos);
          }
          auto m = ParseAndVerify(text);
          ASSERT_NE(m, nullptr);
        }
}

TEST(ModelsTest, TransformerShardings2D) {
  TransformerOptions o = TinyTransformer();
  o.model = 8;
  o.heads = 4;
  o.ffn = 16;
  o.vocab = 5;
  o.parallel.data = 2;
  o.parallel.model = 4;
  std::string text = BuildTransformerTrainingStep(o);
  EXPECT_NE(text.find("HloModule transformer_train_step, num_partitions=8"), std::string::npos);
  // x[B,S,D]: batch over data.
  EXPECT_NE(text.find("f32[2,3,8] parameter(0), sharding={devices=[2,1,1,4]<=[8] last_tile_dim_replicate}"),
            std::string::npos);
  // labels[B,S].
  EXPECT_NE(text.find("s32[2,3] parameter(1), sharding={devices=[2,1,4]<=[8] last_tile_dim_replicate}"),
            std::string::npos);
  // wq [D,H,Dh]: heads over model (column parallel); wo [H,Dh,D]: row parallel.
  EXPECT_NE(text.find("l0_wq.4 = f32[8,4,2] parameter(4), sharding={devices=[1,4,1,2]<=[2,4]T(1,0) "
                      "last_tile_dim_replicate}"),
            std::string::npos);
  EXPECT_NE(text.find("f32[4,2,8] parameter(7), sharding={devices=[4,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"),
            std::string::npos);
  // w1 [D,F] column, w2 [F,D] row.
  EXPECT_NE(text.find("f32[8,16] parameter(10), sharding={devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"),
            std::string::npos);
  EXPECT_NE(text.find("f32[16,8] parameter(12), sharding={devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"),
            std::string::npos);
  EXPECT_NE(text.find("f32[8] parameter(2), sharding={replicated}"), std::string::npos);
  ParseAndVerify(text);
}

TEST(ModelsTest, LargeTransformerGeneration) {
  auto t0 = std::chrono::steady_clock::now();
  TransformerOptions o = TransformerOptionsForInstructionCount(100000);
  std::string text = BuildTransformerTrainingStep(o);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  int64_t count = CountHloInstructions(text);
  EXPECT_GE(count, 100000);
  EXPECT_GE(o.layers, 100);
  // Not a timed assertion: just report.
  std::printf("large transformer: %lld layers, %lld instructions, %zu bytes, %.3f s (with sizing)\n",
              static_cast<long long>(o.layers), static_cast<long long>(count), text.size(), seconds);
  auto p0 = std::chrono::steady_clock::now();
  auto m = ParseAndVerify(text);
  double parse_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - p0).count();
  std::printf("parse + verify: %.3f s\n", parse_seconds);
  EXPECT_NE(m, nullptr);
}

// ------------------------------------------------------------------------------------------
// Gradients of single ops (f64; loss = sum(f(params) * r) with a random cotangent r).

struct OpCase {
  std::string name;
  std::vector<std::vector<int64_t>> shapes;  // differentiable parameters
  std::function<Value(Graph&, const std::vector<Value>&)> f;
  double lo = -1, hi = 1;  // input range
  double eps = 1e-6, rtol = 1e-5;  // finite-difference step and tolerance
};

void CheckOpCase(const OpCase& c) {
  SCOPED_TRACE(c.name);
  const std::string t = "f64";
  Graph g;
  std::vector<Value> params;
  for (const auto& s : c.shapes) params.push_back(g.Param(TensorShape{t, s}));
  Value out = c.f(g, params);
  const TensorShape out_shape = g.shape(out);
  Value r = g.Param(out_shape, "r");
  std::vector<int64_t> all;
  for (int64_t d = 0; d < out_shape.rank(); ++d) all.push_back(d);
  Value loss = g.ReduceSum(g.Mul(out, r), all);
  std::vector<Value> grads = g.Grad(loss, params);
  std::vector<Value> results = {loss};
  results.insert(results.end(), grads.begin(), grads.end());
  std::string text = g.EmitHlo(g.Tuple(results), "grad_" + c.name);
  auto m = ParseAndVerify(text);
  ASSERT_NE(m, nullptr);
  std::mt19937 rng(42);
  std::vector<Literal> args;
  for (Value p : params) args.push_back(RandomLiteral(g.shape(p), rng, c.lo, c.hi));
  args.push_back(RandomLiteral(out_shape, rng, -1, 1));
  std::vector<int> wrt;
  for (size_t i = 0; i < params.size(); ++i) wrt.push_back(static_cast<int>(i));
  CheckGradients(*m, std::move(args), wrt, c.eps, c.rtol, 1e-7);
}

TEST(GradTest, Ops) {
  using V = std::vector<Value>;
  std::vector<OpCase> cases = {
      {"add", {{2, 3}, {2, 3}}, [](Graph& g, const V& p) { return g.Add(p[0], p[1]); }},
      {"sub", {{2, 3}, {2, 3}}, [](Graph& g, const V& p) { return g.Sub(p[0], p[1]); }},
      {"mul", {{2, 3}, {2, 3}}, [](Graph& g, const V& p) { return g.Mul(p[0], p[1]); }},
      {"mul_same", {{2, 3}}, [](Graph& g, const V& p) { return g.Mul(p[0], p[0]); }},
      {"div", {{2, 3}, {2, 3}}, [](Graph& g, const V& p) { return g.Div(p[0], p[1]); }, 0.5, 2},
      {"max", {{2, 3}, {2, 3}}, [](Graph& g, const V& p) { return g.Max(p[0], p[1]); }},
      {"neg", {{4}}, [](Graph& g, const V& p) { return g.Neg(p[0]); }},
      {"exp", {{4}}, [](Graph& g, const V& p) { return g.Exp(p[0]); }},
      {"log", {{4}}, [](Graph& g, const V& p) { return g.Log(p[0]); }, 0.5, 2},
      {"tanh", {{4}}, [](Graph& g, const V& p) { return g.Tanh(p[0]); }},
      {"rsqrt", {{4}}, [](Graph& g, const V& p) { return g.Rsqrt(p[0]); }, 0.5, 2},
      {"sqrt", {{4}}, [](Graph& g, const V& p) { return g.Sqrt(p[0]); }, 0.5, 2},
      {"select", {{2, 3}, {2, 3}},
       [](Graph& g, const V& p) { return g.Select(g.Compare(p[0], p[1], "LT"), g.Exp(p[0]), p[1]); }},
      {"broadcast", {{3}},
       [](Graph& g, const V& p) { return g.Broadcast(p[0], {2, 3, 4}, {1}); }},
      {"broadcast_unsorted", {{3, 2}},
       [](Graph& g, const V& p) { return g.Broadcast(p[0], {2, 4, 3}, {2, 0}); }},
      {"transpose", {{2, 3, 4}},
       [](Graph& g, const V& p) { return g.Transpose(p[0], {2, 0, 1}); }},
      {"reshape", {{2, 6}}, [](Graph& g, const V& p) { return g.Reshape(p[0], {3, 2, 2}); }},
      {"reduce_sum", {{2, 3, 4}}, [](Graph& g, const V& p) { return g.ReduceSum(p[0], {0, 2}); }},
      {"reduce_max", {{3, 5}}, [](Graph& g, const V& p) { return g.ReduceMax(p[0], {1}); }},
      // Through f32: a larger step, since f32 rounding dominates small differences.
      {"convert", {{4}},
       [](Graph& g, const V& p) { return g.Convert(g.Exp(g.Convert(p[0], "f32")), "f64"); }, -1, 1, 1e-2,
       1e-3},
      {"slice", {{5, 6}},
       [](Graph& g, const V& p) { return g.Slice(p[0], {1, 0}, {5, 6}, {2, 3}); }},
      {"pad", {{2, 3}, {}},
       [](Graph& g, const V& p) { return g.Pad(p[0], p[1], {1, 0}, {0, 2}, {1, 1}); }},
      {"concatenate", {{2, 3}, {2, 1}, {2, 2}},
       [](Graph& g, const V& p) { return g.Concatenate({p[0], p[1], p[2]}, 1); }},
      {"matmul", {{2, 3}, {3, 4}}, [](Graph& g, const V& p) { return g.MatMul(p[0], p[1]); }},
      {"dot_batched", {{2, 3, 4}, {2, 4, 5}},
       [](Graph& g, const V& p) { return g.Dot(p[0], p[1], DotDims{{0}, {0}, {2}, {1}}); }},
      {"dot_general", {{3, 2, 4, 5}, {5, 2, 3, 6}},
       // batch (lhs 1, rhs 1), contract (lhs 3 with rhs 0, lhs 0 with rhs 2): out [2,4,6].
       [](Graph& g, const V& p) { return g.Dot(p[0], p[1], DotDims{{1}, {1}, {3, 0}, {0, 2}}); }},
      {"dot_outer", {{3}, {4}}, [](Graph& g, const V& p) { return g.Dot(p[0], p[1], DotDims{}); }},
      {"sharding_constraint", {{2, 4}},
       [](Graph& g, const V& p) { return g.Exp(g.ShardingConstraint(p[0], "{replicated}")); }},
      {"softmax", {{2, 5}},
       [](Graph& g, const V& p) {
         Value m = g.ReduceMax(p[0], {1});
         Value e = g.Exp(g.Sub(p[0], g.Broadcast(m, {2, 5}, {0})));
         return g.Div(e, g.Broadcast(g.ReduceSum(e, {1}), {2, 5}, {0}));
       }},
      {"reverse", {{2, 3, 4}}, [](Graph& g, const V& p) { return g.Reverse(p[0], {0, 2}); }},
      // Convolutions (channels last): their VJPs are convolutions with input dilation, window
      // dilation, reversed kernels and swapped feature dims, as JAX emits them.
      {"conv_3x3_same", {{2, 5, 5, 3}, {3, 3, 3, 4}},
       [](Graph& g, const V& p) { return g.Conv(p[0], p[1], graph::ConvWindow{{}, {1, 1}, {1, 1}, {}, {}}); }},
      {"conv_stride2_pad01", {{1, 6, 6, 2}, {3, 3, 2, 3}},
       [](Graph& g, const V& p) { return g.Conv(p[0], p[1], graph::ConvWindow{{2, 2}, {0, 0}, {1, 1}, {}, {}}); }},
      {"conv_2x2_stride2", {{2, 4, 4, 2}, {2, 2, 2, 3}},
       [](Graph& g, const V& p) { return g.Conv(p[0], p[1], graph::ConvWindow{{2, 2}, {}, {}, {}, {}}); }},
      {"conv_transposed", {{1, 3, 3, 2}, {2, 2, 2, 2}},
       [](Graph& g, const V& p) { return g.Conv(p[0], p[1], graph::ConvWindow{{}, {1, 1}, {1, 1}, {2, 2}, {}}); }},
      {"conv_1d_strided", {{2, 7, 3}, {3, 3, 2}},
       [](Graph& g, const V& p) { return g.Conv(p[0], p[1], graph::ConvWindow{{2}, {1}, {1}, {}, {}}); }},
      {"conv_rectangular", {{1, 5, 4, 2}, {3, 2, 2, 2}},
       [](Graph& g, const V& p) { return g.Conv(p[0], p[1], graph::ConvWindow{{1, 2}, {1, 0}, {1, 0}, {}, {}}); }},
      // Embedding lookups at indices with repeats ([0, 1, 2, 0, 1] as [5, 1], and as [5]): the
      // VJP scatter-adds, summing the repeats.
      {"gather_rows", {{4, 3}},
       [](Graph& g, const V& p) {
         Value idx = g.Concatenate({g.Iota(TensorShape{"s32", {3}}, 0), g.Iota(TensorShape{"s32", {2}}, 0)}, 0);
         return g.Gather(p[0], g.Reshape(idx, {5, 1}));
       }},
      {"scatter_add_rows", {{4, 3}, {5, 3}},
       [](Graph& g, const V& p) {
         Value idx = g.Concatenate({g.Iota(TensorShape{"s32", {3}}, 0), g.Iota(TensorShape{"s32", {2}}, 0)}, 0);
         return g.Exp(g.ScatterAdd(p[0], idx, p[1]));
       }},
      {"iota_mask", {{3, 3}},
       [](Graph& g, const V& p) {
         Value i = g.Iota(TensorShape{"s32", {3, 3}}, 0);
         Value j = g.Iota(TensorShape{"s32", {3, 3}}, 1);
         return g.Select(g.Compare(i, j, "GE"), p[0], g.BroadcastScalar(-5, TensorShape{"f64", {3, 3}}));
       }},
  };
  for (const OpCase& c : cases) CheckOpCase(c);
}

TEST(GradTest, UnusedParameterGetsZero) {
  Graph g;
  Value a = g.Param(TensorShape{"f64", {3}});
  Value b = g.Param(TensorShape{"f64", {2}});
  Value loss = g.ReduceSum(g.Mul(a, a), {0});
  std::vector<Value> grads = g.Grad(loss, {a, b});
  std::string text = g.EmitHlo(g.Tuple({loss, grads[0], grads[1]}), "unused");
  auto m = ParseAndVerify(text);
  ASSERT_NE(m, nullptr);
  std::mt19937 rng(1);
  std::vector<Literal> args = {RandomLiteral(g.shape(a), rng, -1, 1), RandomLiteral(g.shape(b), rng, -1, 1)};
  StatusOr<Literal> out = RunModule(*m, args);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(out->element(1).GetDouble(i), 2 * args[0].GetDouble(i), 1e-12);
  for (int i = 0; i < 2; ++i) EXPECT_EQ(out->element(2).GetDouble(i), 0.0);
}

// ------------------------------------------------------------------------------------------
// Whole models: output_gradients, f64, finite differences on every weight.

std::vector<Literal> ModelArgs(const Module& m, std::mt19937& rng, int64_t int_hi) {
  std::vector<Literal> args;
  const Computation* entry = m.entry();
  for (int64_t i = 0; i < entry->num_parameters(); ++i) {
    const Shape& s = entry->parameter(i)->shape();
    TensorShape ts{std::string(DTypeName(s.dtype())), s.dims()};
    args.push_back(RandomLiteral(ts, rng, -1, 1, int_hi));
  }
  return args;
}

TEST(GradTest, MlpGradients) {
  MlpOptions o;
  o.batch = 4;
  o.input = 3;
  o.hidden = 5;
  o.output = 2;
  o.layers = 3;
  o.dtype = "f64";
  o.output_gradients = true;
  auto m = ParseAndVerify(BuildMlpTrainingStep(o));
  ASSERT_NE(m, nullptr);
  std::mt19937 rng(3);
  CheckGradients(*m, ModelArgs(*m, rng, 4), {2, 3, 4}, 1e-6, 1e-5, 1e-8);
}

TEST(GradTest, MlpUpdateIsSgd) {
  // The f32 training step equals w - lr * grad of the gradient-output module.
  MlpOptions o;
  o.batch = 4;
  o.input = 3;
  o.hidden = 5;
  o.output = 2;
  o.learning_rate = 0.5f;
  auto step = ParseAndVerify(BuildMlpTrainingStep(o));
  o.output_gradients = true;
  auto grads = ParseAndVerify(BuildMlpTrainingStep(o));
  ASSERT_TRUE(step && grads);
  std::mt19937 rng(5);
  std::vector<Literal> args = ModelArgs(*step, rng, 4);
  StatusOr<Literal> a = RunModule(*step, args);
  StatusOr<Literal> b = RunModule(*grads, args);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->element(0).GetDouble(0), b->element(0).GetDouble(0));
  for (int k = 1; k <= 2; ++k)
    for (int64_t i = 0; i < args[k + 1].num_elements(); ++i)
      EXPECT_NEAR(a->element(k).GetDouble(i), args[k + 1].GetDouble(i) - 0.5 * b->element(k).GetDouble(i), 1e-6);
}

void CheckTransformerGradients(TransformerOptions o, int samples) {
  o.dtype = "f64";
  o.output_gradients = true;
  auto m = ParseAndVerify(BuildTransformerTrainingStep(o));
  ASSERT_NE(m, nullptr);
  std::mt19937 rng(11);
  std::vector<Literal> args = ModelArgs(*m, rng, o.vocab > 0 ? o.vocab : 4);
  std::vector<int> wrt;
  for (int i = 2; i < static_cast<int>(args.size()); ++i) wrt.push_back(i);
  CheckGradients(*m, std::move(args), wrt, 1e-6, 1e-5, 1e-8, samples);
}

TEST(GradTest, TransformerRegressionGelu) {
  TransformerOptions o = TinyTransformer();
  o.layers = 2;
  CheckTransformerGradients(o, 6);
}

TEST(GradTest, TransformerCrossEntropyRelu) {
  TransformerOptions o = TinyTransformer();
  o.vocab = 5;
  o.gelu = false;
  o.causal = false;
  CheckTransformerGradients(o, 6);
}

TEST(GradTest, TransformerCrossEntropyCausalAnnotated) {
  TransformerOptions o = TinyTransformer();
  o.vocab = 3;
  o.parallel.data = 2;
  o.parallel.model = 2;
  o.parallel.constrain_activations = true;
  CheckTransformerGradients(o, 4);
}

TEST(GradTest, UNetGradients) {
  UNetOptions o;
  o.batch = 2;
  o.size = 8;
  o.in_channels = 2;
  o.channels = 2;
  o.levels = 3;  // both up-samplings: transposed convolution and resize + convolution
  o.dtype = "f64";
  o.output_gradients = true;
  auto m = ParseAndVerify(BuildUNetTrainingStep(o));
  ASSERT_NE(m, nullptr);
  std::mt19937 rng(13);
  std::vector<Literal> args = ModelArgs(*m, rng, 4);
  std::vector<int> wrt;
  for (int i = 2; i < static_cast<int>(args.size()); ++i) wrt.push_back(i);
  CheckGradients(*m, std::move(args), wrt, 1e-6, 1e-5, 1e-8, 6);
}

TEST(GradTest, DlrmGradients) {
  DlrmOptions o;
  o.batch = 4;
  o.dense = 3;
  o.bottom = {4, 3};
  o.tables = 2;
  o.rows = 8;
  o.lookups = 2;
  o.top = {4, 1};
  o.dtype = "f64";
  o.output_gradients = true;
  auto m = ParseAndVerify(BuildDlrmTrainingStep(o));
  ASSERT_NE(m, nullptr);
  std::mt19937 rng(17);
  std::vector<Literal> args = ModelArgs(*m, rng, o.rows);
  std::vector<int> wrt;
  for (int i = 2 + static_cast<int>(o.tables); i < static_cast<int>(args.size()); ++i) wrt.push_back(i);
  CheckGradients(*m, std::move(args), wrt, 1e-6, 1e-5, 1e-8, 8);
}

TEST(GradTest, AdagradUpdate) {
  // The f32 Adagrad step equals a' = a + g², w' = w - lr g / (sqrt(a') + 1e-7) of the gradient-
  // output module's g.
  DlrmOptions o;
  o.batch = 4;
  o.dense = 3;
  o.bottom = {4, 3};
  o.tables = 1;
  o.rows = 8;
  o.lookups = 2;
  o.top = {1};
  o.learning_rate = 0.5f;
  o.optimizer = "adagrad";
  auto step = ParseAndVerify(BuildDlrmTrainingStep(o));
  o.output_gradients = true;
  auto grads = ParseAndVerify(BuildDlrmTrainingStep(o));
  ASSERT_TRUE(step && grads);
  std::mt19937 rng(19);
  std::vector<Literal> args = ModelArgs(*step, rng, o.rows);
  for (Literal& a : args)  // accumulators are sums of squares: non-negative
    if (a.shape().dtype() == DType::kF32)
      for (int64_t i = 0; i < a.num_elements(); ++i) a.SetDouble(i, std::fabs(a.GetDouble(i)));
  std::vector<Literal> grad_args(args.begin(), args.begin() + grads->entry()->num_parameters());
  StatusOr<Literal> a = RunModule(*step, args);
  StatusOr<Literal> b = RunModule(*grads, grad_args);
  ASSERT_TRUE(a.ok() && b.ok()) << a.status() << b.status();
  const int first_weight = 3;  // x, y, idx_0
  const int weights = static_cast<int>(b->elements().size()) - 1;
  ASSERT_EQ(static_cast<int>(a->elements().size()), 1 + 2 * weights);
  for (int k = 0; k < weights; ++k) {
    const Literal& w = args[first_weight + k];
    const Literal& acc = args[first_weight + weights + k];
    const Literal& g = b->element(k + 1);
    for (int64_t i = 0; i < w.num_elements(); ++i) {
      const double acc_new = acc.GetDouble(i) + g.GetDouble(i) * g.GetDouble(i);
      EXPECT_NEAR(a->element(1 + weights + k).GetDouble(i), acc_new, 1e-5 * std::max(1.0, acc_new));
      const double w_new = w.GetDouble(i) - 0.5 * g.GetDouble(i) / (std::sqrt(acc_new) + 1e-7);
      EXPECT_NEAR(a->element(1 + k).GetDouble(i), w_new, 1e-4 * std::max(1.0, std::fabs(w_new)));
    }
  }
}

}  // namespace
}  // namespace spmdc

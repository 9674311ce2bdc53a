// The GPT training step in the repeated-layer form that `spmdc pipeline` recognises: one
// computation for a transformer block's forward pass called once per layer (the activation
// chained from call to call, each call with its own layer's weights), one for the block's
// backward pass (x, weights..., output cotangent) -> (input cotangent, weight gradients...)
// called once per layer in reverse order, and, in between, the final LayerNorm, the vocabulary
// projection and the softmax cross-entropy (with their gradients) computed on the whole batch;
// then the SGD update of every weight. Every part is traced with graph::Graph and differentiated
// by graph::Graph::Grad, so the gradients are correct by construction; the parts are joined as
// HLO text (the graph layer emits single-computation modules).
#include <cmath>
#include <regex>

#include "fmt/format.h"
#include "models/gpt_pipeline.h"
#include "models/graph.h"
#include "support/check.h"

namespace spmdc {
namespace {

using graph::DotDims;
using graph::Graph;
using graph::TensorShape;
using graph::Value;

struct WeightSpec {
  std::string name;
  std::vector<int64_t> dims;
};

class GptPipelineBuilder {
 public:
  explicit GptPipelineBuilder(const GptPipelineOptions& o) : o_(o) {}
  std::string Build();

 private:
  std::vector<WeightSpec> LayerWeights() const;
  Value Scalar(Graph& g, double v, const std::vector<int64_t>& dims) {
    return g.BroadcastScalar(v, TensorShape{"f32", dims});
  }
  Value LayerNorm(Graph& g, Value x, Value scale, Value bias);
  Value Block(Graph& g, Value x, const std::vector<Value>& w);
  // The body of one computation of `text` (a single-computation module from Graph::EmitHlo),
  // renamed `name`, its instruction names prefixed with `prefix` (instruction names are unique
  // module-wide); the scalar reducers it defines are dropped (the module defines them once).
  static std::string Body(const std::string& text, const std::string& name, const std::string& prefix);

  const GptPipelineOptions& o_;
};

std::vector<WeightSpec> GptPipelineBuilder::LayerWeights() const {
  const int64_t D = o_.model, H = o_.heads, Dh = o_.model / o_.heads, F = o_.ffn;
  return {{"ln1_scale", {D}}, {"ln1_bias", {D}},  {"wq", {D, H, Dh}}, {"wk", {D, H, Dh}},
          {"wv", {D, H, Dh}}, {"wo", {H, Dh, D}}, {"ln2_scale", {D}}, {"ln2_bias", {D}},
          {"w1", {D, F}},     {"b1", {F}},        {"w2", {F, D}},     {"b2", {D}}};
}

Value GptPipelineBuilder::LayerNorm(Graph& g, Value x, Value scale, Value bias) {
  const std::vector<int64_t> full = g.shape(x).dims;  // [B,S,D]
  const std::vector<int64_t> rows = {full[0], full[1]};
  const double inv_d = 1.0 / static_cast<double>(full[2]);
  Value mean = g.Mul(g.ReduceSum(x, {2}), Scalar(g, inv_d, rows));
  Value xc = g.Sub(x, g.Broadcast(mean, full, {0, 1}));
  Value var = g.Mul(g.ReduceSum(g.Mul(xc, xc), {2}), Scalar(g, inv_d, rows));
  Value inv = g.Rsqrt(g.Add(var, Scalar(g, 1e-5, rows)));
  Value normed = g.Mul(xc, g.Broadcast(inv, full, {0, 1}));
  return g.Add(g.Mul(normed, g.Broadcast(scale, full, {2})), g.Broadcast(bias, full, {2}));
}

// A pre-LayerNorm block: x + attention(ln1(x)), then + mlp(ln2(.)), causal, tanh-GELU.
Value GptPipelineBuilder::Block(Graph& g, Value x, const std::vector<Value>& w) {
  const int64_t B = o_.batch, S = o_.seq, D = o_.model, H = o_.heads, F = o_.ffn, Dh = D / H;
  const DotDims proj{{}, {}, {2}, {0}};
  Value a = LayerNorm(g, x, w[0], w[1]);
  Value q = g.Dot(a, w[2], proj), k = g.Dot(a, w[3], proj), v = g.Dot(a, w[4], proj);
  const std::vector<int64_t> sdims = {B, H, S, S};
  Value scores = g.Mul(g.Dot(q, k, DotDims{{0, 2}, {0, 2}, {3}, {3}}),
                       Scalar(g, 1.0 / std::sqrt(static_cast<double>(Dh)), sdims));
  Value allowed = g.Broadcast(g.Compare(g.Iota(TensorShape{"s32", {S, S}}, 0),
                                        g.Iota(TensorShape{"s32", {S, S}}, 1), "GE"),
                              sdims, {2, 3});
  scores = g.Select(allowed, scores, Scalar(g, -1e9, sdims));
  Value e = g.Exp(g.Sub(scores, g.Broadcast(g.ReduceMax(scores, {3}), sdims, {0, 1, 2})));
  Value probs = g.Div(e, g.Broadcast(g.ReduceSum(e, {3}), sdims, {0, 1, 2}));
  Value ctx = g.Dot(probs, v, DotDims{{0, 1}, {0, 2}, {3}, {1}});
  Value h = g.Add(x, g.Dot(ctx, w[5], DotDims{{}, {}, {1, 3}, {0, 1}}));
  Value b = LayerNorm(g, h, w[6], w[7]);
  const std::vector<int64_t> hdims = {B, S, F}, odims = {B, S, D};
  Value u = g.Add(g.Dot(b, w[8], proj), g.Broadcast(w[9], hdims, {2}));
  Value u3 = g.Mul(u, g.Mul(u, u));
  Value inner = g.Mul(Scalar(g, std::sqrt(2.0 / M_PI), hdims), g.Add(u, g.Mul(Scalar(g, 0.044715, hdims), u3)));
  Value gelu = g.Mul(g.Mul(Scalar(g, 0.5, hdims), u), g.Add(Scalar(g, 1.0, hdims), g.Tanh(inner)));
  return g.Add(h, g.Add(g.Dot(gelu, w[10], proj), g.Broadcast(w[11], odims, {2})));
}

std::string GptPipelineBuilder::Body(const std::string& text, const std::string& name, const std::string& prefix) {
  const size_t entry = text.find("ENTRY ");
  SPMDC_CHECK_MSG(entry != std::string::npos, "graph module without an entry");
  std::string body = text.substr(entry + 6);
  body = name + body.substr(body.find(' '));
  // Instruction names are NAME.N; computation names (add_f32) and numbers do not match.
  static const std::regex kName(R"((^|[^A-Za-z0-9_.])([A-Za-z_][A-Za-z0-9_]*\.[0-9]+)\b)");
  return std::regex_replace(body, kName, "$1" + prefix + "$2");
}

std::string GptPipelineBuilder::Build() {
  const int64_t B = o_.batch, S = o_.seq, D = o_.model, V = o_.vocab, L = o_.layers;
  SPMDC_CHECK_MSG(L >= 1 && o_.model % o_.heads == 0 && B % o_.data == 0, "bad gpt-pipeline options");
  SPMDC_CHECK_MSG(o_.optimizer == "sgd" || o_.optimizer == "adam", "optimizer must be sgd or adam");
  const std::vector<WeightSpec> ws = LayerWeights();
  const TensorShape act{"f32", {B, S, D}};
  const std::string act_text = act.ToString();
  // The block forward: (x, weights...) -> y.
  std::string fwd_text, bwd_text, head_text;
  {
    Graph g;
    Value x = g.Param(act, "x");
    std::vector<Value> w;
    for (const WeightSpec& s : ws) w.push_back(g.Param(TensorShape{"f32", s.dims}, s.name));
    fwd_text = g.EmitHlo(Block(g, x, w), "fwd");
  }
  // The block backward: (x, weights..., dy) -> (dx, dweights...), the VJP of the block at x,
  // as the gradient of sum(block(x) * dy).
  {
    Graph g;
    Value x = g.Param(act, "x");
    std::vector<Value> w;
    for (const WeightSpec& s : ws) w.push_back(g.Param(TensorShape{"f32", s.dims}, s.name));
    Value dy = g.Param(act, "dy");
    Value y = Block(g, x, w);
    Value dot = g.ReduceSum(g.Mul(y, dy), {0, 1, 2});
    std::vector<Value> wrt = {x};
    wrt.insert(wrt.end(), w.begin(), w.end());
    bwd_text = g.EmitHlo(g.Tuple(g.Grad(dot, wrt)), "bwd");
  }
  // The head on the whole batch: (h, labels, lnf_scale, lnf_bias, w_out) -> (loss, dh, dlnf_scale,
  // dlnf_bias, dw_out).
  {
    Graph g;
    Value h = g.Param(act, "h");
    Value labels = g.Param(TensorShape{"s32", {B, S}}, "labels");
    Value lnf_s = g.Param(TensorShape{"f32", {D}}, "lnf_scale");
    Value lnf_b = g.Param(TensorShape{"f32", {D}}, "lnf_bias");
    Value w_out = g.Param(TensorShape{"f32", {D, V}}, "w_out");
    Value n = LayerNorm(g, h, lnf_s, lnf_b);
    const std::vector<int64_t> ldims = {B, S, V};
    Value logits = g.Dot(n, w_out, DotDims{{}, {}, {2}, {0}});
    Value shifted = g.Sub(logits, g.Broadcast(g.ReduceMax(logits, {2}), ldims, {0, 1}));
    Value lse = g.Log(g.ReduceSum(g.Exp(shifted), {2}));
    Value onehot = g.Convert(g.Compare(g.Iota(TensorShape{"s32", ldims}, 2), g.Broadcast(labels, ldims, {0, 1}), "EQ"), "f32");
    Value nll = g.Sub(lse, g.ReduceSum(g.Mul(onehot, shifted), {2}));
    Value loss = g.Mul(g.ReduceSum(nll, {0, 1}), g.Constant(1.0 / static_cast<double>(B * S)));
    std::vector<Value> outs = {loss};
    for (Value v : g.Grad(loss, {h, lnf_s, lnf_b, w_out})) outs.push_back(v);
    head_text = g.EmitHlo(g.Tuple(outs), "head");
  }
  // Shardings over the source's own devices: data parallel (the batch over `data`), weights
  // replicated.
  const bool dp = o_.data > 1;
  auto batch_sharding = [&](int64_t rank) {
    if (!dp) return std::string();
    std::string tiles = std::to_string(o_.data);
    for (int64_t d = 1; d < rank; ++d) tiles += ",1";
    return fmt::format(", sharding={{devices=[{}]<=[{}]}}", tiles, o_.data);
  };
  const std::string replicated = dp ? ", sharding={replicated}" : "";

  std::string out = fmt::format("HloModule gpt_pipeline_train_step{}\n\n", dp ? fmt::format(", num_partitions={}", o_.data) : "");
  out += "add_f32 {\n  add_f32.lhs = f32[] parameter(0)\n  add_f32.rhs = f32[] parameter(1)\n"
         "  ROOT add_f32.out = f32[] add(add_f32.lhs, add_f32.rhs)\n}\n\n";
  out += "max_f32 {\n  max_f32.lhs = f32[] parameter(0)\n  max_f32.rhs = f32[] parameter(1)\n"
         "  ROOT max_f32.out = f32[] maximum(max_f32.lhs, max_f32.rhs)\n}\n\n";
  out += Body(fwd_text, "layer_fwd", "f.") + "\n";
  out += Body(bwd_text, "layer_bwd", "b.") + "\n";
  out += Body(head_text, "head", "h.") + "\n";
  out += "ENTRY gpt_pipeline_train_step {\n";
  int64_t p = 0;
  out += fmt::format("  x = {} parameter({}){}\n", act_text, p++, batch_sharding(3));
  out += fmt::format("  labels = s32[{},{}] parameter({}){}\n", B, S, p++, batch_sharding(2));
  auto shape_of = [](const std::vector<int64_t>& dims) { return TensorShape{"f32", dims}.ToString(); };
  std::vector<std::vector<std::string>> names(L);
  for (int64_t l = 0; l < L; ++l)
    for (const WeightSpec& s : ws) {
      names[l].push_back(fmt::format("l{}_{}", l, s.name));
      out += fmt::format("  {} = {} parameter({}){}\n", names[l].back(), shape_of(s.dims), p++, replicated);
    }
  const std::vector<WeightSpec> head_ws = {{"lnf_scale", {D}}, {"lnf_bias", {D}}, {"w_out", {D, V}}};
  for (const WeightSpec& s : head_ws)
    out += fmt::format("  {} = {} parameter({}){}\n", s.name, shape_of(s.dims), p++, replicated);
  // Adam's moments, one of each per weight (same order), then the step count.
  const bool adam = o_.optimizer == "adam";
  if (adam) {
    for (const char* moment : {"m_", "v_"}) {
      for (int64_t l = 0; l < L; ++l)
        for (size_t k = 0; k < ws.size(); ++k)
          out += fmt::format("  {}{} = {} parameter({}){}\n", moment, names[l][k], shape_of(ws[k].dims), p++, replicated);
      for (const WeightSpec& s : head_ws)
        out += fmt::format("  {}{} = {} parameter({}){}\n", moment, s.name, shape_of(s.dims), p++, replicated);
    }
    out += fmt::format("  step = s32[] parameter({}){}\n", p++, replicated);
  }
  std::string h = "x";
  for (int64_t l = 0; l < L; ++l) {
    std::string next = fmt::format("fwd{}", l);
    out += fmt::format("  {} = {} call({}, {}), to_apply=layer_fwd\n", next, act_text, h, fmt::join(names[l], ", "));
    h = next;
  }
  std::string grad_shapes = act_text;
  for (const WeightSpec& s : ws) grad_shapes += ", " + shape_of(s.dims);
  out += fmt::format("  head_out = (f32[], {}, f32[{}], f32[{}], f32[{},{}]) call({}, labels, lnf_scale, lnf_bias, w_out), to_apply=head\n",
                     act_text, D, D, D, V, h);
  out += "  loss = f32[] get-tuple-element(head_out), index=0\n";
  std::string g = "dh";
  out += fmt::format("  dh = {} get-tuple-element(head_out), index=1\n", act_text);
  std::vector<std::vector<std::string>> grads(L);
  for (int64_t l = L - 1; l >= 0; --l) {
    const std::string in = l == 0 ? "x" : fmt::format("fwd{}", l - 1);
    out += fmt::format("  bwd{} = ({}) call({}, {}, {}), to_apply=layer_bwd\n", l, grad_shapes, in, fmt::join(names[l], ", "), g);
    g = fmt::format("dx{}", l);
    out += fmt::format("  {} = {} get-tuple-element(bwd{}), index=0\n", g, act_text, l);
    for (size_t k = 0; k < ws.size(); ++k) {
      grads[l].push_back(fmt::format("d{}", names[l][k]));
      out += fmt::format("  {} = {} get-tuple-element(bwd{}), index={}\n", grads[l].back(), shape_of(ws[k].dims), l, k + 1);
    }
  }
  // SGD: w - lr * dw. Adam (as models/training.cc): m' = β1 m + (1-β1) g, v' = β2 v + (1-β2) g²,
  // w' = w - lr · (m' / (1-β1^t)) / (sqrt(max(v' / (1-β2^t), 0)) + ε), t = step + 1.
  out += fmt::format("  lr = f32[] constant({})\n", o_.learning_rate);
  std::vector<std::string> results = {"loss"}, new_m, new_v;
  if (adam) {
    out += "  one = f32[] constant(1)\n  count = f32[] convert(step)\n  t = f32[] add(count, one)\n";
    for (const char* c : {"1", "2"}) {
      const double beta = c[0] == '1' ? 0.9 : 0.999;
      out += fmt::format("  logb{0} = f32[] constant({1})\n  tl{0} = f32[] multiply(t, logb{0})\n  pow{0} = f32[] exponential(tl{0})\n"
                         "  c{0} = f32[] subtract(one, pow{0})\n  b{0} = f32[] constant({2})\n  nb{0} = f32[] constant({3})\n",
                         c, std::log(beta), beta, 1 - beta);
    }
    out += "  eps = f32[] constant(1e-08)\n  zero = f32[] constant(0)\n";
  }
  auto update = [&](const std::string& w, const std::string& dw, const std::vector<int64_t>& dims) {
    const std::string s = shape_of(dims);
    auto b = [&](const std::string& scalar) {
      out += fmt::format("  {0}.{1} = {2} broadcast({0}), dimensions={{}}\n", scalar, w, s);
      return scalar + "." + w;
    };
    if (!adam) {
      out += fmt::format("  step.{} = {} multiply({}, {})\n", w, s, b("lr"), dw);
      out += fmt::format("  new_{} = {} subtract({}, step.{})\n", w, s, w, w);
      results.push_back("new_" + w);
      return;
    }
    out += fmt::format("  m1.{0} = {1} multiply({2}, m_{0})\n  m2.{0} = {1} multiply({3}, {4})\n  new_m_{0} = {1} add(m1.{0}, m2.{0})\n",
                       w, s, b("b1"), b("nb1"), dw);
    out += fmt::format("  gg.{0} = {1} multiply({2}, {2})\n  v1.{0} = {1} multiply({3}, v_{0})\n  v2.{0} = {1} multiply({4}, gg.{0})\n"
                       "  new_v_{0} = {1} add(v1.{0}, v2.{0})\n",
                       w, s, dw, b("b2"), b("nb2"));
    out += fmt::format("  mh.{0} = {1} divide(new_m_{0}, {2})\n  vq.{0} = {1} divide(new_v_{0}, {3})\n  vh.{0} = {1} maximum(vq.{0}, {4})\n",
                       w, s, b("c1"), b("c2"), b("zero"));
    out += fmt::format("  sq.{0} = {1} sqrt(vh.{0})\n  den.{0} = {1} add(sq.{0}, {2})\n  r.{0} = {1} divide(mh.{0}, den.{0})\n",
                       w, s, b("eps"));
    out += fmt::format("  step.{0} = {1} multiply({2}, r.{0})\n  new_{0} = {1} subtract({0}, step.{0})\n", w, s, b("lr"));
    results.push_back("new_" + w);
    new_m.push_back("new_m_" + w);
    new_v.push_back("new_v_" + w);
  };
  for (int64_t l = 0; l < L; ++l)
    for (size_t k = 0; k < ws.size(); ++k) update(names[l][k], grads[l][k], ws[k].dims);
  for (size_t k = 0; k < head_ws.size(); ++k) {
    out += fmt::format("  d{} = {} get-tuple-element(head_out), index={}\n", head_ws[k].name, shape_of(head_ws[k].dims), k + 2);
    update(head_ws[k].name, "d" + head_ws[k].name, head_ws[k].dims);
  }
  std::string tuple_shape = "f32[]";
  for (int pass = 0; pass < (adam ? 3 : 1); ++pass) {
    for (int64_t l = 0; l < L; ++l)
      for (const WeightSpec& s : ws) tuple_shape += ", " + shape_of(s.dims);
    for (const WeightSpec& s : head_ws) tuple_shape += ", " + shape_of(s.dims);
  }
  results.insert(results.end(), new_m.begin(), new_m.end());
  results.insert(results.end(), new_v.begin(), new_v.end());
  out += fmt::format("  ROOT result = ({}) tuple({})\n}}\n", tuple_shape, fmt::join(results, ", "));
  return out;
}

}  // namespace

std::string BuildGptPipelineTrainingStep(const GptPipelineOptions& options) {
  return GptPipelineBuilder(options).Build();
}

}  // namespace spmdc

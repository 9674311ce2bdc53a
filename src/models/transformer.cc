// A pre-LayerNorm transformer training step (attention + MLP blocks, loss, backward by
// autodiff, SGD update) in HLO, with optional data / Megatron tensor / 2-D parallel annotations.
#include <cmath>

#include "fmt/format.h"
#include "models/graph.h"
#include "models/models.h"
#include "models/training.h"
#include "support/check.h"

namespace spmdc {
namespace {

using graph::DotDims;
using graph::Graph;
using graph::TensorShape;
using graph::Value;
using models_internal::Spec;

class TransformerBuilder {
 public:
  explicit TransformerBuilder(const TransformerOptions& o) : o_(o), p_(o.parallel), t_(o.dtype) {}

  std::string Build();

 private:
  // Broadcasts `v` of shape dims_of(kept) into `out` (kept: the output dims v maps to).
  Value Bcast(Value v, const std::vector<int64_t>& out, const std::vector<int64_t>& kept) {
    return g_.Broadcast(v, out, kept);
  }
  Value Scalar(double v, const std::vector<int64_t>& dims) { return g_.BroadcastScalar(v, TensorShape{t_, dims}); }
  Value Constrain(Value v, const std::vector<std::string>& axes) {
    if (!p_.constrain_activations || !p_.annotated()) return v;
    return g_.ShardingConstraint(v, Spec(p_, axes));
  }
  Value Weight(const std::vector<int64_t>& dims, const std::string& name, const std::vector<std::string>& axes) {
    Value w = g_.Param(TensorShape{t_, dims}, name, Spec(p_, axes));
    weights_.push_back(w);
    return w;
  }
  Value LayerNorm(Value x, Value scale, Value bias);
  Value Attention(Value x, Value wq, Value wk, Value wv, Value wo);
  Value Mlp(Value x, Value w1, Value b1, Value w2, Value b2);
  Value Activation(Value x);

  const TransformerOptions& o_;
  const ParallelismOptions& p_;
  const std::string t_;
  Graph g_;
  std::vector<Value> weights_;
};

Value TransformerBuilder::LayerNorm(Value x, Value scale, Value bias) {
  const std::vector<int64_t> full = g_.shape(x).dims;  // [B,S,D]
  const std::vector<int64_t> rows = {full[0], full[1]};
  const double inv_d = 1.0 / static_cast<double>(full[2]);
  Value mean = g_.Mul(g_.ReduceSum(x, {2}), Scalar(inv_d, rows));
  Value xc = g_.Sub(x, Bcast(mean, full, {0, 1}));
  Value var = g_.Mul(g_.ReduceSum(g_.Mul(xc, xc), {2}), Scalar(inv_d, rows));
  Value inv = g_.Rsqrt(g_.Add(var, Scalar(o_.layer_norm_epsilon, rows)));
  Value normed = g_.Mul(xc, Bcast(inv, full, {0, 1}));
  Value out = g_.Add(g_.Mul(normed, Bcast(scale, full, {2})), Bcast(bias, full, {2}));
  g_.SetName(out, "layer_norm");
  return out;
}

Value TransformerBuilder::Attention(Value x, Value wq, Value wk, Value wv, Value wo) {
  const int64_t B = o_.batch, S = o_.seq, H = o_.heads, Dh = o_.model / o_.heads;
  // [B,S,D] x [D,H,Dh] -> [B,S,H,Dh]
  const DotDims proj{{}, {}, {2}, {0}};
  const std::vector<std::string> heads_axes = {"data", "", "model", ""};
  Value q = Constrain(g_.Dot(x, wq, proj), heads_axes);
  Value k = Constrain(g_.Dot(x, wk, proj), heads_axes);
  Value v = Constrain(g_.Dot(x, wv, proj), heads_axes);
  g_.SetName(q, "q");
  g_.SetName(k, "k");
  g_.SetName(v, "v");
  // scores[B,H,Sq,Sk] = q . k over Dh, batched over (B,H).
  Value scores = g_.Dot(q, k, DotDims{{0, 2}, {0, 2}, {3}, {3}});
  const std::vector<int64_t> sdims = {B, H, S, S};
  scores = g_.Mul(scores, Scalar(1.0 / std::sqrt(static_cast<double>(Dh)), sdims));
  g_.SetName(scores, "scores");
  if (o_.causal) {
    Value qi = g_.Iota(TensorShape{"s32", {S, S}}, 0);
    Value ki = g_.Iota(TensorShape{"s32", {S, S}}, 1);
    Value allowed = Bcast(g_.Compare(qi, ki, "GE"), sdims, {2, 3});
    scores = g_.Select(allowed, scores, Scalar(-1e9, sdims));
  }
  // Softmax over Sk, stabilised by the row max.
  Value m = g_.ReduceMax(scores, {3});
  Value e = g_.Exp(g_.Sub(scores, Bcast(m, sdims, {0, 1, 2})));
  Value denom = g_.ReduceSum(e, {3});
  Value probs = g_.Div(e, Bcast(denom, sdims, {0, 1, 2}));
  g_.SetName(probs, "probs");
  // context[B,H,Sq,Dh] = probs . v over Sk, batched over (B,H).
  Value ctx = g_.Dot(probs, v, DotDims{{0, 1}, {0, 2}, {3}, {1}});
  ctx = Constrain(ctx, {"data", "model", "", ""});
  // out[B,S,D] = ctx[B,H,S,Dh] . wo[H,Dh,D] over (H,Dh).
  Value out = g_.Dot(ctx, wo, DotDims{{}, {}, {1, 3}, {0, 1}});
  g_.SetName(out, "attention");
  return out;
}

Value TransformerBuilder::Activation(Value x) {
  const std::vector<int64_t> dims = g_.shape(x).dims;
  if (!o_.gelu) return g_.Max(x, Scalar(0.0, dims));
  // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
  Value x3 = g_.Mul(x, g_.Mul(x, x));
  Value inner = g_.Mul(Scalar(std::sqrt(2.0 / M_PI), dims), g_.Add(x, g_.Mul(Scalar(0.044715, dims), x3)));
  Value out = g_.Mul(g_.Mul(Scalar(0.5, dims), x), g_.Add(Scalar(1.0, dims), g_.Tanh(inner)));
  g_.SetName(out, "gelu");
  return out;
}

Value TransformerBuilder::Mlp(Value x, Value w1, Value b1, Value w2, Value b2) {
  const std::vector<int64_t> hdims = {o_.batch, o_.seq, o_.ffn};
  const std::vector<int64_t> odims = {o_.batch, o_.seq, o_.model};
  const DotDims proj{{}, {}, {2}, {0}};
  Value h = g_.Add(g_.Dot(x, w1, proj), Bcast(b1, hdims, {2}));
  h = Constrain(Activation(h), {"data", "", "model"});
  Value out = g_.Add(g_.Dot(h, w2, proj), Bcast(b2, odims, {2}));
  g_.SetName(out, "mlp");
  return out;
}

std::string TransformerBuilder::Build() {
  const int64_t B = o_.batch, S = o_.seq, D = o_.model, H = o_.heads, F = o_.ffn;
  SPMDC_CHECK_MSG(B >= 1 && S >= 1 && H >= 1 && D % H == 0 && F >= 1 && o_.layers >= 0,
                  "bad transformer options");
  const int64_t Dh = D / H;
  const std::vector<int64_t> act = {B, S, D};
  Value x = g_.Param(TensorShape{t_, act}, "x", Spec(p_, {"data", "", ""}));
  Value target = o_.vocab > 0 ? g_.Param(TensorShape{"s32", {B, S}}, "labels", Spec(p_, {"data", ""}))
                              : g_.Param(TensorShape{t_, act}, "y", Spec(p_, {"data", "", ""}));
  Value h = x;
  for (int64_t l = 0; l < o_.layers; ++l) {
    auto name = [&](const char* n) { return fmt::format("l{}_{}", l, n); };
    Value ln1_s = Weight({D}, name("ln1_scale"), {""});
    Value ln1_b = Weight({D}, name("ln1_bias"), {""});
    Value wq = Weight({D, H, Dh}, name("wq"), {"", "model", ""});
    Value wk = Weight({D, H, Dh}, name("wk"), {"", "model", ""});
    Value wv = Weight({D, H, Dh}, name("wv"), {"", "model", ""});
    Value wo = Weight({H, Dh, D}, name("wo"), {"model", "", ""});
    Value ln2_s = Weight({D}, name("ln2_scale"), {""});
    Value ln2_b = Weight({D}, name("ln2_bias"), {""});
    Value w1 = Weight({D, F}, name("w1"), {"", "model"});
    Value b1 = Weight({F}, name("b1"), {"model"});
    Value w2 = Weight({F, D}, name("w2"), {"model", ""});
    Value b2 = Weight({D}, name("b2"), {""});
    h = g_.Add(h, Attention(LayerNorm(h, ln1_s, ln1_b), wq, wk, wv, wo));
    h = Constrain(h, {"data", "", ""});
    h = g_.Add(h, Mlp(LayerNorm(h, ln2_s, ln2_b), w1, b1, w2, b2));
    h = Constrain(h, {"data", "", ""});
  }
  Value lnf_s = Weight({D}, "lnf_scale", {""});
  Value lnf_b = Weight({D}, "lnf_bias", {""});
  h = LayerNorm(h, lnf_s, lnf_b);
  Value loss;
  if (o_.vocab > 0) {
    const int64_t V = o_.vocab;
    const std::vector<int64_t> ldims = {B, S, V};
    Value w_out = Weight({D, V}, "w_out", {"", o_.vocab_parallel ? "model" : ""});
    Value logits = g_.Dot(h, w_out, DotDims{{}, {}, {2}, {0}});
    g_.SetName(logits, "logits");
    Value m = g_.ReduceMax(logits, {2});
    Value shifted = g_.Sub(logits, Bcast(m, ldims, {0, 1}));
    Value lse = g_.Log(g_.ReduceSum(g_.Exp(shifted), {2}));  // log-sum-exp minus m
    Value classes = g_.Iota(TensorShape{"s32", ldims}, 2);
    Value onehot = g_.Convert(g_.Compare(classes, Bcast(target, ldims, {0, 1}), "EQ"), t_);
    Value picked = g_.ReduceSum(g_.Mul(onehot, shifted), {2});  // logit[label] - m
    Value nll = g_.Sub(lse, picked);                              // [B,S]
    loss = g_.Mul(g_.ReduceSum(nll, {0, 1}), g_.Constant(1.0 / static_cast<double>(B * S), t_));
  } else {
    Value diff = g_.Sub(h, target);
    loss = g_.Mul(g_.ReduceSum(g_.Mul(diff, diff), {0, 1, 2}),
                  g_.Constant(1.0 / static_cast<double>(B * S * D), t_));
  }
  return models_internal::FinishTrainingStep(g_, loss, weights_, o_.learning_rate, o_.output_gradients,
                                             "transformer_train_step", p_);
}

}  // namespace

std::string BuildTransformerTrainingStep(const TransformerOptions& options) {
  return TransformerBuilder(options).Build();
}

int64_t CountHloInstructions(const std::string& text) {
  int64_t count = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + pos, end - pos);
    size_t eq = line.find(" = ");
    if (eq != std::string_view::npos && line.substr(0, 9) != "HloModule") ++count;
    pos = end + 1;
  }
  return count;
}

TransformerOptions TransformerOptionsForInstructionCount(int64_t min_instructions, TransformerOptions base) {
  TransformerOptions probe = base;
  probe.layers = 1;
  const int64_t one = CountHloInstructions(BuildTransformerTrainingStep(probe));
  probe.layers = 2;
  const int64_t two = CountHloInstructions(BuildTransformerTrainingStep(probe));
  const int64_t per_layer = std::max<int64_t>(two - one, 1);
  const int64_t fixed = one - per_layer;
  base.layers = std::max<int64_t>(1, (min_instructions - fixed + per_layer - 1) / per_layer);
  return base;
}

}  // namespace spmdc

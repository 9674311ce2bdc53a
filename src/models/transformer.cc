// A pre-LayerNorm transformer training step (attention + MLP or GShard MoE blocks, loss, backward
// by autodiff, SGD or Adam update) in HLO, with optional data / Megatron tensor / 2-D / expert
// parallel annotations.
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
  // The constraints of an MoE layer, always set when annotated: expert parallelism is the
  // choice to split the experts' tensors over "data", which propagation alone would not make
  // for the activations (GShard annotates them the same way).
  Value ConstrainExperts(Value v, const std::vector<std::string>& axes) {
    if (!p_.annotated()) return v;
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
  // GShard's top-2 MoE layer (TransformerOptions::experts); adds its load-balancing loss to aux_.
  Value Moe(Value x, Value wg, Value wi, Value wo);
  Value Activation(Value x);
  // The one-hot of the largest entry along the last dim of [G,S,E] (as f32 0/1; random inputs
  // have no ties), and (exclusive) running counts of a 0/1 mask along S, per expert.
  Value TopOneHot(Value probs);
  Value ExclusiveCumsum(Value mask);

  const TransformerOptions& o_;
  const ParallelismOptions& p_;
  const std::string t_;
  Graph g_;
  std::vector<Value> weights_;
  std::vector<Value> aux_;  // load-balancing losses of the MoE layers (scalars)
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

Value TransformerBuilder::TopOneHot(Value probs) {
  const std::vector<int64_t> dims = g_.shape(probs).dims;  // [G,S,E]
  Value top = Bcast(g_.ReduceMax(probs, {2}), dims, {0, 1});
  return g_.Convert(g_.Compare(probs, top, "EQ"), t_);
}

Value TransformerBuilder::ExclusiveCumsum(Value mask) {
  const std::vector<int64_t> dims = g_.shape(mask).dims;  // [G,S,E]
  const int64_t S = dims[1];
  // before[s', s] = 1 where s < s': counts[G,S,E] = Σ_s before[s', s] mask[g, s, e].
  Value rows = g_.Iota(TensorShape{"s32", {S, S}}, 0), cols = g_.Iota(TensorShape{"s32", {S, S}}, 1);
  Value before = g_.Convert(g_.Compare(cols, rows, "LT"), t_);
  Value counts = g_.Dot(before, mask, DotDims{{}, {}, {1}, {1}});  // [S', G, E]
  return g_.Transpose(counts, {1, 0, 2});
}

Value TransformerBuilder::Moe(Value x, Value wg, Value wi, Value wo) {
  const int64_t G = o_.batch, S = o_.seq, E = o_.experts;
  const int64_t C = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(o_.capacity_factor * 2.0 * S / E)));
  const std::vector<int64_t> gse = {G, S, E}, gsec = {G, S, E, C};
  // Gates: softmax over experts of x · wg.
  Value logits = g_.Dot(x, wg, DotDims{{}, {}, {2}, {0}});  // [G,S,E]
  Value shifted = g_.Sub(logits, Bcast(g_.ReduceMax(logits, {2}), gse, {0, 1}));
  Value e = g_.Exp(shifted);
  Value probs = g_.Div(e, Bcast(g_.ReduceSum(e, {2}), gse, {0, 1}));
  g_.SetName(probs, "moe_gates");
  // Top-1 and top-2 experts, and each token's position in its expert's buffer: top-1 tokens
  // first in token order, then top-2 tokens after every top-1 token of that expert.
  Value mask1 = TopOneHot(probs);
  Value mask2 = TopOneHot(g_.Mul(probs, g_.Sub(Scalar(1.0, gse), mask1)));
  Value pos1 = ExclusiveCumsum(mask1);
  Value top1_count = Bcast(g_.ReduceSum(mask1, {1}), gse, {0, 2});
  Value pos2 = g_.Add(ExclusiveCumsum(mask2), top1_count);
  // Load balancing (GShard): E² · mean over groups and experts of the fraction of tokens whose
  // top-1 is e times the mean gate of e.
  const double inv_s = 1.0 / static_cast<double>(S);
  Value density = g_.Mul(g_.ReduceSum(mask1, {1}), Scalar(inv_s, {G, E}));
  Value proxy = g_.Mul(g_.ReduceSum(probs, {1}), Scalar(inv_s, {G, E}));
  Value balance = g_.ReduceSum(g_.Mul(density, proxy), {0, 1});
  aux_.push_back(g_.Mul(balance, g_.Constant(o_.aux_loss_weight * E / static_cast<double>(G), t_)));  // E² / (G·E)
  // Drop what overflows the capacity; the two kept gates, normalised to sum to 1.
  auto keep = [&](Value mask, Value pos) {
    return g_.Mul(mask, g_.Convert(g_.Compare(pos, Scalar(static_cast<double>(C), gse), "LT"), t_));
  };
  mask1 = keep(mask1, pos1);
  mask2 = keep(mask2, pos2);
  Value gate1 = g_.ReduceSum(g_.Mul(probs, mask1), {2});  // [G,S] (0 when dropped)
  Value gate2 = g_.ReduceSum(g_.Mul(probs, mask2), {2});
  Value denom = g_.Add(g_.Add(gate1, gate2), Scalar(1e-9, {G, S}));
  gate1 = g_.Div(gate1, denom);
  gate2 = g_.Div(gate2, denom);
  // dispatch[G,S,E,C] = 1 where token s goes to slot c of expert e; combine weights it.
  Value slots = g_.Iota(TensorShape{t_, gsec}, 3);
  auto onehot = [&](Value mask, Value pos) {
    Value at = g_.Convert(g_.Compare(Bcast(pos, gsec, {0, 1, 2}), slots, "EQ"), t_);
    return g_.Mul(at, Bcast(mask, gsec, {0, 1, 2}));
  };
  Value d1 = onehot(mask1, pos1), d2 = onehot(mask2, pos2);
  Value dispatch = g_.Add(d1, d2);
  Value combine = g_.Add(g_.Mul(d1, Bcast(gate1, gsec, {0, 1})), g_.Mul(d2, Bcast(gate2, gsec, {0, 1})));
  g_.SetName(dispatch, "moe_dispatch");
  g_.SetName(combine, "moe_combine");
  // Expert inputs [E,G,C,D] (einsum GSEC,GSD->EGCD), computed where the tokens are (split over
  // groups), then resharded onto the experts: the dispatch all-to-all.
  Value gathered = ConstrainExperts(g_.Dot(dispatch, x, DotDims{{0}, {0}, {1}, {1}}), {"data", "", "", ""});  // [G,E,C,D]
  Value in = g_.Transpose(gathered, {1, 0, 2, 3});
  in = ConstrainExperts(in, {"data", "", "", ""});
  g_.SetName(in, "moe_expert_inputs");
  Value h = g_.Dot(in, wi, DotDims{{0}, {0}, {3}, {1}});  // [E,G,C,F]
  h = ConstrainExperts(Activation(h), {"data", "", "", "model"});
  Value out = g_.Dot(h, wo, DotDims{{0}, {0}, {3}, {1}});  // [E,G,C,D]
  out = ConstrainExperts(out, {"data", "", "", ""});
  g_.SetName(out, "moe_expert_outputs");
  // Back to the tokens: resharded onto the groups (the combine all-to-all), then the einsum
  // GSEC,EGCD->GSD where the tokens are.
  out = ConstrainExperts(out, {"", "data", "", ""});
  Value y = g_.Dot(combine, out, DotDims{{0}, {1}, {2, 3}, {0, 2}});  // [G,S,D]
  y = ConstrainExperts(y, {"data", "", ""});
  g_.SetName(y, "moe");
  return y;
}

std::string TransformerBuilder::Build() {
  const int64_t B = o_.batch, S = o_.seq, D = o_.model, H = o_.heads, F = o_.ffn;
  SPMDC_CHECK_MSG(B >= 1 && S >= 1 && H >= 1 && D % H == 0 && F >= 1 && o_.layers >= 0,
                  "bad transformer options");
  SPMDC_CHECK_MSG(o_.optimizer == "sgd" || o_.optimizer == "adam", "optimizer must be sgd or adam");
  SPMDC_CHECK_MSG(o_.experts == 0 || (o_.experts >= 2 && o_.moe_every >= 1), "MoE needs at least 2 experts");
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
    h = g_.Add(h, Attention(LayerNorm(h, ln1_s, ln1_b), wq, wk, wv, wo));
    h = Constrain(h, {"data", "", ""});
    if (o_.experts > 0 && l % o_.moe_every == o_.moe_every - 1) {
      const int64_t E = o_.experts;
      Value wg = Weight({D, E}, name("wg"), {"", ""});
      Value wi = Weight({E, D, F}, name("wi"), {"data", "", "model"});
      Value wo2 = Weight({E, F, D}, name("wo_experts"), {"data", "model", ""});
      h = g_.Add(h, Moe(LayerNorm(h, ln2_s, ln2_b), wg, wi, wo2));
    } else {
      Value w1 = Weight({D, F}, name("w1"), {"", "model"});
      Value b1 = Weight({F}, name("b1"), {"model"});
      Value w2 = Weight({F, D}, name("w2"), {"model", ""});
      Value b2 = Weight({D}, name("b2"), {""});
      h = g_.Add(h, Mlp(LayerNorm(h, ln2_s, ln2_b), w1, b1, w2, b2));
    }
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
  for (Value aux : aux_) loss = g_.Add(loss, aux);
  return models_internal::FinishTrainingStep(g_, loss, weights_, o_.learning_rate, o_.output_gradients,
                                             o_.experts > 0 ? "moe_train_step" : "transformer_train_step", p_,
                                             o_.optimizer);
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

#include "models/training.h"

#include <cmath>

#include "fmt/format.h"
#include "support/check.h"

namespace spmdc::models_internal {

std::string Spec(const ParallelismOptions& p, const std::vector<std::string>& axes) {
  if (!p.annotated()) return "";
  graph::Mesh mesh{{{"data", p.data}, {"model", p.model}}};
  std::vector<std::vector<std::string>> spec;
  for (const std::string& a : axes) {
    bool use = (a == "data" && p.data > 1) || (a == "model" && p.model > 1);
    spec.push_back(use ? std::vector<std::string>{a} : std::vector<std::string>{});
  }
  return graph::ShardingText(mesh, spec);
}

std::string FinishTrainingStep(graph::Graph& g, graph::Value loss, const std::vector<graph::Value>& weights,
                               double learning_rate, bool output_gradients, const std::string& name,
                               const ParallelismOptions& p, const std::string& optimizer) {
  SPMDC_CHECK_MSG(optimizer == "sgd" || optimizer == "adam" || optimizer == "adagrad",
                  "optimizer must be sgd, adam or adagrad");
  g.SetName(loss, "loss");
  std::vector<graph::Value> grads = g.Grad(loss, weights);
  std::vector<graph::Value> results = {loss};
  // The value each result after the loss updates (its sharding is the result's).
  std::vector<graph::Value> updated_of;
  if (output_gradients) {
    results.insert(results.end(), grads.begin(), grads.end());
    updated_of = weights;
  } else if (optimizer == "sgd") {
    for (size_t i = 0; i < weights.size(); ++i) {
      const graph::TensorShape s = g.shape(weights[i]);
      graph::Value step = g.Mul(g.BroadcastScalar(learning_rate, s), grads[i]);
      graph::Value updated = g.Sub(weights[i], step);
      g.SetName(updated, g.node(weights[i]).name + "_new");
      results.push_back(updated);
    }
    updated_of = weights;
  } else if (optimizer == "adagrad") {
    constexpr double kEpsilon = 1e-7;
    std::vector<graph::Value> acc, new_w, new_acc;
    for (const graph::Value& w : weights) {
      const graph::Node& n = g.node(w);
      const graph::TensorShape s = n.shape;
      const std::string wname = n.name, sharding = n.sharding;
      acc.push_back(g.Param(s, "acc_" + wname, sharding));
    }
    for (size_t i = 0; i < weights.size(); ++i) {
      const graph::TensorShape s = g.shape(weights[i]);
      graph::Value ai = g.Add(acc[i], g.Mul(grads[i], grads[i]));
      // max(a', 0): the identity on real accumulators (a >= 0); random test states may be negative.
      graph::Value denom = g.Add(g.Sqrt(g.Max(ai, g.BroadcastScalar(0.0, s))), g.BroadcastScalar(kEpsilon, s));
      graph::Value wi = g.Sub(weights[i], g.Mul(g.BroadcastScalar(learning_rate, s), g.Div(grads[i], denom)));
      const std::string wname = g.node(weights[i]).name;
      g.SetName(wi, wname + "_new");
      g.SetName(ai, "acc_" + wname + "_new");
      new_w.push_back(wi);
      new_acc.push_back(ai);
    }
    for (const auto* list : {&new_w, &new_acc}) results.insert(results.end(), list->begin(), list->end());
    updated_of = weights;
    updated_of.insert(updated_of.end(), acc.begin(), acc.end());
  } else {
    // Adam (Kingma & Ba): m' = β1 m + (1-β1) g, v' = β2 v + (1-β2) g², t = step + 1,
    // w' = w - lr · (m' / (1-β1^t)) / (sqrt(max(v' / (1-β2^t), 0)) + ε). The max is the identity
    // on real states (v ≥ 0) and keeps random test states from taking square roots of negatives.
    constexpr double kBeta1 = 0.9, kBeta2 = 0.999, kEpsilon = 1e-8;
    std::vector<graph::Value> m, v;
    for (const graph::Value& w : weights) {
      const graph::Node& n = g.node(w);
      const graph::TensorShape s = n.shape;
      const std::string wname = n.name, sharding = n.sharding;
      m.push_back(g.Param(s, "m_" + wname, sharding));
      v.push_back(g.Param(s, "v_" + wname, sharding));
    }
    graph::Value step = g.Param(graph::TensorShape{"s32", {}}, "step", p.annotated() ? "{replicated}" : "");
    const std::string t = g.shape(loss).dtype;
    graph::Value count = g.Add(g.Convert(step, t), g.Constant(1.0, t));
    auto correction = [&](double beta) {  // 1 - β^t = 1 - exp(t · log β)
      return g.Sub(g.Constant(1.0, t), g.Exp(g.Mul(count, g.Constant(std::log(beta), t))));
    };
    graph::Value c1 = correction(kBeta1), c2 = correction(kBeta2);
    std::vector<graph::Value> new_w, new_m, new_v;
    for (size_t i = 0; i < weights.size(); ++i) {
      const graph::TensorShape s = g.shape(weights[i]);
      const std::vector<int64_t> all;  // a scalar broadcast to every element
      auto scalar = [&](double x) { return g.BroadcastScalar(x, s); };
      auto spread = [&](graph::Value x) { return g.Broadcast(x, s.dims, all); };
      graph::Value mi = g.Add(g.Mul(scalar(kBeta1), m[i]), g.Mul(scalar(1 - kBeta1), grads[i]));
      graph::Value vi = g.Add(g.Mul(scalar(kBeta2), v[i]), g.Mul(scalar(1 - kBeta2), g.Mul(grads[i], grads[i])));
      graph::Value m_hat = g.Div(mi, spread(c1));
      graph::Value v_hat = g.Max(g.Div(vi, spread(c2)), scalar(0.0));
      graph::Value denom = g.Add(g.Sqrt(v_hat), scalar(kEpsilon));
      graph::Value wi = g.Sub(weights[i], g.Mul(scalar(learning_rate), g.Div(m_hat, denom)));
      const std::string wname = g.node(weights[i]).name;
      g.SetName(wi, wname + "_new");
      g.SetName(mi, "m_" + wname + "_new");
      g.SetName(vi, "v_" + wname + "_new");
      new_w.push_back(wi);
      new_m.push_back(mi);
      new_v.push_back(vi);
    }
    for (const auto* list : {&new_w, &new_m, &new_v}) results.insert(results.end(), list->begin(), list->end());
    updated_of = weights;
    updated_of.insert(updated_of.end(), m.begin(), m.end());
    updated_of.insert(updated_of.end(), v.begin(), v.end());
  }
  graph::Value root = g.Tuple(results);
  g.SetName(root, "result");
  if (p.annotated() && p.annotate_results) {
    std::string tuple = "{{replicated}";
    for (const graph::Value& w : updated_of) {
      const std::string& s = g.node(w).sharding;
      tuple += ", " + (s.empty() ? std::string("{replicated}") : s);
    }
    g.SetSharding(root, tuple + "}");
  }
  std::string header = p.annotated() ? fmt::format(", num_partitions={}", p.num_devices()) : "";
  return g.EmitHlo(root, name, header);
}

}  // namespace spmdc::models_internal

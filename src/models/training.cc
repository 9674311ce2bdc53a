#include "models/training.h"

#include "fmt/format.h"

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
                               const ParallelismOptions& p) {
  g.SetName(loss, "loss");
  std::vector<graph::Value> grads = g.Grad(loss, weights);
  std::vector<graph::Value> results = {loss};
  for (size_t i = 0; i < weights.size(); ++i) {
    if (output_gradients) {
      results.push_back(grads[i]);
      continue;
    }
    const graph::TensorShape& s = g.shape(weights[i]);
    graph::Value step = g.Mul(g.BroadcastScalar(learning_rate, s), grads[i]);
    graph::Value updated = g.Sub(weights[i], step);
    g.SetName(updated, g.node(weights[i]).name + "_new");
    results.push_back(updated);
  }
  graph::Value root = g.Tuple(results);
  g.SetName(root, "result");
  if (p.annotated() && p.annotate_results) {
    std::string tuple = "{{replicated}";
    for (const graph::Value& w : weights) {
      const std::string& s = g.node(w).sharding;
      tuple += ", " + (s.empty() ? std::string("{replicated}") : s);
    }
    g.SetSharding(root, tuple + "}");
  }
  std::string header = p.annotated() ? fmt::format(", num_partitions={}", p.num_devices()) : "";
  return g.EmitHlo(root, name, header);
}

}  // namespace spmdc::models_internal

// An MLP training step (forward, MSE loss, backward by autodiff, SGD update) in HLO.
#include "fmt/format.h"
#include "models/graph.h"
#include "models/models.h"
#include "models/training.h"
#include "support/check.h"

namespace spmdc {

using graph::TensorShape;
using graph::Value;
using models_internal::Spec;

std::string BuildMlpTrainingStep(const MlpOptions& o) {
  SPMDC_CHECK(o.layers >= 1 && o.batch >= 1);
  const ParallelismOptions& p = o.parallel;
  const std::string& t = o.dtype;
  graph::Graph g;
  std::vector<int64_t> widths = {o.input};
  for (int64_t l = 0; l + 1 < o.layers; ++l) widths.push_back(o.hidden);
  widths.push_back(o.output);

  Value x = g.Param(TensorShape{t, {o.batch, o.input}}, "x", Spec(p, {"data", ""}));
  Value y = g.Param(TensorShape{t, {o.batch, o.output}}, "y", Spec(p, {"data", ""}));
  std::vector<Value> weights;
  for (int64_t l = 0; l < o.layers; ++l) {
    // Megatron-style: even layers column-parallel, odd layers row-parallel; a single layer is
    // column-parallel.
    std::vector<std::string> axes = l % 2 == 0 ? std::vector<std::string>{"", "model"}
                                               : std::vector<std::string>{"model", ""};
    weights.push_back(g.Param(TensorShape{t, {widths[l], widths[l + 1]}}, fmt::format("w{}", l), Spec(p, axes)));
  }

  Value h = x;
  for (int64_t l = 0; l < o.layers; ++l) {
    h = g.MatMul(h, weights[l]);
    if (l + 1 < o.layers) {
      h = g.Max(h, g.BroadcastScalar(0.0, g.shape(h)));
      g.SetName(h, "relu");
      if (p.constrain_activations && p.annotated())
        h = g.ShardingConstraint(h, Spec(p, {"data", l % 2 == 0 ? "model" : ""}));
    }
  }
  Value diff = g.Sub(h, y);
  Value sum = g.ReduceSum(g.Mul(diff, diff), {0, 1});
  Value loss = g.Mul(sum, g.Constant(1.0 / static_cast<double>(o.batch * o.output), t));
  return models_internal::FinishTrainingStep(g, loss, weights, o.learning_rate, o.output_gradients,
                                             "mlp_train_step", p);
}

}  // namespace spmdc

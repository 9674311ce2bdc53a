// A DLRM training step (models.h DlrmOptions): embedding lookups (gather; scatter-add backward),
// bottom and top MLPs, pairwise dot-product interaction, binary cross-entropy, SGD or Adagrad.
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

class DlrmBuilder {
 public:
  explicit DlrmBuilder(const DlrmOptions& o) : o_(o), t_(o.dtype) {}
  std::string Build();

 private:
  // The sharding of a value whose dim `split` (or none: -1) is over the mesh's one axis.
  std::string Spec(int64_t rank, int64_t split) const {
    if (o_.devices == 1) return "";
    graph::Mesh mesh{{{"data", o_.devices}}};
    std::vector<std::vector<std::string>> spec(rank);
    if (split >= 0) spec[split] = {"data"};
    return graph::ShardingText(mesh, spec);
  }
  Value Weight(const std::vector<int64_t>& dims, const std::string& name, int64_t split = -1) {
    Value w = g_.Param(TensorShape{t_, dims}, name, Spec(static_cast<int64_t>(dims.size()), split));
    weights_.push_back(w);
    return w;
  }
  // Dense layers of `widths` from h [B, in]: x W + b, ReLU between layers (and after the last
  // unless `linear_last`).
  Value Mlp(Value h, const std::vector<int64_t>& widths, const std::string& name, bool linear_last) {
    for (size_t l = 0; l < widths.size(); ++l) {
      const int64_t in = g_.shape(h).dims[1], out = widths[l];
      Value w = Weight({in, out}, fmt::format("{}_w{}", name, l));
      Value b = Weight({out}, fmt::format("{}_b{}", name, l));
      h = g_.Add(g_.MatMul(h, w), g_.Broadcast(b, {o_.batch, out}, {1}));
      if (l + 1 < widths.size() || !linear_last) h = g_.Max(h, g_.BroadcastScalar(0.0, TensorShape{t_, {o_.batch, out}}));
    }
    g_.SetName(h, name);
    return h;
  }

  const DlrmOptions& o_;
  const std::string t_;
  Graph g_;
  std::vector<Value> weights_;
};

std::string DlrmBuilder::Build() {
  SPMDC_CHECK_MSG(o_.batch >= 1 && o_.dense >= 1 && !o_.bottom.empty() && o_.tables >= 1 && o_.rows >= 1 &&
                      o_.lookups >= 1 && !o_.top.empty() && o_.top.back() == 1,
                  "bad DLRM options");
  const int64_t B = o_.batch, D = o_.bottom.back(), F = o_.tables + 1;
  Value x = g_.Param(TensorShape{t_, {B, o_.dense}}, "x", Spec(2, 0));
  Value y = g_.Param(TensorShape{t_, {B}}, "y", Spec(1, 0));
  std::vector<Value> indices;
  for (int64_t t = 0; t < o_.tables; ++t)
    indices.push_back(g_.Param(TensorShape{"s32", {B, o_.lookups}}, fmt::format("idx_{}", t), Spec(2, 0)));
  Value bottom = Mlp(x, o_.bottom, "bottom", /*linear_last=*/false);
  // Features [B, F, D]: the bottom MLP's output, then each table's sum-pooled lookups.
  std::vector<Value> features = {g_.Reshape(bottom, {B, 1, D})};
  for (int64_t t = 0; t < o_.tables; ++t) {
    Value table = Weight({o_.rows, D}, fmt::format("table_{}", t), /*split=*/0);
    Value rows = g_.Gather(table, indices[t]);  // [B, lookups, D]
    g_.SetName(rows, fmt::format("lookup_{}", t));
    features.push_back(g_.Reshape(g_.ReduceSum(rows, {1}), {B, 1, D}));
  }
  Value z = g_.Concatenate(features, 1);
  // Interaction: Z Zᵀ [B, F, F], its strictly lower triangle (i > j) kept, flattened.
  Value zz = g_.Dot(z, z, DotDims{{0}, {0}, {2}, {2}});
  Value rows = g_.Iota(TensorShape{"s32", {F, F}}, 0), cols = g_.Iota(TensorShape{"s32", {F, F}}, 1);
  Value lower = g_.Broadcast(g_.Compare(rows, cols, "GT"), {B, F, F}, {1, 2});
  Value pairs = g_.Select(lower, zz, g_.BroadcastScalar(0.0, TensorShape{t_, {B, F, F}}));
  g_.SetName(pairs, "interaction");
  Value top_in = g_.Concatenate({g_.Reshape(pairs, {B, F * F}), bottom}, 1);
  Value logit = g_.Reshape(Mlp(top_in, o_.top, "top", /*linear_last=*/true), {B});
  // Binary cross-entropy with logits: softplus(z) - y z, softplus(z) = max(z, 0) + log(1 + e^-|z|).
  const TensorShape bs{t_, {B}};
  Value abs = g_.Max(logit, g_.Neg(logit));
  Value softplus = g_.Add(g_.Max(logit, g_.BroadcastScalar(0.0, bs)),
                          g_.Log(g_.Add(g_.BroadcastScalar(1.0, bs), g_.Exp(g_.Neg(abs)))));
  Value bce = g_.Sub(softplus, g_.Mul(y, logit));
  Value loss = g_.Mul(g_.ReduceSum(bce, {0}), g_.Constant(1.0 / static_cast<double>(B), t_));
  ParallelismOptions p;
  p.data = o_.devices;
  return models_internal::FinishTrainingStep(g_, loss, weights_, o_.learning_rate, o_.output_gradients,
                                             "dlrm_train_step", p, o_.optimizer);
}

}  // namespace

std::string BuildDlrmTrainingStep(const DlrmOptions& options) { return DlrmBuilder(options).Build(); }

}  // namespace spmdc

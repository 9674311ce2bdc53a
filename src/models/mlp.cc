// An MLP training step (forward, MSE loss, backward, SGD update) in HLO.
#include "fmt/format.h"
#include "models/hlo_writer.h"
#include "models/models.h"

namespace spmdc {

std::string BuildMlpTrainingStep(const MlpOptions& o) {
  HloWriter w;
  std::string add = w.AddReducer("f32");
  w.BeginComputation("mlp_train_step", /*entry=*/true);
  auto shape = [](int64_t a, int64_t b) { return fmt::format("f32[{},{}]", a, b); };
  std::vector<int64_t> widths = {o.input};
  for (int64_t l = 0; l + 1 < o.layers; ++l) widths.push_back(o.hidden);
  widths.push_back(o.output);

  std::string x = w.Parameter(0, shape(o.batch, o.input), "x");
  std::string y = w.Parameter(1, shape(o.batch, o.output), "y");
  std::vector<std::string> weights;
  for (int64_t l = 0; l < o.layers; ++l)
    weights.push_back(w.Parameter(2 + l, shape(widths[l], widths[l + 1]), fmt::format("w{}", l)));

  const std::string mm = ", lhs_contracting_dims={1}, rhs_contracting_dims={0}";
  // Forward: keep pre-activations for the backward pass.
  std::vector<std::string> acts = {x}, pre;
  for (int64_t l = 0; l < o.layers; ++l) {
    std::string z = w.Emit(shape(o.batch, widths[l + 1]), "dot", {acts.back(), weights[l]}, mm, "z");
    pre.push_back(z);
    if (l + 1 < o.layers) {
      std::string zero = w.Constant("f32[]", "0");
      std::string zeros = w.Emit(shape(o.batch, widths[l + 1]), "broadcast", {zero}, ", dimensions={}");
      acts.push_back(w.Emit(shape(o.batch, widths[l + 1]), "maximum", {z, zeros}, "", "relu"));
    }
  }
  std::string out = pre.back();
  std::string diff = w.Emit(shape(o.batch, o.output), "subtract", {out, y}, "", "diff");
  std::string sq = w.Emit(shape(o.batch, o.output), "multiply", {diff, diff}, "", "sq");
  std::string zero = w.Constant("f32[]", "0");
  std::string sum = w.Emit("f32[]", "reduce", {sq, zero}, fmt::format(", dimensions={{0,1}}, to_apply={}", add), "sum");
  float inv = 1.0f / static_cast<float>(o.batch * o.output);
  std::string scale = w.Constant("f32[]", fmt::format("{}", inv));
  std::string loss = w.Emit("f32[]", "multiply", {sum, scale}, "", "loss");

  // Backward.
  std::string two_inv = w.Constant("f32[]", fmt::format("{}", 2 * inv));
  std::string g_scale = w.Emit(shape(o.batch, o.output), "broadcast", {two_inv}, ", dimensions={}");
  std::string grad = w.Emit(shape(o.batch, o.output), "multiply", {diff, g_scale}, "", "dout");
  std::string lr = w.Constant("f32[]", fmt::format("{}", o.learning_rate));
  std::vector<std::string> new_weights(o.layers);
  for (int64_t l = o.layers - 1; l >= 0; --l) {
    std::string dw = w.Emit(shape(widths[l], widths[l + 1]), "dot", {acts[l], grad},
                            ", lhs_contracting_dims={0}, rhs_contracting_dims={0}", "dw");
    std::string lr_b = w.Emit(shape(widths[l], widths[l + 1]), "broadcast", {lr}, ", dimensions={}");
    std::string step = w.Emit(shape(widths[l], widths[l + 1]), "multiply", {dw, lr_b});
    new_weights[l] = w.Emit(shape(widths[l], widths[l + 1]), "subtract", {weights[l], step}, "", "w_new");
    if (l > 0) {
      std::string dact = w.Emit(shape(o.batch, widths[l]), "dot", {grad, weights[l]},
                                ", lhs_contracting_dims={1}, rhs_contracting_dims={1}", "dact");
      std::string z0 = w.Constant("f32[]", "0");
      std::string zeros = w.Emit(shape(o.batch, widths[l]), "broadcast", {z0}, ", dimensions={}");
      std::string mask = w.Emit(fmt::format("pred[{},{}]", o.batch, widths[l]), "compare",
                                {pre[l - 1], zeros}, ", direction=GT", "mask");
      grad = w.Emit(shape(o.batch, widths[l]), "select", {mask, dact, zeros}, "", "dz");
    }
  }
  std::vector<std::string> results = {loss};
  results.insert(results.end(), new_weights.begin(), new_weights.end());
  std::string tuple_shape = "(f32[]";
  for (int64_t l = 0; l < o.layers; ++l) tuple_shape += ", " + shape(widths[l], widths[l + 1]);
  tuple_shape += ")";
  std::string root = w.Emit(tuple_shape, "tuple", results, "", "result");
  w.EndComputation(root);
  return w.Finish("mlp_train_step");
}

}  // namespace spmdc

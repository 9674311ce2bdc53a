// A GPT training step written as repeated layers (one block computation called per layer, its
// backward called per layer in reverse), the input form of `spmdc pipeline` (src/pipeline).
#pragma once

#include <cstdint>
#include <string>

namespace spmdc {

struct GptPipelineOptions {
  int64_t batch = 16;  // B (microbatches of B/M examples; with `data`, B/M must divide by it)
  int64_t seq = 8;
  int64_t model = 32;  // D
  int64_t heads = 2;
  int64_t ffn = 64;
  int64_t layers = 8;
  int64_t vocab = 32;
  float learning_rate = 0.01f;
  // > 1: data parallel over `data` devices (x and labels split on the batch, weights replicated).
  int64_t data = 1;
  // "sgd" or "adam" (β1 0.9, β2 0.999, ε 1e-8): Adam adds the moments m_<weight>, v_<weight> of
  // every weight as parameters after the weights, then `step` s32[], and returns the new moments
  // after the new weights.
  std::string optimizer = "sgd";
};

// One SGD step of a pre-LayerNorm GPT (dense input x[B,S,D], labels s32[B,S]):
//   params: x, labels, then per layer l: l<l>_{ln1_scale, ln1_bias, wq, wk, wv, wo, ln2_scale,
//   ln2_bias, w1, b1, w2, b2}, then lnf_scale, lnf_bias, w_out;
//   result: (loss, new weights in parameter order[, new m..., new v...]).
// The forward chain calls `layer_fwd(x, w...)` L times; the backward chain calls
// `layer_bwd(x, w..., dy) -> (dx, dw...)` L times, last layer first.
std::string BuildGptPipelineTrainingStep(const GptPipelineOptions& options);

}  // namespace spmdc

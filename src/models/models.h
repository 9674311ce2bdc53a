// Builders that emit HLO modules of real model families as HLO text (the format users bring),
// so that examples, tests and benchmarks exercise the same path as user modules.
//
// Every training step is traced into a graph::Graph (models/graph.h); its backward pass comes
// from graph::Graph::Grad (reverse-mode autodiff), so gradients are correct by construction.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace spmdc {

// Sharding annotations over a 2-D device mesh {data: data, model: model} (devices in iota order,
// `data` major). With data * model == 1 nothing is annotated. When annotated, the module header
// carries num_partitions = data * model and every entry parameter carries a sharding:
//   data > 1:  inputs/targets split on the batch dim over "data" (data parallelism);
//   model > 1: Megatron tensor parallelism over "model" (column-parallel first matmuls, row-
//              parallel second ones); weights not split are replicated over "model";
//   both:      2-D (data x model).
struct ParallelismOptions {
  int64_t data = 1;
  int64_t model = 1;
  // Also pin key activations with `custom-call(...), custom_call_target="Sharding"` constraints.
  bool constrain_activations = false;
  // The result tuple carries shardings: the loss replicated, each new weight (or gradient) its
  // weight's, as a jitted training step with out_shardings (or donated state) has. False: the
  // result is left to propagation (replicated unless it propagates to the output).
  bool annotate_results = false;
  int64_t num_devices() const { return data * model; }
  bool annotated() const { return data * model > 1; }
};

struct MlpOptions {
  int64_t batch = 64;
  int64_t input = 256;
  int64_t hidden = 512;
  int64_t output = 128;
  int64_t layers = 2;  // number of dense layers (>= 1); ReLU between them
  float learning_rate = 0.01f;
  std::string dtype = "f32";
  // Result (loss, gradients...) instead of (loss, new weights...) (for gradient checks).
  bool output_gradients = false;
  ParallelismOptions parallel;
};

// One SGD training step of an MLP with mean-squared-error loss:
//   params: x[batch,input], y[batch,output], w0, w1, ...; result: (loss, new weights...).
// Tensor parallelism alternates column-parallel (even layers) and row-parallel (odd) weights.
std::string BuildMlpTrainingStep(const MlpOptions& options);

struct TransformerOptions {
  int64_t batch = 4;   // B
  int64_t seq = 16;    // S
  int64_t model = 64;  // D
  int64_t heads = 4;   // H (divides D; head dim D/H)
  int64_t ffn = 256;   // F
  int64_t layers = 2;  // L
  // 0: regression, MSE of the final hidden state against y[B,S,D]. > 0: project to `vocab`
  // logits with w_out[D,vocab] and take the softmax cross-entropy against labels s32[B,S].
  int64_t vocab = 0;
  bool causal = true;
  bool gelu = true;  // tanh-approximated GELU; false: ReLU
  float learning_rate = 0.01f;
  float layer_norm_epsilon = 1e-5f;
  std::string dtype = "f32";
  bool output_gradients = false;  // result (loss, gradients...) instead of new weights
  // Megatron's vocab-parallel output layer: w_out[D,vocab] split over "model" on its vocab dim
  // (the logits, their softmax and its reductions then stay split too). False: w_out replicated.
  bool vocab_parallel = false;
  // GShard mixture-of-experts: with experts > 0, the feed-forward block of every moe_every-th
  // layer (layers moe_every-1, 2·moe_every-1, ...) is a top-2-gated MoE layer of `experts`
  // experts (each a D -> F -> D MLP), one group of S tokens per sequence, expert capacity
  // C = ceil(capacity_factor · 2S / E) (tokens past it are dropped, as GShard drops them), and
  // the load-balancing loss aux_loss_weight · E² · mean(density · density_proxy) added to the
  // loss. Expert parallelism is over "data": the groups (the batch) and the experts' dim are
  // both split over it, so dispatch and combine reshard between them with all-to-all. F is split
  // over "model" when model > 1.
  int64_t experts = 0;
  int64_t moe_every = 2;
  double capacity_factor = 1.25;
  double aux_loss_weight = 0.01;
  // "sgd", or "adam": Adam (β1 0.9, β2 0.999, ε 1e-8) with its first and second moments as
  // parameters m_<weight>, v_<weight> (after the weights, each sharded as its weight) and the
  // step count `step` s32[] last; the result adds the new moments after the new weights.
  std::string optimizer = "sgd";
  ParallelismOptions parallel;
};

// One training step (SGD or Adam) of a pre-LayerNorm transformer (dense input, no embedding).
//   params: x[B,S,D], target (y[B,S,D] f32, or labels s32[B,S] when vocab > 0), then per layer
//   ln1_scale[D], ln1_bias[D], wq[D,H,Dh], wk[D,H,Dh], wv[D,H,Dh], wo[H,Dh,D], ln2_scale[D],
//   ln2_bias[D], w1[D,F], b1[F], w2[F,D], b2[D] (an MoE layer instead: wg[D,E], wi[E,D,F],
//   wo[E,F,D]); then lnf_scale[D], lnf_bias[D] and, when vocab > 0, w_out[D,vocab]; with Adam
//   then m_*, v_* per weight and step.
//   result: (loss, new weights... in parameter order[, new m..., new v...]).
std::string BuildTransformerTrainingStep(const TransformerOptions& options);

// A U-Net (Ronneberger et al. 2015) denoising step: channels-last images x[N, S, S, C] mapped to
// y[N, S, S, C] (mean squared error), SGD. `levels` resolutions S, S/2, ...; level l has
// channels · 2^l channels. Encoder: per level a 3x3 convolution (+ bias, ReLU) whose result is
// the skip connection, then down-sampling by a 2x2 convolution of stride 2 (+ bias, ReLU).
// Decoder, from the deepest level up: up-sampling alternately by a transposed convolution (2x2,
// input dilation 2; the deepest) and by nearest-neighbour resizing followed by a 3x3
// convolution, concatenation with the skip connection, a 3x3 convolution (+ bias, ReLU); then a
// 1x1 convolution back to C channels. Backward by autodiff (the convolutions' VJPs are
// convolutions, as JAX emits them).
//   params: x, y, then per conv its kernel [kh, kw, in, out] and bias [out], in forward order.
//   result: (loss, new weights...).
struct UNetOptions {
  int64_t batch = 8;        // N
  int64_t size = 64;        // S (divisible by 2^(levels-1))
  int64_t in_channels = 4;  // C
  int64_t channels = 16;    // of the first level
  int64_t levels = 3;
  float learning_rate = 0.01f;
  std::string dtype = "f32";
  bool output_gradients = false;
  // Annotations over the mesh {data: data, space: space} (devices iota, `data` major): the images'
  // batch over "data", their rows over "space" (GSPMD's spatial partitioning, halo exchanges
  // between row blocks); kernels and biases replicated. 1 x 1: unannotated.
  int64_t data = 1;
  int64_t space = 1;
};
std::string BuildUNetTrainingStep(const UNetOptions& options);

// A DLRM (Naumov et al. 2019) click-through training step: dense features x[B, dense] through a
// bottom MLP (ReLU) to an embedding-sized vector; `tables` embedding tables [rows, dim], each
// looked up at `lookups` sparse indices per example (gather, sum-pooled; the backward pass
// scatter-adds into the tables); pairwise dot-product interaction of the tables + 1 feature
// vectors (the strictly lower triangle of Z Zᵀ, the rest masked to zero) concatenated with the
// bottom MLP's output; a top MLP (ReLU) to one logit; binary cross-entropy against labels
// y[B] (softplus(z) - y z, averaged); SGD or Adagrad.
//   params: x, y, idx_0..idx_{tables-1} s32[B, lookups], then the bottom MLP's weights and
//   biases, the tables, the top MLP's weights and biases (then acc_* with Adagrad).
//   result: (loss, new weights...[, new accumulators...]).
struct DlrmOptions {
  int64_t batch = 512;
  int64_t dense = 16;
  std::vector<int64_t> bottom = {64, 32};  // bottom MLP widths; the last is the embedding dim
  int64_t tables = 7;
  int64_t rows = 16384;
  int64_t lookups = 4;
  std::vector<int64_t> top = {64, 1};  // top MLP widths; the last must be 1 (the logit)
  float learning_rate = 0.01f;
  std::string optimizer = "sgd";  // or "adagrad"
  std::string dtype = "f32";
  bool output_gradients = false;
  // Annotations over {data: devices}: the batch over "data" (the MLPs data parallel) and each
  // table's rows over "data" too (model-parallel embeddings, as DLRM shards its tables: each
  // device holds rows/devices of every table, lookups of rows held elsewhere are masked and
  // summed over the devices). 1: unannotated.
  int64_t devices = 1;
};
std::string BuildDlrmTrainingStep(const DlrmOptions& options);

// Number of instructions (lines of the form `name = ...`) in HLO text.
int64_t CountHloInstructions(const std::string& hlo_text);

// `base` with `layers` raised so that BuildTransformerTrainingStep emits at least
// `min_instructions` instructions (generation stays linear in the layer count).
TransformerOptions TransformerOptionsForInstructionCount(int64_t min_instructions,
                                                         TransformerOptions base = {});

}  // namespace spmdc

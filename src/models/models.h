// Builders that emit HLO modules of real model families as HLO text (the format users bring),
// so that examples, tests and benchmarks exercise the same path as user modules.
#pragma once

#include <cstdint>
#include <string>

namespace spmdc {

struct MlpOptions {
  int64_t batch = 64;
  int64_t input = 256;
  int64_t hidden = 512;
  int64_t output = 128;
  int64_t layers = 2;  // number of dense layers (>= 1); ReLU between them
  float learning_rate = 0.01f;
};

// One SGD training step of an MLP with mean-squared-error loss:
//   params: x[batch,input], y[batch,output], w0, w1, ...; result: (loss, new weights...).
std::string BuildMlpTrainingStep(const MlpOptions& options);

}  // namespace spmdc

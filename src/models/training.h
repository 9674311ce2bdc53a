// Internal helpers shared by the model builders: sharding specs over the {data, model} mesh and
// the common tail of a training step (gradients, SGD update, result tuple, module text).
#pragma once

#include <string>
#include <vector>

#include "models/graph.h"
#include "models/models.h"

namespace spmdc::models_internal {

// Sharding text for a tensor whose dim i is split over mesh axis axes[i] ("data", "model" or
// ""), on the mesh of `p`. Axes of size 1 are ignored. Empty when `p` is not annotated.
std::string Spec(const ParallelismOptions& p, const std::vector<std::string>& axes);

// Adds Grad(loss, weights), the update or the gradients themselves when `output_gradients`, the
// result tuple (loss, ...) and returns the module text (with num_partitions when annotated).
// `optimizer`: "sgd" (w - lr * dw), "adam" (TransformerOptions::optimizer) or "adagrad"
// (Duchi et al.: a' = a + dw², w' = w - lr * dw / (sqrt(a') + ε), the accumulators a as
// parameters acc_<weight> after the weights, each sharded as its weight; the result adds the new
// accumulators after the new weights).
std::string FinishTrainingStep(graph::Graph& g, graph::Value loss, const std::vector<graph::Value>& weights,
                               double learning_rate, bool output_gradients, const std::string& name,
                               const ParallelismOptions& p, const std::string& optimizer = "sgd");

}  // namespace spmdc::models_internal

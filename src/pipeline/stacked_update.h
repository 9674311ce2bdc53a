// The optimizer update of the layer weights, vectorised over layers (pipeline.h): where every
// layer's update of weight slot k is the same elementwise function of that layer's weight, its
// gradient, its other per-layer parameters (Adam's moments) and values shared by all layers (the
// learning rate, Adam's step counters, a global gradient norm), the pipelined program takes the
// slot's weights (and those parameters) stacked [S, L/S, ...] split over the stages, updates
// them stacked (each stage its own layers, no communication), and returns the new weights (and
// new moments) stacked: each stage stores 1/S of the layer weights and optimizer state. Slots whose
// update differs between layers, or is not elementwise, keep the source's per-layer weights.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "ir/module.h"
#include "pipeline/pipeline.h"

namespace spmdc::pipeline {

// One zipped instruction of the update of a slot: layer 0's instruction stands for all layers'.
struct ZipNode {
  // kCompanion: a per-layer parameter other than the weight (Adam's moments), stacked as well.
  enum Kind { kWeight, kGradient, kCompanion, kShared, kOp };
  Kind kind = kOp;
  const Instruction* instr = nullptr;  // layer 0's
  bool stacked = false;                // depends on a per-layer value
  int64_t gradient = -1;               // kGradient: the backward layer's output gradient + 1
};

struct StackedSlot {
  int64_t slot = -1;           // k: the layer computation's parameter k + 1
  std::vector<ZipNode> nodes;  // post-order
  // Root tuple elements the slot returns stacked: layer 0's zipped node and, per layer, the root
  // element of that layer's copy. The new weight is first.
  struct Output {
    const Instruction* node = nullptr;
    std::vector<int64_t> root_indices;
  };
  std::vector<Output> outputs;
  // Per-layer parameters taken stacked besides the weight (layer 0's stands for them).
  struct Companion {
    const Instruction* node = nullptr;
    std::vector<const Instruction*> params;  // by layer
  };
  std::vector<Companion> companions;
  // Every layer's instructions the stacked update replaces (not printed in the entry).
  absl::flat_hash_set<const Instruction*> replaced;
};

// The slots whose update zips across all layers. `root` is the entry's root tuple.
std::vector<StackedSlot> FindStackedUpdates(const LayerChain& chain, const Instruction* root);

}  // namespace spmdc::pipeline

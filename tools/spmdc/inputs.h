// Host inputs and outputs of a CLI run: entry arguments from .npy files or random
// (runtime/host_values.h), the printed summary of each output leaf (shape, a few values,
// checksum), and the comparison `verify` makes against the single-device reference.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/module.h"
#include "runtime/host_values.h"
#include "support/status.h"

namespace spmdc::cli {

// One argument per entry parameter: from `npy_paths` in order where given, random after that.
StatusOr<std::vector<Literal>> MakeArguments(const Module& module,
                                             const std::vector<std::string>& npy_paths,
                                             uint64_t seed);
// "f32[64,128] sum=1.25 fnv=0x1234abcd [0.1, -0.2, ...]"
std::string SummarizeLeaf(const Literal& leaf);

}  // namespace spmdc::cli

namespace spmdc::cli {

// Comparison of a partitioned run's output leaf with the single-device reference.
struct LeafComparison {
  bool ok = true;
  double max_abs_error = 0;
  double max_rel_error = 0;  // relative to the leaf's largest reference magnitude
  std::string problem;       // first mismatch, for the message
};
// A floating leaf passes when its error is within the tolerance of its own dtype or, if looser,
// `working_tolerance`: an f32 output computed through bf16 intermediates differs by bf16
// roundings when the partitioned program sums in another order.
LeafComparison CompareLeaf(const Literal& got, const Literal& want, double working_tolerance = 0);
// The loosest per-dtype tolerance over every floating value the module computes.
double WorkingPrecisionTolerance(const Module& module);

}  // namespace spmdc::cli

// Host inputs and outputs of a CLI run: entry arguments from .npy files or random
// (runtime/host_values.h), the printed summary of each output leaf (shape, a few values,
// checksum). The comparison `verify` makes is runtime/result_comparison.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/module.h"
#include "runtime/host_values.h"
#include "support/status.h"

namespace spmdc::cli {

// One argument per entry parameter: from `npy_paths` in order where given, random after that.
// With `num_partitions` > 0, a manual parameter's value stacks one value per manual group.
StatusOr<std::vector<Literal>> MakeArguments(const Module& module,
                                             const std::vector<std::string>& npy_paths,
                                             uint64_t seed, int64_t num_partitions = 0);
// "f32[64,128] sum=1.25 fnv=0x1234abcd [0.1, -0.2, ...]"
std::string SummarizeLeaf(const Literal& leaf);

}  // namespace spmdc::cli

// Host values for runs: the random entry arguments of DESIGN.md (floats uniform in [-1, 1),
// integers in [0, 8), pred random; seeded, the same stream on every platform) and flattening of
// results into their array leaves. Shared by the CLI, the tests and the benchmarks.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/literal.h"
#include "ir/module.h"

namespace spmdc {

// A literal of `shape` (tuples recursively) filled from a SplitMix64 stream seeded with `seed`.
Literal RandomLiteral(const Shape& shape, uint64_t seed);
// The box [lo, hi) of RandomLiteral(shape, seed) for an array `shape`, bit for bit, written into
// `out` (an array of shape's dtype whose dims are at least hi - lo) at its origin; the stream is
// entered at the box's elements directly, so the whole value never exists.
void RandomFillBox(const Shape& shape, uint64_t seed, const std::vector<int64_t>& lo,
                   const std::vector<int64_t>& hi, Literal& out);
// The seed of entry parameter `index` for a run seeded with `seed` (each parameter has its own
// stream, so that giving one input from a file does not shift the others).
uint64_t ParameterSeed(uint64_t seed, int64_t index);
// One random argument per entry parameter of `module`.
std::vector<Literal> RandomArguments(const Module& module, uint64_t seed);
// Array leaves in pre-order.
std::vector<Literal> FlattenLeaves(const Literal& value);

}  // namespace spmdc

// Comparison of a partitioned run's outputs with the single-device reference (`spmdc verify`,
// tests). Floating-point results differ by rounding when the partitioned program sums in another
// order, so each leaf is compared within a relative tolerance (relative to the leaf's largest
// reference magnitude) that follows from what the module computes: the element type's own
// tolerance for short computations, widened by the longest accumulation it performs (number of
// terms summed into one element, in the type it is summed in). Integers must match exactly.
#pragma once

#include <cstdint>
#include <string>

#include "ir/literal.h"
#include "ir/module.h"

namespace spmdc {

struct LeafComparison {
  bool ok = true;
  double max_abs_error = 0;
  double max_rel_error = 0;  // relative to the leaf's largest reference magnitude
  std::string problem;       // first mismatch, for the message
};

// Relative tolerance of a value of type `t` that is a sum of `terms` rounded terms: the type's
// tolerance after short reductions, or, for long sums, 2·u·sqrt(terms) (u: unit roundoff), the
// growth of the rounding errors of a sum in any order (each addition rounds, the errors add up
// like a random walk: Higham and Mary's probabilistic bound, with λ = 2). 0 for integer types.
double ToleranceFor(DType t, int64_t terms = 1);
// The loosest tolerance over every floating value `module` computes (each at its own type) and
// every accumulation it performs: reduce (reduced elements), reduce-window and select-and-scatter
// (window elements), dot (contracted elements), convolution (kernel elements per output
// feature), scatter (update index tuples, all of which may land on one element).
double ModuleTolerance(const Module& module);
// `got` against `want`: within the tolerance of `want`'s element type or `tolerance` if looser;
// NaNs (and infinities) must sit at the same positions.
LeafComparison CompareLeaf(const Literal& got, const Literal& want, double tolerance = 0);

}  // namespace spmdc

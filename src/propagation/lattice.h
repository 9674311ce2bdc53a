// The improvement lattice of sharding propagation (GSPMD.md §2.3): when may a candidate sharding
// replace an instruction's current one. Termination of propagation rests on this: a sharding is
// only ever replaced by a strictly more specific one, or by a compatible merge with more tiles.
#pragma once

#include <optional>
#include <string>

#include "ir/shape.h"
#include "sharding/sharding.h"

namespace spmdc {

// True when `s` may be propagated: tiled, replicated or manual (anything but a single-device
// sharding); tuples when any leaf is. (XLA's IsSpatiallyPartitioned.)
bool IsPropagatable(const Sharding& s);
// Manual is strictly better than tile-maximal (replicated or one device); tuples element-wise,
// with none worse and one better.
bool IsStrictlyBetter(const Sharding& a, const Sharding& b);
// Refines `*dst` with `to_merge` (may_combine: merge two partially replicated shardings into one
// with more tiles). Returns whether the final *dst is preferable to `to_merge`.
bool MergeSharding(const Sharding& to_merge, Sharding* dst, bool may_combine);

struct Improvement {
  std::optional<Sharding> result;  // the new sharding, or nullopt when rejected
  const char* why_not = "";        // reason for a rejection, for `spmdc explain`
};
// Whether `candidate` improves `existing` (null: the instruction has no sharding yet) of an
// instruction with `shape`. `allow_aggressive` lifts the anti-reshard guard (the instruction has
// a single non-root user).
Improvement Improve(const Sharding& candidate, const Sharding* existing, const Shape& shape,
                    bool may_combine, bool allow_aggressive);

}  // namespace spmdc

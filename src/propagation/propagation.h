// Sharding propagation (GSPMD.md §2): infers a sharding for every instruction from the few the
// user gave, with XLA's rules, lattice and staged aggressiveness, deterministically. Every
// decision is recorded in a Provenance so that `spmdc explain` can say why.
#pragma once

#include <optional>
#include <vector>

#include "ir/module.h"
#include "propagation/provenance.h"
#include "support/status.h"

namespace spmdc {

struct PropagationOptions {
  // May the entry root's sharding be inferred (per tuple element, or one value for all)? Unset:
  // the module header's allow_spmd_sharding_propagation_to_output, else false.
  std::optional<std::vector<bool>> allow_to_output;
  // May entry parameters' shardings be inferred (per parameter, per element of a single tuple
  // parameter, or one value for all)? Unset: the module header's attribute, else false.
  std::optional<std::vector<bool>> allow_to_parameters;
  // XLA's is_spmd. false: the older spatial-partitioning rules (no merging of partial shardings,
  // a reduce over a sharded dim is replicated, broadcast/concat backward keep whole devices, no
  // reverse / rng / custom-call / gather-operand sharding). For comparing with XLA's tests of
  // that mode only: the partitioner expects SPMD shardings.
  bool is_spmd = true;
  // XLA's cse_prevention_only: propagate as usual (Sharding custom calls stay, shard groups are
  // ignored), then keep only the shardings inferred for broadcasts of scalars, marked with the
  // metadata op_name "_sharding_propagation_cse_prevention" (so that CSE does not merge
  // broadcasts that will be sharded differently); every other instruction gets its original
  // sharding back, or none. An ordinary run later drops the marked shardings first.
  bool cse_prevention_only = false;
};

// Runs propagation on `module` in place. Returns whether any sharding changed. Errors:
// InvalidArgument for inconsistent annotations (e.g. a shard_as group of different shapes).
StatusOr<bool> PropagateShardings(Module& module, const PropagationOptions& options = {},
                                  Provenance* provenance = nullptr);

}  // namespace spmdc

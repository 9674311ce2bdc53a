// Internal to propagation: the state shared by the driver (propagation.cc) and the per-op rules
// (rules.cc), and the entry points of the rules.
#pragma once

#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "ir/module.h"
#include "propagation/gather_parallel.h"
#include "propagation/provenance.h"
#include "sharding/sharding.h"

namespace spmdc {

struct PropagationState {
  Module* module = nullptr;
  Provenance* provenance = nullptr;
  bool allow_to_output = false;
  bool allow_to_parameters = false;
  // Called computation -> the while/conditional/call that calls it.
  CallerMap computation_map;
  // Shardings that must not change (user annotations).
  absl::flat_hash_set<const Instruction*> provided;
  // Sharding constraints with UNCONSTRAINED dims that may still be refined.
  absl::flat_hash_map<const Instruction*, std::vector<int64_t>> unspecified_dims;
  // Shard groups: member -> group id; group id -> members (in text order).
  absl::flat_hash_map<const Instruction*, int64_t> group_of;
  std::map<int64_t, std::vector<Instruction*>> shard_as_groups, shard_like_groups;

  int aggressiveness = 0;
  int64_t iteration = 0;
  bool may_combine() const { return aggressiveness > 0; }

  // Sets `instr`'s sharding to `candidate` if it improves it (lattice.h); records the outcome.
  bool Improve(Instruction* instr, const Sharding& candidate, const Instruction* from,
               std::string_view rule, EventKind kind, bool allow_aggressive = false);
  // Sets the sharding unconditionally (manual propagation, tuple assembly, related copies).
  void Set(Instruction* instr, Sharding s, const Instruction* from, std::string_view rule,
           EventKind kind);
  // Records a candidate that was not applied.
  void Reject(const Instruction* instr, const Sharding& s, const Instruction* from,
              std::string_view rule, EventKind kind, std::string_view why);
  const std::vector<Instruction*>* GroupOf(const Instruction* instr) const;
};

// Non-root users of `instr` in its computation.
int64_t NonRootUsers(const Instruction& instr);
// Aggressiveness gate: which ops take part at each level (GSPMD.md §2.2).
bool CanPropagateThrough(const Instruction& instr, int aggressiveness);
// May `instr` carry a (tiled) sharding at all?
bool SupportsSpatialPartitioning(const Instruction& instr, const PropagationState& state,
                                 bool allow_to_output, bool allow_to_parameters);

bool InferFromOperands(Instruction* instr, PropagationState& state);
bool InferFromUsers(Instruction* instr, PropagationState& state);
bool InferFromShardGroup(Instruction* instr, const std::vector<Instruction*>& group,
                         PropagationState& state);
// The sharding `user` implies for its operand `instr` (null when none).
std::optional<Sharding> ShardingFromUser(const Instruction& instr, const Instruction& user,
                                         int aggressiveness,
                                         const CallerMap* callers = nullptr);
// Same, as if `user` had `user_sharding` (used to look ahead along unsharded chains).
std::optional<Sharding> ShardingFromUserWith(const Instruction& instr, const Instruction& user,
                                             const Sharding& user_sharding, int aggressiveness,
                                             const CallerMap* callers = nullptr);
// The sorted `unspecified_dims=[..]` of a Sharding / SPMDFullToShardShape / SPMDShardToFullShape
// custom call's backend_config (empty when none).
std::vector<int64_t> ParseUnspecifiedDims(const Instruction& cc);
// The SPMDFullToShardShape/SPMDShardToFullShape that is the only user of `annotate` and has the
// same unspecified dims: the pair is refined jointly (null when none).
Instruction* ManualConversionAfter(const Instruction& annotate, const std::vector<int64_t>& dims);
// Refinement of Sharding constraints with unspecified dims.
bool InferUnspecifiedDimsFromOperand(Instruction* annotate, const std::vector<int64_t>& dims,
                                     PropagationState& state);
bool InferUnspecifiedDimsFromUsers(Instruction* annotate, const std::vector<int64_t>& dims,
                                   PropagationState& state);
bool InferUnspecifiedDimsFromGroup(Instruction* annotate, const std::vector<int64_t>& dims,
                                   const std::vector<Instruction*>& group, PropagationState& state);

}  // namespace spmdc

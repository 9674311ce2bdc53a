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
  bool is_spmd = true;  // PropagationOptions::is_spmd
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
  // Set by the driver around InferFromUsers: when nonzero, users whose sharding (and whose
  // operands' shardings) have not changed since this clock value already offered their candidate
  // to the (unchanged) instruction at this level and are skipped. Keeps instructions with many
  // users (shared scalars) linear instead of quadratic.
  uint64_t users_unchanged_since = 0;
  bool UserUnchanged(const Instruction* user) const {
    if (users_unchanged_since == 0) return false;
    auto unchanged = [&](const Instruction* i) {
      return i->unique_id() >= 0 && static_cast<size_t>(i->unique_id()) < changed_at.size() &&
             changed_at[i->unique_id()] <= users_unchanged_since;
    };
    if (!unchanged(user)) return false;
    return operands_changed_at[user->unique_id()] <= users_unchanged_since;
  }
  // Change stamps (indexed by unique id): when each instruction's sharding last changed, on a
  // global clock that ticks on every change. The driver skips re-running a rule whose inputs have
  // not changed since it last ran at an equivalent aggressiveness level.
  std::vector<uint64_t> changed_at;
  uint64_t clock = 1;
  // Per instruction (indexed by unique id): the latest change stamp of any of its operands, kept
  // up to date by Touch, so "no operand changed since t" is one lookup even for wide users.
  std::vector<uint64_t> operands_changed_at;
  void Touch(const Instruction* instr) {
    if (instr->unique_id() >= 0 && static_cast<size_t>(instr->unique_id()) < changed_at.size()) {
      changed_at[instr->unique_id()] = ++clock;
      for (const Instruction* u : instr->users())
        if (u->unique_id() >= 0 && static_cast<size_t>(u->unique_id()) < operands_changed_at.size())
          operands_changed_at[u->unique_id()] = clock;
    }
  }
  bool may_combine() const { return is_spmd && aggressiveness > 0; }

  // Per instruction (indexed by unique id, filled by the driver; the graph is fixed during the
  // fixpoint): 1 when it has exactly one user that is not its computation's root. Rules ask this
  // for every candidate, and reading the users themselves is a cache miss per user.
  std::vector<uint8_t> single_non_root_user;
  bool SingleNonRootUser(const Instruction* instr) const;

  // One shared copy per distinct non-tuple sharding (value and metadata) set during this run, so
  // that instructions with equal shardings share one object (fewer allocations, hot in cache).
  struct InternHash {
    size_t operator()(const Sharding& s) const { return s.Hash(); }
  };
  struct InternEq {
    bool operator()(const Sharding& a, const Sharding& b) const {
      return a == b && (&a.metadata() == &b.metadata() || a.metadata() == b.metadata());
    }
  };
  absl::flat_hash_map<Sharding, std::shared_ptr<const Sharding>, InternHash, InternEq> interned;
  std::shared_ptr<const Sharding> Intern(Sharding s) {
    if (s.IsTuple()) return std::make_shared<const Sharding>(std::move(s));
    auto it = interned.find(s);
    if (it != interned.end()) return it->second;
    auto shared = std::make_shared<const Sharding>(s);
    interned.emplace(std::move(s), shared);
    return shared;
  }

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
                                         const CallerMap* callers = nullptr, bool is_spmd = true);
// Same, as if `user` had `user_sharding` (used to look ahead along unsharded chains).
std::optional<Sharding> ShardingFromUserWith(const Instruction& instr, const Instruction& user,
                                             const Sharding& user_sharding, int aggressiveness,
                                             const CallerMap* callers = nullptr, bool is_spmd = true);
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

// Propagation through a custom call by its declared Shardy sharding rule (`xla.sdy.sharding_rule`,
// SHARDY.md §2.3/§2.7): jax.custom_partitioning calls carry one (`#sdy.op_sharding_rule<([i, j],
// [j, k])->([i, k]) {i=8, j=16, k=4}, custom>`), and propagation uses it as a factor map instead
// of treating the call as opaque.
//
// The rule names, per tensor dim, the factors it is made of. A dim of one tensor corresponds to
// a dim of another when both are made of exactly the same factors (in the same order); the
// sharding moves along those correspondences and every other dim is left unsharded (what
// MapShardingDims does). Factors the rule keeps unsharded (need_replication), that need a
// collective-permute when sharded (permutation) or whose propagation is blocked
// (blocked_propagation) carry nothing; reduction factors exist in operands only, so they carry
// between operands (a contracting dim) and never to a result. A dim made of several factors maps
// only to a dim made of the same ones: a finer split would need per-factor shardings, which the
// tile form does not have.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ir/instruction.h"
#include "sharding/sdy_text.h"
#include "sharding/sharding.h"

namespace spmdc {

// The rule an instruction declares in its `xla.sdy.sharding_rule` frontend attribute, if any and
// if it fits the instruction (one factor list per dim of every operand and result; the import
// rejects a rule that does not, so a misfit here means the module was built without it).
std::optional<SdyShardingRule> DeclaredShardingRule(const Instruction& instr);

// A tensor of the rule: operand or result `index`.
struct RuleTensor {
  bool result = false;
  int64_t index = 0;
};

// The sharding of tensor `dst` of `instr` that the sharding `src_sharding` of tensor `src`
// implies under `rule` (non-tuple shardings; tile-maximal and manual ones carry over as they are).
Sharding ShardingThroughRule(const Instruction& instr, const SdyShardingRule& rule, RuleTensor src,
                             const Sharding& src_sharding, RuleTensor dst);

// The name `spmdc explain` gives a propagation step through the rule of `instr` from tensor
// `from` (index -1 with `result`: from its results, backward).
std::string ShardingRuleName(const Instruction& instr, RuleTensor from);

}  // namespace spmdc

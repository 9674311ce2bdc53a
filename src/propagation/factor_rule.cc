#include "propagation/factor_rule.h"

#include <algorithm>

#include "fmt/format.h"
#include "ir/attributes.h"
#include "propagation/dim_mapping.h"

namespace spmdc {
namespace {

constexpr std::string_view kRuleKey = "xla.sdy.sharding_rule";

const Shape* TensorShape(const Instruction& instr, RuleTensor t) {
  if (!t.result) return t.index < instr.operand_count() ? &instr.operand(t.index)->shape() : nullptr;
  if (!instr.shape().IsTuple()) return t.index == 0 ? &instr.shape() : nullptr;
  return t.index < instr.shape().tuple_size() ? &instr.shape().tuple_shape(t.index) : nullptr;
}

const SdyShardingRule::TensorFactors& Factors(const SdyShardingRule& rule, RuleTensor t) {
  return t.result ? rule.results[t.index] : rule.operands[t.index];
}

bool Contains(const std::vector<int64_t>& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// Whether sharding may move along a dim made of `factors`.
bool Carries(const SdyShardingRule& rule, const std::vector<int64_t>& factors) {
  if (factors.empty()) return false;
  for (int64_t f : factors)
    if (Contains(rule.need_replication, f) || Contains(rule.permutation, f) ||
        Contains(rule.blocked_propagation, f))
      return false;
  return true;
}

}  // namespace

std::optional<SdyShardingRule> DeclaredShardingRule(const Instruction& instr) {
  if (instr.opcode() != Opcode::kCustomCall) return std::nullopt;
  const auto* list = instr.attrs().Get<KeyValueList>(AttrId::kFrontendAttributes);
  if (!list) return std::nullopt;
  const std::string* raw = nullptr;
  for (const auto& [k, v] : *list)
    if (k == kRuleKey) raw = &v;
  if (!raw) return std::nullopt;
  std::string text = raw->size() >= 2 && raw->front() == '"' ? UnquoteRaw(*raw) : *raw;
  StatusOr<SdyShardingRule> rule = ParseSdyShardingRule(text);
  if (!rule.ok()) return std::nullopt;
  // It must describe this instruction: one factor list per dim of every operand and result.
  const int64_t results = instr.shape().IsTuple() ? instr.shape().tuple_size() : 1;
  if (static_cast<int64_t>(rule->operands.size()) != instr.operand_count() ||
      static_cast<int64_t>(rule->results.size()) != results)
    return std::nullopt;
  for (int side = 0; side < 2; ++side) {
    const auto& maps = side ? rule->results : rule->operands;
    for (size_t t = 0; t < maps.size(); ++t) {
      const Shape* s = TensorShape(instr, RuleTensor{side == 1, static_cast<int64_t>(t)});
      if (!s || !s->IsArray() || static_cast<int64_t>(maps[t].size()) != s->rank()) return std::nullopt;
    }
  }
  return *std::move(rule);
}

Sharding ShardingThroughRule(const Instruction& instr, const SdyShardingRule& rule, RuleTensor src,
                             const Sharding& src_sharding, RuleTensor dst) {
  if (src_sharding.IsTileMaximal() || src_sharding.IsManual()) return src_sharding;
  const Shape* dst_shape = TensorShape(instr, dst);
  const auto& from = Factors(rule, src);
  const auto& to = Factors(rule, dst);
  std::vector<int64_t> src_dims, dst_dims;
  for (size_t d = 0; d < to.size(); ++d) {
    if (!Carries(rule, to[d])) continue;
    for (size_t e = 0; e < from.size(); ++e)
      if (from[e] == to[d]) {
        src_dims.push_back(static_cast<int64_t>(e));
        dst_dims.push_back(static_cast<int64_t>(d));
        break;
      }
  }
  return MapShardingDims(src_sharding, src_dims, dst_dims, dst_shape ? dst_shape->rank() : 0);
}

std::string ShardingRuleName(const Instruction& instr, RuleTensor from) {
  if (from.index < 0) return fmt::format("{} sharding rule (from its results)", instr.custom_call_target());
  return fmt::format("{} sharding rule ({} {})", instr.custom_call_target(), from.result ? "result" : "operand",
                     from.index);
}

}  // namespace spmdc

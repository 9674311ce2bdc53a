#include "partitioner/weight_update.h"

#include <algorithm>
#include <map>
#include <set>

#include "fmt/format.h"
#include "ir/computation.h"
#include "ir/opcode.h"
#include "sharding/sharding.h"

namespace spmdc {
namespace {

bool IsScalarBroadcast(const Instruction* x) {
  return (x->opcode() == Opcode::kBroadcast && x->operand(0)->shape().IsArray() &&
          x->operand(0)->shape().dims().empty()) ||
         (x->opcode() == Opcode::kConstant && x->shape().IsArray() && x->shape().dims().empty());
}

// An op that passes its operand through unchanged where the shapes agree: a reshape or copy to
// the same dims, or a sharding annotation (custom-call "Sharding": JAX pins results with one, or
// with such a reshape).
bool IsIdentity(const Instruction* x) {
  if (x->operand_count() != 1 || !x->operand(0)->shape().IsArray() ||
      x->operand(0)->shape().dims() != x->shape().dims() || x->operand(0)->shape().dtype() != x->shape().dtype())
    return false;
  switch (x->opcode()) {
    case Opcode::kReshape:
    case Opcode::kCopy:
    case Opcode::kBitcast:
      return true;
    case Opcode::kCustomCall:
      return x->string_attr(AttrId::kCustomCallTarget) == "Sharding";
    default:
      return false;
  }
}

// One update: the values it computes (members), the parameters and gradients it reads, and the
// entry-result positions it produces.
struct Component {
  std::vector<const Instruction*> members;
  std::set<const Instruction*> member_set;
  std::set<const Instruction*> params, gradients;
  std::vector<int64_t> leaves;
  std::string problem;  // non-empty: not shardable, and why
};

std::optional<PartitionSpec> SpecOf(const Mesh& mesh, const Instruction* x) {
  if (!x->has_sharding() || x->sharding()->IsTuple()) return std::nullopt;
  return SpecFromSharding(mesh, *x->sharding(), static_cast<int64_t>(x->shape().dims().size()));
}

bool UsesAxis(const PartitionSpec& spec, const std::string& axis) {
  for (const auto& d : spec)
    if (std::find(d.begin(), d.end(), axis) != d.end()) return true;
  return false;
}

std::shared_ptr<const Sharding> Make(const Mesh& mesh, const PartitionSpec& spec) {
  StatusOr<Sharding> s = ShardingFromSpec(mesh, spec);
  return s.ok() ? std::make_shared<const Sharding>(*s) : nullptr;
}

}  // namespace

WeightUpdateResult::Totals WeightUpdateResult::Sum() const {
  Totals t;
  for (const Update& u : updates) {
    t.weights += static_cast<int64_t>(u.weights.size());
    t.state += static_cast<int64_t>(u.state.size());
    t.padded += u.padded;
    t.state_bytes_before += u.state_bytes_before;
    t.state_bytes_after += u.state_bytes_after;
  }
  return t;
}

std::string WeightUpdateResult::Summary(const WeightUpdateOptions& options) const {
  const Totals t = Sum();
  return fmt::format(
      "weight-update sharding over {} ({} replicas): {} updates of {} weights, {} optimizer-state parameters "
      "stored sharded ({} -> {} bytes per device), {} uneven (padded), {} outputs left alone{}",
      options.axis, options.mesh.AxisSize(options.axis), updates.size(), t.weights, t.state, t.state_bytes_before,
      t.state_bytes_after, t.padded, skipped.size(), options.keep_sharded ? "; new weights kept sharded" : "");
}

StatusOr<WeightUpdateResult> ShardWeightUpdate(Module& module, const WeightUpdateOptions& options) {
  const Mesh& mesh = options.mesh;
  if (!mesh.AxisIndex(options.axis))
    return InvalidArgument("weight-update sharding: axis '{}' is not an axis of the mesh {}", options.axis,
                           mesh.ToString());
  const int64_t replicas = mesh.AxisSize(options.axis);
  WeightUpdateResult result;
  Computation* entry = module.entry();
  Instruction* root = entry->root();
  if (root->opcode() != Opcode::kTuple || replicas < 2) return result;
  // The result's shardings; an unannotated result is replicated (what the partitioner makes of it).
  std::vector<Sharding> root_shardings;
  if (root->has_sharding() && root->sharding()->IsTuple() &&
      static_cast<int64_t>(root->sharding()->tuple_elements().size()) == root->operand_count())
    root_shardings = root->sharding()->tuple_elements();
  else if (root->has_sharding() && !root->sharding()->IsTuple())
    root_shardings.assign(root->operand_count(), *root->sharding());
  else
    root_shardings.assign(root->operand_count(), Sharding::Replicate());

  // Grow each output's update backwards; outputs that share a value join one component
  // (union-find over component ids: `parent` forwards a merged component to the one it joined).
  std::map<const Instruction*, int64_t> owner;  // member or output -> component (maybe merged)
  std::vector<Component> all;
  std::vector<int64_t> parent;
  auto find = [&](int64_t k) {
    while (parent[k] != k) k = parent[k] = parent[parent[k]];
    return k;
  };
  for (int64_t i = 0; i < root->operand_count(); ++i) {
    const Instruction* out = root->operand(i);
    if (!out->shape().IsArray() || !IsFloat(out->shape().dtype()) || out->opcode() == Opcode::kParameter ||
        IsScalarBroadcast(out) || out->shape().dims().empty())
      continue;
    if (auto it = owner.find(out); it != owner.end()) {
      all[find(it->second)].leaves.push_back(i);
      continue;
    }
    const std::vector<int64_t>& dims = out->shape().dims();
    Component c;
    c.leaves.push_back(i);
    std::set<int64_t> merged;
    std::vector<const Instruction*> stack = {out};
    while (!stack.empty()) {
      const Instruction* x = stack.back();
      stack.pop_back();
      if (c.member_set.count(x) || c.params.count(x) || c.gradients.count(x)) continue;
      if (auto it = owner.find(x); it != owner.end()) {
        merged.insert(find(it->second));  // part of an earlier output's update
        continue;
      }
      if (IsScalarBroadcast(x)) continue;
      if (x->shape().IsArray() && x->shape().dims() == dims) {
        if (x->opcode() == Opcode::kParameter) {
          c.params.insert(x);
        } else if (IsElementwiseOpcode(x->opcode()) || IsIdentity(x)) {
          c.members.push_back(x);
          c.member_set.insert(x);
          for (const Instruction* o : x->operands()) stack.push_back(o);
        } else {
          c.gradients.insert(x);
        }
        continue;
      }
      // Any other value (a predicate or operand of another shape): not an update of this form.
      if (c.problem.empty())
        c.problem = fmt::format("it reads %{} ({}), neither of its shape nor a broadcast scalar", x->name(),
                                x->shape().ToString(false));
    }
    const int64_t id = static_cast<int64_t>(all.size());
    for (int64_t k : merged) {
      Component& other = all[k];
      if (c.problem.empty()) c.problem = other.problem;
      if (!other.members.empty() && other.members[0]->shape().dims() != dims && c.problem.empty())
        c.problem = "outputs of different shapes share values";
      c.members.insert(c.members.end(), other.members.begin(), other.members.end());
      c.member_set.insert(other.member_set.begin(), other.member_set.end());
      c.params.insert(other.params.begin(), other.params.end());
      c.gradients.insert(other.gradients.begin(), other.gradients.end());
      c.leaves.insert(c.leaves.end(), other.leaves.begin(), other.leaves.end());
      other = Component{};
      parent[k] = id;
    }
    for (const Instruction* m : c.members) owner[m] = id;
    owner[out] = id;
    all.push_back(std::move(c));
    parent.push_back(id);
  }
  std::vector<Component> components;
  for (int64_t k = 0; k < static_cast<int64_t>(all.size()); ++k)
    if (parent[k] == k) components.push_back(std::move(all[k]));

  // What the result depends on (in the entry computation).
  std::set<const Instruction*> live;
  for (std::vector<const Instruction*> stack = {root}; !stack.empty();) {
    const Instruction* x = stack.back();
    stack.pop_back();
    if (!live.insert(x).second) continue;
    for (const Instruction* o : x->operands()) stack.push_back(o);
  }

  bool changed_root = false;
  for (Component& c : components) {
    const Instruction* first = root->operand(c.leaves.front());
    auto skip = [&](const std::string& why) {
      for (int64_t leaf : c.leaves)
        result.skipped.push_back(fmt::format("output {} (%{}): {}", leaf, root->operand(leaf)->name(), why));
    };
    if (!c.problem.empty()) {
      skip(c.problem);
      continue;
    }
    if (c.gradients.empty()) {
      skip("no gradient: not an update");
      continue;
    }
    // Closed: every value of the update is used only by the update and the entry result (dead
    // users, which the clean-up removes, do not count).
    std::string leak;
    for (const Instruction* m : c.members)
      for (const Instruction* u : m->users())
        if (u != root && !c.member_set.count(u) && live.count(u) && leak.empty())
          leak = fmt::format("%{} is also used by %{}, outside the update", m->name(), u->name());
    if (!leak.empty()) {
      skip(leak);
      continue;
    }
    std::vector<const Instruction*> state, weights;
    for (const Instruction* p : c.params) {
      const bool only_update = std::all_of(p->users().begin(), p->users().end(), [&](const Instruction* u) {
        return c.member_set.count(u) > 0 || !live.count(u);
      });
      (only_update ? state : weights).push_back(p);
    }
    if (weights.empty()) {
      skip("it reads no weight (a parameter the rest of the program also uses)");
      continue;
    }
    // One spec for the whole update, without the data axis.
    if (!first->has_sharding()) {
      skip("it has no sharding (the update is sharded after propagation)");
      continue;
    }
    std::optional<PartitionSpec> spec = SpecOf(mesh, first);
    if (!spec) {
      skip("its sharding is not expressible on the mesh " + mesh.ToString());
      continue;
    }
    if (UsesAxis(*spec, options.axis)) {
      skip(fmt::format("already split over {}", options.axis));
      continue;
    }
    std::string mismatch;
    for (const auto* group : {&c.members, &weights, &state})
      for (const Instruction* x : *group)
        if (std::optional<PartitionSpec> s = SpecOf(mesh, x); (!s || *s != *spec) && mismatch.empty())
          mismatch = fmt::format("%{} is sharded differently from %{}", x->name(), first->name());
    if (!mismatch.empty()) {
      skip(mismatch);
      continue;
    }
    // The dim: per-shard size divisible by the replicas, largest first; else the largest.
    const std::vector<int64_t>& dims = first->shape().dims();
    int64_t best = -1, best_uneven = -1;
    auto per_shard = [&](int64_t d) {
      int64_t split = 1;
      for (const std::string& a : (*spec)[d]) split *= mesh.AxisSize(a);
      return (dims[d] + split - 1) / split;
    };
    for (int64_t d = 0; d < static_cast<int64_t>(dims.size()); ++d) {
      const int64_t n = per_shard(d);
      if (n % replicas == 0 && (best < 0 || n > per_shard(best))) best = d;
      if (best_uneven < 0 || n > per_shard(best_uneven)) best_uneven = d;
    }
    WeightUpdateResult::Update update;
    update.padded = best < 0;
    update.dim = best >= 0 ? best : best_uneven;
    PartitionSpec split = *spec;
    split[update.dim].push_back(options.axis);
    std::shared_ptr<const Sharding> sharded = Make(mesh, split);
    if (!sharded) {
      skip("no sharding expresses the split");
      continue;
    }
    // The gradients' producers, back through layout ops (each used only by the next) to what
    // computes them: a dot, convolution or reduction, whose partial sums over the data axis then
    // reduce-scatter instead of being all-reduced and sliced. A gradient made otherwise (a
    // while loop's accumulator, an all-reduce already in the program) would stay all-reduced,
    // and the update's all-gather would only add traffic: such updates are left alone.
    std::vector<std::pair<Instruction*, std::shared_ptr<const Sharding>>> chains;
    std::string unfit;
    for (const Instruction* g : c.gradients) {
      PartitionSpec s = split;
      Instruction* x = const_cast<Instruction*>(g);
      while (unfit.empty()) {
        std::shared_ptr<const Sharding> xs = Make(mesh, s);
        if (!xs) {
          unfit = fmt::format("no sharding of %{} matches the split", x->name());
          break;
        }
        chains.push_back({x, xs});
        const Opcode op = x->opcode();
        if (op == Opcode::kDot || op == Opcode::kConvolution || op == Opcode::kReduce) break;
        Instruction* next = op == Opcode::kTranspose || op == Opcode::kConvert || op == Opcode::kCopy ? x->operand(0) : nullptr;
        if (!next || next->user_count() != 1) {
          unfit = fmt::format("its gradient %{} comes from %{} ({}), not a dot, convolution or reduction: it "
                              "would stay all-reduced",
                              g->name(), x->name(), OpcodeName(op));
          break;
        }
        if (op == Opcode::kTranspose) {
          const std::vector<int64_t>& perm = x->dimensions();  // output dim j is operand dim perm[j]
          PartitionSpec operand(s.size());
          for (size_t j = 0; j < perm.size(); ++j) operand[perm[j]] = s[j];
          s = operand;
        }
        x = next;
      }
    }
    if (!unfit.empty()) {
      skip(unfit);
      continue;
    }
    for (const Instruction* m : c.members) const_cast<Instruction*>(m)->set_sharding(sharded);
    for (const Instruction* p : state) {
      update.state_bytes_before += p->sharding()->ShardShape(p->shape()).byte_size();
      update.state_bytes_after += sharded->ShardShape(p->shape()).byte_size();
      const_cast<Instruction*>(p)->set_sharding(sharded);
      update.state.push_back(p->name());
    }
    if (options.keep_sharded)
      for (const Instruction* p : weights) const_cast<Instruction*>(p)->set_sharding(sharded);
    for (int64_t leaf : c.leaves) {
      const Instruction* out = root->operand(leaf);
      // State feeds the rest of its update (m' feeds w'), also through the identity ops that
      // pin an output's sharding (reshape, Sharding custom call).
      bool is_state = false;
      for (const Instruction *y = out, *above = nullptr; y && !is_state;) {
        for (const Instruction* u : y->users())
          if (u != root && u != above && c.member_set.count(u) && live.count(u)) is_state = true;
        above = y;
        y = IsIdentity(y) && c.member_set.count(y->operand(0)) ? y->operand(0) : nullptr;
      }
      if (is_state || options.keep_sharded) {
        root_shardings[leaf] = *sharded;
        changed_root = true;
      }
      if (!is_state) update.weights.push_back(out->name());
    }
    for (const auto& [x, xs] : chains) x->set_sharding(xs);
    result.updates.push_back(std::move(update));
  }
  if (changed_root) root->set_sharding(std::make_shared<const Sharding>(Sharding::Tuple(root_shardings)));
  return result;
}

}  // namespace spmdc

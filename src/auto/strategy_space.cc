#include "auto/strategy_space.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "auto/layers.h"
#include "cost/cost.h"
#include "fmt/format.h"
#include "propagation/dot_dims.h"
#include "propagation/state.h"
#include "support/check.h"

namespace spmdc::autoshard {
namespace {

constexpr double kPicoseconds = 1e12;
// Propagation's most permissive level: every rule takes part.
constexpr int kRuleAggressiveness = 3;

// Every assignment of the mesh axes to one of `sizes.size()` dims or none (-1), such that the
// product of each dim's axes divides its size; as per-dim masks.
std::vector<AxisMasks> EnumerateMasks(const Mesh& mesh, const std::vector<int64_t>& sizes) {
  const int k = static_cast<int>(mesh.num_axes());
  std::vector<AxisMasks> out;
  AxisMasks cur(sizes.size(), 0);
  std::vector<int64_t> prod(sizes.size(), 1);
  auto rec = [&](auto&& self, int a) -> void {
    if (a == k) {
      out.push_back(cur);
      return;
    }
    self(self, a + 1);  // axis a unused
    const int64_t n = mesh.axes()[a].size;
    if (n <= 1) return;
    for (size_t d = 0; d < sizes.size(); ++d) {
      if (sizes[d] % (prod[d] * n) != 0) continue;
      prod[d] *= n;
      cur[d] |= 1u << a;
      self(self, a + 1);
      cur[d] &= ~(1u << a);
      prod[d] /= n;
    }
  };
  rec(rec, 0);
  return out;
}

int64_t DevicesOf(const Mesh& mesh, uint32_t mask) {
  int64_t n = 1;
  for (int a = 0; a < mesh.num_axes(); ++a)
    if (mask & (1u << a)) n *= mesh.axes()[a].size;
  return n;
}

uint32_t UnionOf(const AxisMasks& m) {
  uint32_t u = 0;
  for (uint32_t x : m) u |= x;
  return u;
}

// Collective timing per set of mesh axes: the link their groups use.
class Collectives {
 public:
  Collectives(const Mesh& mesh, const HardwareProfile& hw) : mesh_(mesh), hw_(hw) {}

  double Seconds(Opcode kind, uint32_t mask, int64_t bytes_per_device) {
    if (mask == 0 || hw_.links.empty()) return 0;
    return CollectiveSeconds(LinkOf(mask), kind, DevicesOf(mesh_, mask), bytes_per_device);
  }

 private:
  const HardwareProfile::Link& LinkOf(uint32_t mask) {
    auto it = links_.find(mask);
    if (it != links_.end()) return *it->second;
    // Devices are row-major over the mesh axes; a group varies the axes in `mask` only.
    const int k = static_cast<int>(mesh_.num_axes());
    std::vector<int64_t> sizes, strides(k, 1);
    for (int a = k - 1; a >= 0; --a) strides[a] = a == k - 1 ? 1 : strides[a + 1] * mesh_.axes()[a + 1].size;
    const int64_t total = mesh_.num_devices();
    std::map<int64_t, std::vector<int64_t>> by_key;
    for (int64_t dev = 0; dev < total; ++dev) {
      int64_t key = 0;
      for (int a = 0; a < k; ++a) {
        if (mask & (1u << a)) continue;
        key = key * mesh_.axes()[a].size + (dev / strides[a]) % mesh_.axes()[a].size;
      }
      by_key[key].push_back(dev);  // Mesh::Parse meshes are iota
    }
    std::vector<std::vector<int64_t>> groups;
    for (auto& [key, g] : by_key) groups.push_back(std::move(g));
    const HardwareProfile::Link* link = &hw_.LinkFor(groups);
    links_.emplace(mask, link);
    return *link;
  }

  const Mesh& mesh_;
  const HardwareProfile& hw_;
  absl::flat_hash_map<uint32_t, const HardwareProfile::Link*> links_;
};

// Seconds of moving a value of `bytes` (whole) from split `from` to split `to`: all-to-all for
// axes that change dim, all-gather for axes dropped, a local slice for axes added.
double ReshardSeconds(const Mesh& mesh, const HardwareProfile& hw, Collectives& coll, int64_t bytes,
                      const AxisMasks& from, const AxisMasks& to) {
  if (from == to) return 0;
  const uint32_t uf = UnionOf(from), ut = UnionOf(to);
  uint32_t moved = 0;
  for (size_t d = 0; d < from.size(); ++d) moved |= from[d] & ~to[d] & ut;
  const uint32_t removed = uf & ~ut, added = ut & ~uf;
  const int64_t shard = bytes / DevicesOf(mesh, uf);
  double t = 0;
  if (moved) t += coll.Seconds(Opcode::kAllToAll, moved, shard);
  if (removed) t += coll.Seconds(Opcode::kAllGather, removed, shard);
  if (added && hw.hbm_bandwidth > 0) {
    const int64_t gathered = shard * DevicesOf(mesh, removed);
    t += static_cast<double>(gathered + bytes / DevicesOf(mesh, ut)) / hw.hbm_bandwidth;
  }
  return t;
}

AxisMasks Replicated(int64_t rank) { return AxisMasks(static_cast<size_t>(rank), 0); }

struct Builder {
  const Module& module;
  const StrategySpaceOptions& options;
  const Mesh& mesh;
  const HardwareProfile& hw;
  Collectives coll;

  Builder(const Module& m, const StrategySpaceOptions& o)
      : module(m), options(o), mesh(o.mesh), hw(*o.hardware), coll(o.mesh, *o.hardware) {}

  // Roofline seconds of `instr`'s whole work split `shards` ways.
  double ComputeSeconds(const Instruction& instr, const OpCost& c, int64_t shards) const {
    if (instr.opcode() == Opcode::kParameter) return 0;
    const double rate = c.model_flops > 0 ? hw.MatmulFlops(instr.shape().dtype()) : hw.VectorFlops();
    const double s = static_cast<double>(shards);
    const double compute = c.flops > 0 && rate > 0 ? c.flops / s / rate : 0;
    const double memory =
        hw.hbm_bandwidth > 0 ? static_cast<double>(c.bytes_read + c.bytes_written) / s / hw.hbm_bandwidth : 0;
    const bool kernel = instr.opcode() == Opcode::kDot || instr.opcode() == Opcode::kConvolution;
    return std::max(compute, memory) + hw.op_overhead + (kernel ? hw.dot_overhead : 0.0);
  }

  Strategy Finish(const Instruction& instr, const OpCost& c, AxisMasks out, uint32_t partial,
                  std::vector<AxisMasks> operands) {
    Strategy st;
    const uint32_t used = UnionOf(out) | partial;
    st.compute_seconds = ComputeSeconds(instr, c, DevicesOf(mesh, used));
    st.bytes = instr.shape().byte_size() / DevicesOf(mesh, UnionOf(out));
    if (partial) st.communication_seconds = coll.Seconds(Opcode::kAllReduce, partial, st.bytes);
    st.output = std::move(out);
    st.partial_axes = partial;
    st.operands = std::move(operands);
    return st;
  }

  // A strategy whose operand splits come from propagation's backward rules.
  Strategy FromRules(const Instruction& instr, const OpCost& c, const AxisMasks& out) {
    const Sharding result = ShardingFromMasks(mesh, out);
    std::vector<AxisMasks> operands;
    for (int64_t k = 0; k < instr.operand_count(); ++k) {
      const Instruction& op = *instr.operand(k);
      if (!op.shape().IsArray()) {
        operands.emplace_back();
        continue;
      }
      std::optional<AxisMasks> m;
      if (std::optional<Sharding> s = ShardingFromUserWith(op, instr, result, kRuleAggressiveness))
        m = MasksFromSharding(mesh, *s, op.shape().rank());
      operands.push_back(m ? *m : Replicated(op.shape().rank()));
    }
    return Finish(instr, c, out, 0, std::move(operands));
  }

  std::vector<Strategy> DotStrategies(const Instruction& dot, const OpCost& c, const DotDims& d) {
    const Shape& lhs = dot.operand(0)->shape();
    const int64_t rank = dot.shape().rank();
    std::vector<int64_t> sizes(dot.shape().dims().begin(), dot.shape().dims().end());
    for (const DotDim& x : d.contracting) sizes.push_back(lhs.dim(x.lhs));
    std::vector<Strategy> out;
    for (const AxisMasks& m : EnumerateMasks(mesh, sizes)) {
      AxisMasks res(m.begin(), m.begin() + rank);
      AxisMasks l = Replicated(lhs.rank()), r = Replicated(dot.operand(1)->shape().rank());
      uint32_t partial = 0;
      auto place = [&](const DotDim& x, uint32_t mask) {
        if (x.lhs >= 0) l[x.lhs] = mask;
        if (x.rhs >= 0) r[x.rhs] = mask;
      };
      for (const DotDim& x : d.batch) place(x, res[x.output]);
      for (const DotDim& x : d.lhs_non_contracting) place(x, res[x.output]);
      for (const DotDim& x : d.rhs_non_contracting) place(x, res[x.output]);
      for (size_t i = 0; i < d.contracting.size(); ++i) {
        place(d.contracting[i], m[rank + i]);
        partial |= m[rank + i];
      }
      out.push_back(Finish(dot, c, std::move(res), partial, {std::move(l), std::move(r)}));
    }
    return out;
  }

  std::vector<Strategy> ReduceStrategies(const Instruction& reduce, const OpCost& c) {
    const Shape& in = reduce.operand(0)->shape();
    const std::vector<int64_t>& reduced = reduce.dimensions();
    std::vector<int64_t> sizes(in.dims().begin(), in.dims().end());
    std::vector<Strategy> out;
    for (const AxisMasks& m : EnumerateMasks(mesh, sizes)) {
      AxisMasks res;
      uint32_t partial = 0;
      for (int64_t dd = 0; dd < in.rank(); ++dd) {
        if (std::find(reduced.begin(), reduced.end(), dd) != reduced.end()) {
          partial |= m[dd];
        } else {
          res.push_back(m[dd]);
        }
      }
      out.push_back(Finish(reduce, c, std::move(res), partial, {m, AxisMasks{}}));
    }
    return out;
  }

  // Which nodes share a strategy list (`share`) and which a decision (`tie`): per schedule
  // position, a key that is equal for nodes at one position of the layers of one class (see the
  // header), or empty (the node is on its own). Nodes that could differ although their layers are
  // identical are told apart in the key: a kept annotation and a kept output sharding (both
  // change the strategies) are part of it.
  struct SharingKeys {
    std::vector<std::string> share, tie;
    std::vector<int> copy;
    int layers = 0, classes = 0, tied_layers = 0;
  };
  SharingKeys KeysOf(const std::vector<Instruction*>& order,
                     const absl::flat_hash_map<const Instruction*, std::string>& extra) const {
    SharingKeys keys;
    const size_t n = order.size();
    keys.share.assign(n, "");
    keys.tie.assign(n, "");
    keys.copy.assign(n, -1);
    if (!options.tie_layers) return keys;
    // Modules without a layer structure (no single-value cut) simply have nothing to share.
    StatusOr<LayerClustering> layers = ClusterLayers(module);
    if (!layers.ok() || layers->schedule.size() != n) return keys;
    for (size_t i = 0; i < n; ++i)
      if (layers->schedule[i] != order[i]) return keys;
    keys.layers = layers->num_layers;
    keys.classes = layers->num_classes;
    const std::vector<std::vector<int>>& members = layers->tie_members;
    std::vector<std::vector<int>> of_class(layers->num_classes);
    for (int l = 0; l < layers->num_layers; ++l) of_class[layers->tie_class[l]].push_back(l);
    const int b = std::max(0, options.untie_boundary);
    for (int c = 0; c < layers->num_classes; ++c) {
      const std::vector<int>& ls = of_class[c];
      const int count = static_cast<int>(ls.size());
      if (count < 2) continue;
      const size_t size = members[ls.front()].size();
      const bool tie = count - 2 * b >= 2;
      for (int r = 0; r < count; ++r) {
        const std::vector<int>& mem = members[ls[r]];
        if (mem.size() != size) continue;  // cannot happen for one signature; then share nothing
        const bool tied = tie && r >= b && r < count - b;
        if (tied && r > b) ++keys.tied_layers;
        for (size_t pos = 0; pos < size; ++pos) {
          const Instruction* instr = order[mem[pos]];
          auto it = extra.find(instr);
          std::string key = fmt::format("{}:{}:{}", c, pos, it == extra.end() ? "" : it->second);
          if (tied) keys.tie[mem[pos]] = key, keys.copy[mem[pos]] = r - b;
          keys.share[mem[pos]] = std::move(key);
        }
      }
    }
    return keys;
  }

  StatusOr<StrategySpace> Build() {
    StrategySpace space(mesh);
    space.memory_limit = options.memory_limit;
    if (mesh.num_axes() > 16) return InvalidArgument("--mesh: at most 16 axes");
    const Computation& entry = *module.entry();
    const std::vector<Instruction*> order = entry.MakeInstructionPostOrder();
    const int64_t n = static_cast<int64_t>(order.size());
    space.num_points = n;
    absl::flat_hash_map<const Instruction*, int64_t> position;
    for (int64_t p = 0; p < n; ++p) position[order[p]] = p;
    // When the root tuple has a sharding (kept as a constraint), the outputs come out as it says:
    // each output's strategy pays its resharding into that. Otherwise the outputs' shardings are
    // part of the plan (a jitted step with out_shardings chosen by the compiler).
    absl::flat_hash_map<const Instruction*, std::vector<AxisMasks>> output_want;
    if (entry.root()->opcode() == Opcode::kTuple && options.keep_annotations && entry.root()->has_sharding()) {
      const Instruction& root = *entry.root();
      const Sharding& rs = *root.sharding();
      for (int64_t k = 0; k < root.operand_count(); ++k) {
        const Instruction* op = root.operand(k);
        if (!op->shape().IsArray()) continue;
        const int64_t rank = op->shape().rank();
        AxisMasks want = Replicated(rank);
        const Sharding leaf =
            rs.IsTuple() && k < static_cast<int64_t>(rs.tuple_elements().size()) ? rs.tuple_elements()[k] : rs;
        if (std::optional<AxisMasks> m = MasksFromSharding(mesh, leaf, rank)) want = *m;
        output_want[op].push_back(std::move(want));
      }
    }
    // What can make otherwise identical nodes differ: the kept annotation, the kept output split.
    absl::flat_hash_map<const Instruction*, std::string> extra;
    for (const Instruction* instr : order) {
      std::string e;
      if (options.keep_annotations && instr->has_sharding()) e += instr->sharding()->ToString(false);
      if (auto it = output_want.find(instr); it != output_want.end())
        for (const AxisMasks& m : it->second) e += " out " + MasksToString(mesh, m);
      if (!e.empty()) extra.emplace(instr, std::move(e));
    }
    const SharingKeys keys = KeysOf(order, extra);
    absl::flat_hash_map<std::string, int> shared_list, tied_var;

    absl::flat_hash_map<const Instruction*, int> node_of;
    CostOptions cost_options;
    cost_options.partitioned = true;
    cost_options.num_partitions = 1;
    for (int64_t p = 0; p < n; ++p) {
      const Instruction& instr = *order[p];
      if (!instr.shape().IsArray()) {
        if (&instr == entry.root() && instr.opcode() == Opcode::kTuple) continue;
        if (instr.shape().IsTuple())
          return Unimplemented("spmdc auto: %{} ({}) is tuple-shaped: only array values and the entry's root tuple "
                               "are supported by the strategy search yet",
                               instr.name(), OpcodeName(instr.opcode()));
        continue;  // tokens
      }
      for (const Instruction* op : instr.operands())
        if (op->shape().IsTuple() && instr.opcode() != Opcode::kGetTupleElement)
          return Unimplemented("spmdc auto: %{} reads the tuple %{}: not supported by the strategy search yet",
                               instr.name(), op->name());
      StrategyNode node;
      node.instr = &instr;
      // A manual region (shard_map) is per-device code the search has no strategies for: its
      // boundaries and values are refused as unsupported, not as bad input.
      if (instr.IsCustomCall("SPMDFullToShardShape") || instr.IsCustomCall("SPMDShardToFullShape") ||
          (instr.has_sharding() && (instr.sharding()->IsManual() || instr.sharding()->IsManualSubgroup())))
        return Unimplemented("spmdc auto: %{} is part of a manual region (shard_map): the strategy search "
                             "does not plan manual regions yet",
                             instr.name());
      std::optional<AxisMasks> wanted;
      if (options.keep_annotations && instr.has_sharding()) {
        wanted = MasksFromSharding(mesh, *instr.sharding(), instr.shape().rank());
        if (!wanted) {
          const std::string where = module.SourceLocationOf(instr);
          return InvalidArgument("{}%{} has sharding {}, which is not a slicing of the mesh {} (pass "
                                 "--ignore-annotations to drop the module's shardings)",
                                 where.empty() ? "" : where + ": ", instr.name(), instr.sharding()->ToString(false),
                                 mesh.ToString());
        }
        node.annotated = true;
      }
      const int index = static_cast<int>(space.nodes.size());
      auto shared = keys.share[p].empty() ? shared_list.end() : shared_list.find(keys.share[p]);
      if (shared != shared_list.end()) {
        node.strategies = space.nodes[shared->second].strategies;
      } else {
        node.strategies = StrategyList(StrategiesOf(instr, cost_options, wanted, output_want));
        if (!keys.share[p].empty()) shared_list.emplace(keys.share[p], index);
      }
      // Live from its definition to its last use; parameters and the entry's outputs throughout.
      node.lower = instr.opcode() == Opcode::kParameter ? 0 : p;
      node.upper = p + 1;
      bool output = &instr == entry.root();
      for (const Instruction* u : instr.users()) {
        if (u == entry.root()) output = true;
        auto it = position.find(u);
        if (it != position.end()) node.upper = std::max(node.upper, it->second + 1);
      }
      if (output || instr.opcode() == Opcode::kParameter) node.upper = n;
      // Its decision: a tied variable's, or its own.
      int var = space.ties.num_vars;
      if (!keys.tie[p].empty()) {
        auto [it, fresh] = tied_var.try_emplace(keys.tie[p], var);
        var = it->second;
      }
      if (var == space.ties.num_vars) {
        ++space.ties.num_vars;
        space.ties.first.push_back(index);
        space.ties.count.push_back(0);
      }
      ++space.ties.count[var];
      space.ties.var_of.push_back(var);
      space.ties.copy.push_back(keys.tie[p].empty() ? -1 : keys.copy[p]);
      node_of[&instr] = index;
      space.nodes.push_back(std::move(node));
    }
    space.ties.layers = keys.layers;
    space.ties.classes = keys.classes;
    space.ties.tied_layers = keys.tied_layers;
    // Edges: producer strategy s -> the split consumer strategy t needs for that operand. One
    // matrix per (producer list, consumer list, operand); an edge whose matrix is zero is left out.
    absl::flat_hash_map<std::tuple<const void*, const void*, int64_t>, std::shared_ptr<const std::vector<double>>>
        matrices;
    for (int j = 0; j < static_cast<int>(space.nodes.size()); ++j) {
      const StrategyNode& consumer = space.nodes[j];
      for (int64_t k = 0; k < consumer.instr->operand_count(); ++k) {
        auto it = node_of.find(consumer.instr->operand(k));
        if (it == node_of.end()) continue;
        const StrategyNode& producer = space.nodes[it->second];
        auto [mit, fresh] = matrices.try_emplace(std::make_tuple(producer.strategies.id(), consumer.strategies.id(), k));
        if (fresh) mit->second = EdgeMatrix(producer, consumer, k);
        if (!mit->second) continue;  // all zero
        StrategyEdge e;
        e.producer = it->second;
        e.consumer = j;
        e.operand = k;
        e.seconds = mit->second;
        space.edges.push_back(std::move(e));
      }
    }
    int64_t entries = 0;
    for (const StrategyEdge& e : space.edges) entries += static_cast<int64_t>(e.seconds->size());
    if (entries <= options.tie_min_entries) space.ties.Untie();
    return space;
  }

  // The strategies of `instr` (restricted to `wanted` when given), each paying the resharding of
  // its result into what a kept output sharding wants.
  std::vector<Strategy> StrategiesOf(const Instruction& instr, const CostOptions& cost_options,
                                     const std::optional<AxisMasks>& wanted,
                                     const absl::flat_hash_map<const Instruction*, std::vector<AxisMasks>>& output_want) {
    const OpCost c = CostOfInstruction(instr, cost_options);
    std::vector<Strategy> strategies;
    std::optional<DotDims> dd;
    if (instr.opcode() == Opcode::kDot) dd = DotDimsOfDotFamily(instr);
    if (dd) {
      strategies = DotStrategies(instr, c, *dd);
    } else if (instr.opcode() == Opcode::kReduce && instr.operand_count() == 2 && instr.operand(0)->shape().IsArray()) {
      strategies = ReduceStrategies(instr, c);
    } else {
      std::vector<int64_t> sizes(instr.shape().dims().begin(), instr.shape().dims().end());
      for (const AxisMasks& m : EnumerateMasks(mesh, sizes)) strategies.push_back(FromRules(instr, c, m));
    }
    if (wanted) {
      std::vector<Strategy> kept;
      for (Strategy& s : strategies)
        if (s.output == *wanted) kept.push_back(std::move(s));
      if (kept.empty()) kept.push_back(FromRules(instr, c, *wanted));
      strategies = std::move(kept);
    }
    if (auto it = output_want.find(&instr); it != output_want.end()) {
      const int64_t bytes = instr.shape().byte_size();
      for (const AxisMasks& want : it->second)
        for (Strategy& st : strategies) st.communication_seconds += ReshardSeconds(mesh, hw, coll, bytes, st.output, want);
    }
    return strategies;
  }

  // Seconds of resharding producer strategy s into what consumer strategy t needs of operand k
  // (row-major), or null when every entry is zero.
  std::shared_ptr<const std::vector<double>> EdgeMatrix(const StrategyNode& producer, const StrategyNode& consumer,
                                                        int64_t k) {
    const int64_t bytes = producer.instr->shape().byte_size();
    const size_t S = producer.strategies.size(), T = consumer.strategies.size();
    auto m = std::make_shared<std::vector<double>>(S * T, 0.0);
    std::map<AxisMasks, std::vector<double>> column_of;
    bool all_zero = true;
    for (size_t t = 0; t < T; ++t) {
      const AxisMasks& need = consumer.strategies[t].operands[k];
      auto [cit, fresh] = column_of.try_emplace(need);
      if (fresh) {
        cit->second.resize(S);
        for (size_t s = 0; s < S; ++s)
          cit->second[s] = ReshardSeconds(mesh, hw, coll, bytes, producer.strategies[s].output, need);
      }
      for (size_t s = 0; s < S; ++s) {
        (*m)[s * T + t] = cit->second[s];
        if (cit->second[s] != 0) all_zero = false;
      }
    }
    if (all_zero) return nullptr;
    return m;
  }
};

}  // namespace

Sharding ShardingFromMasks(const Mesh& mesh, const AxisMasks& masks) {
  if (UnionOf(masks) == 0) return Sharding::Replicate();
  PartitionSpec spec(masks.size());
  for (size_t d = 0; d < masks.size(); ++d)
    for (int a = 0; a < mesh.num_axes(); ++a)
      if (masks[d] & (1u << a)) spec[d].push_back(mesh.axes()[a].name);
  StatusOr<Sharding> s = ShardingFromSpec(mesh, spec);
  SPMDC_CHECK(s.ok());
  return *s;
}

std::optional<AxisMasks> MasksFromSharding(const Mesh& mesh, const Sharding& sharding, int64_t rank) {
  std::optional<PartitionSpec> spec = SpecFromSharding(mesh, sharding, rank);
  if (!spec || static_cast<int64_t>(spec->size()) != rank) return std::nullopt;
  AxisMasks masks(static_cast<size_t>(rank), 0);
  uint32_t seen = 0;
  for (int64_t d = 0; d < rank; ++d) {
    int last = -1;
    for (const std::string& name : (*spec)[d]) {
      std::optional<int64_t> a = mesh.AxisIndex(name);
      if (!a || *a <= last || (seen & (1u << *a))) return std::nullopt;
      last = static_cast<int>(*a);
      masks[d] |= 1u << *a;
      seen |= 1u << *a;
    }
  }
  return masks;
}

std::string MasksToString(const Mesh& mesh, const AxisMasks& masks) {
  PartitionSpec spec(masks.size());
  for (size_t d = 0; d < masks.size(); ++d)
    for (int a = 0; a < mesh.num_axes(); ++a)
      if (masks[d] & (1u << a)) spec[d].push_back(mesh.axes()[a].name);
  return PartitionSpecToString(spec);
}

void Ties::Untie() {
  const int nodes = static_cast<int>(var_of.size());
  num_vars = nodes;
  first.resize(nodes);
  count.assign(nodes, 1);
  copy.assign(nodes, -1);
  tied_layers = 0;
  for (int i = 0; i < nodes; ++i) var_of[i] = first[i] = i;
}

int64_t StrategySpace::num_strategies() const {
  int64_t s = 0;
  for (const StrategyNode& n : nodes) s += static_cast<int64_t>(n.strategies.size());
  return s;
}

namespace {
constexpr double kCostCap = static_cast<double>(kMaxSpaceCost);
}  // namespace

Cost PicosecondsOf(double seconds) {
  return static_cast<Cost>(std::min(std::round(seconds * kPicoseconds), kCostCap));
}

Cost RepeatedCost(int64_t count, Cost ps) {
  return static_cast<Cost>(std::min(static_cast<double>(count) * static_cast<double>(ps), kCostCap));
}

Problem StrategySpace::ToUntiedProblem() const {
  Problem p;
  p.name = "spmdc-auto";
  for (const StrategyNode& n : nodes) {
    ProblemNode pn;
    pn.lower = n.lower;
    pn.upper = n.upper;
    for (const Strategy& s : n.strategies) {
      pn.costs.push_back(PicosecondsOf(s.compute_seconds + s.communication_seconds));
      pn.usages.push_back(s.bytes);
    }
    p.nodes.push_back(std::move(pn));
  }
  for (const StrategyEdge& e : edges) {
    ProblemEdge pe;
    pe.nodes = {e.producer, e.consumer};
    pe.costs.reserve(e.seconds->size());
    for (double s : *e.seconds) pe.costs.push_back(PicosecondsOf(s));
    p.edges.push_back(std::move(pe));
  }
  p.usage_limit = memory_limit;
  return p;
}

std::vector<EdgeKind> StrategySpace::EdgeKinds() const {
  std::vector<EdgeKind> kinds;
  absl::flat_hash_map<std::tuple<int, int, const void*>, int> index;
  for (int i = 0; i < static_cast<int>(edges.size()); ++i) {
    const StrategyEdge& e = edges[i];
    const int pv = ties.var_of[e.producer], cv = ties.var_of[e.consumer];
    auto [it, fresh] = index.try_emplace(std::make_tuple(pv, cv, static_cast<const void*>(e.seconds.get())),
                                         static_cast<int>(kinds.size()));
    if (fresh) kinds.push_back(EdgeKind{pv, cv, e.seconds, {}});
    kinds[it->second].instances.push_back(i);
  }
  return kinds;
}

Problem StrategySpace::ToProblem() const {
  if (!ties.tied()) return ToUntiedProblem();
  Problem p;
  p.name = "spmdc-auto-tied";
  p.nodes.resize(ties.num_vars);
  for (int v = 0; v < ties.num_vars; ++v) {
    const StrategyNode& n = nodes[ties.first[v]];
    ProblemNode& pn = p.nodes[v];
    pn.lower = n.lower;
    pn.upper = n.upper;
    for (const Strategy& s : n.strategies) {
      pn.costs.push_back(RepeatedCost(ties.count[v], PicosecondsOf(s.compute_seconds + s.communication_seconds)));
      pn.usages.push_back(s.bytes);
    }
  }
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i)
    if (ties.first[ties.var_of[i]] != i) p.nodes[ties.var_of[i]].extra_intervals.emplace_back(nodes[i].lower, nodes[i].upper);
  for (const EdgeKind& kind : EdgeKinds()) {
    const int64_t count = static_cast<int64_t>(kind.instances.size());
    const std::vector<double>& m = *kind.seconds;
    if (kind.self()) {
      // Both ends take the variable's strategy: the diagonal.
      ProblemNode& pn = p.nodes[kind.producer_var];
      const int64_t k = static_cast<int64_t>(pn.costs.size());
      for (int64_t s = 0; s < k; ++s)
        pn.costs[s] = std::min<Cost>(pn.costs[s] + RepeatedCost(count, PicosecondsOf(m[s * k + s])), kMaxSpaceCost);
      continue;
    }
    ProblemEdge pe;
    pe.nodes = {kind.producer_var, kind.consumer_var};
    pe.costs.reserve(m.size());
    for (double s : m) pe.costs.push_back(RepeatedCost(count, PicosecondsOf(s)));
    p.edges.push_back(std::move(pe));
  }
  p.usage_limit = memory_limit;
  return p;
}

std::vector<int64_t> StrategySpace::Expand(const std::vector<int64_t>& var_choice) const {
  std::vector<int64_t> choice(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) choice[i] = var_choice[ties.var_of[i]];
  return choice;
}

double StrategySpace::SecondsOf(const std::vector<int64_t>& choice) const {
  double t = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Strategy& s = nodes[i].strategies[choice[i]];
    t += s.compute_seconds + s.communication_seconds;
  }
  for (const StrategyEdge& e : edges)
    t += (*e.seconds)[choice[e.producer] * nodes[e.consumer].strategies.size() + choice[e.consumer]];
  return t;
}

TotalCost StrategySpace::CostOf(const std::vector<int64_t>& choice) const {
  TotalCost c = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Strategy& s = nodes[i].strategies[choice[i]];
    c += PicosecondsOf(s.compute_seconds + s.communication_seconds);
  }
  for (const StrategyEdge& e : edges)
    c += PicosecondsOf((*e.seconds)[choice[e.producer] * nodes[e.consumer].strategies.size() + choice[e.consumer]]);
  return c;
}

int64_t StrategySpace::PeakBytesOf(const std::vector<int64_t>& choice) const {
  std::vector<int64_t> delta(static_cast<size_t>(num_points) + 1, 0);
  for (size_t i = 0; i < nodes.size(); ++i) {
    delta[nodes[i].lower] += nodes[i].strategies[choice[i]].bytes;
    delta[nodes[i].upper] -= nodes[i].strategies[choice[i]].bytes;
  }
  int64_t cur = 0, peak = 0;
  for (int64_t d : delta) peak = std::max(peak, cur += d);
  return peak;
}

int64_t StrategySpace::SmallestPeakBytes() const {
  std::vector<int64_t> choice(nodes.size(), 0);
  for (size_t i = 0; i < nodes.size(); ++i)
    for (size_t s = 0; s < nodes[i].strategies.size(); ++s)
      if (nodes[i].strategies[s].bytes < nodes[i].strategies[choice[i]].bytes) choice[i] = static_cast<int64_t>(s);
  return PeakBytesOf(choice);
}

Sharding StrategySpace::OutputSharding(int n, int64_t s) const {
  return ShardingFromMasks(mesh, nodes[n].strategies[s].output);
}

StatusOr<StrategySpace> BuildStrategySpace(const Module& module, const StrategySpaceOptions& options) {
  if (!options.hardware) return InvalidArgument("BuildStrategySpace: no hardware profile");
  if (!module.entry()) return InvalidArgument("the module has no entry computation");
  Builder b(module, options);
  return b.Build();
}

}  // namespace spmdc::autoshard

#include "auto/strategy_space.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "absl/container/flat_hash_map.h"
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

int Popcount(uint32_t m) { return __builtin_popcount(m); }

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

  // All-reduce reassociation. The clean-up turns add(all-reduce(a), all-reduce(b)) into
  // all-reduce(a + b) when both all-reduces (same groups) feed only the add: a value used by
  // several contracting dots (Megatron's Q, K and V projections of one input) gets one all-
  // reduced gradient, not three. `pending_[i]`: instruction i may leave its partial sum pending
  // for its one user, an add of its shape whose operands may both do so (dots, convolutions and
  // reduces with partial strategies, and such adds themselves, in chains).
  absl::flat_hash_map<const Instruction*, bool> pending_;

  bool SumsPartials(const Instruction& instr) const {
    auto it = pending_.find(&instr);
    return it != pending_.end() && it->second;
  }

  void FindPendingPartials(const std::vector<Instruction*>& order, const Instruction* root) {
    auto feeds_add = [&](const Instruction& i) {
      return i.user_count() == 1 && i.users()[0]->opcode() == Opcode::kAdd && i.users()[0]->shape() == i.shape() &&
             &i != root;
    };
    auto partial_kind = [](const Instruction& i) {
      return i.opcode() == Opcode::kDot || i.opcode() == Opcode::kConvolution || i.opcode() == Opcode::kReduce;
    };
    // Post order: an add's operands are decided before it.
    for (const Instruction* i : order) {
      if (!i->shape().IsArray()) continue;
      if (partial_kind(*i)) {
        pending_[i] = feeds_add(*i);
      } else if (i->opcode() == Opcode::kAdd && i->operand_count() == 2) {
        auto pends = [&](const Instruction* o) {
          auto it = pending_.find(o);
          return it != pending_.end() && it->second;
        };
        const bool sums = pends(i->operand(0)) && pends(i->operand(1)) && i->operand(0) != i->operand(1);
        sums_[i] = sums;
        pending_[i] = sums && feeds_add(*i);
      }
    }
  }
  // `sums_[add]`: the add can sum two pending partial sums.
  absl::flat_hash_map<const Instruction*, bool> sums_;

  // The strategies with a partial sum, again, leaving it pending (no all-reduce of their own).
  void AddPendingVariants(const Instruction& instr, std::vector<Strategy>& strategies) {
    if (!SumsPartials(instr)) return;
    const size_t n = strategies.size();
    for (size_t s = 0; s < n; ++s) {
      if (!strategies[s].partial_axes) continue;
      Strategy v = strategies[s];
      v.pending_axes = v.partial_axes;
      v.communication_seconds = 0;
      strategies.push_back(std::move(v));
    }
  }

  // An add of two pending partial sums (sums_): for every split of the result and every set
  // of axes the sums are partial over, the add sums them and all-reduces the sum once, or (when it
  // may itself stay pending) leaves it pending for the next add.
  void AddSummingStrategies(const Instruction& add, const OpCost& c, std::vector<Strategy>& strategies) {
    auto it = sums_.find(&add);
    if (it == sums_.end() || !it->second) return;
    const uint32_t all = (1u << mesh.num_axes()) - 1;
    std::vector<int64_t> sizes(add.shape().dims().begin(), add.shape().dims().end());
    for (const AxisMasks& m : EnumerateMasks(mesh, sizes)) {
      const uint32_t free = all & ~UnionOf(m);
      for (uint32_t p = free; p; p = (p - 1) & free) {
        if (DevicesOf(mesh, p) == 1) continue;
        Strategy st = Finish(add, c, m, p, {m, m});
        st.compute_seconds = ComputeSeconds(add, c, DevicesOf(mesh, UnionOf(m)));  // each device adds its partials
        st.operand_pending = {p, p};
        strategies.push_back(st);
        if (SumsPartials(add)) {
          st.pending_axes = p;
          st.communication_seconds = 0;
          strategies.push_back(std::move(st));
        }
      }
    }
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
    absl::flat_hash_map<const Instruction*, int> node_of;
    FindPendingPartials(order, entry.root());
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
      const OpCost c = CostOfInstruction(instr, cost_options);
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
      std::optional<DotDims> dd;
      if (instr.opcode() == Opcode::kDot) dd = DotDimsOfDotFamily(instr);
      // A convolution in the same einsum view (no groups): its batch and feature dims split as a
      // dot's, its input features contracted (a kernel gradient contracts the batch: data
      // parallelism's all-reduced weight gradient). Propagation's backward rule says nothing for
      // convolutions with true spatial dims (as XLA's), which would leave the operands of every
      // split replicated. A split true spatial dim of the result keeps the operands whole on it.
      if (instr.opcode() == Opcode::kConvolution && instr.int_attr(AttrId::kFeatureGroupCount, 1) == 1 &&
          instr.int_attr(AttrId::kBatchGroupCount, 1) == 1)
        dd = DotDimsOfConvolution(instr);
      if (dd) {
        node.strategies = DotStrategies(instr, c, *dd);
      } else if (instr.opcode() == Opcode::kReduce && instr.operand_count() == 2 &&
                 instr.operand(0)->shape().IsArray()) {
        node.strategies = ReduceStrategies(instr, c);
      } else {
        std::vector<int64_t> sizes(instr.shape().dims().begin(), instr.shape().dims().end());
        for (const AxisMasks& m : EnumerateMasks(mesh, sizes)) node.strategies.push_back(FromRules(instr, c, m));
      }
      AddPendingVariants(instr, node.strategies);
      if (instr.opcode() == Opcode::kAdd) AddSummingStrategies(instr, c, node.strategies);
      if (wanted) {
        std::vector<Strategy> kept;
        for (Strategy& s : node.strategies)
          if (s.output == *wanted) kept.push_back(std::move(s));
        if (kept.empty()) kept.push_back(FromRules(instr, c, *wanted));
        node.strategies = std::move(kept);
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
      node_of[&instr] = static_cast<int>(space.nodes.size());
      space.nodes.push_back(std::move(node));
    }
    // When the root tuple has a sharding (kept as a constraint), the outputs come out as it says:
    // each output's strategy pays its resharding into that. Otherwise the outputs' shardings are
    // part of the plan (a jitted step with out_shardings chosen by the compiler).
    if (entry.root()->opcode() == Opcode::kTuple && options.keep_annotations && entry.root()->has_sharding()) {
      const Instruction& root = *entry.root();
      for (int64_t k = 0; k < root.operand_count(); ++k) {
        auto it = node_of.find(root.operand(k));
        if (it == node_of.end()) continue;
        StrategyNode& node = space.nodes[it->second];
        const int64_t rank = node.instr->shape().rank();
        AxisMasks want = Replicated(rank);
        if (options.keep_annotations && root.has_sharding()) {
          const Sharding& rs = *root.sharding();
          const Sharding leaf =
              rs.IsTuple() && k < static_cast<int64_t>(rs.tuple_elements().size()) ? rs.tuple_elements()[k] : rs;
          if (std::optional<AxisMasks> m = MasksFromSharding(mesh, leaf, rank)) want = *m;
        }
        const int64_t bytes = node.instr->shape().byte_size();
        for (Strategy& st : node.strategies)
          st.communication_seconds += ReshardSeconds(mesh, hw, coll, bytes, st.output, want);
      }
    }
    // Edges: producer strategy s -> the split consumer strategy t needs for that operand.
    for (int j = 0; j < static_cast<int>(space.nodes.size()); ++j) {
      const StrategyNode& consumer = space.nodes[j];
      for (int64_t k = 0; k < consumer.instr->operand_count(); ++k) {
        auto it = node_of.find(consumer.instr->operand(k));
        if (it == node_of.end()) continue;
        const StrategyNode& producer = space.nodes[it->second];
        const int64_t bytes = producer.instr->shape().byte_size();
        StrategyEdge e;
        e.producer = it->second;
        e.consumer = j;
        e.operand = k;
        const size_t S = producer.strategies.size(), T = consumer.strategies.size();
        e.seconds.assign(S * T, 0.0);
        std::map<std::pair<AxisMasks, uint32_t>, std::vector<double>> column_of;
        bool all_zero = true;
        for (size_t t = 0; t < T; ++t) {
          const Strategy& ct = consumer.strategies[t];
          const AxisMasks& need = ct.operands[k];
          const uint32_t need_pending = k < static_cast<int64_t>(ct.operand_pending.size()) ? ct.operand_pending[k] : 0;
          auto [cit, fresh] = column_of.try_emplace(std::make_pair(need, need_pending));
          if (fresh) {
            cit->second.resize(S);
            for (size_t s = 0; s < S; ++s) {
              const Strategy& ps = producer.strategies[s];
              // A pending partial sum meets only an add that sums it, split alike.
              if (ps.pending_axes != need_pending || (need_pending && ps.output != need)) {
                cit->second[s] = std::numeric_limits<double>::infinity();
              } else {
                cit->second[s] = ReshardSeconds(mesh, hw, coll, bytes, ps.output, need);
              }
            }
          }
          for (size_t s = 0; s < S; ++s) {
            e.seconds[s * T + t] = cit->second[s];
            if (cit->second[s] != 0) all_zero = false;
          }
        }
        if (!all_zero) space.edges.push_back(std::move(e));
      }
    }
    return space;
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

int64_t StrategySpace::num_strategies() const {
  int64_t s = 0;
  for (const StrategyNode& n : nodes) s += static_cast<int64_t>(n.strategies.size());
  return s;
}

Problem StrategySpace::ToProblem() const {
  auto ps = [](double seconds) {
    if (std::isinf(seconds)) return kForbiddenCost;
    const double v = std::llround(seconds * kPicoseconds);
    return static_cast<Cost>(std::min(v, 1e17));
  };
  Problem p;
  p.name = "spmdc-auto";
  for (const StrategyNode& n : nodes) {
    ProblemNode pn;
    pn.lower = n.lower;
    pn.upper = n.upper;
    for (const Strategy& s : n.strategies) {
      pn.costs.push_back(ps(s.compute_seconds + s.communication_seconds));
      pn.usages.push_back(s.bytes);
    }
    p.nodes.push_back(std::move(pn));
  }
  for (const StrategyEdge& e : edges) {
    ProblemEdge pe;
    pe.nodes = {e.producer, e.consumer};
    pe.costs.reserve(e.seconds.size());
    for (double s : e.seconds) pe.costs.push_back(ps(s));
    p.edges.push_back(std::move(pe));
  }
  p.usage_limit = memory_limit;
  return p;
}

double StrategySpace::SecondsOf(const std::vector<int64_t>& choice) const {
  double t = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Strategy& s = nodes[i].strategies[choice[i]];
    t += s.compute_seconds + s.communication_seconds;
  }
  for (const StrategyEdge& e : edges)
    t += e.seconds[choice[e.producer] * nodes[e.consumer].strategies.size() + choice[e.consumer]];
  return t;
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

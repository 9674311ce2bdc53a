#include "auto/strategy_space.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "auto/carried_state.h"
#include "auto/control_flow.h"
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

  StrategySpace space;
  CostOptions cost_options;
  // (instruction, leaf) -> node: leaf -1 for kNode values, the leaf for kLeafNodes ones.
  absl::flat_hash_map<std::pair<const Instruction*, int64_t>, int> node_of;
  // Per (instruction, leaf): the splits a kept output sharding wants of it (the root's, when it is
  // a constraint): its strategies pay the resharding into each.
  absl::flat_hash_map<std::pair<const Instruction*, int64_t>, std::vector<AxisMasks>> output_want;
  // Repeated layers: per entry instruction, the key its node shares a strategy list by, the key it
  // is tied by (none: its own decision) and its tied copy; the first node of each key.
  struct LayerKey {
    std::string share, tie;
    int copy = -1;
  };
  absl::flat_hash_map<const Instruction*, LayerKey> layer_key;
  absl::flat_hash_map<std::string, int> shared_list, tied_var;
  // Edge matrices by (producer list, consumer list, operand, bytes, executions).
  absl::flat_hash_map<std::tuple<const void*, const void*, int64_t, int64_t, int64_t>,
                      std::shared_ptr<const std::vector<double>>>
      matrices;

  Builder(const Module& m, const StrategySpaceOptions& o)
      : module(m), options(o), mesh(o.mesh), hw(*o.hardware), coll(o.mesh, *o.hardware), space(o.mesh) {}

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

  // A strategy whose operand splits come from propagation's backward rules (a tuple-valued op:
  // every leaf split as `out`).
  Strategy FromRules(const Instruction& instr, const OpCost& c, const AxisMasks& out) {
    const Sharding result = Sharding::Single(instr.shape(), ShardingFromMasks(mesh, out));
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
  // single-input reduces with partial strategies, and such adds themselves, in chains);
  // `sums_[add]`: the add can sum two pending partial sums.
  absl::flat_hash_map<const Instruction*, bool> pending_, sums_;

  static bool Lookup(const absl::flat_hash_map<const Instruction*, bool>& map, const Instruction* i) {
    auto it = map.find(i);
    return it != map.end() && it->second;
  }

  void FindPendingPartials(const ProgramFlow& flow) {
    auto feeds_add = [](const Instruction& i) {
      return i.user_count() == 1 && !i.IsRoot() && i.users()[0]->opcode() == Opcode::kAdd &&
             i.users()[0]->shape() == i.shape();
    };
    // The schedule is in post order: an add's operands are decided before it.
    for (const PlannedInstruction& pi : flow.schedule()) {
      const Instruction* i = pi.instr;
      if (pi.role != FlowRole::kNode || !i->shape().IsArray()) continue;
      const Opcode op = i->opcode();
      if (op == Opcode::kDot || op == Opcode::kConvolution || (op == Opcode::kReduce && i->operand_count() == 2)) {
        pending_[i] = feeds_add(*i);
      } else if (op == Opcode::kAdd && i->operand_count() == 2) {
        const bool sums = i->operand(0) != i->operand(1) && Lookup(pending_, i->operand(0)) &&
                          Lookup(pending_, i->operand(1));
        sums_[i] = sums;
        pending_[i] = sums && feeds_add(*i);
      }
    }
  }

  // The strategies with a partial sum, again, leaving it pending (no all-reduce of their own).
  void AddPendingVariants(const Instruction& instr, std::vector<Strategy>& strategies) {
    if (!Lookup(pending_, &instr)) return;
    const size_t n = strategies.size();
    for (size_t s = 0; s < n; ++s) {
      if (!strategies[s].partial_axes) continue;
      Strategy v = strategies[s];
      v.pending_axes = v.partial_axes;
      v.communication_seconds = 0;
      strategies.push_back(std::move(v));
    }
  }

  // An add of two pending partial sums (sums_): for every split of the result and every set of
  // axes the sums are partial over, the add sums them and all-reduces the sum once, or (when it
  // may itself stay pending) leaves it pending for the next add.
  void AddSummingStrategies(const Instruction& add, const OpCost& c, std::vector<Strategy>& strategies) {
    if (!Lookup(sums_, &add)) return;
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
        if (Lookup(pending_, &add)) {
          st.pending_axes = p;
          st.communication_seconds = 0;
          strategies.push_back(std::move(st));
        }
      }
    }
  }

  // A reduce's strategies: every split of its input dims; a split reduced dim leaves a partial
  // result, combined across those axes: an all-reduce for one input, for a variadic reduce
  // (argmax: values and indices) an all-gather of the partial results that are then reduced
  // again (the partitioner's ReduceThenCombine). Every input needs the split, every init value is
  // a scalar.
  std::vector<Strategy> ReduceStrategies(const Instruction& reduce, const OpCost& c) {
    const int64_t inputs = reduce.operand_count() / 2;
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
      std::vector<AxisMasks> operands(static_cast<size_t>(inputs), m);
      operands.resize(static_cast<size_t>(2 * inputs), AxisMasks{});
      Strategy st = Finish(reduce, c, std::move(res), partial, std::move(operands));
      if (partial && inputs > 1) st.communication_seconds = coll.Seconds(Opcode::kAllGather, partial, st.bytes);
      out.push_back(std::move(st));
    }
    return out;
  }

  // A tuple-valued sort or topk: its leaves share one split (control_flow.h), the operands' come
  // from the rule table given that split on every leaf. The sorted dim (topk: the last) stays
  // whole: the partitioner would move a split of it elsewhere and back, or gather candidates,
  // which the space does not price.
  std::vector<Strategy> SharedSplitStrategies(const Instruction& instr, const OpCost& c) {
    const Shape& leaf = instr.shape().tuple_shape(0);
    const int64_t whole = instr.opcode() == Opcode::kTopK || instr.IsCustomCall("TopK") ? leaf.rank() - 1
                          : instr.dimensions().empty()   ? 0
                                                          : instr.dimensions()[0];
    std::vector<int64_t> sizes(leaf.dims().begin(), leaf.dims().end());
    std::vector<Strategy> out;
    for (const AxisMasks& m : EnumerateMasks(mesh, sizes))
      if (whole < 0 || whole >= leaf.rank() || m[whole] == 0) out.push_back(FromRules(instr, c, m));
    return out;
  }

  // The node of the value that decides `origin` (-1: none).
  int NodeOf(const std::optional<ValueLeaf>& origin) const {
    if (!origin) return -1;
    auto it = node_of.find({origin->instr, origin->leaf});
    return it == node_of.end() ? -1 : it->second;
  }

  // `sharding`'s masks for `instr` (leaf `leaf` of a tuple sharding; -1: the array, or a
  // tuple-valued op's leaves, which must agree). A sharding the mesh cannot express: bad input,
  // or unsupported on a manual region's boundary (a region manual over part of an axis, ...).
  StatusOr<AxisMasks> WantedMasks(const Instruction& instr, int64_t leaf, bool boundary) {
    const Sharding& all = *instr.sharding();
    const Shape& shape = LeafShape(instr.shape(), leaf);
    std::optional<AxisMasks> masks;
    if (!all.IsTuple()) {
      masks = MasksFromSharding(mesh, all, shape.rank());
    } else if (leaf >= 0) {
      if (leaf < static_cast<int64_t>(all.tuple_elements().size()))
        masks = MasksFromSharding(mesh, all.tuple_elements()[leaf], shape.rank());
    } else if (!all.tuple_elements().empty()) {
      masks = MasksFromSharding(mesh, all.tuple_elements()[0], instr.shape().tuple_shape(0).rank());
      for (const Sharding& e : all.tuple_elements())
        if (masks && MasksFromSharding(mesh, e, instr.shape().tuple_shape(0).rank()) != masks) masks.reset();
    }
    if (masks) return *masks;
    const std::string where = module.SourceLocationOf(instr);
    // A sharding over another number of devices than the mesh's is bad input wherever it is.
    bool devices_match = true;
    for (const Sharding& e : all.IsTuple() ? all.tuple_elements() : std::vector<Sharding>{all})
      if (e.IsTiled() && e.tile_assignment().num_elements() != mesh.num_devices()) devices_match = false;
    if (boundary && devices_match)
      return Unimplemented("spmdc auto: {}%{} is a boundary of a manual region (shard_map) with sharding {}, which "
                           "is not a slicing of the mesh {}: regions manual over part of a mesh axis (or over "
                           "devices in another order) are not supported by the strategy search",
                           where.empty() ? "" : where + ": ", instr.name(), all.ToString(false), mesh.ToString());
    return InvalidArgument("{}%{} has sharding {}, which is not a slicing of the mesh {} (pass "
                           "--ignore-annotations to drop the module's shardings)",
                           where.empty() ? "" : where + ": ", instr.name(), all.ToString(false), mesh.ToString());
  }

  // A node for `pi`'s value (its role is kNode).
  Status AddNode(const PlannedInstruction& pi, const ProgramFlow& flow) {
    const Instruction& instr = *pi.instr;
    StrategyNode node;
    node.instr = &instr;
    node.executions = pi.executions;
    const OpCost c = CostOfInstruction(instr, cost_options);
    // Region boundaries keep their shardings whatever the options say: the region's code was
    // written for them.
    const bool boundary = flow.IsRegionBoundary(&instr);
    std::optional<AxisMasks> wanted;
    if ((options.keep_annotations || boundary) && instr.has_sharding()) {
      ASSIGN_OR_RETURN(wanted, WantedMasks(instr, -1, boundary));
      node.annotated = true;
    }
    const int index = static_cast<int>(space.nodes.size());
    auto key = layer_key.find(&instr);
    auto shared = key == layer_key.end() ? shared_list.end() : shared_list.find(key->second.share);
    if (shared != shared_list.end()) {
      node.strategies = space.nodes[shared->second].strategies;
    } else {
      std::vector<Strategy> strategies;
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
        strategies = DotStrategies(instr, c, *dd);
      } else if (instr.opcode() == Opcode::kReduce && instr.operand(0)->shape().IsArray()) {
        strategies = ReduceStrategies(instr, c);
      } else if (instr.shape().IsTuple()) {
        strategies = SharedSplitStrategies(instr, c);
      } else {
        std::vector<int64_t> sizes(instr.shape().dims().begin(), instr.shape().dims().end());
        for (const AxisMasks& m : EnumerateMasks(mesh, sizes)) strategies.push_back(FromRules(instr, c, m));
      }
      AddPendingVariants(instr, strategies);
      if (instr.opcode() == Opcode::kAdd) AddSummingStrategies(instr, c, strategies);
      if (wanted) {
        std::vector<Strategy> kept;
        for (Strategy& s : strategies)
          if (s.output == *wanted) kept.push_back(std::move(s));
        if (kept.empty()) kept.push_back(FromRules(instr, c, *wanted));
        strategies = std::move(kept);
      }
      for (Strategy& s : strategies) {
        s.compute_seconds *= static_cast<double>(pi.executions);
        s.communication_seconds *= static_cast<double>(pi.executions);
      }
      PayOutputWants(instr, -1, instr.shape(), strategies);
      node.strategies = StrategyList(std::move(strategies));
      if (key != layer_key.end()) shared_list.emplace(key->second.share, index);
    }
    node.lower = instr.opcode() == Opcode::kParameter ? 0 : pi.point;
    node.upper = pi.point + 1;
    node_of[{&instr, -1}] = index;
    space.nodes.push_back(std::move(node));
    Decide(key == layer_key.end() ? nullptr : &key->second);
    return absl::OkStatus();
  }

  // The resharding of a kept output sharding, paid by every strategy of (instr, leaf).
  void PayOutputWants(const Instruction& instr, int64_t leaf, const Shape& shape, std::vector<Strategy>& strategies) {
    auto it = output_want.find({&instr, leaf});
    if (it == output_want.end()) return;
    for (const AxisMasks& want : it->second)
      for (Strategy& st : strategies)
        st.communication_seconds += ReshardSeconds(mesh, hw, coll, shape.byte_size(), st.output, want);
  }

  // The decision variable of the node just added: a tied key's, or its own.
  void Decide(const LayerKey* key) {
    Ties& t = space.ties;
    const int index = static_cast<int>(space.nodes.size()) - 1;
    int var = t.num_vars;
    if (key && !key->tie.empty()) var = tied_var.try_emplace(key->tie, var).first->second;
    if (var == t.num_vars) {
      ++t.num_vars;
      t.first.push_back(index);
      t.count.push_back(0);
    }
    ++t.count[var];
    t.var_of.push_back(var);
    t.copy.push_back(key && !key->tie.empty() ? key->copy : -1);
  }

  // Repeated layers: the keys of the entry's instructions (the header). Nodes at one position of
  // the layers of one class share a list; those of the class's layers but its first and last
  // `untie_boundary` ones also a decision. What can make otherwise identical nodes differ is in
  // the key: a sharding (kept, or a region boundary's), the splits kept outputs want, and the
  // all-reduce reassociation's marks.
  void LayerKeys() {
    if (!options.tie_layers) return;
    // A module without a layer structure (no single-value cut) simply has nothing to share.
    StatusOr<LayerClustering> layers = ClusterLayers(module);
    if (!layers.ok()) return;
    space.ties.layers = layers->num_layers;
    space.ties.classes = layers->num_classes;
    std::vector<std::vector<int>> of_class(layers->num_classes);
    for (int l = 0; l < layers->num_layers; ++l) of_class[layers->tie_class[l]].push_back(l);
    const int b = std::max(0, options.untie_boundary);
    for (int c = 0; c < layers->num_classes; ++c) {
      const std::vector<int>& ls = of_class[c];
      const int count = static_cast<int>(ls.size());
      if (count < 2) continue;
      const size_t size = layers->tie_members[ls.front()].size();
      const bool tie = count - 2 * b >= 2;
      for (int r = 0; r < count; ++r) {
        const std::vector<int>& members = layers->tie_members[ls[r]];
        if (members.size() != size) continue;  // cannot happen for one signature; then share nothing
        const bool tied = tie && r >= b && r < count - b;
        if (tied && r > b) ++space.ties.tied_layers;
        for (size_t pos = 0; pos < size; ++pos) {
          const Instruction* instr = layers->schedule[members[pos]];
          std::string extra;
          if (instr->has_sharding()) extra += instr->sharding()->ToString(false);
          // A layer's last value may feed another op in the next class than in its own (all-reduce
          // reassociation: whether a partial sum may stay pending, whether an add sums two).
          if (Lookup(pending_, instr)) extra += " pending";
          if (Lookup(sums_, instr)) extra += " sums";
          if (auto it = output_want.find({instr, -1}); it != output_want.end())
            for (const AxisMasks& m : it->second) extra += " out " + MasksToString(mesh, m);
          LayerKey& key = layer_key[instr];
          key.share = fmt::format("{}:{}:{}", c, pos, extra);
          if (tied) key.tie = key.share, key.copy = r - b;
        }
      }
    }
  }

  // A node for leaf `leaf` of `pi`'s value (its role is kLeafNodes): every split of the leaf,
  // no work of its own; what it is resharded from are edges (ProgramFlow::LeafInputs).
  Status AddLeafNode(const PlannedInstruction& pi, int64_t leaf, const ProgramFlow& flow) {
    const Instruction& instr = *pi.instr;
    const Shape& shape = LeafShape(instr.shape(), instr.shape().IsTuple() ? leaf : -1);
    StrategyNode node;
    node.instr = &instr;
    node.leaf = leaf;
    node.executions = pi.executions;
    std::optional<AxisMasks> wanted;
    if ((options.keep_annotations || flow.IsRegionBoundary(&instr)) && instr.has_sharding()) {
      ASSIGN_OR_RETURN(wanted, WantedMasks(instr, instr.shape().IsTuple() ? leaf : -1, false));
      node.annotated = true;
    }
    // An rng-bit-generator's state is replicated (as propagation keeps it; the next call reads it whole).
    if (instr.opcode() == Opcode::kRngBitGenerator && leaf == 0) wanted = Replicated(shape.rank());
    std::vector<int64_t> sizes(shape.dims().begin(), shape.dims().end());
    std::vector<Strategy> strategies;
    for (const AxisMasks& m : EnumerateMasks(mesh, sizes)) {
      if (wanted && m != *wanted) continue;
      Strategy st;
      st.bytes = shape.byte_size() / DevicesOf(mesh, UnionOf(m));
      st.output = m;
      strategies.push_back(std::move(st));
    }
    if (strategies.empty()) {  // an annotation whose product does not divide the dims
      Strategy st;
      st.bytes = shape.byte_size() / DevicesOf(mesh, UnionOf(*wanted));
      st.output = *wanted;
      strategies.push_back(std::move(st));
    }
    PayOutputWants(instr, leaf, shape, strategies);
    node.strategies = StrategyList(std::move(strategies));
    const bool parameter = instr.opcode() == Opcode::kParameter;
    node.lower = parameter ? 0 : pi.point;
    node.upper = pi.point + 1;
    node_of[{&instr, leaf}] = static_cast<int>(space.nodes.size());
    space.nodes.push_back(std::move(node));
    Decide(nullptr);
    return absl::OkStatus();
  }

  // A node for a manual region's array value: its one strategy holds its (local) bytes.
  void AddManualNode(const PlannedInstruction& pi) {
    const Instruction& instr = *pi.instr;
    StrategyNode node;
    node.instr = &instr;
    node.manual = true;
    node.executions = pi.executions;
    Strategy st;
    st.output = Replicated(instr.shape().rank());
    st.bytes = instr.shape().byte_size();
    node.strategies = StrategyList({std::move(st)});
    node.lower = pi.point;
    node.upper = pi.point + 1;
    node_of[{&instr, -1}] = static_cast<int>(space.nodes.size());
    space.nodes.push_back(std::move(node));
    Decide(nullptr);
  }

  // Adds the edge producer -> consumer: consumer strategy t needs `needs[t]` of the producer's
  // value (of `bytes`), `executions` times per step, arriving a partial sum pending over
  // `pending[t]` (none: reduced). A pending partial sum meets only an add that sums it, split
  // alike: every other entry is infinite (forbidden).
  // One matrix per (producer list, consumer list, operand, bytes, executions): identical nodes of
  // repeated layers share it (the consumer's list decides `needs` and `pending`). An edge whose
  // matrix is zero is left out.
  void AddEdge(int producer, int consumer, int64_t operand, const std::vector<const AxisMasks*>& needs,
               int64_t bytes, int64_t executions, const std::vector<uint32_t>* pending = nullptr) {
    const StrategyNode& p = space.nodes[producer];
    auto [mit, fresh] = matrices.try_emplace(
        std::make_tuple(p.strategies.id(), space.nodes[consumer].strategies.id(), operand, bytes, executions));
    if (fresh) {
      const size_t S = p.strategies.size(), T = needs.size();
      auto m = std::make_shared<std::vector<double>>(S * T, 0.0);
      std::map<std::pair<AxisMasks, uint32_t>, std::vector<double>> column_of;
      bool all_zero = true;
      for (size_t t = 0; t < T; ++t) {
        const uint32_t need_pending = pending ? (*pending)[t] : 0;
        auto [cit, new_column] = column_of.try_emplace(std::make_pair(*needs[t], need_pending));
        if (new_column) {
          cit->second.resize(S);
          for (size_t s = 0; s < S; ++s) {
            const Strategy& ps = p.strategies[s];
            if (ps.pending_axes != need_pending || (need_pending && ps.output != *needs[t])) {
              cit->second[s] = std::numeric_limits<double>::infinity();
            } else {
              cit->second[s] =
                  static_cast<double>(executions) * ReshardSeconds(mesh, hw, coll, bytes, ps.output, *needs[t]);
            }
          }
        }
        for (size_t s = 0; s < S; ++s) {
          (*m)[s * T + t] = cit->second[s];
          if (cit->second[s] != 0) all_zero = false;
        }
      }
      if (!all_zero) mit->second = std::move(m);
    }
    if (!mit->second) return;
    StrategyEdge e;
    e.producer = producer;
    e.consumer = consumer;
    e.operand = operand;
    e.seconds = mit->second;
    space.edges.push_back(std::move(e));
  }

  StatusOr<StrategySpace> Build() {
    space.memory_limit = options.memory_limit;
    if (mesh.num_axes() > 16) return InvalidArgument("--mesh: at most 16 axes");
    const Computation& entry = *module.entry();
    ASSIGN_OR_RETURN(ProgramFlow flow, ProgramFlow::Analyze(module, options.keep_annotations));
    const int64_t n = flow.num_points();
    space.num_points = n;
    space.notes = flow.notes();
    FindPendingPartials(flow);
    cost_options.partitioned = true;
    cost_options.num_partitions = 1;
    // When the root has a sharding (kept as a constraint), the outputs come out as it says:
    // each output's strategy pays its resharding into that. Otherwise the outputs' shardings are
    // part of the plan (a jitted step with out_shardings chosen by the compiler).
    const Instruction& root = *entry.root();
    const PlannedInstruction* root_flow = flow.Find(&root);
    const bool root_constraint =
        root_flow && root_flow->role == FlowRole::kAlias && options.keep_annotations && root.has_sharding();
    if (root_constraint) {
      const Sharding& rs = *root.sharding();
      for (int64_t l = 0; l < root.shape().leaf_count(); ++l) {
        const std::optional<ValueLeaf> origin = flow.Origin(&root, root.shape().IsTuple() ? l : -1);
        if (!origin) continue;
        const Shape& shape = LeafShape(root.shape(), root.shape().IsTuple() ? l : -1);
        AxisMasks want = Replicated(shape.rank());
        const Sharding leaf =
            rs.IsTuple() && l < static_cast<int64_t>(rs.tuple_elements().size()) ? rs.tuple_elements()[l] : rs;
        if (std::optional<AxisMasks> m = MasksFromSharding(mesh, leaf, shape.rank())) want = *m;
        output_want[{origin->instr, origin->leaf}].push_back(std::move(want));
      }
    }
    LayerKeys();
    for (const PlannedInstruction& pi : flow.schedule()) {
      switch (pi.role) {
        case FlowRole::kAlias:
        case FlowRole::kNone:
          break;
        case FlowRole::kManual:
          if (pi.instr->shape().IsArray()) AddManualNode(pi);
          break;
        case FlowRole::kLeafNodes: {
          const Shape& shape = pi.instr->shape();
          const int64_t leaves = shape.IsTuple() ? shape.leaf_count() : 1;
          for (int64_t l = 0; l < leaves; ++l)
            if (LeafShape(shape, shape.IsTuple() ? l : -1).IsArray()) RETURN_IF_ERROR(AddLeafNode(pi, l, flow));
          break;
        }
        case FlowRole::kNode:
          RETURN_IF_ERROR(AddNode(pi, flow));
          break;
      }
    }
    // Liveness: a value lives from its definition to its last use by an instruction that reads
    // it (aliases pass it on; their readers count); loop state from the while (before its body)
    // to its last reader, so through the body; a body root's leaves until the root; parameters
    // and the entry's outputs throughout.
    auto use = [&](const std::optional<ValueLeaf>& origin, int64_t point) {
      const int node = NodeOf(origin);
      if (node >= 0) space.nodes[node].upper = std::max(space.nodes[node].upper, point + 1);
    };
    auto use_all_leaves = [&](const Instruction* value, int64_t point) {
      if (!value->shape().IsTuple()) return use(flow.Origin(value, -1), point);
      for (int64_t l = 0; l < value->shape().leaf_count(); ++l) use(flow.Origin(value, l), point);
    };
    for (const PlannedInstruction& pi : flow.schedule()) {
      const Instruction* instr = pi.instr;
      if (pi.role == FlowRole::kAlias) {
        // A loop body's or branch's root is read by the loop state / the conditional's result.
        if (instr->IsRoot() && instr->parent() != &entry) use_all_leaves(instr, pi.point);
        continue;
      }
      if (pi.role == FlowRole::kLeafNodes) {
        if (instr->opcode() == Opcode::kWhile || instr->opcode() == Opcode::kConditional) {
          for (const Instruction* op : instr->operands()) use_all_leaves(op, pi.point);
        } else if (instr->opcode() != Opcode::kParameter) {
          const int64_t leaves = instr->shape().IsTuple() ? instr->shape().leaf_count() : 1;
          for (int64_t l = 0; l < leaves; ++l)
            for (const auto& [from, executions] : flow.LeafInputs(instr, l)) use(from, pi.point);
        }
        continue;
      }
      for (const Instruction* op : instr->operands()) use_all_leaves(op, pi.point);
    }
    use_all_leaves(entry.root(), n - 1);
    for (StrategyNode& node : space.nodes)
      if (node.instr->opcode() == Opcode::kParameter && node.instr->parent() == &entry) node.upper = n;
    // Edges: producer strategy s -> the split consumer strategy t needs for that operand (a
    // kLeafNodes node needs its own split of what it is resharded from).
    for (int j = 0; j < static_cast<int>(space.nodes.size()); ++j) {
      StrategyNode& consumer = space.nodes[j];
      if (consumer.manual) continue;
      const Instruction* instr = consumer.instr;
      std::vector<const AxisMasks*> needs;
      if (consumer.leaf >= 0) {
        for (const Strategy& t : consumer.strategies) needs.push_back(&t.output);
        const int64_t bytes = LeafShape(instr->shape(), instr->shape().IsTuple() ? consumer.leaf : -1).byte_size();
        for (const auto& [from, executions] : flow.LeafInputs(instr, consumer.leaf)) {
          const int producer = NodeOf(from);
          if (producer < 0 || producer == j || space.nodes[producer].manual) continue;
          AddEdge(producer, j, -1, needs, bytes, executions);
        }
        continue;
      }
      consumer.operand_nodes.assign(instr->operand_count(), -1);
      for (int64_t k = 0; k < instr->operand_count(); ++k) {
        const Instruction* op = instr->operand(k);
        if (!op->shape().IsArray()) continue;
        const int producer = NodeOf(flow.Origin(op, -1));
        if (producer < 0 || space.nodes[producer].manual) continue;
        space.nodes[j].operand_nodes[k] = producer;
        needs.clear();
        std::vector<uint32_t> pending;
        for (const Strategy& t : space.nodes[j].strategies) {
          needs.push_back(&t.operands[k]);
          pending.push_back(k < static_cast<int64_t>(t.operand_pending.size()) ? t.operand_pending[k] : 0);
        }
        AddEdge(producer, j, k, needs, op->shape().byte_size(), space.nodes[j].executions, &pending);
      }
    }
    // The state the step hands the next one (carried_state.h): the next step reshards each
    // carried output into its parameter's split before it runs, once per step: an edge from the
    // output's node to the parameter's. Not when the root's sharding fixes the outputs: then the
    // parameters' splits pay their way from it (above) in the next step's own plan.
    if (!root_constraint && options.carried_state) {
      for (const CarriedValue& c : FindCarriedValues(module)) {
        const Instruction* param = nullptr;
        for (const Instruction* p : entry.parameters())
          if (p->parameter_number() == c.parameter) param = p;
        if (!param || (c.output >= 0) != root.shape().IsTuple()) continue;
        const int from = NodeOf(flow.Origin(&root, c.output));
        const int to = NodeOf(flow.Origin(param, -1));
        if (from < 0 || to < 0 || from == to || space.nodes[from].manual || space.nodes[to].manual) continue;
        std::vector<const AxisMasks*> needs;
        for (const Strategy& t : space.nodes[to].strategies) needs.push_back(&t.output);
        const size_t before = space.edges.size();
        AddEdge(from, to, -1, needs, param->shape().byte_size(), 1);
        if (space.edges.size() > before) space.edges.back().carried = true;
      }
    }
    // What the plan writes: every planned instruction's leaves (the root's own sharding when it
    // is the output constraint above).
    for (const PlannedInstruction& pi : flow.schedule()) {
      const Instruction* instr = pi.instr;
      if (pi.role == FlowRole::kManual || pi.role == FlowRole::kNone) continue;
      if (instr == &root && root_constraint) continue;
      SpaceValue v;
      v.instr = instr;
      const int64_t leaves = instr->shape().IsTuple() ? instr->shape().leaf_count() : 1;
      for (int64_t l = 0; l < leaves; ++l) {
        const int64_t leaf = instr->shape().IsTuple() ? l : -1;
        v.leaf_nodes.push_back(pi.role == FlowRole::kNode ? NodeOf(ValueLeaf{instr, -1})
                                                          : NodeOf(flow.Origin(instr, leaf)));
      }
      space.values.push_back(std::move(v));
    }
    int64_t entries = 0;
    for (const StrategyEdge& e : space.edges) entries += static_cast<int64_t>(e.seconds->size());
    if (entries <= options.tie_min_entries) space.ties.Untie();
    return std::move(space);
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
  if (std::isinf(seconds)) return kForbiddenCost;
  return static_cast<Cost>(std::min(std::round(seconds * kPicoseconds), kCostCap));
}

Cost RepeatedCost(int64_t count, Cost ps) {
  if (IsForbidden(ps)) return kForbiddenCost;
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
        pn.costs[s] = AddSpaceCost(pn.costs[s], RepeatedCost(count, PicosecondsOf(m[s * k + s])));
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

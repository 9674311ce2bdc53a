#include "auto/tactic_search.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "auto/control_flow.h"
#include "fmt/format.h"
#include "propagation/dot_dims.h"
#include "propagation/propagation.h"

namespace spmdc::autoshard {
namespace {

constexpr uint64_t kSeed = 1;
// UCT's exploration constant for rewards in [0, 1].
constexpr double kExploration = 0.7;
// States the full cost model prices per round: the best by estimate, distinct in the strategies
// they read as.
constexpr int kPricedPerRound = 6;
// Rounds with a tightened space limit when the full model finds every priced state over it.
constexpr int kMemoryRounds = 4;
// The default work limit (states evaluated): per tactic available at the root, within bounds.
constexpr int64_t kStatesPerTactic = 20;
constexpr int64_t kMinimumStates = 300;
constexpr int64_t kMaximumStates = 4000;
constexpr int kStop = -1;
// A tactic's text names this many of the other parameters it splits.
constexpr size_t kNamedAlike = 5;
// How steeply the search's objective rises over the memory limit (SoftCost).
constexpr double kOverLimitPower = 4;
// A rollout draws at most kRolloutTactics tactics and ends after kRolloutPatience draws in a row
// that do not improve its state.
constexpr int kRolloutTactics = 24;
constexpr int kRolloutPatience = 3;
// The smallest prior weight of a tactic (1 = no better than the empty state).
constexpr double kMinimumPrior = 0.05;
// Groups under 1/kSmallGroup of the largest one's bytes are left to propagation.
constexpr int64_t kSmallGroup = 32;

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

int64_t DevicesOf(const Mesh& mesh, uint32_t mask) {
  int64_t n = 1;
  for (int a = 0; a < mesh.num_axes(); ++a)
    if (mask & (1u << a)) n *= mesh.axes()[a].size;
  return n;
}

// Parameters sharded by one decision: equal dims, joined by elementwise data flow; with the
// entry's outputs of those dims they flow into (a weight's update comes out as the weight is).
struct Group {
  std::vector<const Instruction*> params;  // in parameter order; the first names the group
  std::vector<int64_t> outputs;            // root tuple operand indices
  std::vector<int64_t> dims;
  int64_t bytes = 0;                       // all members together
};

struct Tactic {
  int group = 0, dim = 0, axis = 0;
};

// A state's evaluation: propagation, then the strategy space's price of what it propagated to.
struct Evaluation {
  double seconds = 0;
  int64_t peak = 0;
  uint64_t fingerprint = 0;      // of the strategies read (states reading alike price alike)
  // Per group, the axes propagation put on each dim of all its parameters (empty: unknown).
  std::vector<AxisMasks> group_masks;
};

struct TreeNode {
  std::vector<int> state;        // tactic ids, ascending
  std::vector<int> untried;      // tactic ids or kStop, expanded from the back
  std::vector<int> children;     // tree node indices
  int64_t visits = 0;
  double reward = 0;             // sum over visits
  bool stop = false;             // the leaf that ends the plan at `state`
  bool exhausted = false;        // every state below has been visited
};

class TacticSearch {
 public:
  TacticSearch(const Module& module, const PlanOptions& options, const StrategySpace& space, int64_t memory_limit)
      : options_(options), mesh_(options.mesh), space_(space), memory_limit_(memory_limit), rng_(kSeed) {
    base_ = module.Clone();
    base_->set_num_partitions(mesh_.num_devices());
    // Without annotations, as the strategy space reads the module then: manual regions keep
    // theirs, and a Sharding constraint outside them (which needs one) becomes unknown, which
    // propagation refines as it would an unannotated value.
    if (!options.keep_annotations) {
      DropAnnotations(*base_);
      for (Computation* c : base_->computations()) {
        for (Instruction* i : c->instructions()) {
          const bool enters_region = std::any_of(i->users().begin(), i->users().end(), [](const Instruction* u) {
            return u->IsCustomCall("SPMDFullToShardShape");
          });
          if (i->IsCustomCall("Sharding") && !HasManualSharding(*i) && !enters_region)
            i->set_sharding(std::make_shared<const Sharding>(Sharding::Unknown()));
        }
      }
    }
    by_output_.resize(space_.nodes.size());
    for (size_t j = 0; j < space_.nodes.size(); ++j)
      for (size_t t = 0; t < space_.nodes[j].strategies.size(); ++t)
        by_output_[j][space_.nodes[j].strategies[t].output].push_back(static_cast<int>(t));
    in_edges_.resize(space_.nodes.size());
    for (int e = 0; e < static_cast<int>(space_.edges.size()); ++e) in_edges_[space_.edges[e].consumer].push_back(e);
    BuildGroups();
    for (int g = 0; g < static_cast<int>(groups_.size()); ++g)
      for (int d = 0; d < static_cast<int>(groups_[g].dims.size()); ++d)
        for (int a = 0; a < mesh_.num_axes(); ++a)
          if (mesh_.axes()[a].size > 1 && groups_[g].dims[d] % mesh_.axes()[a].size == 0)
            tactics_.push_back({g, d, a});
  }

  Status Run(AutoResult& out) {
    const auto start = std::chrono::steady_clock::now();
    deadline_ = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(options_.time_limit_s));
    const int64_t work = options_.work_limit > 0
                             ? options_.work_limit
                             : std::clamp(kStatesPerTactic * static_cast<int64_t>(tactics_.size()), kMinimumStates,
                                          kMaximumStates);
    const int64_t smallest = space_.SmallestPeakBytes();
    TacticSearchStats stats;
    int64_t limit = memory_limit_;
    std::optional<PricedPlan> best;
    std::vector<int> best_state;
    double best_estimate = 0;
    std::optional<Status> first_error;
    for (int round = 0; round < kMemoryRounds; ++round) {
      ++stats.rounds;
      RETURN_IF_ERROR(Search(limit, states_ + work, stats));
      // The best states by the search's objective, distinct in what they read as.
      std::vector<const std::pair<const std::vector<int>, Evaluation>*> ranked;
      for (const auto& entry : cache_) ranked.push_back(&entry);
      std::stable_sort(ranked.begin(), ranked.end(),
                       [&](const auto* a, const auto* b) { return SoftCost(a->second) < SoftCost(b->second); });
      int priced = 0;
      int64_t smallest_full_peak = 0;
      for (const auto* entry : ranked) {
        if (priced == kPricedPerRound) break;
        if (!priced_.insert(entry->second.fingerprint).second) continue;
        ++priced;
        ++stats.priced;
        ASSIGN_OR_RETURN(std::unique_ptr<Module> m, Annotated(entry->first));
        StatusOr<PricedPlan> p = PricePlan(std::move(m), mesh_, *options_.hardware, memory_limit_, nullptr,
                                         options_.carried_state);
        if (!p.ok()) {  // a plan the partitioner cannot take is no candidate
          if (!first_error) first_error = p.status();
          continue;
        }
        smallest_full_peak = smallest_full_peak == 0 ? p->peak_bytes : std::min(smallest_full_peak, p->peak_bytes);
        const bool better = !best || (p->fits && !best->fits) ||
                            (p->fits == best->fits &&
                             (p->fits ? p->step_seconds < best->step_seconds : p->peak_bytes < best->peak_bytes));
        if (better) {
          best = std::move(*p);
          best_state = entry->first;
          best_estimate = entry->second.seconds;
        }
      }
      if ((best && best->fits) || smallest_full_peak == 0) break;
      // Tighten the space's limit by the full model's excess, as PlanAuto does for the ILP.
      const int64_t next = static_cast<int64_t>(static_cast<double>(limit) *
                                                (static_cast<double>(memory_limit_) / smallest_full_peak) * 0.99);
      if (next >= limit || next < smallest) break;
      limit = next;
    }
    if (!best) return first_error ? *first_error : Internal("tactic search: no state was priced");
    // Rollouts keep any tactic that helped when drawn, including ones a later tactic made moot:
    // drop each tactic whose removal does not raise the estimate, and keep the simpler plan if
    // the full model finds it no worse. (The explanation should name only tactics that matter.)
    std::vector<int> simple = best_state;
    for (size_t i = 0; i < simple.size();) {
      std::vector<int> fewer = simple;
      fewer.erase(fewer.begin() + static_cast<std::ptrdiff_t>(i));
      ASSIGN_OR_RETURN(const Evaluation* with, Evaluate(simple));
      ASSIGN_OR_RETURN(const Evaluation* without, Evaluate(fewer));
      if (SoftCost(*without) <= SoftCost(*with)) {
        simple = std::move(fewer);
      } else {
        ++i;
      }
    }
    if (simple != best_state) {
      ++stats.priced;
      ASSIGN_OR_RETURN(std::unique_ptr<Module> m, Annotated(simple));
      StatusOr<PricedPlan> p = PricePlan(std::move(m), mesh_, *options_.hardware, memory_limit_, nullptr,
                                         options_.carried_state);
      if (p.ok() && (p->fits || !best->fits) &&
          (p->fits ? p->step_seconds <= best->step_seconds : p->peak_bytes <= best->peak_bytes)) {
        best = std::move(*p);
        best_state = std::move(simple);
        best_estimate = cache_.at(best_state).seconds;
      }
    }
    stats.states = states_;
    out.search = std::move(*best);
    out.search.model_seconds = best_estimate;
    out.search.name = "auto";
    out.search.description = "the tactic search's plan";
    out.tactics.clear();
    for (int id : best_state) out.tactics.push_back(TacticText(tactics_[id]));
    out.tactic_stats = stats;
    out.model_cost_seconds = best_estimate;
    out.lower_bound_seconds = 0;
    out.gap = 0;
    out.optimal = false;
    out.bound_method = "none: the tactic search proves no bound";
    out.search_seconds = Seconds(start);
    return absl::OkStatus();
  }

 private:
  // Union-find over the entry's values: an elementwise op joins its result with every operand
  // of the same dims (a weight, its gradient, optimizer state and update move together).
  void BuildGroups() {
    const Computation& entry = *base_->entry();
    const std::vector<Instruction*> order = entry.MakeInstructionPostOrder();
    absl::flat_hash_map<const Instruction*, int> index;
    for (int i = 0; i < static_cast<int>(order.size()); ++i) index[order[i]] = i;
    std::vector<int> parent(order.size());
    std::iota(parent.begin(), parent.end(), 0);
    auto find = [&](int x) {
      while (parent[x] != x) x = parent[x] = parent[parent[x]];
      return x;
    };
    for (const Instruction* instr : order) {
      if (!IsElementwiseOpcode(instr->opcode()) || !instr->shape().IsArray()) continue;
      for (const Instruction* op : instr->operands())
        if (op->shape().IsArray() && op->shape().dims() == instr->shape().dims())
          parent[find(index[op])] = find(index[instr]);
    }
    std::map<std::pair<int, std::vector<int64_t>>, int> group_of;
    const bool keep = options_.keep_annotations;
    for (const Instruction* p : entry.parameters()) {
      if (!p->shape().IsArray() || p->shape().rank() == 0 || (keep && p->has_sharding())) continue;
      auto [it, fresh] = group_of.try_emplace({find(index[p]), p->shape().dims()}, static_cast<int>(groups_.size()));
      if (fresh) groups_.push_back(Group{{}, {}, p->shape().dims(), 0});
      groups_[it->second].params.push_back(p);
      groups_[it->second].bytes += p->shape().byte_size();
    }
    // Outputs join their group unless the user fixed how they come out (a sharded root), and
    // only in a flat result tuple (one sharding per operand).
    const Instruction* root = entry.root();
    bool flat = root->opcode() == Opcode::kTuple && !(keep && root->has_sharding());
    for (const Instruction* op : root->operands()) flat = flat && op->shape().IsArray();
    if (flat) {
      for (int64_t k = 0; k < root->operand_count(); ++k) {
        const Instruction* op = root->operand(k);
        auto it = group_of.find({find(index[op]), op->shape().dims()});
        if (it != group_of.end()) groups_[it->second].outputs.push_back(k);
      }
    }
    // Groups of equal dims and role -- the same weight of repeated layers, a layer's q, k and v
    // projections -- are one decision too (Automap's grouping of repeated structure).
    std::map<std::pair<std::vector<int64_t>, std::vector<std::string>>, size_t> class_of;
    std::vector<Group> classes;
    for (Group& g : groups_) {
      auto [it, fresh] = class_of.try_emplace({g.dims, RoleOf(g)}, classes.size());
      if (fresh) {
        classes.push_back(std::move(g));
        continue;
      }
      Group& c = classes[it->second];
      c.params.insert(c.params.end(), g.params.begin(), g.params.end());
      c.outputs.insert(c.outputs.end(), g.outputs.begin(), g.outputs.end());
      c.bytes += g.bytes;
    }
    groups_ = std::move(classes);
    // Largest first: tactics are numbered in this order, so the tree decides the big tensors
    // near its root.
    std::stable_sort(groups_.begin(), groups_.end(), [](const Group& a, const Group& b) { return a.bytes > b.bytes; });
    // Small groups (biases, norm scales, labels) are no decisions: propagation splits them as
    // the values they meet are split, and their own splits barely move memory or time.
    if (!groups_.empty()) {
      const int64_t largest = groups_.front().bytes;
      std::erase_if(groups_, [&](const Group& g) { return g.bytes * kSmallGroup < largest; });
    }
  }

  // What a group's parameters are used for: per use, the user's opcode, the operand position,
  // the result's dims and, for a dot or convolution, which of the operand's dims it contracts.
  static std::vector<std::string> RoleOf(const Group& g) {
    std::vector<std::string> uses;
    for (const Instruction* p : g.params) {
      for (const Instruction* u : p->users()) {
        for (int64_t k = 0; k < u->operand_count(); ++k) {
          if (u->operand(k) != p) continue;
          std::vector<int64_t> contracted;
          if (std::optional<DotDims> dd = DotDimsOfDotFamily(*u))
            for (const DotDim& d : dd->contracting) contracted.push_back(k == 0 ? d.lhs : d.rhs);
          uses.push_back(fmt::format("{}/{}/{}/{}", OpcodeName(u->opcode()), k, fmt::join(u->shape().dims(), ","),
                                     fmt::join(contracted, ",")));
        }
      }
    }
    std::sort(uses.begin(), uses.end());
    uses.erase(std::unique(uses.begin(), uses.end()), uses.end());
    return uses;
  }

  std::string TacticText(const Tactic& t) const {
    const Group& g = groups_[t.group];
    std::string s = fmt::format("{}[{}] -> {}", g.params[0]->name(), t.dim, mesh_.axes()[t.axis].name);
    if (g.params.size() > 1) {
      std::vector<std::string> rest;
      for (size_t i = 1; i < g.params.size() && i <= kNamedAlike; ++i) rest.push_back(g.params[i]->name());
      const size_t more = g.params.size() - 1 - rest.size();
      s += fmt::format(" (with {}{})", fmt::join(rest, ", "), more ? fmt::format(" and {} more", more) : "");
    }
    return s;
  }

  // Per group, the split the state's tactics give it.
  std::vector<AxisMasks> MasksOf(const std::vector<int>& state) const {
    std::vector<AxisMasks> m(groups_.size());
    for (size_t g = 0; g < groups_.size(); ++g) m[g].assign(groups_[g].dims.size(), 0);
    for (int id : state) m[tactics_[id].group][tactics_[id].dim] |= 1u << tactics_[id].axis;
    return m;
  }

  // The tactics a state may add: an axis the group does not use yet, a split that still divides
  // the dim; in the tree, numbered above the state's own (`above_last`).
  std::vector<int> ValidTactics(const std::vector<int>& state, bool above_last = true) const {
    const std::vector<AxisMasks> masks = MasksOf(state);
    std::vector<int> out;
    for (int id = state.empty() || !above_last ? 0 : state.back() + 1; id < static_cast<int>(tactics_.size()); ++id) {
      const Tactic& t = tactics_[id];
      const AxisMasks& m = masks[t.group];
      uint32_t used = 0;
      for (uint32_t x : m) used |= x;
      if (used & (1u << t.axis)) continue;
      if (groups_[t.group].dims[t.dim] % (DevicesOf(mesh_, m[t.dim]) * mesh_.axes()[t.axis].size) != 0) continue;
      out.push_back(id);
    }
    return out;
  }

  // The module with the state's tactics on their parameters, ready for propagation (allowed to
  // fill in the parameters no tactic or annotation decides, and the outputs unless the root is
  // annotated).
  struct Prepared {
    std::unique_ptr<Module> module;
    PropagationOptions options;
  };
  Prepared Prepare(const std::vector<int>& state) const {
    Prepared p{base_->Clone(), {}};
    Module& m = *p.module;
    const std::vector<AxisMasks> masks = MasksOf(state);
    absl::flat_hash_map<std::string, const AxisMasks*> split;
    for (size_t g = 0; g < groups_.size(); ++g) {
      uint32_t used = 0;
      for (uint32_t x : masks[g]) used |= x;
      if (used)
        for (const Instruction* param : groups_[g].params) split[param->name()] = &masks[g];
    }
    std::vector<bool> to_parameters;
    for (Instruction* param : m.entry()->parameters()) {
      auto it = split.find(param->name());
      if (it != split.end())
        param->set_sharding(std::make_shared<const Sharding>(ShardingFromMasks(mesh_, *it->second)));
      to_parameters.push_back(!param->has_sharding());
    }
    p.options.allow_to_parameters = std::move(to_parameters);
    // A group's outputs come out split as its parameters: a Sharding constraint (JAX's
    // with_sharding_constraint) on each, which propagation also carries back into the update.
    Instruction* root = m.entry()->root();
    p.options.allow_to_output = std::vector<bool>{!root->has_sharding()};
    for (size_t g = 0; g < groups_.size(); ++g) {
      if (!split.contains(groups_[g].params[0]->name())) continue;
      for (int64_t k : groups_[g].outputs) {
        Instruction* value = root->operand(k);
        Instruction* c = m.entry()->AddInstruction(Opcode::kCustomCall, value->shape(),
                                                   m.UniqueName(value->name() + ".tactic"), {value});
        c->attrs().Set(AttrId::kCustomCallTarget, std::string("Sharding"));
        c->set_sharding(std::make_shared<const Sharding>(ShardingFromMasks(mesh_, masks[g])));
        root->ReplaceOperandWith(k, c);
      }
    }
    return p;
  }

  // The state's module after propagation (which turns Sharding constraints into copies).
  StatusOr<std::unique_ptr<Module>> Propagated(const std::vector<int>& state) const {
    Prepared p = Prepare(state);
    RETURN_IF_ERROR(PropagateShardings(*p.module, p.options).status());
    return std::move(p.module);
  }

  // The state's plan as written: the prepared module with every sharding propagation gives
  // (constraints and manual-region boundaries stay custom calls, as `verify --propagate` reads
  // them).
  StatusOr<std::unique_ptr<Module>> Annotated(const std::vector<int>& state) const {
    Prepared p = Prepare(state);
    std::unique_ptr<Module> propagated = p.module->Clone();
    RETURN_IF_ERROR(PropagateShardings(*propagated, p.options).status());
    absl::flat_hash_map<std::string, const Instruction*> by_name;
    for (const Computation* c : propagated->computations())
      for (const Instruction* i : c->instructions()) by_name[i->name()] = i;
    for (Computation* c : p.module->computations()) {
      for (Instruction* i : c->instructions()) {
        auto it = by_name.find(i->name());
        if (it != by_name.end() && it->second->has_sharding()) i->set_sharding(it->second->sharding_ptr());
      }
    }
    return std::move(p.module);
  }

  // Evaluates `state` once (cached): propagation, then each space node's propagated split read
  // as the strategy with that output (the cheapest given its producers' when several, e.g. a
  // dot's contracting splits; the nearest when none: an uneven split, a maximal sharding),
  // priced by the space.
  StatusOr<const Evaluation*> Evaluate(const std::vector<int>& state) {
    auto it = cache_.find(state);
    if (it != cache_.end()) return &it->second;
    ++states_;
    ASSIGN_OR_RETURN(std::unique_ptr<Module> m, Propagated(state));
    absl::flat_hash_map<std::string, const Instruction*> by_name;
    for (const Computation* c : m->computations())
      for (const Instruction* i : c->instructions()) by_name[i->name()] = i;
    // Per node, the split propagation gave its value (nullopt: none a strategy can have).
    std::vector<std::optional<AxisMasks>> want(space_.nodes.size());
    for (size_t j = 0; j < space_.nodes.size(); ++j) {
      const StrategyNode& node = space_.nodes[j];
      if (node.manual || node.strategies.empty()) continue;
      const int64_t rank = static_cast<int64_t>(node.strategies[0].output.size());
      auto it = by_name.find(node.instr->name());
      const Sharding* s = it != by_name.end() && it->second->has_sharding() ? it->second->sharding() : nullptr;
      // A leaf node reads its element of the tuple's sharding; a tuple-valued op whose leaves
      // share one split, the first.
      if (s && s->IsTuple()) {
        const size_t leaf = node.leaf >= 0 ? static_cast<size_t>(node.leaf) : 0;
        s = leaf < s->tuple_elements().size() ? &s->tuple_elements()[leaf] : nullptr;
      }
      want[j] = s ? MasksFromSharding(mesh_, *s, rank) : AxisMasks(static_cast<size_t>(rank), 0);
    }
    // Each node's strategy: one with that output (the cheapest given its producers' choices:
    // a dot's contracting splits), else one nearest to it (an uneven split, a maximal sharding).
    // Twice: a loop's state reads its body's values, which come later in the node order.
    std::vector<int64_t> choice(space_.nodes.size(), 0);
    for (int pass = 0; pass < 2; ++pass) {
      for (size_t j = 0; j < space_.nodes.size(); ++j) {
        const StrategyNode& node = space_.nodes[j];
        if (node.manual || node.strategies.size() < 2) continue;
        const size_t T = node.strategies.size();
        int64_t pick = -1;
        double pick_cost = 0;
        auto consider = [&](size_t t) {
          const Strategy& st = node.strategies[t];
          // Strategies that leave a partial sum pending, or sum pending ones (the space's all-reduce
          // reassociation), pair a producer with its add: this greedy pass picks each node
          // alone, so it keeps to the all-reduced ones.
          if (st.pending_axes || !st.operand_pending.empty()) return;
          double c = st.compute_seconds + st.communication_seconds;
          for (int e : in_edges_[j]) {
            const StrategyEdge& edge = space_.edges[e];
            c += (*edge.seconds)[choice[edge.producer] * T + t];
          }
          if (pick < 0 || c < pick_cost) {
            pick = static_cast<int64_t>(t);
            pick_cost = c;
          }
        };
        auto exact = want[j] ? by_output_[j].find(*want[j]) : by_output_[j].end();
        if (exact != by_output_[j].end()) {
          for (int t : exact->second) consider(t);
        } else {
          int nearest = std::numeric_limits<int>::max();
          for (size_t t = 0; t < T; ++t) {
            int bits = 0;
            if (want[j])
              for (size_t d = 0; d < want[j]->size(); ++d)
                bits += std::popcount(node.strategies[t].output[d] ^ (*want[j])[d]);
            if (bits < nearest) {
              nearest = bits;
              pick = -1;
            }
            if (bits == nearest) consider(t);
          }
        }
        choice[j] = pick;
      }
    }
    uint64_t fp = 1469598103934665603ull;
    for (int64_t c : choice) fp = (fp ^ static_cast<uint64_t>(c)) * 1099511628211ull;
    Evaluation ev;
    ev.seconds = space_.SecondsOf(choice);
    ev.peak = space_.PeakBytesOf(choice);
    ev.fingerprint = fp;
    // The splits propagation gave every parameter of each group, for pruning the state's children.
    for (const Group& g : groups_) {
      AxisMasks common(g.dims.size(), ~0u);
      for (const Instruction* member : g.params) {
        const Instruction* p = by_name.at(member->name());
        std::optional<AxisMasks> masks;
        if (p->has_sharding()) masks = MasksFromSharding(mesh_, *p->sharding(), p->shape().rank());
        if (!masks) {
          common.clear();
          break;
        }
        for (size_t d = 0; d < common.size(); ++d) common[d] &= (*masks)[d];
      }
      ev.group_masks.push_back(std::move(common));
    }
    best_cost_ = std::min(best_cost_, SoftCost(ev));
    return &cache_.emplace(state, std::move(ev)).first->second;
  }

  // The search's objective: step seconds, times (peak / limit)^kOverLimitPower over the limit.
  // Softer than "fits first" so that the search can pass through states that do not fit yet
  // (one half of a Megatron pair) on its way to ones that do, and continuous at the limit: the
  // space's peak is an estimate (the plan is chosen fits-first under the full cost model).
  double SoftCost(const Evaluation& ev) const {
    if (ev.peak <= limit_) return ev.seconds;
    return ev.seconds * std::pow(static_cast<double>(ev.peak) / static_cast<double>(limit_), kOverLimitPower);
  }

  // In (0, 1]: 1 for the cheapest state so far, 1/2 at e times its cost.
  double Reward(const Evaluation& ev) const {
    const double ratio = best_cost_ > 0 ? std::max(1.0, SoftCost(ev) / best_cost_) : 1.0;
    return 1 / (1 + std::log(ratio));
  }

  StatusOr<int> NewNode(std::vector<int> state) {
    ASSIGN_OR_RETURN(const Evaluation* ev, Evaluate(state));
    TreeNode n;
    // Children: stop, and every valid tactic propagation does not already imply for its group.
    for (int id : ValidTactics(state)) {
      const Tactic& t = tactics_[id];
      const AxisMasks& inferred = ev->group_masks[t.group];
      if (!inferred.empty() && (inferred[t.dim] & (1u << t.axis))) continue;
      n.untried.push_back(id);
    }
    // Best prior last (expanded first, after stop, whose reward is already known).
    std::stable_sort(n.untried.begin(), n.untried.end(), [&](int a, int b) { return prior_[a] < prior_[b]; });
    n.untried.push_back(kStop);
    n.state = std::move(state);
    tree_.push_back(std::move(n));
    return static_cast<int>(tree_.size()) - 1;
  }

  // A randomised descent from `state`: tactics drawn in proportion to their priors (in any
  // order: a state is a set), each kept when it lowers the search's objective, until
  // kRolloutPatience draws in a row do not or kRolloutTactics have been drawn. Every state on the
  // way is evaluated (and may be the plan); the reward is the best one's.
  StatusOr<double> Rollout(std::vector<int> state) {
    ASSIGN_OR_RETURN(const Evaluation* best, Evaluate(state));
    int misses = 0;
    for (int step = 0; step < kRolloutTactics && misses < kRolloutPatience && states_ < work_; ++step) {
      const std::vector<int> valid = ValidTactics(state, /*above_last=*/false);
      if (valid.empty()) break;
      double total = 0;
      for (int id : valid) total += prior_[id];
      double x = static_cast<double>(rng_() >> 11) * 0x1.0p-53 * total;
      size_t pick = 0;
      while (pick + 1 < valid.size() && (x -= prior_[valid[pick]]) >= 0) ++pick;
      std::vector<int> next = state;
      next.insert(std::upper_bound(next.begin(), next.end(), valid[pick]), valid[pick]);
      ASSIGN_OR_RETURN(const Evaluation* ev, Evaluate(next));
      if (SoftCost(*ev) < SoftCost(*best)) {
        best = ev;
        state = std::move(next);
        misses = 0;
      } else {
        ++misses;
      }
    }
    return Reward(*best);
  }

  // Each tactic's prior: how much it alone improves the empty state's soft cost, squared
  // (floored, so that every tactic keeps a chance). A one-step look-ahead of the search.
  Status ComputePriors() {
    ASSIGN_OR_RETURN(const Evaluation* empty, Evaluate({}));
    const double base = SoftCost(*empty);
    prior_.assign(tactics_.size(), 0);
    for (int id : ValidTactics({})) {
      ASSIGN_OR_RETURN(const Evaluation* ev, Evaluate({id}));
      const double gain = base / std::max(SoftCost(*ev), 1e-30);
      prior_[id] = std::max(kMinimumPrior, gain * gain);
    }
    return absl::OkStatus();
  }

  // MCTS under the space limit `limit` until `work` states have been evaluated in all, the tree
  // is exhausted or the time limit passes.
  Status Search(int64_t limit, int64_t work, TacticSearchStats& stats) {
    limit_ = limit;
    best_cost_ = std::numeric_limits<double>::infinity();
    for (const auto& [state, ev] : cache_) best_cost_ = std::min(best_cost_, SoftCost(ev));
    RETURN_IF_ERROR(ComputePriors());
    tree_.clear();
    RETURN_IF_ERROR(NewNode({}).status());
    work_ = work;
    while (states_ < work && !tree_[0].exhausted && std::chrono::steady_clock::now() < deadline_) {
      ++stats.playouts;
      std::vector<int> path{0};
      // Selection: UCT among the children not exhausted, while nothing is left to expand.
      while (tree_[path.back()].untried.empty() && !tree_[path.back()].stop) {
        const TreeNode& n = tree_[path.back()];
        int pick = -1;
        double pick_score = 0;
        for (int c : n.children) {
          const TreeNode& child = tree_[c];
          if (child.exhausted) continue;
          const double score = child.reward / child.visits +
                               kExploration * std::sqrt(std::log(static_cast<double>(n.visits)) / child.visits);
          if (pick < 0 || score > pick_score) {
            pick = c;
            pick_score = score;
          }
        }
        path.push_back(pick);  // exists: a node left unexhausted has an unexhausted child
      }
      double reward = 0;
      TreeNode& leaf = tree_[path.back()];
      if (leaf.stop) {
        ASSIGN_OR_RETURN(const Evaluation* ev, Evaluate(leaf.state));
        reward = Reward(*ev);
      } else {
        // Expansion: one untried child, then a rollout from it.
        const int id = leaf.untried.back();
        leaf.untried.pop_back();
        std::vector<int> state = leaf.state;
        int child = -1;
        if (id == kStop) {
          TreeNode stop;
          stop.state = std::move(state);
          stop.stop = true;
          stop.exhausted = true;
          tree_.push_back(std::move(stop));
          child = static_cast<int>(tree_.size()) - 1;
          ASSIGN_OR_RETURN(const Evaluation* ev, Evaluate(tree_[child].state));
          reward = Reward(*ev);
        } else {
          state.push_back(id);
          ASSIGN_OR_RETURN(child, NewNode(state));
          ASSIGN_OR_RETURN(reward, Rollout(state));
        }
        tree_[path.back()].children.push_back(child);
        path.push_back(child);
      }
      for (int n : path) {
        ++tree_[n].visits;
        tree_[n].reward += reward;
      }
      for (auto it = path.rbegin(); it != path.rend(); ++it) {
        TreeNode& n = tree_[*it];
        if (n.stop || !n.untried.empty()) continue;
        n.exhausted = std::all_of(n.children.begin(), n.children.end(), [&](int c) { return tree_[c].exhausted; });
      }
    }
    stats.tree_nodes += static_cast<int64_t>(tree_.size());
    stats.exhausted = tree_[0].exhausted;
    return absl::OkStatus();
  }

  const PlanOptions& options_;
  const Mesh& mesh_;
  const StrategySpace& space_;
  const int64_t memory_limit_;
  std::mt19937_64 rng_;
  std::unique_ptr<Module> base_;
  std::vector<std::vector<int>> in_edges_;                 // per space node, its edges' indices
  std::vector<std::map<AxisMasks, std::vector<int>>> by_output_;  // per space node: output -> strategies
  std::vector<Group> groups_;
  std::vector<Tactic> tactics_;
  std::map<std::vector<int>, Evaluation> cache_;
  std::set<uint64_t> priced_;
  int64_t states_ = 0;
  int64_t work_ = 0;          // the evaluations (states_) at which this round ends
  int64_t limit_ = 0;
  double best_cost_ = 0;      // the smallest SoftCost evaluated under limit_
  std::vector<double> prior_;  // per tactic
  std::vector<TreeNode> tree_;
  std::chrono::steady_clock::time_point deadline_;
};

}  // namespace

Status SearchTactics(const Module& module, const PlanOptions& options, AutoResult& result) {
  if (!result.space) return InvalidArgument("SearchTactics: no strategy space");
  if (!options.hardware) return InvalidArgument("SearchTactics: no hardware profile");
  TacticSearch search(module, options, *result.space, result.memory_limit);
  return search.Run(result);
}

}  // namespace spmdc::autoshard

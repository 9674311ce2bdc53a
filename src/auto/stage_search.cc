#include "auto/stage_search.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <thread>

#include "absl/container/flat_hash_set.h"
#include "auto/plan.h"
#include "auto/strategy_space.h"
#include "fmt/format.h"
#include "support/check.h"

namespace spmdc::autoshard {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// F(s, k, d) entries (8 bytes each): 1 GiB.
constexpr int64_t kMaxDpStates = int64_t{1} << 27;

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// The DP of SearchStages for one table and options; G(t_max) runs fill F.
class StageDp {
 public:
  StageDp(const StageCostTable& table, const StageSearchOptions& options)
      : table_(table),
        options_(options),
        L_(table.num_layers()),
        D_(options.num_devices),
        M_(options.microbatches),
        subs_(static_cast<int>(table.submeshes().size())) {
    smax_ = options.stages ? *options.stages : static_cast<int>(std::min<int64_t>(L_, D_));
    // The memory a stage needs depends on the stages after it only up to M - 1 of them (1F1B),
    // not at all under GPipe: `c` indexes those cases.
    C_ = options.schedule == PipelineSchedule::kGPipe ? 1 : static_cast<int>(std::min<int64_t>(M_, smax_));
    fit_t_.assign(static_cast<size_t>(L_) * L_ * subs_ * C_, kInf);
    fit_o_.assign(fit_t_.size(), -1);
    for (int k = 0; k < L_; ++k)
      for (int i = k; i < L_; ++i)
        for (int m = 0; m < subs_; ++m) {
          const std::vector<StageOption>& opts = table.at(k, i, m);
          for (int c = 0; c < C_; ++c) {
            const int64_t held = HeldMicrobatches(options.schedule, c, M_);
            const size_t idx = FitIndex(k, i, m, c);
            for (int o = 0; o < static_cast<int>(opts.size()); ++o) {
              if (opts[o].MemoryBytes(held) > options.memory_limit) continue;
              if (opts[o].seconds < fit_t_[idx]) fit_t_[idx] = opts[o].seconds, fit_o_[idx] = o;
            }
          }
        }
    F_.assign(static_cast<size_t>(smax_ + 1) * (L_ + 1) * (D_ + 1), kInf);
  }

  // Distinct finite stage times, ascending.
  std::vector<double> Candidates() const {
    std::vector<double> c;
    for (double t : fit_t_)
      if (t < kInf) c.push_back(t);
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    return c;
  }

  // Runs the DP under `t_max`; returns G = the smallest sum of stage times (inf: none) and
  // offers every stage count's plan to `best`.
  double Run(double t_max, std::optional<StagePlan>& best) {
    std::fill(F_.begin(), F_.end(), kInf);
    F(0, L_)[0] = 0;
    for (int k = L_ - 1; k >= 0; --k) {
      for (int i = k; i < L_; ++i) {
        const int layers_after = L_ - 1 - i;
        for (int m = 0; m < subs_; ++m) {
          const int64_t n = table_.submeshes()[m].devices();
          if (n > D_) continue;
          for (int s = 1; s <= smax_ && s - 1 <= layers_after; ++s) {
            if (s == 1 && layers_after > 0) continue;  // the last stage ends at the last layer
            const double t = fit_t_[FitIndex(k, i, m, std::min(s - 1, C_ - 1))];
            if (t > t_max) continue;
            const double* prev = F(s - 1, i + 1);
            double* cur = F(s, k);
            for (int64_t d = n; d <= D_; ++d) {
              const double v = t + prev[d - n];
              if (v < cur[d]) cur[d] = v;
            }
          }
        }
      }
    }
    double g = kInf;
    for (int s = options_.stages ? smax_ : 1; s <= smax_; ++s) {
      const double v = F(s, 0)[D_];
      if (v == kInf) continue;
      g = std::min(g, v);
      StagePlan plan = Reconstruct(s, t_max);
      if (!best || plan.step_seconds < best->step_seconds) best = std::move(plan);
    }
    return g;
  }

  // The plan of `s` stages behind F(s, 0)[D] under `t_max`.
  StagePlan Reconstruct(int s, double t_max) {
    StagePlan plan;
    int k = 0;
    int64_t d = D_;
    while (s > 0) {
      const double target = F(s, k)[d];
      bool found = false;
      for (int i = k; i < L_ && !found; ++i) {
        for (int m = 0; m < subs_ && !found; ++m) {
          const int64_t n = table_.submeshes()[m].devices();
          if (n > d) continue;
          const size_t idx = FitIndex(k, i, m, std::min(s - 1, C_ - 1));
          const double t = fit_t_[idx];
          if (t > t_max || t + F(s - 1, i + 1)[d - n] != target) continue;
          Stage st;
          st.first_layer = k, st.last_layer = i, st.submesh = m, st.option = fit_o_[idx], st.seconds = t;
          st.held_microbatches = HeldMicrobatches(options_.schedule, s - 1, M_);
          st.memory_bytes = table_.at(k, i, m)[st.option].MemoryBytes(st.held_microbatches);
          plan.stages.push_back(st);
          k = i + 1, d -= n, --s;
          found = true;
        }
      }
      SPMDC_CHECK_MSG(found, "stage DP: no predecessor for a finite state");
    }
    Finish(plan);
    return plan;
  }

  void Finish(StagePlan& plan) const {
    std::vector<double> t;
    for (const Stage& s : plan.stages) t.push_back(s.seconds);
    plan.step_seconds = PipelineLatency(t, M_);
    plan.max_stage_seconds = t.empty() ? 0 : *std::max_element(t.begin(), t.end());
    plan.uniform = !plan.stages.empty();
    const Stage& a = plan.stages.front();
    for (const Stage& s : plan.stages) {
      plan.uniform = plan.uniform && s.last_layer - s.first_layer == a.last_layer - a.first_layer &&
                     s.submesh == a.submesh &&
                     table_.at(s.first_layer, s.last_layer, s.submesh)[s.option].mesh ==
                         table_.at(a.first_layer, a.last_layer, a.submesh)[a.option].mesh;
    }
  }

 private:
  size_t FitIndex(int k, int i, int m, int c) const {
    return ((static_cast<size_t>(k) * L_ + i) * subs_ + m) * C_ + c;
  }
  double* F(int s, int k) { return &F_[(static_cast<size_t>(s) * (L_ + 1) + k) * (D_ + 1)]; }

  const StageCostTable& table_;
  const StageSearchOptions& options_;
  int L_;
  int64_t D_, M_;
  int subs_;
  int smax_ = 0, C_ = 1;
  std::vector<double> fit_t_;  // the fastest option that fits, per (span, submesh, c)
  std::vector<int> fit_o_;
  std::vector<double> F_;      // F(s, k)[d]
};

// "l12_wq.160" -> "wq": a representative layer's weight without its layer prefix and unique id.
std::string ShortWeightName(const std::string& name) {
  std::string s = name;
  const size_t dot = s.rfind('.');
  if (dot != std::string::npos && dot + 1 < s.size() &&
      std::all_of(s.begin() + dot + 1, s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    s.resize(dot);
  if (s.size() > 2 && s[0] == 'l' && std::isdigit(static_cast<unsigned char>(s[1]))) {
    size_t j = 1;
    while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
    if (j < s.size() && s[j] == '_') s = s.substr(j + 1);
  }
  return s;
}


struct LogicalMesh {
  int64_t data = 1, model = 1;
  std::string ToString() const {
    if (model == 1) return fmt::format("data={}", data);
    return fmt::format("data={},model={}", data, model);
  }
};

// A tie unit priced on one logical mesh.
struct UnitCost {
  // As priced: the unit's step (its layers' forward, backward and update; on a microbatched
  // module the layers on one microbatch, the rest of the step at full size).
  double seconds = 0;
  double compute_seconds = 0;
  double weight_bytes = 0, other_bytes = 0;  // the peak: weights with their updates, the rest
  // Per microbatch, for the stage DP (filled by PerMicrobatch for single layers): the time, and
  // the memory held per microbatch in flight; on a microbatched module (Scaling::loop) that is
  // the layer's input, and what one microbatch's layer needs while it runs is transient, the
  // gradient accumulators are held with the weights.
  double mb_seconds = 0, mb_compute_seconds = 0, mb_activation_bytes = 0;
  // The pipeline's loops also hold each layer's weights as loop values of their own
  // (loop_weight_bytes: the parameters its forward and backward read), so that an iteration
  // reads them without a slice.
  double transient_bytes = 0, accumulator_bytes = 0, loop_weight_bytes = 0;
  std::string summary;
  std::shared_ptr<const UnitPlan> plan;
};

// How the units' prices become per-microbatch stage costs (PipelineOptions::given_layers).
struct Scaling {
  int64_t microbatches = 1;
  // The module runs its layers on one microbatch (pipeline/layer_plan.h); `loop` names their
  // instructions (the copies of the layer calls): per microbatch, a unit costs that part in full
  // and the rest of its step (the update, the loss head, the embedding) once per M microbatches.
  // Else the module is the whole step's and a unit costs 1/M of it.
  const absl::flat_hash_map<std::string, int>* loop = nullptr;
  // Of the loop's outputs, those accumulated over microbatches: each adds its masked value to an
  // accumulator per microbatch, as the pipeline's backward loop does.
  const absl::flat_hash_set<std::string>* accumulated = nullptr;
  const std::vector<std::string>* layer_inputs = nullptr;  // per layer (PipelineOptions)
};

// The intra-op plans tried for every unit and logical mesh: the fastest (within the device
// memory for the whole batch when it can be), the most frugal (the strategy space's smallest
// peak, with a margin) and one between (the geometric mean of the two peaks). The stage search
// picks, per span, the fastest whose stage fits; which one fits depends on how many layers and
// microbatches the stage holds, which a single layer's solve cannot know.
constexpr int kVariants = 3;
constexpr const char* kVariantNames[kVariants] = {"fast", "lean", "mid"};
constexpr double kLeanMargin = 1.1;

// `weights`: the names of the original module's weights (a unit's other parameters are the
// inputs and the values other layers compute, which scale with the batch).
UnitCost Describe(const PricedPlan& plan, const Mesh& mesh, const Module& unit, int layer,
                  const absl::flat_hash_set<std::string>& weights) {
  UnitCost c;
  c.seconds = plan.step_seconds;
  c.compute_seconds = plan.compute_seconds;
  const Computation& entry = *unit.entry();
  double weight_bytes = 0;
  std::string split, activation;
  int num_replicated = 0;
  for (int64_t i = 0; i < entry.num_parameters(); ++i) {
    const Instruction* p = entry.parameter(i);
    if (!p->shape().IsArray()) continue;
    const Sharding s = i < static_cast<int64_t>(plan.parameter_shardings.size()) ? plan.parameter_shardings[i]
                                                                                  : Sharding::Replicate();
    std::optional<AxisMasks> masks = MasksFromSharding(mesh, s, p->shape().rank());
    const std::string spec = masks ? MasksToString(mesh, *masks) : s.ToString(false);
    bool is_split = false;
    if (masks)
      for (uint32_t x : *masks) is_split = is_split || x != 0;
    if (!weights.contains(p->name())) {
      if (activation.empty() && p->shape().rank() >= 2 && IsFloat(p->shape().dtype())) activation = "input " + spec;
      continue;
    }
    weight_bytes += static_cast<double>(s.ShardShape(p->shape()).byte_size());
    if (p->shape().rank() == 0) continue;
    if (is_split || !masks) {
      split += fmt::format("{}{}{}", split.empty() ? "" : " ", ShortWeightName(p->name()), spec);
    } else {
      ++num_replicated;
    }
  }
  // A weight and its update are live together at the end of the step; the rest of the peak
  // (activations, gradients in flight) scales with the batch.
  const double peak = static_cast<double>(plan.peak_bytes);
  c.weight_bytes = std::min(peak, 2 * weight_bytes);
  c.other_bytes = peak - c.weight_bytes;
  auto unit_plan = std::make_shared<UnitPlan>();
  unit_plan->layer = layer;
  if (plan.annotated) unit_plan->annotated = plan.annotated->Clone();
  for (int64_t i = 0; i < entry.num_parameters() && i < static_cast<int64_t>(plan.parameter_shardings.size()); ++i)
    unit_plan->parameters.push_back({entry.parameter(i)->name(), plan.parameter_shardings[i]});
  c.plan = std::move(unit_plan);
  c.summary = activation.empty() ? "" : activation + "; ";
  c.summary += split.empty() ? "weights replicated" : "weights " + split;
  if (!split.empty() && num_replicated > 0) c.summary += fmt::format("; {} replicated", num_replicated);
  return c;
}

// The unit's kVariants plans on `lm` (a variant that cannot be had repeats the one before).
// `solves` counts the PlanAuto runs.
// `boundary`: (a parameter of the unit, a value of it) pairs: after the fastest plan, the unit is
// planned again (every variant) with each parameter split as that plan splits its value.
StatusOr<std::vector<UnitCost>> PriceUnit(const Module& unit_in, int layer, const LogicalMesh& lm, const PipelineOptions& options,
                                          int64_t memory_limit, const absl::flat_hash_set<std::string>& weights,
                                          const std::vector<std::pair<std::string, std::string>>& boundary,
                                          int64_t& solves) {
  std::unique_ptr<Module> tied;
  const Module* unit_ptr = &unit_in;
  ASSIGN_OR_RETURN(Mesh mesh, Mesh::Parse(lm.ToString()));
  PlanOptions po(mesh);
  po.hardware = options.hardware;
  po.carried_state = false;  // a unit is a piece of the step (plan.h)
  po.memory_limit = memory_limit;
  po.time_limit_s = options.time_limit_s;
  po.work_limit = options.work_limit > 0 ? options.work_limit : kDefaultStageWork;
  po.keep_annotations = false;
  po.standard_plans = false;
  po.use_milp = false;
  StatusOr<AutoResult> fast = PlanAuto(unit_in, po);
  ++solves;
  if (!fast.ok() && fast.status().code() == absl::StatusCode::kResourceExhausted) {
    // Nothing fits the whole batch's activations: take the fastest plan, and let the stage
    // search's memory check (which counts only the microbatches in flight) decide.
    po.memory_limit = std::numeric_limits<int64_t>::max() / 4;
    fast = PlanAuto(unit_in, po);
    ++solves;
  }
  if (!fast.ok()) return fast.status();
  if (!boundary.empty()) {
    absl::flat_hash_map<std::string, const Instruction*> planned;
    for (const Instruction* i : fast->Chosen().annotated->entry()->instructions()) planned[i->name()] = i;
    tied = unit_in.Clone();
    bool any = false;
    for (Instruction* p : tied->entry()->parameters())
      for (const auto& [param, value] : boundary) {
        auto v = planned.find(value);
        if (p->name() != param || v == planned.end() || !v->second->has_sharding() || !(v->second->shape() == p->shape()))
          continue;
        p->set_sharding(v->second->sharding_ptr());
        any = true;
      }
    if (any) {
      tied->set_num_partitions(mesh.num_devices());
      po.keep_annotations = true;
      po.memory_limit = memory_limit;
      StatusOr<AutoResult> again = PlanAuto(*tied, po);
      ++solves;
      if (!again.ok() && again.status().code() == absl::StatusCode::kResourceExhausted) {
        po.memory_limit = std::numeric_limits<int64_t>::max() / 4;
        again = PlanAuto(*tied, po);
        ++solves;
      }
      if (again.ok()) {
        fast = std::move(again);
        unit_ptr = tied.get();
      } else {
        po.keep_annotations = false;
      }
    }
  }
  const Module& unit = *unit_ptr;
  std::vector<UnitCost> out = {Describe(fast->Chosen(), mesh, unit, layer, weights)};
  const double fast_peak = static_cast<double>(fast->Chosen().peak_bytes);
  const double lean_limit = kLeanMargin * static_cast<double>(fast->space->SmallestPeakBytes());
  int64_t lean_peak = fast->Chosen().peak_bytes;
  for (int v = 1; v < kVariants; ++v) {
    const double limit = v == 1 ? lean_limit : std::sqrt(lean_limit * fast_peak);
    StatusOr<AutoResult> r = absl::ResourceExhaustedError("");
    // Only a limit clearly under the plans already had can give another plan.
    if (limit < 0.9 * static_cast<double>(std::min<int64_t>(lean_peak, fast->Chosen().peak_bytes))) {
      po.memory_limit = static_cast<int64_t>(limit);
      r = PlanAuto(unit, po);
      ++solves;
    }
    if (r.ok() && r->Chosen().fits) {
      out.push_back(Describe(r->Chosen(), mesh, unit, layer, weights));
      if (v == 1) lean_peak = r->Chosen().peak_bytes;
    } else if (r.ok() || r.status().code() == absl::StatusCode::kResourceExhausted) {
      out.push_back(out.back());
    } else {
      return r.status();
    }
  }
  return out;
}

// The part of an annotated unit that the pipeline's loops run per microbatch: the instructions
// `loop` names (and the constants and Sharding custom calls they use), the values they read from
// the rest as parameters and those the rest reads as outputs, every sharding kept; an output
// `accumulated` names is added, where a mask allows, to an accumulator of its sharding.
StatusOr<std::unique_ptr<Module>> LoopPart(const Module& annotated, const absl::flat_hash_map<std::string, int>& loop,
                                           const absl::flat_hash_set<std::string>* accumulated) {
  std::unique_ptr<Module> m = annotated.Clone();
  Computation& e = *m->entry();
  const std::vector<Instruction*> order = e.MakeInstructionPostOrder();
  absl::flat_hash_set<const Instruction*> free, keep;
  for (Instruction* x : order) {
    bool f = x->opcode() != Opcode::kParameter && x != e.root() && x->shape().IsArray();
    for (const Instruction* op : x->operands()) f = f && free.contains(op);
    if (f) free.insert(x);
  }
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    Instruction* x = *it;
    if (x == e.root()) continue;
    bool k = loop.contains(x->name());
    if (!k && (free.contains(x) || x->IsCustomCall("Sharding") || x->opcode() == Opcode::kParameter))
      for (const Instruction* u : x->users()) k = k || keep.contains(u);
    if (k) keep.insert(x);
  }
  std::vector<Instruction*> outputs;
  absl::flat_hash_map<Instruction*, Instruction*> as_parameter;
  for (Instruction* x : order) {
    if (!keep.contains(x)) continue;
    bool read_outside = false;
    for (const Instruction* u : x->users()) read_outside = read_outside || !keep.contains(u);
    if (read_outside && x->opcode() != Opcode::kParameter && !free.contains(x)) outputs.push_back(x);
    for (int64_t k = 0; k < x->operand_count(); ++k) {
      Instruction* op = x->operand(k);
      if (keep.contains(op)) continue;
      auto [p, fresh] = as_parameter.try_emplace(op, nullptr);
      if (fresh) {
        p->second = e.AddInstruction(Opcode::kParameter, op->shape(), m->UniqueName(op->name() + ".loop_in"));
        p->second->set_sharding(op->sharding_ptr());
      }
      x->ReplaceOperandWith(k, p->second);
    }
  }
  Instruction* mask = nullptr;
  for (Instruction*& o : outputs) {
    if (accumulated == nullptr || !accumulated->contains(o->name()) || !o->shape().IsArray()) continue;
    if (mask == nullptr) mask = e.AddInstruction(Opcode::kParameter, Shape(DType::kPred, {}), m->UniqueName("loop_mask"));
    const Shape& shape = o->shape();
    Instruction* acc = e.AddInstruction(Opcode::kParameter, shape, m->UniqueName(o->name() + ".acc"));
    Instruction* bmask = e.AddInstruction(Opcode::kBroadcast, Shape(DType::kPred, shape.dims()), m->UniqueName("loop_mask"), {mask});
    bmask->attrs().Set(AttrId::kDimensions, std::vector<int64_t>{});
    Instruction* zero = e.AddInstruction(Opcode::kConstant, Shape(shape.dtype(), {}), m->UniqueName("zero"));
    zero->set_literal(Literal(Shape(shape.dtype(), {})));
    Instruction* zeros = e.AddInstruction(Opcode::kBroadcast, shape, m->UniqueName("zeros"), {zero});
    zeros->attrs().Set(AttrId::kDimensions, std::vector<int64_t>{});
    Instruction* kept = e.AddInstruction(Opcode::kSelect, shape, m->UniqueName(o->name() + ".kept"), {bmask, o, zeros});
    Instruction* sum = e.AddInstruction(Opcode::kAdd, shape, m->UniqueName(o->name() + ".sum"), {acc, kept});
    for (Instruction* x : {acc, kept, sum}) x->set_sharding(o->sharding_ptr());
    o = sum;
  }
  std::vector<Shape> shapes;
  std::vector<Sharding> shardings;
  bool all = true;
  for (const Instruction* o : outputs) {
    shapes.push_back(o->shape());
    if (o->has_sharding()) shardings.push_back(*o->sharding());
    all = all && o->has_sharding();
  }
  Instruction* root = e.AddInstruction(Opcode::kTuple, Shape::Tuple(shapes), m->UniqueName("loop_outputs"), outputs);
  if (all) root->set_sharding(std::make_shared<const Sharding>(Sharding::Tuple(std::move(shardings))));
  e.set_root(root);
  for (auto it = order.rbegin(); it != order.rend(); ++it)
    if (!keep.contains(*it)) RETURN_IF_ERROR(e.RemoveInstruction(*it));
  std::vector<Instruction*> params;
  for (Instruction* x : e.instructions())
    if (x->opcode() == Opcode::kParameter) params.push_back(x);
  for (int64_t k = 0; k < static_cast<int64_t>(params.size()); ++k) params[k]->set_parameter_number(k);
  RETURN_IF_ERROR(e.RebuildParameterList());
  return m;
}

// Bytes per device of `name`'s value in an annotated module (or of NAME.in, the parameter that
// stands for it where another layer computes it); 0 when there is neither.
double ShardBytes(const Module& annotated, const std::string& name) {
  for (const std::string& n : {name, name + ".in"})
    for (const Instruction* i : annotated.entry()->instructions())
      if (i->name() == n && i->shape().IsArray())
        return static_cast<double>(
            (i->has_sharding() ? i->sharding()->ShardShape(i->shape()) : i->shape()).byte_size());
  return 0;
}

// A single layer's per-microbatch costs from its step's (see Scaling), `annotated` its plan.
Status PerMicrobatch(UnitCost& c, const Scaling& scaling, const Module& annotated, int layer, const Mesh& mesh,
                     const HardwareProfile& hw) {
  const double M = static_cast<double>(scaling.microbatches);
  if (scaling.loop == nullptr) {
    c.mb_seconds = c.seconds / M;
    c.mb_compute_seconds = c.compute_seconds / M;
    c.mb_activation_bytes = c.other_bytes / M;
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(std::unique_ptr<Module> loop, LoopPart(annotated, *scaling.loop, scaling.accumulated));
  ASSIGN_OR_RETURN(PricedPlan body,
                   PricePlan(std::move(loop), mesh, hw, std::numeric_limits<int64_t>::max(), nullptr, /*carried_state=*/false));
  c.mb_seconds = body.step_seconds + std::max(0.0, c.seconds - body.step_seconds) / M;
  c.mb_compute_seconds = body.compute_seconds + std::max(0.0, c.compute_seconds - body.compute_seconds) / M;
  if (scaling.accumulated != nullptr)
    for (const Instruction* i : annotated.entry()->instructions())
      if (scaling.accumulated->contains(i->name())) c.accumulator_bytes += ShardBytes(annotated, i->name());
  if (scaling.layer_inputs != nullptr && layer >= 0 && layer < static_cast<int>(scaling.layer_inputs->size()))
    c.mb_activation_bytes = ShardBytes(annotated, (*scaling.layer_inputs)[layer]);
  for (const Instruction* p : annotated.entry()->parameters()) {
    const std::string& n = p->name();
    if (n.size() > 3 && n.compare(n.size() - 3, 3, ".in") == 0) continue;  // another layer's value
    bool read = false;
    for (const Instruction* u : p->users()) {
      if (u->IsCustomCall("Sharding") && u->user_count() > 0) u = u->users()[0];
      read = read || scaling.loop->contains(u->name());
    }
    if (read) c.loop_weight_bytes += ShardBytes(annotated, n);
  }
  c.transient_bytes = std::max(0.0, c.other_bytes - c.accumulator_bytes);
  return absl::OkStatus();
}

// A pair of consecutive layers as the stage search ties them: every instruction takes the plan
// of its twin in its class's representative layer (`twin_name`; `class_cost` holds the classes'
// plans on `lm`), then the pair is partitioned and priced as planned.
StatusOr<UnitCost> PriceTiedPair(const Module& pair, int first, const LogicalMesh& lm, const HardwareProfile& hw,
                                 int64_t memory_limit,
                                 const absl::flat_hash_map<std::string, std::pair<int, std::string>>& twin_name,
                                 const std::vector<const UnitCost*>& class_cost,
                                 const absl::flat_hash_set<std::string>& weights) {
  ASSIGN_OR_RETURN(Mesh mesh, Mesh::Parse(lm.ToString()));
  std::vector<absl::flat_hash_map<std::string, const Instruction*>> planned(class_cost.size());
  for (size_t c = 0; c < class_cost.size(); ++c)
    for (const Instruction* i : class_cost[c]->plan->annotated->entry()->instructions()) planned[c][i->name()] = i;
  std::unique_ptr<Module> m = pair.Clone();
  absl::flat_hash_map<const Instruction*, const Instruction*> twin;
  for (const Instruction* x : m->entry()->instructions()) {
    auto t = twin_name.find(x->name());
    if (t == twin_name.end()) {
      // No layer's (a value computed from constants, copied into every unit that reads it): as
      // a class plan that has it has it.
      for (const auto& names : planned)
        if (auto p = names.find(x->name()); p != names.end() && x->opcode() != Opcode::kParameter) {
          twin[x] = p->second;
          break;
        }
      continue;
    }
    auto p = planned[t->second.first].find(t->second.second);
    if (p != planned[t->second.first].end()) twin[x] = p->second;
  }
  RETURN_IF_ERROR(CarryPlan(*m, *m->entry(), twin).status());
  m->set_num_partitions(mesh.num_devices());
  ASSIGN_OR_RETURN(PricedPlan priced, PricePlan(std::move(m), mesh, hw, memory_limit, nullptr, /*carried_state=*/false));
  return Describe(priced, mesh, pair, first, weights);
}

}  // namespace

std::string Submesh::ToString() const { return fmt::format("({}, {})", hosts, per_host); }

StageCostTable::StageCostTable(int num_layers, std::vector<Submesh> submeshes)
    : num_layers_(num_layers), submeshes_(std::move(submeshes)) {
  options_.resize(static_cast<size_t>(num_layers_) * num_layers_ * submeshes_.size());
}

size_t StageCostTable::Index(int first, int last, int submesh) const {
  SPMDC_CHECK(first >= 0 && first <= last && last < num_layers_ && submesh >= 0 &&
              submesh < static_cast<int>(submeshes_.size()));
  return (static_cast<size_t>(first) * num_layers_ + last) * submeshes_.size() + submesh;
}

double PipelineLatency(const std::vector<double>& t, int64_t microbatches) {
  double sum = 0, mx = 0;
  for (double x : t) sum += x, mx = std::max(mx, x);
  return sum + static_cast<double>(microbatches - 1) * mx;
}

int64_t HeldMicrobatches(PipelineSchedule schedule, int64_t later_stages, int64_t microbatches) {
  return schedule == PipelineSchedule::kGPipe ? microbatches : std::min(later_stages + 1, microbatches);
}

StatusOr<StageSearchResult> SearchStages(const StageCostTable& table, const StageSearchOptions& options) {
  const int L = table.num_layers();
  const int64_t D = options.num_devices;
  if (L < 1) return InvalidArgument("stage search: no layers");
  if (D < 1) return InvalidArgument("stage search: no devices");
  if (options.microbatches < 1) return InvalidArgument("--microbatches {}: must be at least 1", options.microbatches);
  if (options.stages && (*options.stages < 1 || *options.stages > L || *options.stages > D))
    return InvalidArgument("--pipeline {}: the stage count must be between 1 and the layers ({}) and devices ({})",
                           *options.stages, L, D);
  // The DP's table F(s, k, d) holds (stages + 1) x (layers + 1) x (devices + 1) entries.
  const int64_t smax = options.stages ? *options.stages : std::min<int64_t>(L, D);
  if ((smax + 1) * (L + 1) * (D + 1) > kMaxDpStates)
    return Unimplemented("stage search: {} layers x {} devices is past the DP's {} states", L, D, kMaxDpStates);
  StageSearchResult out;
  StageDp dp(table, options);
  const std::vector<double> cand = dp.Candidates();
  out.candidate_bounds = static_cast<int64_t>(cand.size());
  const double Mm1 = static_cast<double>(options.microbatches - 1);
  if (!cand.empty()) {
    // Branch and bound over the sorted bounds: G is non-increasing, so (lo, hi) holds no plan
    // better than G(hi) + (M - 1) cand[lo + 1].
    const int N = static_cast<int>(cand.size());
    std::vector<double> g(N, kInf);
    auto eval = [&](int j) {
      g[j] = dp.Run(cand[j], out.best);
      ++out.dp_evaluations;
    };
    eval(N - 1);
    if (N > 1 && g[N - 1] < kInf) eval(0);
    std::vector<std::pair<int, int>> stack;
    if (g[N - 1] < kInf) stack.emplace_back(0, N - 1);
    while (!stack.empty()) {
      auto [lo, hi] = stack.back();
      stack.pop_back();
      if (hi - lo <= 1 || g[hi] == kInf) continue;
      if (out.best && g[hi] + Mm1 * cand[lo + 1] >= out.best->step_seconds) continue;
      const int mid = lo + (hi - lo) / 2;
      eval(mid);
      stack.emplace_back(mid, hi);
      stack.emplace_back(lo, mid);
    }
  }
  // The uniform plans: S stages of L / S layers, each on D / S devices with the same logical mesh.
  for (int S = 1; S <= std::min<int64_t>(L, D); ++S) {
    if (options.stages && S != *options.stages) continue;
    if (L % S != 0 || D % S != 0) continue;
    const int per = L / S;
    int m = -1;
    for (int j = 0; j < static_cast<int>(table.submeshes().size()); ++j)
      if (table.submeshes()[j].devices() == D / S) m = j;
    if (m < 0) continue;
    const size_t num_options = table.at(0, per - 1, m).size();
    for (size_t o = 0; o < num_options; ++o) {
      StagePlan plan;
      bool fits = true;
      std::vector<double> t;
      for (int j = 0; j < S && fits; ++j) {
        const std::vector<StageOption>& opts = table.at(j * per, (j + 1) * per - 1, m);
        if (o >= opts.size()) {
          fits = false;
          break;
        }
        Stage st;
        st.first_layer = j * per, st.last_layer = (j + 1) * per - 1, st.submesh = m, st.option = static_cast<int>(o);
        st.seconds = opts[o].seconds;
        st.held_microbatches = HeldMicrobatches(options.schedule, S - 1 - j, options.microbatches);
        st.memory_bytes = opts[o].MemoryBytes(st.held_microbatches);
        fits = st.memory_bytes <= options.memory_limit;
        plan.stages.push_back(st);
        t.push_back(st.seconds);
      }
      if (!fits) continue;
      plan.step_seconds = PipelineLatency(t, options.microbatches);
      plan.max_stage_seconds = *std::max_element(t.begin(), t.end());
      plan.uniform = true;
      if (!out.best_uniform || plan.step_seconds < out.best_uniform->step_seconds) out.best_uniform = plan;
      out.uniform.push_back(std::move(plan));
    }
  }
  return out;
}

StatusOr<PipelineResult> PlanPipeline(const Module& module, const PipelineOptions& options) {
  if (!options.hardware) return InvalidArgument("PlanPipeline: no hardware profile");
  const HardwareProfile& hw = *options.hardware;
  const int64_t D = options.num_devices;
  const int64_t M = options.microbatches;
  if (D < 1) return InvalidArgument("--pipeline: no devices");
  if (M < 1) return InvalidArgument("--microbatches {}: must be at least 1", M);
  if (options.stages && *options.stages < 1) return InvalidArgument("--pipeline {}: must be at least 1", *options.stages);
  PipelineResult r;
  r.memory_limit = options.memory_limit ? *options.memory_limit : static_cast<int64_t>(hw.hbm_bytes);
  ASSIGN_OR_RETURN(r.layers, ClusterLayers(module, 64, options.given_layers));
  const LayerClustering& layers = r.layers;
  const int L = layers.num_layers;
  if (options.stages && *options.stages > L)
    return InvalidArgument("--pipeline {}: the module has {} layers (at most one stage per layer)", *options.stages, L);
  if (options.stages && *options.stages > D)
    return InvalidArgument("--pipeline {}: the mesh has {} devices (at least one per stage)", *options.stages, D);

  // Submeshes (Alpa): (1, 2^k) inside a host, then (n, host) for n = 1, 2, 4, ...
  int64_t host = D;
  for (const HardwareProfile::Link& link : hw.links)
    if (link.domain_devices > 0) {
      host = std::min(host, link.domain_devices);
      break;
    }
  for (int64_t p = 1; p < host; p *= 2) r.submeshes.push_back({1, p});
  for (int64_t n = 1; n * host <= D; n *= 2) r.submeshes.push_back({n, host});
  // Logical meshes of each submesh: all of it over `data`, or `model` (tensor parallelism, inside
  // a host) of 2, 4, ... devices and the rest over `data`. One axis of n devices is the same
  // strategy space whatever its name, so model = n is not tried separately.
  std::vector<std::vector<LogicalMesh>> logical(r.submeshes.size());
  for (size_t m = 0; m < r.submeshes.size(); ++m) {
    const int64_t n = r.submeshes[m].devices();
    logical[m].push_back({n, 1});
    for (int64_t mp = 2; mp < n && mp <= host; mp *= 2)
      if (n % mp == 0) logical[m].push_back({n / mp, mp});
    r.logical_meshes += static_cast<int64_t>(logical[m].size());
  }

  // Tie units: one layer of every class, and every pair of consecutive classes that occurs.
  std::vector<int> single_of_class(layers.num_classes, -1);
  for (int l = 0; l < L; ++l)
    if (single_of_class[layers.tie_class[l]] < 0) single_of_class[layers.tie_class[l]] = l;
  std::map<std::pair<int, int>, int> pair_first;  // (class, class) -> first layer of such a pair
  for (int l = 0; l + 1 < L; ++l) pair_first.try_emplace({layers.tie_class[l], layers.tie_class[l + 1]}, l);
  struct Unit {
    int first = 0, last = 0;
    std::unique_ptr<Module> module;
  };
  std::vector<Unit> singles, pairs;
  std::map<std::pair<int, int>, int> pair_index;
  for (int c = 0; c < layers.num_classes; ++c) {
    ASSIGN_OR_RETURN(auto sub, ExtractLayers(module, layers, single_of_class[c], single_of_class[c]));
    singles.push_back({single_of_class[c], single_of_class[c], std::move(sub)});
  }
  for (const auto& [classes, l] : pair_first) {
    ASSIGN_OR_RETURN(auto sub, ExtractLayers(module, layers, l, l + 1));
    pair_index[classes] = static_cast<int>(pairs.size());
    pairs.push_back({l, l + 1, std::move(sub)});
  }
  // Tying: every instruction of a layer -> (its class, its twin in the class's representative
  // layer, by position), so that a pair is priced with its layers' class plans.
  absl::flat_hash_map<std::string, std::pair<int, std::string>> twin_name;
  {
    const std::vector<std::vector<int>> members = LayerMembers(layers);
    for (int l = 0; l < L; ++l) {
      const int c = layers.tie_class[l];
      const std::vector<int>& own = members[l];
      const std::vector<int>& rep = members[single_of_class[c]];
      if (own.size() != rep.size()) continue;  // equal signatures: never
      for (size_t k = 0; k < own.size(); ++k)
        twin_name[layers.schedule[own[k]]->name()] = {c, layers.schedule[rep[k]]->name()};
    }
  }

  // Price every unit on every logical mesh; then every span from prefix sums over the layers.
  // Weights as plan.h tells them apart: parameters whose shape is that of an output (their update).
  absl::flat_hash_set<std::string> parameter_names;
  {
    std::vector<Shape> outputs;
    const Instruction* root = module.entry()->root();
    if (root->opcode() == Opcode::kTuple)
      for (const Instruction* op : root->operands()) outputs.push_back(op->shape());
    for (const Instruction* p : module.entry()->parameters())
      if (std::find(outputs.begin(), outputs.end(), p->shape()) != outputs.end()) parameter_names.insert(p->name());
  }
  const Scaling scaling{.microbatches = M,
                        .loop = options.given_layers,
                        .accumulated = options.accumulated,
                        .layer_inputs = options.layer_inputs};
  const auto start = std::chrono::steady_clock::now();
  r.table = StageCostTable(L, r.submeshes);
  // The layer whose plan describes a span: one of the most common class (the repeated body).
  std::vector<int> class_count(layers.num_classes, 0);
  for (int c : layers.tie_class) ++class_count[c];
  // Receiving a stage's inputs per microbatch: the activations at its first boundary and the
  // gradients at its last, each device its 1/n share, over the outermost link. (On a
  // microbatched module they are a microbatch's already.)
  const double boundary_scale = scaling.loop != nullptr ? 1.0 : 1.0 / static_cast<double>(M);
  auto TransferSeconds = [&](int k, int i, int64_t devices) {
    if (hw.links.empty()) return 0.0;
    const HardwareProfile::Link& link = hw.links.back();
    double s = 0;
    for (int64_t bytes : {k > 0 ? layers.forward_bytes[k] : 0, i + 1 < L ? layers.backward_bytes[i + 1] : 0}) {
      if (bytes == 0) continue;
      const double share = static_cast<double>(bytes) * boundary_scale / static_cast<double>(devices);
      s += link.latency + (link.bandwidth > 0 ? share / link.bandwidth : 0);
    }
    return s;
  };
  // Every span's option on submesh `m` from the units' costs on one logical mesh and variant.
  auto add_spans = [&](const std::vector<UnitCost>& single, const std::vector<UnitCost>& pair, size_t m,
                       const LogicalMesh& lm, int v) {
    // Per layer its class's cost per microbatch; per boundary l | l + 1 the pair's excess over
    // its layers (the same plans: the resharding between them), a microbatch's. A span never
    // costs less than the compute of its layers.
    std::vector<double> pt(L + 1, 0), pc(L + 1, 0), pw(L + 1, 0), pa(L + 1, 0), qt(L, 0), qw(L, 0), qa(L, 0);
    for (int l = 0; l < L; ++l) {
      const UnitCost& c = single[layers.tie_class[l]];
      pt[l + 1] = pt[l] + c.mb_seconds, pa[l + 1] = pa[l] + c.mb_activation_bytes;
      pw[l + 1] = pw[l] + c.weight_bytes + c.accumulator_bytes + c.loop_weight_bytes;
      pc[l + 1] = pc[l] + c.mb_compute_seconds;
    }
    for (int l = 0; l + 1 < L; ++l) {
      const UnitCost& a = single[layers.tie_class[l]];
      const UnitCost& b = single[layers.tie_class[l + 1]];
      const UnitCost& p = pair[pair_index.at({layers.tie_class[l], layers.tie_class[l + 1]})];
      qt[l + 1] = qt[l] + (p.seconds - a.seconds - b.seconds) * boundary_scale;
      qw[l + 1] = qw[l] + (p.weight_bytes - a.weight_bytes - b.weight_bytes);
      // Where only the layers' inputs are held, the pairs' other memory is transient (its max).
      if (scaling.loop == nullptr) qa[l + 1] = qa[l] + (p.other_bytes - a.other_bytes - b.other_bytes) * boundary_scale;
    }
    auto class_plans = std::make_shared<std::vector<std::shared_ptr<const UnitPlan>>>();
    for (const UnitCost& c : single) class_plans->push_back(c.plan);
    for (int k = 0; k < L; ++k) {
      int rep = k;
      double transient = 0;
      for (int i = k; i < L; ++i) {
        if (class_count[layers.tie_class[i]] > class_count[layers.tie_class[rep]]) rep = i;
        transient = std::max(transient, single[layers.tie_class[i]].transient_bytes);
        // Pairs inside [k, i] are the boundaries k|k+1 ... i-1|i: qt[i] - qt[k].
        const double t = std::max(pc[i + 1] - pc[k], pt[i + 1] - pt[k] + qt[i] - qt[k]);
        const double w = std::max(0.0, pw[i + 1] - pw[k] + qw[i] - qw[k]);
        const double a = std::max(0.0, pa[i + 1] - pa[k] + qa[i] - qa[k]);
        StageOption o;
        o.mesh = lm.ToString();
        o.variant = kVariantNames[v];
        o.transfer_seconds = TransferSeconds(k, i, r.submeshes[m].devices());
        o.seconds = t + o.transfer_seconds;
        o.weight_bytes = static_cast<int64_t>(std::ceil(w));
        o.activation_bytes = static_cast<int64_t>(std::ceil(a));
        o.transient_bytes = static_cast<int64_t>(std::ceil(transient));
        o.summary = single[layers.tie_class[rep]].summary;
        o.plan = single[layers.tie_class[rep]].plan;
        o.class_plans = class_plans;
        r.table.at(k, i, static_cast<int>(m)).push_back(std::move(o));
      }
    }
  };
  // The (logical mesh, unit) pricings are independent, the pairs' after their classes': a pool
  // of threads takes the single layers, then the pairs, in order; each result depends only on
  // its inputs (work limits, not clocks, end the searches), so the table is the same for any
  // thread count.
  struct MeshAt {
    size_t m;
    const LogicalMesh* lm;
  };
  std::vector<MeshAt> meshes;
  for (size_t m = 0; m < r.submeshes.size(); ++m)
    for (const LogicalMesh& lm : logical[m]) meshes.push_back({m, &lm});
  const size_t C = singles.size(), P = pairs.size();
  // A layer's boundary with the next one, where the layers are given: its input as its output,
  // its output cotangent as its input cotangent.
  std::vector<std::vector<std::pair<std::string, std::string>>> boundary(C);
  if (options.layer_inputs != nullptr && options.layer_cotangents != nullptr)
    for (size_t c = 0; c < C; ++c) {
      const int l = singles[c].first;
      if (l + 1 >= L || l + 1 >= static_cast<int>(options.layer_inputs->size()) ||
          l + 1 >= static_cast<int>(options.layer_cotangents->size()))
        continue;
      boundary[c].push_back({(*options.layer_inputs)[l] + ".in", (*options.layer_inputs)[l + 1]});
      boundary[c].push_back({(*options.layer_cotangents)[l + 1] + ".in", (*options.layer_cotangents)[l]});
    }
  std::vector<StatusOr<std::vector<UnitCost>>> priced(meshes.size() * C, absl::UnknownError("not priced"));
  std::vector<StatusOr<std::vector<UnitCost>>> priced_pairs(meshes.size() * P, absl::UnknownError("not priced"));
  std::vector<int64_t> solves(meshes.size() * C, 0);
  const int threads = static_cast<int>(std::clamp<size_t>(
      options.threads > 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency()), 1,
      std::max<size_t>(1, meshes.size() * C)));
  auto run = [&](size_t jobs, const std::function<void(size_t)>& job) {
    std::atomic<size_t> next{0};
    auto worker = [&] {
      for (size_t j = next++; j < jobs; j = next++) job(j);
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
    worker();
    for (std::thread& t : pool) t.join();
  };
  run(meshes.size() * C, [&](size_t j) {
    const Unit& u = singles[j % C];
    StatusOr<std::vector<UnitCost>> cost = PriceUnit(*u.module, u.first, *meshes[j / C].lm, options, r.memory_limit,
                                                     parameter_names, boundary[j % C], solves[j]);
    if (cost.ok()) {
      StatusOr<Mesh> mesh = Mesh::Parse(meshes[j / C].lm->ToString());
      for (size_t v = 0; v < cost->size() && mesh.ok(); ++v) {
        UnitCost& c = (*cost)[v];
        if (v > 0 && c.plan == (*cost)[v - 1].plan) {  // a variant that repeats the one before
          c = (*cost)[v - 1];
          continue;
        }
        Status s = PerMicrobatch(c, scaling, *c.plan->annotated, u.first, *mesh, hw);
        if (!s.ok()) cost = s;
      }
      if (!mesh.ok()) cost = mesh.status();
    }
    priced[j] = std::move(cost);
  });
  for (size_t j = 0; j < priced.size(); ++j) {
    if (!priced[j].ok()) return priced[j].status();
    r.intra_op_solves += solves[j];
    ++r.unit_pricings;
  }
  run(meshes.size() * P, [&](size_t j) {
    const size_t mi = j / P;
    std::vector<const UnitCost*> class_cost(C);
    std::vector<UnitCost> out;
    for (int v = 0; v < kVariants; ++v) {
      for (size_t c = 0; c < C; ++c) class_cost[c] = &(*priced[mi * C + c])[v];
      StatusOr<UnitCost> cost = PriceTiedPair(*pairs[j % P].module, pairs[j % P].first, *meshes[mi].lm, hw,
                                              r.memory_limit, twin_name, class_cost, parameter_names);
      if (!cost.ok()) {
        priced_pairs[j] = cost.status();
        return;
      }
      out.push_back(*std::move(cost));
    }
    priced_pairs[j] = std::move(out);
  });
  for (size_t j = 0; j < priced_pairs.size(); ++j) {
    if (!priced_pairs[j].ok()) return priced_pairs[j].status();
    ++r.unit_pricings;
  }
  r.threads = threads;
  for (size_t mi = 0; mi < meshes.size(); ++mi)
    for (int v = 0; v < kVariants; ++v) {
      std::vector<UnitCost> single(C), pair(P);
      for (size_t c = 0; c < C; ++c) single[c] = (*priced[mi * C + c])[v];
      for (size_t q = 0; q < P; ++q) pair[q] = (*priced_pairs[mi * P + q])[v];
      add_spans(single, pair, meshes[mi].m, *meshes[mi].lm, v);
    }
  r.pricing_seconds = Seconds(start);

  const auto search_start = std::chrono::steady_clock::now();
  StageSearchOptions so;
  so.num_devices = D;
  so.microbatches = M;
  so.schedule = options.schedule;
  so.memory_limit = r.memory_limit;
  so.stages = options.stages;
  ASSIGN_OR_RETURN(r.search, SearchStages(r.table, so));
  r.search_seconds = Seconds(search_start);
  if (!r.search.best)
    return absl::ResourceExhaustedError(fmt::format("no stage plan fits in {} per device", FormatBytes(r.memory_limit)));
  // Placement: largest submeshes first, so that whole hosts come first and the power-of-two
  // pieces inside a host each start at a multiple of their size.
  const StagePlan& best = *r.search.best;
  std::vector<int> order(best.stages.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return r.submeshes[best.stages[a].submesh].devices() > r.submeshes[best.stages[b].submesh].devices();
  });
  r.first_device.assign(best.stages.size(), 0);
  int64_t next = 0;
  for (int i : order) {
    r.first_device[i] = next;
    next += r.submeshes[best.stages[i].submesh].devices();
  }
  const StagePlan* uniform = best.uniform ? &best : (r.search.best_uniform ? &*r.search.best_uniform : nullptr);
  if (uniform != nullptr) {
    PipelineEmission e;
    e.plan = *uniform;
    e.chosen = uniform == &best;
    e.stages = static_cast<int>(uniform->stages.size());
    e.microbatches = M;
    const Stage& s0 = uniform->stages.front();
    const StageOption& o = r.table.at(s0.first_layer, s0.last_layer, s0.submesh)[s0.option];
    e.devices_per_stage = r.submeshes[s0.submesh].devices();
    e.stage_mesh = o.mesh;
    e.layer_plan = o.plan;
    if (o.class_plans) {
      e.first_plan = (*o.class_plans)[r.layers.tie_class.front()];
      e.last_plan = (*o.class_plans)[r.layers.tie_class.back()];
    }
    r.emission = std::move(e);
  }
  return r;
}

}  // namespace spmdc::autoshard

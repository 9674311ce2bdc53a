#include "auto/plan.h"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <map>

#include "absl/container/flat_hash_map.h"
#include "auto/carried_state.h"
#include "auto/control_flow.h"
#include "auto/tactic_search.h"
#include "auto/tied_search.h"
#include "fmt/format.h"
#include "hlo/shardy_import.h"
#include "partitioner/partitioner.h"
#include "passes/passes.h"
#include "propagation/dot_dims.h"
#include "propagation/propagation.h"

namespace spmdc::autoshard {
namespace {

constexpr double kPicoseconds = 1e12;
// The search's work per strategy-pair entry when no work limit is given (SolveWork).
constexpr int64_t kDefaultWorkPerEntry = 1000;
// Searches with a tightened memory limit when the full cost model finds a plan over it.
constexpr int kMemoryRounds = 4;
// Carried parameters the untied search conditions on when its solve stays loose (tied_search.h).
constexpr int kUntiedConditionings = 4;

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

double CpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// Adds the CPU seconds since the last lap to a phase of PlanTimes.
class CpuLaps {
 public:
  CpuLaps() : last_(CpuSeconds()) {}
  void Lap(double& phase) {
    const double now = CpuSeconds();
    phase += now - last_;
    last_ = now;
  }
  // Moves `seconds` of the running lap to `phase` (a part measured inside it).
  void Take(double& phase, double seconds) {
    phase += seconds;
    last_ += seconds;
  }

 private:
  double last_;
};

// Parameter roles (plan.h).
struct Roles {
  std::vector<const Instruction*> inputs, weights;
};

Roles RolesOf(const Module& module) {
  Roles r;
  const Computation& entry = *module.entry();
  std::vector<Shape> outputs;
  if (entry.root()->opcode() == Opcode::kTuple)
    for (const Instruction* op : entry.root()->operands()) outputs.push_back(op->shape());
  for (const Instruction* p : entry.parameters()) {
    if (!p->shape().IsArray() || p->shape().rank() == 0) continue;
    const bool weight = std::any_of(outputs.begin(), outputs.end(), [&](const Shape& s) { return s == p->shape(); });
    (weight ? r.weights : r.inputs).push_back(p);
  }
  return r;
}

// The mesh axes among `allowed` (in mesh order) that together divide `size`, greedily.
uint32_t DividingAxes(const Mesh& mesh, int64_t size, uint32_t allowed) {
  uint32_t m = 0;
  int64_t prod = 1;
  for (int a = 0; a < mesh.num_axes(); ++a) {
    if (!(allowed & (1u << a))) continue;
    const int64_t n = mesh.axes()[a].size;
    if (n > 1 && size % (prod * n) == 0) {
      m |= 1u << a;
      prod *= n;
    }
  }
  return m;
}

uint32_t UnionOfMasks(const AxisMasks& m) {
  uint32_t u = 0;
  for (uint32_t x : m) u |= x;
  return u;
}

int64_t DevicesOf(const Mesh& mesh, uint32_t mask) {
  int64_t n = 1;
  for (int a = 0; a < mesh.num_axes(); ++a)
    if (mask & (1u << a)) n *= mesh.axes()[a].size;
  return n;
}

// The experts dim of each weight that has one (plan.h): a dim some dot batches over when it
// reads the weight (directly or through a convert), then every weight of an expert weight's shape
// (its optimizer state) with the same dim. Empty when the module has no experts.
std::vector<std::pair<const Instruction*, int64_t>> ExpertDims(const Roles& roles) {
  std::vector<std::pair<const Instruction*, int64_t>> found;
  for (const Instruction* w : roles.weights) {
    std::optional<int64_t> dim;
    std::vector<const Instruction*> readers = {w};
    for (size_t k = 0; k < readers.size() && !dim; ++k) {
      for (const Instruction* u : readers[k]->users()) {
        if (u->opcode() == Opcode::kConvert) readers.push_back(u);
        if (u->opcode() != Opcode::kDot || dim) continue;
        for (int64_t side = 0; side < 2 && !dim; ++side) {
          if (u->operand(side) != readers[k]) continue;
          for (const DotDim& b : DotDimsOfDot(*u).batch)
            if ((side == 0 ? b.lhs : b.rhs) >= 0) dim = side == 0 ? b.lhs : b.rhs;
        }
      }
    }
    if (dim) found.emplace_back(w, *dim);
  }
  const size_t experts = found.size();
  for (const Instruction* w : roles.weights) {
    if (std::any_of(found.begin(), found.end(), [&](const auto& f) { return f.first == w; })) continue;
    for (size_t k = 0; k < experts; ++k)
      if (found[k].first->shape() == w->shape()) {
        found.emplace_back(w, found[k].second);
        break;
      }
  }
  return found;
}

// The axis a plan's weight update is sharded over: among the axes its inputs' batch (dim 0) is
// split over, the one named `data`, else the largest (the first on ties); none when the batch is
// not split.
std::optional<std::string> DataAxisOf(const Mesh& mesh, const Roles& roles, const PricedPlan& plan) {
  uint32_t batch = 0;
  for (const Instruction* p : roles.inputs) {
    const int64_t k = p->parameter_number();
    if (k < 0 || k >= static_cast<int64_t>(plan.parameter_shardings.size())) continue;
    if (std::optional<AxisMasks> m = MasksFromSharding(mesh, plan.parameter_shardings[k], p->shape().rank()))
      batch |= (*m)[0];
  }
  int best = -1;
  for (int a = 0; a < mesh.num_axes(); ++a) {
    if (!(batch & (1u << a))) continue;
    if (mesh.axes()[a].name == "data") return mesh.axes()[a].name;
    if (best < 0 || mesh.axes()[a].size > mesh.axes()[best].size) best = a;
  }
  if (best < 0) return std::nullopt;
  return mesh.axes()[best].name;
}

// `module` with the given parameter splits (others cleared unless kept) for propagation to fill,
// and the state the step carries to the next (carried_state.h) coming out split as its
// parameter goes in, as a JAX user writes a training step (out_shardings = in_shardings for the
// state, or with_sharding_constraint): a Sharding constraint on each such output, unless the
// root's sharding already says how the outputs come out (and not without `carried_state`).
std::unique_ptr<Module> AnnotateParameters(const Module& module, const Mesh& mesh,
                                           const std::vector<std::pair<const Instruction*, AxisMasks>>& splits,
                                           bool carried_state) {
  std::unique_ptr<Module> m = module.Clone();
  m->set_num_partitions(mesh.num_devices());
  absl::flat_hash_map<std::string, const AxisMasks*> by_name;
  for (const auto& [p, masks] : splits) by_name[p->name()] = &masks;
  absl::flat_hash_map<int64_t, const AxisMasks*> by_number;
  for (Instruction* p : m->entry()->parameters()) {
    auto it = by_name.find(p->name());
    if (it == by_name.end()) continue;
    p->set_sharding(std::make_shared<const Sharding>(ShardingFromMasks(mesh, *it->second)));
    by_number[p->parameter_number()] = it->second;
  }
  Instruction* root = m->entry()->root();
  if (!carried_state || root->has_sharding() || root->opcode() != Opcode::kTuple) return m;
  for (const CarriedValue& c : FindCarriedValues(*m)) {
    auto it = by_number.find(c.parameter);
    if (it == by_number.end() || c.output < 0) continue;
    Instruction* value = root->operand(c.output);
    Instruction* constraint = m->entry()->AddInstruction(Opcode::kCustomCall, value->shape(),
                                                         m->UniqueName(value->name() + ".carried"), {value});
    constraint->attrs().Set(AttrId::kCustomCallTarget, std::string("Sharding"));
    constraint->set_sharding(std::make_shared<const Sharding>(ShardingFromMasks(mesh, *it->second)));
    root->ReplaceOperandWith(c.output, constraint);
  }
  return m;
}

// `share`: of the options' time and work (SolveConditioned).
StatusOr<SolveResult> SolveProblem(const Problem& problem, const PlanOptions& options, const std::string& phase,
                                   double share = 1.0) {
  SolveOptions so;
  if (options.progress) {
    so.progress = [&](const SolveProgress& p) {
      SearchProgress sp;
      sp.elapsed_s = p.elapsed_s;
      if (p.has_solution) sp.estimate_s = static_cast<double>(p.cost) / kPicoseconds;
      sp.bound_s = static_cast<double>(p.lower_bound) / kPicoseconds;
      sp.phase = phase;
      options.progress(sp);
    };
  }
  so.time_limit_s = share * options.time_limit_s;
  so.threads = 1;
  so.seed = 1;
  so.use_milp = options.use_milp;
  so.relative_gap = options.relative_gap;
  so.work_limit = SolveWork(problem, options.work_limit, kDefaultWorkPerEntry, share);
  return Solve(problem, so);
}

std::string NoPlanFits(int64_t limit, int64_t smallest) {
  return fmt::format("no plan fits in {}: the smallest needs {}", FormatBytes(limit), FormatBytes(smallest));
}

}  // namespace

Status PrepareForPlanning(Module& module) {
  ASSIGN_OR_RETURN(bool inlined, RunInlineCalls(module));
  if (inlined) {
    RETURN_IF_ERROR(RunTupleSimplifier(module).status());
    RETURN_IF_ERROR(RunDce(module).status());
  }
  return RunFlattenControlFlow(module).status();
}

void DropAnnotations(Module& module) {
  for (Computation* c : module.computations())
    for (Instruction* i : c->instructions()) {
      if (i->IsCustomCall("Sharding") || i->IsCustomCall("SPMDFullToShardShape") ||
          i->IsCustomCall("SPMDShardToFullShape") || HasManualSharding(*i))
        continue;
      const bool enters_region = std::any_of(i->users().begin(), i->users().end(), [](const Instruction* u) {
        return u->IsCustomCall("SPMDFullToShardShape");
      });
      if (!enters_region) i->clear_sharding();
    }
}

Status ChosenPlanFits(const AutoResult& result) {
  if (result.Chosen().fits) return absl::OkStatus();
  int64_t smallest = result.search.peak_bytes;
  for (const auto* plans : {&result.standard, &result.update_sharded})
    for (const PricedPlan& p : *plans) smallest = std::min(smallest, p.peak_bytes);
  return absl::ResourceExhaustedError(NoPlanFits(result.memory_limit, smallest));
}

std::string FormatBytes(int64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, ++u;
  return u == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.2f} {}", v, units[u]);
}

std::unique_ptr<Module> AnnotateWithChoice(const Module& module, const StrategySpace& space,
                                           const std::vector<int64_t>& choice) {
  std::unique_ptr<Module> m = module.Clone();
  m->set_num_partitions(space.mesh.num_devices());
  // Instruction names are unique in a module, so they map the space's instructions to the clone's.
  absl::flat_hash_map<std::string, Instruction*> clone_of;
  for (Computation* c : m->computations())
    for (Instruction* instr : c->instructions()) clone_of[instr->name()] = instr;
  // Every planned value, loop bodies and branches included: an array its node's sharding, a
  // tuple the tuple of its leaves' (a leaf no node decides keeps what it had, else replicated).
  for (const SpaceValue& v : space.values) {
    Instruction* instr = clone_of[v.instr->name()];
    if (!instr->shape().IsTuple()) {
      if (v.leaf_nodes[0] >= 0)
        instr->set_sharding(std::make_shared<const Sharding>(space.OutputSharding(v.leaf_nodes[0], choice[v.leaf_nodes[0]])));
      continue;
    }
    const std::shared_ptr<const Sharding> before = instr->sharding_ptr();
    std::vector<Sharding> leaves;
    for (size_t l = 0; l < v.leaf_nodes.size(); ++l) {
      const int node = v.leaf_nodes[l];
      if (node >= 0) {
        leaves.push_back(space.OutputSharding(node, choice[node]));
      } else if (before && before->IsTuple() && l < before->tuple_elements().size()) {
        leaves.push_back(before->tuple_elements()[l]);
      } else {
        leaves.push_back(Sharding::Replicate());
      }
    }
    if (leaves.empty()) leaves.push_back(Sharding::Replicate());
    instr->set_sharding(std::make_shared<const Sharding>(Sharding::Tuple(std::move(leaves))));
  }
  // A dot, convolution, reduce or topk whose operands come in another split than its strategy
  // needs: the partitioner would pick its own plan for the operands as they are (by its rough
  // resharding estimate), not the one the search priced. A Sharding constraint on the operand
  // (JAX's with_sharding_constraint), in the consumer's computation, makes it reshard first, as
  // the edge cost says.
  std::map<std::pair<std::string, std::string>, Instruction*> constraints;
  for (int j = 0; j < static_cast<int>(space.nodes.size()); ++j) {
    const StrategyNode& consumer = space.nodes[j];
    const Opcode op = consumer.instr->opcode();
    if (consumer.manual || (op != Opcode::kDot && op != Opcode::kConvolution && op != Opcode::kReduce &&
                            op != Opcode::kTopK && !consumer.instr->IsCustomCall("TopK")))
      continue;
    const Strategy& st = consumer.strategies[choice[j]];
    for (int64_t k = 0; k < consumer.instr->operand_count(); ++k) {
      const int p = k < static_cast<int64_t>(consumer.operand_nodes.size()) ? consumer.operand_nodes[k] : -1;
      if (p < 0 || k >= static_cast<int64_t>(st.operands.size())) continue;
      if (space.nodes[p].strategies[choice[p]].output == st.operands[k]) continue;
      Instruction* from = clone_of[consumer.instr->operand(k)->name()];
      const Sharding want = ShardingFromMasks(space.mesh, st.operands[k]);
      auto [cit, fresh] = constraints.try_emplace({from->name(), want.ToString(false)}, nullptr);
      if (fresh) {
        Instruction* c = from->parent()->AddInstruction(Opcode::kCustomCall, from->shape(),
                                                        m->UniqueName(from->name() + ".auto_reshard"), {from});
        c->attrs().Set(AttrId::kCustomCallTarget, std::string("Sharding"));
        c->set_sharding(std::make_shared<const Sharding>(want));
        cit->second = c;
      }
      clone_of[consumer.instr->name()]->ReplaceOperandWith(k, cit->second);
    }
  }
  return m;
}

namespace {

// `spmdc report`'s analysis of a partitioned program on `mesh`.
CostReport CostOnMesh(const Module& partitioned, const Mesh& mesh, const HardwareProfile& hw) {
  CostOptions co;
  co.num_partitions = mesh.num_devices();
  co.mesh = mesh;
  return AnalyzeCost(partitioned, co, hw);
}

// What the next step pays to reshard the state this step hands it (carried_state.h): each
// carried output that comes out split unlike its parameter goes in as the partitioner moves it
// (a copy from the output's sharding to the parameter's), costed like the step itself.
struct CarryCost {
  double seconds = 0;
  int64_t values = 0;
  int64_t bytes = 0;  // collective bytes per device
};

StatusOr<CarryCost> PriceCarriedState(const Module& module, const PartitionResult& partitioned, const Mesh& mesh,
                                      const HardwareProfile& hw) {
  CarryCost out;
  auto carry = std::make_unique<Module>("carried_state");
  Computation* entry = carry->AddComputation(std::make_unique<Computation>("next_step"), /*is_entry=*/true);
  std::vector<Instruction*> moved;
  std::vector<Shape> shapes;
  std::vector<Sharding> wanted;
  const Sharding& result = partitioned.result_sharding;
  for (const CarriedValue& c : FindCarriedValues(module)) {
    if (c.parameter >= static_cast<int64_t>(partitioned.parameter_shardings.size())) continue;
    const Sharding* from = &result;
    if (c.output >= 0) {
      if (!result.IsTuple()) continue;
      if (c.output >= static_cast<int64_t>(result.tuple_elements().size())) continue;
      from = &result.tuple_elements()[c.output];
    }
    const Sharding& to = partitioned.parameter_shardings[c.parameter];
    if (*from == to || from->IsTuple() || to.IsTuple()) continue;
    const Instruction* param = nullptr;
    for (const Instruction* p : module.entry()->parameters())
      if (p->parameter_number() == c.parameter) param = p;
    if (!param) continue;
    Instruction* in = entry->AddInstruction(Opcode::kParameter, param->shape(), carry->UniqueName(param->name()));
    in->set_parameter_number(static_cast<int64_t>(moved.size()));
    in->set_sharding(std::make_shared<const Sharding>(*from));
    Instruction* next = entry->AddInstruction(Opcode::kCopy, param->shape(), carry->UniqueName(param->name() + ".next"), {in});
    next->set_sharding(std::make_shared<const Sharding>(to));
    moved.push_back(next);
    shapes.push_back(param->shape());
    wanted.push_back(to);
  }
  if (moved.empty()) return out;
  Instruction* root =
      entry->AddInstruction(Opcode::kTuple, Shape::Tuple(std::move(shapes)), carry->UniqueName("next_state"), moved);
  root->set_sharding(std::make_shared<const Sharding>(Sharding::Tuple(std::move(wanted))));
  entry->set_root(root);
  RETURN_IF_ERROR(entry->RebuildParameterList());
  carry->set_num_partitions(mesh.num_devices());
  ASSIGN_OR_RETURN(PartitionResult result_module, PartitionAndCleanUp(*carry, PartitionOptions{mesh.num_devices()}));
  const CostReport report = CostOnMesh(*result_module.module, mesh, hw);
  out.seconds = report.time.overlapped_seconds;
  out.values = static_cast<int64_t>(moved.size());
  for (const CollectiveCost& c : report.collectives) out.bytes += c.bytes_per_device * c.executions;
  return out;
}

}  // namespace

StatusOr<PricedPlan> PricePlan(std::unique_ptr<Module> annotated, const Mesh& mesh, const HardwareProfile& hw,
                               int64_t memory_limit, const WeightUpdateOptions* weight_update, bool carried_state) {
  PricedPlan plan;
  std::unique_ptr<Module> work = annotated->Clone();
  // Outputs without a sharding take the one propagation gives them (out_shardings left to the
  // compiler), as the search's plans choose theirs.
  PropagationOptions po;
  if (!work->entry()->root()->has_sharding()) po.allow_to_output = std::vector<bool>{true};
  RETURN_IF_ERROR(PropagateShardings(*work, po).status());
  if (weight_update) {
    ASSIGN_OR_RETURN(WeightUpdateResult updated, ShardWeightUpdate(*work, *weight_update));
    if (updated.updates.empty())
      return absl::FailedPreconditionError(fmt::format("weight-update sharding over {} shards no update{}",
                                                       weight_update->axis,
                                                       updated.skipped.empty() ? "" : ": " + updated.skipped[0]));
    plan.weight_update = updated.Summary(*weight_update);
    // The rewritten module is the plan: every instruction annotated, so that compile and verify
    // (propagation keeps what is annotated) make this same program without the flag.
    annotated = work->Clone();
  }
  Instruction* root = annotated->entry()->root();
  if (!root->has_sharding() && work->entry()->root()->has_sharding())
    root->set_sharding(work->entry()->root()->sharding_ptr());
  ASSIGN_OR_RETURN(PartitionResult result, PartitionAndCleanUp(*work, PartitionOptions{mesh.num_devices()}));
  const CostReport report = CostOnMesh(*result.module, mesh, hw);
  plan.step_seconds = report.time.overlapped_seconds;
  plan.compute_seconds = report.time.compute_seconds;
  plan.communication_seconds = report.time.communication_seconds;
  for (const CollectiveCost& c : report.collectives) plan.collective_bytes += c.bytes_per_device * c.executions;
  plan.peak_bytes = report.memory.peak_bytes;
  plan.fits = plan.peak_bytes <= memory_limit;
  plan.warnings = result.stats.warnings;
  // A training step's plan is run step after step: resharding the state it hands the next step
  // is part of its step time (the program `report` prices does not show it).
  CarryCost carry;
  if (carried_state) {
    ASSIGN_OR_RETURN(carry, PriceCarriedState(*annotated, result, mesh, hw));
  }
  if (carry.values > 0) {
    plan.carry_seconds = carry.seconds;
    plan.step_seconds += carry.seconds;
    plan.communication_seconds += carry.seconds;
    plan.collective_bytes += carry.bytes;
    plan.carried_resharded = carry.values;
  }
  plan.result_sharding = result.result_sharding;
  plan.parameter_shardings = result.parameter_shardings;
  // A module read from Shardy carries `xla.sdy.sharding` attributes: made to say what the plan's
  // shardings say (as `propagate` prints them), else the written module would contradict itself.
  ExportShardyAttributes(*annotated);
  plan.annotated = std::move(annotated);
  return plan;
}

namespace {

// The ILP search (1. in plan.h): fills out.search and the search's figures; `problem` is left
// with the space limit of the last round.
Status SearchStrategySpace(const Module& module, const PlanOptions& options, Problem& problem, AutoResult& out,
                           CpuLaps& laps) {
  const StrategySpace& space = *out.space;
  const Mesh& mesh = options.mesh;
  const HardwareProfile& hw = *options.hardware;
  const int64_t smallest = space.SmallestPeakBytes();
  // The strategy space counts each value's bytes over its live interval; the full model also
  // counts what the partitioner's collectives and temporaries hold, so a plan the space says fits
  // may not. Then the space's limit is tightened by the excess and the search repeated
  // (a few rounds); the fastest plan that fits is kept (else the one with the smallest peak). The
  // bound and gap are those of the first round: the space at the user's limit.
  // With repeated layers tied, the tied search (tied_search.h) finds the plans and the untied
  // problem's bound; otherwise the solver works on the space's problem directly.
  const auto start = std::chrono::steady_clock::now();
  std::optional<TiedSearch> tied;
  if (space.ties.tied()) {
    TiedSearchOptions to;
    to.time_limit_s = options.time_limit_s;
    to.work_limit = options.work_limit;
    to.use_milp = options.use_milp;
    to.relative_gap = options.relative_gap;
    to.progress = options.progress;
    tied.emplace(space, std::move(to));
  }
  int64_t space_limit = out.memory_limit;
  const std::vector<int> carried_vars = tied ? std::vector<int>{} : CarriedVariables(space);
  bool have = false;
  int chosen_round = 0;
  int64_t chosen_limit = space_limit;
  for (int round = 0; round < kMemoryRounds; ++round) {
    std::vector<int64_t> choice;
    TotalCost cost = 0;
    std::string how;
    Status failed = absl::OkStatus();
    if (tied) {
      StatusOr<TiedSearchResult> r = tied->Run(space_limit, /*bound=*/round == 0);
      if (r.ok()) {
        laps.Take(out.cpu.bound, r->bound_cpu_s);
        if (round == 0) {
          out.presolve = r->presolve;
          out.lower_bound_seconds = static_cast<double>(r->lower_bound) / kPicoseconds;
          out.bound_method = r->bound_method;
          out.optimal = r->lower_bound >= r->cost;
        }
        choice = std::move(r->choice);
        cost = r->cost;
        how = std::move(r->how);
      } else {
        failed = r.status();
      }
    } else {
      problem.usage_limit = space_limit;
      // Conditioned on carried parameters while loose (tied_search.h), as the tied search's x0.
      StatusOr<SolveResult> solved =
          SolveConditioned(problem, carried_vars, kUntiedConditionings,
                           [&](const Problem& p, double share) { return SolveProblem(p, options, "search", share); });
      if (solved.ok()) {
        if (round == 0) {
          out.presolve = solved->presolve;
          out.lower_bound_seconds = static_cast<double>(solved->lower_bound) / kPicoseconds;
          out.bound_method = solved->bound_method;
          out.optimal = solved->optimal;
        }
        choice = space.Expand(solved->solution);
        cost = solved->cost;
      } else {
        failed = solved.status();
      }
    }
    laps.Lap(out.cpu.search);
    if (!failed.ok()) {
      if (failed.code() != absl::StatusCode::kResourceExhausted) return failed;
      if (round == 0) return absl::ResourceExhaustedError(NoPlanFits(out.memory_limit, smallest));
      break;
    }
    ASSIGN_OR_RETURN(PricedPlan priced, PricePlan(AnnotateWithChoice(module, space, choice), mesh, hw, out.memory_limit,
                                                  nullptr, options.carried_state));
    laps.Lap(out.cpu.pricing);
    priced.model_seconds = static_cast<double>(cost) / kPicoseconds;
    if (!how.empty()) priced.description = how;
    const bool better = !have || (priced.fits && !out.search.fits) ||
                        (priced.fits == out.search.fits &&
                         (priced.fits ? priced.step_seconds < out.search.step_seconds
                                      : priced.peak_bytes < out.search.peak_bytes));
    if (better) {
      out.search = std::move(priced);
      have = true;
      chosen_round = round;
      chosen_limit = space_limit;
    }
    if (out.search.fits) break;
    // Tighten by the full model's excess over the space's own peak for this plan.
    const int64_t full_peak = std::max<int64_t>(1, out.search.peak_bytes);
    const int64_t next = static_cast<int64_t>(static_cast<double>(space_limit) *
                                              (static_cast<double>(out.memory_limit) / full_peak) * 0.99);
    if (next >= space_limit || next < smallest) break;
    space_limit = next;
  }
  out.search_seconds = Seconds(start);
  out.model_cost_seconds = *out.search.model_seconds;
  out.gap = out.model_cost_seconds > 0
                ? std::max(0.0, (out.model_cost_seconds - out.lower_bound_seconds) / out.model_cost_seconds)
                : 0.0;
  if (out.gap > 0) out.optimal = false;
  if (chosen_round > 0) {
    out.bound_method = fmt::format("bound: {}; plan: searched again with the space's limit at {} so that the "
                                   "full model's peak fits",
                                   out.bound_method, FormatBytes(chosen_limit));
  }
  out.search.name = "auto";
  out.search_how = out.search.description;
  out.search.description = "the strategy search's plan";
  return absl::OkStatus();
}

}  // namespace

StatusOr<AutoResult> PlanAuto(const Module& module, const PlanOptions& options) {
  if (!options.hardware) return InvalidArgument("PlanAuto: no hardware profile");
  const HardwareProfile& hw = *options.hardware;
  const Mesh& mesh = options.mesh;
  AutoResult out;
  out.memory_limit = options.memory_limit ? *options.memory_limit : static_cast<int64_t>(hw.hbm_bytes);
  StrategySpaceOptions so(mesh);
  so.hardware = &hw;
  so.keep_annotations = options.keep_annotations;
  so.memory_limit = out.memory_limit;
  so.carried_state = options.carried_state;
  so.tie_layers = options.tie_layers;
  so.tie_min_entries = options.tie_min_entries;
  CpuLaps laps;
  ASSIGN_OR_RETURN(out.space, BuildStrategySpace(module, so));
  laps.Lap(out.cpu.space);
  const StrategySpace& space = *out.space;
  const int64_t smallest = space.SmallestPeakBytes();
  if (smallest > out.memory_limit) return absl::ResourceExhaustedError(NoPlanFits(out.memory_limit, smallest));

  // The search.
  Problem problem = space.ToProblem();
  if (options.search == SearchKind::kMcts) {
    RETURN_IF_ERROR(SearchTactics(module, options, out));
    laps.Lap(out.cpu.search);
  } else {
    RETURN_IF_ERROR(SearchStrategySpace(module, options, problem, out, laps));
  }

  // The standard plans.
  if (options.standard_plans && mesh.num_devices() > 1) {
    Roles roles = RolesOf(module);
    const uint32_t all = (1u << mesh.num_axes()) - 1;
    auto input_splits = [&](uint32_t allowed) {
      std::vector<std::pair<const Instruction*, AxisMasks>> s;
      for (const Instruction* p : roles.inputs) {
        AxisMasks m(p->shape().rank(), 0);
        m[0] = DividingAxes(mesh, p->shape().dim(0), allowed);
        s.emplace_back(p, std::move(m));
      }
      return s;
    };
    auto add = [&](std::string name, std::string description,
                   const std::vector<std::pair<const Instruction*, AxisMasks>>& splits) -> Status {
      StatusOr<PricedPlan> p = PricePlan(AnnotateParameters(module, mesh, splits, options.carried_state), mesh, hw,
                                         out.memory_limit, nullptr, options.carried_state);
      if (!p.ok()) return absl::OkStatus();  // a standard plan the partitioner cannot take is not a rival
      p->name = std::move(name);
      p->description = std::move(description);
      out.standard.push_back(std::move(*p));
      return absl::OkStatus();
    };
    const bool keep = options.keep_annotations;
    auto unannotated = [&](const Instruction* p) { return !(keep && p->has_sharding()); };
    // The module's own annotations are a plan of their own; when they fix every parameter, the
    // standard plans would all be that one.
    bool annotated = false, free = false;
    for (const Instruction* p : module.entry()->parameters()) annotated |= keep && p->has_sharding();
    for (const auto* list : {&roles.inputs, &roles.weights})
      for (const Instruction* p : *list) free |= unannotated(p);
    if (annotated) RETURN_IF_ERROR(add("as-annotated", "the module's own shardings, propagation fills the rest", {}));
    if (!free) roles = Roles{};
    if (!roles.inputs.empty()) {
      auto dp = input_splits(all);
      std::erase_if(dp, [&](const auto& s) { return !unannotated(s.first); });
      // The weights a plan does not split, replicated as written (in_shardings, as a user gives
      // them; weight-update sharding reads the weights' shardings).
      auto replicate_rest = [&](std::vector<std::pair<const Instruction*, AxisMasks>> splits) {
        for (const Instruction* w : roles.weights)
          if (unannotated(w) &&
              std::none_of(splits.begin(), splits.end(), [&](const auto& s) { return s.first == w; }))
            splits.emplace_back(w, AxisMasks(w->shape().rank(), 0));
        return splits;
      };
      RETURN_IF_ERROR(add("data-parallel", "inputs' batch over every axis, weights replicated", replicate_rest(dp)));
      if (!roles.weights.empty()) {
        auto fsdp = dp;
        for (const Instruction* w : roles.weights) {
          if (!unannotated(w)) continue;
          AxisMasks m(w->shape().rank(), 0);
          int best = -1;
          uint32_t best_mask = 0;
          for (int64_t d = 0; d < w->shape().rank(); ++d) {
            const uint32_t mask = DividingAxes(mesh, w->shape().dim(d), all);
            if (best < 0 || DevicesOf(mesh, mask) > DevicesOf(mesh, best_mask) ||
                (DevicesOf(mesh, mask) == DevicesOf(mesh, best_mask) && w->shape().dim(d) > w->shape().dim(best))) {
              best = static_cast<int>(d);
              best_mask = mask;
            }
          }
          if (best >= 0) m[best] = best_mask;
          fsdp.emplace_back(w, std::move(m));
        }
        RETURN_IF_ERROR(add("fsdp", "data-parallel with every weight split over every axis (ZeRO-3)", fsdp));
      }
      std::vector<std::pair<const Instruction*, int64_t>> experts = ExpertDims(roles);
      std::erase_if(experts, [&](const auto& e) { return !unannotated(e.first); });
      if (!experts.empty()) {
        auto ep = dp;
        for (const auto& [w, dim] : experts) {
          AxisMasks m(w->shape().rank(), 0);
          m[dim] = DividingAxes(mesh, w->shape().dim(dim), all);
          ep.emplace_back(w, std::move(m));
        }
        RETURN_IF_ERROR(add("expert-parallel",
                            "inputs' batch and the experts over every axis, other weights replicated (GShard)",
                            replicate_rest(ep)));
      }
    }
    if (!roles.weights.empty()) {
      // Tensor parallelism over the last axis; the batch over the others.
      const int last = static_cast<int>(mesh.num_axes()) - 1;
      const uint32_t model = 1u << last, batch = all & ~model;
      Problem restricted = problem;
      absl::flat_hash_map<const Instruction*, int> node_of;
      for (int i = 0; i < static_cast<int>(space.nodes.size()); ++i)
        if (space.nodes[i].leaf < 0) node_of[space.nodes[i].instr] = i;
      auto restrict_to = [&](const Instruction* p, auto&& allowed) {
        auto it = node_of.find(p);
        if (it == node_of.end()) return;
        const StrategyNode& n = space.nodes[it->second];
        for (size_t s = 0; s < n.strategies.size(); ++s)
          if (!allowed(n.strategies[s].output)) restricted.nodes[space.ties.var_of[it->second]].costs[s] = kForbiddenCost;
      };
      for (const Instruction* p : roles.inputs) {
        if (!unannotated(p)) continue;
        const uint32_t want = DividingAxes(mesh, p->shape().dim(0), batch);
        restrict_to(p, [&](const AxisMasks& m) {
          if (m[0] != want) return false;
          for (size_t d = 1; d < m.size(); ++d)
            if (m[d]) return false;
          return true;
        });
      }
      for (const Instruction* w : roles.weights) {
        if (!unannotated(w)) continue;
        restrict_to(w, [&](const AxisMasks& m) {
          for (uint32_t x : m)
            if (x & ~model) return false;
          return true;
        });
      }
      StatusOr<SolveResult> tp = SolveProblem(restricted, options, "the tensor-parallel standard plan");
      if (tp.ok()) {
        std::vector<std::pair<const Instruction*, AxisMasks>> splits;
        for (const Instruction* p : module.entry()->parameters()) {
          auto it = node_of.find(p);
          if (it == node_of.end() || !unannotated(p) || !p->shape().IsArray()) continue;
          splits.emplace_back(p, space.nodes[it->second].strategies[tp->solution[space.ties.var_of[it->second]]].output);
        }
        const std::string axis = mesh.axes()[last].name;
        const bool any = std::any_of(splits.begin(), splits.end(), [](const auto& s) { return UnionOfMasks(s.second) != 0; });
        const bool weight_split = std::any_of(roles.weights.begin(), roles.weights.end(), [&](const Instruction* w) {
          auto it = node_of.find(w);
          return it != node_of.end() &&
                 UnionOfMasks(space.nodes[it->second].strategies[tp->solution[space.ties.var_of[it->second]]].output) != 0;
        });
        if (any && !weight_split) {
          // Only the batch is split: a data-parallel plan over fewer axes, not tensor parallelism.
        } else if (!any) {
          RETURN_IF_ERROR(add("replicated", fmt::format("every parameter replicated (the best tensor-parallel "
                                                        "plan over {} splits nothing)", axis), splits));
        } else if (batch == 0) {
          RETURN_IF_ERROR(add("megatron", fmt::format("tensor parallel over {}: weights split column/row-wise", axis),
                              splits));
        } else {
          RETURN_IF_ERROR(add("2-d", fmt::format("batch over the other axes, Megatron tensor parallel over {}", axis),
                              splits));
        }
      }
    }
  }
  laps.Lap(out.cpu.standard);
  // Every plan so far with its weight update sharded (plan.h 3.), both modes, where it applies.
  if (options.standard_plans && options.weight_update_sharding && mesh.num_devices() > 1) {
    const Roles roles = RolesOf(module);
    std::vector<const PricedPlan*> bases = {&out.search};
    for (const PricedPlan& p : out.standard) bases.push_back(&p);
    for (const PricedPlan* base : bases) {
      const std::optional<std::string> axis = DataAxisOf(mesh, roles, *base);
      if (!axis) continue;
      for (const bool keep : {false, true}) {
        WeightUpdateOptions wo;
        wo.mesh = mesh;
        wo.axis = *axis;
        wo.keep_sharded = keep;
        StatusOr<PricedPlan> p = PricePlan(base->annotated->Clone(), mesh, hw, out.memory_limit, &wo, options.carried_state);
        if (!p.ok()) continue;  // no update to shard (or a plan the partitioner cannot take)
        p->name = base->name + (keep ? "+wus-keep" : "+wus");
        p->description = fmt::format("{} with the weight update sharded over {}{}", base->name, *axis,
                                     keep ? ", new weights kept sharded" : "");
        out.update_sharded.push_back(std::move(*p));
      }
    }
  }
  laps.Lap(out.cpu.update_sharded);
  // The fastest plan that fits; the search's plan on ties.
  auto better = [](const PricedPlan& a, const PricedPlan& b) {
    if (a.fits != b.fits) return a.fits;
    return a.fits ? a.step_seconds < b.step_seconds : a.peak_bytes < b.peak_bytes;
  };
  for (int i = 0; i < static_cast<int>(out.standard.size()); ++i)
    if (better(out.standard[i], out.Chosen())) out.chosen = i;
  for (int i = 0; i < static_cast<int>(out.update_sharded.size()); ++i)
    if (better(out.update_sharded[i], out.Chosen())) out.chosen_update = i;
  return out;
}

}  // namespace spmdc::autoshard

// spmdc auto IN --mesh AXES [--hardware NAME] [--memory-limit B] [--time-limit S] [--gap G]
// [--search ilp|mcts] [--ignore-annotations] [--no-tying] [--quiet] [-o OUT] [--specs SPECS.json]:
// chooses a sharding for every instruction (src/auto/plan.h; repeated layers tied:
// src/auto/tied_search.h; --search mcts: src/auto/tactic_search.h), writes the annotated module,
// the entry parameters' and outputs' JAX-style PartitionSpecs, and prints the chosen plan beside
// the standard ones and the weight-update-sharded variants on stderr (progress lines while stderr
// is a terminal, none with --quiet). A chosen variant's module is the one after the rewrite:
// compile and verify take it without --shard-weight-update.
// With --pipeline auto|S [--microbatches M] [--schedule gpipe|1f1b] [--plan PLAN.json] [--verify]:
// Alpa's stage search over the mesh's devices (src/auto/stage_search.h) on the module as the
// pipeline runs it (its layer-call form inlined, the layers on one microbatch:
// src/pipeline/layer_plan.h); prints the stages, their submeshes and intra-op plans beside the
// uniform pipelines, writes the pipelined program of the chosen plan (of the best uniform one
// when the chosen stages differ) to OUT: the module's layers over a stage axis (src/pipeline),
// each stage on its logical mesh, a representative layer's intra-op plan on every instruction of
// the layer computations; the stage plan (JSON) to PLAN.json; --verify runs it on in-process
// devices against the module on one device. --schedule 1f1b prices Alpa's 1F1B memory for the
// stage plan only (the program is GPipe's).
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <map>

#include <nlohmann/json.hpp>

#include "annotate.h"
#include "auto/plan.h"
#include "auto/solve_command.h"
#include "auto/stage_search.h"
#include "commands.h"
#include "cost/hardware.h"
#include "fmt/format.h"
#include "hlo/printer.h"
#include "pipeline/layer_plan.h"
#include "pipeline/pipeline.h"
#include "pipeline_verify.h"

namespace spmdc::cli {
namespace {

std::string Time(double s) {
  if (s >= 1) return fmt::format("{:.3f} s", s);
  if (s >= 1e-3) return fmt::format("{:.3f} ms", s * 1e3);
  return fmt::format("{:.3f} us", s * 1e6);
}

// JAX's form of a PartitionSpec: null, "axis" or ["a", "b"] per dim.
nlohmann::ordered_json SpecJson(const Mesh& mesh, const Sharding& s, const Shape& shape) {
  if (!shape.IsArray()) return nullptr;
  std::optional<PartitionSpec> spec = SpecFromSharding(mesh, s, shape.rank());
  if (!spec) return s.ToString(false);  // not a mesh slicing: the HLO text
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const std::vector<std::string>& axes : *spec) {
    if (axes.empty()) {
      j.push_back(nullptr);
    } else if (axes.size() == 1) {
      j.push_back(axes[0]);
    } else {
      j.push_back(axes);
    }
  }
  return j;
}

std::string SpecsJson(const Mesh& mesh, const Module& module, const autoshard::PricedPlan& plan) {
  nlohmann::ordered_json params = nlohmann::ordered_json::object();
  const Computation& entry = *module.entry();
  for (int64_t i = 0; i < entry.num_parameters(); ++i) {
    const Instruction* p = entry.parameter(i);
    const Sharding s = i < static_cast<int64_t>(plan.parameter_shardings.size()) ? plan.parameter_shardings[i]
                                                                                  : Sharding::Replicate();
    params[p->name()] = SpecJson(mesh, s, p->shape());
  }
  nlohmann::ordered_json outputs = nlohmann::ordered_json::array();
  const Shape& result = entry.root()->shape();
  if (result.IsTuple()) {
    for (int64_t i = 0; i < static_cast<int64_t>(result.tuple_shapes().size()); ++i) {
      const Shape& leaf = result.tuple_shapes()[i];
      const Sharding s = plan.result_sharding.IsTuple() && i < static_cast<int64_t>(plan.result_sharding.tuple_elements().size())
                             ? plan.result_sharding.tuple_elements()[i]
                             : plan.result_sharding;
      outputs.push_back(SpecJson(mesh, s, leaf));
    }
  } else {
    outputs.push_back(SpecJson(mesh, plan.result_sharding, result));
  }
  nlohmann::ordered_json j;
  j["mesh"] = nlohmann::ordered_json::object();
  for (const Mesh::Axis& a : mesh.axes()) j["mesh"][a.name] = a.size;
  j["plan"] = plan.name;
  j["parameters"] = std::move(params);
  j["outputs"] = std::move(outputs);
  return j.dump(2) + "\n";
}

// --search mcts: what the tactic search did and the tactics of its plan.
std::string TacticReport(const autoshard::AutoResult& r) {
  const autoshard::TacticSearchStats& t = *r.tactic_stats;
  std::string s = fmt::format(
      "spmdc auto: tactic search (mcts): {} playouts, {} tactic sets propagated and estimated, {} tree nodes{}, {} "
      "priced, {} round{}; estimate {}  {:.2f} s\n",
      t.playouts, t.states, t.tree_nodes, t.exhausted ? " (every set visited)" : "", t.priced, t.rounds,
      t.rounds == 1 ? "" : "s", Time(r.model_cost_seconds), r.search_seconds);
  s += fmt::format("spmdc auto: tactics: {}\n", r.tactics.empty() ? "none (propagation alone)"
                                                                   : fmt::format("{}", fmt::join(r.tactics, "; ")));
  return s;
}

std::string Report(const autoshard::AutoResult& r, const Mesh& mesh, const HardwareProfile& hw) {
  using autoshard::FormatBytes;
  std::string s;
  s += fmt::format("spmdc auto: mesh {} ({} devices), hardware {}, memory limit {}\n", mesh.ToString(),
                   mesh.num_devices(), hw.name, FormatBytes(r.memory_limit));
  if (!r.tactic_stats)
    s += fmt::format("spmdc auto: strategy space: {} instructions, {} strategies, {} edges; presolve: {}\n",
                     r.space->nodes.size(), r.space->num_strategies(), r.space->edges.size(), r.presolve.ToString());
  const autoshard::Ties& t = r.space->ties;
  if (t.tied())
    s += fmt::format("spmdc auto: repeated layers: {} layers in {} classes, {} tied to another: {} variables for "
                     "{} nodes\n",
                     t.layers, t.classes, t.tied_layers, t.num_vars, r.space->nodes.size());
  int64_t in_flow = 0, manual = 0;
  for (const autoshard::StrategyNode& n : r.space->nodes) {
    manual += n.manual;
    in_flow += !n.manual && n.instr->parent() != n.instr->parent()->parent()->entry();
  }
  if (in_flow > 0 || manual > 0)
    s += fmt::format("spmdc auto: control flow: {} nodes in loop bodies, conditions and branches (costs x their "
                     "executions), {} values of manual regions (kept as written)\n",
                     in_flow, manual);
  for (const std::string& note : r.space->notes) s += "spmdc auto: note: " + note + "\n";
  if (r.tactic_stats) {
    s += TacticReport(r);
  } else {
    s += fmt::format("spmdc auto: search: estimate {}  lower bound {}  gap {:.2f}%{}  ({})  {:.2f} s\n",
                     Time(r.model_cost_seconds), Time(r.lower_bound_seconds), 100 * r.gap,
                     r.optimal ? ", optimal" : "", r.bound_method, r.search_seconds);
    if (!r.search_how.empty()) s += fmt::format("spmdc auto: the search's plan: {}\n", r.search_how);
  }
  s += fmt::format("{:<22} {:>12} {:>12} {:>14} {:>14} {:>12}  {}\n", "plan", "step time", "compute",
                   "communication", "comm bytes", "peak memory", "fits");
  auto row = [&](const autoshard::PricedPlan& p) {
    s += fmt::format("{:<22} {:>12} {:>12} {:>14} {:>14} {:>12}  {}\n", p.name, Time(p.step_seconds),
                     Time(p.compute_seconds), Time(p.communication_seconds), FormatBytes(p.collective_bytes),
                     FormatBytes(p.peak_bytes), p.fits ? "yes" : "no");
  };
  row(r.search);
  for (const autoshard::PricedPlan& p : r.standard) row(p);
  for (const autoshard::PricedPlan& p : r.update_sharded) row(p);
  const autoshard::PricedPlan& c = r.Chosen();
  if (!c.fits) return s;
  if (r.chosen_update >= 0) {
    s += fmt::format("spmdc auto: chosen: {} ({}), {}; the search's plan: {}\n", c.name, c.description,
                     Time(c.step_seconds), Time(r.search.step_seconds));
    s += "spmdc auto: " + c.weight_update + "\n";
  } else if (r.chosen < 0) {
    const autoshard::PricedPlan* best = nullptr;
    for (const autoshard::PricedPlan& p : r.standard)
      if (p.fits && (!best || p.step_seconds < best->step_seconds)) best = &p;
    if (best) {
      s += fmt::format("spmdc auto: chosen: auto, {} ({:.2f}x the best standard plan, {})\n", Time(c.step_seconds),
                       c.step_seconds > 0 ? best->step_seconds / c.step_seconds : 1.0, best->name);
    } else {
      s += fmt::format("spmdc auto: chosen: auto, {}\n", Time(c.step_seconds));
    }
  } else {
    s += fmt::format("spmdc auto: chosen: {} ({}), {}: under the full cost model it beats the search's plan ({})\n",
                     c.name, c.description, Time(c.step_seconds), Time(r.search.step_seconds));
  }
  if (c.carried_resharded > 0)
    s += fmt::format("spmdc auto: note: the plan hands the next step {} value{} split unlike the parameter{} {} "
                     "replace{} (carried state: a weight's update, optimizer state); resharding them, {} per step, "
                     "is in its step time\n",
                     c.carried_resharded, c.carried_resharded == 1 ? "" : "s", c.carried_resharded == 1 ? "" : "s",
                     c.carried_resharded == 1 ? "it" : "they", c.carried_resharded == 1 ? "s" : "", Time(c.carry_seconds));
  for (const std::string& w : c.warnings) s += "spmdc auto: warning: full rematerialization: " + w + "\n";
  s += fmt::format("spmdc auto: CPU time {:.2f} s: strategy space {:.2f} s, search {:.2f} s, bound {:.2f} s, pricing the "
                   "search's plans {:.2f} s, standard plans {:.2f} s, weight-update-sharded variants {:.2f} s\n",
                   r.cpu.Total(), r.cpu.space, r.cpu.search, r.cpu.bound, r.cpu.pricing, r.cpu.standard,
                   r.cpu.update_sharded);
  return s;
}

std::string StageRow(const autoshard::PipelineResult& r, const autoshard::StagePlan& plan, size_t i,
                     const std::vector<int64_t>* first_device) {
  const autoshard::Stage& st = plan.stages[i];
  const autoshard::StageOption& o = r.table.at(st.first_layer, st.last_layer, st.submesh)[st.option];
  const autoshard::Submesh& sm = r.submeshes[st.submesh];
  const std::string layers = st.first_layer == st.last_layer ? fmt::format("{}", st.first_layer)
                                                              : fmt::format("{}-{}", st.first_layer, st.last_layer);
  const std::string devices = first_device ? fmt::format("{}-{}", (*first_device)[i], (*first_device)[i] + sm.devices() - 1)
                                           : fmt::format("{}", sm.devices());
  return fmt::format("  {:<5} {:<9} {:<9} {:<9} {:<17} {:>11} {:>11}  {}\n", i, layers, devices, sm.ToString(), o.mesh,
                     Time(st.seconds), autoshard::FormatBytes(st.memory_bytes), o.summary);
}

std::string PlanName(const autoshard::PipelineResult& r, const autoshard::StagePlan& plan) {
  const autoshard::Stage& s = plan.stages.front();
  return fmt::format("{} x {} layers on {} {}", plan.stages.size(), s.last_layer - s.first_layer + 1,
                     r.submeshes[s.submesh].ToString(), r.table.at(s.first_layer, s.last_layer, s.submesh)[s.option].mesh);
}

std::string PipelineReport(const autoshard::PipelineResult& r, const std::string& input, int64_t devices,
                           const HardwareProfile& hw, int64_t microbatches, autoshard::PipelineSchedule schedule) {
  using autoshard::FormatBytes;
  const autoshard::LayerClustering& l = r.layers;
  const autoshard::StagePlan& best = *r.search.best;
  std::string s;
  s += fmt::format("spmdc auto --pipeline: {} devices, hardware {}, memory limit {}, {} microbatches ({})\n", devices,
                   hw.name, FormatBytes(r.memory_limit), microbatches,
                   schedule == autoshard::PipelineSchedule::kGPipe ? "gpipe" : "1f1b");
  s += fmt::format("spmdc auto --pipeline: layers: {} ({}), {} tie classes\n", l.num_layers,
                   l.given      ? std::string("the pipeline's, each on one microbatch")
                   : l.repeated ? fmt::format("a repeated block of {} segments", l.period_segments)
                                : std::string("one per segment, no repeated block"),
                   l.num_classes);
  s += fmt::format("spmdc auto --pipeline: {} submeshes, {} logical meshes, {} intra-op solves in {:.2f} s; stage DP: "
                   "{} runs over {} stage-time bounds in {:.2f} s\n",
                   r.submeshes.size(), r.logical_meshes, r.intra_op_solves, r.pricing_seconds, r.search.dp_evaluations,
                   r.search.candidate_bounds, r.search_seconds);
  s += fmt::format("  {:<5} {:<9} {:<9} {:<9} {:<17} {:>11} {:>11}  {}\n", "stage", "layers", "devices", "submesh",
                   "mesh", "time/mb", "memory", "intra-op plan");
  for (size_t i = 0; i < best.stages.size(); ++i) s += StageRow(r, best, i, &r.first_device);
  s += fmt::format("spmdc auto --pipeline: chosen: {} stages, estimated step time {} (max stage {} x {} microbatches "
                   "+ the other stages once)\n",
                   best.stages.size(), Time(best.step_seconds), Time(best.max_stage_seconds), microbatches);
  s += "spmdc auto --pipeline: uniform pipelines (stages x layers on submesh, best logical mesh):\n";
  std::map<size_t, const autoshard::StagePlan*> per_count;
  for (const autoshard::StagePlan& p : r.search.uniform) {
    auto [it, fresh] = per_count.try_emplace(p.stages.size(), &p);
    if (!fresh && p.step_seconds < it->second->step_seconds) it->second = &p;
  }
  for (const auto& [count, p] : per_count)
    s += fmt::format("  {:<40} {:>12}\n", PlanName(r, *p), Time(p->step_seconds));
  if (r.search.best_uniform) {
    const autoshard::StagePlan& u = *r.search.best_uniform;
    s += fmt::format("spmdc auto --pipeline: best uniform: {}, {} ({:.3f}x the chosen plan's step time)\n",
                     PlanName(r, u), Time(u.step_seconds), best.step_seconds > 0 ? u.step_seconds / best.step_seconds : 1.0);
  } else {
    s += "spmdc auto --pipeline: no uniform pipeline fits\n";
  }
  if (!r.emission) {
    s += "spmdc auto --pipeline: no uniform stage plan fits: the pipelined program needs identical stages\n";
  } else if (r.emission->chosen) {
    s += fmt::format("spmdc auto --pipeline: the stages are uniform; the pipelined program: {} stages x {} microbatches "
                     "(gpipe), each stage on {} ({} devices)\n",
                     r.emission->stages, r.emission->microbatches, r.emission->stage_mesh, r.emission->devices_per_stage);
  } else {
    const autoshard::StagePlan& u = r.emission->plan;
    s += fmt::format("spmdc auto --pipeline: the chosen stages are not uniform (estimated {}); the pipelined program "
                     "follows the best uniform plan, {}, estimated {} ({:.3f}x)\n",
                     Time(best.step_seconds), PlanName(r, u), Time(u.step_seconds),
                     best.step_seconds > 0 ? u.step_seconds / best.step_seconds : 1.0);
  }
  return s;
}

nlohmann::ordered_json PlanJson(const autoshard::PipelineResult& r, const autoshard::StagePlan& plan, bool placed) {
  nlohmann::ordered_json j;
  j["step_time_seconds"] = plan.step_seconds;
  j["max_stage_seconds"] = plan.max_stage_seconds;
  j["uniform"] = plan.uniform;
  j["stages"] = nlohmann::ordered_json::array();
  for (size_t i = 0; i < plan.stages.size(); ++i) {
    const autoshard::Stage& st = plan.stages[i];
    const autoshard::StageOption& o = r.table.at(st.first_layer, st.last_layer, st.submesh)[st.option];
    const autoshard::Submesh& sm = r.submeshes[st.submesh];
    nlohmann::ordered_json x;
    x["layers"] = {st.first_layer, st.last_layer};
    if (placed) x["first_device"] = r.first_device[i];
    x["submesh"] = {sm.hosts, sm.per_host};
    x["mesh"] = o.mesh;
    x["seconds_per_microbatch"] = st.seconds;
    x["transfer_seconds_per_microbatch"] = o.transfer_seconds;
    x["memory_bytes"] = st.memory_bytes;
    x["held_microbatches"] = st.held_microbatches;
    x["plan"] = o.summary;
    j["stages"].push_back(std::move(x));
  }
  return j;
}

std::string PipelineJson(const autoshard::PipelineResult& r, const std::string& input, int64_t devices,
                         int64_t microbatches, autoshard::PipelineSchedule schedule) {
  nlohmann::ordered_json j;
  j["devices"] = devices;
  j["microbatches"] = microbatches;
  j["schedule"] = schedule == autoshard::PipelineSchedule::kGPipe ? "gpipe" : "1f1b";
  j["memory_limit_bytes"] = r.memory_limit;
  j["layers"] = r.layers.num_layers;
  j["chosen"] = PlanJson(r, *r.search.best, true);
  if (r.search.best_uniform) j["best_uniform"] = PlanJson(r, *r.search.best_uniform, false);
  if (r.emission) {
    j["pipeline"] = {{"plan", r.emission->chosen ? "chosen" : "best_uniform"},
                     {"stages", r.emission->stages},
                     {"microbatches", r.emission->microbatches},
                     {"schedule", "gpipe"},
                     {"devices_per_stage", r.emission->devices_per_stage},
                     {"stage_mesh", r.emission->stage_mesh}};
  }
  return j.dump(2) + "\n";
}

// The parameter whose dim 0 is the batch: the first input (a parameter of rank >= 1 whose shape
// is none of the result's, which weights and optimizer state share with their updates, as
// plan.h tells them apart), else the first parameter of rank >= 1; nullptr when there is none.
const Instruction* BatchParameter(const Module& module) {
  std::vector<Shape> outputs;
  const Instruction* root = module.entry()->root();
  if (root->opcode() == Opcode::kTuple)
    for (const Instruction* op : root->operands()) outputs.push_back(op->shape());
  const Instruction* first = nullptr;
  for (const Instruction* p : module.entry()->parameters()) {
    if (!p->shape().IsArray() || p->shape().rank() == 0) continue;
    if (!first) first = p;
    if (std::find(outputs.begin(), outputs.end(), p->shape()) == outputs.end()) return p;
  }
  return first;
}

// The default microbatch count: the largest divisor of the batch up to 8.
int64_t DefaultMicrobatches(const Module& module) {
  const Instruction* p = BatchParameter(module);
  if (!p) return 1;
  const int64_t b = p->shape().dim(0);
  for (int64_t m = std::min<int64_t>(8, b); m > 1; --m)
    if (b % m == 0) return m;
  return 1;
}

// What `auto --pipeline` plans and what the pipeline reads: the module's layers in the
// layer-call form (as written, a scan or unrolled: pipeline/layer_forms.h) and that form with its
// calls inlined and its layers on one microbatch, which the stage search plans with the layers
// the pipeline has (pipeline/layer_plan.h). Without a layer-call form the search plans the module itself and no
// program can be written (`why` says what the pipeline refused).
struct PipelineForms {
  std::optional<pipeline::LayerCallModule> calls;
  std::optional<pipeline::InlinedLayers> inlined;
  Status why;
};

StatusOr<PipelineForms> ToPipelineForms(const Module& source, int64_t microbatches) {
  PipelineForms out;
  std::unique_ptr<Module> stripped = source.Clone();
  for (Computation* c : stripped->computations())
    for (Instruction* i : c->instructions()) {
      if (i->IsCustomCall("Sharding"))
        return Unimplemented("--pipeline: %{} constrains a sharding on the whole mesh; a stage has its own devices",
                             i->name());
      i->clear_sharding();
    }
  StatusOr<pipeline::LayerCallModule> calls = pipeline::ToLayerCallForm(*stripped);
  if (!calls.ok()) {
    if (calls.status().code() != absl::StatusCode::kUnimplemented) return calls.status();
    out.why = calls.status();
    return out;
  }
  // Layers the pipeline cannot run on a microbatch (they mix examples) are planned as the module
  // is; the program is refused with the reason.
  StatusOr<pipeline::InlinedLayers> inlined = pipeline::InlineLayerCalls(*calls->module, microbatches);
  if (!inlined.ok()) {
    if (inlined.status().code() != absl::StatusCode::kUnimplemented) return inlined.status();
    out.why = inlined.status();
    return out;
  }
  out.calls = *std::move(calls);
  out.inlined = *std::move(inlined);
  return out;
}

// The pipelined program of the emitted (uniform) stage plan: the layer-call form on one stage's
// devices with a representative layer's intra-op plan carried onto its layer computations, its
// weights, input and cotangent (pipeline/layer_plan.h), pipelined over the stages. `annotated`
// gets that form as annotated (the reference for --verify).
StatusOr<pipeline::PipelineResult> EmitPipelined(const PipelineForms& forms, const autoshard::PipelineResult& r,
                                                 std::unique_ptr<Module>* annotated) {
  const autoshard::PipelineEmission& e = *r.emission;
  if (!forms.calls) return forms.why;
  std::unique_ptr<Module> m = forms.calls->module->Clone();
  m->set_num_partitions(e.devices_per_stage);
  if (e.layer_plan == nullptr || e.layer_plan->annotated == nullptr || e.layer_plan->layer < 0)
    return Internal("--pipeline: the emitted stage plan has no layer plan");
  std::vector<const Module*> step_plans;
  for (const auto& p : {e.last_plan, e.first_plan})
    if (p != nullptr && p->annotated != nullptr) step_plans.push_back(p->annotated.get());
  ASSIGN_OR_RETURN(pipeline::LayerPlanStats stats, pipeline::ApplyLayerPlan(*m, *forms.inlined, e.layer_plan->layer,
                                                                            *e.layer_plan->annotated, step_plans));
  std::fprintf(stderr,
               "spmdc auto --pipeline: layer %d's plan on the layer computations: %lld instructions annotated, %lld "
               "reshards, %lld left to propagation; the first and last layers' plans on %lld of the step's other "
               "instructions\n",
               e.layer_plan->layer, static_cast<long long>(stats.instructions), static_cast<long long>(stats.reshards),
               static_cast<long long>(stats.unmatched), static_cast<long long>(stats.step_instructions));
  *annotated = m->Clone();
  pipeline::PipelineOptions po;
  po.stages = e.stages;
  po.microbatches = e.microbatches;
  po.source_mesh = e.stage_mesh;
  ASSIGN_OR_RETURN(pipeline::PipelineResult result, pipeline::PipelineModule(*m, po));
  result.form = forms.calls->form;
  return result;
}

}  // namespace

Command AddAutoCommand(CLI::App& root) {
  CLI::App* app = root.add_subcommand(
      "auto", "choose a sharding for every instruction on a mesh; write the annotated module and "
              "PartitionSpecs, report it beside the standard plans");
  struct Args {
    ModuleArgs module;
    std::string hardware = "h100";
    std::string hardware_dir;
    std::optional<int64_t> memory_limit;
    double time_limit_s = 60;
    int64_t work_limit = 0;
    double gap = 1e-4;
    bool ignore_annotations = false;
    bool no_standard = false;
    bool no_tying = false;
    bool quiet = false;
    bool no_weight_update = false;
    std::string out;
    std::string specs;
    std::string pipeline;
    std::string plan;
    bool verify = false;
    uint64_t seed = 0;
    std::optional<int64_t> microbatches;
    std::string schedule = "gpipe";
    std::string search = "ilp";
  };
  auto args = std::make_shared<Args>();
  AddModuleArgs(app, args->module);
  app->get_option("--mesh")->required();
  app->add_option("--hardware", args->hardware, "a hardware profile name (hardware/NAME.json) or a .json path")
      ->type_name("NAME|FILE.json")
      ->capture_default_str();
  app->add_option("--hardware-dir", args->hardware_dir, "a folder searched first for NAME.json")->type_name("DIR");
  app->add_option("--memory-limit", args->memory_limit, "per-device memory limit (default: the profile's HBM)")
      ->type_name("BYTES")
      ->transform(ByteSize());
  app->add_option("--time-limit", args->time_limit_s, "seconds for each search (default 60)")
      ->check(CLI::Range(0.0, 1e6));
  app->add_option("--work-limit", args->work_limit,
                  "per-search work budget (0: proportional to the problem; results are deterministic "
                  "when it, not the time limit, ends the search)")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 62));
  app->add_option("--gap", args->gap,
                  "each search stops when its plan is within this fraction of its certified bound "
                  "(default 1e-4; 0: only at a proof of optimality)")
      ->check(CLI::Range(0.0, 1.0));
  app->add_flag("--ignore-annotations", args->ignore_annotations,
                "drop the module's shardings instead of keeping them as constraints");
  app->add_flag("--no-standard-plans", args->no_standard,
                "do not price the standard plans (nor the weight-update-sharded variants)");
  app->add_flag("--no-tying", args->no_tying,
                "give every layer its own decisions (repeated layers are tied by default; for checks)");
  app->add_flag("--quiet", args->quiet, "no progress lines and no report on stderr");
  app->add_flag("--no-weight-update-sharding", args->no_weight_update,
                "do not price the plans with their weight update sharded (+wus, +wus-keep)");
  app->add_option("--specs", args->specs, "write the PartitionSpecs of the entry parameters and outputs (JSON)")
      ->type_name("SPECS.json");
  app->add_option("--pipeline", args->pipeline,
                  "Alpa's stage search: `auto` searches the stage count, S fixes it; OUT gets the pipelined program")
      ->type_name("auto|S");
  app->add_option("--plan", args->plan, "with --pipeline: write the stage plan (JSON)")->type_name("PLAN.json");
  app->add_flag("--verify", args->verify,
                "with --pipeline: run the pipelined program on the in-process devices and the module on one device; "
                "compare");
  AddSeed(app, args->seed);
  app->add_option("--microbatches", args->microbatches,
                  "microbatches of the pipeline (default: the largest divisor of the batch up to 8)")
      ->type_name("M");
  app->add_option("--schedule", args->schedule,
                  "the pipeline schedule whose memory the stages must fit: gpipe, the program spmdc writes, or "
                  "1f1b (Alpa's; the stage plan only)")
      ->check(CLI::IsMember({"1f1b", "gpipe"}))
      ->capture_default_str();
  app->add_option("--search", args->search,
                  "the search: `ilp` (the strategy space, solved as `spmdc solve` does) or `mcts` (tactic "
                  "search over parameter splits and propagation)")
      ->check(CLI::IsMember({"ilp", "mcts"}))
      ->capture_default_str();
  AddOutput(app, args->out);
  return {app, [args, app]() -> Status {
            if (args->pipeline.empty() && (args->microbatches || app->count("--schedule") > 0 || !args->plan.empty() ||
                                           args->verify))
              return InvalidArgument("--microbatches, --schedule, --plan and --verify need --pipeline");
            ModuleArgs plain;
            plain.input = args->module.input;
            ASSIGN_OR_RETURN(auto module, LoadAnnotated(plain, std::nullopt));
            // The module as written: the pipeline reads its layers in their own form (calls, a
            // scan), which planning inlines.
            std::unique_ptr<Module> source = args->pipeline.empty() ? nullptr : module->Clone();
            ASSIGN_OR_RETURN(Annotations annotations, ParseAnnotations(args->module.mesh, args->module.shards));
            const Mesh mesh = *annotations.mesh;
            if (args->ignore_annotations) {
              autoshard::DropAnnotations(*module);
              module->set_num_partitions(mesh.num_devices());
            }
            RETURN_IF_ERROR(ApplyAnnotations(annotations, *module));
            // With --pipeline, the module planned is the layer-call form inlined (when the
            // pipeline reads the module's layers), so that the search prices the program it
            // writes and its plan maps back onto the layer computations.
            PipelineForms forms;
            int64_t microbatches = 1;
            if (!args->pipeline.empty()) {
              microbatches = args->microbatches ? *args->microbatches : DefaultMicrobatches(*module);
              if (microbatches < 1) return InvalidArgument("--microbatches {}: must be at least 1", microbatches);
              if (const Instruction* p = BatchParameter(*module); p && p->shape().dim(0) % microbatches != 0)
                return InvalidArgument("--microbatches {}: does not divide the batch ({}, dim 0 of {})", microbatches,
                                       p->shape().dim(0), p->name());
              ASSIGN_OR_RETURN(forms, ToPipelineForms(*source, microbatches));
              source.reset();
              if (forms.inlined) {
                for (const Instruction* i : module->entry()->instructions())
                  if (i->has_sharding() && !args->ignore_annotations)
                    return Unimplemented("--pipeline plans every stage on its own submesh, so the module's shardings "
                                         "(for the whole mesh, e.g. {} of {}) cannot be kept; pass --ignore-annotations",
                                         i->sharding()->ToString(false), i->name());
                module = std::move(forms.inlined->module);  // the maps are what the emission needs
                module->set_num_partitions(mesh.num_devices());
              }
            }
            RETURN_IF_ERROR(autoshard::PrepareForPlanning(*module));
            ASSIGN_OR_RETURN(HardwareProfile hw, LoadHardwareProfile(args->hardware, args->hardware_dir));
            if (!args->pipeline.empty()) {
              autoshard::PipelineOptions po;
              if (args->pipeline != "auto") {
                int stages = 0;
                const char* b = args->pipeline.data();
                auto [end, ec] = std::from_chars(b, b + args->pipeline.size(), stages);
                if (ec != std::errc() || end != b + args->pipeline.size() || stages < 1)
                  return InvalidArgument("--pipeline {}: expected `auto` or a stage count >= 1", args->pipeline);
                po.stages = stages;
              }
              if (args->search != "ilp")
                return Unimplemented("--search {} with --pipeline: the stage search prices its spans with the ilp "
                                     "search only",
                                     args->search);
              if (!args->specs.empty())
                return Unimplemented("--specs with --pipeline: each stage has its own specs; they are in the stage "
                                     "plan that --plan writes");
              for (const Instruction* i : module->entry()->instructions())
                if (i->has_sharding() && !args->ignore_annotations)
                  return Unimplemented("--pipeline plans every stage on its own submesh, so the module's shardings "
                                       "(for the whole mesh, e.g. {} of {}) cannot be kept; pass --ignore-annotations",
                                       i->sharding()->ToString(false), i->name());
              po.microbatches = microbatches;
              po.num_devices = mesh.num_devices();
              po.hardware = &hw;
              po.memory_limit = args->memory_limit;
              po.schedule = args->schedule == "gpipe" ? autoshard::PipelineSchedule::kGPipe
                                                      : autoshard::PipelineSchedule::k1F1B;
              po.time_limit_s = args->time_limit_s;
              po.work_limit = args->work_limit;
              if (forms.inlined) {
                po.given_layers = &forms.inlined->layer_of;
                po.accumulated = &forms.inlined->accumulated;
                po.layer_inputs = &forms.inlined->layer_input;
                po.layer_cotangents = &forms.inlined->layer_cotangent;
              }
              ASSIGN_OR_RETURN(autoshard::PipelineResult r, autoshard::PlanPipeline(*module, po));
              const std::string input = args->module.input;
              if (!args->quiet)
                std::fputs(PipelineReport(r, input, po.num_devices, hw, po.microbatches, po.schedule).c_str(), stderr);
              if (!args->plan.empty())
                RETURN_IF_ERROR(WriteOutput(args->plan, PipelineJson(r, input, po.num_devices, po.microbatches, po.schedule)));
              if (po.schedule == autoshard::PipelineSchedule::k1F1B) {
                // The program's stash holds every microbatch: a 1F1B plan's memory is not its.
                if (!args->out.empty() || args->verify)
                  return Unimplemented("--schedule 1f1b prices Alpa's 1F1B memory, but the pipelined program spmdc "
                                       "writes is GPipe (each stage holds every microbatch's layer inputs): pass "
                                       "--schedule gpipe (the default) to write it");
                if (!args->quiet)
                  std::fputs("spmdc auto --pipeline: --schedule 1f1b: the stage plan only (the program written is "
                             "GPipe's)\n",
                             stderr);
                return absl::OkStatus();
              }
              if (!r.emission)
                return Unimplemented("--pipeline: no uniform stage plan fits in {} per device, and the pipelined "
                                     "program needs identical stages",
                                     autoshard::FormatBytes(r.memory_limit));
              std::unique_ptr<Module> stripped;
              ASSIGN_OR_RETURN(pipeline::PipelineResult program, EmitPipelined(forms, r, &stripped));
              if (!args->quiet)
                std::fprintf(stderr, "spmdc auto --pipeline: the pipelined program: %lld devices (%lld stages x %s), "
                           "%lld of %lld weight slots stacked, bubble %.1f%%, layers read as %s\n",
                           static_cast<long long>(program.module->num_partitions()),
                           static_cast<long long>(program.info.stages), r.emission->stage_mesh.c_str(),
                           static_cast<long long>(program.stacked_slots), static_cast<long long>(program.weight_slots),
                           100 * program.info.Bubble(), pipeline::LayerFormName(program.form).c_str());
              if (!args->verify || !args->out.empty())
                RETURN_IF_ERROR(WriteOutput(args->out == "-" ? "" : args->out, PrintModule(*program.module)));
              if (args->verify)
                RETURN_IF_ERROR(VerifyPipelined(*stripped, program, program.module->num_partitions(), args->seed));
              return absl::OkStatus();
            }
            autoshard::PlanOptions options(mesh);
            options.hardware = &hw;
            options.memory_limit = args->memory_limit;
            options.time_limit_s = args->time_limit_s;
            options.work_limit = args->work_limit;
            options.relative_gap = args->gap;
            options.keep_annotations = !args->ignore_annotations;
            options.standard_plans = !args->no_standard;
            options.weight_update_sharding = !args->no_weight_update;
            if (args->search == "mcts") options.search = autoshard::SearchKind::kMcts;
            options.tie_layers = !args->no_tying;
            if (!args->quiet && isatty(fileno(stderr))) {
              options.progress = [](const autoshard::SearchProgress& p) {
                const std::string estimate = p.estimate_s ? "estimate " + Time(*p.estimate_s) : "no plan within the limit yet";
                const std::string bound = p.bound_s ? Time(*p.bound_s) : "";
                const std::string gap = p.estimate_s && p.bound_s && *p.estimate_s > 0
                                            ? fmt::format("{:.2f}%", 100 * std::max(0.0, 1 - *p.bound_s / *p.estimate_s))
                                            : "";
                autoshard::PrintProgressLine(stderr, "spmdc auto", p.elapsed_s, estimate, bound, gap, p.phase);
              };
            }
            ASSIGN_OR_RETURN(autoshard::AutoResult result, autoshard::PlanAuto(*module, options));
            if (!args->quiet) std::fputs(Report(result, mesh, hw).c_str(), stderr);
            RETURN_IF_ERROR(autoshard::ChosenPlanFits(result));
            const autoshard::PricedPlan& chosen = result.Chosen();
            if (!args->specs.empty()) RETURN_IF_ERROR(WriteOutput(args->specs, SpecsJson(mesh, *module, chosen)));
            return WriteOutput(args->out == "-" ? "" : args->out, PrintModule(*chosen.annotated));
          }};
}

}  // namespace spmdc::cli

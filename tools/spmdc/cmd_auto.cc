// spmdc auto IN --mesh AXES [--hardware NAME] [--memory-limit B] [--time-limit S]
// [--ignore-annotations] [-o OUT] [--specs SPECS.json]: chooses a sharding for every instruction
// (src/auto/plan.h), writes the annotated module, the entry parameters' and outputs' JAX-style
// PartitionSpecs, and prints the chosen plan beside the standard ones on stderr.
#include <nlohmann/json.hpp>

#include "annotate.h"
#include "auto/plan.h"
#include "commands.h"
#include "cost/hardware.h"
#include "fmt/format.h"
#include "hlo/printer.h"

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

std::string Report(const autoshard::AutoResult& r, const Mesh& mesh, const HardwareProfile& hw) {
  using autoshard::FormatBytes;
  std::string s;
  s += fmt::format("spmdc auto: mesh {} ({} devices), hardware {}, memory limit {}\n", mesh.ToString(),
                   mesh.num_devices(), hw.name, FormatBytes(r.memory_limit));
  s += fmt::format("spmdc auto: strategy space: {} instructions, {} strategies, {} edges; presolve: {}\n",
                   r.space->nodes.size(), r.space->num_strategies(), r.space->edges.size(), r.presolve.ToString());
  s += fmt::format("spmdc auto: search: estimate {}  lower bound {}  gap {:.2f}%{}  ({})  {:.2f} s\n",
                   Time(r.model_cost_seconds), Time(r.lower_bound_seconds), 100 * r.gap,
                   r.optimal ? ", optimal" : "", r.bound_method, r.search_seconds);
  s += fmt::format("{:<15} {:>12} {:>12} {:>14} {:>14} {:>12}  {}\n", "plan", "step time", "compute",
                   "communication", "comm bytes", "peak memory", "fits");
  auto row = [&](const autoshard::PricedPlan& p) {
    s += fmt::format("{:<15} {:>12} {:>12} {:>14} {:>14} {:>12}  {}\n", p.name, Time(p.step_seconds),
                     Time(p.compute_seconds), Time(p.communication_seconds), FormatBytes(p.collective_bytes),
                     FormatBytes(p.peak_bytes), p.fits ? "yes" : "no");
  };
  row(r.search);
  for (const autoshard::PricedPlan& p : r.standard) row(p);
  const autoshard::PricedPlan& c = r.Chosen();
  if (!c.fits) return s;
  if (r.chosen < 0) {
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
  for (const std::string& w : c.warnings) s += "spmdc auto: warning: full rematerialization: " + w + "\n";
  return s;
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
    bool ignore_annotations = false;
    bool no_standard = false;
    std::string out;
    std::string specs;
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
  app->add_flag("--ignore-annotations", args->ignore_annotations,
                "drop the module's shardings instead of keeping them as constraints");
  app->add_flag("--no-standard-plans", args->no_standard, "do not price the standard plans");
  app->add_option("--specs", args->specs, "write the PartitionSpecs of the entry parameters and outputs (JSON)")
      ->type_name("SPECS.json");
  AddOutput(app, args->out);
  return {app, [args]() -> Status {
            ModuleArgs plain;
            plain.input = args->module.input;
            ASSIGN_OR_RETURN(auto module, LoadAnnotated(plain, std::nullopt));
            ASSIGN_OR_RETURN(Annotations annotations, ParseAnnotations(args->module.mesh, args->module.shards));
            const Mesh mesh = *annotations.mesh;
            if (args->ignore_annotations) {
              for (Computation* c : module->computations())
                for (Instruction* i : c->instructions())
                  if (!i->IsCustomCall("Sharding")) i->clear_sharding();
              module->set_num_partitions(mesh.num_devices());
            }
            RETURN_IF_ERROR(ApplyAnnotations(annotations, *module));
            RETURN_IF_ERROR(autoshard::PrepareForPlanning(*module));
            ASSIGN_OR_RETURN(HardwareProfile hw, LoadHardwareProfile(args->hardware, args->hardware_dir));
            autoshard::PlanOptions options(mesh);
            options.hardware = &hw;
            options.memory_limit = args->memory_limit;
            options.time_limit_s = args->time_limit_s;
            options.work_limit = args->work_limit;
            options.keep_annotations = !args->ignore_annotations;
            options.standard_plans = !args->no_standard;
            ASSIGN_OR_RETURN(autoshard::AutoResult result, autoshard::PlanAuto(*module, options));
            std::fputs(Report(result, mesh, hw).c_str(), stderr);
            RETURN_IF_ERROR(autoshard::ChosenPlanFits(result));
            const autoshard::PricedPlan& chosen = result.Chosen();
            if (!args->specs.empty()) RETURN_IF_ERROR(WriteOutput(args->specs, SpecsJson(mesh, *module, chosen)));
            return WriteOutput(args->out == "-" ? "" : args->out, PrintModule(*chosen.annotated));
          }};
}

}  // namespace spmdc::cli

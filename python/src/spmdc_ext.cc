// spmdc._spmdc: the Python binding (nanobind) of the library calls the CLI's commands make
// (tools/spmdc/cmd_*.cc): parse (HLO or StableHLO text), print, propagate, explain, partition,
// report, verify, auto. Every call that can fail raises one of the exceptions below, each carrying
// the CLI's exit-code class (DESIGN.md): BadInputError 2, UnsupportedError 3, MismatchError 1,
// InternalError 4. The long calls release the GIL.
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "annotate.h"
#include "auto/plan.h"
#include "cli.h"
#include "cost/cost.h"
#include "cost/hardware.h"
#include "fmt/format.h"
#include "hlo/printer.h"
#include "hlo/shardy_import.h"
#include "interpreter/device_context.h"
#include "interpreter/interpreter.h"
#include "ir/verifier.h"
#include "partitioner/partitioner.h"
#include "passes/passes.h"
#include "propagation/propagation.h"
#include "propagating.h"
#include "report.h"
#include "runtime/executor.h"
#include "runtime/host_values.h"
#include "runtime/result_comparison.h"
#include "sharding/mesh.h"
#include "sharding/validation.h"
#include "stablehlo/stablehlo.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace spmdc::python {
namespace {

// C++ side of the Python exceptions (each translated to its Python class by nb::exception).
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct BadInput : Error {
  using Error::Error;
};
struct Unsupported : Error {
  using Error::Error;
};
struct Mismatch : Error {
  using Error::Error;
};
struct InternalFailure : Error {
  using Error::Error;
};

[[noreturn]] void Raise(const Status& status) {
  std::string msg(status.message());
  switch (cli::ExitCodeFor(status)) {
    case cli::kExitBadInput: throw BadInput(msg);
    case cli::kExitUnsupported: throw Unsupported(msg);
    case cli::kExitMismatch: throw Mismatch(msg);
    default: throw InternalFailure(msg);
  }
}
void Check(const Status& status) {
  if (!status.ok()) Raise(status);
}
template <typename T>
T Take(StatusOr<T> value) {
  if (!value.ok()) Raise(value.status());
  return *std::move(value);
}

// A module as Python holds it: the IR, the mesh it was annotated on (for explain's and report's
// descriptions), and after propagate() the provenance explain() reads. Python never sees a
// module change: every transformation returns a new PyModule.
struct PyModule {
  std::shared_ptr<Module> module;
  std::optional<std::string> mesh;
  std::shared_ptr<Provenance> provenance;  // of *module, set by propagate()
  std::shared_ptr<InlinedNames> renamed;   // what propagate()'s call inlining renamed
};

PyModule Parse(const std::string& text, const std::string& filename) {
  std::unique_ptr<Module> module;
  {
    nb::gil_scoped_release release;
    cli::Source source{filename, text};
    module = Take(cli::LoadModule(source));
  }
  return PyModule{std::move(module), std::nullopt, nullptr};
}

// The copy of `m` with `mesh` and `shards` ({name: PartitionSpec or HLO sharding}) applied, as
// the CLI's --mesh and --shard.
PyModule Annotated(const PyModule& m, const std::optional<std::string>& mesh,
                   const std::map<std::string, std::string>& shards) {
  std::vector<std::string> items;
  for (const auto& [name, spec] : shards) items.push_back(name + "=" + spec);
  std::optional<std::string> use_mesh = mesh ? mesh : m.mesh;
  cli::Annotations annotations = Take(cli::ParseAnnotations(use_mesh, items));
  std::unique_ptr<Module> copy = m.module->Clone();
  Check(cli::ApplyAnnotations(annotations, *copy));
  return PyModule{std::move(copy), use_mesh, nullptr};
}

// `to_output` / `to_parameters`: one flag for all, or one per tuple element / parameter (as
// PropagationOptions takes them); empty leaves the module header's choice.
PropagationOptions PropagationOf(const std::vector<bool>& to_output,
                                 const std::vector<bool>& to_parameters) {
  PropagationOptions options;
  if (!to_output.empty()) options.allow_to_output = to_output;
  if (!to_parameters.empty()) options.allow_to_parameters = to_parameters;
  return options;
}

PyModule Propagate(const PyModule& m, const std::optional<std::string>& mesh,
                   const std::map<std::string, std::string>& shards,
                   const std::vector<bool>& to_output, const std::vector<bool>& to_parameters,
                   const std::string& calls) {
  PyModule out = Annotated(m, mesh, shards);
  auto renamed = std::make_shared<InlinedNames>();
  Check(cli::PrepareForPropagation(*out.module, calls, renamed.get()));  // as the CLI does
  const int64_t params = out.module->entry()->num_parameters();
  if (to_parameters.size() > 1 && static_cast<int64_t>(to_parameters.size()) != params)
    Raise(InvalidArgument("to_parameters has {} flags but the entry computation has {} parameters",
                          to_parameters.size(), params));
  auto provenance = std::make_shared<Provenance>();
  {
    nb::gil_scoped_release release;
    Check(PropagateShardings(*out.module, PropagationOf(to_output, to_parameters), provenance.get())
              .status());
    ExportShardyAttributes(*out.module);  // as `spmdc propagate` prints it
  }
  out.provenance = std::move(provenance);
  out.renamed = std::move(renamed);
  return out;
}

std::string Explain(const PyModule& m, const std::string& name) {
  PyModule propagated = m.provenance ? m : Propagate(m, std::nullopt, {}, {}, {}, "inline");
  std::optional<Mesh> mesh;
  if (propagated.mesh) mesh = Take(Mesh::Parse(*propagated.mesh));
  const std::string n = !name.empty() && name[0] == '%' ? name.substr(1) : name;
  return Take(cli::ExplainName(*propagated.module, *propagated.provenance,
                               propagated.renamed ? *propagated.renamed : InlinedNames{}, n, mesh));
}

// The device count of a call: `n` where given (it must agree with the module's num_partitions
// where that is set), else the module's own (as the CLI's --num-partitions).
int64_t PartitionsOf(const PyModule& m, std::optional<int64_t> n) {
  const int64_t own = m.module->num_partitions();
  if (!n) {
    if (own > 1) return own;
    Raise(InvalidArgument("num_partitions is required (the module does not set num_partitions)"));
  }
  if (*n < 1 || *n > (int64_t{1} << 20))
    Raise(InvalidArgument("num_partitions must be from 1 to 1048576, got {}", *n));
  if (own > 1 && own != *n)
    Raise(InvalidArgument("num_partitions {} disagrees with the module's num_partitions={}", *n,
                          own));
  return *n;
}

PyModule Partition(const PyModule& m, std::optional<int64_t> num_partitions,
                   bool replicate_custom_partitioning) {
  int64_t n = PartitionsOf(m, num_partitions);
  std::unique_ptr<Module> copy = m.module->Clone();
  copy->set_num_partitions(n);
  std::unique_ptr<Module> per_device;
  {
    nb::gil_scoped_release release;
    Check(VerifyModuleShardings(*copy, nullptr, n));
    PartitionOptions options{n};
    options.replicate_custom_partitioning = replicate_custom_partitioning;
    PartitionResult result = Take(PartitionAndCleanUp(*copy, options));
    DropShardyAttributes(*result.module);  // a per-device program: no sharding is meaningful
    per_device = std::move(result.module);
  }
  return PyModule{std::move(per_device), std::nullopt, nullptr};
}

std::string ReportJson(const PyModule& m, std::optional<int64_t> num_partitions,
                       const std::string& hardware, const std::string& hardware_dir,
                       bool partitioned) {
  int64_t n = PartitionsOf(m, num_partitions);
  cli::ReportOptions options;
  options.mesh = m.mesh;
  options.hardware = hardware;
  options.hardware_dir = hardware_dir;
  options.format = "json";
  options.partitioned = partitioned;
  std::unique_ptr<Module> copy = m.module->Clone();
  copy->set_num_partitions(n);
  nb::gil_scoped_release release;
  return Take(cli::RenderReport(options, std::move(copy), n));
}

bool IsManualSharding(const Sharding& s) {
  if (s.IsTuple()) {
    for (const Sharding& e : s.tuple_elements())
      if (IsManualSharding(e)) return true;
    return false;
  }
  return s.IsManual() || s.IsManualSubgroup();
}

// The reference of a module with manual regions (shard_map bodies), which one device cannot
// run: the module with every sharding dropped but the manual regions' own (their values, the
// SPMDFullToShardShape / SPMDShardToFullShape boundaries, Sharding constraints), propagated and
// partitioned like the module under test, so without the user's other choices. As `spmdc
// verify --propagate` compares such modules.
std::unique_ptr<Module> ManualRegionsOnly(const Module& module) {
  std::unique_ptr<Module> stripped = module.Clone();
  for (Computation* c : stripped->computations()) {
    for (Instruction* i : c->instructions()) {
      if (!i->has_sharding() || IsManualSharding(*i->sharding())) continue;
      if (i->IsCustomCall("SPMDFullToShardShape") || i->IsCustomCall("SPMDShardToFullShape") ||
          i->IsCustomCall("Sharding"))
        continue;
      i->clear_sharding();
    }
  }
  return stripped;
}

// Propagated (with `propagate`, calls inlined first as propagate() does) and partitioned.
PartitionResult PartitionForVerify(Module& module, int64_t n, bool propagate) {
  if (propagate) Check(cli::PropagationArgs{}.Propagate(module));
  return Take(PartitionAndCleanUp(module, PartitionOptions{n}));
}

// One device against n devices on the same random inputs (`spmdc verify`). A module with manual
// regions is compared, with `propagate`, against the module sharded only as its manual regions
// require, on the same n devices; one whose entry parameters or result are manual is left to
// the CLI, which runs such programs group by group.
std::map<std::string, double> Verify(const PyModule& m, std::optional<int64_t> num_partitions,
                                     bool propagate, uint64_t seed) {
  int64_t n = PartitionsOf(m, num_partitions);
  std::map<std::string, double> out;
  nb::gil_scoped_release release;
  const Computation* entry = m.module->entry();
  bool manual_region = false;
  for (const Computation* c : m.module->computations())
    for (const Instruction* i : c->instructions())
      if (i->has_sharding() && IsManualSharding(*i->sharding())) manual_region = true;
  std::vector<const Instruction*> signature(entry->parameters().begin(), entry->parameters().end());
  signature.push_back(entry->root());
  for (const Instruction* i : signature)
    if (i->has_sharding() && IsManualSharding(*i->sharding()))
      Raise(Unimplemented(
          "verify: %{} is manual at the entry signature; `spmdc verify` compares such modules",
          i->name()));
  if (manual_region && !propagate)
    Raise(Unimplemented("verify: the module has manual regions (shard_map); one device cannot "
                        "run them: verify(propagate=True) compares against the module sharded "
                        "only as they require"));
  std::unique_ptr<Module> under_test = m.module->Clone();
  under_test->set_num_partitions(n);
  Check(VerifyModuleShardings(*under_test, nullptr, n));
  PartitionResult partitioned = PartitionForVerify(*under_test, n, propagate);
  std::vector<Literal> arguments;
  for (int64_t p = 0; p < entry->num_parameters(); ++p)
    arguments.push_back(RandomLiteral(entry->parameter(p)->shape(), ParameterSeed(seed, p)));
  SpmdOptions options;
  options.global_result_shape = entry->root()->shape();
  Literal reference;
  if (manual_region) {
    std::unique_ptr<Module> plain = ManualRegionsOnly(*m.module);
    plain->set_num_partitions(n);
    PartitionResult plain_partitioned = PartitionForVerify(*plain, n, true);
    reference = Take(ExecuteSpmd(*plain_partitioned.module, n, arguments,
                                 plain_partitioned.parameter_shardings,
                                 plain_partitioned.result_sharding, options));
  } else {
    // As spmdc verify: one device standing for the n under test (device_context.h).
    SingleDeviceContext device(std::max<int64_t>(1, m.module->replica_count()), n);
    reference = Take(Execute(*m.module, arguments, &device));
  }
  Literal result = Take(ExecuteSpmd(*partitioned.module, n, arguments,
                                    partitioned.parameter_shardings, partitioned.result_sharding,
                                    options));
  std::vector<Literal> got = FlattenLeaves(result), want = FlattenLeaves(reference);
  if (got.size() != want.size())
    Raise(Internal("partitioned program returned {} outputs, the reference {}", got.size(),
                   want.size()));
  double max_abs = 0, max_rel = 0;
  const double tolerance = ModuleTolerance(*under_test);
  for (size_t k = 0; k < got.size(); ++k) {
    LeafComparison c = CompareLeaf(got[k], want[k], tolerance);
    max_abs = std::max(max_abs, c.max_abs_error);
    max_rel = std::max(max_rel, c.max_rel_error);
    if (!c.ok)
      Raise(absl::AbortedError(
          fmt::format("verify: MISMATCH on {} devices: output_{} {}", n, k, c.problem)));
  }
  out["num_partitions"] = static_cast<double>(n);
  out["outputs"] = static_cast<double>(got.size());
  out["max_abs_error"] = max_abs;
  out["max_rel_error"] = max_rel;
  out["manual_reference"] = manual_region ? 1.0 : 0.0;
  return out;
}

// Per array leaf of `shape` (pre-order), its sharding's PartitionSpec on `mesh`; nullopt for a
// leaf without a sharding or one no spec expresses (maximal, manual, a device order the mesh
// does not slice).
using OptionalSpec = std::optional<PartitionSpec>;
void LeafSpecs(const Shape& shape, const Sharding* sharding, const Mesh& mesh,
               std::vector<OptionalSpec>& out) {
  if (shape.IsTuple()) {
    std::optional<Sharding> normalized;
    if (sharding) normalized = sharding->NormalizeTupleSharding(shape);
    for (size_t k = 0; k < shape.tuple_shapes().size(); ++k) {
      const Sharding* element = nullptr;
      if (normalized && normalized->IsTuple() && k < normalized->tuple_elements().size())
        element = &normalized->tuple_elements()[k];
      else if (normalized && !normalized->IsTuple())
        element = &*normalized;
      LeafSpecs(shape.tuple_shapes()[k], element, mesh, out);
    }
    return;
  }
  if (!sharding || !shape.IsArray()) {
    out.push_back(std::nullopt);
    return;
  }
  out.push_back(SpecFromSharding(mesh, *sharding, shape.rank()));
}

std::pair<std::vector<OptionalSpec>, std::vector<OptionalSpec>> EntrySpecs(
    const PyModule& m, const std::optional<std::string>& mesh_text) {
  std::optional<std::string> text = mesh_text ? mesh_text : m.mesh;
  if (!text) Raise(InvalidArgument("entry_specs needs a mesh (none given, none annotated)"));
  Mesh mesh = Take(Mesh::Parse(*text));
  std::vector<OptionalSpec> params, results;
  const Computation* entry = m.module->entry();
  for (const Instruction* p : entry->parameters()) LeafSpecs(p->shape(), p->sharding(), mesh, params);
  LeafSpecs(entry->root()->shape(), entry->root()->sharding(), mesh, results);
  return {params, results};
}

// `spmdc auto` (src/auto/plan.h) on the module's mesh: the chosen plan's annotated module, and
// what the CLI's report says of the search and the plans it was priced beside.
std::pair<PyModule, nb::dict> Auto(const PyModule& m, const std::optional<std::string>& mesh_text,
                                   const std::string& hardware, const std::string& hardware_dir,
                                   std::optional<int64_t> memory_limit, double time_limit,
                                   int64_t work_limit, bool keep_annotations, const std::string& search) {
  std::optional<std::string> text = mesh_text ? mesh_text : m.mesh;
  if (!text) Raise(InvalidArgument("auto needs a mesh (none given, none annotated)"));
  if (memory_limit && *memory_limit <= 0)
    Raise(InvalidArgument("memory_limit must be positive, got {}", *memory_limit));
  if (!(time_limit >= 0)) Raise(InvalidArgument("time_limit must be >= 0, got {}", time_limit));
  if (search != "ilp" && search != "mcts") Raise(InvalidArgument("search must be 'ilp' or 'mcts', got '{}'", search));
  Mesh mesh = Take(Mesh::Parse(*text));
  std::unique_ptr<Module> copy = m.module->Clone();
  copy->set_num_partitions(mesh.num_devices());
  HardwareProfile hw = Take(LoadHardwareProfile(hardware, hardware_dir));
  autoshard::PlanOptions options(mesh);
  options.hardware = &hw;
  options.memory_limit = memory_limit;
  options.time_limit_s = time_limit;
  options.work_limit = work_limit;
  options.keep_annotations = keep_annotations;
  options.search = search == "mcts" ? autoshard::SearchKind::kMcts : autoshard::SearchKind::kIlp;
  autoshard::AutoResult result = [&] {
    nb::gil_scoped_release release;
    Check(autoshard::PrepareForPlanning(*copy));
    return Take(autoshard::PlanAuto(*copy, options));
  }();
  Check(autoshard::ChosenPlanFits(result));
  auto plan_dict = [](const autoshard::PricedPlan& p) {
    nb::dict d;
    d["name"] = p.name;
    d["step_time_seconds"] = p.step_seconds;
    d["compute_seconds"] = p.compute_seconds;
    d["communication_seconds"] = p.communication_seconds;
    d["collective_bytes_per_device"] = p.collective_bytes;
    d["peak_memory_bytes"] = p.peak_bytes;
    d["fits"] = p.fits;
    return d;
  };
  nb::dict info;
  const autoshard::PricedPlan& chosen = result.Chosen();
  info["chosen"] = chosen.name;
  info["step_time_seconds"] = chosen.step_seconds;
  info["peak_memory_bytes"] = chosen.peak_bytes;
  info["memory_limit_bytes"] = result.memory_limit;
  info["search_estimate_seconds"] = result.model_cost_seconds;
  info["lower_bound_seconds"] = result.lower_bound_seconds;
  info["gap"] = result.gap;
  info["optimal"] = result.optimal;
  info["search_seconds"] = result.search_seconds;
  info["search"] = search;
  nb::list tactics;
  for (const std::string& t : result.tactics) tactics.append(t);
  info["tactics"] = tactics;
  nb::list plans;
  plans.append(plan_dict(result.search));
  for (const auto* list : {&result.standard, &result.update_sharded})
    for (const autoshard::PricedPlan& p : *list) plans.append(plan_dict(p));
  info["plans"] = plans;
  autoshard::PricedPlan& taken = result.Chosen();
  return {PyModule{std::move(taken.annotated), text, nullptr}, info};
}

std::vector<std::string> ParameterNames(const PyModule& m) {
  std::vector<std::string> names;
  for (const Instruction* p : m.module->entry()->parameters()) names.push_back(p->name());
  return names;
}

nb::list Instructions(const PyModule& m) {
  nb::list out;
  for (const Computation* c : m.module->computations()) {
    for (const Instruction* i : c->instructions()) {
      nb::dict d;
      d["name"] = i->name();
      d["opcode"] = std::string(OpcodeName(i->opcode()));
      d["shape"] = i->shape().ToString(false);
      d["computation"] = c->name();
      d["entry"] = c == m.module->entry();
      if (i->has_sharding())
        d["sharding"] = i->sharding()->ToString(false);
      else
        d["sharding"] = nb::none();
      d["op_name"] = SourceInfoOf(*i).op_name;
      out.append(d);
    }
  }
  return out;
}

std::map<std::string, std::pair<int64_t, int64_t>> Collectives(const PyModule& m) {
  std::map<std::string, std::pair<int64_t, int64_t>> out;
  for (const auto& [kind, c] : CountCollectives(*m.module)) out[kind] = {c.count, c.bytes};
  return out;
}

}  // namespace
}  // namespace spmdc::python

NB_MODULE(_spmdc, m) {
  using namespace spmdc::python;
  m.doc() = "spmdc's C++ library (the public API is the spmdc package)";

  nb::exception<Error> error(m, "Error");
  error.attr("exit_code") = 4;
  nb::exception<BadInput> bad_input(m, "BadInputError", error);
  bad_input.attr("exit_code") = spmdc::cli::kExitBadInput;
  nb::exception<Unsupported> unsupported(m, "UnsupportedError", error);
  unsupported.attr("exit_code") = spmdc::cli::kExitUnsupported;
  nb::exception<Mismatch> mismatch(m, "MismatchError", error);
  mismatch.attr("exit_code") = spmdc::cli::kExitMismatch;
  nb::exception<InternalFailure> internal(m, "InternalError", error);
  internal.attr("exit_code") = spmdc::cli::kExitInternal;

  nb::class_<PyModule>(m, "Module")
      .def_static("parse", &Parse, "text"_a, "filename"_a = "<input>",
                  "Parses HLO text or StableHLO MLIR text (told apart as the CLI does) and "
                  "verifies it.")
      .def("text", [](const PyModule& self) { return spmdc::PrintModule(*self.module); },
           "The module in canonical HLO text.")
      .def_prop_ro("name", [](const PyModule& self) { return self.module->name(); })
      .def_prop_ro("num_partitions",
                   [](const PyModule& self) { return self.module->num_partitions(); })
      .def_prop_ro("mesh", [](const PyModule& self) { return self.mesh; })
      .def_prop_ro("num_parameters",
                   [](const PyModule& self) { return self.module->entry()->num_parameters(); })
      .def("annotate", &Annotated, "mesh"_a = nb::none(),
           "shards"_a = std::map<std::string, std::string>{},
           "A copy with `mesh` and `shards` applied, as --mesh and --shard do.")
      .def("propagate", &Propagate, "mesh"_a = nb::none(),
           "shards"_a = std::map<std::string, std::string>{},
           "to_output"_a = std::vector<bool>{}, "to_parameters"_a = std::vector<bool>{},
           "calls"_a = "inline",
           "A copy annotated as annotate() does, then propagated.")
      .def("explain", &Explain, "name"_a,
           "Why `name` has its sharding (propagates a copy first unless this module came from "
           "propagate()).")
      .def("partition", &Partition, "num_partitions"_a = nb::none(),
           "replicate_custom_partitioning"_a = false,
           "The per-device SPMD program, partitioned as annotated (no propagation).")
      .def("_report_json", &ReportJson, "num_partitions"_a = nb::none(),
           "hardware"_a = "h100", "hardware_dir"_a = "", "partitioned"_a = false)
      .def("verify", &Verify, "num_partitions"_a = nb::none(), "propagate"_a = false,
           "seed"_a = 0, "One device against num_partitions devices on the same random inputs.")
      .def("entry_specs", &EntrySpecs, "mesh"_a = nb::none(),
           "Per array leaf of the entry parameters and of the result, its PartitionSpec on the "
           "mesh (None where it has no sharding or none expresses it).")
      .def("_auto", &Auto, "mesh"_a = nb::none(), "hardware"_a = "h100", "hardware_dir"_a = "",
           "memory_limit"_a = nb::none(), "time_limit"_a = 60.0, "work_limit"_a = 0,
           "keep_annotations"_a = true, "search"_a = "ilp")
      .def("parameter_names", &ParameterNames, "The entry parameters' names, in order.")
      .def("instructions", &Instructions,
           "Every instruction: name, opcode, shape, computation, entry, sharding, op_name.")
      .def("collectives", &Collectives,
           "Per collective kind, (count, bytes per device) of this (per-device) program.");
}

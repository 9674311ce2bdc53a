// spmdc command-line tool. The contract (commands, flags, outputs, exit codes) is DESIGN.md's
// "The command-line contract"; extend it, never break it.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>

#include "absl/strings/str_split.h"
#include "annotate.h"
#include "cli.h"
#include "fmt/format.h"
#include "hlo/printer.h"
#include "hlo/shardy_import.h"
#include "inputs.h"
#include "runtime/result_comparison.h"
#include "interpreter/interpreter.h"
#include "models/models.h"
#include "npy.h"
#include "report.h"
#include "partitioner/partitioner.h"
#include "propagation/propagation.h"
#include "runtime/executor.h"
#include "support/check.h"
#include "sharding/validation.h"

namespace spmdc::cli {
namespace {

constexpr char kUsage[] = R"(usage: spmdc COMMAND [options]

commands:
  check IN.hlo                 parse + verify; print a one-line summary
  print IN.hlo [-o OUT]        parse + verify; print the module in canonical HLO text
  run IN.hlo [--inputs a.npy,b.npy] [--outputs DIR] [--seed S]
                               execute on one device; print a summary of each output
  propagate IN.hlo [--propagate-to-output] [--propagate-to-parameters] [--no-spmd]
                   [--cse-prevention-only] [-o OUT]
                               infer a sharding for every instruction; print the module
                               (--no-spmd: XLA's is_spmd=false rules, for comparison only;
                               --cse-prevention-only: keep only the shardings inferred for
                               scalar broadcasts, marked, as XLA's CSE-prevention pass)
  explain IN.hlo NAME|--all    why NAME has its sharding: the rule chain back to annotations
  partition IN.hlo --num-partitions N [--stats] [-o OUT]
                               partition as annotated; print the per-device SPMD module
  compile IN.hlo --num-partitions N [--stats] [-o OUT]
                               propagate, partition, clean up
  run IN.hlo --num-partitions N ...   propagate, partition and run on N in-process devices
  verify IN.hlo --num-partitions N [--propagate] [--seed S]
                               single device vs N devices on the same random inputs
  report IN.hlo --num-partitions N [--hardware NAME|FILE.json] [--hardware-dir DIR]
         [--format text|json] [--partitioned] [-o OUT]
                               per-device memory, FLOPs, communication and step time
                               (propagates and partitions first unless --partitioned)
  (partition, compile, run, verify: --replicate-custom-partitioning runs CustomSPMDPartitioning
   calls replicated, with a warning, instead of refusing them)
  example NAME [-o OUT]        emit an example model module (mlp, mlp-2d, transformer,
                               transformer-dp, transformer-tp, transformer-2d, transformer-large)

every command that takes a module also accepts:
  --mesh data=2,model=4        a named device mesh
  --shard NAME=SPEC            annotate instruction NAME: SPEC is "[data, None]" (with --mesh)
                               or an HLO sharding "{devices=[2,1]<=[2]}"; repeatable

IN may be '-' for standard input. Exit codes: 0 ok, 1 mismatch, 2 bad input, 3 unsupported.
)";

std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> out;
  for (auto piece : absl::StrSplit(absl::string_view(s.data(), s.size()), ',', absl::SkipEmpty()))
    out.emplace_back(piece.data(), piece.size());
  return out;
}

StatusOr<int64_t> NumPartitionsOf(const Args& args, const Module& module) {
  std::optional<std::string> text = args.Get("num-partitions");
  if (!text) {
    if (module.num_partitions() > 1) return module.num_partitions();
    return InvalidArgument("--num-partitions N is required (the module does not set num_partitions)");
  }
  char* end = nullptr;
  long long n = std::strtoll(text->c_str(), &end, 10);
  if (end == text->c_str() || *end != '\0' || n < 1 || n > (1 << 20))
    return InvalidArgument("--num-partitions expects a positive integer, got '{}'", *text);
  if (module.num_partitions() > 1 && module.num_partitions() != n)
    return InvalidArgument("--num-partitions {} disagrees with the module's num_partitions={}", n,
                           module.num_partitions());
  return static_cast<int64_t>(n);
}

StatusOr<std::unique_ptr<Module>> LoadPositional(const Args& args, size_t extra_positional = 0) {
  if (args.positional.size() != 1 + extra_positional) {
    return InvalidArgument("expected {} (or '-' for standard input)",
                           extra_positional ? "an input module and a name" : "exactly one input module");
  }
  ASSIGN_OR_RETURN(Source source, ReadSource(args.positional[0]));
  ASSIGN_OR_RETURN(std::unique_ptr<Module> module, LoadModule(source));
  // --num-partitions first: the --mesh/--shard annotations are validated against it.
  if (args.Has("num-partitions")) {
    ASSIGN_OR_RETURN(int64_t n, NumPartitionsOf(args, *module));
    module->set_num_partitions(n);
    // The module's own shardings must fit the device count now, so that a misfit names the
    // annotated instruction and its line rather than a value propagation copied it to.
    DiagnosticSource diag{source.filename, source.text};
    RETURN_IF_ERROR(VerifyModuleShardings(*module, &diag, n));
  }
  auto shards = args.values.find("shard");
  ASSIGN_OR_RETURN(Annotations annotations,
                   ParseAnnotations(args.Get("mesh"), shards == args.values.end()
                                                          ? std::vector<std::string>{}
                                                          : shards->second));
  RETURN_IF_ERROR(ApplyAnnotations(annotations, *module));
  return module;
}

PropagationOptions PropagationOptionsFrom(const Args& args) {
  PropagationOptions options;
  if (args.Has("propagate-to-output")) options.allow_to_output = std::vector<bool>{true};
  if (args.Has("propagate-to-parameters")) options.allow_to_parameters = std::vector<bool>{true};
  if (args.Has("no-spmd")) options.is_spmd = false;
  if (args.Has("cse-prevention-only")) options.cse_prevention_only = true;
  return options;
}

Status CmdPropagate(const Args& args) {
  ASSIGN_OR_RETURN(auto module, LoadPositional(args));
  RETURN_IF_ERROR(PropagateShardings(*module, PropagationOptionsFrom(args)).status());
  ExportShardyAttributes(*module);  // xla.sdy.sharding made to match what propagation chose
  return WriteOutput(args.Get("o").value_or(""), PrintModule(*module));
}

// --replicate-custom-partitioning of the running command.
bool replicate_custom_partitioning = false;

// Partitions `module` (already propagated or annotated) and cleans the result up.
StatusOr<PartitionResult> PartitionAndClean(const Module& module, int64_t n) {
  PartitionOptions options{n};
  options.replicate_custom_partitioning = replicate_custom_partitioning;
  ASSIGN_OR_RETURN(PartitionResult result, PartitionAndCleanUp(module, options));
  for (const std::string& w : result.stats.warnings) std::fprintf(stderr, "spmdc: warning: %s\n", w.c_str());
  return result;
}

std::string StatsText(const PartitionResult& r) {
  std::string out = "collectives (per device):\n";
  if (r.stats.collectives.empty()) out += "  none\n";
  for (const auto& [kind, c] : r.stats.collectives)
    out += fmt::format("  {:<20} count={:<4} bytes={}\n", kind, c.count, c.bytes);
  out += fmt::format("parameters: {} bytes per device\noutput: {} bytes per device\n", r.stats.parameter_bytes,
                     r.stats.output_bytes);
  if (!r.stats.warnings.empty()) out += fmt::format("full rematerializations: {}\n", r.stats.warnings.size());
  return out;
}

Status EmitPartitioned(const Args& args, const PartitionResult& result) {
  std::string out_path = args.Get("o").value_or("");
  DropShardyAttributes(*result.module);  // a per-device program: no sharding is meaningful
  RETURN_IF_ERROR(WriteOutput(out_path, PrintModule(*result.module)));
  if (args.Has("stats")) {
    std::string stats = StatsText(result);
    std::fputs(stats.c_str(), out_path.empty() || out_path == "-" ? stderr : stdout);
  }
  return absl::OkStatus();
}

Status CmdPartition(const Args& args) {
  ASSIGN_OR_RETURN(auto module, LoadPositional(args));
  ASSIGN_OR_RETURN(int64_t n, NumPartitionsOf(args, *module));
  ASSIGN_OR_RETURN(PartitionResult result, PartitionAndClean(*module, n));
  return EmitPartitioned(args, result);
}

Status CmdCompile(const Args& args) {
  ASSIGN_OR_RETURN(auto module, LoadPositional(args));
  ASSIGN_OR_RETURN(int64_t n, NumPartitionsOf(args, *module));
  module->set_num_partitions(n);
  RETURN_IF_ERROR(PropagateShardings(*module, PropagationOptionsFrom(args)).status());
  ASSIGN_OR_RETURN(PartitionResult result, PartitionAndClean(*module, n));
  return EmitPartitioned(args, result);
}

Status CmdExplain(const Args& args) {
  bool all = args.Has("all");
  ASSIGN_OR_RETURN(auto module, LoadPositional(args, all ? 0 : 1));
  Provenance provenance;
  RETURN_IF_ERROR(PropagateShardings(*module, PropagationOptionsFrom(args), &provenance).status());
  std::optional<Mesh> mesh;
  if (auto text = args.Get("mesh")) {
    ASSIGN_OR_RETURN(mesh, Mesh::Parse(*text));
  }
  std::string out;
  for (Computation* c : module->computations()) {
    for (Instruction* i : c->instructions()) {
      if (!all && i->name() != args.positional[1]) continue;
      out += ExplainSharding(provenance, *i);
      if (std::string where = module->SourceLocationOf(*i); !where.empty()) {
        out += fmt::format("source: {}\n", where);
      }
      if (mesh && i->has_sharding()) {
        out += fmt::format("on mesh {}: {}\n", mesh->ToString(), DescribeSharding(i->shape(), *i->sharding(), *mesh));
      }
      if (all) out += "\n";
    }
  }
  if (out.empty()) return InvalidArgument("no instruction named '{}'", args.positional[1]);
  std::fputs(out.c_str(), stdout);
  return absl::OkStatus();
}

Status CmdCheck(const Args& args) {
  ASSIGN_OR_RETURN(auto module, LoadPositional(args));
  int64_t instructions = 0;
  for (Computation* c : module->computations()) instructions += c->instruction_count();
  std::printf("ok: module %s: %zu computations, %lld instructions, %lld entry parameters, "
              "num_partitions=%lld\n",
              module->name().c_str(), module->computations().size(),
              static_cast<long long>(instructions),
              static_cast<long long>(module->entry()->num_parameters()),
              static_cast<long long>(module->num_partitions()));
  return absl::OkStatus();
}

Status CmdPrint(const Args& args) {
  ASSIGN_OR_RETURN(auto module, LoadPositional(args));
  ExportShardyAttributes(*module);
  return WriteOutput(args.Get("o").value_or(""), PrintModule(*module));
}

StatusOr<uint64_t> SeedOf(const Args& args) {
  auto s = args.Get("seed");
  if (!s) return uint64_t{0};
  char* end = nullptr;
  unsigned long long v = std::strtoull(s->c_str(), &end, 10);
  if (end == s->c_str() || *end != '\0') return InvalidArgument("--seed expects an integer, got '{}'", *s);
  return static_cast<uint64_t>(v);
}

// Partitions `module` for n devices and runs it on in-process devices.
StatusOr<Literal> RunPartitioned(const Module& module, int64_t n, const std::vector<Literal>& arguments) {
  ASSIGN_OR_RETURN(PartitionResult partitioned, PartitionAndClean(module, n));
  SpmdOptions options;
  options.global_result_shape = module.entry()->root()->shape();
  return ExecuteSpmd(*partitioned.module, n, arguments, partitioned.parameter_shardings,
                     partitioned.result_sharding, options);
}

Status CmdRun(const Args& args) {
  ASSIGN_OR_RETURN(auto module, LoadPositional(args));
  ASSIGN_OR_RETURN(uint64_t seed, SeedOf(args));
  std::vector<std::string> npy = args.Get("inputs") ? SplitList(*args.Get("inputs")) : std::vector<std::string>{};
  int64_t n = 0;
  if (args.Has("num-partitions")) {
    ASSIGN_OR_RETURN(n, NumPartitionsOf(args, *module));
  }
  ASSIGN_OR_RETURN(std::vector<Literal> arguments, MakeArguments(*module, npy, seed, n));
  Literal result;
  if (args.Has("num-partitions")) {
    // As `compile` does: infer the shardings the user did not give, then partition.
    module->set_num_partitions(n);
    RETURN_IF_ERROR(PropagateShardings(*module, PropagationOptionsFrom(args)).status());
    ASSIGN_OR_RETURN(result, RunPartitioned(*module, n, arguments));
  } else {
    SingleDeviceContext device;
    ASSIGN_OR_RETURN(result, Execute(*module, arguments, &device));
  }
  std::vector<Literal> leaves = FlattenLeaves(result);
  std::optional<std::string> dir = args.Get("outputs");
  if (dir) {
    std::error_code ec;
    std::filesystem::create_directories(*dir, ec);
    if (ec) return InvalidArgument("{}: cannot create directory: {}", *dir, ec.message());
  }
  for (size_t i = 0; i < leaves.size(); ++i) {
    std::printf("output_%zu: %s\n", i, SummarizeLeaf(leaves[i]).c_str());
    if (dir) RETURN_IF_ERROR(WriteNpy(fmt::format("{}/output_{}.npy", *dir, i), leaves[i]));
  }
  return absl::OkStatus();
}

Status CmdExample(const Args& args) {
  static const char* kKnown =
      "mlp, mlp-2d, transformer, transformer-dp, transformer-tp, transformer-2d, transformer-large";
  if (args.positional.size() != 1) return InvalidArgument("expected an example name ({})", kKnown);
  const std::string& name = args.positional[0];
  // Small transformer: B=4 S=16 D=64 H=4 F=256 L=2, softmax cross-entropy over 32 classes.
  TransformerOptions transformer;
  transformer.vocab = 32;
  std::string text;
  if (name == "mlp") {
    text = BuildMlpTrainingStep(MlpOptions{});
  } else if (name == "mlp-2d") {
    MlpOptions o;
    o.parallel.data = 2;
    o.parallel.model = 4;
    text = BuildMlpTrainingStep(o);
  } else if (name == "transformer") {
    text = BuildTransformerTrainingStep(transformer);
  } else if (name == "transformer-dp") {
    transformer.parallel.data = 4;
    text = BuildTransformerTrainingStep(transformer);
  } else if (name == "transformer-tp") {
    transformer.parallel.model = 4;
    text = BuildTransformerTrainingStep(transformer);
  } else if (name == "transformer-2d") {
    transformer.parallel.data = 2;
    transformer.parallel.model = 4;
    text = BuildTransformerTrainingStep(transformer);
  } else if (name == "transformer-large") {
    text = BuildTransformerTrainingStep(TransformerOptionsForInstructionCount(100000, transformer));
  } else {
    return InvalidArgument("unknown example '{}' (known: {})", name, kKnown);
  }
  return WriteOutput(args.Get("o").value_or(""), text);
}

bool IsManualSharding(const Sharding& s) {
  if (s.IsTuple()) {
    for (const Sharding& e : s.tuple_elements())
      if (IsManualSharding(e)) return true;
    return false;
  }
  return s.IsManual() || s.IsManualSubgroup();
}

// A manual region (a shard_map body): its values are per-device shards.
bool HasManualRegion(const Module& module) {
  for (const Computation* c : module.computations())
    for (const Instruction* i : c->instructions())
      if (i->has_sharding() && IsManualSharding(*i->sharding())) return true;
  return false;
}

// The reference for a module with manual regions, which one device cannot run: the module with
// every sharding dropped except the manual regions' boundaries (the manual values, the
// SPMDFullToShardShape/SPMDShardToFullShape calls) and the Sharding constraints,
// propagated and partitioned like the module under test but without the user's other choices.
std::unique_ptr<Module> ManualBoundariesOnly(const Module& module) {
  std::unique_ptr<Module> stripped = module.Clone();
  for (Computation* c : stripped->computations()) {
    for (Instruction* i : c->instructions()) {
      if (!i->has_sharding() || IsManualSharding(*i->sharding())) continue;
      if (i->IsCustomCall("SPMDFullToShardShape") || i->IsCustomCall("SPMDShardToFullShape"))
        continue;
      // Sharding custom calls keep theirs: a constraint without a sharding is malformed, and
      // it does not change values.
      if (i->IsCustomCall("Sharding")) continue;
      i->clear_sharding();
    }
  }
  return stripped;
}

// The number of manual groups when the entry signature is manual: every array leaf of the
// parameters and the result is manual, or manual in subgroups of one group count (each group
// then runs the program on its own values, which one device can run group by group); 0 when no
// leaf is manual. Unimplemented when manual and automatic leaves mix (per-device inputs next to
// global ones have no single-device reference).
StatusOr<int64_t> ManualSignatureGroups(const Module& module, int64_t n) {
  const Computation* entry = module.entry();
  std::vector<std::pair<std::string, Sharding>> leaves;
  auto add = [&](const Instruction* i, const std::string& what) {
    Sharding s = i->has_sharding() ? i->sharding()->NormalizeTupleSharding(i->shape()) : Sharding::Replicate();
    std::vector<Sharding> flat = s.IsTuple() ? s.tuple_elements() : std::vector<Sharding>{s};
    std::vector<const Shape*> shapes;
    std::function<void(const Shape&)> walk = [&](const Shape& sh) {
      if (sh.IsTuple()) for (const Shape& e : sh.tuple_shapes()) walk(e);
      else shapes.push_back(&sh);
    };
    walk(i->shape());
    for (size_t k = 0; k < shapes.size() && k < flat.size(); ++k)
      if (shapes[k]->IsArray()) leaves.emplace_back(what, flat[k]);
  };
  for (int64_t p = 0; p < entry->num_parameters(); ++p) add(entry->parameter(p), "%" + entry->parameter(p)->name());
  add(entry->root(), "the result");
  int64_t groups = 0;
  const std::pair<std::string, Sharding>* manual = nullptr;
  const std::pair<std::string, Sharding>* automatic = nullptr;
  for (const auto& leaf : leaves) {
    const Sharding& s = leaf.second;
    if (!s.IsManual() && !s.IsManualSubgroup()) {
      if (!automatic) automatic = &leaf;
      continue;
    }
    int64_t g = s.IsManual() ? n : s.tile_assignment().dim(s.SubgroupManualDim());
    if (manual && g != groups)
      return Unimplemented("verify: {} ({}) and {} ({}) are manual in different numbers of groups", manual->first,
                           manual->second.ToString(false), leaf.first, s.ToString(false));
    if (!manual) manual = &leaf, groups = g;
  }
  if (manual && automatic)
    return Unimplemented("verify: {} is manual ({}) but {} is not ({}): per-device values next to global ones have "
                         "no single-device reference (`run` executes it)",
                         manual->first, manual->second.ToString(false), automatic->first,
                         automatic->second.ToString(false));
  return groups;
}

// Group `g`'s values of stacked (manual) host values, and the inverse.
Literal GroupOf(const Literal& stacked, int64_t g) {
  if (stacked.shape().IsTuple()) {
    std::vector<Literal> elems;
    for (const Literal& e : stacked.elements()) elems.push_back(GroupOf(e, g));
    return Literal::Tuple(std::move(elems));
  }
  std::vector<int64_t> dims(stacked.shape().dims().begin() + 1, stacked.shape().dims().end());
  Literal out(Shape(stacked.shape().dtype(), dims));
  const int64_t bytes = out.shape().byte_size();
  std::memcpy(out.mutable_raw(), stacked.raw() + g * bytes, bytes);
  return out;
}
Literal Stack(const std::vector<Literal>& groups) {
  if (groups[0].shape().IsTuple()) {
    std::vector<Literal> elems;
    for (size_t k = 0; k < groups[0].elements().size(); ++k) {
      std::vector<Literal> parts;
      for (const Literal& g : groups) parts.push_back(g.elements()[k]);
      elems.push_back(Stack(parts));
    }
    return Literal::Tuple(std::move(elems));
  }
  std::vector<int64_t> dims = {static_cast<int64_t>(groups.size())};
  dims.insert(dims.end(), groups[0].shape().dims().begin(), groups[0].shape().dims().end());
  Literal out(Shape(groups[0].shape().dtype(), dims));
  const int64_t bytes = groups[0].shape().byte_size();
  for (size_t g = 0; g < groups.size(); ++g) std::memcpy(out.mutable_raw() + g * bytes, groups[g].raw(), bytes);
  return out;
}

Status CmdVerify(const Args& args) {
  ASSIGN_OR_RETURN(auto module, LoadPositional(args));
  ASSIGN_OR_RETURN(int64_t n, NumPartitionsOf(args, *module));
  ASSIGN_OR_RETURN(uint64_t seed, SeedOf(args));
  ASSIGN_OR_RETURN(int64_t manual_groups, ManualSignatureGroups(*module, n));
  ASSIGN_OR_RETURN(std::vector<Literal> arguments, MakeArguments(*module, {}, seed, n));
  SingleDeviceContext device;
  StatusOr<Literal> single = absl::UnknownError("");
  if (manual_groups > 0) {
    // A manual entry signature: the program is per group; one device runs it group by group.
    std::vector<Literal> per_group;
    for (int64_t g = 0; g < manual_groups; ++g) {
      std::vector<Literal> group_args;
      for (const Literal& a : arguments) group_args.push_back(GroupOf(a, g));
      StatusOr<Literal> r = Execute(*module, group_args, &device);
      if (!r.ok()) {
        single = r.status();
        break;
      }
      per_group.push_back(*std::move(r));
    }
    if (static_cast<int64_t>(per_group.size()) == manual_groups) single = Stack(per_group);
  } else {
    single = Execute(*module, arguments, &device);
  }
  Literal reference;
  const char* reference_kind = manual_groups > 0 ? " (reference: each manual group's program on one device)" : "";
  if (single.ok()) {
    reference = *std::move(single);
  } else if (single.status().code() == absl::StatusCode::kUnimplemented && args.Has("propagate") &&
             HasManualRegion(*module)) {
    // One device cannot run a manual region (shard_map): the reference runs on the same
    // devices, sharded only as the manual regions require.
    std::unique_ptr<Module> plain = ManualBoundariesOnly(*module);
    plain->set_num_partitions(n);
    RETURN_IF_ERROR(PropagateShardings(*plain, PropagationOptionsFrom(args)).status());
    ASSIGN_OR_RETURN(reference, RunPartitioned(*plain, n, arguments));
    reference_kind = " (reference: the manual regions' shardings only, the module cannot run on one device)";
  } else if (single.status().code() == absl::StatusCode::kUnimplemented && HasManualRegion(*module)) {
    return Unimplemented("{} (verify --propagate compares a module with manual regions on several devices)",
                         single.status().message());
  } else {
    return single.status();
  }
  module->set_num_partitions(n);
  if (args.Has("propagate")) RETURN_IF_ERROR(PropagateShardings(*module, PropagationOptionsFrom(args)).status());
  ASSIGN_OR_RETURN(Literal result, RunPartitioned(*module, n, arguments));
  std::vector<Literal> got = FlattenLeaves(result), want = FlattenLeaves(reference);
  if (got.size() != want.size())
    return Internal("partitioned program returned {} outputs, the reference {}", got.size(), want.size());
  double max_abs = 0, max_rel = 0;
  double tolerance = ModuleTolerance(*module);
  for (size_t i = 0; i < got.size(); ++i) {
    LeafComparison c = CompareLeaf(got[i], want[i], tolerance);
    max_abs = std::max(max_abs, c.max_abs_error);
    max_rel = std::max(max_rel, c.max_rel_error);
    if (!c.ok) {
      std::printf("verify: MISMATCH on %lld devices: output_%zu %s\n", static_cast<long long>(n), i, c.problem.c_str());
      return absl::AbortedError("partitioned result differs from the single-device result");
    }
  }
  std::printf("verify: ok on %lld devices: %zu outputs, max abs error %.3g, max relative error %.3g%s\n",
              static_cast<long long>(n), got.size(), max_abs, max_rel, reference_kind);
  return absl::OkStatus();
}

Status CmdReport(const Args& args) {
  ASSIGN_OR_RETURN(auto module, LoadPositional(args));
  ASSIGN_OR_RETURN(int64_t n, NumPartitionsOf(args, *module));
  module->set_num_partitions(n);
  return RunReport(args, std::move(module), n, PropagationOptionsFrom(args));
}

struct Command {
  const char* name;
  std::vector<FlagSpec> flags;
  std::function<Status(const Args&)> run;
};

int Main(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h" ||
      std::string(argv[1]) == "help") {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? kExitBadInput : kExitOk;
  }
  const std::vector<FlagSpec> annotate = {{"mesh", true}, {"shard", true}};
  auto with = [&](std::vector<FlagSpec> flags) {
    flags.insert(flags.end(), annotate.begin(), annotate.end());
    return flags;
  };
  const std::vector<FlagSpec> propagation = {{"propagate-to-output", false},
                                             {"propagate-to-parameters", false}};
  std::vector<FlagSpec> propagate_flags = with(propagation);
  propagate_flags.push_back({"o", true});
  propagate_flags.push_back({"no-spmd", false});
  propagate_flags.push_back({"cse-prevention-only", false});
  std::vector<FlagSpec> explain_flags = with(propagation);
  explain_flags.push_back({"no-spmd", false});
  explain_flags.push_back({"all", false});
  const std::vector<Command> commands = {
      {"check", with({}), CmdCheck},
      {"print", with({{"o", true}}), CmdPrint},
      {"run", [&] {
         std::vector<FlagSpec> f = with(propagation);
         f.insert(f.end(), {{"inputs", true}, {"outputs", true}, {"seed", true}, {"num-partitions", true},
                            {"replicate-custom-partitioning", false}});
         return f;
       }(), CmdRun},
      {"propagate", propagate_flags, CmdPropagate},
      {"explain", explain_flags, CmdExplain},
      {"verify", [&] {
         std::vector<FlagSpec> f = with(propagation);
         f.insert(f.end(), {{"num-partitions", true}, {"propagate", false}, {"seed", true},
                            {"replicate-custom-partitioning", false}});
         return f;
       }(), CmdVerify},
      {"partition", with({{"num-partitions", true}, {"stats", false}, {"o", true}, {"replicate-custom-partitioning", false}}),
       CmdPartition},
      {"compile", [&] {
         std::vector<FlagSpec> f = with(propagation);
         f.insert(f.end(), {{"num-partitions", true}, {"stats", false}, {"o", true},
                            {"replicate-custom-partitioning", false}});
         return f;
       }(), CmdCompile},
      {"example", {{"o", true}}, CmdExample},
      {"report", [&] {
         std::vector<FlagSpec> f = with(propagation);
         for (const FlagSpec& r : ReportFlags()) f.push_back(r);
         return f;
       }(), CmdReport},
  };
  std::string name = argv[1];
  for (const Command& c : commands) {
    if (name != c.name) continue;
    StatusOr<Args> args = ParseArgs(argc, argv, 2, c.flags);
    if (!args.ok()) {
      Report(args.status());
      std::fputs(kUsage, stderr);
      return kExitBadInput;
    }
    replicate_custom_partitioning = args->Has("replicate-custom-partitioning");
    Status s;
    try {
      s = c.run(*args);
    } catch (const InternalError& e) {
      s = absl::InternalError(e.what());
    } catch (const std::bad_alloc&) {
      s = absl::ResourceExhaustedError("out of memory (the module's values do not fit this machine)");
    }
    return s.ok() ? kExitOk : Report(s);
  }
  std::fprintf(stderr, "spmdc: error: unknown command '%s'\n%s", name.c_str(), kUsage);
  return kExitBadInput;
}

}  // namespace
}  // namespace spmdc::cli

int main(int argc, char** argv) { return spmdc::cli::Main(argc, argv); }

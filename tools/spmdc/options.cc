#include "options.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "annotate.h"
#include "cli.h"
#include "fmt/format.h"
#include "sharding/validation.h"

namespace spmdc::cli {

namespace {
constexpr int64_t kMaxPartitions = int64_t{1} << 20;
}  // namespace

void AddModuleArgs(CLI::App* app, ModuleArgs& args) {
  app->add_option("IN", args.input, "the module, HLO text ('-' reads standard input)")
      ->type_name("FILE")
      ->required();
  app->add_option("--mesh", args.mesh, "a named device mesh, e.g. data=2,model=4")
      ->type_name("AXES")
      ->group("Annotations");
  // One value per occurrence: a vector option would otherwise take the words after it too.
  app->add_option(
         "--shard", args.shards,
         "annotate instruction NAME: SPEC is a PartitionSpec over --mesh (\"[data, None]\") or "
         "an HLO sharding (\"{devices=[2,1]<=[2]}\"); repeatable")
      ->type_name("NAME=SPEC")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->group("Annotations");
}

void AddNumPartitions(CLI::App* app, std::optional<int64_t>& n) {
  app->add_option("--num-partitions", n,
                  "devices to partition for (default: the module's num_partitions)")
      ->type_name("N")
      ->check(IntegerIn(1, kMaxPartitions));
}

StatusOr<int64_t> NumPartitionsOf(const std::optional<int64_t>& flag, const Module& module) {
  if (!flag) {
    if (module.num_partitions() > 1) return module.num_partitions();
    return InvalidArgument(
        "--num-partitions N is required (the module does not set num_partitions)");
  }
  if (module.num_partitions() > 1 && module.num_partitions() != *flag)
    return InvalidArgument("--num-partitions {} disagrees with the module's num_partitions={}",
                           *flag, module.num_partitions());
  return *flag;
}

void AddReplicateCustomPartitioning(CLI::App* app, bool& replicate) {
  app->add_flag("--replicate-custom-partitioning", replicate,
                "run CustomSPMDPartitioning calls on whole operands (with a warning) instead of "
                "refusing them");
}

void AddWeightUpdateArgs(CLI::App* app, WeightUpdateArgs& args) {
  app->add_flag("--shard-weight-update{gather}", args.mode,
                "shard the optimizer update across data-parallel replicas: gradient all-reduces "
                "become reduce-scatters, the optimizer state is stored sharded, the new weights "
                "are all-gathered (=keep-sharded: left sharded, FSDP-style)")
      ->type_name("[=gather|keep-sharded]")
      ->check(OneOf({"gather", "keep-sharded"}));
  app->add_option("--weight-update-axis", args.axis,
                  "the data-parallel mesh axis (default: 'data', else the mesh's only axis)")
      ->type_name("AXIS");
}

void AddPropagationArgs(CLI::App* app, PropagationArgs& args, bool rule_choices) {
  const char* group = "Propagation";
  app->add_option("--calls", args.calls,
                  "before propagation: inline every call (as XLA's SPMD pipeline does), "
                  "flatten (give each call site its own callee) or keep the calls")
      ->type_name("MODE")
      ->check(OneOf(CallModes()))
      ->capture_default_str()
      ->group(group);
  app->add_flag("--propagate-to-output", args.to_output,
                "let propagation change the entry result's sharding")
      ->group(group);
  app->add_flag("--propagate-to-parameters", args.to_parameters,
                "let propagation change the entry parameters' shardings")
      ->group(group);
  if (!rule_choices) return;
  app->add_flag("--no-spmd", args.no_spmd,
                "XLA's older spatial-partitioning rules (is_spmd=false), for comparing with XLA "
                "runs made so")
      ->group(group);
  app->add_flag("--cse-prevention-only", args.cse_prevention_only,
                "keep only the shardings inferred for scalar broadcasts, marked, as XLA's "
                "CSE-prevention run")
      ->group(group);
}

void AddOutput(CLI::App* app, std::string& path) {
  app->add_option("-o,--output", path, "write the result to OUT instead of standard output")
      ->type_name("OUT");
}

void AddSeed(CLI::App* app, uint64_t& seed) {
  app->add_option("--seed", seed, "seed of the random inputs (default 0)")
      ->type_name("S")
      ->check(UnsignedInteger());
}

StatusOr<std::unique_ptr<Module>> LoadAnnotated(const ModuleArgs& args,
                                                const std::optional<int64_t>& num_partitions, PhaseTimes* times) {
  PhaseClock read;
  ASSIGN_OR_RETURN(Source source, ReadSource(args.input));
  if (times) times->push_back(read.Read("read"));
  ASSIGN_OR_RETURN(std::unique_ptr<Module> module, LoadModule(source, times));
  PhaseClock annotate;
  // --num-partitions first: the --mesh/--shard annotations are validated against it.
  if (num_partitions) {
    ASSIGN_OR_RETURN(int64_t n, NumPartitionsOf(num_partitions, *module));
    const bool changed = module->num_partitions() != n;
    module->set_num_partitions(n);
    DiagnosticSource diag{source.filename, source.text};
    // Its collectives' replica groups were checked against the module's own device count: a
    // different one can make them name too few or too many devices.
    if (changed) RETURN_IF_ERROR(VerifyModule(*module, &diag));
    // The module's own shardings must fit the device count now, so that a misfit names the
    // annotated instruction and its line rather than a value propagation copied it to.
    RETURN_IF_ERROR(VerifyModuleShardings(*module, &diag, n));
  }
  ASSIGN_OR_RETURN(Annotations annotations, ParseAnnotations(args.mesh, args.shards));
  RETURN_IF_ERROR(ApplyAnnotations(annotations, *module));
  if (times) times->push_back(annotate.Read("annotate"));
  return module;
}

CLI::Validator IntegerIn(int64_t lo, int64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        errno = 0;
        char* end = nullptr;
        long long v = std::strtoll(text.c_str(), &end, 10);
        if (text.empty() || end == text.c_str() || *end != '\0' || errno == ERANGE || v < lo ||
            v > hi)
          return fmt::format("expects an integer from {} to {}, got '{}'", lo, hi, text);
        return "";
      },
      fmt::format("INT in [{}, {}]", lo, hi));
}

CLI::Validator UnsignedInteger() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        errno = 0;
        char* end = nullptr;
        bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
        if (digits) std::strtoull(text.c_str(), &end, 10);
        if (!digits || errno == ERANGE)
          return fmt::format("expects an unsigned integer, got '{}'", text);
        return "";
      },
      "UINT");
}

CLI::Validator OneOf(std::vector<std::string> choices) {
  std::string list = fmt::format("{{{}}}", fmt::join(choices, "|"));
  return CLI::Validator(
      [choices](std::string& text) -> std::string {
        for (const std::string& c : choices)
          if (text == c) return "";
        std::string expected;
        for (size_t k = 0; k < choices.size(); ++k)
          expected += (k == 0 ? "" : k + 1 == choices.size() ? " or " : ", ") + choices[k];
        return fmt::format("expects {}, got '{}'", expected, text);
      },
      list);
}

std::optional<int64_t> ParseByteSize(const std::string& text) {
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end == text.c_str() || errno == ERANGE || !(v >= 0) || !std::isfinite(v))
    return std::nullopt;
  std::string unit(end);
  while (!unit.empty() && unit.front() == ' ') unit.erase(unit.begin());
  double scale = 0;
  static const std::pair<const char*, double> kUnits[] = {{"", 1},
                                                          {"B", 1},
                                                          {"K", 1024.0},
                                                          {"KiB", 1024.0},
                                                          {"KB", 1e3},
                                                          {"M", 1048576.0},
                                                          {"MiB", 1048576.0},
                                                          {"MB", 1e6},
                                                          {"G", 1073741824.0},
                                                          {"GiB", 1073741824.0},
                                                          {"GB", 1e9},
                                                          {"T", 1099511627776.0},
                                                          {"TiB", 1099511627776.0},
                                                          {"TB", 1e12}};
  for (const auto& [name, s] : kUnits)
    if (unit == name) scale = s;
  if (scale == 0) return std::nullopt;
  double bytes = std::floor(v * scale);
  if (bytes >= 9.2e18) return std::nullopt;
  return static_cast<int64_t>(bytes);
}

CLI::Validator ByteSize() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (std::optional<int64_t> bytes = ParseByteSize(text)) {
          text = std::to_string(*bytes);
          return "";
        }
        return fmt::format("expects a byte count such as 4GiB, 512MiB, 1.5GB or 1000000, got '{}'",
                           text);
      },
      "BYTES");
}

}  // namespace spmdc::cli

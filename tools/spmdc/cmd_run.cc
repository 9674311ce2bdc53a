// spmdc run IN [--num-partitions N]: execute on one device, or propagate, partition and run on
// N in-process devices; print a summary of each output leaf (and write them as .npy).
#include <cstdio>
#include <filesystem>

#include "absl/strings/str_split.h"
#include "commands.h"
#include "fmt/format.h"
#include "inputs.h"
#include "interpreter/interpreter.h"
#include "npy.h"
#include "partitioning.h"
#include "runtime/result_comparison.h"

namespace spmdc::cli {

namespace {

struct RunArgs {
  ModuleArgs module;
  PropagationArgs propagation;
  std::optional<int64_t> num_partitions;
  bool replicate_custom_partitioning = false;
  std::string inputs;   // a.npy,b.npy
  std::string outputs;  // DIR
  uint64_t seed = 0;
};

std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> out;
  for (auto piece : absl::StrSplit(absl::string_view(s.data(), s.size()), ',', absl::SkipEmpty()))
    out.emplace_back(piece.data(), piece.size());
  return out;
}

Status Run(const RunArgs& args) {
  ASSIGN_OR_RETURN(auto module, LoadAnnotated(args.module, args.num_partitions));
  int64_t n = 0;
  if (args.num_partitions) {
    ASSIGN_OR_RETURN(n, NumPartitionsOf(args.num_partitions, *module));
  }
  ASSIGN_OR_RETURN(std::vector<Literal> arguments, MakeArguments(*module, SplitList(args.inputs), args.seed, n));
  Literal result;
  if (n > 0) {
    // As `compile` does: infer the shardings the user did not give, then partition.
    module->set_num_partitions(n);
    RETURN_IF_ERROR(PropagateShardings(*module, args.propagation.ToOptions()).status());
    ASSIGN_OR_RETURN(PartitionResult partitioned, PartitionAndClean(*module, n, args.replicate_custom_partitioning));
    ASSIGN_OR_RETURN(result, RunOnDevices(partitioned, module->entry()->root()->shape(), n, arguments));
  } else {
    SingleDeviceContext device;
    ASSIGN_OR_RETURN(result, Execute(*module, arguments, &device));
  }
  std::vector<Literal> leaves = FlattenLeaves(result);
  if (!args.outputs.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(args.outputs, ec);
    if (ec) return InvalidArgument("{}: cannot create directory: {}", args.outputs, ec.message());
  }
  for (size_t i = 0; i < leaves.size(); ++i) {
    std::printf("output_%zu: %s\n", i, SummarizeLeaf(leaves[i]).c_str());
    if (!args.outputs.empty())
      RETURN_IF_ERROR(WriteNpy(fmt::format("{}/output_{}.npy", args.outputs, i), leaves[i]));
  }
  return absl::OkStatus();
}

}  // namespace

Command AddRunCommand(CLI::App& root) {
  CLI::App* app = root.add_subcommand(
      "run", "execute on one device, or (--num-partitions N) propagate, partition and run on N in-process devices");
  auto args = std::make_shared<RunArgs>();
  AddModuleArgs(app, args->module);
  AddNumPartitions(app, args->num_partitions);
  app->add_option("--inputs", args->inputs,
                  "the entry parameters in order as full .npy arrays, comma-separated (missing ones random)")
      ->type_name("A.npy,B.npy");
  app->add_option("--outputs", args->outputs, "write the root's array leaves as DIR/output_K.npy")
      ->type_name("DIR");
  AddSeed(app, args->seed);
  AddReplicateCustomPartitioning(app, args->replicate_custom_partitioning);
  AddPropagationArgs(app, args->propagation);
  return {app, [args] { return Run(*args); }};
}

}  // namespace spmdc::cli

// spmdc run IN [--num-partitions N]: execute on one device, or propagate, partition and run on
// N in-process devices; print a summary of each output leaf (and write them as .npy).
#include <cstdio>
#include <filesystem>

#include "absl/strings/str_split.h"
#include "backend.h"
#include "commands.h"
#include "fmt/format.h"
#include "inputs.h"
#include "interpreter/interpreter.h"
#include "memory_guard.h"
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
  WeightUpdateArgs weight_update;
  std::string inputs;   // a.npy,b.npy
  std::string outputs;  // DIR
  uint64_t seed = 0;
  std::optional<int64_t> memory_limit;
  BackendArgs backend;
  bool outputs_per_shard = false;
};

std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> out;
  for (auto piece : absl::StrSplit(absl::string_view(s.data(), s.size()), ',', absl::SkipEmpty()))
    out.emplace_back(piece.data(), piece.size());
  return out;
}

// `mpi`: this rank's part of an MPI run (backend.h); null for the in-process devices.
Status RunBody(const RunArgs& args, MpiRun* mpi) {
  ASSIGN_OR_RETURN(auto module, LoadAnnotated(args.module, args.num_partitions));
  int64_t n = 0;
  if (args.num_partitions || mpi) {
    ASSIGN_OR_RETURN(n, NumPartitionsOf(args.num_partitions, *module));
  }
  // The program is partitioned before any input exists, so that the estimate of what the run
  // holds can refuse it first; a partitioning error is still reported after the inputs' errors.
  StatusOr<PartitionResult> partitioned = absl::UnknownError("");
  if (n > 0) {
    // As `compile` does: infer the shardings the user did not give, then partition.
    module->set_num_partitions(n);
    Status propagated = args.propagation.Propagate(*module);
    if (propagated.ok()) propagated = ApplyWeightUpdateSharding(*module, args.weight_update, args.module.mesh);
    partitioned = propagated.ok()
                      ? PartitionAndClean(*module, n, args.replicate_custom_partitioning)
                      : StatusOr<PartitionResult>(propagated);
  }
  const int64_t inputs = HostArgumentBytes(*module, n);
  if (n == 0) {
    const OneDeviceFootprint one = EstimateOneDevice(*module);
    RETURN_IF_ERROR(CheckMemory(
        "run", AddBytes(inputs, one.temporaries),
        fmt::format("inputs {}, the program's values {}", Size(inputs), Size(one.temporaries)),
        args.memory_limit));
  } else if (partitioned.ok()) {
    int64_t devices =
        EstimateDevices(*partitioned->module, n, module->entry()->root()->shape());
    int64_t host_inputs = inputs;
    std::string where;
    int64_t here = n;
    if (mpi) {
      // Under MPI this host runs only some of the devices (and reads only their shards).
      here = mpi->DevicesOnThisHost(n);
      devices = static_cast<int64_t>(static_cast<double>(devices) * here / n);
      host_inputs = static_cast<int64_t>(static_cast<double>(inputs) * here / n);
      where = fmt::format(" ({} of them on this host)", here);
    }
    RETURN_IF_ERROR(CheckMemory(
        fmt::format("run on {} devices{}", n, where), AddBytes(host_inputs, devices),
        fmt::format("inputs {}, the {} devices' peaks summed and the result {}",
                    Size(host_inputs), here, Size(devices)),
        args.memory_limit));
  }
  std::vector<Literal> arguments;  // whole host values (not under MPI: each rank its shards)
  if (!mpi) {
    ASSIGN_OR_RETURN(arguments, MakeArguments(*module, SplitList(args.inputs), args.seed, n));
  }
  Literal result;
  if (mpi) {
    if (!partitioned.ok()) return partitioned.status();
    ASSIGN_OR_RETURN(
        std::vector<std::vector<Literal>> local,
        mpi->LocalArguments(*module, *partitioned, n, SplitList(args.inputs), args.seed));
    // Every rank has its program and inputs: agree, compare programs, run.
    RETURN_IF_ERROR(mpi->Settle(absl::OkStatus(), /*timed=*/true));
    RETURN_IF_ERROR(mpi->CheckSameProgram(*partitioned));
    if (args.outputs_per_shard)
      return mpi->ExecuteToShards(*partitioned, module->entry()->root()->shape(), n,
                                  std::move(local), args.outputs);
    ASSIGN_OR_RETURN(
        result, mpi->Execute(*partitioned, module->entry()->root()->shape(), n, std::move(local)));
    if (!mpi->root()) return absl::OkStatus();  // rank 0 prints and writes the outputs
  } else if (n > 0) {
    if (!partitioned.ok()) return partitioned.status();
    ASSIGN_OR_RETURN(result,
                     RunOnDevices(*partitioned, module->entry()->root()->shape(), n, arguments));
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

Status Run(const RunArgs& args) {
  if (args.outputs_per_shard && (!args.backend.mpi() || args.outputs.empty()))
    return InvalidArgument("--outputs-per-shard needs --backend mpi and --outputs DIR");
  if (!args.backend.mpi()) {
    if (args.backend.devices_per_rank != 1 || args.backend.collective_timeout > 0)
      return InvalidArgument("--devices-per-rank and --collective-timeout need --backend mpi");
    return RunBody(args, nullptr);
  }
  ASSIGN_OR_RETURN(std::unique_ptr<MpiRun> mpi, MpiRun::Start(args.backend));
  if (args.module.input == "-" && mpi->ranks() > 1)
    return mpi->Settle(InvalidArgument(
        "IN '-': under mpirun only rank 0 reads standard input; give the module as a file"));
  return mpi->Settle(RunBody(args, mpi.get()));
}

}  // namespace

Command AddRunCommand(CLI::App& root) {
  CLI::App* app = root.add_subcommand("run",
                                      "execute on one device, or (--num-partitions N) propagate, "
                                      "partition and run on N in-process devices");
  auto args = std::make_shared<RunArgs>();
  AddModuleArgs(app, args->module);
  AddNumPartitions(app, args->num_partitions);
  app->add_option(
         "--inputs", args->inputs,
         "the entry parameters in order as full .npy arrays, comma-separated (missing ones random)")
      ->type_name("A.npy,B.npy");
  app->add_option("--outputs", args->outputs, "write the root's array leaves as DIR/output_K.npy")
      ->type_name("DIR");
  AddSeed(app, args->seed);
  AddMemoryLimit(app, args->memory_limit);
  AddReplicateCustomPartitioning(app, args->replicate_custom_partitioning);
  AddWeightUpdateArgs(app, args->weight_update);
  AddPropagationArgs(app, args->propagation);
  AddBackendArgs(app, args->backend);
  app->add_flag("--outputs-per-shard", args->outputs_per_shard,
                "with --backend mpi: each rank writes its devices' shards of the outputs as "
                "DIR/output_K.partition_P.npy instead of gathering them on rank 0")
      ->group("Backend");
  return {app, [args] { return Run(*args); }};
}

}  // namespace spmdc::cli

// spmdc verify IN --num-partitions N: runs IN on one device and its partitioned form on N
// in-process devices on the same random inputs and compares every output (tolerances:
// runtime/result_comparison.h). Modules with manual regions or a manual entry signature get the
// reference described at ManualSignatureGroups and ManualBoundariesOnly.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>

#include "backend.h"
#include "commands.h"
#include "fmt/format.h"
#include "inputs.h"
#include "interpreter/interpreter.h"
#include "memory_guard.h"
#include "partitioning.h"
#include "runtime/result_comparison.h"

namespace spmdc::cli {

namespace {

struct VerifyArgs {
  ModuleArgs module;
  PropagationArgs propagation;
  std::optional<int64_t> num_partitions;
  bool replicate_custom_partitioning = false;
  WeightUpdateArgs weight_update;
  bool propagate = false;
  uint64_t seed = 0;
  std::optional<int64_t> memory_limit;
  BackendArgs backend;
};

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
    Sharding s = i->has_sharding() ? i->sharding()->NormalizeTupleSharding(i->shape())
                                   : Sharding::Replicate();
    std::vector<Sharding> flat = s.IsTuple() ? s.tuple_elements() : std::vector<Sharding>{s};
    std::vector<const Shape*> shapes;
    std::function<void(const Shape&)> walk = [&](const Shape& sh) {
      if (sh.IsTuple())
        for (const Shape& e : sh.tuple_shapes()) walk(e);
      else
        shapes.push_back(&sh);
    };
    walk(i->shape());
    for (size_t k = 0; k < shapes.size() && k < flat.size(); ++k)
      if (shapes[k]->IsArray()) leaves.emplace_back(what, flat[k]);
  };
  for (int64_t p = 0; p < entry->num_parameters(); ++p)
    add(entry->parameter(p), "%" + entry->parameter(p)->name());
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
      return Unimplemented("verify: {} ({}) and {} ({}) are manual in different numbers of groups",
                           manual->first, manual->second.ToString(false), leaf.first,
                           s.ToString(false));
    if (!manual) manual = &leaf, groups = g;
  }
  if (manual && automatic)
    return Unimplemented(
        "verify: {} is manual ({}) but {} is not ({}): per-device values next to global ones have "
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
  for (size_t g = 0; g < groups.size(); ++g)
    std::memcpy(out.mutable_raw() + g * bytes, groups[g].raw(), bytes);
  return out;
}

// Whether the module under test is propagated first: --propagate, or --shard-weight-update, which
// reads the update's propagated shardings.
bool Propagates(const VerifyArgs& args) { return args.propagate || !args.weight_update.mode.empty(); }

// Propagates (see Propagates) and partitions a copy of `module`: the program the devices run, made
// before anything runs so that its memory can be estimated.
StatusOr<PartitionResult> PartitionCopy(const Module& module, int64_t n, const VerifyArgs& args,
                                        std::unique_ptr<Module>* copy) {
  *copy = module.Clone();
  (*copy)->set_num_partitions(n);
  if (Propagates(args))
    RETURN_IF_ERROR(args.propagation.Propagate(**copy));
  RETURN_IF_ERROR(ApplyWeightUpdateSharding(**copy, args.weight_update, args.module.mesh));
  return PartitionAndClean(**copy, n, args.replicate_custom_partitioning);
}

// `mpi`: this rank's part of an MPI run (backend.h); null for the in-process devices.
Status VerifyBody(const VerifyArgs& args, MpiRun* mpi) {
  ASSIGN_OR_RETURN(auto module, LoadAnnotated(args.module, args.num_partitions));
  ASSIGN_OR_RETURN(int64_t n, NumPartitionsOf(args.num_partitions, *module));
  ASSIGN_OR_RETURN(int64_t manual_groups, ManualSignatureGroups(*module, n));
  // The devices' program first: with it, what the whole verify holds at its peak is known
  // before any value exists. Its errors are reported after the reference's, as they come later.
  std::unique_ptr<Module> under_test;
  StatusOr<PartitionResult> partitioned = PartitionCopy(*module, n, args, &under_test);
  const int64_t inputs = HostArgumentBytes(*module, n);
  const OneDeviceFootprint reference_need = EstimateOneDevice(*module, manual_groups);
  int64_t devices_need =
      partitioned.ok() ? EstimateDevices(*partitioned->module, n, module->entry()->root()->shape())
                       : 0;
  // Under MPI this host runs only some of the devices.
  if (mpi)
    devices_need = static_cast<int64_t>(static_cast<double>(devices_need) *
                                        mpi->DevicesOnThisHost(n) / n);
  // The reference runs first; then only its outputs stay while the devices run.
  const int64_t needed = std::max(AddBytes(inputs, reference_need.temporaries),
                                  AddBytes(AddBytes(inputs, reference_need.outputs), devices_need));
  RETURN_IF_ERROR(CheckMemory(
      fmt::format("verify on {} devices", n), needed,
      fmt::format("inputs {}, one-device reference {} (its outputs {}), the {} devices' "
                  "peaks summed and the result {}",
                  Size(inputs), Size(reference_need.temporaries), Size(reference_need.outputs), n,
                  Size(devices_need)),
      args.memory_limit));
  std::vector<Literal> arguments;  // whole host values (under MPI: made by rank 0 after the run)
  if (!mpi) {
    ASSIGN_OR_RETURN(arguments, MakeArguments(*module, {}, args.seed, n));
  }
  const char* reference_kind = "";
  // The reference: the module on one device, or what stands in for it (below).
  auto compute_reference = [&]() -> StatusOr<Literal> {
  // One device standing for the n devices under test: a hand-written collective that joins
  // devices there has no one-device meaning (Unimplemented, never a false mismatch or ok).
  SingleDeviceContext device(std::max<int64_t>(1, module->replica_count()), n);
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
  reference_kind =
      manual_groups > 0 ? " (reference: each manual group's program on one device)" : "";
  if (single.ok()) {
    reference = *std::move(single);
  } else if (single.status().code() == absl::StatusCode::kUnimplemented && Propagates(args) &&
             HasManualRegion(*module)) {
    // One device cannot run a manual region (shard_map): the reference runs on the same
    // devices, sharded only as the manual regions require.
    std::unique_ptr<Module> plain = ManualBoundariesOnly(*module);
    plain->set_num_partitions(n);
    RETURN_IF_ERROR(args.propagation.Propagate(*plain));
    ASSIGN_OR_RETURN(PartitionResult plain_partitioned,
                     PartitionAndClean(*plain, n, args.replicate_custom_partitioning));
    const int64_t plain_need =
        EstimateDevices(*plain_partitioned.module, n, plain->entry()->root()->shape());
    RETURN_IF_ERROR(CheckMemory(
        fmt::format("verify on {} devices", n),
        AddBytes(AddBytes(inputs, plain_need), devices_need),
        fmt::format("inputs {}, the reference's {} devices {}, then the devices under test {}",
                    Size(inputs), n, Size(plain_need), Size(devices_need)),
        args.memory_limit));
    ASSIGN_OR_RETURN(
        reference, RunOnDevices(plain_partitioned, plain->entry()->root()->shape(), n, arguments));
    reference_kind =
        " (reference: the manual regions' shardings only, the module cannot run on one device)";
  } else if (single.status().code() == absl::StatusCode::kUnimplemented &&
             HasManualRegion(*module)) {
    return Unimplemented(
        "{} (verify --propagate compares a module with manual regions on several devices)",
        single.status().message());
  } else {
    return single.status();
  }
  return reference;
  };
  Literal reference, result;
  if (mpi) {
    // The devices first (every rank), then the reference on rank 0 alone.
    if (!partitioned.ok()) return partitioned.status();
    ASSIGN_OR_RETURN(std::vector<std::vector<Literal>> local,
                     mpi->LocalArguments(*module, *partitioned, n, {}, args.seed));
    RETURN_IF_ERROR(mpi->Settle(absl::OkStatus(), /*timed=*/true));
    RETURN_IF_ERROR(mpi->CheckSameProgram(*partitioned));
    ASSIGN_OR_RETURN(result, mpi->Execute(*partitioned, module->entry()->root()->shape(), n,
                                          std::move(local)));
    if (!mpi->root()) return absl::OkStatus();
    ASSIGN_OR_RETURN(arguments, MakeArguments(*module, {}, args.seed, n));
    ASSIGN_OR_RETURN(reference, compute_reference());
  } else {
    ASSIGN_OR_RETURN(reference, compute_reference());
    if (!partitioned.ok()) return partitioned.status();
    ASSIGN_OR_RETURN(result,
                     RunOnDevices(*partitioned, module->entry()->root()->shape(), n, arguments));
  }
  std::vector<Literal> got = FlattenLeaves(result), want = FlattenLeaves(reference);
  if (got.size() != want.size())
    return Internal("partitioned program returned {} outputs, the reference {}", got.size(),
                    want.size());
  double max_abs = 0, max_rel = 0;
  double tolerance = ModuleTolerance(*under_test);
  for (size_t i = 0; i < got.size(); ++i) {
    LeafComparison c = CompareLeaf(got[i], want[i], tolerance);
    max_abs = std::max(max_abs, c.max_abs_error);
    max_rel = std::max(max_rel, c.max_rel_error);
    if (!c.ok) {
      std::printf("verify: MISMATCH on %lld devices: output_%zu %s\n", static_cast<long long>(n), i,
                  c.problem.c_str());
      return absl::AbortedError("partitioned result differs from the single-device result");
    }
  }
  const std::string where =
      mpi ? fmt::format(" (MPI: {} ranks x {} devices)", mpi->ranks(), args.backend.devices_per_rank)
          : "";
  std::printf(
      "verify: ok on %lld devices%s: %zu outputs, max abs error %.3g, max relative error %.3g%s\n",
      static_cast<long long>(n), where.c_str(), got.size(), max_abs, max_rel, reference_kind);
  return absl::OkStatus();
}

Status Verify(const VerifyArgs& args) {
  if (!args.backend.mpi()) {
    if (args.backend.devices_per_rank != 1 || args.backend.collective_timeout > 0)
      return InvalidArgument("--devices-per-rank and --collective-timeout need --backend mpi");
    return VerifyBody(args, nullptr);
  }
  ASSIGN_OR_RETURN(std::unique_ptr<MpiRun> mpi, MpiRun::Start(args.backend));
  if (args.module.input == "-" && mpi->ranks() > 1)
    return mpi->Settle(InvalidArgument(
        "IN '-': under mpirun only rank 0 reads standard input; give the module as a file"));
  return mpi->Settle(VerifyBody(args, mpi.get()));
}

}  // namespace

Command AddVerifyCommand(CLI::App& root) {
  CLI::App* app =
      root.add_subcommand("verify",
                          "run on one device and on N devices on the same random inputs; "
                          "compare every output");
  auto args = std::make_shared<VerifyArgs>();
  AddModuleArgs(app, args->module);
  AddNumPartitions(app, args->num_partitions);
  app->add_flag("--propagate", args->propagate,
                "propagate shardings before partitioning (else: as annotated; --shard-weight-update "
                "implies it)");
  AddSeed(app, args->seed);
  AddMemoryLimit(app, args->memory_limit);
  AddReplicateCustomPartitioning(app, args->replicate_custom_partitioning);
  AddWeightUpdateArgs(app, args->weight_update);
  AddPropagationArgs(app, args->propagation);
  AddBackendArgs(app, args->backend);
  return {app, [args] { return Verify(*args); }};
}

}  // namespace spmdc::cli

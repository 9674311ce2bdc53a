#include "backend.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>

#include "cli.h"
#include "fmt/format.h"
#include "hlo/printer.h"
#include "ir/attributes.h"
#include "ir/computation.h"
#include "ir/instruction.h"
#include "npy.h"
#include "options.h"
#include "runtime/host_sharding.h"
#include "runtime/host_values.h"
#include "runtime/spmd_device_context.h"
#include "runtime/thread_communicator.h"
#ifdef SPMDC_HAVE_MPI
#include "runtime/mpi_executor.h"
#endif

namespace spmdc::cli {

void AddBackendArgs(CLI::App* app, BackendArgs& args) {
  app->add_option("--backend", args.backend,
                  "threads: devices are threads of this process (default); mpi: ranks of an MPI "
                  "job (start under mpirun -np R)")
      ->type_name("threads|mpi")
      ->check(OneOf({"threads", "mpi"}))
      ->group("Backend");
  app->add_option("--devices-per-rank", args.devices_per_rank,
                  "with --backend mpi: device threads per rank (N = ranks x K; default 1)")
      ->type_name("K")
      ->check(IntegerIn(1, 128))
      ->group("Backend");
  app->add_option("--collective-timeout", args.collective_timeout,
                  "with --backend mpi: end the job (exit 5) when a device waits longer than S "
                  "seconds in one collective (default: no limit)")
      ->type_name("S")
      ->check(CLI::Range(0.0, 1e9))
      ->group("Backend");
}

namespace {

int64_t ResultBytes(const Shape& s) {
  if (s.IsTuple()) {
    int64_t b = 0;
    for (const Shape& e : s.tuple_shapes()) b += ResultBytes(e);
    return b;
  }
  return s.IsArray() ? s.byte_size() : 0;
}

}  // namespace

StatusOr<std::string> RankTrafficText(const PartitionResult& partitioned, int64_t n, int64_t k) {
  if (k < 1 || n % k != 0)
    return InvalidArgument("--devices-per-rank {} does not divide the {} devices", k, n);
  const Module& m = *partitioned.module;
  const int64_t replicas = std::max<int64_t>(1, m.replica_count());
  const int64_t devices = n * replicas;
  ThreadWorld world(devices);  // only for the device contexts' ids; nothing runs
  std::vector<std::unique_ptr<ThreadCommunicator>> comms;
  std::vector<std::unique_ptr<SpmdDeviceContext>> contexts;
  for (int64_t d = 0; d < devices; ++d) {
    comms.push_back(std::make_unique<ThreadCommunicator>(&world, d));
    contexts.push_back(std::make_unique<SpmdDeviceContext>(comms.back().get(), n, replicas));
  }
  struct Row {
    int64_t count = 0, crossing = 0, bytes = 0, crossing_bytes = 0;
  };
  std::map<std::string, Row> rows;
  for (const Computation* c : m.computations()) {
    for (const Instruction* instr : c->instructions()) {
      const Opcode op = instr->opcode();
      bool crosses = false, collective = true;
      if (IsGroupedCollectiveOpcode(op)) {
        for (const auto& ctx : contexts) {
          StatusOr<DeviceGroup> g = ctx->GroupOf(*instr);
          if (!g.ok()) return g.status();
          for (int64_t x : *g) crosses |= x / k != (*g)[0] / k;
        }
      } else if (op == Opcode::kCollectivePermute || op == Opcode::kCollectivePermuteStart) {
        const bool channel = instr->attrs().Has(AttrId::kChannelId);
        if (const PairList* pl = instr->attr<PairList>(AttrId::kSourceTargetPairs))
          for (int64_t r = 0; r < (channel ? replicas : n); ++r)
            for (const auto& [a, b] : *pl) {
              // Pairs of partitions (channel_id: within each replica) or of replicas.
              const int64_t da = channel ? r * n + a : a * n + r;
              const int64_t db = channel ? r * n + b : b * n + r;
              crosses |= da / k != db / k;
            }
      } else {
        collective = false;
      }
      if (!collective) continue;
      Row& row = rows[std::string(OpcodeName(op))];
      const int64_t bytes = ResultBytes(instr->shape());
      ++row.count;
      row.bytes += bytes;
      if (crosses) {
        ++row.crossing;
        row.crossing_bytes += bytes;
      }
    }
  }
  std::string out = fmt::format(
      "under MPI: {} ranks x {} devices per rank (device d on rank d / {}); collectives that "
      "cross ranks (result bytes per device):\n",
      devices / k, k, k);
  if (rows.empty()) out += "  none\n";
  for (const auto& [kind, r] : rows)
    out += fmt::format("  {:<26} {} of {} cross ranks, {} of {} bytes\n", kind, r.crossing, r.count,
                       r.crossing_bytes, r.bytes);
  return out;
}

#ifdef SPMDC_HAVE_MPI

struct MpiRun::Impl {
  std::unique_ptr<MpiSession> session;
};

StatusOr<std::unique_ptr<MpiRun>> MpiRun::Start(const BackendArgs& args) {
  auto impl = std::make_unique<Impl>();
  ASSIGN_OR_RETURN(impl->session,
                   MpiSession::Start(args.devices_per_rank, args.collective_timeout));
  return std::unique_ptr<MpiRun>(new MpiRun(std::move(impl)));
}

int MpiRun::rank() const { return impl_->session->rank(); }
int MpiRun::ranks() const { return impl_->session->ranks(); }
int64_t MpiRun::DevicesOnThisHost(int64_t n) const {
  int64_t local = 1;
  if (const char* e = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE")) local = std::max(1, std::atoi(e));
  return std::min<int64_t>(n, local * impl_->session->devices_per_rank());
}

Status MpiRun::Settle(const Status& status, bool timed) {
  const std::vector<int> codes = impl_->session->ExchangeCodes(ExitCodeFor(status), timed);
  int first = -1, failed = 0;
  for (int r = 0; r < static_cast<int>(codes.size()); ++r) {
    if (codes[r] == kExitOk) continue;
    ++failed;
    if (first < 0) first = r;
  }
  if (first < 0) return absl::OkStatus();
  if (first == rank())
    Report(failed == ranks() || ranks() == 1
               ? status
               : Status(status.code(),
                        fmt::format("rank {} of {}: {}", rank(), ranks(), status.message())));
  std::fflush(stdout);
  std::fflush(stderr);
  // Nobody exits before the report is out: mpirun ends the job at the first non-zero exit.
  impl_->session->ExchangeCodes(0);
  impl_->session->Finalize();
  std::exit(codes[first]);
}

Status MpiRun::CheckSameProgram(const PartitionResult& partitioned) {
  std::string text = PrintModule(*partitioned.module);
  for (const Sharding& s : partitioned.parameter_shardings) text += "\n" + s.ToString(false);
  text += "\n" + partitioned.result_sharding.ToString(false);
  return impl_->session->CheckSameProgram(StableHash(text));
}

StatusOr<std::vector<std::vector<Literal>>> MpiRun::LocalArguments(
    const Module& module, const PartitionResult& partitioned, int64_t n,
    const std::vector<std::string>& npy_paths, uint64_t seed) {
  const Computation* entry = module.entry();
  const int64_t params = entry->num_parameters();
  if (npy_paths.size() > static_cast<size_t>(params))
    return InvalidArgument("{} inputs given but the entry computation has {} parameters",
                           npy_paths.size(), params);
  const int64_t k = impl_->session->devices_per_rank();
  const int64_t first = rank() * k;
  std::vector<std::vector<Literal>> out(k);
  for (int64_t p = 0; p < params; ++p) {
    const Instruction* param = entry->parameter(p);
    const Shape shape =
        param->has_sharding() ? HostShape(param->shape(), *param->sharding(), n) : param->shape();
    const Sharding s = partitioned.parameter_shardings.empty() ? Sharding::Replicate()
                                                               : partitioned.parameter_shardings[p];
    const bool from_file = p < static_cast<int64_t>(npy_paths.size());
    if (from_file && !shape.IsArray())
      return InvalidArgument("parameter {} is not an array; it cannot come from .npy", p);
    const bool boxed = shape.IsArray() && s.IsTiled() && !s.IsManual() && !s.IsManualSubgroup() &&
                       s.TiledDataRank() == shape.rank();
    std::optional<Literal> whole;  // made once for this rank's devices when not boxed
    for (int64_t i = 0; i < k; ++i) {
      const int64_t partition = (first + i) % n;
      if (boxed) {
        const Shape shard_shape = s.ShardShape(shape);
        if (!s.UsesDevice(partition)) {
          out[i].push_back(Literal(shard_shape));
          continue;
        }
        const std::vector<int64_t> lo = s.TileOffsetForDevice(shape, partition);
        const std::vector<int64_t> hi = s.TileLimitForDevice(shape, partition);
        if (from_file) {
          ASSIGN_OR_RETURN(Literal box, ReadNpyBox(npy_paths[p], shape, lo, hi, shard_shape));
          out[i].push_back(std::move(box));
        } else {
          Literal box(shard_shape);
          RandomFillBox(shape, ParameterSeed(seed, p), lo, hi, box);
          out[i].push_back(std::move(box));
        }
        continue;
      }
      if (!whole) {
        if (from_file) {
          ASSIGN_OR_RETURN(whole, ReadNpy(npy_paths[p], shape));
        } else {
          whole = RandomLiteral(shape, ParameterSeed(seed, p));
        }
      }
      ASSIGN_OR_RETURN(Literal shard, ShardForDevice(*whole, s, partition));
      out[i].push_back(std::move(shard));
    }
  }
  return out;
}

StatusOr<Literal> MpiRun::Execute(const PartitionResult& partitioned,
                                  const Shape& global_result_shape, int64_t n,
                                  std::vector<std::vector<Literal>> local_arguments) {
  MpiRunOptions options;
  options.spmd.global_result_shape = global_result_shape;
  options.exit_code_for = [](const Status& s) { return ExitCodeFor(s); };
  return ExecuteSpmdMpi(*impl_->session, *partitioned.module, n, std::move(local_arguments),
                        partitioned.result_sharding, options);
}

Status MpiRun::ExecuteToShards(const PartitionResult& partitioned, const Shape& global_result_shape,
                               int64_t n, std::vector<std::vector<Literal>> local_arguments,
                               const std::string& dir) {
  std::vector<Literal> mine;
  MpiRunOptions options;
  options.spmd.global_result_shape = global_result_shape;
  options.exit_code_for = [](const Status& s) { return ExitCodeFor(s); };
  options.local_results = &mine;
  RETURN_IF_ERROR(ExecuteSpmdMpi(*impl_->session, *partitioned.module, n,
                                 std::move(local_arguments), partitioned.result_sharding, options)
                      .status());
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return InvalidArgument("{}: cannot create directory: {}", dir, ec.message());
  const int64_t first = rank() * impl_->session->devices_per_rank();
  for (size_t i = 0; i < mine.size(); ++i) {
    const int64_t d = first + static_cast<int64_t>(i);
    if (d >= n) break;  // replica 0's devices only
    const std::vector<Literal> leaves = FlattenLeaves(mine[i]);
    for (size_t k = 0; k < leaves.size(); ++k)
      RETURN_IF_ERROR(WriteNpy(fmt::format("{}/output_{}.partition_{}.npy", dir, k, d), leaves[k]));
  }
  if (!root()) return absl::OkStatus();
  // The leaves' global shapes and shardings, in pre-order.
  std::vector<Shape> shapes;
  std::function<void(const Shape&)> walk = [&](const Shape& s) {
    if (s.IsTuple()) {
      for (const Shape& e : s.tuple_shapes()) walk(e);
    } else if (s.IsArray()) {
      shapes.push_back(s);
    }
  };
  walk(global_result_shape);
  const Sharding& rs = partitioned.result_sharding;
  for (size_t k = 0; k < shapes.size(); ++k) {
    const Sharding leaf =
        rs.IsTuple() && k < rs.tuple_elements().size() ? rs.tuple_elements()[k] : rs;
    const std::string text =
        fmt::format("{}\n{}\n", shapes[k].ToString(false), leaf.ToString(false));
    RETURN_IF_ERROR(WriteOutput(fmt::format("{}/output_{}.sharding.txt", dir, k), text));
    std::printf("output_%zu: %s %s: %lld shards in %s/output_%zu.partition_*.npy\n", k,
                shapes[k].ToString(false).c_str(), leaf.ToString(false).c_str(),
                static_cast<long long>(n), dir.c_str(), k);
  }
  return absl::OkStatus();
}

#else  // !SPMDC_HAVE_MPI

struct MpiRun::Impl {};

StatusOr<std::unique_ptr<MpiRun>> MpiRun::Start(const BackendArgs&) {
  return Unimplemented(
      "--backend mpi: this spmdc was built without MPI (install libopenmpi-dev and openmpi-bin, "
      "then reconfigure and rebuild: cmake -S . -B build)");
}
int MpiRun::rank() const { return 0; }
int MpiRun::ranks() const { return 1; }
int64_t MpiRun::DevicesOnThisHost(int64_t n) const { return n; }
Status MpiRun::Settle(const Status& status, bool) { return status; }
Status MpiRun::CheckSameProgram(const PartitionResult&) { return absl::OkStatus(); }
StatusOr<std::vector<std::vector<Literal>>> MpiRun::LocalArguments(const Module&,
                                                                   const PartitionResult&, int64_t,
                                                                   const std::vector<std::string>&,
                                                                   uint64_t) {
  return Unimplemented("--backend mpi: this spmdc was built without MPI");
}
Status MpiRun::ExecuteToShards(const PartitionResult&, const Shape&, int64_t,
                               std::vector<std::vector<Literal>>, const std::string&) {
  return Unimplemented("--backend mpi: this spmdc was built without MPI");
}
StatusOr<Literal> MpiRun::Execute(const PartitionResult&, const Shape&, int64_t,
                                  std::vector<std::vector<Literal>>) {
  return Unimplemented("--backend mpi: this spmdc was built without MPI");
}

#endif  // SPMDC_HAVE_MPI

MpiRun::MpiRun(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
MpiRun::~MpiRun() = default;

}  // namespace spmdc::cli

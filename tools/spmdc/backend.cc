#include "backend.h"

#include <cstdio>
#include <cstdlib>

#include "cli.h"
#include "fmt/format.h"
#include "hlo/printer.h"
#include "options.h"
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

Status MpiRun::Settle(const Status& status) {
  const std::vector<int> codes = impl_->session->ExchangeCodes(ExitCodeFor(status));
  int first = -1, failed = 0;
  for (int r = 0; r < static_cast<int>(codes.size()); ++r) {
    if (codes[r] == kExitOk) continue;
    ++failed;
    if (first < 0) first = r;
  }
  if (first < 0) return absl::OkStatus();
  if (first == rank()) {
    if (failed == ranks() || ranks() == 1) return status;
    return Status(status.code(),
                  fmt::format("rank {} of {}: {}", rank(), ranks(), status.message()));
  }
  std::fflush(stdout);
  impl_->session->Finalize();
  std::exit(codes[first]);
}

Status MpiRun::CheckSameProgram(const PartitionResult& partitioned) {
  std::string text = PrintModule(*partitioned.module);
  for (const Sharding& s : partitioned.parameter_shardings) text += "\n" + s.ToString(false);
  text += "\n" + partitioned.result_sharding.ToString(false);
  return impl_->session->CheckSameProgram(StableHash(text));
}

StatusOr<Literal> MpiRun::Execute(const PartitionResult& partitioned,
                                  const Shape& global_result_shape, int64_t n,
                                  const std::vector<Literal>& arguments) {
  MpiRunOptions options;
  options.spmd.global_result_shape = global_result_shape;
  options.exit_code_for = [](const Status& s) { return ExitCodeFor(s); };
  return ExecuteSpmdMpi(*impl_->session, *partitioned.module, n, arguments,
                        partitioned.parameter_shardings, partitioned.result_sharding, options);
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
Status MpiRun::Settle(const Status& status) { return status; }
Status MpiRun::CheckSameProgram(const PartitionResult&) { return absl::OkStatus(); }
StatusOr<Literal> MpiRun::Execute(const PartitionResult&, const Shape&, int64_t,
                                  const std::vector<Literal>&) {
  return Unimplemented("--backend mpi: this spmdc was built without MPI");
}

#endif  // SPMDC_HAVE_MPI

MpiRun::MpiRun(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
MpiRun::~MpiRun() = default;

}  // namespace spmdc::cli

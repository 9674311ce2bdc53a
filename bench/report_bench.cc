// `spmdc report` against `spmdc check` on the GPT-3 175B-shaped training step on 512 devices
// (data = 8 x model = 64; `spmdc example gpt3`, models/examples.h): the issue asks that a report
// (parse, verify, propagate, partition, cost) take at most a few times a check (parse, verify).
// Prints figures; asserts nothing.
//
//   build/bench/report_bench [layers=96] [repetitions=3] [--keep FILE]
//
// --keep FILE leaves the module text in FILE (the same text `spmdc example gpt3` writes).
// Both commands run as child processes of the CLI next to this binary (build/spmdc), on the
// module written to a temporary file; their CPU time (user + system, from wait4) is the figure,
// the least over the repetitions, since the machines these run on are shared (wall time is
// printed too). Then the same pipeline runs in process, stage by stage, on this thread's CPU
// clock, to show where a report's time goes.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "bench_clock.h"
#include "cost/cost.h"
#include "cost/hardware.h"
#include "hlo/parser.h"
#include "ir/verifier.h"
#include "models/examples.h"
#include "partitioner/partitioner.h"
#include "propagation/propagation.h"
#include "sharding/validation.h"
#include "support/check.h"

namespace spmdc {
namespace {

struct ChildTime {
  double cpu = 0, wall = 0;
  int status = 0;
};

// Runs argv with stdout and stderr sent to /dev/null; CPU time of the child from wait4.
ChildTime RunChild(const std::vector<std::string>& argv) {
  ChildTime t;
  const auto t0 = std::chrono::steady_clock::now();
  pid_t pid = fork();
  SPMDC_CHECK(pid >= 0);
  if (pid == 0) {
    FILE* null = std::fopen("/dev/null", "w");
    if (null) {
      dup2(fileno(null), 1);
      dup2(fileno(null), 2);
    }
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  rusage usage{};
  SPMDC_CHECK(wait4(pid, &t.status, 0, &usage) == pid);
  t.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  t.cpu = usage.ru_utime.tv_sec + usage.ru_utime.tv_usec * 1e-6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec * 1e-6;
  return t;
}

ChildTime Best(const std::vector<std::string>& argv, int reps) {
  ChildTime best{1e30, 1e30, 0};
  for (int r = 0; r < reps; ++r) {
    ChildTime t = RunChild(argv);
    if (!WIFEXITED(t.status) || WEXITSTATUS(t.status) != 0) {
      std::fprintf(stderr, "report_bench: %s exited with status %d\n", argv[1].c_str(), t.status);
      std::exit(1);
    }
    best.cpu = std::min(best.cpu, t.cpu);
    best.wall = std::min(best.wall, t.wall);
  }
  return best;
}

}  // namespace
}  // namespace spmdc

int main(int argc, char** argv) {
  using namespace spmdc;
  using bench::ThreadCpuSeconds;
  TransformerOptions options = Gpt3Options();
  if (argc > 1) options.layers = std::atoi(argv[1]);
  const int reps = argc > 2 ? std::atoi(argv[2]) : 3;
  const std::string keep = argc > 4 && std::string(argv[3]) == "--keep" ? argv[4] : "";
  const int64_t n = options.parallel.num_devices();

  double t0 = ThreadCpuSeconds();
  const std::string text = BuildTransformerTrainingStep(options);
  const double generate = ThreadCpuSeconds() - t0;
  const std::string path =
      !keep.empty() ? keep
                    : (std::filesystem::temp_directory_path() / fmt::format("spmdc_report_bench_{}.hlo", getpid())).string();
  {
    std::ofstream f(path, std::ios::binary);
    f << text;
  }
  std::printf("gpt3-shaped step: %lld layers, d_model %lld, %lld heads, seq %lld, vocab %lld, %s, batch %lld, "
              "mesh data=%lld x model=%lld (%lld devices)\n",
              static_cast<long long>(options.layers), static_cast<long long>(options.model),
              static_cast<long long>(options.heads), static_cast<long long>(options.seq),
              static_cast<long long>(options.vocab), options.dtype.c_str(), static_cast<long long>(options.batch),
              static_cast<long long>(options.parallel.data), static_cast<long long>(options.parallel.model),
              static_cast<long long>(n));
  std::printf("module text: %.1f MB, %lld instructions, generated in %.2f s\n", text.size() / 1e6,
              static_cast<long long>(CountHloInstructions(text)), generate);

  // The CLI: build/spmdc, this binary being build/bench/report_bench.
  const std::filesystem::path here = std::filesystem::read_symlink("/proc/self/exe").parent_path();
  std::string exe = (here / "spmdc").string();
  if (!std::filesystem::exists(exe)) exe = (here.parent_path() / "spmdc").string();
  if (std::filesystem::exists(exe)) {
    const std::string parts = fmt::format("{}", n);
    ChildTime check = Best({exe, "check", path}, reps);
    ChildTime report = Best({exe, "report", path, "--num-partitions", parts, "--mesh",
                             fmt::format("data={},model={}", options.parallel.data, options.parallel.model),
                             "-o", "/dev/null"},
                            reps);
    std::printf("spmdc check : %7.2f s CPU (%7.2f s wall)\n", check.cpu, check.wall);
    std::printf("spmdc report: %7.2f s CPU (%7.2f s wall)\n", report.cpu, report.wall);
    std::printf("report / check: %.2fx CPU (%.2fx wall), best of %d\n", report.cpu / check.cpu,
                report.wall / check.wall, reps);
  } else {
    std::printf("(no %s: the CLI timings are skipped)\n", exe.c_str());
  }

  // In process, stage by stage.
  t0 = ThreadCpuSeconds();
  auto parsed = ParseHloModule(text, "gpt3");
  SPMDC_CHECK(parsed.ok());
  std::unique_ptr<Module> module = std::move(*parsed);
  const double parse = ThreadCpuSeconds() - t0;
  t0 = ThreadCpuSeconds();
  SPMDC_CHECK(VerifyModule(*module).ok());
  SPMDC_CHECK(VerifyModuleShardings(*module).ok());
  const double verify = ThreadCpuSeconds() - t0;
  module->set_num_partitions(n);
  t0 = ThreadCpuSeconds();
  SPMDC_CHECK(PropagateShardings(*module).ok());
  const double propagate = ThreadCpuSeconds() - t0;
  CostOptions copts;
  copts.num_partitions = n;
  copts.mesh = *Mesh::Parse(fmt::format("data={},model={}", options.parallel.data, options.parallel.model));
  t0 = ThreadCpuSeconds();
  StatusOr<PartitionResult> part = PartitionAndCleanUp(*module, PartitionOptions{n});
  SPMDC_CHECK(part.ok());
  const double partition = ThreadCpuSeconds() - t0;
  StatusOr<HardwareProfile> hw = LoadHardwareProfile("h100");
  SPMDC_CHECK(hw.ok());
  t0 = ThreadCpuSeconds();
  CostReport report = AnalyzeCost(*part->module, copts, *hw);
  const double cost = ThreadCpuSeconds() - t0;
  std::printf("in process (thread CPU): parse %.2f s, verify %.2f s, propagate %.2f s, partition + clean-up %.2f s, "
              "cost model %.2f s\n",
              parse, verify, propagate, partition, cost);
  int64_t instructions = 0;
  for (const Computation* c : part->module->computations()) instructions += c->instruction_count();
  std::printf("per-device program: %lld instructions, %zu collectives; peak %.2f GiB per device (%s in %s's %.0f GB), "
              "step %.3f s, MFU %.1f%%\n",
              static_cast<long long>(instructions), report.collectives.size(),
              report.memory.peak_bytes / double(1 << 30), report.fits ? "fits" : "does not fit", hw->name.c_str(),
              hw->hbm_bytes / 1e9, report.time.overlapped_seconds, 100 * report.time.mfu);
  std::map<std::pair<std::string, std::string>, std::pair<int64_t, int64_t>> by_kind;
  for (const CollectiveCost& c : report.collectives) {
    auto& [count, bytes] = by_kind[{c.kind, c.axes}];
    count += c.executions;
    bytes += c.bytes_per_device * c.executions;
  }
  for (const auto& [key, v] : by_kind)
    std::printf("  %-18s over %-12s count %5lld  bytes per device %.3f GB\n", key.first.c_str(), key.second.c_str(),
                static_cast<long long>(v.first), v.second / 1e9);
  if (keep.empty()) std::filesystem::remove(path);
  return 0;
}

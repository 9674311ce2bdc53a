// The public IOPDDL contest instances (github.com/google/iopddl benchmarks/, files
// asplos-2025-iopddl-X.json[.gz]) through `spmdc solve`'s entry point at the contest's time tiers,
// with the cost, the certified lower bound, the gap and the ratio to the best known cost
// (reference/AUTO.md §2.3). Only A, G, M and S: the other instances are held out.
//
//   iopddl_bench DIR [--time-limit S] [--threads N] [--only A,G] [--seed N]
//
// --time-limit caps every tier (for quick runs on a shared machine). Wall time includes reading
// the file, as the contest counts it. Prints figures; asserts nothing.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "auto/solve_command.h"

namespace {

struct Instance {
  const char* name;
  double tier_s;
  double best_known;
};
constexpr Instance kInstances[] = {
    {"A", 60, 6548641531.0},
    {"G", 120, 217039.0},
    {"M", 180, 49928157537.0},
    {"S", 240, 1521949307.0},
};

std::string LoadAverage() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  f >> a >> b >> c;
  return a + " " + b + " " + c;
}

// CPU seconds of this process and its waited-for children (the MILP child).
double CpuSeconds() {
  double total = 0;
  for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage u;
    getrusage(who, &u);
    total += u.ru_utime.tv_sec + u.ru_stime.tv_sec + 1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
  }
  return total;
}

bool Exists(const std::string& path) { return std::ifstream(path).good(); }

int PrintUsage() {
  std::fprintf(stderr,
               "usage: iopddl_bench DIR [--time-limit S] [--threads N] [--only A,G,M,S] [--seed N]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace spmdc::autoshard;
  if (argc < 2) return PrintUsage();
  std::string dir = argv[1];
  double cap = 0;
  int threads = 0;
  uint64_t seed = 1;
  std::string only = "AGMS";
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc) return PrintUsage();
    if (a == "--time-limit") {
      cap = std::atof(argv[++i]);
    } else if (a == "--threads") {
      threads = std::atoi(argv[++i]);
    } else if (a == "--only") {
      only = argv[++i];
    } else if (a == "--seed") {
      seed = std::strtoull(argv[++i], nullptr, 10);
    } else {
      return PrintUsage();
    }
  }
  std::FILE* devnull = std::fopen("/dev/null", "w");
  std::printf("load average before: %s\n", LoadAverage().c_str());
  std::printf("%-4s %6s %16s %16s %9s %16s %9s %8s %8s\n", "inst", "limit", "cost",
              "lower bound", "gap", "best known", "ratio", "wall s", "cpu s");
  for (const Instance& inst : kInstances) {
    if (only.find(inst.name) == std::string::npos) continue;
    std::string path = dir + "/asplos-2025-iopddl-" + inst.name + ".json";
    if (!Exists(path)) path += ".gz";
    if (!Exists(path)) {
      std::printf("%-4s (no %s.json[.gz] in %s)\n", inst.name, inst.name, dir.c_str());
      continue;
    }
    SolveCommandOptions o;
    o.time_limit_s = cap > 0 ? std::min(cap, inst.tier_s) : inst.tier_s;
    o.threads = threads;
    o.seed = seed;
    o.quiet = true;
    const auto start = std::chrono::steady_clock::now();
    const double cpu_start = CpuSeconds();
    spmdc::StatusOr<SolveResult> r = RunSolve(path, o, devnull, stderr);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double cpu = CpuSeconds() - cpu_start;
    if (!r.ok()) {
      std::printf("%-4s %6.0f error: %s\n", inst.name, o.time_limit_s,
                  std::string(r.status().message()).c_str());
      continue;
    }
    const double cost = static_cast<double>(r->cost);
    std::printf("%-4s %6.0f %16s %16s %8.4f%% %16.0f %9.6f %8.1f %8.1f%s\n", inst.name,
                o.time_limit_s, Int128ToString(r->cost).c_str(),
                Int128ToString(r->lower_bound).c_str(), 100 * r->Gap(), inst.best_known,
                cost / inst.best_known, wall, cpu, r->optimal ? "  optimal" : "");
    std::fflush(stdout);
  }
  std::printf("load average after: %s\n", LoadAverage().c_str());
  return 0;
}

// Compile-time figures on a large module (issues 3 and 4 benchmarks; prints figures, asserts
// nothing): parse, propagation and partitioning (+ clean-up) of a generated transformer training
// step with >= 100k instructions annotated for 2-D parallelism, and the same at 1/10 the size to
// show how the times grow. Thread CPU time, best of --reps rounds (3 by default); the two sizes
// take turns round after round, so that a slow spell of a shared machine does not fall on one
// size only, and a round of the small size compiles it 10 times.
//
//   build/bench/partition_bench [min_instructions] [--reps N]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>

#include "bench_clock.h"
#include "hlo/parser.h"
#include "models/models.h"
#include "partitioner/partitioner.h"
#include "passes/passes.h"
#include "propagation/propagation.h"
#include "support/check.h"

namespace spmdc {
namespace {

// Runs `f` and adds its time to `total`.
void Time(double& total, const std::function<void()>& f) {
  const double t0 = bench::ThreadCpuSeconds();
  f();
  total += bench::ThreadCpuSeconds() - t0;
}

struct Figures {
  int64_t instructions = 0;
  double parse = 1e30, propagate = 1e30, partition = 1e30, cleanup = 1e30;
};

std::string ModuleText(int64_t min_instructions) {
  TransformerOptions base;
  base.parallel.data = 2;
  base.parallel.model = 4;
  return BuildTransformerTrainingStep(TransformerOptionsForInstructionCount(min_instructions, base));
}

// One round: `batch` compilations of `text`; keeps the best round's time per compilation of
// each phase in `f`.
void MeasureOnce(const std::string& text, int64_t batch, Figures& f) {
  f.instructions = CountHloInstructions(text);
  Figures sum;
  sum.parse = sum.propagate = sum.partition = sum.cleanup = 0;
  for (int64_t b = 0; b < batch; ++b) {
    std::unique_ptr<Module> m;
    Time(sum.parse, [&] {
      auto parsed = ParseHloModule(text, "bench");
      SPMDC_CHECK(parsed.ok());
      m = std::move(*parsed);
    });
    Time(sum.propagate, [&] { SPMDC_CHECK(PropagateShardings(*m).ok()); });
    std::unique_ptr<Module> out;
    Time(sum.partition, [&] {
      auto r = PartitionModule(*m, PartitionOptions{m->num_partitions()});
      SPMDC_CHECK(r.ok());
      out = std::move(r->module);
    });
    Time(sum.cleanup, [&] { SPMDC_CHECK(RunCleanup(*out).ok()); });
  }
  f.parse = std::min(f.parse, sum.parse / batch);
  f.propagate = std::min(f.propagate, sum.propagate / batch);
  f.partition = std::min(f.partition, sum.partition / batch);
  f.cleanup = std::min(f.cleanup, sum.cleanup / batch);
}

void Print(const Figures& f) {
  std::printf("%8lld instructions: parse %6.3f s | propagate %6.3f s (%.2fx parse, %.0f instr/s) | "
              "partition %6.3f s + cleanup %6.3f s (%.2fx parse)\n",
              static_cast<long long>(f.instructions), f.parse, f.propagate, f.propagate / f.parse,
              f.instructions / f.propagate, f.partition, f.cleanup, (f.partition + f.cleanup) / f.parse);
}

}  // namespace
}  // namespace spmdc

int main(int argc, char** argv) {
  int64_t n = 100000;
  int reps = 3;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
    else n = std::atoll(argv[i]);
  }
  std::printf("compile phases (transformer training step, mesh data=2 x model=4), thread CPU time, best of %d\n",
              reps);
  const std::string texts[2] = {spmdc::ModuleText(n / 10), spmdc::ModuleText(n)};
  spmdc::Figures small, large;
  for (int r = 0; r < reps; ++r) {
    // The small module is compiled 10 times per round, so that both rounds cover the same work
    // (see bench/propagation_bench.cc).
    spmdc::MeasureOnce(texts[0], 10, small);
    spmdc::MeasureOnce(texts[1], 1, large);
  }
  spmdc::Print(small);
  spmdc::Print(large);
  double size = static_cast<double>(large.instructions) / small.instructions;
  std::printf("growth for %.1fx the instructions: propagate %.1fx, partition %.1fx\n", size,
              large.propagate / small.propagate, (large.partition + large.cleanup) / (small.partition + small.cleanup));
  return 0;
}

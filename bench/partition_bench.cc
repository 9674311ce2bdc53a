// Compile-time figures on a large module (issues 3 and 4 benchmarks; prints figures, asserts
// nothing): parse, propagation and partitioning (+ clean-up) of a generated transformer training
// step with >= 100k instructions annotated for 2-D parallelism, and the same at 1/10 the size to
// show how the times grow.
//
//   build/partition_bench [min_instructions]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>

#include "hlo/parser.h"
#include "models/models.h"
#include "partitioner/partitioner.h"
#include "passes/passes.h"
#include "propagation/propagation.h"
#include "support/check.h"

namespace spmdc {
namespace {

double Time(const std::function<void()>& f) {
  auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct Figures {
  int64_t instructions;
  double parse, propagate, partition, cleanup;
};

Figures Run(int64_t min_instructions) {
  TransformerOptions base;
  base.parallel.data = 2;
  base.parallel.model = 4;
  TransformerOptions o = TransformerOptionsForInstructionCount(min_instructions, base);
  std::string text = BuildTransformerTrainingStep(o);
  Figures f{CountHloInstructions(text), 0, 0, 0, 0};
  std::unique_ptr<Module> m;
  f.parse = Time([&] {
    auto parsed = ParseHloModule(text, "bench");
    SPMDC_CHECK(parsed.ok());
    m = std::move(*parsed);
  });
  f.propagate = Time([&] { SPMDC_CHECK(PropagateShardings(*m).ok()); });
  std::unique_ptr<Module> out;
  f.partition = Time([&] {
    auto r = PartitionModule(*m, PartitionOptions{m->num_partitions()});
    SPMDC_CHECK(r.ok());
    out = std::move(r->module);
  });
  f.cleanup = Time([&] { SPMDC_CHECK(RunCleanup(*out).ok()); });
  std::printf("%8lld instructions: parse %6.3f s | propagate %6.3f s (%.2fx parse, %.0f instr/s) | "
              "partition %6.3f s + cleanup %6.3f s (%.2fx parse)\n",
              static_cast<long long>(f.instructions), f.parse, f.propagate, f.propagate / f.parse,
              f.instructions / f.propagate, f.partition, f.cleanup, (f.partition + f.cleanup) / f.parse);
  return f;
}

}  // namespace
}  // namespace spmdc

int main(int argc, char** argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 100000;
  spmdc::Figures small = spmdc::Run(n / 10);
  spmdc::Figures large = spmdc::Run(n);
  double size = static_cast<double>(large.instructions) / small.instructions;
  std::printf("growth for %.1fx the instructions: propagate %.1fx, partition %.1fx\n", size,
              large.propagate / small.propagate, (large.partition + large.cleanup) / (small.partition + small.cleanup));
  return 0;
}

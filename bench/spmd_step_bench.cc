// Training-step time on 1 vs 2 in-process devices (issue 4 benchmark; prints figures, asserts
// nothing). Each device is one thread running the interpreter with one intra-op thread, so the
// speedup measures what the partitioned program buys when a second device is added. The 1-device
// run with every core is printed too, for reference.
//
//   build/spmd_step_bench [repetitions]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "hlo/parser.h"
#include "interpreter/interpreter.h"
#include "models/models.h"
#include "partitioner/partitioner.h"
#include "propagation/propagation.h"
#include "runtime/executor.h"
#include "runtime/host_values.h"
#include "support/check.h"

namespace spmdc {
namespace {

double Seconds(const std::function<void()>& f, int reps) {
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

void Measure(const char* label, const std::string& text, int reps) {
  auto parsed = ParseHloModule(text, label);
  SPMDC_CHECK(parsed.ok());
  std::unique_ptr<Module> module = std::move(*parsed);
  std::vector<Literal> args = RandomArguments(*module, /*seed=*/1);
  SingleDeviceContext one;
  InterpreterOptions single_thread;
  single_thread.intra_op_threads = 1;
  InterpreterOptions all_threads;
  double t1 = Seconds([&] { SPMDC_CHECK(Execute(*module, args, &one, single_thread).ok()); }, reps);
  double t1_all = Seconds([&] { SPMDC_CHECK(Execute(*module, args, &one, all_threads).ok()); }, reps);
  int64_t n = module->num_partitions();
  std::unique_ptr<Module> annotated = module->Clone();
  SPMDC_CHECK(PropagateShardings(*annotated).ok());
  StatusOr<PartitionResult> part = PartitionAndCleanUp(*annotated, PartitionOptions{n});
  SPMDC_CHECK(part.ok());
  SpmdOptions options;
  options.global_result_shape = module->entry()->root()->shape();
  options.cores = static_cast<int>(n);  // one core per device
  double tn = Seconds([&] {
    SPMDC_CHECK(ExecuteSpmd(*part->module, n, args, part->parameter_shardings, part->result_sharding, options).ok());
  }, reps);
  std::printf("%-34s 1 device (1 thread) %8.1f ms | 1 device (all cores) %8.1f ms | %lld devices %8.1f ms | speedup %.2fx\n",
              label, t1 * 1e3, t1_all * 1e3, static_cast<long long>(n), tn * 1e3, t1 / tn);
}

}  // namespace
}  // namespace spmdc

int main(int argc, char** argv) {
  using namespace spmdc;
  int reps = argc > 1 ? std::atoi(argv[1]) : 3;
  MlpOptions mlp;
  mlp.batch = 1024;
  mlp.input = 1024;
  mlp.hidden = 2048;
  mlp.output = 1024;
  mlp.layers = 3;
  mlp.parallel.data = 2;
  Measure("MLP step, data parallel", BuildMlpTrainingStep(mlp), reps);
  mlp.parallel.data = 1;
  mlp.parallel.model = 2;
  Measure("MLP step, tensor parallel", BuildMlpTrainingStep(mlp), reps);
  TransformerOptions tf;
  tf.batch = 8;
  tf.seq = 128;
  tf.model = 512;
  tf.heads = 8;
  tf.ffn = 2048;
  tf.layers = 1;
  tf.parallel.model = 2;
  Measure("transformer layer step, Megatron", BuildTransformerTrainingStep(tf), reps);
  tf.parallel.model = 1;
  tf.parallel.data = 2;
  Measure("transformer layer step, data par.", BuildTransformerTrainingStep(tf), reps);
  return 0;
}

// The cost model's step time against measured step time on this machine (issue 11, part 5):
// the example models x parallel strategies on 2 and 4 in-process devices. Each case is
// propagated and partitioned as `spmdc run` does, run (a warm-up, then the median of several
// steps; SpmdOptions::step_seconds: first device start to last device end), and predicted by
// src/cost under a cpu-local profile that runtime/calibration.h measures in this process for
// that device count (the same figures `spmdc calibrate` measures). Prints per case predicted vs
// measured, then the Spearman rank correlation of predicted and measured over the strategies
// (all cases, and within each model), and the median absolute relative error. Asserts nothing.
//
//   build/bench/cost_model_bench [repetitions=7]
//
// The machine is often shared: run it when `uptime` is low (it prints the load average before
// and after); calibration and cases alternate per device count so both see the same load.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "cost/cost.h"
#include "hlo/parser.h"
#include "models/examples.h"
#include "models/models.h"
#include "partitioner/partitioner.h"
#include "propagation/propagation.h"
#include "runtime/calibration.h"
#include "runtime/executor.h"
#include "runtime/host_values.h"
#include "support/check.h"

namespace spmdc {
namespace {

struct Model {
  std::string name;
  std::string (*build)(int64_t data, int64_t model);
};

// The examples (`spmdc example mlp`, `transformer`: their options with the strategy's mesh) and
// larger variants whose steps are dominated by arithmetic rather than per-instruction costs.
std::string Mlp(int64_t data, int64_t model) {
  MlpOptions o;
  o.parallel.data = data;
  o.parallel.model = model;
  return BuildMlpTrainingStep(o);
}
std::string MlpLarge(int64_t data, int64_t model) {
  MlpOptions o;
  o.batch = 512;
  o.input = 512;
  o.hidden = 1024;
  o.output = 512;
  o.layers = 3;
  o.parallel.data = data;
  o.parallel.model = model;
  return BuildMlpTrainingStep(o);
}
std::string Transformer(int64_t data, int64_t model) {
  return BuildTransformerTrainingStep(SmallTransformerOptions(data, model));
}
std::string TransformerLarge(int64_t data, int64_t model) {
  TransformerOptions o = SmallTransformerOptions(data, model);
  o.batch = 8;
  o.seq = 64;
  o.model = 256;
  o.heads = 8;
  o.ffn = 1024;
  o.vocab = 512;
  return BuildTransformerTrainingStep(o);
}

struct Strategy {
  int64_t data, model;
  std::string Name() const {
    if (data > 1 && model > 1) return fmt::format("2d {}x{}", data, model);
    return data > 1 ? fmt::format("dp {}", data) : fmt::format("tp {}", model);
  }
};

struct Case {
  std::string model, strategy;
  int64_t devices;
  double predicted = 0, measured = 0, compute = 0, communication = 0;
};

double LoadAverage() {
  std::ifstream f("/proc/loadavg");
  double one = -1;
  f >> one;
  return one;
}

Case RunCase(const Model& model, const Strategy& st, const HardwareProfile& hw, int reps) {
  const int64_t n = st.data * st.model;
  auto parsed = ParseHloModule(model.build(st.data, st.model), model.name);
  SPMDC_CHECK(parsed.ok());
  std::unique_ptr<Module> module = std::move(*parsed);
  module->set_num_partitions(n);
  SPMDC_CHECK(PropagateShardings(*module).ok());
  StatusOr<PartitionResult> part = PartitionAndCleanUp(*module, PartitionOptions{n});
  SPMDC_CHECK(part.ok());
  std::vector<Literal> args = RandomArguments(*module, /*seed=*/1);
  SpmdOptions so;
  so.global_result_shape = module->entry()->root()->shape();
  double step = 0;
  so.step_seconds = &step;
  std::vector<double> times;
  for (int r = 0; r <= reps; ++r) {
    SPMDC_CHECK(ExecuteSpmd(*part->module, n, args, part->parameter_shardings, part->result_sharding, so).ok());
    if (r > 0) times.push_back(step);
  }
  std::sort(times.begin(), times.end());
  CostOptions copts;
  copts.num_partitions = n;
  copts.mesh = *Mesh::Parse(fmt::format("data={},model={}", st.data, st.model));
  StepTime t = EstimateStepTime(*part->module, copts, hw);
  Case c{model.name, st.Name(), n};
  c.measured = times[times.size() / 2];
  c.predicted = t.overlapped_seconds;
  c.compute = t.compute_seconds;
  c.communication = t.communication_seconds;
  return c;
}

// Ranks with ties averaged (1-based).
std::vector<double> Ranks(const std::vector<double>& v) {
  std::vector<size_t> idx(v.size());
  for (size_t i = 0; i < v.size(); ++i) idx[i] = i;
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (size_t i = 0; i < idx.size();) {
    size_t j = i;
    while (j + 1 < idx.size() && v[idx[j + 1]] == v[idx[i]]) ++j;
    for (size_t k = i; k <= j; ++k) r[idx[k]] = (i + j) / 2.0 + 1;
    i = j + 1;
  }
  return r;
}

// Spearman's rho: the Pearson correlation of the ranks.
double Spearman(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> ra = Ranks(a), rb = Ranks(b);
  const double n = static_cast<double>(a.size());
  double ma = 0, mb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    ma += ra[i] / n;
    mb += rb[i] / n;
  }
  double cov = 0, va = 0, vb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    cov += (ra[i] - ma) * (rb[i] - mb);
    va += (ra[i] - ma) * (ra[i] - ma);
    vb += (rb[i] - mb) * (rb[i] - mb);
  }
  return va > 0 && vb > 0 ? cov / std::sqrt(va * vb) : 0;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  if (v.empty()) return 0;
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

}  // namespace
}  // namespace spmdc

int main(int argc, char** argv) {
  using namespace spmdc;
  const int reps = argc > 1 ? std::atoi(argv[1]) : 7;
  const std::vector<Model> models = {
      {"mlp", Mlp}, {"mlp-large", MlpLarge}, {"transformer", Transformer}, {"transformer-large", TransformerLarge}};
  const std::map<int64_t, std::vector<Strategy>> strategies = {{2, {{2, 1}, {1, 2}}}, {4, {{4, 1}, {1, 4}, {2, 2}}}};
  std::printf("cost model vs measurement, cpu-local (in-process devices), %d steps per case (median after a warm-up); "
              "load average %.2f\n",
              reps, LoadAverage());
  std::vector<Case> cases;
  for (const auto& [devices, list] : strategies) {
    CalibrationOptions co;
    co.devices = devices;
    StatusOr<Calibration> cal = CalibrateCpuLocal(co);
    SPMDC_CHECK(cal.ok());
    std::printf("\n%s", cal->Summary().c_str());
    std::printf("%-18s %-8s %12s %12s %8s   (model: compute %s, communication)\n", "model", "strategy", "predicted",
                "measured", "error", "");
    for (const Model& m : models) {
      for (const Strategy& st : list) {
        Case c = RunCase(m, st, cal->profile, reps);
        std::printf("%-18s %-8s %9.3f ms %9.3f ms %+7.1f%%   (%.3f ms, %.3f ms)\n", c.model.c_str(), c.strategy.c_str(),
                    c.predicted * 1e3, c.measured * 1e3, 100 * (c.predicted - c.measured) / c.measured,
                    c.compute * 1e3, c.communication * 1e3);
        cases.push_back(c);
      }
    }
  }
  std::vector<double> predicted, measured, errors;
  for (const Case& c : cases) {
    predicted.push_back(c.predicted);
    measured.push_back(c.measured);
    errors.push_back(std::abs(c.predicted - c.measured) / c.measured);
  }
  std::printf("\nover all %zu cases: Spearman %.3f (target >= 0.9), median |error| %.1f%% (target <= 25%%)\n",
              cases.size(), Spearman(predicted, measured), 100 * Median(errors));
  for (const Model& m : models) {
    std::vector<double> p, q;
    for (const Case& c : cases)
      if (c.model == m.name) {
        p.push_back(c.predicted);
        q.push_back(c.measured);
      }
    std::printf("  %-18s Spearman over its %zu strategies %.3f\n", m.name.c_str(), p.size(), Spearman(p, q));
  }
  for (int64_t devices : {2, 4}) {
    std::vector<double> p, q;
    for (const Case& c : cases)
      if (c.devices == devices) {
        p.push_back(c.predicted);
        q.push_back(c.measured);
      }
    std::printf("  on %lld devices: Spearman over %zu cases %.3f\n", static_cast<long long>(devices), p.size(), Spearman(p, q));
  }
  std::printf("load average at the end %.2f\n", LoadAverage());
  return 0;
}

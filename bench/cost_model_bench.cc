// The cost model's step time against measured step time on this machine (issue 11, part 5):
// the example models x parallel strategies on 2 and 4 in-process devices. Each case is
// propagated and partitioned as `spmdc run` does, run (a warm-up, then the median of several
// steps, more for short ones; SpmdOptions::step_seconds: first device start to last device end), and predicted by
// src/cost under a cpu-local profile for that device count and clock: one that `spmdc
// calibrate --devices N [--clock cpu] -o FILE` wrote (--profile FILE), else one measured in this
// process by the same function (runtime/calibration.h CalibrateCpuLocal). Prints per case predicted vs
// measured, then the Spearman rank correlation of predicted and measured over the strategies
// (all cases, and within each model), and the median absolute relative error. Asserts nothing.
//
//   build/bench/cost_model_bench [repetitions=7] [MODEL] [--profile FILE]...
//     MODEL: only that model's cases; --profile: a profile `spmdc calibrate` wrote, used for the
//     device count and clock its "calibration" record names (2 or 4 devices; wall or cpu)
//
// The machine is often shared: run it when `uptime` is low (it prints the load average before
// and after); calibration and cases alternate per device count so both see the same load.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "cost/cost.h"
#include "hlo/parser.h"
#include "models/examples.h"
#include "nlohmann/json.hpp"
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

// Two clocks: the wall clock (what a step takes here, now) and the devices' CPU time turned
// into the wall time of an idle machine (UnloadedStepSeconds), each with its own calibration.
enum Clock { kWall = 0, kCpu = 1 };
const char* kClockName[] = {"wall clock", "CPU time (idle-machine equivalent)"};

struct Case {
  std::string model, strategy;
  int64_t devices;
  double predicted[2] = {0, 0}, measured[2] = {0, 0};
  double compute = 0, communication = 0;  // of the CPU-clock prediction
};

double LoadAverage() {
  std::ifstream f("/proc/loadavg");
  double one = -1;
  f >> one;
  return one;
}

double MedianOf(std::vector<double> v);

Case RunCase(const Model& model, const Strategy& st, const HardwareProfile* hw[2], int reps) {
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
  std::vector<double> cpu;
  so.device_cpu_seconds = &cpu;
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<double> wall_times, cpu_times;
  double total = 0;
  // `reps` steps after a warm-up, and for short steps more (up to 100) until they fill half a
  // second: the median of a few 10 ms steps on a loaded machine is one preemption away.
  for (int r = 0; r <= reps || (total < 0.5 && r <= 100); ++r) {
    SPMDC_CHECK(ExecuteSpmd(*part->module, n, args, part->parameter_shardings, part->result_sharding, so).ok());
    if (r == 0) continue;
    wall_times.push_back(step);
    cpu_times.push_back(UnloadedStepSeconds(cpu, cores));
    total += step;
  }
  CostOptions copts;
  copts.num_partitions = n;
  copts.mesh = *Mesh::Parse(fmt::format("data={},model={}", st.data, st.model));
  Case c{model.name, st.Name(), n};
  c.measured[kWall] = MedianOf(wall_times);
  c.measured[kCpu] = MedianOf(cpu_times);
  for (int k : {kWall, kCpu}) {
    StepTime t = EstimateStepTime(*part->module, copts, *hw[k]);
    c.predicted[k] = t.overlapped_seconds;
    if (k == kCpu) {
      c.compute = t.compute_seconds;
      c.communication = t.communication_seconds;
    }
  }
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

double MedianOf(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  if (v.empty()) return 0;
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

}  // namespace
}  // namespace spmdc

namespace spmdc {
namespace {

// A profile `spmdc calibrate` wrote, and the (devices, clock) its "calibration" record names.
struct GivenProfile {
  int64_t devices = 0;
  int clock = 0;
  HardwareProfile profile;
};

GivenProfile ReadProfile(const std::string& path) {
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  StatusOr<HardwareProfile> profile = ParseHardwareProfile(text, path);
  if (!in || !profile.ok()) {
    std::fprintf(stderr, "cost_model_bench: %s: %s\n", path.c_str(),
                 in ? profile.status().ToString().c_str() : "cannot read");
    std::exit(2);
  }
  profile->path = path;
  const nlohmann::json j = nlohmann::json::parse(text);
  if (!j.contains("calibration") || !j["calibration"].contains("devices")) {
    std::fprintf(stderr, "cost_model_bench: %s: no \"calibration\" record (not written by spmdc calibrate)\n",
                 path.c_str());
    std::exit(2);
  }
  return {j["calibration"]["devices"].get<int64_t>(), j["calibration"].value("cpu_clock", false) ? kCpu : kWall,
          *profile};
}

}  // namespace
}  // namespace spmdc

int main(int argc, char** argv) {
  using namespace spmdc;
  std::vector<std::string> positional;
  std::vector<GivenProfile> given;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--profile" && i + 1 < argc) {
      given.push_back(ReadProfile(argv[++i]));
    } else {
      positional.push_back(a);
    }
  }
  const int reps = positional.size() > 0 ? std::atoi(positional[0].c_str()) : 7;
  // Optional: only the models whose name is the second argument (for profiling one of them).
  const std::string only = positional.size() > 1 ? positional[1] : "";
  const std::vector<Model> models = {
      {"mlp", Mlp}, {"mlp-large", MlpLarge}, {"transformer", Transformer}, {"transformer-large", TransformerLarge}};
  const std::map<int64_t, std::vector<Strategy>> strategies = {{2, {{2, 1}, {1, 2}}}, {4, {{4, 1}, {1, 4}, {2, 2}}}};
  std::printf("cost model vs measurement, cpu-local (in-process devices, %u hardware threads), at least %d steps per "
              "case (median after a warm-up); load average %.2f\n",
              std::thread::hardware_concurrency(), reps, LoadAverage());
  std::vector<Case> cases;
  for (const auto& [devices, list] : strategies) {
    HardwareProfile profile[2];
    for (int k : {kWall, kCpu}) {
      auto file = std::find_if(given.begin(), given.end(),
                               [&](const GivenProfile& g) { return g.devices == devices && g.clock == k; });
      if (file != given.end()) {
        profile[k] = file->profile;
        std::printf("\n[%s] %s (from %s)\n", kClockName[k], profile[k].description.c_str(), profile[k].path.c_str());
        continue;
      }
      CalibrationOptions co;
      co.devices = devices;
      co.cpu_clock = k == kCpu;
      co.invocation = "bench/cost_model_bench";
      StatusOr<Calibration> c = CalibrateCpuLocal(co);
      SPMDC_CHECK(c.ok());
      profile[k] = c->profile;
      std::printf("\n[%s] %s", kClockName[k], c->Summary().c_str());
    }
    const HardwareProfile* hw[2] = {&profile[kWall], &profile[kCpu]};
    std::printf("\n%-18s %-8s | %10s %10s %7s | %10s %10s %7s | %s\n", "model", "strategy", "predicted", "wall", "error",
                "predicted", "cpu", "error", "cpu model: compute, communication");
    for (const Model& m : models) {
      if (!only.empty() && m.name != only) continue;
      for (const Strategy& st : list) {
        Case c = RunCase(m, st, hw, reps);
        std::printf("%-18s %-8s | %7.2f ms %7.2f ms %+6.1f%% | %7.2f ms %7.2f ms %+6.1f%% | %.2f ms, %.2f ms\n",
                    c.model.c_str(), c.strategy.c_str(), c.predicted[kWall] * 1e3, c.measured[kWall] * 1e3,
                    100 * (c.predicted[kWall] - c.measured[kWall]) / c.measured[kWall], c.predicted[kCpu] * 1e3,
                    c.measured[kCpu] * 1e3, 100 * (c.predicted[kCpu] - c.measured[kCpu]) / c.measured[kCpu],
                    c.compute * 1e3, c.communication * 1e3);
        cases.push_back(c);
      }
    }
  }
  for (int k : {kWall, kCpu}) {
    std::vector<double> predicted, measured, errors;
    for (const Case& c : cases) {
      predicted.push_back(c.predicted[k]);
      measured.push_back(c.measured[k]);
      errors.push_back(std::abs(c.predicted[k] - c.measured[k]) / c.measured[k]);
    }
    std::printf("\n%s, all %zu cases: Spearman %.3f (target >= 0.9), median |error| %.1f%% (target <= 25%%)\n",
                kClockName[k], cases.size(), Spearman(predicted, measured), 100 * MedianOf(errors));
    for (const Model& m : models) {
      std::vector<double> p, q;
      for (const Case& c : cases)
        if (c.model == m.name) {
          p.push_back(c.predicted[k]);
          q.push_back(c.measured[k]);
        }
      std::printf("  %-18s Spearman over its %zu strategies %.3f\n", m.name.c_str(), p.size(), Spearman(p, q));
    }
  }
  std::printf("load average at the end %.2f\n", LoadAverage());
  return 0;
}

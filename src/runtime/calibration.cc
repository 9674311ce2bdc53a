#include "runtime/calibration.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <thread>

#include "fmt/format.h"
#include "hlo/parser.h"
#include "nlohmann/json.hpp"
#include "runtime/executor.h"
#include "runtime/host_values.h"
#include "sharding/sharding.h"

namespace spmdc {
namespace {


// Median seconds of one step of the per-device program `text` on the devices of `o`, every
// argument replicated.
StatusOr<double> StepSeconds(const std::string& text, const CalibrationOptions& o) {
  ASSIGN_OR_RETURN(std::unique_ptr<Module> module, ParseHloModule(text, "calibration"));
  std::vector<Literal> args = RandomArguments(*module, /*seed=*/1);
  std::vector<Sharding> shardings(args.size(), Sharding::Replicate());
  SpmdOptions so;
  so.cores = o.cores;
  so.global_result_shape = module->entry()->root()->shape();
  double step = 0;
  so.step_seconds = &step;
  std::vector<double> cpu;
  so.device_cpu_seconds = &cpu;
  const int cores = o.cores > 0 ? o.cores : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<double> times;
  double total = 0;
  // At least `repetitions` steps and, for short steps, enough of them to fill min_seconds (a
  // median over a handful of millisecond steps is at the mercy of one preemption).
  for (int r = 0; r <= std::max(1, o.repetitions) || (total < o.min_seconds && r <= 200); ++r) {
    ASSIGN_OR_RETURN(Literal out, ExecuteSpmd(*module, o.devices, args, shardings, Sharding::Replicate(), so));
    (void)out;
    if (r == 0) continue;  // the first step warms caches, pages and oneDNN up
    const double t = o.cpu_clock ? UnloadedStepSeconds(cpu, cores) : step;
    times.push_back(t);
    total += t;
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// The module: parameters `params` (HLO lines), then `count` instructions, each `line(i)` with
// %v{i} its result and %v{i-1} the previous one (%v0 is the first parameter).
std::string Chain(int64_t devices, const std::vector<std::string>& params, int count,
                  const std::function<std::string(int)>& line) {
  std::string s = fmt::format("HloModule calibration, num_partitions={}\n", devices);
  s += "add_f32 {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n";
  s += "ENTRY e {\n";
  for (const std::string& p : params) s += "  " + p + "\n";
  for (int i = 1; i <= count; ++i) {
    std::string l = line(i);
    if (i == count) {  // ROOT on the last instruction of the last line group
      const size_t last = l.rfind("\n  ");
      l.insert(last == std::string::npos ? 0 : last + 3, "ROOT ");
    }
    s += "  " + l + "\n";
  }
  return s + "}\n";
}

// Seconds per instruction of the chain `line` (see Chain): (time of 2K instructions - time of
// K) / K, which cancels what a step costs besides its instructions (starting the device threads,
// preparing the program). K is chosen per figure so that the K extra instructions take
// milliseconds, well above the step-to-step jitter of thread start-up.
StatusOr<double> PerOp(const CalibrationOptions& o, int chain, const std::vector<std::string>& params,
                       const std::function<std::string(int)>& line) {
  ASSIGN_OR_RETURN(double shorter, StepSeconds(Chain(o.devices, params, chain, line), o));
  ASSIGN_OR_RETURN(double longer, StepSeconds(Chain(o.devices, params, 2 * chain, line), o));
  return std::max(longer - shorter, 0.0) / chain;
}

std::string Unary(const char* opcode, const char* shape, int i) {
  return fmt::format("v{} = {} {}(v{})", i, shape, opcode, i - 1);
}

int64_t TreeSteps(int64_t n) { return 2 * static_cast<int64_t>(std::ceil(std::log2(static_cast<double>(n)))); }

}  // namespace

StatusOr<Calibration> CalibrateCpuLocal(const CalibrationOptions& options) {
  CalibrationOptions o = options;
  o.devices = std::max<int64_t>(1, o.devices);
  const int64_t n = o.devices;
  Calibration c;
  // Dots: [256,256] x [256,256] (33.6 MFLOP), and 8x8 ones whose arithmetic is negligible.
  constexpr int64_t kDot = 256;
  auto dot = [](const char* shape) {
    return [shape](int i) {
      return fmt::format("v{} = {} dot(v{}, w), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}", i, shape, i - 1);
    };
  };
  ASSIGN_OR_RETURN(c.dot_seconds, PerOp(o, 4, {"v0 = f32[256,256] parameter(0)", "w = f32[256,256] parameter(1)"},
                                        dot("f32[256,256]")));
  // Skinny dots, [16,256] x [256,256]: with the square ones, Hockney's n½ of the kernels.
  ASSIGN_OR_RETURN(c.skinny_dot_seconds, PerOp(o, 16, {"v0 = f32[16,256] parameter(0)", "w = f32[256,256] parameter(1)"},
                                               dot("f32[16,256]")));
  ASSIGN_OR_RETURN(c.small_dot_seconds,
                   PerOp(o, 256, {"v0 = f32[8,8] parameter(0)", "w = f32[8,8] parameter(1)"}, dot("f32[8,8]")));
  // 8xk dots of a different shape each: every one misses the kernels' per-thread primitive
  // cache (device threads start afresh each step), the set-up a step pays once per shape.
  {
    auto distinct = [](int count) {
      std::vector<std::string> params = {"v0 = f32[8,8] parameter(0)"};
      for (int i = 1; i <= count; ++i) params.push_back(fmt::format("w{} = f32[{},{}] parameter({})", i, 7 + i, 8 + i, i));
      return params;
    };
    auto line = [](int i) {
      return fmt::format("v{} = f32[8,{}] dot(v{}, w{}), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}", i, 8 + i, i - 1, i);
    };
    ASSIGN_OR_RETURN(double shorter, StepSeconds(Chain(o.devices, distinct(64), 32, line), o));
    ASSIGN_OR_RETURN(double longer, StepSeconds(Chain(o.devices, distinct(64), 64, line), o));
    c.distinct_dot_seconds = std::max(longer - shorter, 0.0) / 32;
  }
  ASSIGN_OR_RETURN(c.op_seconds, PerOp(o, 512, {"v0 = f32[16] parameter(0)"}, [](int i) { return Unary("negate", "f32[16]", i); }));
  // On 1Mi-element (4 MiB) arrays: add reads two and writes one (memory), a sum reads one
  // (arithmetic: the vector rate); exp and tanh on 256Ki elements (transcendentals).
  constexpr int64_t kElems = int64_t{1} << 20, kTranscendentals = int64_t{1} << 18;
  ASSIGN_OR_RETURN(c.add_seconds, PerOp(o, 8, {"v0 = f32[1048576] parameter(0)", "w = f32[1048576] parameter(1)"},
                                        [](int i) { return fmt::format("v{} = f32[1048576] add(v{}, w)", i, i - 1); }));
  ASSIGN_OR_RETURN(c.reduce_seconds,
                   PerOp(o, 8, {"v0 = f32[] parameter(0)", "x = f32[1048576] parameter(1)"},
                         [](int i) {
                           return fmt::format("v{} = f32[] reduce(x, v{}), dimensions={{0}}, to_apply=add_f32", i, i - 1);
                         }));
  double exp_seconds = 0, tanh_seconds = 0;
  ASSIGN_OR_RETURN(exp_seconds, PerOp(o, 8, {"v0 = f32[262144] parameter(0)"}, [](int i) {
                     // exp(-|x|) stays in (0, 1]: no overflow to inf along the chain.
                     return fmt::format("a{0} = f32[262144] abs(v{1})\n  n{0} = f32[262144] negate(a{0})\n  v{0} = f32[262144] exponential(n{0})", i, i - 1);
                   }));
  ASSIGN_OR_RETURN(tanh_seconds, PerOp(o, 8, {"v0 = f32[262144] parameter(0)"}, [](int i) { return Unary("tanh", "f32[262144]", i); }));
  c.exp_seconds = exp_seconds;
  c.tanh_seconds = tanh_seconds;
  // All-reduces over every device.
  auto all_reduce = [n](const char* shape) {
    return [n, shape](int i) {
      return fmt::format("v{} = {} all-reduce(v{}), channel_id={}, replica_groups=[1,{}]<=[{}], use_global_device_ids=true, to_apply=add_f32",
                         i, shape, i - 1, i, n, n);
    };
  };
  constexpr int64_t kLargeAr = int64_t{1} << 20;
  if (n > 1) {
    ASSIGN_OR_RETURN(c.small_all_reduce_seconds, PerOp(o, 64, {"v0 = f32[16] parameter(0)"}, all_reduce("f32[16]")));
    ASSIGN_OR_RETURN(c.large_all_reduce_seconds, PerOp(o, 4, {"v0 = f32[1048576] parameter(0)"}, all_reduce("f32[1048576]")));
  }

  // Solve for the profile's figures with the cost model's own formulas (cost/step_time.cc,
  // cost/collectives.cc): op time = overhead + max(FLOPs / rate, bytes / bandwidth).
  HardwareProfile& p = c.profile;
  p.name = "cpu-local";
  const unsigned hw_threads = std::max(1u, std::thread::hardware_concurrency());
  const int cores = o.cores > 0 ? o.cores : static_cast<int>(hw_threads);
  p.description = fmt::format("this machine's in-process backend: {} device threads sharing {} cores (interpreter, "
                              "thread communicator), measured by spmdc's calibration ({})",
                              n, cores, o.cpu_clock ? "CPU time of the devices" : "wall clock");
  const double floor = 1e-9;  // a figure can never be measured as zero time
  p.op_overhead = std::max(c.op_seconds, floor);
  p.dot_overhead = std::max(c.small_dot_seconds - p.op_overhead, floor);
  p.dot_setup = std::max(c.distinct_dot_seconds - c.small_dot_seconds, floor);
  // Rates of the square (m = 256) and skinny (m = 16) dots; r(m) = r_inf·m/(m + n½) through
  // both gives n½ = 16·256·(1 - q) / (256·q - 16) with q = r(16)/r(256), and r_inf.
  const double dot_rate = 2.0 * kDot * kDot * kDot / std::max(c.dot_seconds - p.op_overhead - p.dot_overhead, floor);
  const double skinny_rate =
      2.0 * 16 * kDot * kDot / std::max(c.skinny_dot_seconds - p.op_overhead - p.dot_overhead, floor);
  const double q = skinny_rate / dot_rate;
  p.matmul_half_size = q < 1 ? 16.0 * kDot * (1 - q) / std::max(kDot * q - 16, 1e-9) : 0.0;
  if (p.matmul_half_size < 0 || q <= 16.0 / kDot) p.matmul_half_size = 0;  // no consistent fit: peak for every size
  p.matmul_flops["f32"] = dot_rate * (kDot + p.matmul_half_size) / kDot;
  p.hbm_bandwidth = 12.0 * kElems / std::max(c.add_seconds - p.op_overhead, floor);
  // The sum: one FLOP and 4 bytes per element; its time beyond the bandwidth's is arithmetic.
  p.vector_flops = 1.0 * kElems / std::max(c.reduce_seconds - p.op_overhead, 4.0 * kElems / p.hbm_bandwidth);
  // exp (with the abs and negate that keep it finite: two vectorised ops, timed as add-like
  // memory traffic) and tanh, one evaluation per element each; the rate of their mean.
  const double exp_alone = c.exp_seconds - 2 * (p.op_overhead + 8.0 * kTranscendentals / p.hbm_bandwidth) - p.op_overhead;
  const double per_transcendental = (std::max(exp_alone, floor) + std::max(c.tanh_seconds - p.op_overhead, floor)) / 2;
  p.transcendental_rate = kTranscendentals / per_transcendental;
  // Memory: what the machine has, shared by the devices.
  const double pages = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
  p.hbm_bytes = pages > 0 ? pages / n : 1e9;
  HardwareProfile::Link link;
  link.name = "threads";
  link.domain_devices = 0;
  if (n > 1) {
    const int64_t small_steps = n == 2 ? 2 : TreeSteps(n);  // the model picks the tree for tiny sizes
    link.latency = std::max((c.small_all_reduce_seconds - p.op_overhead) / small_steps, floor);
    const double ring_wire = 2.0 * (n - 1) / n * 4.0 * kLargeAr;
    const double transfer = c.large_all_reduce_seconds - p.op_overhead - 2.0 * (n - 1) * link.latency;
    link.bandwidth = ring_wire / std::max(transfer, floor);
  } else {
    link.latency = floor;
    link.bandwidth = p.hbm_bandwidth;
  }
  p.links.push_back(link);
  return c;
}

double UnloadedStepSeconds(const std::vector<double>& cpu, int cores) {
  double slowest = 0, sum = 0;
  for (double c : cpu) {
    slowest = std::max(slowest, c);
    sum += c;
  }
  return std::max(slowest, sum / std::max(cores, 1));
}

std::string Calibration::Summary() const {
  const HardwareProfile& p = profile;
  std::string s = fmt::format("{}: {}\n", p.name, p.description);
  s += fmt::format("  f32 dot          {:8.2f} GFLOP/s   (256^3 dot: {:.3f} ms)\n", p.MatmulFlops(DType::kF32) / 1e9,
                   dot_seconds * 1e3);
  s += fmt::format("  dot n1/2         {:8.1f}           ([16,256]x[256,256]: {:.3f} ms)\n", p.matmul_half_size,
                   skinny_dot_seconds * 1e3);
  s += fmt::format("  dot overhead     {:8.2f} us        (8x8 dot: {:.2f} us)\n", p.dot_overhead * 1e6, small_dot_seconds * 1e6);
  s += fmt::format("  dot set-up       {:8.2f} us        (8xk dots of distinct shapes: {:.2f} us)\n", p.dot_setup * 1e6,
                   distinct_dot_seconds * 1e6);
  s += fmt::format("  op overhead      {:8.2f} us        (negate of 16 elements)\n", p.op_overhead * 1e6);
  s += fmt::format("  memory bandwidth {:8.2f} GB/s      (add of 4 MiB arrays: {:.3f} ms)\n", p.hbm_bandwidth / 1e9,
                   add_seconds * 1e3);
  s += fmt::format("  vector rate      {:8.2f} GFLOP/s   (sum of 4 MiB: {:.3f} ms)\n", p.VectorFlops() / 1e9, reduce_seconds * 1e3);
  s += fmt::format("  transcendentals  {:8.2f} G/s       (of 256Ki elements: exp {:.3f} ms with abs and negate, tanh {:.3f} ms)\n",
                   p.transcendental_rate.value_or(0) / 1e9, exp_seconds * 1e3, tanh_seconds * 1e3);
  const HardwareProfile::Link& l = p.links.front();
  s += fmt::format("  link {}: latency {:.2f} us per step, bandwidth {:.2f} GB/s (all-reduce of 64 B: {:.2f} us, of 4 MiB: "
                   "{:.3f} ms)\n",
                   l.name, l.latency * 1e6, l.bandwidth / 1e9, small_all_reduce_seconds * 1e6,
                   large_all_reduce_seconds * 1e3);
  return s;
}

std::string Calibration::ProfileJson() const {
  using Json = nlohmann::ordered_json;
  const HardwareProfile& p = profile;
  const std::string how = fmt::format("measured on this machine ({})", p.description);
  auto figure = [&](double v, const std::string& what) { return Json{{"value", v}, {"source", how + ": " + what}}; };
  Json j;
  j["name"] = p.name;
  j["description"] = p.description;
  j["matmul_flops_per_second"] = {{"f32", figure(p.MatmulFlops(DType::kF32), "chains of f32[256,256] dots, per device")}};
  j["vector_flops_per_second"] = figure(p.VectorFlops(), "chains of sums of 4 MiB f32 arrays (one FLOP per element)");
  j["transcendentals_per_second"] =
      figure(p.transcendental_rate.value_or(p.VectorFlops()), "chains of exp and tanh on 1 MiB f32 arrays, their mean");
  j["hbm_bytes"] = figure(p.hbm_bytes, "physical memory divided among the devices");
  j["hbm_bandwidth_bytes_per_second"] = figure(p.hbm_bandwidth, "chains of adds on 4 MiB f32 arrays (12 bytes per element)");
  j["op_overhead_seconds"] = figure(p.op_overhead, "chains of negate on 16-element arrays: the interpreter's cost per instruction");
  if (p.matmul_half_size > 0)
    j["matmul_half_size"] = figure(p.matmul_half_size, "Hockney's n1/2 from chains of [256,256]x[256,256] and [16,256]x[256,256] dots");
  j["dot_overhead_seconds"] = figure(p.dot_overhead, "chains of 8x8 dots, minus the op overhead");
  j["dot_setup_seconds"] = figure(p.dot_setup, "chains of 8xk dots of distinct shapes, minus an 8x8 dot: the set-up per distinct shape and step");
  const HardwareProfile::Link& l = p.links.front();
  j["links"] = Json::array({Json{{"name", l.name},
                                 {"domain_devices", 0},
                                 {"bandwidth_bytes_per_second", figure(l.bandwidth, "ring all-reduces of 4 MiB over every device")},
                                 {"latency_seconds", figure(l.latency, "all-reduces of 64 bytes over every device, per algorithm step")}}});
  return j.dump(2) + "\n";
}

}  // namespace spmdc

#include "runtime/calibration.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <functional>
#include <thread>

#include "cost/cost.h"
#include "fmt/format.h"
#include "hlo/parser.h"
#include "nlohmann/json.hpp"
#include "runtime/executor.h"
#include "runtime/host_memory.h"
#include "runtime/host_values.h"
#include "sharding/sharding.h"

namespace spmdc {
namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// A module run on the devices of the options, every argument replicated, timed by their clock.
class Runner {
 public:
  static StatusOr<Runner> Create(const std::string& text, int64_t devices, const CalibrationOptions& o) {
    Runner r;
    ASSIGN_OR_RETURN(r.module_, ParseHloModule(text, "calibration"));
    r.args_ = RandomArguments(*r.module_, /*seed=*/1);
    r.devices_ = devices;
    r.options_ = &o;
    return r;
  }

  Literal& argument(int i) { return args_[i]; }

  // Seconds of one step: the wall clock, or the devices' CPU time as an idle machine's wall time.
  StatusOr<double> Time() {
    std::vector<Sharding> shardings(args_.size(), Sharding::Replicate());
    SpmdOptions so;
    so.cores = options_->cores;
    so.global_result_shape = module_->entry()->root()->shape();
    double step = 0;
    so.step_seconds = &step;
    std::vector<double> cpu;
    so.device_cpu_seconds = &cpu;
    ASSIGN_OR_RETURN(Literal out, ExecuteSpmd(*module_, devices_, args_, shardings, Sharding::Replicate(), so));
    (void)out;
    return options_->cpu_clock ? UnloadedStepSeconds(cpu, options_->cores) : step;
  }

 private:
  std::unique_ptr<Module> module_;
  std::vector<Literal> args_;
  int64_t devices_ = 1;
  const CalibrationOptions* options_ = nullptr;
};

// Median seconds of one step of `text` over `repetitions` steps after a warm-up and, for short
// steps, enough of them to fill min_seconds (a median over a handful of millisecond steps is at
// the mercy of one preemption).
StatusOr<double> StepSeconds(const std::string& text, const CalibrationOptions& o) {
  ASSIGN_OR_RETURN(Runner runner, Runner::Create(text, o.devices, o));
  std::vector<double> times;
  double total = 0;
  for (int r = 0; r <= std::max(1, o.repetitions) || (total < o.min_seconds && r <= 200); ++r) {
    ASSIGN_OR_RETURN(double t, runner.Time());
    if (r == 0) continue;  // the first step warms caches, pages and oneDNN up
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
// K) / K. K is chosen per figure so that the K extra instructions take milliseconds, well above
// the step-to-step jitter of thread start-up.
StatusOr<double> PerOp(const CalibrationOptions& o, int chain, const std::vector<std::string>& params,
                       const std::function<std::string(int)>& line) {
  ASSIGN_OR_RETURN(double shorter, StepSeconds(Chain(o.devices, params, chain, line), o));
  ASSIGN_OR_RETURN(double longer, StepSeconds(Chain(o.devices, params, 2 * chain, line), o));
  return std::max(longer - shorter, 0.0) / chain;
}

std::string Unary(const char* opcode, const char* shape, int i) {
  return fmt::format("v{} = {} {}(v{})", i, shape, opcode, i - 1);
}

// --- collectives in a while loop --------------------------------------------------------------

// A module on `devices` devices that runs `body` k times in a while loop, k being entry
// parameter 0. The loop carries (i, k, values...); `body` reads %v0, %v1, ... and `results`
// names the new values (a %vJ name keeps one unchanged). Entry parameters 1.. are the values'
// initial values; the entry returns value `root`.
struct LoopSpec {
  int64_t devices = 1;
  std::vector<std::string> types;    // "f32[1024]"
  std::vector<std::string> body;     // instruction lines
  std::vector<std::string> results;  // one per value
  int64_t root = 0;
};

std::string LoopModule(const LoopSpec& s) {
  std::string tuple = "(s32[], s32[]";
  for (const std::string& t : s.types) tuple += ", " + t;
  tuple += ")";
  std::string text = fmt::format("HloModule calibration_loop, num_partitions={}\n\n", s.devices);
  text += "add {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, y)\n}\n\n";
  text += fmt::format(
      "cond {{\n  p = {} parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n"
      "  k = s32[] get-tuple-element(p), index=1\n  ROOT lt = pred[] compare(i, k), direction=LT\n}}\n\n",
      tuple);
  text += fmt::format("body {{\n  p = {} parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n", tuple);
  text += "  k = s32[] get-tuple-element(p), index=1\n";
  for (size_t v = 0; v < s.types.size(); ++v)
    text += fmt::format("  v{} = {} get-tuple-element(p), index={}\n", v, s.types[v], v + 2);
  text += "  one = s32[] constant(1)\n  i1 = s32[] add(i, one)\n";
  for (const std::string& line : s.body) text += "  " + line + "\n";
  text += fmt::format("  ROOT t = {} tuple(i1, k", tuple);
  for (const std::string& r : s.results) text += ", " + r;
  text += ")\n}\n\n";
  text += "ENTRY e {\n  k = s32[] parameter(0)\n";
  for (size_t v = 0; v < s.types.size(); ++v) text += fmt::format("  a{} = {} parameter({})\n", v, s.types[v], v + 1);
  text += fmt::format("  zero = s32[] constant(0)\n  t = {} tuple(zero, k", tuple);
  for (size_t v = 0; v < s.types.size(); ++v) text += fmt::format(", a{}", v);
  text += fmt::format(")\n  w = {} while(t), condition=cond, body=body\n", tuple);
  text += fmt::format("  ROOT r = {} get-tuple-element(w), index={}\n}}\n", s.types[s.root], s.root + 2);
  return text;
}

// The loop measuring one collective of `kind` on n devices, each contributing `bytes` of f32
// (all-gather: each holds bytes / n and gathers `bytes`). The groups are device ids: flattened
// ids (use_global_device_ids=true) where the op takes them, partition ids otherwise (one replica).
LoopSpec CollectiveLoop(const std::string& kind, int64_t n, int64_t bytes) {
  const int64_t e = bytes / 4;
  std::string groups = "{{";
  for (int64_t d = 0; d < n; ++d) groups += (d ? "," : "") + std::to_string(d);
  groups += "}}";
  LoopSpec s;
  s.devices = n;
  const std::string full = fmt::format("f32[{}]", e), part = fmt::format("f32[{}]", e / n);
  if (kind == "all-reduce") {
    s.types = {full};
    s.body = {fmt::format("r = {} all-reduce(v0), channel_id=1, replica_groups={}, use_global_device_ids=true, to_apply=add", full, groups)};
    s.results = {"r"};
  } else if (kind == "all-gather") {
    s.types = {part, full};
    s.body = {fmt::format("r = {} all-gather(v0), channel_id=1, replica_groups={}, use_global_device_ids=true, dimensions={{0}}", full, groups)};
    s.results = {"v0", "r"};
    s.root = 1;
  } else if (kind == "reduce-scatter") {
    s.types = {full, part};
    s.body = {fmt::format("r = {} reduce-scatter(v0), channel_id=1, replica_groups={}, use_global_device_ids=true, dimensions={{0}}, to_apply=add",
                          part, groups)};
    s.results = {"v0", "r"};
    s.root = 1;
  } else if (kind == "all-to-all") {
    s.types = {full};
    s.body = {fmt::format("r = {} all-to-all(v0), channel_id=1, replica_groups={}, dimensions={{0}}", full, groups)};
    s.results = {"r"};
  } else {  // collective-permute: a ring shift
    std::string pairs = "{";
    for (int64_t d = 0; d < n; ++d) pairs += fmt::format("{}{{{},{}}}", d ? "," : "", d, (d + 1) % n);
    pairs += "}";
    s.types = {full};
    s.body = {fmt::format("r = {} collective-permute(v0), channel_id=1, source_target_pairs={}", full, pairs)};
    s.results = {"r"};
  }
  return s;
}

// Seconds per trip: (t(K) - t(0)) / K, each the faster of two runs, K growing (at most 8x a
// step) until the loop takes at least half of `target` seconds. A first run with one trip warms
// the caches and the kernels up. A loop shorter than the noise of t(0) (a busy machine): the
// whole run per trip is an upper bound.
StatusOr<double> PerTrip(const LoopSpec& spec, const CalibrationOptions& o, double target) {
  ASSIGN_OR_RETURN(Runner runner, Runner::Create(LoopModule(spec), spec.devices, o));
  auto run = [&](int64_t trips) -> StatusOr<double> {
    *runner.argument(0).mutable_data<int32_t>() = static_cast<int32_t>(trips);
    ASSIGN_OR_RETURN(double a, runner.Time());
    ASSIGN_OR_RETURN(double b, runner.Time());
    return std::min(a, b);
  };
  RETURN_IF_ERROR(run(1).status());
  ASSIGN_OR_RETURN(double t0, run(0));
  int64_t trips = 0;
  double loop = 0, last = 0;
  while (trips == 0 || (loop < target / 2 && trips < 1000000)) {
    const double factor = trips == 0 ? 1 : loop > 0 ? std::clamp(target / loop, 2.0, 8.0) : 8.0;
    trips = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(trips * factor)));
    ASSIGN_OR_RETURN(last, run(trips));
    loop = last - t0;
  }
  const double per = loop > 0.05 * last ? loop / trips : last / trips;
  return std::max(per, 1e-9);
}

std::string Size(int64_t b) { return b >= (1 << 20) ? fmt::format("{} MiB", b >> 20) : fmt::format("{} KiB", b >> 10); }

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      size_t colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "unknown CPU";
}

std::string Today() {
  std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&now));
  return buf;
}

const std::vector<std::string>& CollectiveKinds() {
  static const std::vector<std::string> kinds = {"all-reduce", "all-gather", "reduce-scatter", "all-to-all",
                                                 "collective-permute"};
  return kinds;
}

// Measures every kind on groups of 2 and of every device, sizes outermost so that when the
// budget runs short every kind has been measured at the same sizes.
Status MeasureCollectives(const CalibrationOptions& o, Calibration& c) {
  std::vector<int64_t> groups = {2};
  if (!o.quick && o.devices > 2) groups.push_back(o.devices);
  const std::vector<int64_t> sizes = o.quick ? std::vector<int64_t>{4 << 10, 64 << 10, 1 << 20}
                                             : std::vector<int64_t>{4 << 10, 64 << 10, 1 << 20, 16 << 20, 64 << 20};
  const std::vector<std::string>& kinds = CollectiveKinds();
  const double budget = std::max(0.0, o.collective_seconds);
  const double target = budget / (3.0 * kinds.size() * groups.size() * sizes.size());
  const Clock::time_point start = Clock::now();
  // A device holds about three such buffers (operand, result, its argument): stay well inside
  // what the machine has.
  const int64_t available = QueryHostMemory().available_bytes;
  std::map<std::pair<std::string, int64_t>, CollectiveSample> previous;  // (kind, n) -> last point
  for (size_t k = 0; k < sizes.size(); ++k) {
    const int64_t bytes = sizes[k];
    for (int64_t n : groups) {
      for (const std::string& kind : kinds) {
        // A point costs about five runs of its op, which grows with its size from the kind's
        // previous point. The two smallest sizes always run (a fit needs two points per kind).
        auto prev = previous.find({kind, n});
        const double expected =
            prev == previous.end() ? 0 : 5.0 * prev->second.seconds * bytes / prev->second.bytes + target;
        const bool affordable = k < 2 || expected < budget - Since(start);
        if (!affordable || 4.0 * bytes * n > 0.5 * static_cast<double>(available)) {
          c.skipped.push_back(fmt::format("{} {} on {} devices", kind, Size(bytes), n));
          continue;
        }
        ASSIGN_OR_RETURN(double seconds, PerTrip(CollectiveLoop(kind, n, bytes), o, target));
        CollectiveSample s;
        s.kind = kind;
        s.devices = n;
        s.bytes = kind == "all-gather" ? bytes / n : bytes;
        s.seconds = seconds;
        const CollectiveAlgorithm a = ModelledAlgorithm(*OpcodeFromName(kind), n, s.bytes);
        s.steps = a.steps;
        s.wire_bytes = a.wire_bytes;
        c.collectives.push_back(s);
        previous[{kind, n}] = s;
        if (o.progress) o.progress(fmt::format("{} {} on {} devices: {:.2f} us", kind, Size(bytes), n, seconds * 1e6));
      }
    }
  }
  for (const std::string& kind : kinds) {
    std::vector<const CollectiveSample*> mine;
    for (const CollectiveSample& s : c.collectives)
      if (s.kind == kind) mine.push_back(&s);
    if (mine.size() < 2) continue;
    const CollectiveFit f = FitAlphaBeta(mine);
    c.fits[kind] = f;
    if (o.progress)
      o.progress(fmt::format("{}: latency {:.2f} us per step, bandwidth {:.2f} GB/s (max error {:.0f}%)", kind,
                             f.latency * 1e6, f.bandwidth / 1e9, 100 * f.max_error));
  }
  if (!c.fits.count("all-reduce")) return Internal("calibration: the all-reduce points do not fit");
  return absl::OkStatus();
}

}  // namespace

CollectiveFit FitAlphaBeta(const std::vector<const CollectiveSample*>& samples) {
  // Minimise Σ (α·x + γ·y - 1)² with x = steps/t, y = wire/t: the normal equations in (α, γ).
  double a11 = 0, a12 = 0, a22 = 0, b1 = 0, b2 = 0;
  for (const CollectiveSample* s : samples) {
    const double x = s->steps / s->seconds, y = s->wire_bytes / s->seconds;
    a11 += x * x, a12 += x * y, a22 += y * y, b1 += x, b2 += y;
  }
  CollectiveFit f;
  double alpha = 0, gamma = 0;
  const double det = a11 * a22 - a12 * a12;
  if (det > 1e-12 * a11 * a22) {
    alpha = (b1 * a22 - b2 * a12) / det;
    gamma = (a11 * b2 - a12 * b1) / det;
  }
  if (!(alpha > 0) || !(gamma > 0)) {
    // One term alone explains the points better than any positive pair: fit that term alone.
    const double alpha_only = a11 > 0 ? b1 / a11 : 0, gamma_only = a22 > 0 ? b2 / a22 : 0;
    auto error = [&](double a, double g) {
      double e = 0;
      for (const CollectiveSample* s : samples) {
        const double r = (a * s->steps + g * s->wire_bytes) / s->seconds - 1;
        e += r * r;
      }
      return e;
    };
    if (gamma_only > 0 && (!(alpha_only > 0) || error(0, gamma_only) <= error(alpha_only, 0))) {
      alpha = 0, gamma = gamma_only;
      f.note = "latency fitted as 0 (bandwidth explains every point), floored at 1 ns";
    } else {
      alpha = alpha_only, gamma = 0;
      f.note = "bandwidth fitted as unbounded (latency explains every point), capped at 1e15 B/s";
    }
  }
  f.latency = std::max(alpha, 1e-9);
  f.bandwidth = gamma > 1e-15 ? 1.0 / gamma : 1e15;
  for (const CollectiveSample* s : samples) {
    const double predicted = f.latency * s->steps + s->wire_bytes / f.bandwidth;
    f.max_error = std::max(f.max_error, std::fabs(predicted / s->seconds - 1));
  }
  return f;
}

StatusOr<Calibration> CalibrateCpuLocal(const CalibrationOptions& options) {
  const Clock::time_point start = Clock::now();
  Calibration c;
  CalibrationOptions& o = c.options;
  o = options;
  o.devices = std::max<int64_t>(1, o.devices);
  if (o.cores <= 0) o.cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (o.quick) {
    o.repetitions = 1;
    o.min_seconds = std::min(o.min_seconds, 0.02);
  }
  const int64_t n = o.devices;
  auto say = [&](const std::string& line) {
    if (o.progress) o.progress(line);
  };
  // Dots: [256,256] x [256,256] (33.6 MFLOP), and 8x8 ones whose arithmetic is negligible.
  constexpr int64_t kDot = 256;
  auto dot = [](const char* shape) {
    return [shape](int i) {
      return fmt::format("v{} = {} dot(v{}, w), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}", i, shape, i - 1);
    };
  };
  ASSIGN_OR_RETURN(c.dot_seconds, PerOp(o, 4, {"v0 = f32[256,256] parameter(0)", "w = f32[256,256] parameter(1)"},
                                        dot("f32[256,256]")));
  say(fmt::format("dot f32 256^3: {:.3f} ms", c.dot_seconds * 1e3));
  ASSIGN_OR_RETURN(c.bf16_dot_seconds, PerOp(o, 4, {"v0 = bf16[256,256] parameter(0)", "w = bf16[256,256] parameter(1)"},
                                             dot("bf16[256,256]")));
  say(fmt::format("dot bf16 256^3: {:.3f} ms", c.bf16_dot_seconds * 1e3));
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
  say(fmt::format("op overhead: {:.2f} us (negate of 16 elements), dot overhead {:.2f} us (8x8)", c.op_seconds * 1e6,
                  c.small_dot_seconds * 1e6));
  // On 1Mi-element (4 MiB) arrays: add reads two and writes one (memory), a sum reads one
  // (arithmetic: the vector rate); exp and tanh on 256Ki elements (transcendentals).
  constexpr int64_t kElems = int64_t{1} << 20, kTranscendentals = int64_t{1} << 18;
  ASSIGN_OR_RETURN(c.add_seconds, PerOp(o, 8, {"v0 = f32[1048576] parameter(0)", "w = f32[1048576] parameter(1)"},
                                        [](int i) { return fmt::format("v{} = f32[1048576] add(v{}, w)", i, i - 1); }));
  say(fmt::format("add of 4 MiB f32: {:.3f} ms", c.add_seconds * 1e3));
  ASSIGN_OR_RETURN(c.reduce_seconds,
                   PerOp(o, 8, {"v0 = f32[] parameter(0)", "x = f32[1048576] parameter(1)"},
                         [](int i) {
                           return fmt::format("v{} = f32[] reduce(x, v{}), dimensions={{0}}, to_apply=add_f32", i, i - 1);
                         }));
  ASSIGN_OR_RETURN(c.exp_seconds, PerOp(o, 8, {"v0 = f32[262144] parameter(0)"}, [](int i) {
                     // exp(-|x|) stays in (0, 1]: no overflow to inf along the chain.
                     return fmt::format("a{0} = f32[262144] abs(v{1})\n  n{0} = f32[262144] negate(a{0})\n  v{0} = f32[262144] exponential(n{0})", i, i - 1);
                   }));
  ASSIGN_OR_RETURN(c.tanh_seconds, PerOp(o, 8, {"v0 = f32[262144] parameter(0)"}, [](int i) { return Unary("tanh", "f32[262144]", i); }));
  if (n > 1) RETURN_IF_ERROR(MeasureCollectives(o, c));

  // Solve for the profile's figures with the cost model's own formulas (cost/step_time.cc,
  // cost/collectives.cc): op time = overhead + max(FLOPs / rate, bytes / bandwidth).
  HardwareProfile& p = c.profile;
  p.name = "cpu-local";
  p.description = fmt::format("this machine's in-process backend: {} device threads sharing {} cores of {} (interpreter, "
                              "thread communicator), measured by {} ({})",
                              n, o.cores, CpuModel(), o.invocation, o.cpu_clock ? "CPU time of the devices" : "wall clock");
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
  const double size_factor = (kDot + p.matmul_half_size) / kDot;
  p.matmul_flops["f32"] = dot_rate * size_factor;
  p.matmul_flops["bf16"] = size_factor * 2.0 * kDot * kDot * kDot /
                           std::max(c.bf16_dot_seconds - p.op_overhead - p.dot_overhead, floor);
  p.hbm_bandwidth = 12.0 * kElems / std::max(c.add_seconds - p.op_overhead, floor);
  // The sum: one FLOP and 4 bytes per element; its time beyond the bandwidth's is arithmetic.
  p.vector_flops = 1.0 * kElems / std::max(c.reduce_seconds - p.op_overhead, 4.0 * kElems / p.hbm_bandwidth);
  // exp (with the abs and negate that keep it finite: two vectorised ops, timed as add-like
  // memory traffic) and tanh, one evaluation per element each; the rate of their mean.
  const double exp_alone = c.exp_seconds - 2 * (p.op_overhead + 8.0 * kTranscendentals / p.hbm_bandwidth) - p.op_overhead;
  const double per_transcendental = (std::max(exp_alone, floor) + std::max(c.tanh_seconds - p.op_overhead, floor)) / 2;
  p.transcendental_rate = kTranscendentals / per_transcendental;
  // Memory: what the machine (or its cgroup) has, shared by the devices.
  const HostMemory host = QueryHostMemory();
  double memory = static_cast<double>(host.meminfo_total.value_or(host.available_bytes));
  if (host.cgroup_limit) memory = std::min(memory, static_cast<double>(*host.cgroup_limit));
  p.hbm_bytes = memory > 0 ? memory / n : 1e9;
  HardwareProfile::Link link;
  link.name = "threads";
  link.domain_devices = 0;
  if (n > 1) {
    link.latency = c.fits.at("all-reduce").latency;
    link.bandwidth = c.fits.at("all-reduce").bandwidth;
    for (const auto& [kind, f] : c.fits) link.collectives[kind] = {f.bandwidth, f.latency};
  } else {
    link.latency = floor;
    link.bandwidth = p.hbm_bandwidth;
  }
  p.links.push_back(link);
  c.seconds = Since(start);
  say(fmt::format("calibrated in {:.1f} s", c.seconds));
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
  s += fmt::format("  bf16 dot         {:8.2f} GFLOP/s   (256^3 dot: {:.3f} ms)\n", p.MatmulFlops(DType::kBF16) / 1e9,
                   bf16_dot_seconds * 1e3);
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
  s += fmt::format("  link {}: latency {:.2f} us per step, bandwidth {:.2f} GB/s (the all-reduce fit)\n", l.name,
                   l.latency * 1e6, l.bandwidth / 1e9);
  for (const auto& [kind, f] : fits)
    s += fmt::format("    {:<20} latency {:8.2f} us, bandwidth {:7.2f} GB/s, max error {:.0f}%\n", kind, f.latency * 1e6,
                     f.bandwidth / 1e9, 100 * f.max_error);
  return s;
}

std::string Calibration::ProfileJson() const {
  using Json = nlohmann::ordered_json;
  const HardwareProfile& p = profile;
  const std::string where = fmt::format("measured by `{}` on {} ({} cores), {}, {} devices at once, {}", options.invocation,
                                        CpuModel(), options.cores, Today(), options.devices,
                                        options.cpu_clock ? "CPU time of the devices" : "wall clock");
  auto figure = [&](double v, const std::string& what) { return Json{{"value", v}, {"source", where + ": " + what}}; };
  Json j;
  j["name"] = p.name;
  j["description"] = p.description;
  j["matmul_flops_per_second"] = {
      {"f32", figure(p.MatmulFlops(DType::kF32), "chains of f32[256,256] dots, per device, at the kernels' peak (n1/2 removed)")},
      {"bf16", figure(p.MatmulFlops(DType::kBF16), "chains of bf16[256,256] dots, per device, with the f32 dots' n1/2")}};
  j["vector_flops_per_second"] = figure(p.VectorFlops(), "chains of sums of 4 MiB f32 arrays (one FLOP per element)");
  j["transcendentals_per_second"] =
      figure(p.transcendental_rate.value_or(p.VectorFlops()), "chains of exp and tanh on 1 MiB f32 arrays, their mean");
  j["hbm_bytes"] = figure(p.hbm_bytes, "/proc/meminfo MemTotal (or the cgroup's limit) divided among the devices");
  j["hbm_bandwidth_bytes_per_second"] = figure(p.hbm_bandwidth, "chains of adds on 4 MiB f32 arrays (12 bytes per element)");
  j["op_overhead_seconds"] = figure(p.op_overhead, "chains of negate on 16-element arrays: the interpreter's cost per instruction");
  if (p.matmul_half_size > 0)
    j["matmul_half_size"] = figure(p.matmul_half_size, "Hockney's n1/2 from chains of [256,256]x[256,256] and [16,256]x[256,256] dots");
  j["dot_overhead_seconds"] = figure(p.dot_overhead, "chains of 8x8 dots, minus the op overhead");
  j["dot_setup_seconds"] = figure(p.dot_setup, "chains of 8xk dots of distinct shapes, minus an 8x8 dot: the set-up per distinct shape and step");
  const HardwareProfile::Link& l = p.links.front();
  const std::string fit_text = "fitted to t = latency * steps + wire / bandwidth with the cost model's steps and wire bytes";
  Json link = {{"name", l.name}, {"domain_devices", 0}};
  Json per_kind = Json::object();
  for (const auto& [kind, f] : fits) {
    std::string points;
    for (const CollectiveSample& s : collectives)
      if (s.kind == kind) points += fmt::format("{}{} on {}", points.empty() ? "" : ", ", Size(s.bytes), s.devices);
    const std::string how = fmt::format("{} of {} over the thread communicator in while loops, {}; max error {:.0f}%{}",
                                        kind, points, fit_text, 100 * f.max_error, f.note.empty() ? "" : "; " + f.note);
    per_kind[kind] = {{"bandwidth_bytes_per_second", figure(f.bandwidth, how)},
                      {"latency_seconds", figure(f.latency, "as bandwidth_bytes_per_second")}};
  }
  const std::string link_how = fits.empty() ? std::string("one device: no link to measure")
                                            : "the all-reduce fit (see collectives)";
  link["bandwidth_bytes_per_second"] = figure(l.bandwidth, link_how);
  link["latency_seconds"] = figure(l.latency, link_how);
  if (!per_kind.empty()) link["collectives"] = per_kind;
  j["links"] = Json::array({link});
  Json samples = Json::array();
  for (const CollectiveSample& s : collectives)
    samples.push_back({{"kind", s.kind},
                       {"devices", s.devices},
                       {"bytes_per_device", s.bytes},
                       {"seconds", s.seconds},
                       {"steps", s.steps},
                       {"wire_bytes_per_device", s.wire_bytes}});
  j["calibration"] = {{"devices", options.devices}, {"cores", options.cores}, {"cpu_clock", options.cpu_clock},
                      {"quick", options.quick},     {"seconds", seconds},       {"collectives", samples},
                      {"skipped", skipped}};
  return j.dump(2) + "\n";
}

}  // namespace spmdc

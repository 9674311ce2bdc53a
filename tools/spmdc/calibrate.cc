#include "calibrate.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <thread>

#include "cost/cost.h"
#include "cost/hardware.h"
#include "fmt/format.h"
#include "hlo/parser.h"
#include "ir/verifier.h"
#include "nlohmann/json.hpp"
#include "runtime/executor.h"
#include "runtime/host_memory.h"
#include "runtime/host_values.h"

namespace spmdc::cli {
namespace {

using Json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// A per-device module that runs `body` `k` times in a while loop, k being entry parameter 0.
// The loop carries (i, k, values...); `body` reads %v0, %v1, ... and `results` names the new
// values (a %vJ name keeps one unchanged). Entry parameters 1.. are the values' initial values.
struct LoopSpec {
  std::string name;
  int64_t devices = 1;
  std::vector<std::string> types;    // "f32[1024]"
  std::vector<std::string> body;     // instruction lines
  std::vector<std::string> results;  // one per value
  int64_t root = 0;                  // which value the entry returns
};

std::string LoopModule(const LoopSpec& s) {
  std::string tuple = "(s32[], s32[]";
  for (const std::string& t : s.types) tuple += ", " + t;
  tuple += ")";
  std::string text =
      fmt::format("HloModule calibrate_{}, num_partitions={}\n\n", s.name, s.devices);
  text +=
      "add {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, "
      "y)\n}\n\n";
  text += fmt::format(
      "cond {{\n  p = {} parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n"
      "  k = s32[] get-tuple-element(p), index=1\n  ROOT lt = pred[] compare(i, k), "
      "direction=LT\n}}\n\n",
      tuple);
  text += fmt::format("body {{\n  p = {} parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n",
                      tuple);
  text += "  k = s32[] get-tuple-element(p), index=1\n";
  for (size_t v = 0; v < s.types.size(); ++v)
    text += fmt::format("  v{} = {} get-tuple-element(p), index={}\n", v, s.types[v], v + 2);
  text += "  one = s32[] constant(1)\n  i1 = s32[] add(i, one)\n";
  for (const std::string& line : s.body) text += "  " + line + "\n";
  text += fmt::format("  ROOT t = {} tuple(i1, k", tuple);
  for (const std::string& r : s.results) text += ", " + r;
  text += ")\n}\n\n";
  text += "ENTRY e {\n  k = s32[] parameter(0)\n";
  for (size_t v = 0; v < s.types.size(); ++v)
    text += fmt::format("  a{} = {} parameter({})\n", v, s.types[v], v + 1);
  text += fmt::format("  zero = s32[] constant(0)\n  t = {} tuple(zero, k", tuple);
  for (size_t v = 0; v < s.types.size(); ++v) text += fmt::format(", a{}", v);
  text += fmt::format(")\n  w = {} while(t), condition=cond, body=body\n", tuple);
  text += fmt::format("  ROOT r = {} get-tuple-element(w), index={}\n}}\n", s.types[s.root],
                      s.root + 2);
  return text;
}

// One module, its random inputs, run on its devices by the SPMD executor.
class LoopRunner {
 public:
  static StatusOr<std::unique_ptr<LoopRunner>> Create(const LoopSpec& spec) {
    auto r = std::unique_ptr<LoopRunner>(new LoopRunner);
    r->devices_ = spec.devices;
    std::string text = LoopModule(spec);
    ASSIGN_OR_RETURN(r->module_, ParseHloModule(text, "calibrate_" + spec.name));
    RETURN_IF_ERROR(VerifyModule(*r->module_));
    const Computation* entry = r->module_->entry();
    r->args_.emplace_back(Shape(DType::kS32, {}));
    for (int64_t p = 1; p < entry->num_parameters(); ++p)
      r->args_.push_back(RandomLiteral(entry->parameter(p)->shape(), ParameterSeed(1, p)));
    return r;
  }

  // Wall seconds of one run with `trips` loop iterations.
  StatusOr<double> Time(int64_t trips) {
    *args_[0].mutable_data<int32_t>() = static_cast<int32_t>(trips);
    SpmdOptions options;
    options.global_result_shape = module_->entry()->root()->shape();
    Clock::time_point start = Clock::now();
    StatusOr<Literal> result =
        ExecuteSpmd(*module_, devices_, args_, {}, Sharding::Replicate(), options);
    const double seconds = Since(start);
    RETURN_IF_ERROR(result.status());
    return seconds;
  }

 private:
  LoopRunner() = default;
  int64_t devices_ = 1;
  std::unique_ptr<Module> module_;
  std::vector<Literal> args_;
};

struct PerOp {
  double seconds = 0;  // one execution of the measured op, all devices at once
  int64_t trips = 0;
};

// Per-op time: (t(K) − t(0)) / K, each the faster of two runs, K growing (at most 8x a step)
// until the loop takes at least half of `target` seconds. A first run with one trip warms the
// caches and the kernels' primitives (oneDNN creates them on first use).
StatusOr<PerOp> MeasurePerOp(LoopRunner& runner, double target) {
  RETURN_IF_ERROR(runner.Time(1).status());
  ASSIGN_OR_RETURN(double t0a, runner.Time(0));
  ASSIGN_OR_RETURN(double t0b, runner.Time(0));
  const double t0 = std::min(t0a, t0b);
  int64_t trips = 0;
  double loop = 0, last = 0;
  while (trips == 0 || (loop < target / 2 && trips < 1000000)) {
    const double factor = trips == 0 ? 1 : loop > 0 ? std::clamp(target / loop, 2.0, 8.0) : 8.0;
    trips = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(trips * factor)));
    ASSIGN_OR_RETURN(double a, runner.Time(trips));
    ASSIGN_OR_RETURN(double b, runner.Time(trips));
    last = std::min(a, b);
    loop = last - t0;
  }
  // A loop shorter than the noise of t(0) (a busy machine): the whole run is an upper bound.
  const double per = loop > 0.05 * last ? loop / trips : last / trips;
  return PerOp{std::max(per, 1e-9), trips};
}

// The time left to the whole run, and each section's share of it.
class Budget {
 public:
  explicit Budget(double seconds) : start_(Clock::now()), seconds_(seconds) {}
  double elapsed() const { return Since(start_); }
  double left() const { return std::max(0.0, seconds_ - elapsed()); }

 private:
  Clock::time_point start_;
  double seconds_;
};

Json Figure(double value, const std::string& source) {
  return Json{{"value", value}, {"source", source}};
}

std::string Gflops(double f) { return fmt::format("{:.2f} GFLOP/s", f / 1e9); }
std::string Gbs(double b) { return fmt::format("{:.2f} GB/s", b / 1e9); }
std::string Kib(int64_t b) {
  return b >= (1 << 20) ? fmt::format("{} MiB", b >> 20) : fmt::format("{} KiB", b >> 10);
}

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

// One collective measurement and the model's terms for it.
struct Sample {
  std::string kind;
  int64_t devices = 0;
  int64_t bytes = 0;  // the larger buffer of a device (the operand; all-gather: its result)
  double seconds = 0;
  int64_t steps = 0;
  double wire = 0;
};

struct Fit {
  double latency = 0;
  double bandwidth = 0;
  double max_error = 0;  // largest |predicted / measured − 1| over the samples
  std::string note;
};

// α and 1/β minimising Σ ((α·steps + wire/β) / t − 1)²: relative error, so the 4 KiB points
// (latency) weigh as much as the 64 MiB ones (bandwidth).
Fit FitAlphaBeta(const std::vector<const Sample*>& samples) {
  double a11 = 0, a12 = 0, a22 = 0, b1 = 0, b2 = 0;
  for (const Sample* s : samples) {
    const double x = s->steps / s->seconds, y = s->wire / s->seconds;
    a11 += x * x, a12 += x * y, a22 += y * y, b1 += x, b2 += y;
  }
  Fit f;
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
      for (const Sample* s : samples) {
        const double r = (a * s->steps + g * s->wire) / s->seconds - 1;
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
  for (const Sample* s : samples) {
    const double predicted = f.latency * s->steps + s->wire / f.bandwidth;
    f.max_error = std::max(f.max_error, std::fabs(predicted / s->seconds - 1));
  }
  return f;
}

// The module measuring one collective of `kind` on n devices, each holding `bytes` (f32).
LoopSpec CollectiveLoop(const std::string& kind, int64_t n, int64_t bytes) {
  const int64_t e = bytes / 4;
  std::string groups = "{{";
  for (int64_t d = 0; d < n; ++d) groups += (d ? "," : "") + std::to_string(d);
  groups += "}}";
  LoopSpec s;
  s.name = kind;
  s.devices = n;
  const std::string full = fmt::format("f32[{}]", e), part = fmt::format("f32[{}]", e / n);
  if (kind == "all-reduce") {
    s.types = {full};
    s.body = {fmt::format("r = {} all-reduce(v0), channel_id=1, replica_groups={}, to_apply=add",
                          full, groups)};
    s.results = {"r"};
  } else if (kind == "all-gather") {
    s.types = {part, full};
    s.body = {fmt::format(
        "r = {} all-gather(v0), channel_id=1, replica_groups={}, dimensions={{0}}", full, groups)};
    s.results = {"v0", "r"};
    s.root = 1;
  } else if (kind == "reduce-scatter") {
    s.types = {full, part};
    s.body = {
        fmt::format("r = {} reduce-scatter(v0), channel_id=1, replica_groups={}, dimensions={{0}}, "
                    "to_apply=add",
                    part, groups)};
    s.results = {"v0", "r"};
    s.root = 1;
  } else if (kind == "all-to-all") {
    s.types = {full};
    s.body = {fmt::format(
        "r = {} all-to-all(v0), channel_id=1, replica_groups={}, dimensions={{0}}", full, groups)};
    s.results = {"r"};
  } else {  // collective-permute: a ring shift
    std::string pairs = "{";
    for (int64_t d = 0; d < n; ++d)
      pairs += fmt::format("{}{{{},{}}}", d ? "," : "", d, (d + 1) % n);
    pairs += "}";
    s.types = {full};
    s.body = {fmt::format("r = {} collective-permute(v0), channel_id=1, source_target_pairs={}",
                          full, pairs)};
    s.results = {"r"};
  }
  return s;
}

}  // namespace

StatusOr<std::string> CalibrateCpuLocal(const CalibrationOptions& options) {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int64_t devices = options.devices > 0 ? options.devices : std::clamp<int64_t>(cores, 2, 8);
  const bool quick = options.quick;
  // 8% of the limit is kept for what the points' sizing cannot foresee (a busy machine).
  Budget budget(0.92 * options.time_budget_seconds);
  auto say = [&](const std::string& line) {
    if (options.progress) options.progress(line);
  };
  // Per-point loop time: the sections split the budget (dots 25%, memory 15%, collectives 60%),
  // and each point costs about three loop times (the doubled final run plus the probes).
  const double total = 0.92 * options.time_budget_seconds;

  // --- dots ---------------------------------------------------------------------------------
  struct DotPoint {
    std::string dtype;
    int64_t size;
  };
  std::vector<DotPoint> dot_points =
      quick ? std::vector<DotPoint>{{"f32", 128}, {"f32", 256}, {"bf16", 128}}
            : std::vector<DotPoint>{{"f32", 128},  {"f32", 256},  {"f32", 512},
                                    {"f32", 1024}, {"bf16", 256}, {"bf16", 512}};
  const double dot_target = 0.25 * total / (3.0 * dot_points.size());
  std::map<std::string, std::pair<int64_t, double>> matmul;  // dtype -> (largest size, FLOP/s)
  std::map<std::string, std::string> matmul_detail;
  Json dots = Json::array();
  for (const DotPoint& d : dot_points) {
    if (matmul.count(d.dtype) && budget.elapsed() > 0.25 * total)
      continue;  // one point per dtype at least
    const std::string t = fmt::format("{}[{},{}]", d.dtype, d.size, d.size);
    LoopSpec spec;
    spec.name = "dot";
    spec.devices = devices;
    spec.types = {t, t, t};
    spec.body = {fmt::format(
        "d = {} dot(v0, v1), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}", t)};
    spec.results = {"v0", "v1", "d"};
    spec.root = 2;
    ASSIGN_OR_RETURN(auto runner, LoopRunner::Create(spec));
    ASSIGN_OR_RETURN(PerOp op, MeasurePerOp(*runner, dot_target));
    const double flops = 2.0 * d.size * d.size * d.size / op.seconds;
    say(fmt::format("dot {} {}^3: {} per device ({} trips)", d.dtype, d.size, Gflops(flops),
                    op.trips));
    dots.push_back({{"dtype", d.dtype},
                    {"size", d.size},
                    {"seconds", op.seconds},
                    {"flops_per_second", flops}});
    matmul[d.dtype] = {d.size, flops};
    matmul_detail[d.dtype] +=
        fmt::format("{}{}^3 {}", matmul_detail[d.dtype].empty() ? "" : ", ", d.size, Gflops(flops));
  }

  // --- memory bandwidth and vector arithmetic -------------------------------------------------
  const int64_t stream_elems = quick ? (int64_t{4} << 20) : (int64_t{16} << 20);
  const double memory_target = 0.15 * total / 9.0;
  std::vector<std::pair<std::string, double>> streams;  // kernel, bytes/s
  for (const char* kernel : {"add", "negate"}) {
    const std::string t = fmt::format("f32[{}]", stream_elems);
    LoopSpec spec;
    spec.name = kernel;
    spec.devices = devices;
    const bool binary = std::string(kernel) == "add";
    spec.types = binary ? std::vector<std::string>{t, t} : std::vector<std::string>{t};
    spec.body = {binary ? fmt::format("r = {} add(v0, v1)", t)
                        : fmt::format("r = {} negate(v0)", t)};
    spec.results = binary ? std::vector<std::string>{"r", "v1"} : std::vector<std::string>{"r"};
    ASSIGN_OR_RETURN(auto runner, LoopRunner::Create(spec));
    ASSIGN_OR_RETURN(PerOp op, MeasurePerOp(*runner, memory_target));
    const double bytes =
        (binary ? 3.0 : 2.0) * 4 * stream_elems;  // read + written, as the cost model counts
    streams.emplace_back(kernel, bytes / op.seconds);
    say(fmt::format("{} of {} f32: {} read + written per device", kernel, Kib(4 * stream_elems),
                    Gbs(bytes / op.seconds)));
  }
  const double bandwidth = std::sqrt(streams[0].second * streams[1].second);  // geometric mean
  const int64_t vector_elems = 64 << 10;
  double vector_flops = 0;
  {
    const std::string t = fmt::format("f32[{}]", vector_elems);
    LoopSpec spec;
    spec.name = "multiply";
    spec.devices = devices;
    spec.types = {t, t};
    spec.body = {fmt::format("r = {} multiply(v0, v1)", t)};
    spec.results = {"r", "v1"};
    ASSIGN_OR_RETURN(auto runner, LoopRunner::Create(spec));
    ASSIGN_OR_RETURN(PerOp op, MeasurePerOp(*runner, memory_target));
    vector_flops = vector_elems / op.seconds;
    say(fmt::format("multiply of {} f32 (in cache): {} per device", Kib(4 * vector_elems),
                    Gflops(vector_flops)));
  }

  // --- collectives ----------------------------------------------------------------------------
  const std::vector<std::string> kinds = {"all-reduce", "all-gather", "reduce-scatter",
                                          "all-to-all", "collective-permute"};
  std::vector<int64_t> group_sizes = quick ? std::vector<int64_t>{2} : std::vector<int64_t>{2, 4};
  if (!quick && cores >= 8) group_sizes.push_back(8);
  std::vector<int64_t> sizes =
      quick ? std::vector<int64_t>{4 << 10, 64 << 10, 1 << 20}
            : std::vector<int64_t>{4 << 10, 64 << 10, 1 << 20, 16 << 20, 64 << 20};
  // A device holds about three such buffers (operand, result, its argument): stay well inside
  // what the machine has.
  const int64_t available = QueryHostMemory().available_bytes;
  const double collective_target =
      0.6 * total / (3.0 * kinds.size() * group_sizes.size() * sizes.size());
  std::vector<Sample> samples;
  Json sample_json = Json::array();
  std::vector<std::string> skipped;
  // Sizes outermost: when the budget runs short, every kind has been measured at the same sizes.
  std::map<std::pair<std::string, int64_t>, const Sample*>
      previous;  // (kind, n) -> its last sample
  samples.reserve(kinds.size() * group_sizes.size() * sizes.size());
  for (size_t k = 0; k < sizes.size(); ++k) {
    const int64_t bytes = sizes[k];
    for (int64_t n : group_sizes) {
      for (const std::string& kind : kinds) {
        // A point costs about five runs of its op (warm-up, two loops, two overheads), the op
        // growing with its size from the kind's previous point. The smallest two sizes always
        // run (a fit needs two points per kind); larger ones while the budget lasts.
        const Sample* prev = previous[{kind, n}];
        const double expected =
            prev ? 5.0 * prev->seconds * bytes / prev->bytes + collective_target : 0;
        const bool affordable = k < 2 || expected < budget.left() - 0.03 * total;
        if (!affordable || 4.0 * bytes * n > 0.5 * available) {
          skipped.push_back(fmt::format("{} {} on {} devices", kind, Kib(bytes), n));
          continue;
        }
        ASSIGN_OR_RETURN(auto runner, LoopRunner::Create(CollectiveLoop(kind, n, bytes)));
        ASSIGN_OR_RETURN(PerOp op, MeasurePerOp(*runner, collective_target));
        Sample s;
        s.kind = kind;
        s.devices = n;
        s.bytes = bytes;
        s.seconds = op.seconds;
        const int64_t contributed = kind == "all-gather" ? bytes / n : bytes;
        CollectiveAlgorithm a = ModelledAlgorithm(*OpcodeFromName(kind), n, contributed);
        s.steps = a.steps;
        s.wire = a.wire_bytes;
        samples.push_back(s);
        previous[{kind, n}] = &samples.back();
        sample_json.push_back({{"kind", kind},
                               {"devices", n},
                               {"bytes_per_device", contributed},
                               {"seconds", op.seconds},
                               {"steps", s.steps},
                               {"wire_bytes_per_device", s.wire}});
        say(fmt::format("{} {} on {} devices: {:.2f} us", kind, Kib(bytes), n, op.seconds * 1e6));
      }
    }
  }

  // --- the profile ----------------------------------------------------------------------------
  const std::string where =
      fmt::format("measured by `spmdc calibrate{}` on {} ({} cores), {}, {} devices at once",
                  quick ? " --quick" : "", CpuModel(), cores, Today(), devices);
  Json profile;
  profile["name"] = "cpu-local";
  profile["description"] = fmt::format(
      "this machine's in-process backend (spmdc's interpreter on {} device threads, thread "
      "communicator): {}",
      devices, CpuModel());
  Json mm = Json::object();
  for (const auto& [dtype, rate] : matmul)
    mm[dtype] =
        Figure(rate.second, fmt::format("{}: the {} dot kernel at {}^3 per device; all sizes: {}",
                                        where, dtype, rate.first, matmul_detail[dtype]));
  profile["matmul_flops_per_second"] = mm;
  profile["vector_flops_per_second"] =
      Figure(vector_flops,
             fmt::format("{}: f32 multiply of {} elements (cache-resident), one FLOP per element",
                         where, vector_elems));
  HostMemory host = QueryHostMemory();
  double memory = static_cast<double>(host.meminfo_total.value_or(host.available_bytes));
  if (host.cgroup_limit) memory = std::min(memory, static_cast<double>(*host.cgroup_limit));
  profile["hbm_bytes"] = Figure(
      memory / devices, fmt::format("{}: /proc/meminfo MemTotal{} shared by the {} devices", where,
                                    host.cgroup_limit ? " (or the cgroup limit)" : "", devices));
  profile["hbm_bandwidth_bytes_per_second"] = Figure(
      bandwidth,
      fmt::format("{}: geometric mean of add ({}) and negate ({}) over {} f32 arrays, bytes read + "
                  "written per second per device",
                  where, Gbs(streams[0].second), Gbs(streams[1].second), stream_elems));
  Json link;
  link["name"] = "threads";
  link["domain_devices"] = 0;
  std::vector<const Sample*> all;
  for (const Sample& s : samples) all.push_back(&s);
  if (all.empty()) return Internal("calibrate: no collective was measured");
  Fit overall = FitAlphaBeta(all);
  const std::string fit_text =
      "fitted to t = latency * steps + wire / bandwidth with the cost model's steps and wire bytes";
  link["bandwidth_bytes_per_second"] = Figure(
      overall.bandwidth,
      fmt::format("{}: every collective kind together, {}; max error {:.0f}%{}", where, fit_text,
                  100 * overall.max_error, overall.note.empty() ? "" : "; " + overall.note));
  link["latency_seconds"] =
      Figure(overall.latency, fmt::format("{}: as bandwidth_bytes_per_second", where));
  Json per_kind = Json::object();
  for (const std::string& kind : kinds) {
    std::vector<const Sample*> mine;
    for (const Sample& s : samples)
      if (s.kind == kind) mine.push_back(&s);
    if (mine.size() < 2) continue;
    Fit f = FitAlphaBeta(mine);
    std::string sizes_text;
    for (const Sample* s : mine)
      sizes_text +=
          fmt::format("{}{} on {}", sizes_text.empty() ? "" : ", ", Kib(s->bytes), s->devices);
    say(fmt::format("{}: latency {:.2f} us per step, bandwidth {} (max error {:.0f}%)", kind,
                    f.latency * 1e6, Gbs(f.bandwidth), 100 * f.max_error));
    per_kind[kind] = {
        {"bandwidth_bytes_per_second",
         Figure(f.bandwidth,
                fmt::format("{}: {} of {} over the thread communicator, {}; max error {:.0f}%{}",
                            where, kind, sizes_text, fit_text, 100 * f.max_error,
                            f.note.empty() ? "" : "; " + f.note))},
        {"latency_seconds",
         Figure(f.latency, fmt::format("{}: as bandwidth_bytes_per_second", where))}};
  }
  link["collectives"] = per_kind;
  profile["links"] = Json::array({link});
  profile["calibration"] = {{"devices", devices}, {"cores", cores},
                            {"quick", quick},     {"seconds", budget.elapsed()},
                            {"dots", dots},       {"collectives", sample_json},
                            {"skipped", skipped}};
  std::string text = profile.dump(2) + "\n";
  // What `report --hardware` will read must parse.
  RETURN_IF_ERROR(ParseHardwareProfile(text, "cpu-local").status());
  say(fmt::format("calibrated in {:.1f} s", budget.elapsed()));
  return text;
}

}  // namespace spmdc::cli

// Sharding propagation throughput against parsing, on a transformer training step with 2-D
// (data x model) sharding annotations: prints instructions/second for parsing and for
// propagation, their ratio, and the same for modules 10x smaller and 10x larger, with the growth
// of the time from each size to the next. The smallest module (10k instructions by default) fits
// in a 32 MiB L3 cache and the others do not, so the first growth figure also measures the cache;
// the second (large -> 10x large) is the one that shows how the algorithm scales.
// Shared machines are noisy, so the sizes take turns round after round (best round each) and a
// slow spell does not fall on one size only; and every round of a smaller size repeats it (10x,
// 100x) so that each round covers the same work and time as one of the largest. (Taking the best
// of three 0.1 s runs against the best of three 1.5 s ones would compare a quiet moment with an
// average stretch of the machine's noise: the short runs' minimum is the more likely to have
// missed the other tenants.)
// Asserts nothing. Usage: propagation_bench [instructions] [--explain] [--reps N] [--only]
//   instructions: size of the large module (default 100000); --explain also records provenance;
//   --only measures the large module alone (for profiling one size).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench_clock.h"
#include "hlo/parser.h"
#include "models/models.h"
#include "propagation/propagation.h"

namespace {

using spmdc::bench::ThreadCpuSeconds;

struct Figures {
  int64_t instructions = 0;
  double parse_s = 1e30, propagate_s = 1e30;
};

std::string ModuleText(int64_t min_instructions) {
  spmdc::TransformerOptions base;
  base.parallel.data = 2;
  base.parallel.model = 4;
  base.parallel.constrain_activations = true;
  return spmdc::BuildTransformerTrainingStep(spmdc::TransformerOptionsForInstructionCount(min_instructions, base));
}

// One sample: `batch` parses and propagations of `text` (each on a fresh module), timed in total;
// keeps the best sample's time per module in `f`.
void MeasureOnce(const std::string& text, int64_t batch, bool explain, Figures& f) {
  double parse_s = 0, propagate_s = 0;
  for (int64_t b = 0; b < batch; ++b) {
    const double t0 = ThreadCpuSeconds();
    auto module = spmdc::ParseHloModule(text, "transformer");
    const double t1 = ThreadCpuSeconds();
    if (!module.ok()) {
      std::fprintf(stderr, "parse failed: %s\n", std::string(module.status().message()).c_str());
      std::exit(1);
    }
    int64_t n = 0;
    for (spmdc::Computation* c : (*module)->computations()) n += c->instruction_count();
    f.instructions = n;
    spmdc::Provenance provenance;
    const double t2 = ThreadCpuSeconds();
    auto changed = spmdc::PropagateShardings(**module, {}, explain ? &provenance : nullptr);
    const double t3 = ThreadCpuSeconds();
    if (!changed.ok()) {
      std::fprintf(stderr, "propagation failed: %s\n", std::string(changed.status().message()).c_str());
      std::exit(1);
    }
    parse_s += t1 - t0;
    propagate_s += t3 - t2;
  }
  f.parse_s = std::min(f.parse_s, parse_s / batch);
  f.propagate_s = std::min(f.propagate_s, propagate_s / batch);
}

void Print(const char* label, const Figures& f) {
  std::printf("%-6s %8lld instructions  parse %8.1f ms (%6.2f M instr/s)  propagate %8.1f ms (%6.2f M instr/s)  "
              "propagate/parse %.2f\n",
              label, static_cast<long long>(f.instructions), f.parse_s * 1e3, f.instructions / f.parse_s / 1e6,
              f.propagate_s * 1e3, f.instructions / f.propagate_s / 1e6, f.propagate_s / f.parse_s);
}

}  // namespace

int main(int argc, char** argv) {
  int64_t large = 100000;
  bool explain = false;
  int reps = 3;
  bool only = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--explain") == 0) explain = true;
    else if (std::strcmp(argv[i], "--only") == 0) only = true;
    else if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) reps = std::atoi(argv[++i]);
    else large = std::atoll(argv[i]);
  }
  std::printf("sharding propagation vs parse (transformer training step, mesh data=2 x model=4%s), "
              "thread CPU time, best of %d\n",
              explain ? ", with provenance" : "", reps);
  // The sizes take turns, round after round, so that a slow spell of a shared machine does not
  // fall on one size only; each keeps its best round.
  std::vector<int64_t> sizes = only ? std::vector<int64_t>{large} : std::vector<int64_t>{large / 10, large, large * 10};
  std::vector<std::string> texts;
  for (int64_t size : sizes) texts.push_back(ModuleText(size));
  std::vector<Figures> figures(sizes.size());
  // Every sample covers as many instructions as one module of the largest size: a smaller module
  // is parsed and propagated repeatedly within a sample.
  for (int r = 0; r < reps; ++r)
    for (size_t k = 0; k < sizes.size(); ++k)
      MeasureOnce(texts[k], std::max<int64_t>(1, sizes.back() / sizes[k]), explain, figures[k]);
  if (only) {
    Print("only", figures[0]);
    return 0;
  }
  const Figures &small = figures[0], &big = figures[1], &huge = figures[2];
  Print("small", small);
  Print("large", big);
  Print("10x", huge);
  auto growth = [](const char* label, const Figures& a, const Figures& b) {
    std::printf("growth %s: %.1fx instructions -> parse %.1fx time, propagate %.1fx time\n", label,
                static_cast<double>(b.instructions) / a.instructions, b.parse_s / a.parse_s,
                b.propagate_s / a.propagate_s);
  };
  growth("small -> large", small, big);
  growth("large -> 10x  ", big, huge);
  return 0;
}

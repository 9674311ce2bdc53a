// Interpreter throughput against memcpy: elementwise add, convert, broadcast, transpose, slice on
// 64 MiB f32 values. Prints bytes moved (reads + writes) per second and the ratio to memcpy.
// Usage: interpreter_bench [MiB]   (default 64)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "hlo/parser.h"
#include "interpreter/interpreter.h"

namespace {

using Clock = std::chrono::steady_clock;

template <typename F>
double BestSeconds(F&& f, int reps = 7) {
  double best = 1e30;
  for (int i = 0; i < reps; ++i) {
    auto t0 = Clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace spmdc;
  const int64_t mib = argc > 1 ? std::atoll(argv[1]) : 64;
  const int64_t n = mib * (1 << 20) / 4;
  const int64_t bytes = n * 4;

  std::vector<char> src(bytes, 1), dst(bytes, 0);
  const double t_memcpy = BestSeconds([&] { std::memcpy(dst.data(), src.data(), bytes); });
  const double memcpy_bw = 2.0 * bytes / t_memcpy;
  std::printf("memcpy %lld MiB: %.2f ms, %.2f GB/s (read+write)\n", static_cast<long long>(mib),
              t_memcpy * 1e3, memcpy_bw / 1e9);

  const int64_t side = 4096;
  const int64_t rows = n / side;
  struct Case {
    std::string name, body;
    double traffic;  // bytes read + written, in units of `bytes`
  };
  const std::string N = std::to_string(n), R = std::to_string(rows), S = std::to_string(side);
  std::vector<Case> cases = {
      {"add f32", "a = f32[" + N + "] parameter(0)\nb = f32[" + N + "] parameter(1)\nROOT r = f32[" +
                      N + "] add(a, b)", 3.0},
      {"multiply-add f32 (2 ops)",
       "a = f32[" + N + "] parameter(0)\nb = f32[" + N + "] parameter(1)\nm = f32[" + N +
           "] multiply(a, b)\nROOT r = f32[" + N + "] add(m, a)", 6.0},
      {"convert f32->bf16", "a = f32[" + N + "] parameter(0)\nb = f32[" + N +
                                "] parameter(1)\nROOT r = bf16[" + N + "] convert(a)", 1.5},
      {"compare f32", "a = f32[" + N + "] parameter(0)\nb = f32[" + N +
                          "] parameter(1)\nROOT r = pred[" + N + "] compare(a, b), direction=LT", 2.25},
      {"broadcast row", "a = f32[" + N + "] parameter(0)\nb = f32[" + N + "] parameter(1)\nc = f32[" +
                            S + "] slice(a), slice={[0:" + S + "]}\nROOT r = f32[" + R + "," + S +
                            "] broadcast(c), dimensions={1}", 1.0},
      {"transpose 2-D", "a = f32[" + N + "] parameter(0)\nb = f32[" + N + "] parameter(1)\nc = f32[" +
                            R + "," + S + "] reshape(a)\nROOT r = f32[" + S + "," + R +
                            "] transpose(c), dimensions={1,0}", 2.0},
      {"slice stride 2", "a = f32[" + N + "] parameter(0)\nb = f32[" + N + "] parameter(1)\nROOT r = f32[" +
                             std::to_string(n / 2) + "] slice(a), slice={[0:" + N + ":2]}", 1.0},
  };
  std::vector<Literal> args;
  for (int k = 0; k < 2; ++k) {
    Literal l(Shape(DType::kF32, {n}));
    float* p = l.mutable_data<float>();
    for (int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(i % 1000) * 0.5f - k;
    args.push_back(std::move(l));
  }
  for (const Case& c : cases) {
    auto m = ParseHloModule("HloModule b\nENTRY e {\n" + c.body + "\n}\n");
    if (!m.ok()) {
      std::printf("%s: parse error %s\n", c.name.c_str(), std::string(m.status().message()).c_str());
      continue;
    }
    bool ok = true;
    const double t = BestSeconds([&] {
      auto r = Execute(**m, args);
      ok &= r.ok();
    });
    const double bw = c.traffic * bytes / t;
    std::printf("%-26s %8.2f ms  %6.2f GB/s  %5.1f%% of memcpy%s\n", c.name.c_str(), t * 1e3,
                bw / 1e9, 100.0 * bw / memcpy_bw, ok ? "" : "  (FAILED)");
  }
  return 0;
}

// Interpreter kernel benchmarks: the dot and convolution kernels against direct oneDNN calls on
// the same buffers, the same ops through Execute, and an elementwise add through Execute against
// memcpy. Prints figures; asserts nothing.
//
//   interpreter_kernels_bench [--threads N] [--reps R]
#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <utility>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "interpreter/interpreter.h"
#include "interpreter/kernels.h"
#include "ir/module.h"

namespace spmdc {
namespace {

int g_reps = 10;
int g_threads = 0;

// Medians of `f` and `g` timed alternately (so that load changes on a shared machine hit both).
std::pair<double, double> TimePair(const std::function<void()>& f, const std::function<void()>& g) {
  f();
  g();
  std::vector<double> tf, tg;
  for (int i = 0; i < g_reps; ++i) {
    for (int k = 0; k < 2; ++k) {
      const auto& h = k == 0 ? f : g;
      auto a = std::chrono::steady_clock::now();
      h();
      auto b = std::chrono::steady_clock::now();
      (k == 0 ? tf : tg).push_back(std::chrono::duration<double>(b - a).count());
    }
  }
  std::sort(tf.begin(), tf.end());
  std::sort(tg.begin(), tg.end());
  return {tf[tf.size() / 2], tg[tg.size() / 2]};
}

Literal RandomF32(std::vector<int64_t> dims, uint32_t seed) {
  Literal l(Shape(DType::kF32, std::move(dims)));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  float* p = l.mutable_data<float>();
  for (int64_t i = 0; i < l.num_elements(); ++i) p[i] = u(rng);
  return l;
}

KernelContext Ctx() {
  KernelContext ctx;
  ctx.intra_op_threads = g_threads;
  return ctx;
}

void SetOmpThreads() {
  // The kernels set this themselves; the direct calls must run under the same setting.
  KernelContext ctx = Ctx();
  Instruction dummy(Opcode::kDot, Shape(DType::kF32, {}), "warm");
  Literal s(Shape(DType::kF32, {}));
  (void)DotKernel(dummy, s, s, ctx);
}

void Report(const char* what, double flops, double ours, double direct) {
  std::printf("%-44s ours %8.2f ms %7.1f GFLOP/s | direct %8.2f ms %7.1f GFLOP/s | ratio %.2f\n",
              what, ours * 1e3, flops / ours * 1e-9, direct * 1e3, flops / direct * 1e-9,
              direct / ours);
}

// A one-instruction module: entry(params...) -> op(params...).
struct OneOp {
  std::unique_ptr<Module> module = std::make_unique<Module>("bench");
  Computation* entry = nullptr;
  Instruction* op = nullptr;
  OneOp(Opcode opcode, const Shape& out, const std::vector<Shape>& params) {
    entry = module->AddComputation(std::make_unique<Computation>("entry"), true);
    std::vector<Instruction*> ps;
    for (size_t i = 0; i < params.size(); ++i) {
      auto p = std::make_unique<Instruction>(Opcode::kParameter, params[i], "p" + std::to_string(i));
      p->set_parameter_number(static_cast<int64_t>(i));
      ps.push_back(entry->AddInstruction(std::move(p)));
    }
    op = entry->AddInstruction(opcode, out, "op", ps);
    entry->set_root(op);
  }
};

InterpreterOptions Options() {
  InterpreterOptions o;
  o.intra_op_threads = g_threads;
  return o;
}

// ---- dot --------------------------------------------------------------------------------------
void BenchDot(int64_t B, int64_t M, int64_t K, int64_t N) {
  using namespace dnnl;
  std::vector<int64_t> ld = {M, K}, rd = {K, N}, od = {M, N};
  if (B > 1) {
    ld.insert(ld.begin(), B);
    rd.insert(rd.begin(), B);
    od.insert(od.begin(), B);
  }
  Literal lhs = RandomF32(ld, 1), rhs = RandomF32(rd, 2);
  OneOp m(Opcode::kDot, Shape(DType::kF32, od), {lhs.shape(), rhs.shape()});
  m.op->attrs().Set(AttrId::kLhsContractingDims, std::vector<int64_t>{B > 1 ? 2 : 1});
  m.op->attrs().Set(AttrId::kRhsContractingDims, std::vector<int64_t>{B > 1 ? 1 : 0});
  if (B > 1) {
    m.op->attrs().Set(AttrId::kLhsBatchDims, std::vector<int64_t>{0});
    m.op->attrs().Set(AttrId::kRhsBatchDims, std::vector<int64_t>{0});
  }
  KernelContext ctx = Ctx();
  engine eng(engine::kind::cpu, 0);
  stream s(eng);
  memory::desc a_md({B, M, K}, memory::data_type::f32, memory::format_tag::abc);
  memory::desc b_md({B, K, N}, memory::data_type::f32, memory::format_tag::abc);
  memory::desc c_md({B, M, N}, memory::data_type::f32, memory::format_tag::abc);
  matmul prim(matmul::primitive_desc(matmul::desc(a_md, b_md, c_md), eng));
  std::vector<float> out(B * M * N);
  memory am(a_md, eng, const_cast<float*>(lhs.data<float>()));
  memory bm(b_md, eng, const_cast<float*>(rhs.data<float>()));
  memory cm(c_md, eng, out.data());
  auto [ours, direct] = TimePair([&] { (void)DotKernel(*m.op, lhs, rhs, ctx); },
                                 [&] {
                                   prim.execute(s, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm},
                                                    {DNNL_ARG_DST, cm}});
                                   s.wait();
                                 });
  const double flops = 2.0 * B * M * N * K;
  char name[96];
  std::snprintf(name, sizeof name, "dot f32 %ldx%ldx%ldx%ld (kernel)", (long)B, (long)M, (long)K,
                (long)N);
  Report(name, flops, ours, direct);
  auto probe = Execute(*m.module, {lhs, rhs}, nullptr, Options());
  if (probe.ok()) {
    auto [exec, direct2] = TimePair(
        [&] { (void)Execute(*m.module, {lhs, rhs}, nullptr, Options()); },
        [&] {
          prim.execute(s, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}});
          s.wait();
        });
    std::snprintf(name, sizeof name, "dot f32 %ldx%ldx%ldx%ld (Execute)", (long)B, (long)M,
                  (long)K, (long)N);
    Report(name, flops, exec, direct2);
  } else {
    std::printf("  Execute(dot) unavailable: %s\n", std::string(probe.status().message()).c_str());
  }
}

// ---- convolution -------------------------------------------------------------------------------
void BenchConv(int64_t N, int64_t H, int64_t W, int64_t C, int64_t O, int64_t k) {
  using namespace dnnl;
  Literal x = RandomF32({N, H, W, C}, 3), w = RandomF32({k, k, C, O}, 4);
  OneOp m(Opcode::kConvolution, Shape(DType::kF32, {N, H, W, O}), {x.shape(), w.shape()});
  ConvDims dn;  // b01f_01io->b01f
  dn.input_batch = 0; dn.input_feature = 3; dn.input_spatial = {1, 2};
  dn.kernel_input_feature = 2; dn.kernel_output_feature = 3; dn.kernel_spatial = {0, 1};
  dn.output_batch = 0; dn.output_feature = 3; dn.output_spatial = {1, 2};
  m.op->attrs().Set(AttrId::kDimLabels, dn);
  Window win;
  WindowDim wd;
  wd.size = k; wd.padding_low = wd.padding_high = k / 2;
  win.dims = {wd, wd};
  m.op->attrs().Set(AttrId::kWindow, win);
  KernelContext ctx = Ctx();

  // Direct: NHWC src/dst as given, HWIO weights reordered once (outside the timing) into the
  // primitive's preferred layout.
  engine eng(engine::kind::cpu, 0);
  stream s(eng);
  auto f32 = memory::data_type::f32;
  memory::desc src_md({N, C, H, W}, f32, memory::format_tag::nhwc);
  memory::desc dst_md({N, O, H, W}, f32, memory::format_tag::nhwc);
  memory::desc wei_user({O, C, k, k}, f32, memory::format_tag::hwio);
  memory::desc wei_any({O, C, k, k}, f32, memory::format_tag::any);
  convolution_forward::desc cd(prop_kind::forward_inference, algorithm::convolution_direct, src_md,
                               wei_any, dst_md, {1, 1}, {k / 2, k / 2}, {k / 2, k / 2});
  convolution_forward::primitive_desc pd(cd, eng);
  std::vector<float> out(N * H * W * O);
  memory src(src_md, eng, const_cast<float*>(x.data<float>()));
  memory dst(dst_md, eng, out.data());
  memory wu(wei_user, eng, const_cast<float*>(w.data<float>()));
  memory wp(pd.weights_desc(), eng);
  reorder(wu, wp).execute(s, wu, wp);
  s.wait();
  convolution_forward prim(pd);
  auto [ours, direct] = TimePair([&] { (void)ConvolutionKernel(*m.op, x, w, ctx); },
                                 [&] {
                                   prim.execute(s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wp},
                                                    {DNNL_ARG_DST, dst}});
                                   s.wait();
                                 });
  const double flops = 2.0 * N * H * W * O * C * k * k;
  char name[96];
  std::snprintf(name, sizeof name, "conv f32 N%ld %ldx%ld %ld->%ld %ldx%ld (kernel)", (long)N,
                (long)H, (long)W, (long)C, (long)O, (long)k, (long)k);
  Report(name, flops, ours, direct);
  std::printf("  oneDNN implementation: %s\n", pd.impl_info_str());
  auto probe = Execute(*m.module, {x, w}, nullptr, Options());
  if (probe.ok()) {
    auto [exec, direct2] = TimePair(
        [&] { (void)Execute(*m.module, {x, w}, nullptr, Options()); },
        [&] {
          prim.execute(s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wp}, {DNNL_ARG_DST, dst}});
          s.wait();
        });
    std::snprintf(name, sizeof name, "conv f32 N%ld %ldx%ld %ld->%ld (Execute)", (long)N, (long)H,
                  (long)W, (long)C, (long)O);
    Report(name, flops, exec, direct2);
  } else {
    std::printf("  Execute(conv) unavailable: %s\n", std::string(probe.status().message()).c_str());
  }
}

// ---- elementwise through Execute ----------------------------------------------------------------
void BenchAdd() {
  const int64_t n = (int64_t{64} << 20) / 4;  // 64 MiB of f32 per operand
  Literal a = RandomF32({n}, 5), b = RandomF32({n}, 6);
  OneOp m(Opcode::kAdd, Shape(DType::kF32, {n}), {a.shape(), b.shape()});
  auto probe = Execute(*m.module, {a, b}, nullptr, Options());
  if (!probe.ok()) {
    std::printf("add via Execute unavailable: %s\n", std::string(probe.status().message()).c_str());
    return;
  }
  std::vector<float> dst(n);
  auto [exec, copy] = TimePair([&] { (void)Execute(*m.module, {a, b}, nullptr, Options()); },
                               [&] { std::memcpy(dst.data(), a.data<float>(), n * 4); });
  // Bytes moved: add reads 2 and writes 1 array; memcpy reads 1 and writes 1.
  std::printf("%-44s Execute %8.2f ms %6.1f GB/s | memcpy %8.2f ms %6.1f GB/s | time ratio %.2f\n",
              "add f32 64 MiB (Execute vs memcpy)", exec * 1e3, 3.0 * n * 4 / exec * 1e-9,
              copy * 1e3, 2.0 * n * 4 / copy * 1e-9, exec / copy);
}

}  // namespace
}  // namespace spmdc

int main(int argc, char** argv) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--threads") spmdc::g_threads = std::atoi(argv[++i]);
    else if (std::string(argv[i]) == "--reps") spmdc::g_reps = std::atoi(argv[++i]);
  }
  spmdc::SetOmpThreads();
  std::printf("interpreter kernels vs direct oneDNN (median of %d; threads=%d, 0 = all)\n",
              spmdc::g_reps, spmdc::g_threads);
  spmdc::BenchDot(1, 1024, 1024, 1024);
  spmdc::BenchDot(16, 256, 512, 256);
  spmdc::BenchConv(8, 56, 56, 64, 64, 3);
  spmdc::BenchAdd();
  return 0;
}

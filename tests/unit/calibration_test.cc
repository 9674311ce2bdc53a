// runtime/calibration.h: the cpu-local profile it measures is complete and positive, its JSON
// is read back by the profile parser as the same figures, and the cost model charges its
// per-instruction overheads. (How well the profile predicts steps is bench/cost_model_bench's
// question: timings are not test assertions on a shared machine.)
#include "runtime/calibration.h"

#include "cost/cost.h"
#include "gtest/gtest.h"
#include "hlo/parser.h"

namespace spmdc {
namespace {

TEST(CalibrationTest, ProfileIsCompleteAndRoundTripsThroughJson) {
  CalibrationOptions o;
  o.devices = 2;
  o.quick = true;
  o.collective_seconds = 2;
  StatusOr<Calibration> c = CalibrateCpuLocal(o);
  ASSERT_TRUE(c.ok()) << c.status();
  const HardwareProfile& p = c->profile;
  EXPECT_EQ(p.name, "cpu-local");
  EXPECT_GT(p.MatmulFlops(DType::kF32), 0);
  EXPECT_GT(p.VectorFlops(), 0);
  ASSERT_TRUE(p.transcendental_rate.has_value());
  EXPECT_GT(*p.transcendental_rate, 0);
  EXPECT_GT(p.hbm_bandwidth, 0);
  EXPECT_GT(p.hbm_bytes, 0);
  EXPECT_GT(p.op_overhead, 0);
  ASSERT_EQ(p.links.size(), 1u);
  EXPECT_EQ(p.links[0].domain_devices, 0);
  EXPECT_GT(p.links[0].bandwidth, 0);
  EXPECT_GT(p.links[0].latency, 0);
  EXPECT_GT(p.MatmulFlops(DType::kBF16), 0);
  // Every collective kind was measured at two sizes at least and has its own fit.
  for (const char* kind : {"all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute"}) {
    ASSERT_TRUE(p.links[0].collectives.count(kind)) << kind;
    EXPECT_GT(p.links[0].collectives.at(kind).bandwidth, 0) << kind;
    EXPECT_GT(p.links[0].collectives.at(kind).latency, 0) << kind;
  }
  EXPECT_NE(c->Summary().find("f32 dot"), std::string::npos);

  StatusOr<HardwareProfile> back = ParseHardwareProfile(c->ProfileJson(), "cpu-local.json");
  ASSERT_TRUE(back.ok()) << back.status() << "\n" << c->ProfileJson();
  EXPECT_EQ(back->name, p.name);
  EXPECT_DOUBLE_EQ(back->MatmulFlops(DType::kF32), p.MatmulFlops(DType::kF32));
  EXPECT_DOUBLE_EQ(back->VectorFlops(), p.VectorFlops());
  EXPECT_DOUBLE_EQ(*back->transcendental_rate, *p.transcendental_rate);
  EXPECT_DOUBLE_EQ(back->hbm_bandwidth, p.hbm_bandwidth);
  EXPECT_DOUBLE_EQ(back->op_overhead, p.op_overhead);
  EXPECT_DOUBLE_EQ(back->dot_overhead, p.dot_overhead);
  EXPECT_DOUBLE_EQ(back->dot_setup, p.dot_setup);
  EXPECT_DOUBLE_EQ(back->matmul_half_size, p.matmul_half_size);
  EXPECT_DOUBLE_EQ(back->links[0].latency, p.links[0].latency);
  EXPECT_DOUBLE_EQ(back->links[0].bandwidth, p.links[0].bandwidth);
  EXPECT_DOUBLE_EQ(back->MatmulFlops(DType::kBF16), p.MatmulFlops(DType::kBF16));
  for (const auto& [kind, f] : p.links[0].collectives) {
    ASSERT_TRUE(back->links[0].collectives.count(kind)) << kind;
    EXPECT_DOUBLE_EQ(back->links[0].collectives.at(kind).bandwidth, f.bandwidth) << kind;
    EXPECT_DOUBLE_EQ(back->links[0].collectives.at(kind).latency, f.latency) << kind;
  }
}

// Points made from known α and β are fitted back exactly; points bandwidth alone explains get
// the latency floor (1 ns), never a negative latency.
TEST(CalibrationTest, FitAlphaBetaRecoversTheModel) {
  const double alpha = 3e-6, beta = 2e9;
  std::vector<CollectiveSample> points;
  for (int64_t steps : {2, 6, 14})
    for (double wire : {4e3, 1e6, 6e7}) points.push_back({"all-reduce", 4, 0, alpha * steps + wire / beta, steps, wire});
  std::vector<const CollectiveSample*> all;
  for (const CollectiveSample& p : points) all.push_back(&p);
  CollectiveFit f = FitAlphaBeta(all);
  EXPECT_NEAR(f.latency / alpha, 1, 1e-9);
  EXPECT_NEAR(f.bandwidth / beta, 1, 1e-9);
  EXPECT_LT(f.max_error, 1e-9);
  EXPECT_TRUE(f.note.empty());

  for (CollectiveSample& p : points) p.seconds = p.wire_bytes / beta;  // no latency at all
  f = FitAlphaBeta(all);
  EXPECT_NEAR(f.bandwidth / beta, 1, 1e-6);
  EXPECT_DOUBLE_EQ(f.latency, 1e-9);
}

TEST(CalibrationTest, StepTimeChargesOverheadsAndTranscendentalRate) {
  auto m = ParseHloModule(R"(
HloModule overheads
ENTRY e {
  x = f32[4] parameter(0)
  w = f32[4,4] parameter(1)
  a = f32[4] negate(x)
  b = f32[4] tanh(a)
  d = f32[4] dot(b, w), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  e = f32[4] dot(a, w), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  ROOT t = (f32[4], f32[4]) tuple(d, e)
}
)", "overheads");
  ASSERT_TRUE(m.ok()) << m.status();
  HardwareProfile hw;
  hw.name = "toy";
  hw.matmul_flops["f32"] = 1e12;
  hw.vector_flops = 1e12;
  hw.transcendental_rate = 1.0;  // one tanh per second: 4 seconds for b
  hw.hbm_bytes = 1e9;
  hw.hbm_bandwidth = 1e15;
  hw.op_overhead = 1e-3;
  hw.dot_overhead = 0.5;
  hw.dot_setup = 2.0;
  hw.links.push_back({"link", 0, 1e9, 1e-6});
  CostOptions o;
  o.num_partitions = 1;
  StepTime t = EstimateStepTime(**m, o, hw);
  // Five executed instructions (parameters are bound, not run): 5 ms of overhead; two dots of
  // half a second each plus one kernel set-up (both dots have the same shapes); four tanh
  // evaluations at one per second; the rest negligible.
  EXPECT_NEAR(t.serial_seconds, 5e-3 + 2 * 0.5 + 2.0 + 4.0, 1e-6);
  EXPECT_NEAR(t.compute_seconds, t.serial_seconds, 1e-9);
  // Without a transcendental rate tanh's 10 FLOPs per element run at vector_flops.
  hw.transcendental_rate.reset();
  EXPECT_NEAR(EstimateStepTime(**m, o, hw).serial_seconds, 5e-3 + 2 * 0.5 + 2.0, 1e-6);
  // Hockney's n½: a dot's rate at its smallest dim m = 1 (no lhs free dims) is peak/(1 + n½).
  hw.matmul_flops["f32"] = 32.0;  // each dot is 2·4·4 = 32 FLOPs: one second at the peak
  hw.matmul_half_size = 1.0;
  EXPECT_NEAR(EstimateStepTime(**m, o, hw).serial_seconds, 5e-3 + 2 * (0.5 + 2.0) + 2.0, 1e-6);
}

}  // namespace
}  // namespace spmdc

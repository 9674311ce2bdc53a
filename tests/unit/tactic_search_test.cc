// The tactic search of `spmdc auto --search mcts` (src/auto/tactic_search.h): it finds the
// known-best plans of small cases (Megatron's column/row pairs under a memory limit), groups a
// weight with its optimizer state and update, keeps annotations as constraints, is deterministic,
// and fails as the ILP search does when no plan fits.
#include "auto/plan.h"
#include "auto/strategy_space.h"
#include "cost/hardware.h"
#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "hlo/printer.h"
#include "models/examples.h"

namespace spmdc::autoshard {
namespace {

Mesh M(const char* text) { return *Mesh::Parse(text); }

const HardwareProfile& H100() {
  static const HardwareProfile hw = *LoadHardwareProfile("h100");
  return hw;
}

std::unique_ptr<Module> Parse(const std::string& text) {
  auto m = ParseHloModule(text);
  EXPECT_TRUE(m.ok()) << m.status().message();
  return std::move(*m);
}

PlanOptions Options(const char* mesh, std::optional<int64_t> limit, SearchKind search = SearchKind::kMcts) {
  PlanOptions o(M(mesh));
  o.hardware = &H100();
  o.memory_limit = limit;
  o.time_limit_s = 600;  // the work limit ends every search here
  o.standard_plans = false;
  o.search = search;
  return o;
}

// The split the plan gives entry parameter `name`, as masks over the mesh.
AxisMasks ParameterSplit(const Module& module, const PricedPlan& plan, const Mesh& mesh, const std::string& name) {
  const Computation& entry = *module.entry();
  for (int64_t i = 0; i < entry.num_parameters(); ++i) {
    if (entry.parameter(i)->name() != name) continue;
    std::optional<AxisMasks> m =
        MasksFromSharding(mesh, plan.parameter_shardings.at(i), entry.parameter(i)->shape().rank());
    EXPECT_TRUE(m.has_value()) << name;
    return m.value_or(AxisMasks{});
  }
  ADD_FAILURE() << "no parameter " << name;
  return {};
}

// Two MLP layers, forward only, with weights that fit the limit only when every one is split
// and a batch too small for data parallelism to pay: Megatron's column-parallel w1, w3 and
// row-parallel w2, w4 (one all-reduce of the [8, 512] output per layer) are the best plan.
constexpr const char* kTwoMlps = R"(HloModule two_mlps
ENTRY e {
  x = f32[8,512] parameter(0)
  w1 = f32[512,2048] parameter(1)
  w2 = f32[2048,512] parameter(2)
  w3 = f32[512,2048] parameter(3)
  w4 = f32[2048,512] parameter(4)
  h1 = f32[8,2048] dot(x, w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  z = f32[] constant(0)
  zb = f32[8,2048] broadcast(z), dimensions={}
  r1 = f32[8,2048] maximum(h1, zb)
  y1 = f32[8,512] dot(r1, w2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  h2 = f32[8,2048] dot(y1, w3), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  r2 = f32[8,2048] maximum(h2, zb)
  ROOT y2 = f32[8,512] dot(r2, w4), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)";

TEST(TacticSearch, FindsMegatronPairsUnderAMemoryLimit) {
  auto m = Parse(kTwoMlps);
  const Mesh mesh = M("model=8");
  // 4 weights of 4 MiB: replicated they need 16 MiB; split 8 ways, 2 MiB.
  auto r = PlanAuto(*m, Options("model=8", int64_t{3} << 20));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r->tactic_stats.has_value());
  EXPECT_TRUE(r->search.fits);
  const uint32_t model = 1;
  EXPECT_EQ(ParameterSplit(*m, r->search, mesh, "w1"), (AxisMasks{0, model}));
  EXPECT_EQ(ParameterSplit(*m, r->search, mesh, "w2"), (AxisMasks{model, 0}));
  EXPECT_EQ(ParameterSplit(*m, r->search, mesh, "w3"), (AxisMasks{0, model}));
  EXPECT_EQ(ParameterSplit(*m, r->search, mesh, "w4"), (AxisMasks{model, 0}));
  EXPECT_EQ(ParameterSplit(*m, r->search, mesh, "x"), (AxisMasks{0, 0}));
  // As fast as the ILP's plan (whose CBC proof makes it the optimum of the strategy space).
  auto ilp = PlanAuto(*m, Options("model=8", int64_t{3} << 20, SearchKind::kIlp));
  ASSERT_TRUE(ilp.ok()) << ilp.status().message();
  EXPECT_LE(r->search.step_seconds, ilp->search.step_seconds * (1 + 1e-6));
  // The explanation: one tactic for the column-parallel weights (w1 and w3 have one role);
  // propagation infers the row-parallel ones.
  EXPECT_EQ(r->tactics, std::vector<std::string>{"w1[1] -> model (with w3)"});
}

TEST(TacticSearch, ZooMlpIsMegatronAndMatchesTheIlp) {
  auto m = Parse(*BuildExample("mlp"));
  const Mesh mesh = M("model=8");
  auto r = PlanAuto(*m, Options("model=8", int64_t{1} << 20));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->search.fits);
  EXPECT_TRUE(r->tactic_stats->exhausted);  // 4 parameters on one axis: every set visited
  EXPECT_EQ(ParameterSplit(*m, r->search, mesh, "w0.2"), (AxisMasks{0, 1}));
  EXPECT_EQ(ParameterSplit(*m, r->search, mesh, "w1.3"), (AxisMasks{1, 0}));
  auto ilp = PlanAuto(*m, Options("model=8", int64_t{1} << 20, SearchKind::kIlp));
  ASSERT_TRUE(ilp.ok()) << ilp.status().message();
  EXPECT_NEAR(r->search.step_seconds, ilp->search.step_seconds, 1e-3 * ilp->search.step_seconds);
}

TEST(TacticSearch, DeterministicForAWorkLimit) {
  auto m = Parse(*BuildExample("transformer"));
  PlanOptions o = Options("data=2,model=4", int64_t{1200} << 10);
  o.work_limit = 300;
  auto a = PlanAuto(*m, o);
  auto b = PlanAuto(*m, o);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->tactics, b->tactics);
  EXPECT_GE(a->tactic_stats->states, 300);
  EXPECT_EQ(a->tactic_stats->states, b->tactic_stats->states);
  EXPECT_EQ(a->tactic_stats->playouts, b->tactic_stats->playouts);
  EXPECT_EQ(a->search.step_seconds, b->search.step_seconds);
  EXPECT_EQ(PrintModule(*a->search.annotated), PrintModule(*b->search.annotated));
}

// Adam: the weight, its two moments and their updates move together (one group, one decision),
// and the outputs come out as the parameters go in.
TEST(TacticSearch, GroupsAWeightWithItsOptimizerState) {
  auto m = Parse(R"(HloModule adam
ENTRY e {
  x = f32[8,1024] parameter(0)
  w = f32[1024,1024] parameter(1)
  mw = f32[1024,1024] parameter(2)
  vw = f32[1024,1024] parameter(3)
  y = f32[8,1024] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  g = f32[1024,1024] dot(x, y), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  m2 = f32[1024,1024] add(mw, g)
  g2 = f32[1024,1024] multiply(g, g)
  v2 = f32[1024,1024] add(vw, g2)
  s = f32[1024,1024] sqrt(v2)
  u = f32[1024,1024] divide(m2, s)
  w2 = f32[1024,1024] subtract(w, u)
  ROOT t = (f32[1024,1024], f32[1024,1024], f32[1024,1024]) tuple(w2, m2, v2)
}
)");
  const Mesh mesh = M("a=8");
  // 3 x 4 MiB of state: it fits only split.
  auto r = PlanAuto(*m, Options("a=8", int64_t{8} << 20));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->search.fits);
  ASSERT_FALSE(r->tactics.empty());
  EXPECT_NE(r->tactics[0].find("(with mw, vw)"), std::string::npos) << r->tactics[0];
  const AxisMasks w = ParameterSplit(*m, r->search, mesh, "w");
  EXPECT_NE(w, (AxisMasks{0, 0}));
  EXPECT_EQ(ParameterSplit(*m, r->search, mesh, "mw"), w);
  EXPECT_EQ(ParameterSplit(*m, r->search, mesh, "vw"), w);
  ASSERT_TRUE(r->search.result_sharding.IsTuple());
  for (const Sharding& out : r->search.result_sharding.tuple_elements())
    EXPECT_EQ(MasksFromSharding(mesh, out, 2), w) << out.ToString();
}

TEST(TacticSearch, AnnotationsAreConstraints) {
  std::string text = kTwoMlps;
  text.replace(text.find("x = f32[8,512] parameter(0)"), 27,
               "x = f32[8,512] parameter(0), sharding={devices=[2,1,4]<=[8] last_tile_dim_replicate}");
  auto m = Parse(text);
  const Mesh mesh = M("data=2,model=4");
  auto kept = PlanAuto(*m, Options("data=2,model=4", int64_t{6} << 20));
  ASSERT_TRUE(kept.ok()) << kept.status().message();
  EXPECT_EQ(ParameterSplit(*m, kept->search, mesh, "x"), (AxisMasks{1, 0}));
  for (const std::string& t : kept->tactics) EXPECT_EQ(t.rfind("x[", 0), std::string::npos) << t;
  PlanOptions o = Options("data=2,model=4", int64_t{6} << 20);
  o.keep_annotations = false;
  auto dropped = PlanAuto(*m, o);
  ASSERT_TRUE(dropped.ok()) << dropped.status().message();
  EXPECT_TRUE(dropped->search.fits);
}

TEST(TacticSearch, NoPlanFitsAsWithTheIlp) {
  auto m = Parse(*BuildExample("mlp"));
  auto r = PlanAuto(*m, Options("data=8", 1000));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(std::string(r.status().message()).find("no plan fits in 1000 B: the smallest needs"), std::string::npos);
}

}  // namespace
}  // namespace spmdc::autoshard

// The strategy space of `spmdc auto` (src/auto/strategy_space.h) and the plans built on it
// (src/auto/plan.h): enumeration, operand splits from the rules, costs, annotations as
// constraints, and the zoo's auto plans against the standard ones.
#include <cmath>

#include "auto/plan.h"
#include "auto/strategy_space.h"
#include "cost/hardware.h"
#include "gtest/gtest.h"
#include "hlo/parser.h"
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

constexpr const char* kMatmul = R"(HloModule m
ENTRY e {
  x = f32[64,256] parameter(0)
  w = f32[256,512] parameter(1)
  ROOT d = f32[64,512] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)";

StrategySpace Build(const Module& m, const Mesh& mesh, bool keep = true) {
  StrategySpaceOptions o(mesh);
  o.hardware = &H100();
  o.keep_annotations = keep;
  auto s = BuildStrategySpace(m, o);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return std::move(*s);
}

const StrategyNode& NodeOf(const StrategySpace& s, const std::string& name) {
  for (const StrategyNode& n : s.nodes)
    if (n.instr->name() == name) return n;
  ADD_FAILURE() << "no node " << name;
  return s.nodes.front();
}

TEST(StrategySpace, DotSplitsBatchFreeAndContractingDims) {
  auto m = Parse(kMatmul);
  const StrategySpace s = Build(*m, M("a=8"));
  const StrategyNode& d = NodeOf(s, "d");
  // Axis a on nothing, output dim 0, output dim 1 or the contracting dim.
  ASSERT_EQ(d.strategies.size(), 4u);
  bool saw_contracting = false, saw_batch = false;
  for (const Strategy& st : d.strategies) {
    if (st.partial_axes) {
      saw_contracting = true;
      EXPECT_EQ(st.output, (AxisMasks{0, 0}));
      EXPECT_EQ(st.operands[0], (AxisMasks{0, 1}));
      EXPECT_EQ(st.operands[1], (AxisMasks{1, 0}));
      EXPECT_GT(st.communication_seconds, 0);  // the all-reduce of the partial sums
    } else if (st.output == AxisMasks{1, 0}) {
      saw_batch = true;
      EXPECT_EQ(st.operands[0], (AxisMasks{1, 0}));
      EXPECT_EQ(st.operands[1], (AxisMasks{0, 0}));
      EXPECT_EQ(st.communication_seconds, 0);
      EXPECT_EQ(st.bytes, 64 * 512 * 4 / 8);
    }
  }
  EXPECT_TRUE(saw_contracting);
  EXPECT_TRUE(saw_batch);
  // Parameters: every split of their dims.
  EXPECT_EQ(NodeOf(s, "x").strategies.size(), 3u);
}

TEST(StrategySpace, TwoAxesAndDivisibility) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  p = f32[6,16] parameter(0)
  ROOT n = f32[6,16] negate(p)
})");
  const StrategySpace s = Build(*m, M("a=2,b=4"));
  // dim 0 (6) takes a only; dim 1 (16) takes a, b or both: {none, a->0, a->1} x {none, b->1}.
  EXPECT_EQ(NodeOf(s, "n").strategies.size(), 6u);
  // Elementwise: the operand must have the result's split (propagation's rule).
  for (const Strategy& st : NodeOf(s, "n").strategies) EXPECT_EQ(st.operands[0], st.output);
}

TEST(StrategySpace, TransposeOperandSplitComesFromTheRule) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  p = f32[8,16] parameter(0)
  ROOT t = f32[16,8] transpose(p), dimensions={1,0}
})");
  const StrategySpace s = Build(*m, M("a=4"));
  for (const Strategy& st : NodeOf(s, "t").strategies)
    EXPECT_EQ(st.operands[0], (AxisMasks{st.output[1], st.output[0]}));
}

TEST(StrategySpace, ReduceOverASplitDimIsAPartialSum) {
  auto m = Parse(R"(HloModule m
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
ENTRY e {
  p = f32[8,16] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[16] reduce(p, z), dimensions={0}, to_apply=add
})");
  const StrategySpace s = Build(*m, M("a=4"));
  const StrategyNode& r = NodeOf(s, "r");
  ASSERT_EQ(r.strategies.size(), 3u);
  int partial = 0;
  for (const Strategy& st : r.strategies)
    if (st.partial_axes) {
      ++partial;
      EXPECT_EQ(st.operands[0], (AxisMasks{1, 0}));
      EXPECT_EQ(st.output, (AxisMasks{0}));
    }
  EXPECT_EQ(partial, 1);
}

// Convolutions take the einsum view (as the partitioner does): a batch-split forward conv needs its
// input split on the batch (propagation's backward rule says nothing for convs with windowed
// spatial dims, which left every operand replicated and priced data parallelism of a conv net
// as gathering each activation), and a kernel gradient, which contracts the batch, has the
// partial (all-reduced) strategy data parallelism uses.
TEST(StrategySpace, ConvolutionsSplitLikeDots) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  x = f32[8,16,16,4] parameter(0)
  w = f32[3,3,4,8] parameter(1)
  g = f32[8,16,16,8] parameter(2)
  y = f32[8,16,16,8] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  dw = f32[3,3,4,8] convolution(x, g), window={size=16x16 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf
  ROOT t = (f32[8,16,16,8], f32[3,3,4,8]) tuple(y, dw)
})");
  const StrategySpace s = Build(*m, M("data=8"));
  bool batch = false;
  for (const Strategy& st : NodeOf(s, "y").strategies)
    if (st.output == AxisMasks{1, 0, 0, 0}) {
      batch = true;
      EXPECT_EQ(st.operands[0], (AxisMasks{1, 0, 0, 0}));
      EXPECT_EQ(st.operands[1], (AxisMasks{0, 0, 0, 0}));
      EXPECT_EQ(st.partial_axes, 0u);
    }
  EXPECT_TRUE(batch);
  bool partial = false;
  for (const Strategy& st : NodeOf(s, "dw").strategies)
    if (st.partial_axes == 1u) {
      partial = true;
      EXPECT_EQ(st.output, (AxisMasks{0, 0, 0, 0}));
      EXPECT_EQ(st.operands[0], (AxisMasks{1, 0, 0, 0}));
      EXPECT_EQ(st.operands[1], (AxisMasks{1, 0, 0, 0}));
      EXPECT_GT(st.communication_seconds, 0);
    }
  EXPECT_TRUE(partial);
}

// All-reduce reassociation: two dots contracting a split dim, summed. The clean-up all-reduces
// their sum once (add(all-reduce(a), all-reduce(b)) -> all-reduce(a + b)); the space prices that
// too: each dot may leave its partial sum pending (no all-reduce), which only an add summing
// pending sums alike may take, and that add all-reduces once. Annotated so, the search's estimate
// has one all-reduce, as the partitioned program does.
TEST(StrategySpace, SummedPartialSumsAllReduceOnce) {
  const char* text = R"(HloModule m
ENTRY e {
  x0 = f32[64,256] parameter(0), sharding={devices=[1,4]<=[4]}
  w0 = f32[256,128] parameter(1), sharding={devices=[4,1]<=[4]}
  x1 = f32[64,256] parameter(2), sharding={devices=[1,4]<=[4]}
  w1 = f32[256,128] parameter(3), sharding={devices=[4,1]<=[4]}
  d0 = f32[64,128] dot(x0, w0), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  d1 = f32[64,128] dot(x1, w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT s = f32[64,128] add(d0, d1), sharding={replicated}
})";
  auto m = Parse(text);
  const StrategySpace s = Build(*m, M("a=4"));
  int pending = 0;
  for (const Strategy& st : NodeOf(s, "d0").strategies)
    if (st.pending_axes) {
      ++pending;
      EXPECT_EQ(st.pending_axes, st.partial_axes);
      EXPECT_EQ(st.communication_seconds, 0);
    }
  EXPECT_GT(pending, 0);
  // The add (annotated replicated) also sums pending partial sums over a, all-reducing once.
  const StrategySpace& fs = s;
  int summing = 0;
  for (const Strategy& st : NodeOf(fs, "s").strategies)
    if (!st.operand_pending.empty()) {
      ++summing;
      EXPECT_EQ(st.operand_pending, (std::vector<uint32_t>{1, 1}));
      EXPECT_EQ(st.partial_axes, 1u);
      EXPECT_GT(st.communication_seconds, 0);
    }
  EXPECT_EQ(summing, 1);  // the one split that leaves axis a free: [None, None]
  // A pending partial sum meets only a summing add: the other entries of the edge are infinite.
  for (const StrategyEdge& e : fs.edges) {
    if (fs.nodes[e.producer].instr->name() != "d0") continue;
    const StrategyNode& prod = fs.nodes[e.producer];
    const StrategyNode& cons = fs.nodes[e.consumer];
    for (size_t a = 0; a < prod.strategies.size(); ++a)
      for (size_t b = 0; b < cons.strategies.size(); ++b) {
        const bool sums = !cons.strategies[b].operand_pending.empty();
        const bool ok = prod.strategies[a].pending_axes == (sums ? cons.strategies[b].operand_pending[e.operand] : 0u) &&
                        (!sums || prod.strategies[a].output == cons.strategies[b].operands[e.operand]);
        EXPECT_EQ(std::isinf((*e.seconds)[a * cons.strategies.size() + b]), !ok);
      }
  }
  // Planned with the weights split on the contracted dim and the sum replicated: one all-reduce,
  // in the estimate as in the partitioned program.
  PlanOptions o(M("a=4"));
  o.hardware = &H100();
  auto r = PlanAuto(*m, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_NEAR(r->model_cost_seconds, r->search.step_seconds, 0.25 * r->search.step_seconds);
}

TEST(StrategySpace, EdgesPriceResharding) {
  auto m = Parse(kMatmul);
  const StrategySpace s = Build(*m, M("a=8"));
  // x -> d: x's split equal to what d's strategy needs is free, anything else is not (a gather
  // or an all-to-all), except refining a replicated x (a local slice, cheaper than any collective).
  bool found = false;
  for (const StrategyEdge& e : s.edges) {
    if (s.nodes[e.producer].instr->name() != "x") continue;
    found = true;
    const auto& P = s.nodes[e.producer].strategies;
    const auto& C = s.nodes[e.consumer].strategies;
    for (size_t p = 0; p < P.size(); ++p)
      for (size_t c = 0; c < C.size(); ++c) {
        const double t = (*e.seconds)[p * C.size() + c];
        if (P[p].output == C[c].operands[e.operand]) {
          EXPECT_EQ(t, 0);
        } else {
          EXPECT_GT(t, 0);
        }
      }
  }
  EXPECT_TRUE(found);
}

TEST(StrategySpace, ProblemCostsAreTheSpaceSeconds) {
  auto m = Parse(kMatmul);
  const StrategySpace s = Build(*m, M("a=8"));
  const Problem p = s.ToProblem();
  ASSERT_TRUE(CheckProblem(p).ok());
  std::vector<int64_t> choice(s.nodes.size(), 0);
  for (int round = 0; round < 4; ++round) {
    for (size_t i = 0; i < choice.size(); ++i) choice[i] = (round + i) % s.nodes[i].strategies.size();
    auto ev = Evaluate(p, choice);
    ASSERT_TRUE(ev.ok());
    EXPECT_NEAR(static_cast<double>(ev->cost) * 1e-12, s.SecondsOf(choice), 1e-11 * (1 + s.edges.size()));
  }
}

TEST(StrategySpace, AnnotationsAreConstraints) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  x = f32[64,256] parameter(0), sharding={devices=[8,1]<=[8]}
  w = f32[256,512] parameter(1)
  ROOT d = f32[64,512] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})");
  EXPECT_EQ(NodeOf(Build(*m, M("a=8")), "x").strategies.size(), 1u);
  EXPECT_EQ(NodeOf(Build(*m, M("a=8"), /*keep=*/false), "x").strategies.size(), 3u);
  // Not a slicing of this mesh (devices in another order): a clear error.
  auto bad = Parse(R"(HloModule m
ENTRY e {
  x = f32[64,256] parameter(0), sharding={devices=[2,1]1,0}
  ROOT n = f32[64,256] negate(x)
})");
  StrategySpaceOptions o(M("a=2"));
  o.hardware = &H100();
  auto s = BuildStrategySpace(*bad, o);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(s.status().message()).find("not a slicing of the mesh"), std::string::npos);
}

TEST(StrategySpace, MasksRoundTripThroughShardings) {
  const Mesh mesh = M("a=2,b=4");
  for (const AxisMasks& m : {AxisMasks{0, 0}, AxisMasks{1, 2}, AxisMasks{3, 0}, AxisMasks{0, 2}, AxisMasks{2, 1}}) {
    const Sharding s = ShardingFromMasks(mesh, m);
    EXPECT_EQ(MasksFromSharding(mesh, s, 2), m) << MasksToString(mesh, m);
  }
  EXPECT_EQ(MasksToString(mesh, AxisMasks{3, 0}), "[(a, b), None]");
}

// The zoo: for the MLP and the 2-layer transformer on 8 devices and on 2 x 4, with the profile's
// memory and with a limit that rules out replicating everything, the chosen plan fits, and its
// estimated step time is at most every standard plan's that fits.
TEST(AutoPlan, ZooPlansAreAtLeastAsFastAsTheStandardPlans) {
  struct Case {
    const char* example;
    const char* mesh;
    std::optional<int64_t> limit;
  };
  const Case cases[] = {
      {"mlp", "data=8", std::nullopt},           {"mlp", "data=8", 1 << 20},
      {"mlp", "data=2,model=4", 1 << 20},        {"transformer", "data=8", std::nullopt},
      {"transformer", "data=2,model=4", 1200 << 10},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.example) + " on " + c.mesh);
    auto m = Parse(*BuildExample(c.example));
    PlanOptions o(M(c.mesh));
    o.hardware = &H100();
    o.memory_limit = c.limit;
    o.time_limit_s = 20;
    auto r = PlanAuto(*m, o);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_FALSE(r->standard.empty());
    const PricedPlan& chosen = r->Chosen();
    EXPECT_TRUE(chosen.fits);
    for (const PricedPlan& p : r->standard)
      if (p.fits) EXPECT_LE(chosen.step_seconds, p.step_seconds) << p.name;
    EXPECT_LE(r->lower_bound_seconds, r->model_cost_seconds * (1 + 1e-9));
  }
}

// The MoE step has experts (wi, wo: their leading dim is a batch dim of the expert dots): the
// expert-parallel standard plan splits them, and their Adam moments, over the mesh with the batch,
// and replicates every other weight.
TEST(AutoPlan, ExpertParallelSplitsTheExperts) {
  auto m = Parse(*BuildExample("moe-single"));
  PlanOptions o(M("data=8"));
  o.hardware = &H100();
  o.time_limit_s = 20;
  auto r = PlanAuto(*m, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const PricedPlan* ep = nullptr;
  for (const PricedPlan& p : r->standard)
    if (p.name == "expert-parallel") ep = &p;
  ASSERT_NE(ep, nullptr);
  int experts = 0;
  for (const Instruction* p : m->entry()->parameters()) {
    const Sharding& s = ep->parameter_shardings[p->parameter_number()];
    const std::string& name = p->name();
    if (name.find("wi") != std::string::npos || name.find("wo_experts") != std::string::npos) {
      ++experts;
      EXPECT_EQ(MasksFromSharding(M("data=8"), s, p->shape().rank()), (AxisMasks{1, 0, 0})) << name;
    } else if (name.rfind("x.", 0) == 0 || name.rfind("labels", 0) == 0) {
      EXPECT_EQ((*MasksFromSharding(M("data=8"), s, p->shape().rank()))[0], 1u) << name;
    } else if (p->shape().rank() > 0) {
      EXPECT_TRUE(s.IsReplicated()) << name << " " << s.ToString();
    }
  }
  EXPECT_EQ(experts, 6);  // wi, wo_experts and their two moments each
  // A model without experts has no such plan.
  auto dense = Parse(*BuildExample("transformer"));
  auto d = PlanAuto(*dense, o);
  ASSERT_TRUE(d.ok()) << d.status().message();
  for (const PricedPlan& p : d->standard) EXPECT_NE(p.name, "expert-parallel");
}

TEST(AutoPlan, ImpossibleLimitNamesTheSmallestPlan) {
  auto m = Parse(*BuildExample("mlp"));
  PlanOptions o(M("data=8"));
  o.hardware = &H100();
  o.memory_limit = 1000;
  auto r = PlanAuto(*m, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(std::string(r.status().message()).find("no plan fits in 1000 B: the smallest needs"), std::string::npos);
}

}  // namespace
}  // namespace spmdc::autoshard

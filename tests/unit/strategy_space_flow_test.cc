// Control flow, tuples and manual regions in `spmdc auto`'s strategy space
// (src/auto/control_flow.h): loop bodies as nodes with costs x trip count, one decision per loop
// state leaf, nested loops, unknown trip counts, conditionals, tuple-valued ops (topk, variadic
// reduce) as one node, manual regions kept as written, and what is refused.
#include "auto/control_flow.h"
#include "auto/plan.h"
#include "auto/strategy_space.h"
#include "cost/hardware.h"
#include "gtest/gtest.h"
#include "hlo/parser.h"

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

StatusOr<StrategySpace> TryBuild(const Module& m, const Mesh& mesh, bool keep = true) {
  StrategySpaceOptions o(mesh);
  o.hardware = &H100();
  o.keep_annotations = keep;
  return BuildStrategySpace(m, o);
}

StrategySpace Build(const Module& m, const Mesh& mesh, bool keep = true) {
  auto s = TryBuild(m, mesh, keep);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return std::move(*s);
}

// The index of the node of `name` (leaf `leaf` of a tuple-valued one; -1: the whole value).
int NodeIndex(const StrategySpace& s, const std::string& name, int64_t leaf = -1) {
  for (int i = 0; i < static_cast<int>(s.nodes.size()); ++i)
    if (s.nodes[i].instr->name() == name && s.nodes[i].leaf == leaf) return i;
  ADD_FAILURE() << "no node " << name << " leaf " << leaf;
  return 0;
}

// The nodes the plan writes on `name`'s leaves.
std::vector<int> ValueNodes(const StrategySpace& s, const std::string& name) {
  for (const SpaceValue& v : s.values)
    if (v.instr->name() == name) return v.leaf_nodes;
  ADD_FAILURE() << "no value " << name;
  return {};
}

bool HasEdge(const StrategySpace& s, int producer, int consumer) {
  for (const StrategyEdge& e : s.edges)
    if (e.producer == producer && e.consumer == consumer) return true;
  return false;
}

// A scanned layer: `i < N` loop over a state (i, h, ws), the body slicing this iteration's weight.
std::string Scan(int trips) {
  return R"(HloModule scan
cond {
  p = (s32[], f32[64,32], f32[4,32,32]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant()" + std::to_string(trips) + R"()
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[64,32], f32[4,32,32]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  h = f32[64,32] get-tuple-element(p), index=1
  ws = f32[4,32,32] get-tuple-element(p), index=2
  zero = s32[] constant(0)
  w3 = f32[1,32,32] dynamic-slice(ws, i, zero, zero), dynamic_slice_sizes={1,32,32}
  w = f32[32,32] reshape(w3)
  y = f32[64,32] dot(h, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t = f32[64,32] tanh(y)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT r = (s32[], f32[64,32], f32[4,32,32]) tuple(i2, t, ws)
}
ENTRY main {
  x = f32[64,32] parameter(0)
  ws = f32[4,32,32] parameter(1)
  c0 = s32[] constant(0)
  init = (s32[], f32[64,32], f32[4,32,32]) tuple(c0, x, ws)
  loop = (s32[], f32[64,32], f32[4,32,32]) while(init), condition=cond, body=body
  out = f32[64,32] get-tuple-element(loop), index=1
  ROOT e = f32[64,32] exponential(out)
}
)";
}

TEST(StrategySpaceFlow, LoopBodyCostsAreTimesTheTripCount) {
  auto once = Parse(Scan(1));
  auto four = Parse(Scan(4));
  const StrategySpace s1 = Build(*once, M("a=2,b=4"));
  const StrategySpace s4 = Build(*four, M("a=2,b=4"));
  const StrategyNode& y1 = s1.nodes[NodeIndex(s1, "y")];
  const StrategyNode& y4 = s4.nodes[NodeIndex(s4, "y")];
  EXPECT_EQ(y1.executions, 1);
  EXPECT_EQ(y4.executions, 4);
  ASSERT_EQ(y1.strategies.size(), y4.strategies.size());
  for (size_t t = 0; t < y1.strategies.size(); ++t) {
    const double a = y1.strategies[t].compute_seconds + y1.strategies[t].communication_seconds;
    const double b = y4.strategies[t].compute_seconds + y4.strategies[t].communication_seconds;
    EXPECT_NEAR(b, 4 * a, 1e-9 * b);
  }
  // The condition runs once more than the body.
  EXPECT_EQ(s4.nodes[NodeIndex(s4, "lt")].executions, 5);
  EXPECT_TRUE(s4.notes.empty());
}

TEST(StrategySpaceFlow, LoopStateIsOneDecisionPerLeaf) {
  auto m = Parse(Scan(4));
  const StrategySpace s = Build(*m, M("a=2,b=4"));
  const int h = NodeIndex(s, "loop", 1), ws = NodeIndex(s, "loop", 2);
  // The while result, the body's parameter and its reads, the condition's parameter: one node
  // per leaf.
  EXPECT_EQ(ValueNodes(s, "loop"), (std::vector<int>{NodeIndex(s, "loop", 0), h, ws}));
  EXPECT_EQ(ValueNodes(s, "h"), std::vector<int>{h});
  EXPECT_EQ(ValueNodes(s, "out"), std::vector<int>{h});
  EXPECT_EQ(ValueNodes(s, "p"), (std::vector<int>{NodeIndex(s, "loop", 0), h, ws}));
  EXPECT_EQ(ValueNodes(s, "p.1"), (std::vector<int>{NodeIndex(s, "loop", 0), h, ws}));
  // The body root's weights are the state itself (no edge); its activations come from the body's
  // tanh, resharded into the state per iteration; the operand from the entry once.
  EXPECT_EQ(ValueNodes(s, "r")[2], ws);
  EXPECT_EQ(ValueNodes(s, "r")[1], NodeIndex(s, "t"));
  EXPECT_TRUE(HasEdge(s, NodeIndex(s, "t"), h));
  EXPECT_TRUE(HasEdge(s, NodeIndex(s, "x"), h));
  EXPECT_TRUE(HasEdge(s, NodeIndex(s, "ws.1"), ws));  // the entry parameter
  EXPECT_FALSE(HasEdge(s, ws, ws));
  // Live through the body: from the while (before its body) to the last reader after it.
  const StrategyNode& state = s.nodes[h];
  const StrategyNode& y = s.nodes[NodeIndex(s, "y")];
  EXPECT_LE(state.lower, y.lower);
  EXPECT_GT(state.upper, y.upper);
}

// The written plan: shardings inside the body, the loop's tuple sharding on the while, its body
// and condition parameters and the body root, and a dot's constraint inside the body where its
// strategy needs another split than the loop state has.
TEST(StrategySpaceFlow, ChoiceIsWrittenInsideTheBody) {
  auto m = Parse(Scan(4));
  const StrategySpace s = Build(*m, M("a=2,b=4"));
  std::vector<int64_t> choice(s.nodes.size(), 0);  // strategy 0: every axis unused (replicated)
  const int y = NodeIndex(s, "y");
  int64_t split_k = -1;
  for (size_t t = 0; t < s.nodes[y].strategies.size(); ++t) {
    const Strategy& st = s.nodes[y].strategies[t];
    if (st.partial_axes == 2 && st.output == AxisMasks{0, 0}) split_k = static_cast<int64_t>(t);
  }
  ASSERT_GE(split_k, 0);  // contracting dim over b: h needs [None, b]
  choice[y] = split_k;
  auto out = AnnotateWithChoice(*m, s, choice);
  const Computation* body = nullptr;
  for (const Computation* c : out->computations())
    if (c->name() == "body") body = c;
  ASSERT_NE(body, nullptr);
  const Instruction* dot = nullptr;
  for (const Instruction* i : body->instructions())
    if (i->name() == "y") dot = i;
  ASSERT_NE(dot, nullptr);
  ASSERT_TRUE(dot->has_sharding());
  const Instruction* constraint = dot->operand(0);
  EXPECT_TRUE(constraint->IsCustomCall("Sharding"));
  EXPECT_EQ(constraint->parent(), body);
  EXPECT_EQ(constraint->operand(0)->name(), "h");
  EXPECT_EQ(MasksFromSharding(s.mesh, *constraint->sharding(), 2), (AxisMasks{0, 2}));
  for (const Instruction* i : body->instructions()) EXPECT_TRUE(i->has_sharding()) << i->name();
  for (const Computation* c : out->computations())
    for (const Instruction* i : c->instructions())
      if (i->name() == "loop" || i->name() == "p" || i->name() == "p.1" || i->name() == "r")
        EXPECT_TRUE(i->has_sharding() && i->sharding()->IsTuple()) << i->name();
}

TEST(StrategySpaceFlow, NestedLoopsMultiplyTripCounts) {
  auto m = Parse(R"(HloModule nested
inner_cond {
  p = (s32[], f32[16,16]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
inner_body {
  p = (s32[], f32[16,16]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  a = f32[16,16] get-tuple-element(p), index=1
  d = f32[16,16] dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT r = (s32[], f32[16,16]) tuple(i2, d)
}
outer_cond {
  p = (s32[], f32[16,16]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
outer_body {
  p = (s32[], f32[16,16]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  a = f32[16,16] get-tuple-element(p), index=1
  z = s32[] constant(0)
  init = (s32[], f32[16,16]) tuple(z, a)
  inner = (s32[], f32[16,16]) while(init), condition=inner_cond, body=inner_body
  b = f32[16,16] get-tuple-element(inner), index=1
  t = f32[16,16] tanh(b)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT r = (s32[], f32[16,16]) tuple(i2, t)
}
ENTRY main {
  x = f32[16,16] parameter(0)
  z = s32[] constant(0)
  init = (s32[], f32[16,16]) tuple(z, x)
  outer = (s32[], f32[16,16]) while(init), condition=outer_cond, body=outer_body
  ROOT y = f32[16,16] get-tuple-element(outer), index=1
}
)");
  const StrategySpace s = Build(*m, M("a=4"));
  EXPECT_EQ(s.nodes[NodeIndex(s, "d")].executions, 15);
  EXPECT_EQ(s.nodes[NodeIndex(s, "lt")].executions, 18);    // the inner condition: 3 x (5 + 1)
  EXPECT_EQ(s.nodes[NodeIndex(s, "lt.1")].executions, 4);   // the outer one
  EXPECT_EQ(s.nodes[NodeIndex(s, "t")].executions, 3);
  // The inner loop's state is resharded from the outer body's value once per outer iteration.
  EXPECT_EQ(s.nodes[NodeIndex(s, "inner", 1)].executions, 3);
  EXPECT_EQ(ValueNodes(s, "y"), std::vector<int>{NodeIndex(s, "outer", 1)});
}

TEST(StrategySpaceFlow, UnknownTripCountIsCountedOnceWithANote) {
  auto m = Parse(R"(HloModule unknown
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
cond {
  p = (s32[], f32[64]) parameter(0)
  v = f32[64] get-tuple-element(p), index=1
  z = f32[] constant(0)
  s = f32[] reduce(v, z), dimensions={0}, to_apply=add
  ten = f32[] constant(10)
  ROOT lt = pred[] compare(s, ten), direction=LT
}
body {
  p = (s32[], f32[64]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  v = f32[64] get-tuple-element(p), index=1
  e = f32[64] exponential(v)
  ROOT r = (s32[], f32[64]) tuple(i, e)
}
ENTRY main {
  x = f32[64] parameter(0)
  z = s32[] constant(0)
  init = (s32[], f32[64]) tuple(z, x)
  w = (s32[], f32[64]) while(init), condition=cond, body=body
  ROOT y = f32[64] get-tuple-element(w), index=1
}
)");
  const StrategySpace s = Build(*m, M("a=4"));
  EXPECT_EQ(s.nodes[NodeIndex(s, "e")].executions, 1);
  ASSERT_EQ(s.notes.size(), 1u);
  EXPECT_NE(s.notes[0].find("while %w: trip count unknown, its body is counted once"), std::string::npos);
}

TEST(StrategySpaceFlow, ConditionalBranchesAreNodesAndItsResultOneDecision) {
  auto m = Parse(R"(HloModule cond
on_true {
  a = (f32[64,32], f32[32,32]) parameter(0)
  tx = f32[64,32] get-tuple-element(a), index=0
  tw = f32[32,32] get-tuple-element(a), index=1
  ROOT y = f32[64,32] dot(tx, tw), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
on_false {
  b = (f32[64,32], f32[32,32]) parameter(0)
  fx = f32[64,32] get-tuple-element(b), index=0
  ROOT n = f32[64,32] negate(fx)
}
ENTRY main {
  p = pred[] parameter(0)
  x = f32[64,32] parameter(1)
  w = f32[32,32] parameter(2)
  args = (f32[64,32], f32[32,32]) tuple(x, w)
  c = f32[64,32] conditional(p, args, args), true_computation=on_true, false_computation=on_false
  ROOT e = f32[64,32] exponential(c)
}
)");
  const StrategySpace s = Build(*m, M("a=4"));
  // A branch's parameter is the conditional's operand: the branch reads the entry's values.
  EXPECT_EQ(ValueNodes(s, "tx"), std::vector<int>{NodeIndex(s, "x")});
  EXPECT_EQ(ValueNodes(s, "tw"), std::vector<int>{NodeIndex(s, "w")});
  EXPECT_EQ(ValueNodes(s, "fx"), std::vector<int>{NodeIndex(s, "x")});
  EXPECT_EQ(s.nodes[NodeIndex(s, "y")].operand_nodes, (std::vector<int>{NodeIndex(s, "x"), NodeIndex(s, "w")}));
  // The result is its own decision, each branch root resharded into it.
  const int c = NodeIndex(s, "c", 0);
  EXPECT_EQ(ValueNodes(s, "c"), std::vector<int>{c});
  EXPECT_TRUE(HasEdge(s, NodeIndex(s, "y"), c));
  EXPECT_TRUE(HasEdge(s, NodeIndex(s, "n"), c));
}

TEST(StrategySpaceFlow, TopKLeavesShareOneNodeAndTheRuleGivesTheOperand) {
  auto m = Parse(R"(HloModule router
ENTRY main {
  logits = f32[64,8] parameter(0)
  top = (f32[64,2], s32[64,2]) topk(logits), k=2, largest=true
  v = f32[64,2] get-tuple-element(top), index=0
  i = s32[64,2] get-tuple-element(top), index=1
  ROOT out = (f32[64,2], s32[64,2]) tuple(v, i)
}
)");
  const StrategySpace s = Build(*m, M("a=2,b=4"));
  const int top = NodeIndex(s, "top");
  EXPECT_EQ(ValueNodes(s, "top"), (std::vector<int>{top, top}));
  EXPECT_EQ(ValueNodes(s, "v"), std::vector<int>{top});
  EXPECT_EQ(ValueNodes(s, "i"), std::vector<int>{top});
  // The last dim (topk's) is never split; the operand takes the values' split.
  for (const Strategy& st : s.nodes[top].strategies) {
    EXPECT_EQ(st.output[1], 0u);
    EXPECT_EQ(st.operands[0], st.output);
    // Values and indices: 64 x 2 x (4 + 4) bytes over the devices of the split.
    EXPECT_EQ(st.bytes, 64 * 2 * 8 / (st.output[0] == 3 ? 8 : st.output[0] == 2 ? 4 : st.output[0] == 1 ? 2 : 1));
  }
}

TEST(StrategySpaceFlow, TopKCustomCallIsATopK) {
  auto m = Parse(R"(HloModule router
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT gt = pred[] compare(a, b), direction=GT
}
ENTRY main {
  logits = f32[64,8] parameter(0)
  top = (f32[64,2], s32[64,2]) custom-call(logits), custom_call_target="TopK", to_apply=cmp
  ROOT v = f32[64,2] get-tuple-element(top), index=0
}
)");
  const StrategySpace s = Build(*m, M("a=2,b=4"));
  const int top = NodeIndex(s, "top");
  EXPECT_EQ(ValueNodes(s, "top"), (std::vector<int>{top, top}));
  EXPECT_EQ(s.nodes[top].strategies.size(), 4u);  // dim 0 over nothing, a, b, (a, b); dim 1 whole
  for (const Strategy& st : s.nodes[top].strategies) EXPECT_EQ(st.operands[0], st.output);
}

TEST(StrategySpaceFlow, VariadicReduceOverASplitDimGathersPartials) {
  auto m = Parse(R"(HloModule argmax
argmax {
  v0 = f32[] parameter(0)
  i0 = s32[] parameter(1)
  v1 = f32[] parameter(2)
  i1 = s32[] parameter(3)
  gt = pred[] compare(v0, v1), direction=GT
  v = f32[] select(gt, v0, v1)
  i = s32[] select(gt, i0, i1)
  ROOT r = (f32[], s32[]) tuple(v, i)
}
ENTRY main {
  x = f32[64,128] parameter(0)
  iota = s32[64,128] iota(), iota_dimension=1
  ninf = f32[] constant(-inf)
  zero = s32[] constant(0)
  ROOT am = (f32[64], s32[64]) reduce(x, iota, ninf, zero), dimensions={1}, to_apply=argmax
}
)");
  const StrategySpace s = Build(*m, M("a=4"));
  const StrategyNode& am = s.nodes[NodeIndex(s, "am")];
  bool saw_partial = false;
  for (const Strategy& st : am.strategies) {
    ASSERT_EQ(st.operands.size(), 4u);
    EXPECT_EQ(st.operands[0], st.operands[1]);  // values and indices split alike
    EXPECT_TRUE(st.operands[2].empty());
    if (st.partial_axes) {
      saw_partial = true;
      EXPECT_EQ(st.operands[0], (AxisMasks{0, 1}));
      EXPECT_GT(st.communication_seconds, 0);
    }
  }
  EXPECT_TRUE(saw_partial);
}

// A fully manual region (shard_map over the one axis) with a loop inside: not planned, its
// boundaries kept even without the module's other annotations, the code around it planned.
constexpr const char* kManualRegion = R"(HloModule region
cond {
  p = (s32[], f32[8,32]) parameter(0), sharding={{manual}, {manual}}
  i = s32[] get-tuple-element(p), index=0, sharding={manual}
  n = s32[] constant(3), sharding={manual}
  ROOT lt = pred[] compare(i, n), direction=LT, sharding={manual}
}
body {
  p = (s32[], f32[8,32]) parameter(0), sharding={{manual}, {manual}}
  i = s32[] get-tuple-element(p), index=0, sharding={manual}
  v = f32[8,32] get-tuple-element(p), index=1, sharding={manual}
  t = f32[8,32] tanh(v), sharding={manual}
  one = s32[] constant(1), sharding={manual}
  i2 = s32[] add(i, one), sharding={manual}
  ROOT r = (s32[], f32[8,32]) tuple(i2, t), sharding={{manual}, {manual}}
}
ENTRY main {
  x = f32[64,32] parameter(0), sharding={devices=[8,1]<=[8]}
  n = f32[64,32] negate(x)
  g = f32[64,32] custom-call(n), custom_call_target="Sharding", sharding={devices=[8,1]<=[8]}
  local = f32[8,32] custom-call(g), custom_call_target="SPMDFullToShardShape", sharding={manual}
  z = s32[] constant(0), sharding={manual}
  init = (s32[], f32[8,32]) tuple(z, local), sharding={{manual}, {manual}}
  w = (s32[], f32[8,32]) while(init), condition=cond, body=body, sharding={{manual}, {manual}}
  res = f32[8,32] get-tuple-element(w), index=1, sharding={manual}
  back = f32[64,32] custom-call(res), custom_call_target="SPMDShardToFullShape", sharding={devices=[8,1]<=[8]}
  ROOT e = f32[64,32] exponential(back)
}
)";

TEST(StrategySpaceFlow, ManualRegionsAreKeptAsWritten) {
  auto m = Parse(kManualRegion);
  for (bool keep : {true, false}) {
    SCOPED_TRACE(keep ? "keep" : "ignore");
    const StrategySpace s = Build(*m, M("a=8"), keep);
    for (const char* inside : {"local", "res"}) {
      const StrategyNode& node = s.nodes[NodeIndex(s, inside)];
      EXPECT_TRUE(node.manual);
      EXPECT_EQ(node.strategies.size(), 1u);
      EXPECT_EQ(node.strategies[0].bytes, 8 * 32 * 4);
    }
    // Not expanded, not written.
    for (const StrategyNode& n : s.nodes) EXPECT_NE(n.instr->parent()->name(), "body");
    for (const SpaceValue& v : s.values) EXPECT_NE(v.instr->name(), "w");
    // The boundaries keep their shardings; the code around the region is planned.
    EXPECT_EQ(s.nodes[NodeIndex(s, "g")].strategies.size(), 1u);
    EXPECT_EQ(s.nodes[NodeIndex(s, "back")].strategies.size(), 1u);
    EXPECT_GT(s.nodes[NodeIndex(s, "e")].strategies.size(), 1u);
    EXPECT_EQ(s.nodes[NodeIndex(s, "x")].strategies.size(), keep ? 1u : 3u);
  }
}

TEST(StrategySpaceFlow, PlannedManualRegionModuleKeepsTheRegion) {
  auto m = Parse(kManualRegion);
  PlanOptions o(M("a=8"));
  o.hardware = &H100();
  o.keep_annotations = false;
  auto r = PlanAuto(*m, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Module& out = *r->search.annotated;
  for (const Computation* c : out.computations())
    for (const Instruction* i : c->instructions()) {
      if (c->name() == "body" || c->name() == "cond" || i->name() == "local" || i->name() == "res")
        EXPECT_TRUE(HasManualSharding(*i)) << i->name();
    }
}

TEST(StrategySpaceFlow, RefusesWhatItDoesNotTake) {
  // A body shared by two loops: one sharding per value, so one caller per body.
  auto shared = Parse(R"(HloModule shared
cond {
  p = (s32[], f32[8]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(2)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[8]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  v = f32[8] get-tuple-element(p), index=1
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  e = f32[8] exponential(v)
  ROOT r = (s32[], f32[8]) tuple(i2, e)
}
ENTRY main {
  x = f32[8] parameter(0)
  z = s32[] constant(0)
  init = (s32[], f32[8]) tuple(z, x)
  w1 = (s32[], f32[8]) while(init), condition=cond, body=body
  w2 = (s32[], f32[8]) while(w1), condition=cond, body=body
  ROOT y = f32[8] get-tuple-element(w2), index=1
}
)");
  auto s = TryBuild(*shared, M("a=4"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(std::string(s.status().message()).find("computation %cond is called by %w1 and %w2"), std::string::npos);
  // What `spmdc auto` runs first gives each loop its own copies, which then plan.
  ASSERT_TRUE(PrepareForPlanning(*shared).ok());
  s = TryBuild(*shared, M("a=4"));
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->nodes[NodeIndex(*s, "e")].executions, 2);
  // The second loop starts from the first one's state, not from a constant: trip count unknown.
  EXPECT_EQ(s->nodes[NodeIndex(*s, "e.1")].executions, 1);
  ASSERT_EQ(s->notes.size(), 1u);
  EXPECT_NE(s->notes[0].find("while %w2"), std::string::npos);
  // rng-bit-generator: a node per leaf; the state (leaf 0) whole, fed by an edge from the state it
  // reads (a split key is gathered); the bits (leaf 1) split freely, fed by nothing.
  auto rng = Parse(R"(HloModule rng
ENTRY main {
  s = u64[2] parameter(0)
  r = (u64[2], u32[64]) rng-bit-generator(s), algorithm=rng_default
  ROOT b = u32[64] get-tuple-element(r), index=1
}
)");
  s = TryBuild(*rng, M("a=2"));  // u64[2] splits over a=2 (over a=4 it could only be whole)
  ASSERT_TRUE(s.ok()) << s.status().message();
  const int state = NodeIndex(*s, "r", 0), bits = NodeIndex(*s, "r", 1), key = NodeIndex(*s, "s");
  ASSERT_EQ(s->nodes[state].strategies.size(), 1u);
  EXPECT_EQ(s->nodes[state].strategies[0].output, AxisMasks(1, 0));
  EXPECT_EQ(s->nodes[bits].strategies.size(), 2u);  // whole, or split over a
  int into_state = 0;
  for (const StrategyEdge& e : s->edges) {
    EXPECT_NE(e.consumer, bits);
    if (e.consumer == state) {
      ++into_state;
      EXPECT_EQ(e.producer, key);
    }
  }
  EXPECT_EQ(into_state, 1);
  // A tuple-valued op whose leaves do not share one split, and that is no rng-bit-generator.
  auto bn = Parse(R"(HloModule bn
ENTRY main {
  x = f32[8,16] parameter(0)
  g = f32[16] parameter(1)
  o = f32[16] parameter(2)
  n = (f32[8,16], f32[16], f32[16]) batch-norm-training(x, g, o), epsilon=0.001, feature_index=1
  ROOT y = f32[8,16] get-tuple-element(n), index=0
}
)");
  s = TryBuild(*bn, M("a=4"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(std::string(s.status().message()).find("%n (batch-norm-training) is tuple-valued"), std::string::npos);
}

}  // namespace
}  // namespace spmdc::autoshard

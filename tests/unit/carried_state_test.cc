// The state a training step carries to the next (src/auto/carried_state.h): which outputs are
// which parameters' next values, from input_output_alias or the data flow; and `spmdc auto`
// pricing it: the search's plan hands the next step its state split as it came in, and a plan
// that does not pays the reshard in its step time.
#include "auto/carried_state.h"

#include "auto/plan.h"
#include "auto/strategy_space.h"
#include "cost/hardware.h"
#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "models/examples.h"

namespace spmdc::autoshard {
namespace {

std::unique_ptr<Module> Parse(const std::string& text) {
  auto m = ParseHloModule(text);
  EXPECT_TRUE(m.ok()) << m.status().message();
  return std::move(*m);
}

std::vector<std::pair<int64_t, int64_t>> Pairs(const Module& m, bool want_aliased) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (const CarriedValue& c : FindCarriedValues(m)) {
    EXPECT_EQ(c.aliased, want_aliased);
    out.push_back({c.parameter, c.output});
  }
  return out;
}

// Adam on one weight: new w reaches w in one step, the moments reach m and v in two; the loss
// (a scalar) and the gradient-only output carry nothing.
constexpr const char* kAdam = R"(HloModule adam
ENTRY e {
  w = f32[8,4] parameter(0)
  m = f32[8,4] parameter(1)
  v = f32[8,4] parameter(2)
  x = f32[8,16] parameter(3)
  y = f32[16,4] parameter(4)
  g = f32[8,4] dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  c = f32[] constant(0.9)
  b1 = f32[8,4] broadcast(c), dimensions={}
  m1 = f32[8,4] multiply(b1, m)
  g1 = f32[8,4] multiply(b1, g)
  new_m = f32[8,4] add(m1, g1)
  gg = f32[8,4] multiply(g, g)
  v1 = f32[8,4] multiply(b1, v)
  new_v = f32[8,4] add(v1, gg)
  root_v = f32[8,4] sqrt(new_v)
  step = f32[8,4] divide(new_m, root_v)
  new_w = f32[8,4] subtract(w, step)
  loss = f32[] constant(0)
  ROOT out = (f32[], f32[8,4], f32[8,4], f32[8,4], f32[8,4]) tuple(loss, new_w, new_m, new_v, gg)
}
)";

TEST(CarriedState, FromTheDataFlow) {
  auto m = Parse(kAdam);
  // gg = g * g is computed from the batch (a dot): no parameter is its previous value.
  EXPECT_EQ(Pairs(*m, false), (std::vector<std::pair<int64_t, int64_t>>{{0, 1}, {1, 2}, {2, 3}}));
}

TEST(CarriedState, TwoEquallyCloseParametersAreNoPairing) {
  auto m = Parse(R"(HloModule tie
ENTRY e {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  s = f32[4] add(a, b)
  ROOT out = (f32[4]) tuple(s)
}
)");
  EXPECT_TRUE(FindCarriedValues(*m).empty());
}

TEST(CarriedState, FromInputOutputAliasOnly) {
  // The alias names output 1 -> parameter 0 and output 0 -> parameter 1 (whatever the data flow
  // says), a nested output index and a tuple parameter index are skipped.
  auto m = Parse(R"(HloModule aliased, input_output_alias={ {0}: (1, {}, may-alias), {1}: (0, {}, must-alias), {2, 0}: (2, {0}), {2, 1}: (2, {1}) }
ENTRY e {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  t = (f32[4], f32[4]) parameter(2)
  n = f32[4] negate(a)
  ROOT out = (f32[4], f32[4], (f32[4], f32[4])) tuple(n, b, t)
}
)");
  EXPECT_EQ(Pairs(*m, true), (std::vector<std::pair<int64_t, int64_t>>{{1, 0}, {0, 1}}));
}

const HardwareProfile& H100() {
  static const HardwareProfile hw = *LoadHardwareProfile("h100");
  return hw;
}

// The MLP step on 2 x 4: before carried state was priced, the ILP's plan handed the next step
// both new weights split unlike the weights it took (a slice it did not pay for the next step to
// undo). Now every plan written hands its state on as it came in, or says what resharding it
// costs, and that cost is in the step time the choice compares.
TEST(CarriedState, AutoPlansHandTheStateOnAsItCameIn) {
  auto m = Parse(*BuildExample("mlp"));
  PlanOptions o(*Mesh::Parse("data=2,model=4"));
  o.hardware = &H100();
  o.keep_annotations = false;
  o.time_limit_s = 20;
  auto r = PlanAuto(*m, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const std::vector<CarriedValue> carried = FindCarriedValues(*m);
  ASSERT_FALSE(carried.empty());
  const PricedPlan& search = r->search;
  EXPECT_EQ(search.carried_resharded, 0);
  for (const CarriedValue& c : carried) {
    ASSERT_TRUE(search.result_sharding.IsTuple());
    EXPECT_EQ(search.result_sharding.tuple_elements()[c.output], search.parameter_shardings[c.parameter])
        << "output " << c.output << " vs parameter " << c.parameter;
  }
  for (const PricedPlan& p : r->standard) EXPECT_EQ(p.carried_resharded, 0) << p.name;
  // A plan that does hand a weight on differently pays for it: the MLP with its first new weight
  // forced to come out split over `model` (the weight goes in replicated).
  auto forced = m->Clone();
  Instruction* root = forced->entry()->root();
  const CarriedValue& first = carried.front();
  Instruction* value = root->operand(first.output);
  Instruction* c = forced->entry()->AddInstruction(Opcode::kCustomCall, value->shape(), "forced", {value});
  c->attrs().Set(AttrId::kCustomCallTarget, std::string("Sharding"));
  ASSERT_EQ(value->shape().rank(), 2);
  const Mesh mesh = *Mesh::Parse("data=2,model=4");
  c->set_sharding(std::make_shared<const Sharding>(ShardingFromMasks(mesh, AxisMasks{0b10, 0})));
  root->ReplaceOperandWith(first.output, c);
  for (Instruction* p : forced->entry()->parameters())
    if (p->parameter_number() == first.parameter) p->set_sharding(std::make_shared<const Sharding>(Sharding::Replicate()));
  forced->set_num_partitions(8);
  auto priced = PricePlan(std::move(forced), mesh, H100(), int64_t{1} << 40);
  ASSERT_TRUE(priced.ok()) << priced.status().message();
  EXPECT_GE(priced->carried_resharded, 1);
  EXPECT_GT(priced->carry_seconds, 0);
}

}  // namespace
}  // namespace spmdc::autoshard

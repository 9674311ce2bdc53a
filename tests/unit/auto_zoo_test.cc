// The zoo-wide check of `spmdc auto` (README "The zoo"): for every model of the zoo
// (models/examples.h AutoZoo: MLP, GPT with 2, 12 and 96 layers, U-Net, DLRM, MoE, each under a
// memory limit that rules out replicating it) on the meshes 8 and 2x4, auto's plan (the search's,
// or its weight-update-sharded variant) fits and its estimated step time is at most the best
// standard plan's (data-parallel, fsdp, expert-parallel, megatron / 2-d) under the same cost model
// and limit, and every plan priced verifies on 8 in-process devices (the single-device step and the
// partitioned one agree) and re-prices the same from its printed module (what `spmdc auto -o`
// writes is what was priced). On 8x64 and 4x4x8 the plans are estimated only (512 and 128
// devices). The 96-layer GPT's repeated layers are tied on 2x4 and 4x4x8 (README "Repeated
// layers: tying"). Then weight-update sharding as auto's choice: a step that fits a memory limit
// only with its update sharded.
// Slow (ctest label `slow`): every plan of 14 configurations runs.
#include <cctype>
#include <cstdio>
#include <optional>
#include <string>

#include "auto/plan.h"
#include "cost/hardware.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "hlo/printer.h"
#include "interpreter/interpreter.h"
#include "models/examples.h"
#include "partitioner/partitioner.h"
#include "propagation/propagation.h"
#include "runtime/executor.h"
#include "runtime/host_values.h"
#include "runtime/result_comparison.h"

namespace spmdc::autoshard {
namespace {

constexpr double kTimeLimit = 20;  // seconds per search

const HardwareProfile& H100() {
  static const HardwareProfile hw = *LoadHardwareProfile("h100");
  return hw;
}

std::unique_ptr<Module> Parse(const std::string& text) {
  auto m = ParseHloModule(text);
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? std::move(*m) : nullptr;
}

StatusOr<AutoResult> Plan(const Module& m, const char* mesh, int64_t limit) {
  PlanOptions o(*Mesh::Parse(mesh));
  o.hardware = &H100();
  o.memory_limit = limit;
  o.time_limit_s = kTimeLimit;
  o.keep_annotations = false;
  return PlanAuto(m, o);
}

// The fastest plan that fits among `plans` (nullptr when none does).
const PricedPlan* Fastest(const std::vector<const PricedPlan*>& plans) {
  const PricedPlan* best = nullptr;
  for (const PricedPlan* p : plans)
    if (p->fits && (!best || p->step_seconds < best->step_seconds)) best = p;
  return best;
}

// Auto's plans: the search's and its weight-update-sharded variants; the standard ones.
std::vector<const PricedPlan*> AutoPlans(const AutoResult& r) {
  std::vector<const PricedPlan*> out = {&r.search};
  for (const PricedPlan& p : r.update_sharded)
    if (p.name.rfind("auto+", 0) == 0) out.push_back(&p);
  return out;
}
std::vector<const PricedPlan*> StandardPlans(const AutoResult& r) {
  std::vector<const PricedPlan*> out;
  for (const PricedPlan& p : r.standard) out.push_back(&p);
  return out;
}

// Runs `plan` as `spmdc verify --propagate` does on the module it writes and compares it with
// the single-device run `want` of `original` on `args`.
void VerifyPlan(const Module& original, const PricedPlan& plan, const Mesh& mesh, const std::vector<Literal>& args,
                const Literal& want) {
  SCOPED_TRACE(plan.name);
  std::unique_ptr<Module> work = plan.annotated->Clone();
  ASSERT_TRUE(PropagateShardings(*work).ok());
  auto partitioned = PartitionAndCleanUp(*work, PartitionOptions{mesh.num_devices()});
  ASSERT_TRUE(partitioned.ok()) << partitioned.status();
  SpmdOptions so;
  so.global_result_shape = original.entry()->root()->shape();
  auto got = ExecuteSpmd(*partitioned->module, mesh.num_devices(), args, partitioned->parameter_shardings,
                         partitioned->result_sharding, so);
  ASSERT_TRUE(got.ok()) << got.status();
  const std::vector<Literal> g = FlattenLeaves(*got), w = FlattenLeaves(want);
  ASSERT_EQ(g.size(), w.size());
  const double tolerance = ModuleTolerance(original);
  for (size_t k = 0; k < g.size(); ++k) {
    const LeafComparison c = CompareLeaf(g[k], w[k], tolerance);
    EXPECT_TRUE(c.ok) << "output " << k << ": " << c.problem;
  }
}

// What `spmdc auto -o` writes, read back and priced again, is the plan that was priced.
void RepricesTheSame(const PricedPlan& plan, const Mesh& mesh, int64_t limit) {
  SCOPED_TRACE(plan.name);
  std::unique_ptr<Module> reread = Parse(PrintModule(*plan.annotated));
  ASSERT_NE(reread, nullptr);
  auto again = PricePlan(std::move(reread), mesh, H100(), limit);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_DOUBLE_EQ(again->step_seconds, plan.step_seconds);
  EXPECT_EQ(again->peak_bytes, plan.peak_bytes);
  EXPECT_EQ(again->collective_bytes, plan.collective_bytes);
}

std::string Summary(const AutoResult& r) {
  std::string s;
  for (const PricedPlan* p : AutoPlans(r)) s += p->name + " ";
  for (const auto* list : {&r.standard, &r.update_sharded})
    for (const PricedPlan& p : *list)
      s += fmt::format("| {} {:.3f} us {} {} ", p.name, p.step_seconds * 1e6, p.peak_bytes, p.fits ? "fits" : "over");
  return s;
}

struct Case {
  std::string label;
  const char* mesh;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.label << " on " << c.mesh; }

std::vector<Case> Cases(std::initializer_list<const char*> meshes) {
  std::vector<Case> out;
  for (const ZooModel& z : AutoZoo())
    for (const char* mesh : meshes) out.push_back({z.label, mesh});
  return out;
}

const ZooModel& ZooEntry(const std::string& label) {
  for (const ZooModel& z : AutoZoo())
    if (z.label == label) return z;
  ADD_FAILURE() << "no zoo model " << label;
  return AutoZoo().front();
}

void CheckAutoAgainstStandard(const Case& c, const AutoResult& r, const std::string& summary) {
  const PricedPlan* a = Fastest(AutoPlans(r));
  const PricedPlan* best = Fastest(StandardPlans(r));
  ASSERT_NE(a, nullptr) << "auto's plans all exceed the limit: " << summary;
  if (!best) return;
  EXPECT_LE(a->step_seconds, best->step_seconds) << c.label << " on " << c.mesh << ": " << a->name << " vs "
                                                 << best->name << ": " << summary;
}

// Plans case `c` into `r` (its module into `m`) and checks the choice: it fits, and auto's plan
// is at most the best standard plan.
void PlanAndCheck(const Case& c, std::unique_ptr<Module>& m, std::optional<AutoResult>& r) {
  const ZooModel& z = ZooEntry(c.label);
  m = Parse(*BuildExample(z.example));
  ASSERT_NE(m, nullptr);
  auto planned = Plan(*m, c.mesh, z.memory_limit);
  ASSERT_TRUE(planned.ok()) << planned.status();
  r = std::move(*planned);
  const std::string summary = Summary(*r);
  std::printf("%s on %s: chosen %s, %s\n", c.label.c_str(), c.mesh, r->Chosen().name.c_str(), summary.c_str());
  EXPECT_TRUE(r->Chosen().fits);
  CheckAutoAgainstStandard(c, *r, summary);
}

std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  std::string name = info.param.label + "_" + info.param.mesh;
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

class SmallMeshes : public ::testing::TestWithParam<Case> {};

TEST_P(SmallMeshes, AutoIsAtMostTheBestStandardPlanAndEveryPlanVerifies) {
  const Case& c = GetParam();
  std::unique_ptr<Module> m;
  std::optional<AutoResult> r;
  PlanAndCheck(c, m, r);
  if (HasFatalFailure()) return;

  const Mesh mesh = *Mesh::Parse(c.mesh);
  const std::vector<Literal> args = RandomArguments(*m, /*seed=*/3);
  SingleDeviceContext one;
  auto want = Execute(*m, args, &one);
  ASSERT_TRUE(want.ok()) << want.status();
  std::vector<const PricedPlan*> plans = {&r->search};
  for (const auto* list : {&r->standard, &r->update_sharded})
    for (const PricedPlan& p : *list) plans.push_back(&p);
  for (const PricedPlan* p : plans) {
    VerifyPlan(*m, *p, mesh, args, *want);
    RepricesTheSame(*p, mesh, r->memory_limit);
  }
}

INSTANTIATE_TEST_SUITE_P(Zoo, SmallMeshes, ::testing::ValuesIn(Cases({"data=8", "data=2,model=4"})), CaseName);

class LargeMeshes : public ::testing::TestWithParam<Case> {};

TEST_P(LargeMeshes, AutoIsAtMostTheBestStandardPlan) {
  std::unique_ptr<Module> m;
  std::optional<AutoResult> r;
  PlanAndCheck(GetParam(), m, r);
}

INSTANTIATE_TEST_SUITE_P(Zoo, LargeMeshes, ::testing::ValuesIn(Cases({"data=8,model=64", "a=4,b=4,c=8"})), CaseName);

// Weight-update sharding as auto's choice: transformer-adam on 64-token sequences, data = 8, with
// the memory limit at the peak of data parallelism with its update sharded. Data parallelism
// itself holds Adam's moments on every device (over the limit); fsdp's gathered weights and the
// search's plans (which hold the full all-reduced gradients) peak higher; only the sharded update
// fits, so auto chooses it, writes the rewritten module, and it verifies.
TEST(WeightUpdateSharding, ChosenWhenOnlyItFits) {
  std::unique_ptr<Module> m = Parse(*BuildExample("transformer-adam-long"));
  ASSERT_NE(m, nullptr);
  auto unlimited = Plan(*m, "data=8", int64_t{80} << 30);
  ASSERT_TRUE(unlimited.ok()) << unlimited.status();
  const PricedPlan* wus = nullptr;
  for (const PricedPlan& p : unlimited->update_sharded)
    if (p.name == "data-parallel+wus") wus = &p;
  ASSERT_NE(wus, nullptr) << Summary(*unlimited);
  auto r = Plan(*m, "data=8", wus->peak_bytes);
  ASSERT_TRUE(r.ok()) << r.status();
  const PricedPlan& chosen = r->Chosen();
  EXPECT_EQ(chosen.name, "data-parallel+wus") << Summary(*r);
  EXPECT_TRUE(chosen.fits);
  EXPECT_NE(chosen.weight_update.find("27 updates"), std::string::npos) << chosen.weight_update;
  for (const PricedPlan& p : r->standard) {
    if (p.name == "data-parallel") {
      EXPECT_FALSE(p.fits);
    }
  }
  // The written module is the rewritten one: every computed value annotated (constants and the
  // scalar step count are replicated unannotated), and the gradients reduce-scattered when it is
  // compiled without a flag.
  for (const Instruction* i : chosen.annotated->entry()->instructions()) {
    if (i->opcode() != Opcode::kConstant && !(i->opcode() == Opcode::kParameter && i->shape().rank() == 0)) {
      EXPECT_TRUE(i->has_sharding()) << i->name();
    }
  }
  std::unique_ptr<Module> work = chosen.annotated->Clone();
  ASSERT_TRUE(PropagateShardings(*work).ok());
  auto partitioned = PartitionAndCleanUp(*work, PartitionOptions{8});
  ASSERT_TRUE(partitioned.ok()) << partitioned.status();
  EXPECT_EQ(partitioned->stats.collectives["reduce-scatter"].count, 27);
  EXPECT_EQ(partitioned->stats.collectives["all-gather"].count, 27);
  const std::vector<Literal> args = RandomArguments(*m, /*seed=*/5);
  SingleDeviceContext one;
  auto want = Execute(*m, args, &one);
  ASSERT_TRUE(want.ok()) << want.status();
  VerifyPlan(*m, chosen, *Mesh::Parse("data=8"), args, *want);
  RepricesTheSame(chosen, *Mesh::Parse("data=8"), r->memory_limit);
}

}  // namespace
}  // namespace spmdc::autoshard

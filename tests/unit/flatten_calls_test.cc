// RunFlattenCalls (passes.h): every call site gets its own callee, nested shared callees too,
// computations also applied by other instructions are left alone; after it, propagation
// shards every call site of what was one shared callee (before it, only one).
// RunInlineCalls: every call replaced by its callee's instructions (nested calls too), the
// values unchanged, the call's sharding kept, the printed module parsing back; names: the root's
// copy takes the call's name, the first call site keeps the callee's names, the others are
// recorded (NamesAfterInlining follows them); calls marked inlineable="false" stay.
// RunSplitConstantExpressions: every user of a constant expression gets its own copy (nested
// ones too), constants and annotated expressions stay shared, values unchanged.
#include <gtest/gtest.h>

#include <cstring>
#include <set>

#include "hlo/parser.h"
#include "hlo/printer.h"
#include "interpreter/interpreter.h"
#include "ir/verifier.h"
#include "passes/passes.h"
#include "propagation/propagation.h"
#include "runtime/host_values.h"

namespace spmdc {
namespace {

std::unique_ptr<Module> Parse(std::string_view text) {
  auto m = ParseHloModule(text);
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? std::move(*m) : nullptr;
}

Instruction* Find(Module& m, std::string_view name) {
  for (Computation* c : m.computations())
    for (Instruction* i : c->instructions())
      if (i->name() == name) return i;
  ADD_FAILURE() << "no instruction " << name;
  return nullptr;
}

// Two layers calling one relu, as JAX exports jax.nn.relu; relu calls a shared helper.
constexpr std::string_view kShared = R"(
HloModule m, num_partitions=4

%clip (c: f32[8,16]) -> f32[8,16] {
  %c = f32[8,16] parameter(0)
  %z = f32[] constant(0)
  %zb = f32[8,16] broadcast(%z), dimensions={}
  ROOT %m = f32[8,16] maximum(%c, %zb)
}

%relu (a: f32[8,16]) -> f32[8,16] {
  %a = f32[8,16] parameter(0)
  ROOT %r = f32[8,16] call(%a), to_apply=%clip
}

%sum (p: f32[], q: f32[]) -> f32[] {
  %p = f32[] parameter(0)
  %q = f32[] parameter(1)
  ROOT %s = f32[] add(%p, %q)
}

ENTRY %e {
  %x = f32[8,16] parameter(0), sharding={devices=[4,1]<=[4]}
  %w = f32[16,16] parameter(1)
  %h1 = f32[8,16] dot(%x, %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %a1 = f32[8,16] call(%h1), to_apply=%relu
  %h2 = f32[8,16] dot(%a1, %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %a2 = f32[8,16] call(%h2), to_apply=%relu
  %zero = f32[] constant(0)
  %r1 = f32[8] reduce(%a1, %zero), dimensions={1}, to_apply=%sum
  %r2 = f32[8] reduce(%a2, %zero), dimensions={1}, to_apply=%sum
  ROOT %t = (f32[8,16], f32[8], f32[8]) tuple(%a2, %r1, %r2)
}
)";

TEST(FlattenCalls, EveryCallSiteGetsItsOwnCallee) {
  auto m = Parse(kShared);
  ASSERT_NE(m, nullptr);
  auto before = m->Clone();
  auto changed = RunFlattenCalls(*m);
  ASSERT_TRUE(changed.ok()) << changed.status().message();
  EXPECT_TRUE(*changed);
  ASSERT_TRUE(VerifyModule(*m).ok());
  Instruction* a1 = Find(*m, "a1");
  Instruction* a2 = Find(*m, "a2");
  ASSERT_NE(a1->to_apply(), a2->to_apply());
  EXPECT_EQ(a1->to_apply()->name(), "relu");
  EXPECT_EQ(a2->to_apply()->name(), "relu.clone");
  // The nested helper is split too: each relu calls its own clip.
  Computation* clip1 = a1->to_apply()->root()->to_apply();
  Computation* clip2 = a2->to_apply()->root()->to_apply();
  EXPECT_NE(clip1, clip2);
  // The reducer, shared by two reduces, is not a call target: one computation still.
  EXPECT_EQ(Find(*m, "r1")->to_apply(), Find(*m, "r2")->to_apply());
  // Instruction names stay unique across the module.
  std::set<std::string> names;
  for (Computation* c : m->computations())
    for (Instruction* i : c->instructions()) EXPECT_TRUE(names.insert(i->name()).second) << i->name();
  // A second run has nothing left to do.
  EXPECT_FALSE(*RunFlattenCalls(*m));
  // Same values as before.
  std::vector<Literal> args = {RandomLiteral(m->entry()->parameter(0)->shape(), 1),
                               RandomLiteral(m->entry()->parameter(1)->shape(), 2)};
  auto want = Execute(*before, args);
  auto got = Execute(*m, args);
  ASSERT_TRUE(want.ok() && got.ok());
  EXPECT_EQ(PrintModule(*before).find("relu.clone"), std::string::npos);
  std::vector<Literal> w = FlattenLeaves(*want), g = FlattenLeaves(*got);
  ASSERT_EQ(w.size(), g.size());
  for (size_t k = 0; k < w.size(); ++k) {
    ASSERT_EQ(w[k].shape().byte_size(), g[k].shape().byte_size());
    EXPECT_EQ(std::memcmp(w[k].raw(), g[k].raw(), w[k].shape().byte_size()), 0) << "output " << k;
  }
}

TEST(FlattenCalls, PropagationThenShardsEveryCallSite) {
  auto shared = Parse(kShared);
  ASSERT_NE(shared, nullptr);
  ASSERT_TRUE(PropagateShardings(*shared).ok());
  auto flat = Parse(kShared);
  ASSERT_TRUE(RunFlattenCalls(*flat).ok());
  ASSERT_TRUE(PropagateShardings(*flat).ok());
  for (const char* name : {"a1", "h2", "a2"}) {
    Instruction* i = Find(*flat, name);
    ASSERT_TRUE(i->has_sharding()) << name;
    EXPECT_EQ(i->sharding()->ToString(false), "{devices=[4,1]<=[4]}") << name;
  }
}

// Bitwise the same outputs from `a` and `b` on the same random arguments.
void ExpectSameValues(const Module& a, const Module& b) {
  std::vector<Literal> args;
  for (int64_t p = 0; p < a.entry()->num_parameters(); ++p)
    args.push_back(RandomLiteral(a.entry()->parameter(p)->shape(), 7 + p));
  auto want = Execute(a, args);
  auto got = Execute(b, args);
  ASSERT_TRUE(want.ok() && got.ok());
  std::vector<Literal> w = FlattenLeaves(*want), g = FlattenLeaves(*got);
  ASSERT_EQ(w.size(), g.size());
  for (size_t k = 0; k < w.size(); ++k) {
    ASSERT_EQ(w[k].shape().byte_size(), g[k].shape().byte_size());
    EXPECT_EQ(std::memcmp(w[k].raw(), g[k].raw(), w[k].shape().byte_size()), 0) << "output " << k;
  }
}

TEST(InlineCalls, EveryCallIsReplacedByItsCallee) {
  auto m = Parse(kShared);
  ASSERT_NE(m, nullptr);
  auto before = m->Clone();
  auto changed = RunInlineCalls(*m);
  ASSERT_TRUE(changed.ok()) << changed.status().message();
  EXPECT_TRUE(*changed);
  ASSERT_TRUE(VerifyModule(*m).ok());
  for (Computation* c : m->computations())
    for (Instruction* i : c->instructions()) EXPECT_NE(i->opcode(), Opcode::kCall) << i->name();
  // relu and clip are gone (nothing calls them); the reducer stays.
  std::set<std::string> computations;
  for (Computation* c : m->computations()) computations.insert(c->name());
  EXPECT_EQ(computations, (std::set<std::string>{"e", "sum"}));
  ExpectSameValues(*before, *m);
  // The printed module is a valid module with the same values.
  auto reparsed = Parse(PrintModule(*m));
  ASSERT_NE(reparsed, nullptr);
  ExpectSameValues(*before, *reparsed);
  EXPECT_FALSE(*RunInlineCalls(*m));
}

// JAX's export: a helper returning a tuple, read through get-tuple-element; a call annotated
// with a sharding; a callee returning its parameter.
constexpr std::string_view kTupleCall = R"(
HloModule m, num_partitions=2

%pair (a: f32[4,6], b: f32[4,6]) -> (f32[4,6], f32[4,6]) {
  %a = f32[4,6] parameter(0)
  %b = f32[4,6] parameter(1)
  %s = f32[4,6] add(%a, %b)
  %d = f32[4,6] subtract(%a, %b)
  ROOT %t = (f32[4,6], f32[4,6]) tuple(%s, %d)
}

%id (x: f32[4,6]) -> f32[4,6] {
  ROOT %x = f32[4,6] parameter(0)
}

ENTRY %e {
  %p = f32[4,6] parameter(0)
  %q = f32[4,6] parameter(1)
  %c = (f32[4,6], f32[4,6]) call(%p, %q), to_apply=%pair
  %g0 = f32[4,6] get-tuple-element(%c), index=0
  %g1 = f32[4,6] get-tuple-element(%c), index=1
  %i = f32[4,6] call(%g1), to_apply=%id, sharding={devices=[2,1]<=[2]}
  ROOT %m = f32[4,6] multiply(%g0, %i)
}
)";

TEST(InlineCalls, TupleResultsAndShardingsOfCalls) {
  auto m = Parse(kTupleCall);
  ASSERT_NE(m, nullptr);
  auto before = m->Clone();
  ASSERT_TRUE(RunInlineCalls(*m).ok());
  ASSERT_TRUE(RunTupleSimplifier(*m).ok());
  ASSERT_TRUE(RunDce(*m).ok());
  ASSERT_TRUE(VerifyModule(*m).ok());
  for (Instruction* i : m->entry()->instructions()) {
    EXPECT_NE(i->opcode(), Opcode::kCall) << i->name();
    EXPECT_FALSE(i->shape().IsTuple()) << i->name() << " is still a tuple";
  }
  // The identity's call kept its constraint, on a copy of the caller's value.
  Instruction* product = m->entry()->root();
  ASSERT_EQ(product->opcode(), Opcode::kMultiply);
  const Instruction* kept = product->operand(1);
  EXPECT_EQ(kept->opcode(), Opcode::kCopy);
  ASSERT_TRUE(kept->has_sharding());
  EXPECT_EQ(kept->sharding()->ToString(false), "{devices=[2,1]<=[2]}");
  ExpectSameValues(*before, *m);
}

TEST(InlineCalls, NamesFollowTheCallSites) {
  auto m = Parse(kShared);
  ASSERT_NE(m, nullptr);
  InlinedNames renamed;
  ASSERT_TRUE(RunInlineCalls(*m, &renamed).ok());
  ASSERT_TRUE(VerifyModule(*m).ok());
  // The calls' values keep the calls' names (the copies of clip's root, through relu's).
  EXPECT_EQ(Find(*m, "a1")->opcode(), Opcode::kMaximum);
  EXPECT_EQ(Find(*m, "a2")->opcode(), Opcode::kMaximum);
  // clip's other instructions keep their names at the first call site; the second gets fresh ones.
  EXPECT_EQ(Find(*m, "zb")->users()[0], Find(*m, "a1"));
  EXPECT_EQ(Find(*m, "zb.1")->users()[0], Find(*m, "a2"));
  std::set<std::string> names;
  for (Computation* c : m->computations())
    for (Instruction* i : c->instructions()) EXPECT_TRUE(names.insert(i->name()).second) << i->name();
  EXPECT_EQ(NamesAfterInlining(*m, renamed, "zb"), (std::vector<std::string>{"zb.1"}));
  // relu's root was a call (to clip), whose value is the calls' now; clip's root likewise.
  EXPECT_EQ(NamesAfterInlining(*m, renamed, "r"), (std::vector<std::string>{"a1", "a2"}));
  EXPECT_EQ(NamesAfterInlining(*m, renamed, "m"), (std::vector<std::string>{"a1", "a2"}));
  EXPECT_TRUE(NamesAfterInlining(*m, renamed, "h1").empty());
}

// A callee called once keeps every name; a call marked inlineable="false" (Shardy's manual
// computation bodies, as XLA's CallInliner leaves them) and its callee stay.
constexpr std::string_view kOnceAndNotInlineable = R"(
HloModule m

%f (a: f32[4]) -> f32[4] {
  %a = f32[4] parameter(0)
  %n = f32[4] negate(%a)
  ROOT %e = f32[4] exponential(%n)
}

%g (b: f32[4]) -> f32[4] {
  %b = f32[4] parameter(0)
  ROOT %s = f32[4] sine(%b)
}

ENTRY %main {
  %x = f32[4] parameter(0)
  %once = f32[4] call(%x), to_apply=%f
  ROOT %kept = f32[4] call(%once), to_apply=%g, frontend_attributes={inlineable="false"}
}
)";

TEST(InlineCalls, OnceKeepsNamesAndNotInlineableStays) {
  auto m = Parse(kOnceAndNotInlineable);
  ASSERT_NE(m, nullptr);
  auto before = m->Clone();
  InlinedNames renamed;
  ASSERT_TRUE(RunInlineCalls(*m, &renamed).ok());
  ASSERT_TRUE(VerifyModule(*m).ok());
  EXPECT_EQ(Find(*m, "n")->parent(), m->entry());
  EXPECT_EQ(Find(*m, "once")->opcode(), Opcode::kExp);
  EXPECT_EQ(Find(*m, "kept")->opcode(), Opcode::kCall);
  EXPECT_EQ(m->computations().size(), 2u);  // main and g
  EXPECT_EQ(renamed, (InlinedNames{{"e", {"once"}}}));
  ExpectSameValues(*before, *m);
}

constexpr std::string_view kSharedConstants = R"(
HloModule m

ENTRY %main {
  %x = f32[4,2] parameter(0)
  %c = f32[2] constant({1, 2})
  %r = f32[2] negate(%c)
  %b = f32[4,2] broadcast(%r), dimensions={1}
  %i = s32[4,2] iota(), iota_dimension=0
  %f = f32[4,2] convert(%i)
  %p = f32[4,2] add(%b, %f)
  %u1 = f32[4,2] multiply(%x, %p)
  %u2 = f32[4,2] subtract(%x, %p)
  %u3 = f32[4,2] add(%u1, %b), sharding={replicated}
  %keep = f32[4,2] broadcast(%r), dimensions={1}, sharding={replicated}
  %u4 = f32[4,2] add(%keep, %u2)
  %u5 = f32[4,2] add(%keep, %u3)
  ROOT %t = (f32[4,2], f32[4,2]) tuple(%u4, %u5)
}
)";

TEST(SplitConstantExpressions, EveryUserGetsItsOwnCopy) {
  auto m = Parse(kSharedConstants);
  ASSERT_NE(m, nullptr);
  auto before = m->Clone();
  auto changed = RunSplitConstantExpressions(*m);
  ASSERT_TRUE(changed.ok()) << changed.status().message();
  EXPECT_TRUE(*changed);
  Status verified = VerifyModule(*m);
  ASSERT_TRUE(verified.ok()) << verified.message();
  // %p (used by u1 and u2) is split, and so are its operands' chains through the copy: every
  // non-constant constant expression has one user.
  for (Instruction* i : m->entry()->instructions()) {
    switch (i->opcode()) {
      case Opcode::kConstant: case Opcode::kParameter: case Opcode::kTuple: break;
      default:
        if (i->name() == "keep") {
          EXPECT_EQ(i->user_count(), 2) << "annotated: stays shared";
        } else if (i->name().rfind("u", 0) != 0) {
          EXPECT_EQ(i->user_count(), 1) << i->name();
        }
    }
  }
  // Constants stay shared: %c by the copies of the negate (one per broadcast: b, its copies for
  // %u3 and %p.1, and keep).
  EXPECT_EQ(Find(*m, "c")->user_count(), 4);
  EXPECT_NE(Find(*m, "u1")->operand(1), Find(*m, "u2")->operand(1));
  EXPECT_EQ(Find(*m, "p.1")->opcode(), Opcode::kAdd);
  ExpectSameValues(*before, *m);
  EXPECT_FALSE(*RunSplitConstantExpressions(*m));
}

}  // namespace
}  // namespace spmdc

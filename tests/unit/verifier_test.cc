// The verifier: structural checks (entry, roots, names, operands, arity, parameter numbers,
// cycles, recursion) and declared-vs-inferred shapes, with and without located diagnostics.
#include "ir/verifier.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hlo/parser.h"
#include "ir_test_builder.h"

namespace spmdc {
namespace {

using ::spmdc::testing::F32;
using ::spmdc::testing::S;
using ::spmdc::testing::S32;
using ::spmdc::testing::TestModule;
using ::testing::HasSubstr;

std::string Verify(const Module& m, const VerifierOptions& options = {}) {
  Status s = VerifyModule(m, nullptr, options);
  if (s.ok()) return "ok";
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  return std::string(s.message());
}

TEST(Verifier, AcceptsWellFormedModule) {
  TestModule t;
  Instruction* a = t.Param(F32({2, 3}));
  Instruction* b = t.Param(F32({2, 3}));
  Instruction* add = t.Add(Opcode::kAdd, F32({2, 3}), {a, b});
  Instruction* r = t.Add(Opcode::kReduce, F32({2}), {add, t.Param(F32({}))});
  r->attrs().Set(AttrId::kDimensions, std::vector<int64_t>{1});
  r->attrs().Set(AttrId::kToApply, t.Binary(DType::kF32));
  EXPECT_EQ(Verify(t.module()), "ok");
}

TEST(Verifier, ShapeMismatchNamesInstruction) {
  TestModule t;
  Instruction* a = t.Param(F32({2}));
  Instruction* b = t.Param(F32({3}));
  Instruction* add = t.Add(Opcode::kAdd, F32({2}), {a, b});
  add->set_name("add.3");
  EXPECT_EQ(Verify(t.module()), "%add.3: operand shapes f32[2] and f32[3] do not match");
}

TEST(Verifier, DeclaredDiffersFromInferred) {
  TestModule t;
  Instruction* a = t.Param(F32({2, 3}));
  Instruction* b = t.Param(F32({3, 4}));
  Instruction* dot = t.Add(Opcode::kDot, F32({2, 5}), {a, b});
  dot->set_name("dot");
  dot->attrs().Set(AttrId::kLhsContractingDims, std::vector<int64_t>{1});
  dot->attrs().Set(AttrId::kRhsContractingDims, std::vector<int64_t>{0});
  EXPECT_EQ(Verify(t.module()), "%dot: inferred shape f32[2,4] but declared f32[2,5]");
  *dot->mutable_shape() = F32({2, 4});
  EXPECT_EQ(Verify(t.module()), "ok");
  // Layouts are ignored; mixed precision is accepted by default only.
  Shape with_layout = F32({2, 4});
  with_layout.set_layout(Layout{{0, 1}, ""});
  *dot->mutable_shape() = with_layout;
  EXPECT_EQ(Verify(t.module()), "ok");
  *dot->mutable_shape() = S(DType::kBF16, {2, 4});
  EXPECT_EQ(Verify(t.module()), "ok");
}

TEST(Verifier, MixedPrecisionOption) {
  TestModule t;
  Instruction* a = t.Param(F32({2}));
  Instruction* b = t.Param(S(DType::kBF16, {2}));
  t.Add(Opcode::kAdd, F32({2}), {a, b});
  EXPECT_EQ(Verify(t.module()), "ok");
  VerifierOptions strict;
  strict.allow_mixed_precision = false;
  EXPECT_THAT(Verify(t.module(), strict), HasSubstr("mix floating-point precisions"));
}

TEST(Verifier, DynamicDimensionsMayDiffer) {
  TestModule t;
  Instruction* a = t.Param(F32({4}));
  Instruction* n = t.Add(Opcode::kGetDimensionSize, S32({}), {a});
  n->attrs().Set(AttrId::kDimensions, std::vector<int64_t>{0});
  Instruction* d = t.Add(Opcode::kSetDimensionSize, F32({4}), {a, n});
  d->attrs().Set(AttrId::kDimensions, std::vector<int64_t>{0});
  t.Add(Opcode::kNegate, F32({4}), {d});
  EXPECT_EQ(Verify(t.module()), "ok");
}

TEST(Verifier, EntryAndRoot) {
  Module m("m");
  EXPECT_THAT(Verify(m), HasSubstr("no entry computation"));
  Computation* c = m.AddComputation(std::make_unique<Computation>("main"), true);
  EXPECT_THAT(Verify(m), HasSubstr("computation %main: has no root"));
  Instruction* p = c->AddInstruction(Opcode::kPartitionId, Shape::Scalar(DType::kU32), "pid");
  c->set_root(p);
  EXPECT_EQ(Verify(m), "ok");
}

TEST(Verifier, DuplicateNames) {
  TestModule t;
  Instruction* a = t.Param(F32({2}));
  Instruction* n = t.Add(Opcode::kNegate, F32({2}), {a});
  n->set_name(a->name());
  EXPECT_THAT(Verify(t.module()), HasSubstr("used more than once"));
}

TEST(Verifier, Arity) {
  TestModule t;
  Instruction* a = t.Param(F32({2}));
  Instruction* n = t.Add(Opcode::kNegate, F32({2}), {a, a});
  n->set_name("neg");
  EXPECT_EQ(Verify(t.module()), "%neg: negate takes 1 operand(s), got 2");
}

TEST(Verifier, OperandFromAnotherComputation) {
  TestModule t;
  Computation* other = t.NewComputation("other");
  Instruction* foreign = t.Param(other, F32({2}));
  Instruction* n = t.Add(Opcode::kNegate, F32({2}), {foreign});
  n->set_name("neg");
  EXPECT_THAT(Verify(t.module()), HasSubstr("%neg: operand 0 (%" + foreign->name() +
                                            ") belongs to another computation"));
}

TEST(Verifier, ParameterNumbers) {
  TestModule t;
  auto p = std::make_unique<Instruction>(Opcode::kParameter, F32({2}), "p2");
  p->set_parameter_number(2);
  Instruction* raw = t.entry()->AddInstruction(std::move(p));
  t.entry()->set_root(raw);
  t.Param(F32({2}));  // number 3: the list has a gap at 0 and 1
  EXPECT_THAT(Verify(t.module()), HasSubstr("%p2: parameter number 2 out of range"));
}

TEST(Verifier, CycleIsReported) {
  TestModule t;
  Instruction* a = t.Param(F32({2}));
  Instruction* x = t.Add(Opcode::kAdd, F32({2}), {a, a});
  Instruction* y = t.Add(Opcode::kNegate, F32({2}), {x});
  x->ReplaceOperandWith(1, y);
  EXPECT_THAT(Verify(t.module()), HasSubstr("part of a cycle"));
}

TEST(Verifier, RecursionIsReported) {
  TestModule t;
  Computation* f = t.NewComputation("f");
  Instruction* p = t.Param(f, F32({2}));
  Instruction* call = t.Add(f, Opcode::kCall, F32({2}), {p});
  call->attrs().Set(AttrId::kToApply, f);
  Instruction* x = t.Param(F32({2}));
  t.Add(Opcode::kCall, F32({2}), {x})->attrs().Set(AttrId::kToApply, f);
  EXPECT_THAT(Verify(t.module()), HasSubstr("recursively"));
}

TEST(Verifier, CalledComputationSignatures) {
  TestModule t;
  Instruction* x = t.Param(F32({4}));
  Instruction* init = t.Param(F32({}));
  Instruction* r = t.Add(Opcode::kReduce, F32({}), {x, init});
  r->set_name("r");
  r->attrs().Set(AttrId::kDimensions, std::vector<int64_t>{0});
  r->attrs().Set(AttrId::kToApply, t.Binary(DType::kF32, Opcode::kCompare, DType::kPred));
  EXPECT_THAT(Verify(t.module()), HasSubstr("%r: reducer"));
}

TEST(Verifier, LocatedDiagnostic) {
  TestModule t;
  Instruction* a = t.Param(F32({2}));
  Instruction* b = t.Param(F32({3}));
  Instruction* add = t.Add(Opcode::kAdd, F32({2}), {a, b});
  add->set_name("add.3");
  add->set_location(SourceLocation{2, 3});
  std::string text = "HloModule m\n  %add.3 = f32[2] add(a, b)\n";
  DiagnosticSource src{"m.hlo", text};
  Status s = VerifyModule(t.module(), &src);
  EXPECT_EQ(std::string(s.message()),
            "m.hlo:2:3: error: %add.3: operand shapes f32[2] and f32[3] do not match\n"
            "  %add.3 = f32[2] add(a, b)\n"
            "  ^");
}

TEST(Verifier, CustomCallAcceptsAnyShape) {
  TestModule t;
  Instruction* x = t.Param(F32({4}));
  Instruction* cc = t.Add(Opcode::kCustomCall, Shape::Tuple({S32({7}), Shape::Token()}), {x});
  cc->attrs().Set(AttrId::kCustomCallTarget, std::string("foo"));
  EXPECT_EQ(Verify(t.module()), "ok");
}

TEST(Verifier, NegativeDimensionRejected) {
  TestModule t;
  t.Param(F32({-3}));
  EXPECT_THAT(Verify(t.module()), HasSubstr("negative dimension"));
}

// ---- From HLO text ---------------------------------------------------------------------------

std::string VerifyText(std::string_view text) {
  StatusOr<std::unique_ptr<Module>> m = ParseHloModule(text, "t.hlo");
  if (!m.ok()) return "parse error: " + std::string(m.status().message());
  DiagnosticSource src{"t.hlo", text};
  Status s = VerifyModule(**m, &src);
  return s.ok() ? "ok" : std::string(s.message());
}

TEST(VerifierText, AcceptsJaxStyleModule) {
  EXPECT_EQ(VerifyText(R"(
HloModule jit_f, num_partitions=4

%region_0.5 (Arg_0.6: f32[], Arg_1.7: f32[]) -> f32[] {
  %Arg_0.6 = f32[] parameter(0)
  %Arg_1.7 = f32[] parameter(1)
  ROOT %add.8 = f32[] add(f32[] %Arg_0.6, f32[] %Arg_1.7)
}

ENTRY %main.10 (Arg_0.1: bf16[8,16], Arg_1.2: bf16[16,32]) -> f32[8] {
  %Arg_0.1 = bf16[8,16]{1,0} parameter(0), sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
  %Arg_1.2 = bf16[16,32]{1,0} parameter(1), sharding={devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}
  %dot.3 = f32[8,32]{1,0} dot(%Arg_0.1, %Arg_1.2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %custom-call.4 = f32[8,32]{1,0} custom-call(%dot.3), custom_call_target="Sharding", sharding={devices=[4,1]<=[4]}
  %constant.9 = f32[] constant(0)
  ROOT %reduce.11 = f32[8]{0} reduce(%custom-call.4, %constant.9), dimensions={1}, to_apply=%region_0.5
}
)"),
            "ok");
}

TEST(VerifierText, LocatesTheOffendingInstruction) {
  std::string text = R"(HloModule m

ENTRY %main (a: f32[2,6]) -> f32[2,6] {
  %a = f32[2,6] parameter(0)
  %t = f32[6,3] transpose(%a), dimensions={1,0}
  ROOT %n = f32[2,6] negate(%a)
}
)";
  EXPECT_EQ(VerifyText(text),
            "t.hlo:5:3: error: %t: inferred shape f32[6,2] but declared f32[6,3]\n"
            "  %t = f32[6,3] transpose(%a), dimensions={1,0}\n"
            "  ^");
}

TEST(VerifierText, ShapeOmittedIsInferredByTheParser) {
  EXPECT_EQ(VerifyText(R"(HloModule m
ENTRY %main (a: f32[2], b: s32[]) -> (f32[2], s32[]) {
  %a = f32[2] parameter(0)
  %b = s32[] parameter(1)
  ROOT %t = tuple(%a, %b)
}
)"),
            "ok");
}

}  // namespace
}  // namespace spmdc

// Tests of the HLO printer: canonical text, print/parse fixpoint, and exact round trips of
// modules and literals.
#include "hlo/printer.h"

#include <cstring>
#include <random>

#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "hlo_corpus.h"
#include "sharding/sharding.h"

namespace spmdc {
namespace {

std::unique_ptr<Module> Parse(std::string_view text) {
  auto m = ParseHloModule(text, "test.hlo");
  EXPECT_TRUE(m.ok()) << m.status().message() << "\n" << text;
  return m.ok() ? std::move(m).value() : nullptr;
}

// Structural equality of two modules (names, shapes with layouts, operands, attributes,
// literals bit for bit, shardings by text). Reports the first difference.
std::string Diff(const Module& a, const Module& b) {
  if (a.name() != b.name()) return "module name";
  if (a.config().entries().size() != b.config().entries().size()) return "config size";
  for (const auto& [id, v] : a.config().entries()) {
    const AttrValue* w = b.config().Find(id);
    if (!w || !(*w == v)) return fmt::format("config {}", AttrName(id));
  }
  if (a.config().unknown() != b.config().unknown()) return "config unknown";
  if (a.computations().size() != b.computations().size()) return "computation count";
  if (a.entry()->name() != b.entry()->name()) return "entry";
  for (Computation* ca : a.computations()) {
    Computation* cb = b.GetComputation(ca->name());
    if (!cb) return fmt::format("missing computation {}", ca->name());
    if (ca->execution_thread() != cb->execution_thread()) return "execution thread";
    auto ia = ca->MakeInstructionPostOrder();
    auto ib = cb->MakeInstructionPostOrder();
    if (ia.size() != ib.size()) return fmt::format("instruction count in {}", ca->name());
    if (ca->root()->name() != cb->root()->name()) return fmt::format("root of {}", ca->name());
    for (size_t k = 0; k < ia.size(); ++k) {
      const Instruction& x = *ia[k];
      const Instruction& y = *ib[k];
      std::string where = fmt::format("instruction {} vs {}", x.name(), y.name());
      if (x.name() != y.name() || x.opcode() != y.opcode()) return where;
      if (!x.shape().Equal(y.shape(), /*compare_layout=*/true)) return where + ": shape";
      if (x.parameter_number() != y.parameter_number()) return where + ": parameter number";
      if (x.operand_count() != y.operand_count()) return where + ": operand count";
      for (int64_t o = 0; o < x.operand_count(); ++o)
        if (x.operand(o)->name() != y.operand(o)->name()) return where + ": operand";
      if ((x.literal() == nullptr) != (y.literal() == nullptr)) return where + ": literal";
      if (x.literal() && !x.literal()->BitwiseEqual(*y.literal())) return where + ": literal bits";
      if (x.has_sharding() != y.has_sharding()) return where + ": sharding presence";
      if (x.has_sharding() && !(*x.sharding() == *y.sharding())) return where + ": sharding";
      if (x.attrs().unknown() != y.attrs().unknown()) return where + ": unknown attributes";
      if (x.attrs().entries().size() != y.attrs().entries().size()) return where + ": attr count";
      for (const auto& [id, v] : x.attrs().entries()) {
        const AttrValue* w = y.attrs().Find(id);
        if (!w) return where + fmt::format(": missing {}", AttrName(id));
        if (auto* c = std::get_if<Computation*>(&v)) {
          if ((*c)->name() != std::get<Computation*>(*w)->name()) return where + ": computation";
        } else if (auto* cl = std::get_if<std::vector<Computation*>>(&v)) {
          const auto& dl = std::get<std::vector<Computation*>>(*w);
          if (cl->size() != dl.size()) return where + ": computations";
          for (size_t i = 0; i < cl->size(); ++i)
            if ((*cl)[i]->name() != dl[i]->name()) return where + ": computations";
        } else if (auto* il = std::get_if<std::vector<Instruction*>>(&v)) {
          const auto& jl = std::get<std::vector<Instruction*>>(*w);
          if (il->size() != jl.size()) return where + ": instruction list";
          for (size_t i = 0; i < il->size(); ++i)
            if ((*il)[i]->name() != jl[i]->name()) return where + ": instruction list";
        } else if (auto* d = std::get_if<double>(&v)) {
          double e = std::get<double>(*w);
          if (std::memcmp(d, &e, sizeof(double)) != 0) return where + ": float attribute";
        } else if (!(v == *w)) {
          return where + fmt::format(": attribute {}", AttrName(id));
        }
      }
    }
  }
  return "";
}

TEST(HloPrinter, CanonicalText) {
  std::unique_ptr<Module> m;
  EXPECT_FALSE(ParseHloModule(R"(HloModule m
ENTRY e {
  p = f32[] parameter(0)
  r = f32[] add(p, z)
  z = f32[] constant(0)
})").ok());  // z is used before it is defined
  m = Parse(R"(HloModule m, num_partitions=2, is_scheduled=true
add { a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b) }
ENTRY e {
  p = f32[4]{0} parameter(0), sharding={devices=[2]0,1}, metadata={op_name="p"}
  c = f32[4] constant({1, 2.5, -0, 1e+20})
  z = f32[] constant(0)
  r = f32[] reduce(p, z), to_apply=add, dimensions={0}
})");
  ASSERT_TRUE(m);
  EXPECT_EQ(PrintModule(*m), R"(HloModule m, is_scheduled=true, num_partitions=2

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}

ENTRY %e (p: f32[4]{0}) -> f32[] {
  %p = f32[4]{0} parameter(0), sharding={devices=[2]<=[2]}, metadata={op_name="p"}
  %c = f32[4] constant({1, 2.5, -0, 1e+20})
  %z = f32[] constant(0)
  ROOT %r = f32[] reduce(%p, %z), dimensions={0}, to_apply=%add
}
)");
  PrintOptions bare;
  bare.print_layouts = false;
  bare.print_metadata = false;
  bare.print_shardings = false;
  EXPECT_EQ(PrintInstruction(*m->entry()->parameter(0), bare), "%p = f32[4] parameter(0)");
  EXPECT_EQ(PrintInstruction(*m->entry()->root()),
            "%r = f32[] reduce(%p, %z), dimensions={0}, to_apply=%add");
}

TEST(HloPrinter, PrintParseFixpointOnCorpus) {
  for (std::string_view text : testing::kHloCorpus) {
    auto m = Parse(text);
    ASSERT_TRUE(m);
    std::string once = PrintModule(*m);
    auto again = Parse(once);
    ASSERT_TRUE(again) << once;
    EXPECT_EQ(Diff(*m, *again), "") << once;
    EXPECT_EQ(PrintModule(*again), once);
  }
}

TEST(HloPrinter, AttributeForms) {
  auto m = Parse(testing::kHloCorpus[5]);
  ASSERT_TRUE(m);
  std::string text = PrintModule(*m);
  for (std::string_view want : {
           "window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, "
           "feature_group_count=1",
           "window={size=1x3x3x1 pad=0_0x1_1x1_1x0_0 rhs_reversal=0x0x1x0}",
           "padding=0_0_0x1_1_0x0_2_1x0_0_0",
           "slice={[0:1], [0:6:2], [1:4], [0:2]}",
           "replica_groups={{0,1},{2,3}}",
           "replica_groups=[2,2]<=[4]",
           "replica_groups=[2,2]<=[2,2]T(1,0)",
           "source_target_pairs={{0,1},{1,0}}",
           "condition=%cond, body=%body, backend_config={\"known_trip_count\":{\"n\":\"10\"}}",
           "control-predecessors={%after}",
           "direction=GE, type=TOTALORDER",
           "select=%ge, scatter=%max",
       }) {
    EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
  }
}

TEST(HloPrinter, EntryIsPrintedLastAndMarked) {
  EXPECT_FALSE(ParseHloModule(R"(HloModule m
ENTRY main {
  p = f32[] parameter(0)
  ROOT c = f32[] call(p), to_apply=f
}
)").ok());  // f is not defined yet
  auto m = Parse(R"(HloModule m
f {
  x = f32[] parameter(0)
  ROOT n = f32[] negate(x)
}
ENTRY main {
  p = f32[] parameter(0)
  ROOT c = f32[] call(p), to_apply=f
}
g {
  y = f32[] parameter(0)
  ROOT n2 = f32[] negate(y)
}
)");
  ASSERT_TRUE(m);
  std::string text = PrintModule(*m);
  size_t entry = text.find("ENTRY %main");
  ASSERT_NE(entry, std::string::npos);
  EXPECT_GT(entry, text.find("%g ("));
  EXPECT_GT(entry, text.find("%f ("));
}

// Random bit patterns of every dtype survive print -> parse exactly.
TEST(HloPrinter, LiteralBitsRoundTrip) {
  std::mt19937_64 rng(7);
  const DType types[] = {DType::kPred, DType::kS2, DType::kS4, DType::kS8, DType::kS16,
                         DType::kS32, DType::kS64, DType::kU2, DType::kU4, DType::kU8,
                         DType::kU16, DType::kU32, DType::kU64, DType::kF16, DType::kBF16,
                         DType::kF32, DType::kF64, DType::kC64, DType::kC128,
                         DType::kF8E5M2, DType::kF8E4M3FN, DType::kF8E4M3B11FNUZ,
                         DType::kF8E5M2FNUZ, DType::kF8E4M3FNUZ};
  for (DType t : types) {
    Module module("lits");
    auto comp = std::make_unique<Computation>("e");
    Shape shape(t, {4, 64});
    Literal lit(shape);
    int64_t n = shape.num_elements();
    for (int64_t i = 0; i < n; ++i) {
      uint64_t bits = rng();
      switch (DTypeFamilyOf(t)) {
        case DTypeFamily::kBool: lit.SetInt(i, bits & 1); break;
        case DTypeFamily::kSigned:
        case DTypeFamily::kUnsigned: lit.SetInt(i, static_cast<int64_t>(bits)); break;
        default: {
          std::byte* p = lit.mutable_raw() + i * DTypeByteSize(t);
          for (int b = 0; b < DTypeByteSize(t); ++b) p[b] = static_cast<std::byte>(rng());
          if (IsF8(t)) {
            // f8 NaNs have no payload syntax: replace them by a number.
            if (std::isnan(lit.GetDouble(i))) lit.SetDouble(i, 1.5);
          }
          if (i < 4 && IsFloat(t) && !IsF8(t)) {
            // Make sure special values are covered.
            const double specials[] = {0.0, -0.0, INFINITY, -NAN};
            lit.SetDouble(i, specials[i]);
          }
        }
      }
    }
    auto instr = std::make_unique<Instruction>(Opcode::kConstant, shape, "c");
    instr->set_literal(lit);
    Instruction* raw = comp->AddInstruction(std::move(instr));
    comp->set_root(raw);
    module.AddComputation(std::move(comp), /*is_entry=*/true);
    std::string text = PrintModule(module);
    auto parsed = ParseHloModule(text);
    ASSERT_TRUE(parsed.ok()) << DTypeName(t) << ": " << parsed.status().message();
    const Literal* back = (*parsed)->entry()->root()->literal();
    ASSERT_TRUE(back);
    bool equal = back->BitwiseEqual(lit);
    EXPECT_TRUE(equal) << DTypeName(t);
    if (!equal) {
      for (int64_t i = 0; i < n; ++i) {
        if (std::memcmp(back->raw() + i * DTypeByteSize(t), lit.raw() + i * DTypeByteSize(t),
                        DTypeByteSize(t)) != 0) {
          ADD_FAILURE() << DTypeName(t) << " element " << i << ": " << lit.ElementToString(i)
                        << " came back as " << back->ElementToString(i);
          break;
        }
      }
    }
    EXPECT_TRUE(PrintModule(**parsed) == text) << DTypeName(t);
  }
}

TEST(HloPrinter, BuiltModuleWithoutParsing) {
  Module module("built");
  module.set_num_partitions(4);
  auto comp = std::make_unique<Computation>("main");
  Instruction* p = comp->AddInstruction(
      [] {
        auto i = std::make_unique<Instruction>(Opcode::kParameter, Shape(DType::kF32, {8}), "p");
        i->set_parameter_number(0);
        return i;
      }());
  Instruction* neg = comp->AddInstruction(Opcode::kNegate, Shape(DType::kF32, {8}), "neg", {p});
  Instruction* t = comp->AddInstruction(Opcode::kTuple, Shape::Tuple({neg->shape()}), "t", {neg});
  comp->set_root(t);
  module.AddComputation(std::move(comp), true);
  EXPECT_EQ(PrintModule(module), R"(HloModule built, num_partitions=4

ENTRY %main (p: f32[8]) -> (f32[8]) {
  %p = f32[8] parameter(0)
  %neg = f32[8] negate(%p)
  ROOT %t = (f32[8]) tuple(%neg)
}
)");
}

}  // namespace
}  // namespace spmdc

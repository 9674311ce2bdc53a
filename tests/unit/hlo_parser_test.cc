// Tests of the HLO text parser: the accepted syntax, the typed attributes it builds, located
// errors, and robustness on malformed input.
#include "hlo/parser.h"

#include <chrono>
#include <ctime>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>

#include "gtest/gtest.h"
#include "hlo/lexer.h"
#include "hlo/printer.h"
#include "hlo_corpus.h"
#include "sharding/sharding.h"

namespace spmdc {
namespace {

std::unique_ptr<Module> Parse(std::string_view text) {
  auto m = ParseHloModule(text, "test.hlo");
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? std::move(m).value() : nullptr;
}

// The error message for `text`, which must fail to parse.
std::string ParseError(std::string_view text, const ParseOptions& options = {}) {
  auto m = ParseHloModule(text, "bad.hlo", options);
  EXPECT_FALSE(m.ok());
  if (m.ok()) return "";
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(m.status().message());
}

Instruction* Find(const Module& m, std::string_view name) {
  for (Computation* c : m.computations())
    for (Instruction* i : c->instructions())
      if (i->name() == name) return i;
  return nullptr;
}

TEST(HloParser, EveryCorpusModuleParses) {
  for (std::string_view text : testing::kHloCorpus) {
    auto m = ParseHloModule(text, "corpus.hlo");
    EXPECT_TRUE(m.ok()) << m.status().message() << "\n" << text;
  }
}

TEST(HloParser, ModuleStructure) {
  auto m = Parse(testing::kHloCorpus[0]);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name(), "reduce_module");
  ASSERT_EQ(m->computations().size(), 2u);
  Computation* entry = m->entry();
  ASSERT_TRUE(entry);
  EXPECT_EQ(entry->name(), "main.5");
  EXPECT_EQ(entry->num_parameters(), 1);
  EXPECT_EQ(entry->root()->name(), "reduce.4");
  EXPECT_EQ(entry->root()->opcode(), Opcode::kReduce);
  EXPECT_EQ(entry->root()->to_apply()->name(), "add.clone");
  EXPECT_EQ(entry->root()->dimensions(), std::vector<int64_t>{1});
  EXPECT_EQ(entry->root()->operand(1)->name(), "constant.2");
  const bool* sched = m->config().Get<bool>(AttrId::kIsScheduled);
  ASSERT_TRUE(sched);
  EXPECT_TRUE(*sched);
  const auto* layout = m->config().Get<std::string>(AttrId::kEntryComputationLayout);
  ASSERT_TRUE(layout);
  EXPECT_EQ(*layout, "{(f32[8,16]{1,0})->f32[8]{0}}");
  Instruction* p = Find(*m, "Arg_0.1");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->parameter_number(), 0);
  ASSERT_TRUE(p->has_sharding());
  EXPECT_EQ(p->sharding()->ToString(), "{devices=[2,1]<=[2]}");
  ASSERT_TRUE(p->shape().layout().has_value());
  EXPECT_EQ(p->shape().layout()->minor_to_major, (std::vector<int64_t>{1, 0}));
  const auto* md = entry->root()->attr<KeyValueList>(AttrId::kMetadata);
  ASSERT_TRUE(md);
  ASSERT_EQ(md->size(), 4u);
  EXPECT_EQ((*md)[0], (std::pair<std::string, std::string>{"op_type", "\"reduce_sum\""}));
  EXPECT_EQ((*md)[3], (std::pair<std::string, std::string>{"source_line", "12"}));
}

TEST(HloParser, NoEntryNoRootNoPercent) {
  auto m = Parse(testing::kHloCorpus[1]);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->entry()->name(), "main");  // last computation
  EXPECT_EQ(m->entry()->root()->name(), "g");  // last instruction
  Instruction* t = Find(*m, "t");
  ASSERT_TRUE(t);
  // The omitted shape was inferred.
  EXPECT_EQ(t->shape().ToString(), "(f32[3], f32[3])");
  EXPECT_EQ(Find(*m, "p0")->shape().ToString(), "f32[3]");
}

TEST(HloParser, NamesReusedAcrossComputationsAreRenamed) {
  auto m = Parse(R"(HloModule m
a {
  x = f32[] parameter(0)
  ROOT y = f32[] negate(x)
}
ENTRY e {
  x = f32[] parameter(0)
  ROOT y = f32[] call(x), to_apply=a
})");
  ASSERT_TRUE(m);
  Computation* e = m->entry();
  EXPECT_NE(e->parameter(0)->name(), "x");
  EXPECT_EQ(e->root()->operand(0), e->parameter(0));
  EXPECT_NE(e->root()->name(), "y");
}

TEST(HloParser, JaxHeaderAndCustomCalls) {
  auto m = Parse(testing::kHloCorpus[2]);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->num_partitions(), 8);
  const auto* to_params = m->config().Get<std::vector<bool>>(AttrId::kAllowPropagationToParameters);
  ASSERT_TRUE(to_params);
  EXPECT_EQ(*to_params, (std::vector<bool>{true, false}));
  const auto* fa = m->config().Get<KeyValueList>(AttrId::kFrontendAttributes);
  ASSERT_TRUE(fa);
  EXPECT_EQ((*fa)[0].first, "xla.sdy.meshes");
  Instruction* cc = Find(*m, "custom-call.4");
  ASSERT_TRUE(cc);
  EXPECT_TRUE(cc->IsCustomCall("Sharding"));
  EXPECT_EQ(*cc->attr<std::string>(AttrId::kBackendConfig), "\"unspecified_dims=[1]\"");
  Instruction* dot = Find(*m, "dot.3");
  EXPECT_EQ(dot->ints_attr(AttrId::kLhsContractingDims), std::vector<int64_t>{1});
  EXPECT_EQ(*dot->attr<std::vector<std::string>>(AttrId::kOperandPrecision),
            (std::vector<std::string>{"default", "highest"}));
  Instruction* c6 = Find(*m, "custom-call.6");
  EXPECT_TRUE(c6->bool_attr(AttrId::kCustomCallHasSideEffect));
  EXPECT_EQ(c6->string_attr(AttrId::kApiVersion), "API_VERSION_STATUS_RETURNING");
  EXPECT_EQ(*c6->attr<std::string>(AttrId::kOutputToOperandAliasing), "{{}: (0, {})}");
  EXPECT_EQ(c6->attr<std::vector<Shape>>(AttrId::kOperandLayoutConstraints)->at(0).ToString(),
            "f32[4,16]{1,0}");
}

TEST(HloParser, Shapes) {
  auto m = Parse(testing::kHloCorpus[3]);
  ASSERT_TRUE(m);
  const Shape& s = m->entry()->parameter(0)->shape();
  ASSERT_TRUE(s.IsTuple());
  EXPECT_EQ(s.tuple_shape(0).layout()->tail, "T(8,128)");
  EXPECT_TRUE(s.tuple_shape(1).is_dynamic_dim(0));
  EXPECT_EQ(s.tuple_shape(1).dim(0), 4);
  EXPECT_EQ(s.tuple_shape(1).dim(1), Shape::kUnbounded);
  EXPECT_TRUE(s.tuple_shape(2).IsToken());
  EXPECT_EQ(m->replica_count(), 2);
  EXPECT_EQ(m->entry()->parameter(20)->shape().layout()->tail, "T(128)S(1)");

  auto shape = ParseShape("(f32[2,3]{1,0}, token[], s32[<=5])");
  ASSERT_TRUE(shape.ok()) << shape.status().message();
  EXPECT_EQ(shape->ToString(), "(f32[2,3]{1,0}, token[], s32[<=5])");
  EXPECT_FALSE(ParseShape("f32[2] x").ok());
  EXPECT_FALSE(ParseShape("f33[2]").ok());
  EXPECT_FALSE(ParseShape("f32[9223372036854775807,4]").ok());  // int64 overflow
}

TEST(HloParser, Constants) {
  auto m = Parse(testing::kHloCorpus[4]);
  ASSERT_TRUE(m);
  auto lit = [&](std::string_view name) { return Find(*m, name)->literal(); };
  EXPECT_EQ(lit("c0")->GetDouble(0), -1500.0);
  EXPECT_EQ(lit("c1")->GetDouble(5), 6.0);
  EXPECT_EQ(lit("c2")->GetInt(1), 0);
  EXPECT_EQ(lit("c3")->GetComplex(1), std::complex<double>(-0.5, 3));
  EXPECT_NEAR(lit("c4")->GetDouble(0), 0.1, 1e-3);
  EXPECT_EQ(lit("c5")->GetDouble(0), 65504.0);
  EXPECT_TRUE(std::signbit(lit("c5")->GetDouble(2)));
  EXPECT_EQ(lit("c6")->GetDouble(1), 448.0);
  const Literal* c7 = lit("c7");
  EXPECT_TRUE(std::isnan(c7->GetDouble(0)));
  EXPECT_EQ(c7->GetDouble(1), INFINITY);
  EXPECT_EQ(c7->GetDouble(2), -INFINITY);
  uint32_t bits;
  std::memcpy(&bits, c7->data<float>() + 4, 4);
  EXPECT_EQ(bits, 0x7f800000u | 0x1234u);
  std::memcpy(&bits, c7->data<float>() + 3, 4);
  EXPECT_EQ(bits, 0xffc00000u);
  EXPECT_EQ(lit("c8")->GetDouble(0), 1e-300);
  EXPECT_EQ(lit("c9")->GetInt(0), 16);
  EXPECT_EQ(lit("c9")->GetInt(1), -2147483648LL);
  EXPECT_EQ(lit("c10")->GetUint(0), 18446744073709551615ULL);
  EXPECT_EQ(lit("c11")->num_elements(), 4);
  EXPECT_EQ(lit("c12")->num_elements(), 0);
  EXPECT_EQ(lit("c13")->num_elements(), 0);
  const Literal* c14 = lit("c14");
  ASSERT_TRUE(c14->shape().IsTuple());
  EXPECT_EQ(c14->element(1).element(0).GetInt(1), 2);
  EXPECT_EQ(c14->element(1).element(1).GetInt(0), 1);
  EXPECT_EQ(lit("c15")->GetInt(0), -8);
  EXPECT_EQ(lit("c16")->GetComplex(0), std::complex<double>(1e300, -2));
  EXPECT_EQ(lit("c17")->GetDouble(0), 3.0);
  uint16_t half_bits[2];
  std::memcpy(half_bits, lit("c18")->raw(), 4);
  EXPECT_EQ(half_bits[0], 0x7fc0);  // bf16 quiet NaN
  EXPECT_EQ(half_bits[1], 0xff80);  // -inf
}

TEST(HloParser, ElidedConstantsAreDeterministic) {
  auto a = Parse(testing::kHloCorpus[4]);
  auto b = Parse(testing::kHloCorpus[4]);
  ASSERT_TRUE(a && b);
  EXPECT_TRUE(Find(*a, "c11")->literal()->BitwiseEqual(*Find(*b, "c11")->literal()));
}

TEST(HloParser, TypedAttributes) {
  auto m = Parse(testing::kHloCorpus[5]);
  ASSERT_TRUE(m);
  Instruction* conv = Find(*m, "conv");
  const Window* w = conv->attr<Window>(AttrId::kWindow);
  ASSERT_TRUE(w);
  ASSERT_EQ(w->dims.size(), 2u);
  EXPECT_EQ(w->dims[0].size, 3);
  EXPECT_EQ(w->dims[1].stride, 2);
  EXPECT_EQ(w->dims[1].padding_low, 1);
  const ConvDims* cd = conv->attr<ConvDims>(AttrId::kDimLabels);
  ASSERT_TRUE(cd);
  EXPECT_EQ(cd->input_batch, 0);
  EXPECT_EQ(cd->input_feature, 3);
  EXPECT_EQ(cd->input_spatial, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(cd->kernel_input_feature, 2);
  EXPECT_EQ(cd->kernel_output_feature, 3);
  EXPECT_EQ(cd->kernel_spatial, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(Find(*m, "rw")->attr<Window>(AttrId::kWindow)->dims[2].window_reversal, true);
  const PaddingConfig* pad = Find(*m, "pad")->attr<PaddingConfig>(AttrId::kPadding);
  ASSERT_TRUE(pad);
  EXPECT_EQ(pad->dims[2], (PaddingDim{0, 2, 1}));
  const SliceSpec* slice = Find(*m, "slice")->attr<SliceSpec>(AttrId::kSlice);
  EXPECT_EQ(slice->strides, (std::vector<int64_t>{1, 2, 1, 1}));
  EXPECT_EQ(slice->limits, (std::vector<int64_t>{1, 6, 4, 2}));
  const ReplicaGroups* rg = Find(*m, "ar")->attr<ReplicaGroups>(AttrId::kReplicaGroups);
  EXPECT_EQ(rg->groups, (std::vector<std::vector<int64_t>>{{0, 1}, {2, 3}}));
  const ReplicaGroups* iota = Find(*m, "a2a")->attr<ReplicaGroups>(AttrId::kReplicaGroups);
  ASSERT_TRUE(iota->iota);
  EXPECT_EQ(iota->Expanded(), (std::vector<std::vector<int64_t>>{{0, 2}, {1, 3}}));
  EXPECT_EQ(*Find(*m, "cp")->attr<PairList>(AttrId::kSourceTargetPairs),
            (PairList{{0, 1}, {1, 0}}));
  Instruction* w2 = Find(*m, "w");
  EXPECT_EQ(w2->called_computations().size(), 2u);
  EXPECT_EQ(w2->computation_attr(AttrId::kCondition)->name(), "cond");
  EXPECT_EQ(*w2->attr<std::string>(AttrId::kBackendConfig), R"({"known_trip_count":{"n":"10"}})");
  Instruction* pid = Find(*m, "pid");
  ASSERT_TRUE(pid->control_predecessors());
  EXPECT_EQ(pid->control_predecessors()->at(0)->name(), "after");
  EXPECT_EQ(Find(*m, "after")->control_successors().at(0), pid);
  Instruction* out = Find(*m, "out");
  EXPECT_TRUE(out->attrs().unknown().empty());
  EXPECT_EQ(*out->attr<std::string>(AttrId::kStatistics), "{visualizing_index=1,stat-name=0.5}");
  EXPECT_EQ(Find(*m, "rp")->int_attr(AttrId::kMantissaBits), 10);
  EXPECT_EQ(Find(*m, "fft")->string_attr(AttrId::kFftType), "FFT");
  EXPECT_EQ(Find(*m, "srt")->bool_attr(AttrId::kIsStable), true);
}

TEST(HloParser, AsyncForms) {
  auto m = Parse(testing::kHloCorpus[6]);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->GetComputation("called")->execution_thread(), "host");
  Instruction* as = Find(*m, "as");
  EXPECT_EQ(as->opcode(), Opcode::kAsyncStart);
  EXPECT_EQ(as->string_attr(AttrId::kAsyncExecutionThread), "host");
  Instruction* cs = Find(*m, "call-start");
  ASSERT_TRUE(cs);
  EXPECT_EQ(cs->opcode(), Opcode::kAsyncStart);
  ASSERT_EQ(cs->called_computations().size(), 1u);
  Computation* wrapped = cs->called_computations()[0];
  EXPECT_EQ(wrapped->root()->opcode(), Opcode::kCall);
  EXPECT_EQ(wrapped->root()->to_apply()->name(), "called");
  EXPECT_EQ(wrapped->execution_thread(), "host");
  EXPECT_EQ(Find(*m, "call-done")->opcode(), Opcode::kAsyncDone);
  EXPECT_EQ(Find(*m, "agd")->opcode(), Opcode::kAllGatherDone);
}

TEST(HloParser, HeaderAttributesAndLayout) {
  auto m = Parse(testing::kHloCorpus[7]);
  ASSERT_TRUE(m);
  EXPECT_EQ(*m->config().Get<std::string>(AttrId::kInputOutputAlias),
            "{ {0}: (0, {}, may-alias) }");
  EXPECT_EQ(*m->config().Get<std::string>(AttrId::kBufferDonor), "{ (1, {}) }");
  EXPECT_EQ(*m->config().Get<std::vector<bool>>(AttrId::kAllowPropagationToOutput),
            std::vector<bool>{true});
  EXPECT_EQ(m->entry()->root()->operand_count(), 2);
}

TEST(HloParser, EveryOpcodeByName) {
  for (int i = 0; i < kNumOpcodes; ++i) {
    Opcode op = static_cast<Opcode>(i);
    if (op == Opcode::kParameter || op == Opcode::kConstant) continue;
    int arity = OpcodeArity(op);
    if (arity == kVariadic) arity = 2;
    std::string operands;
    for (int k = 0; k < arity; ++k) operands += k ? ", p" : "p";
    std::string text = fmt::format(
        "HloModule m\nENTRY e {{\n  p = f32[2] parameter(0)\n  ROOT r = f32[2] {}({})\n}}\n",
        OpcodeName(op), operands);
    auto m = ParseHloModule(text);
    if (!m.ok()) {
      // The name is known; only the opcode's own rules (required attributes, a scalar
      // conditional index) may refuse this bare use.
      std::string msg(m.status().message());
      EXPECT_TRUE(msg.find("is expected but not seen") != std::string::npos ||
                  msg.find("first operand of a conditional") != std::string::npos)
          << OpcodeName(op) << ": " << msg;
      continue;
    }
    EXPECT_EQ((*m)->entry()->root()->opcode(), op);
  }
}

TEST(HloParser, LocatedErrors) {
  struct Case {
    std::string_view text;
    std::string_view message;
  };
  const Case cases[] = {
      {"HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] addd(p, p)\n}",
       "bad.hlo:4:18: error: unknown opcode 'addd'"},
      {"HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] add(p, x)\n}",
       "bad.hlo:4:25: error: undefined operand %x"},
      {"HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n  p = f32[] negate(p)\n}",
       "bad.hlo:4:3: error: duplicate instruction name %p"},
      {"HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] negate(p\n}",
       "bad.hlo:5:1: error: expected ')' after operands, found '}'"},
      {"HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n  r = f32[2] constant({1,2,3})\n}",
       "too many elements in dimension 0 of the constant (expected 2)"},
      {"HloModule m\nENTRY e {\n  r = s8[] constant(300)\n}", "300 is out of range for s8"},
      {"HloModule m\nENTRY e {\n  r = f32[] negate(), dimensions={1,}\n}", "negate takes 1 operand"},
      {"HloModule m\nENTRY e {\n  p = f32[] parameter(0), sharding={devices=[2,2]<=[3]}\n}",
       "bad.hlo:3:"},
      {"HloModule m\nENTRY e {\n  p = f32[] parameter(0), metadata={}, metadata={}\n}",
       "duplicate attribute 'metadata'"},
      {"HloModule m\nENTRY e {\n  p = f32[] parameter(0), foo=1\n}",
       "bad.hlo:3:27: error: unexpected attribute \"foo\" on parameter"},
      {"HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n  r = f32[] call(p), to_apply=nope\n}",
       "unknown computation %nope"},
      {"HloModule m\nENTRY e {\n  p = f32[] parameter(1)\n}", "has no parameter(0)"},
      {"HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n  q = f32[] parameter(0)\n}",
       "duplicate parameter(0)"},
      {"HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n", "expected '}' to end the computation"},
      {"HloModule m\n", "expected a computation"},
      {"", "bad.hlo:1:1: error: expected 'HloModule', found end of input"},
      {"HloModule m\nENTRY e {\n  p = f32[] parameter(0), metadata={op_name=\"x}\n}",
       "unterminated string"},
      {"HloModule m\nENTRY e {\n  t = tuple(p)\n}", "undefined operand %p"},
      {"HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n  r = get-tuple-element(p), index=0\n}",
       "cannot infer the shape of %r"},
      {"HloModule m\nENTRY e {\n  c = f32[2] constant({1, 2})\n  ROOT a = f32[2] add(c, c)\n  "
       "ROOT b = f32[2] add(c, c)\n}",
       "second ROOT"},
      {"HloModule m\nENTRY e {\n  c = f32[100000000] constant({1})\n}",
       "more elements than the text holds"},
      {"HloModule m\nENTRY e {\n  c = f32[2] custom-call(), custom_call_target=\"x\", window={size=2 stride=1x1}\n}",
       "window stride has 2 dimensions, size has 1"},
      {"HloModule m\nENTRY e {\n  c = f32[] custom-call(), custom_call_target=\"x\", dim_labels=b01f_01io->b0f\n}",
       "invalid dim_labels"},
      {"HloModule m\nENTRY e {\n  c = f32[] all-reduce(), replica_groups=[2,2]<=[5]\n}",
       "does not match"},
      {"HloModule m\nENTRY e {\n  c = f32[] constant(1) @\n}", "found '@'"},
  };
  for (const Case& c : cases) {
    std::string msg = ParseError(c.text);
    EXPECT_NE(msg.find(c.message), std::string::npos) << "message: " << msg << "\nwanted: " << c.message;
    EXPECT_NE(msg.find("bad.hlo:"), std::string::npos) << msg;
  }
  // The diagnostic shows the line and a caret under the column.
  std::string msg = ParseError("HloModule m\nENTRY e {\n  ROOT r = f32[] addd()\n}");
  EXPECT_NE(msg.find("\n  ROOT r = f32[] addd()\n                 ^"), std::string::npos) << msg;
}

TEST(HloParser, ConstantLimit) {
  ParseOptions options;
  options.max_constant_elements = 100;
  std::string msg = ParseError("HloModule m\nENTRY e {\n  c = f32[1000] constant({...})\n}", options);
  EXPECT_NE(msg.find("the limit is 100"), std::string::npos) << msg;
  msg = ParseError("HloModule m\nENTRY e {\n  c = f32[1000000000] constant({...})\n}");
  EXPECT_NE(msg.find("elided constant of shape f32[1000000000] needs 4000000000 bytes"),
            std::string::npos) << msg;
}

TEST(HloParser, DeepNestingIsRefused) {
  std::string shape;
  for (int i = 0; i < 100000; ++i) shape += "(";
  std::string msg = ParseError("HloModule m\nENTRY e {\n  p = " + shape + " parameter(0)\n}");
  EXPECT_NE(msg.find("too deep"), std::string::npos);
  std::string braces;
  for (int i = 0; i < 100000; ++i) braces += "{";
  msg = ParseError("HloModule m\nENTRY e {\n  p = f32[] parameter(0), backend_config=" + braces);
  EXPECT_NE(msg.find("too deep"), std::string::npos);
  std::string dims = "f32[";
  for (int i = 0; i < 10000; ++i) dims += "1,";
  dims += "1]";
  msg = ParseError("HloModule m\nENTRY e {\n  p = " + dims + " constant({...})\n}");
  EXPECT_NE(msg.find("rank exceeds"), std::string::npos);
}

TEST(HloLexer, ArbitraryBytesTerminate) {
  std::mt19937 rng(1234);
  for (int iter = 0; iter < 2000; ++iter) {
    std::string s(rng() % 64, '\0');
    for (char& c : s) c = static_cast<char>(rng());
    hlo::Lexer lexer(s);
    int count = 0;
    while (true) {
      hlo::Token t = lexer.Next();
      ASSERT_LE(t.end, s.size());
      ASSERT_LE(t.begin, t.end);
      if (t.kind == hlo::TokKind::kEof) break;
      ASSERT_LT(++count, 1000);
    }
  }
}

// Mutations of valid modules must parse or fail cleanly (never crash or hang).
TEST(HloParser, FuzzMutations) {
  // SPMDC_FUZZ_SEED / SPMDC_FUZZ_ITERS widen the search (e.g. under -DSPMDC_ASAN=ON).
  const char* seed_env = std::getenv("SPMDC_FUZZ_SEED");
  const char* iters_env = std::getenv("SPMDC_FUZZ_ITERS");
  std::mt19937 rng(seed_env ? std::atoi(seed_env) : 42);
  const int iterations = iters_env ? std::atoi(iters_env) : 4000;
  ParseOptions options;
  options.max_constant_elements = 1 << 16;
  const char kAlphabet[] = "{}[]()<=,:%\"/*x_-0123456789 \n.?abfT";
  int ok = 0, failed = 0;
  for (int iter = 0; iter < iterations; ++iter) {
    std::string text(testing::kHloCorpus[iter % std::size(testing::kHloCorpus)]);
    int edits = 1 + rng() % 4;
    for (int e = 0; e < edits && !text.empty(); ++e) {
      size_t pos = rng() % text.size();
      switch (rng() % 5) {
        case 0: text.erase(pos, 1 + rng() % 8); break;
        case 1: text.insert(pos, 1, kAlphabet[rng() % (sizeof(kAlphabet) - 1)]); break;
        case 2: text[pos] = static_cast<char>(rng()); break;
        case 3: text = text.substr(0, pos); break;
        case 4: {  // duplicate a chunk
          size_t len = std::min<size_t>(1 + rng() % 40, text.size() - pos);
          text.insert(rng() % text.size(), text.substr(pos, len));
          break;
        }
      }
    }
    auto m = ParseHloModule(text, "fuzz.hlo", options);
    if (m.ok()) {
      ++ok;
      // Whatever parses must print and re-parse.
      std::string printed = PrintModule(**m);
      auto again = ParseHloModule(printed, "printed.hlo", options);
      EXPECT_TRUE(again.ok()) << again.status().message() << "\n--- input:\n" << text
                              << "\n--- printed:\n" << printed;
    } else {
      ++failed;
      EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument) << m.status().message();
    }
  }
  EXPECT_GT(ok, 0);
  EXPECT_GT(failed, 0);
}

// Not a timed assertion: prints the figure (the benchmark baseline lives in bench/).
TEST(HloParser, LargeModuleParsesQuickly) {
  std::string text = "HloModule big\n\nENTRY %e (p: f32[16,16]) -> f32[16,16] {\n"
                     "  %p = f32[16,16]{1,0} parameter(0)\n";
  std::string prev = "p";
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    std::string name = fmt::format("add.{}", i);
    text += fmt::format("  %{} = f32[16,16]{{1,0}} add(f32[16,16]{{1,0}} %{}, f32[16,16]{{1,0}} "
                        "%p), metadata={{op_name=\"jit(f)/add\" source_line={}}}\n",
                        name, prev, i);
    prev = name;
  }
  text += "}\n";
  auto start = std::chrono::steady_clock::now();
  std::clock_t cpu_start = std::clock();
  auto m = ParseHloModule(text);
  double parse_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  double parse_cpu_s = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ((*m)->entry()->instruction_count(), n + 1);
  start = std::chrono::steady_clock::now();
  std::string printed = PrintModule(**m);
  double print_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("parse of %d instructions (%zu bytes): %.3f s (cpu %.3f s); print: %.3f s\n", n,
              text.size(), parse_s, parse_cpu_s, print_s);
}

}  // namespace
}  // namespace spmdc

namespace spmdc {
namespace {

// Mesh-axes replica groups expand like XLA's MeshAxesReplicaGroupList (SHARDY.md §3.3).
std::vector<std::vector<int64_t>> MeshGroups(std::string_view groups_text, std::string_view shape) {
  std::string text = fmt::format(
      "HloModule m\n%s (a: f32[], b: f32[]) -> f32[] {{\n  %a = f32[] parameter(0)\n"
      "  %b = f32[] parameter(1)\n  ROOT %r = f32[] add(%a, %b)\n}}\n"
      "ENTRY e {{\n  p = {} parameter(0)\n  ROOT r = {} all-reduce(p), replica_groups={}, "
      "to_apply=%s\n}}\n", shape, shape, groups_text);
  auto m = ParseHloModule(text, "t.hlo");
  EXPECT_TRUE(m.ok()) << m.status().message();
  if (!m.ok()) return {};
  const ReplicaGroups* g = (*m)->entry()->root()->attrs().Get<ReplicaGroups>(AttrId::kReplicaGroups);
  return g ? g->Expanded() : std::vector<std::vector<int64_t>>{};
}

TEST(HloParser, MeshAxesReplicaGroups) {
  using G = std::vector<std::vector<int64_t>>;
  EXPECT_EQ(MeshGroups("mesh['x'=2,'y'=4] {'y'}", "f32[4]"), (G{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  EXPECT_EQ(MeshGroups("mesh['x'=2,'y'=4] {'x'}", "f32[4]"), (G{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
  EXPECT_EQ(MeshGroups("mesh['x'=2,'y'=4] {'y','x'}", "f32[4]"), (G{{0, 4, 1, 5, 2, 6, 3, 7}}));
  // 'y':(1)2 is the major half of y: devices agreeing on x and on y's minor half.
  EXPECT_EQ(MeshGroups("mesh['x'=2,'y'=4] {'y':(1)2}", "f32[4]"),
            (G{{0, 2}, {1, 3}, {4, 6}, {5, 7}}));
  EXPECT_EQ(MeshGroups("mesh['x'=2,'y'=4] {'y':(2)2}", "f32[4]"),
            (G{{0, 1}, {2, 3}, {4, 5}, {6, 7}}));
  EXPECT_EQ(MeshGroups("mesh[a=2,b=2], device_ids=(3,2,1,0) {b}", "f32[4]"), (G{{3, 2}, {1, 0}}));
  EXPECT_EQ(MeshGroups("mesh['a'=2,'b'=2], device_ids=([2,2]T(1,0)) {'b'}", "f32[4]"),
            (G{{0, 2}, {1, 3}}));
  EXPECT_EQ(MeshGroups("mesh['x'=2,'y'=4] {1}", "f32[4]"), (G{{0, 1, 2, 3}, {4, 5, 6, 7}}));
}

TEST(HloParser, MeshAxesReplicaGroupErrors) {
  auto error = [](std::string_view groups) {
    std::string text = fmt::format(
        "HloModule m\n%s (a: f32[], b: f32[]) -> f32[] {{\n  %a = f32[] parameter(0)\n"
        "  %b = f32[] parameter(1)\n  ROOT %r = f32[] add(%a, %b)\n}}\n"
        "ENTRY e {{\n  p = f32[4] parameter(0)\n  ROOT r = f32[4] all-reduce(p), "
        "replica_groups={}, to_apply=%s\n}}\n", groups);
    auto m = ParseHloModule(text, "t.hlo");
    return m.ok() ? std::string("parsed") : std::string(m.status().message());
  };
  EXPECT_NE(error("mesh['x'=2] {'z'}").find("'z' is not an axis of the mesh"), std::string::npos);
  EXPECT_NE(error("mesh['x'=4] {'x':(1)3}").find("invalid sub-axis"), std::string::npos);
  EXPECT_NE(error("mesh['x'=4] {'x','x':(1)2}").find("overlap"), std::string::npos);
  EXPECT_NE(error("mesh['x'=2], device_ids=(0,0) {'x'}").find("permutation"), std::string::npos);
  EXPECT_NE(error("mesh['x'=2,'x'=2] {'x'}").find("named twice"), std::string::npos);
  EXPECT_NE(error("mesh['x'=2] 'x'").find("t.hlo:9:61: error: expected '{' to start the grouping axes"), std::string::npos);
}

}  // namespace
}  // namespace spmdc

// Shape inference, opcode by opcode: the inferred shape of well-formed instructions and the
// error of malformed ones (which attribute or operand is wrong).
#include "ir/shape_inference.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ir_test_builder.h"

namespace spmdc {
namespace {

using ::spmdc::testing::F32;
using ::spmdc::testing::S;
using ::spmdc::testing::S32;
using ::spmdc::testing::TestModule;
using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string Infer(const Instruction* i) {
  StatusOr<Shape> s = InferShape(*i);
  if (!s.ok()) return "error: " + std::string(s.status().message());
  return s->ToString(false);
}

TEST(ShapeInference, ElementwiseUnaryAndBinary) {
  TestModule t;
  Instruction* a = t.Param(F32({2, 3}));
  Instruction* b = t.Param(F32({2, 3}));
  Instruction* c = t.Param(F32({3}));
  EXPECT_EQ(Infer(t.Add(Opcode::kAdd, F32({2, 3}), {a, b})), "f32[2,3]");
  EXPECT_EQ(Infer(t.Add(Opcode::kAdd, F32({2, 3}), {a, c})),
            "error: operand shapes f32[2,3] and f32[3] do not match");
  EXPECT_EQ(Infer(t.Add(Opcode::kNegate, F32({2, 3}), {a})), "f32[2,3]");
  EXPECT_EQ(Infer(t.Add(Opcode::kIsFinite, S(DType::kPred, {2, 3}), {a})), "pred[2,3]");
  Instruction* cmp = t.Add(Opcode::kCompare, S(DType::kPred, {2, 3}), {a, b});
  EXPECT_THAT(Infer(cmp), HasSubstr("direction"));
  cmp->attrs().Set(AttrId::kDirection, std::string("LT"));
  EXPECT_EQ(Infer(cmp), "pred[2,3]");
  // Mixed precision keeps the wider type.
  Instruction* h = t.Param(S(DType::kBF16, {2, 3}));
  EXPECT_EQ(Infer(t.Add(Opcode::kMultiply, F32({2, 3}), {h, a})), "f32[2,3]");
  Instruction* i = t.Param(S32({2, 3}));
  EXPECT_THAT(Infer(t.Add(Opcode::kAdd, F32({2, 3}), {a, i})), HasSubstr("element types"));
  EXPECT_EQ(Infer(t.Add(Opcode::kShiftLeft, S32({2, 3}), {i, i})), "s32[2,3]");
  EXPECT_THAT(Infer(t.Add(Opcode::kShiftLeft, F32({2, 3}), {a, a})), HasSubstr("does not accept"));
  EXPECT_EQ(Infer(t.Add(Opcode::kPopulationCount, S32({2, 3}), {i})), "s32[2,3]");
  EXPECT_EQ(Infer(t.Add(Opcode::kClz, S32({2, 3}), {i})), "s32[2,3]");
  EXPECT_THAT(Infer(t.Add(Opcode::kClz, F32({2, 3}), {a})), StartsWith("error"));
  EXPECT_EQ(Infer(t.Add(Opcode::kConvert, S(DType::kF8E4M3FN, {2, 3}), {a})), "f8e4m3fn[2,3]");
  EXPECT_EQ(Infer(t.Add(Opcode::kConvert, S(DType::kS4, {2, 3}), {a})), "s4[2,3]");
}

TEST(ShapeInference, ComplexRealImag) {
  TestModule t;
  Instruction* a = t.Param(F32({4}));
  Instruction* z = t.Add(Opcode::kComplex, S(DType::kC64, {4}), {a, a});
  EXPECT_EQ(Infer(z), "c64[4]");
  EXPECT_EQ(Infer(t.Add(Opcode::kReal, F32({4}), {z})), "f32[4]");
  EXPECT_EQ(Infer(t.Add(Opcode::kImag, F32({4}), {z})), "f32[4]");
  EXPECT_EQ(Infer(t.Add(Opcode::kAbs, F32({4}), {z})), "f32[4]");
}

TEST(ShapeInference, SelectAndClamp) {
  TestModule t;
  Instruction* p = t.Param(S(DType::kPred, {4}));
  Instruction* ps = t.Param(S(DType::kPred, {}));
  Instruction* a = t.Param(F32({4}));
  Instruction* s = t.Param(F32({}));
  EXPECT_EQ(Infer(t.Add(Opcode::kSelect, F32({4}), {p, a, a})), "f32[4]");
  EXPECT_EQ(Infer(t.Add(Opcode::kSelect, F32({4}), {ps, a, a})), "f32[4]");
  EXPECT_THAT(Infer(t.Add(Opcode::kSelect, F32({4}), {a, a, a})), HasSubstr("predicate"));
  EXPECT_EQ(Infer(t.Add(Opcode::kClamp, F32({4}), {s, a, s})), "f32[4]");
  EXPECT_EQ(Infer(t.Add(Opcode::kClamp, F32({4}), {a, a, a})), "f32[4]");
  Instruction* b = t.Param(F32({3}));
  EXPECT_THAT(Infer(t.Add(Opcode::kClamp, F32({4}), {b, a, s})), HasSubstr("clamp bound"));
}

TEST(ShapeInference, BitcastConvert) {
  TestModule t;
  Instruction* a = t.Param(F32({2, 3}));
  EXPECT_EQ(Infer(t.Add(Opcode::kBitcastConvert, S32({2, 3}), {a})), "s32[2,3]");
  EXPECT_EQ(Infer(t.Add(Opcode::kBitcastConvert, S(DType::kU8, {2, 3, 4}), {a})), "u8[2,3,4]");
  Instruction* u = t.Param(S(DType::kU16, {5, 2}));
  EXPECT_EQ(Infer(t.Add(Opcode::kBitcastConvert, F32({5}), {u})), "f32[5]");
  Instruction* v = t.Param(S(DType::kU16, {5, 3}));
  EXPECT_THAT(Infer(t.Add(Opcode::kBitcastConvert, F32({5}), {v})), HasSubstr("minor dimension"));
  Instruction* s4 = t.Param(S(DType::kS4, {6, 2}));
  EXPECT_EQ(Infer(t.Add(Opcode::kBitcastConvert, S(DType::kS8, {6}), {s4})), "s8[6]");
}

TEST(ShapeInference, BroadcastReshapeBitcastTranspose) {
  TestModule t;
  Instruction* a = t.Param(F32({3}));
  Instruction* bc = t.Add(Opcode::kBroadcast, F32({2, 3}), {a});
  EXPECT_THAT(Infer(bc), HasSubstr("broadcast dimensions"));
  bc->attrs().Set(AttrId::kDimensions, std::vector<int64_t>{1});
  EXPECT_EQ(Infer(bc), "f32[2,3]");
  bc->attrs().Set(AttrId::kDimensions, std::vector<int64_t>{0});
  EXPECT_THAT(Infer(bc), HasSubstr("does not match output dimension 0"));

  Instruction* m = t.Param(F32({2, 6}));
  EXPECT_EQ(Infer(t.Add(Opcode::kReshape, F32({3, 4}), {m})), "f32[3,4]");
  EXPECT_THAT(Infer(t.Add(Opcode::kReshape, F32({3, 5}), {m})), HasSubstr("element count"));
  EXPECT_EQ(Infer(t.Add(Opcode::kBitcast, F32({12}), {m})), "f32[12]");
  EXPECT_EQ(Infer(t.Add(Opcode::kBitcast, S(DType::kBF16, {24}), {m})), "bf16[24]");
  // XLA's layout-insensitive verifier lets a bitcast change the byte size.
  EXPECT_EQ(Infer(t.Add(Opcode::kBitcast, F32({13}), {m})), "f32[13]");
  EXPECT_EQ(Infer(t.Add(Opcode::kBitcast, S32({}), {m})), "s32[]");

  Instruction* tr = t.Add(Opcode::kTranspose, F32({6, 2}), {m});
  tr->attrs().Set(AttrId::kDimensions, std::vector<int64_t>{1, 0});
  EXPECT_EQ(Infer(tr), "f32[6,2]");
  tr->attrs().Set(AttrId::kDimensions, std::vector<int64_t>{1, 1});
  EXPECT_THAT(Infer(tr), HasSubstr("twice"));
}

TEST(ShapeInference, SliceDynamicSlicePad) {
  TestModule t;
  Instruction* a = t.Param(F32({10, 8}));
  Instruction* sl = t.Add(Opcode::kSlice, F32({2, 4}), {a});
  EXPECT_THAT(Infer(sl), HasSubstr("slice"));
  sl->attrs().Set(AttrId::kSlice, SliceSpec{{0, 1}, {2, 8}, {1, 2}});
  EXPECT_EQ(Infer(sl), "f32[2,4]");
  sl->attrs().Set(AttrId::kSlice, SliceSpec{{0, 1}, {11, 9}, {1, 2}});
  EXPECT_THAT(Infer(sl), HasSubstr("out of bounds"));

  Instruction* i = t.Param(S32({}));
  Instruction* ds = t.Add(Opcode::kDynamicSlice, F32({3, 8}), {a, i, i});
  ds->attrs().Set(AttrId::kDynamicSliceSizes, std::vector<int64_t>{3, 8});
  EXPECT_EQ(Infer(ds), "f32[3,8]");
  Instruction* ds1 = t.Add(Opcode::kDynamicSlice, F32({3, 8}), {a, i});
  ds1->attrs().Set(AttrId::kDynamicSliceSizes, std::vector<int64_t>{3, 8});
  EXPECT_THAT(Infer(ds1), HasSubstr("vector"));
  Instruction* v = t.Param(S32({2}));
  Instruction* ds2 = t.Add(Opcode::kDynamicSlice, F32({3, 8}), {a, v});
  ds2->attrs().Set(AttrId::kDynamicSliceSizes, std::vector<int64_t>{3, 9});
  EXPECT_THAT(Infer(ds2), HasSubstr("out of bounds"));

  Instruction* u = t.Param(F32({3, 8}));
  EXPECT_EQ(Infer(t.Add(Opcode::kDynamicUpdateSlice, F32({10, 8}), {a, u, i, i})), "f32[10,8]");
  EXPECT_THAT(Infer(t.Add(Opcode::kDynamicUpdateSlice, F32({10, 8}), {u, a, i, i})),
              HasSubstr("does not fit"));

  Instruction* z = t.Param(F32({}));
  Instruction* pad = t.Add(Opcode::kPad, F32({13, 13}), {a, z});
  pad->attrs().Set(AttrId::kPadding, PaddingConfig{{{1, 2, 0}, {-1, -1, 1}}});
  EXPECT_EQ(Infer(pad), "f32[13,13]");
  pad->attrs().Set(AttrId::kPadding, PaddingConfig{{{-6, -6, 0}, {0, 0, 0}}});
  EXPECT_THAT(Infer(pad), HasSubstr("negative"));
}

TEST(ShapeInference, ConcatenateReverseTuple) {
  TestModule t;
  Instruction* a = t.Param(F32({2, 3}));
  Instruction* b = t.Param(F32({2, 5}));
  Instruction* cat = t.Add(Opcode::kConcatenate, F32({2, 8}), {a, b});
  cat->attrs().Set(AttrId::kDimensions, std::vector<int64_t>{1});
  EXPECT_EQ(Infer(cat), "f32[2,8]");
  cat->attrs().Set(AttrId::kDimensions, std::vector<int64_t>{0});
  EXPECT_THAT(Infer(cat), HasSubstr("incompatible"));
  Instruction* rev = t.Add(Opcode::kReverse, F32({2, 3}), {a});
  rev->attrs().Set(AttrId::kDimensions, std::vector<int64_t>{0, 1});
  EXPECT_EQ(Infer(rev), "f32[2,3]");
  Instruction* tup = t.Add(Opcode::kTuple, Shape::Tuple({}), {a, b});
  EXPECT_EQ(Infer(tup), "(f32[2,3], f32[2,5])");
  *tup->mutable_shape() = *InferShape(*tup);
  Instruction* gte = t.Add(Opcode::kGetTupleElement, F32({2, 5}), {tup});
  gte->attrs().Set(AttrId::kIndex, int64_t{1});
  EXPECT_EQ(Infer(gte), "f32[2,5]");
  gte->attrs().Set(AttrId::kIndex, int64_t{2});
  EXPECT_THAT(Infer(gte), HasSubstr("out of range"));
  Instruction* bad = t.Add(Opcode::kGetTupleElement, F32({2, 5}), {a});
  EXPECT_THAT(Infer(bad), HasSubstr("must be a tuple"));
}

TEST(ShapeInference, ReduceVariadic) {
  TestModule t;
  Instruction* a = t.Param(F32({4, 5}));
  Instruction* idx = t.Param(S32({4, 5}));
  Instruction* z = t.Param(F32({}));
  Instruction* zi = t.Param(S32({}));
  Instruction* r = t.Add(Opcode::kReduce, F32({4}), {a, z});
  r->attrs().Set(AttrId::kDimensions, std::vector<int64_t>{1});
  EXPECT_THAT(Infer(r), HasSubstr("to_apply"));
  r->attrs().Set(AttrId::kToApply, t.Binary(DType::kF32));
  EXPECT_EQ(Infer(r), "f32[4]");
  r->attrs().Set(AttrId::kToApply, t.Binary(DType::kS32));
  EXPECT_THAT(Infer(r), HasSubstr("reducer"));

  // (f32, s32) argmax-style reducer.
  Computation* c = t.NewComputation("argmax");
  Instruction* p0 = t.Param(c, Shape::Scalar(DType::kF32));
  Instruction* p1 = t.Param(c, Shape::Scalar(DType::kS32));
  Instruction* p2 = t.Param(c, Shape::Scalar(DType::kF32));
  Instruction* p3 = t.Param(c, Shape::Scalar(DType::kS32));
  Instruction* m = t.Add(c, Opcode::kMaximum, Shape::Scalar(DType::kF32), {p0, p2});
  Instruction* n = t.Add(c, Opcode::kMaximum, Shape::Scalar(DType::kS32), {p1, p3});
  t.Add(c, Opcode::kTuple, Shape::Tuple({Shape::Scalar(DType::kF32), Shape::Scalar(DType::kS32)}),
        {m, n});
  Instruction* r2 = t.Add(Opcode::kReduce, Shape::Tuple({}), {a, idx, z, zi});
  r2->attrs().Set(AttrId::kDimensions, std::vector<int64_t>{0, 1});
  r2->attrs().Set(AttrId::kToApply, c);
  EXPECT_EQ(Infer(r2), "(f32[], s32[])");

  // One input whose reducer returns a 1-tuple: the result is a 1-tuple (XLA's
  // VerifyReducerShape); a 2-tuple for one input is still an error.
  Computation* one = t.NewComputation("one");
  Instruction* q0 = t.Param(one, Shape::Scalar(DType::kF32));
  Instruction* q1 = t.Param(one, Shape::Scalar(DType::kF32));
  Instruction* sum = t.Add(one, Opcode::kAdd, Shape::Scalar(DType::kF32), {q0, q1});
  Instruction* root = t.Add(one, Opcode::kTuple, Shape::Tuple({Shape::Scalar(DType::kF32)}), {sum});
  Instruction* r3 = t.Add(Opcode::kReduce, Shape::Tuple({F32({4})}), {a, z});
  r3->attrs().Set(AttrId::kDimensions, std::vector<int64_t>{1});
  r3->attrs().Set(AttrId::kToApply, one);
  EXPECT_EQ(Infer(r3), "(f32[4])");
  Instruction* rw = t.Add(Opcode::kReduceWindow, Shape::Tuple({F32({4, 5})}), {a, z});
  rw->attrs().Set(AttrId::kToApply, one);
  rw->attrs().Set(AttrId::kWindow, Window{{WindowDim{}, WindowDim{}}});
  EXPECT_EQ(Infer(rw), "(f32[4,5])");
  Computation* two = t.NewComputation("two");
  Instruction* w0 = t.Param(two, Shape::Scalar(DType::kF32));
  Instruction* w1 = t.Param(two, Shape::Scalar(DType::kF32));
  t.Add(two, Opcode::kTuple, Shape::Tuple({Shape::Scalar(DType::kF32), Shape::Scalar(DType::kF32)}),
        {w0, w1});
  r3->attrs().Set(AttrId::kToApply, two);
  EXPECT_THAT(Infer(r3), HasSubstr("returns (f32[], f32[]) but must return f32[] or (f32[])"));
  (void)root;
}

TEST(ShapeInference, ReduceWindowAndSelectAndScatter) {
  TestModule t;
  Instruction* a = t.Param(F32({8, 8}));
  Instruction* z = t.Param(F32({}));
  Instruction* rw = t.Add(Opcode::kReduceWindow, F32({4, 9}), {a, z});
  rw->attrs().Set(AttrId::kToApply, t.Binary(DType::kF32));
  EXPECT_THAT(Infer(rw), HasSubstr("window"));
  Window w;
  w.dims = {WindowDim{2, 2, 0, 0, 1, 1, false}, WindowDim{3, 1, 1, 1, 1, 1, false}};
  rw->attrs().Set(AttrId::kWindow, w);
  EXPECT_EQ(Infer(rw), "f32[4,8]");
  w.dims[1].window_dilation = 2;
  w.dims[1].base_dilation = 2;
  rw->attrs().Set(AttrId::kWindow, w);
  // base dilated to 15, padded to 17, window 5: (17-5)/1+1 = 13.
  EXPECT_EQ(Infer(rw), "f32[4,13]");

  Instruction* src = t.Param(F32({4, 4}));
  Instruction* sas = t.Add(Opcode::kSelectAndScatter, F32({8, 8}), {a, src, z});
  Window w2;
  w2.dims = {WindowDim{2, 2, 0, 0, 1, 1, false}, WindowDim{2, 2, 0, 0, 1, 1, false}};
  sas->attrs().Set(AttrId::kWindow, w2);
  Computation* ge = t.Binary(DType::kF32, Opcode::kCompare, DType::kPred);
  ge->root()->attrs().Set(AttrId::kDirection, std::string("GE"));
  sas->attrs().Set(AttrId::kSelect, ge);
  sas->attrs().Set(AttrId::kScatter, t.Binary(DType::kF32));
  EXPECT_EQ(Infer(sas), "f32[8,8]");
  sas->attrs().Set(AttrId::kSelect, t.Binary(DType::kF32));
  EXPECT_THAT(Infer(sas), HasSubstr("pred[]"));
}

TEST(ShapeInference, Dot) {
  TestModule t;
  Instruction* a = t.Param(S(DType::kBF16, {8, 2, 3}));
  Instruction* b = t.Param(S(DType::kBF16, {8, 3, 4}));
  Instruction* dot = t.Add(Opcode::kDot, F32({8, 2, 4}), {a, b});
  dot->attrs().Set(AttrId::kLhsBatchDims, std::vector<int64_t>{0});
  dot->attrs().Set(AttrId::kRhsBatchDims, std::vector<int64_t>{0});
  dot->attrs().Set(AttrId::kLhsContractingDims, std::vector<int64_t>{2});
  dot->attrs().Set(AttrId::kRhsContractingDims, std::vector<int64_t>{1});
  EXPECT_EQ(Infer(dot), "f32[8,2,4]");
  dot->attrs().Set(AttrId::kRhsContractingDims, std::vector<int64_t>{2});
  EXPECT_THAT(Infer(dot), HasSubstr("contracting dimensions"));
  dot->attrs().Set(AttrId::kRhsContractingDims, std::vector<int64_t>{});
  EXPECT_THAT(Infer(dot), HasSubstr("different sizes"));
  // Outer product without any dimension numbers.
  Instruction* x = t.Param(F32({2}));
  Instruction* y = t.Param(F32({3}));
  EXPECT_EQ(Infer(t.Add(Opcode::kDot, F32({2, 3}), {x, y})), "f32[2,3]");
}

TEST(ShapeInference, Convolution) {
  TestModule t;
  Instruction* in = t.Param(F32({2, 10, 10, 4}));  // b01f
  Instruction* k = t.Param(F32({3, 3, 4, 8}));     // 01io
  Instruction* conv = t.Add(Opcode::kConvolution, F32({2, 5, 5, 8}), {in, k});
  EXPECT_THAT(Infer(conv), HasSubstr("dim_labels"));
  ConvDims dn;
  dn.input_batch = 0;
  dn.input_feature = 3;
  dn.input_spatial = {1, 2};
  dn.kernel_input_feature = 2;
  dn.kernel_output_feature = 3;
  dn.kernel_spatial = {0, 1};
  dn.output_batch = 0;
  dn.output_feature = 3;
  dn.output_spatial = {1, 2};
  conv->attrs().Set(AttrId::kDimLabels, dn);
  Window w;
  w.dims = {WindowDim{3, 2, 1, 1, 1, 1, false}, WindowDim{3, 2, 1, 1, 1, 1, false}};
  conv->attrs().Set(AttrId::kWindow, w);
  EXPECT_EQ(Infer(conv), "f32[2,5,5,8]");
  conv->attrs().Set(AttrId::kFeatureGroupCount, int64_t{2});
  EXPECT_THAT(Infer(conv), HasSubstr("feature_group_count"));
  // Depthwise: feature_group_count = 4 with kernel input feature 1.
  Instruction* kd = t.Param(F32({3, 3, 1, 8}));
  Instruction* dw = t.Add(Opcode::kConvolution, F32({2, 5, 5, 8}), {in, kd});
  dw->attrs().Set(AttrId::kDimLabels, dn);
  dw->attrs().Set(AttrId::kWindow, w);
  dw->attrs().Set(AttrId::kFeatureGroupCount, int64_t{4});
  EXPECT_EQ(Infer(dw), "f32[2,5,5,8]");
  // batch_group_count divides the batch.
  Instruction* bg = t.Add(Opcode::kConvolution, F32({1, 5, 5, 8}), {in, k});
  bg->attrs().Set(AttrId::kDimLabels, dn);
  bg->attrs().Set(AttrId::kWindow, w);
  bg->attrs().Set(AttrId::kBatchGroupCount, int64_t{2});
  EXPECT_EQ(Infer(bg), "f32[1,5,5,8]");
}

TEST(ShapeInference, Gather) {
  TestModule t;
  Instruction* op = t.Param(F32({5, 9}));
  Instruction* idx = t.Param(S32({3, 1}));
  Instruction* g = t.Add(Opcode::kGather, F32({3, 9}), {op, idx});
  g->attrs().Set(AttrId::kOffsetDims, std::vector<int64_t>{1});
  g->attrs().Set(AttrId::kCollapsedSliceDims, std::vector<int64_t>{0});
  g->attrs().Set(AttrId::kStartIndexMap, std::vector<int64_t>{0});
  g->attrs().Set(AttrId::kIndexVectorDim, int64_t{1});
  EXPECT_THAT(Infer(g), HasSubstr("slice_sizes"));
  g->attrs().Set(AttrId::kSliceSizes, std::vector<int64_t>{1, 9});
  EXPECT_EQ(Infer(g), "f32[3,9]");
  g->attrs().Set(AttrId::kSliceSizes, std::vector<int64_t>{2, 9});
  EXPECT_THAT(Infer(g), HasSubstr("at most 1"));

  // Batching dims: operand [4,5,9] batched on dim 0, indices [4,3,1] batched on dim 0.
  Instruction* bop = t.Param(F32({4, 5, 9}));
  Instruction* bidx = t.Param(S32({4, 3, 1}));
  Instruction* bg = t.Add(Opcode::kGather, F32({4, 3, 9}), {bop, bidx});
  bg->attrs().Set(AttrId::kOffsetDims, std::vector<int64_t>{2});
  bg->attrs().Set(AttrId::kCollapsedSliceDims, std::vector<int64_t>{1});
  bg->attrs().Set(AttrId::kStartIndexMap, std::vector<int64_t>{1});
  bg->attrs().Set(AttrId::kOperandBatchingDims, std::vector<int64_t>{0});
  bg->attrs().Set(AttrId::kStartIndicesBatchingDims, std::vector<int64_t>{0});
  bg->attrs().Set(AttrId::kIndexVectorDim, int64_t{2});
  bg->attrs().Set(AttrId::kSliceSizes, std::vector<int64_t>{1, 1, 9});
  EXPECT_EQ(Infer(bg), "f32[4,3,9]");
}

TEST(ShapeInference, Scatter) {
  TestModule t;
  Instruction* op = t.Param(F32({5, 9}));
  Instruction* idx = t.Param(S32({3, 1}));
  Instruction* upd = t.Param(F32({3, 9}));
  Instruction* s = t.Add(Opcode::kScatter, F32({5, 9}), {op, idx, upd});
  s->attrs().Set(AttrId::kUpdateWindowDims, std::vector<int64_t>{1});
  s->attrs().Set(AttrId::kInsertedWindowDims, std::vector<int64_t>{0});
  s->attrs().Set(AttrId::kScatterDimsToOperandDims, std::vector<int64_t>{0});
  s->attrs().Set(AttrId::kIndexVectorDim, int64_t{1});
  s->attrs().Set(AttrId::kToApply, t.Binary(DType::kF32));
  EXPECT_EQ(Infer(s), "f32[5,9]");
  Instruction* bad = t.Param(F32({4, 9}));
  Instruction* s2 = t.Add(Opcode::kScatter, F32({5, 9}), {op, idx, bad});
  s2->attrs() = s->attrs();
  EXPECT_THAT(Infer(s2), HasSubstr("does not match indices"));
}

TEST(ShapeInference, SortAndMap) {
  TestModule t;
  Instruction* k = t.Param(F32({4, 6}));
  Instruction* v = t.Param(S32({4, 6}));
  Computation* cmp = t.NewComputation("cmp");
  Instruction* a = t.Param(cmp, Shape::Scalar(DType::kF32));
  Instruction* b = t.Param(cmp, Shape::Scalar(DType::kF32));
  t.Param(cmp, Shape::Scalar(DType::kS32));
  t.Param(cmp, Shape::Scalar(DType::kS32));
  Instruction* lt = t.Add(cmp, Opcode::kCompare, Shape::Scalar(DType::kPred), {a, b});
  lt->attrs().Set(AttrId::kDirection, std::string("LT"));
  Instruction* s = t.Add(Opcode::kSort, Shape::Tuple({}), {k, v});
  s->attrs().Set(AttrId::kDimensions, std::vector<int64_t>{1});
  s->attrs().Set(AttrId::kToApply, cmp);
  EXPECT_EQ(Infer(s), "(f32[4,6], s32[4,6])");
  Instruction* s1 = t.Add(Opcode::kSort, F32({4, 6}), {k});
  s1->attrs().Set(AttrId::kDimensions, std::vector<int64_t>{1});
  s1->attrs().Set(AttrId::kToApply, cmp);
  EXPECT_THAT(Infer(s1), HasSubstr("comparator"));

  Instruction* m = t.Add(Opcode::kMap, F32({4, 6}), {k, k});
  m->attrs().Set(AttrId::kToApply, t.Binary(DType::kF32));
  EXPECT_EQ(Infer(m), "f32[4,6]");
}

TEST(ShapeInference, Fft) {
  TestModule t;
  Instruction* r = t.Param(F32({3, 8}));
  Instruction* rfft = t.Add(Opcode::kFft, S(DType::kC64, {3, 5}), {r});
  rfft->attrs().Set(AttrId::kFftType, std::string("RFFT"));
  rfft->attrs().Set(AttrId::kFftLength, std::vector<int64_t>{8});
  EXPECT_EQ(Infer(rfft), "c64[3,5]");
  Instruction* irfft = t.Add(Opcode::kFft, F32({3, 8}), {rfft});
  irfft->attrs().Set(AttrId::kFftType, std::string("IRFFT"));
  irfft->attrs().Set(AttrId::kFftLength, std::vector<int64_t>{8});
  EXPECT_EQ(Infer(irfft), "f32[3,8]");
  Instruction* z = t.Param(S(DType::kC128, {4, 4}));
  Instruction* fft = t.Add(Opcode::kFft, S(DType::kC128, {4, 4}), {z});
  fft->attrs().Set(AttrId::kFftType, std::string("IFFT"));
  fft->attrs().Set(AttrId::kFftLength, std::vector<int64_t>{4, 4});
  EXPECT_EQ(Infer(fft), "c128[4,4]");
  // FFT/IFFT lengths need not match the dims (XLA checks them only for RFFT/IRFFT).
  fft->attrs().Set(AttrId::kFftType, std::string("FFT"));
  fft->attrs().Set(AttrId::kFftLength, std::vector<int64_t>{4, 5});
  EXPECT_EQ(Infer(fft), "c128[4,4]");
  fft->attrs().Set(AttrId::kFftLength, std::vector<int64_t>{4, 4, 4});
  EXPECT_THAT(Infer(fft), HasSubstr("fewer dimensions than fft_length"));
  rfft->attrs().Set(AttrId::kFftLength, std::vector<int64_t>{6});
  EXPECT_THAT(Infer(rfft), HasSubstr("fft_length requires"));
}

TEST(ShapeInference, ControlFlow) {
  TestModule t;
  Shape state = Shape::Tuple({S32({}), F32({4})});
  Instruction* init = t.Param(state);
  Computation* cond = t.NewComputation("cond");
  Instruction* cp = t.Param(cond, state);
  Instruction* g = t.Add(cond, Opcode::kGetTupleElement, S32({}), {cp});
  g->attrs().Set(AttrId::kIndex, int64_t{0});
  Instruction* c10 = t.Add(cond, Opcode::kConstant, S32({}), {});
  c10->set_literal(Literal(S32({})));
  Instruction* lt = t.Add(cond, Opcode::kCompare, Shape::Scalar(DType::kPred), {g, c10});
  lt->attrs().Set(AttrId::kDirection, std::string("LT"));
  Computation* body = t.Identity(state);
  Instruction* w = t.Add(Opcode::kWhile, state, {init});
  w->attrs().Set(AttrId::kCondition, cond);
  w->attrs().Set(AttrId::kBody, body);
  EXPECT_EQ(Infer(w), "(s32[], f32[4])");
  w->attrs().Set(AttrId::kBody, t.Identity(F32({4})));
  EXPECT_THAT(Infer(w), HasSubstr("while body"));

  Instruction* pred = t.Param(Shape::Scalar(DType::kPred));
  Instruction* x = t.Param(F32({4}));
  Instruction* y = t.Param(S32({}));
  Computation* tb = t.Identity(F32({4}));
  Computation* fb = t.NewComputation("fb");
  Instruction* fp = t.Param(fb, S32({}));
  t.Add(fb, Opcode::kBroadcast, F32({4}), {fp})->attrs().Set(AttrId::kDimensions,
                                                                std::vector<int64_t>{});
  fb->root()->mutable_shape()->set_dtype(DType::kS32);  // s32[4]: branches disagree
  Instruction* cnd = t.Add(Opcode::kConditional, F32({4}), {pred, x, y});
  cnd->attrs().Set(AttrId::kTrueComputation, tb);
  cnd->attrs().Set(AttrId::kFalseComputation, fb);
  EXPECT_THAT(Infer(cnd), HasSubstr("different shapes"));
  fb->root()->mutable_shape()->set_dtype(DType::kF32);
  EXPECT_EQ(Infer(cnd), "f32[4]");
  Instruction* index = t.Param(S32({}));
  Instruction* sw = t.Add(Opcode::kConditional, F32({4}), {index, x, x, x});
  sw->attrs().Set(AttrId::kBranchComputations, std::vector<Computation*>{tb, tb, tb});
  EXPECT_EQ(Infer(sw), "f32[4]");
  sw->attrs().Set(AttrId::kBranchComputations, std::vector<Computation*>{tb, tb});
  EXPECT_THAT(Infer(sw), HasSubstr("operands"));

  Instruction* call = t.Add(Opcode::kCall, F32({4}), {x});
  call->attrs().Set(AttrId::kToApply, tb);
  EXPECT_EQ(Infer(call), "f32[4]");
  Instruction* bad_call = t.Add(Opcode::kCall, F32({4}), {y});
  bad_call->attrs().Set(AttrId::kToApply, tb);
  EXPECT_THAT(Infer(bad_call), HasSubstr("takes (f32[4]) but is applied to (s32[])"));
}

TEST(ShapeInference, AsyncAndCopy) {
  TestModule t;
  Instruction* x = t.Param(F32({4}));
  Computation* f = t.Identity(F32({4}));
  Instruction* start = t.Add(
      Opcode::kAsyncStart, Shape::Tuple({Shape::Tuple({F32({4})}), F32({4}), S32({})}), {x});
  start->attrs().Set(AttrId::kCalls, std::vector<Computation*>{f});
  EXPECT_EQ(Infer(start), "((f32[4]), f32[4], s32[])");
  Instruction* update = t.Add(Opcode::kAsyncUpdate, start->shape(), {start});
  EXPECT_EQ(Infer(update), "((f32[4]), f32[4], s32[])");
  EXPECT_EQ(Infer(t.Add(Opcode::kAsyncDone, F32({4}), {update})), "f32[4]");
  Instruction* cs = t.Add(Opcode::kCopyStart, Shape::Tuple({}), {x});
  EXPECT_EQ(Infer(cs), "(f32[4], f32[4], u32[])");
  *cs->mutable_shape() = *InferShape(*cs);
  EXPECT_EQ(Infer(t.Add(Opcode::kCopyDone, F32({4}), {cs})), "f32[4]");
}

TEST(ShapeInference, Collectives) {
  TestModule t;
  Instruction* x = t.Param(F32({4, 6}));
  Instruction* ag = t.Add(Opcode::kAllGather, F32({16, 6}), {x});
  ag->attrs().Set(AttrId::kDimensions, std::vector<int64_t>{0});
  ReplicaGroups groups;
  groups.groups = {{0, 1, 2, 3}, {4, 5, 6, 7}};
  ag->attrs().Set(AttrId::kReplicaGroups, groups);
  EXPECT_EQ(Infer(ag), "f32[16,6]");
  ReplicaGroups iota;
  iota.iota = ReplicaGroups::Iota{4, 2, {8}, {0}};
  ag->attrs().Set(AttrId::kReplicaGroups, iota);
  EXPECT_EQ(Infer(ag), "f32[8,6]");
  ReplicaGroups uneven;
  uneven.groups = {{0, 1}, {2}};
  ag->attrs().Set(AttrId::kReplicaGroups, uneven);
  EXPECT_THAT(Infer(ag), HasSubstr("different sizes"));

  Instruction* ags = t.Add(Opcode::kAllGatherStart, Shape::Tuple({F32({4, 6}), F32({4, 12})}), {x});
  ags->attrs().Set(AttrId::kDimensions, std::vector<int64_t>{1});
  EXPECT_EQ(Infer(ags), "(f32[4,6], f32[4,12])");
  EXPECT_EQ(Infer(t.Add(Opcode::kAllGatherDone, F32({4, 12}), {ags})), "f32[4,12]");

  Instruction* ar = t.Add(Opcode::kAllReduce, F32({4, 6}), {x});
  ar->attrs().Set(AttrId::kToApply, t.Binary(DType::kF32));
  EXPECT_EQ(Infer(ar), "f32[4,6]");
  Instruction* ars = t.Add(Opcode::kAllReduceStart, F32({4, 6}), {x});
  ars->attrs().Set(AttrId::kToApply, t.Binary(DType::kF32));
  EXPECT_EQ(Infer(ars), "f32[4,6]");
  EXPECT_EQ(Infer(t.Add(Opcode::kAllReduceDone, F32({4, 6}), {ars})), "f32[4,6]");

  Instruction* rs = t.Add(Opcode::kReduceScatter, F32({4, 3}), {x});
  rs->attrs().Set(AttrId::kDimensions, std::vector<int64_t>{1});
  rs->attrs().Set(AttrId::kToApply, t.Binary(DType::kF32));
  ReplicaGroups pairs;
  pairs.groups = {{0, 1}};
  rs->attrs().Set(AttrId::kReplicaGroups, pairs);
  EXPECT_EQ(Infer(rs), "f32[4,3]");
  ReplicaGroups four;
  four.groups = {{0, 1, 2, 3}};
  rs->attrs().Set(AttrId::kReplicaGroups, four);
  EXPECT_THAT(Infer(rs), HasSubstr("not divisible"));

  Instruction* a2a = t.Add(Opcode::kAllToAll, F32({4, 6}), {x});
  a2a->attrs().Set(AttrId::kDimensions, std::vector<int64_t>{0});
  a2a->attrs().Set(AttrId::kReplicaGroups, four);
  EXPECT_EQ(Infer(a2a), "f32[4,6]");
  Instruction* a2at = t.Add(Opcode::kAllToAll, Shape::Tuple({}), {x, x});
  EXPECT_EQ(Infer(a2at), "(f32[4,6], f32[4,6])");

  Instruction* cp = t.Add(Opcode::kCollectivePermute, F32({4, 6}), {x});
  cp->attrs().Set(AttrId::kSourceTargetPairs, PairList{{0, 1}, {1, 0}});
  EXPECT_EQ(Infer(cp), "f32[4,6]");
  cp->attrs().Set(AttrId::kSourceTargetPairs, PairList{{0, 1}, {0, 2}});
  EXPECT_THAT(Infer(cp), HasSubstr("source 0 more than once"));
  Instruction* cps = t.Add(Opcode::kCollectivePermuteStart,
                           Shape::Tuple({F32({4, 6}), F32({4, 6}), Shape::Scalar(DType::kU32),
                                         Shape::Scalar(DType::kU32)}), {x});
  EXPECT_EQ(Infer(cps), "(f32[4,6], f32[4,6], u32[], u32[])");
  EXPECT_EQ(Infer(t.Add(Opcode::kCollectivePermuteDone, F32({4, 6}), {cps})), "f32[4,6]");
  EXPECT_EQ(Infer(t.Add(Opcode::kCollectiveBroadcast, F32({4, 6}), {x})), "f32[4,6]");
  EXPECT_EQ(Infer(t.Add(Opcode::kPartitionId, Shape::Scalar(DType::kU32), {})), "u32[]");
  EXPECT_EQ(Infer(t.Add(Opcode::kReplicaId, Shape::Scalar(DType::kU32), {})), "u32[]");

  Instruction* off = t.Param(S32({2}));
  EXPECT_EQ(Infer(t.Add(Opcode::kRaggedAllToAll, F32({8, 6}), {x, t.Param(F32({8, 6})), off, off,
                                                                 off, off})),
            "f32[8,6]");
}

TEST(ShapeInference, TokensAndIo) {
  TestModule t;
  Instruction* tok = t.Add(Opcode::kAfterAll, Shape::Token(), {});
  EXPECT_EQ(Infer(tok), "token[]");
  Instruction* x = t.Param(F32({4}));
  EXPECT_EQ(Infer(t.Add(Opcode::kAddDependency, F32({4}), {x, tok})), "f32[4]");
  // As in XLA's verifier, after-all orders its token after operands of any type.
  EXPECT_EQ(Infer(t.Add(Opcode::kAfterAll, Shape::Token(), {x, tok})), "token[]");
  EXPECT_THAT(Infer(t.Add(Opcode::kAddDependency, F32({4}), {x, x})), HasSubstr("token"));
  Instruction* in = t.Add(Opcode::kInfeed, Shape::Tuple({F32({4}), Shape::Token()}), {tok});
  EXPECT_EQ(Infer(in), "(f32[4], token[])");
  EXPECT_EQ(Infer(t.Add(Opcode::kOutfeed, Shape::Token(), {x, tok})), "token[]");
  Instruction* send = t.Add(Opcode::kSend, Shape::Tuple({}), {x, tok});
  EXPECT_EQ(Infer(send), "(f32[4], u32[], token[])");
  *send->mutable_shape() = *InferShape(*send);
  EXPECT_EQ(Infer(t.Add(Opcode::kSendDone, Shape::Token(), {send})), "token[]");
  Instruction* recv = t.Add(
      Opcode::kRecv, Shape::Tuple({F32({4}), Shape::Scalar(DType::kU32), Shape::Token()}), {tok});
  EXPECT_EQ(Infer(recv), "(f32[4], u32[], token[])");
  EXPECT_EQ(Infer(t.Add(Opcode::kRecvDone, Shape::Tuple({}), {recv})), "(f32[4], token[])");
}

TEST(ShapeInference, MiscOps) {
  TestModule t;
  Instruction* x = t.Param(F32({2, 4, 4}));
  EXPECT_EQ(Infer(t.Add(Opcode::kCholesky, F32({2, 4, 4}), {x})), "f32[2,4,4]");
  Instruction* b = t.Param(F32({2, 4, 3}));
  Instruction* ts = t.Add(Opcode::kTriangularSolve, F32({2, 4, 3}), {x, b});
  ts->attrs().Set(AttrId::kLeftSide, true);
  EXPECT_EQ(Infer(ts), "f32[2,4,3]");
  ts->attrs().Set(AttrId::kLeftSide, false);
  EXPECT_THAT(Infer(ts), HasSubstr("left_side"));

  Instruction* iota = t.Add(Opcode::kIota, S32({3, 5}), {});
  EXPECT_THAT(Infer(iota), HasSubstr("iota_dimension"));
  iota->attrs().Set(AttrId::kIotaDimension, int64_t{1});
  EXPECT_EQ(Infer(iota), "s32[3,5]");

  Instruction* k = t.Add(Opcode::kTopK, Shape::Tuple({}), {b});
  k->attrs().Set(AttrId::kK, int64_t{2});
  EXPECT_EQ(Infer(k), "(f32[2,4,2], s32[2,4,2])");

  Instruction* state = t.Param(S(DType::kU64, {2}));
  Instruction* rbg = t.Add(Opcode::kRngBitGenerator,
                           Shape::Tuple({S(DType::kU64, {2}), S(DType::kU32, {8})}), {state});
  EXPECT_EQ(Infer(rbg), "(u64[2], u32[8])");
  Instruction* lo = t.Param(F32({}));
  Instruction* rng = t.Add(Opcode::kRng, F32({3}), {lo, lo});
  rng->attrs().Set(AttrId::kDistribution, std::string("rng_normal"));
  EXPECT_EQ(Infer(rng), "f32[3]");

  Instruction* scale = t.Param(F32({4}));
  Instruction* bn = t.Add(Opcode::kBatchNormTraining, Shape::Tuple({}), {x, scale, scale});
  bn->attrs().Set(AttrId::kFeatureIndex, int64_t{2});
  EXPECT_EQ(Infer(bn), "(f32[2,4,4], f32[4], f32[4])");
  bn->attrs().Set(AttrId::kFeatureIndex, int64_t{0});
  EXPECT_THAT(Infer(bn), HasSubstr("batch norm operand 1"));

  Instruction* sz = t.Add(Opcode::kGetDimensionSize, S32({}), {x});
  sz->attrs().Set(AttrId::kDimensions, std::vector<int64_t>{1});
  EXPECT_EQ(Infer(sz), "s32[]");
  Instruction* sds = t.Add(Opcode::kSetDimensionSize, F32({2, 4, 4}), {x, sz});
  sds->attrs().Set(AttrId::kDimensions, std::vector<int64_t>{1});
  EXPECT_EQ(Infer(sds), "f32[2,<=4,4]");

  Instruction* bits = t.Param(S(DType::kU32, {2, 4, 4}));
  EXPECT_EQ(Infer(t.Add(Opcode::kStochasticConvert, S(DType::kBF16, {2, 4, 4}), {x, bits})),
            "bf16[2,4,4]");
  Instruction* rp = t.Add(Opcode::kReducePrecision, F32({2, 4, 4}), {x});
  rp->attrs().Set(AttrId::kExponentBits, int64_t{5});
  rp->attrs().Set(AttrId::kMantissaBits, int64_t{10});
  EXPECT_EQ(Infer(rp), "f32[2,4,4]");
  EXPECT_THAT(Infer(t.Add(Opcode::kCustomCall, F32({1}), {x})), HasSubstr("custom-call"));
  EXPECT_EQ(InferShape(*t.entry()->root()).status().code(), absl::StatusCode::kUnimplemented);
  Instruction* c = t.Add(Opcode::kConstant, F32({}), {});
  c->set_literal(Literal(S(DType::kF8E5M2, {3})));
  EXPECT_EQ(Infer(c), "f8e5m2[3]");
}

// Every opcode, with no operands and no attributes: never crashes, always a status or a shape.
TEST(ShapeInference, EveryOpcodeSurvivesEmptyInstructions) {
  for (int op = 0; op < kNumOpcodes; ++op) {
    TestModule t;
    Instruction* i = t.Add(static_cast<Opcode>(op), F32({2}), {});
    (void)InferShape(*i);
    Instruction* x = t.Param(Shape::Tuple({F32({2}), Shape::Token()}));
    Instruction* j = t.Add(static_cast<Opcode>(op), Shape::Tuple({}), {x, x, x, x, x, x, x});
    (void)InferShape(*j);
    Instruction* y = t.Param(F32({}));
    Instruction* k = t.Add(static_cast<Opcode>(op), Shape::Token(), {y});
    (void)InferShape(*k);
  }
}

}  // namespace
}  // namespace spmdc

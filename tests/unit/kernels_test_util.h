// Helpers for the kernel unit tests: literals from value lists, instructions built directly
// with attributes, scalar computations, and a KernelContext whose `call` is a tiny scalar
// evaluator (so that the kernels' generic paths are tested without the interpreter core).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "interpreter/kernels.h"
#include "interpreter/kernels/common.h"
#include "ir_test_builder.h"

namespace spmdc::testing {

inline Literal Lit(DType t, std::vector<int64_t> dims, const std::vector<double>& v) {
  Literal l(Shape(t, std::move(dims)));
  EXPECT_EQ(static_cast<int64_t>(v.size()), l.num_elements());
  for (size_t i = 0; i < v.size(); ++i) {
    if (IsFloat(t) || IsComplex(t)) l.SetDouble(i, v[i]);
    else l.SetInt(i, static_cast<int64_t>(v[i]));
  }
  return l;
}

inline std::vector<double> Vals(const Literal& l) {
  std::vector<double> out;
  for (int64_t i = 0; i < l.num_elements(); ++i) out.push_back(l.GetDouble(i));
  return out;
}

inline Literal Random(DType t, std::vector<int64_t> dims, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Literal l(Shape(t, std::move(dims)));
  for (int64_t i = 0; i < l.num_elements(); ++i) {
    if (IsComplex(t)) l.SetComplex(i, {u(rng), u(rng)});
    else if (IsFloat(t)) l.SetDouble(i, u(rng));
    else l.SetInt(i, static_cast<int64_t>(rng() % 8));
  }
  return l;
}

// A standalone instruction (not in any computation) for calling kernels directly.
inline std::unique_ptr<Instruction> Instr(Opcode op, Shape shape) {
  return std::make_unique<Instruction>(op, std::move(shape), "k");
}

// Evaluates a scalar computation: parameter, constant, add, subtract, multiply, maximum, minimum,
// and, or, compare, select, tuple. Enough for the kernels' generic (non-native) paths.
inline StatusOr<Literal> EvalScalar(const Computation& c, const std::vector<Literal>& args) {
  std::map<const Instruction*, Literal> v;
  for (Instruction* i : c.MakeInstructionPostOrder()) {
    auto in = [&](int k) -> const Literal& { return v.at(i->operand(k)); };
    Literal r(i->shape());
    switch (i->opcode()) {
      case Opcode::kParameter: r = args.at(i->parameter_number()); break;
      case Opcode::kConstant: r = *i->literal(); break;
      case Opcode::kTuple: {
        std::vector<Literal> e;
        for (int k = 0; k < i->operand_count(); ++k) e.push_back(in(k));
        r = Literal::Tuple(std::move(e));
        break;
      }
      case Opcode::kSelect: r = in(0).GetInt(0) ? in(1) : in(2); break;
      case Opcode::kCompare: {
        double a = in(0).GetDouble(0), b = in(1).GetDouble(0);
        const std::string& d = i->string_attr(AttrId::kDirection);
        bool x = d == "LT" ? a < b : d == "GT" ? a > b : d == "LE" ? a <= b : d == "GE" ? a >= b
               : d == "EQ" ? a == b : a != b;
        r.SetInt(0, x);
        break;
      }
      default: {
        double a = in(0).GetDouble(0), b = in(1).GetDouble(0), x = 0;
        switch (i->opcode()) {
          case Opcode::kAdd: x = a + b; break;
          case Opcode::kSubtract: x = a - b; break;
          case Opcode::kMultiply: x = a * b; break;
          case Opcode::kMaximum: x = std::max(a, b); break;
          case Opcode::kMinimum: x = std::min(a, b); break;
          case Opcode::kAnd: x = (in(0).GetInt(0) & in(1).GetInt(0)); break;
          case Opcode::kOr: x = (in(0).GetInt(0) | in(1).GetInt(0)); break;
          default: return Unimplemented("EvalScalar: {}", OpcodeName(i->opcode()));
        }
        if (IsFloat(r.shape().dtype())) r.SetDouble(0, x); else r.SetInt(0, static_cast<int64_t>(x));
      }
    }
    v[i] = std::move(r);
  }
  return v.at(c.root());
}

inline KernelContext Ctx() {
  KernelContext ctx;
  ctx.call = EvalScalar;
  ctx.intra_op_threads = 2;
  return ctx;
}

// compare(p[2k], p[2k+1]) over `n` pairs of scalar types `types`.
inline Computation* Comparator(TestModule& m, const std::vector<DType>& types, int key,
                               const std::string& dir, const std::string& type = "") {
  Computation* c = m.NewComputation(m.Fresh("cmp"));
  std::vector<Instruction*> ps;
  for (DType t : types) {
    ps.push_back(m.Param(c, Shape::Scalar(t)));
    ps.push_back(m.Param(c, Shape::Scalar(t)));
  }
  Instruction* cmp = m.Add(c, Opcode::kCompare, Shape::Scalar(DType::kPred),
                           {ps[2 * key], ps[2 * key + 1]});
  cmp->attrs().Set(AttrId::kDirection, std::string(dir));
  if (!type.empty()) cmp->attrs().Set(AttrId::kCompareType, std::string(type));
  return c;
}

inline void ExpectNear(const std::vector<double>& got, const std::vector<double>& want,
                       double tol = 1e-6) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "at " << i;
    } else {
      EXPECT_NEAR(got[i], want[i], tol * std::max(1.0, std::abs(want[i]))) << "at " << i;
    }
  }
}

inline double MaxRelDiff(const Literal& a, const Literal& b) {
  double m = 0;
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    double x = a.GetDouble(i), y = b.GetDouble(i);
    m = std::max(m, std::abs(x - y) / std::max(1.0, std::abs(y)));
  }
  return m;
}

}  // namespace spmdc::testing

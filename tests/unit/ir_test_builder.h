// A tiny IR builder for unit tests that cannot use the HLO parser: one module, computations by
// name, parameters numbered in order, instructions named uniquely.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/module.h"

namespace spmdc::testing {

inline Shape S(DType t, std::vector<int64_t> dims) { return Shape(t, std::move(dims)); }
inline Shape F32(std::vector<int64_t> dims) { return Shape(DType::kF32, std::move(dims)); }
inline Shape S32(std::vector<int64_t> dims) { return Shape(DType::kS32, std::move(dims)); }

class TestModule {
 public:
  TestModule() : module_(std::make_unique<Module>("test")) {
    entry_ = module_->AddComputation(std::make_unique<Computation>("entry"), /*is_entry=*/true);
  }

  Module& module() { return *module_; }
  Computation* entry() { return entry_; }

  Computation* NewComputation(const std::string& name) {
    return module_->AddComputation(std::make_unique<Computation>(name));
  }

  Instruction* Param(Computation* c, Shape shape) {
    auto p = std::make_unique<Instruction>(Opcode::kParameter, std::move(shape), Fresh("p"));
    p->set_parameter_number(c->num_parameters());
    Instruction* raw = c->AddInstruction(std::move(p));
    if (c->root() == nullptr) c->set_root(raw);
    return raw;
  }
  Instruction* Param(Shape shape) { return Param(entry_, std::move(shape)); }

  Instruction* Add(Computation* c, Opcode op, Shape shape, const std::vector<Instruction*>& operands) {
    Instruction* i = c->AddInstruction(op, std::move(shape), Fresh(std::string(OpcodeName(op))),
                                       operands);
    c->set_root(i);
    return i;
  }
  Instruction* Add(Opcode op, Shape shape, const std::vector<Instruction*>& operands) {
    return Add(entry_, op, std::move(shape), operands);
  }

  // (T, T) -> T with `op` (add by default).
  Computation* Binary(DType t, Opcode op = Opcode::kAdd, DType result = DType::kTuple) {
    Computation* c = NewComputation(Fresh("reducer"));
    Instruction* a = Param(c, Shape::Scalar(t));
    Instruction* b = Param(c, Shape::Scalar(t));
    Add(c, op, Shape::Scalar(result == DType::kTuple ? t : result), {a, b});
    return c;
  }
  // (T) -> pred[] or any root built by the caller.
  Computation* Identity(const Shape& s) {
    Computation* c = NewComputation(Fresh("identity"));
    Param(c, s);
    return c;
  }

  std::string Fresh(const std::string& prefix) { return prefix + "." + std::to_string(next_++); }

 private:
  std::unique_ptr<Module> module_;
  Computation* entry_;
  int next_ = 0;
};

}  // namespace spmdc::testing

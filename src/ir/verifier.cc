// The verifier. Checks run in three rounds so that later rounds may rely on earlier ones:
//   1. module and computation structure: an entry, a root per computation, unique names,
//      operands and called computations that exist where they must, arity, parameter numbers,
//      well-formed declared shapes;
//   2. acyclicity of every computation's operand/control graph and of the call graph;
//   3. shapes: every instruction's declared shape equals the inferred one (shape_inference.h).
// The first error found is returned; instructions are visited in text order.
#include "ir/verifier.h"

#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "ir/shape_inference.h"
#include "ir/shape_inference_internal.h"
#include "support/diagnostic.h"

namespace spmdc {
namespace {

class Verifier {
 public:
  Verifier(const Module& module, const DiagnosticSource* source, const VerifierOptions& options)
      : module_(module), source_(source), options_(options) {}

  Status Run() {
    RETURN_IF_ERROR(CheckModule());
    for (const Computation* c : module_.computations()) RETURN_IF_ERROR(CheckStructure(*c));
    for (const Computation* c : module_.computations()) RETURN_IF_ERROR(CheckAcyclic(*c));
    RETURN_IF_ERROR(CheckCallGraph());
    for (const Computation* c : module_.computations())
      for (const Instruction* i : c->instructions()) RETURN_IF_ERROR(CheckShape(*i));
    return absl::OkStatus();
  }

 private:
  Status Error(SourceLocation loc, const std::string& message) const {
    if (source_ == nullptr) return absl::InvalidArgumentError(message);
    return absl::InvalidArgumentError(
        FormatDiagnostic(source_->filename, source_->text, loc, message));
  }
  Status Error(const Instruction& instr, std::string_view message) const {
    return Error(instr.location(), fmt::format("%{}: {}", instr.name(), message));
  }
  Status Error(const Computation& c, std::string_view message) const {
    return Error(c.location(), fmt::format("computation %{}: {}", c.name(), message));
  }

  Status CheckModule() {
    absl::flat_hash_set<std::string> comp_names, instr_names;
    for (const Computation* c : module_.computations()) {
      computations_.insert(c);
      if (!comp_names.insert(c->name()).second)
        return Error(*c, "computation name is used more than once");
    }
    if (module_.entry() == nullptr) return Error(SourceLocation{}, "module has no entry computation");
    if (!computations_.contains(module_.entry()))
      return Error(SourceLocation{}, "entry computation does not belong to the module");
    for (const Computation* c : module_.computations())
      for (const Instruction* i : c->instructions())
        if (!instr_names.insert(i->name()).second)
          return Error(*i, "instruction name is used more than once in the module");
    return absl::OkStatus();
  }

  static Status CheckDeclaredShape(const Shape& s) {
    if (s.IsTuple()) {
      for (const Shape& e : s.tuple_shapes()) RETURN_IF_ERROR(CheckDeclaredShape(e));
      return absl::OkStatus();
    }
    if (!s.IsArray()) return absl::OkStatus();
    for (int64_t d = 0; d < s.rank(); ++d)
      if (s.dim(d) < 0 && !(s.dim(d) == Shape::kUnbounded && s.is_dynamic_dim(d)))
        return InvalidArgument("shape {} has a negative dimension", s.ToString(false));
    return absl::OkStatus();
  }

  Status CheckStructure(const Computation& c) {
    if (c.root() == nullptr) return Error(c, "has no root instruction");
    if (c.root()->parent() != &c) return Error(c, "root instruction belongs to another computation");
    std::vector<const Instruction*> params;
    for (const Instruction* i : c.instructions()) {
      if (i->parent() != &c) return Error(*i, "instruction's parent is another computation");
      int arity = OpcodeArity(i->opcode());
      if (arity != kVariadic && i->operand_count() != arity)
        return Error(*i, fmt::format("{} takes {} operand(s), got {}", OpcodeName(i->opcode()),
                                     arity, i->operand_count()));
      for (int64_t k = 0; k < i->operand_count(); ++k) {
        const Instruction* op = i->operand(k);
        if (op == nullptr) return Error(*i, fmt::format("operand {} is null", k));
        if (op->parent() != &c)
          return Error(*i, fmt::format("operand {} (%{}) belongs to another computation", k,
                                       op->name()));
      }
      if (const auto* preds = i->control_predecessors())
        for (const Instruction* p : *preds)
          if (p == nullptr || p->parent() != &c)
            return Error(*i, "control predecessor belongs to another computation");
      for (const Computation* callee : i->called_computations())
        if (!computations_.contains(callee))
          return Error(*i, "calls a computation that is not in the module");
      Status shape_ok = CheckDeclaredShape(i->shape());
      if (!shape_ok.ok()) return Error(*i, std::string(shape_ok.message()));
      if (i->opcode() == Opcode::kParameter) params.push_back(i);
    }
    // Parameter numbers are 0..n-1, each once, and agree with the computation's list.
    std::vector<const Instruction*> by_number(params.size(), nullptr);
    for (const Instruction* p : params) {
      int64_t n = p->parameter_number();
      if (n < 0 || n >= static_cast<int64_t>(params.size()))
        return Error(*p, fmt::format("parameter number {} out of range: the computation has {} "
                                     "parameter(s), numbered from 0", n, params.size()));
      if (by_number[n] != nullptr)
        return Error(*p, fmt::format("parameter number {} is also used by %{}", n,
                                     by_number[n]->name()));
      by_number[n] = p;
    }
    if (c.num_parameters() != static_cast<int64_t>(params.size()))
      return Error(c, fmt::format("parameter list has {} entries but the body has {} parameters",
                                  c.num_parameters(), params.size()));
    for (size_t n = 0; n < by_number.size(); ++n)
      if (c.parameter(n) != by_number[n])
        return Error(*by_number[n], "parameter is not registered under its number");
    return absl::OkStatus();
  }

  Status CheckAcyclic(const Computation& c) {
    // Iterative three-colour DFS over operands and control predecessors.
    enum Colour : uint8_t { kWhite, kGrey, kBlack };
    absl::flat_hash_map<const Instruction*, Colour> colour;
    auto preds = [](const Instruction* i) {
      std::vector<const Instruction*> out(i->operands().begin(), i->operands().end());
      if (const auto* cp = i->control_predecessors()) out.insert(out.end(), cp->begin(), cp->end());
      return out;
    };
    for (const Instruction* start : c.instructions()) {
      if (colour[start] != kWhite) continue;
      std::vector<std::pair<const Instruction*, std::vector<const Instruction*>>> stack;
      colour[start] = kGrey;
      stack.emplace_back(start, preds(start));
      while (!stack.empty()) {
        auto& [node, rest] = stack.back();
        if (rest.empty()) {
          colour[node] = kBlack;
          stack.pop_back();
          continue;
        }
        const Instruction* p = rest.back();
        rest.pop_back();
        Colour& pc = colour[p];
        if (pc == kGrey) return Error(*p, "instruction is part of a cycle");
        if (pc == kWhite) {
          pc = kGrey;
          stack.emplace_back(p, preds(p));
        }
      }
    }
    return absl::OkStatus();
  }

  Status CheckCallGraph() {
    enum Colour : uint8_t { kWhite, kGrey, kBlack };
    absl::flat_hash_map<const Computation*, Colour> colour;
    auto callees = [](const Computation* c) {
      std::vector<std::pair<const Computation*, const Instruction*>> out;
      for (const Instruction* i : c->instructions())
        for (const Computation* callee : i->called_computations()) out.emplace_back(callee, i);
      return out;
    };
    for (const Computation* start : module_.computations()) {
      if (colour[start] != kWhite) continue;
      std::vector<std::pair<const Computation*,
                            std::vector<std::pair<const Computation*, const Instruction*>>>>
          stack;
      colour[start] = kGrey;
      stack.emplace_back(start, callees(start));
      while (!stack.empty()) {
        auto& [node, rest] = stack.back();
        if (rest.empty()) {
          colour[node] = kBlack;
          stack.pop_back();
          continue;
        }
        auto [callee, caller] = rest.back();
        rest.pop_back();
        Colour& cc = colour[callee];
        if (cc == kGrey)
          return Error(*caller, fmt::format("calls computation %{} recursively", callee->name()));
        if (cc == kWhite) {
          cc = kGrey;
          stack.emplace_back(callee, callees(callee));
        }
      }
    }
    return absl::OkStatus();
  }

  Status CheckShape(const Instruction& instr) {
    StatusOr<Shape> inferred = InferShape(instr);
    if (!inferred.ok()) {
      if (inferred.status().code() == absl::StatusCode::kUnimplemented) return absl::OkStatus();
      return Error(instr, std::string(inferred.status().message()));
    }
    Shape declared = shape_inference::StripLayout(instr.shape());
    bool same = options_.allow_mixed_precision
                    ? shape_inference::SameShapeIgnoringFpPrecision(declared, *inferred)
                    : shape_inference::SameShape(declared, *inferred);
    if (!same)
      return Error(instr, fmt::format("inferred shape {} but declared {}",
                                      inferred->ToString(false), declared.ToString(false)));
    if (!options_.allow_mixed_precision && IsElementwiseOpcode(instr.opcode()) &&
        instr.opcode() != Opcode::kConvert) {
      for (const Instruction* op : instr.operands()) {
        if (op->shape().IsArray() && IsFloat(op->shape().dtype()) &&
            instr.operand(instr.operand_count() - 1)->shape().IsArray() &&
            IsFloat(instr.operand(instr.operand_count() - 1)->shape().dtype()) &&
            op->shape().dtype() != instr.operand(instr.operand_count() - 1)->shape().dtype())
          return Error(instr, "operands mix floating-point precisions");
      }
    }
    return absl::OkStatus();
  }

  const Module& module_;
  const DiagnosticSource* source_;
  VerifierOptions options_;
  absl::flat_hash_set<const Computation*> computations_;
};

}  // namespace

Status VerifyModule(const Module& module, const DiagnosticSource* source,
                    const VerifierOptions& options) {
  return Verifier(module, source, options).Run();
}

}  // namespace spmdc

#include "ir/computation.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "ir/module.h"
#include "fmt/format.h"
#include "support/check.h"

namespace spmdc {

Computation::Computation(std::string name) : name_(std::move(name)) {}

Computation::~Computation() {
  // Drop use edges first so that destruction order does not matter.
  for (auto& i : instructions_) {
    i->operands_.clear();
    i->users_.clear();
  }
}

bool Computation::IsEntry() const { return parent_ != nullptr && parent_->entry() == this; }

Instruction* Computation::AddInstruction(std::unique_ptr<Instruction> instr) {
  Instruction* raw = instr.get();
  raw->parent_ = this;
  if (raw->unique_id_ < 0 && parent_ != nullptr) raw->unique_id_ = parent_->NextUniqueId();
  instructions_.push_back(std::move(instr));
  raw->self_ = std::prev(instructions_.end());
  if (raw->opcode() == Opcode::kParameter) {
    int64_t n = raw->parameter_number();
    if (n >= 0) {
      if (static_cast<int64_t>(parameters_.size()) <= n) parameters_.resize(n + 1, nullptr);
      parameters_[n] = raw;
    }
  }
  return raw;
}

Instruction* Computation::AddInstruction(Opcode opcode, Shape shape, std::string name,
                                         const std::vector<Instruction*>& operands) {
  auto instr = std::make_unique<Instruction>(opcode, std::move(shape), std::move(name));
  for (Instruction* op : operands) instr->AppendOperand(op);
  return AddInstruction(std::move(instr));
}

Status Computation::RemoveInstruction(Instruction* instr) {
  if (instr->parent_ != this) return Internal("{} is not in computation {}", instr->name(), name_);
  if (!instr->users_.empty()) return Internal("cannot remove {}: it has users", instr->name());
  if (root_ == instr) return Internal("cannot remove the root {}", instr->name());
  instr->RemoveAllOperands();
  if (instr->opcode() == Opcode::kParameter) {
    for (Instruction*& p : parameters_)
      if (p == instr) p = nullptr;
  }
  instr->DropControlEdges();
  instructions_.erase(instr->self_);
  return absl::OkStatus();
}

std::vector<Instruction*> Computation::instructions() const {
  std::vector<Instruction*> out;
  out.reserve(instructions_.size());
  for (const auto& i : instructions_) out.push_back(i.get());
  return out;
}

std::vector<Instruction*> Computation::MakeInstructionPostOrder() const {
  std::vector<Instruction*> order;
  order.reserve(instructions_.size());
  // The visited set: a bitmap over unique ids when the ids are dense enough (a hash set of
  // pointers is a cache miss per instruction on large computations), else a hash set.
  const int64_t id_bound = parent_ ? parent_->unique_id_bound() : 0;
  const bool dense = parent_ && id_bound <= 64 * static_cast<int64_t>(instructions_.size()) + 1024;
  std::vector<bool> seen_ids(dense ? id_bound : 0, false);
  absl::flat_hash_set<const Instruction*> seen_ptrs;
  if (!dense) seen_ptrs.reserve(instructions_.size());
  // Marks `i` visited; false if it already was.
  auto visit = [&](const Instruction* i) {
    const int64_t id = i->unique_id();
    if (dense && id >= 0 && id < id_bound) {
      if (seen_ids[id]) return false;
      seen_ids[id] = true;
      return true;
    }
    return seen_ptrs.insert(i).second;
  };
  // Iterative DFS; operands (and control predecessors) first.
  std::vector<std::pair<Instruction*, size_t>> stack;
  auto preds = [](Instruction* i, size_t k) -> Instruction* {
    if (k < static_cast<size_t>(i->operand_count())) return i->operand(k);
    const auto* cp = i->control_predecessors();
    k -= i->operand_count();
    if (cp && k < cp->size()) return (*cp)[k];
    return nullptr;
  };
  auto num_preds = [](Instruction* i) {
    const auto* cp = i->control_predecessors();
    return static_cast<size_t>(i->operand_count()) + (cp ? cp->size() : 0);
  };
  for (const auto& start : instructions_) {
    if (!visit(start.get())) continue;
    stack.emplace_back(start.get(), 0);
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next < num_preds(node)) {
        Instruction* p = preds(node, next++);
        if (p->parent() == this && visit(p)) stack.emplace_back(p, 0);
      } else {
        order.push_back(node);
        stack.pop_back();
      }
    }
  }
  return order;
}

Status Computation::RebuildParameterList() {
  std::vector<Instruction*> params;
  for (const auto& i : instructions_) {
    if (i->opcode() != Opcode::kParameter) continue;
    int64_t n = i->parameter_number();
    if (n < 0) return Internal("parameter {} has no number", i->name());
    if (static_cast<int64_t>(params.size()) <= n) params.resize(n + 1, nullptr);
    params[n] = i.get();
  }
  parameters_ = std::move(params);
  return absl::OkStatus();
}

}  // namespace spmdc

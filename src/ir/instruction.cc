#include "ir/instruction.h"

#include <algorithm>

#include "fmt/format.h"
#include "ir/computation.h"
#include "support/check.h"

namespace spmdc {

Instruction::Instruction(Opcode opcode, Shape shape, std::string name)
    : opcode_(opcode), shape_(std::move(shape)), name_(std::move(name)) {}

Instruction::~Instruction() = default;

bool Instruction::IsRoot() const { return parent_ != nullptr && parent_->root() == this; }

void Instruction::AddUser(Instruction* user) {
  if (std::find(users_.begin(), users_.end(), user) == users_.end()) users_.push_back(user);
}

void Instruction::RemoveUser(Instruction* user) {
  // As in XLA (HloInstruction::Users::RemoveUser), the last user takes the removed one's place.
  // The order of users is observable (sharding propagation offers them in this order), and with
  // this rule an instruction that replaces a user (added last, then the old one removed) takes
  // over its position.
  auto it = std::find(users_.begin(), users_.end(), user);
  if (it == users_.end()) return;
  *it = users_.back();
  users_.pop_back();
}

void Instruction::AppendOperand(Instruction* op) {
  // `op` lists this instruction as a user iff it is already among our operands: checking our
  // (short) operand list avoids scanning op's user list, which is O(users) per edge.
  bool already_user = std::find(operands_.begin(), operands_.end(), op) != operands_.end();
  operands_.push_back(op);
  if (!already_user) op->users_.push_back(this);
}

void Instruction::ReplaceOperandWith(int64_t i, Instruction* new_operand) {
  Instruction* old = operands_[i];
  if (old == new_operand) return;
  operands_[i] = new_operand;
  new_operand->AddUser(this);
  if (std::find(operands_.begin(), operands_.end(), old) == operands_.end()) old->RemoveUser(this);
}

void Instruction::ReplaceAllUsesWith(Instruction* other) {
  SPMDC_CHECK(other != this);
  std::vector<Instruction*> users = users_;
  for (Instruction* user : users) {
    for (int64_t i = 0; i < user->operand_count(); ++i)
      if (user->operands_[i] == this) user->ReplaceOperandWith(i, other);
  }
  if (parent_ && parent_->root() == this) parent_->set_root(other);
}

void Instruction::RemoveAllOperands() {
  for (Instruction* op : operands_) op->RemoveUser(this);
  operands_.clear();
}

void Instruction::AddControlPredecessor(Instruction* pred) {
  auto* preds = attrs_.GetMutable<std::vector<Instruction*>>(AttrId::kControlPredecessors);
  if (!preds) {
    attrs_.Set(AttrId::kControlPredecessors, std::vector<Instruction*>{});
    preds = attrs_.GetMutable<std::vector<Instruction*>>(AttrId::kControlPredecessors);
  }
  if (std::find(preds->begin(), preds->end(), pred) != preds->end()) return;
  preds->push_back(pred);
  pred->control_successors_.push_back(this);
}

void Instruction::DropControlEdges() {
  if (auto* preds = attrs_.GetMutable<std::vector<Instruction*>>(AttrId::kControlPredecessors)) {
    for (Instruction* p : *preds) std::erase(p->control_successors_, this);
    attrs_.Remove(AttrId::kControlPredecessors);
  }
  for (Instruction* s : control_successors_) {
    if (auto* sp = s->attrs_.GetMutable<std::vector<Instruction*>>(AttrId::kControlPredecessors)) {
      std::erase(*sp, this);
      if (sp->empty()) s->attrs_.Remove(AttrId::kControlPredecessors);
    }
  }
  control_successors_.clear();
}

int64_t Instruction::int_attr(AttrId id, int64_t fallback) const {
  const int64_t* v = attrs_.Get<int64_t>(id);
  return v ? *v : fallback;
}

bool Instruction::bool_attr(AttrId id, bool fallback) const {
  const bool* v = attrs_.Get<bool>(id);
  return v ? *v : fallback;
}

const std::string& Instruction::string_attr(AttrId id) const {
  static const std::string kEmpty;
  const std::string* v = attrs_.Get<std::string>(id);
  return v ? *v : kEmpty;
}

const std::vector<int64_t>& Instruction::ints_attr(AttrId id) const {
  static const std::vector<int64_t> kEmpty;
  const auto* v = attrs_.Get<std::vector<int64_t>>(id);
  return v ? *v : kEmpty;
}

Computation* Instruction::computation_attr(AttrId id) const {
  Computation* const* c = attrs_.Get<Computation*>(id);
  if (c) return *c;
  const auto* list = attrs_.Get<std::vector<Computation*>>(id);
  return list && list->size() == 1 ? (*list)[0] : nullptr;
}

std::vector<Computation*> Instruction::called_computations() const {
  std::vector<Computation*> out;
  // Table order, so that e.g. while gives {condition, body}.
  std::vector<const std::pair<AttrId, AttrValue>*> entries;
  for (const auto& e : attrs_.entries()) entries.push_back(&e);
  std::sort(entries.begin(), entries.end(),
            [](auto* a, auto* b) { return a->first < b->first; });
  for (const auto* e : entries) {
    if (auto* c = std::get_if<Computation*>(&e->second)) {
      if (*c) out.push_back(*c);
    } else if (auto* list = std::get_if<std::vector<Computation*>>(&e->second)) {
      for (Computation* c : *list)
        if (c) out.push_back(c);
    }
  }
  return out;
}

void Instruction::ReplaceCalledComputation(Computation* from, Computation* to) {
  for (auto& [id, value] : attrs_.mutable_entries()) {
    if (auto* c = std::get_if<Computation*>(&value)) {
      if (*c == from) *c = to;
    } else if (auto* list = std::get_if<std::vector<Computation*>>(&value)) {
      for (Computation*& c : *list)
        if (c == from) c = to;
    }
  }
}

bool Instruction::HasSideEffect() const {
  if (OpcodeHasSideEffect(opcode_)) return true;
  if (opcode_ == Opcode::kCustomCall) return bool_attr(AttrId::kCustomCallHasSideEffect);
  return false;
}

void Instruction::set_literal(Literal literal) {
  literal_ = std::make_unique<Literal>(std::move(literal));
}

std::string Instruction::ShortString() const {
  std::string out = fmt::format("%{} = {} {}(", name_, shape_.ToString(false), OpcodeName(opcode_));
  for (int64_t i = 0; i < operand_count(); ++i)
    out += fmt::format("{}%{}", i ? ", " : "", operands_[i]->name());
  return out + ")";
}

}  // namespace spmdc

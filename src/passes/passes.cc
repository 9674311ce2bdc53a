#include "passes/passes.h"

#include <algorithm>
#include <map>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"

namespace spmdc {

StatusOr<bool> RunDce(Module& module) {
  bool changed = false;
  for (Computation* comp : module.computations()) {
    std::vector<Instruction*> order = comp->MakeInstructionPostOrder();
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      Instruction* i = *it;
      if (i->user_count() > 0 || i->IsRoot() || i->HasSideEffect() || i->opcode() == Opcode::kParameter ||
          !i->control_successors().empty())
        continue;
      i->DropControlEdges();
      RETURN_IF_ERROR(comp->RemoveInstruction(i));
      changed = true;
    }
  }
  // Computations unreachable from the entry.
  std::vector<Computation*> live = module.MakeComputationPostOrder();
  absl::flat_hash_set<Computation*> keep(live.begin(), live.end());
  for (Computation* c : module.computations()) {
    if (!keep.contains(c)) {
      module.RemoveComputation(c);
      changed = true;
    }
  }
  return changed;
}

StatusOr<bool> RunTupleSimplifier(Module& module) {
  bool changed = false;
  for (Computation* comp : module.computations()) {
    for (Instruction* i : comp->MakeInstructionPostOrder()) {
      if (i->opcode() != Opcode::kGetTupleElement) continue;
      Instruction* t = i->operand(0);
      if (t->opcode() != Opcode::kTuple || i->tuple_index() >= t->operand_count()) continue;
      Instruction* element = t->operand(i->tuple_index());
      if (!element->shape().Compatible(i->shape())) continue;
      i->ReplaceAllUsesWith(element);
      changed = true;
    }
  }
  return changed;
}

namespace {
// A key equal for instructions that compute the same value: opcode, shape, operand identities and
// attributes. Only simple attribute kinds are keyed; an instruction with others (called
// computations, windows, ...) is not a CSE candidate (returns false).
bool CseKey(const Instruction& i, std::string* key) {
  // Raw bytes, not text: this runs once per instruction of modules with 100k+ instructions.
  auto put = [key](int64_t v) { key->append(reinterpret_cast<const char*>(&v), sizeof(v)); };
  auto put_ints = [&](const std::vector<int64_t>& v) {
    put(static_cast<int64_t>(v.size()));
    for (int64_t x : v) put(x);
  };
  key->clear();
  put(static_cast<int64_t>(i.opcode()));
  if (!i.shape().IsArray()) return false;
  put(static_cast<int64_t>(i.shape().dtype()));
  put_ints(i.shape().dims());
  put(i.operand_count());
  for (const Instruction* op : i.operands()) put(op->unique_id());
  for (const auto& [id, value] : i.attrs().entries()) {
    if (id == AttrId::kMetadata) continue;  // says where an op came from, not what it computes
    put(static_cast<int64_t>(id));
    if (const auto* v = std::get_if<int64_t>(&value)) {
      put(*v);
    } else if (const auto* b = std::get_if<bool>(&value)) {
      put(*b ? 1 : 0);
    } else if (const auto* str = std::get_if<std::string>(&value)) {
      put(static_cast<int64_t>(str->size()));
      key->append(*str);
    } else if (const auto* l = std::get_if<std::vector<int64_t>>(&value)) {
      put_ints(*l);
    } else if (const auto* sl = std::get_if<SliceSpec>(&value)) {
      put_ints(sl->starts);
      put_ints(sl->limits);
      put_ints(sl->strides);
    } else {
      return false;
    }
  }
  if (!i.attrs().unknown().empty()) return false;
  if (const Literal* lit = i.literal()) {
    if (lit->shape().byte_size() > 4096) return false;
    key->append(reinterpret_cast<const char*>(lit->raw()), lit->shape().byte_size());
  }
  return true;
}
}  // namespace

StatusOr<bool> RunCse(Module& module) {
  bool changed = false;
  for (Computation* comp : module.computations()) {
    absl::flat_hash_map<std::string, Instruction*> seen;
    for (Instruction* i : comp->MakeInstructionPostOrder()) {
      if (i->HasSideEffect() || i->opcode() == Opcode::kParameter || IsCollectiveOpcode(i->opcode()) ||
          i->opcode() == Opcode::kPartitionId || i->opcode() == Opcode::kReplicaId)
        continue;
      std::string key;
      if (!CseKey(*i, &key)) continue;
      auto [it, inserted] = seen.emplace(std::move(key), i);
      if (inserted || it->second == i) continue;
      if (i->IsRoot()) continue;
      i->ReplaceAllUsesWith(it->second);
      changed = true;
    }
  }
  return changed;
}

StatusOr<bool> RunCleanup(Module& module) {
  // One DCE at the end removes what the partitioner left unused, what tuple simplification
  // bypassed and what CSE merged away.
  ASSIGN_OR_RETURN(bool a, RunTupleSimplifier(module));
  ASSIGN_OR_RETURN(bool b, RunCse(module));
  ASSIGN_OR_RETURN(bool c, RunDce(module));
  return a || b || c;
}

}  // namespace spmdc

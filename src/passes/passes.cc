#include "passes/passes.h"

#include <algorithm>
#include <map>

#include "absl/container/flat_hash_set.h"
#include "hlo/printer.h"

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
// A key that identifies an instruction's computation up to operand identity: the printed form
// with operand names replaced by their (already canonical) pointers.
std::string CseKey(const Instruction& i) {
  PrintOptions opts;
  opts.print_metadata = false;
  std::string text = PrintInstruction(i, opts);
  // Drop the instruction's own name (everything before " = ").
  size_t eq = text.find(" = ");
  return eq == std::string::npos ? text : text.substr(eq + 3);
}
}  // namespace

StatusOr<bool> RunCse(Module& module) {
  bool changed = false;
  for (Computation* comp : module.computations()) {
    std::map<std::string, Instruction*> seen;
    for (Instruction* i : comp->MakeInstructionPostOrder()) {
      if (i->HasSideEffect() || i->opcode() == Opcode::kParameter || IsCollectiveOpcode(i->opcode()) ||
          i->opcode() == Opcode::kPartitionId || i->opcode() == Opcode::kReplicaId)
        continue;
      // Constants above a few elements are compared by text too; fine for the small tables we emit.
      if (i->opcode() == Opcode::kConstant && i->shape().IsArray() && i->shape().num_elements() > 4096) continue;
      std::string key = CseKey(*i);
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
  bool changed = false;
  ASSIGN_OR_RETURN(bool a, RunDce(module));
  ASSIGN_OR_RETURN(bool b, RunTupleSimplifier(module));
  ASSIGN_OR_RETURN(bool c, RunCse(module));
  ASSIGN_OR_RETURN(bool d, RunDce(module));
  changed = a || b || c || d;
  return changed;
}

}  // namespace spmdc

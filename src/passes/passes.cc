#include "passes/passes.h"

#include <algorithm>
#include <map>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "sharding/sharding.h"
#include "support/check.h"

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

namespace {

// The elementwise opcode `reducer` applies to its two parameters, or kParameter when it is not
// such a computation.
Opcode ReducerOpcode(const Computation* reducer) {
  if (reducer == nullptr || reducer->num_parameters() != 2 || reducer->root() == nullptr) return Opcode::kParameter;
  const Instruction* r = reducer->root();
  if (r->operand_count() != 2 || r->operand(0)->opcode() != Opcode::kParameter ||
      r->operand(1)->opcode() != Opcode::kParameter || r->operand(0) == r->operand(1))
    return Opcode::kParameter;
  switch (r->opcode()) {
    case Opcode::kAdd: case Opcode::kMultiply: case Opcode::kMaximum: case Opcode::kMinimum:
    case Opcode::kAnd: case Opcode::kOr:
      return r->opcode();
    default: return Opcode::kParameter;
  }
}

// Both all-reduce over the same devices with the same reduction, for one user only.
bool Reassociable(const Instruction& a, const Instruction& b, const Instruction& user) {
  if (a.opcode() != Opcode::kAllReduce || b.opcode() != Opcode::kAllReduce || &a == &b) return false;
  if (a.user_count() != 1 || b.user_count() != 1 || a.IsRoot() || b.IsRoot()) return false;
  if (a.operand_count() != 1 || b.operand_count() != 1 || !a.shape().IsArray()) return false;
  if (!(a.shape() == user.shape()) || !(b.shape() == user.shape())) return false;
  if (ReducerOpcode(a.to_apply()) != user.opcode() || ReducerOpcode(b.to_apply()) != user.opcode()) return false;
  if (!a.control_successors().empty() || !b.control_successors().empty() || a.control_predecessors() ||
      b.control_predecessors())
    return false;
  const ReplicaGroups* ga = a.attr<ReplicaGroups>(AttrId::kReplicaGroups);
  const ReplicaGroups* gb = b.attr<ReplicaGroups>(AttrId::kReplicaGroups);
  if ((ga == nullptr) != (gb == nullptr) || (ga && !(*ga == *gb))) return false;
  return a.attrs().Has(AttrId::kChannelId) == b.attrs().Has(AttrId::kChannelId) &&
         a.attrs().Has(AttrId::kUseGlobalDeviceIds) == b.attrs().Has(AttrId::kUseGlobalDeviceIds) &&
         a.bool_attr(AttrId::kUseGlobalDeviceIds) == b.bool_attr(AttrId::kUseGlobalDeviceIds);
}

}  // namespace

StatusOr<bool> RunAllReduceReassociate(Module& module) {
  bool changed = false;
  for (Computation* comp : module.computations()) {
    // Post order: a chain op(op(ar, ar), ar) folds from the inside out, each new all-reduce
    // becoming the operand the next op sees.
    for (Instruction* i : comp->MakeInstructionPostOrder()) {
      if (i->operand_count() != 2 || !i->shape().IsArray() || i->HasSideEffect()) continue;
      switch (i->opcode()) {
        case Opcode::kAdd: case Opcode::kMultiply: case Opcode::kMaximum: case Opcode::kMinimum:
        case Opcode::kAnd: case Opcode::kOr:
          break;
        default: continue;
      }
      Instruction* a = i->operand(0);
      Instruction* b = i->operand(1);
      if (!Reassociable(*a, *b, *i)) continue;
      Instruction* combined = comp->AddInstruction(i->opcode(), i->shape(), module.UniqueName(i->name() + ".local"),
                                                   {a->operand(0), b->operand(0)});
      if (const auto* md = i->attr<KeyValueList>(AttrId::kMetadata)) combined->attrs().Set(AttrId::kMetadata, *md);
      Instruction* reduced = comp->AddInstruction(Opcode::kAllReduce, i->shape(), module.UniqueName(i->name()), {combined});
      reduced->attrs() = a->attrs();  // groups, channel, reducer, metadata of the first
      i->ReplaceAllUsesWith(reduced);
      changed = true;
    }
  }
  return changed;
}

StatusOr<bool> RunCleanup(Module& module) {
  // One DCE at the end removes what the partitioner left unused, what reassociation and tuple
  // simplification bypassed and what CSE merged away.
  ASSIGN_OR_RETURN(bool r, RunAllReduceReassociate(module));
  ASSIGN_OR_RETURN(bool a, RunTupleSimplifier(module));
  ASSIGN_OR_RETURN(bool b, RunCse(module));
  ASSIGN_OR_RETURN(bool c, RunDce(module));
  return r || a || b || c;
}

std::unique_ptr<Instruction> CopyWithoutEdges(const Instruction& old, std::string name) {
  auto ni = std::make_unique<Instruction>(old.opcode(), old.shape(), std::move(name));
  ni->set_parameter_number(old.parameter_number());
  ni->set_location(old.location());
  ni->set_sharding(old.sharding_ptr());
  if (old.literal()) ni->set_literal(*old.literal());
  for (const auto& [id, value] : old.attrs().entries())
    if (id != AttrId::kControlPredecessors) ni->attrs().Set(id, value);
  ni->attrs().unknown() = old.attrs().unknown();
  return ni;
}

std::unique_ptr<Instruction> CopyWithoutEdges(Module& module, const Instruction& old) {
  return CopyWithoutEdges(old, module.UniqueName(old.name()));
}

namespace {

// Gives the copy of `old` (map[old]) the copies of `old`'s operands and control predecessors.
void CopyEdges(const Instruction& old, const absl::flat_hash_map<const Instruction*, Instruction*>& map) {
  Instruction* ni = map.at(&old);
  for (Instruction* op : old.operands()) ni->AppendOperand(map.at(op));
  if (const auto* cp = old.control_predecessors())
    for (Instruction* p : *cp) ni->AddControlPredecessor(map.at(p));
}

// A copy of `c` in `module` under a fresh name; its instructions get fresh names and ids, and
// call the same computations `c`'s call.
Computation* CloneComputation(Module& module, const Computation& c) {
  auto clone = std::make_unique<Computation>(module.UniqueName(c.name() + ".clone"));
  clone->set_execution_thread(c.execution_thread());
  clone->set_location(c.location());
  absl::flat_hash_map<const Instruction*, Instruction*> map;
  for (Instruction* old : c.instructions()) map[old] = clone->AddInstruction(CopyWithoutEdges(module, *old));
  for (Instruction* old : c.instructions()) CopyEdges(*old, map);
  if (c.root()) clone->set_root(map.at(c.root()));
  SPMDC_CHECK(clone->RebuildParameterList().ok());
  return module.AddComputation(std::move(clone));
}

// Copies `callee`'s instructions into `caller`, its parameters replaced by `call`'s operands;
// returns the copy of the callee's root (an operand of `call` when the callee returns a
// parameter). Instruction order is operands-first by construction. The root's copy takes the
// call's name (the caller's code names the value so; the call goes right after); the other
// copies keep the callee's names when `keep_names` (the callee is then removed before anything
// looks a name up), else take fresh ones. Copies not named as their original are recorded in
// `renamed` when given; new instructions are appended to `added`.
Instruction* InlineInto(Module& module, Computation& caller, const Instruction& call, const Computation& callee,
                        bool keep_names, InlinedNames* renamed, std::vector<Instruction*>* added) {
  absl::flat_hash_map<const Instruction*, Instruction*> map;
  for (Instruction* old : callee.MakeInstructionPostOrder()) {
    if (old->opcode() == Opcode::kParameter) {
      map[old] = call.operand(old->parameter_number());
      continue;
    }
    std::string name = old == callee.root() ? call.name() : keep_names ? old->name() : module.UniqueName(old->name());
    if (renamed && name != old->name()) (*renamed)[old->name()].push_back(name);
    map[old] = caller.AddInstruction(CopyWithoutEdges(*old, std::move(name)));
    CopyEdges(*old, map);  // post order: its operands are mapped already
    added->push_back(map[old]);
  }
  return map.at(callee.root());
}

// XLA's CallInliner leaves calls marked `inlineable="false"` (Shardy's manual computation
// bodies, host-offloaded code) and calls into other execution threads; calls ordered by
// control edges stay too (the order would be lost).
bool Inlinable(const Instruction& call) {
  if (call.opcode() != Opcode::kCall || call.called_computations().size() != 1) return false;
  if ((call.control_predecessors() && !call.control_predecessors()->empty()) || !call.control_successors().empty())
    return false;
  if (!call.called_computations()[0]->execution_thread().empty() &&
      call.called_computations()[0]->execution_thread() != "main")
    return false;
  if (const auto* fa = call.attr<KeyValueList>(AttrId::kFrontendAttributes))
    for (const auto& [key, value] : *fa)
      if (key == "inlineable" && (value == "false" || value == "\"false\"")) return false;
  return true;
}

// Removes the computations not reachable from the entry.
bool RemoveUnreachableComputations(Module& module) {
  std::vector<Computation*> live = module.MakeComputationPostOrder();
  absl::flat_hash_set<Computation*> keep(live.begin(), live.end());
  bool changed = false;
  for (Computation* c : module.computations()) {
    if (!keep.contains(c)) {
      module.RemoveComputation(c);
      changed = true;
    }
  }
  return changed;
}

}  // namespace

StatusOr<bool> RunInlineCalls(Module& module, InlinedNames* renamed) {
  // A callee whose every reference is an inlinable call disappears once they are inlined: its
  // instructions keep their names at its first call site (the copy there takes over each name;
  // copies at later sites get fresh ones), and it is never walked itself, since its calls are
  // inlined through the copies. Copies of an inlinable call are inlinable, so this holds for the
  // copies' callees too.
  std::vector<Computation*> order = module.MakeComputationPostOrder();
  absl::flat_hash_map<const Computation*, bool> vanishes;
  for (Computation* c : order)
    for (Instruction* i : c->instructions())
      for (Computation* callee : i->called_computations()) {
        auto [it, fresh] = vanishes.emplace(callee, true);
        it->second = it->second && Inlinable(*i);
      }
  absl::flat_hash_set<const Computation*> names_given;
  bool changed = false;
  // Callers first; calls copied into a caller are inlined in the same walk (the worklist).
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    Computation& caller = **it;
    if (vanishes.contains(&caller) && vanishes[&caller]) continue;
    std::vector<Instruction*> work = caller.instructions();
    for (size_t k = 0; k < work.size(); ++k) {
      Instruction* call = work[k];
      if (!Inlinable(*call)) continue;
      const Computation& callee = *call->called_computations()[0];
      const bool keep_names = vanishes[&callee] && names_given.insert(&callee).second;
      Instruction* result = InlineInto(module, caller, *call, callee, keep_names, renamed, &work);
      // The call's sharding is a constraint on its value: kept on the inlined root, or on a
      // copy of it when the callee returns one of its parameters (the caller's own value) or a
      // root sharded otherwise (which then takes a fresh name).
      const bool existing = std::find(call->operands().begin(), call->operands().end(), result) !=
                            call->operands().end();
      if (call->has_sharding()) {
        const bool differs = result->has_sharding() && !(*result->sharding() == *call->sharding());
        const bool own_copy = existing || differs;
        if (own_copy) {
          if (!existing) {
            result->set_name(module.UniqueName(callee.root()->name()));
            if (renamed && renamed->contains(callee.root()->name()))
              (*renamed)[callee.root()->name()].back() = result->name();
          }
          // The call's own name: the call goes right below.
          result = caller.AddInstruction(Opcode::kCopy, result->shape(), call->name(), {result});
          result->set_location(call->location());
        }
        if (own_copy || !result->has_sharding()) result->set_sharding(call->sharding_ptr());
      }
      if (renamed && result->name() != call->name()) (*renamed)[call->name()].push_back(result->name());
      call->ReplaceAllUsesWith(result);
      if (caller.root() == call) caller.set_root(result);
      RETURN_IF_ERROR(caller.RemoveInstruction(call));
      changed = true;
    }
  }
  // The callees nothing calls now. Their instructions may share names with copies that kept
  // them; nothing between the inlining and here looks names up.
  if (changed) RemoveUnreachableComputations(module);
  return changed;
}

std::vector<std::string> NamesAfterInlining(const Module& module, const InlinedNames& renamed,
                                            const std::string& name) {
  auto first = renamed.find(name);
  if (first == renamed.end()) return {};
  absl::flat_hash_set<std::string> present;
  for (const Computation* c : module.computations())
    for (const Instruction* i : c->instructions()) present.insert(i->name());
  std::vector<std::string> out;
  std::vector<std::string> todo = first->second;
  absl::flat_hash_set<std::string> seen(todo.begin(), todo.end());
  while (!todo.empty()) {
    std::string n = std::move(todo.back());
    todo.pop_back();
    if (present.contains(n)) {
      out.push_back(n);
    } else if (auto it = renamed.find(n); it != renamed.end()) {
      for (const std::string& next : it->second)
        if (seen.insert(next).second) todo.push_back(next);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

StatusOr<bool> RunSplitConstantExpressions(Module& module) {
  bool changed = false;
  for (Computation* comp : module.computations()) {
    std::vector<Instruction*> order = comp->MakeInstructionPostOrder();
    absl::flat_hash_map<const Instruction*, size_t> position;
    for (size_t k = 0; k < order.size(); ++k) position[order[k]] = k;
    // Operands first: which instructions compute from constants only.
    absl::flat_hash_set<const Instruction*> constant;
    for (Instruction* i : order) {
      bool c = false;
      switch (i->opcode()) {
        case Opcode::kConstant: case Opcode::kIota:
          c = true;
          break;
        case Opcode::kBroadcast: case Opcode::kReshape: case Opcode::kTranspose: case Opcode::kConvert:
          c = true;
          break;
        default:
          c = IsElementwiseOpcode(i->opcode());
      }
      c = c && !i->HasSideEffect() && i->called_computations().empty() && !i->shape().IsTuple();
      for (const Instruction* op : i->operands()) c = c && constant.contains(op);
      if (c) constant.insert(i);
    }
    // Users first, so that an expression's operands are split after it gave its copies theirs.
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      Instruction* i = *it;
      if (!constant.contains(i) || i->opcode() == Opcode::kConstant || i->has_sharding() || i->IsRoot() ||
          !i->control_successors().empty() || (i->control_predecessors() && !i->control_predecessors()->empty()))
        continue;
      std::vector<Instruction*> users = i->users();  // distinct; the first in post order keeps `i`
      std::sort(users.begin(), users.end(),
                [&](const Instruction* a, const Instruction* b) { return position.at(a) < position.at(b); });
      for (size_t k = 1; k < users.size(); ++k) {
        std::unique_ptr<Instruction> copy = CopyWithoutEdges(module, *i);
        for (Instruction* op : i->operands()) copy->AppendOperand(op);
        Instruction* added = comp->AddInstruction(std::move(copy));
        const size_t next = position.size();  // after every instruction of `order`
        position[added] = next;
        for (int64_t o = 0; o < users[k]->operand_count(); ++o)
          if (users[k]->operand(o) == i) users[k]->ReplaceOperandWith(o, added);
        changed = true;
      }
    }
  }
  return changed;
}

StatusOr<bool> RunFlattenControlFlow(Module& module) {
  bool changed = false;
  for (bool again = true; again;) {  // as RunFlattenCalls: nested shared callees in later rounds
    again = false;
    // Every slot that names a computation: a while's condition or body, a conditional's branch
    // (true/false, or an element of branch_computations).
    struct Slot {
      Instruction* instr;
      AttrId id;
      int64_t index;  // in a computation list; -1 for a single computation
    };
    absl::flat_hash_map<const Computation*, std::vector<Slot>> slots;
    absl::flat_hash_set<const Computation*> other_uses;
    std::vector<Computation*> order = module.MakeComputationPostOrder();
    for (auto it = order.rbegin(); it != order.rend(); ++it) {  // callers first
      for (Instruction* i : (*it)->instructions()) {
        const bool flow = i->opcode() == Opcode::kWhile || i->opcode() == Opcode::kConditional;
        for (const auto& [id, value] : i->attrs().entries()) {
          if (const auto* c = std::get_if<Computation*>(&value); c && *c) {
            if (flow) slots[*c].push_back({i, id, -1});
            else other_uses.insert(*c);
          } else if (const auto* list = std::get_if<std::vector<Computation*>>(&value)) {
            for (size_t k = 0; k < list->size(); ++k) {
              if (!(*list)[k]) continue;
              if (flow) slots[(*list)[k]].push_back({i, id, static_cast<int64_t>(k)});
              else other_uses.insert((*list)[k]);
            }
          }
        }
      }
    }
    for (Computation* callee : order) {
      auto found = slots.find(callee);
      if (found == slots.end() || found->second.size() < 2 || other_uses.contains(callee)) continue;
      for (size_t k = 1; k < found->second.size(); ++k) {
        const Slot& slot = found->second[k];
        Computation* clone = CloneComputation(module, *callee);
        for (auto& [id, value] : slot.instr->attrs().mutable_entries()) {
          if (id != slot.id) continue;
          if (slot.index < 0) {
            value = clone;
          } else {
            std::get<std::vector<Computation*>>(value)[slot.index] = clone;
          }
        }
      }
      changed = again = true;
    }
  }
  return changed;
}

StatusOr<bool> RunFlattenCalls(Module& module) {
  bool changed = false;
  // Each round clones the shared callees of the computations reachable now; clones call what
  // the originals call, so nested shared callees are split in later rounds. The call graph is
  // acyclic, so this ends (after at most its depth rounds).
  for (bool again = true; again;) {
    again = false;
    absl::flat_hash_map<const Computation*, std::vector<Instruction*>> calls;
    absl::flat_hash_set<const Computation*> other_uses;
    std::vector<Computation*> order = module.MakeComputationPostOrder();
    for (auto it = order.rbegin(); it != order.rend(); ++it) {  // callers first
      for (Instruction* i : (*it)->instructions()) {
        for (Computation* callee : i->called_computations()) {
          if (i->opcode() == Opcode::kCall)
            calls[callee].push_back(i);
          else
            other_uses.insert(callee);
        }
      }
    }
    for (Computation* callee : order) {
      auto found = calls.find(callee);
      if (found == calls.end() || found->second.size() < 2 || other_uses.contains(callee)) continue;
      for (size_t k = 1; k < found->second.size(); ++k) {
        Computation* clone = CloneComputation(module, *callee);
        found->second[k]->ReplaceCalledComputation(callee, clone);
      }
      changed = again = true;
    }
  }
  return changed;
}

}  // namespace spmdc

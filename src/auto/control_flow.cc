#include "auto/control_flow.h"

#include <algorithm>

#include "cost/cost.h"
#include "fmt/format.h"
#include "support/check.h"

namespace spmdc::autoshard {

const Shape& LeafShape(const Shape& shape, int64_t leaf) {
  if (leaf < 0 || !shape.IsTuple()) return shape;
  for (const Shape& e : shape.tuple_shapes()) {
    const int64_t n = e.leaf_count();
    if (leaf < n) return LeafShape(e, e.IsTuple() ? leaf : -1);
    leaf -= n;
  }
  SPMDC_CHECK_MSG(false, "leaf index out of range of the shape");
  return shape;
}

int64_t FirstLeafOfElement(const Shape& shape, int64_t index) {
  int64_t first = 0;
  for (int64_t i = 0; i < index; ++i) first += shape.tuple_shape(i).leaf_count();
  return first;
}

bool HasManualSharding(const Instruction& instr) {
  if (!instr.has_sharding()) return false;
  const Sharding& s = *instr.sharding();
  if (!s.IsTuple()) return s.IsManual() || s.IsManualSubgroup();
  return std::any_of(s.tuple_elements().begin(), s.tuple_elements().end(),
                     [](const Sharding& e) { return e.IsManual() || e.IsManualSubgroup(); });
}

namespace {

bool IsAliasOpcode(Opcode op) {
  return op == Opcode::kTuple || op == Opcode::kGetTupleElement || op == Opcode::kOptimizationBarrier;
}

// Tuple-valued ops whose leaves share one split (control_flow.h): topk (the op or the TopK custom
// call), and variadic reduce and sort whose results all have one shape's dims.
bool IsSharedSplitTupleOp(const Instruction& instr) {
  const Shape& shape = instr.shape();
  if (!shape.IsTuple() || shape.tuple_size() == 0) return false;
  const Opcode op = instr.opcode();
  if (op != Opcode::kTopK && op != Opcode::kReduce && op != Opcode::kSort && !instr.IsCustomCall("TopK")) return false;
  for (const Shape& e : shape.tuple_shapes())
    if (!e.IsArray() || e.dims() != shape.tuple_shape(0).dims()) return false;
  return true;
}

}  // namespace

// Builds a ProgramFlow (ProgramFlow::Analyze).
class FlowAnalyzer {
 public:
  FlowAnalyzer(const Module& module, bool keep) : module_(module), keep_(keep) {}

  StatusOr<ProgramFlow> Run() {
    RETURN_IF_ERROR(Visit(*module_.entry(), 1));
    return std::move(out_);
  }

 private:
  // The instructions of `c` inside manual regions: from each SPMDFullToShardShape forward through
  // users up to (not past) SPMDShardToFullShape, what those read short of a FullToShard's
  // operand, and whatever carries a manual sharding. The boundaries (FullToShard operands,
  // ShardToFull calls) stay outside unless they are manual themselves (nested regions).
  void MarkManualRegions(const Computation& c) {
    for (const Instruction* i : c.instructions()) {
      if (i->IsCustomCall("SPMDShardToFullShape") && !HasManualSharding(*i)) out_.boundary_.insert(i);
      if (i->IsCustomCall("SPMDFullToShardShape"))
        for (const Instruction* op : i->operands())
          if (!HasManualSharding(*op)) out_.boundary_.insert(op);
    }
    std::vector<const Instruction*> work;
    auto mark = [&](const Instruction* i) {
      if (!out_.boundary_.contains(i) && inside_.insert(i).second) work.push_back(i);
    };
    for (const Instruction* i : c.instructions())
      if (i->IsCustomCall("SPMDFullToShardShape") || HasManualSharding(*i)) mark(i);
    while (!work.empty()) {
      const Instruction* i = work.back();
      work.pop_back();
      for (const Instruction* u : i->users()) mark(u);
      if (!i->IsCustomCall("SPMDFullToShardShape"))
        for (const Instruction* op : i->operands()) mark(op);
    }
  }

  Status Called(const Computation* c, const Instruction* caller, int64_t branch) {
    auto [it, fresh] = out_.caller_.try_emplace(c, caller, branch);
    if (!fresh)
      return Unimplemented("spmdc auto: computation %{} is called by %{} and %{}: the strategy search gives each "
                           "value one sharding, so a loop body, condition or branch must have one caller",
                           c->name(), it->second.first->name(), caller->name());
    return absl::OkStatus();
  }

  void Add(const Instruction* instr, int64_t executions, FlowRole role) {
    out_.index_[instr] = static_cast<int64_t>(out_.schedule_.size());
    out_.schedule_.push_back(PlannedInstruction{instr, static_cast<int64_t>(out_.schedule_.size()), executions, role});
  }

  Status Visit(const Computation& c, int64_t executions) {
    MarkManualRegions(c);
    const bool entry = &c == module_.entry();
    for (const Instruction* instr : c.MakeInstructionPostOrder()) {
      if (inside_.contains(instr)) {
        Add(instr, executions, FlowRole::kManual);
        continue;
      }
      const Opcode op = instr->opcode();
      const bool annotated_alias = keep_ && instr->has_sharding() && !(entry && instr->IsRoot());
      if (op == Opcode::kWhile) {
        Add(instr, executions, FlowRole::kLeafNodes);
        const Computation* cond = instr->computation_attr(AttrId::kCondition);
        const Computation* body = instr->computation_attr(AttrId::kBody);
        if (!cond || !body) return InvalidArgument("while %{} has no condition or body", instr->name());
        RETURN_IF_ERROR(Called(cond, instr, -1));
        RETURN_IF_ERROR(Called(body, instr, -1));
        std::optional<int64_t> trips = KnownTripCount(*instr);
        if (!trips)
          out_.notes_.push_back(fmt::format("while %{}: trip count unknown, its body is counted once (as the cost "
                                            "model counts it)",
                                            instr->name()));
        const int64_t t = trips.value_or(1);
        RETURN_IF_ERROR(Visit(*cond, executions * (t + 1)));
        RETURN_IF_ERROR(Visit(*body, executions * t));
      } else if (op == Opcode::kConditional) {
        const std::vector<Computation*> branches = instr->called_computations();
        for (size_t b = 0; b < branches.size(); ++b) {
          RETURN_IF_ERROR(Called(branches[b], instr, static_cast<int64_t>(b)));
          RETURN_IF_ERROR(Visit(*branches[b], executions));
        }
        Add(instr, executions, FlowRole::kLeafNodes);
      } else if (IsAliasOpcode(op)) {
        Add(instr, executions, annotated_alias ? FlowRole::kLeafNodes : FlowRole::kAlias);
      } else if (op == Opcode::kParameter) {
        Add(instr, executions,
            !entry ? FlowRole::kAlias : instr->shape().IsTuple() ? FlowRole::kLeafNodes : FlowRole::kNode);
      } else if (op == Opcode::kCall) {
        return Unimplemented("spmdc auto: %{} is a call the planning could not inline (it has control "
                             "dependencies): not supported by the strategy search",
                             instr->name());
      } else if (op == Opcode::kRngBitGenerator) {
        // (state, bits): each leaf its own node, chosen freely: every device generates the whole
        // value and keeps its part (as the partitioner runs it), so no split costs communication.
        // The strategy space keeps the state replicated.
        Add(instr, executions, FlowRole::kLeafNodes);
      } else if (instr->shape().IsTuple()) {
        if (!IsSharedSplitTupleOp(*instr))
          return Unimplemented("spmdc auto: %{} ({}) is tuple-valued: the strategy search takes while, "
                               "conditional, tuples, topk, variadic reduce/sort and rng-bit-generator, not this yet",
                               instr->name(), OpcodeName(op));
        Add(instr, executions, FlowRole::kNode);
      } else if (!instr->shape().IsArray()) {
        Add(instr, executions, FlowRole::kNone);
      } else {
        for (const Instruction* operand : instr->operands())
          if (operand->shape().IsTuple())
            return Unimplemented("spmdc auto: %{} reads the tuple %{}: not supported by the strategy search yet",
                                 instr->name(), operand->name());
        Add(instr, executions, FlowRole::kNode);
      }
    }
    return absl::OkStatus();
  }

  const Module& module_;
  const bool keep_;
  ProgramFlow out_;
  absl::flat_hash_set<const Instruction*> inside_;
};

StatusOr<ProgramFlow> ProgramFlow::Analyze(const Module& module, bool keep_annotations) {
  if (!module.entry()) return InvalidArgument("the module has no entry computation");
  return FlowAnalyzer(module, keep_annotations).Run();
}

const PlannedInstruction* ProgramFlow::Find(const Instruction* instr) const {
  auto it = index_.find(instr);
  return it == index_.end() ? nullptr : &schedule_[it->second];
}

std::optional<ValueLeaf> ProgramFlow::Origin(const Instruction* instr, int64_t leaf) const {
  // Iterative: long chains of tuples and get-tuple-elements (unrolled loops) stay shallow.
  for (;;) {
    const PlannedInstruction* p = Find(instr);
    if (!p) return std::nullopt;
    switch (p->role) {
      case FlowRole::kNode:
        return ValueLeaf{instr, -1};
      case FlowRole::kLeafNodes:
        if (!LeafShape(instr->shape(), leaf).IsArray()) return std::nullopt;
        return ValueLeaf{instr, std::max<int64_t>(leaf, 0)};
      case FlowRole::kManual:
      case FlowRole::kNone:
        return std::nullopt;
      case FlowRole::kAlias:
        break;
    }
    switch (instr->opcode()) {
      case Opcode::kTuple: {
        int64_t k = 0;
        for (; k < instr->operand_count(); ++k) {
          const int64_t n = instr->operand(k)->shape().leaf_count();
          if (leaf < n) break;
          leaf -= n;
        }
        if (k == instr->operand_count()) return std::nullopt;
        instr = instr->operand(k);
        if (!instr->shape().IsTuple()) leaf = -1;
        break;
      }
      case Opcode::kGetTupleElement: {
        const Instruction* t = instr->operand(0);
        leaf = FirstLeafOfElement(t->shape(), instr->tuple_index()) + std::max<int64_t>(leaf, 0);
        instr = t;
        break;
      }
      case Opcode::kOptimizationBarrier:
        instr = instr->operand(0);
        break;
      case Opcode::kParameter: {
        auto it = caller_.find(instr->parent());
        if (it == caller_.end()) return std::nullopt;
        const auto [call, branch] = it->second;
        if (call->opcode() == Opcode::kWhile) return ValueLeaf{call, std::max<int64_t>(leaf, 0)};
        instr = call->operand(branch + 1);
        if (!instr->shape().IsTuple()) leaf = -1;
        break;
      }
      default:
        return std::nullopt;
    }
  }
}

std::vector<std::pair<ValueLeaf, int64_t>> ProgramFlow::LeafInputs(const Instruction* instr, int64_t leaf) const {
  std::vector<std::pair<ValueLeaf, int64_t>> out;
  // `from`'s leaf, resharded `executions` times per step.
  auto add = [&](const Instruction* from, int64_t from_leaf, const Instruction* runs) {
    const PlannedInstruction* p = Find(runs);
    if (!p || !Find(from)) return;
    if (std::optional<ValueLeaf> o = Origin(from, from->shape().IsTuple() ? from_leaf : -1))
      out.emplace_back(*o, p->executions);
  };
  const int64_t l = std::max<int64_t>(leaf, 0);
  switch (instr->opcode()) {
    case Opcode::kWhile: {
      // The operand once per loop (where the while runs), the body root per iteration.
      const Instruction* root = instr->computation_attr(AttrId::kBody)->root();
      add(instr->operand(0), l, instr);
      add(root, l, root);
      break;
    }
    case Opcode::kConditional:
      for (const Computation* branch : instr->called_computations()) add(branch->root(), l, branch->root());
      break;
    case Opcode::kTuple: {
      int64_t k = 0, rest = l;
      for (; k < instr->operand_count(); ++k) {
        const int64_t n = instr->operand(k)->shape().leaf_count();
        if (rest < n) break;
        rest -= n;
      }
      if (k < instr->operand_count()) add(instr->operand(k), rest, instr);
      break;
    }
    case Opcode::kGetTupleElement: {
      const Instruction* t = instr->operand(0);
      add(t, FirstLeafOfElement(t->shape(), instr->tuple_index()) + l, instr);
      break;
    }
    case Opcode::kOptimizationBarrier:
      add(instr->operand(0), l, instr);
      break;
    case Opcode::kRngBitGenerator:
      // The state out is the state in, advanced: both whole (the reshard of a split key in).
      if (l == 0) add(instr->operand(0), 0, instr);
      break;
    default:
      break;
  }
  return out;
}

}  // namespace spmdc::autoshard

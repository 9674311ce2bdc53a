// Tuples and control flow: tuple, get-tuple-element, while, conditional and call. Called
// computations are partitioned through Partitioner::PartitionCalled with the shardings agreed
// here (loop state, branch arguments and results).
#include "partitioner/computation_partitioner.h"

#include <map>

namespace spmdc {
namespace partitioner_internal {

Status ComputationPartitioner::Tuple(const Instruction* instr) {
  Sharding target = TargetOf(instr);
  std::vector<Instruction*> ops;
  for (int64_t i = 0; i < instr->operand_count(); ++i)
    ops.push_back(Operand(instr, i, target.GetSubSharding(instr->shape(), {&i, 1})).hlo);
  Set(instr, PValue{b_.Tuple(ops), target, instr->shape()});
  return absl::OkStatus();
}

Status ComputationPartitioner::GetTupleElement(const Instruction* instr) {
  const PValue& t = Get(instr->operand(0));
  int64_t i = instr->tuple_index();
  if (auto it = topk_k_.find(instr->operand(0)); it != topk_k_.end()) {
    // An element of a top-k sort's candidates: only its slices read it (TopKSort checked).
    Sharding leaf = t.sharding.IsTuple() ? t.sharding.tuple_elements()[i] : t.sharding;
    Set(instr, PValue{b_.GetTupleElement(t.hlo, i), leaf, instr->shape()});
    topk_k_[instr] = it->second;
    return absl::OkStatus();
  }
  PValue e{b_.GetTupleElement(t.hlo, i), t.sharding.GetSubSharding(t.base_shape, {&i, 1}), instr->shape()};
  Set(instr, r_.Reshard(e, TargetOf(instr), instr->name()));
  return absl::OkStatus();
}

Status ComputationPartitioner::While(const Instruction* instr) {
  Sharding state = TargetOf(instr);
  Computation* cond = instr->computation_attr(AttrId::kCondition);
  Computation* body = instr->computation_attr(AttrId::kBody);
  PValue init = Operand(instr, 0, state);
  ASSIGN_OR_RETURN(Computation* pbody, p_->PartitionCalled(*body, {state}, state));
  // Every device must take the same branch: the predicate is replicated (in a partial-manual
  // region: within each manual group, which is all its collectives need).
  Sharding pred = Sharding::Replicate();
  if (cond->root()->has_sharding() && HasManualSubgroup(ComputationTarget(cond->root())))
    pred = ComputationTarget(cond->root());
  ASSIGN_OR_RETURN(Computation* pcond, p_->PartitionCalled(*cond, {state}, pred));
  Instruction* w = CloneWith(instr, {init.hlo}, init.hlo->shape());
  w->ReplaceCalledComputation(cond, pcond);
  w->ReplaceCalledComputation(body, pbody);
  Set(instr, PValue{w, state, instr->shape()});
  return absl::OkStatus();
}

Status ComputationPartitioner::Conditional(const Instruction* instr) {
  Sharding target = TargetOf(instr);
  // Every device takes the same branch (in a partial-manual region: within each manual group).
  const PValue& selector = Get(instr->operand(0));
  Sharding agreed = Sharding::Replicate();
  if (std::optional<ManualFrame> frame = FrameOf(selector.sharding)) agreed = ReplicatedInGroups(*frame, 0);
  std::vector<Instruction*> ops = {r_.Reshard(selector, agreed, instr->name()).hlo};
  std::vector<Computation*> branches = instr->called_computations();
  // A computation that is several branches is partitioned once, for its first operand's
  // sharding; the later branches' operands are resharded to it (the conditional names one
  // computation for all of them).
  std::map<const Computation*, std::pair<Sharding, Computation*>> done;
  for (size_t b = 0; b < branches.size(); ++b) {
    const PValue& arg = Get(instr->operand(b + 1));
    auto it = done.find(branches[b]);
    if (it != done.end()) {
      ops.push_back(r_.Reshard(arg, it->second.first, instr->name()).hlo);
      continue;
    }
    ops.push_back(arg.hlo);
    ASSIGN_OR_RETURN(Computation* pb, p_->PartitionCalled(*branches[b], {arg.sharding}, target));
    done.emplace(branches[b], std::make_pair(arg.sharding, pb));
  }
  Instruction* c = CloneWith(instr, ops, target.ShardShape(instr->shape()));
  for (const auto& [branch, entry] : done) c->ReplaceCalledComputation(const_cast<Computation*>(branch), entry.second);
  Set(instr, PValue{c, target, instr->shape()});
  return absl::OkStatus();
}

Status ComputationPartitioner::Call(const Instruction* instr) {
  Sharding target = TargetOf(instr);
  Computation* callee = instr->to_apply();
  std::vector<Instruction*> ops;
  std::vector<Sharding> params;
  for (const Instruction* op : instr->operands()) {
    ops.push_back(Get(op).hlo);
    params.push_back(Get(op).sharding);
  }
  ASSIGN_OR_RETURN(Computation* pc, p_->PartitionCalled(*callee, params, target));
  Instruction* c = CloneWith(instr, ops, target.ShardShape(instr->shape()));
  c->ReplaceCalledComputation(callee, pc);
  Set(instr, PValue{c, target, instr->shape()});
  return absl::OkStatus();
}

}  // namespace partitioner_internal
}  // namespace spmdc

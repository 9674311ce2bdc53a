// Handlers for ops that act elementwise on (some of) their dims: elementwise ops proper,
// constant, iota, broadcast, transpose, and the ops elementwise except on a few dims (cholesky,
// triangular-solve and fft go through ElementwiseExceptDims). Each keeps the result's tiling on
// the operands where it can and runs locally.
#include <numeric>

#include "partitioner/computation_partitioner.h"
#include "propagation/dim_mapping.h"
#include "sharding/algebra.h"

namespace spmdc {
namespace partitioner_internal {

Status ComputationPartitioner::Elementwise(const Instruction* instr) {
  Sharding target = TargetOf(instr);
  std::vector<Instruction*> ops;
  for (int64_t i = 0; i < instr->operand_count(); ++i) {
    const Instruction* op = instr->operand(i);
    if (op->shape().rank() == 0 && instr->shape().rank() > 0) {
      // Scalar operands (clamp bounds, select predicate) are replicated.
      ops.push_back(r_.Reshard(Get(op), Sharding::Replicate(), instr->name()).hlo);
    } else {
      ops.push_back(Operand(instr, i, target).hlo);
    }
  }
  Shape shard = target.ShardShape(instr->shape());
  Instruction* c = CloneWith(instr, ops, shard);
  for (Computation* called : instr->called_computations()) {  // map
    std::vector<Sharding> params(called->num_parameters(), Sharding::Replicate());
    ASSIGN_OR_RETURN(Computation* pc, p_->PartitionCalled(*called, params, Sharding::Replicate()));
    c->ReplaceCalledComputation(called, pc);
  }
  Set(instr, PValue{c, target, instr->shape()});
  return absl::OkStatus();
}

Status ComputationPartitioner::Constant(const Instruction* instr) {
  Shape shape = instr->shape();
  Instruction* c = CloneWith(instr, {}, shape);
  PValue v{c, Sharding::Single(shape, Sharding::Replicate()), shape};
  Set(instr, r_.Reshard(v, TargetOf(instr), instr->name()));
  return absl::OkStatus();
}

Status ComputationPartitioner::Iota(const Instruction* instr) {
  Sharding target = TargetOf(instr);
  if (!target.IsTiled()) return Default(instr);
  int64_t dim = instr->int_attr(AttrId::kIotaDimension);
  Shape shard = target.ShardShape(instr->shape());
  Instruction* local = CloneWith(instr, {}, shard);
  if (target.NumTilesOnDim(dim) > 1) {
    DType t = instr->shape().dtype();
    Instruction* offset = r_.TileOffsets(instr->shape(), target)[dim];
    local = b_.Binary(Opcode::kAdd, local, b_.BroadcastScalar(b_.Convert(offset, t), shard));
  }
  Set(instr, PValue{local, target, instr->shape()});
  return absl::OkStatus();
}

Status ComputationPartitioner::Broadcast(const Instruction* instr) {
  Sharding target = TargetOf(instr);
  if (!target.IsTiled()) return Default(instr);
  const auto& dims = instr->dimensions();
  std::vector<int64_t> operand_dims(dims.size());
  std::iota(operand_dims.begin(), operand_dims.end(), 0);
  Sharding operand_sharding = MapShardingDims(target, dims, operand_dims, instr->operand(0)->shape().rank());
  PValue v = Operand(instr, 0, operand_sharding);
  Set(instr, PValue{b_.Broadcast(v.hlo, target.ShardShape(instr->shape()), dims), target, instr->shape()});
  return absl::OkStatus();
}

Status ComputationPartitioner::Transpose(const Instruction* instr) {
  Sharding target = TargetOf(instr);
  if (!target.IsTiled()) return Default(instr);
  const auto& perm = instr->dimensions();
  std::vector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inverse[perm[i]] = static_cast<int64_t>(i);
  PValue v = Operand(instr, 0, TransposeSharding(target, inverse));
  Set(instr, PValue{b_.Transpose(v.hlo, perm), target, instr->shape()});
  return absl::OkStatus();
}

// An op that is elementwise on every dim except `whole` (same rank for the result and every
// operand): those dims untiled, the rest tiled like the result, or like the first operand when
// the result is not tiled (its smaller result is then moved instead of the operands). GSPMD's
// HandleElementwiseWithDimsToReplicate (cholesky, triangular-solve); fft the same over its
// transformed dims.
Status ComputationPartitioner::ElementwiseExceptDims(const Instruction* instr, const std::vector<int64_t>& whole) {
  Sharding target = TargetOf(instr);
  int64_t rank = instr->shape().rank();
  for (const Instruction* op : instr->operands())
    if (!op->shape().IsArray() || op->shape().rank() != rank) return Default(instr);
  auto untile = [&](const Sharding& s) -> std::optional<Sharding> {
    if (!s.IsTiled() || !IsPlainTiled(s) || s.TiledDataRank() != rank) return std::nullopt;
    Sharding r = PartiallyReplicateTiledShardingOnDims(s, whole);
    if (!r.IsTiled()) return std::nullopt;
    return r;
  };
  std::optional<Sharding> compute = untile(target);
  if (!compute) {
    const PValue& first = Get(instr->operand(0));
    if (!first.sharding.IsTuple()) compute = untile(first.sharding);
  }
  if (!compute) return Default(instr);
  std::vector<Instruction*> ops;
  for (int64_t i = 0; i < instr->operand_count(); ++i) ops.push_back(Operand(instr, i, *compute).hlo);
  Instruction* c = CloneWith(instr, ops, compute->ShardShape(instr->shape()));
  Set(instr, r_.Reshard(PValue{c, *compute, instr->shape()}, target, instr->name()));
  return absl::OkStatus();
}

}  // namespace partitioner_internal
}  // namespace spmdc

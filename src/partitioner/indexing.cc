// Data-dependent indexing: dynamic-slice and dynamic-update-slice, and the glue that hands gather
// and scatter to gather_scatter.cc.
#include <algorithm>

#include "partitioner/computation_partitioner.h"
#include "partitioner/gather_scatter.h"
#include "sharding/algebra.h"

namespace spmdc {
namespace partitioner_internal {

// Dynamic-update-slice with the operand tiled on updated dims (GSPMD HandleDynamicUpdateSlice):
// the operand stays tiled and each device writes the part of the update that falls in its own
// tile. The update (replicated on the tiled updated dims `tiled`) is padded by a tile on both
// sides of each such dim, the tile-sized window at (tile start - clamped global start) is sliced
// out and selected where the tile's positions lie inside the update's range. Updated dims that
// are untiled are written with a local dynamic-update-slice at the clamped start (the same as
// the op's own clamping). Integer indices of any width (false otherwise: the caller's path).
bool ComputationPartitioner::LocalUpdate(const Instruction* instr, const Sharding& target,
                                         const std::vector<int64_t>& tiled) {
  const Shape& data = instr->operand(0)->shape();
  const Shape& update = instr->operand(1)->shape();
  int64_t rank = data.rank();
  for (int64_t d = 0; d < rank; ++d)
    if (update.dim(d) != data.dim(d) && !IsInteger(instr->operand(2 + d)->shape().dtype())) return false;
  PValue v = Operand(instr, 0, target);
  Instruction* upd = Operand(instr, 1, PartiallyReplicateTiledShardingOnDims(target, tiled)).hlo;
  Shape shard = v.hlo->shape();
  DType dt = shard.dtype();
  // Clamped global starts: the whole update fits in the operand.
  std::vector<Instruction*> start(rank, nullptr);
  for (int64_t d = 0; d < rank; ++d) {
    if (update.dim(d) == data.dim(d)) continue;
    Instruction* idx = r_.Reshard(Get(instr->operand(2 + d)), Sharding::Replicate(), instr->name()).hlo;
    // Clamped in the index type (no overflow), then s32 for the tile arithmetic.
    DType it = idx->shape().dtype();
    idx = b_.Binary(Opcode::kMaximum, idx, b_.ScalarOf(it, 0));
    idx = b_.Binary(Opcode::kMinimum, idx, b_.ScalarOf(it, static_cast<double>(data.dim(d) - update.dim(d))));
    start[d] = it == DType::kS32 ? idx : b_.Convert(idx, DType::kS32);
  }
  std::vector<PaddingDim> pad(rank);
  std::vector<Instruction*> window_start(rank, nullptr);
  std::vector<int64_t> sizes = upd->shape().dims();
  std::vector<Instruction*> tile_start(rank, nullptr);
  for (int64_t d : tiled) {
    int64_t c = shard.dim(d);
    pad[d].low = pad[d].high = c;
    std::vector<int64_t> table(b_.num_devices());
    for (int64_t dev = 0; dev < b_.num_devices(); ++dev) table[dev] = target.TileCoordForDevice(dev, d) * c;
    tile_start[d] = b_.TableLookup(table);
    window_start[d] = b_.Binary(Opcode::kAdd, b_.Binary(Opcode::kSubtract, tile_start[d], start[d]), b_.ScalarS32(c));
    sizes[d] = c;
  }
  Instruction* padded = b_.Pad(upd, b_.Zero(dt), pad);
  for (int64_t d = 0; d < rank; ++d)
    if (!window_start[d]) window_start[d] = b_.ScalarS32(0);
  Instruction* window = b_.DynamicSlice(padded, window_start, sizes);
  std::vector<Instruction*> local_start(rank);
  for (int64_t d = 0; d < rank; ++d)
    local_start[d] = start[d] && !tile_start[d] ? start[d] : b_.ScalarS32(0);
  Instruction* written = b_.DynamicUpdateSlice(v.hlo, window, local_start);
  Shape s32(DType::kS32, shard.dims());
  Instruction* inside = nullptr;
  for (int64_t d : tiled) {
    Instruction* g = b_.Binary(Opcode::kAdd, b_.Iota(s32, d), b_.BroadcastScalar(tile_start[d], s32));
    Instruction* ge = b_.Compare(g, b_.BroadcastScalar(start[d], s32), "GE");
    Instruction* end = b_.Binary(Opcode::kAdd, start[d], b_.ScalarS32(update.dim(d)));
    Instruction* lt = b_.Compare(g, b_.BroadcastScalar(end, s32), "LT");
    Instruction* in = b_.Binary(Opcode::kAnd, ge, lt);
    inside = inside ? b_.Binary(Opcode::kAnd, inside, in) : in;
  }
  Set(instr, PValue{b_.Select(inside, written, v.hlo), target, data});
  return true;
}

Status ComputationPartitioner::DynamicSlicing(const Instruction* instr) {
  Sharding target = TargetOf(instr);
  if (!target.IsTiled()) return Default(instr);
  bool is_ds = instr->opcode() == Opcode::kDynamicSlice;
  const Shape& data = instr->operand(0)->shape();
  const Shape& slice = is_ds ? instr->shape() : instr->operand(1)->shape();
  int64_t first_index = is_ds ? 1 : 2;
  // The vector index form (one rank-1 operand holding every start; s32[1] on a rank-1 operand)
  // runs on whole values: the paths below take one scalar index per dim.
  if (instr->operand_count() != first_index + data.rank() ||
      (data.rank() == 1 && instr->operand(first_index)->shape().rank() == 1))
    return Default(instr);
  // Sliced dims tiled in the result are gathered first (only they) and the result sliced after.
  const Sharding final_target = target;
  std::vector<int64_t> sliced;
  for (int64_t d = 0; d < data.rank(); ++d)
    if (slice.dim(d) != data.dim(d) && target.NumTilesOnDim(d) > 1) sliced.push_back(d);
  if (!sliced.empty()) {
    if (!IsPlainTiled(target)) return Default(instr);
    if (!is_ds && LocalUpdate(instr, target, sliced)) return absl::OkStatus();
    target = PartiallyReplicateTiledShardingOnDims(target, sliced);
  }
  std::vector<Instruction*> ops = {Operand(instr, 0, target).hlo};
  if (!is_ds) ops.push_back(Operand(instr, 1, target).hlo);
  for (int64_t d = 0; d < data.rank(); ++d) {
    const Instruction* idx = instr->operand(first_index + d);
    // Dims sliced whole take index 0 (the local shard is smaller than the global dim).
    if (slice.dim(d) == data.dim(d)) ops.push_back(b_.Zero(idx->shape().dtype()));
    else ops.push_back(r_.Reshard(Get(idx), Sharding::Replicate(), instr->name()).hlo);
  }
  Shape local = target.ShardShape(instr->shape());
  Instruction* c = CloneWith(instr, ops, local);
  if (is_ds) c->attrs().Set(AttrId::kDynamicSliceSizes, target.ShardShape(slice).dims());
  Set(instr, r_.Reshard(PValue{c, target, instr->shape()}, final_target, instr->name()));
  return absl::OkStatus();
}

Status ComputationPartitioner::GatherScatter(const Instruction* instr) {
  GatherScatterContext ctx;
  ctx.b = &b_;
  ctx.r = &r_;
  ctx.get = [this](const Instruction* op) -> const PValue& { return values_.at(op); };
  ctx.partition_replicated = [this](const Computation& c) {
    std::vector<Sharding> params;
    for (Instruction* p : c.parameters()) params.push_back(Sharding::Single(p->shape(), Sharding::Replicate()));
    return p_->PartitionCalled(c, params, Sharding::Single(c.root()->shape(), Sharding::Replicate()));
  };
  ctx.reduce_scatter_to = [this](const PValue& v, const std::vector<std::vector<int64_t>>& groups,
                                 const Sharding& target, const std::string& kind) {
    return ReduceScatterTo(v, groups, target, kind);
  };
  StatusOr<std::optional<PValue>> v = instr->opcode() == Opcode::kGather
                                          ? PartitionGather(ctx, *instr, TargetOf(instr))
                                          : PartitionScatter(ctx, *instr, TargetOf(instr));
  RETURN_IF_ERROR(v.status());
  if (!*v) return Default(instr);
  Set(instr, std::move(**v));
  return absl::OkStatus();
}

}  // namespace partitioner_internal
}  // namespace spmdc

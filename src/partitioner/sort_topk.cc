// Sort and top-k: a sort whose results are only read through slices of their first k elements
// (TopKSort), the local sharding for a sort along a tiled dim (SortLocalSharding, used by the
// slicing handler), and the topk op / TopK custom call.
#include <algorithm>
#include <limits>
#include <numeric>

#include "partitioner/computation_partitioner.h"
#include "sharding/algebra.h"

namespace spmdc {
namespace partitioner_internal {

// A sort along a tiled dim whose results are only read through slices of their first k elements
// along that dim (top-k written as sort + slice; GSPMD HandleSort's top-k case): each device
// sorts its shard, keeps its first k, the T*k candidates are gathered along the dim (in tile
// order, so a stable sort still puts ties in index order) and sorted once more; the slices cut
// the first k of that. Moves T*k per row instead of the whole dim. Even dims only: the padding
// of an uneven one would have to sort last under an arbitrary comparator.
StatusOr<bool> ComputationPartitioner::TopKSort(const Instruction* instr, const Sharding& target) {
  if (instr->dimensions().empty() || instr == src_.root()) return false;
  const int64_t dim = instr->dimensions()[0];
  const Shape& shape0 = instr->operand(0)->shape();
  Sharding leaf = target.IsTuple() ? target.tuple_elements()[0] : target;
  if (target.IsTuple())
    for (const Sharding& s : target.tuple_elements())
      if (!(s == leaf)) return false;
  // A result not tiled on the sort dim (e.g. replicated, the slices gathered): the operand's
  // tiling, when it has the sort dim tiled, still gives the shards their candidates.
  if (TilesOnDim(leaf, dim) == 1) {
    const PValue& x = Get(instr->operand(0));
    if (!x.sharding.IsTuple() && IsPlainTiled(x.sharding) && TilesOnDim(x.sharding, dim) > 1) leaf = x.sharding;
  }
  if (!leaf.IsTiled() || !IsPlainTiled(leaf) || leaf.TiledDataRank() != shape0.rank()) return false;
  const int64_t tiles = leaf.NumTilesOnDim(dim), size = shape0.dim(dim);
  if (tiles == 1 || size % tiles != 0) return false;
  // Every use: a slice [0:k] along dim (whole elsewhere), directly or through a get-tuple-element.
  int64_t k = -1;
  auto first_k = [&](const Instruction* user) {
    if (user->opcode() != Opcode::kSlice || user == src_.root()) return false;
    // A mixed-precision slice (its element type not its operand's) is no plain cut of candidates.
    if (user->shape().dtype() != user->operand(0)->shape().dtype()) return false;
    const SliceSpec* spec = user->attr<SliceSpec>(AttrId::kSlice);
    for (int64_t d = 0; d < shape0.rank(); ++d) {
      if (spec->starts[d] != 0 || spec->strides[d] != 1) return false;
      if (d != dim && spec->limits[d] != shape0.dim(d)) return false;
    }
    if (k >= 0 && spec->limits[dim] != k) return false;
    k = spec->limits[dim];
    return true;
  };
  if (instr->users().empty()) return false;
  for (const Instruction* u : instr->users()) {
    if (instr->shape().IsTuple()) {
      if (u->opcode() != Opcode::kGetTupleElement || u == src_.root() || u->users().empty()) return false;
      for (const Instruction* s : u->users())
        if (!first_k(s)) return false;
    } else if (!first_k(u)) {
      return false;
    }
  }
  if (k < 1 || k > size / tiles || k * tiles >= size) return false;
  std::vector<Sharding> params(instr->to_apply()->num_parameters(), Sharding::Replicate());
  ASSIGN_OR_RETURN(Computation* cmp, p_->PartitionCalled(*instr->to_apply(), params, Sharding::Replicate()));
  std::vector<Instruction*> ops;
  std::vector<Shape> shapes;
  for (int64_t i = 0; i < instr->operand_count(); ++i) {
    ops.push_back(Operand(instr, i, leaf).hlo);
    shapes.push_back(ops.back()->shape());
  }
  Instruction* local = CloneWith(instr, ops, instr->shape().IsTuple() ? Shape::Tuple(shapes) : shapes[0]);
  local->ReplaceCalledComputation(instr->to_apply(), cmp);
  auto groups = Resharder::GroupsAlong(leaf, {dim});
  std::vector<Instruction*> candidates;
  std::vector<Shape> cshapes;
  for (int64_t i = 0; i < instr->operand_count(); ++i) {
    Instruction* e = instr->shape().IsTuple() ? b_.GetTupleElement(local, i) : local;
    std::vector<int64_t> starts(shape0.rank(), 0), limits = e->shape().dims();
    limits[dim] = k;
    candidates.push_back(b_.AllGather(b_.Slice(e, starts, limits), dim, groups));
    cshapes.push_back(candidates.back()->shape());
  }
  Attributes attrs = instr->attrs();
  attrs.Remove(AttrId::kControlPredecessors);
  attrs.Set(AttrId::kToApply, cmp);
  Shape merged_shape = instr->shape().IsTuple() ? Shape::Tuple(cshapes) : cshapes[0];
  Instruction* merged = b_.Add(Opcode::kSort, candidates, std::move(attrs), &merged_shape, instr->name());
  const int64_t sort_dim[] = {dim};
  Sharding rows = PartiallyReplicateTiledShardingOnDims(leaf, sort_dim);
  Sharding s = instr->shape().IsTuple() ? Sharding::Tuple(std::vector<Sharding>(instr->operand_count(), rows)) : rows;
  // Not a value of the sort's shape: only the slices above read it, through topk_k_.
  Set(instr, PValue{merged, s, instr->shape()});
  topk_k_[instr] = k;
  return true;
}

namespace {

// The sharding of `s` (plain tiling, possibly partially replicated) with the tiles of dims a and b
// swapped in the tile array: the sharding the resharder's all-to-all yields when it moves a's
// tiles onto an untiled b.
Sharding SwapTileDims(const Sharding& s, int64_t a, int64_t b) {
  std::vector<int64_t> perm(s.tile_assignment().num_dimensions());
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[a], perm[b]);
  TileAssignment ta = s.tile_assignment().Transpose(perm);
  return s.HasPartialReplication() ? Sharding::PartialTile(ta) : Sharding::Tile(ta);
}

}  // namespace

// Sort along a tiled dim (GSPMD HandleSort): the sort dim's tiles move onto another dim that is
// untiled and divides by their number (one all-to-all), so the sort runs locally on whole rows.
// The largest such dim is taken; nullopt when there is none.
std::optional<Sharding> SortLocalSharding(const Sharding& leaf, const Shape& shape, int64_t dim) {
  if (!leaf.IsTiled() || !IsPlainTiled(leaf) || leaf.TiledDataRank() != shape.rank()) return std::nullopt;
  int64_t k = leaf.NumTilesOnDim(dim);
  if (k == 1) return std::nullopt;
  int64_t best = -1;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    if (d == dim || leaf.NumTilesOnDim(d) != 1 || shape.dim(d) % k != 0) continue;
    if (best < 0 || shape.dim(d) > shape.dim(best)) best = d;
  }
  if (best < 0) return std::nullopt;
  return SwapTileDims(leaf, dim, best);
}

// TopK along the last dim (the topk op; the TopK custom call, whose k is its result's last dim).
// Other dims tiled: a local topk per shard. The last dim tiled with at least k elements per
// shard (GSPMD's TopK partitioning): each shard takes its own top k (the padding of an uneven dim
// filled with the value that ranks last), its indices made global by the tile offset; the T*k
// candidates per row are gathered along that dim and sorted once more (stable: gathered in tile
// order, ties keep the lower index first) and the first k kept. That moves T*k values and indices
// per row instead of gathering the whole dim.
Status ComputationPartitioner::TopK(const Instruction* instr) {
  Sharding target = TargetOf(instr);
  const Shape& in = instr->operand(0)->shape();
  if (!instr->shape().IsTuple() || instr->shape().tuple_size() != 2 || in.rank() < 1 || target.IsManual())
    return Default(instr);
  const int64_t last = in.rank() - 1;
  const Shape& values_shape = instr->shape().tuple_shape(0);
  const Shape& indices_shape = instr->shape().tuple_shape(1);
  const int64_t k = values_shape.dim(last);
  const bool largest = instr->bool_attr(AttrId::kLargest, true);
  const DType dt = in.dtype();
  const PValue& x = Get(instr->operand(0));
  const int64_t last_dims[] = {last};
  auto whole_last = [&](const Sharding& s) {
    return s.NumTilesOnDim(last) > 1 ? PartiallyReplicateTiledShardingOnDims(s, last_dims) : s;
  };
  // A local topk of `op` (last dim whole or a shard of it), with the called comparator if any.
  auto local_topk = [&](Instruction* op) -> StatusOr<Instruction*> {
    std::vector<int64_t> dims = op->shape().dims();
    dims[last] = k;
    Shape shape = Shape::Tuple({Shape(dt, dims), Shape(indices_shape.dtype(), dims)});
    Instruction* c = CloneWith(instr, {op}, shape);
    for (Computation* called : instr->called_computations()) {
      std::vector<Sharding> params(called->num_parameters(), Sharding::Replicate());
      ASSIGN_OR_RETURN(Computation* pc, p_->PartitionCalled(*called, params, Sharding::Replicate()));
      c->ReplaceCalledComputation(called, pc);
    }
    return c;
  };
  // The value every real element outranks (or ties with, then losing on its higher index).
  std::optional<Literal> last_rank;
  if (IsFloat(dt) && !IsF8(dt)) {
    last_rank.emplace(Shape::Scalar(dt));
    last_rank->SetDouble(0, largest ? -std::numeric_limits<double>::infinity()
                                    : std::numeric_limits<double>::infinity());
  } else if (IsInteger(dt) && DTypeByteSize(dt) <= 4) {
    int64_t bits = 8 * DTypeByteSize(dt);
    int64_t lo = IsSigned(dt) ? -(int64_t{1} << (bits - 1)) : 0;
    int64_t hi = IsSigned(dt) ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
    last_rank.emplace(Shape::Scalar(dt));
    last_rank->SetInt(0, largest ? lo : hi);
  }
  const Sharding& xs = x.sharding;
  if (!xs.IsTuple() && IsPlainTiled(xs) && xs.NumTilesOnDim(last) > 1 && indices_shape.dtype() == DType::kS32 &&
      last_rank && k <= (in.dim(last) + xs.NumTilesOnDim(last) - 1) / xs.NumTilesOnDim(last)) {
    const std::vector<int64_t> sort_dim = {last};
    Instruction* op = r_.MaskPadding(x, b_.Constant(*last_rank), &sort_dim);
    ASSIGN_OR_RETURN(Instruction* top, local_topk(op));
    Instruction* values = b_.GetTupleElement(top, 0);
    Instruction* indices = b_.GetTupleElement(top, 1);
    Instruction* offset = r_.TileOffsets(in, xs)[last];
    indices = b_.Binary(Opcode::kAdd, indices, b_.BroadcastScalar(offset, indices->shape()));
    auto groups = Resharder::GroupsAlong(xs, {last});
    values = b_.AllGather(values, last, groups);
    indices = b_.AllGather(indices, last, groups);
    Attributes attrs;
    attrs.Set(AttrId::kDimensions, std::vector<int64_t>{last});
    attrs.Set(AttrId::kIsStable, true);
    attrs.Set(AttrId::kToApply, b_.TopKComparator(dt, largest));
    Shape sorted_shape = Shape::Tuple({values->shape(), indices->shape()});
    Instruction* sorted = b_.Add(Opcode::kSort, {values, indices}, std::move(attrs), &sorted_shape);
    std::vector<int64_t> starts(in.rank(), 0), limits = values->shape().dims();
    limits[last] = k;
    Instruction* result = b_.Tuple({b_.Slice(b_.GetTupleElement(sorted, 0), starts, limits),
                                    b_.Slice(b_.GetTupleElement(sorted, 1), starts, limits)});
    Sharding rows = whole_last(xs);
    Set(instr, r_.Reshard(PValue{result, Sharding::Tuple({rows, rows}), instr->shape()}, target, instr->name()));
    return absl::OkStatus();
  }
  // The last dim whole: tiled like the result on the other dims, or like the operand when the
  // result is not tiled (the small result is gathered afterwards instead of the operand now).
  Sharding leaf = target.IsTuple() ? target.tuple_elements()[0] : target;
  std::optional<Sharding> compute;
  if (leaf.IsTiled() && IsPlainTiled(leaf)) compute = whole_last(leaf);
  else if (!xs.IsTuple() && IsPlainTiled(xs)) compute = whole_last(xs);
  if (!compute || !compute->IsTiled()) return Default(instr);
  PValue op = Operand(instr, 0, *compute);
  ASSIGN_OR_RETURN(Instruction* top, local_topk(op.hlo));
  Set(instr, r_.Reshard(PValue{top, Sharding::Tuple({*compute, *compute}), instr->shape()}, target, instr->name()));
  return absl::OkStatus();
}

}  // namespace partitioner_internal
}  // namespace spmdc

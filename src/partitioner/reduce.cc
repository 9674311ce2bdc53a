// Reductions: reduce (locally, then combining the partial results across the reduced tiles),
// reduce-window and select-and-scatter (windows over tiled dims take halos from neighbours).
#include <algorithm>

#include "partitioner/computation_partitioner.h"
#include "partitioner/halo.h"
#include "propagation/dim_mapping.h"
#include "sharding/algebra.h"

namespace spmdc {
namespace partitioner_internal {

Status ComputationPartitioner::Reduce(const Instruction* instr) {
  int64_t n = instr->operand_count() / 2;
  Sharding target = TargetOf(instr);
  const auto& dims = instr->dimensions();
  std::optional<std::string> kind = SpmdBuilder::ReducerKind(*instr->to_apply());
  // Inputs keep the first input's sharding (all alike); reduced dims may be tiled when the
  // reducer is recognised (partial results are then all-reduced).
  const PValue& first = Get(instr->operand(0));
  Sharding in = first.sharding;
  if (in.IsTuple() || !in.IsTiled()) {
    // Derive the input sharding from the target: reduced dims untiled.
    Sharding leaf = target.IsTuple() ? target.tuple_elements()[0] : target;
    if (!leaf.IsTiled()) return Default(instr);
    std::vector<int64_t> src, dst;
    int64_t next = 0;
    for (int64_t d = 0; d < instr->operand(0)->shape().rank(); ++d) {
      if (std::find(dims.begin(), dims.end(), d) != dims.end()) continue;
      src.push_back(next++);
      dst.push_back(d);
    }
    in = MapShardingDims(leaf, src, dst, instr->operand(0)->shape().rank());
  }
  bool reduced_tiled = false;
  for (int64_t d : dims) reduced_tiled |= in.NumTilesOnDim(d) > 1;
  if (reduced_tiled && (!kind || n != 1)) {
    // Reduce each shard, gather the (small) partial results along a new leading dim within the
    // groups of the reduced tiles (in tile order), and reduce them again.
    ASSIGN_OR_RETURN(bool done, ReduceThenCombine(instr, in));
    if (done) return absl::OkStatus();
    in = PartiallyReplicateTiledShardingOnDims(in, dims);
    reduced_tiled = false;
  }
  std::vector<Instruction*> ops;
  for (int64_t k = 0; k < n; ++k) {
    PValue v = Operand(instr, k, in);
    // Padding of reduced dims must not contribute: fill it with the init value.
    Instruction* init = r_.Reshard(Get(instr->operand(n + k)), Sharding::Replicate(), instr->name()).hlo;
    ops.push_back(r_.MaskPadding(v, init, &dims));
  }
  for (int64_t k = 0; k < n; ++k)
    ops.push_back(r_.Reshard(Get(instr->operand(n + k)), Sharding::Replicate(), instr->name()).hlo);
  Sharding out_leaf = in.IsTiled() ? RemoveShapeDimensions(PartiallyReplicateTiledShardingOnDims(in, dims), dims)
                                   : in;
  Shape local_shape = instr->shape();
  if (local_shape.IsTuple()) {
    for (auto& s : local_shape.mutable_tuple_shapes()) s = out_leaf.ShardShape(s);
  } else {
    local_shape = out_leaf.ShardShape(local_shape);
  }
  Instruction* local = CloneWith(instr, ops, local_shape);
  std::vector<Sharding> params(instr->to_apply()->num_parameters(), Sharding::Replicate());
  ASSIGN_OR_RETURN(Computation* reducer, p_->PartitionCalled(*instr->to_apply(), params,
                                                             Sharding::Single(instr->to_apply()->root()->shape(), Sharding::Replicate())));
  local->ReplaceCalledComputation(instr->to_apply(), reducer);
  if (reduced_tiled) {
    std::vector<int64_t> tile_dims(dims.begin(), dims.end());
    auto groups = Resharder::GroupsAlong(in, tile_dims);
    if (!target.IsTuple()) {
      if (std::optional<PValue> rs = ReduceScatterTo(PValue{local, out_leaf, instr->shape()}, groups, target, *kind)) {
        Set(instr, r_.Reshard(*rs, target, instr->name()));
        return absl::OkStatus();
      }
    }
    local = b_.AllReduce(local, groups, *kind);
  }
  PValue v{local, Sharding::Single(instr->shape(), out_leaf), instr->shape()};
  Set(instr, r_.Reshard(v, target, instr->name()));
  return absl::OkStatus();
}

StatusOr<bool> ComputationPartitioner::ReduceThenCombine(const Instruction* instr, const Sharding& in) {
  if (!IsPlainTiled(in)) return false;
  int64_t n = instr->operand_count() / 2;
  const auto& dims = instr->dimensions();
  Sharding target = TargetOf(instr);
  std::vector<Instruction*> inits, ops;
  for (int64_t k = 0; k < n; ++k)
    inits.push_back(r_.Reshard(Get(instr->operand(n + k)), Sharding::Replicate(), instr->name()).hlo);
  for (int64_t k = 0; k < n; ++k) ops.push_back(r_.MaskPadding(Operand(instr, k, in), inits[k], &dims));
  ops.insert(ops.end(), inits.begin(), inits.end());
  Sharding out_leaf = RemoveShapeDimensions(PartiallyReplicateTiledShardingOnDims(in, dims), dims);
  Shape local_shape = instr->shape();
  if (local_shape.IsTuple()) {
    for (auto& sh : local_shape.mutable_tuple_shapes()) sh = out_leaf.ShardShape(sh);
  } else {
    local_shape = out_leaf.ShardShape(local_shape);
  }
  std::vector<Sharding> params(instr->to_apply()->num_parameters(), Sharding::Replicate());
  ASSIGN_OR_RETURN(Computation* reducer,
                   p_->PartitionCalled(*instr->to_apply(), params,
                                       Sharding::Single(instr->to_apply()->root()->shape(), Sharding::Replicate())));
  Instruction* local = CloneWith(instr, ops, local_shape);
  local->ReplaceCalledComputation(instr->to_apply(), reducer);
  std::vector<int64_t> tile_dims(dims.begin(), dims.end());
  auto groups = Resharder::GroupsAlong(in, tile_dims);
  std::vector<Instruction*> gathered;
  for (int64_t k = 0; k < n; ++k) {
    Instruction* e = local_shape.IsTuple() ? b_.GetTupleElement(local, k) : local;
    std::vector<int64_t> with_one = e->shape().dims();
    with_one.insert(with_one.begin(), 1);
    gathered.push_back(b_.AllGather(b_.Reshape(e, with_one), 0, groups));
  }
  gathered.insert(gathered.end(), inits.begin(), inits.end());
  Attributes attrs;
  attrs.Set(AttrId::kDimensions, std::vector<int64_t>{0});
  attrs.Set(AttrId::kToApply, reducer);
  Instruction* combined = b_.Add(Opcode::kReduce, gathered, std::move(attrs), &local_shape);
  PValue v{combined, Sharding::Single(instr->shape(), out_leaf), instr->shape()};
  Set(instr, r_.Reshard(v, target, instr->name()));
  return true;
}

Status ComputationPartitioner::ReduceWindow(const Instruction* instr) {
  // Every input is tiled like the result; tiled window dims take halos from their neighbours
  // (padding positions hold the init value), dims that cannot (base dilation with a stride, halos
  // as large as the dim) are gathered and the result sliced afterwards.
  int64_t n = instr->operand_count() / 2;
  Sharding target = TargetOf(instr);
  const Window* window = instr->attr<Window>(AttrId::kWindow);
  if (!window) return Default(instr);
  Sharding leaf = target.IsTuple() ? target.tuple_elements()[0] : target;
  if (target.IsTuple())
    for (const Sharding& s : target.tuple_elements())
      if (!(s == leaf)) return Default(instr);
  const Shape& in_shape = instr->operand(0)->shape();
  auto windowed = [&](const Sharding& s) {
    if (!s.IsTiled()) return false;
    for (int64_t d = 0; d < in_shape.rank(); ++d) {
      const WindowDim& w = window->dims[d];
      bool trivial = w.size == 1 && w.stride == 1 && w.padding_low == 0 && w.padding_high == 0 && w.base_dilation == 1;
      if (s.NumTilesOnDim(d) > 1 && !trivial) return true;
    }
    return false;
  };
  // An input tiled on window dims with a result that is not: compute tiled like the input when
  // the result is no dearer to move afterwards than the input to gather now.
  Sharding compute = leaf;
  const PValue& first = Get(instr->operand(0));
  if (!windowed(leaf) && !first.sharding.IsTuple() && IsPlainTiled(first.sharding) && windowed(first.sharding) &&
      ReshardCost(in_shape, first.sharding, leaf) >=
          ReshardCost(instr->shape().IsTuple() ? instr->shape().tuple_shapes()[0] : instr->shape(), first.sharding, leaf))
    compute = first.sharding;
  if (!compute.IsTiled() || !IsPlainTiled(compute)) return Default(instr);
  std::vector<int64_t> gather;
  std::vector<std::pair<int64_t, HaloPlan>> halos;
  for (int64_t d = 0; d < in_shape.rank(); ++d) {
    const WindowDim& w = window->dims[d];
    bool trivial = w.size == 1 && w.stride == 1 && w.padding_low == 0 && w.padding_high == 0 && w.base_dilation == 1;
    if (compute.NumTilesOnDim(d) == 1 || trivial) continue;
    if (std::optional<HaloPlan> plan = PlanHalo(in_shape.dim(d), compute.NumTilesOnDim(d), w)) halos.emplace_back(d, *plan);
    else gather.push_back(d);
  }
  if (!gather.empty()) {
    compute = PartiallyReplicateTiledShardingOnDims(compute, gather);
    if (!compute.IsTiled()) return Default(instr);
  }
  std::vector<Instruction*> inits, ops;
  for (int64_t k = 0; k < n; ++k)
    inits.push_back(r_.Reshard(Get(instr->operand(n + k)), Sharding::Replicate(), instr->name()).hlo);
  Window local_window = *window;
  for (const auto& [d, plan] : halos) local_window.dims[d] = plan.local;
  for (int64_t k = 0; k < n; ++k) {
    Instruction* x = Operand(instr, k, compute).hlo;
    for (const auto& [d, plan] : halos) x = ExchangeHalo(b_, x, compute, d, plan, inits[k]);
    ops.push_back(x);
  }
  ops.insert(ops.end(), inits.begin(), inits.end());
  // The local result's shape comes from shape inference (base-dilated dims yield more than the
  // tile and are cut below).
  Attributes attrs = instr->attrs();
  attrs.Remove(AttrId::kControlPredecessors);
  attrs.Set(AttrId::kWindow, local_window);
  Instruction* local = b_.Add(Opcode::kReduceWindow, ops, std::move(attrs), nullptr, instr->name());
  std::vector<Sharding> params(instr->to_apply()->num_parameters(), Sharding::Replicate());
  ASSIGN_OR_RETURN(Computation* reducer,
                   p_->PartitionCalled(*instr->to_apply(), params,
                                       Sharding::Single(instr->to_apply()->root()->shape(), Sharding::Replicate())));
  local->ReplaceCalledComputation(instr->to_apply(), reducer);
  auto cut = [&](Instruction* y) {
    for (const auto& [d, plan] : halos) y = SliceOutputTile(b_, y, compute, d, plan);
    return y;
  };
  bool dilated = std::any_of(halos.begin(), halos.end(), [](const auto& h) { return !h.second.out_offset.empty(); });
  if (dilated && local->shape().IsTuple()) {
    std::vector<Instruction*> elements;
    for (int64_t k = 0; k < n; ++k) elements.push_back(cut(b_.GetTupleElement(local, k)));
    local = b_.Tuple(elements);
  } else if (dilated) {
    local = cut(local);
  }
  Sharding local_sharding = target.IsTuple() ? Sharding::Tuple(std::vector<Sharding>(n, compute)) : compute;
  Set(instr, r_.Reshard(PValue{local, local_sharding, instr->shape()}, target, instr->name()));
  return absl::OkStatus();
}

Status ComputationPartitioner::SelectAndScatter(const Instruction* instr) {
  // The backward of max-pooling. Along a tiled window dim (no base dilation) tile t takes the
  // source positions whose windows touch its operand tile, and the operand elements those
  // windows cover, from its neighbours; it scatters locally and keeps its own tile. Source
  // positions past the end are fetched as zeros, so the scatter must be an add (their windows,
  // over unspecified data, then add nothing). Operand positions outside the base must never be
  // selected: tiles whose windows reach them cut them off and run the local op with that much
  // padding, one branch of a conditional per distinct cut. Other tiled window dims are gathered.
  Sharding target = TargetOf(instr);
  const Window* window = instr->attr<Window>(AttrId::kWindow);
  Computation* scatter = instr->computation_attr(AttrId::kScatter);
  std::optional<std::string> kind = scatter ? SpmdBuilder::ReducerKind(*scatter) : std::nullopt;
  if (!window || !kind || *kind != "add" || target.IsTuple()) return Default(instr);
  const Shape& base = instr->operand(0)->shape();
  const Shape& source = instr->operand(1)->shape();
  auto trivial = [](const WindowDim& w) {
    return w.size == 1 && w.stride == 1 && w.padding_low == 0 && w.padding_high == 0 && w.base_dilation == 1;
  };
  auto windowed = [&](const Sharding& s) {
    if (!s.IsTiled()) return false;
    for (int64_t d = 0; d < base.rank(); ++d)
      if (s.NumTilesOnDim(d) > 1 && !trivial(window->dims[d])) return true;
    return false;
  };
  Sharding compute = target;
  const PValue& first = Get(instr->operand(0));
  if (!windowed(target) && !first.sharding.IsTuple() && IsPlainTiled(first.sharding) && windowed(first.sharding))
    compute = first.sharding;  // the result has the operand's shape: no dearer to move than it
  if (!compute.IsTiled() || !IsPlainTiled(compute)) return Default(instr);
  struct Halo {
    int64_t dim;
    HaloPlan operand, source;
    int64_t pad_low, pad_high;
    std::vector<int64_t> offset;  // per tile: its own tile in the padded local result
    std::vector<std::pair<int64_t, int64_t>> cut;  // per tile: operand positions outside the base
  };
  std::vector<int64_t> gather;
  std::vector<Halo> halos;
  for (int64_t d = 0; d < base.rank(); ++d) {
    const WindowDim& w = window->dims[d];
    int64_t n = compute.NumTilesOnDim(d);
    if (n == 1 || trivial(w)) continue;
    if (w.base_dilation != 1) {
      gather.push_back(d);
      continue;
    }
    int64_t size = base.dim(d), out = source.dim(d), ci = (size + n - 1) / n;
    int64_t span = (w.size - 1) * w.window_dilation + 1, s = w.stride;
    std::vector<int64_t> first_j(n), op_start(n), windows(n, 0);
    int64_t count = 1;
    for (int64_t t = 0; t < n; ++t) {
      // Windows j with j*s - low < (t+1)*ci and j*s - low + span > t*ci touch tile t.
      int64_t lo = std::max<int64_t>(0, FloorDiv(t * ci + w.padding_low - span, s) + 1);
      int64_t hi = std::min(out - 1, FloorDiv((t + 1) * ci + w.padding_low + s - 1, s) - 1);
      if (t * ci >= size || lo > hi) lo = out, hi = out - 1;  // no window: all source masked
      first_j[t] = lo;
      windows[t] = hi - lo + 1;
      count = std::max(count, hi - lo + 1);
    }
    int64_t length = (count - 1) * s + span;
    for (int64_t t = 0; t < n; ++t) op_start[t] = first_j[t] * s - w.padding_low;
    std::optional<HaloPlan> src_plan = PlanFetch(out, n, count, first_j);
    // Windows past a tile's last one do not touch it: their operand data may be anything.
    std::vector<int64_t> needed(n, 0);
    for (int64_t t = 0; t < n; ++t) needed[t] = windows[t] > 0 ? (windows[t] - 1) * s + span : 0;
    std::optional<HaloPlan> op_plan = PlanFetch(size, n, length, op_start, needed);
    if (!src_plan || !op_plan) {
      gather.push_back(d);
      continue;
    }
    // Operand positions outside the base are cut off below (or lie only in windows of masked
    // source positions).
    op_plan->mask = false;
    Halo h{d, *op_plan, *src_plan, 0, 0, std::vector<int64_t>(n), std::vector<std::pair<int64_t, int64_t>>(n)};
    // Only padded sides can put positions outside the base into windows of real source.
    for (int64_t t = 0; t < n; ++t) {
      int64_t low = w.padding_low > 0 ? std::max<int64_t>(0, -op_start[t]) : 0;
      int64_t high = w.padding_high > 0 ? std::max<int64_t>(0, op_start[t] + length - size) : 0;
      if (low + high < length) h.cut[t] = {low, high};  // else no real window: nothing to protect
    }
    for (int64_t t = 0; t < n; ++t) {
      int64_t off = t * ci - op_start[t];
      h.pad_low = std::max(h.pad_low, -off);
      h.pad_high = std::max(h.pad_high, off + ci - length);
      h.offset[t] = off;
    }
    for (int64_t& off : h.offset) off += h.pad_low;
    halos.push_back(std::move(h));
  }
  if (!gather.empty()) {
    compute = PartiallyReplicateTiledShardingOnDims(compute, gather);
    if (!compute.IsTiled()) return Default(instr);
  }
  Instruction* init = r_.Reshard(Get(instr->operand(2)), Sharding::Replicate(), instr->name()).hlo;
  Instruction* x = Operand(instr, 0, compute).hlo;
  Instruction* y = Operand(instr, 1, compute).hlo;
  Window local_window = *window;
  for (const Halo& h : halos) {
    x = ExchangeHalo(b_, x, compute, h.dim, h.operand, init);
    y = ExchangeHalo(b_, y, compute, h.dim, h.source, b_.Zero(source.dtype()));
    local_window.dims[h.dim] = LocalWindowDim(window->dims[h.dim]);
  }
  Attributes attrs = instr->attrs();
  attrs.Remove(AttrId::kControlPredecessors);
  for (Computation* c : instr->called_computations()) {
    std::vector<Sharding> params(c->num_parameters(), Sharding::Replicate());
    ASSIGN_OR_RETURN(Computation* pc,
                     p_->PartitionCalled(*c, params, Sharding::Single(c->root()->shape(), Sharding::Replicate())));
    attrs.Set(c == instr->computation_attr(AttrId::kSelect) ? AttrId::kSelect : AttrId::kScatter, pc);
  }
  // The local op on (operand, source, init) with each halo dim's cut (low, high) removed from
  // the operand and given back as window padding; the result has the operand's shape.
  auto scatter_locally = [&](SpmdBuilder& bb, Instruction* op, Instruction* src, Instruction* ini,
                             const std::vector<std::pair<int64_t, int64_t>>& cuts) {
    Window wnd = local_window;
    std::vector<int64_t> starts(op->shape().rank(), 0), limits = op->shape().dims();
    std::vector<PaddingDim> back(op->shape().rank());
    for (size_t k = 0; k < halos.size(); ++k) {
      int64_t d = halos[k].dim;
      starts[d] = cuts[k].first;
      limits[d] -= cuts[k].second;
      wnd.dims[d].padding_low = back[d].low = cuts[k].first;
      wnd.dims[d].padding_high = back[d].high = cuts[k].second;
    }
    Attributes a = attrs;
    a.Set(AttrId::kWindow, wnd);
    Instruction* r = bb.Add(Opcode::kSelectAndScatter, {bb.Slice(op, starts, limits), src, ini}, std::move(a));
    return bb.Pad(r, ini, back);
  };
  const TileAssignment& ta = compute.tile_assignment();
  std::vector<std::vector<std::pair<int64_t, int64_t>>> keys;  // distinct cuts
  std::vector<int64_t> branch_of(b_.num_devices(), 0);
  for (int64_t dev = 0; dev < b_.num_devices(); ++dev) {
    std::vector<int64_t> c = *ta.IndexOf(dev);
    std::vector<std::pair<int64_t, int64_t>> key;
    for (const Halo& h : halos) key.push_back(h.cut[c[h.dim]]);
    auto it = std::find(keys.begin(), keys.end(), key);
    branch_of[dev] = it - keys.begin();
    if (it == keys.end()) keys.push_back(key);
  }
  Instruction* local = nullptr;
  if (keys.size() == 1) {
    local = scatter_locally(b_, x, y, init, keys[0]);
  } else {
    // One branch per distinct cut, chosen by partition-id.
    Instruction* args = b_.Tuple({x, y, init});
    std::vector<Computation*> branches;
    for (const auto& key : keys) {
      Computation* c = b_.module()->AddComputation(
          std::make_unique<Computation>(b_.module()->UniqueName(instr->name() + "_cut")));
      SpmdBuilder bb(b_.state(), c);
      Instruction* p = bb.Parameter(0, args->shape(), b_.module()->UniqueName("args"));
      c->set_root(scatter_locally(bb, bb.GetTupleElement(p, 0), bb.GetTupleElement(p, 1), bb.GetTupleElement(p, 2), key));
      RETURN_IF_ERROR(c->RebuildParameterList());
      branches.push_back(c);
    }
    std::vector<Instruction*> ops = {b_.TableLookup(branch_of)};
    ops.insert(ops.end(), branches.size(), args);
    Attributes ca;
    ca.Set(AttrId::kBranchComputations, branches);
    local = b_.Add(Opcode::kConditional, ops, std::move(ca));
  }
  // Keep this device's tile; parts of it no window reaches hold the init value.
  for (const Halo& h : halos) {
    std::vector<PaddingDim> pad(local->shape().rank());
    pad[h.dim].low = h.pad_low;
    pad[h.dim].high = h.pad_high;
    local = b_.Pad(local, init, pad);
    std::vector<int64_t> table(b_.num_devices());
    for (int64_t dev = 0; dev < b_.num_devices(); ++dev) table[dev] = h.offset[ta.IndexOf(dev)->at(h.dim)];
    std::vector<Instruction*> starts;
    for (int64_t d = 0; d < local->shape().rank(); ++d)
      starts.push_back(d == h.dim ? b_.TableLookup(table) : b_.ScalarS32(0));
    std::vector<int64_t> sizes = local->shape().dims();
    sizes[h.dim] = h.operand.ci;
    local = b_.DynamicSlice(local, starts, sizes);
  }
  Set(instr, r_.Reshard(PValue{local, compute, instr->shape()}, target, instr->name()));
  return absl::OkStatus();
}

}  // namespace partitioner_internal
}  // namespace spmdc

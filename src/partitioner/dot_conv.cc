// Dot and convolution: the dot plans (local dots on matching tiles, partial sums combined with an
// all-reduce or reduce-scatter), convolutions tiled on batch, features or spatial dims (halos),
// contracting and batch-grouped convolutions.
#include <algorithm>

#include "fmt/format.h"
#include "ir/shape_inference.h"
#include "partitioner/computation_partitioner.h"
#include "partitioner/halo.h"
#include "propagation/dim_mapping.h"
#include "propagation/dot_dims.h"
#include "sharding/algebra.h"

namespace spmdc {
namespace partitioner_internal {

namespace {


// ReshardCost, except that as many tiles moving to other dims are priced as all-to-alls of about
// one shard each (the resharder's factor moves) rather than like a gather. For the convolution
// choices between keeping a tiling and moving it (ReshardCost itself drives the dot plans).
int64_t MoveCost(const Shape& shape, const Sharding& from, const Sharding& to) {
  if (!(from == to) && IsPlainTiled(from) && IsPlainTiled(to) && from.NumTiles() == to.NumTiles())
    return to.ShardShape(shape).byte_size();
  return ReshardCost(shape, from, to);
}

// The plan for a local dot of operands sharded `ls`, `rs`: valid when every device holds matching
// batch and contracting tiles on both sides. The result is tiled by the batch and non-contracting
// tiles; devices that hold different contracting tiles of the same result tile sum their partials.
std::optional<DotPlan> PlanLocalDot(const Instruction& dot, const DotDims& d, const Sharding& ls,
                                    const Sharding& rs, int64_t num_devices) {
  // Single-device (maximal) or manual operands are not held by every device.
  auto usable = [](const Sharding& s) { return s.IsReplicated() || (s.IsTiled() && !s.IsManualSubgroup()); };
  if (!usable(ls) || !usable(rs)) return std::nullopt;
  // Dims in no list (a ragged-dot's ragged and group dims, dot_dims.h) must be whole.
  auto listed = [&](int64_t dim, bool lhs) {
    for (const auto* dims : {&d.batch, &d.contracting, &d.lhs_non_contracting, &d.rhs_non_contracting})
      for (const DotDim& x : *dims)
        if ((lhs ? x.lhs : x.rhs) == dim) return true;
    return false;
  };
  for (int64_t i = 0; i < dot.operand(0)->shape().rank(); ++i)
    if (!listed(i, true) && TilesOnDim(ls, i) != 1) return std::nullopt;
  for (int64_t i = 0; i < dot.operand(DotRhsOperand(dot))->shape().rank(); ++i)
    if (!listed(i, false) && TilesOnDim(rs, i) != 1) return std::nullopt;
  for (const DotDim& x : d.batch)
    if (TilesOnDim(ls, x.lhs) != TilesOnDim(rs, x.rhs)) return std::nullopt;
  for (const DotDim& x : d.contracting)
    if (TilesOnDim(ls, x.lhs) != TilesOnDim(rs, x.rhs)) return std::nullopt;
  int64_t out_rank = dot.shape().rank();
  std::vector<int64_t> out_tiles(out_rank, 1);
  for (const DotDim& x : d.batch) out_tiles[x.output] = TilesOnDim(ls, x.lhs);
  for (const DotDim& x : d.lhs_non_contracting) out_tiles[x.output] = TilesOnDim(ls, x.lhs);
  for (const DotDim& x : d.rhs_non_contracting) out_tiles[x.output] = TilesOnDim(rs, x.rhs);
  int64_t tile_count = Product(out_tiles);
  if (num_devices % tile_count != 0) return std::nullopt;
  // Both operands must hold matching batch and contracting tiles on every device.
  for (int64_t dev = 0; dev < num_devices; ++dev) {
    for (const DotDim& x : d.batch)
      if (TileCoord(ls, dev, x.lhs) != TileCoord(rs, dev, x.rhs)) return std::nullopt;
    for (const DotDim& x : d.contracting)
      if (TileCoord(ls, dev, x.lhs) != TileCoord(rs, dev, x.rhs)) return std::nullopt;
  }
  // Per device: output tile coordinates and contracting coordinates. Every result tile needs
  // every contracting tile (else some partial sums are never computed).
  auto out = [&](int64_t dev) {
    std::vector<int64_t> o(out_rank, 0);
    for (const DotDim& x : d.batch) o[x.output] = TileCoord(ls, dev, x.lhs);
    for (const DotDim& x : d.lhs_non_contracting) o[x.output] = TileCoord(ls, dev, x.lhs);
    for (const DotDim& x : d.rhs_non_contracting) o[x.output] = TileCoord(rs, dev, x.rhs);
    return o;
  };
  auto con = [&](int64_t dev) {
    std::vector<int64_t> c;
    for (const DotDim& x : d.contracting) c.push_back(TileCoord(ls, dev, x.lhs));
    return c;
  };
  int64_t contracting_tiles = 1;
  for (const DotDim& x : d.contracting) contracting_tiles *= TilesOnDim(ls, x.lhs);
  std::optional<TileGrouping> grouping = GroupDevicesByTile(num_devices, out_tiles, out, con, contracting_tiles);
  if (!grouping) return std::nullopt;
  return DotPlan{ls, rs, std::move(grouping->sharding), std::move(grouping->groups), 0};
}

// A scaled-dot scale takes its operand's sharding when every tile of the operand holds whole
// blocks of the scale (each tiled dim divides evenly in both); a scalar scale is replicated.
std::optional<Sharding> ScaleSharding(const Sharding& operand, const Shape& operand_shape, const Shape& scale) {
  if (scale.rank() == 0 || operand.IsReplicated()) return Sharding::Replicate();
  if (!operand.IsTiled() || scale.rank() != operand_shape.rank()) return std::nullopt;
  for (int64_t i = 0; i < scale.rank(); ++i) {
    const int64_t t = operand.NumTilesOnDim(i);
    if (t > 1 && (operand_shape.dim(i) % t != 0 || scale.dim(i) % t != 0)) return std::nullopt;
  }
  return operand;
}

}  // namespace

// Partial sums `v` (summed over `groups`) delivered tiled like `target` with a reduce-scatter
// instead of all-reduce + dynamic-slice, when the target splits each tile of one dim of `v` (or
// the whole dim) into as many tiles as a group has members and keeps the other dims' tiling.
std::optional<PValue> ComputationPartitioner::ReduceScatterTo(const PValue& v,
                                                               const std::vector<std::vector<int64_t>>& groups,
                                                               const Sharding& target, const std::string& kind) {
  if (!target.IsTiled() || !IsPlainTiled(target) || groups.empty()) return std::nullopt;
  if (!v.sharding.IsReplicated() && !IsPlainTiled(v.sharding)) return std::nullopt;
  auto tiles_on = [&](int64_t d) { return TilesOnDim(v.sharding, d); };
  int64_t k = static_cast<int64_t>(groups[0].size());
  for (const auto& g : groups)
    if (static_cast<int64_t>(g.size()) != k) return std::nullopt;
  int64_t rank = v.base_shape.rank(), dim = -1;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t have = tiles_on(d), want = target.NumTilesOnDim(d);
    if (have == want) continue;
    // The dim may already be tiled: each tile then splits into k (all-reduce + dynamic-slice in
    // XLA, which its ReduceScatterCreator turns into this).
    if (want != have * k || dim >= 0) return std::nullopt;
    dim = d;
  }
  if (dim < 0) return std::nullopt;
  const int64_t have = tiles_on(dim), size = v.base_shape.dim(dim);
  const int64_t chunk = (size + have * k - 1) / (have * k);
  // The k pieces of a tile must be the target's tiles (same padded layout).
  if (have > 1 && (size + have - 1) / have != k * chunk) return std::nullopt;
  int64_t n = b_.num_devices();
  std::vector<std::vector<int64_t>> tile_of(n);
  std::vector<int64_t> member(n, -1);
  for (const auto& g : groups)
    for (int64_t j = 0; j < k; ++j) member[g[j]] = j;
  for (int64_t dev = 0; dev < n; ++dev) {
    if (member[dev] < 0) return std::nullopt;
    tile_of[dev] = v.sharding.IsTiled() ? v.sharding.TileIndexForDevice(dev) : std::vector<int64_t>(rank, 0);
    tile_of[dev][dim] = tile_of[dev][dim] * k + member[dev];
  }
  std::vector<int64_t> tdims(rank);
  for (int64_t d = 0; d < rank; ++d) tdims[d] = target.NumTilesOnDim(d);
  std::optional<Sharding> inter = ShardingFromTiles(tdims, tile_of);
  if (!inter) return std::nullopt;
  std::vector<int64_t> padded = v.hlo->shape().dims();
  padded[dim] = chunk * k;
  Instruction* x = b_.PadHigh(v.hlo, padded);
  Instruction* rs = b_.ReduceScatter(x, dim, groups, kind);
  return PValue{rs, *inter, v.base_shape};
}

// The dot family: a dot, a ragged-dot in its non-contracting form (its ragged and group dims
// whole, its group sizes replicated; per-batch group sizes keep the dims they count whole) and a
// scaled-dot (each scale tiled like its operand, whole blocks per tile). Other ragged-dot forms
// and scales that do not tile run replicated.
Status ComputationPartitioner::Dot(const Instruction* instr) {
  Sharding target = TargetOf(instr);
  std::optional<DotDims> family = DotDimsOfDotFamily(*instr);
  if (!family) return Default(instr);
  const DotDims& d = *family;
  const bool scaled = instr->opcode() == Opcode::kScaledDot, ragged = instr->opcode() == Opcode::kRaggedDot;
  const int64_t ri = DotRhsOperand(*instr);
  const PValue& L = Get(instr->operand(0));
  const PValue& R = Get(instr->operand(ri));
  const Shape& ls = instr->operand(0)->shape();
  const Shape& rs = instr->operand(ri)->shape();
  int64_t n = b_.num_devices();
  if (L.sharding.IsTuple() || R.sharding.IsTuple() || target.IsTuple()) return Default(instr);
  // Lhs dims a ragged-dot's group sizes are given per (group_sizes [prefix..., g]) stay whole.
  std::vector<int64_t> group_prefix;
  if (ragged && instr->operand(2)->shape().IsArray() && instr->operand(2)->shape().rank() > 1) {
    StatusOr<RaggedDotMode> mode = ClassifyRaggedDot(*instr, ls.rank(), rs.rank());
    if (!mode.ok()) return Default(instr);
    group_prefix = mode->group_prefix;
  }
  auto own = [](const std::vector<DotDim>& dims, bool lhs) {
    std::vector<int64_t> out_dims, op_dims;
    for (const DotDim& x : dims) {
      out_dims.push_back(x.output);
      op_dims.push_back(lhs ? x.lhs : x.rhs);
    }
    return std::make_pair(out_dims, op_dims);
  };
  // Layers repeat the same dot with the same shardings: plan once per distinct situation.
  std::string key = fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", OpcodeName(instr->opcode()),
                                ls.ToString(false), rs.ToString(false),
                                instr->shape().ToString(false), fmt::join(instr->ints_attr(AttrId::kLhsBatchDims), ","),
                                fmt::join(instr->ints_attr(AttrId::kLhsContractingDims), ","),
                                fmt::join(instr->ints_attr(AttrId::kRhsBatchDims), ","),
                                fmt::join(instr->ints_attr(AttrId::kRhsContractingDims), ","),
                                L.sharding.ToString(false), R.sharding.ToString(false), target.ToString(false));
  if (scaled)
    key += fmt::format("|{}|{}", instr->operand(ScaledDotScaleOperand(0))->shape().ToString(false),
                       instr->operand(ScaledDotScaleOperand(1))->shape().ToString(false));
  std::vector<DotPlan> plans;
  auto cached = dot_plans_.find(key);
  if (cached != dot_plans_.end()) plans.push_back(cached->second);
  auto consider = [&](const Sharding& lsh, const Sharding& rsh) {
    if (cached != dot_plans_.end()) return;
    for (int64_t dim : group_prefix)
      if (TilesOnDim(lsh, dim) != 1) return;
    if (scaled && (!ScaleSharding(lsh, ls, instr->operand(ScaledDotScaleOperand(0))->shape()) ||
                   !ScaleSharding(rsh, rs, instr->operand(ScaledDotScaleOperand(1))->shape())))
      return;
    std::optional<DotPlan> plan = PlanLocalDot(*instr, d, lsh, rsh, n);
    if (!plan) return;
    // Local compute counts too (as bytes at ~64 flops per byte moved), so that a plan that
    // replicates the work on every device loses to one that splits it.
    int64_t contracted = 1;
    Shape lshard = lsh.IsTiled() ? lsh.ShardShape(ls) : ls;
    for (const DotDim& x : d.contracting) contracted *= lshard.dim(x.lhs);
    int64_t flops = 2 * plan->result.ShardShape(instr->shape()).num_elements() * contracted;
    plan->cost = flops / 64 + ReshardCost(ls, L.sharding, lsh) + ReshardCost(rs, R.sharding, rsh) +
                 (plan->reduce_groups.empty() ? 0 : plan->result.ShardShape(instr->shape()).byte_size()) +
                 ReshardCost(instr->shape(), plan->result, target);
    plans.push_back(*plan);
  };
  // (1) Output-driven: operands tiled like the result on batch and non-contracting dims.
  const bool plan_cached = cached != dot_plans_.end();
  if (!plan_cached && !target.IsManual()) {
    auto [lb_out, lb_op] = own(d.batch, true);
    auto [ln_out, ln_op] = own(d.lhs_non_contracting, true);
    auto [rb_out, rb_op] = own(d.batch, false);
    auto [rn_out, rn_op] = own(d.rhs_non_contracting, false);
    std::vector<int64_t> lsrc = lb_out, ldst = lb_op, rsrc = rb_out, rdst = rb_op;
    lsrc.insert(lsrc.end(), ln_out.begin(), ln_out.end());
    ldst.insert(ldst.end(), ln_op.begin(), ln_op.end());
    rsrc.insert(rsrc.end(), rn_out.begin(), rn_out.end());
    rdst.insert(rdst.end(), rn_op.begin(), rn_op.end());
    consider(MapShardingDims(target, lsrc, ldst, ls.rank()), MapShardingDims(target, rsrc, rdst, rs.rank()));
  }
  // (2) Operands as they are.
  if (!plan_cached) consider(L.sharding, R.sharding);
  // (3) One side as it is, the other following it on batch and contracting dims.
  std::vector<int64_t> l_bc, r_bc;
  for (const DotDim& x : d.batch) l_bc.push_back(x.lhs), r_bc.push_back(x.rhs);
  for (const DotDim& x : d.contracting) l_bc.push_back(x.lhs), r_bc.push_back(x.rhs);
  if (!plan_cached && L.sharding.IsTiled()) consider(L.sharding, MapShardingDims(L.sharding, l_bc, r_bc, rs.rank()));
  if (!plan_cached && R.sharding.IsTiled()) consider(MapShardingDims(R.sharding, r_bc, l_bc, ls.rank()), R.sharding);
  if (plans.empty()) return Default(instr);
  const DotPlan& best = *std::min_element(plans.begin(), plans.end(),
                                          [](const DotPlan& a, const DotPlan& b) { return a.cost < b.cost; });
  dot_plans_.emplace(key, best);
  PValue lv = Operand(instr, 0, best.lhs);
  PValue rv = Operand(instr, ri, best.rhs);
  Instruction* lhs = lv.hlo;
  Instruction* rhs = rv.hlo;
  if (!best.reduce_groups.empty()) {
    // Padding on the contracting dims must be zero on both sides (garbage may be NaN).
    std::vector<int64_t> lc, rc;
    for (const DotDim& x : d.contracting) lc.push_back(x.lhs), rc.push_back(x.rhs);
    lhs = r_.MaskPadding(lv, b_.Zero(ls.dtype()), &lc);
    rhs = r_.MaskPadding(rv, b_.Zero(rs.dtype()), &rc);
  }
  Shape local = best.result.ShardShape(instr->shape());
  std::vector<Instruction*> operands = {lhs, rhs};
  if (ragged) {
    operands.push_back(Operand(instr, 2, Sharding::Single(instr->operand(2)->shape(), Sharding::Replicate())).hlo);
  } else if (scaled) {
    const int64_t l_at = ScaledDotScaleOperand(0), r_at = ScaledDotScaleOperand(1);
    const Sharding lscale = *ScaleSharding(best.lhs, ls, instr->operand(l_at)->shape());
    const Sharding rscale = *ScaleSharding(best.rhs, rs, instr->operand(r_at)->shape());
    operands = {lhs, rhs, Operand(instr, l_at, lscale).hlo, Operand(instr, r_at, rscale).hlo};
  }
  Instruction* out = CloneWith(instr, operands, local);
  if (!best.reduce_groups.empty()) {
    if (std::optional<PValue> rs = ReduceScatterTo(PValue{out, best.result, instr->shape()}, best.reduce_groups,
                                                   target, "add")) {
      Set(instr, r_.Reshard(*rs, target, instr->name()));
      return absl::OkStatus();
    }
    out = b_.AllReduce(out, best.reduce_groups, "add");
  }
  Set(instr, r_.Reshard(PValue{out, best.result, instr->shape()}, target, instr->name()));
  return absl::OkStatus();
}

Status ComputationPartitioner::Convolution(const Instruction* instr) {
  // Batch and output-feature tiling runs locally; spatially tiled results take halos of the input
  // from their neighbours (the kernel is replicated or tiled on its output feature). Spatial dims
  // whose windows cannot be computed that way (input dilation with a stride, halos as large as
  // the dim) are gathered, the result sliced afterwards.
  Sharding target = TargetOf(instr);
  const ConvDims* cd = instr->attr<ConvDims>(AttrId::kDimLabels);
  if (target.IsTuple() || target.IsManual() || !cd) return Default(instr);
  if (instr->int_attr(AttrId::kBatchGroupCount, 1) != 1) {
    ASSIGN_OR_RETURN(bool done, BatchGroupedConvolution(instr, target));
    return done ? absl::OkStatus() : Default(instr);
  }
  const Sharding final_target = target;
  if (instr->int_attr(AttrId::kFeatureGroupCount, 1) == 1) {
    ASSIGN_OR_RETURN(bool done, ContractingConvolution(instr, target));
    if (done) return absl::OkStatus();
  }
  // Grouped (depthwise) convolutions: output-feature tiles that hold whole groups take the
  // matching input-feature tiles of the input (GSPMD aligns lhs feature with rhs output feature)
  // and convolve with fewer groups locally; otherwise every device holds all groups.
  const int64_t group_count = instr->int_attr(AttrId::kFeatureGroupCount, 1);
  const bool grouped = group_count != 1;
  if (grouped && target.IsTiled()) {
    if (!IsPlainTiled(target)) return Default(instr);
    int64_t t = target.NumTilesOnDim(cd->output_feature);
    bool whole_groups = group_count % t == 0 && instr->operand(0)->shape().dim(cd->input_feature) % t == 0 &&
                        instr->shape().dim(cd->output_feature) % t == 0;
    if (t > 1 && !whole_groups) {
      const int64_t feature[] = {cd->output_feature};
      target = PartiallyReplicateTiledShardingOnDims(target, feature);
    }
  }
  const Shape& lhs_shape = instr->operand(0)->shape();
  const Window* window = instr->attr<Window>(AttrId::kWindow);
  auto spatially_tiled = [&](const Sharding& s, const std::vector<int64_t>& dims) {
    return s.IsTiled() && std::any_of(dims.begin(), dims.end(), [&](int64_t d) { return s.NumTilesOnDim(d) > 1; });
  };
  // An input tiled on spatial dims with a result that is not: compute tiled like the input when
  // the result is cheaper to move afterwards than the input to gather now.
  const PValue& L = Get(instr->operand(0));
  if (window && !spatially_tiled(target, cd->output_spatial) && !L.sharding.IsTuple() &&
      IsPlainTiled(L.sharding) && spatially_tiled(L.sharding, cd->input_spatial)) {
    std::vector<int64_t> in_dims = {cd->input_batch}, out_dims = {cd->output_batch};
    in_dims.insert(in_dims.end(), cd->input_spatial.begin(), cd->input_spatial.end());
    out_dims.insert(out_dims.end(), cd->output_spatial.begin(), cd->output_spatial.end());
    Sharding like_input = MapShardingDims(L.sharding, in_dims, out_dims, instr->shape().rank());
    Sharding input_for_target =
        target.IsTiled() ? MapShardingDims(target, {cd->output_batch}, {cd->input_batch}, lhs_shape.rank())
                         : Sharding::Replicate();
    if (ReshardCost(instr->shape(), like_input, target) <= ReshardCost(lhs_shape, L.sharding, input_for_target))
      target = like_input;
  } else if (!L.sharding.IsTuple() && IsPlainTiled(L.sharding) && TilesOnDim(L.sharding, cd->input_batch) > 1 &&
             TilesOnDim(target, cd->output_batch) == 1 && !spatially_tiled(target, cd->output_spatial)) {
    // An input tiled on its batch with a result tiled elsewhere (output features): compute tiled
    // like the input with the kernel whole when that and moving the result afterwards (an
    // all-to-all of one result shard) cost less than gathering the input now (XLA would gather).
    const Shape& rhs_shape = instr->operand(1)->shape();
    const PValue& R = Get(instr->operand(1));
    Sharding like_input = MapShardingDims(L.sharding, {cd->input_batch}, {cd->output_batch}, instr->shape().rank());
    Sharding input_for_target = target.IsTiled() ? MapShardingDims(target, {cd->output_batch}, {cd->input_batch},
                                                                   lhs_shape.rank())
                                                 : Sharding::Replicate();
    Sharding kernel_for_target =
        target.IsTiled() && !grouped
            ? MapShardingDims(target, {cd->output_feature}, {cd->kernel_output_feature}, rhs_shape.rank())
            : Sharding::Replicate();
    if (!R.sharding.IsTuple() && like_input.IsTiled()) {
      int64_t keep = MoveCost(instr->shape(), like_input, target) + ReshardCost(rhs_shape, R.sharding, Sharding::Replicate());
      int64_t now = ReshardCost(lhs_shape, L.sharding, input_for_target) + ReshardCost(rhs_shape, R.sharding, kernel_for_target);
      if (keep < now) target = like_input;
    }
  }
  if (!target.IsTiled()) return Default(instr);
  std::vector<int64_t> gather;
  std::vector<std::pair<size_t, HaloPlan>> halos;  // (spatial index, plan)
  for (size_t i = 0; i < cd->output_spatial.size(); ++i) {
    int64_t od = cd->output_spatial[i];
    if (target.NumTilesOnDim(od) == 1) continue;
    std::optional<HaloPlan> plan;
    if (window && IsPlainTiled(target))
      plan = PlanHalo(lhs_shape.dim(cd->input_spatial[i]), target.NumTilesOnDim(od), window->dims[i]);
    if (plan && plan->out == instr->shape().dim(od)) halos.emplace_back(i, *plan);
    else gather.push_back(od);
  }
  if (!gather.empty()) {
    if (!IsPlainTiled(target)) return Default(instr);
    target = PartiallyReplicateTiledShardingOnDims(target, gather);
    if (!target.IsTiled()) return Default(instr);
  }
  std::vector<int64_t> out_dims = {cd->output_batch}, in_dims = {cd->input_batch};
  const int64_t group_tiles = grouped ? target.NumTilesOnDim(cd->output_feature) : 1;
  if (group_tiles > 1) {
    out_dims.push_back(cd->output_feature);
    in_dims.push_back(cd->input_feature);
  }
  for (const auto& [i, plan] : halos) {
    out_dims.push_back(cd->output_spatial[i]);
    in_dims.push_back(cd->input_spatial[i]);
  }
  Sharding lsh = MapShardingDims(target, out_dims, in_dims, lhs_shape.rank());
  Sharding rsh = MapShardingDims(target, {cd->output_feature}, {cd->kernel_output_feature},
                                 instr->operand(1)->shape().rank());
  PValue lv = Operand(instr, 0, lsh), rv = Operand(instr, 1, rsh);
  Instruction* lhs = lv.hlo;
  Window local_window = window ? *window : Window{};
  for (const auto& [i, plan] : halos) {
    lhs = ExchangeHalo(b_, lhs, lsh, cd->input_spatial[i], plan, b_.Zero(lhs_shape.dtype()));
    local_window.dims[i] = plan.local;
  }
  Instruction* out = nullptr;
  if (halos.empty()) {
    out = CloneWith(instr, {lhs, rv.hlo}, target.ShardShape(instr->shape()));
    if (group_tiles > 1) out->attrs().Set(AttrId::kFeatureGroupCount, group_count / group_tiles);
  } else {
    Attributes attrs = instr->attrs();
    attrs.Remove(AttrId::kControlPredecessors);
    attrs.Set(AttrId::kWindow, local_window);
    if (group_tiles > 1) attrs.Set(AttrId::kFeatureGroupCount, group_count / group_tiles);
    out = b_.AddWithType(Opcode::kConvolution, {lhs, rv.hlo}, std::move(attrs), instr->shape().dtype(),
                         instr->name());
    for (const auto& [i, plan] : halos) out = SliceOutputTile(b_, out, target, cd->output_spatial[i], plan);
  }
  Set(instr, r_.Reshard(PValue{out, target, instr->shape()}, final_target, instr->name()));
  return absl::OkStatus();
}

// A convolution that contracts over tiled dims (GSPMD's dot handler on convolutions, grouping on
// the contracting dims): the input feature dim, and spatial dims whose window (the kernel's
// spatial dim) is tiled like the input's. Like a dot, each device convolves its slices of both
// operands and the partial results are summed with an all-reduce, or a reduce-scatter when the
// result is tiled on a dim they hold whole. Batch, output feature and the other spatial dims are
// tiled as they come, spatial ones with halos from their neighbours (as in the main path); a
// window-tiled spatial dim fetches the few input elements its window slice reaches past its own
// tile (PlanWindowTiles). These are the filter gradients: of data parallelism (the batch is the
// contraction) and of spatial partitioning (the window is the output cotangent, tiled like the
// activation), which would otherwise gather the activations. Taken only when cheaper than the
// plan that tiles the operands like the result; false leaves the convolution to that plan.
StatusOr<bool> ComputationPartitioner::ContractingConvolution(const Instruction* instr, const Sharding& target) {
  const ConvDims* cd = instr->attr<ConvDims>(AttrId::kDimLabels);
  const PValue& L = Get(instr->operand(0));
  const PValue& R = Get(instr->operand(1));
  const Shape& ls = instr->operand(0)->shape();
  const Shape& rs = instr->operand(1)->shape();
  if (L.sharding.IsTuple() || R.sharding.IsTuple() || !(target.IsReplicated() || IsPlainTiled(target)))
    return false;
  auto window_tiled = [&](const Sharding& rsh, size_t i) { return TilesOnDim(rsh, cd->kernel_spatial[i]) > 1; };
  bool any_window_tiled = false;
  for (size_t i = 0; i < cd->kernel_spatial.size(); ++i) any_window_tiled |= window_tiled(R.sharding, i);
  if (TilesOnDim(L.sharding, cd->input_feature) == 1 && TilesOnDim(R.sharding, cd->kernel_input_feature) == 1 &&
      !any_window_tiled)
    return false;
  // The dims of the local dot a candidate kernel sharding implies: a spatial dim is contracted
  // where the kernel's is tiled, else it maps the input's to the output's.
  auto dims_for = [&](const Sharding& rsh) {
    DotDims d;
    d.lhs_non_contracting.push_back({cd->input_batch, -1, cd->output_batch, -1});
    d.rhs_non_contracting.push_back({-1, cd->kernel_output_feature, cd->output_feature, -1});
    d.contracting.push_back({cd->input_feature, cd->kernel_input_feature, -1, -1});
    for (size_t i = 0; i < cd->input_spatial.size(); ++i) {
      if (window_tiled(rsh, i))
        d.contracting.push_back({cd->input_spatial[i], cd->kernel_spatial[i], -1, -1});
      else
        d.lhs_non_contracting.push_back({cd->input_spatial[i], -1, cd->output_spatial[i], -1});
    }
    return d;
  };
  const Window* window = instr->attr<Window>(AttrId::kWindow);
  // The halo plans of the spatially tiled dims of a candidate (nullopt: not computable): output
  // tiles with halos where the kernel's dim is whole, window tiles where it is tiled.
  auto halo_plans = [&](const Sharding& lsh,
                        const Sharding& rsh) -> std::optional<std::vector<std::pair<size_t, HaloPlan>>> {
    std::vector<std::pair<size_t, HaloPlan>> plans;
    for (size_t i = 0; i < cd->input_spatial.size(); ++i) {
      int64_t tiles = TilesOnDim(lsh, cd->input_spatial[i]);
      if (tiles == 1 && !window_tiled(rsh, i)) continue;
      if (!window) return std::nullopt;
      std::optional<HaloPlan> plan = window_tiled(rsh, i)
                                         ? PlanWindowTiles(ls.dim(cd->input_spatial[i]), tiles, window->dims[i])
                                         : PlanHalo(ls.dim(cd->input_spatial[i]), tiles, window->dims[i]);
      if (!plan || plan->out != instr->shape().dim(cd->output_spatial[i])) return std::nullopt;
      plans.emplace_back(i, *plan);
    }
    return plans;
  };
  int64_t n = b_.num_devices();
  int64_t kernel_window = 1;
  for (int64_t x : cd->kernel_spatial) kernel_window *= rs.dim(x);
  // Bytes moved plus local flops / 64 (as in Dot), for this plan and for tiling like the result.
  auto flops = [&](const Sharding& out, int64_t features, int64_t window_elements) {
    return 2 * out.ShardShape(instr->shape()).num_elements() * features * window_elements / 64;
  };
  std::vector<int64_t> out_dims = {cd->output_batch}, in_dims = {cd->input_batch};
  out_dims.insert(out_dims.end(), cd->output_spatial.begin(), cd->output_spatial.end());
  in_dims.insert(in_dims.end(), cd->input_spatial.begin(), cd->input_spatial.end());
  Sharding base_l = MapShardingDims(target, out_dims, in_dims, ls.rank());
  Sharding base_r = MapShardingDims(target, {cd->output_feature}, {cd->kernel_output_feature}, rs.rank());
  int64_t base_cost = MoveCost(ls, L.sharding, base_l) + MoveCost(rs, R.sharding, base_r) +
                      flops(target, ls.dim(cd->input_feature), kernel_window);
  std::optional<DotPlan> best;
  auto consider = [&](const Sharding& lsh, const Sharding& rsh) {
    if (!IsPlainTilingOrReplicated(lsh) || !IsPlainTilingOrReplicated(rsh)) return;
    std::optional<std::vector<std::pair<size_t, HaloPlan>>> halos = halo_plans(lsh, rsh);
    if (!halos) return;
    std::optional<DotPlan> plan = PlanLocalDot(*instr, dims_for(rsh), lsh, rsh, n);
    if (!plan || plan->reduce_groups.empty()) return;
    int64_t features = (ls.dim(cd->input_feature) + TilesOnDim(lsh, cd->input_feature) - 1) /
                       TilesOnDim(lsh, cd->input_feature);
    int64_t window_elements = kernel_window, fetched = 0;
    const int64_t lhs_shard_bytes = lsh.IsTiled() ? lsh.ShardShape(ls).byte_size() : ls.byte_size();
    for (const auto& [i, halo] : *halos) {
      if (!window_tiled(rsh, i)) continue;
      window_elements /= TilesOnDim(rsh, cd->kernel_spatial[i]);
      fetched += lhs_shard_bytes / halo.ci * (halo.left + halo.right);
    }
    plan->cost = ReshardCost(ls, L.sharding, lsh) + ReshardCost(rs, R.sharding, rsh) + fetched +
                 plan->result.ShardShape(instr->shape()).byte_size() +
                 ReshardCost(instr->shape(), plan->result, target) + flops(plan->result, features, window_elements);
    if (!best || plan->cost < best->cost) best = std::move(plan);
  };
  consider(L.sharding, R.sharding);
  if (L.sharding.IsTiled())
    consider(L.sharding, MapShardingDims(L.sharding, {cd->input_feature}, {cd->kernel_input_feature}, rs.rank()));
  if (R.sharding.IsTiled())
    consider(MapShardingDims(R.sharding, {cd->kernel_input_feature}, {cd->input_feature}, ls.rank()), R.sharding);
  // The kernel (or the input) following the other on the feature and the spatial dims: window
  // tiles for a filter gradient whose cotangent comes sharded otherwise.
  std::vector<int64_t> in_contract = {cd->input_feature}, kernel_contract = {cd->kernel_input_feature};
  in_contract.insert(in_contract.end(), cd->input_spatial.begin(), cd->input_spatial.end());
  kernel_contract.insert(kernel_contract.end(), cd->kernel_spatial.begin(), cd->kernel_spatial.end());
  if (L.sharding.IsTiled()) consider(L.sharding, MapShardingDims(L.sharding, in_contract, kernel_contract, rs.rank()));
  if (R.sharding.IsTiled()) consider(MapShardingDims(R.sharding, kernel_contract, in_contract, ls.rank()), R.sharding);
  if (!best || best->cost >= base_cost) return false;
  PValue lv = Operand(instr, 0, best->lhs);
  PValue rv = Operand(instr, 1, best->rhs);
  // Padding of an uneven feature dim must be zero on both sides (garbage may be NaN).
  std::vector<int64_t> lf = {cd->input_feature}, rf = {cd->kernel_input_feature};
  Instruction* lhs = r_.MaskPadding(lv, b_.Zero(ls.dtype()), &lf);
  Instruction* rhs = r_.MaskPadding(rv, b_.Zero(rs.dtype()), &rf);
  std::vector<std::pair<size_t, HaloPlan>> halos = *halo_plans(best->lhs, best->rhs);
  Instruction* out = nullptr;
  if (halos.empty()) {
    out = CloneWith(instr, {lhs, rhs}, best->result.ShardShape(instr->shape()));
  } else {
    Window local_window = *window;
    for (const auto& [i, plan] : halos) {
      lhs = ExchangeHalo(b_, lhs, best->lhs, cd->input_spatial[i], plan, b_.Zero(ls.dtype()));
      local_window.dims[i] = plan.local;
    }
    Attributes attrs = instr->attrs();
    attrs.Remove(AttrId::kControlPredecessors);
    attrs.Set(AttrId::kWindow, local_window);
    out = b_.AddWithType(Opcode::kConvolution, {lhs, rhs}, std::move(attrs), instr->shape().dtype(),
                         instr->name());
    for (const auto& [i, plan] : halos) out = SliceOutputTile(b_, out, best->result, cd->output_spatial[i], plan);
  }
  if (std::optional<PValue> rs_out =
          ReduceScatterTo(PValue{out, best->result, instr->shape()}, best->reduce_groups, target, "add")) {
    Set(instr, r_.Reshard(*rs_out, target, instr->name()));
    return true;
  }
  out = b_.AllReduce(out, best->reduce_groups, "add");
  Set(instr, r_.Reshard(PValue{out, best->result, instr->shape()}, target, instr->name()));
  return true;
}

// batch_group_count > 1 (the filter gradient of a grouped convolution): group g convolves input
// batch block g (group-major) into output features block g. Output-feature tiles that hold whole
// groups take the matching input-batch tiles and convolve locally with fewer groups; the other
// dims stay whole. The tiles come from the result, else from the input. False: not applicable.
StatusOr<bool> ComputationPartitioner::BatchGroupedConvolution(const Instruction* instr, const Sharding& target) {
  const ConvDims* cd = instr->attr<ConvDims>(AttrId::kDimLabels);
  const int64_t groups = instr->int_attr(AttrId::kBatchGroupCount, 1);
  const Shape& ls = instr->operand(0)->shape();
  const int64_t out_rank = instr->shape().rank();
  const PValue& L = Get(instr->operand(0));
  auto usable = [&](int64_t t) {
    return t > 1 && groups % t == 0 && ls.dim(cd->input_batch) % t == 0 &&
           instr->shape().dim(cd->output_feature) % t == 0;
  };
  std::optional<Sharding> compute;
  std::vector<int64_t> others;
  if (target.IsTiled() && IsPlainTiled(target) && usable(target.NumTilesOnDim(cd->output_feature))) {
    for (int64_t d = 0; d < out_rank; ++d)
      if (d != cd->output_feature) others.push_back(d);
    compute = PartiallyReplicateTiledShardingOnDims(target, others);
  } else if (!L.sharding.IsTuple() && L.sharding.IsTiled() && IsPlainTiled(L.sharding) &&
             usable(L.sharding.NumTilesOnDim(cd->input_batch))) {
    compute = MapShardingDims(L.sharding, {cd->input_batch}, {cd->output_feature}, out_rank);
  }
  if (!compute || !compute->IsTiled()) return false;
  const int64_t t = compute->NumTilesOnDim(cd->output_feature);
  Sharding lsh = MapShardingDims(*compute, {cd->output_feature}, {cd->input_batch}, ls.rank());
  Sharding rsh = MapShardingDims(*compute, {cd->output_feature}, {cd->kernel_output_feature},
                                 instr->operand(1)->shape().rank());
  PValue lv = Operand(instr, 0, lsh), rv = Operand(instr, 1, rsh);
  Instruction* out = CloneWith(instr, {lv.hlo, rv.hlo}, compute->ShardShape(instr->shape()));
  out->attrs().Set(AttrId::kBatchGroupCount, groups / t);
  Set(instr, r_.Reshard(PValue{out, *compute, instr->shape()}, target, instr->name()));
  return true;
}

}  // namespace partitioner_internal
}  // namespace spmdc

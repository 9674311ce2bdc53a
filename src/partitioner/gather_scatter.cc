// Gather / scatter strategies (see gather_scatter.h and GSPMD.md §3.9).
#include "partitioner/gather_scatter.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>
#include <utility>

#include "propagation/gather_parallel.h"
#include "sharding/algebra.h"

namespace spmdc {

namespace {

using Groups = std::vector<std::vector<int64_t>>;

bool Contains(const std::vector<int64_t>& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }




// `s` keeping only the tiling of `keep` (the other data dims replicated); nullopt if unusable.
std::optional<Sharding> Keep(const Sharding& s, const std::vector<int64_t>& keep) {
  if (!IsPlainTilingOrReplicated(s)) return std::nullopt;
  if (!s.IsTiled()) return s;
  return PartiallyReplicateTiledShardingOnAllDimsExcept(s, keep);
}

// A sharding of a rank-`rank` value whose dim i is tiled as source dim src[i].second of
// *src[i].first (untiled when null): nullopt when the combination is not a sharding.
using Source = std::pair<const Sharding*, int64_t>;
std::optional<Sharding> Compose(int64_t rank, const std::vector<Source>& src, int64_t n) {
  std::vector<int64_t> tdims(rank, 1);
  bool any = false;
  for (int64_t i = 0; i < rank; ++i) {
    if (!src[i].first) continue;
    if (!IsPlainTilingOrReplicated(*src[i].first)) return std::nullopt;
    tdims[i] = TilesOnDim(*src[i].first, src[i].second);
    any |= tdims[i] > 1;
  }
  if (!any) return Sharding::Replicate();
  std::vector<std::vector<int64_t>> tile_of(n, std::vector<int64_t>(rank, 0));
  for (int64_t dev = 0; dev < n; ++dev)
    for (int64_t i = 0; i < rank; ++i)
      if (src[i].first && tdims[i] > 1) tile_of[dev][i] = TileCoord(*src[i].first, dev, src[i].second);
  return ShardingFromTiles(tdims, tile_of);
}


CallerMap CallersOf(const Instruction& instr) {
  CallerMap callers;
  const Module* m = instr.parent() ? instr.parent()->parent() : nullptr;
  if (!m) return callers;
  for (const Computation* c : m->computations())
    for (Instruction* i : c->instructions())
      for (Computation* called : i->called_computations()) callers[called] = i;
  return callers;
}

// Index handling shared by gather and scatter: which operand dim each index-vector component
// addresses, and the explicit / iota-derived parallel dims as (operand dim, indices dim).
struct IndexInfo {
  std::vector<int64_t> index_map;          // operand dim of each index-vector component
  std::vector<std::pair<int64_t, int64_t>> batching, iota;
  std::vector<int64_t> trivial;            // operand dims with slice 1 that are indexed
  std::vector<std::pair<int64_t, int64_t>> pass;  // (operand dim, result dim): whole-dim slices
  std::vector<std::pair<int64_t, int64_t>> idx_res;  // (indices dim, result batch/scatter dim)
  int64_t ivd = 0;
};

// The operand dims whose tiling a plan may keep.
std::vector<int64_t> AllowedOperandDims(const IndexInfo& in) {
  std::vector<int64_t> dims = in.trivial;
  for (auto [a, j] : in.pass) dims.push_back(a);
  for (auto [a, b] : in.batching) dims.push_back(a);
  return dims;
}

std::vector<int64_t> IndexBatchDims(const Shape& indices, int64_t ivd) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < indices.rank(); ++d)
    if (d != ivd) dims.push_back(d);
  return dims;
}

// The operand/indices sharding pairs gather and scatter cost against each other. It starts with
// the current shardings restricted to the dims the strategies can use, either side replicated,
// and each side re-derived from the other on the parallel dims; the callers add the pairs
// derived from their results.
class PairCandidates {
 public:
  PairCandidates(const Shape& operand, const Shape& indices, const IndexInfo& in, int64_t n,
                 const Sharding& cur_operand, const Sharding& cur_indices)
      : operand_rank_(operand.rank()), indices_rank_(indices.rank()), n_(n) {
    index_dims = IndexBatchDims(indices, in.ivd);
    allowed = AllowedOperandDims(in);
    parallel = in.batching;
    parallel.insert(parallel.end(), in.iota.begin(), in.iota.end());
    current_operand = Keep(cur_operand, allowed);
    current_indices = Keep(cur_indices, index_dims);
    const std::optional<Sharding>& oc = current_operand;
    const std::optional<Sharding>& ic = current_indices;
    const Sharding rep = Sharding::Replicate();
    Add(oc, ic);
    Add(oc, rep);
    Add(rep, ic);
    if (oc && ic) {
      Add(oc, IndicesFrom(*oc, *ic));
      Add(OperandFrom(*oc, *ic), ic);
    }
  }
  void Add(const std::optional<Sharding>& o, const std::optional<Sharding>& i) {
    if (o && i) pairs.emplace_back(*o, *i);
  }
  // Indices following the operand `o` on the parallel dims, keeping `i` on their other dims.
  std::optional<Sharding> IndicesFrom(const Sharding& o, const Sharding& i) const {
    std::vector<Source> src(indices_rank_, Source{nullptr, 0});
    for (int64_t d : index_dims) src[d] = {&i, d};
    for (auto [a, d] : parallel) src[d] = {&o, a};
    return Compose(indices_rank_, src, n_);
  }
  // The operand keeping `o` on its usable dims and following the indices `i` on parallel dims.
  std::optional<Sharding> OperandFrom(const Sharding& o, const Sharding& i) const {
    std::vector<Source> src(operand_rank_, Source{nullptr, 0});
    for (int64_t a : allowed) src[a] = {&o, a};
    for (auto [a, d] : parallel) src[a] = {&i, d};
    return Compose(operand_rank_, src, n_);
  }

  std::vector<int64_t> index_dims, allowed;           // the dims the strategies can use
  std::vector<std::pair<int64_t, int64_t>> parallel;  // (operand dim, indices dim)
  std::optional<Sharding> current_operand, current_indices;  // restricted to those dims
  std::vector<std::pair<Sharding, Sharding>> pairs;

 private:
  int64_t operand_rank_, indices_rank_, n_;
};

struct Plan {
  Sharding operand, indices, updates;
  TileGrouping result;
  std::vector<int64_t> shifted;  // index-vector components shifted by the operand tile offset
  bool replicated = false;
  int64_t cost = 0;
};

// The checks common to gather and scatter plans: usable shardings, an untiled index-vector dim,
// operand tiling only on passthrough / trivially sliced / batching dims, batching dims tiled
// alike on both sides. Fills plan->shifted and lists the trivially sliced operand dims tiled
// exactly like their iota-derived indices dim in *matched_trivial.
bool CheckCommon(const IndexInfo& in, const Shape& operand, const Shape& indices, const Sharding& so,
                 const Sharding& si, int64_t n, Plan* plan, std::vector<int64_t>* matched_trivial) {
  if (!IsPlainTilingOrReplicated(so) || !IsPlainTilingOrReplicated(si)) return false;
  if (in.ivd < indices.rank() && TilesOnDim(si, in.ivd) > 1) return false;
  std::vector<int64_t> allowed = AllowedOperandDims(in);
  for (int64_t a = 0; a < operand.rank(); ++a)
    if (TilesOnDim(so, a) > 1 && !Contains(allowed, a)) return false;
  auto matched = [&](int64_t a, int64_t b) {
    if (TilesOnDim(so, a) != TilesOnDim(si, b)) return false;
    for (int64_t dev = 0; dev < n; ++dev)
      if (TileCoord(so, dev, a) != TileCoord(si, dev, b)) return false;
    return true;
  };
  for (auto [a, b] : in.batching)
    if ((TilesOnDim(so, a) > 1 || TilesOnDim(si, b) > 1) && !matched(a, b)) return false;
  for (auto [a, b] : in.iota)
    if (TilesOnDim(so, a) > 1 && matched(a, b)) matched_trivial->push_back(a);
  plan->shifted.clear();
  for (size_t k = 0; k < in.index_map.size(); ++k) {
    int64_t a = in.index_map[k];
    if (TilesOnDim(so, a) > 1 && Contains(in.trivial, a)) plan->shifted.push_back(static_cast<int64_t>(k));
  }
  return true;
}

// Constant vector of `t` values (one per index-vector component).
Instruction* VectorOf(SpmdBuilder& b, DType t, const std::vector<int64_t>& values) {
  Literal l(Shape(t, {static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i) l.SetInt(static_cast<int64_t>(i), values[i]);
  return b.Constant(std::move(l));
}

// Per-device vector of the operand tile offsets of the shifted components (0 elsewhere), s32.
Instruction* OffsetVector(SpmdBuilder& b, Resharder& r, const Shape& operand, const Sharding& so,
                          const std::vector<int64_t>& index_map, const std::vector<int64_t>& shifted, DType t) {
  std::vector<Instruction*> offsets = r.TileOffsets(operand, so);
  std::vector<Instruction*> parts;
  for (size_t k = 0; k < index_map.size(); ++k) {
    Instruction* o = Contains(shifted, static_cast<int64_t>(k)) ? offsets[index_map[k]] : b.ScalarS32(0);
    parts.push_back(b.Reshape(b.Convert(o, t), {1}));
  }
  return b.Concatenate(parts, 0);
}

int64_t MaxOf(DType t) {
  int bits = DTypeBitWidth(t);
  if (IsUnsigned(t)) return bits >= 63 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << bits) - 1;
  return bits >= 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (bits - 1)) - 1;
}

// ---- gather ------------------------------------------------------------------------------------

struct GatherProblem {
  IndexInfo in;
  GatherDims d;
  Shape operand, indices, out;
};

GatherProblem AnalyzeGather(const Instruction& g) {
  GatherProblem p;
  p.d = GatherDimsOf(g);
  p.operand = g.operand(0)->shape();
  p.indices = g.operand(1)->shape();
  p.out = g.shape();
  p.in.ivd = g.int_attr(AttrId::kIndexVectorDim, p.indices.rank());
  p.d.index_vector_dim = p.in.ivd;
  p.in.index_map = p.d.start_index_map;
  for (size_t k = 0; k < p.d.operand_batching_dims.size() && k < p.d.start_indices_batching_dims.size(); ++k)
    p.in.batching.emplace_back(p.d.operand_batching_dims[k], p.d.start_indices_batching_dims[k]);
  for (int64_t a = 0; a < p.operand.rank(); ++a)
    if (p.d.slice_sizes[a] == 1 && p.operand.dim(a) > 1 && Contains(p.d.start_index_map, a) &&
        !Contains(p.d.operand_batching_dims, a))
      p.in.trivial.push_back(a);
  p.in.pass = GatherOperandPassthroughDims(p.operand, p.d);
  p.in.idx_res = GatherIndexPassthroughDims(p.indices, p.out, p.d);
  if (std::optional<ParallelDims> par = GatherParallelDims(g, CallersOf(g), ParallelKind::kImplicit))
    for (size_t k = 0; k < par->indices.size(); ++k) p.in.iota.emplace_back(par->operand[k], par->indices[k]);
  return p;
}

std::optional<Plan> PlanGather(const GatherProblem& p, const Sharding& so, const Sharding& si, int64_t n) {
  Plan plan;
  std::vector<int64_t> matched;
  if (!CheckCommon(p.in, p.operand, p.indices, so, si, n, &plan, &matched)) return std::nullopt;
  plan.operand = so;
  plan.indices = si;
  std::vector<int64_t> tiles(p.out.rank(), 1);
  for (auto [b, j] : p.in.idx_res) tiles[j] = TilesOnDim(si, b);
  for (auto [a, j] : p.in.pass) tiles[j] = TilesOnDim(so, a);
  std::vector<int64_t> red_dims;
  int64_t red_count = 1;
  for (int64_t a : p.in.trivial)
    if (TilesOnDim(so, a) > 1 && !Contains(matched, a)) red_dims.push_back(a), red_count *= TilesOnDim(so, a);
  auto out = [&](int64_t dev) {
    std::vector<int64_t> c(p.out.rank(), 0);
    for (auto [b, j] : p.in.idx_res) c[j] = TileCoord(si, dev, b);
    for (auto [a, j] : p.in.pass) c[j] = TileCoord(so, dev, a);
    return c;
  };
  auto red = [&](int64_t dev) {
    std::vector<int64_t> c;
    for (int64_t a : red_dims) c.push_back(TileCoord(so, dev, a));
    return c;
  };
  std::optional<TileGrouping> g = GroupDevicesByTile(n, tiles, out, red, red_count);
  if (!g) return std::nullopt;
  plan.result = *g;
  plan.replicated = so.IsReplicated() && si.IsReplicated();
  return plan;
}

int64_t GatherCost(const GatherProblem& p, const Plan& plan, const Sharding& cur_o, const Sharding& cur_i,
                   const Sharding& target) {
  int64_t local = plan.result.sharding.ShardShape(p.out).byte_size();
  return ReshardCost(p.operand, cur_o, plan.operand) + ReshardCost(p.indices, cur_i, plan.indices) +
         (plan.result.groups.empty() ? 0 : local) + ReshardCost(p.out, plan.result.sharding, target) + local / 8;
}

// The indices of a plan with shifted components: clamped as the gather would clamp them (in
// their own type), then in s32 shifted into the local operand tile. Also returns which batch
// positions read a row this device holds (pred, indices dims without index_vector_dim). An
// implicit index-vector dim becomes explicit (*attrs updated).
std::pair<Instruction*, Instruction*> ShiftGatherIndices(SpmdBuilder& b, Resharder& r, const GatherProblem& p,
                                                         const Plan& plan, Instruction* idx, Attributes* attrs) {
  const int64_t ivd = p.in.ivd;
  if (ivd == p.indices.rank()) {
    std::vector<int64_t> dims = idx->shape().dims();
    dims.push_back(1);
    idx = b.Reshape(idx, dims);
    attrs->Set(AttrId::kIndexVectorDim, ivd);
  }
  const Shape ishape = idx->shape();
  DType it = ishape.dtype();
  std::vector<int64_t> hi;
  for (int64_t a : p.in.index_map) hi.push_back(std::min(p.operand.dim(a) - p.d.slice_sizes[a], MaxOf(it)));
  auto along = [&](Instruction* vec) { return b.Broadcast(vec, Shape(vec->shape().dtype(), ishape.dims()), {ivd}); };
  idx = b.Binary(Opcode::kMaximum, idx, b.BroadcastScalar(b.Zero(it), ishape));
  idx = b.Binary(Opcode::kMinimum, idx, along(VectorOf(b, it, hi)));
  idx = b.Convert(idx, DType::kS32);
  idx = b.Binary(Opcode::kSubtract, idx,
                 along(OffsetVector(b, r, p.operand, plan.operand, p.in.index_map, plan.shifted, DType::kS32)));
  // Rows another device holds: shifted components outside [0, chunk).
  std::vector<int64_t> lo_v, hi_v;
  Shape local_operand = plan.operand.ShardShape(p.operand);
  for (size_t k = 0; k < p.in.index_map.size(); ++k) {
    bool s = Contains(plan.shifted, static_cast<int64_t>(k));
    lo_v.push_back(s ? 0 : std::numeric_limits<int32_t>::min());
    hi_v.push_back(s ? local_operand.dim(p.in.index_map[k]) : std::numeric_limits<int32_t>::max());
  }
  Instruction* in_range = b.Binary(Opcode::kAnd, b.Compare(idx, along(VectorOf(b, DType::kS32, lo_v)), "GE"),
                                   b.Compare(idx, along(VectorOf(b, DType::kS32, hi_v)), "LT"));
  Attributes ra;
  ra.Set(AttrId::kDimensions, std::vector<int64_t>{ivd});
  ra.Set(AttrId::kToApply, b.Reducer("and", DType::kPred));
  Instruction* valid = b.Add(Opcode::kReduce, {in_range, b.ScalarOf(DType::kPred, 1)}, std::move(ra));
  return {idx, valid};
}

}  // namespace

StatusOr<std::optional<PValue>> PartitionGather(const GatherScatterContext& ctx, const Instruction& instr,
                                                const Sharding& target) {
  SpmdBuilder& b = *ctx.b;
  Resharder& r = *ctx.r;
  const int64_t n = b.num_devices();
  if (instr.operand_count() != 2 || !instr.shape().IsArray() || target.IsTuple()) return std::nullopt;
  const GatherProblem p = AnalyzeGather(instr);
  if (static_cast<int64_t>(p.d.slice_sizes.size()) != p.operand.rank()) return std::nullopt;
  const Sharding cur_o = ctx.get(instr.operand(0)).sharding;
  const Sharding cur_i = ctx.get(instr.operand(1)).sharding;
  const Sharding rep = Sharding::Replicate();
  PairCandidates c(p.operand, p.indices, p.in, n, cur_o, cur_i);
  const std::optional<Sharding>& oc = c.current_operand;
  const std::optional<Sharding>& ic = c.current_indices;
  auto add = [&](const std::optional<Sharding>& o, const std::optional<Sharding>& i) { c.Add(o, i); };
  if (IsPlainTilingOrReplicated(target)) {
    // Operand and indices derived from the wanted result.
    std::vector<Source> osrc(p.operand.rank(), Source{nullptr, 0}), isrc(p.indices.rank(), Source{nullptr, 0});
    for (auto [d, j] : p.in.idx_res) isrc[d] = {&target, j};
    for (auto [a, j] : p.in.pass) osrc[a] = {&target, j};
    for (auto [a, d] : c.parallel)
      for (auto [d2, j] : p.in.idx_res)
        if (d2 == d) osrc[a] = {&target, j};
    std::optional<Sharding> ot = Compose(p.operand.rank(), osrc, n), it = Compose(p.indices.rank(), isrc, n);
    add(ot, it);
    add(oc, it);
    add(ot, ic);
    add(ot, rep);
    add(rep, it);
  }
  add(rep, rep);
  std::optional<Plan> best;
  for (const auto& [so, si] : c.pairs) {
    std::optional<Plan> plan = PlanGather(p, so, si, n);
    if (!plan) continue;
    plan->cost = GatherCost(p, *plan, cur_o, cur_i, target);
    if (!best || plan->cost < best->cost) best = std::move(plan);
  }
  if (!best || best->replicated) return std::nullopt;
  const Plan& plan = *best;

  PValue o = r.Reshard(ctx.get(instr.operand(0)), plan.operand, instr.name());
  PValue iv = r.Reshard(ctx.get(instr.operand(1)), plan.indices, instr.name());
  Instruction* idx = iv.hlo;
  Attributes attrs = instr.attrs();
  attrs.Remove(AttrId::kControlPredecessors);
  Instruction* valid = nullptr;
  if (!plan.shifted.empty()) std::tie(idx, valid) = ShiftGatherIndices(b, r, p, plan, idx, &attrs);
  std::vector<int64_t> slices = p.d.slice_sizes;
  Shape local_operand = plan.operand.ShardShape(p.operand);
  for (auto [a, j] : p.in.pass) slices[a] = local_operand.dim(a);
  attrs.Set(AttrId::kSliceSizes, slices);
  Shape local = plan.result.sharding.ShardShape(p.out);
  Instruction* g = b.Add(Opcode::kGather, {o.hlo, idx}, std::move(attrs), nullptr, instr.name());
  if (!(g->shape().dims() == local.dims()))
    return Internal("%{}: local gather has shape {}, expected {}", instr.name(), g->shape().ToString(false),
                    local.ToString(false));
  if (valid) {
    std::vector<int64_t> batch;
    for (int64_t j = 0; j < p.out.rank(); ++j)
      if (!Contains(p.d.offset_dims, j)) batch.push_back(j);
    Instruction* mask = b.Broadcast(valid, Shape(DType::kPred, local.dims()), batch);
    g = b.Select(mask, g, b.BroadcastScalar(b.Zero(local.dtype()), local));
  }
  PValue v{g, plan.result.sharding, p.out};
  if (!plan.result.groups.empty()) {
    std::string kind = local.dtype() == DType::kPred ? "or" : "add";
    if (ctx.reduce_scatter_to)
      if (std::optional<PValue> rs = ctx.reduce_scatter_to(v, plan.result.groups, target, kind))
        return std::optional<PValue>(r.Reshard(*rs, target, instr.name()));
    v.hlo = b.AllReduce(g, plan.result.groups, kind);
  }
  return std::optional<PValue>(r.Reshard(v, target, instr.name()));
}

namespace {

// ---- scatter -----------------------------------------------------------------------------------

struct ScatterProblem {
  IndexInfo in;
  ScatterDims d;
  int64_t count = 1;  // operands
  Shape operand, indices, updates;
  std::optional<std::string> kind;  // recognised combiner
};

ScatterProblem AnalyzeScatter(const Instruction& s) {
  ScatterProblem p;
  p.count = s.operand_count() / 2;
  p.d = ScatterDimsOf(s);
  p.operand = s.operand(0)->shape();
  p.indices = s.operand(p.count)->shape();
  p.updates = s.operand(p.count + 1)->shape();
  p.in.ivd = s.int_attr(AttrId::kIndexVectorDim, p.indices.rank());
  p.d.index_vector_dim = p.in.ivd;
  p.in.index_map = p.d.scatter_dims_to_operand_dims;
  for (size_t k = 0; k < p.d.input_batching_dims.size() && k < p.d.scatter_indices_batching_dims.size(); ++k)
    p.in.batching.emplace_back(p.d.input_batching_dims[k], p.d.scatter_indices_batching_dims[k]);
  // Window extent per operand dim (1 for inserted / batching dims).
  std::vector<int64_t> extent(p.operand.rank(), 1);
  size_t w = 0;
  for (int64_t a = 0; a < p.operand.rank(); ++a) {
    if (Contains(p.d.inserted_window_dims, a) || Contains(p.d.input_batching_dims, a)) continue;
    if (w < p.d.update_window_dims.size()) extent[a] = p.updates.dim(p.d.update_window_dims[w]);
    ++w;
  }
  for (int64_t a = 0; a < p.operand.rank(); ++a)
    if (extent[a] == 1 && p.operand.dim(a) > 1 && Contains(p.in.index_map, a) &&
        !Contains(p.d.input_batching_dims, a))
      p.in.trivial.push_back(a);
  p.in.pass = ScatterOperandPassthroughDims(p.operand, p.updates, p.d);
  p.in.idx_res = ScatterIndexPassthroughDims(p.indices, p.updates, p.d);
  if (std::optional<ParallelDims> par = ScatterParallelDims(s, CallersOf(s), ParallelKind::kImplicit))
    for (size_t k = 0; k < par->indices.size(); ++k) p.in.iota.emplace_back(par->operand[k], par->indices[k]);
  if (s.to_apply()) p.kind = SpmdBuilder::ReducerKind(*s.to_apply());
  return p;
}

// The identity of a combiner for `t` (nullopt when there is none we can build).
std::optional<Literal> Identity(const std::string& kind, DType t) {
  Literal l(Shape::Scalar(t));
  bool is_float = IsFloat(t);
  if (!is_float && !IsInteger(t) && t != DType::kPred) return std::nullopt;
  if (t == DType::kPred) {
    l.SetInt(0, kind == "mul" || kind == "and" || kind == "min" ? 1 : 0);
    return l;
  }
  if (kind == "add" || kind == "or") return l;
  if (kind == "mul") {
    is_float ? l.SetDouble(0, 1) : l.SetInt(0, 1);
    return l;
  }
  if (kind == "and") {
    if (is_float) return std::nullopt;
    l.SetInt(0, -1);  // all bits set
    return l;
  }
  if (kind == "max" || kind == "min") {
    bool max = kind == "max";
    if (is_float) {
      l.SetDouble(0, max ? -INFINITY : INFINITY);
    } else if (IsUnsigned(t)) {
      l.SetInt(0, max ? 0 : -1);
    } else {
      int bits = DTypeBitWidth(t);
      int64_t hi = bits >= 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (bits - 1)) - 1;
      l.SetInt(0, max ? -hi - 1 : hi);
    }
    return l;
  }
  return std::nullopt;
}

Opcode CombineOpcode(const std::string& kind, DType t) {
  if (kind == "add") return t == DType::kPred ? Opcode::kOr : Opcode::kAdd;
  if (kind == "mul") return t == DType::kPred ? Opcode::kAnd : Opcode::kMultiply;
  if (kind == "max") return t == DType::kPred ? Opcode::kOr : Opcode::kMaximum;
  if (kind == "min") return t == DType::kPred ? Opcode::kAnd : Opcode::kMinimum;
  return kind == "and" ? Opcode::kAnd : Opcode::kOr;
}

std::optional<Plan> PlanScatter(const ScatterProblem& p, const Sharding& sx, const Sharding& si, int64_t n) {
  Plan plan;
  std::vector<int64_t> matched;
  if (!CheckCommon(p.in, p.operand, p.indices, sx, si, n, &plan, &matched)) return std::nullopt;
  // Updates: window dims follow the operand's passthrough dims, scatter dims the indices.
  std::vector<Source> src(p.updates.rank(), Source{nullptr, 0});
  for (auto [a, w] : p.in.pass) src[w] = {&sx, a};
  for (auto [b, s] : p.in.idx_res) src[s] = {&si, b};
  std::optional<Sharding> su = Compose(p.updates.rank(), src, n);
  if (!su) return std::nullopt;
  plan.operand = sx;
  plan.indices = si;
  plan.updates = *su;
  // Index batch dims not parallel to a tiled operand dim split the updates among devices that
  // hold the same operand tile: their results are combined.
  std::vector<int64_t> red_dims;
  int64_t red_count = 1;
  for (auto [b, s] : p.in.idx_res) {
    bool parallel = false;
    for (auto [a, d] : p.in.batching) parallel |= d == b;
    for (auto [a, d] : p.in.iota) parallel |= d == b && Contains(matched, a);
    if (!parallel && TilesOnDim(si, b) > 1) red_dims.push_back(b), red_count *= TilesOnDim(si, b);
  }
  std::vector<int64_t> tiles(p.operand.rank());
  for (int64_t a = 0; a < p.operand.rank(); ++a) tiles[a] = TilesOnDim(sx, a);
  auto out = [&](int64_t dev) {
    std::vector<int64_t> c(p.operand.rank());
    for (int64_t a = 0; a < p.operand.rank(); ++a) c[a] = TileCoord(sx, dev, a);
    return c;
  };
  auto red = [&](int64_t dev) {
    std::vector<int64_t> c;
    for (int64_t b : red_dims) c.push_back(TileCoord(si, dev, b));
    return c;
  };
  std::optional<TileGrouping> g = GroupDevicesByTile(n, tiles, out, red, red_count);
  if (!g) return std::nullopt;
  if (!g->groups.empty() && (p.count != 1 || !p.kind || !Identity(*p.kind, p.operand.dtype()))) return std::nullopt;
  // Padding of uneven index tiles is made out of bounds (-1): it needs an index component.
  bool uneven = false;
  for (auto [b, s] : p.in.idx_res) uneven |= TilesOnDim(si, b) > 1 && p.indices.dim(b) % TilesOnDim(si, b) != 0;
  if (uneven && p.in.index_map.empty()) return std::nullopt;
  plan.result = *g;
  plan.replicated = sx.IsReplicated() && si.IsReplicated();
  return plan;
}

int64_t ScatterCost(const ScatterProblem& p, const Plan& plan, const Sharding& cur_x, const Sharding& cur_i,
                    const Sharding& cur_u, const Sharding& target) {
  int64_t local_x = plan.result.sharding.ShardShape(p.operand).byte_size();
  int64_t local_u = plan.updates.ShardShape(p.updates).byte_size();
  return p.count * (ReshardCost(p.operand, cur_x, plan.operand) + ReshardCost(p.updates, cur_u, plan.updates) +
                    ReshardCost(p.operand, plan.result.sharding, target)) +
         ReshardCost(p.indices, cur_i, plan.indices) + (plan.result.groups.empty() ? 0 : local_x) + local_u / 8;
}

}  // namespace

StatusOr<std::optional<PValue>> PartitionScatter(const GatherScatterContext& ctx, const Instruction& instr,
                                                 const Sharding& target) {
  SpmdBuilder& b = *ctx.b;
  Resharder& r = *ctx.r;
  const int64_t n = b.num_devices();
  if (instr.operand_count() < 3 || instr.operand_count() % 2 != 1 || !instr.to_apply()) return std::nullopt;
  const ScatterProblem p = AnalyzeScatter(instr);
  const int64_t count = p.count;
  // One sharding for every operand (and every update).
  const Sharding cur_x = ctx.get(instr.operand(0)).sharding;
  const Sharding cur_i = ctx.get(instr.operand(count)).sharding;
  const Sharding cur_u = ctx.get(instr.operand(count + 1)).sharding;
  // Variadic results: the plan is costed against the first result's sharding (every result is
  // computed alike; the others are resharded leaf by leaf).
  Sharding want = target.IsTuple() ? target.tuple_elements()[0] : target;
  const Sharding rep = Sharding::Replicate();
  PairCandidates c(p.operand, p.indices, p.in, n, cur_x, cur_i);
  const std::optional<Sharding>& xc = c.current_operand;
  const std::optional<Sharding>& ic = c.current_indices;
  const std::vector<int64_t>& index_dims = c.index_dims;
  std::optional<Sharding> xt = Keep(want, c.allowed);
  auto update_dim_of = [&](int64_t index_dim) -> int64_t {
    for (auto [d, s] : p.in.idx_res)
      if (d == index_dim) return s;
    return -1;
  };
  auto add = [&](const std::optional<Sharding>& x, const std::optional<Sharding>& i) { c.Add(x, i); };
  if (IsPlainTilingOrReplicated(cur_u)) {
    // Operand and indices derived from the updates.
    std::vector<Source> xsrc(p.operand.rank(), Source{nullptr, 0}), isrc(p.indices.rank(), Source{nullptr, 0});
    for (auto [a, w] : p.in.pass) xsrc[a] = {&cur_u, w};
    for (auto [a, d] : c.parallel)
      if (update_dim_of(d) >= 0) xsrc[a] = {&cur_u, update_dim_of(d)};
    for (auto [d, s] : p.in.idx_res) isrc[d] = {&cur_u, s};
    std::optional<Sharding> xu = Compose(p.operand.rank(), xsrc, n), iu = Compose(p.indices.rank(), isrc, n);
    add(xu, iu);
    add(xu, rep);
    add(rep, iu);
    add(xc, iu);
  }
  if (xt) {
    add(xt, ic);
    add(xt, rep);
    if (ic) add(xt, c.IndicesFrom(*xt, *ic));
  }
  add(rep, rep);
  std::optional<Plan> best;
  for (const auto& [sx, si] : c.pairs) {
    std::optional<Plan> plan = PlanScatter(p, sx, si, n);
    if (!plan) continue;
    plan->cost = ScatterCost(p, *plan, cur_x, cur_i, cur_u, want);
    if (!best || plan->cost < best->cost) best = std::move(plan);
  }
  if (!best || best->replicated) return std::nullopt;
  const Plan& plan = *best;

  std::vector<Instruction*> xs, us;
  for (int64_t k = 0; k < count; ++k) {
    xs.push_back(r.Reshard(ctx.get(instr.operand(k)), plan.operand, instr.name()).hlo);
    us.push_back(r.Reshard(ctx.get(instr.operand(count + 1 + k)), plan.updates, instr.name()).hlo);
  }
  PValue iv = r.Reshard(ctx.get(instr.operand(count)), plan.indices, instr.name());
  Instruction* idx = iv.hlo;
  const int64_t ivd = p.in.ivd;
  Attributes attrs = instr.attrs();
  attrs.Remove(AttrId::kControlPredecessors);
  bool uneven = false;
  for (auto [d, s] : p.in.idx_res)
    uneven |= TilesOnDim(plan.indices, d) > 1 && p.indices.dim(d) % TilesOnDim(plan.indices, d) != 0;
  if (!plan.shifted.empty() || uneven) {
    // Signed arithmetic of the same width (unsigned values past the signed range wrap to
    // negatives: out of bounds either way).
    DType it = idx->shape().dtype();
    DType st = DTypeBitWidth(it) == 64 ? DType::kS64 : DType::kS32;
    idx = b.Convert(idx, st);
    if (uneven) {
      // Padding rows of the indices must not scatter anything: -1 is out of bounds (and no
      // longer sorted or unique).
      idx = r.MaskPadding(PValue{idx, plan.indices, Shape(st, p.indices.dims())}, b.ScalarOf(st, -1), &index_dims);
      attrs.Remove(AttrId::kIndicesAreSorted);
      attrs.Remove(AttrId::kUniqueIndices);
    }
    if (ivd == p.indices.rank()) {
      std::vector<int64_t> dims = idx->shape().dims();
      dims.push_back(1);
      idx = b.Reshape(idx, dims);
      attrs.Set(AttrId::kIndexVectorDim, ivd);
    }
    if (!plan.shifted.empty()) {
      // Updates outside this device's range end up out of bounds and are dropped.
      Instruction* off = OffsetVector(b, r, p.operand, plan.operand, p.in.index_map, plan.shifted, st);
      idx = b.Binary(Opcode::kSubtract, idx, b.Broadcast(off, Shape(st, idx->shape().dims()), {ivd}));
    }
  }
  ASSIGN_OR_RETURN(Computation* combiner, ctx.partition_replicated(*instr.to_apply()));
  attrs.Set(AttrId::kToApply, combiner);
  Shape local_x = plan.result.sharding.ShardShape(p.operand);
  std::vector<Instruction*> bases = xs;
  const bool combine = !plan.result.groups.empty();
  if (combine) {
    std::optional<Literal> id = Identity(*p.kind, p.operand.dtype());
    bases = {b.BroadcastScalar(b.Constant(std::move(*id)), local_x)};
  }
  std::vector<Instruction*> ops = bases;
  ops.push_back(idx);
  ops.insert(ops.end(), us.begin(), us.end());
  Shape local_shape = local_x;
  if (count > 1) local_shape = Shape::Tuple(std::vector<Shape>(count, local_x));
  Instruction* s = b.Add(Opcode::kScatter, ops, std::move(attrs), &local_shape, instr.name());
  if (combine) {
    Opcode op = CombineOpcode(*p.kind, local_x.dtype());
    // Wanted tiled on a dim the shards hold whole: reduce-scatter the partial results and
    // combine with the operand's matching tile.
    if (ctx.reduce_scatter_to && !target.IsTuple())
      if (std::optional<PValue> rs =
              ctx.reduce_scatter_to(PValue{s, plan.result.sharding, p.operand}, plan.result.groups, target, *p.kind)) {
        PValue x = r.Reshard(PValue{xs[0], plan.operand, p.operand}, rs->sharding, instr.name());
        PValue out{b.Binary(op, x.hlo, rs->hlo), rs->sharding, p.operand};
        return std::optional<PValue>(r.Reshard(out, target, instr.name()));
      }
    s = b.Binary(op, xs[0], b.AllReduce(s, plan.result.groups, *p.kind));
  }
  Sharding result = plan.result.sharding;
  if (instr.shape().IsTuple()) result = Sharding::Tuple(std::vector<Sharding>(count, result));
  return std::optional<PValue>(r.Reshard(PValue{s, result, instr.shape()}, target, instr.name()));
}

}  // namespace spmdc

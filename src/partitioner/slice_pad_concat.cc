// Ops that rearrange elements along dims: slice, pad, concatenate and reverse (Slicing, which
// also takes sorts and hands the sort-specific plans to sort_topk.cc). Rearranged tiled dims
// fetch windows from their neighbours (halo exchange) where that moves less than a gather.
#include <algorithm>
#include <map>

#include "partitioner/computation_partitioner.h"
#include "partitioner/halo.h"
#include "sharding/algebra.h"

namespace spmdc {
namespace partitioner_internal {

namespace {

// Input tiles (of ci) a window of co elements starting at lo[t] overlaps, at most over t.
int64_t WindowHops(int64_t n, int64_t ci, int64_t co, const std::vector<int64_t>& lo) {
  int64_t hops = 1;
  for (int64_t t = 0; t < n; ++t) {
    int64_t first = std::clamp<int64_t>(FloorDiv(lo[t], ci), 0, n - 1);
    int64_t last = std::min(FloorDiv(lo[t] + co - 1, ci), n - 1);
    hops = std::max(hops, last - first + 1);
  }
  return hops;
}

}  // namespace

// Per device (tiled like `target`, n tiles of ci input elements on `dim`), the window of co
// elements of `x`'s dim starting at global input index lo(t) for its tile t: the elements it
// needs past its own tile come from neighbours (halo exchange: collective-permutes of the edge
// elements; else of the whole input tiles it overlaps), are concatenated and the window is
// (dynamic-)sliced out. Windows may start before 0 or run past the end: those elements are
// unspecified (callers mask them). Nullopt when that would move as much as a gather.
std::optional<Instruction*> ComputationPartitioner::FetchWindow(Instruction* x, const Sharding& target, int64_t dim,
                                                                int64_t ci, int64_t co,
                                                                const std::vector<int64_t>& lo) {
  int64_t n = target.NumTilesOnDim(dim);
  const TileAssignment& tiles = target.tile_assignment();
  // Every window inside one tile (the q, k and v of a fused projection tiled across their
  // boundaries): each device receives just its window, cut by the tile's holder, rather than
  // halos or whole tiles sized for the farthest window.
  bool within = true;
  for (int64_t t = 0; t < n && within; ++t)
    within = lo[t] >= 0 && lo[t] + co <= n * ci && lo[t] / ci == (lo[t] + co - 1) / ci;
  if (within) {
    auto holder = [&](int64_t dev, int64_t piece) {
      std::vector<int64_t> c = *tiles.IndexOf(dev);
      c[dim] = piece;
      return tiles(c);
    };
    std::vector<int64_t> start(b_.num_devices());
    for (int64_t dev = 0; dev < b_.num_devices(); ++dev) start[dev] = lo[tiles.IndexOf(dev)->at(dim)];
    return r_.FetchRange(x, dim, ci, n, holder, start, co);
  }
  // Only the edge elements the windows reach past their own tile (never more than whole tiles).
  if (std::optional<HaloPlan> plan = PlanFetch(n * ci, n, co, lo)) {
    plan->mask = false;
    return ExchangeHalo(b_, x, target, dim, *plan, b_.Zero(x->shape().dtype()));
  }
  std::vector<int64_t> first(n);
  int64_t hops = WindowHops(n, ci, co, lo), left = 0, right = 0;
  if (hops >= n) return std::nullopt;
  for (int64_t t = 0; t < n; ++t) {
    first[t] = std::clamp<int64_t>(FloorDiv(lo[t], ci), 0, n - 1);
    // The buffer must hold every window whole (a dynamic-slice would otherwise clamp its start
    // and shift the data): parts before the first or past the last tile are padded.
    left = std::max(left, first[t] * ci - lo[t]);
    right = std::max(right, lo[t] + co - (first[t] + hops) * ci);
  }
  int64_t num = b_.num_devices();
  const TileAssignment& ta = target.tile_assignment();
  std::vector<Instruction*> pieces;
  for (int64_t k = 0; k < hops; ++k) {
    // Rounds keep sources (and targets) unique within one collective-permute.
    std::vector<std::vector<std::pair<int64_t, int64_t>>> rounds;
    std::vector<int64_t> round_of(num, -1);  // -1: the local tile
    for (int64_t dev = 0; dev < num; ++dev) {
      std::vector<int64_t> c = *ta.IndexOf(dev);
      c[dim] = std::min(first[c[dim]] + k, n - 1);
      int64_t src = ta(c);
      if (src == dev) continue;
      size_t r = 0;
      for (; r < rounds.size(); ++r) {
        bool clash = std::any_of(rounds[r].begin(), rounds[r].end(), [&](auto& p) { return p.first == src; });
        if (!clash) break;
      }
      if (r == rounds.size()) rounds.emplace_back();
      rounds[r].emplace_back(src, dev);
      round_of[dev] = static_cast<int64_t>(r);
    }
    Instruction* piece = x;
    if (!rounds.empty()) {
      Instruction* which = b_.TableLookup(round_of);
      Shape pred(DType::kPred, x->shape().dims());
      for (size_t r = 0; r < rounds.size(); ++r) {
        Instruction* got = b_.CollectivePermute(x, rounds[r]);
        Instruction* mine = b_.Compare(which, b_.ScalarS32(static_cast<int64_t>(r)), "EQ");
        piece = b_.Select(b_.BroadcastScalar(mine, pred), got, piece);
      }
    }
    pieces.push_back(piece);
  }
  Instruction* buffer = b_.Concatenate(pieces, dim);
  if (left > 0 || right > 0) {
    std::vector<PaddingDim> pad(buffer->shape().rank());
    pad[dim].low = left;
    pad[dim].high = right;
    buffer = b_.Pad(buffer, b_.Zero(buffer->shape().dtype()), pad);
  }
  std::vector<int64_t> offset(num, 0);
  for (int64_t dev = 0; dev < num; ++dev) {
    int64_t t = ta.IndexOf(dev)->at(dim);
    offset[dev] = lo[t] - first[t] * ci + left;
  }
  std::vector<Instruction*> starts;
  for (int64_t d = 0; d < buffer->shape().rank(); ++d)
    starts.push_back(d == dim ? b_.TableLookup(offset) : b_.ScalarS32(0));
  std::vector<int64_t> sizes = buffer->shape().dims();
  sizes[dim] = co;
  return b_.DynamicSlice(buffer, starts, sizes);
}

// A slice along one tiled dim d (the other sliced dims untiled), or an edge pad (no interior
// padding) along one: a windowed fetch from the neighbours instead of a gather of d.
StatusOr<bool> ComputationPartitioner::WindowedSlice(const Instruction* instr, const Sharding& target,
                                                     const std::vector<int64_t>& moved) {
  bool is_pad = instr->opcode() == Opcode::kPad;
  const SliceSpec* spec = instr->attr<SliceSpec>(AttrId::kSlice);
  const PaddingConfig* padding = instr->attr<PaddingConfig>(AttrId::kPadding);
  if ((is_pad ? !padding : !spec) || !IsPlainTiled(target)) return false;
  // Mixed precision (the verifier accepts a result type other than the operand's, as XLA's does
  // with allow_mixed_precision): the local ops below take their operand's type; the general path
  // keeps the declared one.
  if (instr->shape().dtype() != instr->operand(0)->shape().dtype()) return false;
  int64_t dim = -1;
  for (int64_t d : moved) {
    if (target.NumTilesOnDim(d) == 1) continue;
    if (dim >= 0) return false;
    if (is_pad && padding->dims[d].interior != 0) return false;
    dim = d;
  }
  if (dim < 0) return false;
  const Shape& in = instr->operand(0)->shape();
  const Shape& out = instr->shape();
  int64_t n = target.NumTilesOnDim(dim), size = in.dim(dim);
  int64_t ci = (size + n - 1) / n, co = (out.dim(dim) + n - 1) / n;
  int64_t start = is_pad ? -padding->dims[dim].low : spec->starts[dim];
  // A strided slice (XLA: a window with a stride) fetches the span its co outputs stride over
  // and takes every stride-th element locally: often the tile's own elements only.
  const int64_t stride = is_pad ? 1 : spec->strides[dim];
  const int64_t span = (co - 1) * stride + 1;
  std::vector<int64_t> lo(n);
  for (int64_t t = 0; t < n; ++t) lo[t] = start + t * co * stride;
  if (WindowHops(n, ci, span, lo) >= n) return false;  // as much as a gather
  PValue v = Operand(instr, 0, target);
  // The other (untiled) moved dims are sliced / padded locally first; dim d stays whole.
  Instruction* x = nullptr;
  Instruction* pad_value = nullptr;
  if (is_pad) {
    pad_value = r_.Reshard(Get(instr->operand(1)), Sharding::Replicate(), instr->name()).hlo;
    std::vector<PaddingDim> local(in.rank());
    for (int64_t d = 0; d < in.rank(); ++d)
      if (d != dim && std::find(moved.begin(), moved.end(), d) != moved.end()) local[d] = padding->dims[d];
    x = b_.Pad(v.hlo, pad_value, local);
  } else {
    SliceSpec local = *spec;
    for (int64_t d = 0; d < in.rank(); ++d) {
      if (d == dim || std::find(moved.begin(), moved.end(), d) == moved.end()) {
        local.starts[d] = 0;
        local.limits[d] = v.hlo->shape().dim(d);
        local.strides[d] = 1;
      }
    }
    Attributes attrs;
    attrs.Set(AttrId::kSlice, local);
    x = b_.Add(Opcode::kSlice, {v.hlo}, std::move(attrs));
  }
  std::optional<Instruction*> y = FetchWindow(x, target, dim, ci, span, lo);
  if (!y) return false;
  Instruction* result = *y;
  if (stride > 1) {
    SliceSpec every;
    every.starts.assign(in.rank(), 0);
    every.limits = result->shape().dims();
    every.strides.assign(in.rank(), 1);
    every.strides[dim] = stride;
    Attributes attrs;
    attrs.Set(AttrId::kSlice, every);
    result = b_.Add(Opcode::kSlice, {result}, std::move(attrs));
  }
  if (is_pad) {
    // Window positions outside the input [0, size) are padding.
    std::vector<int64_t> table(b_.num_devices());
    for (int64_t dev = 0; dev < b_.num_devices(); ++dev) table[dev] = lo[target.TileCoordForDevice(dev, dim)];
    Shape s32(DType::kS32, result->shape().dims());
    Instruction* index =
        b_.Binary(Opcode::kAdd, b_.Iota(s32, dim), b_.BroadcastScalar(b_.TableLookup(table), s32));
    Instruction* ge = b_.Compare(index, b_.BroadcastScalar(b_.ScalarS32(0), s32), "GE");
    Instruction* lt = b_.Compare(index, b_.BroadcastScalar(b_.ScalarS32(size), s32), "LT");
    Instruction* inside = b_.Binary(Opcode::kAnd, ge, lt);
    result = b_.Select(inside, result, b_.BroadcastScalar(pad_value, result->shape()));
  }
  Set(instr, PValue{result, target, out});
  return true;
}

// A concatenate of stride-1 slices of one value x along a dim where each piece starts where the
// previous one ended, wrapping from the end of x to its start: a rotation (jnp.roll) or a
// wrap-around pad (XLA's PreprocessHlos rewrites both into SPMDInternalOp_RotateRight plus
// selects). result[i] = x[(start + i) mod N]: each device fetches its result tile's range of the
// periodically repeated x from the devices holding x's tiles (one or two collective-permutes of a
// tile), instead of fetching every slice and operand window. x's dim tiled evenly, the result
// tiled on it with the same tiling as x elsewhere.
StatusOr<bool> ComputationPartitioner::WrappedConcat(const Instruction* instr, const Sharding& target) {
  int64_t dim = instr->dimensions()[0];
  if (!target.IsTiled() || !IsPlainTiled(target) || target.NumTilesOnDim(dim) == 1) return false;
  const Instruction* x = nullptr;
  int64_t first = 0, pos = 0;
  for (int64_t i = 0; i < instr->operand_count(); ++i) {
    const Instruction* op = instr->operand(i);
    const Instruction* base = op;
    int64_t lo = 0, hi = op->shape().dim(dim);
    if (op->opcode() == Opcode::kSlice) {
      const SliceSpec* spec = op->attr<SliceSpec>(AttrId::kSlice);
      for (int64_t d = 0; d < op->shape().rank(); ++d) {
        bool whole = spec->starts[d] == 0 && spec->strides[d] == 1 && spec->limits[d] == op->operand(0)->shape().dim(d);
        if (d != dim && !whole) return false;
      }
      if (spec->strides[dim] != 1) return false;
      base = op->operand(0);
      lo = spec->starts[dim];
      hi = spec->limits[dim];
    }
    if (i == 0) {
      x = base;
      first = pos = lo;
    } else if (base != x || lo != pos) {
      return false;
    }
    pos = hi == x->shape().dim(dim) ? 0 : hi;
    if (lo >= hi) return false;
  }
  if (!x || instr->operand_count() < 2) return false;
  const PValue& v = Get(x);
  const Sharding& xs = v.sharding;
  int64_t size = x->shape().dim(dim), rank = x->shape().rank();
  if (xs.IsTuple() || !xs.IsTiled() || !IsPlainTiled(xs) || xs.TiledDataRank() != rank) return false;
  int64_t ns = xs.NumTilesOnDim(dim);
  if (ns == 1 || size % ns != 0) return false;
  int64_t n = b_.num_devices();
  for (int64_t dev = 0; dev < n; ++dev) {
    std::vector<int64_t> have = xs.TileIndexForDevice(dev), want = target.TileIndexForDevice(dev);
    for (int64_t d = 0; d < rank; ++d)
      if (d != dim && have[d] != want[d]) return false;
  }
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim && xs.NumTilesOnDim(d) != target.NumTilesOnDim(d)) return false;
  int64_t cs = size / ns, nt = target.NumTilesOnDim(dim), total = instr->shape().dim(dim);
  int64_t ct = (total + nt - 1) / nt;
  std::map<std::vector<int64_t>, std::vector<int64_t>> holders;
  for (int64_t dev = 0; dev < n; ++dev) holders[xs.TileIndexForDevice(dev)].push_back(dev);
  std::map<std::vector<int64_t>, int64_t> next;
  // Piece p of the repeated x is x's tile p mod ns.
  auto holder = [&](int64_t dev, int64_t p) -> int64_t {
    std::vector<int64_t> tile = xs.TileIndexForDevice(dev);
    if (tile[dim] == p % ns) return dev;
    tile[dim] = p % ns;
    const std::vector<int64_t>& hs = holders.at(tile);
    return hs[next[tile]++ % hs.size()];
  };
  std::vector<int64_t> start(n);
  for (int64_t dev = 0; dev < n; ++dev) start[dev] = first + target.TileCoordForDevice(dev, dim) * ct;
  int64_t pieces = ns * ((first + nt * ct + size - 1) / size + 1);
  Instruction* range = r_.FetchRange(v.hlo, dim, cs, pieces, holder, start, ct);
  Set(instr, PValue{range, target, instr->shape()});
  return true;
}

// Concatenate along a tiled dim: each operand (tiled like the result) is fetched as a window
// over the result tile's range and selected where it lies inside the operand's part.
StatusOr<bool> ComputationPartitioner::WindowedConcat(const Instruction* instr, const Sharding& target) {
  int64_t dim = instr->dimensions()[0];
  if (!IsPlainTiled(target) || target.NumTilesOnDim(dim) == 1) return false;
  const Shape& out = instr->shape();
  int64_t n = target.NumTilesOnDim(dim), co = (out.dim(dim) + n - 1) / n;
  std::vector<std::vector<int64_t>> los;
  int64_t offset = 0;
  for (const Instruction* op : instr->operands()) {
    int64_t size = op->shape().dim(dim), ci = (size + n - 1) / n;
    if (size == 0) return false;
    std::vector<int64_t> lo(n), fetch(n);
    for (int64_t t = 0; t < n; ++t) lo[t] = t * co - offset;
    // Windows wholly outside the operand are masked anyway: fetch them from near its edge.
    for (int64_t t = 0; t < n; ++t) fetch[t] = std::clamp<int64_t>(lo[t], -co, size);
    if (WindowHops(n, ci, co, fetch) >= n) return false;
    los.push_back(lo);
    offset += size;
  }
  Shape shard = target.ShardShape(out);
  Instruction* result = nullptr;
  Shape s32(DType::kS32, shard.dims());
  Instruction* iota = b_.Iota(s32, dim);
  offset = 0;
  for (int64_t k = 0; k < instr->operand_count(); ++k) {
    const Instruction* op = instr->operand(k);
    int64_t size = op->shape().dim(dim), ci = (size + n - 1) / n;
    std::vector<int64_t> fetch(n);
    for (int64_t t = 0; t < n; ++t) fetch[t] = std::clamp<int64_t>(los[k][t], -co, size);
    PValue v = Operand(instr, k, target);
    std::optional<Instruction*> w = FetchWindow(v.hlo, target, dim, ci, co, fetch);
    if (!w) return Internal("%{}: concatenate window fetch failed", instr->name());
    if (!result) {
      result = *w;
      offset += size;
      continue;
    }
    // Result positions at or past this operand's start take it (later operands override).
    std::vector<int64_t> table(b_.num_devices());
    for (int64_t dev = 0; dev < b_.num_devices(); ++dev) table[dev] = target.TileCoordForDevice(dev, dim) * co;
    Instruction* index = b_.Binary(Opcode::kAdd, iota, b_.BroadcastScalar(b_.TableLookup(table), s32));
    Instruction* here = b_.Compare(index, b_.BroadcastScalar(b_.ScalarS32(offset), s32), "GE");
    result = b_.Select(here, *w, result);
    offset += size;
  }
  Set(instr, PValue{result, target, out});
  return true;
}

// Pad with interior padding along tiled dims: on such a dim the pad is a base-dilated window of
// size 1 (padding low/high), so each tile fetches the input elements its output range covers from
// its neighbours (halo exchange; positions outside the input hold the pad value), pads them
// locally with the interior padding only and cuts its output tile. Dims without interior padding
// go through this too when some dim has it; untiled dims are padded locally as given.
StatusOr<bool> ComputationPartitioner::InteriorPad(const Instruction* instr, const Sharding& target) {
  const PaddingConfig* padding = instr->attr<PaddingConfig>(AttrId::kPadding);
  if (!padding || !IsPlainTiled(target)) return false;
  const Shape& in = instr->operand(0)->shape();
  bool interior = false;
  std::vector<std::pair<int64_t, HaloPlan>> halos;
  for (int64_t d = 0; d < in.rank(); ++d) {
    const PaddingDim& p = padding->dims[d];
    if (target.NumTilesOnDim(d) == 1 || (p.low == 0 && p.high == 0 && p.interior == 0)) continue;
    interior |= p.interior > 0;
    WindowDim w;
    w.padding_low = p.low;
    w.padding_high = p.high;
    w.base_dilation = p.interior + 1;
    std::optional<HaloPlan> plan = PlanHalo(in.dim(d), target.NumTilesOnDim(d), w);
    if (!plan || plan->out != instr->shape().dim(d)) return false;
    halos.emplace_back(d, *plan);
  }
  if (!interior) return false;
  Instruction* pad_value = r_.Reshard(Get(instr->operand(1)), Sharding::Replicate(), instr->name()).hlo;
  Instruction* x = Operand(instr, 0, target).hlo;
  std::vector<PaddingDim> local = padding->dims;
  for (const auto& [d, plan] : halos) {
    x = ExchangeHalo(b_, x, target, d, plan, pad_value);
    local[d] = PaddingDim{0, 0, plan.local.base_dilation - 1};
  }
  x = b_.Pad(x, pad_value, local);
  for (const auto& [d, plan] : halos) x = SliceOutputTile(b_, x, target, d, plan);
  if (x->shape().dims() != target.ShardShape(instr->shape()).dims())
    return Internal("%{}: interior pad local shape {} is not the tile's", instr->name(), x->shape().ToString());
  Set(instr, PValue{x, target, instr->shape()});
  return true;
}

// Reverse along tiled dims (GSPMD HandleReverse): tile t takes the tile mirrored on every
// reversed tiled dim (one collective-permute) and reverses it locally. With uneven tiles the
// mirrored tiles' padding ends up in front: the buffer of reversed tiles then holds the result
// shifted by the padding, which a window fetch from the right neighbour (halo exchange) undoes.
StatusOr<bool> ComputationPartitioner::TiledReverse(const Instruction* instr, const Sharding& target) {
  if (!IsPlainTiled(target)) return false;
  const Shape& shape = instr->shape();
  std::vector<int64_t> tiled;
  for (int64_t d : instr->dimensions())
    if (target.NumTilesOnDim(d) > 1) tiled.push_back(d);
  if (tiled.empty()) return false;
  auto shift = [&](int64_t d) {  // the windows that undo uneven tiles' padding on d
    int64_t n = target.NumTilesOnDim(d), c = (shape.dim(d) + n - 1) / n, pad = n * c - shape.dim(d);
    std::vector<int64_t> lo(n);
    for (int64_t t = 0; t < n; ++t) lo[t] = t * c + pad;
    return lo;
  };
  for (int64_t d : tiled) {
    int64_t n = target.NumTilesOnDim(d), c = (shape.dim(d) + n - 1) / n;
    if (n * c != shape.dim(d) && !PlanFetch(n * c, n, c, shift(d)) && WindowHops(n, c, c, shift(d)) >= n)
      return false;
  }
  PValue v = Operand(instr, 0, target);
  const TileAssignment& ta = target.tile_assignment();
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for (int64_t dev = 0; dev < b_.num_devices(); ++dev) {
    std::vector<int64_t> c = *ta.IndexOf(dev);
    for (int64_t d : tiled) c[d] = ta.dim(d) - 1 - c[d];
    // Middle tiles (odd counts) keep their own: a device that is no target would receive zeros.
    pairs.emplace_back(ta(c), dev);
  }
  Instruction* x = b_.CollectivePermute(v.hlo, pairs);
  Attributes attrs;
  attrs.Set(AttrId::kDimensions, instr->dimensions());
  x = b_.Add(Opcode::kReverse, {x}, std::move(attrs));
  for (int64_t d : tiled) {
    int64_t n = target.NumTilesOnDim(d), c = (shape.dim(d) + n - 1) / n;
    if (n * c == shape.dim(d)) continue;
    std::optional<Instruction*> w = FetchWindow(x, target, d, c, c, shift(d));
    if (!w) return Internal("%{}: reverse window fetch failed", instr->name());
    x = *w;
  }
  Set(instr, PValue{x, target, shape});
  return true;
}

Status ComputationPartitioner::Slicing(const Instruction* instr) {
  // Local when every dim the op rearranges is untiled in the result.
  Sharding target = TargetOf(instr);
  if (instr->opcode() == Opcode::kSlice && topk_k_.contains(instr->operand(0))) {
    // The first k of a top-k sort: cut from its candidates (whole on the sort dim).
    const PValue& c = Get(instr->operand(0));
    std::vector<int64_t> starts(instr->shape().rank(), 0), limits = c.sharding.ShardShape(instr->shape()).dims();
    Set(instr, r_.Reshard(PValue{b_.Slice(c.hlo, starts, limits), c.sharding, instr->shape()}, target,
                          instr->name()));
    return absl::OkStatus();
  }
  if (instr->opcode() == Opcode::kSort) {
    ASSIGN_OR_RETURN(bool topk, TopKSort(instr, target));
    if (topk) return absl::OkStatus();
  }
  if (instr->opcode() == Opcode::kSort) {
    // All operands alike: their (common) sharding, the sort dim's tiles moved onto a free dim.
    int64_t dim = instr->dimensions().empty() ? 0 : instr->dimensions()[0];
    const Shape& shape0 = instr->operand(0)->shape();
    std::optional<Sharding> leaf;
    if (target.IsTuple()) {
      const Sharding& l = target.tuple_elements()[0];
      if (std::all_of(target.tuple_elements().begin(), target.tuple_elements().end(),
                      [&](const Sharding& s) { return s == l; }))
        leaf = l;
    } else {
      leaf = target;
    }
    std::optional<Sharding> local = leaf ? SortLocalSharding(*leaf, shape0, dim) : std::nullopt;
    if (local) {
      std::vector<Instruction*> ops;
      std::vector<Shape> shapes;
      for (int64_t i = 0; i < instr->operand_count(); ++i) {
        ops.push_back(Operand(instr, i, *local).hlo);
        shapes.push_back(ops.back()->shape());
      }
      Shape shape = target.IsTuple() ? Shape::Tuple(shapes) : shapes[0];
      Instruction* c = CloneWith(instr, ops, shape);
      std::vector<Sharding> params(instr->to_apply()->num_parameters(), Sharding::Replicate());
      ASSIGN_OR_RETURN(Computation* cmp, p_->PartitionCalled(*instr->to_apply(), params, Sharding::Replicate()));
      c->ReplaceCalledComputation(instr->to_apply(), cmp);
      Sharding s = target.IsTuple() ? Sharding::Tuple(std::vector<Sharding>(instr->operand_count(), *local)) : *local;
      Set(instr, r_.Reshard(PValue{c, s, instr->shape()}, target, instr->name()));
      return absl::OkStatus();
    }
  }
  if (target.IsTuple() && instr->opcode() == Opcode::kSort) {
    const Sharding& leaf = target.tuple_elements()[0];
    bool same = std::all_of(target.tuple_elements().begin(), target.tuple_elements().end(),
                            [&](const Sharding& s) { return s == leaf; });
    if (!same) return Default(instr);
    int64_t dim = instr->dimensions().empty() ? 0 : instr->dimensions()[0];
    if (!leaf.IsTiled() || !IsPlainTiled(leaf)) return Default(instr);
    // The sort dim is gathered (only it); the other dims stay tiled.
    const int64_t sort_dims[] = {dim};
    Sharding local = leaf.NumTilesOnDim(dim) > 1 ? PartiallyReplicateTiledShardingOnDims(leaf, sort_dims) : leaf;
    std::vector<Instruction*> ops;
    std::vector<Shape> shapes;
    for (int64_t i = 0; i < instr->operand_count(); ++i) {
      ops.push_back(Operand(instr, i, local).hlo);
      shapes.push_back(ops.back()->shape());
    }
    Instruction* c = CloneWith(instr, ops, Shape::Tuple(shapes));
    std::vector<Sharding> params(instr->to_apply()->num_parameters(), Sharding::Replicate());
    ASSIGN_OR_RETURN(Computation* cmp, p_->PartitionCalled(*instr->to_apply(), params, Sharding::Replicate()));
    c->ReplaceCalledComputation(instr->to_apply(), cmp);
    Sharding local_tuple = Sharding::Tuple(std::vector<Sharding>(instr->operand_count(), local));
    Set(instr, r_.Reshard(PValue{c, local_tuple, instr->shape()}, target, instr->name()));
    return absl::OkStatus();
  }
  if (!target.IsTiled()) return Default(instr);
  const Shape& out = instr->shape();
  std::vector<int64_t> moved;
  switch (instr->opcode()) {
    case Opcode::kSlice: case Opcode::kPad:
      for (int64_t d = 0; d < out.rank(); ++d)
        if (out.dim(d) != instr->operand(0)->shape().dim(d)) moved.push_back(d);
      if (const SliceSpec* s = instr->attr<SliceSpec>(AttrId::kSlice))
        for (int64_t d = 0; d < out.rank(); ++d)
          if (s->strides[d] != 1 || s->starts[d] != 0) moved.push_back(d);
      if (const PaddingConfig* p = instr->attr<PaddingConfig>(AttrId::kPadding))
        for (int64_t d = 0; d < out.rank(); ++d)
          if (p->dims[d].low != 0 || p->dims[d].interior != 0 || p->dims[d].high != 0) moved.push_back(d);
      break;
    case Opcode::kConcatenate: case Opcode::kReverse: case Opcode::kSort:
      moved = instr->dimensions();
      break;
    default:
      break;
  }
  if (instr->opcode() == Opcode::kPad) {
    ASSIGN_OR_RETURN(bool done, InteriorPad(instr, target));
    if (done) return absl::OkStatus();
  }
  if (instr->opcode() == Opcode::kReverse) {
    // A target coarser than the operand's tiling (e.g. partially replicated): reverse the finer
    // tiles (the mirror permute moves the smaller shards), then gather to the target.
    const PValue& x = Get(instr->operand(0));
    bool coarser = !x.sharding.IsTuple() && IsPlainTiled(x.sharding) && !(x.sharding == target) &&
                   x.sharding.TiledDataRank() == out.rank() && x.sharding.NumTiles() > target.NumTiles();
    for (int64_t d = 0; coarser && d < out.rank(); ++d)
      coarser = x.sharding.NumTilesOnDim(d) % target.NumTilesOnDim(d) == 0;
    if (coarser) {
      ASSIGN_OR_RETURN(bool done, TiledReverse(instr, x.sharding));
      if (done) {
        Set(instr, r_.Reshard(Get(instr), target, instr->name()));
        return absl::OkStatus();
      }
    }
    ASSIGN_OR_RETURN(bool done, TiledReverse(instr, target));
    if (done) return absl::OkStatus();
  }
  if (instr->opcode() == Opcode::kConcatenate) {
    ASSIGN_OR_RETURN(bool wrapped, WrappedConcat(instr, target));
    if (wrapped) return absl::OkStatus();
    ASSIGN_OR_RETURN(bool done, WindowedConcat(instr, target));
    if (done) return absl::OkStatus();
  }
  if (instr->opcode() == Opcode::kSlice || instr->opcode() == Opcode::kPad) {
    std::sort(moved.begin(), moved.end());
    moved.erase(std::unique(moved.begin(), moved.end()), moved.end());
    ASSIGN_OR_RETURN(bool done, WindowedSlice(instr, target, moved));
    if (done) return absl::OkStatus();
  }
  // Rearranged dims tiled in the result are gathered (only they; the other dims stay tiled), the
  // op runs locally, and the result is sliced to the target afterwards (a local dynamic-slice).
  std::sort(moved.begin(), moved.end());
  moved.erase(std::unique(moved.begin(), moved.end()), moved.end());
  const Sharding final_target = target;
  bool tiled_moved = false;
  for (int64_t d : moved) tiled_moved |= target.NumTilesOnDim(d) > 1;
  if (tiled_moved) {
    if (!IsPlainTiled(target)) return Default(instr);
    target = PartiallyReplicateTiledShardingOnDims(target, moved);
  }
  std::vector<Instruction*> ops;
  for (int64_t i = 0; i < instr->operand_count(); ++i) {
    const Instruction* op = instr->operand(i);
    if (op->shape().rank() == 0) ops.push_back(r_.Reshard(Get(op), Sharding::Replicate(), instr->name()).hlo);
    else ops.push_back(Operand(instr, i, target).hlo);
  }
  Instruction* c = nullptr;
  if (instr->opcode() == Opcode::kSlice) {
    // Dims kept whole (start 0, stride 1, full limit) are sliced whole in their shard too. The
    // declared element type (a mixed-precision slice's is not its operand's).
    const SliceSpec* spec = instr->attr<SliceSpec>(AttrId::kSlice);
    SliceSpec local = *spec;
    for (int64_t d = 0; d < out.rank(); ++d)
      if (std::find(moved.begin(), moved.end(), d) == moved.end()) local.limits[d] = ops[0]->shape().dim(d);
    Attributes attrs;
    attrs.Set(AttrId::kSlice, local);
    c = b_.Add(Opcode::kSlice, {ops[0]}, std::move(attrs), nullptr, instr->name());
    c->mutable_shape()->set_dtype(out.dtype());
  } else {
    c = CloneWith(instr, ops, target.ShardShape(out));
  }
  if (instr->opcode() == Opcode::kSort) {
    std::vector<Sharding> params(instr->to_apply()->num_parameters(), Sharding::Replicate());
    ASSIGN_OR_RETURN(Computation* cmp, p_->PartitionCalled(*instr->to_apply(), params, Sharding::Replicate()));
    c->ReplaceCalledComputation(instr->to_apply(), cmp);
  }
  Set(instr, r_.Reshard(PValue{c, target, instr->shape()}, final_target, instr->name()));
  return absl::OkStatus();
}

}  // namespace partitioner_internal
}  // namespace spmdc

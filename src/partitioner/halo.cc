#include "partitioner/halo.h"

#include <algorithm>

namespace spmdc {
namespace {

// Tile t reads base elements [lo, hi): widens the halos to cover what of it lies in the base
// and notes whether the rest must be masked.
void Cover(HaloPlan& p, int64_t t, int64_t lo, int64_t hi) {
  p.mask |= lo < 0 || hi > p.base;
  lo = std::max<int64_t>(lo, 0);
  hi = std::min(hi, p.base);
  if (lo >= hi) return;
  p.left = std::max(p.left, t * p.ci - lo);
  p.right = std::max(p.right, hi - (t + 1) * p.ci);
}

// Halos as large as the rest of the dim: a gather is no worse.
std::optional<HaloPlan> IfCheaperThanGather(HaloPlan p) {
  if (p.left + p.right >= (p.n - 1) * p.ci) return std::nullopt;
  return p;
}

int64_t FloorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// Base dilation bd, stride 1: output tile t reads dilated positions from D = t*co - low on; it
// fetches the real elements from floor(D/bd) on, runs the local op with the dilation and no
// padding, and its own outputs start D mod bd into the local result.
std::optional<HaloPlan> PlanDilated(int64_t base, int64_t n, const WindowDim& w) {
  if (w.stride != 1 || w.base_dilation < 2 || n < 2 || base < 1) return std::nullopt;
  const int64_t bd = w.base_dilation;
  int64_t span = (w.size - 1) * w.window_dilation + 1;
  int64_t padded = (base - 1) * bd + 1 + w.padding_low + w.padding_high;
  if (padded < span) return std::nullopt;
  HaloPlan p;
  p.n = n;
  p.base = base;
  p.ci = (base + n - 1) / n;
  p.out = padded - span + 1;
  p.co = (p.out + n - 1) / n;
  std::vector<int64_t> first(n), offset(n, 0);
  int64_t count = 1;
  for (int64_t t = 0; t < n; ++t) {
    if (t * p.co >= p.out) {
      first[t] = t * p.ci;  // outputs all padding: any data will do
      continue;
    }
    int64_t d = t * p.co - w.padding_low;
    first[t] = FloorDiv(d, bd);
    offset[t] = d - first[t] * bd;
    // Dilated positions first*bd .. first*bd + offset + co - 1 + span - 1 must be local.
    count = std::max(count, (offset[t] + p.co + span - 3) / bd + 2);
  }
  std::optional<HaloPlan> fetch = PlanFetch(base, n, count, first);
  if (!fetch) return std::nullopt;
  fetch->out = p.out;
  fetch->co = p.co;
  fetch->local = w;
  fetch->local.padding_low = fetch->local.padding_high = 0;
  fetch->out_offset = std::move(offset);
  return fetch;
}

}  // namespace

std::optional<HaloPlan> PlanHalo(int64_t base, int64_t n, const WindowDim& w) {
  if (w.base_dilation != 1) return PlanDilated(base, n, w);
  if (n < 2 || base < 1 || w.stride < 1) return std::nullopt;
  HaloPlan p;
  p.local = LocalWindowDim(w);
  p.n = n;
  p.base = base;
  p.ci = (base + n - 1) / n;
  int64_t span = (w.size - 1) * w.window_dilation + 1;
  int64_t padded = base + w.padding_low + w.padding_high;
  if (padded < span) return std::nullopt;
  p.out = (padded - span) / w.stride + 1;
  p.co = (p.out + n - 1) / n;
  p.length = (p.co - 1) * w.stride + span;
  p.start.resize(n);
  p.useful.resize(n);
  for (int64_t t = 0; t < n; ++t) {
    p.start[t] = t * p.co * w.stride - w.padding_low;
    int64_t valid = std::clamp<int64_t>(p.out - t * p.co, 0, p.co);
    p.useful[t] = valid > 0;
    if (!p.useful[t]) continue;
    // Outputs past `valid` are padding of the output tile: their windows need no real data.
    Cover(p, t, p.start[t], p.start[t] + (valid - 1) * w.stride + span);
  }
  return IfCheaperThanGather(std::move(p));
}

std::optional<HaloPlan> PlanFetch(int64_t base, int64_t n, int64_t length, std::vector<int64_t> start,
                                  const std::vector<int64_t>& needed) {
  if (n < 2 || base < 1 || length < 1) return std::nullopt;
  HaloPlan p;
  p.n = n;
  p.base = base;
  p.ci = (base + n - 1) / n;
  p.length = length;
  p.start = std::move(start);
  p.useful.assign(n, true);
  for (int64_t t = 0; t < n; ++t) Cover(p, t, p.start[t], p.start[t] + (needed.empty() ? length : needed[t]));
  return IfCheaperThanGather(std::move(p));
}

std::optional<HaloPlan> PlanWindowTiles(int64_t base, int64_t n, const WindowDim& w) {
  if (n < 2 || base < 1 || w.size % n != 0 || w.stride < 1 || w.window_reversal) return std::nullopt;
  const int64_t s = w.stride, r = w.window_dilation, l = w.base_dilation, lo = w.padding_low;
  const int64_t padded = (base - 1) * l + 1 + lo + w.padding_high, span = (w.size - 1) * r + 1;
  if (padded < span) return std::nullopt;
  const int64_t out = (padded - span) / s + 1, size = w.size / n;
  // Tile t reads padded-dilated positions [t*size*r, +reach); those holding base elements are
  // element first(t) on, at a distance from the start that must not depend on t.
  const int64_t reach = (out - 1) * s + (size - 1) * r + 1;
  if ((size * r) % l != 0) return std::nullopt;
  auto first = [&](int64_t t) { return FloorDiv(t * size * r - lo + l - 1, l); };
  const int64_t count = FloorDiv(reach - 1 - lo, l) - first(0) + 1;
  if (count < 1) return std::nullopt;
  std::vector<int64_t> start(n);
  for (int64_t t = 0; t < n; ++t) start[t] = first(t);
  std::optional<HaloPlan> p = PlanFetch(base, n, count, std::move(start));
  if (!p) return std::nullopt;
  p->out = p->co = out;
  p->local = w;
  p->local.size = size;
  p->local.padding_low = lo + first(0) * l;
  p->local.padding_high = reach - p->local.padding_low - ((count - 1) * l + 1);
  return p;
}

WindowDim LocalWindowDim(const WindowDim& w) {
  WindowDim local = w;
  local.padding_low = local.padding_high = 0;
  return local;
}

namespace {

// `x`'s `count` edge elements on `dim` (the last ones when `from_end`) sent `hops` tiles along
// `dim` (towards higher tiles for positive `hops`). Devices without a sender receive zeros.
Instruction* ShiftEdge(SpmdBuilder& b, Instruction* x, const Sharding& s, int64_t dim, int64_t count, bool from_end,
                       int64_t hops) {
  int64_t ci = x->shape().dim(dim);
  std::vector<int64_t> starts(x->shape().rank(), 0), limits = x->shape().dims();
  starts[dim] = from_end ? ci - count : 0;
  limits[dim] = from_end ? ci : count;
  Instruction* edge = b.Slice(x, starts, limits);
  const TileAssignment& ta = s.tile_assignment();
  int64_t n = s.NumTilesOnDim(dim);
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for (int64_t dev = 0; dev < b.num_devices(); ++dev) {
    std::optional<std::vector<int64_t>> c = ta.IndexOf(dev);
    if (!c) continue;
    int64_t from = (*c)[dim] - hops;
    if (from < 0 || from >= n) continue;
    (*c)[dim] = from;
    pairs.emplace_back(ta(*c), dev);
  }
  return b.CollectivePermute(edge, pairs);
}

}  // namespace

Instruction* SliceOutputTile(SpmdBuilder& b, Instruction* y, const Sharding& sharding, int64_t dim,
                             const HaloPlan& plan) {
  if (plan.out_offset.empty()) return y;
  const TileAssignment& ta = sharding.tile_assignment();
  std::vector<int64_t> table(b.num_devices(), 0);
  for (int64_t dev = 0; dev < b.num_devices(); ++dev)
    if (std::optional<std::vector<int64_t>> c = ta.IndexOf(dev)) table[dev] = plan.out_offset[(*c)[dim]];
  std::vector<int64_t> sizes = y->shape().dims();
  sizes[dim] = plan.co;
  if (std::all_of(table.begin(), table.end(), [&](int64_t o) { return o == table[0]; })) {
    std::vector<int64_t> starts(sizes.size(), 0), limits = sizes;
    starts[dim] = table[0];
    limits[dim] = table[0] + plan.co;
    return b.Slice(y, starts, limits);
  }
  std::vector<Instruction*> starts;
  for (int64_t d = 0; d < y->shape().rank(); ++d) starts.push_back(d == dim ? b.TableLookup(table) : b.ScalarS32(0));
  return b.DynamicSlice(y, starts, sizes);
}

Instruction* ExchangeHalo(SpmdBuilder& b, Instruction* x, const Sharding& sharding, int64_t dim, const HaloPlan& p,
                          Instruction* pad_value) {
  const int64_t ci = p.ci;
  std::vector<Instruction*> pieces;
  // Left: tile t-h sends its last elements; the farthest hop sends only what is needed.
  int64_t left_hops = (p.left + ci - 1) / ci, right_hops = (p.right + ci - 1) / ci;
  for (int64_t h = left_hops; h >= 1; --h) {
    int64_t count = h == left_hops ? p.left - (h - 1) * ci : ci;
    pieces.push_back(ShiftEdge(b, x, sharding, dim, count, /*from_end=*/true, h));
  }
  pieces.push_back(x);
  for (int64_t h = 1; h <= right_hops; ++h) {
    int64_t count = h == right_hops ? p.right - (h - 1) * ci : ci;
    pieces.push_back(ShiftEdge(b, x, sharding, dim, count, /*from_end=*/false, -h));
  }
  Instruction* buffer = pieces.size() == 1 ? x : b.Concatenate(pieces, dim);
  // buffer holds global [t*ci - left, (t+1)*ci + right) on tile t. Each tile's window starts at
  // offset[t]; tiles whose outputs are all padding reuse the first tile's offset.
  std::vector<int64_t> offset(p.n);
  for (int64_t t = 0; t < p.n; ++t) offset[t] = p.useful[t] ? p.start[t] - (t * ci - p.left) : -1;
  for (int64_t t = 0; t < p.n; ++t)
    if (!p.useful[t]) offset[t] = offset[0];
  int64_t have = buffer->shape().dim(dim);
  int64_t pad_low = 0, pad_high = 0;
  for (int64_t t = 0; t < p.n; ++t) {
    pad_low = std::max(pad_low, -offset[t]);
    pad_high = std::max(pad_high, offset[t] + p.length - have);
  }
  if (pad_low > 0 || pad_high > 0) {
    // Such positions are outside [0, base) or feed only output padding.
    std::vector<PaddingDim> pad(buffer->shape().rank());
    pad[dim].low = pad_low;
    pad[dim].high = pad_high;
    buffer = b.Pad(buffer, pad_value, pad);
  }
  const TileAssignment& ta = sharding.tile_assignment();
  std::vector<int64_t> dev_offset(b.num_devices(), 0), dev_start(b.num_devices(), 0);
  for (int64_t dev = 0; dev < b.num_devices(); ++dev) {
    std::optional<std::vector<int64_t>> c = ta.IndexOf(dev);
    int64_t t = c ? (*c)[dim] : 0;
    dev_offset[dev] = offset[t] + pad_low;
    dev_start[dev] = p.useful[t] ? p.start[t] : p.start[0];
  }
  Instruction* window = nullptr;
  std::vector<int64_t> sizes = buffer->shape().dims();
  sizes[dim] = p.length;
  if (std::all_of(dev_offset.begin(), dev_offset.end(), [&](int64_t o) { return o == dev_offset[0]; })) {
    std::vector<int64_t> starts(sizes.size(), 0), limits = sizes;
    starts[dim] = dev_offset[0];
    limits[dim] = dev_offset[0] + p.length;
    window = b.Slice(buffer, starts, limits);
  } else {
    std::vector<Instruction*> starts;
    for (int64_t d = 0; d < buffer->shape().rank(); ++d)
      starts.push_back(d == dim ? b.TableLookup(dev_offset) : b.ScalarS32(0));
    window = b.DynamicSlice(buffer, starts, sizes);
  }
  if (!p.mask) return window;
  // Global position of every element; outside [0, base) it is padding. (Uneven tiles: the
  // padding of the last tile is past `base` too.)
  Shape s32(DType::kS32, window->shape().dims());
  Instruction* index = b.Binary(Opcode::kAdd, b.Iota(s32, dim), b.BroadcastScalar(b.TableLookup(dev_start), s32));
  Instruction* ge = b.Compare(index, b.BroadcastScalar(b.ScalarS32(0), s32), "GE");
  Instruction* lt = b.Compare(index, b.BroadcastScalar(b.ScalarS32(p.base), s32), "LT");
  return b.Select(b.Binary(Opcode::kAnd, ge, lt), window, b.BroadcastScalar(pad_value, window->shape()));
}

}  // namespace spmdc

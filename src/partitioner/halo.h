// Halo exchange for windowed ops along tiled dims (GSPMD.md §3.5): instead of gathering a tiled
// dim, every device receives from its neighbours (collective-permute) only the edge elements its
// windows reach past its own tile, lines up the windows of its output tile with a (dynamic-)slice
// and replaces what lies outside the base dim (edge padding, uneven-shard padding, data from a
// neighbour that does not exist) by the op's padding value. The local op then runs with no padding
// on that dim and yields exactly this device's output tile.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/attributes.h"
#include "partitioner/builder.h"
#include "sharding/sharding.h"

namespace spmdc {

// How one window dim of a base dim of `base` elements, tiled `n` ways (ceil-sized tiles), is
// computed tile by tile. Output tile t covers outputs [t*co, (t+1)*co) and needs the `length`
// base elements starting at start[t] (which may lie outside [0, base)).
struct HaloPlan {
  int64_t n = 1, base = 0, ci = 0;  // tiles, base size, input tile size
  int64_t out = 0, co = 0;          // output size and output tile size (PlanHalo only)
  int64_t length = 0;               // base elements per output tile's windows
  int64_t left = 0, right = 0;      // halo elements taken from the left / right neighbours
  std::vector<int64_t> start;       // per tile: global index of the first element needed
  std::vector<bool> useful;         // per tile: some output of the tile is inside [0, out)
  bool mask = false;                // some useful window reaches outside [0, base)
  WindowDim local;                  // the window dim of the local op on the fetched elements
  // Base-dilated windows: the local op yields more outputs than the tile, whose own start at
  // out_offset[t] (empty: the local op yields exactly the tile).
  std::vector<int64_t> out_offset;
};

// The plan for window dim `w` over a base dim of `base` elements in `n` tiles; nullopt when the
// window cannot be computed this way (base dilation with a stride, an empty output) or when the
// halos would move at least as much as gathering the dim. With base dilation (stride 1) the
// fetched elements are the real ones the windows touch and the local op keeps the dilation.
std::optional<HaloPlan> PlanHalo(int64_t base, int64_t n, const WindowDim& w);

// The plan that gives tile t the base elements [start[t], start[t] + length) (positions outside
// [0, base) replaced); nullopt when the halos would move as much as a gather. With `needed`, only
// the first needed[t] of them must hold data (the rest may be anything).
std::optional<HaloPlan> PlanFetch(int64_t base, int64_t n, int64_t length, std::vector<int64_t> start,
                                  const std::vector<int64_t>& needed = {});

// Per device, the `plan.length` elements of `x` (tiled on `dim` by `sharding`, shard shape) its
// output tile's windows read, with positions outside [0, base) set to `pad_value` (a scalar).
Instruction* ExchangeHalo(SpmdBuilder& b, Instruction* x, const Sharding& sharding, int64_t dim, const HaloPlan& plan,
                          Instruction* pad_value);

// A window dim whose window is tiled `n` ways like the base (a kernel-gradient convolution, whose
// window is the output cotangent and spans the activation): tile t applies the window elements
// [t*size/n, (t+1)*size/n) to every output, a partial sum of the whole output (plan.out long).
// The plan fetches the base elements those window positions reach; plan.local is the window
// dim of the local op on them (size/n, the stride and dilations kept, the padding each tile's
// first fetched element sits at). nullopt when the window does not split evenly, is reversed, or
// the tiles' reaches do not line up with the base dilation, or when the fetch would move as much
// as a gather.
std::optional<HaloPlan> PlanWindowTiles(int64_t base, int64_t n, const WindowDim& w);

// `w` as the local op uses it on the exchanged data: same size, stride and dilation, no padding.
WindowDim LocalWindowDim(const WindowDim& w);

// The local op's result `y` (tiled on `dim` by `sharding`) cut to this device's output tile when
// `plan` has output offsets; else `y` itself.
Instruction* SliceOutputTile(SpmdBuilder& b, Instruction* y, const Sharding& sharding, int64_t dim,
                             const HaloPlan& plan);

}  // namespace spmdc

// Partitioned values and the resharding toolbox (GSPMD.md §3.3): moving a per-device value from
// one sharding to another with the cheapest collectives we know: nothing (same sharding), a local
// dynamic-slice (the target refines the source), collective-permute (same tiles, other devices),
// all-gather within groups (the target coarsens the source), and only as a last resort full
// rematerialization (replicate, then slice), which is reported as a warning naming the
// instruction, both shardings and the bytes moved.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "partitioner/builder.h"
#include "sharding/sharding.h"
#include "support/status.h"

namespace spmdc {

// A value of the partitioned program: the per-device instruction (shard shape), its sharding and
// the shape of the whole (global) value. Shards of uneven dims are ceil-sized and padded on the
// high side; the padding holds unspecified data until masked (MaskPadding).
struct PValue {
  Instruction* hlo = nullptr;
  Sharding sharding;
  Shape base_shape;
};

// Rough per-device bytes moved by resharding a value of `shape` from `from` to `to` (for choosing
// between partitioning strategies; defined in partitioner.cc).
int64_t ReshardCost(const Shape& shape, const Sharding& from, const Sharding& to);

class Resharder {
 public:
  explicit Resharder(SpmdBuilder* b) : b_(b) {}

  // `v` with sharding `target`. `context` names the instruction for warnings.
  PValue Reshard(const PValue& v, const Sharding& target, const std::string& context = "");
  // Replicated everywhere (all-gathers of the tiled dims).
  PValue Replicate(const PValue& v, const std::string& context = "");
  // Replaces the high-side padding of uneven tiled dims (all of them, or `dims` only) by `value`.
  Instruction* MaskPadding(const PValue& v, Instruction* scalar_value,
                           const std::vector<int64_t>* dims = nullptr);
  // Per-dim offsets (s32 scalars) of this device's tile of `shape` under `sharding`.
  std::vector<Instruction*> TileOffsets(const Shape& shape, const Sharding& sharding);
  // Devices grouped by equal tile coordinates except along `dims` (tile dims), each group ordered
  // row-major by the coordinates along `dims`.
  // Per device, the `len` elements of dim `dim` starting at global position start[dev] (positions
  // past the end are unspecified) of a value whose dim is cut into `pieces` pieces of `piece`
  // elements, piece t being the local `x` of device holder(dev, t) (dev itself when it holds it):
  // the pieces a range spans are fetched by collective-permute, concatenated and sliced. Where
  // every range lies in one piece, each device receives just its range (FetchWithinPieces).
  Instruction* FetchRange(Instruction* x, int64_t dim, int64_t piece, int64_t pieces,
                          const std::function<int64_t(int64_t, int64_t)>& holder, const std::vector<int64_t>& start,
                          int64_t len);
  // FetchRange where every range lies in piece first[dev]: each device receives exactly its `len`
  // elements, cut by its holder at its offset in the piece (devices at one offset share a slice:
  // a collective-permute per offset and round), instead of the part of the piece that covers
  // every device's range. nullptr where a range leaves its piece, or there is nothing to cut.
  // `src` on every device, except that each device `dev` of a (from, dev) pair in `moves` gets
  // device `from`'s `src` (a pair with from == dev keeps its own): collective-permutes in rounds
  // (each source once per round, pairs in the order given) and a per-device select.
  Instruction* ReceiveFrom(Instruction* src, const std::vector<std::pair<int64_t, int64_t>>& moves);
  Instruction* FetchWithinPieces(Instruction* x, int64_t dim, int64_t piece, int64_t pieces,
                                 const std::function<int64_t(int64_t, int64_t)>& holder,
                                 const std::vector<int64_t>& start, int64_t len, const std::vector<int64_t>& first);
  // The first reshard that cannot be expressed (Unimplemented), if any.
  const Status& status() const { return status_; }
  static std::vector<std::vector<int64_t>> GroupsAlong(const Sharding& s, const std::vector<int64_t>& dims);

 private:
  PValue Gather(const PValue& v, const std::vector<int64_t>& dims);
  std::optional<PValue> PartialGather(const PValue& v, int64_t dim, int64_t f);
  PValue FromReplicated(const PValue& v, const Sharding& target);
  PValue FromMaximal(const PValue& v, int64_t device);
  std::optional<PValue> TryPermute(const PValue& v, const Sharding& target);
  std::optional<PValue> TryRefine(const PValue& v, const Sharding& target);
  // Refinement of one dim whose source and target chunks do not line up (uneven dims).
  std::optional<PValue> TryRefineWithHalo(const PValue& v, const Sharding& target);
  std::optional<PValue> TryAllToAll(const PValue& v, const Sharding& target);
  // Moves a factor f of dim `from`'s tiles onto dim `to` (tiles Tf, Tt -> Tf/f, Tt*f) with one
  // all-to-all among the f devices of each merged `from` block.
  // With `emit` false only the resulting sharding is computed (hlo null).
  std::optional<PValue> MoveTileFactor(const PValue& v, int64_t from, int64_t to, int64_t f, bool emit = true);
  // Chains of MoveTileFactor (then a permute) from `v`'s tile counts to `target`'s.
  std::optional<PValue> TryFactorAllToAll(const PValue& v, const Sharding& target);
  PValue ReshardLeaf(const PValue& v, const Sharding& target, const std::string& context);
  // Between manual subgroup shardings (or replicated -> manual subgroup) with the same groups.
  PValue ReshardManualSubgroup(const PValue& v, const Sharding& target, const std::string& context);
  std::optional<PValue> ReshardWithoutFullRemat(const PValue& v, const Sharding& target);
  // Reports a reshard that had to materialize the whole value on every device.
  void WarnFullRematerialization(const PValue& v, const Sharding& target, const std::string& context);

  SpmdBuilder* b_;
  Status status_;
  // Reshard cache: (source hlo, source and target sharding text) -> result.
  absl::flat_hash_map<std::pair<const Instruction*, std::string>, PValue> cache_;
};

// Tiled with at most a trailing replication dim (no manual or other subgroups): the shardings
// whose tiles the partitioner's plans can enumerate directly.
bool IsPlainTiled(const Sharding& s);
inline bool IsPlainTilingOrReplicated(const Sharding& s) { return s.IsReplicated() || IsPlainTiled(s); }
// Tiles of `s` along data dim `d`, and the tile coordinate of `device` there (1 and 0 when `s`
// is not tiled).
inline int64_t TilesOnDim(const Sharding& s, int64_t d) { return s.IsTiled() ? s.NumTilesOnDim(d) : 1; }
inline int64_t TileCoord(const Sharding& s, int64_t device, int64_t d) {
  return s.IsTiled() ? s.TileCoordForDevice(device, d) : 0;
}

// Devices grouped by the result tile they compute (`out(dev)`, with `tiles` tiles per result
// dim); inside a tile, the devices that hold different `red(dev)` coordinates hold partial results
// to combine, and every one of the `red_count` coordinates must be there, equally often. Gives the
// sharding of the combined result and the combining groups (empty: nothing to combine); nullopt
// when the devices do not form such a layout.
struct TileGrouping {
  Sharding sharding;
  std::vector<std::vector<int64_t>> groups;
};
std::optional<TileGrouping> GroupDevicesByTile(int64_t n, const std::vector<int64_t>& tiles,
                                               const std::function<std::vector<int64_t>(int64_t)>& out,
                                               const std::function<std::vector<int64_t>(int64_t)>& red,
                                               int64_t red_count);

}  // namespace spmdc

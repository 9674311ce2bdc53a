#include "runtime/host_sharding.h"

#include <cstring>
#include <functional>

namespace spmdc {

void CopyBox(const std::byte* src, const std::vector<int64_t>& src_dims,
             const std::vector<int64_t>& src_start, std::byte* dst,
             const std::vector<int64_t>& dst_dims, const std::vector<int64_t>& dst_start,
             const std::vector<int64_t>& extent, int64_t elem_bytes) {
  const int64_t rank = static_cast<int64_t>(extent.size());
  for (int64_t e : extent)
    if (e <= 0) return;
  // Merge trailing dims that are whole on both sides into one contiguous run.
  int64_t m = rank;  // dims [m, rank) form the run
  int64_t run = 1;
  while (m > 0) {
    run *= extent[m - 1];
    --m;
    if (extent[m] != src_dims[m] || extent[m] != dst_dims[m]) break;
  }
  const int64_t run_bytes = run * elem_bytes;
  const std::vector<int64_t> ss = RowMajorStrides(src_dims);
  const std::vector<int64_t> ds = RowMajorStrides(dst_dims);
  int64_t src_base = 0, dst_base = 0;
  for (int64_t i = 0; i < rank; ++i) {
    src_base += src_start[i] * ss[i];
    dst_base += dst_start[i] * ds[i];
  }
  if (m == 0) {
    std::memcpy(dst + dst_base * elem_bytes, src + src_base * elem_bytes, run_bytes);
    return;
  }
  std::vector<int64_t> idx(m, 0);
  for (;;) {
    int64_t so = src_base, dof = dst_base;
    for (int64_t i = 0; i < m; ++i) {
      so += idx[i] * ss[i];
      dof += idx[i] * ds[i];
    }
    std::memcpy(dst + dof * elem_bytes, src + so * elem_bytes, run_bytes);
    int64_t d = m - 1;
    for (; d >= 0; --d) {
      if (++idx[d] < extent[d]) break;
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

namespace {

Status CheckNotManual(const Sharding& s) {
  if (s.IsManual() || s.IsManualSubgroup())
    return Unimplemented(
        "manual sharding {} on a host value (only the partitioner's manual "
        "regions may be manual)",
        s.ToString(false));
  return absl::OkStatus();
}

StatusOr<Literal> ShardLeaf(const Literal& global, const Sharding& s, int64_t device) {
  if (!global.shape().IsArray()) return global;
  RETURN_IF_ERROR(CheckNotManual(s));
  if (s.IsMaximal()) return s.UniqueDevice() == device ? global : Literal(global.shape());
  if (!s.IsTiled()) return global;  // replicated or unknown
  const Shape& shape = global.shape();
  if (s.TiledDataRank() != shape.rank())
    return InvalidArgument("sharding {} has {} data dims for a value of shape {}",
                           s.ToString(false), s.TiledDataRank(), shape.ToString());
  Literal out(s.ShardShape(shape));
  if (!s.UsesDevice(device)) return out;  // a device outside the tile assignment holds nothing
  const std::vector<int64_t> lo = s.TileOffsetForDevice(shape, device);
  const std::vector<int64_t> hi = s.TileLimitForDevice(shape, device);
  std::vector<int64_t> extent(lo.size());
  for (size_t i = 0; i < lo.size(); ++i) extent[i] = hi[i] - lo[i];
  CopyBox(global.raw(), shape.dims(), lo, out.mutable_raw(), out.shape().dims(),
          std::vector<int64_t>(lo.size(), 0), extent, DTypeByteSize(shape.dtype()));
  return out;
}

StatusOr<Literal> AssembleLeaf(const std::vector<const Literal*>& shards, const Sharding& s,
                               const Shape& shape) {
  if (!shape.IsArray()) return Literal(shape);
  RETURN_IF_ERROR(CheckNotManual(s));
  auto check = [&](const Literal& v, const Shape& expect) -> Status {
    if (!v.shape().IsArray() || v.shape().dims() != expect.dims() ||
        v.shape().dtype() != expect.dtype())
      return InvalidArgument("a device returned {} where the sharding {} of {} expects {}",
                             v.shape().ToString(false), s.ToString(false), shape.ToString(false),
                             expect.ToString(false));
    return absl::OkStatus();
  };
  if (!s.IsTiled()) {
    int64_t device = 0;
    if (s.IsMaximal()) device = *s.UniqueDevice();
    if (device < 0 || device >= static_cast<int64_t>(shards.size()))
      return InvalidArgument("sharding {} names device {} of {}", s.ToString(false), device,
                             shards.size());
    RETURN_IF_ERROR(check(*shards[device], shape));
    return *shards[device];
  }
  if (s.TiledDataRank() != shape.rank())
    return InvalidArgument("sharding {} has {} data dims for a value of shape {}",
                           s.ToString(false), s.TiledDataRank(), shape.ToString());
  const Shape shard_shape = s.ShardShape(shape);
  Literal out(shape);
  for (int64_t d = 0; d < static_cast<int64_t>(shards.size()); ++d) {
    if (!s.UsesDevice(d)) continue;
    const std::vector<int64_t> tile = s.TileIndexForDevice(d);
    if (s.DeviceForTileIndex(tile) != d) continue;  // not the first of its replication group
    RETURN_IF_ERROR(check(*shards[d], shard_shape));
    const std::vector<int64_t> lo = s.TileOffsetForDevice(shape, d);
    const std::vector<int64_t> hi = s.TileLimitForDevice(shape, d);
    std::vector<int64_t> extent(lo.size());
    for (size_t i = 0; i < lo.size(); ++i) extent[i] = hi[i] - lo[i];
    CopyBox(shards[d]->raw(), shard_shape.dims(), std::vector<int64_t>(lo.size(), 0),
            out.mutable_raw(), shape.dims(), lo, extent, DTypeByteSize(shape.dtype()));
  }
  return out;
}

StatusOr<Literal> AssembleRec(const std::vector<const Literal*>& shards,
                              const std::vector<Sharding>& leaves, size_t& next,
                              const Shape& shape) {
  if (!shape.IsTuple()) {
    if (next >= leaves.size()) return Internal("ran out of leaf shardings");
    return AssembleLeaf(shards, leaves[next++], shape);
  }
  std::vector<Literal> elems;
  for (int64_t i = 0; i < shape.tuple_size(); ++i) {
    std::vector<const Literal*> sub;
    for (const Literal* l : shards) {
      if (!l->shape().IsTuple() || l->shape().tuple_size() != shape.tuple_size())
        return InvalidArgument("a device returned {} where {} was expected",
                               l->shape().ToString(false), shape.ToString(false));
      sub.push_back(&l->element(i));
    }
    ASSIGN_OR_RETURN(Literal e, AssembleRec(sub, leaves, next, shape.tuple_shape(i)));
    elems.push_back(std::move(e));
  }
  return Literal::Tuple(std::move(elems));
}

StatusOr<Literal> ShardRec(const Literal& global, const std::vector<Sharding>& leaves, size_t& next,
                           int64_t device) {
  if (!global.shape().IsTuple()) {
    if (next >= leaves.size()) return Internal("ran out of leaf shardings");
    return ShardLeaf(global, leaves[next++], device);
  }
  std::vector<Literal> elems;
  for (const Literal& e : global.elements()) {
    ASSIGN_OR_RETURN(Literal s, ShardRec(e, leaves, next, device));
    elems.push_back(std::move(s));
  }
  return Literal::Tuple(std::move(elems));
}

StatusOr<std::vector<Sharding>> Leaves(const Sharding& s, const Shape& shape) {
  if (!shape.IsTuple()) {
    if (s.IsTuple()) {
      if (s.tuple_elements().size() != 1)
        return InvalidArgument("tuple sharding {} for the array {}", s.ToString(false),
                               shape.ToString(false));
      return std::vector<Sharding>{s.tuple_elements()[0]};
    }
    return std::vector<Sharding>{s};
  }
  ASSIGN_OR_RETURN(Sharding t, s.GetTupleSharding(shape));
  return t.tuple_elements();
}

}  // namespace

StatusOr<Literal> ShardForDevice(const Literal& global, const Sharding& sharding, int64_t device) {
  ASSIGN_OR_RETURN(std::vector<Sharding> leaves, Leaves(sharding, global.shape()));
  size_t next = 0;
  return ShardRec(global, leaves, next, device);
}

StatusOr<Literal> AssembleFromShards(const std::vector<Literal>& shards, const Sharding& sharding,
                                     const Shape& global_shape) {
  if (shards.empty()) return InvalidArgument("no device results to assemble");
  ASSIGN_OR_RETURN(std::vector<Sharding> leaves, Leaves(sharding, global_shape));
  std::vector<const Literal*> ptrs;
  for (const Literal& l : shards) ptrs.push_back(&l);
  size_t next = 0;
  return AssembleRec(ptrs, leaves, next, global_shape);
}

StatusOr<Shape> EvenGlobalShape(const Shape& shard_shape, const Sharding& sharding) {
  ASSIGN_OR_RETURN(std::vector<Sharding> leaves, Leaves(sharding, shard_shape));
  size_t next = 0;
  std::function<StatusOr<Shape>(const Shape&)> rec = [&](const Shape& s) -> StatusOr<Shape> {
    if (s.IsTuple()) {
      std::vector<Shape> elems;
      for (const Shape& e : s.tuple_shapes()) {
        ASSIGN_OR_RETURN(Shape g, rec(e));
        elems.push_back(std::move(g));
      }
      return Shape::Tuple(std::move(elems));
    }
    if (next >= leaves.size()) return Internal("ran out of leaf shardings");
    const Sharding& leaf = leaves[next++];
    Shape g = s;
    g.clear_layout();
    if (s.IsArray() && leaf.IsTiled()) {
      if (leaf.TiledDataRank() != s.rank())
        return InvalidArgument("sharding {} does not fit {}", leaf.ToString(false),
                               s.ToString(false));
      for (int64_t i = 0; i < s.rank(); ++i) g.set_dim(i, s.dim(i) * leaf.NumTilesOnDim(i));
    }
    return g;
  };
  return rec(shard_shape);
}

}  // namespace spmdc

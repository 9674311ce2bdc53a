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

// Manual leaves (the program's value is per device, or per manual group): the host value stacks
// the groups' values on a new leading dim. Fully manual: one group per device. A manual subgroup
// sharding: one group per coordinate along its manual tile dim, within which the other tile dims
// tile the group's value as usual.
int64_t ManualGroupCount(const Sharding& s, int64_t num_devices) {
  return s.IsManual() ? num_devices : s.tile_assignment().dim(s.SubgroupManualDim());
}

// Device `device`'s manual group under `s` (fully manual: the device itself).
int64_t ManualGroupOf(const Sharding& s, int64_t device) {
  if (s.IsManual()) return device;
  std::optional<std::vector<int64_t>> index = s.tile_assignment().IndexOf(device);
  return index ? (*index)[s.SubgroupManualDim()] : -1;
}

// Element `g` of a stacked host value (its leading dim dropped).
Literal GroupSlice(const Literal& stacked, int64_t g) {
  std::vector<int64_t> dims(stacked.shape().dims().begin() + 1, stacked.shape().dims().end());
  Literal out(Shape(stacked.shape().dtype(), dims));
  const int64_t bytes = out.shape().byte_size();
  std::memcpy(out.mutable_raw(), stacked.raw() + g * bytes, bytes);
  return out;
}

StatusOr<Literal> ShardLeaf(const Literal& global, const Sharding& s, int64_t device);

StatusOr<Literal> ShardManualLeaf(const Literal& global, const Sharding& s, int64_t device) {
  const Shape& shape = global.shape();
  const int64_t group = ManualGroupOf(s, device);
  if (shape.rank() == 0 || group < 0 || group >= shape.dim(0))
    return InvalidArgument("the host value {} of a leaf sharded {} must stack one value per manual group on a "
                           "leading dim (device {} is in group {})",
                           shape.ToString(false), s.ToString(false), device, group);
  Literal mine = GroupSlice(global, group);
  if (s.IsManual()) return mine;
  // Within the group: the data tiles of the subgroup sharding (its replication is in-group).
  std::vector<int64_t> lo = s.TileOffsetForDevice(mine.shape(), device);
  std::vector<int64_t> hi = s.TileLimitForDevice(mine.shape(), device);
  Literal out(s.ShardShape(mine.shape()));
  std::vector<int64_t> extent(lo.size());
  for (size_t i = 0; i < lo.size(); ++i) extent[i] = hi[i] - lo[i];
  CopyBox(mine.raw(), mine.shape().dims(), lo, out.mutable_raw(), out.shape().dims(),
          std::vector<int64_t>(lo.size(), 0), extent, DTypeByteSize(shape.dtype()));
  return out;
}

StatusOr<Literal> ShardLeaf(const Literal& global, const Sharding& s, int64_t device) {
  if (!global.shape().IsArray()) return global;
  if (s.IsManual() || s.IsManualSubgroup()) return ShardManualLeaf(global, s, device);
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
                               const Shape& shape);

// The stacked host value of a manual leaf: group g's value from its devices (fully manual: device
// g's own value; a manual subgroup: the group's tiles, each from the first device holding it).
StatusOr<Literal> AssembleManualLeaf(const std::vector<const Literal*>& shards, const Sharding& s,
                                     const Shape& shape) {
  const int64_t n = static_cast<int64_t>(shards.size());
  std::vector<int64_t> stacked_dims = {ManualGroupCount(s, n)};
  stacked_dims.insert(stacked_dims.end(), shape.dims().begin(), shape.dims().end());
  Literal out(Shape(shape.dtype(), stacked_dims));
  const int64_t bytes = shape.byte_size();
  const Shape shard_shape = s.IsManual() ? shape : s.ShardShape(shape);
  for (int64_t d = 0; d < n; ++d) {
    const int64_t g = ManualGroupOf(s, d);
    if (g < 0) continue;
    const Literal& v = *shards[d];
    if (!v.shape().IsArray() || v.shape().dims() != shard_shape.dims() || v.shape().dtype() != shape.dtype())
      return InvalidArgument("a device returned {} where the sharding {} of {} expects {}", v.shape().ToString(false),
                             s.ToString(false), shape.ToString(false), shard_shape.ToString(false));
    std::byte* dst = out.mutable_raw() + g * bytes;
    if (s.IsManual()) {
      std::memcpy(dst, v.raw(), bytes);
      continue;
    }
    std::vector<int64_t> lo = s.TileOffsetForDevice(shape, d), hi = s.TileLimitForDevice(shape, d);
    std::vector<int64_t> extent(lo.size());
    for (size_t i = 0; i < lo.size(); ++i) extent[i] = hi[i] - lo[i];
    CopyBox(v.raw(), shard_shape.dims(), std::vector<int64_t>(lo.size(), 0), dst, shape.dims(), lo, extent,
            DTypeByteSize(shape.dtype()));
  }
  return out;
}

StatusOr<Literal> AssembleLeaf(const std::vector<const Literal*>& shards, const Sharding& s,
                               const Shape& shape) {
  if (!shape.IsArray()) return Literal(shape);
  if (s.IsManual() || s.IsManualSubgroup()) return AssembleManualLeaf(shards, s, shape);
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

Shape HostShape(const Shape& shape, const Sharding& sharding, int64_t num_devices) {
  if (shape.IsTuple()) {
    std::vector<Shape> elems;
    for (int64_t i = 0; i < shape.tuple_size(); ++i)
      elems.push_back(HostShape(shape.tuple_shape(i),
                                sharding.IsTuple() ? sharding.GetSubSharding(shape, {&i, 1}) : sharding, num_devices));
    return Shape::Tuple(std::move(elems));
  }
  if (!shape.IsArray() || sharding.IsTuple() || !(sharding.IsManual() || sharding.IsManualSubgroup())) return shape;
  std::vector<int64_t> dims = {ManualGroupCount(sharding, num_devices)};
  dims.insert(dims.end(), shape.dims().begin(), shape.dims().end());
  return Shape(shape.dtype(), dims);
}

}  // namespace spmdc

// The reshape handler: reshapes that leave the tiled dims alone (shard by shard), reshapes of
// evenly tiled operands, and the retiled case where merged or split dims do not line up (a range
// fetch from the devices holding it).
#include <map>

#include "partitioner/computation_partitioner.h"
#include "propagation/dim_mapping.h"
#include "sharding/algebra.h"

namespace spmdc {
namespace partitioner_internal {

namespace {

// Dims a reshape leaves alone: (from, to) pairs with equal size and equal product of the dims
// before them. Tiling only such dims reshapes shard by shard, even unevenly (padding stays put).
std::vector<std::pair<int64_t, int64_t>> PassthroughDims(const Shape& from, const Shape& to) {
  std::vector<std::pair<int64_t, int64_t>> out;
  int64_t pf = 1, pt = 1;
  for (int64_t i = 0, j = 0; i < from.rank() && j < to.rank();) {
    if (pf == pt && from.dim(i) == to.dim(j)) {
      out.emplace_back(i, j);
      pf *= from.dim(i++);
      pt *= to.dim(j++);
    } else if (pf <= pt) {
      pf *= from.dim(i++);
    } else {
      pt *= to.dim(j++);
    }
  }
  return out;
}

// The sharding of `to` that tiles `s`'s (sharding of `from`) dims through passthrough dims, when
// every tiled dim of `s` is a passthrough dim.
std::optional<Sharding> PassthroughSharding(const Shape& from, const Shape& to, const Sharding& s) {
  if (!IsPlainTiled(s)) return std::nullopt;
  auto pass = PassthroughDims(from, to);
  std::vector<int64_t> src, dst;
  for (auto [i, j] : pass) {
    src.push_back(i);
    dst.push_back(j);
  }
  for (int64_t d = 0; d < from.rank(); ++d)
    if (s.NumTilesOnDim(d) > 1 && std::find(src.begin(), src.end(), d) == src.end()) return std::nullopt;
  return MapShardingDims(s, src, dst, to.rank());
}

}  // namespace

Status ComputationPartitioner::Reshape(const Instruction* instr) {
  Sharding target = TargetOf(instr);
  const Shape& in = instr->operand(0)->shape();
  // Only passthrough dims tiled (result-driven, then operand-driven): a local reshape.
  if (target.IsTiled()) {
    if (std::optional<Sharding> op_sharding = PassthroughSharding(instr->shape(), in, target)) {
      PValue v = Operand(instr, 0, *op_sharding);
      Set(instr, PValue{b_.Reshape(v.hlo, target.ShardShape(instr->shape()).dims()), target, instr->shape()});
      return absl::OkStatus();
    }
  }
  {
    const PValue& src = Get(instr->operand(0));
    if (src.sharding.IsTiled() && !src.sharding.IsTuple()) {
      if (std::optional<Sharding> out = PassthroughSharding(in, instr->shape(), src.sharding)) {
        PValue v{b_.Reshape(src.hlo, out->ShardShape(instr->shape()).dims()), *out, instr->shape()};
        Set(instr, r_.Reshard(v, target, instr->name()));
        return absl::OkStatus();
      }
    }
  }
  if (target.IsTiled() && target.EvenlyPartitions(instr->shape())) {
    std::optional<Sharding> operand_sharding = ReshapeSharding(instr->shape(), in, target);
    if (operand_sharding && operand_sharding->EvenlyPartitions(in)) {
      std::optional<Sharding> back = ReshapeSharding(in, instr->shape(), *operand_sharding);
      if (back && *back == target) {
        PValue v = Operand(instr, 0, *operand_sharding);
        Set(instr, PValue{b_.Reshape(v.hlo, target.ShardShape(instr->shape()).dims()), target, instr->shape()});
        return absl::OkStatus();
      }
    }
  }
  // The operand's own sharding may reshape cleanly; reshard the result afterwards.
  const PValue& src = Get(instr->operand(0));
  if (src.sharding.IsTiled() && src.sharding.EvenlyPartitions(in)) {
    std::optional<Sharding> out = ReshapeSharding(in, instr->shape(), src.sharding);
    if (out && out->EvenlyPartitions(instr->shape())) {
      std::optional<Sharding> back = ReshapeSharding(instr->shape(), in, *out);
      if (back && *back == src.sharding) {
        PValue v{b_.Reshape(src.hlo, out->ShardShape(instr->shape()).dims()), *out, instr->shape()};
        Set(instr, r_.Reshard(v, target, instr->name()));
        return absl::OkStatus();
      }
    }
  }
  if (std::optional<PValue> v = RetiledReshape(instr, src, target)) {
    Set(instr, *v);
    return absl::OkStatus();
  }
  return Default(instr);
}

// A reshape that merges or splits dims where the tiled dim is the major one of its group on both
// sides but the tiles do not line up (uneven: f32[6,8] in 4 tiles of 2 rows -> f32[48] in 4
// tiles of 12; GSPMD's halo-exchange fix for uneven split/merge): the group is a contiguous
// range of the row-major order on both sides, so each device flattens its shard's group,
// fetches the range its target tile covers from the devices holding it (collective-permutes of
// whole source tiles, usually one or two) and reshapes that locally.
std::optional<PValue> ComputationPartitioner::RetiledReshape(const Instruction* instr, const PValue& src,
                                                             const Sharding& target) {
  const Shape& in = instr->operand(0)->shape();
  const Shape& out = instr->shape();
  if (src.sharding.IsTuple() || !src.sharding.IsTiled() || !IsPlainTiled(src.sharding) || !target.IsTiled() ||
      !IsPlainTiled(target) || src.sharding.TiledDataRank() != in.rank() || target.TiledDataRank() != out.rank())
    return std::nullopt;
  auto only_tiled = [](const Sharding& s, int64_t rank) {
    int64_t dim = -1;
    for (int64_t d = 0; d < rank; ++d) {
      if (s.NumTilesOnDim(d) == 1) continue;
      if (dim >= 0) return int64_t{-2};
      dim = d;
    }
    return dim;
  };
  int64_t a = only_tiled(src.sharding, in.rank()), o = only_tiled(target, out.rank());
  if (a < 0 || o < 0) return std::nullopt;
  // Row-major prefixes: the group starts where both sides' prefixes meet at a and o, and ends at
  // the next common boundary.
  auto prefix = [](const Shape& s, int64_t i) {
    int64_t p = 1;
    for (int64_t d = 0; d < i; ++d) p *= s.dim(d);
    return p;
  };
  if (prefix(in, a) != prefix(out, o)) return std::nullopt;
  int64_t b = a, q = o;
  while (prefix(in, b + 1) != prefix(out, q + 1)) {
    if (prefix(in, b + 1) < prefix(out, q + 1)) {
      if (++b >= in.rank()) return std::nullopt;
    } else if (++q >= out.rank()) {
      return std::nullopt;
    }
  }
  int64_t ma = prefix(in, b + 1) / prefix(in, a + 1), mo = prefix(out, q + 1) / prefix(out, o + 1);
  int64_t ns = src.sharding.NumTilesOnDim(a), nt = target.NumTilesOnDim(o);
  int64_t cs = (in.dim(a) + ns - 1) / ns, ct = (out.dim(o) + nt - 1) / nt;
  // Flatten the group of the local shard: [.., cs, in(a+1..b), ..] -> [.., cs*ma, ..].
  std::vector<int64_t> flat;
  for (int64_t d = 0; d < a; ++d) flat.push_back(in.dim(d));
  flat.push_back(cs * ma);
  for (int64_t d = b + 1; d < in.rank(); ++d) flat.push_back(in.dim(d));
  Instruction* x = b_.Reshape(src.hlo, flat);
  int64_t n = b_.num_devices();
  std::map<int64_t, std::vector<int64_t>> holders;
  for (int64_t dev = 0; dev < n; ++dev) holders[src.sharding.TileCoordForDevice(dev, a)].push_back(dev);
  std::map<int64_t, int64_t> next;
  auto holder = [&](int64_t dev, int64_t t) -> int64_t {
    if (src.sharding.TileCoordForDevice(dev, a) == t) return dev;
    const std::vector<int64_t>& hs = holders.at(t);
    return hs[next[t]++ % hs.size()];
  };
  std::vector<int64_t> start(n);
  for (int64_t dev = 0; dev < n; ++dev) start[dev] = target.TileCoordForDevice(dev, o) * ct * mo;
  Instruction* range = r_.FetchRange(x, a, cs * ma, ns, holder, start, ct * mo);
  return PValue{b_.Reshape(range, target.ShardShape(out).dims()), target, out};
}

}  // namespace partitioner_internal
}  // namespace spmdc

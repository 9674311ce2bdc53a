#include "sharding/named_sharding.h"

#include <algorithm>
#include <numeric>

#include "fmt/format.h"

namespace spmdc {
namespace {

// Guards against meshes too large to ever be valid (and to materialise): 2^20 devices.
constexpr int64_t kMaxDevices = int64_t{1} << 20;

// The error of NamedToTiled, with the offset of the reference at fault.
Status FailAt(size_t offset, size_t* error_offset, std::string message) {
  if (error_offset) *error_offset = offset;
  return InvalidArgument("{}", message);
}

}  // namespace

int64_t NamedMesh::num_devices() const {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

int64_t NamedMesh::AxisIndex(std::string_view name) const {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<int64_t>(i);
  return -1;
}

TileAssignment NamedMesh::DeviceArray() const {
  if (devices) return *devices;
  if (sizes.empty()) return TileAssignment(std::vector<int64_t>{1});
  return TileAssignment(sizes);
}

Status ValidateNamedMesh(NamedMesh& mesh) {
  int64_t n = 1;
  for (size_t i = 0; i < mesh.names.size(); ++i) {
    for (size_t j = 0; j < i; ++j)
      if (mesh.names[j] == mesh.names[i]) return InvalidArgument("mesh axis '{}' given twice", mesh.names[i]);
    if (mesh.sizes[i] <= 0 || n > kMaxDevices / mesh.sizes[i])
      return InvalidArgument("invalid mesh axis size {}", mesh.sizes[i]);
    n *= mesh.sizes[i];
  }
  if (mesh.maximal_device && !mesh.names.empty())
    return InvalidArgument("a maximal mesh has no axes");
  if (mesh.devices && mesh.devices->dims() != mesh.sizes) {
    if (mesh.devices->num_elements() != n)
      return InvalidArgument("device_ids hold {} devices but the mesh has {}", mesh.devices->num_elements(), n);
    mesh.devices = mesh.devices->Reshape(mesh.sizes);
  }
  return absl::OkStatus();
}

StatusOr<TileAssignment> MeshDevicesFromIds(const std::vector<int64_t>& sizes, std::vector<int64_t> ids) {
  int64_t n = 1;
  for (int64_t d : sizes) n *= d;
  if (static_cast<int64_t>(ids.size()) != n)
    return InvalidArgument("{} device ids for a mesh of {} devices", ids.size(), n);
  std::vector<int64_t> sorted = ids;
  std::sort(sorted.begin(), sorted.end());
  for (int64_t i = 0; i < n; ++i)
    if (sorted[i] != i) return InvalidArgument("mesh device ids are not a permutation of 0..n-1");
  if (sorted == ids) return InvalidArgument("identity mesh device ids: omit device_ids");
  return TileAssignment::FromDevices(sizes.empty() ? std::vector<int64_t>{1} : sizes, std::move(ids));
}

Status ValidateAxisRef(const NamedMesh& mesh, const AxisRef& ref) {
  if (ref.axis < 0 || ref.axis >= static_cast<int64_t>(mesh.sizes.size())) return InvalidArgument("no such mesh axis");
  if (ref.size == 0) return absl::OkStatus();
  const int64_t n = mesh.sizes[ref.axis];
  if (ref.pre < 1 || ref.size <= 1 || ref.size >= n || ref.pre > n || n % (ref.pre * ref.size) != 0) {
    return InvalidArgument("sub-axis {}:({}){} is not a proper part of an axis of size {}", mesh.names[ref.axis],
                           ref.pre, ref.size, n);
  }
  return absl::OkStatus();
}

StatusOr<Sharding> NamedToTiled(const NamedMesh& mesh, const NamedSharding& named, ShardingMetadata metadata,
                                size_t* error_offset) {
  if (mesh.names.empty()) {
    // An empty mesh: nothing can be sharded; maximal when it names its device.
    for (const NamedDim& d : named.dims)
      if (!d.axes.empty()) return FailAt(d.axes[0].offset, error_offset, "the mesh has no axes");
    if (!named.replicated.empty() || !named.unreduced.empty() || !named.manual.empty())
      return FailAt(0, error_offset, "the mesh has no axes");
    if (mesh.maximal_device) return Sharding::AssignDevice(*mesh.maximal_device, std::move(metadata));
    return Sharding::Replicate(std::move(metadata));
  }
  const size_t k = mesh.sizes.size();
  std::vector<std::vector<int64_t>> cuts(k);  // pre-size boundaries per axis
  for (size_t i = 0; i < k; ++i) cuts[i] = {1, mesh.sizes[i]};
  auto add_cuts = [&](const std::vector<AxisRef>& refs) {
    for (const AxisRef& r : refs) {
      if (r.size == 0) continue;
      cuts[r.axis].push_back(r.pre);
      cuts[r.axis].push_back(r.pre * r.size);
    }
  };
  for (const NamedDim& d : named.dims) add_cuts(d.axes);
  add_cuts(named.replicated);
  add_cuts(named.unreduced);
  add_cuts(named.manual);
  struct Piece {
    int64_t axis, pre, size;
  };
  std::vector<Piece> pieces;
  for (size_t i = 0; i < k; ++i) {
    std::sort(cuts[i].begin(), cuts[i].end());
    cuts[i].erase(std::unique(cuts[i].begin(), cuts[i].end()), cuts[i].end());
    for (size_t j = 0; j + 1 < cuts[i].size(); ++j) {
      if (cuts[i][j + 1] % cuts[i][j] != 0)
        return FailAt(0, error_offset, fmt::format("sub-axes of mesh axis '{}' overlap", mesh.names[i]));
      pieces.push_back(Piece{static_cast<int64_t>(i), cuts[i][j], cuts[i][j + 1] / cuts[i][j]});
    }
  }
  std::vector<bool> used(pieces.size(), false);
  std::vector<int64_t> perm;
  std::optional<Status> error;
  // Marks the piece `r` names as used and appends it to `perm`; returns its size, or nullopt
  // (with `error` set) when it names no single unused piece. A size-1 axis has no piece.
  auto take = [&](const AxisRef& r) -> std::optional<int64_t> {
    const int64_t pre = r.pre, size = r.size == 0 ? mesh.sizes[r.axis] : r.size;
    if (size == 1) return 1;
    for (size_t p = 0; p < pieces.size(); ++p) {
      if (pieces[p].axis == r.axis && pieces[p].pre == pre && pieces[p].size == size) {
        if (used[p]) break;
        used[p] = true;
        perm.push_back(static_cast<int64_t>(p));
        return size;
      }
    }
    error = FailAt(r.offset, error_offset,
                   fmt::format("mesh axis '{}' is used twice or overlaps another sub-axis", mesh.names[r.axis]));
    return std::nullopt;
  };
  std::vector<int64_t> tile_dims;
  std::vector<SubgroupType> types;
  for (const NamedDim& d : named.dims) {
    int64_t product = 1;
    for (const AxisRef& r : d.axes) {
      auto size = take(r);
      if (!size) return *error;
      product *= *size;
    }
    tile_dims.push_back(product);
  }
  auto subgroup = [&](const std::vector<AxisRef>& refs, SubgroupType type) -> bool {
    if (refs.empty()) return true;
    int64_t product = 1;
    for (const AxisRef& r : refs) {
      auto size = take(r);
      if (!size) return false;
      product *= *size;
    }
    tile_dims.push_back(product);
    types.push_back(type);
    return true;
  };
  if (!subgroup(named.manual, SubgroupType::kManual) || !subgroup(named.unreduced, SubgroupType::kUnreduced))
    return *error;
  // Explicitly replicated axes may not also shard (XLA checks they do not overlap); like the
  // unnamed ones, they form the replication group in mesh order.
  const std::vector<bool> sharding_piece = used;
  for (const AxisRef& r : named.replicated) {
    auto size = take(r);
    if (!size) return *error;
    if (*size > 1) perm.pop_back();
  }
  int64_t rest = 1;
  for (size_t p = 0; p < pieces.size(); ++p) {
    if (sharding_piece[p]) continue;
    perm.push_back(static_cast<int64_t>(p));
    rest *= pieces[p].size;
  }
  if (rest > 1) {
    tile_dims.push_back(rest);
    types.push_back(SubgroupType::kReplicated);
  }
  if (tile_dims.empty()) return Sharding::Replicate(std::move(metadata));
  std::vector<int64_t> piece_sizes;
  for (const Piece& p : pieces) piece_sizes.push_back(p.size);
  if (piece_sizes.empty()) piece_sizes.push_back(1);
  if (perm.empty()) perm.push_back(0);
  TileAssignment tiles = mesh.DeviceArray().Reshape(piece_sizes).Transpose(perm).Reshape(tile_dims);
  return Sharding::Subgroup(std::move(tiles), std::move(types), std::move(metadata));
}

std::optional<NamedSharding> TiledToNamed(const Sharding& sharding, int64_t rank, const NamedMesh& mesh) {
  if (sharding.IsTuple() || sharding.IsManual() || sharding.IsUnknown() || sharding.IsUnreduced()) return std::nullopt;
  NamedSharding named;
  named.dims.resize(rank);
  if (sharding.IsReplicated()) return named;
  if (sharding.IsMaximal()) {
    if (mesh.names.empty() && mesh.maximal_device && sharding.UniqueDevice() == *mesh.maximal_device) return named;
    return std::nullopt;
  }
  if (mesh.names.empty() || sharding.TiledDataRank() != rank) return std::nullopt;
  for (SubgroupType t : sharding.subgroup_types())
    if (t != SubgroupType::kReplicated) return std::nullopt;
  const TileAssignment& tiles = sharding.tile_assignment();
  if (tiles.num_elements() != mesh.num_devices()) return std::nullopt;
  // Every axis split into prime pieces (major to minor); each piece of a valid expression moves
  // exactly one data tile dim forward, or none (a replicated piece), when its mesh coordinate
  // goes from 0 to 1. The candidate is then checked by converting it back.
  struct Piece {
    int64_t axis, pre, size;
  };
  std::vector<Piece> pieces;
  for (size_t a = 0; a < mesh.sizes.size(); ++a) {
    int64_t n = mesh.sizes[a], pre = 1;
    for (int64_t p = 2; n > 1; ++p) {
      while (n % p == 0) {
        pieces.push_back(Piece{static_cast<int64_t>(a), pre, p});
        pre *= p;
        n /= p;
      }
    }
  }
  std::vector<int64_t> piece_sizes;
  for (const Piece& p : pieces) piece_sizes.push_back(p.size);
  if (piece_sizes.empty()) return std::nullopt;
  const TileAssignment grid = mesh.DeviceArray().Reshape(piece_sizes);
  std::vector<int64_t> coord(pieces.size(), 0);
  auto origin = tiles.IndexOf(grid(coord));
  if (!origin) return std::nullopt;
  struct Move {
    int64_t dim, stride;
    size_t piece;
  };
  std::vector<Move> moves;
  for (size_t p = 0; p < pieces.size(); ++p) {
    coord.assign(pieces.size(), 0);
    coord[p] = 1;
    auto at = tiles.IndexOf(grid(coord));
    if (!at) return std::nullopt;
    // Only the data dims count: the devices of a replication group are kept sorted, so the
    // order along the replication dim says nothing about the mesh.
    int64_t dim = -1, stride = 0;
    for (int64_t j = 0; j < rank; ++j) {
      if ((*at)[j] == (*origin)[j]) continue;
      if (dim >= 0) return std::nullopt;
      dim = j;
      stride = (*at)[j] - (*origin)[j];
    }
    if (dim < 0) continue;  // a replicated piece
    if (stride <= 0) return std::nullopt;
    moves.push_back(Move{dim, stride, p});
  }
  // Per data dim, its pieces major to minor (larger strides first), adjacent pieces of one axis
  // merged back into the sub-axis (or axis) they form.
  std::stable_sort(moves.begin(), moves.end(), [](const Move& a, const Move& b) {
    return a.dim != b.dim ? a.dim < b.dim : a.stride > b.stride;
  });
  for (const Move& m : moves) {
    std::vector<AxisRef>& axes = named.dims[m.dim].axes;
    const Piece& p = pieces[m.piece];
    if (!axes.empty() && axes.back().axis == p.axis && axes.back().pre * axes.back().size == p.pre) {
      axes.back().size *= p.size;
    } else {
      axes.push_back(AxisRef{p.axis, p.pre, p.size, 0});
    }
  }
  for (NamedDim& d : named.dims)
    for (AxisRef& r : d.axes)
      if (r.pre == 1 && r.size == mesh.sizes[r.axis]) r.size = 0;
  StatusOr<Sharding> back = NamedToTiled(mesh, named);
  if (!back.ok() || !(*back == sharding.WithoutShardGroup())) return std::nullopt;
  return named;
}

}  // namespace spmdc

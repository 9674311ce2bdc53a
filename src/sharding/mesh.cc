#include "sharding/mesh.h"

#include <algorithm>
#include <functional>
#include <cctype>
#include <charconv>

#include "fmt/format.h"
#include "fmt/ranges.h"
#include "support/check.h"

namespace spmdc {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool IsIdentifier(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// Splits on commas that are not inside parentheses.
std::vector<std::string_view> SplitTopLevel(std::string_view s) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '(') ++depth;
    if (s[i] == ')') --depth;
    if (s[i] == ',' && depth == 0) {
      out.push_back(Trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  out.push_back(Trim(s.substr(start)));
  return out;
}

int64_t Product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

}  // namespace

StatusOr<Mesh> Mesh::Create(std::vector<Axis> axes, std::vector<int64_t> device_order) {
  std::vector<int64_t> dims;
  int64_t n = 1;
  for (size_t i = 0; i < axes.size(); ++i) {
    if (!IsIdentifier(axes[i].name)) return InvalidArgument("invalid mesh axis name '{}'", axes[i].name);
    if (axes[i].size < 1 || axes[i].size > (int64_t{1} << 24) || n > (int64_t{1} << 24) / axes[i].size) {
      return InvalidArgument("invalid size {} for mesh axis '{}'", axes[i].size, axes[i].name);
    }
    for (size_t j = 0; j < i; ++j) {
      if (axes[j].name == axes[i].name) return InvalidArgument("mesh axis '{}' repeated", axes[i].name);
    }
    dims.push_back(axes[i].size);
    n *= axes[i].size;
  }
  if (dims.empty()) dims.push_back(1);
  if (device_order.empty()) return Mesh(std::move(axes), TileAssignment(std::move(dims)));
  if (static_cast<int64_t>(device_order.size()) != n) {
    return InvalidArgument("mesh has {} devices but {} ids were given", n, device_order.size());
  }
  std::vector<bool> seen(n, false);
  for (int64_t d : device_order) {
    if (d < 0 || d >= n || seen[d]) {
      return InvalidArgument("mesh device order must be a permutation of [0, {})", n);
    }
    seen[d] = true;
  }
  return Mesh(std::move(axes), TileAssignment::FromDevices(std::move(dims), std::move(device_order)));
}

StatusOr<Mesh> Mesh::Parse(std::string_view text) {
  std::string_view s = Trim(text);
  if (s.starts_with("Mesh")) s = Trim(s.substr(4));
  if (!s.empty() && s.front() == '{') {
    if (s.back() != '}') return InvalidArgument("mesh '{}': missing '}}'", text);
    s = Trim(s.substr(1, s.size() - 2));
  }
  std::vector<Axis> axes;
  if (s.empty()) return Create({});
  for (std::string_view part : SplitTopLevel(s)) {
    size_t eq = part.find('=');
    if (eq == std::string_view::npos) {
      return InvalidArgument("mesh '{}': expected name=size, got '{}'", text, part);
    }
    std::string_view name = Trim(part.substr(0, eq));
    std::string_view size = Trim(part.substr(eq + 1));
    int64_t value = 0;
    auto [ptr, ec] = std::from_chars(size.data(), size.data() + size.size(), value);
    if (ec != std::errc() || ptr != size.data() + size.size()) {
      return InvalidArgument("mesh '{}': invalid size '{}' for axis '{}'", text, size, name);
    }
    axes.push_back(Axis{std::string(name), value});
  }
  return Create(std::move(axes));
}

std::optional<int64_t> Mesh::AxisIndex(std::string_view name) const {
  for (size_t i = 0; i < axes_.size(); ++i) {
    if (axes_[i].name == name) return static_cast<int64_t>(i);
  }
  return std::nullopt;
}

int64_t Mesh::AxisSize(std::string_view name) const {
  auto i = AxisIndex(name);
  SPMDC_CHECK_MSG(i.has_value(), "unknown mesh axis");
  return axes_[*i].size;
}

std::string Mesh::ToString() const {
  std::vector<std::string> parts;
  for (const Axis& a : axes_) parts.push_back(fmt::format("{}={}", a.name, a.size));
  std::string out = fmt::format("{{{}}}", fmt::join(parts, ", "));
  if (!devices_.is_iota() || devices_.transpose_perm().size() > 1) {
    out += " devices=" + devices_.ToString();
  }
  return out;
}

StatusOr<PartitionSpec> ParsePartitionSpec(std::string_view text) {
  std::string_view s = Trim(text);
  if (!s.empty() && s.front() == '[') {
    if (s.back() != ']') return InvalidArgument("partition spec '{}': missing ']'", text);
    s = Trim(s.substr(1, s.size() - 2));
  }
  PartitionSpec spec;
  if (s.empty()) return spec;
  for (std::string_view part : SplitTopLevel(s)) {
    std::vector<std::string> axes;
    if (part == "None" || part == "none" || part == "_") {
      // replicated dim
    } else if (!part.empty() && part.front() == '(') {
      if (part.back() != ')') return InvalidArgument("partition spec '{}': missing ')'", text);
      std::string_view inner = Trim(part.substr(1, part.size() - 2));
      if (!inner.empty()) {
        for (std::string_view a : SplitTopLevel(inner)) {
          if (!IsIdentifier(a)) return InvalidArgument("partition spec '{}': bad axis '{}'", text, a);
          axes.emplace_back(a);
        }
      }
    } else if (IsIdentifier(part)) {
      axes.emplace_back(part);
    } else {
      return InvalidArgument("partition spec '{}': bad entry '{}'", text, part);
    }
    spec.push_back(std::move(axes));
  }
  return spec;
}

std::string PartitionSpecToString(const PartitionSpec& spec) {
  std::vector<std::string> parts;
  for (const auto& axes : spec) {
    if (axes.empty()) {
      parts.push_back("None");
    } else if (axes.size() == 1) {
      parts.push_back(axes[0]);
    } else {
      parts.push_back(fmt::format("({})", fmt::join(axes, ", ")));
    }
  }
  return fmt::format("[{}]", fmt::join(parts, ", "));
}

StatusOr<Sharding> ShardingFromSpec(const Mesh& mesh, const PartitionSpec& spec,
                                    const std::vector<std::string>& manual_axes) {
  std::vector<bool> used(mesh.num_axes(), false);
  std::vector<int64_t> order;
  std::vector<int64_t> tile_dims;
  auto use = [&](std::string_view name) -> StatusOr<int64_t> {
    auto i = mesh.AxisIndex(name);
    if (!i) return InvalidArgument("unknown mesh axis '{}' (mesh {})", name, mesh.ToString());
    if (used[*i]) return InvalidArgument("mesh axis '{}' used more than once", name);
    used[*i] = true;
    order.push_back(*i);
    return mesh.axes()[*i].size;
  };
  for (const auto& axes : spec) {
    int64_t size = 1;
    for (const std::string& a : axes) {
      ASSIGN_OR_RETURN(int64_t s, use(a));
      size *= s;
    }
    tile_dims.push_back(size);
  }
  const int64_t data_tiles = Product(tile_dims);
  int64_t manual = 1;
  for (const std::string& a : manual_axes) {
    ASSIGN_OR_RETURN(int64_t s, use(a));
    manual *= s;
  }
  int64_t replicated = 1;
  for (int64_t i = 0; i < mesh.num_axes(); ++i) {
    if (!used[i]) {
      order.push_back(i);
      replicated *= mesh.axes()[i].size;
    }
  }
  if (manual == 1 && data_tiles == 1) return Sharding::Replicate();
  if (manual_axes.empty() || manual == 1) {
    if (data_tiles == 1) return Sharding::Replicate();
  }
  TileAssignment ta = mesh.num_axes() == 0 ? mesh.devices() : mesh.devices().Transpose(order);
  std::vector<int64_t> dims = tile_dims;
  std::vector<SubgroupType> types;
  if (manual > 1) {
    dims.push_back(manual);
    types.push_back(SubgroupType::kManual);
  }
  if (replicated > 1) {
    dims.push_back(replicated);
    types.push_back(SubgroupType::kReplicated);
  }
  return Sharding::Subgroup(ta.Reshape(std::move(dims)), std::move(types));
}

std::optional<PartitionSpec> SpecFromSharding(const Mesh& mesh, const Sharding& sharding,
                                              int64_t rank) {
  if (sharding.IsReplicated()) return PartitionSpec(rank);
  if (!sharding.IsTiled() || !sharding.subgroup_types().empty()) return std::nullopt;
  if (sharding.TiledDataRank() != rank) return std::nullopt;
  if (sharding.TotalNumTiles() != mesh.num_devices()) return std::nullopt;
  const std::vector<int64_t> tiles = sharding.DataTileDims();
  const Sharding target = sharding.WithoutMetadata().WithoutShardGroup();
  std::vector<bool> used(mesh.num_axes(), false);
  PartitionSpec spec(rank);
  std::optional<PartitionSpec> found;
  // Depth-first over dims; for each, ordered lists of unused axes whose sizes multiply to the tile
  // count. Axes are tried in mesh order, so the first match prefers mesh order.
  std::function<void(int64_t, int64_t)> fill = [&](int64_t dim, int64_t remaining) {
    if (found) return;
    if (dim == rank) {
      auto s = ShardingFromSpec(mesh, spec);
      if (s.ok() && *s == target) found = spec;
      return;
    }
    if (remaining == 1) {
      fill(dim + 1, dim + 1 < rank ? tiles[dim + 1] : 1);
      return;
    }
    for (int64_t i = 0; i < mesh.num_axes() && !found; ++i) {
      const int64_t size = mesh.axes()[i].size;
      if (used[i] || size == 1 || remaining % size != 0) continue;
      used[i] = true;
      spec[dim].push_back(mesh.axes()[i].name);
      fill(dim, remaining / size);
      spec[dim].pop_back();
      used[i] = false;
    }
  };
  fill(0, rank > 0 ? tiles[0] : 1);
  return found;
}

std::string DescribeSharding(const Shape& shape, const Sharding& sharding, const Mesh& mesh) {
  if (shape.IsTuple()) {
    std::vector<std::string> parts;
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      const int64_t index[] = {i};
      parts.push_back(DescribeSharding(shape.tuple_shape(i), sharding.GetSubSharding(shape, index), mesh));
    }
    return fmt::format("({})", fmt::join(parts, ", "));
  }
  if (!shape.IsArray()) return shape.ToString(false);
  if (sharding.IsTuple()) return fmt::format("{} {}", shape.ToString(false), sharding.ToString(false));
  std::string group = sharding.shard_group().valid() ? " " + sharding.shard_group().ToString() : "";
  if (sharding.IsTiled() || sharding.IsReplicated()) {
    if (auto spec = SpecFromSharding(mesh, sharding.WithoutShardGroup(), shape.rank())) {
      std::vector<std::string> dims;
      for (int64_t i = 0; i < shape.rank(); ++i) {
        const auto& axes = (*spec)[i];
        if (axes.empty()) {
          dims.push_back(fmt::format("{}", shape.dim(i)));
        } else if (axes.size() == 1) {
          dims.push_back(fmt::format("{}@{}", shape.dim(i), axes[0]));
        } else {
          dims.push_back(fmt::format("{}@({})", shape.dim(i), fmt::join(axes, ",")));
        }
      }
      return fmt::format("{}[{}]{}", DTypeName(shape.dtype()), fmt::join(dims, ","), group);
    }
    return fmt::format("{} {}", shape.ToString(false), sharding.ToString(false));
  }
  return fmt::format("{}{}", shape.ToString(false), sharding.ToString(false));
}

}  // namespace spmdc

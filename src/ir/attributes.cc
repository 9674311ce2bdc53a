#include "ir/attributes.h"

#include "absl/container/flat_hash_map.h"
#include "fmt/format.h"

namespace spmdc {
namespace {
struct AttrInfo {
  std::string_view name;
  AttrKind kind;
};
constexpr AttrInfo kAttrInfos[] = {
#define V(e, name, kind) {name, AttrKind::kind},
#include "ir/attributes.def"
#undef V
};
}  // namespace

std::string_view AttrName(AttrId id) { return kAttrInfos[static_cast<int>(id)].name; }
AttrKind AttrKindOf(AttrId id) { return kAttrInfos[static_cast<int>(id)].kind; }
int NumAttrIds() { return static_cast<int>(std::size(kAttrInfos)); }

std::optional<AttrId> AttrIdFromName(std::string_view name) {
  static const auto* map = [] {
    auto* m = new absl::flat_hash_map<std::string_view, AttrId>();
    for (int i = 0; i < NumAttrIds(); ++i) (*m)[kAttrInfos[i].name] = static_cast<AttrId>(i);
    return m;
  }();
  auto it = map->find(name);
  if (it == map->end()) return std::nullopt;
  return it->second;
}

const AttrValue* Attributes::Find(AttrId id) const {
  for (const auto& [k, v] : entries_)
    if (k == id) return &v;
  return nullptr;
}

AttrValue* Attributes::Find(AttrId id) {
  for (auto& [k, v] : entries_)
    if (k == id) return &v;
  return nullptr;
}

void Attributes::Set(AttrId id, AttrValue value) {
  if (AttrValue* v = Find(id)) {
    *v = std::move(value);
    return;
  }
  entries_.emplace_back(id, std::move(value));
}

void Attributes::Remove(AttrId id) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->first == id) {
      entries_.erase(it);
      return;
    }
  }
}

std::vector<std::vector<int64_t>> ReplicaGroups::Expanded() const {
  if (!iota) return groups;
  // arange(n).reshape(reshape_dims).transpose(perm), flattened, then cut into groups.
  const auto& r = iota->reshape_dims;
  const auto& perm = iota->transpose_perm;
  int64_t n = iota->num_groups * iota->group_size;
  std::vector<int64_t> tdims(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) tdims[i] = r[perm[i]];
  std::vector<int64_t> rstrides = RowMajorStrides(r);
  std::vector<int64_t> flat(n);
  std::vector<int64_t> idx(tdims.size(), 0);
  for (int64_t lin = 0; lin < n; ++lin) {
    int64_t v = 0;
    for (size_t i = 0; i < tdims.size(); ++i) v += idx[i] * rstrides[perm[i]];
    flat[lin] = v;
    for (int64_t d = static_cast<int64_t>(tdims.size()) - 1; d >= 0; --d) {
      if (++idx[d] < tdims[d]) break;
      idx[d] = 0;
    }
  }
  std::vector<std::vector<int64_t>> out(iota->num_groups);
  for (int64_t g = 0; g < iota->num_groups; ++g)
    out[g].assign(flat.begin() + g * iota->group_size, flat.begin() + (g + 1) * iota->group_size);
  return out;
}

std::string UnquoteRaw(std::string_view raw) {
  if (raw.size() < 2 || raw.front() != '"' || raw.back() != '"') return std::string(raw);
  std::string out;
  for (size_t i = 1; i + 1 < raw.size(); ++i) {
    char c = raw[i];
    if (c == '\\' && i + 2 < raw.size()) {
      char n = raw[++i];
      switch (n) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        default: out += n; break;
      }
    } else {
      out += c;
    }
  }
  return out;
}

std::string QuoteString(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default: out += c; break;
    }
  }
  return out + "\"";
}

}  // namespace spmdc

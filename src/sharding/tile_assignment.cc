#include "sharding/tile_assignment.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <numeric>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "support/check.h"

namespace spmdc {
namespace {

// One factor of an iota: `size` consecutive positions whose ids step by `stride`.
struct Group {
  int64_t size;
  int64_t stride;
  bool operator==(const Group&) const = default;
};

int64_t Product(std::span<const int64_t> v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

// Drops size-1 groups and merges a major group into the next minor one when they are contiguous
// (the major stride is the minor group's extent). Groups are listed major to minor.
std::vector<Group> Canonicalize(const std::vector<Group>& in) {
  std::vector<Group> out;
  for (const Group& g : in) {
    if (g.size == 1) continue;
    out.push_back(g);
  }
  std::vector<Group> merged;
  for (const Group& g : out) {
    // merged.back() is major relative to g.
    if (!merged.empty() && merged.back().stride == g.size * g.stride) {
      merged.back() = Group{merged.back().size * g.size, g.stride};
    } else {
      merged.push_back(g);
    }
  }
  return merged;
}

}  // namespace

struct TileAssignment::Rep {
  std::vector<int64_t> dims;
  int64_t n = 1;
  bool iota = false;
  std::vector<Group> groups;  // iota: canonical, major to minor
  std::vector<int64_t> reshape_dims, perm;  // iota: derived from groups
  // Explicit: set at construction. Iota: materialised lazily under `once`.
  mutable std::once_flag once;
  mutable std::shared_ptr<const std::vector<int64_t>> devices;
  mutable std::once_flag inverse_once;
  mutable absl::flat_hash_map<int64_t, int64_t> inverse;  // explicit only

  int64_t IotaAt(int64_t linear) const {
    int64_t id = 0;
    for (size_t k = groups.size(); k-- > 0;) {
      id += (linear % groups[k].size) * groups[k].stride;
      linear /= groups[k].size;
    }
    return id;
  }
};

namespace {

using Rep = TileAssignment::Rep;

std::shared_ptr<Rep> MakeIotaRep(std::vector<int64_t> dims, const std::vector<Group>& groups) {
  auto rep = std::make_shared<Rep>();
  rep->dims = std::move(dims);
  rep->n = Product(rep->dims);
  rep->iota = true;
  rep->groups = Canonicalize(groups);
  // reshape dims: groups by decreasing stride; perm: output group k -> its reshape position.
  std::vector<int64_t> order(rep->groups.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return rep->groups[a].stride > rep->groups[b].stride;
  });
  rep->perm.assign(rep->groups.size(), 0);
  for (size_t j = 0; j < order.size(); ++j) {
    rep->reshape_dims.push_back(rep->groups[order[j]].size);
    rep->perm[order[j]] = static_cast<int64_t>(j);
  }
  if (rep->reshape_dims.empty()) {
    rep->reshape_dims = {rep->n};
    rep->perm = {0};
  }
  return rep;
}

// Groups (major to minor) of arange(prod(r)).reshape(r).transpose(perm).
std::vector<Group> GroupsOf(const std::vector<int64_t>& r, const std::vector<int64_t>& perm) {
  std::vector<int64_t> strides(r.size(), 1);
  for (int64_t i = static_cast<int64_t>(r.size()) - 2; i >= 0; --i) strides[i] = strides[i + 1] * r[i + 1];
  std::vector<Group> groups;
  for (int64_t p : perm) groups.push_back(Group{r[p], strides[p]});
  return groups;
}

// Recovers the groups of an explicit array when it is an iota; nullopt otherwise.
std::optional<std::vector<Group>> DetectIota(const std::vector<int64_t>& a) {
  const int64_t n = static_cast<int64_t>(a.size());
  std::vector<bool> seen(n, false);
  for (int64_t d : a) {
    if (d < 0 || d >= n || seen[d]) return std::nullopt;
    seen[d] = true;
  }
  if (n == 0 || a[0] != 0) return std::nullopt;
  std::vector<Group> minor_first;
  int64_t block = 1;
  while (block < n) {
    const int64_t stride = a[block];
    int64_t run = 1;
    while (run * block < n && a[run * block] == run * stride) ++run;
    if (run < 2 || n % (block * run) != 0) return std::nullopt;
    minor_first.push_back(Group{run, stride});
    block *= run;
  }
  std::vector<Group> groups(minor_first.rbegin(), minor_first.rend());
  // Verify: the greedy factorisation must reproduce every element.
  Rep probe;
  probe.groups = groups;
  for (int64_t i = 0; i < n; ++i) {
    if (probe.IotaAt(i) != a[i]) return std::nullopt;
  }
  return groups;
}

// Explicit arrays are interned: equal (dims, ids) share one Rep while any copy is alive, so a
// large non-iota device order repeated on many instructions is stored once.
std::shared_ptr<const Rep> InternExplicit(std::shared_ptr<Rep> rep) {
  constexpr int64_t kMinInterned = 16;
  if (rep->n < kMinInterned) return rep;
  static std::mutex* mu = new std::mutex;
  static auto* table = new absl::flat_hash_map<size_t, std::vector<std::weak_ptr<const Rep>>>;
  const size_t key = absl::HashOf(rep->dims, *rep->devices);
  std::lock_guard<std::mutex> lock(*mu);
  auto& bucket = (*table)[key];
  for (auto it = bucket.begin(); it != bucket.end();) {
    std::shared_ptr<const Rep> existing = it->lock();
    if (!existing) {
      it = bucket.erase(it);
      continue;
    }
    if (existing->dims == rep->dims && *existing->devices == *rep->devices) return existing;
    ++it;
  }
  bucket.push_back(rep);
  if (table->size() > 4096) {
    absl::erase_if(*table, [](auto& entry) {
      auto& v = entry.second;
      v.erase(std::remove_if(v.begin(), v.end(), [](const auto& w) { return w.expired(); }), v.end());
      return v.empty();
    });
  }
  return rep;
}

std::shared_ptr<const Rep> MakeExplicitRep(std::vector<int64_t> dims, std::vector<int64_t> devices) {
  auto rep = std::make_shared<Rep>();
  rep->dims = std::move(dims);
  rep->n = static_cast<int64_t>(devices.size());
  rep->devices = std::make_shared<const std::vector<int64_t>>(std::move(devices));
  std::call_once(rep->once, [] {});
  return InternExplicit(std::move(rep));
}

}  // namespace

TileAssignment::TileAssignment() : TileAssignment(std::vector<int64_t>{1}) {}

TileAssignment::TileAssignment(std::vector<int64_t> dims) {
  const int64_t n = Product(dims);
  rep_ = MakeIotaRep(std::move(dims), {Group{n, 1}});
}

TileAssignment::TileAssignment(std::vector<int64_t> dims, const std::vector<int64_t>& reshape_dims,
                               const std::vector<int64_t>& perm) {
  SPMDC_CHECK(Product(dims) == Product(reshape_dims));
  SPMDC_CHECK(perm.size() == reshape_dims.size());
  std::vector<bool> seen(perm.size(), false);
  for (int64_t p : perm) {
    SPMDC_CHECK(p >= 0 && p < static_cast<int64_t>(perm.size()) && !seen[p]);
    seen[p] = true;
  }
  rep_ = MakeIotaRep(std::move(dims), GroupsOf(reshape_dims, perm));
}

TileAssignment TileAssignment::FromDevices(std::vector<int64_t> dims, std::vector<int64_t> devices) {
  SPMDC_CHECK(Product(dims) == static_cast<int64_t>(devices.size()));
  if (auto groups = DetectIota(devices)) {
    return TileAssignment(MakeIotaRep(std::move(dims), *groups));
  }
  return TileAssignment(MakeExplicitRep(std::move(dims), std::move(devices)));
}

const std::vector<int64_t>& TileAssignment::dims() const { return rep_->dims; }
int64_t TileAssignment::num_elements() const { return rep_->n; }
bool TileAssignment::is_iota() const { return rep_->iota; }
const std::vector<int64_t>& TileAssignment::reshape_dims() const { return rep_->reshape_dims; }
const std::vector<int64_t>& TileAssignment::transpose_perm() const { return rep_->perm; }

int64_t TileAssignment::At(int64_t linear) const {
  SPMDC_CHECK(linear >= 0 && linear < rep_->n);
  if (rep_->iota) return rep_->IotaAt(linear);
  return (*rep_->devices)[linear];
}

int64_t TileAssignment::operator()(std::span<const int64_t> index) const {
  SPMDC_CHECK(index.size() == rep_->dims.size());
  int64_t linear = 0;
  for (size_t i = 0; i < index.size(); ++i) {
    SPMDC_CHECK(index[i] >= 0 && index[i] < rep_->dims[i]);
    linear = linear * rep_->dims[i] + index[i];
  }
  return At(linear);
}

std::optional<int64_t> TileAssignment::LinearIndexOf(int64_t device) const {
  const Rep& rep = *rep_;
  if (rep.iota) {
    if (device < 0 || device >= rep.n) return std::nullopt;
    int64_t linear = 0;
    for (const Group& g : rep.groups) linear = linear * g.size + (device / g.stride) % g.size;
    return linear;
  }
  std::call_once(rep.inverse_once, [&rep] {
    const auto& d = *rep.devices;
    for (int64_t i = 0; i < static_cast<int64_t>(d.size()); ++i) rep.inverse.emplace(d[i], i);
  });
  auto it = rep.inverse.find(device);
  if (it == rep.inverse.end()) return std::nullopt;
  return it->second;
}

std::optional<std::vector<int64_t>> TileAssignment::IndexOf(int64_t device) const {
  auto linear = LinearIndexOf(device);
  if (!linear) return std::nullopt;
  std::vector<int64_t> index(rep_->dims.size());
  int64_t l = *linear;
  for (size_t i = index.size(); i-- > 0;) {
    index[i] = l % rep_->dims[i];
    l /= rep_->dims[i];
  }
  return index;
}

namespace {
std::atomic<int64_t> materialized_ids{0};
}  // namespace

int64_t TileAssignment::MaterializedIds() { return materialized_ids.load(std::memory_order_relaxed); }

const std::vector<int64_t>& TileAssignment::devices() const {
  const Rep& rep = *rep_;
  std::call_once(rep.once, [&rep] {
    materialized_ids.fetch_add(rep.n, std::memory_order_relaxed);
    std::vector<int64_t> d(rep.n);
    for (int64_t i = 0; i < rep.n; ++i) d[i] = rep.IotaAt(i);
    rep.devices = std::make_shared<const std::vector<int64_t>>(std::move(d));
  });
  return *rep.devices;
}

TileAssignment TileAssignment::Reshape(std::vector<int64_t> new_dims) const {
  SPMDC_CHECK(Product(new_dims) == rep_->n);
  if (rep_->iota) return TileAssignment(MakeIotaRep(std::move(new_dims), rep_->groups));
  auto rep = std::make_shared<Rep>();
  rep->dims = std::move(new_dims);
  rep->n = rep_->n;
  devices();  // ensures rep_->devices is set
  rep->devices = rep_->devices;
  std::call_once(rep->once, [] {});
  return TileAssignment(std::move(rep));
}

TileAssignment TileAssignment::Transpose(std::span<const int64_t> perm) const {
  const Rep& rep = *rep_;
  const int64_t rank = static_cast<int64_t>(rep.dims.size());
  SPMDC_CHECK(static_cast<int64_t>(perm.size()) == rank);
  bool identity = true;
  for (int64_t i = 0; i < rank; ++i) identity &= perm[i] == i;
  if (identity) return *this;
  std::vector<int64_t> new_dims(rank);
  for (int64_t i = 0; i < rank; ++i) new_dims[i] = rep.dims[perm[i]];

  if (rep.iota) {
    // Split the groups so that each output dim is a whole run of groups, then reorder the runs.
    std::vector<std::vector<Group>> per_dim(rank);
    std::vector<Group> pending = rep.groups;
    size_t next = 0;
    bool ok = true;
    std::optional<Group> carry;
    for (int64_t d = 0; d < rank && ok; ++d) {
      int64_t remaining = rep.dims[d];
      while (remaining > 1) {
        Group g;
        if (carry) {
          g = *carry;
          carry.reset();
        } else if (next < pending.size()) {
          g = pending[next++];
        } else {
          ok = false;
          break;
        }
        if (g.size <= remaining) {
          if (remaining % g.size != 0) { ok = false; break; }
          per_dim[d].push_back(g);
          remaining /= g.size;
        } else {
          if (g.size % remaining != 0) { ok = false; break; }
          const int64_t minor = g.size / remaining;
          per_dim[d].push_back(Group{remaining, g.stride * minor});
          carry = Group{minor, g.stride};
          remaining = 1;
        }
      }
    }
    if (ok) {
      std::vector<Group> groups;
      for (int64_t i = 0; i < rank; ++i) {
        groups.insert(groups.end(), per_dim[perm[i]].begin(), per_dim[perm[i]].end());
      }
      return TileAssignment(MakeIotaRep(std::move(new_dims), groups));
    }
  }
  // Fallback: materialise the transposed array.
  const std::vector<int64_t>& src = devices();
  std::vector<int64_t> src_strides(rank, 1);
  for (int64_t i = rank - 2; i >= 0; --i) src_strides[i] = src_strides[i + 1] * rep.dims[i + 1];
  std::vector<int64_t> out(rep.n);
  std::vector<int64_t> index(rank, 0);
  for (int64_t linear = 0; linear < rep.n; ++linear) {
    int64_t src_linear = 0;
    for (int64_t i = 0; i < rank; ++i) src_linear += index[i] * src_strides[perm[i]];
    out[linear] = src[src_linear];
    for (int64_t i = rank - 1; i >= 0; --i) {
      if (++index[i] < new_dims[i]) break;
      index[i] = 0;
    }
  }
  return FromDevices(std::move(new_dims), std::move(out));
}

bool TileAssignment::IsSortedAlongLastDim() const {
  const Rep& rep = *rep_;
  const int64_t last = rep.dims.back();
  if (rep.iota) {
    // Pieces of groups covering the last dim, minor first; rows increase iff strides increase
    // from minor to major.
    int64_t need = last;
    std::vector<int64_t> strides;
    bool aligned = true;
    for (size_t k = rep.groups.size(); k-- > 0 && need > 1;) {
      const Group& g = rep.groups[k];
      if (g.size <= need) {
        if (need % g.size != 0) { aligned = false; break; }
        need /= g.size;
      } else {
        if (g.size % need != 0) { aligned = false; break; }
        need = 1;
      }
      strides.push_back(g.stride);
    }
    if (aligned) {
      for (size_t i = 1; i < strides.size(); ++i) {
        if (strides[i] < strides[i - 1]) return false;
      }
      return true;
    }
  }
  for (int64_t base = 0; base < rep.n; base += last) {
    for (int64_t k = 1; k < last; ++k) {
      if (At(base + k - 1) > At(base + k)) return false;
    }
  }
  return true;
}

void TileAssignment::Each(const std::function<void(std::span<const int64_t>, int64_t)>& f) const {
  const int64_t rank = num_dimensions();
  std::vector<int64_t> index(rank, 0);
  for (int64_t linear = 0; linear < rep_->n; ++linear) {
    f(index, At(linear));
    for (int64_t i = rank - 1; i >= 0; --i) {
      if (++index[i] < rep_->dims[i]) break;
      index[i] = 0;
    }
  }
}

std::string TileAssignment::ToString() const {
  std::string out = fmt::format("[{}]", fmt::join(rep_->dims, ","));
  if (rep_->iota) {
    out += fmt::format("<=[{}]", fmt::join(rep_->reshape_dims, ","));
    if (rep_->reshape_dims.size() > 1) out += fmt::format("T({})", fmt::join(rep_->perm, ","));
  } else {
    out += fmt::format("{}", fmt::join(*rep_->devices, ","));
  }
  return out;
}

bool operator==(const TileAssignment& a, const TileAssignment& b) {
  if (a.rep_ == b.rep_) return true;
  if (a.rep_->dims != b.rep_->dims) return false;
  if (a.rep_->iota && b.rep_->iota) return a.rep_->groups == b.rep_->groups;
  for (int64_t i = 0; i < a.rep_->n; ++i) {
    if (a.At(i) != b.At(i)) return false;
  }
  return true;
}

}  // namespace spmdc

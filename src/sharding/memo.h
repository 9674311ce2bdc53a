// Internal to the sharding algebra: per-thread memo tables for its pure functions.
//
// Shardings are immutable values, and propagation / partitioning ask the same algebra questions
// about the same (often shared) shardings over and over. A memo key holds its sharding arguments
// by value (so they stay alive) and compares them semantically *and* by metadata, which is all a
// result can depend on; a hit therefore returns exactly what recomputing would. Tables are
// per thread (no locking) and bounded: a full table is simply cleared.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/hash/hash.h"
#include "sharding/sharding.h"

namespace spmdc::sharding_internal {

inline bool SameWithMetadata(const Sharding& a, const Sharding& b) {
  if (!(a == b)) return false;
  const ShardingMetadata& x = a.metadata();
  const ShardingMetadata& y = b.metadata();
  return &x == &y || x == y;
}

struct MemoKey {
  uint32_t fn = 0;
  Sharding a, b;
  absl::InlinedVector<int64_t, 14> args;
  size_t hash = 0;

  MemoKey(uint32_t f, const Sharding& x, const Sharding& y = Sharding()) : fn(f), a(x), b(y) {}
  void Add(int64_t v) { args.push_back(v); }
  void Add(std::span<const int64_t> v) {
    args.push_back(static_cast<int64_t>(v.size()));
    args.insert(args.end(), v.begin(), v.end());
  }
  void Seal() {
    hash = absl::HashOf(fn, a.Hash(), a.metadata().size(), b.Hash(), b.metadata().size(),
                        absl::Span<const int64_t>(args.data(), args.size()));
  }
  bool operator==(const MemoKey& o) const {
    return hash == o.hash && fn == o.fn && args == o.args && SameWithMetadata(a, o.a) &&
           SameWithMetadata(b, o.b);
  }
};

struct MemoKeyHash {
  size_t operator()(const MemoKey& k) const { return k.hash; }
};

template <typename V>
class Memo {
 public:
  const V* Find(const MemoKey& key) const {
    auto it = map_.find(key);
    return it == map_.end() ? nullptr : &it->second;
  }
  const V& Insert(MemoKey key, V value) {
    if (map_.size() >= kMaxEntries) map_.clear();
    return map_.insert_or_assign(std::move(key), std::move(value)).first->second;
  }

 private:
  static constexpr size_t kMaxEntries = 1 << 14;
  absl::flat_hash_map<MemoKey, V, MemoKeyHash> map_;
};

// The function ids of the memo keys.
enum MemoFn : uint32_t {
  kMemoTranspose = 1,
  kMemoReshape,
  kMemoPartiallyReplicate,
  kMemoRemoveDims,
  kMemoCollapsedTranspose,
  kMemoMerge,
  kMemoSubTiling,
  kMemoMapDims,
  kMemoReshapeThrough,
  kMemoGroupLocal,
  kMemoManualGroups,
};

// Whether keeping a value in a table costs little memory: explicit device arrays are only kept
// when small (an iota is a few numbers whatever its size).
inline bool Compact(const Sharding& s) {
  return !s.IsTiled() || s.tile_assignment().is_iota() || s.tile_assignment().num_elements() <= 512;
}
inline bool Compact(const std::optional<Sharding>& s) { return !s || Compact(*s); }
inline bool Compact(bool) { return true; }

// Looks `key` up in a per-thread table (one per call site); computes and stores compute() on a
// miss. Keys or values holding large explicit device arrays are not kept.
template <typename V, typename F>
V Memoized(MemoKey key, F&& compute) {
  thread_local Memo<V> memo;
  if (!Compact(key.a) || !Compact(key.b)) return compute();
  key.Seal();
  if (const V* hit = memo.Find(key)) return *hit;
  V value = compute();
  if (!Compact(value)) return value;
  return memo.Insert(std::move(key), std::move(value));
}

}  // namespace spmdc::sharding_internal

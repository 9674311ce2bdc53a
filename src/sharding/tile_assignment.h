// TileAssignment: the N-d array of device ids behind a tiled sharding (GSPMD.md §1.2).
//
// Two representations, one meaning:
//   * iota (V2): arange(n).reshape(reshape_dims).transpose(perm).reshape(dims), kept compact as a
//     canonical list of (size, stride) "groups" in row-major order of the output; element lookup,
//     inverse lookup, Reshape and most Transposes never materialise the n ids;
//   * explicit (V1): the ids row-major, shared (shared_ptr) between copies and reshapes.
// An explicit array that happens to be an iota is stored as an iota on construction, so the text
// form and equality are canonical. Values are immutable; copies are one refcount bump.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace spmdc {

class TileAssignment {
 public:
  // A single device 0 (the tile array of a maximal sharding on device 0), dims [1].
  TileAssignment();
  // arange(prod(dims)).reshape(dims).
  explicit TileAssignment(std::vector<int64_t> dims);
  // arange(prod(reshape_dims)).reshape(reshape_dims).transpose(perm).reshape(dims). CHECKs that
  // the products agree and that perm is a permutation of reshape_dims' rank.
  TileAssignment(std::vector<int64_t> dims, const std::vector<int64_t>& reshape_dims,
                 const std::vector<int64_t>& perm);
  // Explicit ids, row-major over `dims` (CHECKs the count). Stored as an iota when it is one.
  static TileAssignment FromDevices(std::vector<int64_t> dims, std::vector<int64_t> devices);

  const std::vector<int64_t>& dims() const;
  int64_t num_dimensions() const { return static_cast<int64_t>(dims().size()); }
  int64_t dim(int64_t i) const { return dims()[i]; }
  int64_t num_elements() const;

  // Device at a full (all dims) index, or at a row-major linear position.
  int64_t operator()(std::span<const int64_t> index) const;
  int64_t operator()(std::initializer_list<int64_t> index) const {
    return (*this)(std::span<const int64_t>(index.begin(), index.size()));
  }
  int64_t At(int64_t linear) const;
  int64_t first() const { return At(0); }

  // Row-major position of `device`, or nullopt when the array does not hold it.
  std::optional<int64_t> LinearIndexOf(int64_t device) const;
  // Full index of `device`, or nullopt.
  std::optional<std::vector<int64_t>> IndexOf(int64_t device) const;
  bool UsesDevice(int64_t device) const { return LinearIndexOf(device).has_value(); }

  bool is_iota() const;
  // The canonical iota description (only when is_iota()).
  const std::vector<int64_t>& reshape_dims() const;
  const std::vector<int64_t>& transpose_perm() const;

  // The ids row-major; materialised on first use for an iota, then cached and shared.
  const std::vector<int64_t>& devices() const;
  // How many ids devices() has materialised from iota form since the process started (all
  // threads): a diagnostic, and what tests use to check that passes keep large meshes compact.
  static int64_t MaterializedIds();

  // Same ids, new dims (products must agree). Iota stays iota.
  TileAssignment Reshape(std::vector<int64_t> new_dims) const;
  // Output dim i is input dim perm[i]. Stays iota whenever the result is one.
  TileAssignment Transpose(std::span<const int64_t> perm) const;

  // Whether the ids along the last dim increase in every row (O(rank) for most iotas).
  bool IsSortedAlongLastDim() const;

  // Calls f(index, device) for every element in row-major order.
  void Each(const std::function<void(std::span<const int64_t>, int64_t)>& f) const;

  // "[2,2]<=[4]", "[2,2]<=[2,2]T(1,0)" or "[2,2]0,2,1,3".
  std::string ToString() const;

  friend bool operator==(const TileAssignment& a, const TileAssignment& b);

  struct Rep;

 private:
  explicit TileAssignment(std::shared_ptr<const Rep> rep) : rep_(std::move(rep)) {}
  std::shared_ptr<const Rep> rep_;
};

}  // namespace spmdc

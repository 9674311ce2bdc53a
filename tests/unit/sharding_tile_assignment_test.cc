// TileAssignment: iota canonicalisation, lookup without materialising, Reshape/Transpose, and
// property tests against a naive N-d array implementation.
#include "sharding/tile_assignment.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

namespace spmdc {
namespace {

// Naive row-major transpose of `a` (dims) by perm: out dim i = in dim perm[i].
std::vector<int64_t> NaiveTranspose(const std::vector<int64_t>& a, const std::vector<int64_t>& dims,
                                    const std::vector<int64_t>& perm) {
  const size_t rank = dims.size();
  std::vector<int64_t> strides(rank, 1);
  for (int64_t i = static_cast<int64_t>(rank) - 2; i >= 0; --i) strides[i] = strides[i + 1] * dims[i + 1];
  std::vector<int64_t> out_dims(rank);
  for (size_t i = 0; i < rank; ++i) out_dims[i] = dims[perm[i]];
  std::vector<int64_t> out(a.size());
  std::vector<int64_t> idx(rank, 0);
  for (size_t linear = 0; linear < a.size(); ++linear) {
    int64_t src = 0;
    for (size_t i = 0; i < rank; ++i) src += idx[i] * strides[perm[i]];
    out[linear] = a[src];
    for (int64_t i = static_cast<int64_t>(rank) - 1; i >= 0; --i) {
      if (++idx[i] < out_dims[i]) break;
      idx[i] = 0;
    }
  }
  return out;
}

std::vector<int64_t> NaiveIota(const std::vector<int64_t>& reshape, const std::vector<int64_t>& perm) {
  int64_t n = 1;
  for (int64_t d : reshape) n *= d;
  std::vector<int64_t> a(n);
  std::iota(a.begin(), a.end(), 0);
  return NaiveTranspose(a, reshape, perm);
}

// Random factorisation of n into `parts` factors from small primes.
std::vector<int64_t> RandomDims(std::mt19937& rng, int max_rank) {
  std::uniform_int_distribution<int> rank_dist(1, max_rank);
  std::uniform_int_distribution<int> size_dist(1, 4);
  std::vector<int64_t> dims(rank_dist(rng));
  for (auto& d : dims) d = size_dist(rng);
  return dims;
}

std::vector<int64_t> RandomPerm(std::mt19937& rng, size_t n) {
  std::vector<int64_t> p(n);
  std::iota(p.begin(), p.end(), 0);
  std::shuffle(p.begin(), p.end(), rng);
  return p;
}

TEST(TileAssignment, CanonicalIota) {
  TileAssignment a({3, 4, 5}, {3, 4, 5}, {0, 1, 2});
  EXPECT_EQ(a.reshape_dims(), (std::vector<int64_t>{60}));
  TileAssignment b({60}, {3, 4, 5}, {1, 2, 0});
  EXPECT_EQ(b.reshape_dims(), (std::vector<int64_t>{3, 20}));
  EXPECT_EQ(b.transpose_perm(), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(b.ToString(), "[60]<=[3,20]T(1,0)");
  TileAssignment c({4, 4, 1}, {4, 2, 2}, {1, 0, 2});
  EXPECT_EQ(c.devices(), (std::vector<int64_t>{0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15}));
  EXPECT_EQ(c({1, 2, 0}), 12);
  EXPECT_EQ(*c.LinearIndexOf(6), 10);
  EXPECT_EQ(*c.IndexOf(6), (std::vector<int64_t>{2, 2, 0}));
  EXPECT_FALSE(c.UsesDevice(16));
}

TEST(TileAssignment, ExplicitDetectsIota) {
  EXPECT_TRUE(TileAssignment::FromDevices({2, 2}, {0, 2, 1, 3}).is_iota());
  EXPECT_EQ(TileAssignment::FromDevices({2, 2}, {0, 2, 1, 3}).ToString(), "[2,2]<=[2,2]T(1,0)");
  EXPECT_FALSE(TileAssignment::FromDevices({4}, {0, 2, 3, 1}).is_iota());
  EXPECT_FALSE(TileAssignment::FromDevices({2}, {3, 5}).is_iota());
  EXPECT_EQ(TileAssignment::FromDevices({4}, {0, 2, 3, 1}).ToString(), "[4]0,2,3,1");
  EXPECT_EQ(TileAssignment::FromDevices({1}, {0}), TileAssignment({1}));
}

TEST(TileAssignment, TransposeStaysIota) {
  TileAssignment a({2, 4});
  TileAssignment t = a.Transpose(std::vector<int64_t>{1, 0});
  EXPECT_TRUE(t.is_iota());
  EXPECT_EQ(t.ToString(), "[4,2]<=[2,4]T(1,0)");
  // A transpose that needs a group split: [4,2]<=[8] viewed as [2,2,2] etc.
  TileAssignment b({4, 2}, {2, 4}, {1, 0});  // array [0,4,1,5,2,6,3,7]
  TileAssignment bt = b.Transpose(std::vector<int64_t>{1, 0});
  EXPECT_TRUE(bt.is_iota());
  EXPECT_EQ(bt.devices(), NaiveTranspose(b.devices(), {4, 2}, {1, 0}));
}

TEST(TileAssignment, ShareMaterialisedArrays) {
  TileAssignment a = TileAssignment::FromDevices({4}, {0, 2, 3, 1});
  TileAssignment b = a.Reshape({2, 2});
  EXPECT_EQ(&a.devices(), &b.devices());  // one buffer
  TileAssignment big({4096});
  TileAssignment copy = big;
  EXPECT_EQ(copy.At(4095), 4095);  // no materialisation needed
}

// Property: for random iotas, lookup, inverse lookup, materialisation, explicit detection and
// transposes agree with a naive implementation.
TEST(TileAssignment, RandomIotaProperties) {
  std::mt19937 rng(1234);
  for (int iter = 0; iter < 400; ++iter) {
    std::vector<int64_t> reshape = RandomDims(rng, 4);
    std::vector<int64_t> perm = RandomPerm(rng, reshape.size());
    std::vector<int64_t> want = NaiveIota(reshape, perm);
    const int64_t n = static_cast<int64_t>(want.size());
    // Random output dims with the same product: reuse a shuffled factorisation.
    std::vector<int64_t> dims = reshape;
    std::shuffle(dims.begin(), dims.end(), rng);
    TileAssignment ta(dims, reshape, perm);
    ASSERT_EQ(ta.num_elements(), n);
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(ta.At(i), want[i]);
      ASSERT_EQ(*ta.LinearIndexOf(want[i]), i);
    }
    EXPECT_EQ(ta.devices(), want);
    TileAssignment ex = TileAssignment::FromDevices(dims, want);
    EXPECT_TRUE(ex.is_iota());
    EXPECT_EQ(ex, ta);
    EXPECT_EQ(ex.ToString(), ta.ToString());
    // Row sortedness along the last dim agrees with the materialised array.
    bool sorted = true;
    for (int64_t base = 0; base < n; base += dims.back()) {
      for (int64_t k = 1; k < dims.back(); ++k) sorted &= want[base + k - 1] < want[base + k];
    }
    EXPECT_EQ(ta.IsSortedAlongLastDim(), sorted) << ta.ToString();
    // Transpose by a random perm of the output dims.
    std::vector<int64_t> tp = RandomPerm(rng, dims.size());
    TileAssignment t = ta.Transpose(tp);
    EXPECT_EQ(t.devices(), NaiveTranspose(want, dims, tp));
    // Transposing back is the identity.
    std::vector<int64_t> inverse(tp.size());
    for (size_t i = 0; i < tp.size(); ++i) inverse[tp[i]] = static_cast<int64_t>(i);
    EXPECT_EQ(t.Transpose(inverse), ta);
    // Equality across representations after transposes.
    EXPECT_EQ(TileAssignment::FromDevices(t.dims(), t.devices()), t);
  }
}

TEST(TileAssignment, RandomExplicitProperties) {
  std::mt19937 rng(99);
  for (int iter = 0; iter < 200; ++iter) {
    std::vector<int64_t> dims = RandomDims(rng, 3);
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    std::vector<int64_t> ids = RandomPerm(rng, n);
    TileAssignment ta = TileAssignment::FromDevices(dims, ids);
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(ta.At(i), ids[i]);
      ASSERT_EQ(*ta.LinearIndexOf(ids[i]), i);
    }
    std::vector<int64_t> tp = RandomPerm(rng, dims.size());
    EXPECT_EQ(ta.Transpose(tp).devices(), NaiveTranspose(ids, dims, tp));
  }
}

}  // namespace
}  // namespace spmdc

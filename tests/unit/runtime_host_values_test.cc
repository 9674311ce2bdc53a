// RandomFillBox: the box of a random argument generated alone is bit for bit the same box of
// RandomLiteral's whole value (the MPI backend's ranks generate only their shards).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "runtime/host_sharding.h"
#include "runtime/host_values.h"

namespace spmdc {
namespace {

TEST(RandomFillBox, MatchesTheWholeValuesBox) {
  for (DType t : {DType::kF32, DType::kBF16, DType::kF16, DType::kF8E4M3FN, DType::kS32, DType::kU8,
                  DType::kS4, DType::kPred, DType::kC64, DType::kC128, DType::kF64}) {
    const Shape shape(t, {7, 5, 3});
    const uint64_t seed = ParameterSeed(11, 2);
    const Literal whole = RandomLiteral(shape, seed);
    const std::vector<int64_t> lo = {4, 1, 0}, hi = {7, 4, 3};
    // A padded box (one more row), as a ceil-sized tile is.
    Literal box(Shape(t, {4, 3, 3}));
    RandomFillBox(shape, seed, lo, hi, box);
    Literal want(Shape(t, {4, 3, 3}));
    CopyBox(whole.raw(), shape.dims(), lo, want.mutable_raw(), want.shape().dims(), {0, 0, 0},
            {3, 3, 3}, DTypeByteSize(t));
    ASSERT_EQ(box.size_bytes(), want.size_bytes());
    EXPECT_EQ(std::memcmp(box.raw(), want.raw(), box.size_bytes()), 0) << DTypeName(t);
  }
  // A scalar.
  const Shape scalar(DType::kF32, {});
  Literal one(scalar);
  RandomFillBox(scalar, 5, {}, {}, one);
  const Literal whole = RandomLiteral(scalar, 5);
  EXPECT_EQ(std::memcmp(one.raw(), whole.raw(), 4), 0);
}

}  // namespace
}  // namespace spmdc

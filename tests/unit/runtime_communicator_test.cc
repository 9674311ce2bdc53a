// The thread backend's collectives on 1, 2, 3, 4 and 8 devices, with uneven group layouts,
// native and custom reductions, repeated calls, and the failure paths (abort, a device that
// finishes early, mismatched calls, deadlock) that must end in errors, never hangs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include "ir/float_types.h"
#include "runtime/communicator.h"
#include "runtime/thread_communicator.h"

namespace spmdc {
namespace {

// Runs fn(comm) on n threads; returns each thread's status.
std::vector<Status> RunAll(int64_t n, const std::function<Status(ThreadCommunicator&)>& fn,
                           ThreadWorld* world_in = nullptr) {
  ThreadWorld local(n);
  ThreadWorld* world = world_in ? world_in : &local;
  std::vector<Status> st(n);
  std::vector<std::thread> threads;
  for (int64_t d = 0; d < n; ++d)
    threads.emplace_back([&, d] {
      ThreadCommunicator comm(world, d);
      st[d] = fn(comm);
      world->MarkDone(d);
    });
  for (auto& t : threads) t.join();
  return st;
}

void ExpectAllOk(const std::vector<Status>& st) {
  for (size_t i = 0; i < st.size(); ++i) EXPECT_TRUE(st[i].ok()) << "device " << i << ": " << st[i];
}

// Groups partitioning 0..n-1 unevenly.
std::vector<DeviceGroup> UnevenGroups(int64_t n) {
  switch (n) {
    case 1:
      return {{0}};
    case 2:
      return {{1, 0}};
    case 3:
      return {{2, 0}, {1}};
    case 4:
      return {{3, 1, 0}, {2}};
    default:
      return {{0, 3, 5}, {1, 2}, {4}, {7, 6}};
  }
}
DeviceGroup GroupOf(const std::vector<DeviceGroup>& groups, int64_t d) {
  for (const auto& g : groups)
    for (int64_t x : g)
      if (x == d) return g;
  return {};
}

class CommSizes : public ::testing::TestWithParam<int64_t> {};

TEST_P(CommSizes, AllReduceSumAllAndUneven) {
  const int64_t n = GetParam();
  for (bool uneven : {false, true}) {
    const auto groups = uneven ? UnevenGroups(n) : std::vector<DeviceGroup>{[&] {
      DeviceGroup g;
      for (int64_t i = 0; i < n; ++i) g.push_back(i);
      return g;
    }()};
    for (int64_t count : {0, 1, 5, 1000, 100003}) {
      std::vector<std::vector<float>> outs(n, std::vector<float>(count));
      auto st = RunAll(n, [&](ThreadCommunicator& c) -> Status {
        std::vector<float> in(count);
        for (int64_t i = 0; i < count; ++i) in[i] = float(c.rank() * 1000 + i % 97);
        return c.AllReduce(GroupOf(groups, c.rank()), DType::kF32, in.data(), outs[c.rank()].data(),
                           count, {ReductionKind::kSum, nullptr});
      });
      ExpectAllOk(st);
      for (int64_t d = 0; d < n; ++d) {
        const DeviceGroup g = GroupOf(groups, d);
        for (int64_t i = 0; i < count; ++i) {
          float want = 0;
          for (int64_t r : g) want += float(r * 1000 + i % 97);
          ASSERT_EQ(outs[d][i], want) << "n=" << n << " d=" << d << " i=" << i;
        }
      }
    }
  }
}

TEST_P(CommSizes, AllGatherReduceScatterAllToAll) {
  const int64_t n = GetParam();
  const auto groups = UnevenGroups(n);
  const int64_t m = 7;  // elements per member chunk
  std::vector<std::vector<int32_t>> gathered(n), scattered(n), exchanged(n);
  auto st = RunAll(n, [&](ThreadCommunicator& c) -> Status {
    const DeviceGroup g = GroupOf(groups, c.rank());
    const int64_t k = g.size();
    const int64_t r = c.rank();
    std::vector<int32_t> mine(m);
    for (int64_t i = 0; i < m; ++i) mine[i] = int32_t(r * 100 + i);
    gathered[r].resize(k * m);
    RETURN_IF_ERROR(c.AllGather(g, mine.data(), gathered[r].data(), m * 4));
    std::vector<int32_t> big(k * m);
    for (int64_t i = 0; i < k * m; ++i) big[i] = int32_t(r + i);
    scattered[r].resize(m);
    RETURN_IF_ERROR(c.ReduceScatter(g, DType::kS32, big.data(), scattered[r].data(), m,
                                    {ReductionKind::kSum, nullptr}));
    std::vector<int32_t> send(k * m);
    for (int64_t j = 0; j < k; ++j)
      for (int64_t i = 0; i < m; ++i) send[j * m + i] = int32_t(r * 10000 + g[j] * 100 + i);
    exchanged[r].resize(k * m);
    return c.AllToAll(g, send.data(), exchanged[r].data(), m * 4);
  });
  ExpectAllOk(st);
  for (int64_t d = 0; d < n; ++d) {
    const DeviceGroup g = GroupOf(groups, d);
    const int64_t k = g.size();
    const int64_t pos = std::find(g.begin(), g.end(), d) - g.begin();
    for (int64_t j = 0; j < k; ++j)
      for (int64_t i = 0; i < m; ++i) {
        EXPECT_EQ(gathered[d][j * m + i], g[j] * 100 + i);
        EXPECT_EQ(exchanged[d][j * m + i], g[j] * 10000 + d * 100 + i);
      }
    for (int64_t i = 0; i < m; ++i) {
      int32_t want = 0;
      for (int64_t r : g) want += int32_t(r + pos * m + i);
      EXPECT_EQ(scattered[d][i], want);
    }
  }
}

TEST_P(CommSizes, PermuteBroadcastBarrierRepeated) {
  const int64_t n = GetParam();
  DeviceGroup all;
  for (int64_t i = 0; i < n; ++i) all.push_back(i);
  // A shift by one without the wrap-around: device 0 receives nothing.
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for (int64_t i = 0; i + 1 < n; ++i) pairs.emplace_back(i, i + 1);
  std::vector<std::vector<int64_t>> got(n), bcast(n);
  std::vector<int64_t> loop(n);
  auto st = RunAll(n, [&](ThreadCommunicator& c) -> Status {
    const int64_t r = c.rank();
    std::vector<int64_t> in(3, r + 1);
    got[r].assign(3, -1);
    RETURN_IF_ERROR(c.CollectivePermute(all, pairs, in.data(), got[r].data(), 24));
    bcast[r].assign(3, -1);
    RETURN_IF_ERROR(c.CollectiveBroadcast(all, n - 1, in.data(), bcast[r].data(), 24));
    // The same collective many times (a while loop's body): x <- sum(x) / n stays r-independent.
    int64_t x = r;
    for (int it = 0; it < 200; ++it) {
      int64_t y = 0;
      RETURN_IF_ERROR(c.AllReduce(all, DType::kS64, &x, &y, 1, {ReductionKind::kSum, nullptr}));
      RETURN_IF_ERROR(c.Barrier(all));
      x = y % 1000003 + it;
    }
    loop[r] = x;
    return absl::OkStatus();
  });
  ExpectAllOk(st);
  for (int64_t d = 0; d < n; ++d) {
    EXPECT_EQ(got[d][0], d == 0 ? 0 : d);  // from d-1, whose value is d
    EXPECT_EQ(bcast[d][2], n);
    EXPECT_EQ(loop[d], loop[0]);
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, CommSizes, ::testing::Values(1, 2, 3, 4, 8));

TEST(Reductions, NativeKindsAndDtypes) {
  const int64_t n = 3;
  DeviceGroup all = {0, 1, 2};
  std::vector<std::vector<int32_t>> res(n);
  std::vector<std::vector<float>> fres(n);
  std::vector<std::vector<uint16_t>> bres(n);
  std::vector<std::vector<uint8_t>> pres(n);
  auto st = RunAll(n, [&](ThreadCommunicator& c) -> Status {
    const int32_t r = int32_t(c.rank());
    std::vector<int32_t> in = {r + 1, -r, r == 1 ? 6 : 3, 0x7fffffff};
    res[r].resize(4 * 6);
    int k = 0;
    for (ReductionKind kind : {ReductionKind::kSum, ReductionKind::kProduct, ReductionKind::kMax,
                               ReductionKind::kMin, ReductionKind::kAnd, ReductionKind::kOr}) {
      RETURN_IF_ERROR(
          c.AllReduce(all, DType::kS32, in.data(), res[r].data() + 4 * k++, 4, {kind, nullptr}));
    }
    std::vector<float> f = {float(r), r == 1 ? NAN : 1.0f};
    fres[r].resize(2);
    RETURN_IF_ERROR(
        c.AllReduce(all, DType::kF32, f.data(), fres[r].data(), 2, {ReductionKind::kMax, nullptr}));
    std::vector<uint16_t> b = {FloatToBF16(0.5f * float(r + 1))};
    bres[r].resize(1);
    RETURN_IF_ERROR(c.AllReduce(all, DType::kBF16, b.data(), bres[r].data(), 1,
                                {ReductionKind::kSum, nullptr}));
    std::vector<uint8_t> p = {uint8_t(r == 2), 1};
    pres[r].resize(4);
    RETURN_IF_ERROR(
        c.AllReduce(all, DType::kPred, p.data(), pres[r].data(), 2, {ReductionKind::kOr, nullptr}));
    return c.AllReduce(all, DType::kPred, p.data(), pres[r].data() + 2, 2,
                       {ReductionKind::kAnd, nullptr});
  });
  ExpectAllOk(st);
  for (int64_t d = 0; d < n; ++d) {
    const auto& v = res[d];
    EXPECT_EQ(v[0], 6);
    EXPECT_EQ(v[1], -3);
    EXPECT_EQ(v[3], int32_t(uint32_t(0x7fffffff) * 3));  // wraps
    EXPECT_EQ(v[4], 6);                                  // product
    EXPECT_EQ(v[8 + 0], 3);                              // max
    EXPECT_EQ(v[8 + 2], 6);
    EXPECT_EQ(v[12 + 1], -2);         // min
    EXPECT_EQ(v[16 + 0], 1 & 2 & 3);  // and
    EXPECT_EQ(v[20 + 0], 1 | 2 | 3);  // or
    EXPECT_EQ(fres[d][0], 2.0f);
    EXPECT_TRUE(std::isnan(fres[d][1]));  // NaN propagates through max
    EXPECT_EQ(BF16ToFloat(bres[d][0]), 3.0f);
    EXPECT_EQ(pres[d], (std::vector<uint8_t>{1, 1, 0, 1}));
  }
  EXPECT_TRUE(HasNativeReduction(ReductionKind::kSum, DType::kC64));
  EXPECT_FALSE(HasNativeReduction(ReductionKind::kMax, DType::kC64));
  EXPECT_FALSE(HasNativeReduction(ReductionKind::kAnd, DType::kF32));
}

TEST(Reductions, CustomCallback) {
  const int64_t n = 4;
  DeviceGroup all = {0, 1, 2, 3};
  std::vector<std::vector<int64_t>> res(n, std::vector<int64_t>(100));
  auto st = RunAll(n, [&](ThreadCommunicator& c) -> Status {
    std::vector<int64_t> in(100);
    for (int i = 0; i < 100; ++i) in[i] = c.rank() + i;
    Reduction red;
    red.kind = ReductionKind::kCustom;
    red.combine = [](void* acc, const void* in, int64_t count) -> Status {
      auto* a = static_cast<int64_t*>(acc);
      auto* b = static_cast<const int64_t*>(in);
      for (int64_t i = 0; i < count; ++i) a[i] = a[i] * 10 + b[i];  // order-sensitive
      return absl::OkStatus();
    };
    return c.AllReduce(all, DType::kS64, in.data(), res[c.rank()].data(), 100, red);
  });
  ExpectAllOk(st);
  for (int64_t d = 0; d < n; ++d)
    for (int i = 0; i < 100; ++i) {
      const int64_t want = ((i * 10 + (1 + i)) * 10 + (2 + i)) * 10 + (3 + i);  // group order
      ASSERT_EQ(res[d][i], want);
    }
}

TEST(Failures, AbortWakesWaiters) {
  ThreadWorld world(4);
  auto st = RunAll(
      4,
      [&](ThreadCommunicator& c) -> Status {
        if (c.rank() == 2) {
          world.Abort(Internal("device 2 failed"));
          return Internal("device 2 failed");
        }
        float x = 1, y = 0;
        return c.AllReduce({0, 1, 2, 3}, DType::kF32, &x, &y, 1, {});
      },
      &world);
  for (int d : {0, 1, 3}) {
    EXPECT_FALSE(st[d].ok());
    EXPECT_NE(std::string(st[d].message()).find("device 2 failed"), std::string::npos) << st[d];
  }
}

TEST(Failures, PeerFinishedEarly) {
  auto st = RunAll(3, [&](ThreadCommunicator& c) -> Status {
    if (c.rank() == 1) return absl::OkStatus();  // never joins
    float x = 1, y = 0;
    return c.AllReduce({0, 1, 2}, DType::kF32, &x, &y, 1, {});
  });
  EXPECT_TRUE(st[1].ok());
  EXPECT_FALSE(st[0].ok());
  EXPECT_FALSE(st[2].ok());
  EXPECT_NE(std::string(st[0].message()).find("device 1 finished"), std::string::npos) << st[0];
}

TEST(Failures, MismatchedCallsReportedByAll) {
  auto st = RunAll(2, [&](ThreadCommunicator& c) -> Status {
    float x[4] = {1, 2, 3, 4}, y[8];
    if (c.rank() == 0) return c.AllReduce({0, 1}, DType::kF32, x, y, 4, {});
    return c.AllGather({0, 1}, x, y, 16);
  });
  for (const auto& s : st) {
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_NE(std::string(s.message()).find("mismatched"), std::string::npos) << s;
  }
}

TEST(Failures, DeadlockDetected) {
  // Each device waits in a different pairwise collective: nobody can ever complete.
  auto st = RunAll(3, [&](ThreadCommunicator& c) -> Status {
    const DeviceGroup g = c.rank() == 0   ? DeviceGroup{0, 1}
                          : c.rank() == 1 ? DeviceGroup{1, 2}
                                          : DeviceGroup{2, 0};
    return c.Barrier(g);
  });
  for (const auto& s : st) {
    EXPECT_FALSE(s.ok());
    EXPECT_NE(std::string(s.message()).find("deadlock"), std::string::npos) << s;
  }
}

TEST(Failures, BadGroups) {
  auto st = RunAll(2, [&](ThreadCommunicator& c) -> Status {
    float x = 0, y = 0;
    return c.AllReduce({c.rank() == 0 ? int64_t{1} : int64_t{5}}, DType::kF32, &x, &y, 1, {});
  });
  EXPECT_EQ(st[0].code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(st[1].code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace spmdc

// MpiCommunicator against the thread backend: every collective, on several group layouts, every
// reduction kind on every dtype family (built-in MPI operations and user-defined ones: f16, bf16,
// f8, sub-byte integers, complex, NaN-propagating min/max, custom computations), with one or
// more devices per rank. Run under mpirun (tests/mpi/mpi_test.py): every rank computes the
// expected outputs of all devices with the thread backend in-process, runs its own devices on
// MPI and compares bytes. Inputs are small integers (or NaN), so that every reduction order gives
// the same bits. SPMDC_TEST_DEVICES_PER_RANK sets K (default 1).
#include "runtime/mpi_communicator.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "interpreter/dtype_traits.h"
#include "runtime/thread_communicator.h"

namespace spmdc {
namespace {

MpiWorld* g_world = nullptr;

using Bytes = std::vector<std::byte>;
// One device's collective: returns its output bytes.
using DeviceOp = std::function<StatusOr<Bytes>(Communicator& comm, int64_t device)>;

std::vector<Bytes> Oracle(int64_t n, const DeviceOp& op) {
  ThreadWorld world(n);
  std::vector<StatusOr<Bytes>> out(n, Bytes());
  std::vector<std::thread> threads;
  for (int64_t d = 0; d < n; ++d)
    threads.emplace_back([&, d] {
      ThreadCommunicator comm(&world, d);
      out[d] = op(comm, d);
      world.MarkDone(d);
    });
  for (auto& t : threads) t.join();
  std::vector<Bytes> result;
  for (int64_t d = 0; d < n; ++d) {
    EXPECT_TRUE(out[d].ok()) << "oracle device " << d << ": " << out[d].status();
    result.push_back(out[d].ok() ? *out[d] : Bytes());
  }
  return result;
}

// Runs `op` on this rank's devices over MPI and compares with the thread backend.
void Check(const std::string& what, const DeviceOp& op) {
  const int64_t n = g_world->devices();
  const std::vector<Bytes> want = Oracle(n, op);
  const int64_t k = g_world->devices_per_rank();
  g_world->ResetLocal();
  std::vector<StatusOr<Bytes>> got(k, Bytes());
  std::vector<std::thread> threads;
  for (int64_t i = 0; i < k; ++i)
    threads.emplace_back([&, i] {
      const int64_t d = g_world->first_local_device() + i;
      MpiCommunicator comm(g_world, d);
      got[i] = op(comm, d);
      g_world->local()->MarkDone(d);
    });
  for (auto& t : threads) t.join();
  for (int64_t i = 0; i < k; ++i) {
    const int64_t d = g_world->first_local_device() + i;
    ASSERT_TRUE(got[i].ok()) << what << ", device " << d << ": " << got[i].status();
    EXPECT_EQ(*got[i], want[d]) << what << ": device " << d << " differs from the thread backend";
  }
}

// Element i of device d: a small integer in [-1, 1] (0/1 for pred and unsigned types), NaN at
// one place on device 1 for floats when `nan`.
Bytes Input(DType t, int64_t d, int64_t count, uint64_t salt, bool nan = false) {
  Bytes b(count * DTypeByteSize(t));
  interp::DispatchDType(t, [&](auto tag) {
    constexpr DType D = decltype(tag)::value;
    using T = interp::Traits<D>;
    using S = typename T::S;
    using C = typename T::C;
    S* p = reinterpret_cast<S*>(b.data());
    for (int64_t i = 0; i < count; ++i) {
      const uint64_t h = (d * 1000003u + i * 7919u + salt * 104729u) % 3;
      int v = static_cast<int>(h) - 1;
      if constexpr (T::kIsPred || T::kIsUnsigned) v = v < 0 ? 0 : v;
      if constexpr (T::kIsComplex) {
        p[i] = T::Store(C(v, (static_cast<int>((h + i) % 3)) - 1));
      } else {
        p[i] = T::Store(static_cast<C>(v));
      }
      if constexpr (T::kIsFloat) {
        if (nan && d == 1 && i == 3) p[i] = T::Store(static_cast<C>(std::nanf("")));
      }
    }
  });
  return b;
}

std::vector<DeviceGroup> Layouts(int64_t n) {
  std::vector<DeviceGroup> all;
  DeviceGroup world;
  for (int64_t d = 0; d < n; ++d) world.push_back(d);
  all.push_back(world);
  DeviceGroup reversed(world.rbegin(), world.rend());
  all.push_back(reversed);
  return all;
}

// The group of `d` in a set of groups: the world, the world reversed, pairs {2i, 2i+1}, strided
// {i, i+n/2}, or uneven ({0..n-2}, {n-1}).
constexpr int kLayouts = 5;
DeviceGroup GroupFor(int layout, int64_t n, int64_t d) {
  if (layout == 4) {
    if (d == n - 1) return {n - 1};
    DeviceGroup g;
    for (int64_t i = 0; i + 1 < n; ++i) g.push_back(i);
    return g;
  }
  if (layout == 0) return Layouts(n)[0];
  if (layout == 1) return Layouts(n)[1];
  if (layout == 2) return n % 2 == 0 ? DeviceGroup{d - d % 2, d - d % 2 + 1} : Layouts(n)[0];
  const int64_t h = n / 2;
  if (n % 2) return Layouts(n)[0];
  return d < h ? DeviceGroup{d, d + h} : DeviceGroup{d - h, d};
}

const std::vector<DType> kTypes = {
    DType::kPred, DType::kS4,  DType::kU8,       DType::kS8,     DType::kS16, DType::kU16,
    DType::kS32,  DType::kU32, DType::kS64,      DType::kU64,    DType::kF16, DType::kBF16,
    DType::kF32,  DType::kF64, DType::kF8E4M3FN, DType::kF8E5M2, DType::kC64, DType::kC128};
const std::vector<ReductionKind> kKinds = {ReductionKind::kSum, ReductionKind::kProduct,
                                           ReductionKind::kMin, ReductionKind::kMax,
                                           ReductionKind::kAnd, ReductionKind::kOr};

TEST(MpiCommunicator, AllReduceEveryKindAndType) {
  const int64_t n = g_world->devices();
  for (DType t : kTypes) {
    for (ReductionKind kind : kKinds) {
      if (!HasNativeReduction(kind, t)) continue;
      for (int layout = 0; layout < kLayouts; ++layout) {
        const int64_t count = 37;
        Reduction red;
        red.kind = kind;
        Check(fmt::format("all-reduce {} kind {} layout {}", DTypeName(t), static_cast<int>(kind),
                          layout),
              [&](Communicator& c, int64_t d) -> StatusOr<Bytes> {
                const Bytes in = Input(t, d, count, layout, /*nan=*/true);
                Bytes out(in.size());
                RETURN_IF_ERROR(
                    c.AllReduce(GroupFor(layout, n, d), t, in.data(), out.data(), count, red));
                return out;
              });
      }
    }
  }
}

TEST(MpiCommunicator, CustomReductionsUseUserOperations) {
  const int64_t n = g_world->devices();
  // A custom computation (kCustom): acc = max(acc, in) written as a function, on f32 and bf16.
  for (DType t : {DType::kF32, DType::kBF16, DType::kS32}) {
    Reduction red;
    red.kind = ReductionKind::kCustom;
    red.combine = [t](void* acc, const void* in, int64_t count) -> Status {
      Reduction m;
      m.kind = ReductionKind::kMax;
      return ApplyReduction(m, t, acc, in, count);
    };
    for (int layout = 0; layout < kLayouts; ++layout)
      Check(fmt::format("custom all-reduce {} layout {}", DTypeName(t), layout),
            [&](Communicator& c, int64_t d) -> StatusOr<Bytes> {
              const Bytes in = Input(t, d, 1000, layout + 10);
              Bytes out(in.size());
              RETURN_IF_ERROR(
                  c.AllReduce(GroupFor(layout, n, d), t, in.data(), out.data(), 1000, red));
              return out;
            });
  }
}

TEST(MpiCommunicator, ReduceScatter) {
  const int64_t n = g_world->devices();
  for (DType t : {DType::kF32, DType::kBF16, DType::kS32, DType::kF8E4M3FN, DType::kC64}) {
    for (int layout = 0; layout < kLayouts; ++layout) {
      Reduction red;
      Check(fmt::format("reduce-scatter {} layout {}", DTypeName(t), layout),
            [&](Communicator& c, int64_t d) -> StatusOr<Bytes> {
              const DeviceGroup g = GroupFor(layout, n, d);
              const int64_t count = 19;
              const Bytes in = Input(t, d, count * g.size(), layout);
              Bytes out(count * DTypeByteSize(t));
              RETURN_IF_ERROR(c.ReduceScatter(g, t, in.data(), out.data(), count, red));
              return out;
            });
    }
  }
}

TEST(MpiCommunicator, AllGatherAllToAllBroadcastBarrier) {
  const int64_t n = g_world->devices();
  for (int layout = 0; layout < kLayouts; ++layout) {
    Check(fmt::format("all-gather layout {}", layout),
          [&](Communicator& c, int64_t d) -> StatusOr<Bytes> {
            const DeviceGroup g = GroupFor(layout, n, d);
            const Bytes in = Input(DType::kS8, d, 23, layout);
            Bytes out(in.size() * g.size());
            RETURN_IF_ERROR(c.AllGather(g, in.data(), out.data(), in.size()));
            return out;
          });
    Check(fmt::format("all-to-all layout {}", layout),
          [&](Communicator& c, int64_t d) -> StatusOr<Bytes> {
            const DeviceGroup g = GroupFor(layout, n, d);
            const Bytes in = Input(DType::kS32, d, 11 * g.size(), layout + 3);
            Bytes out(in.size());
            RETURN_IF_ERROR(c.AllToAll(g, in.data(), out.data(), 11 * 4));
            return out;
          });
    for (int64_t root : {0, 1}) {
      Check(fmt::format("collective-broadcast layout {} root {}", layout, root),
            [&](Communicator& c, int64_t d) -> StatusOr<Bytes> {
              const DeviceGroup g = GroupFor(layout, n, d);
              const Bytes in = Input(DType::kU8, d, 29, layout + 5);
              Bytes out(in.size());
              RETURN_IF_ERROR(
                  c.CollectiveBroadcast(g, root % g.size(), in.data(), out.data(), in.size()));
              return out;
            });
    }
    Check(fmt::format("barrier layout {}", layout),
          [&](Communicator& c, int64_t d) -> StatusOr<Bytes> {
            RETURN_IF_ERROR(c.Barrier(GroupFor(layout, n, d)));
            return Bytes{std::byte{1}};
          });
  }
}

TEST(MpiCommunicator, CollectivePermuteRingsAndNonReceivers) {
  const int64_t n = g_world->devices();
  DeviceGroup all = Layouts(n)[0];
  // A ring shift, a reversed ring, and a partial permute where only even devices send (odd
  // devices' successors receive; the others get zeros); each repeated to check ordering.
  std::vector<std::vector<std::pair<int64_t, int64_t>>> cases(3);
  for (int64_t d = 0; d < n; ++d) {
    cases[0].push_back({d, (d + 1) % n});
    cases[1].push_back({d, (d + n - 1) % n});
    if (d % 2 == 0 && n > 1) cases[2].push_back({d, (d + 1) % n});
  }
  for (size_t i = 0; i < cases.size(); ++i)
    Check(fmt::format("collective-permute case {}", i),
          [&](Communicator& c, int64_t d) -> StatusOr<Bytes> {
            Bytes acc;
            for (int rep = 0; rep < 3; ++rep) {
              const Bytes in = Input(DType::kS16, d, 17, i * 10 + rep);
              Bytes out(in.size(), std::byte{0x55});
              RETURN_IF_ERROR(c.CollectivePermute(all, cases[i], in.data(), out.data(), in.size()));
              acc.insert(acc.end(), out.begin(), out.end());
            }
            return acc;
          });
}

TEST(MpiCommunicator, BuiltinOperationsWhereSemanticsMatch) {
  EXPECT_TRUE(BuiltinMpiReduction(ReductionKind::kSum, DType::kF32).has_value());
  EXPECT_TRUE(BuiltinMpiReduction(ReductionKind::kSum, DType::kS32).has_value());
  EXPECT_TRUE(BuiltinMpiReduction(ReductionKind::kSum, DType::kC64).has_value());
  // NaN-propagating min/max, narrow floats, sub-byte integers, complex products: user operations.
  EXPECT_FALSE(BuiltinMpiReduction(ReductionKind::kMax, DType::kF32).has_value());
  EXPECT_FALSE(BuiltinMpiReduction(ReductionKind::kSum, DType::kBF16).has_value());
  EXPECT_FALSE(BuiltinMpiReduction(ReductionKind::kSum, DType::kF8E4M3FN).has_value());
  EXPECT_FALSE(BuiltinMpiReduction(ReductionKind::kSum, DType::kS4).has_value());
  EXPECT_FALSE(BuiltinMpiReduction(ReductionKind::kProduct, DType::kC64).has_value());
  EXPECT_FALSE(BuiltinMpiReduction(ReductionKind::kCustom, DType::kF32).has_value());
  // Open MPI 4.1's AVX-512 MPI_SUM is wrong on 8- and 16-bit integers.
  EXPECT_FALSE(BuiltinMpiReduction(ReductionKind::kSum, DType::kS8).has_value());
  EXPECT_FALSE(BuiltinMpiReduction(ReductionKind::kSum, DType::kU16).has_value());
}

}  // namespace
}  // namespace spmdc

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  int64_t k = 1;
  if (const char* e = std::getenv("SPMDC_TEST_DEVICES_PER_RANK")) k = std::atoll(e);
  auto world = spmdc::MpiWorld::Create(k);
  if (!world.ok()) {
    std::fprintf(stderr, "MpiWorld::Create: %s\n", std::string(world.status().message()).c_str());
    return 1;
  }
  spmdc::g_world = world->get();
  // Several devices per rank: every group's communicator is made up front, in one order.
  std::vector<spmdc::DeviceGroup> groups;
  const int64_t n = spmdc::g_world->devices();
  for (int layout = 0; layout < spmdc::kLayouts; ++layout)
    for (int64_t d = 0; d < n; ++d) groups.push_back(spmdc::GroupFor(layout, n, d));
  if (auto s = spmdc::g_world->Prepare(groups); !s.ok()) {
    std::fprintf(stderr, "Prepare: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  const int rc = RUN_ALL_TESTS();
  int worst = rc;
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  world->reset();
  return worst;
}

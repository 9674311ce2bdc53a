// What `run` and `verify` rely on to never run out of memory: reading how much this process may
// still allocate (/proc/meminfo, cgroup v1 and v2 files), and the interpreter keeping only a
// program's outputs once it returns (verify's one-device reference holds nothing else while the
// devices run).
#include <gtest/gtest.h>

#include "hlo/parser.h"
#include "interpreter/interpreter.h"
#include "ir/memory_account.h"
#include "models/models.h"
#include "runtime/host_memory.h"
#include "runtime/host_values.h"

namespace spmdc {
namespace {

TEST(HostMemory, MeminfoFieldsAreKibibytes) {
  const char* meminfo =
      "MemTotal:       24683584 kB\n"
      "MemFree:         1000000 kB\n"
      "MemAvailable:   18046332 kB\n";
  EXPECT_EQ(MeminfoField(meminfo, "MemAvailable"), int64_t{18046332} * 1024);
  EXPECT_EQ(MeminfoField(meminfo, "MemTotal"), int64_t{24683584} * 1024);
  EXPECT_EQ(MeminfoField(meminfo, "Mem"), std::nullopt);  // a prefix is not a field
  EXPECT_EQ(MeminfoField(meminfo, "SwapTotal"), std::nullopt);
}

TEST(HostMemory, CgroupLimits) {
  EXPECT_EQ(CgroupLimit("max\n"), std::nullopt);                  // v2, no limit
  EXPECT_EQ(CgroupLimit("9223372036854771712\n"), std::nullopt);  // v1's "unlimited"
  EXPECT_EQ(CgroupLimit("4294967296\n"), int64_t{4294967296});
  EXPECT_EQ(CgroupLimit("garbage"), std::nullopt);
  EXPECT_EQ(StatField("anon 5\ninactive_file 1234\nactive_file 9\n", "inactive_file"), 1234);
  EXPECT_EQ(StatField("total_inactive_file 77\n", "inactive_file"), std::nullopt);
}

TEST(HostMemory, CgroupPaths) {
  const char* v1 = "9:name=systemd:/\n4:memory:/process_api/abc\n3:cpu,cpuacct:/x\n0::/\n";
  EXPECT_EQ(CgroupPath(v1, "memory"), "/process_api/abc");
  EXPECT_EQ(CgroupPath(v1, "cpuacct"), "/x");
  EXPECT_EQ(CgroupPath(v1, ""), "/");
  EXPECT_EQ(CgroupPath("0::/user.slice/session-1.scope\n", ""), "/user.slice/session-1.scope");
  EXPECT_EQ(CgroupPath("0::/user.slice\n", "memory"), std::nullopt);
}

TEST(HostMemory, QueryGivesAPositiveBound) {
  HostMemory m = QueryHostMemory();
  EXPECT_GT(m.available_bytes, 0);
  if (m.meminfo_available) {
    EXPECT_LE(m.available_bytes, *m.meminfo_available);
  }
  if (m.cgroup_headroom) {
    EXPECT_LE(m.available_bytes, *m.cgroup_headroom);
  }
}

int64_t LeafBytes(const Literal& l) {
  if (l.shape().IsTuple()) {
    int64_t sum = 0;
    for (const Literal& e : l.elements()) sum += LeafBytes(e);
    return sum;
  }
  return l.shape().IsArray() ? l.shape().byte_size() : 0;
}

// A training step's intermediates (activations, their gradients) are freed as they die: once
// Execute returns, the buffers it allocated are exactly its result.
TEST(HostMemory, InterpreterKeepsOnlyItsOutputs) {
  TransformerOptions options;
  options.vocab = 32;
  auto module = ParseHloModule(BuildTransformerTrainingStep(options), "transformer");
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<Literal> args = RandomArguments(**module, /*seed=*/3);
  MemoryAccount account;
  StatusOr<Literal> result = absl::UnknownError("");
  {
    ScopedMemoryAccount charge(&account);
    SingleDeviceContext device;
    result = Execute(**module, args, &device);
  }
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(account.live_bytes(), LeafBytes(*result));
  EXPECT_GT(account.peak_bytes(), 2 * account.live_bytes());  // the intermediates did exist
}

}  // namespace
}  // namespace spmdc

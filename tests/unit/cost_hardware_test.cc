// Hardware profiles with per-collective figures (what `spmdc calibrate` writes for cpu-local):
// parsing, validation, and the collective times the cost model derives from them.
#include <gtest/gtest.h>

#include <cmath>

#include "cost/cost.h"
#include "cost/hardware.h"
#include "hlo/parser.h"

namespace spmdc {
namespace {

std::string Profile(const std::string& collectives) {
  return R"({
  "name": "test",
  "matmul_flops_per_second": {"f32": {"value": 1e12, "source": "test"}},
  "hbm_bytes": {"value": 1e10, "source": "test"},
  "hbm_bandwidth_bytes_per_second": {"value": 1e11, "source": "test"},
  "links": [{"name": "threads", "domain_devices": 0,
             "bandwidth_bytes_per_second": {"value": 1e9, "source": "test"},
             "latency_seconds": {"value": 1e-5, "source": "test"})" +
         collectives + "}]}";
}

TEST(HardwareProfileTest, PerCollectiveFiguresOverrideTheLink) {
  auto p = ParseHardwareProfile(Profile(R"(, "collectives": {"all-reduce": {
      "bandwidth_bytes_per_second": {"value": 4e9, "source": "fit"},
      "latency_seconds": {"value": 2e-6, "source": "fit"}}})"),
                                "test.json");
  ASSERT_TRUE(p.ok()) << p.status();
  const HardwareProfile::Link& link = p->links[0];
  EXPECT_EQ(link.FiguresFor("all-reduce").bandwidth, 4e9);
  EXPECT_EQ(link.FiguresFor("all-reduce").latency, 2e-6);
  EXPECT_EQ(link.FiguresFor("reduce-scatter").bandwidth, 1e9);  // not measured: the link's own
  EXPECT_EQ(link.FiguresFor("reduce-scatter").latency, 1e-5);
}

TEST(HardwareProfileTest, PerCollectiveFiguresAreValidated) {
  auto not_collective = ParseHardwareProfile(Profile(R"(, "collectives": {"add": {
      "bandwidth_bytes_per_second": {"value": 4e9, "source": "fit"},
      "latency_seconds": {"value": 2e-6, "source": "fit"}}})"),
                                             "t.json");
  ASSERT_FALSE(not_collective.ok());
  EXPECT_NE(not_collective.status().message().find("'add' is not a collective"), std::string::npos)
      << not_collective.status();
  auto unsourced = ParseHardwareProfile(Profile(R"(, "collectives": {"all-gather": {
      "bandwidth_bytes_per_second": {"value": 4e9},
      "latency_seconds": {"value": 2e-6, "source": "fit"}}})"),
                                        "t.json");
  ASSERT_FALSE(unsourced.ok());
  EXPECT_NE(unsourced.status().message().find(
                "links[0].collectives.all-gather.bandwidth_bytes_per_second"),
            std::string::npos)
      << unsourced.status();
}

TEST(HardwareProfileTest, CollectiveTimesUseTheirKindsFigures) {
  auto p = ParseHardwareProfile(Profile(R"(, "collectives": {"all-reduce": {
      "bandwidth_bytes_per_second": {"value": 4e9, "source": "fit"},
      "latency_seconds": {"value": 2e-6, "source": "fit"}}})"),
                                "test.json");
  ASSERT_TRUE(p.ok()) << p.status();
  auto m = ParseHloModule(R"(HloModule m, num_partitions=4

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY e {
  p = f32[1024] parameter(0)
  ar = f32[1024] all-reduce(p), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=add
  ROOT cp = f32[1024] collective-permute(ar), channel_id=2, source_target_pairs={{0,1},{1,2},{2,3},{3,0}}
}
)",
                          "m");
  ASSERT_TRUE(m.ok()) << m.status();
  CostOptions options;
  std::vector<CollectiveCost> cs = AnalyzeCollectives(**m, options, &*p);
  ASSERT_EQ(cs.size(), 2u);
  // all-reduce of 4 KiB on 4 devices with its own α, β: the faster of ring and tree.
  const CollectiveAlgorithm ring = ModelledAlgorithm(Opcode::kAllReduce, 4, 4096);
  EXPECT_EQ(ring.steps, 6);
  EXPECT_EQ(ring.wire_bytes, 6144);
  const double ring_s = 2e-6 * 6 + 6144 / 4e9, tree_s = 2e-6 * 4 + 2 * 4096 / 4e9;
  EXPECT_DOUBLE_EQ(cs[0].seconds, std::min(ring_s, tree_s));
  // collective-permute has no figures of its own: the link's.
  EXPECT_DOUBLE_EQ(cs[1].seconds, 1e-5 * 1 + 4096 / 1e9);
}

}  // namespace
}  // namespace spmdc

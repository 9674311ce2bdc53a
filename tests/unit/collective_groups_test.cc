// ir/collective_groups: the group mode of every collective opcode and the global device-id
// groups it forms on replicas x partitions devices, each expected value computed by hand from
// XLA's rules (global id = replica * partitions + partition).
#include "ir/collective_groups.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hlo/parser.h"
#include "ir/computation.h"
#include "ir/module.h"

namespace spmdc {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Groups = std::vector<std::vector<int64_t>>;
using Pairs = std::vector<std::pair<int64_t, int64_t>>;

constexpr std::string_view kAdd = R"(
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
)";

// A module whose entry root is `root` (an instruction line reading parameter p).
std::unique_ptr<Module> Root(std::string_view header, std::string_view param, std::string_view root) {
  std::string text = std::string(header) + "\n" + std::string(kAdd) + "\nENTRY e {\n  p = " + std::string(param) +
                     " parameter(0)\n  ROOT r = " + std::string(root) + "\n}\n";
  auto m = ParseHloModule(text, "test");
  EXPECT_TRUE(m.ok()) << m.status() << "\n" << text;
  return m.ok() ? *std::move(m) : nullptr;
}

const Instruction& R(const std::unique_ptr<Module>& m) { return *m->entry()->root(); }

Groups G(const std::unique_ptr<Module>& m, int64_t replicas, int64_t partitions) {
  auto g = GlobalDeviceGroups(R(m), replicas, partitions);
  EXPECT_TRUE(g.ok()) << g.status();
  return g.ok() ? *g : Groups{};
}

TEST(CollectiveGroups, ModesFollowXla) {
  struct Case {
    std::string param, root;
    GroupMode mode;
  } cases[] = {
      {"f32[4]", "f32[4] all-reduce(p), replica_groups={}, to_apply=add", GroupMode::kCrossReplica},
      {"f32[4]", "f32[4] all-reduce(p), channel_id=1, replica_groups={}, to_apply=add",
       GroupMode::kCrossReplicaAndPartition},
      {"f32[4]", "f32[4] all-reduce(p), channel_id=1, replica_groups={}, use_global_device_ids=false, to_apply=add",
       GroupMode::kCrossReplicaAndPartition},
      {"f32[4]", "f32[4] all-reduce(p), channel_id=1, replica_groups={{0}}, use_global_device_ids=true, to_apply=add",
       GroupMode::kFlattenedId},
      {"f32[4]", "f32[4] all-gather(p), channel_id=1, replica_groups={}, dimensions={0}",
       GroupMode::kCrossReplicaAndPartition},
      {"f32[4]", "(f32[4], f32[4]) all-gather-start(p), channel_id=1, replica_groups={}, dimensions={0}",
       GroupMode::kCrossReplicaAndPartition},
      {"f32[4]", "f32[4] all-reduce-start(p), channel_id=1, replica_groups={}, to_apply=add",
       GroupMode::kCrossReplicaAndPartition},
      {"f32[4]", "f32[4] reduce-scatter(p), channel_id=1, replica_groups={}, dimensions={0}, to_apply=add",
       GroupMode::kCrossReplicaAndPartition},
      {"f32[4]", "f32[4] all-to-all(p), channel_id=1, replica_groups={}, dimensions={0}", GroupMode::kCrossPartition},
      {"f32[4]", "f32[4] all-to-all(p), replica_groups={}, dimensions={0}", GroupMode::kCrossReplica},
      {"f32[4]", "f32[4] collective-broadcast(p), channel_id=1, replica_groups={}", GroupMode::kCrossPartition},
      {"f32[4]", "f32[4] collective-permute(p), channel_id=1, source_target_pairs={{0,0}}",
       GroupMode::kCrossPartition},
      {"f32[4]", "f32[4] collective-permute(p), source_target_pairs={{0,0}}", GroupMode::kCrossReplica},
      {"f32[4]", "(f32[4], f32[4], u32[], u32[]) collective-permute-start(p), channel_id=1, source_target_pairs={{0,0}}",
       GroupMode::kCrossPartition},
  };
  for (const Case& c : cases) {
    auto m = Root("HloModule m", c.param, c.root);
    ASSERT_NE(m, nullptr);
    auto mode = CollectiveGroupMode(R(m));
    ASSERT_TRUE(mode.ok()) << mode.status();
    EXPECT_EQ(*mode, c.mode) << c.root << ": " << GroupModeName(*mode);
  }
}

TEST(CollectiveGroups, RaggedAllToAllIsCrossPartitionWithChannel) {
  auto m = ParseHloModule(R"(HloModule m, num_partitions=2
ENTRY e {
  v = f32[8] parameter(0)
  out = f32[16] parameter(1)
  off = s64[2] parameter(2)
  ROOT r = f32[16] ragged-all-to-all(v, out, off, off, off, off), channel_id=1, replica_groups={{0,1}}
})",
                          "test");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(*CollectiveGroupMode(*(*m)->entry()->root()), GroupMode::kCrossPartition);
  EXPECT_EQ(*GlobalDeviceGroups(*(*m)->entry()->root(), 2, 2), (Groups{{0, 1}, {2, 3}}));
}

TEST(CollectiveGroups, CrossReplicaGroupsFormWithinEachPartition) {
  // 2 replicas x 3 partitions: replica group {0,1} is {0,3} in partition 0, {1,4}, {2,5}.
  auto m = Root("HloModule m", "f32[4]", "f32[4] all-reduce(p), replica_groups={{0,1}}, to_apply=add");
  EXPECT_EQ(G(m, 2, 3), (Groups{{0, 3}, {1, 4}, {2, 5}}));
  // No groups: all replicas, still per partition.
  auto e = Root("HloModule m", "f32[4]", "f32[4] all-reduce(p), replica_groups={}, to_apply=add");
  EXPECT_EQ(G(e, 2, 2), (Groups{{0, 2}, {1, 3}}));
}

TEST(CollectiveGroups, CrossPartitionGroupsFormWithinEachReplica) {
  // 2 replicas x 4 partitions: partition groups {0,2},{1,3} in replica 0, then in replica 1.
  auto m = Root("HloModule m", "f32[4]", "f32[4] all-to-all(p), channel_id=1, replica_groups={{0,2},{1,3}}, dimensions={0}");
  EXPECT_EQ(G(m, 2, 4), (Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}}));
  auto e = Root("HloModule m", "f32[4]", "f32[4] collective-broadcast(p), channel_id=1, replica_groups={}");
  EXPECT_EQ(G(e, 2, 2), (Groups{{0, 1}, {2, 3}}));
}

TEST(CollectiveGroups, CrossReplicaAndPartitionGroupsSpanEveryPartition) {
  // One replica, four partitions: {{0}} is one group of all four devices (the runtime used to
  // read it as partition 0 alone).
  auto one = Root("HloModule m", "f32[4]", "f32[4] all-reduce(p), channel_id=1, replica_groups={{0}}, to_apply=add");
  EXPECT_EQ(G(one, 1, 4), (Groups{{0, 1, 2, 3}}));
  // 2 replicas x 2 partitions, groups in the written order, replica-major within a group.
  auto two = Root("HloModule m", "f32[4]", "f32[4] all-reduce(p), channel_id=1, replica_groups={{1},{0}}, to_apply=add");
  EXPECT_EQ(G(two, 2, 2), (Groups{{2, 3}, {0, 1}}));
  auto ag = Root("HloModule m", "f32[2]", "f32[4] all-gather(p), channel_id=1, replica_groups={{1,0}}, dimensions={0}");
  EXPECT_EQ(G(ag, 2, 2), (Groups{{2, 3, 0, 1}}));
  auto empty = Root("HloModule m", "f32[4]", "f32[4] reduce-scatter(p), channel_id=1, replica_groups={}, dimensions={0}, to_apply=add");
  EXPECT_EQ(G(empty, 2, 2), (Groups{{0, 1, 2, 3}}));
}

TEST(CollectiveGroups, FlattenedIdsInEveryForm) {
  auto list = Root("HloModule m", "f32[4]",
                   "f32[4] all-reduce(p), channel_id=1, replica_groups={{0,2},{1,3}}, use_global_device_ids=true, to_apply=add");
  EXPECT_EQ(G(list, 2, 2), (Groups{{0, 2}, {1, 3}}));
  // Iota: arange(4).reshape(2,2).T = [[0,2],[1,3]].
  auto iota = Root("HloModule m", "f32[4]",
                   "f32[4] all-reduce(p), channel_id=1, replica_groups=[2,2]<=[2,2]T(1,0), use_global_device_ids=true, to_apply=add");
  EXPECT_EQ(G(iota, 1, 4), (Groups{{0, 2}, {1, 3}}));
  // Mesh axes: x=2 (major) by y=4; groups along x pair device d with d+4.
  auto mesh = Root("HloModule m", "f32[4]",
                   "f32[8] all-gather(p), channel_id=1, replica_groups=mesh['x'=2,'y'=4] {'x'}, use_global_device_ids=true, dimensions={0}");
  EXPECT_EQ(G(mesh, 1, 8), (Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
}

TEST(CollectiveGroups, PermutePairs) {
  auto cr = Root("HloModule m", "f32[4]", "f32[4] collective-permute(p), source_target_pairs={{0,1}}");
  EXPECT_EQ(*GlobalPermutePairs(R(cr), 2, 2), (Pairs{{0, 2}, {1, 3}}));
  auto cp = Root("HloModule m", "f32[4]", "f32[4] collective-permute(p), channel_id=1, source_target_pairs={{0,1},{1,0}}");
  EXPECT_EQ(*GlobalPermutePairs(R(cp), 2, 2), (Pairs{{0, 1}, {1, 0}, {2, 3}, {3, 2}}));
  auto bad = GlobalPermutePairs(R(cp), 2, 1);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("pair {0,1} outside 0..0"));
}

TEST(CollectiveGroups, BadGroupsAreInvalidArgument) {
  auto range = Root("HloModule m", "f32[4]", "f32[4] all-reduce(p), channel_id=1, replica_groups={{0,1}}, to_apply=add");
  // Replica id 1 on one replica (cross-replica-and-partition reads replica ids).
  auto r = GlobalDeviceGroups(R(range), 1, 2);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("replica group id 1 is outside 0..0"));
  EXPECT_EQ(G(range, 2, 2), (Groups{{0, 1, 2, 3}}));
  // A device no group names.
  auto part = Root("HloModule m", "f32[4]", "f32[4] all-reduce(p), replica_groups={{0}}, to_apply=add");
  auto d = DeviceGroupOf(R(part), 2, 1, 1);
  EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(d.status().message()), HasSubstr("device 1 (replica 1, partition 0) is in no replica group"));
  EXPECT_THAT(*DeviceGroupOf(R(part), 2, 1, 0), ElementsAre(0));
  EXPECT_FALSE(CheckCollectiveGroups(*part, 2, 1).ok());
  EXPECT_TRUE(CheckCollectiveGroups(*part, 1, 4).ok());
}

}  // namespace
}  // namespace spmdc

// Partial-manual regions (GSPMD.md §3.10): a sharding with a MANUAL subgroup dim splits the
// devices into manual groups, one per manual coordinate; inside every group the value is
// partitioned automatically by the remaining tile dims. The partitioner handles such an
// instruction as an ordinary one over the devices of one group ("in-group ids" 0..G-1), with
// the builder mapping in-group ids, partition-id and every collective's groups back to global
// devices for all groups at once (SpmdBuilder::EnterFrame). The relation between a full value's
// automatic sharding and its groups' values (FullValueSharding, GroupLocalSharding) is shared
// with propagation, which refines both sides of a region boundary with it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sharding/sharding.h"

namespace spmdc {

// The manual groups of a region: groups[m][l] is the global device with in-group id l in manual
// group m. Every group has the same size.
struct ManualFrame {
  std::vector<std::vector<int64_t>> groups;
  int64_t group_size() const { return groups.empty() ? 0 : static_cast<int64_t>(groups[0].size()); }
  // A short text naming the frame (used to keep in-group and global reshard caches apart).
  std::string Tag() const;
};

// Any leaf has a MANUAL subgroup dim.
bool HasManualSubgroup(const Sharding& s);

// The frame of the first manual-subgroup leaf of `s`: one group per manual coordinate, in-group
// ids row-major over the remaining tile dims (data dims, then replication).
std::optional<ManualFrame> FrameOf(const Sharding& s);

// `s` as seen inside one group of `frame`: manual-subgroup leaves lose the manual dim and their
// devices become in-group ids; replicated leaves stay replicated. nullopt when a leaf is anything
// else (tiled without a manual dim, maximal, manual), or when its groups are not `frame`'s
// groups, or its in-group layout differs between groups (no common in-group sharding).
std::optional<Sharding> ToGroupLocal(const Sharding& s, const ManualFrame& frame);

// A frame in which every one of `shardings` has an in-group form (ToGroupLocal): the frame of
// one of their manual-subgroup leaves, the most finely tiled first (a replicated-in-group
// leaf fixes no in-group order). nullopt when there is none.
std::optional<ManualFrame> CommonFrame(const std::vector<Sharding>& shardings);

// The automatic sharding of a full value (shape `full`) under which every device holds exactly
// its tile of its manual group's value (shape `shard`, manual subgroup sharding `s`): the full
// value is the groups' values laid out in blocks (full = shard * blocks on each dim), group
// m's block being where `reference` (an automatic sharding of `full`) puts the devices of group
// m. nullopt when the shapes do not divide, `reference` does not place a group's devices in one
// block, or uneven in-group tiles would not line up with the full value's tiles.
std::optional<Sharding> FullValueSharding(const Sharding& s, const Shape& full, const Shape& shard,
                                          const Sharding& reference);

// The inverse of FullValueSharding: the manual subgroup sharding of a group's value (shape
// `shard`, the groups of `s`, a manual subgroup sharding) under which every device holds its
// tile of the full value (shape `full`) as `full_sharding` (automatic) tiles it, the groups'
// blocks placed as by `reference`. nullopt when a device's tile does not lie in its group's
// block, or the tiles of a block do not split it evenly.
std::optional<Sharding> GroupLocalSharding(const Sharding& full_sharding, const Sharding& s, const Shape& full,
                                           const Shape& shard, const Sharding& reference);

// The automatic sharding of the full value under which every device holds its whole group's
// block (the groups placed as by `reference`, see FullValueSharding); nullopt when the shapes do
// not divide or `reference` does not place each group's devices in one block.
std::optional<Sharding> GroupBlockSharding(const Sharding& s, const Shape& full, const Shape& shard,
                                           const Sharding& reference);

// A rank-`rank` array replicated inside each group of `frame` (groups may hold different data).
Sharding ReplicatedInGroups(const ManualFrame& frame, int64_t rank);

}  // namespace spmdc

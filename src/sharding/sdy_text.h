// The text of Shardy's `sdy` attributes (SHARDY.md §2.3) as they appear inside HLO frontend
// attributes (`xla.sdy.meshes`, `xla.sdy.sharding`, `xla.sdy.in_shardings`, ...) and in MLIR:
// meshes, tensor shardings, per-value shardings, manual axes and op sharding rules. Parsing
// yields the named form of named_sharding.h, which is converted to spmdc's Sharding there (the
// one conversion both this text and the V3 `sharding=` text use). Printing writes the form
// XLA's round trip reads back.
//
// Errors are InvalidArgument with an unlocated message; `error_offset`, when given, receives
// the byte offset in the parsed text where the problem is (callers turn it into file:line:col).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sharding/named_sharding.h"
#include "support/status.h"

namespace spmdc {

// The module's meshes, in the order written: `{name = #sdy.mesh<...>, ...}`.
struct SdyMeshes {
  std::vector<std::pair<std::string, NamedMesh>> meshes;
  const NamedMesh* Find(std::string_view name) const;
};

// One tensor sharding: its mesh (by name, or written inline) and the named sharding (no manual
// axes: those come from the enclosing shard_map region).
struct SdySharding {
  std::string mesh_name;  // empty when the mesh is written inline
  NamedMesh mesh;
  NamedSharding named;
  // Every dim open and empty: sdy's "no constraint" written out (`[{?}, {?}]`).
  bool FullyOpen() const;
};

// An op sharding rule: per operand and result tensor, per dim, its factors (ids: 'i' = 0, ...,
// 'z' = 17, 'z_1' = 18, ...); the factor sizes; the special factor sets.
struct SdyShardingRule {
  using TensorFactors = std::vector<std::vector<int64_t>>;  // per dim, the factors major to minor
  std::vector<TensorFactors> operands, results;
  std::vector<int64_t> factor_sizes;  // by factor id (0 where not written)
  std::vector<int64_t> reduction, need_replication, permutation, blocked_propagation;
  bool custom = false;
};

// `{name = #sdy.mesh<...>, ...}` (or a single `name = ...` without braces).
StatusOr<SdyMeshes> ParseSdyMeshes(std::string_view text, size_t* error_offset = nullptr);
// `#sdy.mesh<[...], device_ids=[...]>` (also `mesh<...>` or `<...>`).
StatusOr<NamedMesh> ParseSdyMesh(std::string_view text, size_t* error_offset = nullptr);
// `#sdy.sharding<@mesh, [{"x"}, {}], replicated={"y"}>`.
StatusOr<SdySharding> ParseSdySharding(std::string_view text, const SdyMeshes& meshes,
                                       size_t* error_offset = nullptr);
// `#sdy.sharding_per_value<[<@mesh, [...]>, ...]>`; a single `#sdy.sharding<...>` is accepted
// as a list of one.
StatusOr<std::vector<SdySharding>> ParseSdyShardingPerValue(std::string_view text, const SdyMeshes& meshes,
                                                            size_t* error_offset = nullptr);
// `#sdy<manual_axes{"x", "y"}>` (also `{"x"}` alone).
StatusOr<std::vector<std::string>> ParseSdyManualAxes(std::string_view text, size_t* error_offset = nullptr);
// `#sdy.op_sharding_rule<([i, j], [j, k])->([i, k]) {i=8, j=16, k=4} reduction={j}, custom>`.
StatusOr<SdyShardingRule> ParseSdyShardingRule(std::string_view text, size_t* error_offset = nullptr);
// An integer attribute in MLIR form: `12 : i64`, `2 : i32`, or `12`.
StatusOr<int64_t> ParseSdyInteger(std::string_view text);

// Printing (the forms the parsers read).
std::string SdyMeshToString(const NamedMesh& mesh);  // #sdy.mesh<["x"=2, "y"=4]>
std::string SdyMeshesToString(const SdyMeshes& meshes);  // {mesh = #sdy.mesh<...>, ...}
// `<@name, [{"x"}, {}]>` (the body, as in per-value lists) and `#sdy.sharding<@name, ...>`.
std::string SdyShardingBodyToString(std::string_view mesh_name, const NamedMesh& mesh, const NamedSharding& named);
std::string SdyShardingToString(std::string_view mesh_name, const NamedMesh& mesh, const NamedSharding& named);

}  // namespace spmdc

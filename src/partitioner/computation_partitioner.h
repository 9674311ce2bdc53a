// Internal to the partitioner (not part of its interface, partitioner.h): the per-computation
// partitioning visitor `ComputationPartitioner`, the module-level driver `Partitioner` that it
// calls back for called computations, and the few helpers that several handler files share. The
// handlers themselves live one file per op family (elementwise.cc, dot_conv.cc, reduce.cc,
// reshape.cc, slice_pad_concat.cc, sort_topk.cc, indexing.cc, control_flow.cc,
// manual_regions.cc); the dispatch and the default action stay in partitioner.cc.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "ir/module.h"
#include "partitioner/builder.h"
#include "sharding/manual_groups.h"
#include "partitioner/partitioner.h"
#include "partitioner/reshard.h"
#include "sharding/sharding.h"
#include "support/status.h"

namespace spmdc {
namespace partitioner_internal {

// The product of `v`'s entries (dot_conv.cc, sort_topk.cc).
inline int64_t Product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

// Division rounding towards minus infinity (b > 0; reduce.cc, slice_pad_concat.cc).
inline int64_t FloorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

struct DotPlan {
  Sharding lhs, rhs;     // operand shardings for the local dot
  Sharding result;       // sharding of the local result (after the all-reduce)
  std::vector<std::vector<int64_t>> reduce_groups;  // all-reduce groups (empty: none)
  int64_t cost = 0;
};

class Partitioner;

// Partitions one computation into `out`.
class ComputationPartitioner {
 public:
  ComputationPartitioner(Partitioner* p, SpmdModuleState* st, const Computation& src, Computation* out)
      : p_(p), src_(src), b_(st, out), r_(&b_) {}

  StatusOr<PValue> Run(const std::vector<Sharding>& param_shardings, const Sharding& root_sharding);
  // The target of instructions without a sharding (else replicated): manual for the computations
  // of per-device control flow that carries no shardings (Handle).
  void set_default_target(const Sharding& s) { default_target_ = s; }

 private:
  Status Handle(const Instruction* instr);
  Status Dispatch(const Instruction* instr);  // the per-opcode handlers
  // Partial-manual regions (manual_groups.h): instructions with manual subgroup shardings.
  Status ManualSubgroup(const Instruction* instr);
  Status InGroups(const Instruction* instr, const ManualFrame& frame);
  Status CrossGroupCollective(const Instruction* instr);
  PValue Get(const Instruction* operand) const { return values_.at(operand); }
  Sharding TargetOf(const Instruction* instr) const;
  PValue Operand(const Instruction* instr, int64_t i, const Sharding& s) {
    return r_.Reshard(Get(instr->operand(i)), s, instr->name());
  }
  void Set(const Instruction* instr, PValue v);
  // Internal error when `v` (the value of `instr`) does not hold the element types and shard dims
  // its sharding implies.
  Status CheckValueShape(const Instruction* instr, const PValue& v) const;
  Instruction* CloneWith(const Instruction* instr, const std::vector<Instruction*>& operands, const Shape& shape);

  Status Default(const Instruction* instr);
  Status CustomPartitioning(const Instruction* instr);
  Status Elementwise(const Instruction* instr);
  Status Parameter(const Instruction* instr);
  Status Constant(const Instruction* instr);
  Status Iota(const Instruction* instr);
  Status Broadcast(const Instruction* instr);
  Status Transpose(const Instruction* instr);
  Status Reshape(const Instruction* instr);
  std::optional<PValue> RetiledReshape(const Instruction* instr, const PValue& src, const Sharding& target);
  Status Reduce(const Instruction* instr);
  StatusOr<bool> ReduceThenCombine(const Instruction* instr, const Sharding& in);
  Status Dot(const Instruction* instr);
  std::optional<PValue> ReduceScatterTo(const PValue& v, const std::vector<std::vector<int64_t>>& groups,
                                        const Sharding& target, const std::string& kind);
  Status Convolution(const Instruction* instr);
  StatusOr<bool> ContractingConvolution(const Instruction* instr, const Sharding& target);
  StatusOr<bool> BatchGroupedConvolution(const Instruction* instr, const Sharding& target);
  Status ReduceWindow(const Instruction* instr);
  Status SelectAndScatter(const Instruction* instr);
  Status Slicing(const Instruction* instr);  // slice, pad, concatenate, reverse, sort
  StatusOr<bool> WindowedSlice(const Instruction* instr, const Sharding& target, const std::vector<int64_t>& moved);
  StatusOr<bool> WindowedConcat(const Instruction* instr, const Sharding& target);
  StatusOr<bool> WrappedConcat(const Instruction* instr, const Sharding& target);
  StatusOr<bool> TopKSort(const Instruction* instr, const Sharding& target);
  StatusOr<bool> TiledReverse(const Instruction* instr, const Sharding& target);
  StatusOr<bool> InteriorPad(const Instruction* instr, const Sharding& target);
  std::optional<Instruction*> FetchWindow(Instruction* x, const Sharding& target, int64_t dim, int64_t ci, int64_t co,
                                          const std::vector<int64_t>& lo);
  Status DynamicSlicing(const Instruction* instr);
  bool LocalUpdate(const Instruction* instr, const Sharding& target, const std::vector<int64_t>& tiled);
  Status GatherScatter(const Instruction* instr);  // indexing.cc (with gather_scatter.cc)
  Status TopK(const Instruction* instr);  // the topk op and the TopK custom call
  Status ElementwiseExceptDims(const Instruction* instr, const std::vector<int64_t>& whole);
  Status Tuple(const Instruction* instr);
  Status GetTupleElement(const Instruction* instr);
  Status While(const Instruction* instr);
  Status Conditional(const Instruction* instr);
  Status Call(const Instruction* instr);

  Partitioner* p_;
  const Computation& src_;
  SpmdBuilder b_;
  Resharder r_;
  absl::flat_hash_map<const Instruction*, PValue> values_;
  absl::flat_hash_set<const Instruction*> named_;
  absl::flat_hash_set<const Instruction*> value_hlos_;  // instructions standing for some value
  absl::flat_hash_map<std::string, DotPlan> dot_plans_;
  // Sorts whose only uses are slices of their first k elements along the sort dim (and their
  // get-tuple-elements), partitioned as top-k: their value holds only the sorted candidates
  // (the sort dim T*k long, whole), which those slices cut. The entry is k.
  absl::flat_hash_map<const Instruction*, int64_t> topk_k_;
  std::optional<Sharding> target_override_;  // the in-group target while handling InGroups
  std::optional<Sharding> default_target_;   // set_default_target
};

class Partitioner {
 public:
  Partitioner(const Module& src, const PartitionOptions& options) : src_(src), options_(options) {}

  StatusOr<PartitionResult> Run();
  // A partitioned copy of `c` whose parameters have `params` and whose root ends as `root`;
  // instructions without a sharding are partitioned to `default_target` when given (else
  // replicated).
  StatusOr<Computation*> PartitionCalled(const Computation& c, const std::vector<Sharding>& params,
                                         const Sharding& root,
                                         const std::optional<Sharding>& default_target = std::nullopt);
  SpmdModuleState& state() { return state_; }

 private:
  const Module& src_;
  PartitionOptions options_;
  SpmdModuleState state_;
  std::unique_ptr<Module> out_;
};

// The sharding an instruction is partitioned to: its own (tuple shardings normalized), else
// replicated (partitioner.cc).
Sharding ComputationTarget(const Instruction* instr);

// Sort along a tiled dim: the sharding that moves the sort dim's tiles onto a free dim
// (sort_topk.cc; used by the slicing handler, which also dispatches sorts).
std::optional<Sharding> SortLocalSharding(const Sharding& leaf, const Shape& shape, int64_t dim);

}  // namespace partitioner_internal
}  // namespace spmdc

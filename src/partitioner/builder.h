// Emission of per-device HLO for the partitioner: typed helpers that create instructions in the
// computation being built (shapes come from shape inference, so every emitted instruction is
// valid by construction), partition-id-driven table lookups, and collectives with fresh channel
// ids and replica groups (iota form when the groups are one).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/module.h"
#include "sharding/manual_groups.h"
#include "support/status.h"

namespace spmdc {

// Module-wide state shared by every computation's builder.
struct SpmdModuleState {
  Module* module = nullptr;
  int64_t num_devices = 1;
  int64_t next_channel_id = 1;
  // Scalar reducer computations by "kind.dtype" (add.f32, max.s32, ...).
  absl::flat_hash_map<std::string, Computation*> reducers;
  // Collective statistics (per device): count and bytes per collective kind.
  struct CollectiveStat {
    int64_t count = 0;
    int64_t bytes = 0;
  };
  std::map<std::string, CollectiveStat> stats;
  std::vector<std::string> warnings;
  bool replicate_custom_partitioning = false;  // PartitionOptions
};

class SpmdBuilder {
 public:
  SpmdBuilder(SpmdModuleState* state, Computation* computation)
      : state_(state), comp_(computation) {}

  Computation* computation() const { return comp_; }
  SpmdModuleState* state() const { return state_; }
  Module* module() const { return state_->module; }
  // Devices the emitted code partitions over: a manual group's size inside a frame.
  int64_t num_devices() const { return frame_ ? frame_->group_size() : state_->num_devices; }

  // Inside a frame (partial-manual regions, manual_groups.h), device ids given to the builder
  // are in-group ids: tables are indexed by them, PartitionId() is the in-group id, and every
  // collective runs in each manual group separately (its groups mapped to global devices for
  // all groups). Returns the previous frame (nullptr: global).
  const ManualFrame* EnterFrame(const ManualFrame* frame);
  const ManualFrame* frame() const { return frame_; }

  // Metadata (op_name, source position) given to every instruction added without its own: the
  // source instruction being partitioned, so that the collectives and reshards emitted for it
  // name the user's op (the cost report lists them so). Null: none.
  void set_metadata(const KeyValueList* metadata) { metadata_ = metadata; }

  // Adds an instruction; its shape is inferred when `shape` is null. Inference only covers ops
  // whose element type follows from their operands: a dot or convolution declares its result
  // type (bf16 operands may produce f32), so it needs `shape` or AddWithType (checked).
  Instruction* Add(Opcode opcode, const std::vector<Instruction*>& operands, Attributes attrs = {},
                   const Shape* shape = nullptr, std::string_view name_hint = "");
  // Adds an instruction whose dims are inferred and whose element type is `type` (the original
  // instruction's: a local dot or convolution computes in the type the global one declares).
  Instruction* AddWithType(Opcode opcode, const std::vector<Instruction*>& operands, Attributes attrs, DType type,
                           std::string_view name_hint = "");
  Instruction* Parameter(int64_t number, const Shape& shape, const std::string& name);
  Instruction* Constant(Literal literal);
  Instruction* ScalarS32(int64_t v);
  Instruction* Zero(DType t);  // scalar zero of `t` (false for pred)
  Instruction* ScalarOf(DType t, double v);
  Instruction* Broadcast(Instruction* operand, const Shape& shape, std::vector<int64_t> dims);
  Instruction* BroadcastScalar(Instruction* scalar, const Shape& shape) {
    return Broadcast(scalar, Shape(scalar->shape().dtype(), shape.dims()), {});
  }
  Instruction* Reshape(Instruction* operand, const std::vector<int64_t>& dims);
  Instruction* Transpose(Instruction* operand, const std::vector<int64_t>& perm);
  Instruction* Slice(Instruction* operand, std::vector<int64_t> starts, std::vector<int64_t> limits);
  Instruction* Pad(Instruction* operand, Instruction* value, const std::vector<PaddingDim>& padding);
  Instruction* PadHigh(Instruction* operand, const std::vector<int64_t>& new_dims);  // zeros
  Instruction* DynamicSlice(Instruction* operand, const std::vector<Instruction*>& starts,
                            const std::vector<int64_t>& sizes);
  Instruction* DynamicUpdateSlice(Instruction* operand, Instruction* update,
                                  const std::vector<Instruction*>& starts);
  Instruction* Concatenate(const std::vector<Instruction*>& operands, int64_t dim);
  Instruction* Binary(Opcode op, Instruction* a, Instruction* b);
  Instruction* Compare(Instruction* a, Instruction* b, const std::string& direction);
  Instruction* Select(Instruction* pred, Instruction* a, Instruction* b);
  Instruction* Iota(const Shape& shape, int64_t dim);
  Instruction* Convert(Instruction* operand, DType to);
  Instruction* Tuple(const std::vector<Instruction*>& elements);
  Instruction* GetTupleElement(Instruction* tuple, int64_t index);

  // partition-id as s32 (created once per computation); the in-group id inside a frame.
  Instruction* PartitionId();
  // table[partition-id] for a per-device table of s32 values, as a scalar.
  Instruction* TableLookup(const std::vector<int64_t>& table);

  // Collectives. Groups list global device ids; an empty list means all devices.
  Instruction* AllReduce(Instruction* operand, const std::vector<std::vector<int64_t>>& groups,
                         const std::string& reducer_kind);
  Instruction* AllGather(Instruction* operand, int64_t dim,
                         const std::vector<std::vector<int64_t>>& groups);
  // Sums (or `reducer_kind`s) over the group and keeps member i's i-th piece of `dim` (which
  // must divide by the group size).
  Instruction* ReduceScatter(Instruction* operand, int64_t dim, const std::vector<std::vector<int64_t>>& groups,
                             const std::string& reducer_kind);
  Instruction* AllToAll(Instruction* operand, int64_t split_dim,
                        const std::vector<std::vector<int64_t>>& groups);
  Instruction* CollectivePermute(Instruction* operand,
                                 const std::vector<std::pair<int64_t, int64_t>>& pairs);

  // A scalar reducer computation ("add", "max", "min", "mul", "and", "or") for `dtype`.
  Computation* Reducer(const std::string& kind, DType dtype);
  // A sort comparator over (value, s32 index) pairs ordering values the way topk does: descending
  // for `largest` (else ascending), floats in total order (NaN beyond infinity). Ties are left to a
  // stable sort.
  Computation* TopKComparator(DType dtype, bool largest);
  // The reducer kind of a computation if it is one of the recognised scalar reducers.
  static std::optional<std::string> ReducerKind(const Computation& c);

 private:
  Instruction* AddImpl(Opcode opcode, const std::vector<Instruction*>& operands, Attributes attrs, const Shape* shape,
                       std::optional<DType> type, std::string_view name_hint);
  void Count(const std::string& kind, const Shape& shape);
  ReplicaGroups MakeGroups(const std::vector<std::vector<int64_t>>& groups) const;
  Instruction* GlobalPartitionId();
  // In-group groups (empty: the whole group) as global groups, one copy per manual group.
  std::vector<std::vector<int64_t>> GlobalGroups(const std::vector<std::vector<int64_t>>& groups) const;
  SpmdModuleState* state_;
  const KeyValueList* metadata_ = nullptr;
  Computation* comp_;
  Instruction* partition_id_ = nullptr;
  const ManualFrame* frame_ = nullptr;
  absl::flat_hash_map<std::string, Instruction*> in_group_ids_;  // by frame tag
  // Operand-free values are made once per computation (the same offsets and zeros recur in
  // every reshard; emitting them once keeps the program and the clean-up small).
  absl::flat_hash_map<std::vector<int64_t>, Instruction*> tables_;
  absl::flat_hash_map<int64_t, Instruction*> s32_constants_;
  absl::flat_hash_map<int, Instruction*> zeros_;
};

}  // namespace spmdc

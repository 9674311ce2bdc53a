// Module: a set of computations, one of them the entry, plus the module config carried by the
// HloModule header (num_partitions, replica_count, entry layout, propagation permissions, ...).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/attributes.h"
#include "ir/computation.h"
#include "ir/stack_frames.h"

namespace spmdc {

class Module {
 public:
  explicit Module(std::string name);
  ~Module();

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }

  // Header attributes (kIsScheduled, kNumPartitions, ..., see attributes.def) and unknown ones.
  Attributes& config() { return config_; }
  const Attributes& config() const { return config_; }
  int64_t num_partitions() const;
  int64_t replica_count() const;
  void set_num_partitions(int64_t n) { config_.Set(AttrId::kNumPartitions, n); }

  // The FileNames/.../StackFrames tables (empty when the text has none).
  StackFrameIndex& stack_frames() { return stack_frames_; }
  const StackFrameIndex& stack_frames() const { return stack_frames_; }
  // Where the user's code that produced `instr` is, from its metadata: "file:line" (":col" when
  // known) of the innermost stack frame when metadata has stack_frame_id, else source_file and
  // source_line; "" when the metadata says nothing usable.
  std::string SourceLocationOf(const Instruction& instr) const;

  Computation* AddComputation(std::unique_ptr<Computation> c, bool is_entry = false);
  // Removes a computation nobody calls.
  void RemoveComputation(Computation* c);
  Computation* entry() const { return entry_; }
  void set_entry(Computation* c) { entry_ = c; }
  // Computations in the order they were added (text order for parsed modules).
  std::vector<Computation*> computations() const;
  Computation* GetComputation(std::string_view name) const;
  // Callees before callers; only computations reachable from the entry (entry last), followed by
  // unreachable ones in text order when `include_unreachable`.
  std::vector<Computation*> MakeComputationPostOrder(bool include_unreachable = false) const;

  // Deep copy: same names, same attributes, same shardings (shared, they are immutable).
  std::unique_ptr<Module> Clone() const;

  // Fresh unique ids and names for instructions created by passes.
  int64_t NextUniqueId() { return next_unique_id_++; }
  // Ids handed out so far are below this bound (ids set by hand may not be).
  int64_t unique_id_bound() const { return next_unique_id_; }
  std::string UniqueName(std::string_view prefix);
  // Registers a name as taken (the parser calls it for every parsed name).
  void ReserveName(const std::string& name);
  bool IsNameTaken(const std::string& name) const;

 private:
  std::string name_;
  Attributes config_;
  StackFrameIndex stack_frames_;
  std::vector<std::unique_ptr<Computation>> computations_;
  Computation* entry_ = nullptr;
  int64_t next_unique_id_ = 0;
  absl::flat_hash_map<std::string, int64_t> name_counters_;
  absl::flat_hash_map<std::string, bool> taken_names_;
};

}  // namespace spmdc

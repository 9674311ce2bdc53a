// Computation: a DAG of instructions with parameters and a root, owned by a Module.
#pragma once

#include <list>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/instruction.h"

namespace spmdc {

class Module;

class Computation {
 public:
  explicit Computation(std::string name);
  ~Computation();

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  Module* parent() const { return parent_; }
  bool IsEntry() const;

  // Takes ownership; the instruction keeps its name (callers keep names unique module-wide).
  Instruction* AddInstruction(std::unique_ptr<Instruction> instr);
  // Convenience: creates and adds an instruction with the given operands.
  Instruction* AddInstruction(Opcode opcode, Shape shape, std::string name,
                              const std::vector<Instruction*>& operands = {});
  // Removes an instruction that has no users and is not the root. Its operands lose it as a user.
  Status RemoveInstruction(Instruction* instr);

  // Instructions in insertion order (which for parsed modules is text order).
  std::vector<Instruction*> instructions() const;
  int64_t instruction_count() const { return static_cast<int64_t>(instructions_.size()); }
  // Operands before users; among independent instructions, insertion order is kept. Includes
  // instructions unreachable from the root. Control predecessors come first as well.
  std::vector<Instruction*> MakeInstructionPostOrder() const;

  Instruction* root() const { return root_; }
  void set_root(Instruction* root) { root_ = root; }
  const std::vector<Instruction*>& parameters() const { return parameters_; }
  Instruction* parameter(int64_t i) const { return parameters_[i]; }
  int64_t num_parameters() const { return static_cast<int64_t>(parameters_.size()); }
  // Rebuilds the parameter list from the parameter instructions (by parameter number).
  Status RebuildParameterList();

  // Optional `execution_thread="..."` after the body.
  const std::string& execution_thread() const { return execution_thread_; }
  void set_execution_thread(std::string t) { execution_thread_ = std::move(t); }

  SourceLocation location() const { return location_; }
  void set_location(SourceLocation loc) { location_ = loc; }

 private:
  friend class Module;
  std::string name_;
  Module* parent_ = nullptr;
  std::list<std::unique_ptr<Instruction>> instructions_;
  std::vector<Instruction*> parameters_;
  Instruction* root_ = nullptr;
  std::string execution_thread_;
  SourceLocation location_;
};

}  // namespace spmdc

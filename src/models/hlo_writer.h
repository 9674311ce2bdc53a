// HloWriter: emits HLO text instruction by instruction with fresh names, for model builders.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace spmdc {

class HloWriter {
 public:
  // Starts a computation; `entry` marks it ENTRY.
  void BeginComputation(const std::string& name, bool entry = false);
  // Appends "name = shape op(operands)attrs" and returns the name. `attrs` starts with ", ".
  std::string Emit(const std::string& shape, const std::string& op,
                   const std::vector<std::string>& operands, const std::string& attrs = "",
                   const std::string& hint = "");
  // `attrs` (e.g. ", sharding={replicated}") starts with ", ".
  std::string Parameter(int64_t number, const std::string& shape, const std::string& hint = "",
                        const std::string& attrs = "");
  std::string Constant(const std::string& shape, const std::string& literal);
  // Ends the computation with `root` as ROOT (it must be the last emitted instruction or any
  // earlier one: a copy-free ROOT marker is placed on it).
  void EndComputation(const std::string& root);
  // The module text with the given header line attributes (", num_partitions=2" etc.).
  std::string Finish(const std::string& module_name, const std::string& header_attrs = "");
  // A scalar add computation named "add_<type>" (emitted once), for reduces.
  std::string AddReducer(const std::string& type);
  std::string MaxReducer(const std::string& type);

 private:
  struct Line {
    std::string name, text;
  };
  std::string Fresh(const std::string& hint);
  std::string ScalarReducer(const std::string& kind, const std::string& type);
  std::vector<std::string> finished_;  // completed computations' text
  std::string current_name_;
  bool current_entry_ = false;
  std::vector<Line> lines_;
  std::vector<std::string> reducers_;
  int64_t counter_ = 0;
};

}  // namespace spmdc

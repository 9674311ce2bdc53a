#include "models/hlo_writer.h"

#include <algorithm>

#include "fmt/format.h"

namespace spmdc {

void HloWriter::BeginComputation(const std::string& name, bool entry) {
  current_name_ = name;
  current_entry_ = entry;
  lines_.clear();
}

std::string HloWriter::Fresh(const std::string& hint) {
  return fmt::format("{}.{}", hint.empty() ? "v" : hint, counter_++);
}

std::string HloWriter::Emit(const std::string& shape, const std::string& op,
                            const std::vector<std::string>& operands, const std::string& attrs,
                            const std::string& hint) {
  std::string name = Fresh(hint.empty() ? op : hint);
  std::string ops;
  for (size_t i = 0; i < operands.size(); ++i) ops += (i ? ", " : "") + operands[i];
  lines_.push_back({name, fmt::format("{} = {} {}({}){}", name, shape, op, ops, attrs)});
  return name;
}

std::string HloWriter::Parameter(int64_t number, const std::string& shape, const std::string& hint,
                                 const std::string& attrs) {
  std::string name = Fresh(hint.empty() ? "param" : hint);
  lines_.push_back({name, fmt::format("{} = {} parameter({}){}", name, shape, number, attrs)});
  return name;
}

std::string HloWriter::Constant(const std::string& shape, const std::string& literal) {
  std::string name = Fresh("constant");
  lines_.push_back({name, fmt::format("{} = {} constant({})", name, shape, literal)});
  return name;
}

void HloWriter::EndComputation(const std::string& root) {
  size_t bytes = current_name_.size() + 16;
  for (const Line& l : lines_) bytes += l.text.size() + 8;
  std::string text;
  text.reserve(bytes);
  text += fmt::format("{}{} {{\n", current_entry_ ? "ENTRY " : "", current_name_);
  for (const Line& l : lines_) {
    text += l.name == root ? "  ROOT " : "  ";
    text += l.text;
    text += '\n';
  }
  text += "}\n";
  finished_.push_back(std::move(text));
  lines_.clear();
}

std::string HloWriter::ScalarReducer(const std::string& kind, const std::string& type) {
  std::string name = fmt::format("{}_{}", kind, type);
  if (std::find(reducers_.begin(), reducers_.end(), name) != reducers_.end()) return name;
  reducers_.push_back(name);
  finished_.insert(finished_.begin(),
                   fmt::format("{0} {{\n  {0}.lhs = {1}[] parameter(0)\n  {0}.rhs = {1}[] parameter(1)\n"
                               "  ROOT {0}.out = {1}[] {2}({0}.lhs, {0}.rhs)\n}}\n",
                               name, type, kind == "add" ? "add" : "maximum"));
  return name;
}

std::string HloWriter::AddReducer(const std::string& type) { return ScalarReducer("add", type); }
std::string HloWriter::MaxReducer(const std::string& type) { return ScalarReducer("max", type); }

std::string HloWriter::Finish(const std::string& module_name, const std::string& header_attrs) {
  std::string out = fmt::format("HloModule {}{}\n\n", module_name, header_attrs);
  size_t bytes = out.size();
  for (const std::string& c : finished_) bytes += c.size() + 1;
  out.reserve(bytes);
  for (size_t i = 0; i < finished_.size(); ++i) {
    if (i) out += '\n';
    out += finished_[i];
  }
  return out;
}

}  // namespace spmdc

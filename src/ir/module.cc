#include "ir/module.h"

#include <algorithm>
#include <cstdlib>
#include <functional>

#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"
#include "support/check.h"

namespace spmdc {

Module::Module(std::string name) : name_(std::move(name)) {}
Module::~Module() = default;

int64_t Module::num_partitions() const {
  const int64_t* n = config_.Get<int64_t>(AttrId::kNumPartitions);
  return n ? *n : 1;
}

int64_t Module::replica_count() const {
  const int64_t* n = config_.Get<int64_t>(AttrId::kReplicaCount);
  return n ? *n : 1;
}

Computation* Module::AddComputation(std::unique_ptr<Computation> c, bool is_entry) {
  Computation* raw = c.get();
  raw->parent_ = this;
  for (auto& i : raw->instructions_)
    if (i->unique_id() < 0) i->set_unique_id(NextUniqueId());
  computations_.push_back(std::move(c));
  if (is_entry) entry_ = raw;
  return raw;
}

void Module::RemoveComputation(Computation* c) {
  if (entry_ == c) entry_ = nullptr;
  std::erase_if(computations_, [c](const auto& p) { return p.get() == c; });
}

std::vector<Computation*> Module::computations() const {
  std::vector<Computation*> out;
  out.reserve(computations_.size());
  for (const auto& c : computations_) out.push_back(c.get());
  return out;
}

Computation* Module::GetComputation(std::string_view name) const {
  for (const auto& c : computations_)
    if (c->name() == name) return c.get();
  return nullptr;
}

std::vector<Computation*> Module::MakeComputationPostOrder(bool include_unreachable) const {
  std::vector<Computation*> order;
  absl::flat_hash_set<Computation*> visited;
  // Iterative DFS over the call graph from the entry.
  std::function<void(Computation*)> visit = [&](Computation* c) {
    if (!visited.insert(c).second) return;
    for (Instruction* i : c->instructions())
      for (Computation* callee : i->called_computations()) visit(callee);
    order.push_back(c);
  };
  if (entry_) visit(entry_);
  if (include_unreachable) {
    for (const auto& c : computations_) visit(c.get());
  }
  return order;
}

std::string Module::UniqueName(std::string_view prefix) {
  std::string base(prefix);
  int64_t& counter = name_counters_[base];
  std::string name = base;
  while (taken_names_.contains(name)) name = fmt::format("{}.{}", base, ++counter);
  taken_names_[name] = true;
  return name;
}

void Module::ReserveName(const std::string& name) { taken_names_[name] = true; }
bool Module::IsNameTaken(const std::string& name) const { return taken_names_.contains(name); }

std::string Module::SourceLocationOf(const Instruction& instr) const {
  const KeyValueList* md = instr.attrs().Get<KeyValueList>(AttrId::kMetadata);
  if (md == nullptr) return "";
  std::string file;
  int64_t line = 0, column = 0, frame = 0;
  auto as_int = [](const std::string& raw) -> int64_t {
    char* end = nullptr;
    long long v = std::strtoll(raw.c_str(), &end, 10);
    return end != raw.c_str() && *end == '\0' ? v : 0;
  };
  for (const auto& [key, value] : *md) {
    if (key == "source_file") file = UnquoteRaw(value);
    else if (key == "source_line") line = as_int(value);
    else if (key == "source_column") column = as_int(value);
    else if (key == "stack_frame_id") frame = as_int(value);
  }
  if (frame > 0) {
    std::vector<StackFrameIndex::Location> stack = stack_frames_.ResolveStackFrame(frame);
    if (!stack.empty() && !stack.front().file.empty()) {
      const StackFrameIndex::Location& leaf = stack.front();
      std::string out = fmt::format("{}:{}", leaf.file, leaf.line);
      if (leaf.column > 0) out += fmt::format(":{}", leaf.column);
      return out;
    }
  }
  if (file.empty()) return "";
  std::string out = line > 0 ? fmt::format("{}:{}", file, line) : file;
  if (line > 0 && column > 0) out += fmt::format(":{}", column);
  return out;
}

std::unique_ptr<Module> Module::Clone() const {
  auto out = std::make_unique<Module>(name_);
  out->config_ = config_;
  out->stack_frames_ = stack_frames_;
  out->next_unique_id_ = next_unique_id_;
  out->name_counters_ = name_counters_;
  out->taken_names_ = taken_names_;
  absl::flat_hash_map<const Computation*, Computation*> comp_map;
  for (const auto& c : computations_) {
    auto nc = std::make_unique<Computation>(c->name());
    nc->set_execution_thread(c->execution_thread());
    nc->set_location(c->location());
    comp_map[c.get()] = out->AddComputation(std::move(nc), c.get() == entry_);
  }
  for (const auto& c : computations_) {
    Computation* nc = comp_map[c.get()];
    absl::flat_hash_map<const Instruction*, Instruction*> instr_map;
    for (Instruction* old : c->instructions()) {
      auto ni = std::make_unique<Instruction>(old->opcode(), old->shape(), old->name());
      ni->set_unique_id(old->unique_id());
      ni->set_parameter_number(old->parameter_number());
      ni->set_location(old->location());
      ni->set_sharding(old->sharding_ptr());
      if (old->literal()) ni->set_literal(*old->literal());
      for (const auto& [id, value] : old->attrs().entries()) {
        if (id == AttrId::kControlPredecessors) continue;
        AttrValue v = value;
        if (auto* cc = std::get_if<Computation*>(&v)) {
          if (*cc) *cc = comp_map.at(*cc);
        } else if (auto* list = std::get_if<std::vector<Computation*>>(&v)) {
          for (Computation*& x : *list) x = comp_map.at(x);
        }
        ni->attrs().Set(id, std::move(v));
      }
      ni->attrs().unknown() = old->attrs().unknown();
      instr_map[old] = nc->AddInstruction(std::move(ni));
    }
    // Operands and control edges once every instruction exists (text order need not be
    // topological).
    for (Instruction* old : c->instructions()) {
      Instruction* ni = instr_map[old];
      for (Instruction* op : old->operands()) ni->AppendOperand(instr_map.at(op));
      if (const auto* cp = old->control_predecessors())
        for (Instruction* p : *cp) ni->AddControlPredecessor(instr_map.at(p));
    }
    if (c->root()) nc->set_root(instr_map.at(c->root()));
    SPMDC_CHECK(nc->RebuildParameterList().ok());
  }
  return out;
}

}  // namespace spmdc

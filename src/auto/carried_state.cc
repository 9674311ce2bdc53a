#include "auto/carried_state.h"

#include <cctype>
#include <map>
#include <optional>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "ir/attributes.h"
#include "ir/computation.h"
#include "ir/instruction.h"
#include "ir/opcode.h"

namespace spmdc::autoshard {
namespace {

// A reader of input_output_alias's text, `{ {0}: (1, {}, may-alias), {}: (0, {}) }`: the entries
// whose output index is one number or empty and whose parameter index is empty (an array
// parameter). Anything it does not understand is skipped: the attribute is the parser's raw text,
// and a pairing it cannot read only leaves a cost unpriced.
class AliasReader {
 public:
  explicit AliasReader(const std::string& text) : s_(text) {}

  // output index (-1: the whole result) -> parameter number.
  std::map<int64_t, int64_t> Entries() {
    std::map<int64_t, int64_t> out;
    Skip();
    if (!Eat('{')) return out;
    while (true) {
      Skip();
      if (Eat('}') || pos_ >= s_.size()) break;
      const size_t start = pos_;
      std::optional<std::vector<int64_t>> output = Index();
      std::optional<int64_t> parameter;
      std::optional<std::vector<int64_t>> parameter_index;
      if (output && Eat(':') && Eat('(') && (parameter = Number()) && Eat(',') && (parameter_index = Index())) {
        if (output->size() <= 1 && parameter_index->empty())
          out[output->empty() ? -1 : (*output)[0]] = *parameter;
      }
      // On to the next entry: past this one's closing parenthesis and its comma.
      while (pos_ < s_.size() && s_[pos_] != ')') ++pos_;
      if (pos_ < s_.size()) ++pos_;
      Skip();
      Eat(',');
      if (pos_ == start) break;
    }
    return out;
  }

 private:
  void Skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool Eat(char c) {
    Skip();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::optional<int64_t> Number() {
    Skip();
    const size_t begin = pos_;
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    if (pos_ == begin || pos_ - begin > 18) return std::nullopt;
    return std::stoll(s_.substr(begin, pos_ - begin));
  }
  // `{}`, `{3}`, `{1, 2}`.
  std::optional<std::vector<int64_t>> Index() {
    if (!Eat('{')) return std::nullopt;
    std::vector<int64_t> index;
    if (Eat('}')) return index;
    while (true) {
      std::optional<int64_t> n = Number();
      if (!n) return std::nullopt;
      index.push_back(*n);
      if (Eat('}')) return index;
      if (!Eat(',')) return std::nullopt;
    }
  }

  const std::string& s_;
  size_t pos_ = 0;
};

bool SameArray(const Shape& a, const Shape& b) { return a.IsArray() && b.IsArray() && a.dtype() == b.dtype() && a.dims() == b.dims(); }

// The entry parameter of `value`'s dims and type closest to it backwards through elementwise ops
// of its dims (a with_sharding_constraint passes through); nullptr when there is none or two are
// equally close.
const Instruction* CarriedParameter(const Instruction* value) {
  const std::vector<int64_t>& dims = value->shape().dims();
  std::vector<const Instruction*> level{value};
  absl::flat_hash_set<const Instruction*> seen{value};
  while (!level.empty()) {
    const Instruction* found = nullptr;
    int count = 0;
    for (const Instruction* i : level) {
      if (i->opcode() == Opcode::kParameter && SameArray(i->shape(), value->shape())) {
        found = i;
        ++count;
      }
    }
    if (count == 1) return found;
    if (count > 1) return nullptr;
    std::vector<const Instruction*> next;
    for (const Instruction* i : level) {
      const bool passes = IsElementwiseOpcode(i->opcode()) ||
                          (i->opcode() == Opcode::kCustomCall && i->custom_call_target() == "Sharding");
      if (!passes) continue;
      for (const Instruction* op : i->operands())
        if (op->shape().IsArray() && op->shape().dims() == dims && seen.insert(op).second) next.push_back(op);
    }
    level = std::move(next);
  }
  return nullptr;
}

}  // namespace

std::vector<CarriedValue> FindCarriedValues(const Module& module) {
  std::vector<CarriedValue> out;
  const Computation& entry = *module.entry();
  const Instruction* root = entry.root();
  const std::vector<Instruction*>& params = entry.parameters();
  auto output_shape = [&](int64_t k) -> const Shape* {
    if (k < 0) return root->shape().IsTuple() ? nullptr : &root->shape();
    if (!root->shape().IsTuple() || k >= root->shape().tuple_size()) return nullptr;
    return &root->shape().tuple_shapes()[k];
  };
  if (const std::string* alias = module.config().Get<std::string>(AttrId::kInputOutputAlias)) {
    for (const auto& [k, p] : AliasReader(*alias).Entries()) {
      const Shape* shape = output_shape(k);
      for (const Instruction* param : params)
        if (shape && param->parameter_number() == p && SameArray(*shape, param->shape())) out.push_back({p, k, true});
    }
    return out;
  }
  // Without an alias: from the data flow, for a result tuple built in the entry (or an array).
  auto add = [&](const Instruction* value, int64_t k) {
    if (!value->shape().IsArray()) return;
    if (const Instruction* p = CarriedParameter(value)) out.push_back({p->parameter_number(), k, false});
  };
  if (root->opcode() == Opcode::kTuple) {
    for (int64_t k = 0; k < root->operand_count(); ++k) add(root->operand(k), k);
  } else {
    add(root, -1);
  }
  return out;
}

}  // namespace spmdc::autoshard

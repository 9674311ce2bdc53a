#include "pipeline/stacked_update.h"

#include <algorithm>
#include <deque>
#include <functional>

#include "auto/layers.h"

namespace spmdc::pipeline {
namespace {

bool Zippable(Opcode op) {
  return (IsElementwiseOpcode(op) && op != Opcode::kRng) || op == Opcode::kBroadcast || op == Opcode::kConstant;
}

class Zipper {
 public:
  Zipper(const LayerChain& chain, int64_t k) : chain_(chain), k_(k) {}

  // Zips layer 0's `a` with layer j's `b`; false when they differ.
  bool Zip(const Instruction* a, const Instruction* b, int64_t j) {
    auto seen = pair_.find(a);
    if (seen != pair_.end() && seen->second.contains(j)) return seen->second[j] == b;
    pair_[a][j] = b;
    ZipNode n;
    n.instr = a;
    if (a == chain_.weights[0][k_] && b == chain_.weights[j][k_]) {
      n.kind = ZipNode::kWeight;
      n.stacked = true;
    } else if (const int64_t g = GradientIndex(a, 0); g >= 0 && g == GradientIndex(b, j)) {
      n.kind = ZipNode::kGradient;
      n.gradient = g;
      n.stacked = true;
    } else if (a != b && a->opcode() == Opcode::kParameter && b->opcode() == Opcode::kParameter) {
      // Two layers' own parameters of one role (m of layer 0 and m of layer j): not a layer weight
      // of the chain, and each paired with one parameter only.
      if (IsChainWeight(a) || IsChainWeight(b) || !(a->shape() == b->shape())) return false;
      auto [it, fresh] = partner_.try_emplace(b, a);
      if (!fresh && it->second != a) return false;
      n.kind = ZipNode::kCompanion;
      n.stacked = true;
      companions_[a].resize(chain_.layers(), nullptr);
      companions_[a][0] = a;
      companions_[a][j] = b;
    } else if (a == b) {
      if (DependsOnLayer(a)) return false;  // one value of several layers: not per layer
      n.kind = ZipNode::kShared;
    } else {
      if (a->opcode() != b->opcode() || !(a->shape() == b->shape()) || !Zippable(a->opcode()) ||
          a->operand_count() != b->operand_count() || autoshard::BodySignature(*a) != autoshard::BodySignature(*b))
        return false;
      for (int64_t i = 0; i < a->operand_count(); ++i) {
        if (!Zip(a->operand(i), b->operand(i), j)) return false;
        n.stacked |= node_of_.at(a->operand(i))->stacked;
      }
      replaced_.insert(a);
      replaced_.insert(b);
    }
    if (!node_of_.contains(a)) {
      nodes_.push_back(n);
      node_of_[a] = &nodes_.back();
    }
    return true;
  }

  // j when `i` is output j + 1 (a gradient) of layer l's backward call, else -1.
  int64_t GradientIndex(const Instruction* i, int64_t l) const {
    if (i->opcode() != Opcode::kGetTupleElement || i->operand(0) != chain_.backward_calls[l] || i->tuple_index() < 1)
      return -1;
    return i->tuple_index() - 1;
  }

  bool IsChainWeight(const Instruction* i) const {
    for (const auto& ws : chain_.weights)
      for (const Instruction* w : ws)
        if (w == i) return true;
    return false;
  }
  // Layer 0's zipped instruction of every layer's copy, and the copy's layer.
  absl::flat_hash_map<const Instruction*, std::pair<const Instruction*, int64_t>> Copies() const {
    absl::flat_hash_map<const Instruction*, std::pair<const Instruction*, int64_t>> out;
    for (const auto& [a, by_layer] : pair_) {
      out[a] = {a, 0};
      for (const auto& [j, b] : by_layer) out[b] = {a, j};
    }
    return out;
  }

  // Reaches a layer's weight, gradient or activation (so it cannot stand for every layer).
  bool DependsOnLayer(const Instruction* i) {
    auto it = depends_.find(i);
    if (it != depends_.end()) return it->second;
    bool d = false;
    for (const auto& ws : chain_.weights)
      for (const Instruction* w : ws) d |= i == w;
    for (const Instruction* c : chain_.forward_calls) d |= i == c;
    for (const Instruction* c : chain_.backward_calls) d |= i == c;
    if (!d)
      for (const Instruction* op : i->operands()) d |= DependsOnLayer(op);
    depends_[i] = d;
    return d;
  }

  std::deque<ZipNode> nodes_;  // post-order (operands zipped before their user)
  absl::flat_hash_map<const Instruction*, ZipNode*> node_of_;
  absl::flat_hash_set<const Instruction*> replaced_;
  absl::flat_hash_map<const Instruction*, std::vector<const Instruction*>> companions_;

 private:
  const LayerChain& chain_;
  const int64_t k_;
  absl::flat_hash_map<const Instruction*, absl::flat_hash_map<int64_t, const Instruction*>> pair_;
  absl::flat_hash_map<const Instruction*, bool> depends_;
  absl::flat_hash_map<const Instruction*, const Instruction*> partner_;  // layer j's -> layer 0's
};

}  // namespace

std::vector<StackedSlot> FindStackedUpdates(const LayerChain& chain, const Instruction* root) {
  std::vector<StackedSlot> out;
  if (root->opcode() != Opcode::kTuple) return out;
  absl::flat_hash_set<const Instruction*> claimed;  // companions of slots found so far
  const int64_t L = chain.layers();
  const int64_t K = static_cast<int64_t>(chain.weights[0].size());
  for (int64_t k = 0; k < K; ++k) {
    bool parameters = true;  // the stacked form replaces the layers' weight parameters
    for (int64_t l = 0; l < L; ++l) parameters &= chain.weights[l][k]->opcode() == Opcode::kParameter;
    if (!parameters) continue;
    // Layer l's new weight: the root element that reaches its weight k (and no other layer's).
    std::vector<int64_t> index(L, -1);
    bool ok = true;
    for (int64_t e = 0; e < root->operand_count() && ok; ++e) {
      const Instruction* v = root->operand(e);
      if (!(v->shape() == chain.weights[0][k]->shape())) continue;
      std::function<bool(const Instruction*, int64_t)> reaches = [&](const Instruction* i, int64_t l) -> bool {
        if (i == chain.weights[l][k]) return true;
        if (i->opcode() == Opcode::kParameter || i->opcode() == Opcode::kCall) return false;
        for (const Instruction* op : i->operands())
          if (reaches(op, l)) return true;
        return false;
      };
      for (int64_t l = 0; l < L; ++l)
        if (reaches(v, l)) {
          if (index[l] >= 0) ok = false;  // two outputs from one weight: not an update
          index[l] = e;
        }
    }
    for (int64_t l = 0; l < L && ok; ++l) ok = index[l] >= 0 && (l == 0 || index[l] != index[0]);
    if (!ok) continue;
    Zipper z(chain, k);
    for (int64_t l = 1; l < L && ok; ++l) ok = z.Zip(root->operand(index[0]), root->operand(index[l]), l);
    if (!ok || z.nodes_.empty() || !z.nodes_.back().stacked) continue;
    // The replaced instructions may feed only each other and the root; each root element they
    // are (the new weight, Adam's new moments) must be one layer's copy of one zipped
    // instruction, with every layer's copy a root element.
    for (const Instruction* i : z.replaced_)
      for (const Instruction* u : i->users())
        if (!z.replaced_.contains(u) && u != root) ok = false;
    StackedSlot s;
    s.slot = k;
    s.outputs.push_back({root->operand(index[0]), index});
    const auto copies = z.Copies();
    absl::flat_hash_map<const Instruction*, size_t> output_of = {{root->operand(index[0]), 0}};
    for (int64_t e = 0; e < root->operand_count() && ok; ++e) {
      const Instruction* v = root->operand(e);
      if (!z.replaced_.contains(v) || std::find(index.begin(), index.end(), e) != index.end()) continue;
      const auto [node, layer] = copies.at(v);
      auto [it, fresh] = output_of.try_emplace(node, s.outputs.size());
      if (fresh) s.outputs.push_back({node, std::vector<int64_t>(L, -1)});
      int64_t& slot_index = s.outputs[it->second].root_indices[layer];
      if (slot_index >= 0) ok = false;  // one copy returned twice
      slot_index = e;
    }
    for (const StackedSlot::Output& o : s.outputs)
      for (int64_t e : o.root_indices) ok &= e >= 0;
    for (const auto& [node, params] : z.companions_) {
      for (const Instruction* p : params) ok &= p != nullptr && !claimed.contains(p);
      if (ok) s.companions.push_back({node, params});
    }
    if (!ok) continue;
    for (const StackedSlot::Companion& c : s.companions) claimed.insert(c.params.begin(), c.params.end());
    s.nodes.assign(z.nodes_.begin(), z.nodes_.end());
    s.replaced = std::move(z.replaced_);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace spmdc::pipeline

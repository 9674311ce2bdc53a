// FindLayerChain: the repeated-layer form of pipeline.h in an entry computation.
#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"
#include "pipeline/pipeline.h"

namespace spmdc::pipeline {
namespace {

bool IsCallOf(const Instruction* i, const Computation* c) {
  return i->opcode() == Opcode::kCall && i->to_apply() == c;
}

// The longest chain of calls to `f` (each call's operand 0 the previous call), or empty.
std::vector<const Instruction*> LongestChain(const std::vector<const Instruction*>& calls, const Computation* f) {
  std::vector<const Instruction*> best;
  for (const Instruction* start : calls) {
    if (IsCallOf(start->operand(0), f)) continue;  // not the first of its chain
    std::vector<const Instruction*> chain = {start};
    for (;;) {
      const Instruction* next = nullptr;
      for (const Instruction* u : chain.back()->users())
        if (IsCallOf(u, f) && u->operand(0) == chain.back()) next = next ? nullptr : u;  // unique
      if (next == nullptr) break;
      chain.push_back(next);
    }
    if (chain.size() > best.size()) best = chain;
  }
  return best;
}

// Whether `i` is, or is computed from, one of `calls`.
bool DependsOnCalls(const Instruction* i, const std::vector<const Instruction*>& calls) {
  absl::flat_hash_set<const Instruction*> seen;
  std::vector<const Instruction*> stack = {i};
  while (!stack.empty()) {
    const Instruction* x = stack.back();
    stack.pop_back();
    if (!seen.insert(x).second) continue;
    if (std::find(calls.begin(), calls.end(), x) != calls.end()) return true;
    for (const Instruction* op : x->operands()) stack.push_back(op);
  }
  return false;
}

}  // namespace

StatusOr<LayerChain> FindLayerChain(const Module& module) {
  const Computation* entry = module.entry();
  if (entry == nullptr) return InvalidArgument("pipeline: the module has no entry computation");
  absl::flat_hash_map<const Computation*, std::vector<const Instruction*>> calls;
  std::vector<const Computation*> order;
  for (const Instruction* i : entry->MakeInstructionPostOrder())
    if (i->opcode() == Opcode::kCall) {
      if (!calls.contains(i->to_apply())) order.push_back(i->to_apply());
      calls[i->to_apply()].push_back(i);
    }
  LayerChain chain;
  // The forward chain: the longest chain of calls to one computation whose result is its first
  // parameter's shape.
  for (const Computation* f : order) {
    const Computation& c = *f;
    if (c.num_parameters() < 2 || !c.root()->shape().IsArray() || !(c.root()->shape() == c.parameter(0)->shape()))
      continue;
    std::vector<const Instruction*> best = LongestChain(calls[f], f);
    if (best.size() >= 2 && best.size() > chain.forward_calls.size()) {
      chain.forward = f;
      chain.forward_calls = best;
    }
  }
  if (chain.forward == nullptr)
    return Unimplemented(
        "no repeated layer chain found: no computation of the entry is called at least twice with "
        "each call's result as the next call's first operand (the layer form `spmdc pipeline` reads: "
        "one layer computation called per layer, and its backward called per layer in reverse)");
  const int64_t L = chain.layers();
  const int64_t K = chain.forward->num_parameters() - 1;
  if (static_cast<int64_t>(calls[chain.forward].size()) != L)
    return Unimplemented("no repeated layer chain found: {} calls {} times, {} of them in one chain",
                         chain.forward->name(), calls[chain.forward].size(), L);
  chain.input = chain.forward_calls[0]->operand(0);
  absl::flat_hash_set<const Instruction*> seen_weights;
  for (int64_t l = 0; l < L; ++l) {
    const Instruction* c = chain.forward_calls[l];
    std::vector<const Instruction*> w;
    for (int64_t k = 1; k <= K; ++k) {
      const Instruction* op = c->operand(k);
      // A weight is an entry parameter, or a value computed before the layers (a row of a
      // scanned model's stacked weights).
      if (DependsOnCalls(op, calls[chain.forward]))
        return Unimplemented("no repeated layer chain found: weight {} of layer {} (%{}) is computed from the layers' "
                             "outputs",
                             k - 1, l, op->name());
      if (!seen_weights.insert(op).second)
        return Unimplemented("no repeated layer chain found: %{} is a weight of more than one layer (shared weights)",
                             op->name());
      w.push_back(op);
    }
    chain.weights.push_back(w);
    // Inside the chain a layer's output feeds only the next layer and that layer's backward.
    if (l + 1 < L)
      for (const Instruction* u : c->users())
        if (u != chain.forward_calls[l + 1] && !(u->opcode() == Opcode::kCall && u->operand(0) == c))
          return Unimplemented("no repeated layer chain found: layer {}'s output %{} is used by %{} outside the chain", l,
                               c->name(), u->name());
  }
  // The backward chain: calls of one computation G(x_l, w_l..., dy) -> (dx, dw...).
  for (const Computation* g : order) {
    if (g == chain.forward || g->num_parameters() != K + 2) continue;
    const std::vector<const Instruction*>& gc = calls[g];
    if (static_cast<int64_t>(gc.size()) != L) continue;
    std::vector<const Instruction*> by_layer(L, nullptr);
    bool ok = true;
    for (const Instruction* b : gc) {
      int64_t l = -1;
      for (int64_t j = 0; j < L && l < 0; ++j)
        if (b->operand(0) == (j == 0 ? chain.input : chain.forward_calls[j - 1])) l = j;
      if (l < 0 || by_layer[l] != nullptr) {
        ok = false;
        break;
      }
      for (int64_t k = 0; k < K; ++k) ok &= b->operand(k + 1) == chain.weights[l][k];
      by_layer[l] = b;
    }
    if (!ok) continue;
    chain.backward = g;
    chain.backward_calls = by_layer;
    break;
  }
  if (chain.backward == nullptr)
    return Unimplemented(
        "no repeated layer chain found: the forward chain of {} ({} layers) has no backward chain: a "
        "computation called once per layer as (layer input, the layer's weights..., output cotangent) -> "
        "(input cotangent, weight gradients...)",
        chain.forward->name(), L);
  const Shape& act = chain.forward->parameter(0)->shape();
  const Shape& groot = chain.backward->root()->shape();
  if (!groot.IsTuple() || groot.tuple_size() < 1 || !(groot.tuple_shape(0) == act))
    return Unimplemented("no repeated layer chain found: {} does not return (input cotangent, weight gradients...)",
                         chain.backward->name());
  for (int64_t l = 0; l < L; ++l) {
    const Instruction* b = chain.backward_calls[l];
    const Instruction* dy = b->operand(K + 1);
    if (l + 1 < L) {
      const Instruction* next = chain.backward_calls[l + 1];
      if (dy->opcode() != Opcode::kGetTupleElement || dy->operand(0) != next || dy->tuple_index() != 0)
        return Unimplemented("no repeated layer chain found: the cotangent of layer {}'s backward (%{}) is not the input "
                             "cotangent of layer {}'s",
                             l, dy->name(), l + 1);
    } else {
      chain.cotangent = dy;
    }
    for (const Instruction* u : b->users())
      if (u->opcode() != Opcode::kGetTupleElement)
        return Unimplemented("pipeline: the backward call %{} is used by %{}, not only through get-tuple-element",
                             b->name(), u->name());
    if (l > 0)
      for (const Instruction* u : b->users())
        if (u->tuple_index() == 0)
          for (const Instruction* uu : u->users())
            if (uu != chain.backward_calls[l - 1])
              return Unimplemented("no repeated layer chain found: layer {}'s input cotangent %{} is used by %{} outside "
                                   "the chain",
                                   l, u->name(), uu->name());
  }
  return chain;
}

}  // namespace spmdc::pipeline

// InlineLayerCalls and ApplyLayerPlan (layer_plan.h).
#include "pipeline/layer_plan.h"

#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"
#include "hlo/parser.h"
#include "hlo/printer.h"
#include "ir/verifier.h"
#include "passes/passes.h"
#include "pipeline/layer_batching.h"
#include "pipeline/layer_forms.h"
#include "auto/layers.h"
#include "pipeline/pipeline.h"
#include "sharding/sharding.h"

namespace spmdc::pipeline {
namespace {

absl::flat_hash_map<std::string, Instruction*> ByName(Computation& c) {
  absl::flat_hash_map<std::string, Instruction*> out;
  for (Instruction* i : c.instructions()) out[i->name()] = i;
  return out;
}

// Row p of a stacked value: reshape(slice(V, [p:p+1], whole)) to V's shape without dim 0.
int64_t RowIndex(const Instruction* w, const Instruction** stacked) {
  if (w->opcode() != Opcode::kReshape || w->operand(0)->opcode() != Opcode::kSlice) return -1;
  const Instruction* slice = w->operand(0);
  const Instruction* v = slice->operand(0);
  const SliceSpec* spec = slice->attr<SliceSpec>(AttrId::kSlice);
  const Shape& vs = v->shape();
  if (spec == nullptr || !vs.IsArray() || vs.rank() != w->shape().rank() + 1) return -1;
  for (int64_t d = 0; d < vs.rank(); ++d) {
    if (spec->strides[d] != 1) return -1;
    if (d > 0 && (spec->starts[d] != 0 || spec->limits[d] != vs.dim(d))) return -1;
  }
  if (spec->limits[0] != spec->starts[0] + 1) return -1;
  *stacked = v;
  return spec->starts[0];
}

// The scan's stacked weights as parameters per layer (InlinedLayers::unstacked), on the
// layer-call form `m`. A value [L, ...] is split into its L rows where it is a stacked parameter
// (its rows the layers' weights, or read only where rows can be: the optimizer state), the
// concatenation of the layers' gradients, a broadcast of a value without the layer dim, or an
// elementwise function of such values; where a value is read whole, its rows are concatenated
// back; a result is returned as its rows.
Status UnstackRows(Module& m, InlinedLayers& out) {
  ASSIGN_OR_RETURN(LayerChain chain, FindLayerChain(m));
  Computation& entry = *m.entry();
  absl::flat_hash_map<std::string, Instruction*> by_name = ByName(entry);
  const int64_t L = chain.layers(), K = static_cast<int64_t>(chain.weights[0].size());
  out.weight.assign(L, {});
  for (int64_t l = 0; l < L; ++l)
    for (const Instruction* w : chain.weights[l]) out.weight[l].push_back(w->name());
  // Stacked sources: every layer's weight k is row l of one entry parameter.
  absl::flat_hash_map<const Instruction*, int64_t> source_slot;
  for (int64_t k = 0; k < K; ++k) {
    const Instruction* v = nullptr;
    bool rows = true;
    for (int64_t l = 0; l < L && rows; ++l) {
      const Instruction* vl = nullptr;
      rows = RowIndex(chain.weights[l][k], &vl) == l && (v == nullptr || vl == v);
      v = vl;
    }
    if (rows && v->opcode() == Opcode::kParameter && v->shape().dim(0) == L) source_slot[v] = k;
  }
  if (source_slot.empty()) return absl::OkStatus();
  const std::vector<Instruction*> order = entry.MakeInstructionPostOrder();
  auto stacked_shape = [&](const Instruction* x) {
    return x->shape().IsArray() && x->shape().rank() >= 1 && x->shape().dim(0) == L;
  };
  absl::flat_hash_set<const Instruction*> backward_calls;
  for (const Instruction* c : chain.backward_calls) backward_calls.insert(c);
  // Which values split: the stacked parameters, the gradients' concatenations, broadcasts of
  // values without the layer dim, elementwise functions of those.
  absl::flat_hash_set<const Instruction*> split;
  for (const Instruction* x : order) {
    if (!stacked_shape(x)) continue;
    bool ok = false;
    if (x->opcode() == Opcode::kParameter) {
      ok = true;
    } else if (x->opcode() == Opcode::kConcatenate && x->dimensions()[0] == 0 && x->operand_count() == L) {
      ok = true;
      for (int64_t l = 0; l < L && ok; ++l) {
        const Instruction* r = x->operand(l);
        ok = r->opcode() == Opcode::kReshape && r->operand(0)->opcode() == Opcode::kGetTupleElement &&
             r->operand(0)->operand(0) == chain.backward_calls[l] && r->shape().dim(0) == 1;
      }
    } else if (x->opcode() == Opcode::kBroadcast) {
      const std::vector<int64_t>& d = x->dimensions();
      ok = std::find(d.begin(), d.end(), 0) == d.end();
    } else if (IsElementwiseOpcode(x->opcode()) && x->opcode() != Opcode::kConstant) {
      ok = true;
      for (const Instruction* op : x->operands()) ok = ok && split.contains(op);
    }
    if (ok) split.insert(x);
  }
  // A stacked parameter splits only where its rows are what it is read for: each use splits, or
  // is a layer's weight (a row).
  for (const Instruction* x : order) {
    if (x->opcode() != Opcode::kParameter || !split.contains(x) || source_slot.contains(x)) continue;
    bool rows_only = true;
    for (const Instruction* u : x->users()) rows_only = rows_only && (split.contains(u) || u == entry.root());
    if (!rows_only) split.erase(x);
  }
  // Elementwise values whose operands no longer all split do not split either.
  for (const Instruction* x : order) {
    if (!split.contains(x) || !IsElementwiseOpcode(x->opcode())) continue;
    for (const Instruction* op : x->operands())
      if (!split.contains(op)) {
        split.erase(x);
        break;
      }
  }
  // The rows.
  absl::flat_hash_map<const Instruction*, std::vector<Instruction*>> rows;
  int64_t next_param = entry.num_parameters();
  for (Instruction* x : order) {
    if (!split.contains(x)) continue;
    const Shape row = DropLeadingDim(x->shape());
    std::vector<Instruction*>& r = rows[x];
    for (int64_t l = 0; l < L; ++l) {
      Instruction* y = nullptr;
      if (x->opcode() == Opcode::kParameter) {
        y = AddParameter(m, entry, next_param++, row, fmt::format("{}.row{}", x->name(), l));
      } else if (x->opcode() == Opcode::kConcatenate) {
        y = x->operand(l)->operand(0);
      } else if (x->opcode() == Opcode::kBroadcast) {
        y = entry.AddInstruction(Opcode::kBroadcast, row, m.UniqueName(x->name() + ".row"), {x->operand(0)});
        std::vector<int64_t> dims;
        for (int64_t d : x->dimensions()) dims.push_back(d - 1);
        y->attrs().Set(AttrId::kDimensions, dims);
      } else {
        std::unique_ptr<Instruction> c = CopyWithoutEdges(m, *x);
        *c->mutable_shape() = Shape(x->shape().dtype(), row.dims());
        y = entry.AddInstruction(std::move(c));
        for (const Instruction* op : x->operands()) y->AppendOperand(rows.at(op)[l]);
      }
      r.push_back(y);
    }
    if (auto it = source_slot.find(x); it != source_slot.end())
      for (int64_t l = 0; l < L; ++l) {
        Instruction* w = by_name.at(chain.weights[l][it->second]->name());
        w->ReplaceAllUsesWith(r[l]);
        out.weight[l][it->second] = r[l]->name();
      }
    if (x->opcode() == Opcode::kParameter) {
      std::vector<std::string> names;
      for (const Instruction* y : r) names.push_back(y->name());
      out.unstacked.push_back({x->name(), names});
    }
  }
  // Whole reads of split values: the rows concatenated; results: the rows.
  Instruction* root = entry.root();
  for (Instruction* x : order) {
    if (!split.contains(x) || x->opcode() == Opcode::kParameter) continue;
    std::vector<Instruction*> whole_users;
    for (Instruction* u : x->users())
      if (u != root && !split.contains(u)) whole_users.push_back(u);
    if (whole_users.empty()) continue;
    std::vector<Instruction*> parts;
    for (Instruction* y : rows.at(x)) parts.push_back(AddReshape(m, entry, y, WithLeadingDim(y->shape(), 1), x->name() + ".rows"));
    Instruction* whole = entry.AddInstruction(Opcode::kConcatenate, x->shape(), m.UniqueName(x->name() + ".rows"), parts);
    whole->attrs().Set(AttrId::kDimensions, std::vector<int64_t>{0});
    for (Instruction* u : whole_users)
      for (int64_t k = 0; k < u->operand_count(); ++k)
        if (u->operand(k) == x) u->ReplaceOperandWith(k, whole);
  }
  if (root->opcode() == Opcode::kTuple) {
    std::vector<Instruction*> elems;
    std::vector<Shape> shapes;
    for (Instruction* op : root->operands()) {
      auto it = rows.find(op);
      if (it == rows.end() || op->opcode() == Opcode::kParameter) {
        elems.push_back(op);
      } else {
        elems.insert(elems.end(), it->second.begin(), it->second.end());
      }
    }
    for (const Instruction* e : elems) shapes.push_back(e->shape());
    Instruction* t = entry.AddInstruction(Opcode::kTuple, Shape::Tuple(shapes), m.UniqueName(root->name()), elems);
    entry.set_root(t);
  }
  RETURN_IF_ERROR(entry.RebuildParameterList());
  return RunDce(m).status();
}

// `calls_form` with its layers on one microbatch (InlineLayerCalls): the layer computations
// rebatched under their own names, the chain's ends adapted.
StatusOr<std::unique_ptr<Module>> MicrobatchLayers(const Module& calls_form, int64_t microbatches,
                                                   absl::flat_hash_map<std::string, std::string>* f_names,
                                                   absl::flat_hash_map<std::string, std::string>* g_names) {
  std::unique_ptr<Module> cm = calls_form.Clone();
  ASSIGN_OR_RETURN(LayerChain chain, FindLayerChain(*cm));
  const Shape& act = chain.forward->parameter(0)->shape();
  const int64_t M = microbatches, B = act.rank() > 0 ? act.dim(0) : 0;
  if (B == 0 || B % M != 0)
    return InvalidArgument("--microbatches {} does not divide the batch {} (dim 0 of the layer input %{})", M, B,
                           chain.input->name());
  const int64_t K = chain.forward->num_parameters() - 1;
  LayerBatching fb{.stages = 0, .batch = B, .microbatches = M, .batched_params = std::vector<bool>(K + 1, false)};
  fb.batched_params[0] = true;
  LayerBatching bb = fb;
  bb.batched_params.push_back(true);
  bb.tuple_root = true;
  ASSIGN_OR_RETURN(std::string f_text, EmitStagedLayer(*chain.forward, fb, chain.forward->name(), *cm, f_names));
  ASSIGN_OR_RETURN(std::string g_text, EmitStagedLayer(*chain.backward, bb, chain.backward->name(), *cm, g_names));

  Computation& entry = *cm->entry();
  absl::flat_hash_map<std::string, Instruction*> by_name = ByName(entry);
  Shape mb = act;
  mb.mutable_dims()[0] = B / M;
  // The first B/M examples of a [B, ...] value, and a [B/M, ...] value tiled back to [B, ...].
  auto first = [&](Instruction* x) {
    Instruction* s = entry.AddInstruction(Opcode::kSlice, mb, cm->UniqueName(x->name() + ".mb"), {x});
    SliceSpec spec{std::vector<int64_t>(act.rank(), 0), act.dims(), std::vector<int64_t>(act.rank(), 1)};
    spec.limits[0] = B / M;
    s->attrs().Set(AttrId::kSlice, spec);
    return s;
  };
  auto tiled = [&](Instruction* x) {
    std::vector<int64_t> dims = {M};
    dims.insert(dims.end(), mb.dims().begin(), mb.dims().end());
    std::vector<int64_t> kept(act.rank());
    for (int64_t d = 0; d < act.rank(); ++d) kept[d] = d + 1;
    Instruction* b = entry.AddInstruction(Opcode::kBroadcast, Shape(act.dtype(), dims), cm->UniqueName(x->name() + ".tiled"), {x});
    b->attrs().Set(AttrId::kDimensions, kept);
    return AddReshape(*cm, entry, b, act, x->name() + ".tiled");
  };
  absl::flat_hash_set<const Instruction*> calls;
  for (const Instruction* c : chain.forward_calls) calls.insert(by_name.at(c->name()));
  for (const Instruction* c : chain.backward_calls) calls.insert(by_name.at(c->name()));
  Instruction* x0 = by_name.at(chain.input->name());
  Instruction* x0_mb = first(x0);
  Instruction* dy_mb = first(by_name.at(chain.cotangent->name()));
  const Shape f_root = [&] {
    Shape s = chain.forward->root()->shape();
    s.mutable_dims()[0] = B / M;
    return s;
  }();
  for (const Instruction* c : chain.forward_calls) {
    Instruction* call = by_name.at(c->name());
    if (call->operand(0) == x0) call->ReplaceOperandWith(0, x0_mb);
    *call->mutable_shape() = f_root;
  }
  for (const Instruction* c : chain.backward_calls) {
    Instruction* call = by_name.at(c->name());
    if (call->operand(0) == x0) call->ReplaceOperandWith(0, x0_mb);
    const int64_t last = call->operand_count() - 1;
    if (call->operand(last) == by_name.at(chain.cotangent->name())) call->ReplaceOperandWith(last, dy_mb);
    std::vector<Shape> elems = call->shape().tuple_shapes();
    elems[0] = mb;
    *call->mutable_shape() = Shape::Tuple(elems);
    for (Instruction* u : call->users())
      if (u->opcode() == Opcode::kGetTupleElement && u->tuple_index() == 0) *u->mutable_shape() = mb;
  }
  // What reads the chain's ends outside it: the whole batch.
  auto retile = [&](Instruction* v) {
    std::vector<Instruction*> outside;
    for (Instruction* u : v->users())
      if (!calls.contains(u)) outside.push_back(u);
    if (outside.empty()) return;
    Instruction* full = tiled(v);
    for (Instruction* u : outside)
      for (int64_t k = 0; k < u->operand_count(); ++k)
        if (u->operand(k) == v) u->ReplaceOperandWith(k, full);
    if (entry.root() == v) entry.set_root(full);
  };
  retile(by_name.at(chain.forward_calls.back()->name()));
  for (Instruction* u : by_name.at(chain.backward_calls[0]->name())->users())
    if (u->opcode() == Opcode::kGetTupleElement && u->tuple_index() == 0) retile(u);

  // The module as text, the layer computations replaced by their microbatched forms.
  std::string text = fmt::format("HloModule {}\n\n", cm->name());
  for (const Computation* c : cm->MakeComputationPostOrder(/*include_unreachable=*/true)) {
    if (c == &entry) continue;
    if (c == chain.forward) text += f_text + "\n";
    else if (c == chain.backward) text += g_text + "\n";
    else text += PrintComputation(*c) + "\n";
  }
  text += PrintComputation(entry) + "\n";
  StatusOr<std::unique_ptr<Module>> parsed = ParseHloModule(text, "<microbatched layers>");
  if (!parsed.ok()) return Internal("pipeline: the microbatched layers do not parse: {}", parsed.status().message());
  Status verified = VerifyModule(**parsed);
  if (!verified.ok()) return Internal("pipeline: the microbatched layers do not verify: {}", verified.message());
  return parsed;
}

}  // namespace

StatusOr<InlinedLayers> InlineLayerCalls(const Module& calls_form, int64_t microbatches) {
  InlinedLayers out;
  // The layer computations' instruction names -> their microbatched copies' (identity for M = 1).
  absl::flat_hash_map<std::string, std::string> f_names, g_names;
  if (microbatches > 1) {
    ASSIGN_OR_RETURN(out.module, MicrobatchLayers(calls_form, microbatches, &f_names, &g_names));
  } else {
    out.module = calls_form.Clone();
  }
  Module& m = *out.module;
  RETURN_IF_ERROR(UnstackRows(m, out));
  ASSIGN_OR_RETURN(LayerChain chain, FindLayerChain(m));
  Computation& entry = *m.entry();
  absl::flat_hash_map<std::string, Instruction*> by_name = ByName(entry);
  const int64_t L = chain.layers();
  out.forward_copy.resize(L);
  out.backward_copy.resize(L);
  // The callee's instructions copied into the entry (operands first), its parameters replaced by
  // the call's operands, the call's uses by its root's copy.
  auto inline_call = [&](const Instruction* at, int l, absl::flat_hash_map<std::string, std::string>& names) -> Status {
    Instruction* call = by_name.at(at->name());
    const Computation& callee = *call->called_computations()[0];
    absl::flat_hash_map<const Instruction*, Instruction*> copy;
    for (Instruction* old : callee.MakeInstructionPostOrder()) {
      if (old->opcode() == Opcode::kParameter) {
        copy[old] = call->operand(old->parameter_number());
        continue;
      }
      Instruction* c = entry.AddInstruction(CopyWithoutEdges(m, *old));
      for (const Instruction* op : old->operands()) c->AppendOperand(copy.at(op));
      copy[old] = c;
      names[old->name()] = c->name();
      out.layer_of[c->name()] = l;
    }
    Instruction* result = copy.at(callee.root());
    call->ReplaceAllUsesWith(result);
    if (entry.root() == call) entry.set_root(result);
    return entry.RemoveInstruction(call);
  };
  const Instruction* g_root = chain.backward->root();
  for (int l = 0; l < L; ++l) {
    out.layer_input.push_back(by_name.at(chain.forward_calls[l]->name())->operand(0)->name());
    RETURN_IF_ERROR(inline_call(chain.forward_calls[l], l, out.forward_copy[l]));
  }
  for (int l = L - 1; l >= 0; --l) RETURN_IF_ERROR(inline_call(chain.backward_calls[l], l, out.backward_copy[l]));
  for (int l = 0; l < L; ++l) {
    const Instruction* dx = g_root->opcode() == Opcode::kTuple ? g_root->operand(0) : g_root;
    auto it = out.backward_copy[l].find(dx->name());
    out.layer_cotangent.push_back(it == out.backward_copy[l].end() ? std::string() : it->second);
  }
  if (g_root->opcode() == Opcode::kTuple)
    for (int l = 0; l < L; ++l)
      for (int64_t k = 1; k < g_root->operand_count(); ++k)
        if (auto it = out.backward_copy[l].find(g_root->operand(k)->name()); it != out.backward_copy[l].end())
          out.accumulated.insert(it->second);
  // Keyed by the source's layer computations' names.
  auto compose = [](const absl::flat_hash_map<std::string, std::string>& first,
                    std::vector<absl::flat_hash_map<std::string, std::string>>& copies) {
    if (first.empty()) return;
    for (auto& per_layer : copies) {
      absl::flat_hash_map<std::string, std::string> keyed;
      for (const auto& [source, batched] : first) {
        auto it = per_layer.find(batched);
        if (it != per_layer.end()) keyed[source] = it->second;
      }
      per_layer = std::move(keyed);
    }
  };
  compose(f_names, out.forward_copy);
  compose(g_names, out.backward_copy);
  // The backward calls' tuples: their elements read directly (the planner takes arrays only).
  RETURN_IF_ERROR(RunTupleSimplifier(m).status());
  RETURN_IF_ERROR(RunDce(m).status());  // F and G, which nothing calls now
  return out;
}

StatusOr<LayerPlanStats> ApplyLayerPlan(Module& calls_form, const InlinedLayers& inlined, int layer,
                                        const Module& plan, const std::vector<const Module*>& step_plans) {
  ASSIGN_OR_RETURN(LayerChain chain, FindLayerChain(calls_form));
  if (layer < 0 || layer >= chain.layers() || layer >= static_cast<int>(inlined.forward_copy.size()))
    return Internal("pipeline: layer {} of a plan for {} layers", layer, chain.layers());
  absl::flat_hash_map<std::string, const Instruction*> planned;
  for (const Instruction* i : plan.entry()->instructions()) planned[i->name()] = i;
  LayerPlanStats stats;
  auto annotate = [&](const Computation* layer_computation,
                      const absl::flat_hash_map<std::string, std::string>& names) -> Status {
    Computation& c = *calls_form.GetComputation(layer_computation->name());
    absl::flat_hash_map<const Instruction*, const Instruction*> twin;
    for (const Instruction* x : c.instructions()) {
      auto it = names.find(x->name());
      if (it == names.end()) continue;
      auto p = planned.find(it->second);
      if (p != planned.end()) twin[x] = p->second;
    }
    StatusOr<autoshard::CarriedPlan> carried = autoshard::CarryPlan(calls_form, c, twin);
    if (!carried.ok()) return Internal("pipeline: {}", carried.status().message());
    stats.instructions += carried->annotated;
    stats.unmatched += carried->unmatched;
    stats.reshards += carried->reshards;
    return absl::OkStatus();
  };
  // The rest of the entry first (the layer's own plan has the last word on the values the chain
  // passes).
  {
    absl::flat_hash_set<const Instruction*> chain_values(chain.forward_calls.begin(), chain.forward_calls.end());
    for (const Instruction* c : chain.backward_calls) {
      chain_values.insert(c);
      for (const Instruction* u : c->users()) chain_values.insert(u);
    }
    std::vector<absl::flat_hash_map<std::string, const Instruction*>> by_plan(step_plans.size());
    for (size_t p = 0; p < step_plans.size(); ++p)
      for (const Instruction* i : step_plans[p]->entry()->instructions()) by_plan[p][i->name()] = i;
    absl::flat_hash_map<const Instruction*, const Instruction*> twin;
    for (const Instruction* x : calls_form.entry()->instructions()) {
      if (chain_values.contains(x)) continue;
      for (const auto& names : by_plan)
        if (auto it = names.find(x->name()); it != names.end()) {
          twin[x] = it->second;
          break;
        }
    }
    StatusOr<autoshard::CarriedPlan> carried = autoshard::CarryPlan(calls_form, *calls_form.entry(), twin);
    if (!carried.ok()) return Internal("pipeline: {}", carried.status().message());
    stats.step_instructions = carried->annotated;
  }
  RETURN_IF_ERROR(annotate(chain.forward, inlined.forward_copy[layer]));
  RETURN_IF_ERROR(annotate(chain.backward, inlined.backward_copy[layer]));

  // The entry: every layer's weight in slot k as the plan's layer's, the chain's input as F's
  // input, its cotangent as G's.
  absl::flat_hash_map<std::string, Instruction*> entry = ByName(*calls_form.entry());
  for (size_t k = 0; k < chain.weights[layer].size(); ++k) {
    const std::string& name = layer < static_cast<int>(inlined.weight.size()) && k < inlined.weight[layer].size()
                                  ? inlined.weight[layer][k]
                                  : chain.weights[layer][k]->name();
    auto p = planned.find(name);
    if (p == planned.end() || !p->second->has_sharding()) continue;
    for (int64_t l = 0; l < chain.layers(); ++l) {
      Instruction* w = entry.at(chain.weights[l][k]->name());
      if (w->shape() == p->second->shape()) w->set_sharding(p->second->sharding_ptr());
    }
  }
  // A stacked parameter planned as rows: its rows split as the layer's row is (dim 0 unsplit;
  // the pipeline splits it over the stages).
  for (const auto& [stacked, row_names] : inlined.unstacked) {
    auto p = layer < static_cast<int>(row_names.size()) ? planned.find(row_names[layer]) : planned.end();
    auto it = entry.find(stacked);
    if (p == planned.end() || !p->second->has_sharding() || it == entry.end()) continue;
    const Sharding& row = *p->second->sharding();
    if (row.IsReplicated()) {
      it->second->set_sharding(p->second->sharding_ptr());
      continue;
    }
    if (!row.IsTiled() || row.IsManualSubgroup() || !(row.subgroup_types().empty() || row.ReplicateOnLastTileDim()))
      continue;
    const TileAssignment& ta = row.tile_assignment();
    std::vector<int64_t> dims = {1};
    dims.insert(dims.end(), ta.dims().begin(), ta.dims().end());
    std::vector<int64_t> devices;
    for (int64_t i = 0; i < ta.num_elements(); ++i) devices.push_back(ta.At(i));
    TileAssignment tiles = TileAssignment::FromDevices(std::move(dims), std::move(devices));
    it->second->set_sharding(std::make_shared<const Sharding>(row.ReplicateOnLastTileDim() ? Sharding::PartialTile(std::move(tiles))
                                                                                          : Sharding::Tile(std::move(tiles))));
  }
  const Instruction* x = chain.forward->parameter(0);
  const Instruction* dy = chain.backward->parameter(chain.backward->num_parameters() - 1);
  if (x->has_sharding()) entry.at(chain.input->name())->set_sharding(x->sharding_ptr());
  if (dy->has_sharding()) entry.at(chain.cotangent->name())->set_sharding(dy->sharding_ptr());
  return stats;
}

}  // namespace spmdc::pipeline

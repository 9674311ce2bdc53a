#include "auto/layers.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"
#include "hlo/printer.h"
#include "sharding/sharding.h"

namespace spmdc::autoshard {
namespace {

constexpr int kNone = -1;

}  // namespace

std::string BodySignature(const Instruction& instr) {
  if (instr.opcode() == Opcode::kParameter) return "parameter " + instr.shape().ToString(false);
  PrintOptions po;
  po.print_metadata = false;
  po.print_shardings = false;
  const std::string text = PrintInstruction(instr, po);
  const std::string opcode = std::string(OpcodeName(instr.opcode())) + "(";
  size_t eq = text.find(" = ");
  size_t open = text.find(opcode, eq == std::string::npos ? 0 : eq);
  if (open == std::string::npos) return text.substr(eq == std::string::npos ? 0 : eq);
  size_t pos = open + opcode.size();
  int depth = 1;
  while (pos < text.size() && depth > 0) {
    if (text[pos] == '(') ++depth;
    if (text[pos] == ')') --depth;
    ++pos;
  }
  // Everything but the operand list; a constant's value is inside its parentheses, so keep them.
  if (instr.opcode() == Opcode::kConstant) return text.substr(eq + 3);
  return text.substr(eq + 3, open + opcode.size() - (eq + 3)) + text.substr(pos);
}

StatusOr<LayerClustering> ClusterLayers(const Module& module, int max_untied_layers,
                                        const absl::flat_hash_map<std::string, int>* given) {
  const Computation* entry = module.entry();
  if (!entry || !entry->root()) return InvalidArgument("the module has no entry computation");
  LayerClustering out;
  out.schedule.clear();
  for (Instruction* i : entry->MakeInstructionPostOrder()) out.schedule.push_back(i);
  const int n = static_cast<int>(out.schedule.size());
  absl::flat_hash_map<const Instruction*, int> pos;
  for (int i = 0; i < n; ++i) pos[out.schedule[i]] = i;
  const Instruction* root = entry->root();
  const bool tuple_root = root->opcode() == Opcode::kTuple;

  // Free values: no parameter among their ancestors.
  std::vector<char> free(n, 0);
  for (int i = 0; i < n; ++i) {
    const Instruction* x = out.schedule[i];
    if (x->opcode() == Opcode::kParameter || x == root) continue;
    bool f = true;
    for (const Instruction* op : x->operands()) f = f && free[pos.at(op)];
    free[i] = f;
  }
  // The forward pass: the loss's ancestors.
  std::vector<char> forward(n, 0);
  if (tuple_root && root->operand_count() > 0) {
    // The loss: the result's first floating-point scalar (a training step may return its step
    // count first, as JAX's optax states do), else its first element.
    const Instruction* loss = root->operand(0);
    for (const Instruction* op : root->operands())
      if (op->shape().IsArray() && op->shape().rank() == 0 && IsFloat(op->shape().dtype())) {
        loss = op;
        break;
      }
    std::vector<const Instruction*> stack = {loss};
    while (!stack.empty()) {
      const Instruction* x = stack.back();
      stack.pop_back();
      if (forward[pos.at(x)]) continue;
      forward[pos.at(x)] = 1;
      for (const Instruction* op : x->operands()) stack.push_back(op);
    }
  } else {
    std::fill(forward.begin(), forward.end(), 1);
    if (tuple_root) forward[pos.at(root)] = 0;
  }
  // The forward sequence: computed forward values, each as late as it can be (by its longest
  // path to the loss, ties in schedule order). The post order may compute a value long before
  // its first use (the loss's one-hot labels next to the first layer), where it would make that
  // layer's segments differ from the others'; a layer's own values are ancestors of its output
  // and descendants of its input, so the cuts between layers stay where they are.
  std::vector<int> seq;
  {
    std::vector<int> level(n, 0);
    for (int i = n - 1; i >= 0; --i) {
      if (!forward[i]) continue;
      int l = std::numeric_limits<int>::max();
      for (const Instruction* u : out.schedule[i]->users()) {
        const int q = pos.at(u);
        if (forward[q] && !(tuple_root && u == root)) l = std::min(l, level[q] - 1);
      }
      level[i] = l == std::numeric_limits<int>::max() ? 0 : l;
    }
    for (int i = 0; i < n; ++i) {
      const Instruction* x = out.schedule[i];
      if (forward[i] && !free[i] && x->opcode() != Opcode::kParameter && !(tuple_root && x == root)) seq.push_back(i);
    }
    std::stable_sort(seq.begin(), seq.end(), [&](int a, int b) { return level[a] < level[b]; });
  }
  const int m = static_cast<int>(seq.size());
  if (m == 0) return Unimplemented("--pipeline: the forward pass computes nothing (nothing to cut into layers)");
  std::vector<int> seq_pos(n, kNone);
  for (int j = 0; j < m; ++j) seq_pos[seq[j]] = j;

  // Signatures: the per-instruction body once, then groups with local operand references.
  std::vector<std::string> body(n);
  for (int i = 0; i < n; ++i) body[i] = BodySignature(*out.schedule[i]);
  auto group_signature = [&](const std::vector<int>& members) {
    absl::flat_hash_map<int, int> local;
    std::string sig;
    for (int idx : members) {
      const Instruction* x = out.schedule[idx];
      local[idx] = static_cast<int>(local.size());
      sig += body[idx];
      sig += " <";
      for (const Instruction* op : x->operands()) {
        const int opi = pos.at(op);
        auto it = local.find(opi);
        if (it != local.end()) {
          sig += fmt::format("#{},", it->second);
        } else if (free[opi]) {
          sig += "free " + body[opi] + ",";
        } else {
          sig += "in " + op->shape().ToString(false) + ",";
        }
      }
      sig += ">\n";
    }
    return sig;
  };
  // The given layers (a layer-call form's calls inlined), or the cuts and the repeated block.
  std::vector<int> given_at(n, kNone);
  std::vector<int> seq_layer(m, 0);
  if (given != nullptr) {
    int num_layers = 0;
    for (int i = 0; i < n; ++i) {
      auto it = given->find(out.schedule[i]->name());
      if (it == given->end()) continue;
      if (it->second < 0) return InvalidArgument("layer {} given for %{}", it->second, out.schedule[i]->name());
      given_at[i] = it->second;
      num_layers = std::max(num_layers, it->second + 1);
    }
    if (num_layers == 0) return InvalidArgument("--pipeline: no instruction of the entry is given a layer");
    // A forward value not given joins the first layer it feeds; feeding none, the last.
    std::vector<int> down(n, kNone);
    for (int i = n - 1; i >= 0; --i) {
      if (!forward[i]) continue;
      if (given_at[i] != kNone) {
        down[i] = given_at[i];
        continue;
      }
      for (const Instruction* u : out.schedule[i]->users()) {
        const int q = pos.at(u);
        if (forward[q] && down[q] != kNone && (down[i] == kNone || down[q] < down[i])) down[i] = down[q];
      }
    }
    for (int j = 0; j < m; ++j) seq_layer[j] = down[seq[j]] != kNone ? down[seq[j]] : num_layers - 1;
    out.num_layers = num_layers;
    out.given = true;
    out.repeated = true;
    out.period_segments = 1;
    out.num_segments = num_layers;
    out.first_block_segment = 0;
    out.forward_segment.assign(n, kNone);
    for (int j = 0; j < m; ++j) out.forward_segment[seq[j]] = seq_layer[j];
  } else {
    // Values crossing each cut c (between seq[c-1] and seq[c]): a difference array over the
    // interval from a value's definition to its last forward use.
    // Values read across more than half of the forward pass (a tied embedding, a mask built from
    // the input) are read by most layers whatever the cuts: they are every stage's inputs, like the
    // weights, and do not count.
    const int global_span = m / 2;
    std::vector<int> crossing(m + 1, 0);
    for (int j = 0; j < m; ++j) {
      int last = j;
      for (const Instruction* u : out.schedule[seq[j]]->users()) {
        const int up = seq_pos[pos.at(u)];
        if (up != kNone) last = std::max(last, up);
      }
      if (last > j && last - j <= global_span) {
        crossing[j + 1] += 1;
        crossing[last + 1] -= 1;
      }
    }
    // A parameter read on both sides of a cut crosses it too (the input that the first layer's
    // residual add reads again): from its first forward use to its last.
    for (const Instruction* p : entry->parameters()) {
      int first = m, last = -1;
      for (const Instruction* u : p->users()) {
        const int up = seq_pos[pos.at(u)];
        if (up == kNone) continue;
        first = std::min(first, up), last = std::max(last, up);
      }
      if (last > first && last - first <= global_span) {
        crossing[first + 1] += 1;
        crossing[last + 1] -= 1;
      }
    }
    std::vector<int> seg_start = {0};
    for (int c = 1, running = crossing[0]; c < m; ++c) {
      running += crossing[c];
      if (running == 1) seg_start.push_back(c);
    }
    const int num_segments = static_cast<int>(seg_start.size());
    if (num_segments < 2)
      return Unimplemented("--pipeline: the forward pass has no point that a single value crosses (no layer "
                           "boundary to place a stage boundary at)");
    std::vector<int> segment_of(m);
    for (int s = 0; s < num_segments; ++s) {
      const int end = s + 1 < num_segments ? seg_start[s + 1] : m;
      for (int j = seg_start[s]; j < end; ++j) segment_of[j] = s;
    }

    std::vector<int> seg_id(num_segments);
    {
      std::map<std::string, int> ids;
      for (int s = 0; s < num_segments; ++s) {
        const int end = s + 1 < num_segments ? seg_start[s + 1] : m;
        std::vector<int> members(seq.begin() + seg_start[s], seq.begin() + end);
        seg_id[s] = ids.try_emplace(group_signature(members), static_cast<int>(ids.size())).first->second;
      }
    }
    // The repeating block: period p, offset o, r equal consecutive blocks (most blocks, then the
    // shortest period, then the earliest offset).
    int best_r = 1, best_p = 1, best_o = 0;
    for (int p = 1; 2 * p <= num_segments; ++p) {
      for (int o = 0; o < p && o + 2 * p <= num_segments; ++o) {
        int r = 1;
        while (o + (r + 1) * p <= num_segments &&
               std::equal(seg_id.begin() + o, seg_id.begin() + o + p, seg_id.begin() + o + r * p))
          ++r;
        if (r > best_r) best_r = r, best_p = p, best_o = o;
      }
    }
    out.num_segments = num_segments;
    out.forward_segment.assign(n, kNone);
    for (int j = 0; j < m; ++j) out.forward_segment[seq[j]] = segment_of[j];
    std::vector<int> layer_of_segment(num_segments);
    if (best_r >= 2) {
      out.first_block_segment = best_o;
      out.repeated = true;
      out.period_segments = best_p;
      out.num_layers = best_r;
      for (int s = 0; s < num_segments; ++s)
        layer_of_segment[s] = s < best_o ? 0 : std::min((s - best_o) / best_p, best_r - 1);
    } else {
      if (num_segments > max_untied_layers)
        return Unimplemented("--pipeline: the forward pass has {} segments between single-value cuts and no "
                             "repeated layer; at most {} untied layers are searched",
                             num_segments, max_untied_layers);
      out.num_layers = num_segments;
      for (int s = 0; s < num_segments; ++s) layer_of_segment[s] = s;
    }
    for (int j = 0; j < m; ++j) seq_layer[j] = layer_of_segment[segment_of[j]];
  }
  const int L = out.num_layers;

  // Forward values: their layer, and `key`, the largest layer that reads them in the forward pass.
  std::vector<int> layer(n, kNone), key(n, kNone);
  for (int j = 0; j < m; ++j) layer[seq[j]] = key[seq[j]] = seq_layer[j];
  for (int j = 0; j < m; ++j) {
    const Instruction* x = out.schedule[seq[j]];
    for (const Instruction* op : x->operands()) {
      const int opi = pos.at(op);
      if (free[opi]) continue;
      if (op->opcode() == Opcode::kParameter && layer[opi] == kNone) layer[opi] = layer[seq[j]];
      key[opi] = std::max(key[opi], layer[seq[j]]);
    }
  }
  // The rest, in schedule order: the smallest over the operands.
  for (int i = 0; i < n; ++i) {
    const Instruction* x = out.schedule[i];
    if (free[i] || seq_pos[i] != kNone || x->opcode() == Opcode::kParameter || (tuple_root && x == root)) continue;
    if (given_at[i] != kNone) {
      layer[i] = given_at[i];
      continue;
    }
    int l = std::numeric_limits<int>::max();
    for (const Instruction* op : x->operands()) {
      const int opi = pos.at(op);
      if (free[opi]) continue;
      const int v = forward[opi] ? key[opi] : layer[opi];
      if (v != kNone) l = std::min(l, v);
    }
    if (l != std::numeric_limits<int>::max()) layer[i] = l;
  }
  // What depends only on parameters the forward pass does not read: the first layer that uses it.
  for (int i = n - 1; i >= 0; --i) {
    const Instruction* x = out.schedule[i];
    if (free[i] || layer[i] != kNone || (tuple_root && x == root)) continue;
    int l = std::numeric_limits<int>::max();
    for (const Instruction* u : x->users())
      if (layer[pos.at(u)] != kNone) l = std::min(l, layer[pos.at(u)]);
    layer[i] = l == std::numeric_limits<int>::max() ? 0 : l;
  }
  // A backward value that only earlier layers read (the reduction of a bias's gradient, which
  // the min rule leaves with the next layer's output gradient it reads) moves down to the latest
  // layer that reads it, when its inputs reach that layer anyway (already read there, or moving
  // too): then only the output gradient crosses the boundary, as between any two layers.
  {
    std::vector<char> moving(n, 0);
    for (int i = n - 1; i >= 0; --i) {
      const Instruction* x = out.schedule[i];
      if (free[i] || forward[i] || given_at[i] != kNone || x->opcode() == Opcode::kParameter || (tuple_root && x == root))
        continue;
      int target = kNone;
      bool only_root = true;
      for (const Instruction* u : x->users()) {
        if (tuple_root && u == root) continue;
        only_root = false;
        target = std::max(target, layer[pos.at(u)]);
      }
      if (only_root || target == kNone || target >= layer[i]) continue;
      bool inputs_reach = true;
      for (const Instruction* op : x->operands()) {
        const int opi = pos.at(op);
        if (free[opi] || layer[opi] <= target) continue;
        bool reaches = false, all_users_move = !forward[opi] && op->opcode() != Opcode::kParameter;
        for (const Instruction* u : op->users()) {
          if (u == x) continue;
          const int ul = layer[pos.at(u)];
          if (ul != kNone && ul <= target) reaches = true;
          if (ul == kNone || ul > target) all_users_move = false;
        }
        inputs_reach = inputs_reach && (reaches || all_users_move);
      }
      if (inputs_reach) layer[i] = target, moving[i] = 1;
    }
  }
  out.layer_of = layer;
  out.forward_instructions.assign(L, 0);
  out.instructions.assign(L, 0);
  std::vector<std::vector<int>> members(L);
  for (int i = 0; i < n; ++i) {
    if (layer[i] == kNone) continue;
    members[layer[i]].push_back(i);
    ++out.instructions[layer[i]];
    if (seq_pos[i] != kNone) ++out.forward_instructions[layer[i]];
  }
  // Boundary traffic: each value once per boundary it crosses, out to its farthest reader.
  std::vector<int64_t> fwd(L + 1, 0), bwd(L + 1, 0);
  for (int i = 0; i < n; ++i) {
    const Instruction* x = out.schedule[i];
    if (layer[i] == kNone || x->opcode() == Opcode::kParameter || !x->shape().IsArray()) continue;
    int farthest_later = layer[i], farthest_earlier = layer[i];
    for (const Instruction* u : x->users()) {
      const int ul = layer[pos.at(u)];
      if (ul == kNone) continue;
      farthest_later = std::max(farthest_later, ul);
      farthest_earlier = std::min(farthest_earlier, ul);
    }
    const int64_t bytes = x->shape().byte_size();
    for (int b = layer[i] + 1; b <= farthest_later; ++b) fwd[b] += bytes;
    for (int b = farthest_earlier + 1; b <= layer[i]; ++b) bwd[b] += bytes;
  }
  out.forward_bytes = std::move(fwd);
  out.backward_bytes = std::move(bwd);
  // Free values that one layer alone reads (through other free values too): kNone for none yet,
  // kShared for several readers (or the result).
  constexpr int kShared = -2;
  std::vector<int> free_reader(n, kNone);
  for (int i = n - 1; i >= 0; --i) {
    if (!free[i]) continue;
    int reader = kNone;
    for (const Instruction* u : out.schedule[i]->users()) {
      const int ui = pos.at(u);
      const int r = free[ui] ? free_reader[ui] : (layer[ui] == kNone ? kShared : layer[ui]);
      if (r == kNone) continue;
      reader = reader == kNone || reader == r ? r : kShared;
    }
    free_reader[i] = reader;
  }
  out.tie_members.assign(L, {});
  for (int i = 0; i < n; ++i) {
    const int l = layer[i] != kNone ? layer[i] : (free[i] && free_reader[i] >= 0 ? free_reader[i] : kNone);
    if (l != kNone) out.tie_members[l].push_back(i);
  }
  std::map<std::string, int> classes;
  for (int l = 0; l < L; ++l)
    out.tie_class.push_back(
        classes.try_emplace(group_signature(out.tie_members[l]), static_cast<int>(classes.size())).first->second);
  out.num_classes = static_cast<int>(classes.size());
  return out;
}

StatusOr<std::unique_ptr<Module>> ExtractLayers(const Module& module, const LayerClustering& layers, int first,
                                                int last) {
  if (first < 0 || last < first || last >= layers.num_layers)
    return InvalidArgument("layers [{}, {}] are not within the {} layers", first, last, layers.num_layers);
  const int n = static_cast<int>(layers.schedule.size());
  absl::flat_hash_map<const Instruction*, int> pos;
  for (int i = 0; i < n; ++i) pos[layers.schedule[i]] = i;
  // Kept: the span's instructions, the free values they use (free values use only free ones) and
  // the parameters they read.
  std::vector<char> keep(n, 0);
  std::vector<int> stack;
  for (int i = 0; i < n; ++i)
    if (layers.layer_of[i] >= first && layers.layer_of[i] <= last) keep[i] = 1, stack.push_back(i);
  while (!stack.empty()) {
    const int i = stack.back();
    stack.pop_back();
    for (const Instruction* op : layers.schedule[i]->operands()) {
      const int opi = pos.at(op);
      // Free values are copied in; so are parameters another layer owns (a tied embedding):
      // parameters are every stage's inputs anyway, and they stay weights by name.
      const bool parameter = op->opcode() == Opcode::kParameter;
      if (!keep[opi] && (parameter || (layers.layer_of[opi] == kNone && op != module.entry()->root()))) {
        keep[opi] = 1;
        stack.push_back(opi);
      }
    }
  }

  std::unique_ptr<Module> sub = module.Clone();
  sub->set_name(fmt::format("{}.layers_{}_{}", module.name(), first, last));
  Computation* entry = sub->entry();
  absl::flat_hash_map<std::string, Instruction*> by_name;
  for (Instruction* x : entry->instructions()) by_name[x->name()] = x;
  auto clone_of = [&](int i) { return by_name.at(layers.schedule[i]->name()); };

  // Parameters: the span's own first (in their original order), then one per outside value.
  std::vector<Instruction*> params;
  for (int i = 0; i < n; ++i)
    if (keep[i] && layers.schedule[i]->opcode() == Opcode::kParameter) params.push_back(clone_of(i));
  std::sort(params.begin(), params.end(),
            [](const Instruction* a, const Instruction* b) { return a->parameter_number() < b->parameter_number(); });
  absl::flat_hash_map<int, Instruction*> inputs;
  for (int i = 0; i < n; ++i) {
    if (!keep[i]) continue;
    Instruction* x = clone_of(i);
    const Instruction* orig = layers.schedule[i];
    for (int64_t k = 0; k < orig->operand_count(); ++k) {
      const int opi = pos.at(orig->operand(k));
      if (keep[opi]) continue;
      auto [it, fresh] = inputs.try_emplace(opi, nullptr);
      if (fresh) {
        const Instruction* op = orig->operand(k);
        it->second = entry->AddInstruction(Opcode::kParameter, op->shape(), sub->UniqueName(op->name() + ".in"));
        params.push_back(it->second);
      }
      x->ReplaceOperandWith(k, it->second);
    }
  }
  // Outputs: span values that an outside instruction or the result reads.
  const Instruction* root = module.entry()->root();
  std::vector<Instruction*> outputs;
  for (int i = 0; i < n; ++i) {
    if (!keep[i] || layers.layer_of[i] == kNone) continue;
    const Instruction* orig = layers.schedule[i];
    bool used_outside = orig == root;
    for (const Instruction* u : orig->users()) used_outside = used_outside || !keep[pos.at(u)];
    if (used_outside) outputs.push_back(clone_of(i));
  }
  // A span whose values nobody reads (a dead `while` kept for its side effects) returns ().
  std::vector<Shape> shapes;
  for (const Instruction* o : outputs) shapes.push_back(o->shape());
  Instruction* new_root =
      entry->AddInstruction(Opcode::kTuple, Shape::Tuple(std::move(shapes)), sub->UniqueName("stage_outputs"), outputs);
  entry->set_root(new_root);
  for (int i = n - 1; i >= 0; --i)
    if (!keep[i]) RETURN_IF_ERROR(entry->RemoveInstruction(clone_of(i)));
  for (int64_t k = 0; k < static_cast<int64_t>(params.size()); ++k) params[k]->set_parameter_number(k);
  RETURN_IF_ERROR(entry->RebuildParameterList());
  // Sharding constraints (custom-call "Sharding") pin values on the whole mesh, not on a stage's
  // submesh: they go, with every other sharding.
  for (Computation* c : sub->computations())
    for (Instruction* x : c->instructions()) {
      if (!x->IsCustomCall("Sharding") || x->operand_count() != 1 || x == new_root) continue;
      x->ReplaceAllUsesWith(x->operand(0));
      RETURN_IF_ERROR(c->RemoveInstruction(x));
    }
  for (Computation* c : sub->computations())
    for (Instruction* x : c->instructions()) x->clear_sharding();
  sub->set_num_partitions(1);
  return sub;
}

std::vector<std::vector<int>> LayerMembers(const LayerClustering& layers) {
  std::vector<std::vector<int>> members(layers.num_layers);
  for (size_t i = 0; i < layers.layer_of.size(); ++i)
    if (layers.layer_of[i] >= 0) members[layers.layer_of[i]].push_back(static_cast<int>(i));
  return members;
}

StatusOr<CarriedPlan> CarryPlan(Module& module, Computation& target,
                                const absl::flat_hash_map<const Instruction*, const Instruction*>& twin_of) {
  CarriedPlan stats;
  // A Sharding custom call before an operand stands for the operand (the reshard is the use's).
  auto plain = [](const Instruction* t) {
    return t->IsCustomCall("Sharding") && t->operand_count() == 1 ? t->operand(0) : t;
  };
  const std::vector<Instruction*> order = target.MakeInstructionPostOrder();
  absl::flat_hash_map<const Instruction*, const Instruction*> twin = twin_of;
  for (Instruction* x : order) {
    auto t = twin.find(x);
    if (t == twin.end()) continue;
    for (int64_t k = 0; k < x->operand_count() && k < t->second->operand_count(); ++k) {
      const Instruction* op = x->operand(k);
      if (op->opcode() == Opcode::kParameter && !twin.contains(op)) twin[op] = plain(t->second->operand(k));
    }
  }
  struct Reshard {
    Instruction* user;
    int64_t operand;
    std::shared_ptr<const Sharding> sharding;
  };
  std::vector<Reshard> reshards;
  for (Instruction* x : order) {
    auto t = twin.find(x);
    if (t == twin.end()) {
      stats.unmatched += x->shape().IsArray() && x->opcode() != Opcode::kConstant;
      continue;
    }
    const Shape& a = x->shape();
    const Shape& b = t->second->shape();
    if (a.IsArray() != b.IsArray() || (a.IsArray() && (a.rank() != b.rank() || a.dtype() != b.dtype())))
      return Internal("%{} of {} is {}, its twin %{} in the plan {}", x->name(), target.name(), a.ToString(false),
                      t->second->name(), b.ToString(false));
    if (!a.IsArray() || !t->second->has_sharding()) continue;
    x->set_sharding(t->second->sharding_ptr());
    ++stats.annotated;
    if (x->opcode() == Opcode::kParameter) continue;
    for (int64_t k = 0; k < x->operand_count() && k < t->second->operand_count(); ++k) {
      const Instruction* to = t->second->operand(k);
      if (to->IsCustomCall("Sharding") && to->operand_count() == 1 && to->has_sharding())
        reshards.push_back({x, k, to->sharding_ptr()});
    }
  }
  // One custom call per (operand, sharding), as the planner writes them.
  absl::flat_hash_map<std::pair<const Instruction*, std::string>, Instruction*> made;
  for (const Reshard& r : reshards) {
    Instruction* op = r.user->operand(r.operand);
    auto [it, fresh] = made.try_emplace({op, r.sharding->ToString(false)}, nullptr);
    if (fresh) {
      it->second = target.AddInstruction(Opcode::kCustomCall, op->shape(), module.UniqueName(op->name() + ".reshard"),
                                         {op});
      it->second->attrs().Set(AttrId::kCustomCallTarget, std::string("Sharding"));
      it->second->set_sharding(r.sharding);
      ++stats.reshards;
    }
    r.user->ReplaceOperandWith(r.operand, it->second);
  }
  return stats;
}

}  // namespace spmdc::autoshard

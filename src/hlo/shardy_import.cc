#include "hlo/shardy_import.h"

#include <algorithm>
#include <functional>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "sharding/named_sharding.h"
#include "sharding/sdy_text.h"
#include "sharding/sharding.h"
#include "support/diagnostic.h"

namespace spmdc {
namespace {

constexpr std::string_view kMeshes = "xla.sdy.meshes";
constexpr std::string_view kShardingAttr = "xla.sdy.sharding";
constexpr std::string_view kInShardings = "xla.sdy.in_shardings";
constexpr std::string_view kOutShardings = "xla.sdy.out_shardings";
constexpr std::string_view kManualAxes = "xla.sdy.manual_axes";
constexpr std::string_view kGroupId = "xla.sdy.sharding_group_id";
constexpr std::string_view kDirection = "xla.sdy.allowed_direction";
constexpr std::string_view kBodyPrefix = "xla.sdy.manual_computation_body";

// ---- frontend attributes (values are raw tokens: a quoted C-escaped string or a balanced {..}) --

const std::string* RawAttr(const Attributes& attrs, std::string_view key) {
  const auto* list = attrs.Get<KeyValueList>(AttrId::kFrontendAttributes);
  if (!list) return nullptr;
  for (const auto& [k, v] : *list)
    if (k == key) return &v;
  return nullptr;
}

std::string Decode(const std::string& raw) { return raw.size() >= 2 && raw.front() == '"' ? UnquoteRaw(raw) : raw; }

void EraseAttrIf(Attributes& attrs, const std::function<bool(std::string_view)>& pred) {
  auto* list = attrs.GetMutable<KeyValueList>(AttrId::kFrontendAttributes);
  if (!list) return;
  std::erase_if(*list, [&](const auto& kv) { return pred(kv.first); });
  if (list->empty()) attrs.Remove(AttrId::kFrontendAttributes);
}

void SetAttr(Attributes& attrs, std::string_view key, std::string raw) {
  KeyValueList list;
  if (const auto* old = attrs.Get<KeyValueList>(AttrId::kFrontendAttributes)) list = *old;
  bool found = false;
  for (auto& [k, v] : list)
    if (k == key) {
      v = raw;
      found = true;
    }
  if (!found) list.emplace_back(std::string(key), std::move(raw));
  // XLA prints frontend attributes sorted by key.
  std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  attrs.Set(AttrId::kFrontendAttributes, std::move(list));
}

bool IsShardyKey(std::string_view key) { return key.substr(0, 8) == "xla.sdy."; }

// ---- located errors ----------------------------------------------------------------------------

class Locator {
 public:
  Locator(std::string_view text, std::string_view filename) : text_(text), filename_(filename) {
    line_starts_.push_back(0);
    for (size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n') line_starts_.push_back(i + 1);
  }

  Status At(size_t offset, std::string_view message) const {
    return InvalidArgument("{}", FormatDiagnostic(filename_, text_, LocationOfOffset(text_, offset), message));
  }
  Status AtInstr(const Instruction& instr, std::string_view message) const {
    if (instr.location().line == 0) return InvalidArgument("%{}: {}", instr.name(), message);
    return At(OffsetOf(instr.location()), message);
  }
  // An error at byte `value_offset` of the decoded value of attribute `key`, searched from the
  // instruction's start (or the text's start for module attributes).
  Status InValue(const Instruction* instr, std::string_view key, size_t value_offset, std::string_view message) const {
    size_t from = instr && instr->location().line > 0 ? OffsetOf(instr->location()) : 0;
    std::string needle = fmt::format("{}=", key);
    size_t at = text_.find(needle, from);
    if (at == std::string_view::npos) {
      return instr ? AtInstr(*instr, fmt::format("{}: {}", key, message)) : InvalidArgument("{}: {}", key, message);
    }
    size_t p = at + needle.size();
    if (p < text_.size() && text_[p] == '"') {
      // Walk the escapes: each `\X` is one decoded byte (UnquoteRaw's rule).
      ++p;
      for (size_t n = 0; n < value_offset && p < text_.size() && text_[p] != '"'; ++n) p += text_[p] == '\\' ? 2 : 1;
    } else {
      p += value_offset;
    }
    return At(std::min(p, text_.size()), fmt::format("in {}: {}", key, message));
  }

 private:
  size_t OffsetOf(SourceLocation loc) const {
    if (loc.line < 1 || static_cast<size_t>(loc.line) > line_starts_.size()) return 0;
    return std::min(text_.size(), line_starts_[loc.line - 1] + static_cast<size_t>(std::max(loc.col, 1) - 1));
  }

  std::string_view text_, filename_;
  std::vector<size_t> line_starts_;
};

bool IsHostCallback(const Instruction& i) {
  if (i.opcode() != Opcode::kCustomCall) return false;
  const std::string& t = i.custom_call_target();
  return t == "xla_python_cpu_callback" || t == "xla_ffi_python_cpu_callback" || t == "xla_python_gpu_callback" ||
         t == "xla_ffi_python_gpu_callback";
}

std::shared_ptr<const Sharding> Share(Sharding s) { return std::make_shared<const Sharding>(std::move(s)); }

class Importer {
 public:
  Importer(Module& module, std::string_view text, std::string_view filename)
      : module_(module), loc_(text, filename) {}

  Status Run() {
    // Host callbacks run on the host, once: device 0 (as JAX places them).
    for (Computation* c : module_.computations())
      for (Instruction* i : c->instructions()) {
        if (IsHostCallback(*i) && !i->has_sharding())
          i->set_sharding(Share(Sharding::Single(i->shape(), Sharding::AssignDevice(0))));
        RETURN_IF_ERROR(CheckShardingRule(*i));
      }
    const std::string* raw = RawAttr(module_.config(), kMeshes);
    if (!raw) return absl::OkStatus();
    size_t at = 0;
    StatusOr<SdyMeshes> meshes = ParseSdyMeshes(Decode(*raw), &at);
    if (!meshes.ok()) return loc_.InValue(nullptr, kMeshes, at, std::string(meshes.status().message()));
    meshes_ = *std::move(meshes);
    RETURN_IF_ERROR(RewriteRegions());
    RETURN_IF_ERROR(ReadShardings());
    RETURN_IF_ERROR(ReadFuncResultShardings());
    RETURN_IF_ERROR(ReadShardingGroups());
    return ReadBarriers();
  }

 private:
  // A declared `xla.sdy.sharding_rule` (custom calls, e.g. CustomSPMDPartitioning) must parse and
  // map every operand and result dim, each dim the product of its factors' sizes. Propagation
  // uses it as the call's factor map (propagation/factor_rule.h).
  Status CheckShardingRule(const Instruction& instr) {
    static constexpr std::string_view kRule = "xla.sdy.sharding_rule";
    // The rule is the custom call's; XLA copies frontend attributes onto the get-tuple-elements
    // of a tuple-shaped one (JAX's CPU cholesky, lapack_spotrf_ffi), where it means nothing.
    if (instr.opcode() != Opcode::kCustomCall) return absl::OkStatus();
    const std::string* raw = RawAttr(instr.attrs(), kRule);
    if (!raw) return absl::OkStatus();
    size_t at = 0;
    auto rule = ParseSdyShardingRule(Decode(*raw), &at);
    if (!rule.ok()) return loc_.InValue(&instr, kRule, at, std::string(rule.status().message()));
    std::vector<const Shape*> results;
    if (instr.shape().IsTuple()) {
      for (int64_t i = 0; i < instr.shape().tuple_size(); ++i) results.push_back(&instr.shape().tuple_shape(i));
    } else {
      results.push_back(&instr.shape());
    }
    auto check = [&](const std::vector<SdyShardingRule::TensorFactors>& maps, const std::vector<const Shape*>& shapes,
                     std::string_view side) -> Status {
      if (maps.size() != shapes.size())
        return loc_.AtInstr(instr, fmt::format("{} maps {} {}, the instruction has {}", kRule, maps.size(), side,
                                               shapes.size()));
      for (size_t t = 0; t < maps.size(); ++t) {
        if (!shapes[t]->IsArray() || static_cast<int64_t>(maps[t].size()) != shapes[t]->rank())
          return loc_.AtInstr(instr, fmt::format("{} maps {} dims of {} {}, its rank is {}", kRule, maps[t].size(), side,
                                                 t, shapes[t]->IsArray() ? shapes[t]->rank() : 0));
        // A dim is the product of its factors (those whose size is written).
        for (size_t d = 0; d < maps[t].size(); ++d) {
          if (shapes[t]->is_dynamic_dim(static_cast<int64_t>(d))) continue;
          int64_t product = 1;
          bool known = true;
          for (int64_t f : maps[t][d]) {
            int64_t size = f >= 0 && static_cast<size_t>(f) < rule->factor_sizes.size() ? rule->factor_sizes[f] : 0;
            if (size <= 0 || __builtin_mul_overflow(product, size, &product)) known = false;
          }
          if (known && product != shapes[t]->dim(static_cast<int64_t>(d)))
            return loc_.AtInstr(instr, fmt::format("{}: dim {} of {} {} has size {}, its factors multiply to {}", kRule, d,
                                                   side.substr(0, side.size() - 1), t,
                                                   shapes[t]->dim(static_cast<int64_t>(d)), product));
        }
      }
      return absl::OkStatus();
    };
    std::vector<const Shape*> operands;
    for (const Instruction* op : instr.operands()) operands.push_back(&op->shape());
    RETURN_IF_ERROR(check(rule->operands, operands, "operands"));
    return check(rule->results, results, "results");
  }

  // ---- sdy values --------------------------------------------------------------------------

  StatusOr<std::vector<SdySharding>> PerValue(const Instruction& instr, std::string_view key) {
    const std::string* raw = RawAttr(instr.attrs(), key);
    if (!raw) return loc_.AtInstr(instr, fmt::format("{} needs the attribute {}", instr.custom_call_target(), key));
    size_t at = 0;
    auto v = ParseSdyShardingPerValue(Decode(*raw), meshes_, &at);
    if (!v.ok()) return loc_.InValue(&instr, key, at, std::string(v.status().message()));
    return v;
  }

  // The tile sharding of `s` at a value inside regions whose manual axes are `manual`.
  StatusOr<Sharding> Convert(const Instruction& instr, std::string_view key, const SdySharding& s,
                             const std::vector<std::string>& manual) {
    NamedSharding named = s.named;
    for (const std::string& axis : manual) {
      const int64_t a = s.mesh.AxisIndex(axis);
      if (a < 0) return loc_.AtInstr(instr, fmt::format("manual axis \"{}\" is not an axis of the mesh", axis));
      named.manual.push_back(AxisRef{a, 1, 0, 0});
    }
    size_t at = 0;
    StatusOr<Sharding> t = NamedToTiled(s.mesh, named, {}, &at);
    if (!t.ok()) return loc_.InValue(&instr, key, at, std::string(t.status().message()));
    return t;
  }

  // `named` without the axes in `axes` (XLA's eraseManualAxes).
  static SdySharding EraseAxes(SdySharding s, const std::vector<std::string>& axes) {
    auto drop = [&](std::vector<AxisRef>& refs) {
      std::erase_if(refs, [&](const AxisRef& r) {
        return std::find(axes.begin(), axes.end(), s.mesh.names[r.axis]) != axes.end();
      });
    };
    for (NamedDim& d : s.named.dims) drop(d.axes);
    drop(s.named.replicated);
    drop(s.named.unreduced);
    return s;
  }

  const std::vector<std::string>& ManualOf(const Instruction* i) const {
    static const std::vector<std::string> kNone;
    auto it = manual_.find(i);
    return it == manual_.end() ? kNone : it->second;
  }

  Instruction* NewCustomCall(Computation* comp, const Shape& shape, std::string name, Instruction* operand,
                             std::string target, Sharding sharding, SourceLocation where) {
    Instruction* i = comp->AddInstruction(Opcode::kCustomCall, shape, std::move(name), {operand});
    i->attrs().Set(AttrId::kCustomCallTarget, std::move(target));
    i->set_sharding(Share(Sharding::Single(shape, sharding)));
    i->set_location(where);
    return i;
  }

  // The values an instruction produces: itself, or per tuple index its get-tuple-element users.
  StatusOr<std::vector<std::vector<Instruction*>>> Values(Instruction* instr, int64_t count) {
    std::vector<std::vector<Instruction*>> out(count);
    if (!instr->shape().IsTuple()) {
      if (count != 1) return loc_.AtInstr(*instr, fmt::format("expected {} values, the shape has one", count));
      out[0] = {instr};
      return out;
    }
    if (instr->shape().tuple_size() != count)
      return loc_.AtInstr(*instr, fmt::format("expected a tuple of {} values", count));
    for (Instruction* u : instr->users()) {
      if (u->opcode() != Opcode::kGetTupleElement)
        return loc_.AtInstr(*u, fmt::format("only get-tuple-element may use the tuple of %{}", instr->name()));
      out[u->tuple_index()].push_back(u);
    }
    return out;
  }

  // ---- shard_map regions -------------------------------------------------------------------

  Status RewriteRegions() {
    for (Computation* comp : module_.computations()) {
      if (comp->name().rfind(kBodyPrefix, 0) == 0) continue;
      while (true) {
        Instruction* g = nullptr;
        Instruction* call = nullptr;  // a region without operands has no GlobalToLocalShape
        for (Instruction* i : comp->MakeInstructionPostOrder()) {
          if (i->IsCustomCall("xla.sdy.GlobalToLocalShape")) {
            g = i;
            break;
          }
          if (i->opcode() == Opcode::kCall && i->operand_count() == 0 && i->to_apply() &&
              i->to_apply()->name().rfind(kBodyPrefix, 0) == 0) {
            call = i;
            break;
          }
        }
        if (!g && !call) break;
        RETURN_IF_ERROR(RewriteRegion(comp, g, call));
      }
    }
    // Bodies no longer called are gone with their calls; a nested region's body is called from
    // its enclosing body until that one is gone, hence the repetition.
    for (bool removed = true; removed;) {
      removed = false;
      absl::flat_hash_set<const Computation*> called;
      for (Computation* c : module_.computations())
        for (Instruction* i : c->instructions())
          for (Computation* callee : i->called_computations()) called.insert(callee);
      std::vector<Computation*> gone;
      for (Computation* c : module_.computations())
        if (c->name().rfind(kBodyPrefix, 0) == 0 && !called.contains(c) && c != module_.entry() &&
            inlined_.contains(c))
          gone.push_back(c);
      for (Computation* c : gone) module_.RemoveComputation(c);
      removed = !gone.empty();
    }
    return absl::OkStatus();
  }

  // The dims of `sdy` open to more axes (`?`) as the unspecified dims propagation may still shard
  // on `instr` (a Sharding constraint or a manual conversion), in the backend_config form JAX's
  // GSPMD export writes; nothing when none is open.
  static void SetOpenDims(Instruction& instr, const SdySharding& sdy) {
    std::vector<std::string> open;
    for (size_t d = 0; d < sdy.named.dims.size(); ++d)
      if (sdy.named.dims[d].open) open.push_back(std::to_string(d));
    if (!open.empty())
      instr.attrs().Set(AttrId::kBackendConfig, QuoteString(fmt::format("unspecified_dims=[{}]", fmt::join(open, ","))));
  }

  // The region entered by `g` (GlobalToLocalShape), or, for a region without operands (JAX's
  // axis_index inside a shard_map with automatic axes), by the body call `call` alone; its
  // manual axes are then those of its LocalToGlobalShape.
  Status RewriteRegion(Computation* comp, Instruction* g, Instruction* call) {
    const Instruction* axes_of = g;
    if (!g) {
      for (Instruction* u : call->users())
        if (u->IsCustomCall("xla.sdy.LocalToGlobalShape")) axes_of = u;
        else if (u->opcode() == Opcode::kGetTupleElement)
          for (Instruction* uu : u->users())
            if (uu->IsCustomCall("xla.sdy.LocalToGlobalShape")) axes_of = uu;
      if (!axes_of)
        return loc_.AtInstr(*call, fmt::format("a call of {} without operands needs an xla.sdy.LocalToGlobalShape "
                                               "naming its manual axes", call->to_apply()->name()));
    }
    const std::string* raw_axes = RawAttr(axes_of->attrs(), kManualAxes);
    if (!raw_axes)
      return loc_.AtInstr(*axes_of, fmt::format("{} needs {}", axes_of->custom_call_target(), kManualAxes));
    size_t at = 0;
    auto manual = ParseSdyManualAxes(Decode(*raw_axes), &at);
    if (!manual.ok()) return loc_.InValue(axes_of, kManualAxes, at, std::string(manual.status().message()));
    std::vector<SdySharding> ins;
    if (g) {
      ASSIGN_OR_RETURN(ins, PerValue(*g, kInShardings));
    }
    const int64_t n = g ? g->operand_count() : 0;
    if (static_cast<int64_t>(ins.size()) != n)
      return loc_.AtInstr(*g, fmt::format("{} has {} shardings for {} operands", kInShardings, ins.size(), n));
    std::vector<std::vector<Instruction*>> g_values;
    if (g) {
      ASSIGN_OR_RETURN(g_values, Values(g, n));
    }
    // The one call of the body, fed by the region's values in order.
    for (const auto& vs : g_values)
      for (Instruction* v : vs)
        for (Instruction* u : v->users()) {
          if (u->opcode() != Opcode::kCall || !u->to_apply() || u->to_apply()->name().rfind(kBodyPrefix, 0) != 0)
            return loc_.AtInstr(*u, fmt::format("the values of %{} may only feed a call of {}*", g->name(), kBodyPrefix));
          if (call && call != u) return loc_.AtInstr(*u, fmt::format("%{} feeds two body calls", g->name()));
          call = u;
        }
    if (!call) return loc_.AtInstr(*g, "xla.sdy.GlobalToLocalShape without a call of its manual computation body");
    Computation* body = call->to_apply();
    if (call->operand_count() != n || body->num_parameters() != n)
      return loc_.AtInstr(*call, fmt::format("the body call takes {} operands, the region has {}", call->operand_count(), n));
    for (int64_t k = 0; k < n; ++k) {
      const auto& vs = g_values[k];
      if (std::find(vs.begin(), vs.end(), call->operand(k)) == vs.end())
        return loc_.AtInstr(*call, fmt::format("operand {} of the body call is not value {} of %{}", k, k, g->name()));
    }
    // The LocalToGlobalShape that takes the call's results (none for a region without results).
    const int64_t results = call->shape().IsTuple() ? call->shape().tuple_size() : 1;
    ASSIGN_OR_RETURN(auto call_values, Values(call, results));
    Instruction* l = nullptr;
    for (const auto& vs : call_values)
      for (Instruction* v : vs)
        for (Instruction* u : v->users()) {
          if (!u->IsCustomCall("xla.sdy.LocalToGlobalShape"))
            return loc_.AtInstr(*u, fmt::format("the results of %{} may only feed xla.sdy.LocalToGlobalShape", call->name()));
          if (l && l != u) return loc_.AtInstr(*u, fmt::format("%{} feeds two xla.sdy.LocalToGlobalShape", call->name()));
          l = u;
        }
    std::vector<SdySharding> outs;
    std::vector<std::vector<Instruction*>> l_values;
    if (l) {
      ASSIGN_OR_RETURN(outs, PerValue(*l, kOutShardings));
      if (l->operand_count() != results || static_cast<int64_t>(outs.size()) != results)
        return loc_.AtInstr(*l, fmt::format("xla.sdy.LocalToGlobalShape takes {} operands and {} shardings for {} results",
                                            l->operand_count(), outs.size(), results));
      for (int64_t j = 0; j < results; ++j) {
        const auto& vs = call_values[j];
        if (std::find(vs.begin(), vs.end(), l->operand(j)) == vs.end())
          return loc_.AtInstr(*l, fmt::format("operand {} is not result {} of %{}", j, j, call->name()));
      }
      if (const std::string* raw = RawAttr(l->attrs(), kManualAxes); raw && Decode(*raw) != Decode(*raw_axes))
        return loc_.AtInstr(*l, fmt::format("manual axes differ from those of %{}", (g ? g : call)->name()));
      ASSIGN_OR_RETURN(l_values, Values(l, results));
    }
    const std::vector<std::string> outer = ManualOf(g ? g : call);
    std::vector<std::string> region = outer;
    for (const std::string& a : *manual) {
      if (std::find(region.begin(), region.end(), a) != region.end())
        return loc_.InValue(g, kManualAxes, 0, fmt::format("axis \"{}\" is already manual in the enclosing region", a));
      region.push_back(a);
    }
    // Region-wide mesh facts: whether every axis (of size > 1) is manual inside.
    const NamedMesh* mesh = !ins.empty() ? &ins[0].mesh : (!outs.empty() ? &outs[0].mesh : nullptr);
    bool all_manual = mesh != nullptr;
    if (mesh)
      for (size_t a = 0; a < mesh->names.size(); ++a)
        if (mesh->sizes[a] > 1 && std::find(region.begin(), region.end(), mesh->names[a]) == region.end())
          all_manual = false;

    // Per operand: Sharding (in-sharding) -> SPMDFullToShardShape (manual axes moved to a MANUAL
    // subgroup), replacing the region's values; they keep the names the values had.
    absl::flat_hash_map<const Instruction*, Instruction*> map;
    std::vector<Instruction*> doomed;
    for (int64_t k = 0; k < n; ++k) {
      Instruction* operand = g->operand(k);
      ASSIGN_OR_RETURN(Sharding in, Convert(*g, kInShardings, ins[k], outer));
      ASSIGN_OR_RETURN(Sharding local, Convert(*g, kInShardings, EraseAxes(ins[k], region), region));
      std::string base = !g->shape().IsTuple()    ? g->name()
                         : !g_values[k].empty()     ? g_values[k][0]->name()
                                                    : module_.UniqueName(fmt::format("{}.{}", g->name(), k));
      Instruction* constraint = NewCustomCall(comp, operand->shape(), module_.UniqueName(base + ".global"), operand,
                                              "Sharding", in, g->location());
      manual_[constraint] = outer;
      const Shape& local_shape = body->parameter(k)->shape();
      for (Instruction* v : g_values[k]) {
        if (v == g) continue;
        doomed.push_back(v);
      }
      // The name moves to the new instruction once the old one is gone (RemoveDoomed).
      Instruction* to_shard = NewCustomCall(comp, local_shape, "", constraint, "SPMDFullToShardShape", local,
                                            g->location());
      pending_names_.emplace_back(to_shard, base);
      manual_[to_shard] = region;
      // Open dims of the in-sharding: the free axes may still shard them, on both sides of the
      // boundary (XLA's GSPMD export marks both so; propagation refines the pair jointly).
      SetOpenDims(*constraint, ins[k]);
      SetOpenDims(*to_shard, ins[k]);
      for (Instruction* v : g_values[k]) v->ReplaceAllUsesWith(to_shard);
      map[body->parameter(k)] = to_shard;
    }
    // The body, inlined: its instructions keep their names (the body is called once) and their
    // sharding; where it has none and every axis is manual, the value is {manual}.
    const bool first_inline = inlined_.insert(body).second;
    for (Instruction* bi : body->MakeInstructionPostOrder()) {
      if (bi->opcode() == Opcode::kParameter) continue;
      auto clone = std::make_unique<Instruction>(bi->opcode(), bi->shape(),
                                                 first_inline ? bi->name() : module_.UniqueName(bi->name()));
      clone->set_location(bi->location());
      clone->set_parameter_number(bi->parameter_number());
      if (bi->literal()) clone->set_literal(*bi->literal());
      for (const auto& [id, value] : bi->attrs().entries())
        if (id != AttrId::kControlPredecessors) clone->attrs().Set(id, value);
      clone->attrs().unknown() = bi->attrs().unknown();
      if (bi->has_sharding()) {
        clone->set_sharding(bi->sharding_ptr());
      } else if (all_manual && !RawAttr(bi->attrs(), kShardingAttr)) {
        clone->set_sharding(Share(Sharding::Single(bi->shape(), Sharding::Manual())));
      }
      for (Instruction* op : bi->operands()) clone->AppendOperand(map.at(op));
      Instruction* c = comp->AddInstruction(std::move(clone));
      manual_[c] = region;
      MarkCalled(c, region);
      map[bi] = c;
    }
    Instruction* root = map.at(body->root());
    // Per result: Sharding (manual) -> SPMDShardToFullShape (out-sharding), replacing the
    // region's global values under their names.
    for (int64_t j = 0; l && j < results; ++j) {
      Instruction* local = root;
      if (call->shape().IsTuple()) {
        if (root->opcode() == Opcode::kTuple) {
          local = root->operand(j);
        } else {
          local = comp->AddInstruction(Opcode::kGetTupleElement, root->shape().tuple_shape(j),
                                       module_.UniqueName(root->name() + ".gte"), {root});
          local->attrs().Set(AttrId::kIndex, j);
          if (root->has_sharding())
            local->set_sharding(Share(root->sharding()->GetSubSharding(root->shape(), {&j, 1})));
          manual_[local] = region;
        }
      }
      ASSIGN_OR_RETURN(Sharding inside, Convert(*l, kOutShardings, EraseAxes(outs[j], region), region));
      ASSIGN_OR_RETURN(Sharding global, Convert(*l, kOutShardings, outs[j], outer));
      std::string base = !l->shape().IsTuple()    ? l->name()
                         : !l_values[j].empty()     ? l_values[j][0]->name()
                                                    : module_.UniqueName(fmt::format("{}.{}", l->name(), j));
      Instruction* constraint = NewCustomCall(comp, local->shape(), module_.UniqueName(base + ".local"), local,
                                              "Sharding", inside, l->location());
      manual_[constraint] = region;
      const Shape& global_shape = l->shape().IsTuple() ? l->shape().tuple_shape(j) : l->shape();
      Instruction* to_full = NewCustomCall(comp, global_shape, "", constraint, "SPMDShardToFullShape", global,
                                           l->location());
      pending_names_.emplace_back(to_full, base);
      manual_[to_full] = outer;
      SetOpenDims(*constraint, outs[j]);
      SetOpenDims(*to_full, outs[j]);
      for (Instruction* v : l_values[j]) {
        if (v != l) doomed.push_back(v);
        v->ReplaceAllUsesWith(to_full);
      }
    }
    // The old boundary: L, the call's and G's get-tuple-elements, the call, G.
    if (l) doomed.push_back(l);
    for (const auto& vs : call_values)
      for (Instruction* v : vs)
        if (v != call) doomed.push_back(v);
    doomed.push_back(call);
    if (g) doomed.push_back(g);
    if (root->opcode() == Opcode::kTuple && root->user_count() == 0 && !root->IsRoot()) doomed.push_back(root);
    return RemoveDoomed(comp, doomed);
  }

  // The computations control flow `instr` calls (loop bodies, branches, calls; not nested
  // regions' bodies) run inside the region too: their sdy shardings leave its manual axes out.
  void MarkCalled(const Instruction* instr, const std::vector<std::string>& region, int depth = 0) {
    // Only control flow: reducers and comparators (all-reduce's, reduce's) compute on scalars
    // of no region, and their shardings stay as written (JAX puts an open constraint in psum's).
    if (depth > 64 || (instr->opcode() != Opcode::kCall && instr->opcode() != Opcode::kWhile &&
                       instr->opcode() != Opcode::kConditional))
      return;
    for (Computation* callee : instr->called_computations()) {
      if (callee->name().rfind(kBodyPrefix, 0) == 0) continue;
      for (Instruction* i : callee->instructions()) {
        if (!manual_.emplace(i, region).second) continue;  // already seen (shared computations)
        MarkCalled(i, region, depth + 1);
      }
    }
  }

  Status RemoveDoomed(Computation* comp, const std::vector<Instruction*>& doomed) {
    absl::flat_hash_set<Instruction*> gone;
    for (Instruction* d : doomed) {
      if (gone.contains(d)) continue;
      if (d->user_count() > 0 || d->IsRoot())
        return loc_.AtInstr(*d, "a shard_map boundary value is used outside the region's pattern");
      gone.insert(d);
      d->DropControlEdges();
      RETURN_IF_ERROR(comp->RemoveInstruction(d));
    }
    for (auto& [instr, name] : pending_names_) instr->set_name(name);
    pending_names_.clear();
    return absl::OkStatus();
  }

  // ---- xla.sdy.sharding on instructions ----------------------------------------------------

  Status ReadShardings() {
    for (Computation* comp : module_.computations())
      for (Instruction* instr : comp->instructions()) {
        if (instr->IsCustomCall("xla.sdy.FuncResultSharding")) continue;
        const std::string* raw = RawAttr(instr->attrs(), kShardingAttr);
        if (!raw) continue;
        size_t at = 0;
        auto values = ParseSdyShardingPerValue(Decode(*raw), meshes_, &at);
        if (!values.ok()) return loc_.InValue(instr, kShardingAttr, at, std::string(values.status().message()));
        // One sharding per array leaf; XLA copies frontend attributes onto instructions of other
        // shapes, so a sharding whose rank does not fit is stale and dropped.
        std::vector<const Shape*> leaves;
        if (instr->shape().IsTuple()) {
          if (instr->shape().tuple_size() != instr->shape().leaf_count()) continue;  // nested tuples
          for (int64_t i = 0; i < instr->shape().tuple_size(); ++i) leaves.push_back(&instr->shape().tuple_shape(i));
        } else {
          leaves.push_back(&instr->shape());
        }
        if (leaves.size() != values->size()) continue;
        bool fits = true;
        for (size_t i = 0; i < leaves.size(); ++i)
          fits &= leaves[i]->IsArray() ? static_cast<int64_t>((*values)[i].named.dims.size()) == leaves[i]->rank()
                                       : (*values)[i].named.dims.empty();
        if (!fits) continue;
        std::vector<Sharding> converted, unmanual;
        const std::vector<std::string>& manual = ManualOf(instr);
        for (const SdySharding& v : *values) {
          ASSIGN_OR_RETURN(Sharding s, Convert(*instr, kShardingAttr, v, manual));
          converted.push_back(std::move(s));
          if (manual.empty()) continue;
          ASSIGN_OR_RETURN(Sharding u, Convert(*instr, kShardingAttr, v, {}));
          unmanual.push_back(std::move(u));
        }
        auto whole = [&](std::vector<Sharding>& leaves) {
          return instr->shape().IsTuple() ? Sharding::Tuple(leaves) : leaves[0];
        };
        Sharding sharding = whole(converted);
        // XLA's Shardy export outlines a manual computation's body before it writes `sharding=`,
        // so inside a region that sharding leaves the region's manual axes out (an open
        // constraint reads {replicated}). Written that way it means the sdy sharding, whose
        // form with the manual axes replaces it.
        if (!manual.empty() && instr->has_sharding() && Agree(*instr, whole(unmanual), *raw).ok())
          instr->set_sharding(Share(sharding));
        RETURN_IF_ERROR(Agree(*instr, sharding, *raw));
        if (!instr->has_sharding()) instr->set_sharding(Share(sharding));
        // Open dims of a sharding constraint: those propagation may still shard.
        if (instr->IsCustomCall("Sharding") && !instr->shape().IsTuple() && !instr->attrs().Has(AttrId::kBackendConfig))
          SetOpenDims(*instr, (*values)[0]);
      }
    return absl::OkStatus();
  }

  // Both forms present: they must mean the same (shard groups aside, which sdy writes apart).
  Status Agree(const Instruction& instr, const Sharding& sdy, const std::string& raw) {
    if (!instr.has_sharding()) return absl::OkStatus();
    auto strip = [](const Sharding& s) {
      if (!s.IsTuple()) return s.WithoutShardGroup();
      std::vector<Sharding> leaves;
      for (const Sharding& e : s.tuple_elements()) leaves.push_back(e.WithoutShardGroup());
      return Sharding::Tuple(std::move(leaves));
    };
    const Sharding given = strip(instr.sharding()->NormalizeTupleSharding(instr.shape()));
    if (given == strip(sdy)) return absl::OkStatus();
    return loc_.AtInstr(instr, fmt::format("sharding={} disagrees with {}={} (which means {})",
                                           instr.sharding()->ToString(false), kShardingAttr, Decode(raw),
                                           sdy.ToString(false)));
  }

  // ---- FuncResultSharding ------------------------------------------------------------------

  // The instruction each leaf of `v` comes from, through tuples and get-tuple-elements.
  static void LeafSources(Instruction* v, std::vector<Instruction*>* out, int depth = 0) {
    if (depth < 64 && v->opcode() == Opcode::kTuple) {
      for (Instruction* op : v->operands()) LeafSources(op, out, depth + 1);
      return;
    }
    if (depth < 64 && v->opcode() == Opcode::kGetTupleElement && v->operand(0)->opcode() == Opcode::kTuple &&
        !v->shape().IsTuple()) {
      LeafSources(v->operand(0)->operand(v->tuple_index()), out, depth + 1);
      return;
    }
    const int64_t leaves = Sharding::RequiredLeaves(v->shape());
    for (int64_t i = 0; i < leaves; ++i) out->push_back(v->shape().IsTuple() ? nullptr : v);
  }

  Status ReadFuncResultShardings() {
    Computation* entry = module_.entry();
    if (!entry || !entry->root()) return absl::OkStatus();
    std::vector<Instruction*> sources;
    LeafSources(entry->root(), &sources);
    std::vector<std::optional<Sharding>> leaves(sources.size());
    std::vector<bool> open(sources.size(), false);
    std::vector<std::string> bodies(sources.size());  // each result's sdy text, as written
    bool any = false;
    for (Computation* comp : module_.computations())
      for (Instruction* f : comp->instructions()) {
        if (!f->IsCustomCall("xla.sdy.FuncResultSharding")) continue;
        if (f->operand_count() != 1 || f->shape().IsTuple())
          return loc_.AtInstr(*f, "xla.sdy.FuncResultSharding takes one array operand");
        ASSIGN_OR_RETURN(std::vector<SdySharding> v, PerValue(*f, kShardingAttr));
        if (v.size() != 1 || static_cast<int64_t>(v[0].named.dims.size()) != f->shape().rank())
          return loc_.AtInstr(*f, fmt::format("{} must hold one sharding of rank {}", kShardingAttr, f->shape().rank()));
        ASSIGN_OR_RETURN(Sharding s, Convert(*f, kShardingAttr, v[0], ManualOf(f)));
        bool at_root = false;
        for (size_t i = 0; i < sources.size(); ++i)
          if (sources[i] == f) {
            at_root = true;
            // Fully open (`[{?}, ...]`): no constraint on that result; propagation decides it.
            if (!v[0].FullyOpen()) leaves[i] = s;
            bodies[i] = SdyShardingBodyToString(v[0].mesh_name, v[0].mesh, v[0].named);
            open[i] = v[0].FullyOpen();
            any |= !v[0].FullyOpen();
          }
        if (at_root) {
          Instruction* operand = f->operand(0);
          f->ReplaceAllUsesWith(operand);
          f->DropControlEdges();
          RETURN_IF_ERROR(comp->RemoveInstruction(f));
        } else {
          // Not returned as such: it still constrains the value.
          f->attrs().Set(AttrId::kCustomCallTarget, std::string("Sharding"));
          f->attrs().Remove(AttrId::kCustomCallHasSideEffect);
          f->set_sharding(Share(s));
        }
      }
    Instruction* root = entry->root();
    // The root keeps what the module said of each result (open dims, priorities: what the export
    // prints back), when every result said something and the root is one flat value or tuple.
    const bool flat = !root->shape().IsTuple() || root->shape().tuple_size() == static_cast<int64_t>(bodies.size());
    if (flat && !bodies.empty() && std::none_of(bodies.begin(), bodies.end(), [](const std::string& b) { return b.empty(); }))
      SetAttr(root->attrs(), kShardingAttr,
              QuoteString(fmt::format("#sdy.sharding_per_value<[{}]>", fmt::join(bodies, ", "))));
    // Results left open may take what propagation infers (XLA's
    // allow_spmd_sharding_propagation_to_output, per result), unless the module says otherwise
    // or the root's own sharding= fixes them.
    if (std::find(open.begin(), open.end(), true) != open.end() &&
        !module_.config().Has(AttrId::kAllowPropagationToOutput)) {
      std::vector<bool> allow = open;
      if (root->has_sharding()) {
        const Sharding have = root->sharding()->NormalizeTupleSharding(root->shape());
        for (size_t i = 0; i < allow.size(); ++i) {
          const Sharding leaf = have.IsTuple() && i < have.tuple_elements().size() ? have.tuple_elements()[i] : have;
          if (!leaf.IsUnknown()) allow[i] = false;
        }
      }
      if (!root->shape().IsTuple()) allow.resize(1);
      if (std::find(allow.begin(), allow.end(), true) != allow.end())
        module_.config().Set(AttrId::kAllowPropagationToOutput, std::move(allow));
    }
    if (!any) return absl::OkStatus();
    std::vector<Sharding> given;
    for (const auto& l : leaves) given.push_back(l.value_or(Sharding::Replicate()));
    Sharding sharding = root->shape().IsTuple() ? Sharding::Tuple(given) : given[0];
    if (root->has_sharding()) {
      const Sharding have = root->sharding()->NormalizeTupleSharding(root->shape());
      std::vector<Sharding> have_leaves = have.IsTuple() ? have.tuple_elements() : std::vector<Sharding>{have};
      for (size_t i = 0; i < leaves.size() && i < have_leaves.size(); ++i)
        if (leaves[i] && !(have_leaves[i].WithoutShardGroup() == *leaves[i]))
          return loc_.AtInstr(*root, fmt::format("the root's sharding={} disagrees with xla.sdy.FuncResultSharding {} "
                                                 "for result {}",
                                                 root->sharding()->ToString(false), leaves[i]->ToString(false), i));
      return absl::OkStatus();
    }
    root->set_sharding(Share(sharding));
    return absl::OkStatus();
  }

  // ---- ShardingGroup, PropagationBarrier --------------------------------------------------

  Status ReadShardingGroups() {
    int64_t next = 0;
    for (Computation* comp : module_.computations())
      for (Instruction* i : comp->instructions())
        if (i->has_sharding() && !i->sharding()->IsTuple() && i->sharding()->shard_group().valid())
          next = std::max(next, i->sharding()->shard_group().id + 1);
    absl::flat_hash_map<int64_t, int64_t> ids;
    for (Computation* comp : module_.computations())
      for (Instruction* g : comp->instructions()) {
        if (!g->IsCustomCall("xla.sdy.ShardingGroup")) continue;
        const std::string* raw = RawAttr(g->attrs(), kGroupId);
        if (!raw) return loc_.AtInstr(*g, fmt::format("xla.sdy.ShardingGroup needs {}", kGroupId));
        StatusOr<int64_t> id = ParseSdyInteger(Decode(*raw));
        if (!id.ok()) return loc_.InValue(g, kGroupId, 0, std::string(id.status().message()));
        if (g->operand_count() != 1 || g->user_count() > 0 || g->IsRoot())
          return loc_.AtInstr(*g, "xla.sdy.ShardingGroup takes one operand and has no users");
        Instruction* member = g->operand(0);
        if (member->shape().IsTuple())
          return loc_.AtInstr(*g, "a tuple-shaped value cannot join a sharding group");
        auto [it, fresh] = ids.emplace(*id, next);
        if (fresh) ++next;
        Sharding base = member->has_sharding() ? *member->sharding() : Sharding::Unknown();
        if (base.shard_group().valid() && base.shard_group().id != it->second)
          return loc_.AtInstr(*g, fmt::format("%{} is already in another shard group", member->name()));
        member->set_sharding(Share(base.WithShardGroup(ShardGroup{it->second, true})));
        g->DropControlEdges();
        RETURN_IF_ERROR(comp->RemoveInstruction(g));
      }
    return absl::OkStatus();
  }

  Status ReadBarriers() {
    for (Computation* comp : module_.computations())
      for (Instruction* b : comp->instructions()) {
        if (!b->IsCustomCall("xla.sdy.PropagationBarrier")) continue;
        const std::string* raw = RawAttr(b->attrs(), kDirection);
        if (!raw) return loc_.AtInstr(*b, fmt::format("xla.sdy.PropagationBarrier needs {}", kDirection));
        StatusOr<int64_t> dir = ParseSdyInteger(Decode(*raw));
        if (!dir.ok() || *dir < 0 || *dir > 3)
          return loc_.InValue(b, kDirection, 0, "expected 0 (NONE), 1 (FORWARD), 2 (BACKWARD) or 3 (BOTH)");
        if (b->operand_count() != 1) return loc_.AtInstr(*b, "xla.sdy.PropagationBarrier takes one operand");
        EraseAttrIf(b->attrs(), [](std::string_view k) { return k == kDirection; });
        // BACKWARD only: nothing flows forward out of the operand (ShardBarrierFrom); FORWARD
        // only: nothing flows back into it (ShardBarrierTo); NONE: both; BOTH: a plain copy.
        if (*dir == 2) {
          b->attrs().Set(AttrId::kCustomCallTarget, std::string("ShardBarrierFrom"));
        } else if (*dir == 1) {
          b->attrs().Set(AttrId::kCustomCallTarget, std::string("ShardBarrierTo"));
        } else if (*dir == 0) {
          b->attrs().Set(AttrId::kCustomCallTarget, std::string("ShardBarrierFrom"));
          Instruction* to = comp->AddInstruction(Opcode::kCustomCall, b->shape(), module_.UniqueName(b->name() + ".to"));
          to->attrs().Set(AttrId::kCustomCallTarget, std::string("ShardBarrierTo"));
          to->set_location(b->location());
          b->ReplaceAllUsesWith(to);
          to->AppendOperand(b);
        } else {
          Instruction* copy = comp->AddInstruction(Opcode::kCopy, b->shape(), "", {b->operand(0)});
          copy->set_location(b->location());
          if (b->has_sharding()) copy->set_sharding(b->sharding_ptr());
          if (const auto* fa = b->attr<KeyValueList>(AttrId::kFrontendAttributes))
            copy->attrs().Set(AttrId::kFrontendAttributes, *fa);
          b->ReplaceAllUsesWith(copy);
          std::string name = b->name();
          b->DropControlEdges();
          RETURN_IF_ERROR(comp->RemoveInstruction(b));
          copy->set_name(name);
        }
      }
    return absl::OkStatus();
  }

  Module& module_;
  Locator loc_;
  SdyMeshes meshes_;
  // Manual axes of the regions an instruction sits in (outer first); absent: none.
  absl::flat_hash_map<const Instruction*, std::vector<std::string>> manual_;
  absl::flat_hash_set<const Computation*> inlined_;
  std::vector<std::pair<Instruction*, std::string>> pending_names_;
};

}  // namespace

Status ImportShardy(Module& module, std::string_view text, std::string_view filename) {
  return Importer(module, text, filename).Run();
}

void ExportShardyAttributes(Module& module) {
  const std::string* raw = RawAttr(module.config(), kMeshes);
  if (!raw) return;
  StatusOr<SdyMeshes> parsed = ParseSdyMeshes(Decode(*raw));
  if (!parsed.ok()) return;  // the import checked it; a module built otherwise keeps its text
  SdyMeshes meshes = *std::move(parsed);
  // The sdy form of one array's sharding: on the first mesh that expresses it, or a maximal mesh
  // added for a single device. `before` is what the module said of this value (its
  // `xla.sdy.sharding` as read), whose open dims (`?`), priorities (`pN`) and explicitly
  // replicated axes are kept: spmdc's shardings do not hold them, and they still mean what they
  // meant to a Shardy reader (a dim open for more axes, the order in which shardings spread).
  auto leaf = [&](const Sharding& s, const Shape& shape, const SdySharding* before) -> std::optional<std::string> {
    if (!shape.IsArray()) return std::nullopt;
    if (s.IsMaximal()) {
      std::string name = fmt::format("maximal_mesh_{}", *s.UniqueDevice());
      if (!meshes.Find(name)) {
        NamedMesh m;
        m.maximal_device = s.UniqueDevice();
        meshes.meshes.emplace_back(name, std::move(m));
      }
      NamedSharding named;
      named.dims.resize(shape.rank());
      return SdyShardingBodyToString(name, *meshes.Find(name), named);
    }
    for (const auto& [name, mesh] : meshes.meshes) {
      if (mesh.names.empty() && !s.IsReplicated()) continue;
      std::optional<NamedSharding> named = TiledToNamed(s, shape.rank(), mesh);
      if (!named) continue;
      if (before && before->named.dims.size() == named->dims.size()) {
        for (size_t d = 0; d < named->dims.size(); ++d) {
          named->dims[d].open = before->named.dims[d].open;
          named->dims[d].priority = before->named.dims[d].priority;
        }
        if (before->mesh_name == name && named->replicated.empty())
          for (const AxisRef& r : before->named.replicated) {
            bool used = false;
            for (const NamedDim& d : named->dims)
              for (const AxisRef& a : d.axes) used |= a.axis == r.axis;
            for (const AxisRef& a : named->unreduced) used |= a.axis == r.axis;
            if (!used) named->replicated.push_back(r);
          }
      }
      return SdyShardingBodyToString(name, mesh, *named);
    }
    return std::nullopt;
  };
  for (Computation* comp : module.computations())
    for (Instruction* instr : comp->instructions()) {
      // What the module said of the value (read before it is replaced).
      std::vector<SdySharding> before;
      if (const std::string* old = RawAttr(instr->attrs(), kShardingAttr)) {
        StatusOr<std::vector<SdySharding>> parsed = ParseSdyShardingPerValue(Decode(*old), meshes);
        if (parsed.ok()) before = *std::move(parsed);
      }
      EraseAttrIf(instr->attrs(), [](std::string_view k) { return k == kShardingAttr; });
      if (!instr->has_sharding()) continue;
      const Sharding s = instr->sharding()->NormalizeTupleSharding(instr->shape());
      std::vector<std::string> bodies;
      bool ok = true;
      auto before_at = [&](size_t i, size_t n) -> const SdySharding* { return before.size() == n ? &before[i] : nullptr; };
      if (s.IsTuple()) {
        if (instr->shape().tuple_size() != static_cast<int64_t>(s.tuple_elements().size())) continue;
        const size_t n = static_cast<size_t>(instr->shape().tuple_size());
        for (size_t i = 0; ok && i < n; ++i) {
          auto b = leaf(s.tuple_elements()[i], instr->shape().tuple_shape(static_cast<int64_t>(i)), before_at(i, n));
          ok = b.has_value();
          if (ok) bodies.push_back(*b);
        }
      } else {
        auto b = leaf(s, instr->shape(), before_at(0, 1));
        ok = b.has_value();
        if (ok) bodies.push_back(*b);
      }
      if (!ok || bodies.empty()) continue;
      // Entry parameters carry `#sdy.sharding` (XLA's func argument form); other values the
      // per-value list.
      std::string text = instr->opcode() == Opcode::kParameter && comp == module.entry() && bodies.size() == 1
                             ? "#sdy.sharding" + bodies[0]
                             : fmt::format("#sdy.sharding_per_value<[{}]>", fmt::join(bodies, ", "));
      SetAttr(instr->attrs(), kShardingAttr, QuoteString(text));
    }
  SetAttr(module.config(), kMeshes, SdyMeshesToString(meshes));
}

void DropShardyAttributes(Module& module) {
  EraseAttrIf(module.config(), IsShardyKey);
  for (Computation* comp : module.computations())
    for (Instruction* instr : comp->instructions()) EraseAttrIf(instr->attrs(), IsShardyKey);
}

}  // namespace spmdc

// The propagation driver (GSPMD.md §2.2): preprocessing of Sharding constraints and shard groups,
// control-flow consistency, the fixpoint over aggressiveness levels 0..3, shard_as alignment and
// the entry-signature post-processing.
#include "propagation/propagation.h"

#include <algorithm>
#include <functional>

#include "propagation/lattice.h"
#include "propagation/state.h"
#include "sharding/algebra.h"

namespace spmdc {

// ---- PropagationState ------------------------------------------------------------------------

bool PropagationState::Improve(Instruction* instr, const Sharding& candidate, const Instruction* from,
                               std::string_view rule, EventKind kind, bool allow_aggressive) {
  Improvement imp = ::spmdc::Improve(candidate, instr->sharding(), instr->shape(), may_combine(), allow_aggressive);
  if (!imp.result) {
    // Re-offering the current sharding is not an alternative worth reporting.
    if (provenance && (!instr->has_sharding() || !(*instr->sharding() == candidate)))
      Reject(instr, candidate, from, rule, kind, imp.why_not);
    return false;
  }
  if (provenance && instr->has_sharding() && !(*imp.result == candidate) && !(*imp.result == *instr->sharding())) {
    // A merge of two partial shardings: name both sources.
    const Instruction* previous_from = instr;
    if (const auto* events = provenance->Events(instr))
      for (auto it = events->rbegin(); it != events->rend(); ++it)
        if (it->accepted) {
          previous_from = it->from ? it->from : instr;
          break;
        }
    ShardingEvent e{provenance->NextSeq(), kind, std::string(rule), from, aggressiveness, iteration, *imp.result,
                    true, ""};
    e.merged = true;
    e.merged_previous = *instr->sharding();
    e.merged_previous_from = previous_from;
    provenance->Record(instr, std::move(e));
    instr->set_sharding(Intern(std::move(*imp.result)));
    Touch(instr);
    return true;
  }
  Set(instr, std::move(*imp.result), from, rule, kind);
  return true;
}

void PropagationState::Set(Instruction* instr, Sharding sharding, const Instruction* from,
                           std::string_view rule, EventKind kind) {
  if (provenance) {
    provenance->Record(instr, ShardingEvent{provenance->NextSeq(), kind, std::string(rule), from,
                                            aggressiveness, iteration, sharding, true, ""});
  }
  instr->set_sharding(Intern(std::move(sharding)));
  Touch(instr);
}

void PropagationState::Reject(const Instruction* instr, const Sharding& sharding, const Instruction* from,
                              std::string_view rule, EventKind kind, std::string_view why) {
  if (!provenance) return;
  // Re-offering the current sharding is not an alternative worth reporting.
  if (instr->has_sharding() && *instr->sharding() == sharding) return;
  provenance->Record(instr, ShardingEvent{provenance->NextSeq(), kind, std::string(rule), from,
                                          aggressiveness, iteration, sharding, false, std::string(why)});
}

const std::vector<Instruction*>* PropagationState::GroupOf(const Instruction* instr) const {
  auto it = group_of.find(instr);
  if (it == group_of.end()) return nullptr;
  if (auto g = shard_as_groups.find(it->second); g != shard_as_groups.end()) return &g->second;
  if (auto g = shard_like_groups.find(it->second); g != shard_like_groups.end()) return &g->second;
  return nullptr;
}

namespace {

}  // namespace

// Parses `backend_config="unspecified_dims=[0,2]"` of a Sharding custom call.
std::vector<int64_t> ParseUnspecifiedDims(const Instruction& cc) {
  std::vector<int64_t> dims;
  const std::string* raw = cc.attr<std::string>(AttrId::kBackendConfig);
  if (!raw) return dims;
  std::string text = UnquoteRaw(*raw);
  size_t at = text.find("unspecified_dims=[");
  if (at == std::string::npos) return dims;
  size_t i = at + 18;
  while (i < text.size() && text[i] != ']') {
    if (isdigit(static_cast<unsigned char>(text[i]))) {
      int64_t v = 0;
      while (i < text.size() && isdigit(static_cast<unsigned char>(text[i]))) v = v * 10 + (text[i++] - '0');
      dims.push_back(v);
    } else {
      ++i;
    }
  }
  std::sort(dims.begin(), dims.end());
  return dims;
}

namespace {

std::vector<bool> Flags(const std::optional<std::vector<bool>>& given, const Module& m, AttrId header) {
  if (given) return *given;
  if (const auto* v = m.config().Get<std::vector<bool>>(header)) return *v;
  return {false};
}

bool Any(const std::vector<bool>& v) { return std::any_of(v.begin(), v.end(), [](bool b) { return b; }); }

// Instructions that must share one sharding across a control-flow boundary. A parameter of a
// conditional branch or a callee is related to the caller's operand that feeds it.
std::vector<Instruction*> Related(Instruction* i, const CallerMap& callers) {
  switch (i->opcode()) {
    case Opcode::kParameter: {
      auto it = callers.find(i->parent());
      if (it == callers.end()) return {};
      Instruction* caller = it->second;
      if (caller->opcode() == Opcode::kConditional) {
        std::vector<Computation*> branches = caller->called_computations();
        for (size_t b = 0; b < branches.size(); ++b)
          if (branches[b] == i->parent() && static_cast<int64_t>(b) + 1 < caller->operand_count())
            return {i, caller->operand(b + 1)};
      } else if (caller->opcode() == Opcode::kCall) {
        int64_t k = i->parameter_number();
        if (k >= 0 && k < caller->operand_count()) return {i, caller->operand(k)};
      }
      return {};
    }
    case Opcode::kWhile: {
      Computation* cond = i->computation_attr(AttrId::kCondition);
      Computation* body = i->computation_attr(AttrId::kBody);
      std::vector<Instruction*> r = {i};
      if (body) {
        r.push_back(body->root());
        if (body->num_parameters() > 0) r.push_back(body->parameter(0));
      }
      if (cond && cond->num_parameters() > 0) r.push_back(cond->parameter(0));
      return r;
    }
    case Opcode::kConditional: {
      std::vector<Instruction*> r = {i};
      for (Computation* c : i->called_computations()) r.push_back(c->root());
      return r;
    }
    case Opcode::kCall: {
      std::vector<Instruction*> r = {i};
      if (Computation* c = i->to_apply()) r.push_back(c->root());
      return r;
    }
    default:
      return {};
  }
}

// A post-order entry: the instruction and its unique id, so that walks over an order can consult
// dense per-id arrays without touching the instruction.
struct Entry {
  Instruction* instr;
  int64_t id;
};

// The instruction order XLA's passes visit a computation in (HloComputation::
// MakeInstructionPostOrder), which decides who wins where two shardings meet in one sweep. A
// depth-first search starts only from the instructions without users, in instruction order (the
// root, dead code, a constraint added by the preprocessing at the end of the list). From each
// node the search descends first into its control predecessors (the last one first), then into
// its operands (the first one first), then into the earlier collectives with its channel id;
// each node is listed after everything it descended into. Computation::MakeInstructionPostOrder
// starts from every instruction in list order instead, so text order and operand order disagree
// there: for `x` read by constraints `c1`, `c2` in `tuple(c2, c1)`, XLA lists c2 before c1.
// `list` is comp.instructions(); `slot` is scratch indexed by unique id (all -1 before and after).
std::vector<Entry> XlaPostOrder(const Computation& comp, const std::vector<Instruction*>& list,
                                std::vector<int32_t>& slot) {
  const int32_t n = static_cast<int32_t>(list.size());
  const int64_t bound = static_cast<int64_t>(slot.size());
  bool dense = true;
  // One pass over the instructions for the ids and the channels (on large computations every
  // pass is a cache miss per instruction); the ids are kept to clear `slot` without another.
  std::vector<int64_t> ids(n);
  // Collectives sharing a channel id stay in list order: each one depends on the earlier ones.
  absl::flat_hash_map<int64_t, std::vector<int32_t>> channel_groups;
  absl::flat_hash_map<int32_t, std::vector<int32_t>> channel_deps;
  for (int32_t k = 0; k < n; ++k) {
    if (k + 8 < n) __builtin_prefetch(list[k + 8]);
    ids[k] = list[k]->unique_id();
    if (ids[k] < 0 || ids[k] >= bound) dense = false;
    else slot[ids[k]] = k;
    switch (list[k]->opcode()) {
      case Opcode::kAllReduce: case Opcode::kAllGather: case Opcode::kAllToAll:
      case Opcode::kCollectiveBroadcast: case Opcode::kCollectivePermute: case Opcode::kRaggedAllToAll:
      case Opcode::kReduceScatter:
        if (list[k]->attrs().Has(AttrId::kChannelId)) {
          std::vector<int32_t>& group = channel_groups[list[k]->int_attr(AttrId::kChannelId)];
          if (!group.empty()) channel_deps[k] = group;
          group.push_back(k);
        }
        break;
      default:
        break;
    }
  }
  absl::flat_hash_map<const Instruction*, int32_t> sparse;  // when some id is out of range
  if (!dense)
    for (int32_t k = 0; k < n; ++k) sparse[list[k]] = k;
  auto index_of = [&](const Instruction* i) -> int32_t {
    if (i->parent() != &comp) return -1;
    if (dense) return slot[i->unique_id()];
    auto it = sparse.find(i);
    return it == sparse.end() ? -1 : it->second;
  };
  // The children of each node in the order they are descended into: control predecessors (last
  // first), operands (first first), then channel dependencies (last first, skipped from a start
  // node). This is the order of XLA's explicit stack, which pushes them the other way round.
  // Listed once, densely, so that the search itself chases no pointers.
  std::vector<int32_t> begin(n + 1, 0), children;
  std::vector<uint8_t> start(n, 0);
  children.reserve(2 * n);
  for (int32_t k = 0; k < n; ++k) {
    if (k + 8 < n) __builtin_prefetch(list[k + 8]);
    if (k + 4 < n) __builtin_prefetch(list[k + 4]->operands().data());
    const Instruction* i = list[k];
    start[k] = i->users().empty();
    if (const auto* preds = i->control_predecessors())
      for (auto p = preds->rbegin(); p != preds->rend(); ++p)
        if (int32_t c = index_of(*p); c >= 0) children.push_back(c);
    for (const Instruction* op : i->operands())
      if (int32_t c = index_of(op); c >= 0) children.push_back(c);
    if (!start[k] && !channel_deps.empty())
      if (auto d = channel_deps.find(k); d != channel_deps.end())
        for (auto c = d->second.rbegin(); c != d->second.rend(); ++c) children.push_back(*c);
    begin[k + 1] = static_cast<int32_t>(children.size());
  }
  for (int64_t id : ids)
    if (id >= 0 && id < bound) slot[id] = -1;
  std::vector<Entry> order;
  order.reserve(n);
  std::vector<uint8_t> state(n, 0);  // 1 on the search path, 2 listed
  std::vector<std::pair<int32_t, int32_t>> stack;  // node, next child position
  for (int32_t s = 0; s < n; ++s) {
    if (!start[s] || state[s] != 0) continue;
    state[s] = 1;
    stack.emplace_back(s, begin[s]);
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next == begin[node + 1]) {
        state[node] = 2;
        order.push_back({list[node], ids[node]});
        stack.pop_back();
        continue;
      }
      const int32_t c = children[next++];
      if (state[c] == 0) {
        state[c] = 1;
        stack.emplace_back(c, begin[c]);
      }
    }
  }
  // Instructions only reachable from a cycle of users (none in a valid computation) keep their
  // list position.
  if (static_cast<int32_t>(order.size()) != n)
    for (int32_t k = 0; k < n; ++k)
      if (state[k] == 0) order.push_back({list[k], ids[k]});
  return order;
}

bool IsControlFlow(const Instruction* i) {
  return i->opcode() == Opcode::kWhile || i->opcode() == Opcode::kConditional || i->opcode() == Opcode::kCall;
}

bool EvenlyPartitions(const Shape& shape, const Sharding& s) {
  if (s.IsTuple()) {
    if (!shape.IsTuple()) return true;
    for (int64_t i = 0; i < shape.tuple_size(); ++i)
      if (!EvenlyPartitions(shape.tuple_shape(i), s.GetSubSharding(shape, {&i, 1}))) return false;
    return true;
  }
  if (s.IsTileMaximal() || s.IsManual() || !shape.IsArray()) return true;
  for (int64_t d = 0; d < shape.rank(); ++d)
    if (shape.dim(d) % s.NumTilesOnDim(d) != 0) return false;
  return true;
}

class Driver {
 public:
  Driver(Module& module, const PropagationOptions& options, Provenance* provenance)
      : module_(module) {
    s_.module = &module;
    s_.provenance = provenance;
    out_flags_ = Flags(options.allow_to_output, module, AttrId::kAllowPropagationToOutput);
    param_flags_ = Flags(options.allow_to_parameters, module, AttrId::kAllowPropagationToParameters);
    s_.allow_to_output = Any(out_flags_);
    s_.allow_to_parameters = Any(param_flags_);
    s_.is_spmd = options.is_spmd;
    cse_only_ = options.cse_prevention_only;
  }

  StatusOr<bool> Run() {
    // Each computation keeps its instructions in a linked list: list them once (on large modules
    // every walk over the instructions is a cache miss per instruction, so the preparation below
    // walks them as few times as it can).
    for (Computation* comp : module_.computations()) comp_instrs_.emplace_back(comp, comp->instructions());
    constraint_work_.assign(module_.unique_id_bound(), 0);
    SurveyInstructions();
    RETURN_IF_ERROR(ProcessShardingConstraints());
    SaveEntrySignature();
    RETURN_IF_ERROR(CheckDevicesInWhileBodies());
    BuildComputationMap();
    CollectProvided();
    PrepareFixpoint();
    RecordAnnotations();
    for (int aggr = 0; aggr < 3; ++aggr) RunToFixpoint(aggr, /*groups=*/true);
    const uint64_t level3_start = s_.clock;
    RunToFixpoint(3, /*groups=*/true);
    AlignShardAsGroups();
    // One more run at level 3, shard groups included, with fresh caches (as XLA does): even
    // without a change from the alignment it may refine an instruction whose rule reads more
    // than what clears its cache (its own sharding, the other operand of a dot, a dot's chain
    // of single users). When nothing changed since level 3 began, every rule already ran on
    // today's inputs and the run would change nothing.
    if (s_.clock != level3_start) RunToFixpoint(3, /*groups=*/true);
    RETURN_IF_ERROR(RemoveBarriers());
    if (cse_only_) KeepOnlyCsePreventionShardings();
    RestoreEntrySignature();
    return changed_;
  }

 private:
  // A sharding whose only metadata entry is named `_sharding_propagation_cse_prevention` was put
  // on a scalar broadcast by an earlier CSE-prevention run; XLA's ordinary run drops it before
  // anything else (so it is neither provided nor kept) and propagates afresh.
  static bool IsCsePreventionSharding(const Sharding& s) {
    if (s.IsTuple() || s.metadata().size() != 1) return false;
    static constexpr std::string_view kKey = "op_name=\"_sharding_propagation_cse_prevention\"";
    const std::string& entry = s.metadata()[0];
    const size_t at = entry.find(kKey);
    return at != std::string::npos && (at == 0 || entry[at - 1] == ' ');
  }

  // The first walk over every instruction: drops the CSE-prevention shardings (a CSE-prevention
  // run keeps every sharding it finds instead, to restore them at the end), and lists what the
  // later steps need, so that they need not walk everything again: the control-flow instructions
  // and the shard barriers (in instruction order; the constraint processing neither adds nor
  // removes any) and the constraint work.
  void SurveyInstructions() {
    for (const auto& [comp, instrs] : comp_instrs_)
      for (Instruction* instr : instrs) {
        if (IsControlFlow(instr)) control_flow_.push_back(instr);
        if (instr->IsCustomCall("ShardBarrierFrom") || instr->IsCustomCall("ShardBarrierTo"))
          barriers_.push_back({comp, instr});
        if (cse_only_) {
          if (instr->has_sharding()) original_.emplace(instr, instr->sharding_ptr());
        } else if (instr->has_sharding() && IsCsePreventionSharding(*instr->sharding())) {
          instr->clear_sharding();
          changed_ = true;
        }
        if ((instr->IsCustomCall("Sharding") && instr->operand_count() == 1) ||
            (instr->has_sharding() && !instr->sharding()->IsTuple() && instr->sharding()->shard_group().valid()))
          MarkConstraintWork(instr);
      }
  }

  // The end of a CSE-prevention run: broadcasts of scalars that had no sharding keep the inferred
  // one, marked; everything else gets its original sharding back, or none.
  void KeepOnlyCsePreventionShardings() {
    for (Computation* comp : module_.computations())
      for (Instruction* instr : comp->instructions()) {
        if (!instr->has_sharding()) continue;
        auto original = original_.find(instr);
        const bool target = instr->opcode() == Opcode::kBroadcast && instr->operand(0)->shape().rank() == 0;
        if (target) {
          if (original == original_.end())
            instr->set_sharding(std::make_shared<const Sharding>(
                instr->sharding()->WithMetadata({"op_name=\"_sharding_propagation_cse_prevention\""})));
          continue;
        }
        if (original != original_.end())
          instr->set_sharding(original->second);
        else
          instr->clear_sharding();
      }
  }

  // Instructions ProcessShardingConstraints must visit (constraints, shard-group members), by
  // unique id; an instruction without a dense id is always visited.
  void MarkConstraintWork(const Instruction* instr) {
    const int64_t id = instr->unique_id();
    if (id >= 0 && id < static_cast<int64_t>(constraint_work_.size())) constraint_work_[id] = 1;
  }
  bool NeedsConstraintWork(const Entry& e) const {
    return e.id < 0 || e.id >= static_cast<int64_t>(constraint_work_.size()) || constraint_work_[e.id];
  }

  // Sharding custom calls become copies carrying the sharding (keeping the custom call's name);
  // shard_as/shard_like annotations become groups.
  //
  // The post order stays valid where a constraint with users and without control edges is
  // replaced: its copy has the same operand and users (the search reaches it where it reached
  // the constraint), and a removed constraint's users reach its operand where they reached it.
  // Otherwise (a constraint without users starts a search; control edges are dropped) the
  // computation's order is recomputed before the fixpoint.
  Status ProcessShardingConstraints() {
    post_order_slot_.assign(module_.unique_id_bound(), -1);
    for (auto& [comp, instrs] : comp_instrs_) {
      post_orders_.push_back(XlaPostOrder(*comp, instrs, post_order_slot_));
      std::vector<Entry>& order = post_orders_.back();
      absl::flat_hash_set<const Instruction*> removed;
      std::vector<Instruction*> added;
      for (auto it = order.rbegin(); it != order.rend(); ++it) {
        if (!NeedsConstraintWork(*it)) continue;
        Instruction* instr = it->instr;
        if (instr->IsCustomCall("Sharding") && instr->operand_count() == 1) {
          const bool order_holds = instr->user_count() > 0 && instr->control_successors().empty() &&
                                   (!instr->control_predecessors() || instr->control_predecessors()->empty());
          if (!order_holds) stale_orders_.insert(comp);
          if (!instr->has_sharding()) {
            return InvalidArgument("%{}: a Sharding custom call needs a sharding attribute", instr->name());
          }
          Sharding sharding = *instr->sharding();
          std::vector<int64_t> open = ParseUnspecifiedDims(*instr);
          Instruction* operand = instr->operand(0);
          // (A CSE-prevention run keeps the constraints, and ignores shard groups.)
          bool to_copy = !cse_only_ && (!sharding.IsUnknown() || operand->opcode() == Opcode::kParameter);
          if (to_copy) {
            auto copy = std::make_unique<Instruction>(Opcode::kCopy, instr->shape(), instr->name());
            copy->AppendOperand(operand);
            copy->set_location(instr->location());
            copy->set_sharding(instr->sharding_ptr());
            copy->attrs().Set(AttrId::kMetadata, instr->attr<KeyValueList>(AttrId::kMetadata)
                                                     ? *instr->attr<KeyValueList>(AttrId::kMetadata)
                                                     : KeyValueList{});
            if (copy->attr<KeyValueList>(AttrId::kMetadata)->empty()) copy->attrs().Remove(AttrId::kMetadata);
            Instruction* c = comp->AddInstruction(std::move(copy));
            instr->ReplaceAllUsesWith(c);
            instr->DropControlEdges();
            removed.insert(instr);
            added.push_back(c);
            *it = {c, c->unique_id()};
            RETURN_IF_ERROR(comp->RemoveInstruction(instr));
            instr = c;
            changed_ = true;
          } else if (sharding.shard_group().valid() && !cse_only_) {
            // An unknown-sharding constraint only carries its group to the operand.
            Sharding given = operand->has_sharding() ? *operand->sharding() : Sharding::Unknown();
            operand->set_sharding(std::make_shared<const Sharding>(given.WithShardGroup(sharding.shard_group())));
            MarkConstraintWork(operand);  // visited later in this walk: it joins the group there
            instr->ReplaceAllUsesWith(operand);
            instr->DropControlEdges();
            removed.insert(instr);
            it->instr = nullptr;
            RETURN_IF_ERROR(comp->RemoveInstruction(instr));
            changed_ = true;
            continue;
          }
          RETURN_IF_ERROR(RecordGroup(instr));
          if (!open.empty()) {
            s_.unspecified_dims[instr] = open;
          } else if (!operand->has_sharding()) {
            operand->set_sharding(instr->sharding_ptr());
            constraint_source_[operand] = instr;
          }
          continue;
        }
        RETURN_IF_ERROR(RecordGroup(instr));
      }
      if (removed.empty()) continue;
      // The list as the computation now has it: the constraints gone (compared by address only:
      // they are freed), their copies at the end in creation order.
      std::erase_if(order, [](const Entry& e) { return e.instr == nullptr; });
      std::erase_if(instrs, [&](const Instruction* i) { return removed.contains(i); });
      instrs.insert(instrs.end(), added.begin(), added.end());
    }
    return absl::OkStatus();
  }

  Status RecordGroup(Instruction* instr) {
    if (cse_only_ || !instr->has_sharding() || instr->sharding()->IsTuple()) return absl::OkStatus();
    const ShardGroup& g = instr->sharding()->shard_group();
    if (!g.valid()) return absl::OkStatus();
    auto& groups = g.shard_as ? s_.shard_as_groups : s_.shard_like_groups;
    auto& members = groups[g.id];
    if (!members.empty() && members.front()->shape().dims() != instr->shape().dims()) {
      return InvalidArgument("%{} has shape {} but shard group {} has members of shape {}", instr->name(),
                             instr->shape().ToString(false), g.id, members.front()->shape().ToString(false));
    }
    members.push_back(instr);
    s_.group_of[instr] = g.id;
    instr->set_sharding(std::make_shared<const Sharding>(instr->sharding()->WithoutShardGroup()));
    return absl::OkStatus();
  }

  void SaveEntrySignature() {
    Computation* entry = module_.entry();
    Instruction* root = entry->root();
    if (root->has_sharding() && root->shape().IsTuple() && root->sharding()->IsTuple())
      saved_root_ = root->sharding()->tuple_elements();
    for (int64_t i = 0; i < entry->num_parameters(); ++i)
      if (entry->parameter(i) && entry->parameter(i)->has_sharding())
        saved_params_[i] = *entry->parameter(i)->sharding();
  }

  // A while body holding a device-to-device channel op (send/recv that is not a host transfer,
  // all-reduce/reduce-scatter with a channel) placed on device D runs entirely on D: every other
  // single-device instruction in the body must be on D, and the body root (hence the while) is
  // placed on D. (XLA's CheckAndUpdateDeviceAssignmentsInWhileBody.)
  Status CheckDevicesInWhileBodies() {
    for (Instruction* w : control_flow_) {
      if (w->opcode() != Opcode::kWhile) continue;
      Computation* body = w->computation_attr(AttrId::kBody);
      if (!body) continue;
      std::optional<int64_t> unique;
      const Instruction* channel = nullptr;
      std::vector<std::pair<int64_t, const Instruction*>> others;
      auto conflict = [&](const Instruction* i, int64_t device) {
        return InvalidArgument("instruction %{} is on device {}, which conflicts with device {} of channel instruction %{}",
                               i->name(), device, *unique, channel->name());
      };
      for (const Instruction* i : body->instructions()) {
        if (!i->has_sharding()) continue;
        std::optional<int64_t> device = i->sharding()->UniqueDevice();
        if (!device) continue;
        const Opcode op = i->opcode();
        const bool is_channel =
            ((op == Opcode::kSend || op == Opcode::kRecv) && !i->bool_attr(AttrId::kIsHostTransfer)) ||
            ((op == Opcode::kAllReduce || op == Opcode::kReduceScatter) && i->attrs().Has(AttrId::kChannelId));
        if (unique) {
          if (*unique != *device) return conflict(i, *device);
        } else if (is_channel) {
          channel = i;
          unique = device;
          for (const auto& [d, other] : others)
            if (d != *unique) return conflict(other, d);
        } else {
          others.emplace_back(*device, i);
        }
      }
      if (!unique) continue;
      if (w->has_sharding()) {
        std::optional<int64_t> wd = w->sharding()->UniqueDevice();
        if (wd && *wd != *unique) return conflict(w, *wd);
      }
      Instruction* root = body->root();
      std::optional<int64_t> rd = root->has_sharding() ? root->sharding()->UniqueDevice() : std::nullopt;
      if (!rd) {
        root->set_sharding(std::make_shared<const Sharding>(
            Sharding::AssignDevice(*unique).NormalizeTupleSharding(root->shape())));
        changed_ = true;
      } else if (*rd != *unique) {
        return conflict(root, *rd);
      }
    }
    return absl::OkStatus();
  }

  void BuildComputationMap() {
    for (Instruction* instr : control_flow_) {
      std::vector<Instruction*> related = Related(instr, s_.computation_map);
      const Instruction* sharded = nullptr;
      for (Instruction* r : related)
        if (r->has_sharding()) {
          sharded = r;
          break;
        }
      if (sharded) {
        for (Instruction* r : related) r->set_sharding(sharded->sharding_ptr());
      }
      if (instr->opcode() == Opcode::kWhile) {
        // Both the body and the condition map to the while (the condition's parameter and its
        // root may then carry shardings too).
        if (Computation* body = instr->computation_attr(AttrId::kBody)) s_.computation_map[body] = instr;
        if (Computation* cond = instr->computation_attr(AttrId::kCondition)) s_.computation_map[cond] = instr;
      } else {
        for (Computation* c : instr->called_computations()) s_.computation_map[c] = instr;
      }
    }
  }

  // The fixed shardings of the entry signature. (Those of the other instructions, and unknown ->
  // replicated, are settled by PrepareFixpoint's pass over all instructions: CollectAnnotation.)
  void CollectProvided() {
    Computation* entry = module_.entry();
    Instruction* root = entry->root();
    original_root_ = root;
    if (!s_.allow_to_output && (!root->has_sharding() || !root->sharding()->IsUnknown())) {
      if (root->opcode() == Opcode::kWhile) {
        // A fixed while root would pin its body and condition too: a copy takes the fixed
        // sharding instead, and the while stays refinable.
        auto copy = std::make_unique<Instruction>(Opcode::kCopy, root->shape(), module_.UniqueName("copy"));
        copy->AppendOperand(root);
        if (root->has_sharding()) copy->set_sharding(root->sharding_ptr());
        Instruction* c = entry->AddInstruction(std::move(copy));
        entry->set_root(c);
        for (auto& [comp, instrs] : comp_instrs_)
          if (comp == entry) instrs.push_back(c);
        stale_orders_.insert(entry);
        root = c;
        changed_ = true;
      }
      s_.provided.insert(root);
    }
    root_ = root;
    if (!s_.allow_to_parameters) {
      for (Instruction* p : entry->parameters())
        if (p && p->has_sharding() && !p->sharding()->IsUnknown()) s_.provided.insert(p);
    }
  }

  // An instruction's own sharding: fixed (an annotation anywhere but on the entry's signature),
  // or unknown, which takes part as replicated (but stays refinable).
  void CollectAnnotation(Instruction* instr) {
    if (!instr->has_sharding()) return;
    if (instr->sharding()->IsUnknown()) {
      instr->set_sharding(std::make_shared<const Sharding>(Sharding::Replicate(instr->sharding()->metadata())));
    } else if (instr != root_ && instr != original_root_ && instr->opcode() != Opcode::kParameter) {
      s_.provided.insert(instr);
    }
  }

  void RecordAnnotations() {
    if (!s_.provenance) return;
    for (const auto& [comp, instrs] : comp_instrs_) {
      for (Instruction* instr : instrs) {
        if (!instr->has_sharding()) continue;
        auto src = constraint_source_.find(instr);
        std::string rule = src != constraint_source_.end()
                               ? fmt::format("from the sharding constraint %{}", src->second->name())
                               : (s_.provided.contains(instr) ? "given in the module (fixed)"
                                                              : "given in the module (refinable)");
        s_.provenance->Record(instr, ShardingEvent{s_.provenance->NextSeq(), EventKind::kAnnotation, rule,
                                                   nullptr, 0, 0, *instr->sharding(), true, ""});
      }
    }
  }

  // Copies `instr`'s sharding to every instruction related to it through control flow.
  void PropagateAcrossCalls(Instruction* instr, std::vector<Instruction*>* changed) {
    auto to_related = [&](Instruction* anchor) {
      std::vector<Instruction*> related = Related(anchor, s_.computation_map);
      if (std::find(related.begin(), related.end(), instr) == related.end()) return;
      for (Instruction* r : related) {
        if (r->has_sharding() && *r->sharding() == *instr->sharding()) continue;
        // Fixed shardings (annotations, the entry root) are never overwritten.
        if (s_.provided.contains(r)) continue;
        s_.Set(r, *instr->sharding(), instr, "control-flow consistency", EventKind::kControlFlow);
        changed->push_back(r);
        PropagateAcrossCalls(r, changed);
      }
    };
    if (IsControlFlow(instr)) to_related(instr);
    if (instr->opcode() == Opcode::kParameter || instr->IsRoot()) {
      auto it = s_.computation_map.find(instr->parent());
      if (it != s_.computation_map.end()) {
        to_related(it->second);
        // A branch / callee parameter hands its sharding back to the caller's operand.
        if (instr->opcode() == Opcode::kParameter &&
            (it->second->opcode() == Opcode::kConditional || it->second->opcode() == Opcode::kCall))
          to_related(instr);
      }
    }
  }

  // Dense per-instruction flags (indexed by unique id) and post orders, computed once: the graph
  // does not change during the fixpoint, so neither recomputing post orders nor hashing pointers
  // is needed in the hot loop.
  enum : uint8_t {
    kProvided = 1, kDoneFwd = 2, kDoneBwd = 4, kDoneGroup = 8, kOpen = 16, kInGroup = 32, kManualConversion = 64
  };
  void PrepareFixpoint() {
    // Per-id arrays are sized for the ids the module has handed out; instructions without one
    // (or outside that range) get their facts once they are numbered, after the pass.
    const int64_t bound = module_.unique_id_bound();
    int64_t max_id = bound - 1;
    std::vector<Entry*> deferred;
    bits_.assign(bound, 0);
    op_class_.assign(bound, kOther);
    fwd_level_.assign(bound, 0);
    user_begin_.assign(bound + 1, 0);
    post_order_slot_.resize(bound, -1);
    size_t c = 0;
    for (Computation* comp : module_.computations()) {
      // The post orders of the constraint processing still hold where it changed nothing.
      const bool reuse = c < post_orders_.size() && !stale_orders_.contains(comp);
      const std::vector<Entry> order =
          reuse ? std::move(post_orders_[c]) : XlaPostOrder(*comp, comp_instrs_[c].second, post_order_slot_);
      ++c;
      // The first pass over all instructions (each a cache miss on large modules): the
      // annotations, and the per-id facts the sweeps consult instead of the instructions.
      orders_.emplace_back(order.size());
      std::vector<Entry>& entries = orders_.back();
      for (size_t k = 0; k < order.size(); ++k) {
        if (k + kPrefetchAhead < order.size()) Prefetch(order[k + kPrefetchAhead].instr);
        Instruction* i = order[k].instr;
        CollectAnnotation(i);
        entries[k] = {i, i->unique_id()};
        if (i->unique_id() < 0 || i->unique_id() >= bound)
          deferred.push_back(&entries[k]);
        else
          CollectFacts(entries[k]);
      }
    }
    for (Entry* e : deferred) max_id = std::max(max_id, e->id);
    const size_t n = max_id + 1;
    bits_.resize(n, 0);
    op_class_.resize(n, kOther);
    fwd_level_.resize(n, 0);
    user_begin_.resize(n + 1, 0);
    for (Entry* e : deferred) {
      if (e->id < 0) {
        e->instr->set_unique_id(++max_id);
        e->id = max_id;
        bits_.push_back(0);
        op_class_.push_back(kOther);
        fwd_level_.push_back(0);
        user_begin_.push_back(0);
      }
      CollectFacts(*e);
    }
    s_.changed_at.assign(max_id + 1, 1);
    s_.operands_changed_at.assign(max_id + 1, 1);
    fwd_at_.assign(max_id + 1, 0);
    bwd_at_.assign(max_id + 1, 0);
    bwd_level_at_.assign(max_id + 1, 0);
    for (const Instruction* i : s_.provided) bits_[i->unique_id()] |= kProvided;
    for (const auto& [i, dims] : s_.unspecified_dims) bits_[i->unique_id()] |= kOpen;
    for (const auto& [i, g] : s_.group_of) bits_[i->unique_id()] |= kInGroup;
    for (size_t i = 1; i < user_begin_.size(); ++i) user_begin_[i] += user_begin_[i - 1];
    s_.single_non_root_user.assign(max_id + 1, 0);
    user_ids_.assign(user_begin_.back(), -1);
    for (const auto& order : orders_) {
      if (order.empty()) continue;
      const Instruction* root = order.front().instr->parent()->root();
      const int64_t root_id = root ? root->unique_id() : -1;
      for (size_t k = 0; k < order.size(); ++k) {
        const Entry& e = order[k];
        if (k + 2 * kPrefetchAhead < order.size()) Prefetch(order[k + 2 * kPrefetchAhead].instr);
        if (k + kPrefetchAhead < order.size())
          for (const Instruction* u : order[k + kPrefetchAhead].instr->users()) __builtin_prefetch(u);
        int64_t at = user_begin_[e.id];
        int64_t non_root = 0;
        for (const Instruction* u : e.instr->users()) {
          const int64_t id = u->unique_id();
          user_ids_[at++] = id;
          if (id != root_id) ++non_root;
        }
        s_.single_non_root_user[e.id] = non_root == 1;
      }
    }
  }
  // The opcode facts of one numbered instruction, and its user count (user_begin_ is turned into
  // offsets afterwards).
  void CollectFacts(const Entry& e) {
    const Instruction* i = e.instr;
    if (i->IsCustomCall("SPMDFullToShardShape") || i->IsCustomCall("SPMDShardToFullShape"))
      bits_[e.id] |= kManualConversion;
    switch (i->opcode()) {
      case Opcode::kBroadcast: op_class_[e.id] = kBroadcastOp; break;
      case Opcode::kParameter: op_class_[e.id] = kParameterOp; break;
      case Opcode::kDot: case Opcode::kConvolution: case Opcode::kRaggedDot: case Opcode::kScaledDot:
        op_class_[e.id] = kDotOp;
        break;
      default: break;
    }
    // The lowest aggressiveness at which the forward rule may change anything.
    fwd_level_[e.id] = CanPropagateThrough(*i, 0) ? 0 : CanPropagateThrough(*i, 1) ? 1 : 2;
    user_begin_[e.id + 1] = static_cast<int64_t>(i->users().size());
  }
  uint8_t& Bits(const Instruction* i) { return bits_[i->unique_id()]; }

  // The sweeps walk a post order whose instructions are scattered over the heap: on modules far
  // larger than the caches, fetching the next instructions' first lines ahead of time hides part
  // of the memory latency.
  static constexpr size_t kPrefetchAhead = 8;
  static void Prefetch(const Instruction* i) {
    const char* p = reinterpret_cast<const char*>(i);
    for (size_t line = 0; line < Instruction::kHotBytes; line += 64) __builtin_prefetch(p + line);
  }
  // Second stage, once the instruction itself is (nearly) in cache: its operand and user lists.
  static void PrefetchEdges(const Instruction* i) {
    __builtin_prefetch(i->operands().data());
    __builtin_prefetch(i->users().data());
    __builtin_prefetch(i->shape().dims().data());
    __builtin_prefetch(i->attrs().entries().data());
  }

  // Third stage: the operands (forward) or users (backward) the rule reads, which the sweep may
  // have skipped and so not brought in.
  static void PrefetchNeighbours(const std::vector<Instruction*>& neighbours) {
    for (const Instruction* n : neighbours) {
      __builtin_prefetch(n);
      __builtin_prefetch(reinterpret_cast<const char*>(n) + 64);
    }
  }

  void ClearCache(const Instruction* instr, const Instruction* for_users = nullptr) {
    for (const Instruction* op : instr->operands()) Bits(op) &= ~kDoneBwd;
    for (const Instruction* u : (for_users ? for_users : instr)->users()) {
      Bits(u) &= ~kDoneFwd;
      // The parameters of a called computation read the caller's operands.
      if (IsControlFlow(u))
        for (const Computation* c : u->called_computations())
          for (const Instruction* p : c->parameters())
            if (p) Bits(p) &= ~kDoneFwd;
    }
    if (Bits(instr) & kInGroup)
      if (const auto* group = s_.GroupOf(instr))
        for (const Instruction* m : *group)
          if (m != instr) Bits(m) &= ~kDoneGroup;
  }

  void AfterChange(Instruction* instr) {
    changed_ = true;
    related_scratch_.clear();
    PropagateAcrossCalls(instr, &related_scratch_);
    ClearCache(instr);
    for (Instruction* r : related_scratch_) ClearCache(r);
  }

  bool Unchanged(const Instruction* i, uint64_t since) const { return s_.changed_at[i->unique_id()] <= since; }
  // No operand of `i` changed after `since`.
  bool OperandsUnchanged(const Instruction* i, uint64_t since) const {
    return s_.operands_changed_at[i->unique_id()] <= since;
  }

  // The forward rule of `instr` would give what it gave at fwd_at_ (same inputs, same rule).
  // Reads the dense per-id arrays only (the instruction itself only for dots), so that skipping
  // an up-to-date instruction does not touch it.
  bool ForwardIsUpToDate(const Entry& e) const {
    const uint64_t since = fwd_at_[e.id];
    if (since == 0 || s_.aggressiveness < 2 || s_.changed_at[e.id] > since) return false;
    switch (op_class_[e.id]) {
      case kBroadcastOp: case kParameterOp:
        return false;
      case kDotOp: {
        // The tie-break looks ahead along a single-user chain.
        const Instruction* instr = e.instr;
        if (instr->user_count() == 1 && (!instr->users()[0]->has_sharding() || !Unchanged(instr->users()[0], since)))
          return false;
        break;
      }
      default:
        break;
    }
    return s_.operands_changed_at[e.id] <= since;
  }

  // Whether the sweeps will touch the instruction of `e` (an estimate from the dense arrays, for
  // prefetching: most entries of a sweep are skipped, and fetching them anyway would spend the
  // memory bandwidth the visited ones wait for).
  bool ForwardMayRun(const Entry& e) const {
    const uint8_t bits = bits_[e.id];
    if (bits & kDoneFwd) return false;
    if (bits & kProvided) return (bits & kOpen) != 0;
    if (fwd_level_[e.id] > s_.aggressiveness) return false;
    const uint64_t since = fwd_at_[e.id];
    return since == 0 || s_.aggressiveness < 2 || s_.changed_at[e.id] > since || op_class_[e.id] != kOther ||
           s_.operands_changed_at[e.id] > since;
  }
  bool BackwardMayRun(const Entry& e) const {
    const uint8_t bits = bits_[e.id];
    if (bits & kDoneBwd) return (bits & kManualConversion) != 0;
    if (bits & kProvided) return (bits & kOpen) != 0;
    return !BackwardIsUpToDate(e.id);
  }

  // The backward rule reads the users and the users' other operands.
  bool BackwardIsUpToDate(int64_t id) const {
    const uint64_t since = bwd_at_[id];
    if (since == 0 || s_.aggressiveness < 2 || s_.changed_at[id] > since || op_class_[id] == kBroadcastOp)
      return false;
    const int64_t n = static_cast<int64_t>(s_.changed_at.size());
    for (int64_t k = user_begin_[id]; k < user_begin_[id + 1]; ++k) {
      const int64_t u = user_ids_[k];
      if (u < 0 || u >= n || op_class_[u] == kBroadcastOp || s_.changed_at[u] > since ||
          s_.operands_changed_at[u] > since)
        return false;
    }
    return true;
  }

  void RunToFixpoint(int aggressiveness, bool groups) {
    s_.aggressiveness = aggressiveness;
    for (uint8_t& b : bits_) b &= ~(kDoneFwd | kDoneBwd | kDoneGroup);
    std::fill(bwd_level_at_.begin(), bwd_level_at_.end(), 0);
    groups = groups && !s_.group_of.empty();
    bool changed_last = true;
    while (changed_last) {
      changed_last = false;
      ++s_.iteration;
      for (const std::vector<Entry>& order : orders_) {
        if (groups) {
          for (const Entry& e : order) {
            uint8_t& bits = bits_[e.id];
            if (!(bits & kInGroup) || (bits & kDoneGroup)) continue;
            Instruction* instr = e.instr;
            const std::vector<Instruction*>* group = s_.GroupOf(instr);
            if (!group) continue;
            if (bits & kProvided) {
              if (s_.may_combine() && (bits & kOpen) &&
                  InferUnspecifiedDimsFromGroup(instr, s_.unspecified_dims.at(instr), *group, s_)) {
                ClearCache(instr);
                Bits(instr) |= kDoneGroup;
                changed_last = true;
              }
              continue;
            }
            bits |= kDoneGroup;
            if (InferFromShardGroup(instr, *group, s_)) {
              AfterChange(instr);
              changed_last = true;
            }
          }
        }
        for (size_t k = 0; k < order.size(); ++k) {
          const Entry& e = order[k];
          if (k + 2 * kPrefetchAhead < order.size() && ForwardMayRun(order[k + 2 * kPrefetchAhead]))
            Prefetch(order[k + 2 * kPrefetchAhead].instr);
          if (k + kPrefetchAhead < order.size() && ForwardMayRun(order[k + kPrefetchAhead]))
            PrefetchEdges(order[k + kPrefetchAhead].instr);
          if (k + kPrefetchAhead / 2 < order.size() && ForwardMayRun(order[k + kPrefetchAhead / 2]))
            PrefetchNeighbours(order[k + kPrefetchAhead / 2].instr->operands());
          uint8_t& bits = bits_[e.id];
          if (bits & kDoneFwd) continue;
          if (!(bits & kProvided)) {
            bits |= kDoneFwd;
            // (InferFromOperands would refuse at its first check; this does not touch it.)
            if (fwd_level_[e.id] > aggressiveness || ForwardIsUpToDate(e)) continue;
            bits &= ~kDoneFwd;
          }
          Instruction* instr = e.instr;
          if (bits & kProvided) {
            if (s_.may_combine() && (bits & kOpen)) {
              const std::vector<int64_t>& dims = s_.unspecified_dims.at(instr);
              if (InferUnspecifiedDimsFromOperand(instr, dims, s_)) {
                ClearCache(instr, ManualConversionAfter(*instr, dims));
                Bits(instr) |= kDoneFwd;
                changed_ = changed_last = true;
              }
            }
            continue;
          }
          bits |= kDoneFwd;
          if (aggressiveness >= 1) fwd_at_[e.id] = s_.clock;
          if (InferFromOperands(instr, s_)) {
            AfterChange(instr);
            changed_last = true;
          }
        }
        for (auto it = order.rbegin(); it != order.rend(); ++it) {
          if (order.rend() - it > static_cast<ptrdiff_t>(2 * kPrefetchAhead) && BackwardMayRun(it[2 * kPrefetchAhead]))
            Prefetch(it[2 * kPrefetchAhead].instr);
          if (order.rend() - it > static_cast<ptrdiff_t>(kPrefetchAhead) && BackwardMayRun(it[kPrefetchAhead]))
            PrefetchEdges(it[kPrefetchAhead].instr);
          if (order.rend() - it > static_cast<ptrdiff_t>(kPrefetchAhead / 2) && BackwardMayRun(it[kPrefetchAhead / 2]))
            PrefetchNeighbours(it[kPrefetchAhead / 2].instr->users());
          // A manual conversion is refined together with the Sharding constraint before it.
          if ((bits_[it->id] & (kManualConversion | kDoneBwd)) == kManualConversion)
            Bits(it->instr->operand(0)) &= ~kDoneBwd;
          uint8_t& bits = bits_[it->id];
          if (bits & kDoneBwd) continue;
          if (!(bits & kProvided) && BackwardIsUpToDate(it->id)) {
            bits |= kDoneBwd;
            continue;
          }
          Instruction* instr = it->instr;
          if (bits & kProvided) {
            if (s_.may_combine() && (bits & kOpen)) {
              const std::vector<int64_t>& dims = s_.unspecified_dims.at(instr);
              Instruction* conv = ManualConversionAfter(*instr, dims);
              if (InferUnspecifiedDimsFromUsers(instr, dims, s_)) {
                ClearCache(instr, conv);
                Bits(instr) |= kDoneBwd;
                if (conv) Bits(conv) |= kDoneBwd;
                changed_ = changed_last = true;
              }
            }
            continue;
          }
          bits |= kDoneBwd;
          if (aggressiveness >= 1) bwd_at_[instr->unique_id()] = s_.clock;
          // Within this level, users that did not change since the last run offer nothing new to
          // an instruction that did not change either.
          uint64_t& last = bwd_level_at_[instr->unique_id()];
          s_.users_unchanged_since = (last != 0 && Unchanged(instr, last)) ? last : 0;
          last = s_.clock;
          const bool inferred = InferFromUsers(instr, s_);
          s_.users_unchanged_since = 0;
          if (inferred) {
            AfterChange(instr);
            changed_last = true;
          }
        }
      }
    }
  }

  // shard_as groups end with one sharding: the merge of all members when compatible.
  void AlignShardAsGroups() {
    for (auto& [id, members] : s_.shard_as_groups) {
      std::optional<Sharding> fallback;
      std::vector<Sharding> shardings;
      for (Instruction* m : members) {
        if (!m->has_sharding()) continue;
        shardings.push_back(*m->sharding());
        if (!m->IsCustomCall("ShardBarrierFrom") && (!fallback || fallback->IsReplicated()))
          fallback = *m->sharding();
      }
      // (A group none of whose members has a sharding becomes replicated, as in XLA.)
      Sharding common = shardings.empty() ? Sharding::Replicate()
                                          : FindCommonSharding(shardings, fallback ? fallback : std::optional<Sharding>(Sharding::Replicate()));
      for (Instruction* m : members) {
        if (m->IsCustomCall("ShardBarrierTo")) continue;
        if (!m->has_sharding() || !(*m->sharding() == common))
          s_.Set(m, common, nullptr, fmt::format("shard_as group {} alignment", id), EventKind::kShardGroup);
      }
    }
    // A ShardBarrierFrom in a shard_as group relays the group's sharding to its operand.
    for (const auto& [comp, instr] : barriers_) RelayBarrier(instr);
  }

  void RelayBarrier(Instruction* instr) {
    if (!instr->IsCustomCall("ShardBarrierFrom") || !instr->has_sharding()) return;
    auto g = s_.group_of.find(instr);
    if (g == s_.group_of.end() || !s_.shard_as_groups.contains(g->second)) return;
    Instruction* operand = instr->operand(0);
    Sharding sharding = *instr->sharding();
    if (operand->has_sharding()) MergeShardingIfCompatible(*operand->sharding(), sharding.NumTiles(), &sharding);
    s_.Set(operand, sharding, instr, "ShardBarrierFrom relay", EventKind::kShardGroup);
  }

  Status RemoveBarriers() {
    for (const auto& [comp, instr] : barriers_) {
      RelayBarrier(instr);
      instr->ReplaceAllUsesWith(instr->operand(0));
      instr->DropControlEdges();
      RETURN_IF_ERROR(comp->RemoveInstruction(instr));
      changed_ = true;
    }
    return absl::OkStatus();
  }

  // Flag i of an allow_* vector: one value for all, or one per element / parameter.
  static bool FlagAt(const std::vector<bool>& flags, size_t i) {
    if (flags.size() == 1) return flags[0];
    return i < flags.size() && flags[i];
  }

  void RestoreEntrySignature() {
    Computation* entry = module_.entry();
    Instruction* root = entry->root();
    // Root elements whose propagation is not allowed get their original sharding back.
    if (s_.allow_to_output && root->has_sharding() && root->sharding()->IsTuple() && !saved_root_.empty() &&
        (out_flags_.size() == saved_root_.size() || out_flags_.size() == 1)) {
      std::vector<Sharding> leaves = root->sharding()->tuple_elements();
      bool restored = false;
      for (size_t i = 0; i < saved_root_.size() && i < leaves.size(); ++i)
        if (!FlagAt(out_flags_, i) && !saved_root_[i].IsUnknown() && !(leaves[i] == saved_root_[i])) {
          leaves[i] = saved_root_[i];
          restored = true;
        }
      if (restored)
        s_.Set(root, Sharding::Tuple(std::move(leaves)), nullptr, "entry result: restored (propagation not allowed)",
               EventKind::kPostProcess);
    }
    const auto& params = entry->parameters();
    // A single tuple parameter may have one flag per tuple element (flat tuples only).
    const bool per_element = params.size() == 1 && params[0] && params[0]->shape().IsTuple() &&
                             param_flags_.size() != 1 &&
                             static_cast<int64_t>(param_flags_.size()) == params[0]->shape().tuple_size() &&
                             params[0]->shape().tuple_size() == params[0]->shape().leaf_count();
    if (s_.allow_to_parameters && param_flags_.size() == params.size()) {
      for (size_t i = 0; i < params.size(); ++i) {
        if (param_flags_[i] || !params[i]) continue;
        auto saved = saved_params_.find(i);
        if (saved != saved_params_.end() && !saved->second.IsUnknown())
          params[i]->set_sharding(std::make_shared<const Sharding>(saved->second));
        else
          params[i]->clear_sharding();
      }
    } else if (s_.allow_to_parameters && per_element && saved_params_.size() == 1 && params[0]->has_sharding() &&
               params[0]->sharding()->IsTuple()) {
      const Sharding& saved = saved_params_.begin()->second;
      std::vector<Sharding> leaves = params[0]->sharding()->tuple_elements();
      bool restored = false;
      for (int64_t i = 0; i < static_cast<int64_t>(leaves.size()); ++i) {
        Sharding sub = saved.GetSubSharding(params[0]->shape(), {&i, 1});
        if (!param_flags_[i] && !sub.IsUnknown() && !(leaves[i] == sub)) {
          leaves[i] = sub;
          restored = true;
        }
      }
      if (restored)
        s_.Set(params[0], Sharding::Tuple(std::move(leaves)), nullptr,
               "entry parameter: restored (propagation not allowed)", EventKind::kPostProcess);
    }
    // Shardings inferred for the entry signature must divide evenly, else they become replicated.
    // As in XLA, a tuple result is checked only with one flag per element, and parameters only
    // with one flag per parameter (or per element of a single tuple parameter).
    if (s_.allow_to_output && root->has_sharding()) {
      if (root->shape().IsTuple() && root->sharding()->IsTuple() &&
          static_cast<int64_t>(out_flags_.size()) == root->shape().tuple_size()) {
        std::vector<Sharding> leaves = root->sharding()->tuple_elements();
        bool fix = false;
        for (int64_t i = 0; i < root->shape().tuple_size() && i < static_cast<int64_t>(leaves.size()); ++i) {
          if (out_flags_[i] && !EvenlyPartitions(root->shape().tuple_shape(i), leaves[i])) {
            leaves[i] = Sharding::Replicate();
            fix = true;
          }
        }
        if (fix)
          s_.Set(root, Sharding::Tuple(std::move(leaves)), nullptr, "entry result: uneven -> replicated",
                 EventKind::kPostProcess);
      } else if (!root->shape().IsTuple() && !EvenlyPartitions(root->shape(), *root->sharding())) {
        s_.Set(root, Sharding::Replicate(), nullptr, "entry result: uneven -> replicated", EventKind::kPostProcess);
      }
    }
    if (s_.allow_to_parameters) {
      if (param_flags_.size() == params.size()) {
        for (size_t i = 0; i < params.size(); ++i) {
          if (params[i] && params[i]->has_sharding() && param_flags_[i] &&
              !EvenlyPartitions(params[i]->shape(), *params[i]->sharding()))
            s_.Set(params[i], Sharding::Replicate(), nullptr, "entry parameter: uneven -> replicated",
                   EventKind::kPostProcess);
        }
      } else if (per_element && params[0]->has_sharding() && params[0]->sharding()->IsTuple()) {
        std::vector<Sharding> leaves = params[0]->sharding()->tuple_elements();
        bool fix = false;
        for (int64_t i = 0; i < static_cast<int64_t>(leaves.size()); ++i) {
          if (param_flags_[i] && !EvenlyPartitions(params[0]->shape().tuple_shape(i), leaves[i])) {
            leaves[i] = Sharding::Replicate();
            fix = true;
          }
        }
        if (fix)
          s_.Set(params[0], Sharding::Tuple(std::move(leaves)), nullptr, "entry parameter: uneven -> replicated",
                 EventKind::kPostProcess);
      }
    }
  }

  Module& module_;
  PropagationState s_;
  std::vector<bool> out_flags_, param_flags_;
  std::vector<Sharding> saved_root_;
  absl::flat_hash_map<int64_t, Sharding> saved_params_;
  absl::flat_hash_map<const Instruction*, const Instruction*> constraint_source_;
  bool changed_ = false;
  bool cse_only_ = false;  // PropagationOptions::cse_prevention_only
  // A CSE-prevention run: the shardings the module came with.
  absl::flat_hash_map<const Instruction*, std::shared_ptr<const Sharding>> original_;
  std::vector<std::vector<Entry>> orders_;
  // Post orders computed by ProcessShardingConstraints (one per computation, in module order) and
  // the computations whose graph it changed afterwards.
  std::vector<std::vector<Entry>> post_orders_;
  std::vector<uint8_t> constraint_work_;  // by unique id: see MarkConstraintWork
  absl::flat_hash_set<const Computation*> stale_orders_;
  std::vector<int32_t> post_order_slot_;  // scratch of XlaPostOrder
  std::vector<uint8_t> bits_;
  // Clock value when the forward / backward rule last ran on an instruction at aggressiveness >= 1
  // (0: not yet). From level 2 on, a rule whose inputs have not changed since is not re-run: the
  // rules are the same at levels 1..3 except for broadcasts (and dots look at their users).
  std::vector<uint64_t> fwd_at_, bwd_at_;
  std::vector<uint64_t> bwd_level_at_;  // the same, per level (reset at each level)
  std::vector<Instruction*> related_scratch_;
  // The ShardBarrierFrom/To custom calls and their computations, in instruction order.
  std::vector<std::pair<Computation*, Instruction*>> barriers_;
  // The while / conditional / call instructions, in instruction order.
  std::vector<Instruction*> control_flow_;
  // The entry root before and after CollectProvided (which may add a copy after a while root).
  const Instruction* original_root_ = nullptr;
  const Instruction* root_ = nullptr;
  // Each computation's instructions (insertion order), kept up to date until the fixpoint.
  std::vector<std::pair<Computation*, std::vector<Instruction*>>> comp_instrs_;
  // Dense per-id facts, fixed during the fixpoint: the opcode class the up-to-date checks need,
  // and the users' ids (users of id i: user_ids_[user_begin_[i] .. user_begin_[i + 1])).
  enum : uint8_t { kOther, kBroadcastOp, kParameterOp, kDotOp };
  std::vector<uint8_t> op_class_;
  std::vector<uint8_t> fwd_level_;  // see CollectFacts
  std::vector<int64_t> user_begin_, user_ids_;
};

}  // namespace

StatusOr<bool> PropagateShardings(Module& module, const PropagationOptions& options, Provenance* provenance) {
  if (!module.entry()) return InvalidArgument("module has no entry computation");
  Driver driver(module, options, provenance);
  return driver.Run();
}

}  // namespace spmdc

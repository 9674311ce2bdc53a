// Backward rules of propagation (user -> operand, GSPMD.md §2.4 "Backward"), shard-group
// propagation, and the refinement of partially specified Sharding constraints.
#include <algorithm>
#include <functional>
#include <numeric>

#include "propagation/dim_mapping.h"
#include "propagation/dot_dims.h"
#include "propagation/factor_rule.h"
#include "propagation/gather_parallel.h"
#include "propagation/lattice.h"
#include "propagation/state.h"
#include "sharding/algebra.h"
#include "sharding/manual_groups.h"

namespace spmdc {
namespace {

bool HasPropagatable(const Instruction* i) { return i->has_sharding() && IsPropagatable(*i->sharding()); }

int64_t OperandIndex(const Instruction& user, const Instruction& operand) {
  for (int64_t i = 0; i < user.operand_count(); ++i)
    if (user.operand(i) == &operand) return i;
  return -1;
}

Sharding SubSharding(const Instruction& user, const Sharding& us, int64_t index) {
  if (!us.IsTuple()) return us;
  return us.GetSubSharding(user.shape(), {&index, 1});
}

// Operand `k`'s sharding implied by the dot's result sharding `us`, merged with what the other
// operand implies.
Sharding DotOperandFromResult(const Instruction& dot, const DotDims& d, int64_t k, const Sharding& us,
                              bool may_combine) {
  const Instruction* operand = dot.operand(k == 0 ? 0 : DotRhsOperand(dot));
  const Instruction* other = dot.operand(k == 0 ? DotRhsOperand(dot) : 0);
  auto own = [k](const DotDim& x) { return k == 0 ? x.lhs : x.rhs; };
  auto theirs = [k](const DotDim& x) { return k == 0 ? x.rhs : x.lhs; };
  std::vector<int64_t> src, dst;
  for (const DotDim& x : d.batch)
    if (x.output >= 0 && own(x) >= 0) src.push_back(x.output), dst.push_back(own(x));
  for (const DotDim& x : k == 0 ? d.lhs_non_contracting : d.rhs_non_contracting)
    if (x.output >= 0 && own(x) >= 0) src.push_back(x.output), dst.push_back(own(x));
  Sharding result = MapShardingDims(us, src, dst, operand->shape().rank());
  if (HasPropagatable(other)) {
    std::vector<int64_t> osrc, odst;
    for (const DotDim& x : d.batch)
      if (theirs(x) >= 0 && own(x) >= 0) osrc.push_back(theirs(x)), odst.push_back(own(x));
    for (const DotDim& x : d.contracting)
      if (theirs(x) >= 0 && own(x) >= 0) osrc.push_back(theirs(x)), odst.push_back(own(x));
    Sharding from_other = MapShardingDims(*other->sharding(), osrc, odst, operand->shape().rank());
    if (MergeSharding(result, &from_other, may_combine)) result = from_other;
  }
  return result;
}

// Operand `k` of a custom call with a declared sharding rule (factor_rule.h): what each result's
// sharding implies, merged with what the other sharded operands imply through shared factors (a
// contracting factor), as for a dot's operand. Null when nothing is implied.
std::optional<Sharding> OperandFromShardingRule(const Instruction& cc, const SdyShardingRule& rule, int64_t k,
                                                const Sharding& us, bool may_combine) {
  if (k < 0) return std::nullopt;
  const RuleTensor to{false, k};
  const int64_t results = cc.shape().IsTuple() ? cc.shape().tuple_size() : 1;
  std::optional<Sharding> out;
  auto merge = [&](Sharding cand) {
    if (!out) {
      out = std::move(cand);
    } else if (MergeSharding(*out, &cand, may_combine)) {
      out = std::move(cand);
    }
  };
  for (int64_t r = 0; r < results; ++r) {
    Sharding rs = SubSharding(cc, us, r);
    if (!IsPropagatable(rs) || rs.IsTuple()) continue;
    merge(ShardingThroughRule(cc, rule, RuleTensor{true, r}, rs, to));
  }
  if (!out) return std::nullopt;
  for (int64_t j = 0; j < cc.operand_count(); ++j) {
    const Instruction* other = cc.operand(j);
    if (j == k || !HasPropagatable(other) || other->sharding()->IsTuple() || other->sharding()->IsTileMaximal())
      continue;
    merge(ShardingThroughRule(cc, rule, RuleTensor{false, j}, *other->sharding(), to));
  }
  return out;
}

// Gather operand / scatter update sharding from the result: the parallel-dims sharding and the
// passthrough one, merged when compatible, else the parallel one.
std::optional<Sharding> MergeParallelAndPassthrough(std::optional<Sharding> parallel,
                                                    std::optional<Sharding> passthrough) {
  if (!passthrough) return parallel;
  if (!parallel) return passthrough;
  if (MergeSharding(*parallel, &*passthrough, /*may_combine=*/true)) return passthrough;
  if (MergeSharding(*passthrough, &*parallel, /*may_combine=*/true)) return parallel;
  return parallel;
}

// Without SPMD, a concatenate sharded along its concat dim gives each operand the part of the
// tile array that holds its range (XLA's non-SPMD rule): one device becomes a maximal sharding.
Sharding ConcatOperandSubset(const Instruction& instr, const Instruction& concat, const Sharding& us) {
  const int64_t cdim = concat.dimensions().empty() ? 0 : concat.dimensions()[0];
  const TileAssignment& ta = us.tile_assignment();
  if (ta.dim(cdim) == 1) return us;
  int64_t start = 0;
  for (const Instruction* op : concat.operands()) {
    if (op == &instr) break;
    start += op->shape().dim(cdim);
  }
  const int64_t tile = (concat.shape().dim(cdim) + ta.dim(cdim) - 1) / ta.dim(cdim);
  const int64_t first = start / tile;
  const int64_t last = (start + instr.shape().dim(cdim) + tile - 1) / tile;
  std::vector<int64_t> dims = ta.dims();
  dims[cdim] = last - first;
  std::vector<int64_t> devices;
  ta.Each([&](std::span<const int64_t> index, int64_t device) {
    if (index[cdim] >= first && index[cdim] < last) devices.push_back(device);
  });
  if (devices.size() == 1) return Sharding::AssignDevice(devices[0], us.metadata());
  TileAssignment sliced = TileAssignment::FromDevices(std::move(dims), std::move(devices));
  if (us.ReplicateOnLastTileDim()) return Sharding::PartialTile(std::move(sliced), us.metadata());
  return Sharding::Subgroup(std::move(sliced), us.subgroup_types(), us.metadata());
}

// A top-k's operand (the topk op, or the TopK custom call) from the result's sharding `us`: the
// values' split on every dim but the last, which the local top-k reads whole (the partitioner's
// TopK; a split last dim is its own choice, from the operand's sharding).
Sharding TopKOperandSharding(const Instruction& operand, const Sharding& us) {
  Sharding values = us.IsTuple() ? (us.tuple_elements().empty() ? Sharding::Replicate() : us.tuple_elements()[0]) : us;
  if (!values.IsTiled() || operand.shape().rank() == 0) return values;
  const int64_t last[] = {operand.shape().rank() - 1};
  return PartiallyReplicateTiledShardingOnDims(values, last);
}

}  // namespace

std::optional<Sharding> ShardingFromUser(const Instruction& instr, const Instruction& user,
                                         int aggressiveness, const CallerMap* callers, bool is_spmd) {
  if (!user.has_sharding()) return std::nullopt;
  return ShardingFromUserWith(instr, user, *user.sharding(), aggressiveness, callers, is_spmd);
}

std::optional<Sharding> ShardingFromUserWith(const Instruction& instr, const Instruction& user,
                                             const Sharding& us, int aggressiveness,
                                             const CallerMap* callers, bool is_spmd) {
  if (!CanPropagateThrough(user, aggressiveness)) return std::nullopt;
  if (!IsPropagatable(us)) return std::nullopt;
  const bool may_combine = is_spmd && aggressiveness > 0;
  const int64_t index = OperandIndex(user, instr);
  switch (user.opcode()) {
    case Opcode::kBroadcast: {
      if (us.IsReplicated() || us.IsManual()) return us;
      if (!is_spmd && us.IsTiled()) {
        // Without SPMD a broadcast whose new dims are sharded gives its operand nothing.
        const auto& kept = user.dimensions();
        for (int64_t d = 0; d < user.shape().rank(); ++d)
          if (std::find(kept.begin(), kept.end(), d) == kept.end() && us.NumTilesOnDim(d) > 1) return std::nullopt;
      }
      std::vector<int64_t> dst(instr.shape().rank());
      std::iota(dst.begin(), dst.end(), 0);
      return MapShardingDims(us, user.dimensions(), dst, instr.shape().rank());
    }
    case Opcode::kConcatenate:
      if (aggressiveness == 0) return std::nullopt;
      if (is_spmd || us.IsReplicated() || !us.IsTiled()) return us;  // SPMD: the result's sharding
      return ConcatOperandSubset(instr, user, us);
    case Opcode::kConvolution: {
      DotDims d = DotDimsOfConvolution(user);
      if (!d.conv_spatial.empty()) return std::nullopt;
      return DotOperandFromResult(user, d, index, us, may_combine);
    }
    case Opcode::kDynamicSlice:
    case Opcode::kDynamicUpdateSlice: {
      if (aggressiveness == 0) return std::nullopt;
      if (us.IsReplicated()) return us;
      if (user.opcode() == Opcode::kDynamicUpdateSlice && index == 0) return us;
      int64_t data = user.opcode() == Opcode::kDynamicSlice ? 0 : 1;
      if (index != data) return std::nullopt;
      // The sliced dims of the user's sharding say nothing about where the full operand lives.
      std::vector<int64_t> sliced;
      for (int64_t i = 0; i < user.shape().rank(); ++i)
        if (user.shape().dim(i) != instr.shape().dim(i)) sliced.push_back(i);
      return PartiallyReplicateTiledShardingOnDims(us, sliced);
    }
    case Opcode::kReduceWindow: {
      int64_t n = user.operand_count() / 2;
      if (index < 0 || index >= n) return std::nullopt;
      return user.shape().IsTuple() ? SubSharding(user, us, index) : us;
    }
    case Opcode::kReshape:
      return PropagateShardingThroughReshape(user.shape(), instr.shape(), us);
    case Opcode::kPad:
      if (index != 0) return std::nullopt;
      return us;
    case Opcode::kSlice:
      return us;
    case Opcode::kTranspose: {
      const auto& perm = user.dimensions();
      std::vector<int64_t> inverse(perm.size());
      for (size_t i = 0; i < perm.size(); ++i) inverse[perm[i]] = static_cast<int64_t>(i);
      return TransposeSharding(us, inverse);
    }
    case Opcode::kTuple: {
      if (!us.IsTuple()) return us;
      std::optional<Sharding> best;
      for (int64_t i = 0; i < user.operand_count(); ++i) {
        if (user.operand(i) != &instr) continue;
        Sharding sub = us.GetSubSharding(user.shape(), {&i, 1});
        if (!best || IsShardingMoreSpecific(sub, *best)) best = sub;
      }
      return best;
    }
    case Opcode::kGetTupleElement: {
      if (!instr.shape().IsTuple()) return std::nullopt;
      int64_t leaf = 0;
      for (int64_t i = 0; i < user.tuple_index(); ++i) leaf += instr.shape().tuple_shape(i).leaf_count();
      std::vector<Sharding> leaves;
      if (instr.has_sharding() && instr.sharding()->IsTuple()) {
        leaves = instr.sharding()->tuple_elements();
      } else {
        const Sharding& proto = us.IsTuple() ? (us.tuple_elements().empty() ? us : us.tuple_elements()[0]) : us;
        if (us.IsTuple() && us.tuple_elements().empty()) return std::nullopt;
        // Every other leaf: replicated data dims of its own rank (a manual subgroup is kept).
        std::function<void(const Shape&)> add_leaves = [&](const Shape& shape) {
          if (!shape.IsTuple()) {
            leaves.push_back(ReplicateAllDataDims(proto, shape.IsArray() ? shape.rank() : 0));
            return;
          }
          for (const Shape& sub : shape.tuple_shapes()) add_leaves(sub);
        };
        add_leaves(instr.shape());
        if (leaves.empty()) leaves.push_back(ReplicateAllDataDims(proto, 0));
      }
      if (!us.IsTuple()) {
        if (leaf < static_cast<int64_t>(leaves.size())) leaves[leaf] = us;
      } else {
        for (size_t i = 0; i < us.tuple_elements().size() && leaf + i < leaves.size(); ++i)
          leaves[leaf + i] = us.tuple_elements()[i];
      }
      return Sharding::Tuple(std::move(leaves));
    }
    case Opcode::kDot:
      return DotOperandFromResult(user, DotDimsOfDot(user), index, us, may_combine);
    case Opcode::kRaggedDot:
    case Opcode::kScaledDot: {
      // lhs and rhs as for a dot; group sizes and scales take nothing from the result.
      std::optional<DotDims> d = DotDimsOfDotFamily(user);
      const int64_t k = index == 0 ? 0 : index == DotRhsOperand(user) ? 1 : -1;
      if (!d || k < 0) return std::nullopt;
      return DotOperandFromResult(user, *d, k, us, may_combine);
    }
    case Opcode::kReduce: {
      if (instr.shape().rank() == 0) return std::nullopt;
      Sharding sub = user.shape().IsTuple() ? SubSharding(user, us, index) : us;
      if (!sub.IsTileMaximal() && !sub.IsManual()) {
        // Reinsert the reduced dims as untiled tile dims.
        const auto& dims = user.dimensions();
        std::vector<int64_t> src, dst;
        int64_t next = 0;
        for (int64_t d = 0; d < instr.shape().rank(); ++d) {
          if (std::find(dims.begin(), dims.end(), d) != dims.end()) continue;
          src.push_back(next++);
          dst.push_back(d);
        }
        sub = MapShardingDims(sub, src, dst, instr.shape().rank());
      }
      int64_t n = user.operand_count() / 2;
      for (int64_t k = 0; k < n; ++k) {
        const Instruction* other = user.operand(k);
        if (other != &instr && other->has_sharding())
          MergeShardingIfCompatible(*other->sharding(), sub.NumTiles() + 1, &sub);
      }
      return sub;
    }
    case Opcode::kSort:
      return us.IsTuple() ? SubSharding(user, us, index) : us;
    case Opcode::kTopK:
      return TopKOperandSharding(instr, us);
    case Opcode::kReverse:
      return ReverseSharding(us, user.dimensions());
    case Opcode::kOutfeed: {
      // The outfeed's sharding covers (operands..., token): operand 0 takes element 0 of it
      // (a tuple sharding when operand 0 is a tuple).
      if (index != 0) return std::nullopt;
      if (!us.IsTuple()) return us;
      std::vector<Shape> shapes;
      for (const Instruction* op : user.operands()) shapes.push_back(op->shape());
      Shape whole = Shape::Tuple(std::move(shapes));
      if (Sharding::RequiredLeaves(whole) != static_cast<int64_t>(us.tuple_elements().size())) {
        // An outfeed sharding that also counts the token result: the operands come first.
        std::vector<Shape> with_token = whole.tuple_shapes();
        with_token.push_back(Shape::Token());
        whole = Shape::Tuple(std::move(with_token));
        if (Sharding::RequiredLeaves(whole) != static_cast<int64_t>(us.tuple_elements().size()))
          return us.tuple_elements().empty() ? std::nullopt : std::optional<Sharding>(us.tuple_elements()[0]);
      }
      const int64_t first = 0;
      return us.GetSubSharding(whole, {&first, 1});
    }
    case Opcode::kGather: {
      GatherDimMap m = GatherDimMapOf(user);
      const int64_t rank = instr.shape().rank();
      if (index == 1) return MapShardingDims(us, m.output_batch, m.index_passthrough, rank);
      if (index != 0 || !is_spmd) return std::nullopt;
      if (us.IsTileMaximal() || us.IsManual()) return us;
      // Parallel dims first (as the partitioner prefers them), merged with the passthrough dims.
      std::optional<Sharding> parallel, passthrough;
      if (callers)
        if (std::optional<ParallelDims> par = GatherParallelDims(user, *callers))
          parallel = MapShardingDims(us, par->result, par->operand, rank);
      Sharding pass = MapShardingDims(us, m.output_offset, m.operand_passthrough, rank);
      if (!pass.IsTileMaximal()) passthrough = pass;
      return MergeParallelAndPassthrough(parallel, passthrough);
    }
    case Opcode::kScatter: {
      int64_t n = user.operand_count() / 2;
      ScatterDimMap m = ScatterDimMapOf(user);
      const int64_t rank = instr.shape().rank();
      if (index < n) return SubSharding(user, us, index);
      const Instruction* indices = user.operand(n);
      if (index == n) {
        std::vector<Sharding> candidates;
        for (int64_t k = 0; k < n; ++k) {
          const Instruction* update = user.operand(n + 1 + k);
          if (HasPropagatable(update))
            candidates.push_back(MapShardingDims(*update->sharding(), m.update_scatter, m.index_passthrough, rank));
        }
        if (candidates.empty()) return std::nullopt;
        return FindCommonSharding(candidates, std::nullopt);
      }
      Sharding from_indices = HasPropagatable(indices)
                                  ? MapShardingDims(*indices->sharding(), m.index_passthrough, m.update_scatter, rank)
                                  : Sharding::Replicate();
      Sharding out = SubSharding(user, us, index - n - 1);
      std::optional<Sharding> from_output;
      if (!is_spmd) {
        // Without SPMD only the indices say anything about the updates.
      } else if (out.IsTileMaximal() || out.IsManual()) {
        from_output = out;
      } else {
        std::optional<Sharding> parallel, passthrough;
        if (callers)
          if (std::optional<ParallelDims> par = ScatterParallelDims(user, *callers))
            parallel = MapShardingDims(out, par->operand, par->result, rank);
        Sharding pass = MapShardingDims(out, m.operand_passthrough, m.update_window, rank);
        if (!pass.IsTileMaximal()) passthrough = pass;
        from_output = MergeParallelAndPassthrough(parallel, passthrough);
      }
      if (from_output) {
        MergeShardingIfCompatible(from_indices, from_output->NumTiles() + 1, &*from_output);
        if (!from_output->IsTileMaximal()) return from_output;
      }
      if (!from_indices.IsTileMaximal()) return from_indices;
      return std::nullopt;
    }
    case Opcode::kCustomCall:
      if (std::optional<SdyShardingRule> rule = DeclaredShardingRule(user)) return OperandFromShardingRule(user, *rule, index, us, may_combine);
      if (user.IsCustomCall("TopK") && user.shape().IsTuple()) return TopKOperandSharding(instr, us);
      if (instr.shape().CompatibleIgnoringElementType(user.shape())) return us;
      return std::nullopt;
    default:
      if (instr.shape().CompatibleIgnoringElementType(user.shape())) return us;
      return std::nullopt;
  }
}

bool InferFromUsers(Instruction* instr, PropagationState& s) {
  if (s.aggressiveness < 2 && instr->opcode() == Opcode::kBroadcast) return false;
  if (instr->has_sharding() && instr->sharding()->IsManual()) return false;
  // Manual flows backward from any manual user (except from the region's entry).
  if (!instr->has_sharding() || instr->sharding()->IsTileMaximal()) {
    for (const Instruction* user : instr->users()) {
      if (!user->has_sharding() || user->IsCustomCall("SPMDFullToShardShape")) continue;
      if (instr->shape().IsArray() && user->sharding()->IsManual()) {
        s.Set(instr, Sharding::Manual(user->sharding()->metadata()), user, "manual", EventKind::kBackward);
        return true;
      }
      // Only a manual (or tuple, which may hold manual elements) user implies manual.
      if (!user->sharding()->IsTuple() && !user->sharding()->IsManual()) continue;
      std::optional<Sharding> us = ShardingFromUser(*instr, *user, s.aggressiveness, &s.computation_map, s.is_spmd);
      if (us && us->IsManual()) {
        s.Set(instr, *us, user, "manual", EventKind::kBackward);
        return true;
      }
    }
  }
  if (!SupportsSpatialPartitioning(*instr, s, false, s.allow_to_parameters)) return false;
  // The state of an rng-bit-generator is replicated, whatever it had (XLA overrides here).
  for (const Instruction* user : instr->users()) {
    if (user->opcode() != Opcode::kRngBitGenerator) continue;
    if (instr->has_sharding() && instr->sharding()->IsReplicated()) return false;
    s.Set(instr, Sharding::Replicate(), user, "rng-bit-generator state", EventKind::kBackward);
    return true;
  }
  bool changed = false;
  for (const Instruction* user : instr->users()) {
    // The state fed to an rng-bit-generator is replicated, whatever else its users want.
    if (user->opcode() == Opcode::kRngBitGenerator) {
      if (instr->has_sharding() && instr->sharding()->IsReplicated()) return changed;
      s.Set(instr, Sharding::Replicate(), user, "rng-bit-generator state", EventKind::kBackward);
      return true;
    }
    if (s.UserUnchanged(user)) continue;
    std::optional<Sharding> us = ShardingFromUser(*instr, *user, s.aggressiveness, &s.computation_map, s.is_spmd);
    if (!us) continue;
    // ShardBarrierTo blocks backward flow: users see it as replicated.
    if (instr->IsCustomCall("ShardBarrierTo")) us = Sharding::Replicate();
    std::string rule = user->opcode() == Opcode::kCustomCall && DeclaredShardingRule(*user)
                           ? ShardingRuleName(*user, RuleTensor{true, -1})
                           : std::string(OpcodeName(user->opcode()));
    changed |= s.Improve(instr, *us, user, rule, EventKind::kBackward);
  }
  return changed;
}

bool InferFromShardGroup(Instruction* instr, const std::vector<Instruction*>& group,
                         PropagationState& s) {
  if (!CanPropagateThrough(*instr, s.aggressiveness)) return false;
  if (instr->has_sharding() && instr->sharding()->IsManual()) return false;
  if (instr->IsCustomCall("ShardBarrierTo")) return false;
  if (!instr->has_sharding() || instr->sharding()->IsTileMaximal()) {
    for (const Instruction* member : group) {
      if (member == instr || !member->has_sharding() || !member->sharding()->IsManual()) continue;
      s.Set(instr, *member->sharding(), member, "shard group (manual)", EventKind::kShardGroup);
      return true;
    }
  }
  bool changed = false;
  for (const Instruction* member : group) {
    if (member == instr || member->IsCustomCall("ShardBarrierFrom") || !member->has_sharding()) continue;
    changed |= s.Improve(instr, *member->sharding(), member, "shard group", EventKind::kShardGroup);
  }
  return changed;
}

// ---- partially specified Sharding constraints -------------------------------------------------

namespace {

// Merges `source` restricted to the unspecified dims into the constraint's sharding.
bool RefineOpenDims(Instruction* annotate, const std::vector<int64_t>& dims, const Sharding& source,
                    const Instruction* from, std::string_view rule, EventKind kind, PropagationState& s) {
  if (!source.IsTiled()) return false;
  Sharding partial = PartiallyReplicateTiledShardingOnAllDimsExcept(source, dims);
  if (!annotate->has_sharding()) return false;
  Sharding refined = *annotate->sharding();
  if (!MergeShardingIfCompatible(partial, refined.NumTiles() + 1, &refined)) return false;
  s.Set(annotate, refined, from, rule, kind);
  return true;
}

// XLA's HloSharding::IsTiled: neither tile-maximal, manual nor unknown as a whole, so a tuple
// with one tiled element counts (Sharding::IsTiled is per leaf).
bool IsTiledAsAWhole(const Sharding& s) { return !s.IsTileMaximal() && !s.IsManual() && !s.IsUnknown(); }

bool IsManualConversion(const Instruction& i) {
  return i.IsCustomCall("SPMDFullToShardShape") || i.IsCustomCall("SPMDShardToFullShape");
}

// With the pair auto = [.., R] (partially replicated) and manual = [.., M, R] (manual subgroup
// with replication), `auto_part` (an auto sharding restricted to the open dims) refines both:
// the auto side by a plain merge; the manual side by treating its manual dim as one more data
// dim (tile 1 on the auto side) and merging the same way. (XLA's RefineManualAutoShardingFromAuto.)
bool RefineFromAutoAsXla(const Sharding& to_merge, const std::vector<int64_t>& dims, Sharding* auto_s,
                         Sharding* manual_s) {
  if (!manual_s->IsManualSubgroup() || auto_s->IsManualSubgroup() || !manual_s->HasPartialReplication() ||
      manual_s->subgroup_types().size() != 2 || !to_merge.IsTiled())
    return false;
  Sharding partial = PartiallyReplicateTiledShardingOnAllDimsExcept(to_merge, dims);
  if (partial.IsTileMaximal() || partial.IsManualSubgroup()) return false;
  Sharding new_auto = *auto_s;
  if (!MergeShardingIfCompatible(partial, new_auto.NumTiles() + 1, &new_auto)) return false;
  // Insert a size-1 "manual" dim before the replication dim of the auto part.
  const int64_t data_rank = partial.TiledDataRank();
  std::vector<int64_t> pdims = partial.tile_assignment().dims();
  if (!partial.HasPartialReplication()) pdims.push_back(1);
  pdims.insert(pdims.begin() + data_rank, 1);
  Sharding partial_for_manual = Sharding::PartialTile(partial.tile_assignment().Reshape(pdims), partial.metadata());
  // The manual sharding with its manual dim read as a data dim (order: manual, replicated).
  if (manual_s->SubgroupManualDim() != manual_s->tile_assignment().num_dimensions() - 2) return false;
  Sharding manual_as_data = Sharding::PartialTile(manual_s->tile_assignment(), manual_s->metadata());
  if (!MergeShardingIfCompatible(partial_for_manual, manual_as_data.NumTiles() + 1, &manual_as_data)) return false;
  std::vector<SubgroupType> types = {SubgroupType::kManual};
  if (manual_as_data.HasPartialReplication()) types.push_back(SubgroupType::kReplicated);
  std::vector<int64_t> mdims = manual_as_data.tile_assignment().dims();
  if (!manual_as_data.HasPartialReplication()) mdims.push_back(1), types.push_back(SubgroupType::kReplicated);
  *manual_s = Sharding::Subgroup(manual_as_data.tile_assignment().Reshape(mdims), types, manual_as_data.metadata());
  *auto_s = std::move(new_auto);
  return true;
}

// The same pair refined from a manual-side sharding `to_merge` (a manual subgroup).
// (XLA's RefineManualAutoShardingFromManual.)
bool RefineFromManualAsXla(const Sharding& to_merge, const std::vector<int64_t>& dims, Sharding* auto_s,
                           Sharding* manual_s) {
  if (!to_merge.IsManualSubgroup() || !manual_s->IsManualSubgroup() || !manual_s->HasPartialReplication() ||
      auto_s->IsManualSubgroup() || manual_s->subgroup_types().size() != 2)
    return false;
  Sharding partial = PartiallyReplicateTiledShardingOnAllDimsExcept(to_merge, dims);
  if (partial.IsTileMaximal() || !partial.IsManualSubgroup()) return false;
  Sharding new_manual = *manual_s;
  if (!MergeShardingIfCompatible(partial, new_manual.NumTiles() + 1, &new_manual)) return false;
  // The auto side sees the manual dim as replication.
  std::vector<SubgroupType> types(partial.subgroup_types().size(), SubgroupType::kReplicated);
  Sharding partial_for_auto = Sharding::Subgroup(partial.tile_assignment(), types, partial.metadata());
  Sharding new_auto = *auto_s;
  if (!MergeShardingIfCompatible(partial_for_auto, new_auto.NumTiles() + 1, &new_auto)) return false;
  *manual_s = std::move(new_manual);
  *auto_s = std::move(new_auto);
  return true;
}

// The pair refined so that every device holds the same data of the full value (shape `full`)
// on both sides, for what the XLA forms above cannot merge: the region's manual axes tile a dim
// of the full value that the refinement tiles further (a ring attention's sequence dim, open for
// the data axis), which the XLA forms would tile twice. From the auto side: the auto sharding
// merged, the manual one derived (GroupLocalSharding); from the manual side the reverse
// (FullValueSharding). The groups' blocks are placed as the current auto sharding places them.
bool RefineExactly(const Sharding& partial, bool from_auto, const Shape& full, const Shape& shard, Sharding* auto_s,
                   Sharding* manual_s) {
  if (!manual_s->IsManualSubgroup() || auto_s->IsManualSubgroup() || partial.IsTileMaximal() ||
      partial.IsManualSubgroup() != !from_auto)
    return false;
  Sharding new_auto = *auto_s, new_manual = *manual_s;
  if (from_auto) {
    if (!MergeShardingIfCompatible(partial, new_auto.NumTiles() + 1, &new_auto)) return false;
    std::optional<Sharding> local = GroupLocalSharding(new_auto, *manual_s, full, shard, *auto_s);
    if (!local || !IsSubTilingOrEqualSharding(shard, *local, *manual_s)) return false;
    new_manual = *std::move(local);
  } else {
    if (!MergeShardingIfCompatible(partial, new_manual.NumTiles() + 1, &new_manual)) return false;
    std::optional<Sharding> whole = FullValueSharding(new_manual, full, shard, *auto_s);
    if (!whole || !IsSubTilingOrEqualSharding(full, *whole, *auto_s)) return false;
    new_auto = *std::move(whole);
  }
  // Both sides must still describe the same placement (a merge may have refined one further).
  std::optional<Sharding> check = FullValueSharding(new_manual, full, shard, *auto_s);
  if (!check || !(*check == new_auto)) return false;
  *auto_s = std::move(new_auto);
  *manual_s = std::move(new_manual);
  return true;
}

bool RefineFromAuto(const Sharding& to_merge, const std::vector<int64_t>& dims, const Shape& full,
                    const Shape& shard, Sharding* auto_s, Sharding* manual_s) {
  if (RefineFromAutoAsXla(to_merge, dims, auto_s, manual_s)) return true;
  if (!to_merge.IsTiled() || to_merge.IsManualSubgroup()) return false;
  return RefineExactly(PartiallyReplicateTiledShardingOnAllDimsExcept(to_merge, dims), /*from_auto=*/true, full,
                       shard, auto_s, manual_s);
}

bool RefineFromManual(const Sharding& to_merge, const std::vector<int64_t>& dims, const Shape& full,
                      const Shape& shard, Sharding* auto_s, Sharding* manual_s) {
  if (RefineFromManualAsXla(to_merge, dims, auto_s, manual_s)) return true;
  if (!to_merge.IsManualSubgroup()) return false;
  return RefineExactly(PartiallyReplicateTiledShardingOnAllDimsExcept(to_merge, dims), /*from_auto=*/false, full,
                       shard, auto_s, manual_s);
}

}  // namespace

Instruction* ManualConversionAfter(const Instruction& annotate, const std::vector<int64_t>& dims) {
  if (annotate.user_count() != 1) return nullptr;
  Instruction* user = annotate.users()[0];
  if (!IsManualConversion(*user) || !user->has_sharding()) return nullptr;
  if (ParseUnspecifiedDims(*user) != dims) return nullptr;
  return user;
}

namespace {
// Applies a joint refinement of (annotate, conversion) and records it.
bool SetPair(Instruction* annotate, Sharding a, Instruction* conv, Sharding c, const Instruction* from,
             std::string_view rule, EventKind kind, PropagationState& s) {
  bool changed = false;
  if (!(*annotate->sharding() == a)) {
    s.Set(annotate, std::move(a), from, rule, kind);
    changed = true;
  }
  if (!(*conv->sharding() == c)) {
    s.Set(conv, std::move(c), from, fmt::format("{} (jointly with %{})", rule, annotate->name()), kind);
    changed = true;
  }
  return changed;
}
}  // namespace

bool InferUnspecifiedDimsFromOperand(Instruction* annotate, const std::vector<int64_t>& dims,
                                     PropagationState& s) {
  const Instruction* operand = annotate->operand(0);
  if (!HasPropagatable(operand) || !operand->sharding()->IsTiled()) return false;
  Instruction* conv = ManualConversionAfter(*annotate, dims);
  if (!conv) {
    return RefineOpenDims(annotate, dims, *operand->sharding(), operand, "unspecified dims from operand",
                          EventKind::kForward, s);
  }
  const bool to_manual = conv->IsCustomCall("SPMDFullToShardShape");
  Sharding a = *annotate->sharding(), c = *conv->sharding();
  // The full value's shape is the auto side's, the group's the manual side's.
  bool ok = to_manual ? RefineFromAuto(*operand->sharding(), dims, annotate->shape(), conv->shape(), &a, &c)
                      : RefineFromManual(*operand->sharding(), dims, conv->shape(), annotate->shape(), &c, &a);
  if (!ok) return false;
  return SetPair(annotate, std::move(a), conv, std::move(c), operand,
                 "unspecified dims from operand (manual/auto pair)", EventKind::kForward, s);
}

bool InferUnspecifiedDimsFromUsers(Instruction* annotate, const std::vector<int64_t>& dims,
                                   PropagationState& s) {
  Instruction* conv = nullptr;
  if (annotate->user_count() == 1 && IsManualConversion(*annotate->users()[0])) {
    conv = ManualConversionAfter(*annotate, dims);
    if (!conv) return false;  // the conversion must have the same unspecified dims
  }
  const Instruction* op_for_users = conv ? conv : annotate;
  bool changed = false;
  for (const Instruction* user : op_for_users->users()) {
    if (!user->has_sharding() || !IsTiledAsAWhole(*user->sharding())) continue;
    std::optional<Sharding> us = ShardingFromUser(*op_for_users, *user, s.aggressiveness, &s.computation_map, s.is_spmd);
    if (!us || us->IsTileMaximal()) continue;
    if (!conv) {
      changed |= RefineOpenDims(annotate, dims, *us, user, "unspecified dims from user", EventKind::kBackward, s);
      continue;
    }
    Sharding a = *annotate->sharding(), c = *conv->sharding();
    bool ok = conv->IsCustomCall("SPMDFullToShardShape")
                  ? RefineFromManual(*us, dims, annotate->shape(), conv->shape(), &a, &c)
                  : RefineFromAuto(*us, dims, conv->shape(), annotate->shape(), &c, &a);
    if (ok)
      changed |= SetPair(annotate, std::move(a), conv, std::move(c), user,
                         "unspecified dims from user (manual/auto pair)", EventKind::kBackward, s);
  }
  return changed;
}

bool InferUnspecifiedDimsFromGroup(Instruction* annotate, const std::vector<int64_t>& dims,
                                   const std::vector<Instruction*>& group, PropagationState& s) {
  if (annotate->IsCustomCall("ShardBarrierTo")) return false;
  bool changed = false;
  for (const Instruction* member : group) {
    if (member == annotate || member->IsCustomCall("ShardBarrierFrom") || !HasPropagatable(member)) continue;
    changed |= RefineOpenDims(annotate, dims, *member->sharding(), member, "unspecified dims from shard group",
                              EventKind::kShardGroup, s);
  }
  return changed;
}

}  // namespace spmdc

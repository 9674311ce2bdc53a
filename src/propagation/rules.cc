// Per-op sharding rules of propagation (GSPMD.md §2.4): forward (operands -> instruction) and
// backward (user -> operand), one place per op family. The lattice (lattice.h) decides whether a
// rule's candidate is taken; the driver (propagation.cc) decides when rules run.
#include <algorithm>
#include <numeric>

#include "fmt/format.h"
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

// XLA's notion of elementwise (HloInstruction::IsElementwise): the opcode table's elementwise
// kinds, plus map, rng, stochastic convert, same-width bitcast-convert, constants, and a fusion
// whose fused instructions other than parameters all are (so such a fusion is shardable, passes
// at aggressiveness 0 and merges its operands' shardings like any elementwise op).
bool IsElementwise(const Instruction& i) {
  switch (i.opcode()) {
    case Opcode::kMap: case Opcode::kRng: case Opcode::kStochasticConvert: case Opcode::kConstant:
      return true;
    case Opcode::kBitcastConvert:
      return i.operand(0)->shape().IsArray() &&
             DTypeBitWidth(i.operand(0)->shape().dtype()) == DTypeBitWidth(i.shape().dtype());
    case Opcode::kFusion:
      for (const Computation* c : i.called_computations())
        for (const Instruction* fused : c->instructions())
          if (fused->opcode() != Opcode::kParameter && !IsElementwise(*fused)) return false;
      return true;
    default: return IsElementwiseOpcode(i.opcode());
  }
}

// Custom calls whose result is sharded like their (first) operand (XLA's IsPassthroughCustomOps):
// the annotations that only place or constrain a value (memory-space moves and pins included).
bool IsPassthroughCustomCall(const Instruction& i) {
  if (i.opcode() != Opcode::kCustomCall) return false;
  const std::string& t = i.custom_call_target();
  if (t == "Sharding" || t == "X64Combine" || t == "LayoutConstraint") return true;
  if (i.operand_count() != 1 || !i.shape().IsArray() || !i.operand(0)->shape().IsArray() ||
      i.operand(0)->shape().rank() != i.shape().rank())
    return false;
  return t == "ResizeNearest" || t == "ResizeBilinear" || t == "ResizeNearestGrad" ||
         t == "ResizeBilinearGrad" || t == "Cholesky" || t == "MoveToHost" || t == "MoveToDevice" ||
         t == "PinToDevice" || t == "PinToDeviceSram";
}

// XLA's HloInstruction::HasSideEffect, which differs from the IR's notion (used by our own
// passes): the asynchronous collective halves are side-effecting, after-all and add-dependency
// are not, a collective is when it constrains its layout or (outside SPMD) has a channel id, and
// an op is when a computation it calls holds a side-effecting op.
bool XlaHasSideEffect(const Instruction& i, bool is_spmd) {
  switch (i.opcode()) {
    case Opcode::kSend: case Opcode::kSendDone: case Opcode::kRecv: case Opcode::kRecvDone:
    case Opcode::kRng: case Opcode::kRngGetAndUpdateState: case Opcode::kInfeed: case Opcode::kOutfeed:
    case Opcode::kAllReduceStart: case Opcode::kAllReduceDone: case Opcode::kAllGatherStart:
    case Opcode::kAllGatherDone: case Opcode::kCollectivePermuteStart: case Opcode::kCollectivePermuteDone:
    case Opcode::kCollectiveBroadcast:
      return true;
    case Opcode::kAllToAll: case Opcode::kAllGather: case Opcode::kAllReduce: case Opcode::kReduceScatter:
      if (i.bool_attr(AttrId::kConstrainLayout)) return true;
      [[fallthrough]];
    case Opcode::kCollectivePermute:
      if (i.attrs().Has(AttrId::kChannelId) && !is_spmd) return true;
      break;
    case Opcode::kCustomCall:
      if (i.bool_attr(AttrId::kCustomCallHasSideEffect)) return true;
      break;
    default:
      break;
  }
  for (const Computation* c : i.called_computations())
    for (const Instruction* inner : c->instructions())
      if (XlaHasSideEffect(*inner, is_spmd)) return true;
  return false;
}

bool IsBarrier(const Instruction& i) {
  return i.IsCustomCall("ShardBarrierFrom") || i.IsCustomCall("ShardBarrierTo");
}

// The operand that determines an op's sharding (most specific one where any operand may).
const Instruction* RepresentativeOperand(const Instruction& i) {
  switch (i.opcode()) {
    case Opcode::kMap: case Opcode::kPad: case Opcode::kPower: case Opcode::kOptimizationBarrier:
    case Opcode::kReverse: case Opcode::kSlice: case Opcode::kShiftLeft:
    case Opcode::kShiftRightArithmetic: case Opcode::kShiftRightLogical:
      return i.operand(0)->has_sharding() ? i.operand(0) : nullptr;
    case Opcode::kCustomCall:
      return IsPassthroughCustomCall(i) || i.IsCustomCall("ShardBarrierTo") ? i.operand(0) : nullptr;
    case Opcode::kAllGather: case Opcode::kAllReduce: case Opcode::kReduceScatter:
    case Opcode::kAllToAll: case Opcode::kCollectiveBroadcast: case Opcode::kCollectivePermute:
    case Opcode::kBitcastConvert: case Opcode::kConcatenate: case Opcode::kSort: case Opcode::kTopK:
    case Opcode::kStochasticConvert: case Opcode::kWhile:
      break;
    default:
      if (!IsElementwiseOpcode(i.opcode())) return nullptr;
  }
  const Instruction* best = nullptr;
  for (const Instruction* op : i.operands()) {
    if (op->has_sharding() && (!best || IsShardingMoreSpecific(*op->sharding(), *best->sharding())))
      best = op;
  }
  return best;
}

// The sharding an elementwise op takes from `operand`. A scalar operand of an array op (clamp's
// bounds, select's predicate) tiles no data dim: only its subgroups (manual groups) and
// replication carry over, at the op's rank (its own tile array would name the wrong rank).
Sharding ElementwiseOperandSharding(const Instruction& i, const Instruction& operand) {
  const Sharding& s = *operand.sharding();
  if (!i.shape().IsArray() || !operand.shape().IsArray() || operand.shape().rank() == i.shape().rank() ||
      !s.IsTiled())
    return s;
  return ReplicateAllDataDims(s, i.shape().rank());
}

// A non-tuple sharding repeated over every element of a tuple-shaped instruction.
Sharding MaybeTuple(const Instruction& i, const Sharding& s) {
  if (!i.shape().IsTuple()) return s;
  return Sharding::Tuple(std::vector<Sharding>(i.shape().tuple_size(), s));
}

// Sets the sharding of tuple element `index` of `instr` (the whole sharding for arrays).
bool ImproveElement(Instruction* instr, int64_t index, const Sharding& candidate,
                    const Instruction* from, std::string_view rule, PropagationState& s) {
  if (!instr->shape().IsTuple()) return s.Improve(instr, candidate, from, rule, EventKind::kForward);
  const Shape& sub_shape = instr->shape().tuple_shape(index);
  std::optional<Sharding> existing;
  if (instr->has_sharding()) existing = instr->sharding()->GetSubSharding(instr->shape(), {&index, 1});
  Improvement imp = Improve(candidate, existing ? &*existing : nullptr, sub_shape, s.may_combine(),
                            /*allow_aggressive=*/false);
  if (!imp.result) {
    s.Reject(instr, candidate, from, rule, EventKind::kForward, imp.why_not);
    return false;
  }
  Sharding whole = instr->has_sharding() ? *instr->sharding()
                                         : Sharding::Single(instr->shape(), Sharding::Replicate());
  std::vector<Sharding> leaves = whole.tuple_elements();
  leaves[index] = *imp.result;
  s.Set(instr, Sharding::Tuple(std::move(leaves)), from, rule, EventKind::kForward);
  return true;
}

// ---- dot / convolution ---------------------------------------------------------------------

// Operand `k` (0: lhs, 1: rhs) of a dot-family instruction.
const Instruction* DotSide(const Instruction& dot, int k) { return dot.operand(k == 0 ? 0 : DotRhsOperand(dot)); }

// The result sharding implied by operand `k` of a dot-like instruction.
Sharding DotResultFromOperand(const Instruction& dot, const DotDims& d, int k) {
  const Sharding& os = *DotSide(dot, k)->sharding();
  if (os.IsTileMaximal()) return os;
  std::vector<int64_t> src, dst;
  auto add = [&](const std::vector<DotDim>& dims) {
    for (const DotDim& x : dims) {
      int64_t own = k == 0 ? x.lhs : x.rhs;
      if (own >= 0 && x.output >= 0) {
        src.push_back(own);
        dst.push_back(x.output);
      }
    }
  };
  add(d.batch);
  add(k == 0 ? d.lhs_non_contracting : d.rhs_non_contracting);
  return MapShardingDims(os, src, dst, dot.shape().rank());
}

// Follows a chain of single users to the first sharded instruction and returns the sharding it
// implies for `instr` (guidance when a dot's two operands disagree).
std::optional<Sharding> LookaheadUserSharding(const Instruction& instr) {
  if (instr.user_count() != 1) return std::nullopt;
  std::vector<const Instruction*> chain = {&instr, instr.users()[0]};
  while (!chain.back()->has_sharding()) {
    if (chain.back()->user_count() != 1) return std::nullopt;
    chain.push_back(chain.back()->users()[0]);
  }
  std::optional<Sharding> s = *chain.back()->sharding();
  for (size_t i = chain.size() - 1; i >= 1 && s; --i) {
    s = ShardingFromUserWith(*chain[i - 1], *chain[i], *s, /*aggressiveness=*/1 << 30);
  }
  return s;
}

// The dot rule, for every member of the dot family (dot_dims.h: a ragged-dot's ragged and group
// dims and a scaled-dot's scales carry nothing to the result).
bool InferDot(Instruction* instr, const DotDims& d, PropagationState& s) {
  const std::string names[2] = {fmt::format("{}(lhs)", OpcodeName(instr->opcode())),
                                fmt::format("{}(rhs)", OpcodeName(instr->opcode()))};
  std::optional<Sharding> from[2];
  for (int k = 0; k < 2; ++k) {
    if (!HasPropagatable(DotSide(*instr, k))) continue;
    Sharding cand = DotResultFromOperand(*instr, d, k);
    Improvement imp = Improve(cand, instr->sharding(), instr->shape(), s.may_combine(), false);
    if (imp.result) from[k] = *imp.result;
    else s.Reject(instr, cand, DotSide(*instr, k), names[k], EventKind::kForward, imp.why_not);
  }
  if (!from[0] && !from[1]) return false;
  if (!from[1] || !from[0]) {
    int k = from[0] ? 0 : 1;
    s.Set(instr, *from[k], DotSide(*instr, k), names[k], EventKind::kForward);
    return true;
  }
  int first = 0;
  bool decided = false;
  if (std::optional<Sharding> ahead = LookaheadUserSharding(*instr)) {
    bool sub0 = IsSubTilingOrEqualSharding(instr->shape(), *ahead, *from[0]);
    bool sub1 = IsSubTilingOrEqualSharding(instr->shape(), *ahead, *from[1]);
    if (sub0 != sub1) {
      first = sub0 ? 0 : 1;
      decided = true;
    }
  }
  if (!decided && DotSide(*instr, 0)->shape().byte_size() < DotSide(*instr, 1)->shape().byte_size())
    first = 1;
  s.Set(instr, *from[first], DotSide(*instr, first), names[first], EventKind::kForward);
  s.Improve(instr, *from[1 - first], DotSide(*instr, 1 - first), names[1 - first], EventKind::kForward);
  return true;
}

// A convolution kernel is "small" when it is smaller than the output along every spatial dim.
bool IsConvolutionKernelSmall(const Instruction& conv) {
  const ConvDims* cd = conv.attr<ConvDims>(AttrId::kDimLabels);
  int64_t kernel_prod = 1, output_prod = 1;
  for (size_t i = 0; i < cd->input_spatial.size(); ++i) {
    int64_t k = conv.operand(1)->shape().dim(cd->kernel_spatial[i]);
    int64_t o = conv.shape().dim(cd->output_spatial[i]);
    kernel_prod *= k;
    output_prod *= o;
    if (k >= o && (i < 2 || k > 3 || kernel_prod >= output_prod)) return false;
  }
  return true;
}

int64_t PartitionsOn(const Instruction* i, const std::vector<DotDim>& dims, int side) {
  if (!i->has_sharding() || i->sharding()->IsTileMaximal() || i->sharding()->IsManual()) return 1;
  int64_t p = 1;
  for (const DotDim& d : dims) p *= i->sharding()->NumTilesOnDim(side == 0 ? d.lhs : d.rhs);
  return p;
}

bool InferConvolution(Instruction* instr, PropagationState& s) {
  DotDims d = DotDimsOfConvolution(*instr);
  if (d.conv_spatial.empty() ||
      (PartitionsOn(instr->operand(0), d.conv_spatial, 0) == 1 &&
       PartitionsOn(instr->operand(1), d.conv_spatial, 1) == 1 &&
       instr->int_attr(AttrId::kBatchGroupCount, 1) == 1 &&
       instr->int_attr(AttrId::kFeatureGroupCount, 1) == 1)) {
    return InferDot(instr, d, s);
  }
  const Instruction* lhs = instr->operand(0);
  if (!HasPropagatable(lhs)) return false;
  const Sharding& ls = *lhs->sharding();
  if (ls.IsTileMaximal()) return s.Improve(instr, ls, lhs, "convolution(lhs)", EventKind::kForward);
  const ConvDims* cd = instr->attr<ConvDims>(AttrId::kDimLabels);
  if (IsConvolutionKernelSmall(*instr)) {
    if (ls.NumTilesOnDim(cd->input_feature) > 1) return false;
    std::vector<int64_t> src = {cd->input_batch, cd->input_feature};
    std::vector<int64_t> dst = {cd->output_batch, cd->output_feature};
    for (size_t i = 0; i < cd->input_spatial.size(); ++i) {
      src.push_back(cd->input_spatial[i]);
      dst.push_back(cd->output_spatial[i]);
    }
    return s.Improve(instr, MapShardingDims(ls, src, dst, instr->shape().rank()), lhs,
                     "convolution(small kernel: lhs)", EventKind::kForward);
  }
  // A large kernel (backward-filter style): keep only the batch sharding of lhs.
  const int64_t batch_dim[] = {cd->input_batch};
  return s.Improve(instr, PartiallyReplicateTiledShardingOnAllDimsExcept(ls, batch_dim), lhs,
                   "convolution(lhs batch)", EventKind::kForward);
}

// ---- reduce ----------------------------------------------------------------------------------

bool InferReduce(Instruction* instr, PropagationState& s) {
  int64_t n = instr->operand_count() / 2;
  bool allow = s.SingleNonRootUser(instr);
  bool changed = false;
  const auto& dims = instr->dimensions();
  for (int64_t k = 0; k < n; ++k) {
    const Instruction* op = instr->operand(k);
    if (!HasPropagatable(op)) continue;
    const Sharding& os = *op->sharding();
    if (os.IsManual()) {
      // Only the result element of this input (XLA improves the sub-sharding at {k}); the whole
      // result becomes manual earlier, when it had no tiled sharding yet.
      changed |= instr->shape().IsTuple() ? ImproveElement(instr, k, os, op, "reduce", s)
                                          : s.Improve(instr, os, op, "reduce", EventKind::kForward, allow);
      continue;
    }
    bool reduces_sharded_dim = false;
    if (os.IsTiled())
      for (int64_t d : dims) reduces_sharded_dim |= os.NumTilesOnDim(d) > 1;
    if (!s.is_spmd && reduces_sharded_dim) {
      // Without SPMD a reduction along a sharded dim is not partitioned: replicated.
      changed |= s.Improve(instr, MaybeTuple(*instr, ReplicateAllDataDims(os)), op, "reduce", EventKind::kForward,
                           allow);
      continue;
    }
    Sharding after = os.IsReplicated() ? os : PartiallyReplicateTiledShardingOnDims(os, dims);
    Sharding cand = after.IsReplicated() ? after : RemoveShapeDimensions(after, dims);
    changed |= s.Improve(instr, MaybeTuple(*instr, cand), op, "reduce", EventKind::kForward, allow);
  }
  return changed;
}

// ---- dynamic-slice / dynamic-update-slice -----------------------------------------------------

// The dims along which `sliced` (a DS result or a DUS update) is smaller than `full`.
std::vector<int64_t> SlicedDims(const Shape& sliced, const Shape& full) {
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < sliced.rank(); ++i)
    if (sliced.dim(i) != full.dim(i)) dims.push_back(i);
  return dims;
}

// DS takes its operand's sharding and DUS its update's, with the sliced dims replicated (XLA's
// InferDynamicUpdateSliceShardingFromOperand1: a sharded sliced dim is moved into the replication
// group rather than blocking propagation, at every aggressiveness level); DUS also takes
// operand 0's sharding as is.
bool InferDynamicSlicing(Instruction* instr, PropagationState& s) {
  bool is_ds = instr->opcode() == Opcode::kDynamicSlice;
  const Instruction* operand = instr->operand(is_ds ? 0 : 1);
  bool changed = false;
  if (HasPropagatable(operand)) {
    Sharding cand = PartiallyReplicateTiledShardingOnDims(*operand->sharding(),
                                                          SlicedDims(instr->shape(), operand->shape()));
    changed |= s.Improve(instr, cand, operand, is_ds ? "dynamic-slice" : "dynamic-update-slice(update)",
                         EventKind::kForward, s.SingleNonRootUser(instr));
  }
  if (!is_ds && HasPropagatable(instr->operand(0))) {
    changed |= s.Improve(instr, *instr->operand(0)->sharding(), instr->operand(0),
                         "dynamic-update-slice(base)", EventKind::kForward);
  }
  return changed;
}

// ---- gather / scatter ------------------------------------------------------------------------

// A passthrough candidate that replicates everything is no candidate (XLA returns nullopt).
std::optional<Sharding> NonTrivial(Sharding s) {
  if (s.IsTileMaximal()) return std::nullopt;
  return s;
}

bool InferGather(Instruction* instr, PropagationState& s) {
  GatherDimMap m = GatherDimMapOf(*instr);
  bool changed = false;
  const int64_t rank = instr->shape().rank();
  const Instruction* operand = instr->operand(0);
  const Instruction* indices = instr->operand(1);
  // Operand and indices shardings on parallel dims (operand / indices dim -> output dim).
  auto parallel = [&](const ParallelDims& par, std::string_view what) {
    if (HasPropagatable(operand))
      changed |= s.Improve(instr, MapShardingDims(*operand->sharding(), par.operand, par.result, rank), operand,
                           fmt::format("gather(operand {})", what), EventKind::kForward);
    if (HasPropagatable(indices))
      changed |= s.Improve(instr, MapShardingDims(*indices->sharding(), par.indices, par.result, rank), indices,
                           fmt::format("gather(indices {})", what), EventKind::kForward);
  };
  // XLA's order: explicit batching dims, index passthrough, implicit (iota) parallel dims, then
  // operand passthrough. The order matters: among equally specific candidates the first wins.
  if (std::optional<ParallelDims> explicit_dims =
          GatherParallelDims(*instr, s.computation_map, ParallelKind::kExplicit))
    parallel(*explicit_dims, "batching dims");
  if (HasPropagatable(indices)) {
    changed |= s.Improve(instr, MapShardingDims(*indices->sharding(), m.index_passthrough, m.output_batch, rank),
                         indices, "gather(indices passthrough)", EventKind::kForward);
  }
  if (!s.is_spmd) return changed;  // operand-based rules are SPMD-only in XLA
  std::optional<ParallelDims> par = GatherParallelDims(*instr, s.computation_map, ParallelKind::kImplicit);
  if (par) parallel(*par, "parallel dims");
  if (HasPropagatable(operand) && !operand->sharding()->IsTileMaximal() && !operand->sharding()->IsManual()) {
    Sharding filtered = *operand->sharding();
    if (par)
      filtered = PartiallyReplicateTiledShardingOnDims(filtered, par->operand);
    if (std::optional<Sharding> cand = NonTrivial(MapShardingDims(filtered, m.operand_passthrough, m.output_offset, rank)))
      changed |= s.Improve(instr, *cand, operand, "gather(operand passthrough)", EventKind::kForward);
  }
  return changed;
}

bool InferScatter(Instruction* instr, PropagationState& s) {
  const int64_t n = instr->operand_count() / 2;
  const int64_t rank = instr->operand(0)->shape().rank();
  const Instruction* indices = instr->operand(n);
  bool changed = false;
  if (!s.is_spmd) {
    // XLA without SPMD: a scatter is only ever replicated.
    for (int64_t i = 0; i < n; ++i)
      changed |= ImproveElement(instr, i, Sharding::Replicate(), nullptr, "scatter (not SPMD)", s);
    return changed;
  }
  // Operand i, the indices and update i on parallel dims, into result element i.
  auto parallel = [&](const ParallelDims& par, std::string_view what) {
    for (int64_t i = 0; i < n; ++i) {
      const Instruction* operand = instr->operand(i);
      if (HasPropagatable(operand))
        changed |= ImproveElement(instr, i, MapShardingDims(*operand->sharding(), par.operand, par.operand, rank),
                                  operand, fmt::format("scatter(operand {})", what), s);
    }
    if (HasPropagatable(indices)) {
      Sharding cand = MapShardingDims(*indices->sharding(), par.indices, par.operand, rank);
      for (int64_t i = 0; i < n; ++i)
        changed |= ImproveElement(instr, i, cand, indices, fmt::format("scatter(indices {})", what), s);
    }
    for (int64_t i = 0; i < n; ++i) {
      const Instruction* update = instr->operand(n + 1 + i);
      if (HasPropagatable(update))
        changed |= ImproveElement(instr, i, MapShardingDims(*update->sharding(), par.result, par.operand, rank),
                                  update, fmt::format("scatter(updates {})", what), s);
    }
  };
  if (std::optional<ParallelDims> explicit_dims =
          ScatterParallelDims(*instr, s.computation_map, ParallelKind::kExplicit))
    parallel(*explicit_dims, "batching dims");
  for (int64_t i = 0; i < n; ++i) {
    if (HasPropagatable(instr->operand(i)))
      changed |= ImproveElement(instr, i, *instr->operand(i)->sharding(), instr->operand(i),
                                "scatter(operand)", s);
  }
  bool any_update = false;
  for (int64_t i = 0; i < n; ++i) any_update |= HasPropagatable(instr->operand(n + 1 + i));
  if (!HasPropagatable(indices) && !any_update) return changed;
  if (std::optional<ParallelDims> par = ScatterParallelDims(*instr, s.computation_map, ParallelKind::kImplicit))
    parallel(*par, "parallel dims");
  ScatterDimMap m = ScatterDimMapOf(*instr);
  for (int64_t i = 0; i < n; ++i) {
    const Instruction* update = instr->operand(n + 1 + i);
    if (!HasPropagatable(update)) continue;
    // A replicated (or manual) update is offered as is; a tiled one only when some window dim
    // keeps a partition.
    std::optional<Sharding> cand = *update->sharding();
    if (!cand->IsTileMaximal() && !cand->IsManual())
      cand = NonTrivial(MapShardingDims(*update->sharding(), m.update_window, m.operand_passthrough, rank));
    if (cand) changed |= ImproveElement(instr, i, *cand, update, "scatter(update window passthrough)", s);
  }
  return changed;
}

// ---- tuples and control flow -----------------------------------------------------------------

bool InferTuple(Instruction* instr, PropagationState& s) {
  bool any = false;
  for (const Instruction* op : instr->operands()) any |= HasPropagatable(op);
  if (!any) return false;
  const bool had = instr->has_sharding();
  std::vector<Sharding> leaves =
      had ? instr->sharding()->tuple_elements()
          : std::vector<Sharding>(Sharding::RequiredLeaves(instr->shape()), Sharding::Replicate());
  const Instruction* from = nullptr;
  int64_t index = 0;
  for (const Instruction* op : instr->operands()) {
    int64_t leaves_here = op->shape().IsTuple() ? op->shape().leaf_count() : 1;
    if (op->has_sharding()) {
      for (int64_t j = 0; j < leaves_here && index + j < static_cast<int64_t>(leaves.size()); ++j) {
        // A token-shaped outfeed carries a tuple sharding (operands..., token): its output is the
        // last element.
        Sharding os = op->shape().IsTuple()
                          ? (op->sharding()->IsTuple() ? op->sharding()->tuple_elements()[j] : *op->sharding())
                          : (op->sharding()->IsTuple() && !op->sharding()->tuple_elements().empty()
                                 ? op->sharding()->tuple_elements().back()
                                 : *op->sharding());
        if (!had || IsShardingMoreSpecific(os, leaves[index + j])) {
          leaves[index + j] = os;
          from = op;
        }
      }
    }
    index += leaves_here;
  }
  Sharding result = Sharding::Tuple(std::move(leaves));
  if (had && result == *instr->sharding()) return false;
  s.Set(instr, result, from, "tuple", EventKind::kForward);
  return true;
}

bool InferParameter(Instruction* instr, PropagationState& s) {
  auto it = s.computation_map.find(instr->parent());
  if (it == s.computation_map.end()) return false;
  const Instruction* caller = it->second;
  if (caller->opcode() == Opcode::kConditional) {
    std::vector<Computation*> branches = caller->called_computations();
    for (size_t b = 0; b < branches.size(); ++b) {
      if (branches[b] != instr->parent()) continue;
      const Instruction* arg = caller->operand(b + 1);
      if (!arg->has_sharding()) return false;
      return s.Improve(instr, *arg->sharding(), arg, "conditional branch parameter", EventKind::kForward);
    }
    return false;
  }
  if (caller->opcode() == Opcode::kCall) {
    int64_t k = instr->parameter_number();
    if (k < 0 || k >= caller->operand_count() || !caller->operand(k)->has_sharding()) return false;
    return s.Improve(instr, *caller->operand(k)->sharding(), caller->operand(k), "call parameter",
                     EventKind::kForward);
  }
  return false;
}

bool InferSort(Instruction* instr, PropagationState& s) {
  const Instruction* op = RepresentativeOperand(*instr);
  if (!op || !HasPropagatable(op)) return false;
  const Sharding& os = *op->sharding();
  int64_t sort_dim = instr->dimensions().empty() ? 0 : instr->dimensions()[0];
  if (!os.IsTileMaximal() && !os.IsManual() && os.NumTilesOnDim(sort_dim) != 1) {
    // Sharded along the sort dim: only useful if the partitioner can later move those tiles onto
    // another dim, i.e. one whose size is divisible by its own tiles times the sort dim's tiles
    // (XLA's GetFirstTargetDimToMoveShardingTiles; the other dim may already be sharded).
    bool movable = false;
    const Shape& shape = op->shape();
    const int64_t sort_tiles = os.NumTilesOnDim(sort_dim);
    if (shape.dim(sort_dim) > 1) {
      for (int64_t d = 0; d < shape.rank(); ++d)
        if (d != sort_dim && shape.dim(d) % (sort_tiles * os.NumTilesOnDim(d)) == 0) movable = true;
    }
    if (!movable) return false;
  }
  return s.Improve(instr, MaybeTuple(*instr, os), op, "sort", EventKind::kForward, s.SingleNonRootUser(instr));
}

// A custom call that declares a sharding rule (jax.custom_partitioning): every result from every
// sharded operand through the rule's factors (factor_rule.h), the lattice merging them as it does
// a dot's two candidates.
bool InferByShardingRule(Instruction* instr, const SdyShardingRule& rule, PropagationState& s) {
  const int64_t results = instr->shape().IsTuple() ? instr->shape().tuple_size() : 1;
  bool changed = false;
  for (int64_t k = 0; k < instr->operand_count(); ++k) {
    const Instruction* op = instr->operand(k);
    if (!HasPropagatable(op) || op->sharding()->IsTuple()) continue;
    const RuleTensor from{false, k};
    for (int64_t r = 0; r < results; ++r) {
      Sharding cand = ShardingThroughRule(*instr, rule, from, *op->sharding(), RuleTensor{true, r});
      std::string name = ShardingRuleName(*instr, from);
      changed |= instr->shape().IsTuple() ? ImproveElement(instr, r, cand, op, name, s)
                                          : s.Improve(instr, cand, op, name, EventKind::kForward);
    }
  }
  return changed;
}

bool InferCustomCall(Instruction* instr, PropagationState& s) {
  if (instr->IsCustomCall("ShardBarrierFrom")) return false;  // blocks forward flow
  if (std::optional<SdyShardingRule> rule = DeclaredShardingRule(*instr)) return InferByShardingRule(instr, *rule, s);
  const Instruction* op = RepresentativeOperand(*instr);
  if (!op || !HasPropagatable(op)) return false;
  return s.Improve(instr, *op->sharding(), op, instr->custom_call_target(),
                   EventKind::kForward, s.SingleNonRootUser(instr));
}

}  // namespace

int64_t NonRootUsers(const Instruction& instr) {
  int64_t n = instr.user_count();
  for (const Instruction* u : instr.users())
    if (u->IsRoot()) --n;
  return n;
}

bool PropagationState::SingleNonRootUser(const Instruction* instr) const {
  const int64_t id = instr->unique_id();
  if (id >= 0 && static_cast<size_t>(id) < single_non_root_user.size()) return single_non_root_user[id] != 0;
  return NonRootUsers(*instr) == 1;
}

bool CanPropagateThrough(const Instruction& i, int aggressiveness) {
  if (aggressiveness < 1) {
    switch (i.opcode()) {
      case Opcode::kTranspose: case Opcode::kReshape: case Opcode::kTuple:
      case Opcode::kGetTupleElement: case Opcode::kWhile: case Opcode::kDynamicSlice:
      case Opcode::kDynamicUpdateSlice: case Opcode::kOptimizationBarrier:
      case Opcode::kConcatenate: case Opcode::kCall: case Opcode::kCopy:
        break;
      default:
        if (!IsElementwise(i) && !i.IsCustomCall("Sharding")) return false;
    }
  }
  if (aggressiveness < 2 && i.opcode() == Opcode::kBroadcast) return false;
  return true;
}

bool SupportsSpatialPartitioning(const Instruction& i, const PropagationState& s,
                                 bool allow_to_output, bool allow_to_parameters) {
  const Computation* comp = i.parent();
  bool is_entry_root = comp->IsEntry() && comp->root() == &i;
  if (comp->root() == &i && !s.computation_map.contains(comp) && !(is_entry_root && allow_to_output))
    return false;
  if (IsElementwise(i) && (i.opcode() != Opcode::kRng || s.is_spmd)) return true;
  switch (i.opcode()) {
    case Opcode::kBroadcast: case Opcode::kConcatenate: case Opcode::kConditional:
    case Opcode::kConstant: case Opcode::kConvolution: case Opcode::kOptimizationBarrier:
    case Opcode::kDot: case Opcode::kDynamicSlice: case Opcode::kDynamicUpdateSlice:
    case Opcode::kGather: case Opcode::kGetTupleElement: case Opcode::kInfeed: case Opcode::kIota:
    case Opcode::kPad: case Opcode::kReduceWindow: case Opcode::kReshape: case Opcode::kScatter:
    case Opcode::kSelectAndScatter: case Opcode::kSlice: case Opcode::kSort:
    case Opcode::kTranspose: case Opcode::kTuple: case Opcode::kWhile: case Opcode::kReduce:
    case Opcode::kRngBitGenerator:
      return true;
    case Opcode::kReverse:
      return s.is_spmd;
    case Opcode::kRaggedDot: case Opcode::kScaledDot:
      return DotDimsOfDotFamily(i).has_value();
    case Opcode::kAllReduce: case Opcode::kReduceScatter: case Opcode::kCollectivePermute:
      // Current XLA accepts these with or without a channel id (older versions required none).
      return true;
    case Opcode::kAllGather: case Opcode::kAllToAll:
      // Written in a partial-manual region (shard_map with automatic axes: all_gather /
      // all_to_all over its manual axes), where its value must stay in the region's manual
      // groups; XLA's rule has no such region to keep them in and leaves them alone.
      return i.operand_count() == 1 && i.operand(0)->has_sharding() && HasManualSubgroup(*i.operand(0)->sharding());
    case Opcode::kParameter:
      return allow_to_parameters || s.computation_map.contains(comp);
    case Opcode::kCustomCall:
      return s.is_spmd && (IsPassthroughCustomCall(i) || IsBarrier(i) || DeclaredShardingRule(i).has_value());
    default:
      return false;
  }
}

bool InferFromOperands(Instruction* instr, PropagationState& s) {
  if (!CanPropagateThrough(*instr, s.aggressiveness)) return false;
  // Every forward rule but the parameter's (which reads the caller) needs a sharded operand.
  if (instr->opcode() != Opcode::kParameter &&
      std::none_of(instr->operands().begin(), instr->operands().end(),
                   [](const Instruction* o) { return o->has_sharding(); }))
    return false;
  if (instr->has_sharding() && instr->sharding()->IsManual()) return false;
  // Manual flows forward into anything array-shaped (and correlated tuples).
  const Opcode op = instr->opcode();
  if ((!instr->has_sharding() || instr->sharding()->IsTileMaximal()) &&
      (instr->shape().IsArray() || op == Opcode::kReduce || op == Opcode::kSort ||
       op == Opcode::kReduceWindow || (op == Opcode::kCustomCall && instr->shape().IsTuple()))) {
    for (const Instruction* operand : instr->operands()) {
      if (!operand->has_sharding() || !operand->sharding()->IsManual()) continue;
      if (instr->IsCustomCall("SPMDShardToFullShape")) return false;
      if (s.aggressiveness == 0 && (op == Opcode::kConcatenate || op == Opcode::kDynamicSlice))
        return false;
      s.Set(instr, Sharding::Manual(operand->sharding()->metadata()).NormalizeTupleSharding(instr->shape()),
            operand, "manual", EventKind::kForward);
      return true;
    }
  }
  if (!SupportsSpatialPartitioning(*instr, s, s.allow_to_output, false)) {
    // An op we cannot shard becomes replicated when one of its operands is.
    if (instr->shape().IsTuple() || instr->operand_count() == 0 || instr->IsRoot()) return false;
    for (const Instruction* operand : instr->operands()) {
      if (operand->has_sharding() && operand->sharding()->IsTileMaximal() &&
          !operand->sharding()->UniqueDevice()) {
        // (The side-effect test, which may walk called computations, only when it matters.)
        if (XlaHasSideEffect(*instr, s.is_spmd)) return false;
        return s.Improve(instr, *operand->sharding(), operand, "unsupported op: replicated operand",
                         EventKind::kForward);
      }
    }
    return false;
  }
  const bool allow = s.SingleNonRootUser(instr);
  switch (op) {
    case Opcode::kGetTupleElement: {
      const Instruction* operand = instr->operand(0);
      if (!HasPropagatable(operand)) return false;
      int64_t index = instr->tuple_index();
      Sharding sub = operand->sharding()->GetSubSharding(operand->shape(), {&index, 1});
      if (sub.IsManual()) {
        s.Set(instr, sub, operand, "get-tuple-element", EventKind::kForward);
        return true;
      }
      return s.Improve(instr, sub, operand, "get-tuple-element", EventKind::kForward, allow);
    }
    case Opcode::kTuple:
      return InferTuple(instr, s);
    case Opcode::kReduce:
      return InferReduce(instr, s);
    case Opcode::kBroadcast: {
      if (s.aggressiveness < 3) return false;
      const Instruction* operand = instr->operand(0);
      if (!HasPropagatable(operand) || operand->sharding()->IsReplicated()) return false;
      std::vector<int64_t> src(operand->shape().rank());
      std::iota(src.begin(), src.end(), 0);
      return s.Improve(instr, MapShardingDims(*operand->sharding(), src, instr->dimensions(), instr->shape().rank()),
                       operand, "broadcast", EventKind::kForward, allow);
    }
    case Opcode::kConcatenate: {
      const Instruction* rep = RepresentativeOperand(*instr);
      if (!rep || !HasPropagatable(rep)) return false;
      if (s.aggressiveness == 0) {
        int64_t cdim = instr->dimensions().empty() ? 0 : instr->dimensions()[0];
        for (const Instruction* operand : instr->operands()) {
          // Only the layer-stacking pattern reshape(param|gte) passes at level 0.
          if (!HasPropagatable(operand) || operand->sharding()->NumTiles() <= 1 ||
              operand->opcode() != Opcode::kReshape ||
              (operand->operand(0)->opcode() != Opcode::kParameter &&
               operand->operand(0)->opcode() != Opcode::kGetTupleElement) ||
              operand->sharding()->NumTilesOnDim(cdim) > 1)
            return false;
        }
      }
      return s.Improve(instr, *rep->sharding(), rep, "concatenate", EventKind::kForward, allow);
    }
    case Opcode::kConvolution:
      return InferConvolution(instr, s);
    case Opcode::kTranspose: {
      const Instruction* operand = instr->operand(0);
      if (!HasPropagatable(operand)) return false;
      return s.Improve(instr, TransposeSharding(*operand->sharding(), instr->dimensions()), operand,
                       "transpose", EventKind::kForward, allow);
    }
    case Opcode::kReduceWindow: {
      const Window* w = instr->attr<Window>(AttrId::kWindow);
      if (w) {
        for (const WindowDim& d : w->dims)
          if (d.base_dilation > 1 || d.window_dilation > 1) return false;
      }
      bool changed = false;
      for (int64_t k = 0; k < instr->operand_count() / 2; ++k) {
        const Instruction* operand = instr->operand(k);
        if (!HasPropagatable(operand)) continue;
        changed |= s.Improve(instr, MaybeTuple(*instr, *operand->sharding()), operand, "reduce-window",
                             EventKind::kForward, allow);
      }
      return changed;
    }
    case Opcode::kSelectAndScatter: {
      const Instruction* operand = instr->operand(0);
      if (!HasPropagatable(operand)) return false;
      const Window* w = instr->attr<Window>(AttrId::kWindow);
      if (w) {
        for (const WindowDim& d : w->dims)
          if (d.base_dilation > 1) return false;
      }
      return s.Improve(instr, *operand->sharding(), operand, "select-and-scatter", EventKind::kForward, allow);
    }
    case Opcode::kReshape: {
      const Instruction* operand = instr->operand(0);
      if (!HasPropagatable(operand)) return false;
      return s.Improve(instr, PropagateShardingThroughReshape(operand->shape(), instr->shape(), *operand->sharding()),
                       operand, "reshape", EventKind::kForward, allow);
    }
    case Opcode::kReverse: {
      const Instruction* operand = instr->operand(0);
      if (!HasPropagatable(operand)) return false;
      return s.Improve(instr, ReverseSharding(*operand->sharding(), instr->dimensions()), operand,
                       "reverse", EventKind::kForward, allow);
    }
    case Opcode::kDot:
      return InferDot(instr, DotDimsOfDot(*instr), s);
    case Opcode::kRaggedDot:
    case Opcode::kScaledDot: {
      std::optional<DotDims> d = DotDimsOfDotFamily(*instr);
      return d && InferDot(instr, *d, s);
    }
    case Opcode::kParameter:
      return InferParameter(instr, s);
    case Opcode::kSort:
      return InferSort(instr, s);
    case Opcode::kDynamicSlice:
    case Opcode::kDynamicUpdateSlice:
      return InferDynamicSlicing(instr, s);
    case Opcode::kGather:
      return InferGather(instr, s);
    case Opcode::kScatter:
      return InferScatter(instr, s);
    case Opcode::kWhile: {
      const Instruction* init = instr->operand(0);
      if (!init->has_sharding()) return false;
      Sharding cand = *init->sharding();
      if (instr->has_sharding()) MergeSharding(*instr->sharding(), &cand, s.may_combine());
      return s.Improve(instr, cand, init, "while(init)", EventKind::kForward);
    }
    case Opcode::kCustomCall:
      return InferCustomCall(instr, s);
    case Opcode::kAllGather: case Opcode::kAllToAll: {
      // In a partial-manual region only (SupportsSpatialPartitioning): the operand's sharding,
      // the dims the collective gathers or splits whole within each manual group (the
      // partitioner runs it as written there).
      const Instruction* operand = instr->operand(0);
      if (!HasPropagatable(operand)) return false;
      return s.Improve(instr, PartiallyReplicateTiledShardingOnDims(*operand->sharding(), instr->dimensions()), operand,
                       OpcodeName(op), EventKind::kForward, allow);
    }
    default: {
      if (IsElementwise(*instr) && s.may_combine()) {
        bool changed = false;
        for (const Instruction* operand : instr->operands()) {
          if (!HasPropagatable(operand)) continue;
          if (op == Opcode::kRng) {
            changed |= s.Improve(instr, ReplicateAllDataDims(*operand->sharding(), instr->shape().rank()),
                                 operand, "rng", EventKind::kForward, allow);
            continue;
          }
          changed |= s.Improve(instr, ElementwiseOperandSharding(*instr, *operand), operand, "elementwise",
                               EventKind::kForward, instr->operand_count() == 1 && allow);
        }
        return changed;
      }
      const Instruction* rep = RepresentativeOperand(*instr);
      if (!rep || !HasPropagatable(rep)) return false;
      return s.Improve(instr, IsElementwise(*instr) ? ElementwiseOperandSharding(*instr, *rep) : *rep->sharding(), rep,
                       IsElementwise(*instr) ? std::string_view("elementwise") : OpcodeName(op), EventKind::kForward,
                       allow);
    }
  }
}

}  // namespace spmdc

#include "pipeline/layer_batching.h"

#include <algorithm>
#include <numeric>

#include "absl/container/flat_hash_map.h"
#include "fmt/format.h"
#include "hlo/printer.h"

namespace spmdc::pipeline {
namespace {

// What the analysis knows of one value of the layer.
struct Info {
  int64_t bdim = -1;     // the dim whose major factor is the batch (size B·k), or -1
  bool partial = false;  // a partial sum over the batch (no batch dim)
  bool staged = false;   // depends on a parameter: gets the leading stage dim
};

std::string Dims(const std::vector<int64_t>& v) { return fmt::format("{{{}}}", fmt::join(v, ",")); }

// to_apply is a scalar add (the only reduction that sums over microbatches exactly).
bool IsAddReducer(const Computation* c) {
  if (c == nullptr || c->num_parameters() != 2) return false;
  const Instruction* r = c->root();
  return r->opcode() == Opcode::kAdd &&
         ((r->operand(0) == c->parameter(0) && r->operand(1) == c->parameter(1)) ||
          (r->operand(0) == c->parameter(1) && r->operand(1) == c->parameter(0)));
}

class Batcher {
 public:
  Batcher(const Computation& layer, const LayerBatching& o, Module& module)
      : layer_(layer), o_(o), module_(module) {}

  StatusOr<std::string> Run(const std::string& name, absl::flat_hash_map<std::string, std::string>* names);

 private:
  Status Analyze();
  Status Forward(const Instruction* instr, bool* changed);
  // The user of `instr` needs it batched on `dim` (it meets a batched value of its shape).
  Status Demand(const Instruction* instr, int64_t dim, const Instruction* user);
  Status Unsupported(const Instruction* instr, std::string_view why) const {
    return Unimplemented("pipeline: layer computation {}: %{} ({}): {}", layer_.name(), instr->name(),
                         OpcodeName(instr->opcode()), why);
  }
  std::vector<int64_t> NewDims(const Instruction* instr) const;
  // A partial sum kept per data piece: [S, D, ...] (layer_batching.h).
  bool Pieces(const Instruction* instr) const { return o_.data > 1 && info_.at(instr).partial; }
  // The dims before the original ones: the stage dim, and the data pieces' of a partial sum.
  int64_t Lead(const Instruction* instr) const { return (info_.at(instr).staged ? 1 : 0) + (Pieces(instr) ? 1 : 0); }
  // A value batched on dim `bdim` (original numbering) with its batch split into the data
  // pieces, [.., D, B/(M·D), ..]: the new name and dims.
  std::pair<std::string, std::vector<int64_t>> SplitBatch(const Instruction* op, const std::string& name);
  StatusOr<std::string> ReduceIntoPieces(const Instruction* instr);
  StatusOr<std::string> DotIntoPieces(const Instruction* instr);
  std::string NewShape(const Instruction* instr) const;
  // The operand's name in the new computation, broadcast to the staged shape when `staged` and
  // the operand is not.
  std::string Use(const Instruction* op, bool staged, bool pieces = false);
  std::string Fresh(const std::string& hint) { return module_.UniqueName(hint + ".stg"); }
  StatusOr<std::string> EmitInstruction(const Instruction* instr);

  const Computation& layer_;
  const LayerBatching& o_;
  Module& module_;
  absl::flat_hash_map<const Instruction*, Info> info_;
  absl::flat_hash_map<const Instruction*, std::string> names_, staged_copies_, piece_copies_;
  std::string body_;
};

std::vector<int64_t> Batcher::NewDims(const Instruction* instr) const {
  const Info& in = info_.at(instr);
  std::vector<int64_t> dims = instr->shape().dims();
  if (in.bdim >= 0) dims[in.bdim] /= o_.microbatches;
  if (Pieces(instr)) dims.insert(dims.begin(), o_.data);
  if (in.staged) dims.insert(dims.begin(), o_.stages);
  return dims;
}

std::string Batcher::NewShape(const Instruction* instr) const {
  if (instr->shape().IsTuple()) {
    std::vector<std::string> parts;
    for (const Instruction* op : instr->operands()) parts.push_back(NewShape(op));
    return fmt::format("({})", fmt::join(parts, ", "));
  }
  return Shape(instr->shape().dtype(), NewDims(instr)).ToString(false);
}

Status Batcher::Demand(const Instruction* instr, int64_t dim, const Instruction* user) {
  Info& in = info_[instr];
  if (in.bdim == dim) return absl::OkStatus();
  if (in.bdim >= 0 || in.partial)
    return Unsupported(user, fmt::format("operand %{} has its batch on another dim", instr->name()));
  if (instr->shape().dim(dim) % o_.batch != 0)
    return Unsupported(user, fmt::format("operand %{} meets the batch on dim {} of size {}, not a multiple of {}",
                                         instr->name(), dim, instr->shape().dim(dim), o_.batch));
  switch (instr->opcode()) {
    case Opcode::kBroadcast: {
      const std::vector<int64_t>& d = instr->dimensions();
      if (std::find(d.begin(), d.end(), dim) != d.end())
        return Unsupported(user, fmt::format("operand %{} broadcasts an unbatched value along the batch", instr->name()));
      in.bdim = dim;
      return absl::OkStatus();
    }
    case Opcode::kIota:
      if (instr->int_attr(AttrId::kIotaDimension) == dim)
        return Unsupported(user, fmt::format("operand %{} counts along the batch", instr->name()));
      in.bdim = dim;
      return absl::OkStatus();
    default:
      if (IsElementwiseOpcode(instr->opcode()) && instr->opcode() != Opcode::kConstant) {
        in.bdim = dim;
        for (const Instruction* op : instr->operands()) RETURN_IF_ERROR(Demand(op, dim, instr));
        return absl::OkStatus();
      }
      return Unsupported(user, fmt::format("operand %{} has a batch-sized dim {} that is not traced to the layer's input",
                                           instr->name(), dim));
  }
}

Status Batcher::Forward(const Instruction* instr, bool* changed) {
  Info before = info_[instr];
  Info out = before;
  std::vector<const Info*> ops;
  for (const Instruction* op : instr->operands()) ops.push_back(&info_[op]);
  for (const Info* i : ops) out.staged |= i->staged;
  auto set_bdim = [&](int64_t d) -> Status {
    if (out.bdim >= 0 && out.bdim != d) return Unsupported(instr, "its batch dim is ambiguous");
    out.bdim = d;
    return absl::OkStatus();
  };
  const Opcode opc = instr->opcode();
  bool any_partial = false;
  for (const Info* i : ops) any_partial |= i->partial;
  switch (opc) {
    case Opcode::kParameter:
      out.staged = o_.stages > 0;  // 0: no stage dim (one stage's microbatch, for planning)
      if (o_.batched_params[instr->parameter_number()]) {
        if (instr->shape().rank() == 0 || instr->shape().dim(0) != o_.batch)
          return Unsupported(instr, fmt::format("dim 0 is not the batch of {}", o_.batch));
        RETURN_IF_ERROR(set_bdim(0));
      }
      break;
    case Opcode::kConstant:
      if (instr->shape().rank() > 0 && out.bdim >= 0) return Unsupported(instr, "a constant along the batch");
      break;
    case Opcode::kIota:
      break;
    case Opcode::kBroadcast:
      if (ops[0]->partial) out.partial = true;
      if (ops[0]->bdim >= 0) RETURN_IF_ERROR(set_bdim(instr->dimensions()[ops[0]->bdim]));
      break;
    case Opcode::kTranspose: {
      out.partial = ops[0]->partial;
      if (ops[0]->bdim >= 0) {
        const std::vector<int64_t>& perm = instr->dimensions();
        RETURN_IF_ERROR(set_bdim(std::find(perm.begin(), perm.end(), ops[0]->bdim) - perm.begin()));
      }
      break;
    }
    case Opcode::kReshape: {
      out.partial = ops[0]->partial;
      if (ops[0]->bdim >= 0) {
        // The batch is the major factor of its dim: the output dim with the same element count
        // before it, whose size the batch divides, carries it.
        const std::vector<int64_t>& in = instr->operand(0)->shape().dims();
        const std::vector<int64_t>& res = instr->shape().dims();
        int64_t before_in = 1;
        for (int64_t d = 0; d < ops[0]->bdim; ++d) before_in *= in[d];
        int64_t before_out = 1, found = -1;
        for (int64_t d = 0; d < static_cast<int64_t>(res.size()); ++d) {
          if (before_out == before_in && res[d] % o_.batch == 0) {
            found = d;
            break;
          }
          before_out *= res[d];
        }
        if (found < 0) return Unsupported(instr, "the reshape splits the batch");
        RETURN_IF_ERROR(set_bdim(found));
      }
      break;
    }
    case Opcode::kSlice: {
      out.partial = ops[0]->partial;
      if (ops[0]->bdim >= 0) {
        const SliceSpec* s = instr->attr<SliceSpec>(AttrId::kSlice);
        const int64_t d = ops[0]->bdim;
        if (s == nullptr || s->starts[d] != 0 || s->limits[d] != instr->operand(0)->shape().dim(d) ||
            s->strides[d] != 1)
          return Unsupported(instr, "it slices the batch");
        RETURN_IF_ERROR(set_bdim(d));
      }
      break;
    }
    case Opcode::kConcatenate: {
      const int64_t cd = instr->dimensions()[0];
      int64_t partials = 0;
      for (const Info* i : ops) {
        partials += i->partial;
        if (i->bdim == cd) return Unsupported(instr, "it concatenates along the batch");
        if (i->bdim >= 0) RETURN_IF_ERROR(set_bdim(i->bdim));
      }
      if (partials > 0 && partials != static_cast<int64_t>(ops.size()))
        return Unsupported(instr, "it joins partial sums over the batch with other values");
      out.partial = partials > 0;
      break;
    }
    case Opcode::kDot: {
      const auto& lb = instr->ints_attr(AttrId::kLhsBatchDims);
      const auto& rb = instr->ints_attr(AttrId::kRhsBatchDims);
      const auto& lc = instr->ints_attr(AttrId::kLhsContractingDims);
      const auto& rc = instr->ints_attr(AttrId::kRhsContractingDims);
      const Info& l = *ops[0];
      const Info& r = *ops[1];
      if (l.partial || r.partial) {
        if ((l.partial && (r.partial || r.bdim >= 0)) || (r.partial && l.bdim >= 0))
          return Unsupported(instr, "it multiplies a partial sum over the batch by a batched value");
        out.partial = true;
        break;
      }
      auto pos = [](const std::vector<int64_t>& v, int64_t d) {
        auto it = std::find(v.begin(), v.end(), d);
        return it == v.end() ? int64_t{-1} : static_cast<int64_t>(it - v.begin());
      };
      auto free_index = [&](int64_t rank, const std::vector<int64_t>& b, const std::vector<int64_t>& c, int64_t d) {
        int64_t k = 0;
        for (int64_t i = 0; i < d; ++i) k += pos(b, i) < 0 && pos(c, i) < 0;
        return k;
      };
      const int64_t lrank = instr->operand(0)->shape().rank();
      const int64_t lfree = lrank - static_cast<int64_t>(lb.size() + lc.size());
      if (l.bdim >= 0 && pos(lb, l.bdim) >= 0) {
        if (r.bdim != rb[pos(lb, l.bdim)]) return Unsupported(instr, "only one side of a batch dim is batched");
        RETURN_IF_ERROR(set_bdim(pos(lb, l.bdim)));
      } else if (l.bdim >= 0 && pos(lc, l.bdim) >= 0) {
        if (r.bdim != rc[pos(lc, l.bdim)]) return Unsupported(instr, "it contracts the batch against an unbatched dim");
        out.partial = true;
      } else if (l.bdim >= 0) {
        if (r.bdim >= 0) return Unsupported(instr, "both operands are batched on free dims");
        RETURN_IF_ERROR(set_bdim(static_cast<int64_t>(lb.size()) + free_index(lrank, lb, lc, l.bdim)));
      } else if (r.bdim >= 0) {
        if (pos(rb, r.bdim) >= 0 || pos(rc, r.bdim) >= 0)
          return Unsupported(instr, "only one side of a batch or contracting dim is batched");
        RETURN_IF_ERROR(set_bdim(static_cast<int64_t>(lb.size()) + lfree +
                                 free_index(instr->operand(1)->shape().rank(), rb, rc, r.bdim)));
      }
      break;
    }
    case Opcode::kReduce: {
      if (instr->operand_count() != 2) return Unsupported(instr, "a variadic reduce");
      if (ops[1]->staged || ops[1]->bdim >= 0) return Unsupported(instr, "its init value depends on the layer's inputs");
      const std::vector<int64_t>& rd = instr->dimensions();
      const Info& x = *ops[0];
      if (x.partial || (x.bdim >= 0 && std::find(rd.begin(), rd.end(), x.bdim) != rd.end())) {
        if (!IsAddReducer(instr->to_apply()))
          return Unsupported(instr, "it reduces over the batch with something other than a sum");
        out.partial = true;
      } else if (x.bdim >= 0) {
        int64_t below = 0;
        for (int64_t d : rd) below += d < x.bdim;
        RETURN_IF_ERROR(set_bdim(x.bdim - below));
      }
      break;
    }
    case Opcode::kTuple:
      if (instr != layer_.root()) return Unsupported(instr, "a tuple inside the layer");
      break;
    case Opcode::kCustomCall:
      // A sharding constraint is the identity.
      if (!instr->IsCustomCall("Sharding") || instr->operand_count() != 1)
        return Unsupported(instr, "the custom call is not supported in a pipelined layer");
      out.partial = ops[0]->partial;
      if (ops[0]->bdim >= 0) RETURN_IF_ERROR(set_bdim(ops[0]->bdim));
      break;
    default: {
      if (!IsElementwiseOpcode(opc)) return Unsupported(instr, "the opcode is not supported in a pipelined layer");
      if (any_partial) {
        // Linear uses of a partial sum: sums of partial sums, scaling by an unbatched value.
        const bool all_partial = std::all_of(ops.begin(), ops.end(), [](const Info* i) { return i->partial; });
        bool ok = false;
        if (opc == Opcode::kAdd || opc == Opcode::kSubtract) ok = all_partial;
        if (opc == Opcode::kNegate || opc == Opcode::kConvert) ok = true;
        if (opc == Opcode::kMultiply) ok = (ops[0]->partial != ops[1]->partial) && ops[0]->bdim < 0 && ops[1]->bdim < 0;
        if (opc == Opcode::kDivide) ok = ops[0]->partial && !ops[1]->partial && ops[1]->bdim < 0;
        if (!ok) return Unsupported(instr, "it combines a sum over the batch with other values (the layer mixes examples: microbatches would change its result)");
        out.partial = true;
        break;
      }
      for (const Info* i : ops)
        if (i->bdim >= 0) RETURN_IF_ERROR(set_bdim(i->bdim));
      if (out.bdim >= 0)
        for (const Instruction* op : instr->operands())
          if (op->shape().rank() > 0) RETURN_IF_ERROR(Demand(op, out.bdim, instr));
      break;
    }
  }
  *changed |= out.bdim != before.bdim || out.partial != before.partial || out.staged != before.staged;
  info_[instr] = out;
  return absl::OkStatus();
}

Status Batcher::Analyze() {
  const std::vector<Instruction*> order = layer_.MakeInstructionPostOrder();
  // Demands set batch dims on instructions already visited; their users see them on the next
  // sweep. Every change sets a field that was unset, so this ends.
  for (int sweep = 0;; ++sweep) {
    bool changed = false;
    for (const Instruction* i : order) RETURN_IF_ERROR(Forward(i, &changed));
    if (!changed) break;
    if (sweep > static_cast<int>(order.size()) + 2) return Internal("pipeline: batch dim analysis did not settle");
  }
  const Instruction* root = layer_.root();
  auto check_activation = [&](const Instruction* v) -> Status {
    const Info& in = info_.at(v);
    if (in.bdim != 0 || in.partial) return Unsupported(v, "the layer's output activation is not batched on dim 0");
    return absl::OkStatus();
  };
  if (!o_.tuple_root) return check_activation(root);
  if (root->opcode() != Opcode::kTuple || root->operand_count() < 1)
    return Unsupported(root, "a backward layer returns a tuple (dx, weight gradients...)");
  RETURN_IF_ERROR(check_activation(root->operand(0)));
  for (int64_t k = 1; k < root->operand_count(); ++k)
    if (!info_.at(root->operand(k)).partial)
      return Unsupported(root->operand(k), fmt::format("weight gradient {} is not a sum over the batch", k - 1));
  return absl::OkStatus();
}

std::string Batcher::Use(const Instruction* op, bool staged, bool pieces) {
  const std::string& name = names_.at(op);
  const bool add_stage = staged && !info_.at(op).staged, add_pieces = pieces && !Pieces(op);
  if (!add_stage && !add_pieces) return name;
  auto& copies = add_pieces ? piece_copies_ : staged_copies_;
  auto it = copies.find(op);
  if (it != copies.end()) return it->second;
  // The operand's dims keep their order after the leading ones the use adds.
  std::vector<int64_t> dims = NewDims(op);
  const int64_t had = Lead(op);
  std::vector<int64_t> map;
  if (info_.at(op).staged) map.push_back(0);
  const int64_t lead = (staged ? 1 : 0) + (pieces ? 1 : 0);
  for (int64_t d = had; d < static_cast<int64_t>(dims.size()); ++d) map.push_back(lead + d - had);
  std::vector<int64_t> out(dims.begin() + had, dims.end());
  if (pieces) out.insert(out.begin(), o_.data);
  if (staged) out.insert(out.begin(), o_.stages);
  const std::string copy = Fresh(op->name());
  body_ += fmt::format("  {} = {} broadcast({}), dimensions={}\n", copy, Shape(op->shape().dtype(), out).ToString(false),
                       name, Dims(map));
  copies[op] = copy;
  return copy;
}

std::pair<std::string, std::vector<int64_t>> Batcher::SplitBatch(const Instruction* op, const std::string& name) {
  std::vector<int64_t> dims = NewDims(op);
  const int64_t at = info_.at(op).bdim + (info_.at(op).staged ? 1 : 0);
  const int64_t rest = dims[at] / o_.data;
  dims[at] = o_.data;
  dims.insert(dims.begin() + at + 1, rest);
  const std::string split = Fresh(op->name());
  body_ += fmt::format("  {} = {} reshape({})\n", split, Shape(op->shape().dtype(), dims).ToString(false), name);
  return {split, dims};
}

StatusOr<std::string> Batcher::ReduceIntoPieces(const Instruction* instr) {
  const Instruction* x = instr->operand(0);
  const bool s = info_.at(instr).staged;
  const int64_t shift = s ? 1 : 0, b = info_.at(x).bdim;
  auto [split, dims] = SplitBatch(x, Use(x, s));
  // The reduced dims in the split numbering (the batch's own part after the pieces).
  std::vector<int64_t> rd;
  for (int64_t d : instr->dimensions()) rd.push_back(d == b ? b + shift + 1 : d + shift + (d > b ? 1 : 0));
  std::sort(rd.begin(), rd.end());
  std::vector<int64_t> kept;
  int64_t pieces_at = -1;
  for (int64_t d = 0; d < static_cast<int64_t>(dims.size()); ++d) {
    if (std::find(rd.begin(), rd.end(), d) != rd.end()) continue;
    if (d == b + shift) pieces_at = static_cast<int64_t>(kept.size());
    kept.push_back(dims[d]);
  }
  const DType t = instr->shape().dtype();
  std::string r = fmt::format("{} reduce({}, {}), dimensions={}, to_apply={}", Shape(t, kept).ToString(false), split,
                              names_.at(instr->operand(1)), Dims(rd), instr->to_apply()->name());
  if (pieces_at == shift) return r;
  // Move the pieces' dim next to the stage dim.
  const std::string reduced = Fresh(instr->name());
  body_ += fmt::format("  {} = {}\n", reduced, r);
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < shift; ++d) perm.push_back(d);
  perm.push_back(pieces_at);
  for (int64_t d = shift; d < static_cast<int64_t>(kept.size()); ++d)
    if (d != pieces_at) perm.push_back(d);
  return fmt::format("{} transpose({}), dimensions={}", NewShape(instr), reduced, Dims(perm));
}

StatusOr<std::string> Batcher::DotIntoPieces(const Instruction* instr) {
  // Both operands are batched (so staged) on contracting dims: the pieces become a batch dim of
  // the dot, right after the stage's, which puts them where a partial sum keeps them.
  std::string attrs;
  std::string names[2];
  const AttrId batch_ids[2] = {AttrId::kLhsBatchDims, AttrId::kRhsBatchDims};
  const AttrId contract_ids[2] = {AttrId::kLhsContractingDims, AttrId::kRhsContractingDims};
  std::string batch_attr[2], contract_attr[2];
  for (int side = 0; side < 2; ++side) {
    const Instruction* op = instr->operand(side);
    const int64_t b = info_.at(op).bdim;
    names[side] = SplitBatch(op, Use(op, true)).first;
    auto map = [&](int64_t d) { return d == b ? b + 2 : d + 1 + (d > b ? 1 : 0); };
    std::vector<int64_t> batch = {0, b + 1}, contract;
    for (int64_t d : instr->ints_attr(batch_ids[side])) batch.push_back(map(d));
    for (int64_t d : instr->ints_attr(contract_ids[side])) contract.push_back(map(d));
    batch_attr[side] = Dims(batch);
    contract_attr[side] = Dims(contract);
  }
  return fmt::format("{} dot({}, {}), lhs_batch_dims={}, lhs_contracting_dims={}, rhs_batch_dims={}, "
                     "rhs_contracting_dims={}",
                     NewShape(instr), names[0], names[1], batch_attr[0], contract_attr[0], batch_attr[1],
                     contract_attr[1]);
}

StatusOr<std::string> Batcher::EmitInstruction(const Instruction* instr) {
  const Info& in = info_.at(instr);
  const bool s = in.staged;
  const bool pieces = Pieces(instr);
  // Partial sums per data piece: made by a reduce or dot over the batch, then carried with
  // their leading dims by the linear ops that use them.
  if (pieces && instr->opcode() == Opcode::kReduce && !info_.at(instr->operand(0)).partial) return ReduceIntoPieces(instr);
  if (pieces && instr->opcode() == Opcode::kDot) {
    if (info_.at(instr->operand(0)).partial || info_.at(instr->operand(1)).partial)
      return absl::FailedPreconditionError(
          fmt::format("pipeline: %{} multiplies a partial sum: kept summed over the data devices", instr->name()));
    return DotIntoPieces(instr);
  }
  const int64_t shift = Lead(instr);
  std::vector<std::string> ops;
  for (const Instruction* op : instr->operands()) {
    // A scalar operand of an elementwise op on arrays (clamp's bounds): unstaged it stays a
    // scalar; staged ([S]) it is spread over the result's other dims.
    if (IsElementwiseOpcode(instr->opcode()) && op->shape().rank() == 0 && instr->shape().rank() > 0) {
      if (!info_.at(op).staged) {
        ops.push_back(names_.at(op));
      } else {
        const std::string spread = Fresh(op->name());
        body_ += fmt::format("  {} = {} broadcast({}), dimensions={{0}}\n", spread,
                             Shape(op->shape().dtype(), NewDims(instr)).ToString(false), names_.at(op));
        ops.push_back(spread);
      }
      continue;
    }
    ops.push_back(Use(op, s, pieces));
  }
  const std::string head = fmt::format("{} {}({})", NewShape(instr), OpcodeName(instr->opcode()), fmt::join(ops, ", "));
  // `v` in the new numbering; `lead`: with the leading dims (stage, pieces) first.
  auto shifted = [&](const std::vector<int64_t>& v, bool lead) {
    std::vector<int64_t> r;
    if (lead)
      for (int64_t d = 0; d < shift; ++d) r.push_back(d);
    for (int64_t d : v) r.push_back(d + shift);
    return Dims(r);
  };
  switch (instr->opcode()) {
    case Opcode::kParameter:
      return fmt::format("{} parameter({})", NewShape(instr), instr->parameter_number());
    case Opcode::kConstant:
    case Opcode::kIota:
      if (instr->opcode() == Opcode::kIota)
        return fmt::format("{} iota(), iota_dimension={}", NewShape(instr), instr->int_attr(AttrId::kIotaDimension));
      {
        // The literal text as printed (scalar constants; non-scalar ones are never batched).
        std::string line = PrintInstruction(*instr, PrintOptions{.print_metadata = false, .print_shardings = false});
        return line.substr(line.find(" = ") + 3);
      }
    case Opcode::kBroadcast: {
      std::vector<int64_t> d = instr->dimensions();
      if (Lead(instr->operand(0)) > 0) return fmt::format("{}, dimensions={}", head, shifted(d, true));
      return fmt::format("{}, dimensions={}", head, shifted(d, false));
    }
    case Opcode::kTranspose:
      return fmt::format("{}, dimensions={}", head, shifted(instr->dimensions(), true));
    case Opcode::kReshape:
    case Opcode::kTuple:
      return head;
    case Opcode::kCustomCall:
      // A partial sum per data piece is not the value the constraint is for: a copy.
      if (pieces) return fmt::format("{} copy({})", NewShape(instr), ops[0]);
      return fmt::format("{}, custom_call_target=\"Sharding\"", head);
    case Opcode::kSlice: {
      const SliceSpec& spec = *instr->attr<SliceSpec>(AttrId::kSlice);
      std::vector<std::string> parts;
      if (s) parts.push_back(fmt::format("[0:{}]", o_.stages));
      if (pieces) parts.push_back(fmt::format("[0:{}]", o_.data));
      const int64_t bd = info_.at(instr->operand(0)).bdim;
      for (size_t d = 0; d < spec.starts.size(); ++d) {
        int64_t limit = static_cast<int64_t>(d) == bd ? spec.limits[d] / o_.microbatches : spec.limits[d];
        parts.push_back(fmt::format("[{}:{}:{}]", spec.starts[d], limit, spec.strides[d]));
      }
      return fmt::format("{}, slice={{{}}}", head, fmt::join(parts, ", "));
    }
    case Opcode::kConcatenate:
      return fmt::format("{}, dimensions={{{}}}", head, instr->dimensions()[0] + shift);
    case Opcode::kDot: {
      auto get = [&](AttrId id) { return instr->ints_attr(id); };
      std::string attrs;
      auto add = [&](const char* n, const std::vector<int64_t>& v, bool lead) {
        if (v.empty() && !(lead && s)) return;
        attrs += fmt::format(", {}={}", n, shifted(v, lead));
      };
      add("lhs_batch_dims", get(AttrId::kLhsBatchDims), true);
      add("lhs_contracting_dims", get(AttrId::kLhsContractingDims), false);
      add("rhs_batch_dims", get(AttrId::kRhsBatchDims), true);
      add("rhs_contracting_dims", get(AttrId::kRhsContractingDims), false);
      return head + attrs;
    }
    case Opcode::kReduce: {
      // The init value is an unstaged scalar: use it as it is.
      const std::string x = Use(instr->operand(0), s, pieces);
      return fmt::format("{} reduce({}, {}), dimensions={}, to_apply={}", NewShape(instr), x,
                         names_.at(instr->operand(1)), shifted(instr->dimensions(), false), instr->to_apply()->name());
    }
    default: {
      // Elementwise: the original attributes (compare's direction and type) follow the operands.
      std::string line = PrintInstruction(*instr, PrintOptions{.print_metadata = false, .print_shardings = false});
      const size_t open = line.find('(', line.find(" = ") + 3);
      const size_t close = line.find(')', open);
      return head + line.substr(close + 1);
    }
  }
}

StatusOr<std::string> Batcher::Run(const std::string& name, absl::flat_hash_map<std::string, std::string>* names) {
  if (static_cast<int64_t>(o_.batched_params.size()) != layer_.num_parameters())
    return Internal("pipeline: {} batched-parameter flags for {} parameters", o_.batched_params.size(),
                    layer_.num_parameters());
  RETURN_IF_ERROR(Analyze());
  for (const Instruction* i : layer_.MakeInstructionPostOrder()) {
    names_[i] = Fresh(i->name());
    ASSIGN_OR_RETURN(std::string rhs, EmitInstruction(i));
    if (i->has_sharding() && i->shape().IsArray() && !Pieces(i) && o_.stages > 0) {
      const Info& in = info_.at(i);
      std::optional<Sharding> s =
          StageSharding(*i->sharding(), i->shape().rank(), o_.source_devices, o_.stages, in.staged ? 1 : 0, in.staged);
      if (s) rhs += ", sharding=" + s->ToString(false);
    }
    body_ += fmt::format("  {}{} = {}\n", i == layer_.root() ? "ROOT " : "", names_[i], rhs);
  }
  if (names != nullptr)
    for (const auto& [i, n] : names_) (*names)[i->name()] = n;
  return fmt::format("{} {{\n{}}}\n", name, body_);
}

}  // namespace

std::optional<Sharding> StageSharding(const Sharding& source, int64_t rank, int64_t source_devices, int64_t stages,
                                      int64_t lead, bool staged) {
  const int64_t n = source_devices;
  std::vector<int64_t> dims(staged ? 1 : 0, stages);
  dims.resize(lead, 1);
  std::vector<int64_t> devices;
  if (source.IsReplicated()) {
    if (!staged || stages == 1) return source;
    dims.resize(lead + rank, 1);
    if (n > 1) dims.push_back(n);
    for (int64_t s = 0; s < stages; ++s)
      for (int64_t d = 0; d < n; ++d) devices.push_back(PipelinedDevice(d, s, n));
    TileAssignment tiles = TileAssignment::FromDevices(std::move(dims), std::move(devices));
    return n > 1 ? Sharding::PartialTile(std::move(tiles)) : Sharding::Tile(std::move(tiles));
  }
  if (!source.IsTiled() || source.IsManualSubgroup() ||
      !(source.subgroup_types().empty() || source.ReplicateOnLastTileDim()) ||
      source.tile_assignment().num_elements() != n)
    return std::nullopt;
  const TileAssignment& ta = source.tile_assignment();
  dims.insert(dims.end(), ta.dims().begin(), ta.dims().end());
  bool replicated = source.ReplicateOnLastTileDim();
  if (staged) {
    for (int64_t s = 0; s < stages; ++s)
      for (int64_t i = 0; i < ta.num_elements(); ++i) devices.push_back(PipelinedDevice(ta.At(i), s, n));
  } else {
    // Each tile's devices at every stage, the stages innermost in the replication dim.
    if (replicated)
      dims.back() *= stages;
    else
      dims.push_back(stages);
    replicated = true;
    for (int64_t i = 0; i < ta.num_elements(); ++i)
      for (int64_t s = 0; s < stages; ++s) devices.push_back(PipelinedDevice(ta.At(i), s, n));
  }
  TileAssignment tiles = TileAssignment::FromDevices(std::move(dims), std::move(devices));
  return replicated ? Sharding::PartialTile(std::move(tiles)) : Sharding::Tile(std::move(tiles));
}

StatusOr<std::string> EmitStagedLayer(const Computation& layer, const LayerBatching& options,
                                      const std::string& name, Module& module,
                                      absl::flat_hash_map<std::string, std::string>* names) {
  return Batcher(layer, options, module).Run(name, names);
}

}  // namespace spmdc::pipeline

#include "partitioner/builder.h"

#include <numeric>

#include "fmt/format.h"
#include "ir/shape_inference.h"
#include "support/check.h"

namespace spmdc {

namespace {

// Ops whose result element type is declared rather than implied by the operands. Shape
// inference reads it from the instruction's own shape, which a fresh instruction does not have
// yet (the default shape is f32[]): inferring one of these would silently produce f32.
bool DeclaresResultType(Opcode opcode) {
  switch (opcode) {
    case Opcode::kDot: case Opcode::kConvolution: case Opcode::kStochasticConvert: case Opcode::kRng:
    case Opcode::kRngBitGenerator: case Opcode::kCustomCall:
      return true;
    default:
      return false;
  }
}

}  // namespace

Instruction* SpmdBuilder::Add(Opcode opcode, const std::vector<Instruction*>& operands, Attributes attrs,
                              const Shape* shape, std::string_view name_hint) {
  SPMDC_CHECK_MSG(shape || !DeclaresResultType(opcode),
                  fmt::format("partitioner bug: the result type of a {} must be stated", OpcodeName(opcode)).c_str());
  return AddImpl(opcode, operands, std::move(attrs), shape, std::nullopt, name_hint);
}

Instruction* SpmdBuilder::AddWithType(Opcode opcode, const std::vector<Instruction*>& operands, Attributes attrs,
                                      DType type, std::string_view name_hint) {
  return AddImpl(opcode, operands, std::move(attrs), nullptr, type, name_hint);
}

Instruction* SpmdBuilder::AddImpl(Opcode opcode, const std::vector<Instruction*>& operands, Attributes attrs,
                                  const Shape* shape, std::optional<DType> type, std::string_view name_hint) {
  std::string name = module()->UniqueName(name_hint.empty() ? std::string(OpcodeName(opcode)) : std::string(name_hint));
  // With a stated type, inference sees it as the declared result type (dims are still inferred).
  auto instr = std::make_unique<Instruction>(opcode, shape ? *shape : type ? Shape(*type, {}) : Shape(), name);
  for (Instruction* op : operands) instr->AppendOperand(op);
  instr->attrs() = std::move(attrs);
  if (metadata_ && !instr->attrs().Has(AttrId::kMetadata)) instr->attrs().Set(AttrId::kMetadata, *metadata_);
  if (!shape) {
    StatusOr<Shape> inferred = InferShape(*instr);
    SPMDC_CHECK_MSG(!inferred.ok() || !type || !inferred->IsArray() || inferred->dtype() == *type,
                    fmt::format("partitioner bug: a local {} infers {} where {} was stated", OpcodeName(opcode),
                                inferred->ToString(false), DTypeName(*type))
                        .c_str());
    SPMDC_CHECK_MSG(inferred.ok(), fmt::format("partitioner built an invalid {}: {}", OpcodeName(opcode),
                                               inferred.status().message())
                                       .c_str());
    *instr->mutable_shape() = *inferred;
  }
  return comp_->AddInstruction(std::move(instr));
}

Instruction* SpmdBuilder::Parameter(int64_t number, const Shape& shape, const std::string& name) {
  // A computation partitioned more than once (a callee called under different shardings) must not
  // repeat its parameters' names: names are unique module-wide (the verifier checks it). The
  // first copy keeps the source name, later copies get a fresh one. The "\x01" marker is the one
  // ComputationPartitioner::Set uses for "this source name is already given out".
  const std::string marker = name + "\x01";
  const std::string unique = module()->IsNameTaken(marker) ? module()->UniqueName(name) : name;
  module()->ReserveName(marker);
  module()->ReserveName(unique);
  auto instr = std::make_unique<Instruction>(Opcode::kParameter, shape, unique);
  instr->set_parameter_number(number);
  return comp_->AddInstruction(std::move(instr));
}

Instruction* SpmdBuilder::Constant(Literal literal) {
  Shape shape = literal.shape();
  auto instr = std::make_unique<Instruction>(Opcode::kConstant, shape, module()->UniqueName("constant"));
  instr->set_literal(std::move(literal));
  return comp_->AddInstruction(std::move(instr));
}

Instruction* SpmdBuilder::ScalarS32(int64_t v) {
  Instruction*& cached = s32_constants_[v];
  if (!cached) {
    Literal l(Shape::Scalar(DType::kS32));
    l.SetInt(0, v);
    cached = Constant(std::move(l));
  }
  return cached;
}

Instruction* SpmdBuilder::ScalarOf(DType t, double v) {
  Literal l(Shape::Scalar(t));
  if (IsInteger(t) || t == DType::kPred) l.SetInt(0, static_cast<int64_t>(v));
  else l.SetDouble(0, v);
  return Constant(std::move(l));
}

Instruction* SpmdBuilder::Zero(DType t) {
  Instruction*& cached = zeros_[static_cast<int>(t)];
  if (!cached) cached = Constant(Literal(Shape::Scalar(t)));
  return cached;
}

Instruction* SpmdBuilder::Broadcast(Instruction* operand, const Shape& shape, std::vector<int64_t> dims) {
  Attributes a;
  a.Set(AttrId::kDimensions, std::move(dims));
  Shape s(operand->shape().dtype(), shape.dims());
  return Add(Opcode::kBroadcast, {operand}, std::move(a), &s);
}

Instruction* SpmdBuilder::Reshape(Instruction* operand, const std::vector<int64_t>& dims) {
  if (operand->shape().dims() == dims) return operand;
  Shape s(operand->shape().dtype(), dims);
  return Add(Opcode::kReshape, {operand}, {}, &s);
}

Instruction* SpmdBuilder::Transpose(Instruction* operand, const std::vector<int64_t>& perm) {
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i) identity &= perm[i] == static_cast<int64_t>(i);
  if (identity) return operand;
  Attributes a;
  a.Set(AttrId::kDimensions, perm);
  return Add(Opcode::kTranspose, {operand}, std::move(a));
}

Instruction* SpmdBuilder::Slice(Instruction* operand, std::vector<int64_t> starts, std::vector<int64_t> limits) {
  bool whole = true;
  for (size_t i = 0; i < starts.size(); ++i)
    whole &= starts[i] == 0 && limits[i] == operand->shape().dim(i);
  if (whole) return operand;
  Attributes a;
  SliceSpec spec{std::move(starts), std::move(limits), std::vector<int64_t>(operand->shape().rank(), 1)};
  a.Set(AttrId::kSlice, std::move(spec));
  return Add(Opcode::kSlice, {operand}, std::move(a));
}

Instruction* SpmdBuilder::Pad(Instruction* operand, Instruction* value, const std::vector<PaddingDim>& padding) {
  bool none = true;
  for (const PaddingDim& p : padding) none &= p.low == 0 && p.high == 0 && p.interior == 0;
  if (none) return operand;
  Attributes a;
  a.Set(AttrId::kPadding, PaddingConfig{padding});
  return Add(Opcode::kPad, {operand, value}, std::move(a));
}

Instruction* SpmdBuilder::PadHigh(Instruction* operand, const std::vector<int64_t>& new_dims) {
  std::vector<PaddingDim> padding(new_dims.size());
  for (size_t i = 0; i < new_dims.size(); ++i) padding[i].high = new_dims[i] - operand->shape().dim(i);
  return Pad(operand, Zero(operand->shape().dtype()), padding);
}

Instruction* SpmdBuilder::DynamicSlice(Instruction* operand, const std::vector<Instruction*>& starts,
                                       const std::vector<int64_t>& sizes) {
  if (operand->shape().dims() == sizes) return operand;
  Attributes a;
  a.Set(AttrId::kDynamicSliceSizes, sizes);
  std::vector<Instruction*> ops = {operand};
  ops.insert(ops.end(), starts.begin(), starts.end());
  return Add(Opcode::kDynamicSlice, ops, std::move(a));
}

Instruction* SpmdBuilder::DynamicUpdateSlice(Instruction* operand, Instruction* update,
                                             const std::vector<Instruction*>& starts) {
  std::vector<Instruction*> ops = {operand, update};
  ops.insert(ops.end(), starts.begin(), starts.end());
  return Add(Opcode::kDynamicUpdateSlice, ops);
}

Instruction* SpmdBuilder::Concatenate(const std::vector<Instruction*>& operands, int64_t dim) {
  if (operands.size() == 1) return operands[0];
  Attributes a;
  a.Set(AttrId::kDimensions, std::vector<int64_t>{dim});
  return Add(Opcode::kConcatenate, operands, std::move(a));
}

Instruction* SpmdBuilder::Binary(Opcode op, Instruction* a, Instruction* b) { return Add(op, {a, b}); }

Instruction* SpmdBuilder::Compare(Instruction* a, Instruction* b, const std::string& direction) {
  Attributes attrs;
  attrs.Set(AttrId::kDirection, direction);
  return Add(Opcode::kCompare, {a, b}, std::move(attrs));
}

Instruction* SpmdBuilder::Select(Instruction* pred, Instruction* a, Instruction* b) {
  return Add(Opcode::kSelect, {pred, a, b});
}

Instruction* SpmdBuilder::Iota(const Shape& shape, int64_t dim) {
  Attributes a;
  a.Set(AttrId::kIotaDimension, dim);
  return Add(Opcode::kIota, {}, std::move(a), &shape);
}

Instruction* SpmdBuilder::Convert(Instruction* operand, DType to) {
  if (operand->shape().dtype() == to) return operand;
  Shape s(to, operand->shape().dims());
  return Add(Opcode::kConvert, {operand}, {}, &s);
}

Instruction* SpmdBuilder::Tuple(const std::vector<Instruction*>& elements) {
  std::vector<Shape> shapes;
  for (Instruction* e : elements) shapes.push_back(e->shape());
  Shape s = Shape::Tuple(std::move(shapes));
  return Add(Opcode::kTuple, elements, {}, &s);
}

Instruction* SpmdBuilder::GetTupleElement(Instruction* tuple, int64_t index) {
  Attributes a;
  a.Set(AttrId::kIndex, index);
  Shape s = tuple->shape().tuple_shape(index);
  return Add(Opcode::kGetTupleElement, {tuple}, std::move(a), &s);
}

const ManualFrame* SpmdBuilder::EnterFrame(const ManualFrame* frame) {
  const ManualFrame* previous = frame_;
  frame_ = frame;
  return previous;
}

std::vector<std::vector<int64_t>> SpmdBuilder::GlobalGroups(const std::vector<std::vector<int64_t>>& groups) const {
  if (!frame_) return groups;
  std::vector<std::vector<int64_t>> out;
  for (const std::vector<int64_t>& members : frame_->groups) {
    if (groups.empty()) {
      out.push_back(members);
      continue;
    }
    for (const std::vector<int64_t>& g : groups) {
      std::vector<int64_t> global;
      for (int64_t l : g) global.push_back(members[l]);
      out.push_back(std::move(global));
    }
  }
  return out;
}

Instruction* SpmdBuilder::PartitionId() {
  if (!frame_) return GlobalPartitionId();
  Instruction*& cached = in_group_ids_[frame_->Tag()];
  if (!cached) {
    std::vector<int64_t> local(frame_->group_size());
    for (size_t l = 0; l < local.size(); ++l) local[l] = static_cast<int64_t>(l);
    cached = TableLookup(local);
  }
  return cached;
}

Instruction* SpmdBuilder::GlobalPartitionId() {
  if (!partition_id_) {
    Shape u32 = Shape::Scalar(DType::kU32);
    partition_id_ = Convert(Add(Opcode::kPartitionId, {}, {}, &u32), DType::kS32);
  }
  return partition_id_;
}

Instruction* SpmdBuilder::TableLookup(const std::vector<int64_t>& in_table) {
  std::vector<int64_t> table = in_table;
  if (frame_) {  // indexed by in-group ids: the same entries for every manual group
    table.assign(state_->num_devices, 0);
    for (const std::vector<int64_t>& members : frame_->groups)
      for (size_t l = 0; l < members.size(); ++l) table[members[l]] = in_table[l];
  }
  bool all_same = std::all_of(table.begin(), table.end(), [&](int64_t v) { return v == table[0]; });
  if (all_same) return ScalarS32(table.empty() ? 0 : table[0]);
  Instruction*& cached = tables_[table];
  if (!cached) {
    Literal lit(Shape(DType::kS32, {static_cast<int64_t>(table.size())}));
    for (size_t i = 0; i < table.size(); ++i) lit.SetInt(i, table[i]);
    Instruction* ds = DynamicSlice(Constant(std::move(lit)), {GlobalPartitionId()}, {1});
    cached = Reshape(ds, {});
  }
  return cached;
}

ReplicaGroups SpmdBuilder::MakeGroups(const std::vector<std::vector<int64_t>>& in_groups) const {
  ReplicaGroups rg;
  // No groups: every device, written out (with use_global_device_ids=true, which every
  // collective built here sets, XLA's verifier requires the groups to be given).
  std::vector<std::vector<int64_t>> all;
  if (in_groups.empty() && !frame_) {
    all.emplace_back(num_devices());
    for (int64_t d = 0; d < num_devices(); ++d) all[0][d] = d;
  }
  const std::vector<std::vector<int64_t>> groups = GlobalGroups(all.empty() ? in_groups : all);
  int64_t g = static_cast<int64_t>(groups.size());
  int64_t s = static_cast<int64_t>(groups[0].size());
  bool same_size = std::all_of(groups.begin(), groups.end(), [&](const auto& x) { return static_cast<int64_t>(x.size()) == s; });
  if (same_size && g * s == state_->num_devices) {
    bool plain = true, transposed = true;
    for (int64_t i = 0; i < g; ++i)
      for (int64_t k = 0; k < s; ++k) {
        plain &= groups[i][k] == i * s + k;
        transposed &= groups[i][k] == k * g + i;
      }
    if (plain) {
      rg.iota = ReplicaGroups::Iota{g, s, {g * s}, {0}};
      return rg;
    }
    if (transposed) {
      rg.iota = ReplicaGroups::Iota{g, s, {s, g}, {1, 0}};
      return rg;
    }
  }
  rg.groups = groups;
  return rg;
}

void SpmdBuilder::Count(const std::string& kind, const Shape& shape) {
  auto& st = state_->stats[kind];
  st.count += 1;
  st.bytes += shape.byte_size();
}

Instruction* SpmdBuilder::AllReduce(Instruction* operand, const std::vector<std::vector<int64_t>>& groups,
                                    const std::string& reducer_kind) {
  Attributes a;
  a.Set(AttrId::kChannelId, state_->next_channel_id++);
  a.Set(AttrId::kReplicaGroups, MakeGroups(groups));
  a.Set(AttrId::kUseGlobalDeviceIds, true);
  a.Set(AttrId::kToApply, Reducer(reducer_kind, operand->shape().dtype()));
  Shape s = operand->shape();
  Count("all-reduce", s);
  return Add(Opcode::kAllReduce, {operand}, std::move(a), &s);
}

Instruction* SpmdBuilder::AllGather(Instruction* operand, int64_t dim,
                                    const std::vector<std::vector<int64_t>>& groups) {
  Attributes a;
  a.Set(AttrId::kChannelId, state_->next_channel_id++);
  a.Set(AttrId::kReplicaGroups, MakeGroups(groups));
  a.Set(AttrId::kUseGlobalDeviceIds, true);
  a.Set(AttrId::kDimensions, std::vector<int64_t>{dim});
  Shape s = operand->shape();
  int64_t group_size = groups.empty() ? num_devices() : static_cast<int64_t>(groups[0].size());
  s.set_dim(dim, s.dim(dim) * group_size);
  s.set_layout(std::nullopt);
  Count("all-gather", s);
  return Add(Opcode::kAllGather, {operand}, std::move(a), &s);
}

Instruction* SpmdBuilder::ReduceScatter(Instruction* operand, int64_t dim,
                                        const std::vector<std::vector<int64_t>>& groups,
                                        const std::string& reducer_kind) {
  Attributes a;
  a.Set(AttrId::kChannelId, state_->next_channel_id++);
  a.Set(AttrId::kReplicaGroups, MakeGroups(groups));
  a.Set(AttrId::kUseGlobalDeviceIds, true);
  a.Set(AttrId::kDimensions, std::vector<int64_t>{dim});
  a.Set(AttrId::kToApply, Reducer(reducer_kind, operand->shape().dtype()));
  Shape s = operand->shape();
  int64_t group_size = groups.empty() ? num_devices() : static_cast<int64_t>(groups[0].size());
  s.set_dim(dim, s.dim(dim) / group_size);
  s.set_layout(std::nullopt);
  Count("reduce-scatter", s);
  return Add(Opcode::kReduceScatter, {operand}, std::move(a), &s);
}

Instruction* SpmdBuilder::AllToAll(Instruction* operand, int64_t split_dim,
                                   const std::vector<std::vector<int64_t>>& groups) {
  Attributes a;
  a.Set(AttrId::kChannelId, state_->next_channel_id++);
  a.Set(AttrId::kReplicaGroups, MakeGroups(groups));
  // Array form: split and concatenate along the same dim (the runtime reads split_dimension,
  // XLA's text form carries it as dimensions={d}).
  a.Set(AttrId::kSplitDimension, split_dim);
  a.Set(AttrId::kDimensions, std::vector<int64_t>{split_dim});
  Shape s = operand->shape();
  Count("all-to-all", s);
  return Add(Opcode::kAllToAll, {operand}, std::move(a), &s);
}

Instruction* SpmdBuilder::CollectivePermute(Instruction* operand,
                                            const std::vector<std::pair<int64_t, int64_t>>& pairs) {
  Attributes a;
  a.Set(AttrId::kChannelId, state_->next_channel_id++);
  std::vector<std::pair<int64_t, int64_t>> global = pairs;
  if (frame_) {  // in-group pairs, within every manual group
    global.clear();
    for (const std::vector<int64_t>& members : frame_->groups)
      for (auto [from, to] : pairs) global.emplace_back(members[from], members[to]);
  }
  a.Set(AttrId::kSourceTargetPairs, PairList(global.begin(), global.end()));
  Shape s = operand->shape();
  Count("collective-permute", s);
  return Add(Opcode::kCollectivePermute, {operand}, std::move(a), &s);
}

Computation* SpmdBuilder::Reducer(const std::string& kind, DType dtype) {
  std::string key = fmt::format("{}.{}", kind, DTypeName(dtype));
  auto it = state_->reducers.find(key);
  if (it != state_->reducers.end()) return it->second;
  Opcode op = kind == "add" ? Opcode::kAdd : kind == "max" ? Opcode::kMaximum : kind == "min" ? Opcode::kMinimum
            : kind == "mul" ? Opcode::kMultiply : kind == "and" ? Opcode::kAnd : Opcode::kOr;
  if (dtype == DType::kPred && op == Opcode::kAdd) op = Opcode::kOr;
  Module* m = module();
  auto comp = std::make_unique<Computation>(m->UniqueName(fmt::format("spmd_{}_{}", kind, DTypeName(dtype))));
  Shape scalar = Shape::Scalar(dtype);
  auto p0 = std::make_unique<Instruction>(Opcode::kParameter, scalar, m->UniqueName("lhs"));
  p0->set_parameter_number(0);
  auto p1 = std::make_unique<Instruction>(Opcode::kParameter, scalar, m->UniqueName("rhs"));
  p1->set_parameter_number(1);
  Instruction* a = comp->AddInstruction(std::move(p0));
  Instruction* b = comp->AddInstruction(std::move(p1));
  Instruction* r = comp->AddInstruction(op, scalar, m->UniqueName(std::string(OpcodeName(op))), {a, b});
  comp->set_root(r);
  Computation* raw = comp.get();
  // Reducers go first so that the printed module lists callees before callers.
  m->AddComputation(std::move(comp));
  state_->reducers[key] = raw;
  return raw;
}

Computation* SpmdBuilder::TopKComparator(DType dtype, bool largest) {
  std::string key = fmt::format("topk_{}.{}", largest ? "gt" : "lt", DTypeName(dtype));
  auto it = state_->reducers.find(key);
  if (it != state_->reducers.end()) return it->second;
  Module* m = module();
  auto comp = std::make_unique<Computation>(m->UniqueName(fmt::format("spmd_topk_{}_{}", largest ? "gt" : "lt", DTypeName(dtype))));
  std::vector<Instruction*> params;
  for (int64_t i = 0; i < 4; ++i) {
    Shape scalar = Shape::Scalar(i < 2 ? dtype : DType::kS32);
    auto p = std::make_unique<Instruction>(Opcode::kParameter, scalar, m->UniqueName(i < 2 ? "v" : "i"));
    p->set_parameter_number(i);
    params.push_back(comp->AddInstruction(std::move(p)));
  }
  Instruction* r = comp->AddInstruction(Opcode::kCompare, Shape::Scalar(DType::kPred), m->UniqueName("compare"),
                                        {params[0], params[1]});
  r->attrs().Set(AttrId::kDirection, std::string(largest ? "GT" : "LT"));
  if (IsFloat(dtype)) r->attrs().Set(AttrId::kCompareType, std::string("TOTALORDER"));
  comp->set_root(r);
  Computation* raw = comp.get();
  m->AddComputation(std::move(comp));
  state_->reducers[key] = raw;
  return raw;
}

std::optional<std::string> SpmdBuilder::ReducerKind(const Computation& c) {
  const Instruction* root = c.root();
  if (!root || c.num_parameters() != 2 || root->operand_count() != 2) return std::nullopt;
  if (!((root->operand(0) == c.parameter(0) && root->operand(1) == c.parameter(1)) ||
        (root->operand(0) == c.parameter(1) && root->operand(1) == c.parameter(0))))
    return std::nullopt;
  switch (root->opcode()) {
    case Opcode::kAdd: return "add";
    case Opcode::kMaximum: return "max";
    case Opcode::kMinimum: return "min";
    case Opcode::kMultiply: return "mul";
    case Opcode::kAnd: return "and";
    case Opcode::kOr: return "or";
    default: return std::nullopt;
  }
}

}  // namespace spmdc

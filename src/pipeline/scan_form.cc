// ScanToLayerCalls (layer_forms.h): a scanned training step's two `while` loops over layers
// become the layer-call form, and the helpers every conversion shares.
#include <algorithm>
#include <map>
#include <optional>

#include "absl/container/flat_hash_set.h"
#include "cost/cost.h"
#include "fmt/format.h"
#include "passes/passes.h"
#include "pipeline/layer_forms.h"

namespace spmdc::pipeline {

// --- Shared helpers ----------------------------------------------------------------------------

Shape DropLeadingDim(const Shape& s) {
  std::vector<int64_t> d(s.dims().begin() + 1, s.dims().end());
  return Shape(s.dtype(), d);
}

Shape WithLeadingDim(const Shape& s, int64_t n) {
  std::vector<int64_t> d = {n};
  d.insert(d.end(), s.dims().begin(), s.dims().end());
  return Shape(s.dtype(), d);
}

Instruction* AddReshape(Module& m, Computation& c, Instruction* x, const Shape& shape, const std::string& hint) {
  return c.AddInstruction(Opcode::kReshape, shape, m.UniqueName(hint), {x});
}

Instruction* AddGetTupleElement(Module& m, Computation& c, Instruction* t, int64_t index, const std::string& hint) {
  Instruction* g = c.AddInstruction(Opcode::kGetTupleElement, t->shape().tuple_shape(index), m.UniqueName(hint), {t});
  g->attrs().Set(AttrId::kIndex, index);
  return g;
}

Instruction* AddCall(Module& m, Computation& c, Computation* callee, const std::vector<Instruction*>& operands,
                     const std::string& hint) {
  Instruction* call = c.AddInstruction(Opcode::kCall, callee->root()->shape(), m.UniqueName(hint), operands);
  call->attrs().Set(AttrId::kToApply, callee);
  return call;
}

Instruction* AddParameter(Module& m, Computation& c, int64_t number, const Shape& shape, const std::string& hint) {
  Instruction* p = c.AddInstruction(Opcode::kParameter, shape, m.UniqueName(hint));
  p->set_parameter_number(number);
  return p;
}

StatusOr<Instruction*> InstructionCopier::Copy(const Instruction* value) {
  // Iterative post order: (instruction, operands visited).
  std::vector<std::pair<const Instruction*, bool>> stack = {{value, false}};
  while (!stack.empty()) {
    auto [x, expanded] = stack.back();
    stack.pop_back();
    if (map_.contains(x)) continue;
    if (!expanded) {
      ASSIGN_OR_RETURN(Instruction * s, substitute_(x));
      if (s != nullptr) {
        map_[x] = s;
        continue;
      }
      if (x->opcode() == Opcode::kParameter)
        return Internal("pipeline: copying %{} into {}: a parameter nothing stands for", x->name(), into_.name());
      stack.push_back({x, true});
      for (const Instruction* op : x->operands())
        if (!map_.contains(op)) stack.push_back({op, false});
      continue;
    }
    if (x->IsCustomCall("Sharding") && x->operand_count() == 1) {  // a constraint: its operand
      map_[x] = map_.at(x->operand(0));
      continue;
    }
    std::unique_ptr<Instruction> copy = CopyWithoutEdges(module_, *x);
    copy->clear_sharding();
    Instruction* added = into_.AddInstruction(std::move(copy));
    for (const Instruction* op : x->operands()) added->AppendOperand(map_.at(op));
    map_[x] = added;
  }
  return map_.at(value);
}

namespace {

// --- Scan loops --------------------------------------------------------------------------------

// The value of the scalar integer expression `e` of a loop body at counter value `t`, where
// `counter` are the body's reads of the counter; nullopt when it depends on anything else.
std::optional<int64_t> EvalIndex(const Instruction* e, const std::vector<const Instruction*>& counter, int64_t t) {
  if (std::find(counter.begin(), counter.end(), e) != counter.end()) return t;
  if (!e->shape().IsArray() || e->shape().rank() != 0) return std::nullopt;
  std::vector<int64_t> v;
  if (e->opcode() != Opcode::kConstant)
    for (const Instruction* op : e->operands()) {
      std::optional<int64_t> x = EvalIndex(op, counter, t);
      if (!x) return std::nullopt;
      v.push_back(*x);
    }
  switch (e->opcode()) {
    case Opcode::kConstant:
      if (e->literal() == nullptr) return std::nullopt;
      return e->literal()->GetInt(0);
    case Opcode::kAdd: return v[0] + v[1];
    case Opcode::kSubtract: return v[0] - v[1];
    case Opcode::kMultiply: return v[0] * v[1];
    case Opcode::kDivide: return v[1] == 0 ? std::nullopt : std::optional<int64_t>(v[0] / v[1]);
    case Opcode::kRemainder: return v[1] == 0 ? std::nullopt : std::optional<int64_t>(v[0] % v[1]);
    case Opcode::kNegate: return -v[0];
    case Opcode::kMaximum: return std::max(v[0], v[1]);
    case Opcode::kMinimum: return std::min(v[0], v[1]);
    case Opcode::kClamp: return std::clamp(v[1], v[0], std::max(v[0], v[2]));
    case Opcode::kConvert:
    case Opcode::kCopy: return v[0];
    case Opcode::kSelect: return v[0] != 0 ? v[1] : v[2];
    case Opcode::kAnd: return v[0] & v[1];
    case Opcode::kOr: return v[0] | v[1];
    case Opcode::kNot: return e->shape().dtype() == DType::kPred ? int64_t{v[0] == 0} : ~v[0];
    case Opcode::kCompare: {
      const std::string& d = e->string_attr(AttrId::kDirection);
      if (d == "LT") return v[0] < v[1];
      if (d == "LE") return v[0] <= v[1];
      if (d == "GT") return v[0] > v[1];
      if (d == "GE") return v[0] >= v[1];
      if (d == "EQ") return v[0] == v[1];
      if (d == "NE") return v[0] != v[1];
      return std::nullopt;
    }
    default: return std::nullopt;
  }
}

bool IsZero(const Instruction* i) {
  return i->opcode() == Opcode::kConstant && i->literal() != nullptr && i->shape().IsArray() &&
         i->shape().rank() == 0 && i->literal()->GetInt(0) == 0;
}

// One `while` of the entry read as a scan over the rows of stacked values.
struct Scan {
  const Instruction* loop = nullptr;
  const Instruction* init = nullptr;  // the tuple it starts from
  const Computation* body = nullptr;
  int64_t trips = 0, counter = -1;
  int64_t carry = -1;                       // the element that changes every iteration
  std::vector<std::vector<const Instruction*>> gtes;  // per element: the body's reads of it
  std::vector<const Instruction*> counter_reads;
  // Pass-through elements read by rows (dynamic-slice [1, ...] at an index of the counter):
  // element -> the slices; elements read whole (or not at all) are invariants.
  std::map<int64_t, std::vector<const Instruction*>> xs;
  std::vector<int64_t> invariants;
  // Elements whose row at an index of the counter is written every iteration: element -> the
  // dynamic-update-slice.
  std::map<int64_t, const Instruction*> ys;

  // The row `slice_or_update` reads or writes at iteration t (its start index on dim 0).
  std::optional<int64_t> Row(const Instruction* slice_or_update, int64_t t) const {
    const int64_t index_operand = slice_or_update->opcode() == Opcode::kDynamicUpdateSlice ? 2 : 1;
    return EvalIndex(slice_or_update->operand(index_operand), counter_reads, t);
  }
};

// A row access of `stacked`: dynamic-slice [1, full...] (or dynamic-update-slice of a [1, ...]
// update) whose starts past dim 0 are zeros.
bool IsRowAccess(const Instruction* i, const Instruction* stacked) {
  const bool slice = i->opcode() == Opcode::kDynamicSlice, update = i->opcode() == Opcode::kDynamicUpdateSlice;
  if ((!slice && !update) || i->operand(0) != stacked) return false;
  const Shape& piece = slice ? i->shape() : i->operand(1)->shape();
  const Shape& whole = stacked->shape();
  if (!piece.IsArray() || piece.rank() != whole.rank() || piece.rank() < 1 || piece.dim(0) != 1) return false;
  for (int64_t d = 1; d < whole.rank(); ++d)
    if (piece.dim(d) != whole.dim(d)) return false;
  const int64_t first = slice ? 1 : 2;
  if (i->operand_count() != first + whole.rank()) return false;
  for (int64_t d = 1; d < whole.rank(); ++d)
    if (!IsZero(i->operand(first + d))) return false;
  return true;
}

StatusOr<Scan> ReadScan(const Instruction* loop) {
  Scan s;
  s.loop = loop;
  s.init = loop->operand(0);
  s.body = loop->computation_attr(AttrId::kBody);
  auto no = [&](const std::string& why) {
    return Unimplemented("the `while` %{} is not a scan over layers: {}", loop->name(), why);
  };
  if (s.init->opcode() != Opcode::kTuple || s.body == nullptr || s.body->num_parameters() != 1)
    return no("it does not start from a tuple");
  const int64_t n = s.init->operand_count();
  s.gtes.resize(n);
  for (const Instruction* u : s.body->parameter(0)->users()) {
    if (u->opcode() != Opcode::kGetTupleElement) return no(fmt::format("its body reads its state through %{}", u->name()));
    s.gtes[u->tuple_index()].push_back(u);
  }
  const Instruction* root = s.body->root();
  if (root->opcode() != Opcode::kTuple || root->operand_count() != n) return no("its body does not return a tuple");
  auto reads = [&](int64_t e, const Instruction* i) {
    return std::find(s.gtes[e].begin(), s.gtes[e].end(), i) != s.gtes[e].end();
  };
  for (int64_t e = 0; e < n && s.counter < 0; ++e) {
    const Instruction* r = root->operand(e);
    if (r->opcode() != Opcode::kAdd || !IsZero(s.init->operand(e))) continue;
    for (int64_t k = 0; k < 2; ++k) {
      const Instruction* one = r->operand(1 - k);
      if (reads(e, r->operand(k)) && one->opcode() == Opcode::kConstant && one->literal() && one->literal()->GetInt(0) == 1)
        s.counter = e;
    }
  }
  std::optional<int64_t> trips = KnownTripCount(*loop);
  if (s.counter < 0 || !trips) return no("no counter from 0 by 1 to a constant");
  s.trips = *trips;
  s.counter_reads = s.gtes[s.counter];
  for (int64_t e = 0; e < n; ++e) {
    if (e == s.counter) continue;
    const Instruction* r = root->operand(e);
    if (reads(e, r)) {  // passed through
      std::vector<const Instruction*> rows;
      bool whole = false;
      for (const Instruction* g : s.gtes[e])
        for (const Instruction* u : g->users()) {
          if (u == root) continue;
          if (IsRowAccess(u, g) && u->opcode() == Opcode::kDynamicSlice) {
            rows.push_back(u);
          } else {
            whole = true;
          }
        }
      if (!rows.empty() && !whole) {
        s.xs[e] = rows;
      } else {
        s.invariants.push_back(e);
      }
      continue;
    }
    bool written = false;
    if (r->opcode() == Opcode::kDynamicUpdateSlice && reads(e, r->operand(0)) && IsRowAccess(r, r->operand(0))) {
      written = true;
      for (const Instruction* g : s.gtes[e])
        for (const Instruction* u : g->users()) written &= u == r;
    }
    if (written) {
      s.ys[e] = r;
      continue;
    }
    if (s.carry >= 0)
      return no(fmt::format("elements {} and {} of its state both change from one iteration to the next (one "
                            "carried activation expected)",
                            s.carry, e));
    s.carry = e;
  }
  if (s.carry < 0 || !s.init->operand(s.carry)->shape().IsArray()) return no("no carried activation");
  return s;
}

// The per-layer value an update writes ([1, ...] update of a row; its operand when that is the
// reshape adding the 1).
const Instruction* WrittenValue(const Instruction* update) {
  const Instruction* u = update->operand(1);
  if (u->opcode() == Opcode::kReshape && u->operand(0)->shape() == DropLeadingDim(u->shape())) return u->operand(0);
  return u;
}

class ScanConverter {
 public:
  explicit ScanConverter(std::unique_ptr<Module> module) : m_(std::move(module)) {}
  StatusOr<std::unique_ptr<Module>> Run();

 private:
  Status FindLoops();
  Status MapLayers();
  Status BuildLayer();
  Status BuildBackward();
  Status RewriteEntry();
  // Copies a value of the entry computed from constants alone into `c` (a loop invariant the
  // layer reads: a mask, a constant).
  StatusOr<Instruction*> CopyFree(const Instruction* v, Computation& c);
  // What the forward body's reads stand for in a layer computation `c` whose activation is `x`
  // and weights `w`.
  InstructionCopier::Substitute ForwardReads(Computation& c, Instruction* x, const std::vector<Instruction*>& w);

  std::unique_ptr<Module> m_;
  Computation* entry_ = nullptr;
  Scan fwd_, bwd_;
  int64_t L_ = 0;
  std::vector<int64_t> weight_elements_;      // forward xs elements, in order: weight k
  std::vector<const Instruction*> stacked_;   // their stacked values in the entry (V_k)
  std::vector<int64_t> row_of_;               // chain position t -> the row a(t) it reads
  std::vector<int64_t> grad_elements_;        // backward ys elements: gradient output j
  Computation* layer_ = nullptr;
  Computation* layer_bwd_ = nullptr;
};

Status ScanConverter::FindLoops() {
  std::vector<Scan> scans;
  std::string why;
  for (const Instruction* i : entry_->MakeInstructionPostOrder()) {
    if (i->opcode() != Opcode::kWhile) continue;
    StatusOr<Scan> s = ReadScan(i);
    if (s.ok()) {
      scans.push_back(*std::move(s));
    } else if (why.empty()) {
      why = std::string(s.status().message());
    }
  }
  // The backward scan reads what the forward one wrote (its residuals).
  for (const Scan& b : scans)
    for (const Scan& f : scans) {
      if (&b == &f) continue;
      for (const Instruction* op : b.init->operands())
        if (op->opcode() == Opcode::kGetTupleElement && op->operand(0) == f.loop && f.ys.contains(op->tuple_index())) {
          fwd_ = f;
          bwd_ = b;
          return absl::OkStatus();
        }
    }
  if (scans.empty())
    return Unimplemented("no scan over layers found: {}", why.empty() ? "the entry has no `while` loop" : why);
  return Unimplemented(
      "no scan over layers found: no `while` of the entry reads the stacked values another one writes (a forward "
      "scan and the backward scan of its gradient)");
}

Status ScanConverter::MapLayers() {
  L_ = fwd_.trips;
  if (L_ < 2 || bwd_.trips != L_)
    return Unimplemented("scan: the forward scan runs {} times and the backward one {} (the layers, >= 2, both)", L_,
                         bwd_.trips);
  if (fwd_.xs.empty()) return Unimplemented("scan: the forward scan reads no stacked weights by rows");
  // Forward: every row read at iteration t is row a(t) of its value; a is a permutation.
  row_of_.assign(L_, -1);
  std::vector<int64_t> position(L_, -1);
  for (int64_t t = 0; t < L_; ++t) {
    for (const auto& [e, slices] : fwd_.xs) {
      if (fwd_.init->operand(e)->shape().dim(0) != L_)
        return Unimplemented("scan: %{} has {} rows for {} layers", fwd_.init->operand(e)->name(),
                             fwd_.init->operand(e)->shape().dim(0), L_);
      for (const Instruction* s : slices) {
        std::optional<int64_t> row = fwd_.Row(s, t);
        if (!row || *row < 0 || *row >= L_ || (row_of_[t] >= 0 && row_of_[t] != *row))
          return Unimplemented("scan: iteration {} of the forward scan does not read one row of the stacked weights "
                               "(%{})",
                               t, s->name());
        row_of_[t] = *row;
      }
    }
    if (position[row_of_[t]] >= 0) return Unimplemented("scan: the forward scan reads row {} twice", row_of_[t]);
    position[row_of_[t]] = t;
  }
  for (const auto& [e, slices] : fwd_.xs) {
    weight_elements_.push_back(e);
    stacked_.push_back(fwd_.init->operand(e));
  }
  // Backward: iteration i works on chain position L-1-i: it reads that layer's weights and
  // residuals and writes its gradients at the same row.
  for (int64_t i = 0; i < L_; ++i) {
    const int64_t t = L_ - 1 - i;
    auto check = [&](const Instruction* access, int64_t want, const char* what) -> Status {
      std::optional<int64_t> row = bwd_.Row(access, i);
      if (!row || *row != want)
        return Unimplemented("scan: iteration {} of the backward scan {} row {} (%{}), not row {} of layer {} in "
                             "reverse order",
                             i, what, row ? fmt::format("{}", *row) : std::string("?"), access->name(), want, t);
      return absl::OkStatus();
    };
    for (const auto& [e, slices] : bwd_.xs) {
      const Instruction* v = bwd_.init->operand(e);
      int64_t want = row_of_[t];
      if (v->opcode() == Opcode::kGetTupleElement && v->operand(0) == fwd_.loop) {
        auto it = fwd_.ys.find(v->tuple_index());
        if (it == fwd_.ys.end()) return Unimplemented("scan: the backward scan reads %{} by rows", v->name());
        std::optional<int64_t> w = fwd_.Row(it->second, t);
        if (!w) return Unimplemented("scan: the forward scan writes %{} at no row it can tell", it->second->name());
        want = *w;
      } else if (std::find(stacked_.begin(), stacked_.end(), v) == stacked_.end()) {
        return Unimplemented("scan: the backward scan reads %{} by rows, which the forward one does not read", v->name());
      }
      for (const Instruction* s : slices) RETURN_IF_ERROR(check(s, want, "reads"));
    }
    for (const auto& [e, update] : bwd_.ys) RETURN_IF_ERROR(check(update, row_of_[t], "writes"));
  }
  for (const auto& [e, update] : bwd_.ys) grad_elements_.push_back(e);
  if (!(bwd_.init->operand(bwd_.carry)->shape() == fwd_.init->operand(fwd_.carry)->shape()))
    return Unimplemented("scan: the backward scan carries {}, the forward one {}",
                         bwd_.init->operand(bwd_.carry)->shape().ToString(false),
                         fwd_.init->operand(fwd_.carry)->shape().ToString(false));
  return absl::OkStatus();
}

StatusOr<Instruction*> ScanConverter::CopyFree(const Instruction* v, Computation& c) {
  InstructionCopier copier(*m_, c, [&](const Instruction* x) -> StatusOr<Instruction*> {
    if (x->opcode() == Opcode::kParameter || x->opcode() == Opcode::kWhile || x->HasSideEffect())
      return Unimplemented("scan: the layers read %{}, which is computed from %{} outside them (only constants and "
                           "the stacked weights can be read inside a layer)",
                           v->name(), x->name());
    return nullptr;
  });
  return copier.Copy(v);
}

InstructionCopier::Substitute ScanConverter::ForwardReads(Computation& c, Instruction* x,
                                                          const std::vector<Instruction*>& w) {
  return [this, &c, x, w](const Instruction* i) -> StatusOr<Instruction*> {
    if (i->opcode() == Opcode::kDynamicSlice)
      for (size_t k = 0; k < weight_elements_.size(); ++k)
        for (const Instruction* s : fwd_.xs.at(weight_elements_[k]))
          if (s == i) return AddReshape(*m_, c, w[k], i->shape(), "row");
    if (i->opcode() == Opcode::kGetTupleElement && i->operand(0) == fwd_.body->parameter(0)) {
      const int64_t e = i->tuple_index();
      if (e == fwd_.carry) return x;
      if (std::find(fwd_.invariants.begin(), fwd_.invariants.end(), e) != fwd_.invariants.end())
        return CopyFree(fwd_.init->operand(e), c);
      if (e == fwd_.counter)
        return Unimplemented("scan: the layer reads the loop counter (%{}) other than to index the stacked weights",
                             i->name());
      return Unimplemented("scan: the layer reads element {} of the loop state (%{}) whole", e, i->name());
    }
    return nullptr;
  };
}

Status ScanConverter::BuildLayer() {
  auto c = std::make_unique<Computation>(m_->UniqueName("scan_layer"));
  layer_ = m_->AddComputation(std::move(c));
  Instruction* x = AddParameter(*m_, *layer_, 0, fwd_.init->operand(fwd_.carry)->shape(), "x");
  std::vector<Instruction*> w;
  for (size_t k = 0; k < stacked_.size(); ++k)
    w.push_back(AddParameter(*m_, *layer_, static_cast<int64_t>(k) + 1, DropLeadingDim(stacked_[k]->shape()), "w"));
  InstructionCopier copier(*m_, *layer_, ForwardReads(*layer_, x, w));
  ASSIGN_OR_RETURN(Instruction * y, copier.Copy(fwd_.body->root()->operand(fwd_.carry)));
  layer_->set_root(y);
  return layer_->RebuildParameterList();
}

Status ScanConverter::BuildBackward() {
  auto c = std::make_unique<Computation>(m_->UniqueName("scan_layer_bwd"));
  layer_bwd_ = m_->AddComputation(std::move(c));
  Computation& g = *layer_bwd_;
  const Shape& act = fwd_.init->operand(fwd_.carry)->shape();
  Instruction* x = AddParameter(*m_, g, 0, act, "x");
  std::vector<Instruction*> w;
  for (size_t k = 0; k < stacked_.size(); ++k)
    w.push_back(AddParameter(*m_, g, static_cast<int64_t>(k) + 1, DropLeadingDim(stacked_[k]->shape()), "w"));
  Instruction* dy = AddParameter(*m_, g, static_cast<int64_t>(stacked_.size()) + 1, act, "dy");
  // The residuals are recomputed from the layer's input and weights: the forward body's copy.
  InstructionCopier forward(*m_, g, ForwardReads(g, x, w));
  InstructionCopier copier(*m_, g, [&](const Instruction* i) -> StatusOr<Instruction*> {
    if (i->opcode() == Opcode::kDynamicSlice)
      for (const auto& [e, slices] : bwd_.xs) {
        if (std::find(slices.begin(), slices.end(), i) == slices.end()) continue;
        const Instruction* v = bwd_.init->operand(e);
        if (v->opcode() == Opcode::kGetTupleElement && v->operand(0) == fwd_.loop) {
          ASSIGN_OR_RETURN(Instruction * r, forward.Copy(WrittenValue(fwd_.ys.at(v->tuple_index()))));
          return AddReshape(*m_, g, r, i->shape(), "residual");
        }
        const int64_t k = std::find(stacked_.begin(), stacked_.end(), v) - stacked_.begin();
        return AddReshape(*m_, g, w[k], i->shape(), "row");
      }
    if (i->opcode() == Opcode::kGetTupleElement && i->operand(0) == bwd_.body->parameter(0)) {
      const int64_t e = i->tuple_index();
      if (e == bwd_.carry) return dy;
      if (std::find(bwd_.invariants.begin(), bwd_.invariants.end(), e) != bwd_.invariants.end())
        return CopyFree(bwd_.init->operand(e), g);
      if (e == bwd_.counter)
        return Unimplemented("scan: the layer's backward reads the loop counter (%{}) other than to index rows",
                             i->name());
      return Unimplemented("scan: the layer's backward reads element {} of the loop state (%{}) whole", e, i->name());
    }
    return nullptr;
  });
  std::vector<Instruction*> outs;
  ASSIGN_OR_RETURN(Instruction * dx, copier.Copy(bwd_.body->root()->operand(bwd_.carry)));
  outs.push_back(dx);
  for (int64_t e : grad_elements_) {
    const Instruction* v = WrittenValue(bwd_.ys.at(e));
    ASSIGN_OR_RETURN(Instruction * o, copier.Copy(v));
    const Shape row = DropLeadingDim(bwd_.init->operand(e)->shape());
    if (!(o->shape() == row)) o = AddReshape(*m_, g, o, row, "grad");
    outs.push_back(o);
  }
  std::vector<Shape> shapes;
  for (const Instruction* o : outs) shapes.push_back(o->shape());
  Instruction* root = g.AddInstruction(Opcode::kTuple, Shape::Tuple(shapes), m_->UniqueName("grads"), outs);
  g.set_root(root);
  return g.RebuildParameterList();
}

Status ScanConverter::RewriteEntry() {
  Computation& e = *entry_;
  // The layers' weights: row a(t) of each stacked value, for chain position t.
  std::vector<std::vector<Instruction*>> rows(L_);
  for (int64_t t = 0; t < L_; ++t)
    for (const Instruction* v : stacked_) {
      Instruction* stacked = const_cast<Instruction*>(v);
      Shape one = v->shape();
      one.mutable_dims()[0] = 1;
      one.clear_layout();
      Instruction* slice = e.AddInstruction(Opcode::kSlice, one, m_->UniqueName(v->name() + ".row"), {stacked});
      SliceSpec spec;
      for (int64_t d = 0; d < v->shape().rank(); ++d) {
        spec.starts.push_back(d == 0 ? row_of_[t] : 0);
        spec.limits.push_back(d == 0 ? row_of_[t] + 1 : v->shape().dim(d));
        spec.strides.push_back(1);
      }
      slice->attrs().Set(AttrId::kSlice, spec);
      rows[t].push_back(AddReshape(*m_, e, slice, DropLeadingDim(v->shape()), v->name() + ".row"));
    }
  // The forward chain.
  std::vector<Instruction*> xs = {const_cast<Instruction*>(fwd_.init->operand(fwd_.carry))};
  for (int64_t t = 0; t < L_; ++t) {
    std::vector<Instruction*> ops = {xs.back()};
    ops.insert(ops.end(), rows[t].begin(), rows[t].end());
    xs.push_back(AddCall(*m_, e, layer_, ops, "layer"));
  }
  // The backward chain, last layer first.
  Instruction* dy = const_cast<Instruction*>(bwd_.init->operand(bwd_.carry));
  std::vector<Instruction*> bcalls(L_);
  for (int64_t t = L_ - 1; t >= 0; --t) {
    std::vector<Instruction*> ops = {xs[t]};
    ops.insert(ops.end(), rows[t].begin(), rows[t].end());
    ops.push_back(dy);
    bcalls[t] = AddCall(*m_, e, layer_bwd_, ops, "layer_bwd");
    dy = AddGetTupleElement(*m_, e, bcalls[t], 0, "dx");
  }
  auto constant = [&](int64_t v, const Shape& shape) {
    Instruction* c = e.AddInstruction(Opcode::kConstant, shape, m_->UniqueName("trips"));
    Literal lit(shape);
    lit.SetInt(0, v);
    c->set_literal(lit);
    return c;
  };
  // The loops' results.
  auto replace = [&](const Scan& s, auto&& element_value) -> Status {
    for (Instruction* u : s.loop->users()) {
      if (u->opcode() != Opcode::kGetTupleElement)
        return Unimplemented("scan: %{} uses the `while` %{} whole", u->name(), s.loop->name());
      ASSIGN_OR_RETURN(Instruction * v, element_value(u->tuple_index(), u));
      if (v != nullptr) u->ReplaceAllUsesWith(v);
    }
    return absl::OkStatus();
  };
  auto passed = [&](const Scan& s, int64_t i) {
    return s.xs.contains(i) || std::find(s.invariants.begin(), s.invariants.end(), i) != s.invariants.end();
  };
  std::vector<Instruction*> loop_users(bwd_.loop->users().begin(), bwd_.loop->users().end());
  RETURN_IF_ERROR(replace(bwd_, [&](int64_t i, const Instruction* u) -> StatusOr<Instruction*> {
    if (i == bwd_.carry) return dy;
    if (i == bwd_.counter) return constant(L_, u->shape());
    if (passed(bwd_, i)) {
      const Instruction* v = bwd_.init->operand(i);
      if (v->opcode() == Opcode::kGetTupleElement && v->operand(0) == fwd_.loop && !u->users().empty())
        return Unimplemented("scan: %{} (the residuals the backward scan read) is used after it", u->name());
      return const_cast<Instruction*>(v);
    }
    // A stacked gradient: the layers' outputs at their rows.
    const int64_t j = std::find(grad_elements_.begin(), grad_elements_.end(), i) - grad_elements_.begin();
    std::vector<Instruction*> parts(L_);
    for (int64_t t = 0; t < L_; ++t) {
      Instruction* g = AddGetTupleElement(*m_, e, bcalls[t], j + 1, "grad");
      Shape one = WithLeadingDim(g->shape(), 1);
      parts[row_of_[t]] = AddReshape(*m_, e, g, one, "grad.row");
    }
    Shape all = u->shape();
    all.clear_layout();
    Instruction* c = e.AddInstruction(Opcode::kConcatenate, all, m_->UniqueName(u->name() + ".stacked"), parts);
    c->attrs().Set(AttrId::kDimensions, std::vector<int64_t>{0});
    return c;
  }));
  RETURN_IF_ERROR(replace(fwd_, [&](int64_t i, const Instruction* u) -> StatusOr<Instruction*> {
    if (i == fwd_.carry) return xs.back();
    if (i == fwd_.counter) return constant(L_, u->shape());
    if (passed(fwd_, i)) return const_cast<Instruction*>(fwd_.init->operand(i));
    // Residuals: only the backward scan read them.
    for (const Instruction* uu : u->users())
      if (uu != bwd_.init) return Unimplemented("scan: %{} (written by the forward scan) is used by %{}", u->name(), uu->name());
    return nullptr;
  }));
  if (e.root() == bwd_.loop || e.root() == fwd_.loop) return Unimplemented("scan: the entry returns the `while` itself");
  return absl::OkStatus();
}

StatusOr<std::unique_ptr<Module>> ScanConverter::Run() {
  entry_ = m_->entry();
  RETURN_IF_ERROR(FindLoops());
  RETURN_IF_ERROR(MapLayers());
  RETURN_IF_ERROR(BuildLayer());
  RETURN_IF_ERROR(BuildBackward());
  RETURN_IF_ERROR(RewriteEntry());
  return std::move(m_);
}

}  // namespace

StatusOr<std::unique_ptr<Module>> ScanToLayerCalls(const Module& inlined) {
  return ScanConverter(inlined.Clone()).Run();
}

}  // namespace spmdc::pipeline

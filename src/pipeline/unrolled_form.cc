// UnrolledToLayerCalls (layer_forms.h): a training step whose layers are written out one after
// another in the entry becomes the layer-call form.
//
// The forward pass is split by the stage search's clustering (auto/layers.h): layer l's forward
// instructions are its block of segments, its input the one value that crosses into them, its
// output the one value that crosses out. Every other computed instruction (the backward pass
// and the optimizer update) gets a block by the clustering's rule, the smallest over its
// operands (a forward value counts as the last block whose forward reads it, a weight as its
// layer's block), except that what comes before the first block and after the last (an
// embedding, the loss head) are blocks of their own; a value that only earlier blocks read
// moves down to them with what it alone needs (a bias gradient that reads only the next block's
// cotangent, and the Adam moments' updates that read it). The update is told apart from the
// backward by where values flow: an instruction whose every user is the result or another such
// instruction of its block belongs to the update (set R), and the instructions of R that read
// backward or forward values, down to the first dot or reduction (the weight gradients' sums
// over the batch), are the backward's last ones. So one layer's backward is its block's
// instructions outside R plus those.
//
// A template layer (an inner one, which has every part of the backward: the first layer's
// backward may lack the input cotangent no one needs) is outlined: its forward as the layer
// computation F(x, w...), its backward, recomputing the forward values it reads, as
// G(x, w..., dy) -> (dx, outputs...). Every layer is then matched against the template:
// forward instructions one to one by position (the clustering's blocks have equal
// signatures), backward instructions from their operands' matches (same signature, same
// operands). A layer whose matched instructions are read from outside other than through the
// template's outputs, or whose cotangents do not chain, is refused (Unimplemented).
#include <algorithm>
#include <functional>
#include <limits>

#include "absl/container/flat_hash_set.h"
#include "auto/layers.h"
#include "fmt/format.h"
#include "pipeline/layer_forms.h"

namespace spmdc::pipeline {
namespace {

using autoshard::BodySignature;
constexpr int kNone = std::numeric_limits<int>::min();

class UnrolledConverter {
 public:
  explicit UnrolledConverter(std::unique_ptr<Module> module) : m_(std::move(module)) {}
  StatusOr<std::unique_ptr<Module>> Run();

 private:
  // Per layer: its forward instructions (schedule order), input, output, weights, and the
  // matches of the template's backward instructions (null: not in this layer).
  struct Layer {
    std::vector<Instruction*> forward;
    Instruction* input = nullptr;
    Instruction* output = nullptr;
    std::vector<Instruction*> weights;
    absl::flat_hash_map<const Instruction*, Instruction*> match;  // template instr -> this layer's
    Instruction* dy = nullptr;
  };
  Status Classify();
  Status Template();
  Status MatchForward(int l);
  Status MatchBackward(int l);
  Status Check(int l);
  Status Outline();
  Status Rewrite();
  bool SameFree(const Instruction* a, const Instruction* b) const;
  int Pos(const Instruction* i) const { return pos_.at(i); }
  bool IsFree(const Instruction* i) const { return free_[Pos(i)]; }
  bool IsForward(const Instruction* i) const { return cl_.forward_segment[Pos(i)] >= 0; }
  // A computed value of the backward pass or the update.
  bool IsBackward(const Instruction* i) const {
    const int p = Pos(i);
    return !free_[p] && cl_.forward_segment[p] < 0 && i->opcode() != Opcode::kParameter && i != entry_->root();
  }

  std::unique_ptr<Module> m_;
  Computation* entry_ = nullptr;
  autoshard::LayerClustering cl_;
  absl::flat_hash_map<const Instruction*, int> pos_;
  std::vector<char> free_, in_r_;
  std::vector<int> block_;  // per schedule index: the block (-1 before the first, L after the last)
  int L_ = 0, t_ = 0;       // layers, template layer
  std::vector<Layer> layers_;
  std::vector<Instruction*> backward_;  // the template's backward instructions, schedule order
  absl::flat_hash_set<const Instruction*> in_backward_;
  std::vector<Instruction*> outputs_;   // the template's: dx first
  Instruction* dy_ = nullptr;           // the template's output cotangent
  Computation* f_ = nullptr;
  Computation* g_ = nullptr;
};

bool UnrolledConverter::SameFree(const Instruction* a, const Instruction* b) const {
  if (a == b) return true;
  if (!IsFree(a) || !IsFree(b) || a->operand_count() != b->operand_count() || BodySignature(*a) != BodySignature(*b))
    return false;
  for (int64_t i = 0; i < a->operand_count(); ++i)
    if (!SameFree(a->operand(i), b->operand(i))) return false;
  return true;
}

Status UnrolledConverter::Classify() {
  ASSIGN_OR_RETURN(cl_, autoshard::ClusterLayers(*m_));
  if (!cl_.repeated || cl_.num_layers < 2)
    return Unimplemented("unrolled: the forward pass has no block of segments that repeats (layers)");
  L_ = cl_.num_layers;
  const std::vector<const Instruction*>& s = cl_.schedule;
  const int n = static_cast<int>(s.size());
  for (int i = 0; i < n; ++i) pos_[s[i]] = i;
  free_.assign(n, 0);
  for (int i = 0; i < n; ++i) {
    const Instruction* x = s[i];
    bool f = x->opcode() != Opcode::kParameter && !x->HasSideEffect() && x != entry_->root() &&
             x->shape().IsArray();
    for (const Instruction* op : x->operands()) f = f && free_[Pos(op)];
    free_[i] = f;
  }
  // Blocks of the forward values: their segment's.
  const int o = cl_.first_block_segment, p = cl_.period_segments;
  block_.assign(n, kNone);
  layers_.resize(L_);
  for (int i = 0; i < n; ++i) {
    const int seg = cl_.forward_segment[i];
    if (seg < 0) continue;
    block_[i] = seg < o ? -1 : std::min((seg - o) / p, L_);
    if (seg >= o + L_ * p) block_[i] = L_;
    if (block_[i] >= 0 && block_[i] < L_) layers_[block_[i]].forward.push_back(const_cast<Instruction*>(s[i]));
  }
  // The key of a forward value: the last block whose forward reads it.
  std::vector<int> key(block_);
  for (int i = 0; i < n; ++i)
    if (cl_.forward_segment[i] >= 0)
      for (const Instruction* op : s[i]->operands()) key[Pos(op)] = std::max(key[Pos(op)], block_[i]);
  // Blocks of the rest: the smallest over the operands.
  for (int i = 0; i < n; ++i) {
    if (!IsBackward(s[i])) continue;
    int b = std::numeric_limits<int>::max();
    for (const Instruction* op : s[i]->operands()) {
      const int q = Pos(op);
      if (free_[q]) continue;
      const int v = cl_.forward_segment[q] >= 0 || op->opcode() == Opcode::kParameter ? key[q] : block_[q];
      if (v != kNone) b = std::min(b, v);
    }
    if (b != std::numeric_limits<int>::max()) block_[i] = b;
  }
  // A backward value that only earlier blocks read (the sum of a bias's gradient, which reads
  // nothing but the output cotangent, so the rule above leaves it with the next block) moves down
  // to the latest block that reads it, when its inputs are read there anyway (as layers.h does).
  auto at = [&](const Instruction* op) {
    const int q = Pos(op);
    return cl_.forward_segment[q] >= 0 || op->opcode() == Opcode::kParameter ? key[q] : block_[q];
  };
  // `v` moves to `target` with the backward values it needs that nothing outside reads (a bias
  // gradient, and with Adam the moments' updates that read it): the closure over operands of the
  // values not read at `target` already, when every reader of the closure is in it or at
  // `target` or before (bounded: a layer's whole backward never moves).
  auto try_move = [&](int v, int target) {
    absl::flat_hash_set<int> set = {v};
    std::vector<int> work = {v};
    while (!work.empty()) {
      const int x = work.back();
      work.pop_back();
      for (const Instruction* op : s[x]->operands()) {
        const int q = Pos(op);
        if (free_[q] || at(op) <= target || set.contains(q)) continue;
        bool read_there = false;
        for (const Instruction* u : op->users())
          read_there = read_there || (u != entry_->root() && !set.contains(Pos(u)) && block_[Pos(u)] <= target);
        if (read_there) continue;
        if (!IsBackward(op) || set.size() >= 512) return;
        set.insert(q);
        work.push_back(q);
      }
    }
    for (int x : set)
      for (const Instruction* u : s[x]->users())
        if (u != entry_->root() && !set.contains(Pos(u)) && block_[Pos(u)] > target) return;
    for (int x : set) block_[x] = target;
  };
  for (int i = n - 1; i >= 0; --i) {
    if (!IsBackward(s[i]) || block_[i] == kNone) continue;
    int target = kNone;
    for (const Instruction* u : s[i]->users())
      if (u != entry_->root()) target = std::max(target, block_[Pos(u)]);
    if (target != kNone && target < block_[i]) try_move(i, target);
  }
  // R: flows only to the result within its block. (Across blocks it would take in a first
  // layer's whole backward, which feeds only its weights' updates when no one needs its input
  // cotangent, and from there every layer's.)
  in_r_.assign(n, 0);
  for (int i = n - 1; i >= 0; --i) {
    if (!IsBackward(s[i]) || s[i]->users().empty()) continue;
    bool r = true;
    // Values computed only from parameters the forward does not read (Adam's moments and step
    // count) have no block: they belong to any block's update.
    for (const Instruction* u : s[i]->users())
      r = r && (u == entry_->root() || (in_r_[Pos(u)] && (block_[Pos(u)] == block_[i] || block_[i] == kNone)));
    in_r_[i] = r;
  }
  return absl::OkStatus();
}

Status UnrolledConverter::Template() {
  // An inner layer has the whole backward; with two layers, the last (its backward passes the
  // input cotangent on to the first).
  t_ = L_ >= 3 ? 1 : L_ - 1;
  Layer& t = layers_[t_];
  absl::flat_hash_set<const Instruction*> fwd(t.forward.begin(), t.forward.end());
  // Input: the one computed value from outside that the forward reads (or, for a first layer
  // reading a parameter, matched later by position); output: the one value read after it.
  for (Instruction* i : t.forward)
    for (Instruction* op : i->operands()) {
      if (fwd.contains(op) || IsFree(op)) continue;
      if (op->opcode() == Opcode::kParameter) {
        if (std::find(t.weights.begin(), t.weights.end(), op) == t.weights.end()) t.weights.push_back(op);
        continue;
      }
      if (t.input != nullptr && t.input != op)
        return Unimplemented("unrolled: layer {} reads %{} and %{}, computed before it (one input expected)", t_,
                             t.input->name(), op->name());
      t.input = op;
    }
  for (Instruction* i : t.forward)
    for (const Instruction* u : i->users())
      if (!fwd.contains(u) && IsForward(u)) {
        if (t.output != nullptr && t.output != i)
          return Unimplemented("unrolled: layer {} passes %{} and %{} on (one output expected)", t_, t.output->name(),
                               i->name());
        t.output = i;
      }
  if (t.input == nullptr || t.output == nullptr || !(t.input->shape() == t.output->shape()))
    return Unimplemented("unrolled: layer {} does not map an activation to one of the same shape", t_);
  // The backward: the template block's instructions outside R, and R's first ones that read
  // values outside R, down to the first sums over the batch (dots, reductions: the weight
  // gradients); a layout or elementwise op in between (a transpose of an activation) goes with
  // the backward.
  const std::vector<const Instruction*>& s = cl_.schedule;
  auto contracts = [](const Instruction* i) {
    return i->opcode() == Opcode::kDot || i->opcode() == Opcode::kReduce || i->opcode() == Opcode::kConvolution;
  };
  std::vector<char> take(s.size(), 0);
  for (size_t i = 0; i < s.size(); ++i) {
    if (!IsBackward(s[i]) || block_[i] != t_) continue;
    if (!in_r_[i]) {
      take[i] = 1;
      continue;
    }
    for (const Instruction* op : s[i]->operands()) {
      const int q = Pos(op);
      if (free_[q]) continue;
      const bool core = IsForward(op) || op == t.input || (IsBackward(op) && !in_r_[q]) ||
                        (in_r_[q] && take[q] && !contracts(s[q]));
      take[i] = take[i] || core;
    }
  }
  for (size_t i = 0; i < s.size(); ++i)
    if (take[i]) {
      backward_.push_back(const_cast<Instruction*>(s[i]));
      in_backward_.insert(s[i]);
    }
  if (backward_.empty()) return Unimplemented("unrolled: layer {} has no backward instructions", t_);
  // Inputs from outside: the layer's input, weights, constants and one cotangent.
  for (Instruction* b : backward_)
    for (Instruction* op : b->operands()) {
      if (in_backward_.contains(op) || fwd.contains(op) || op == t.input || IsFree(op)) continue;
      if (op->opcode() == Opcode::kParameter) {
        if (std::find(t.weights.begin(), t.weights.end(), op) == t.weights.end())
          return Unimplemented("unrolled: the backward of layer {} reads %{}, which its forward does not", t_, op->name());
        continue;
      }
      if (!IsBackward(op) || (dy_ != nullptr && dy_ != op))
        return Unimplemented("unrolled: the backward of layer {} reads %{} and %{} from outside it (one output "
                             "cotangent expected)",
                             t_, dy_ ? dy_->name() : std::string("its forward"), op->name());
      dy_ = op;
    }
  if (dy_ == nullptr || !(dy_->shape() == t.output->shape()))
    return Unimplemented("unrolled: the backward of layer {} reads no cotangent of its output", t_);
  // Outputs: what is read from outside; the input cotangent (read by earlier blocks) first.
  Instruction* dx = nullptr;
  std::vector<Instruction*> rest;
  for (Instruction* b : backward_) {
    bool outside = false, earlier = false;
    for (const Instruction* u : b->users()) {
      if (in_backward_.contains(u)) continue;
      outside = true;
      earlier = earlier || (u != entry_->root() && block_[Pos(u)] < t_);
    }
    if (!outside) continue;
    if (earlier && b->shape() == t.input->shape()) {
      if (dx != nullptr)
        return Unimplemented("unrolled: the backward of layer {} passes %{} and %{} to earlier layers (one input "
                             "cotangent expected)",
                             t_, dx->name(), b->name());
      dx = b;
    } else {
      rest.push_back(b);
    }
  }
  if (dx == nullptr) return Unimplemented("unrolled: the backward of layer {} computes no input cotangent", t_);
  outputs_ = {dx};
  outputs_.insert(outputs_.end(), rest.begin(), rest.end());
  return absl::OkStatus();
}

Status UnrolledConverter::MatchForward(int l) {
  const Layer& t = layers_[t_];
  Layer& y = layers_[l];
  if (y.forward.size() != t.forward.size())
    return Unimplemented("unrolled: layer {} has {} forward instructions, layer {} {}", l, y.forward.size(), t_,
                         t.forward.size());
  if (l == t_) return absl::OkStatus();
  absl::flat_hash_map<const Instruction*, int> index;
  for (size_t i = 0; i < t.forward.size(); ++i) index[t.forward[i]] = static_cast<int>(i);
  y.weights.assign(t.weights.size(), nullptr);
  auto bind = [&](Instruction*& slot, Instruction* v, const Instruction* at) -> Status {
    if (slot != nullptr && slot != v)
      return Unimplemented("unrolled: layer {} differs from layer {} at %{}", l, t_, at->name());
    slot = v;
    return absl::OkStatus();
  };
  for (size_t i = 0; i < t.forward.size(); ++i) {
    const Instruction* a = t.forward[i];
    Instruction* b = y.forward[i];
    if (BodySignature(*a) != BodySignature(*b) || a->operand_count() != b->operand_count())
      return Unimplemented("unrolled: layer {} differs from layer {} at %{}", l, t_, b->name());
    for (int64_t k = 0; k < a->operand_count(); ++k) {
      const Instruction* ao = a->operand(k);
      Instruction* bo = b->operand(k);
      auto it = index.find(ao);
      if (it != index.end()) {
        if (y.forward[it->second] != bo) return Unimplemented("unrolled: layer {} differs from layer {} at %{}", l, t_, b->name());
      } else if (ao == t.input) {
        RETURN_IF_ERROR(bind(y.input, bo, b));
      } else if (ao->opcode() == Opcode::kParameter) {
        const size_t w = std::find(t.weights.begin(), t.weights.end(), ao) - t.weights.begin();
        if (bo->opcode() != Opcode::kParameter) return Unimplemented("unrolled: layer {} reads %{} where layer {} reads a weight", l, bo->name(), t_);
        RETURN_IF_ERROR(bind(y.weights[w], bo, b));
      } else if (!SameFree(ao, bo)) {
        return Unimplemented("unrolled: layer {} differs from layer {} at %{}", l, t_, b->name());
      }
    }
    if (a == t.output) y.output = b;
  }
  for (size_t w = 0; w < y.weights.size(); ++w)
    if (y.weights[w] == nullptr) {
      // A weight only the backward reads: by the backward's match (none here: the template
      // refuses those).
      return Unimplemented("unrolled: layer {} has no weight in the place of %{}", l, t.weights[w]->name());
    }
  return absl::OkStatus();
}

Status UnrolledConverter::MatchBackward(int l) {
  Layer& y = layers_[l];
  const Layer& t = layers_[t_];
  absl::flat_hash_map<const Instruction*, Instruction*> image;
  for (size_t i = 0; i < t.forward.size(); ++i) image[t.forward[i]] = y.forward[i];
  image[t.input] = y.input;
  for (size_t w = 0; w < t.weights.size(); ++w) image[t.weights[w]] = y.weights[w];
  absl::flat_hash_set<const Instruction*> taken;
  // Rounds until nothing more matches: an instruction waits until one of its operands has a
  // match (or, reading only the cotangent, until that is known).
  for (bool progress = true; progress;) {
    progress = false;
    for (Instruction* b : backward_) {
      if (image.contains(b)) continue;
      const Instruction* anchor = nullptr;
      for (const Instruction* op : b->operands())
        if (!IsFree(op) && image.contains(op) && image.at(op) != nullptr && (op != dy_ || y.dy != nullptr)) anchor = op;
      if (anchor == nullptr && y.dy != nullptr)
        for (const Instruction* op : b->operands())
          if (op == dy_) anchor = op;
      Instruction* anchor_image = anchor == nullptr ? nullptr : (anchor == dy_ ? y.dy : image.at(anchor));
      if (anchor_image == nullptr) continue;
      const std::string sig = BodySignature(*b);
      for (Instruction* c : anchor_image->users()) {
        if (taken.contains(c) || !IsBackward(c) || c->operand_count() != b->operand_count() || BodySignature(*c) != sig)
          continue;
        Instruction* bound_dy = y.dy;
        bool ok = true;
        for (int64_t k = 0; k < b->operand_count() && ok; ++k) {
          const Instruction* bo = b->operand(k);
          Instruction* co = c->operand(k);
          if (bo == dy_) {
            ok = (bound_dy == nullptr && IsBackward(co)) || bound_dy == co;
            bound_dy = co;
          } else if (image.contains(bo)) {
            ok = image.at(bo) == co;
          } else if (IsFree(bo)) {
            ok = SameFree(bo, co);
          } else {
            ok = false;  // an operand not matched (yet)
          }
        }
        if (!ok) continue;
        y.dy = bound_dy;
        image[b] = c;
        taken.insert(c);
        y.match[b] = c;
        progress = true;
        break;
      }
    }
  }
  return absl::OkStatus();
}

Status UnrolledConverter::Check(int l) {
  Layer& y = layers_[l];
  for (size_t j = 1; j < outputs_.size(); ++j)
    if (!y.match.contains(outputs_[j]))
      return Unimplemented("unrolled: layer {} computes nothing in the place of layer {}'s %{}", l, t_,
                           outputs_[j]->name());
  if (y.dy == nullptr) return Unimplemented("unrolled: layer {}'s backward reads no output cotangent", l);
  absl::flat_hash_set<const Instruction*> mine(y.forward.begin(), y.forward.end()), outs;
  for (const auto& [b, c] : y.match) mine.insert(c);
  for (const Instruction* o : outputs_)
    if (y.match.contains(o)) outs.insert(y.match.at(o));
  for (const Instruction* i : mine) {
    if (i == y.output || outs.contains(i)) continue;
    for (const Instruction* u : i->users())
      if (!mine.contains(u))
        return Unimplemented("unrolled: %{} of layer {} is read by %{}, outside the layer", i->name(), l, u->name());
  }
  return absl::OkStatus();
}

Status UnrolledConverter::Outline() {
  const Layer& t = layers_[t_];
  const Shape& act = t.input->shape();
  auto weights_of = [&](Computation& c, std::vector<Instruction*>& w) {
    for (size_t k = 0; k < t.weights.size(); ++k)
      w.push_back(AddParameter(*m_, c, static_cast<int64_t>(k) + 1, t.weights[k]->shape(), t.weights[k]->name()));
  };
  auto reads = [&](Instruction* x, const std::vector<Instruction*>& w, Instruction* dy) {
    return [this, &t, x, w, dy](const Instruction* i) -> StatusOr<Instruction*> {
      if (i == t.input) return x;
      if (i == dy_) return dy;
      const auto it = std::find(t.weights.begin(), t.weights.end(), i);
      if (it != t.weights.end()) return w[it - t.weights.begin()];
      if (i->opcode() == Opcode::kParameter)
        return Unimplemented("unrolled: layer {} reads %{}, which is none of its weights", t_, i->name());
      return nullptr;
    };
  };
  f_ = m_->AddComputation(std::make_unique<Computation>(m_->UniqueName("unrolled_layer")));
  {
    Instruction* x = AddParameter(*m_, *f_, 0, act, "x");
    std::vector<Instruction*> w;
    weights_of(*f_, w);
    InstructionCopier copier(*m_, *f_, reads(x, w, nullptr));
    ASSIGN_OR_RETURN(Instruction * y, copier.Copy(t.output));
    f_->set_root(y);
    RETURN_IF_ERROR(f_->RebuildParameterList());
  }
  g_ = m_->AddComputation(std::make_unique<Computation>(m_->UniqueName("unrolled_layer_bwd")));
  {
    Instruction* x = AddParameter(*m_, *g_, 0, act, "x");
    std::vector<Instruction*> w;
    weights_of(*g_, w);
    Instruction* dy = AddParameter(*m_, *g_, static_cast<int64_t>(t.weights.size()) + 1, act, "dy");
    InstructionCopier copier(*m_, *g_, reads(x, w, dy));
    std::vector<Instruction*> outs;
    std::vector<Shape> shapes;
    for (const Instruction* o : outputs_) {
      ASSIGN_OR_RETURN(Instruction * c, copier.Copy(o));
      outs.push_back(c);
      shapes.push_back(c->shape());
    }
    g_->set_root(g_->AddInstruction(Opcode::kTuple, Shape::Tuple(shapes), m_->UniqueName("grads"), outs));
    RETURN_IF_ERROR(g_->RebuildParameterList());
  }
  return absl::OkStatus();
}

Status UnrolledConverter::Rewrite() {
  Computation& e = *entry_;
  std::vector<Instruction*> calls(L_), bcalls(L_);
  std::vector<Instruction*> inputs(L_);
  for (int l = 0; l < L_; ++l) {
    Layer& y = layers_[l];
    inputs[l] = l == 0 ? y.input : calls[l - 1];
    std::vector<Instruction*> ops = {inputs[l]};
    ops.insert(ops.end(), y.weights.begin(), y.weights.end());
    calls[l] = AddCall(*m_, e, f_, ops, "layer");
  }
  Instruction* dy = layers_[L_ - 1].dy;
  for (int l = L_ - 1; l >= 0; --l) {
    Layer& y = layers_[l];
    std::vector<Instruction*> ops = {inputs[l]};
    ops.insert(ops.end(), y.weights.begin(), y.weights.end());
    ops.push_back(dy);
    bcalls[l] = AddCall(*m_, e, g_, ops, "layer_bwd");
    std::vector<Instruction*> outs;
    for (size_t j = 0; j < outputs_.size(); ++j) outs.push_back(AddGetTupleElement(*m_, e, bcalls[l], j, "grad"));
    for (size_t j = 0; j < outputs_.size(); ++j)
      if (y.match.contains(outputs_[j])) y.match.at(outputs_[j])->ReplaceAllUsesWith(outs[j]);
    dy = outs[0];
  }
  for (int l = 0; l < L_; ++l) layers_[l].output->ReplaceAllUsesWith(calls[l]);
  return absl::OkStatus();
}

StatusOr<std::unique_ptr<Module>> UnrolledConverter::Run() {
  entry_ = m_->entry();
  RETURN_IF_ERROR(Classify());
  RETURN_IF_ERROR(Template());
  for (int l = 0; l < L_; ++l) RETURN_IF_ERROR(MatchForward(l));
  for (int l = 0; l < L_; ++l) {
    if (layers_[l].input == nullptr || layers_[l].output == nullptr)
      return Unimplemented("unrolled: layer {} has no input or output in the places of layer {}'s", l, t_);
    RETURN_IF_ERROR(MatchBackward(l));
  }
  // The cotangents chain: layer l's output cotangent is layer l+1's input cotangent.
  for (int l = 0; l + 1 < L_; ++l) {
    auto it = layers_[l + 1].match.find(outputs_[0]);
    if (it == layers_[l + 1].match.end() || it->second != layers_[l].dy)
      return Unimplemented("unrolled: layer {}'s output cotangent is not layer {}'s input cotangent", l, l + 1);
  }
  for (int l = 0; l < L_; ++l) RETURN_IF_ERROR(Check(l));
  RETURN_IF_ERROR(Outline());
  RETURN_IF_ERROR(Rewrite());
  return std::move(m_);
}

}  // namespace

StatusOr<std::unique_ptr<Module>> UnrolledToLayerCalls(const Module& inlined) {
  return UnrolledConverter(inlined.Clone()).Run();
}

}  // namespace spmdc::pipeline

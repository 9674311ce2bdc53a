// Per-device memory by liveness over the schedule.
//
// The schedule of a computation is its post order (what the executors run). A buffer is born at
// the instruction that allocates it and dies after the last instruction that reads it or any
// value aliasing it (tuples, get-tuple-element, bitcasts, reshapes, copies, while results and
// async tuples alias their operands' buffers; an in-place dynamic-update-slice reuses its
// operand's buffer when that is the operand's last use). Entry parameters live for the whole
// program unless donated (input_output_alias, buffer_donor), constants always; the root's
// buffers live to the end. A while/call/conditional/async-start adds, while it runs, the peak of
// its called computations (their parameters belong to the caller). A fusion's body never
// materialises. Every step is linear: one pass to find last uses, one to assign buffers, one to
// sweep, and one more over the computations on the path to the peak to list what is live there.
#include <algorithm>
#include <limits>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "cost/internal.h"

namespace spmdc {

using namespace cost_internal;

namespace {

// Parameter numbers in the module's input_output_alias / buffer_donor header attributes.
absl::flat_hash_set<int64_t> DonatedParameters(const Module& module) {
  absl::flat_hash_set<int64_t> out;
  auto numbers_after = [&](const std::string& text, char marker, bool need_colon) {
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] != marker) continue;
      size_t j = i + 1;
      if (need_colon) {
        while (j < text.size() && text[j] == ' ') ++j;
        if (j >= text.size() || text[j] != '(') continue;
        ++j;
      }
      while (j < text.size() && text[j] == ' ') ++j;
      size_t k = j;
      while (k < text.size() && std::isdigit(static_cast<unsigned char>(text[k]))) ++k;
      if (k > j) out.insert(std::atoll(text.substr(j, k - j).c_str()));
    }
  };
  if (const std::string* a = module.config().Get<std::string>(AttrId::kInputOutputAlias))
    numbers_after(*a, ':', true);
  if (const std::string* d = module.config().Get<std::string>(AttrId::kBufferDonor))
    numbers_after(*d, '(', false);
  return out;
}

struct Buffer {
  int64_t bytes = 0;
  const Instruction* def = nullptr;
  int64_t leaf = 0;
  int64_t def_step = 0;
  int64_t last = 0;       // last step that reads it (n: the end)
  bool pinned = false;    // live for the whole computation (entry parameters, constants)
  bool external = false;  // a callee's parameter: the caller's buffer
};

// The liveness of one computation.
struct Liveness {
  std::vector<const Instruction*> order;
  std::vector<Buffer> buffers;
  std::vector<int64_t> alloc;   // per step: bytes allocated (kept after the step)
  std::vector<int64_t> nested;  // per step: transient peak of called computations
  std::vector<const Computation*> nested_peak_callee;
  std::vector<int64_t> timeline;
  int64_t baseline = 0;         // pinned bytes
  int64_t peak = 0;
  int64_t peak_step = -1;
  std::vector<std::vector<int>> leaves;  // per step: buffer ids of the result's leaves
};

class MemoryModel {
 public:
  MemoryModel(const Module& module, const CostOptions& options)
      : module_(module), options_(options), donated_(DonatedParameters(module)) {}

  const Liveness& Of(const Computation& c) {
    auto it = done_.find(&c);
    if (it != done_.end()) return *it->second;
    auto l = std::make_unique<Liveness>();
    Build(c, *l);
    return *(done_[&c] = std::move(l));
  }

  // Buffers live at the peak of `c`, nested computations included (appended to `out`).
  void CollectAtPeak(const Computation& c, std::vector<LiveValue>* out, std::string* where,
                     std::string* where_comp) {
    const Liveness& l = Of(c);
    if (l.peak_step < 0) return;
    const int64_t p = l.peak_step;
    const bool in_callee = l.nested_peak_callee[p] != nullptr && l.nested[p] > l.alloc[p];
    for (const Buffer& b : l.buffers) {
      if (b.bytes == 0 || b.external) continue;
      bool live = b.pinned || (b.def_step < p && b.last >= p) || (b.def_step == p && !in_callee);
      if (!live) continue;
      LiveValue v;
      v.name = b.def->name();
      v.computation = c.name();
      const Shape& s = b.def->shape().IsTuple() ? LeafShape(b.def->shape(), b.leaf) : b.def->shape();
      v.shape = s.ToString(false);
      v.bytes = b.bytes;
      v.source = SourceInfoOf(*b.def);
      v.parameter = b.def->opcode() == Opcode::kParameter && c.IsEntry();
      out->push_back(std::move(v));
    }
    *where = l.order[p]->name();
    *where_comp = c.name();
    if (in_callee) CollectAtPeak(*l.nested_peak_callee[p], out, where, where_comp);
  }

 private:
  static const Shape& LeafShape(const Shape& s, int64_t leaf) {
    if (!s.IsTuple()) return s;
    for (const Shape& e : s.tuple_shapes()) {
      int64_t n = e.leaf_count();
      if (leaf < n) return LeafShape(e, leaf);
      leaf -= n;
    }
    return s;
  }

  int NewBuffer(Liveness& l, int64_t bytes, const Instruction* def, int64_t leaf, int64_t step) {
    Buffer b;
    b.bytes = bytes;
    b.def = def;
    b.leaf = leaf;
    b.def_step = step;
    b.last = step;
    l.buffers.push_back(b);
    return static_cast<int>(l.buffers.size() - 1);
  }

  void Build(const Computation& c, Liveness& l) {
    l.order = ScheduleOf(c);
    const int64_t n = static_cast<int64_t>(l.order.size());
    const bool entry = c.IsEntry();
    absl::flat_hash_map<const Instruction*, int64_t> pos;
    pos.reserve(n);
    for (int64_t s = 0; s < n; ++s) pos[l.order[s]] = s;
    std::vector<int64_t> last_use(n, -1);
    for (int64_t s = 0; s < n; ++s)
      for (const Instruction* op : l.order[s]->operands()) last_use[pos.at(op)] = s;
    if (n > 0) last_use[n - 1] = std::max(last_use[n - 1], n);  // the root (last in post order)
    for (int64_t s = 0; s < n; ++s)
      if (l.order[s] == c.root()) last_use[s] = n;

    l.leaves.assign(n, {});
    l.alloc.assign(n, 0);
    l.nested.assign(n, 0);
    l.nested_peak_callee.assign(n, nullptr);
    for (int64_t s = 0; s < n; ++s) {
      const Instruction& instr = *l.order[s];
      std::vector<int>& leaves = l.leaves[s];
      auto operand_leaves = [&](int64_t k) -> const std::vector<int>& { return l.leaves[pos.at(instr.operand(k))]; };
      auto fresh = [&](int64_t from_leaf) {
        std::vector<int64_t> bytes = LeafBytes(instr, options_);
        for (int64_t k = from_leaf; k < static_cast<int64_t>(bytes.size()); ++k)
          leaves.push_back(NewBuffer(l, bytes[k], &instr, k, s));
      };
      const int64_t leaf_count = instr.shape().leaf_count();
      if (instr.opcode() == Opcode::kParameter) {
        fresh(0);
        for (int b : leaves) {
          if (!entry) l.buffers[b].external = true;
          else if (!donated_.contains(instr.parameter_number())) l.buffers[b].pinned = true;
          else l.buffers[b].def_step = 0;  // a donated parameter exists from the start
        }
      } else {
        switch (ResultBuffersOf(instr)) {
          case ResultBuffers::kConstant:
            fresh(0);
            for (int b : leaves) l.buffers[b].pinned = true;
            break;
          case ResultBuffers::kOperand0:
            if (instr.operand_count() >= 1 && static_cast<int64_t>(operand_leaves(0).size()) == leaf_count)
              leaves = operand_leaves(0);
            else
              fresh(0);
            break;
          case ResultBuffers::kConcat:
            for (int64_t k = 0; k < instr.operand_count(); ++k) {
              const auto& ol = operand_leaves(k);
              leaves.insert(leaves.end(), ol.begin(), ol.end());
            }
            if (static_cast<int64_t>(leaves.size()) != leaf_count) {
              leaves.clear();
              fresh(0);
            }
            break;
          case ResultBuffers::kTupleElement:
          case ResultBuffers::kDoneElement0:
          case ResultBuffers::kDoneElement1: {
            const Instruction* src = instr.operand(0);
            int64_t index = ResultBuffersOf(instr) == ResultBuffers::kTupleElement ? instr.tuple_index()
                            : ResultBuffersOf(instr) == ResultBuffers::kDoneElement0 ? 0 : 1;
            auto [b, e] = TupleElementLeaves(src->shape(), index);
            const auto& ol = operand_leaves(0);
            if (src->shape().IsTuple() && e <= static_cast<int64_t>(ol.size()) && e - b == leaf_count)
              leaves.assign(ol.begin() + b, ol.begin() + e);
            else
              fresh(0);
            break;
          }
          case ResultBuffers::kStartTuple:
          case ResultBuffers::kCopyStart: {
            std::vector<int> carried;
            for (int64_t k = 0; k < instr.operand_count(); ++k) {
              const auto& ol = operand_leaves(k);
              carried.insert(carried.end(), ol.begin(), ol.end());
            }
            const Shape& s0 = instr.shape().tuple_shape(0);
            int64_t first = s0.leaf_count();
            if (static_cast<int64_t>(carried.size()) != first) {
              fresh(0);
              break;
            }
            leaves = carried;
            if (ResultBuffersOf(instr) == ResultBuffers::kCopyStart &&
                instr.shape().tuple_shape(1).leaf_count() == first) {
              leaves.insert(leaves.end(), carried.begin(), carried.end());
              first *= 2;
            }
            fresh(first);
            break;
          }
          case ResultBuffers::kNew: {
            // dynamic-update-slice updates its operand in place when nothing reads it later.
            if (instr.opcode() == Opcode::kDynamicUpdateSlice && instr.operand_count() >= 2 &&
                operand_leaves(0).size() == 1) {
              int b = operand_leaves(0)[0];
              bool once = true;
              for (int64_t k = 1; k < instr.operand_count(); ++k) once &= instr.operand(k) != instr.operand(0);
              if (once && !l.buffers[b].pinned && l.buffers[b].last <= s) {
                leaves = {b};
                break;
              }
            }
            fresh(0);
            break;
          }
        }
      }
      for (int b : leaves) l.buffers[b].last = std::max(l.buffers[b].last, last_use[s]);
      // Called computations run while this instruction executes.
      auto consider = [&](const Computation* callee) {
        if (callee == nullptr) return;
        const Liveness& cl = Of(*callee);
        if (cl.peak > l.nested[s]) {
          l.nested[s] = cl.peak;
          l.nested_peak_callee[s] = callee;
        }
      };
      switch (instr.opcode()) {
        case Opcode::kWhile:
          consider(instr.computation_attr(AttrId::kBody));
          consider(instr.computation_attr(AttrId::kCondition));
          break;
        case Opcode::kCall: case Opcode::kConditional: case Opcode::kAsyncStart:
          for (const Computation* callee : instr.called_computations()) consider(callee);
          break;
        default: break;
      }
    }

    // Sweep.
    std::vector<int64_t> free_after(n + 1, 0);
    for (const Buffer& b : l.buffers) {
      if (b.external || b.bytes == 0) continue;
      if (b.pinned) {
        l.baseline += b.bytes;
        continue;
      }
      l.alloc[b.def_step] += b.bytes;
      free_after[std::min<int64_t>(b.last, n)] += b.bytes;
    }
    int64_t live = l.baseline;
    l.peak = l.baseline;
    if (entry) l.timeline.reserve(n);
    for (int64_t s = 0; s < n; ++s) {
      const int64_t during = live + std::max(l.alloc[s], l.nested[s]);
      if (during > l.peak || l.peak_step < 0) {
        l.peak = std::max(l.peak, during);
        l.peak_step = s;
      }
      if (entry) l.timeline.push_back(during);
      live += l.alloc[s] - free_after[s];
    }
  }

  const Module& module_;
  const CostOptions& options_;
  absl::flat_hash_set<int64_t> donated_;
  absl::flat_hash_map<const Computation*, std::unique_ptr<Liveness>> done_;
};

}  // namespace

MemoryEstimate EstimateMemory(const Module& module, const CostOptions& options) {
  MemoryEstimate m;
  const Computation* entry = module.entry();
  if (entry == nullptr) return m;
  MemoryModel model(module, options);
  const Liveness& l = model.Of(*entry);
  m.peak_bytes = l.peak;
  m.entry_timeline = l.timeline;
  m.peak_position = l.peak_step;
  absl::flat_hash_set<int> param_buffers;
  for (size_t s = 0; s < l.order.size(); ++s) {
    if (l.order[s]->opcode() != Opcode::kParameter) continue;
    for (int b : l.leaves[s]) {
      m.parameter_bytes += l.buffers[b].bytes;
      param_buffers.insert(b);
    }
  }
  if (!l.order.empty()) {
    absl::flat_hash_set<int> seen;
    for (int b : l.leaves.back())
      if (!param_buffers.contains(b) && seen.insert(b).second) m.output_bytes += l.buffers[b].bytes;
  }
  std::vector<LiveValue> live;
  model.CollectAtPeak(*entry, &live, &m.peak_instruction, &m.peak_computation);
  int64_t params_live = 0;
  for (const LiveValue& v : live) params_live += v.parameter ? v.bytes : 0;
  m.temporary_peak_bytes = m.peak_bytes - params_live;
  std::stable_sort(live.begin(), live.end(), [](const LiveValue& a, const LiveValue& b) { return a.bytes > b.bytes; });
  if (static_cast<int64_t>(live.size()) > options.top_values) live.resize(options.top_values);
  m.live_at_peak = std::move(live);
  return m;
}

}  // namespace spmdc

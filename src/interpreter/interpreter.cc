// The reference interpreter's executor: evaluates a computation in post order, one value slot
// per instruction, releasing each value right after its last user ran. Plans (post order, operand
// slots, release lists) are built once per computation before execution starts, so executing is
// read-only on shared state and kernels may call computations from several threads.
//
// Buffers are shared, never copied, by reshape/bitcast/copy/tuple/get-tuple-element and the
// identity-like ops. A value whose last use is the current instruction is moved ("donated") into
// dynamic-update-slice, tuple, get-tuple-element, while and the called computations, so that a
// loop carrying a buffer updates it in place.
#include "interpreter/interpreter.h"

#include <cstring>
#include <memory>
#include <string>
#include <thread>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "interpreter/kernels.h"
#include "interpreter/ops.h"
#include "support/check.h"

namespace spmdc {

namespace interp {

StatusOr<Literal> NewArray(const Shape& shape, int64_t max_bytes) {
  if (!shape.IsArray()) return InvalidArgument("expected an array shape, got {}", shape.ToString());
  for (int64_t d : shape.dims()) {
    if (d < 0) return InvalidArgument("cannot allocate {}: dynamic or negative dimension", shape.ToString());
  }
  const int64_t bytes = shape.byte_size();
  if (bytes > max_bytes)
    return InvalidArgument("value {} needs {} bytes, more than the interpreter's limit of {} bytes",
                           shape.ToString(false), bytes, max_bytes);
  // Every producer that allocates through here writes each element (pad fills first).
  return Literal::ForOverwrite(Shape(shape.dtype(), shape.dims()));
}

int& IntraOpThreads() {
  thread_local int threads = 1;
  return threads;
}

void ParallelFor(int64_t n, int64_t bytes_per_item,
                 const std::function<void(int64_t, int64_t)>& fn) {
  // Below ~4 MiB of traffic per thread, starting a thread costs more than it saves.
  constexpr int64_t kMinBytesPerThread = int64_t{4} << 20;
  const int64_t by_size = std::max<int64_t>(1, n * std::max<int64_t>(bytes_per_item, 1) / kMinBytesPerThread);
  const int64_t t = std::min<int64_t>(std::max(1, IntraOpThreads()), by_size);
  if (t <= 1 || n < 2) {
    fn(0, n);
    return;
  }
  std::vector<std::thread> workers;
  const int64_t chunk = (n + t - 1) / t;
  for (int64_t k = 1; k < t; ++k) {
    const int64_t b = std::min(n, k * chunk), e = std::min(n, (k + 1) * chunk);
    if (b < e) workers.emplace_back([&fn, b, e] { fn(b, e); });
  }
  fn(0, std::min(n, chunk));
  for (std::thread& w : workers) w.join();
}

}  // namespace interp

namespace {

using interp::NewArray;

struct Plan {
  std::vector<const Instruction*> order;      // instructions reachable from the root, post order
  std::vector<std::vector<int>> operand_slots;  // per step
  std::vector<std::vector<char>> donatable;     // per step, per operand: last use, appears once
  std::vector<std::vector<int>> release_after;  // per step
  int root_slot = -1;
};

std::string ToStd(absl::string_view v) { return std::string(v.data(), v.size()); }

Status Annotate(const Status& s, const Instruction& instr) {
  return Status(s.code(), fmt::format("{}: {}", instr.name(), ToStd(s.message())));
}

bool IsIdentityCustomCall(const std::string& target) {
  static const absl::flat_hash_set<std::string>* kTargets = new absl::flat_hash_set<std::string>{
      "Sharding",         "SPMDFullToShardShape", "SPMDShardToFullShape", "ShardBarrierFrom",
      "ShardBarrierTo",   "LayoutConstraint",     "MoveToHost",           "MoveToDevice",
      "X64Combine",       "annotate_device_placement", "PinToDevice",        "PinToDeviceSram"};
  return kTargets->contains(target);
}

class Executor {
 public:
  Executor(DeviceContext* device, const InterpreterOptions& options)
      : device_(device ? device : &single_), options_(options) {
    kctx_.call = [this](const Computation& c, const std::vector<Literal>& args) {
      return Run(c, args);
    };
    kctx_.intra_op_threads = options.intra_op_threads;
    kctx_.max_value_bytes = options.max_value_bytes;
  }

  // Builds the plans of `c` and of every computation it calls, transitively.
  Status Prepare(const Computation& c) {
    std::vector<const Computation*> stack = {&c};
    while (!stack.empty()) {
      const Computation* comp = stack.back();
      stack.pop_back();
      if (plans_.contains(comp)) continue;
      ASSIGN_OR_RETURN(auto plan, BuildPlan(*comp));
      for (const Instruction* i : plan->order)
        for (Computation* callee : i->called_computations()) stack.push_back(callee);
      plans_[comp] = std::move(plan);
    }
    return absl::OkStatus();
  }

  StatusOr<Literal> Run(const Computation& c, std::vector<Literal> args) {
    auto it = plans_.find(&c);
    if (it == plans_.end()) return Internal("computation {} was not prepared", c.name());
    const Plan& plan = *it->second;
    if (static_cast<int64_t>(args.size()) != c.num_parameters())
      return InvalidArgument("computation {} takes {} arguments, got {}", c.name(),
                             c.num_parameters(), args.size());
    for (int64_t i = 0; i < c.num_parameters(); ++i) {
      const Instruction* p = c.parameter(i);
      if (p == nullptr) return InvalidArgument("computation {} lacks parameter {}", c.name(), i);
      if (!args[i].shape().Compatible(p->shape()))
        return InvalidArgument("argument {} of {} has shape {}, expected {}", i, c.name(),
                               args[i].shape().ToString(false), p->shape().ToString(false));
    }
    std::vector<Literal> values(plan.order.size());
    for (size_t step = 0; step < plan.order.size(); ++step) {
      const Instruction& instr = *plan.order[step];
      if (instr.opcode() == Opcode::kParameter) {
        values[step] = std::move(args[instr.parameter_number()]);
      } else {
        StatusOr<Literal> v = Eval(instr, plan, step, values);
        if (!v.ok()) return Annotate(v.status(), instr);
        values[step] = std::move(v).value();
      }
      for (int slot : plan.release_after[step]) values[slot] = Literal();
    }
    return std::move(values[plan.root_slot]);
  }

 private:
  StatusOr<std::unique_ptr<Plan>> BuildPlan(const Computation& c) {
    auto plan = std::make_unique<Plan>();
    if (c.root() == nullptr) return InvalidArgument("computation {} has no root", c.name());
    // Reachable from the root through operands (and control predecessors, for ordering).
    absl::flat_hash_set<const Instruction*> live;
    std::vector<const Instruction*> stack = {c.root()};
    live.insert(c.root());
    while (!stack.empty()) {
      const Instruction* i = stack.back();
      stack.pop_back();
      for (const Instruction* op : i->operands()) {
        if (op->parent() != &c)
          return InvalidArgument("{} uses {} from another computation", i->name(), op->name());
        if (live.insert(op).second) stack.push_back(op);
      }
    }
    absl::flat_hash_map<const Instruction*, int> slot;
    for (Instruction* i : c.MakeInstructionPostOrder()) {
      if (!live.contains(i)) continue;
      slot[i] = static_cast<int>(plan->order.size());
      plan->order.push_back(i);
    }
    const int n = static_cast<int>(plan->order.size());
    plan->root_slot = slot.at(c.root());
    plan->operand_slots.resize(n);
    plan->donatable.resize(n);
    plan->release_after.resize(n);
    std::vector<int> last_use(n, -1);
    for (int s = 0; s < n; ++s) {
      for (const Instruction* op : plan->order[s]->operands()) {
        const int o = slot.at(op);
        plan->operand_slots[s].push_back(o);
        last_use[o] = s;
      }
    }
    for (int s = 0; s < n; ++s) {
      if (s == plan->root_slot) continue;
      plan->release_after[last_use[s] < 0 ? s : last_use[s]].push_back(s);
    }
    for (int s = 0; s < n; ++s) {
      const auto& ops = plan->operand_slots[s];
      for (size_t k = 0; k < ops.size(); ++k) {
        const int o = ops[k];
        const bool once = std::count(ops.begin(), ops.end(), o) == 1;
        plan->donatable[s].push_back(last_use[o] == s && o != plan->root_slot && once);
      }
    }
    return plan;
  }

  // The value of operand k: moved out when this is its last use, else shared.
  static Literal Take(const Plan& plan, size_t step, std::vector<Literal>& values, size_t k) {
    const int slot = plan.operand_slots[step][k];
    if (plan.donatable[step][k]) return std::move(values[slot]);
    return values[slot];
  }

  StatusOr<Literal> CallCollective(const Instruction& instr, Opcode sync_op,
                                   const std::vector<Literal>& operands) {
    // Async starts carry tuple shapes; the context sees the equivalent synchronous instruction.
    const Instruction* target = &instr;
    std::unique_ptr<Instruction> sync;
    if (sync_op != instr.opcode()) {
      Shape result = instr.shape();
      if ((sync_op == Opcode::kAllGather || sync_op == Opcode::kCollectivePermute) &&
          instr.shape().IsTuple() && instr.shape().tuple_size() >= 2)
        result = instr.shape().tuple_shape(1);
      sync = std::make_unique<Instruction>(sync_op, result, instr.name());
      sync->attrs() = instr.attrs();
      target = sync.get();
    }
    auto reduce = [&](const Literal& a, const Literal& b) -> StatusOr<Literal> {
      Computation* r = instr.to_apply();
      if (r == nullptr) return InvalidArgument("{} has no to_apply reducer", instr.name());
      return Run(*r, {a, b});
    };
    switch (sync_op) {
      case Opcode::kAllReduce: return device_->AllReduce(*target, operands, reduce);
      case Opcode::kAllGather: return device_->AllGather(*target, operands);
      case Opcode::kReduceScatter: return device_->ReduceScatter(*target, operands, reduce);
      case Opcode::kAllToAll: return device_->AllToAll(*target, operands);
      case Opcode::kCollectivePermute: return device_->CollectivePermute(*target, operands);
      case Opcode::kCollectiveBroadcast: return device_->CollectiveBroadcast(*target, operands);
      default: return Internal("not a collective: {}", OpcodeName(sync_op));
    }
  }

  // Builds the tuple value of an async start: (operands, result, zero-filled context...).
  static StatusOr<Literal> StartTuple(const Instruction& instr, Literal operands, Literal result) {
    const Shape& s = instr.shape();
    if (!s.IsTuple() || s.tuple_size() < 2) return result;
    std::vector<Literal> elems;
    elems.push_back(std::move(operands));
    elems.push_back(std::move(result));
    for (int64_t k = 2; k < s.tuple_size(); ++k) elems.emplace_back(s.tuple_shape(k));
    return Literal::Tuple(std::move(elems));
  }

  static Literal ScalarU32(int64_t v) {
    Literal l(Shape(DType::kU32, {}));
    l.mutable_data<uint32_t>()[0] = static_cast<uint32_t>(v);
    return l;
  }

  StatusOr<Literal> Map(const Instruction& instr, const std::vector<const Literal*>& ops) {
    Computation* f = instr.to_apply();
    if (f == nullptr) return InvalidArgument("map has no to_apply");
    ASSIGN_OR_RETURN(Literal out, NewArray(instr.shape(), options_.max_value_bytes));
    const int64_t n = out.num_elements();
    const int ob = DTypeByteSize(out.shape().dtype());
    for (const Literal* l : ops) {
      if (!l->shape().IsArray() || l->num_elements() != n)
        return InvalidArgument("map: operand {} does not match the result", l->shape().ToString());
    }
    std::byte* dst = out.mutable_raw();
    for (int64_t i = 0; i < n; ++i) {
      std::vector<Literal> args;
      for (const Literal* l : ops) {
        Literal s(Shape(l->shape().dtype(), {}));
        const int b = DTypeByteSize(l->shape().dtype());
        std::memcpy(s.mutable_raw(), l->raw() + i * b, b);
        args.push_back(std::move(s));
      }
      ASSIGN_OR_RETURN(Literal r, Run(*f, std::move(args)));
      if (!r.shape().IsArray() || r.shape().dtype() != out.shape().dtype() || r.num_elements() != 1)
        return InvalidArgument("map: to_apply must return a {} scalar", DTypeName(out.shape().dtype()));
      std::memcpy(dst + i * ob, r.raw(), ob);
    }
    return out;
  }

  // scan: runs to_apply once per position along the scan dimension (last to first when
  // is_reverse), threading the carries; each output slice is written at its position.
  StatusOr<Literal> Scan(const Instruction& instr, const std::vector<const Literal*>& ops) {
    Computation* body = instr.to_apply();
    if (body == nullptr) return InvalidArgument("scan has no to_apply");
    const int64_t n = static_cast<int64_t>(ops.size());
    const int64_t carries = instr.int_attr(AttrId::kNumCarries);
    const int64_t inputs = n - carries;
    if (carries < 0 || inputs < 1 || instr.dimensions().size() != 1)
      return InvalidArgument("scan: malformed operands or attributes");
    const int64_t dim = instr.dimensions()[0];
    const int64_t length = ops[0]->shape().dim(dim);
    const bool reverse = instr.bool_attr(AttrId::kIsReverse);
    const Shape& rs = instr.shape();
    const int64_t parts = rs.IsTuple() ? rs.tuple_size() : 1;
    const int64_t outputs = parts - carries;
    std::vector<Literal> stacked;
    for (int64_t o = 0; o < outputs; ++o) {
      ASSIGN_OR_RETURN(Literal l, NewArray(rs.IsTuple() ? rs.tuple_shape(o) : rs,
                                           options_.max_value_bytes));
      stacked.push_back(std::move(l));
    }
    std::vector<Literal> carry;
    for (int64_t c = 0; c < carries; ++c) carry.push_back(*ops[inputs + c]);
    // Slices along `dim` of an array [outer, length, inner] in row-major storage.
    auto outer_inner = [&](const Shape& s) {
      int64_t outer = 1, inner = 1;
      for (int64_t d = 0; d < s.rank(); ++d) (d < dim ? outer : inner) *= d == dim ? 1 : s.dim(d);
      return std::pair<int64_t, int64_t>{outer, inner};
    };
    for (int64_t step = 0; step < length; ++step) {
      const int64_t pos = reverse ? length - 1 - step : step;
      std::vector<Literal> args;
      for (int64_t i = 0; i < inputs; ++i) {
        const Shape& s = ops[i]->shape();
        Shape slice_shape = s;
        slice_shape.mutable_dims().erase(slice_shape.mutable_dims().begin() + dim);
        Literal slice(slice_shape);
        auto [outer, inner] = outer_inner(s);
        const int64_t b = DTypeByteSize(s.dtype()) * inner;
        for (int64_t k = 0; k < outer; ++k)
          std::memcpy(slice.mutable_raw() + k * b, ops[i]->raw() + (k * length + pos) * b, b);
        args.push_back(std::move(slice));
      }
      for (Literal& c : carry) args.push_back(std::move(c));
      ASSIGN_OR_RETURN(Literal r, Run(*body, std::move(args)));
      std::vector<Literal> results;
      if (r.shape().IsTuple()) results = std::move(r.mutable_elements());
      else results.push_back(std::move(r));
      if (static_cast<int64_t>(results.size()) != parts)
        return InvalidArgument("scan: to_apply returned {} values, expected {}", results.size(), parts);
      for (int64_t o = 0; o < outputs; ++o) {
        auto [outer, inner] = outer_inner(stacked[o].shape());
        const int64_t b = DTypeByteSize(stacked[o].shape().dtype()) * inner;
        if (results[o].num_elements() * DTypeByteSize(results[o].shape().dtype()) != outer * b)
          return InvalidArgument("scan: output {} has the wrong size", o);
        for (int64_t k = 0; k < outer; ++k)
          std::memcpy(stacked[o].mutable_raw() + (k * length + pos) * b, results[o].raw() + k * b, b);
      }
      carry.clear();
      for (int64_t c = 0; c < carries; ++c) carry.push_back(std::move(results[outputs + c]));
    }
    std::vector<Literal> all = std::move(stacked);
    for (Literal& c : carry) all.push_back(std::move(c));
    if (!rs.IsTuple()) return std::move(all[0]);
    return Literal::Tuple(std::move(all));
  }

  static bool PredValue(const Literal& l) { return l.data<uint8_t>()[0] != 0; }

  StatusOr<Literal> Eval(const Instruction& instr, const Plan& plan, size_t step,
                         std::vector<Literal>& values) {
    const Opcode op = instr.opcode();
    const int64_t max_bytes = options_.max_value_bytes;
    std::vector<const Literal*> ops;
    ops.reserve(plan.operand_slots[step].size());
    for (int s : plan.operand_slots[step]) ops.push_back(&values[s]);
    auto take = [&](size_t k) { return Take(plan, step, values, k); };
    auto need = [&](size_t n) -> Status {
      if (ops.size() < n)
        return InvalidArgument("{} needs {} operands, has {}", OpcodeName(op), n, ops.size());
      return absl::OkStatus();
    };
    auto shared_operands = [&]() {
      std::vector<Literal> v;
      v.reserve(ops.size());
      for (const Literal* l : ops) v.push_back(*l);
      return v;
    };
    auto array_operand = [&](size_t k) -> StatusOr<const Literal*> {
      RETURN_IF_ERROR(need(k + 1));
      if (!ops[k]->shape().IsArray())
        return InvalidArgument("{}: operand {} must be an array, is {}", OpcodeName(op), k,
                               ops[k]->shape().ToString(false));
      return ops[k];
    };
    auto cannot = [&](std::string_view what) -> StatusOr<Literal> {
      return Unimplemented("'{}' cannot be executed by the interpreter{}", what,
                           op == Opcode::kRng ? " (non-deterministic)" : "");
    };
    auto callee = [&](Computation* c) -> StatusOr<const Computation*> {
      if (c == nullptr) return InvalidArgument("{} has no called computation", OpcodeName(op));
      return c;
    };

    switch (op) {
      case Opcode::kParameter:
        return Internal("parameters are bound by Run");
      case Opcode::kConstant: {
        if (instr.literal() == nullptr) return InvalidArgument("constant without a literal");
        const Literal& l = *instr.literal();
        if (!l.shape().Compatible(instr.shape()))
          return InvalidArgument("constant literal {} does not match shape {}", l.shape().ToString(false),
                                 instr.shape().ToString(false));
        return l;
      }
      case Opcode::kIota:
        return interp::EvalIota(instr, max_bytes);

      // Elementwise.
      case Opcode::kCopy:
        RETURN_IF_ERROR(need(1));
        return take(0);
      case Opcode::kConvert: {
        ASSIGN_OR_RETURN(const Literal* in, array_operand(0));
        if (!instr.shape().IsArray() || instr.shape().dims() != in->shape().dims())
          return InvalidArgument("convert: result dims differ from the operand's");
        return interp::ConvertLiteral(*in, instr.shape().dtype(), max_bytes);
      }
      case Opcode::kReducePrecision: {
        ASSIGN_OR_RETURN(const Literal* in, array_operand(0));
        return interp::EvalReducePrecision(instr, *in, max_bytes);
      }
      case Opcode::kBitcastConvert: {
        ASSIGN_OR_RETURN(const Literal* in, array_operand(0));
        return interp::EvalBitcastConvert(instr, *in, max_bytes);
      }
      case Opcode::kStochasticConvert:
        return Unimplemented("'stochastic-convert' is not supported by the interpreter");
      case Opcode::kMap:
        return Map(instr, ops);

      // Shape ops.
      case Opcode::kReshape: {
        ASSIGN_OR_RETURN(const Literal* in, array_operand(0));
        if (!instr.shape().IsArray() || instr.shape().dtype() != in->shape().dtype() ||
            instr.shape().num_elements() != in->num_elements())
          return InvalidArgument("reshape: {} cannot become {}", in->shape().ToString(false),
                                 instr.shape().ToString(false));
        return take(0).Reshaped(Shape(instr.shape().dtype(), instr.shape().dims()));
      }
      case Opcode::kBitcast: {
        ASSIGN_OR_RETURN(const Literal* in, array_operand(0));
        if (!instr.shape().IsArray())
          return InvalidArgument("bitcast: {} cannot become {}", in->shape().ToString(false),
                                 instr.shape().ToString(false));
        const Shape s(instr.shape().dtype(), instr.shape().dims());
        if (s.byte_size() < in->shape().byte_size()) {
          // A smaller result (XLA's verifier allows it; its evaluator does this): the leading
          // bytes of the operand, in row-major order.
          ASSIGN_OR_RETURN(Literal out, interp::NewArray(s, max_bytes));
          if (s.byte_size() > 0) std::memcpy(out.mutable_raw(), in->raw(), s.byte_size());
          return out;
        }
        if (s.byte_size() > in->shape().byte_size())
          return Unimplemented("bitcast from {} to the larger {} is not supported (the bytes "
                               "past the operand are undefined)",
                               in->shape().ToString(false), instr.shape().ToString(false));
        if (s.dtype() == in->shape().dtype()) return take(0).Reshaped(s);
        return take(0).BitcastTo(s);
      }
      case Opcode::kBroadcast: {
        ASSIGN_OR_RETURN(const Literal* in, array_operand(0));
        return interp::EvalBroadcast(instr, *in, max_bytes);
      }
      case Opcode::kTranspose: {
        ASSIGN_OR_RETURN(const Literal* in, array_operand(0));
        return interp::EvalTranspose(instr, *in, max_bytes);
      }
      case Opcode::kSlice: {
        ASSIGN_OR_RETURN(const Literal* in, array_operand(0));
        return interp::EvalSlice(instr, *in, max_bytes);
      }
      case Opcode::kDynamicSlice:
        RETURN_IF_ERROR(array_operand(0).status());
        return interp::EvalDynamicSlice(instr, ops, max_bytes);
      case Opcode::kDynamicUpdateSlice: {
        RETURN_IF_ERROR(array_operand(1).status());
        Literal base = take(0);
        return interp::EvalDynamicUpdateSlice(instr, std::move(base), ops, max_bytes);
      }
      case Opcode::kPad: {
        ASSIGN_OR_RETURN(const Literal* in, array_operand(0));
        ASSIGN_OR_RETURN(const Literal* pv, array_operand(1));
        return interp::EvalPad(instr, *in, *pv, max_bytes);
      }
      case Opcode::kConcatenate:
        return interp::EvalConcatenate(instr, ops, max_bytes);
      case Opcode::kReverse: {
        ASSIGN_OR_RETURN(const Literal* in, array_operand(0));
        return interp::EvalReverse(instr, *in, max_bytes);
      }
      case Opcode::kGetDimensionSize: {
        ASSIGN_OR_RETURN(const Literal* in, array_operand(0));
        const auto& d = instr.dimensions();
        if (d.size() != 1 || d[0] < 0 || d[0] >= in->shape().rank())
          return InvalidArgument("get-dimension-size: bad dimension");
        Literal out(Shape(DType::kS32, {}));
        out.mutable_data<int32_t>()[0] = static_cast<int32_t>(in->shape().dim(d[0]));
        return out;
      }

      // Tuples, tokens, identities.
      case Opcode::kTuple: {
        std::vector<Literal> elems;
        for (size_t k = 0; k < ops.size(); ++k) elems.push_back(take(k));
        return Literal::Tuple(std::move(elems));
      }
      case Opcode::kGetTupleElement: {
        RETURN_IF_ERROR(need(1));
        const int64_t idx = instr.tuple_index();
        if (!ops[0]->shape().IsTuple() || idx < 0 || idx >= ops[0]->shape().tuple_size())
          return InvalidArgument("get-tuple-element: index {} out of range for {}", idx,
                                 ops[0]->shape().ToString(false));
        if (plan.donatable[step][0]) {
          Literal t = take(0);
          return std::move(t.mutable_elements()[idx]);
        }
        return ops[0]->element(idx);
      }
      case Opcode::kAfterAll:
        return Literal(Shape::Token());
      case Opcode::kAddDependency:
      case Opcode::kOptimizationBarrier:
      case Opcode::kDomain:
      case Opcode::kAsyncUpdate:
      case Opcode::kAllReduceDone:
        RETURN_IF_ERROR(need(1));
        return take(0);
      case Opcode::kCopyStart: {
        RETURN_IF_ERROR(need(1));
        Literal v = take(0);
        const Shape& s = instr.shape();
        if (!s.IsTuple() || s.tuple_size() < 2) return v;
        std::vector<Literal> elems = {v, v};
        for (int64_t k = 2; k < s.tuple_size(); ++k) elems.emplace_back(s.tuple_shape(k));
        return Literal::Tuple(std::move(elems));
      }
      case Opcode::kCopyDone:
      case Opcode::kAllGatherDone:
      case Opcode::kCollectivePermuteDone:
      case Opcode::kAsyncDone: {
        RETURN_IF_ERROR(need(1));
        const int64_t idx = op == Opcode::kCopyDone ? 0 : 1;
        if (!ops[0]->shape().IsTuple()) return take(0);
        if (idx >= ops[0]->shape().tuple_size())
          return InvalidArgument("{}: operand is not a start tuple", OpcodeName(op));
        return ops[0]->element(idx);
      }

      // Control flow and calls.
      case Opcode::kCall:
      case Opcode::kFusion: {
        ASSIGN_OR_RETURN(const Computation* c,
                         callee(op == Opcode::kCall ? instr.to_apply()
                                                    : instr.computation_attr(AttrId::kCalls)));
        std::vector<Literal> args;
        for (size_t k = 0; k < ops.size(); ++k) args.push_back(take(k));
        return Run(*c, std::move(args));
      }
      case Opcode::kAsyncStart: {
        std::vector<Computation*> called = instr.called_computations();
        ASSIGN_OR_RETURN(const Computation* c, callee(called.empty() ? nullptr : called[0]));
        std::vector<Literal> args = shared_operands();
        ASSIGN_OR_RETURN(Literal result, Run(*c, args));
        return StartTuple(instr, Literal::Tuple(std::move(args)), std::move(result));
      }
      case Opcode::kWhile: {
        RETURN_IF_ERROR(need(1));
        ASSIGN_OR_RETURN(const Computation* cond, callee(instr.computation_attr(AttrId::kCondition)));
        ASSIGN_OR_RETURN(const Computation* body, callee(instr.computation_attr(AttrId::kBody)));
        Literal state = take(0);
        while (true) {
          ASSIGN_OR_RETURN(Literal p, Run(*cond, {state}));
          if (!p.shape().IsArray() || p.shape().dtype() != DType::kPred || p.num_elements() != 1)
            return InvalidArgument("while: condition must return pred[]");
          if (!PredValue(p)) break;
          ASSIGN_OR_RETURN(state, Run(*body, {std::move(state)}));
        }
        return state;
      }
      case Opcode::kConditional: {
        RETURN_IF_ERROR(need(1));
        const Literal& sel = *ops[0];
        if (!sel.shape().IsArray() || sel.num_elements() != 1)
          return InvalidArgument("conditional: selector must be a scalar");
        const Computation* branch = nullptr;
        size_t arg = 0;
        if (sel.shape().dtype() == DType::kPred) {
          const bool p = PredValue(sel);
          const auto* branches = instr.attr<std::vector<Computation*>>(AttrId::kBranchComputations);
          Computation* t = instr.computation_attr(AttrId::kTrueComputation);
          Computation* f = instr.computation_attr(AttrId::kFalseComputation);
          if ((!t || !f) && branches && branches->size() == 2) {
            t = (*branches)[0];
            f = (*branches)[1];
          }
          branch = p ? t : f;
          arg = p ? 1 : 2;
        } else {
          const auto* branches = instr.attr<std::vector<Computation*>>(AttrId::kBranchComputations);
          if (!branches || branches->empty())
            return InvalidArgument("conditional: no branch_computations");
          const int64_t n = static_cast<int64_t>(branches->size());
          int64_t idx = sel.GetInt(0);
          if (idx < 0 || idx >= n) idx = n - 1;
          branch = (*branches)[idx];
          arg = static_cast<size_t>(idx) + 1;
        }
        if (branch == nullptr) return InvalidArgument("conditional: missing branch computation");
        RETURN_IF_ERROR(need(arg + 1));
        return Run(*branch, {take(arg)});
      }

      // Device queries and collectives.
      case Opcode::kPartitionId:
        return ScalarU32(device_->partition_id());
      case Opcode::kReplicaId:
        return ScalarU32(device_->replica_id());
      case Opcode::kAllReduce:
      case Opcode::kAllReduceStart:
        return CallCollective(instr, Opcode::kAllReduce, shared_operands());
      case Opcode::kAllGather:
        return CallCollective(instr, Opcode::kAllGather, shared_operands());
      case Opcode::kAllGatherStart: {
        std::vector<Literal> args = shared_operands();
        ASSIGN_OR_RETURN(Literal r, CallCollective(instr, Opcode::kAllGather, args));
        Literal in = args.size() == 1 ? args[0] : Literal::Tuple(args);
        return StartTuple(instr, std::move(in), std::move(r));
      }
      case Opcode::kReduceScatter:
        return CallCollective(instr, Opcode::kReduceScatter, shared_operands());
      case Opcode::kAllToAll:
        return CallCollective(instr, Opcode::kAllToAll, shared_operands());
      case Opcode::kCollectivePermute:
        return CallCollective(instr, Opcode::kCollectivePermute, shared_operands());
      case Opcode::kCollectivePermuteStart: {
        std::vector<Literal> args = shared_operands();
        ASSIGN_OR_RETURN(Literal r, CallCollective(instr, Opcode::kCollectivePermute, args));
        Literal in = args.size() == 1 ? args[0] : Literal::Tuple(args);
        return StartTuple(instr, std::move(in), std::move(r));
      }
      case Opcode::kCollectiveBroadcast:
        return CallCollective(instr, Opcode::kCollectiveBroadcast, shared_operands());
      case Opcode::kCollectiveReduce: {
        // On one device every group is that device alone, which is then its own root: the
        // reduction of one value is the value (checked like an all-reduce's groups). Across
        // devices the non-root results are left unspecified by XLA (ncclReduce), so there is
        // nothing to compare them with.
        if (device_->num_partitions() * device_->replica_count() != 1)
          return Unimplemented("'collective-reduce' cannot be executed on several devices: XLA "
                               "leaves its result on non-root devices unspecified");
        std::vector<Literal> args = shared_operands();
        const size_t results = instr.shape().IsTuple() ? instr.shape().tuple_size() : 1;
        if (args.size() == results + 1) args.pop_back();  // the dynamic root index
        return CallCollective(instr, Opcode::kAllReduce, args);
      }

      case Opcode::kCustomCall: {
        const std::string& target = instr.custom_call_target();
        if (target == "X64Combine" && !(ops.size() == 1 && ops[0]->shape().Compatible(instr.shape())))
          return Unimplemented("custom-call target '{}' (combining 32-bit halves) is not supported",
                               target);
        if (IsIdentityCustomCall(target)) {
          RETURN_IF_ERROR(need(1));
          if (!ops[0]->shape().Compatible(instr.shape()))
            return Unimplemented(
                "custom-call '{}' changes the shape {} to {}; that needs several devices (a "
                "manual region such as a shard_map body: run it with --num-partitions)",
                target, ops[0]->shape().ToString(false), instr.shape().ToString(false));
          return take(0);
        }
        if (target == "TopK") {
          ASSIGN_OR_RETURN(const Literal* in, array_operand(0));
          return TopKKernel(instr, *in, kctx_);
        }
        return Unimplemented("custom-call target '{}' cannot be executed by the interpreter",
                             target);
      }

      case Opcode::kBatchNormTraining:
      case Opcode::kBatchNormInference:
      case Opcode::kBatchNormGrad:
        RETURN_IF_ERROR(need(OpcodeArity(op)));
        return interp::EvalBatchNorm(instr, ops, max_bytes);

      // Heavy kernels (interpreter/kernels).
      case Opcode::kDot:
        RETURN_IF_ERROR(need(2));
        return DotKernel(instr, *ops[0], *ops[1], kctx_);
      case Opcode::kRaggedDot:
        RETURN_IF_ERROR(need(3));
        return RaggedDotKernel(instr, *ops[0], *ops[1], *ops[2], kctx_);
      case Opcode::kScaledDot:
        RETURN_IF_ERROR(need(4));
        // XLA's operand order: lhs, rhs, lhs_scale, rhs_scale.
        return ScaledDotKernel(instr, *ops[0], *ops[2], *ops[1], *ops[3], kctx_);
      case Opcode::kScan:
        return Scan(instr, ops);
      case Opcode::kShuffle:
        // XLA's printed form of a shuffle's mode (rotate, permute, multi-rotate) was not
        // available to write a reader for it, so the mode is kept as unparsed text.
        return Unimplemented("'shuffle' cannot be executed by the interpreter (its mode "
                             "attribute is kept as text, not interpreted)");
      case Opcode::kConvolution:
        RETURN_IF_ERROR(need(2));
        return ConvolutionKernel(instr, *ops[0], *ops[1], kctx_);
      case Opcode::kReduce:
        return ReduceKernel(instr, shared_operands(), kctx_);
      case Opcode::kReduceWindow:
        return ReduceWindowKernel(instr, shared_operands(), kctx_);
      case Opcode::kSelectAndScatter:
        RETURN_IF_ERROR(need(3));
        return SelectAndScatterKernel(instr, *ops[0], *ops[1], *ops[2], kctx_);
      case Opcode::kGather:
        RETURN_IF_ERROR(need(2));
        return GatherKernel(instr, *ops[0], *ops[1], kctx_);
      case Opcode::kScatter:
        return ScatterKernel(instr, shared_operands(), kctx_);
      case Opcode::kSort:
        return SortKernel(instr, shared_operands(), kctx_);
      case Opcode::kTopK:
        RETURN_IF_ERROR(need(1));
        return TopKKernel(instr, *ops[0], kctx_);
      case Opcode::kFft:
        RETURN_IF_ERROR(need(1));
        return FftKernel(instr, *ops[0], kctx_);
      case Opcode::kCholesky:
        RETURN_IF_ERROR(need(1));
        return CholeskyKernel(instr, *ops[0], kctx_);
      case Opcode::kTriangularSolve:
        RETURN_IF_ERROR(need(2));
        return TriangularSolveKernel(instr, *ops[0], *ops[1], kctx_);
      case Opcode::kRngBitGenerator:
        RETURN_IF_ERROR(need(1));
        return RngBitGeneratorKernel(instr, *ops[0], kctx_);

      // Not executable here: host I/O, non-determinism, dynamic shapes.
      case Opcode::kInfeed:
      case Opcode::kOutfeed:
      case Opcode::kSend:
      case Opcode::kSendDone:
      case Opcode::kRecv:
      case Opcode::kRecvDone:
      case Opcode::kRng:
      case Opcode::kRngGetAndUpdateState:
      case Opcode::kRaggedAllToAll:
      case Opcode::kDynamicReshape:
      case Opcode::kSetDimensionSize:
        return cannot(OpcodeName(op));

      default:
        break;
    }
    if (IsElementwiseOpcode(op)) return interp::EvalElementwise(instr, ops, max_bytes);
    return cannot(OpcodeName(op));
  }

  SingleDeviceContext single_;
  DeviceContext* device_;
  InterpreterOptions options_;
  KernelContext kctx_;
  absl::flat_hash_map<const Computation*, std::unique_ptr<Plan>> plans_;
};

}  // namespace

StatusOr<Literal> Execute(const Module& module, const std::vector<Literal>& args,
                          DeviceContext* device, const InterpreterOptions& options) {
  if (module.entry() == nullptr) return InvalidArgument("module {} has no entry computation", module.name());
  return ExecuteComputation(*module.entry(), args, device, options);
}

StatusOr<Literal> ExecuteComputation(const Computation& computation,
                                     const std::vector<Literal>& args, DeviceContext* device,
                                     const InterpreterOptions& options) {
  Executor executor(device, options);
  RETURN_IF_ERROR(executor.Prepare(computation));
  // Data-parallel loops of this thread use the intra-op threads; restored on return.
  const int saved = interp::IntraOpThreads();
  const int threads = options.intra_op_threads > 0
                          ? options.intra_op_threads
                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  interp::IntraOpThreads() = threads;
  StatusOr<Literal> result = executor.Run(computation, args);
  interp::IntraOpThreads() = saved;
  return result;
}

}  // namespace spmdc

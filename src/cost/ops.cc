// Per-instruction costs (FLOPs, bytes read and written) and the value-size helpers the other
// files of the cost model share.
#include <algorithm>
#include <cmath>
#include <functional>

#include "absl/container/flat_hash_set.h"
#include "cost/internal.h"
#include "ir/computation.h"
#include "sharding/sharding.h"

namespace spmdc {

using namespace cost_internal;

std::string SourceInfo::ToString() const {
  if (source_file.empty()) return source_line > 0 ? fmt::format("line {}", source_line) : "";
  return source_line > 0 ? fmt::format("{}:{}", source_file, source_line) : source_file;
}

SourceInfo SourceInfoOf(const Instruction& instr) {
  SourceInfo info;
  const KeyValueList* md = instr.attr<KeyValueList>(AttrId::kMetadata);
  if (md == nullptr) return info;
  for (const auto& [key, raw] : *md) {
    if (key == "op_name") info.op_name = UnquoteRaw(raw);
    if (key == "source_file") info.source_file = UnquoteRaw(raw);
    if (key == "source_line") info.source_line = std::atoll(UnquoteRaw(raw).c_str());
  }
  return info;
}

namespace cost_internal {
namespace {

// Per-device bytes of the leaves of `shape`, whose sharding is `sharding` (null: replicated).
void AppendLeafBytes(const Shape& shape, const Sharding* sharding, const CostOptions& options,
                     std::vector<int64_t>* out) {
  if (shape.IsTuple()) {
    int64_t leaf = 0;
    // Pre-order leaves with their position in a tuple sharding.
    std::function<void(const Shape&)> walk = [&](const Shape& s) {
      if (s.IsTuple()) {
        for (const Shape& e : s.tuple_shapes()) walk(e);
        return;
      }
      const Sharding* leaf_sharding = sharding;
      if (sharding && sharding->IsTuple()) {
        const auto& elems = sharding->tuple_elements();
        leaf_sharding = leaf < static_cast<int64_t>(elems.size()) ? &elems[leaf] : nullptr;
      }
      ++leaf;
      AppendLeafBytes(s, leaf_sharding, options, out);
    };
    walk(shape);
    return;
  }
  if (!shape.IsArray()) {
    out->push_back(0);
    return;
  }
  int64_t bytes = shape.byte_size();
  if (!options.partitioned && sharding && sharding->IsTiled()) bytes = sharding->ShardShape(shape).byte_size();
  out->push_back(bytes);
}

}  // namespace

std::vector<int64_t> LeafBytes(const Instruction& instr, const CostOptions& options) {
  std::vector<int64_t> out;
  AppendLeafBytes(instr.shape(), options.partitioned ? nullptr : instr.sharding(), options, &out);
  return out;
}

int64_t ValueBytes(const Instruction& instr, const CostOptions& options) {
  if (options.partitioned || !instr.has_sharding()) return instr.shape().byte_size();
  int64_t total = 0;
  for (int64_t b : LeafBytes(instr, options)) total += b;
  return total;
}

int64_t OperandBytes(const Instruction& instr, int64_t operand, const CostOptions& options) {
  return ValueBytes(*instr.operand(operand), options);
}

double ResultFraction(const Instruction& instr, const CostOptions& options) {
  if (options.partitioned || !instr.has_sharding()) return 1.0;
  const Sharding* s = instr.sharding();
  const Shape* shape = &instr.shape();
  while (shape->IsTuple() && shape->tuple_size() > 0) shape = &shape->tuple_shape(0);
  if (s->IsTuple()) s = s->tuple_elements().empty() ? nullptr : &s->tuple_elements()[0];
  if (s == nullptr || !s->IsTiled() || !shape->IsArray() || shape->num_elements() == 0) return 1.0;
  return static_cast<double>(s->ShardShape(*shape).num_elements()) / shape->num_elements();
}

bool IsIdentityCustomCall(const Instruction& instr) {
  static const absl::flat_hash_set<std::string>* kTargets = new absl::flat_hash_set<std::string>{
      "Sharding",         "SPMDFullToShardShape", "SPMDShardToFullShape", "ShardBarrierFrom",
      "ShardBarrierTo",   "LayoutConstraint",     "MoveToHost",           "MoveToDevice",
      "X64Combine",       "annotate_device_placement", "PinToDevice",        "PinToDeviceSram"};
  return instr.opcode() == Opcode::kCustomCall && kTargets->contains(instr.custom_call_target());
}

ResultBuffers ResultBuffersOf(const Instruction& instr) {
  switch (instr.opcode()) {
    case Opcode::kTuple: return ResultBuffers::kConcat;
    case Opcode::kGetTupleElement: return ResultBuffers::kTupleElement;
    case Opcode::kBitcast: case Opcode::kReshape: case Opcode::kCopy: case Opcode::kWhile:
    case Opcode::kAddDependency: case Opcode::kOptimizationBarrier: case Opcode::kDomain:
    case Opcode::kAsyncUpdate: case Opcode::kAllReduceDone:
      return ResultBuffers::kOperand0;
    case Opcode::kConstant: return ResultBuffers::kConstant;
    case Opcode::kAllGatherStart: case Opcode::kCollectivePermuteStart: case Opcode::kAsyncStart:
      return instr.shape().IsTuple() && instr.shape().tuple_size() >= 2 ? ResultBuffers::kStartTuple
                                                                        : ResultBuffers::kNew;
    case Opcode::kCopyStart:
      return instr.shape().IsTuple() && instr.shape().tuple_size() >= 2 ? ResultBuffers::kCopyStart
                                                                        : ResultBuffers::kOperand0;
    case Opcode::kCopyDone: return ResultBuffers::kDoneElement0;
    case Opcode::kAllGatherDone: case Opcode::kCollectivePermuteDone: case Opcode::kAsyncDone:
      return instr.operand_count() == 1 && instr.operand(0)->shape().IsTuple() ? ResultBuffers::kDoneElement1
                                                                               : ResultBuffers::kOperand0;
    case Opcode::kCustomCall:
      return IsIdentityCustomCall(instr) && instr.operand_count() >= 1 ? ResultBuffers::kOperand0
                                                                       : ResultBuffers::kNew;
    default: return ResultBuffers::kNew;
  }
}

std::pair<int64_t, int64_t> TupleElementLeaves(const Shape& tuple, int64_t index) {
  int64_t begin = 0;
  for (int64_t k = 0; k < index && k < tuple.tuple_size(); ++k) begin += tuple.tuple_shape(k).leaf_count();
  int64_t size = index < tuple.tuple_size() ? tuple.tuple_shape(index).leaf_count() : 0;
  return {begin, begin + size};
}

std::vector<const Instruction*> ScheduleOf(const Computation& c) {
  std::vector<const Instruction*> order;
  if (c.root() == nullptr) return order;
  absl::flat_hash_set<const Instruction*> live = {c.root()};
  std::vector<const Instruction*> stack = {c.root()};
  while (!stack.empty()) {
    const Instruction* i = stack.back();
    stack.pop_back();
    for (const Instruction* op : i->operands())
      if (live.insert(op).second) stack.push_back(op);
  }
  for (Instruction* i : c.MakeInstructionPostOrder())
    if (live.contains(i)) order.push_back(i);
  return order;
}

}  // namespace cost_internal

// FLOP-equivalents per element. Arithmetic, comparisons and selects are 1. Transcendental
// functions count what the vectorised expansions of the usual math libraries (Eigen, XLA's CPU
// and GPU runtimes: range reduction, then a polynomial or a Newton step) spend per element, so
// that an exp costs more than an add but nowhere near a matmul's share. Data movement is 0.
double ElementwiseFlopWeight(Opcode op) {
  switch (op) {
    case Opcode::kCopy: case Opcode::kConvert: case Opcode::kReal: case Opcode::kImag:
    case Opcode::kBitcastConvert: case Opcode::kReducePrecision:
      return 0;
    case Opcode::kDivide: case Opcode::kRemainder: case Opcode::kSqrt: case Opcode::kRsqrt:
      return 4;
    case Opcode::kCbrt: return 6;
    case Opcode::kExp: case Opcode::kExpm1: case Opcode::kLog: case Opcode::kLog1p: return 8;
    case Opcode::kLogistic: case Opcode::kTanh: return 10;
    case Opcode::kSin: case Opcode::kCos: case Opcode::kTan: case Opcode::kErf: return 12;
    case Opcode::kPower: return 16;
    case Opcode::kAtan2: return 20;
    default: return IsElementwiseOpcode(op) ? 1 : 0;
  }
}

bool IsTranscendentalOpcode(Opcode op) {
  switch (op) {
    case Opcode::kExp: case Opcode::kExpm1: case Opcode::kLog: case Opcode::kLog1p: case Opcode::kLogistic:
    case Opcode::kTanh: case Opcode::kSin: case Opcode::kCos: case Opcode::kTan: case Opcode::kErf:
    case Opcode::kPower: case Opcode::kAtan2: case Opcode::kSqrt: case Opcode::kRsqrt: case Opcode::kCbrt:
      return true;
    default: return false;
  }
}

namespace {

double Elements(const Shape& s) {
  if (s.IsTuple()) {
    double n = 0;
    for (const Shape& e : s.tuple_shapes()) n += Elements(e);
    return n;
  }
  return s.IsArray() ? static_cast<double>(s.num_elements()) : 0.0;
}

// FLOPs of one application of a scalar computation (reduce's add, a map's body, ...).
double ScalarComputationFlops(const Computation* c) {
  if (c == nullptr) return 1;
  double f = 0;
  for (const Instruction* i : c->instructions()) f += ElementwiseFlopWeight(i->opcode());
  return std::max(f, 1.0);
}

// Pairs (output position, window position) along one spatial dim that read a real (not
// padding, not a base-dilation hole) input element.
double ValidWindowPairs(int64_t in, int64_t out, const WindowDim& w) {
  const double all = static_cast<double>(out) * w.size;
  if (all > 1e7) return all;  // no exact count for enormous windows: every pair
  const int64_t dilated_in = in == 0 ? 0 : (in - 1) * w.base_dilation + 1;
  int64_t valid = 0;
  for (int64_t o = 0; o < out; ++o) {
    for (int64_t k = 0; k < w.size; ++k) {
      int64_t p = o * w.stride + k * w.window_dilation - w.padding_low;
      if (p >= 0 && p < dilated_in && p % w.base_dilation == 0) ++valid;
    }
  }
  return static_cast<double>(valid);
}

double DotFlops(const Instruction& instr) {
  const Shape& lhs = instr.operand(0)->shape();
  double k = 1;
  for (int64_t d : instr.ints_attr(AttrId::kLhsContractingDims)) k *= lhs.dim(d);
  return 2.0 * Elements(instr.shape()) * k;
}

double ConvolutionFlops(const Instruction& instr) {
  const Shape& in = instr.operand(0)->shape();
  const Shape& kernel = instr.operand(1)->shape();
  const Shape& out = instr.shape();
  const ConvDims* dims = instr.attr<ConvDims>(AttrId::kDimLabels);
  const Window* window = instr.attr<Window>(AttrId::kWindow);
  if (dims == nullptr || !out.IsArray()) return 0;
  // Each output element sums kernel_input_features x (valid window positions) products; the
  // feature and batch group counts are already in the kernel's input-feature and the output's
  // batch sizes.
  double per_position = kernel.dim(dims->kernel_input_feature);
  double spatial = 1;
  for (size_t s = 0; s < dims->output_spatial.size(); ++s) {
    int64_t o = out.dim(dims->output_spatial[s]);
    int64_t i = in.dim(dims->input_spatial[s]);
    WindowDim w;
    if (window && s < window->dims.size()) w = window->dims[s];
    else w.size = kernel.dim(dims->kernel_spatial[s]);
    spatial *= ValidWindowPairs(i, o, w);
  }
  double batch = out.dim(dims->output_batch), features = out.dim(dims->output_feature);
  return 2.0 * batch * features * per_position * spatial;
}

}  // namespace

OpCost CostOfInstruction(const Instruction& instr, const CostOptions& options) {
  OpCost c;
  const Opcode op = instr.opcode();
  const ResultBuffers rb = ResultBuffersOf(instr);
  if (rb != ResultBuffers::kNew || op == Opcode::kParameter || op == Opcode::kConstant ||
      op == Opcode::kWhile || op == Opcode::kCall || op == Opcode::kConditional ||
      IsCollectiveOpcode(op) || op == Opcode::kPartitionId || op == Opcode::kReplicaId ||
      op == Opcode::kAfterAll || op == Opcode::kGetDimensionSize)
    return c;  // moves nothing through HBM by itself (collectives are timed as communication)
  const double fraction = ResultFraction(instr, options);
  const double out_elems = Elements(instr.shape()) * fraction;
  c.bytes_written = ValueBytes(instr, options);
  int64_t operand_bytes = 0;
  for (int64_t k = 0; k < instr.operand_count(); ++k) operand_bytes += OperandBytes(instr, k, options);
  c.bytes_read = operand_bytes;

  switch (op) {
    case Opcode::kDot:
      c.flops = c.model_flops = DotFlops(instr) * fraction;
      if (!options.partitioned && instr.operand(0)->has_sharding() && instr.operand(0)->sharding()->IsTiled()) {
        // The contracting dims' split divides each device's share of the sum as well.
        const Sharding& s = *instr.operand(0)->sharding();
        for (int64_t d : instr.ints_attr(AttrId::kLhsContractingDims)) {
          c.flops /= s.NumTilesOnDim(d);
          c.model_flops /= s.NumTilesOnDim(d);
        }
      }
      break;
    case Opcode::kConvolution:
      c.flops = c.model_flops = ConvolutionFlops(instr) * fraction;
      break;
    case Opcode::kReduce: {
      const int64_t inputs = std::max<int64_t>(1, instr.operand_count() / 2);
      double in_elems = 0;
      for (int64_t k = 0; k < inputs; ++k) in_elems += Elements(instr.operand(k)->shape());
      const double share = options.partitioned ? 1.0 : ResultFraction(*instr.operand(0), options);
      c.flops = in_elems / inputs * share * ScalarComputationFlops(instr.to_apply());
      break;
    }
    case Opcode::kReduceWindow: {
      double window = 1;
      if (const Window* w = instr.attr<Window>(AttrId::kWindow))
        for (const WindowDim& d : w->dims) window *= d.size;
      c.flops = out_elems * window * ScalarComputationFlops(instr.to_apply());
      break;
    }
    case Opcode::kSelectAndScatter: {
      double window = 1;
      if (const Window* w = instr.attr<Window>(AttrId::kWindow))
        for (const WindowDim& d : w->dims) window *= d.size;
      c.flops = Elements(instr.operand(1)->shape()) * fraction * (window + 1);
      break;
    }
    case Opcode::kMap:
      c.flops = out_elems * ScalarComputationFlops(instr.to_apply());
      break;
    case Opcode::kScatter: {
      const int64_t inputs = std::max<int64_t>(1, (instr.operand_count() - 1) / 2);
      const double updates = Elements(instr.operand(instr.operand_count() - 1)->shape());
      c.flops = updates * inputs * ScalarComputationFlops(instr.to_apply());
      // Scatter updates its operand in place: it writes the updates, reads them and the indices.
      c.bytes_written = OperandBytes(instr, instr.operand_count() - 1, options);
      c.bytes_read = c.bytes_written + OperandBytes(instr, inputs, options);
      break;
    }
    case Opcode::kSort: {
      const Shape& s = instr.operand(0)->shape();
      const std::vector<int64_t>& d = instr.dimensions();
      double n = s.IsArray() && !d.empty() && d[0] < s.rank() ? s.dim(d[0]) : 1;
      c.flops = Elements(s) * fraction * std::max(1.0, std::log2(std::max(n, 2.0))) * instr.operand_count();
      break;
    }
    case Opcode::kTopK: {
      const Shape& s = instr.operand(0)->shape();
      double n = s.IsArray() && s.rank() > 0 ? s.dim(s.rank() - 1) : 1;
      c.flops = Elements(s) * fraction * std::max(1.0, std::log2(std::max(n, 2.0)));
      break;
    }
    case Opcode::kFft: {
      const Shape& s = instr.operand(0)->shape();
      double n = 1;
      for (int64_t l : instr.ints_attr(AttrId::kFftLength)) n *= l;
      c.flops = 5.0 * Elements(s) * fraction * std::max(1.0, std::log2(std::max(n, 2.0)));
      break;
    }
    case Opcode::kCholesky: {
      const Shape& s = instr.shape();
      double n = s.IsArray() && s.rank() > 0 ? s.dim(s.rank() - 1) : 1;
      c.flops = Elements(s) / std::max(n, 1.0) * fraction * n * n / 3.0;  // batches x n^3/3
      break;
    }
    case Opcode::kTriangularSolve: {
      const Shape& a = instr.operand(0)->shape();
      double n = a.IsArray() && a.rank() > 0 ? a.dim(a.rank() - 1) : 1;
      c.flops = out_elems * n;  // each of the b elements: a length-n dot
      break;
    }
    case Opcode::kBatchNormTraining: case Opcode::kBatchNormInference: case Opcode::kBatchNormGrad:
      c.flops = Elements(instr.operand(0)->shape()) * fraction * 8;
      break;
    case Opcode::kFusion: {
      // The fused body never touches HBM: its arithmetic counts, its traffic is the fusion's.
      const Computation* body = instr.computation_attr(AttrId::kCalls);
      if (body != nullptr) {
        for (const Instruction* i : body->instructions()) {
          OpCost inner = CostOfInstruction(*i, options);
          c.flops += inner.flops;
          c.model_flops += inner.model_flops;
          c.transcendentals += inner.transcendentals;
          c.transcendental_flops += inner.transcendental_flops;
        }
      }
      break;
    }
    case Opcode::kSlice: case Opcode::kDynamicSlice: case Opcode::kGather:
      // Only the selected elements (and the indices) are read.
      c.bytes_read = c.bytes_written;
      for (int64_t k = 1; k < instr.operand_count(); ++k) c.bytes_read += OperandBytes(instr, k, options);
      break;
    case Opcode::kDynamicUpdateSlice:
      // In place: the update is read and written, the rest of the operand stays.
      c.bytes_read = 0;
      for (int64_t k = 1; k < instr.operand_count(); ++k) c.bytes_read += OperandBytes(instr, k, options);
      c.bytes_written = OperandBytes(instr, 1, options);
      break;
    default:
      if (IsElementwiseOpcode(op)) c.flops = out_elems * ElementwiseFlopWeight(op);
      if (IsTranscendentalOpcode(op)) {
        c.transcendentals = out_elems;
        c.transcendental_flops = c.flops;
      }
      break;
  }
  return c;
}

}  // namespace spmdc

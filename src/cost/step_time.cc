// Step time: a per-op roofline (the larger of compute time and HBM time) plus communication,
// three ways: serial (nothing overlaps), as scheduled (an asynchronous collective runs on its
// own stream from its start to its done, overlapping the compute between them; synchronous
// collectives block), and along the dependency critical path (any independent work overlaps).
// Called computations contribute their own time per call (while bodies times the trip count).
#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "cost/internal.h"

namespace spmdc {

using namespace cost_internal;

namespace {

struct Times {
  double serial = 0, scheduled = 0, critical = 0;
};

// What identifies a dot/convolution kernel: its operand and result shapes and attributes.
std::string KernelKey(const Instruction& instr) {
  std::string key = std::string(OpcodeName(instr.opcode())) + instr.shape().ToString(false);
  for (const Instruction* op : instr.operands()) key += "|" + op->shape().ToString(false);
  for (AttrId id : {AttrId::kLhsBatchDims, AttrId::kRhsBatchDims, AttrId::kLhsContractingDims,
                    AttrId::kRhsContractingDims})
    key += fmt::format("|{}", fmt::join(instr.ints_attr(id), ","));
  return key;
}

std::string LayerOf(const Instruction& instr) {
  SourceInfo s = SourceInfoOf(instr);
  if (s.op_name.empty()) return "(no op_name)";
  size_t slash = s.op_name.rfind('/');
  return slash == std::string::npos ? s.op_name : s.op_name.substr(0, slash);
}

class StepModel {
 public:
  // `collectives`: AnalyzeCollectives(module, options, &hw), computed once by the caller.
  StepModel(const Module& module, const CostOptions& options, const HardwareProfile& hw,
            const std::vector<CollectiveCost>& collectives)
      : module_(module), options_(options), hw_(hw) {
    for (const CollectiveCost& c : collectives) collectives_[c.instr] = c;
  }

  StepTime Run() {
    StepTime t;
    auto counts = ExecutionCounts(module_, &t.warnings);
    absl::flat_hash_map<std::string, CostBucket> layers, kinds;
    double ideal_matmul_seconds = 0;
    for (Computation* comp : module_.MakeComputationPostOrder()) {
      auto it = counts.find(comp);
      if (it == counts.end()) continue;
      const double runs = static_cast<double>(it->second);
      for (const Instruction* instr : ScheduleOf(*comp)) {
        const OpSeconds s = SecondsOf(*instr);
        if (s.nested) continue;  // counted in the callee's own instructions
        const bool collective = collectives_.contains(instr);
        CostBucket* buckets[2] = {&layers[LayerOf(*instr)], &kinds[std::string(OpcodeName(instr->opcode()))]};
        for (CostBucket* b : buckets) {
          b->count += static_cast<int64_t>(runs);
          b->flops += s.cost.flops * runs;
          if (collective) {
            b->communication_seconds += s.seconds * runs;
            b->collective_bytes += static_cast<int64_t>(collectives_.at(instr).bytes_per_device * runs);
          } else {
            b->compute_seconds += s.seconds * runs;
          }
        }
        t.flops += s.cost.flops * runs;
        t.model_flops += s.cost.model_flops * runs;
        t.bytes_accessed += static_cast<int64_t>((s.cost.bytes_read + s.cost.bytes_written) * runs);
        if (s.cost.model_flops > 0) ideal_matmul_seconds += s.cost.model_flops / MatmulRate(*instr) * runs;
        if (collective) t.communication_seconds += s.seconds * runs;
        else t.compute_seconds += s.seconds * runs;
      }
    }
    if (module_.entry()) {
      Times whole = TimesOf(*module_.entry());
      t.serial_seconds = whole.serial;
      t.overlapped_seconds = whole.scheduled;
      t.critical_path_seconds = whole.critical;
    }
    // Kernel set-up, once per distinct dot/convolution and step (profiles that cache kernels
    // within a step only; 0 for the others), charged to the first instance's buckets.
    if (hw_.dot_setup > 0) {
      absl::flat_hash_set<std::string> kernels;
      for (Computation* comp : module_.MakeComputationPostOrder()) {
        if (!counts.contains(comp)) continue;
        for (const Instruction* instr : ScheduleOf(*comp)) {
          if (instr->opcode() != Opcode::kDot && instr->opcode() != Opcode::kConvolution) continue;
          if (!kernels.insert(KernelKey(*instr)).second) continue;
          for (CostBucket* b : {&layers[LayerOf(*instr)], &kinds[std::string(OpcodeName(instr->opcode()))]})
            b->compute_seconds += hw_.dot_setup;
        }
      }
      const double setup = hw_.dot_setup * static_cast<double>(kernels.size());
      t.compute_seconds += setup;
      t.serial_seconds += setup;
      t.overlapped_seconds += setup;
      t.critical_path_seconds += setup;
    }
    // MFU against the peak of the dtypes the dots actually use: the time the model FLOPs take
    // at peak, over the step time.
    if (t.overlapped_seconds > 0) t.mfu = ideal_matmul_seconds / t.overlapped_seconds;
    auto sorted = [](absl::flat_hash_map<std::string, CostBucket>& m) {
      std::vector<CostBucket> v;
      for (auto& [k, b] : m) {
        b.key = k;
        v.push_back(b);
      }
      std::sort(v.begin(), v.end(), [](const CostBucket& a, const CostBucket& b) {
        double ta = a.compute_seconds + a.communication_seconds, tb = b.compute_seconds + b.communication_seconds;
        return ta != tb ? ta > tb : a.key < b.key;
      });
      return v;
    };
    t.by_layer = sorted(layers);
    t.by_kind = sorted(kinds);
    return t;
  }

 private:
  struct OpSeconds {
    OpCost cost;
    double seconds = 0;
    bool nested = false;  // a while/call/conditional: its time is its callees'
  };

  double MatmulRate(const Instruction& instr) const {
    // The operands' dtype decides the unit (bf16 inputs accumulate into f32 results).
    DType t = instr.operand_count() > 0 && instr.operand(0)->shape().IsArray() ? instr.operand(0)->shape().dtype()
                                                                              : instr.shape().dtype();
    return hw_.MatmulFlops(t);
  }

  // The dot's rate with Hockney's size efficiency (hardware.h, matmul_half_size).
  double EffectiveMatmulRate(const Instruction& instr) const {
    const double peak = MatmulRate(instr);
    if (hw_.matmul_half_size <= 0 || instr.opcode() != Opcode::kDot || instr.operand_count() < 2) return peak;
    const double m = SmallestDotDim(instr);
    return peak * m / (m + hw_.matmul_half_size);
  }

  // min(M, N, K) of a dot viewed as [B,M,K] x [B,K,N], per device.
  double SmallestDotDim(const Instruction& dot) const {
    auto shard = [&](const Instruction* op) {
      return !options_.partitioned && op->has_sharding() && op->sharding()->IsTiled() ? op->sharding()->ShardShape(op->shape())
                                                                                     : op->shape();
    };
    const Shape lhs = shard(dot.operand(0)), rhs = shard(dot.operand(1));
    auto product = [](const Shape& s, const std::vector<int64_t>& batch, const std::vector<int64_t>& contracting,
                      bool free) {
      double p = 1;
      for (int64_t d = 0; d < s.rank(); ++d) {
        const bool b = std::find(batch.begin(), batch.end(), d) != batch.end();
        const bool c = std::find(contracting.begin(), contracting.end(), d) != contracting.end();
        if (free ? (!b && !c) : c) p *= static_cast<double>(s.dim(d));
      }
      return p;
    };
    const auto& lb = dot.ints_attr(AttrId::kLhsBatchDims);
    const auto& lc = dot.ints_attr(AttrId::kLhsContractingDims);
    const auto& rb = dot.ints_attr(AttrId::kRhsBatchDims);
    const auto& rc = dot.ints_attr(AttrId::kRhsContractingDims);
    if (!lhs.IsArray() || !rhs.IsArray()) return 1;
    return std::max(1.0, std::min({product(lhs, lb, lc, true), product(rhs, rb, rc, true), product(lhs, lb, lc, false)}));
  }

  OpSeconds SecondsOf(const Instruction& instr) const {
    OpSeconds s;
    switch (instr.opcode()) {
      case Opcode::kWhile: case Opcode::kCall: case Opcode::kConditional:
        s.nested = true;
        return s;
      case Opcode::kAsyncStart:
        if (!instr.called_computations().empty()) {
          s.nested = true;
          return s;
        }
        break;
      default: break;
    }
    // Every instruction the executor dispatches pays the profile's fixed overhead (0 for the
    // vendor profiles); parameters are bound, not executed.
    const double overhead = instr.opcode() == Opcode::kParameter ? 0.0 : hw_.op_overhead;
    if (auto it = collectives_.find(&instr); it != collectives_.end()) {
      s.seconds = it->second.seconds + overhead;
      return s;
    }
    s.cost = CostOfInstruction(instr, options_);
    const double rate = s.cost.model_flops > 0 ? EffectiveMatmulRate(instr) : hw_.VectorFlops();
    double compute = s.cost.flops > 0 ? s.cost.flops / rate : 0;
    if (hw_.transcendental_rate && s.cost.transcendentals > 0)
      compute = (s.cost.flops - s.cost.transcendental_flops) / rate + s.cost.transcendentals / *hw_.transcendental_rate;
    const double memory = static_cast<double>(s.cost.bytes_read + s.cost.bytes_written) / hw_.hbm_bandwidth;
    const bool kernel = instr.opcode() == Opcode::kDot || instr.opcode() == Opcode::kConvolution;
    s.seconds = std::max(compute, memory) + overhead + (kernel ? hw_.dot_overhead : 0.0);
    return s;
  }

  // Times of one execution of `c` (memoised: a computation costs the same at every call).
  Times TimesOf(const Computation& c) {
    if (auto it = memo_.find(&c); it != memo_.end()) return it->second;
    Times t;
    double clock = 0, comm_free = 0;
    absl::flat_hash_map<const Instruction*, double> finish, async_end;
    for (const Instruction* instr : ScheduleOf(c)) {
      double ready = 0;
      for (const Instruction* op : instr->operands()) ready = std::max(ready, finish[op]);
      double serial = 0, scheduled = 0, critical = 0;
      bool is_async_start = false;
      switch (instr->opcode()) {
        case Opcode::kWhile: {
          const int64_t trips = KnownTripCount(*instr).value_or(1);
          Times body = instr->computation_attr(AttrId::kBody) ? TimesOf(*instr->computation_attr(AttrId::kBody)) : Times{};
          Times cond = instr->computation_attr(AttrId::kCondition) ? TimesOf(*instr->computation_attr(AttrId::kCondition)) : Times{};
          serial = trips * (body.serial + cond.serial) + cond.serial;
          scheduled = trips * (body.scheduled + cond.scheduled) + cond.scheduled;
          critical = trips * (body.critical + cond.critical) + cond.critical;
          break;
        }
        case Opcode::kCall: case Opcode::kConditional: case Opcode::kAsyncStart: {
          for (const Computation* callee : instr->called_computations()) {
            Times ct = TimesOf(*callee);
            serial = std::max(serial, ct.serial);
            scheduled = std::max(scheduled, ct.scheduled);
            critical = std::max(critical, ct.critical);
          }
          if (instr->opcode() != Opcode::kAsyncStart || !instr->called_computations().empty()) break;
          [[fallthrough]];
        }
        default: {
          OpSeconds s = SecondsOf(*instr);
          serial = scheduled = critical = s.seconds;
          if (auto it = collectives_.find(instr); it != collectives_.end() && it->second.async) is_async_start = true;
          break;
        }
      }
      t.serial += serial;
      if (is_async_start) {
        const double begin = std::max(clock, comm_free);
        comm_free = begin + scheduled;
        async_end[instr] = comm_free;
      } else if (collectives_.contains(instr)) {
        const double begin = std::max(clock, comm_free);
        clock = comm_free = begin + scheduled;
      } else {
        bool done = false;
        for (const Instruction* op : instr->operands()) {
          if (auto it = async_end.find(op); it != async_end.end()) {
            clock = std::max(clock, it->second);
            done = true;
          }
        }
        if (!done || scheduled > 0) clock += scheduled;
      }
      finish[instr] = ready + critical;
      t.critical = std::max(t.critical, finish[instr]);
    }
    t.scheduled = std::max(clock, 0.0);
    memo_[&c] = t;
    return t;
  }

  const Module& module_;
  const CostOptions& options_;
  const HardwareProfile& hw_;
  absl::flat_hash_map<const Instruction*, CollectiveCost> collectives_;
  absl::flat_hash_map<const Computation*, Times> memo_;
};

}  // namespace

StepTime EstimateStepTime(const Module& module, const CostOptions& options, const HardwareProfile& hardware) {
  return StepModel(module, options, hardware, AnalyzeCollectives(module, options, &hardware)).Run();
}

CostReport AnalyzeCost(const Module& module, const CostOptions& options, const HardwareProfile& hardware) {
  CostReport r;
  r.num_partitions = options.num_partitions > 0 ? options.num_partitions : module.num_partitions();
  r.memory = EstimateMemory(module, options);
  r.collectives = AnalyzeCollectives(module, options, &hardware);
  r.time = StepModel(module, options, hardware, r.collectives).Run();
  r.fits = static_cast<double>(r.memory.peak_bytes) <= hardware.hbm_bytes;
  if (!r.fits)
    r.warnings.push_back(fmt::format("over capacity: the peak of {} bytes per device exceeds the {} bytes of HBM of {}",
                                     r.memory.peak_bytes, static_cast<int64_t>(hardware.hbm_bytes), hardware.name));
  for (const std::string& w : r.time.warnings) r.warnings.push_back(w);
  return r;
}

}  // namespace spmdc

// The cost model: what a module will cost on each device before it runs. Pure functions over a
// Module and its shardings, for a per-device (partitioned) program or an annotated one-device
// program (values then cost their shard: ceil-divided tiles, as the partitioner pads them).
//
//   memory       liveness over the schedule (post order of every computation, nested bodies)
//   FLOPs/bytes  per instruction (dot/convolution exact, elementwise/reduce per element with a
//                weight table for transcendental functions)
//   collectives  bytes each device contributes, bytes it sends under the modelled algorithm,
//                the mesh axes its replica groups span, α–β time on the profile's links
//   step time    per-op roofline plus communication, serial, as scheduled with asynchronous
//                collectives overlapped, and along the dependency critical path; per layer
//                (op_name up to its last '/') and per opcode; model FLOPs utilisation
//
// Every walk is linear in the module's size (the values at the peak are chosen in one pass
// after the peak is known), so the model runs in a few times what parsing the module costs.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cost/hardware.h"
#include "ir/module.h"
#include "sharding/mesh.h"

namespace spmdc {

struct CostOptions {
  // True: shapes are per device already (a partitioned module). False: a value costs the shard
  // its sharding gives one device (replicated and maximal values cost their full size).
  bool partitioned = true;
  // Devices per replica (the module's num_partitions when 0).
  int64_t num_partitions = 0;
  // The mesh collectives are mapped onto. Absent: inferred from the module's tile assignments
  // (axes named axis0, axis1, ...), or groups are described by their device ids.
  std::optional<Mesh> mesh;
  // How many values live at the peak, and how many collectives, the results keep.
  int64_t top_values = 10;
};

// op_name and source position from an instruction's metadata ("" when absent).
struct SourceInfo {
  std::string op_name;
  std::string source_file;
  int64_t source_line = 0;
  std::string ToString() const;  // "file:line" or ""
};
SourceInfo SourceInfoOf(const Instruction& instr);

// --- Memory -----------------------------------------------------------------------------------

struct LiveValue {
  std::string name;         // instruction
  std::string computation;
  std::string shape;        // per-device shape text
  int64_t bytes = 0;        // per device
  SourceInfo source;
  bool parameter = false;   // an entry parameter
};

struct MemoryEstimate {
  int64_t peak_bytes = 0;             // per device (the largest device when they differ)
  int64_t parameter_bytes = 0;        // entry parameters, per device
  int64_t output_bytes = 0;           // entry result buffers not aliasing a parameter
  int64_t temporary_peak_bytes = 0;   // peak minus parameters live at the peak
  std::string peak_instruction;       // the instruction executing at the peak
  std::string peak_computation;
  std::vector<LiveValue> live_at_peak;  // largest first, at most top_values
  // Live bytes while each instruction of the entry computation runs (its operands, its result
  // and everything else live), in schedule order; nested computations contribute their own peak
  // at their call site. Its largest entry is peak_bytes, at peak_position.
  std::vector<int64_t> entry_timeline;
  int64_t peak_position = -1;  // index into entry_timeline of the peak (-1: empty entry)
};
MemoryEstimate EstimateMemory(const Module& module, const CostOptions& options);

// --- Per-instruction costs ---------------------------------------------------------------------

struct OpCost {
  double flops = 0;          // all arithmetic, transcendental functions weighted
  double model_flops = 0;    // dot and convolution only (what MFU counts)
  // Elements through transcendental functions (exp, log, tanh, sqrt, ...: the ones XLA's
  // HloCostAnalysis counts as transcendentals) and their weighted share of `flops`: timed at
  // the profile's transcendental rate when it has one (a CPU's scalar libm, a GPU's special
  // function units), else as FLOPs.
  double transcendentals = 0;
  double transcendental_flops = 0;
  int64_t bytes_read = 0;
  int64_t bytes_written = 0;
};
// FLOP weight of one element of an elementwise opcode: 1 for arithmetic and comparisons, the
// table in ops.cc for transcendental functions, 0 for data movement.
double ElementwiseFlopWeight(Opcode op);
// exp, expm1, log, log1p, logistic, tanh, sin, cos, tan, erf, power, atan2, sqrt, rsqrt, cbrt.
bool IsTranscendentalOpcode(Opcode op);
// The cost of one execution of `instr` (callees not included: a fusion counts its fused body,
// while/call/conditional count nothing themselves).
OpCost CostOfInstruction(const Instruction& instr, const CostOptions& options);

// --- Collectives -------------------------------------------------------------------------------

struct CollectiveCost {
  const Instruction* instr = nullptr;
  std::string name;
  std::string kind;            // the synchronous opcode name: all-reduce, all-gather, ...
  bool async = false;          // a *-start (its *-done ends it)
  int64_t group_size = 1;      // devices per group (pairs: the devices that take part)
  int64_t num_groups = 1;
  int64_t bytes_per_device = 0;       // operand bytes each device contributes
  int64_t wire_bytes_per_device = 0;  // bytes each device sends under the modelled algorithm
  int64_t executions = 1;             // loop trip counts multiplied in
  std::vector<std::string> mesh_axes; // mesh axes the groups span (empty: no mesh slicing)
  std::string axes;                   // "data", "data,model", or "devices{0,1,2,3}"
  std::string link;                   // profile link used
  std::string algorithm;              // ring, tree, pairwise, permute
  int64_t steps = 0;                  // α terms
  double seconds = 0;                 // one execution
  SourceInfo source;
};
// The algorithm the model times a collective of `kind` (a synchronous or async opcode) with:
// groups of n devices, each contributing `bytes_per_device` (operand bytes); `steps` α terms,
// `wire_bytes` sent by each device (the table at the top of collectives.cc). `spmdc calibrate`
// fits each kind's α and β to measurements with these same terms.
struct CollectiveAlgorithm {
  std::string name;  // ring, pairwise, permute
  int64_t steps = 0;
  double wire_bytes = 0;
};
CollectiveAlgorithm ModelledAlgorithm(Opcode kind, int64_t n, int64_t bytes_per_device);
// Seconds of one collective of synchronous `kind` among groups of `n` devices on `link`, each
// device contributing `bytes_per_device`, exactly as AnalyzeCollectives times it (the modelled
// algorithm on the link's figures for that kind; an all-reduce by tree where that is faster).
// The strategy search of src/auto prices its resharding with it.
double CollectiveSeconds(const HardwareProfile::Link& link, Opcode kind, int64_t n, int64_t bytes_per_device);

// Every collective of the module (entry and nested computations), in schedule order. Times are
// set when `hardware` is given.
std::vector<CollectiveCost> AnalyzeCollectives(const Module& module, const CostOptions& options,
                                               const HardwareProfile* hardware);
// The mesh that collectives are described on: options.mesh, else one inferred from the
// module's tile assignments (the one with the most non-trivial dims), else none.
std::optional<Mesh> MeshForCollectives(const Module& module, const CostOptions& options);

// Trip count of a while loop: backend_config known_trip_count, or the `i < N` pattern with a
// constant start and a constant step of 1; nullopt when unknown.
std::optional<int64_t> KnownTripCount(const Instruction& while_instr);

// --- Step time ---------------------------------------------------------------------------------

struct CostBucket {
  std::string key;     // layer (op_name prefix) or opcode
  int64_t count = 0;   // instructions (times executions)
  double flops = 0;
  double compute_seconds = 0;     // roofline of the non-collective ops
  double communication_seconds = 0;
  int64_t collective_bytes = 0;   // bytes_per_device, times executions
};

struct StepTime {
  double compute_seconds = 0;        // sum of per-op rooflines (collectives excluded)
  double communication_seconds = 0;  // sum of collective times
  double serial_seconds = 0;         // compute + communication, nothing overlapped
  double overlapped_seconds = 0;     // as scheduled, async collectives overlap compute
  double critical_path_seconds = 0;  // longest dependency chain (any independent work overlaps)
  double flops = 0;                  // per device, all arithmetic
  double model_flops = 0;            // per device, dot/convolution
  int64_t bytes_accessed = 0;        // per device, HBM bytes read + written
  double mfu = 0;                    // model_flops / (overlapped_seconds x peak)
  std::vector<CostBucket> by_layer;  // costliest first
  std::vector<CostBucket> by_kind;   // costliest first
  std::vector<std::string> warnings; // while loops of unknown trip count, ...
};
StepTime EstimateStepTime(const Module& module, const CostOptions& options,
                          const HardwareProfile& hardware);

// --- Everything --------------------------------------------------------------------------------

struct CostReport {
  int64_t num_partitions = 1;
  MemoryEstimate memory;
  std::vector<CollectiveCost> collectives;
  StepTime time;
  bool fits = true;                 // memory.peak_bytes <= hardware.hbm_bytes
  std::vector<std::string> warnings;
};
CostReport AnalyzeCost(const Module& module, const CostOptions& options,
                       const HardwareProfile& hardware);

}  // namespace spmdc

// Alpa's inter-operator stage search (reference/AUTO.md §4.1) behind `spmdc auto --pipeline`:
// split a model's layers into pipeline stages, give each stage a submesh of the devices and an
// intra-op plan, minimising the estimated step time of the pipelined training step.
//
// Two halves:
// - SearchStages, pure: given a cost table (every span of consecutive layers x every submesh ->
//   intra-op options with their per-microbatch time and memory), Alpa's DP. For a bound t_max
//   on the stage time, F(s, k, d) = the smallest sum of stage times that runs layers k.. as s
//   stages on exactly d devices, each stage within t_max and within memory; the step time of a
//   plan is the pipeline latency T = sum_i t_i + (M - 1) max_j t_j for M microbatches (GPipe and
//   1F1B alike). The bounds t_max are the distinct stage times; instead of running the DP for
//   every one of them, intervals of candidates are pruned by branch and bound (G(t) = the DP's
//   value is non-increasing in t, so an interval [a, b] holds nothing better than
//   G(b) + (M - 1) a): the answer is the exact optimum over the table. Devices are covered exactly
//   (Alpa's rule). Memory: a stage holds its weights plus the activations of the microbatches in
//   flight (1F1B holds min(s + 1, M) for a stage with s later stages, GPipe all M) plus what one
//   microbatch needs while it runs (StageOption::transient_bytes).
// - PlanPipeline, over a module: cluster its layers (layers.h), price spans with the intra-op
//   solver of `spmdc auto` (PlanAuto: strategy space, solver, the full cost model of the
//   partitioned per-device program), then SearchStages. Pricing every span on every submesh is
//   what makes Alpa slow (hours of profiling); here identical layers are tied (AUTO.md §3): each
//   tie class's representative layer is planned once per logical submesh, and each pair of
//   consecutive classes is priced with its classes' plans carried onto it by position
//   (layers.h CarryPlan), so that a span's time is the sum of its layers' times plus, for every
//   boundary inside it, the pair's excess over its two layers (the resharding between them under
//   the plans every layer of the span has). The first and last layers (no input gradient; the
//   final norm, logits and loss) are their own classes.
//
// Costs, on a module as `spmdc auto --pipeline` gives it (PipelineOptions::given_layers: the
// pipeline's layer-call form inlined, its layers on one microbatch, pipeline/layer_plan.h): a
// stage's time per microbatch is its layers' loop parts (the layer copies priced alone, with
// the masked accumulation of their weight gradients) plus the rest of their units' steps (the
// update, the head, the embedding) over M; its memory is the weights, optimizer state, updates,
// gradient accumulators and the loop's copy of the weights, plus the layers' inputs per
// microbatch held, plus one layer's transient peak (the pipeline recomputes the rest). On any
// other module (the whole step's batch), a stage's time per microbatch is its priced time / M
// and its memory the weights and their updates plus the rest of the span's peak scaled to the
// microbatches held. Either way, receiving, per microbatch, its share of what crosses its
// boundaries over the profile's outermost link is added (stages sit on different hosts in
// general; this keeps a stage's cost independent of its neighbours, as the DP needs).
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "auto/layers.h"
#include "cost/hardware.h"
#include "ir/module.h"
#include "sharding/sharding.h"
#include "support/status.h"

namespace spmdc::autoshard {

enum class PipelineSchedule { k1F1B, kGPipe };

// A physical submesh: `hosts` x `per_host` devices (Alpa: (1, 2^k) inside a host, (n, host size)
// across hosts).
struct Submesh {
  int64_t hosts = 1, per_host = 1;
  int64_t devices() const { return hosts * per_host; }
  std::string ToString() const;
};

// The intra-op plan of one layer (a tie unit) on a logical mesh: the shardings of its
// parameters, by name (the module's weights keep theirs; the activation a layer receives is
// NAME.in), on the logical mesh's devices 0..n-1, and the whole plan: the layer as ExtractLayers
// made it (instructions named as in the planned module), a sharding on every instruction and a
// `Sharding` custom call where an operand is resharded before its use, as `spmdc auto` writes it.
struct UnitPlan {
  int layer = -1;  // the layer of the planned module it is
  std::vector<std::pair<std::string, Sharding>> parameters;
  std::shared_ptr<const Module> annotated;
};

// One intra-op plan of a span on a submesh.
struct StageOption {
  std::string mesh;              // the logical mesh the plan is for, "data=4,model=2"
  std::string variant;           // which intra-op plan of that mesh ("fast", "lean", ...)
  double seconds = 0;            // per microbatch, transfer_seconds included
  double transfer_seconds = 0;   // receiving the span's inputs from the neighbouring stages
  int64_t weight_bytes = 0;      // per device, whatever the microbatches in flight
  int64_t activation_bytes = 0;  // per device, per microbatch in flight
  // Per device, once: what one microbatch's layer needs while it runs, where only the layers'
  // inputs are held between the forward and the backward (the pipeline's layers recompute the
  // rest: PipelineOptions::given_layers); 0 where every activation is held.
  int64_t transient_bytes = 0;
  std::string summary;           // the plan in one line (a representative layer's weight specs)
  std::shared_ptr<const UnitPlan> plan;  // that representative layer's plan
  // Every tie class's plan on this mesh (by class; the representative's is one of them).
  std::shared_ptr<const std::vector<std::shared_ptr<const UnitPlan>>> class_plans;
  int64_t MemoryBytes(int64_t held_microbatches) const {
    return weight_bytes + activation_bytes * held_microbatches + transient_bytes;
  }
};

// Options of every (span of layers [first, last], submesh).
class StageCostTable {
 public:
  StageCostTable(int num_layers, std::vector<Submesh> submeshes);
  int num_layers() const { return num_layers_; }
  const std::vector<Submesh>& submeshes() const { return submeshes_; }
  std::vector<StageOption>& at(int first, int last, int submesh) { return options_[Index(first, last, submesh)]; }
  const std::vector<StageOption>& at(int first, int last, int submesh) const {
    return options_[Index(first, last, submesh)];
  }

 private:
  size_t Index(int first, int last, int submesh) const;
  int num_layers_;
  std::vector<Submesh> submeshes_;
  std::vector<std::vector<StageOption>> options_;
};

struct StageSearchOptions {
  int64_t num_devices = 1;
  int64_t microbatches = 8;
  PipelineSchedule schedule = PipelineSchedule::k1F1B;
  int64_t memory_limit = std::numeric_limits<int64_t>::max();  // bytes per device
  std::optional<int> stages;  // fixed stage count; none: searched
};

struct Stage {
  int first_layer = 0, last_layer = 0;
  int submesh = 0;  // index into the table's submeshes
  int option = 0;   // index into at(first, last, submesh)
  double seconds = 0;
  int64_t memory_bytes = 0;
  int64_t held_microbatches = 0;
};

struct StagePlan {
  std::vector<Stage> stages;
  double step_seconds = 0;       // sum + (M - 1) max
  double max_stage_seconds = 0;
  // Every stage has as many layers, the same submesh shape and the same logical mesh: the
  // GSPMD-style pipeline (`spmdc pipeline`, a stage axis over identical stages) can express it.
  bool uniform = false;
};

// Pipeline latency T = sum_i t_i + (M - 1) max_j t_j.
double PipelineLatency(const std::vector<double>& stage_seconds, int64_t microbatches);
// The microbatches a stage holds: 1F1B min(later + 1, M), GPipe M.
int64_t HeldMicrobatches(PipelineSchedule schedule, int64_t later_stages, int64_t microbatches);

struct StageSearchResult {
  std::optional<StagePlan> best;            // nullopt: no plan fits
  std::vector<StagePlan> uniform;           // every uniform plan that fits, by stage count then option
  std::optional<StagePlan> best_uniform;
  int64_t dp_evaluations = 0;               // DP runs (distinct t_max bounds tried)
  int64_t candidate_bounds = 0;             // distinct stage times
};

// InvalidArgument: a fixed stage count outside [1, min(layers, devices)], microbatches < 1;
// Unimplemented past 2^27 DP states ((stages + 1) x (layers + 1) x (devices + 1)).
StatusOr<StageSearchResult> SearchStages(const StageCostTable& table, const StageSearchOptions& options);

// ---------------------------------------------------------------------------------------------
// Over a module.

struct PipelineOptions {
  int64_t num_devices = 1;
  const HardwareProfile* hardware = nullptr;  // required
  std::optional<int64_t> memory_limit;        // bytes per device; none: the profile's HBM
  int64_t microbatches = 8;
  PipelineSchedule schedule = PipelineSchedule::k1F1B;
  std::optional<int> stages;
  double time_limit_s = 60;  // for each intra-op search
  int64_t work_limit = 0;    // for each intra-op search (plan.h); 0: kDefaultStageWork
  int threads = 0;           // intra-op searches run in parallel; 0: one per core
  // The layers, when the module is a layer-call form's calls inlined (pipeline/layer_plan.h):
  // entry instruction name -> layer (layers.h's given layers); none: cuts are searched.
  const absl::flat_hash_map<std::string, int>* given_layers = nullptr;
  // With given layers: the values the pipeline accumulates over microbatches (the weight
  // gradients), priced per microbatch with their accumulation (a masked add) and held (the
  // accumulators) through the backward; and per layer, the name of its input, the one value a
  // stage holds per microbatch in flight (the pipeline's stash).
  const absl::flat_hash_set<std::string>* accumulated = nullptr;
  const std::vector<std::string>* layer_inputs = nullptr;
  // Per layer, the name of its input cotangent (the backward's output to the layer before): with
  // the inputs, a layer is planned a second time with its input as its own output is planned
  // and its output cotangent as its own input cotangent, so that one layer's plan fits the next
  // (every layer of a class has the same plan).
  const std::vector<std::string>* layer_cotangents = nullptr;
};

// The per-search work budget of the intra-op solves when none is given: the stage search runs
// one per (tie unit, logical submesh), tens to hundreds of them.
constexpr int64_t kDefaultStageWork = 30'000'000;

// The plan that the GSPMD-style pipelined program (src/pipeline: a stage axis over identical
// stages) follows: the chosen one when its stages are uniform, else the best uniform one.
struct PipelineEmission {
  StagePlan plan;
  bool chosen = false;          // it is the search's chosen plan
  int stages = 0;
  int64_t microbatches = 0;
  int64_t devices_per_stage = 0;
  std::string stage_mesh;       // each stage's logical mesh, "data=2,model=4"
  std::shared_ptr<const UnitPlan> layer_plan;  // a representative layer's intra-op plan on it
  // The plans of the first and the last layer's classes on it (the embedding, the loss head).
  std::shared_ptr<const UnitPlan> first_plan, last_plan;
};

struct PipelineResult {
  LayerClustering layers;
  std::vector<Submesh> submeshes;
  int64_t logical_meshes = 0;    // logical meshes priced
  int64_t unit_pricings = 0;     // (tie unit, logical mesh) pairs priced
  int64_t intra_op_solves = 0;   // PlanAuto runs (a few plans per unit and mesh)
  double pricing_seconds = 0;    // wall time of the intra-op solves
  int threads = 1;               // that ran them
  double search_seconds = 0;     // wall time of the DP
  int64_t memory_limit = 0;
  StageSearchResult search;
  StageCostTable table{0, {}};
  // The first device of each stage of `search.best` (stages in pipeline order; submeshes are
  // placed largest first, so each lands aligned inside or across hosts).
  std::vector<int64_t> first_device;
  std::optional<PipelineEmission> emission;  // none when no uniform plan fits
};

// Errors: those of ClusterLayers and PlanAuto (Unimplemented for what the partitioner cannot
// take), InvalidArgument for a stage count above the layers or devices, ResourceExhausted when no
// stage plan fits the memory limit.
StatusOr<PipelineResult> PlanPipeline(const Module& module, const PipelineOptions& options);

}  // namespace spmdc::autoshard

// PipelineModule: the program of pipeline.h (GPipe or circular), written as HLO text around the source's own
// (printed) instructions and parsed back, so that the result is checked by the parser and the
// verifier like any user module.
#include "pipeline/pipeline.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <numeric>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_split.h"
#include "fmt/format.h"
#include "hlo/parser.h"
#include "hlo/printer.h"
#include "ir/verifier.h"
#include "pipeline/layer_batching.h"
#include "pipeline/layer_forms.h"
#include "pipeline/stacked_update.h"
#include "propagation/propagation.h"
#include "sharding/sharding.h"
#include "sharding/sharding_text.h"

namespace spmdc::pipeline {

std::string ScheduleName(Schedule s) { return s == Schedule::kGpipe ? "gpipe" : "circular"; }

double PipelineInfo::Bubble() const {
  // Every stage works on M·R of the M·R+S-1 iterations of each loop (R = 1 for GPipe).
  return static_cast<double>(stages - 1) / static_cast<double>(microbatches * repeats + stages - 1);
}

std::string PipelineInfo::ToAttribute() const {
  std::string text = fmt::format("stages={};microbatches={};layers={};schedule={};axis={}", stages, microbatches, layers,
                                 ScheduleName(schedule), axis);
  if (schedule == Schedule::kCircular) text += fmt::format(";repeats={}", repeats);
  if (!mesh.empty()) text += ";mesh=" + mesh;
  text += fmt::format(";stage_parameter_bytes={};stash_bytes={}", stage_parameter_bytes, stash_bytes);
  return text;
}

std::optional<PipelineInfo> ReadPipelineInfo(const Module& module) {
  const KeyValueList* attrs = module.config().Get<KeyValueList>(AttrId::kFrontendAttributes);
  if (attrs == nullptr) return std::nullopt;
  for (const auto& [key, raw] : *attrs) {
    if (key != "spmdc_pipeline") continue;
    std::string value = raw;
    if (value.size() >= 2 && value.front() == '"') value = value.substr(1, value.size() - 2);
    PipelineInfo info;
    bool schedule_ok = false;
    for (absl::string_view piece : absl::StrSplit(value, ';')) {
      std::string_view part(piece.data(), piece.size());
      const size_t eq = part.find('=');
      if (eq == std::string_view::npos) return std::nullopt;
      std::string_view k = part.substr(0, eq), v = part.substr(eq + 1);
      auto num = [&](int64_t* out) { *out = std::atoll(std::string(v).c_str()); };
      if (k == "stages") num(&info.stages);
      if (k == "microbatches") num(&info.microbatches);
      if (k == "layers") num(&info.layers);
      if (k == "repeats") num(&info.repeats);
      if (k == "axis") info.axis = std::string(v);
      if (k == "mesh") info.mesh = std::string(v);
      if (k == "stage_parameter_bytes") num(&info.stage_parameter_bytes);
      if (k == "stash_bytes") num(&info.stash_bytes);
      if (k == "schedule") {
        schedule_ok = v == "gpipe" || v == "circular";
        info.schedule = v == "circular" ? Schedule::kCircular : Schedule::kGpipe;
      }
    }
    if (info.stages < 1 || info.microbatches < 1 || info.repeats < 1 || !schedule_ok) return std::nullopt;
    return info;
  }
  return std::nullopt;
}

namespace {

std::string Dims(const std::vector<int64_t>& v) { return fmt::format("{{{}}}", fmt::join(v, ",")); }
std::string ShapeText(DType t, const std::vector<int64_t>& dims) { return Shape(t, dims).ToString(false); }
std::vector<int64_t> Cat(std::vector<int64_t> a, const std::vector<int64_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}
std::vector<int64_t> Range(int64_t from, int64_t to) {
  std::vector<int64_t> r(std::max<int64_t>(0, to - from));
  std::iota(r.begin(), r.end(), from);
  return r;
}

// Source device d at stage s is PipelinedDevice(d, s): a source sharding keeps its tiles over
// the source devices and is replicated over the stages.
StatusOr<Sharding> Remap(const Sharding& s, int64_t stages, int64_t n) {
  if (s.IsTuple()) {
    std::vector<Sharding> elems;
    for (const Sharding& e : s.tuple_elements()) {
      ASSIGN_OR_RETURN(Sharding r, Remap(e, stages, n));
      elems.push_back(r);
    }
    return Sharding::Tuple(std::move(elems));
  }
  if (s.IsReplicated()) return s;
  if (!s.IsTiled() || !(s.subgroup_types().empty() || s.ReplicateOnLastTileDim()) || s.IsManualSubgroup())
    return Unimplemented("pipeline: the sharding {} cannot be kept over the source's devices (only tiled and "
                         "replicated shardings are)",
                         s.ToString(false));
  const TileAssignment& ta = s.tile_assignment();
  std::vector<int64_t> dims = ta.dims();
  if (s.ReplicateOnLastTileDim())
    dims.back() *= stages;
  else
    dims.push_back(stages);
  std::vector<int64_t> devices;
  for (int64_t i = 0; i < ta.num_elements(); ++i)
    for (int64_t st = 0; st < stages; ++st) devices.push_back(PipelinedDevice(ta.At(i), st, n));
  return Sharding::PartialTile(TileAssignment::FromDevices(dims, devices));
}

class Generator {
 public:
  Generator(const Module& source, const LayerChain& chain, const PipelineOptions& o)
      : source_(source), chain_(chain), o_(o) {}
  StatusOr<PipelineResult> Run();

 private:
  // Appends `  name = rhs` to `out` with a fresh name from `hint`.
  std::string Emit(std::string& out, const std::string& hint, const std::string& rhs) {
    std::string n = module_->UniqueName(hint);
    out += fmt::format("  {} = {}\n", n, rhs);
    return n;
  }
  std::string Const(std::string& out, DType t, int64_t v) {
    return Emit(out, "pipe.c", fmt::format("{} constant({})", ShapeText(t, {}), v));
  }
  // `{devices=[...]...}` of a [S, ...] value (stage on dim 0) or, with staged false, of a value
  // replicated over the stages; its dim `batch_dim` split over the data devices when >= 0.
  std::string ShardingText(int64_t rank, bool staged, int64_t batch_dim) const;
  // The sharding of an activation value: `lead` dims (the stage dim first when `staged`) before
  // a microbatch's. The layer's input (in the backward, its output cotangent; `cotangent`
  // overrides which) split as the layer computation's parameter is (the stage search's plan,
  // layer_plan.h), else as ShardingText splits a batch over the data devices.
  std::string ActSharding(int64_t lead, bool staged, std::optional<bool> cotangent = std::nullopt) const;
  const Sharding* act_ = nullptr;   // F's parameter 0
  const Sharding* dact_ = nullptr;  // G's cotangent parameter
  bool cotangent_ = false;          // emitting the backward loop
  // Computations.
  std::string ForwardBody(const std::string& name, const std::string& layer);
  std::string BackwardBody(const std::string& name, const std::string& layer);
  std::string Condition(const std::string& name, const std::string& state_shape);
  std::string StateShape(bool backward) const;
  // Circular: the stage dim rotated by one (towards higher stages when `up`, the last stage's
  // value wrapping to stage 0, or the other way).
  std::string Rotate(std::string& b, const std::string& cur, bool up);
  // In a loop body: `buf` [S, M, microbatch...] with stage `stage`'s slot of microbatch
  // t - offset set to that stage's `cur` (an elementwise select: the buffer stays split over
  // the stages, and only `stage`'s devices ever hold results).
  std::string Collect(std::string& b, const std::string& cur, const std::string& buf, const std::string& t, int64_t stage,
                      int64_t offset);
  // After a loop: stage `stage`'s [M, microbatch...] of the loop's element 3 (one broadcast).
  std::string Extract(std::string& b, const std::string& loop, int64_t stage);
  // The padding config of a shift by one stage: towards higher stages (`up`) or lower ones.
  std::string ShiftPadding(bool up) const {
    std::string p = up ? "1_-1" : "-1_1";
    for (size_t d = 0; d < mb_dims_.size(); ++d) p += "x0_0";
    return p;
  }
  std::string StateSharding(bool backward) const;
  // Loop bodies, both directions: what stage `stage` (0 forward, S-1 backward) takes in at step
  // t, microbatch clamp(t, 0, M-1) of `batches` [M, microbatch...] (circular, past the first
  // repeat: what comes back round, from `circ`), while every other stage keeps `own`, the
  // shifted state. `zero` is the body's s32 0; `tag` and `is_tag` name what it emits.
  std::string StageInput(std::string& b, const std::string& t, const std::string& zero, const std::string& batches,
                         const std::string& own, int64_t stage, std::string* circ, const std::string& tag,
                         const std::string& is_tag);
  // The stash slot of layer r (circular: of group layer r, from `jbase`): its mask over the stash
  // [S, M, R, microbatch...] where `at_m` (pred [S, M, R]) holds, and per stage its slot `j`
  // (circular only) and `rc` (the constant r).
  struct StashSlot {
    std::string rc, j, mask;
  };
  StashSlot SlotMask(std::string& b, int64_t r, const std::string& jbase, const std::string& iota_r,
                     const std::string& at_m);
  // The loop state's weights and gradient accumulators. GPipe keeps one element per layer of a
  // stage ([S, weight...], [S, (P), gradient...]), so that an iteration reads its layers'
  // weights and adds to their accumulators with no slice or update of a stacked buffer (which
  // would move every weight once per iteration); the stacked forms are split once before the
  // loops and joined once after. Circular stages pick slots per stage, so they keep the stacked
  // [S, R, ...] forms.
  int64_t LayerElems() const { return circular_ ? 1 : R_; }
  std::string WeightElemShape(int64_t k) const {
    return ShapeText(weight_shapes_[k].first, circular_ ? Cat({S_, R_}, weight_shapes_[k].second) : Cat({S_}, weight_shapes_[k].second));
  }
  std::string AccElemShape(int64_t j) const { return ShapeText(grad_shapes_[j].first, GradLoopDims(j, circular_)); }
  // Reads the weights [k][r] and (backward) the accumulators [j][r] from loop state `p`.
  void ReadLayerState(std::string& b, const std::string& p, bool backward, std::vector<std::vector<std::string>>* w,
                      std::vector<std::vector<std::string>>* acc);
  std::vector<std::vector<std::string>> layer_weights_;  // in the entry: per slot, per layer of a stage (GPipe)
  // [S, M]: stage s works on microbatch m[s] (`m` s32[S]).
  std::string AtStageMicrobatch(std::string& b, const std::string& m) {
    const std::string sm = ShapeText(DType::kS32, {S_, M_});
    const std::string iota = Emit(b, "pipe.iota", fmt::format("{} iota(), iota_dimension=1", sm));
    const std::string mb = Emit(b, "pipe.mb", fmt::format("{} broadcast({}), dimensions={{0}}", sm, m));
    return Emit(b, "pipe.at", fmt::format("{} compare({}, {}), direction=EQ", ShapeText(DType::kPred, {S_, M_}), iota, mb));
  }
  // GPipe: row r of `buf` [S, X, R, ...] (dim `dim` = the layer slot) as [S, X, 1, ...], and
  // `buf` with that row replaced: the stash and the accumulators change one layer's row per
  // layer call, so the masks and temporaries are 1/R of the buffer.
  std::string SliceRow(std::string& b, const std::string& buf, DType t, const std::vector<int64_t>& dims, int64_t dim,
                       int64_t r);
  std::string UpdateRow(std::string& b, const std::string& buf, const std::string& row, DType t,
                        const std::vector<int64_t>& dims, int64_t dim, int64_t r, const std::string& sharding);
  // The entry's instructions that replace the chains.
  std::string ForwardBlock(const std::string& body, const std::string& cond);
  std::string BackwardBlock(const std::string& body, const std::string& cond);

  const Module& source_;
  const LayerChain& chain_;
  const PipelineOptions& o_;
  std::unique_ptr<Module> module_;  // the source's clone: its shardings remapped, its names taken
  int64_t S_ = 0, M_ = 0, L_ = 0, R_ = 0, K_ = 0, B_ = 0, mb_ = 0, N_ = 1, data_ = 1, T_ = 0;
  // Circular schedule: each stage holds Rc_ groups of G_ layers (R_ = Rc_ · G_); stage s's slot
  // j = r·G + g is layer (r·S + s)·G + g. GPipe: Rc_ = 1, G_ = R_ (slot j of stage s is layer
  // s·R + j).
  bool circular_ = false;
  int64_t Rc_ = 1, G_ = 0;
  int64_t LayerAt(int64_t s, int64_t j) const { return ((j / G_) * S_ + s) * G_ + j % G_; }
  // Position s·R + j of layer l in the stacked [S, R, ...] buffers.
  int64_t PositionOf(int64_t l) const {
    const int64_t g = l % G_, block = l / G_;
    return (block % S_) * R_ + (block / S_) * G_ + g;
  }
  std::vector<int64_t> InPositionOrder(const std::vector<int64_t>& by_layer) const {
    std::vector<int64_t> out(by_layer.size());
    for (int64_t l = 0; l < static_cast<int64_t>(by_layer.size()); ++l) out[PositionOf(l)] = by_layer[l];
    return out;
  }
  // Per-reduction-dtype scalar add computations (named; emitted with the module's computations).
  std::string Reducer(DType t);
  absl::flat_hash_map<DType, std::string> reducers_;
  std::string reducer_text_;
  // In a loop body (circular): per-stage [S] values of the schedule and the weights of slot j
  // picked per stage (a masked sum over the stage's R slots: the stages use different slots).
  std::string PickWeight(std::string& b, const std::string& w, int64_t k, const std::string& j);
  // The circular buffer of microbatches that wait for stage `stage` to start their next repeat:
  // the rotated-in value is stored at microbatch (t - S) mod M, and the one for t mod M is read.
  std::string CircularInput(std::string& b, const std::string& t, const std::string& state, std::string* circ, int64_t stage);
  DType act_type_ = DType::kF32;
  std::vector<int64_t> rest_;     // activation dims after the batch
  std::vector<int64_t> mb_dims_;  // [mb, rest...]
  std::vector<std::pair<DType, std::vector<int64_t>>> weight_shapes_;
  // The backward layer's outputs after the input cotangent (J_ of them: each weight's gradient in
  // the call form; in general partial sums over the batch), summed over the microbatches.
  int64_t J_ = 0;
  std::vector<std::pair<DType, std::vector<int64_t>>> grad_shapes_;
  std::vector<std::string> grad_sharding2_, grad_sharding1_;  // [S, R, ...] and [S, ...]
  // With the microbatch split over data devices, the backward layer keeps each gradient output
  // summed per data piece (layer_batching.h; P = pieces_ > 1): [S, P, ...] out of the layer,
  // [S, R, P, ...] accumulated, summed over P once after the loop. P = 1 without a data split
  // or where the layer's backward multiplies a partial sum.
  int64_t pieces_ = 1;
  std::vector<std::string> acc_sharding_, call_sharding_;  // [S, R, (P), ...], [S, (P), ...]
  std::vector<int64_t> GradLoopDims(int64_t j, bool accumulated) const {
    std::vector<int64_t> lead = accumulated ? std::vector<int64_t>{S_, R_} : std::vector<int64_t>{S_};
    if (pieces_ > 1) lead.push_back(pieces_);
    return Cat(lead, grad_shapes_[j].second);
  }
  // The sharding of a [S, (R), P, g...] value: the stages, the pieces over the data devices, and
  // the dims g split as `weight` (a source sharding over the source's devices, or null) splits
  // them over the devices within a data piece.
  std::string PiecesSharding(const Sharding* weight, int64_t rank_g, bool accumulated) const;
  std::string reducer_;
  // The stacked update (stacked_update.h) of the entry: its instructions, before the root.
  // `results` receives the stacked value of each of the slot's outputs.
  std::string StackedUpdate(const StackedSlot& slot, size_t slot_index, std::vector<std::string>* results);
  // Layer l's value (a per-layer parameter the entry still uses, named `name`) sliced from the
  // stacked parameter.
  std::string LayerSlice(const std::string& stacked, int64_t l, const std::string& name, const Shape& shape);

  // Names in the entry of values the two blocks share.
  std::string stash_;
  std::vector<std::string> stacked_;           // per slot: the [S, L/S, ...] weights
  std::vector<std::string> grads_;             // per slot: the [S, L/S, ...] summed gradients
  std::vector<const StackedSlot*> slot_of_;    // per slot: its stacked update, or null
  std::vector<std::string> stacked_params_;    // per slot with a stacked update: the parameter's name
  absl::flat_hash_set<std::string> replaced_;  // source instructions a stacked update replaces
  std::vector<StackedSlot> slots_;
  std::vector<std::vector<std::string>> companion_params_;  // per slot of slots_, per companion
  // Shardings of a slot's stacked values: [S, R, ...] and one layer's [S, ...]: split over the
  // stages, and over the source's devices as the source splits that weight (the same in every
  // layer), so that other mesh axes stay as annotated.
  std::vector<std::string> slot_sharding2_, slot_sharding1_;
  std::vector<std::vector<std::string>> companion_sharding_;  // per slot of slots_, per companion
  std::string Composed(const std::vector<const Instruction*>& per_layer, int64_t lead) const;
  // The stacked sharding for a value of slot k's update of shape `shape`.
  std::string UpdateSharding(int64_t k, const Shape& shape) const {
    return shape == chain_.weights[0][k]->shape() ? slot_sharding2_[k] : ShardingText(shape.rank() + 2, true, -1);
  }
  std::vector<std::vector<int64_t>> parameter_sources_, result_sources_;

  // Stacked sources (a scanned model's weights [L, ...]): per slot k, the value V whose rows are
  // the layers' weights in position order (so [S, L/S, ...] is a reshape of V), or null; per
  // gradient output j, the concatenate of the layers' outputs in that order (the source's
  // stacked gradient, then a reshape of the accumulator), or null. `rows_` are the row slices
  // and reshapes they replace (not printed).
  std::vector<const Instruction*> row_source_, grad_concat_;
  absl::flat_hash_set<std::string> rows_;
  void FindRowStacks();
  // The sharding of `source` [L, ...] (an instruction of the source, split over its devices with
  // dim 0 unsplit) stored as the stages' blocks of rows: its split of the other dims kept, dim 0
  // over the stages; `lead` 2: of its [S, L/S, ...] form.
  std::string RowsSharding(const Instruction* source, int64_t lead) const;
};

std::string Generator::ShardingText(int64_t rank, bool staged, int64_t batch_dim) const {
  const int64_t n = N_ * S_;
  if (n == 1) return "{replicated}";
  std::vector<int64_t> tiles(rank, 1);
  if (staged) tiles[0] = S_;
  const bool split = batch_dim >= 0 && data_ > 1;
  if (split) tiles[batch_dim] = data_;
  const int64_t replicas = n / ((staged ? S_ : 1) * (split ? data_ : 1));
  if (!staged && !split) return "{replicated}";
  // Row-major over the tile array: the stage coordinate before the data one (both orders give
  // device (d·per + j)·S + s); replicas (the coordinates the value is not split over) last.
  std::vector<int64_t> devices;
  const int64_t stage_count = staged ? S_ : 1;
  const int64_t data_count = split ? data_ : 1;
  const int64_t per = N_ / data_;  // source devices that share a piece of the batch
  for (int64_t s = 0; s < stage_count; ++s)
    for (int64_t d = 0; d < data_count; ++d)
      for (int64_t r = 0; r < replicas; ++r) {
        // Not split over a coordinate: it runs over the replicas (stages fastest, then the
        // devices sharing a piece, then the pieces).
        const int64_t stage = staged ? s : r % S_;
        const int64_t rest = staged ? r : r / S_;
        const int64_t piece = split ? d : rest / per;
        devices.push_back(PipelinedDevice(piece * per + rest % per, stage, N_));
      }
  if (replicas > 1) tiles.push_back(replicas);
  return fmt::format("{{devices=[{}]{}{}}}", fmt::join(tiles, ","), fmt::join(devices, ","),
                     replicas > 1 ? " last_tile_dim_replicate" : "");
}

std::string Generator::ActSharding(int64_t lead, bool staged, std::optional<bool> cotangent) const {
  const int64_t rank = static_cast<int64_t>(mb_dims_.size());
  if (const Sharding* a = cotangent.value_or(cotangent_) ? dact_ : act_)
    if (std::optional<Sharding> s = StageSharding(*a, rank, N_, S_, lead, staged)) return s->ToString(false);
  return ShardingText(lead + rank, staged, lead);
}

std::string Generator::StateShape(bool backward) const {
  const std::string act_s = ShapeText(act_type_, Cat({S_}, mb_dims_));
  const std::string act_m = ShapeText(act_type_, Cat({M_}, mb_dims_));
  const std::string done = ShapeText(act_type_, Cat({S_, M_}, mb_dims_));
  std::vector<std::string> parts = {"s32[]", act_s, act_m, done, ShapeText(act_type_, Cat({S_, M_, R_}, mb_dims_))};
  for (int64_t k = 0; k < K_; ++k)
    for (int64_t r = 0; r < LayerElems(); ++r) parts.push_back(WeightElemShape(k));
  if (backward)
    for (int64_t j = 0; j < J_; ++j)
      for (int64_t r = 0; r < LayerElems(); ++r) parts.push_back(AccElemShape(j));
  if (circular_) parts.push_back(done);  // the microbatches waiting for their next repeat
  return fmt::format("({})", fmt::join(parts, ", "));
}

std::string Generator::StateSharding(bool backward) const {
  std::vector<std::string> parts = {"{replicated}", ActSharding(1, true, backward), ActSharding(1, false, backward),
                                    ActSharding(2, true, backward), ActSharding(3, true, false)};
  for (int64_t k = 0; k < K_; ++k)
    for (int64_t r = 0; r < LayerElems(); ++r) parts.push_back(circular_ ? slot_sharding2_[k] : slot_sharding1_[k]);
  if (backward)
    for (int64_t j = 0; j < J_; ++j)
      for (int64_t r = 0; r < LayerElems(); ++r) parts.push_back(circular_ ? acc_sharding_[j] : call_sharding_[j]);
  if (circular_) parts.push_back(ActSharding(2, true, backward));
  return fmt::format("{{{}}}", fmt::join(parts, ", "));
}

std::string Generator::Collect(std::string& b, const std::string& cur, const std::string& buf, const std::string& t,
                               int64_t stage, int64_t offset) {
  const int64_t rank = static_cast<int64_t>(mb_dims_.size());
  const std::vector<int64_t> dims = Cat({S_, M_}, mb_dims_);
  const std::string shape = ShapeText(act_type_, dims), ss = ShapeText(DType::kS32, {S_, M_}),
                    ps = ShapeText(DType::kPred, {S_, M_});
  std::string mo = Emit(b, "pipe.mb", fmt::format("s32[] subtract({}, {})", t, Const(b, DType::kS32, offset)));
  std::string at_m = Emit(b, "pipe.at", fmt::format("{} compare({}, {}), direction=EQ", ps,
                                                    Emit(b, "pipe.iota", fmt::format("{} iota(), iota_dimension=1", ss)),
                                                    Emit(b, "pipe.mb", fmt::format("{} broadcast({}), dimensions={{}}", ss, mo))));
  std::string at_s = Emit(b, "pipe.at", fmt::format("{} compare({}, {}), direction=EQ", ps,
                                                    Emit(b, "pipe.iota", fmt::format("{} iota(), iota_dimension=0", ss)),
                                                    Emit(b, "pipe.c", fmt::format("{} broadcast({}), dimensions={{}}", ss,
                                                                                  Const(b, DType::kS32, stage)))));
  std::string mask = Emit(b, "pipe.at", fmt::format("{} and({}, {})", ps, at_m, at_s));
  std::string mask_b = Emit(b, "pipe.at", fmt::format("{} broadcast({}), dimensions={{0,1}}", ShapeText(DType::kPred, dims), mask));
  std::string cur_b = Emit(b, "pipe.done", fmt::format("{} broadcast({}), dimensions={}", shape, cur, Dims(Cat({0}, Range(2, rank + 2)))));
  return Emit(b, "pipe.done", fmt::format("{} select({}, {}, {}), sharding={}", shape, mask_b, cur_b, buf, ActSharding(2, true)));
}

std::string Generator::Extract(std::string& b, const std::string& loop, int64_t stage) {
  const std::vector<int64_t> dims = Cat({S_, M_}, mb_dims_);
  std::string all = Emit(b, "pipe.done", fmt::format("{} get-tuple-element({}), index=3", ShapeText(act_type_, dims), loop));
  std::vector<std::string> spec = {fmt::format("[{}:{}]", stage, stage + 1)};
  for (int64_t d : Cat({M_}, mb_dims_)) spec.push_back(fmt::format("[0:{}]", d));
  std::string one = Emit(b, "pipe.done", fmt::format("{} slice({}), slice={{{}}}", ShapeText(act_type_, Cat({1, M_}, mb_dims_)), all,
                                                     fmt::join(spec, ", ")));
  return Emit(b, "pipe.done", fmt::format("{} reshape({})", ShapeText(act_type_, Cat({M_}, mb_dims_)), one));
}

std::string Generator::Composed(const std::vector<const Instruction*>& per_layer, int64_t lead) const {
  const int64_t rank = per_layer[0]->shape().rank();
  const std::string plain = ShardingText(rank + lead, true, -1);
  const Sharding* s = per_layer[0]->sharding();
  if (N_ == 1 || s == nullptr || s->IsReplicated() || !s->IsTiled() || s->IsManualSubgroup() ||
      !(s->subgroup_types().empty() || s->ReplicateOnLastTileDim()) || s->tile_assignment().num_elements() != N_)
    return plain;
  for (const Instruction* w : per_layer)
    if (!w->has_sharding() || w->sharding()->ToString(false) != s->ToString(false)) return plain;
  const TileAssignment& ta = s->tile_assignment();
  std::vector<int64_t> dims = {S_};
  if (lead == 2) dims.push_back(1);
  dims.insert(dims.end(), ta.dims().begin(), ta.dims().end());
  std::vector<int64_t> devices;
  for (int64_t st = 0; st < S_; ++st)
    for (int64_t i = 0; i < ta.num_elements(); ++i) devices.push_back(PipelinedDevice(ta.At(i), st, N_));
  return fmt::format("{{devices=[{}]{}{}}}", fmt::join(dims, ","), fmt::join(devices, ","),
                     s->ReplicateOnLastTileDim() ? " last_tile_dim_replicate" : "");
}

std::string Generator::Rotate(std::string& b, const std::string& cur, bool up) {
  auto part = [&](int64_t from, int64_t to) {
    std::vector<std::string> spec = {fmt::format("[{}:{}]", from, to)};
    for (int64_t d : mb_dims_) spec.push_back(fmt::format("[0:{}]", d));
    return Emit(b, "pipe.shift", fmt::format("{} slice({}), slice={{{}}}", ShapeText(act_type_, Cat({to - from}, mb_dims_)), cur,
                                             fmt::join(spec, ", ")));
  };
  if (S_ == 1) return cur;
  std::string first = up ? part(S_ - 1, S_) : part(1, S_);
  std::string second = up ? part(0, S_ - 1) : part(0, 1);
  return Emit(b, "pipe.shift", fmt::format("{} concatenate({}, {}), dimensions={{0}}, sharding={}", ShapeText(act_type_, Cat({S_}, mb_dims_)),
                                           first, second, ActSharding(1, true)));
}

std::string Generator::Reducer(DType t) {
  auto it = reducers_.find(t);
  if (it != reducers_.end()) return it->second;
  const std::string name = module_->UniqueName(fmt::format("pipe.add_{}", DTypeName(t)));
  const std::string ty(DTypeName(t));
  reducer_text_ += fmt::format("{0} {{\n  {0}.a = {1}[] parameter(0)\n  {0}.b = {1}[] parameter(1)\n  ROOT {0}.sum = {1}[] add({0}.a, {0}.b)\n}}\n\n",
                               name, ty);
  reducers_[t] = name;
  return name;
}

std::string Generator::PickWeight(std::string& b, const std::string& w, int64_t k, const std::string& j) {
  const auto& [wt, wd] = weight_shapes_[k];
  const std::vector<int64_t> dims = Cat({S_, R_}, wd);
  const std::string iota = Emit(b, "pipe.iota", fmt::format("{} iota(), iota_dimension=1", ShapeText(DType::kS32, dims)));
  const std::string jb = Emit(b, "pipe.r", fmt::format("{} broadcast({}), dimensions={{0}}", ShapeText(DType::kS32, dims), j));
  const std::string at = Emit(b, "pipe.at", fmt::format("{} compare({}, {}), direction=EQ", ShapeText(DType::kPred, dims), iota, jb));
  const std::string zero = Emit(b, "pipe.c", fmt::format("{} constant(0)", ShapeText(wt, {})));
  const std::string zeros = Emit(b, "pipe.c", fmt::format("{} broadcast({}), dimensions={{}}", ShapeText(wt, dims), zero));
  const std::string picked = Emit(b, "pipe.w", fmt::format("{} select({}, {}, {})", ShapeText(wt, dims), at, w, zeros));
  return Emit(b, "pipe.w", fmt::format("{} reduce({}, {}), dimensions={{1}}, to_apply={}, sharding={}", ShapeText(wt, Cat({S_}, wd)),
                                        picked, zero, Reducer(wt), slot_sharding1_[k]));
}

std::string Generator::CircularInput(std::string& b, const std::string& t, const std::string& state, std::string* circ,
                                     int64_t stage) {
  const int64_t rank = static_cast<int64_t>(mb_dims_.size());
  const std::vector<int64_t> dims = Cat({S_, M_}, mb_dims_);
  const std::string shape = ShapeText(act_type_, dims), ss = ShapeText(DType::kS32, {S_, M_}), ps = ShapeText(DType::kPred, {S_, M_});
  auto mod_m = [&](const std::string& v) {  // v mod M for v >= 0
    std::string q = Emit(b, "pipe.q", fmt::format("s32[] divide({}, {})", v, Const(b, DType::kS32, M_)));
    std::string qm = Emit(b, "pipe.q", fmt::format("s32[] multiply({}, {})", q, Const(b, DType::kS32, M_)));
    return Emit(b, "pipe.q", fmt::format("s32[] subtract({}, {})", v, qm));
  };
  const std::string iota_s = Emit(b, "pipe.iota", fmt::format("{} iota(), iota_dimension=0", ss));
  const std::string iota_m = Emit(b, "pipe.iota", fmt::format("{} iota(), iota_dimension=1", ss));
  auto at = [&](const std::string& iota, const std::string& v) {
    std::string vb = Emit(b, "pipe.mb", fmt::format("{} broadcast({}), dimensions={{}}", ss, v));
    return Emit(b, "pipe.at", fmt::format("{} compare({}, {}), direction=EQ", ps, iota, vb));
  };
  // Store what arrived at `stage` (the other end's output of the previous iteration).
  const std::string arrived = Emit(b, "pipe.q", fmt::format("s32[] subtract({}, {})", t, Const(b, DType::kS32, S_)));
  const std::string ready = Emit(b, "pipe.ok", fmt::format("pred[] compare({}, {}), direction=GE", arrived, Const(b, DType::kS32, 0)));
  const std::string ready_b = Emit(b, "pipe.ok", fmt::format("{} broadcast({}), dimensions={{}}", ps, ready));
  std::string mask = Emit(b, "pipe.at", fmt::format("{} and({}, {})", ps, at(iota_s, Const(b, DType::kS32, stage)), at(iota_m, mod_m(arrived))));
  mask = Emit(b, "pipe.at", fmt::format("{} and({}, {})", ps, mask, ready_b));
  const std::string mask_b = Emit(b, "pipe.at", fmt::format("{} broadcast({}), dimensions={{0,1}}", ShapeText(DType::kPred, dims), mask));
  const std::string state_b = Emit(b, "pipe.in", fmt::format("{} broadcast({}), dimensions={}", shape, state, Dims(Cat({0}, Range(2, rank + 2)))));
  *circ = Emit(b, "pipe.circ", fmt::format("{} select({}, {}, {}), sharding={}", shape, mask_b, state_b, *circ, ActSharding(2, true)));
  // Read microbatch t mod M (each stage its own row; only `stage`'s is used).
  const std::string read_b = Emit(b, "pipe.at", fmt::format("{} broadcast({}), dimensions={{0,1}}", ShapeText(DType::kPred, dims),
                                                            at(iota_m, mod_m(t))));
  const std::string zero = Emit(b, "pipe.c", fmt::format("{} constant(0)", ShapeText(act_type_, {})));
  const std::string zeros = Emit(b, "pipe.c", fmt::format("{} broadcast({}), dimensions={{}}", shape, zero));
  const std::string picked = Emit(b, "pipe.x", fmt::format("{} select({}, {}, {})", shape, read_b, *circ, zeros));
  return Emit(b, "pipe.x", fmt::format("{} reduce({}, {}), dimensions={{1}}, to_apply={}, sharding={}", ShapeText(act_type_, Cat({S_}, mb_dims_)),
                                        picked, zero, Reducer(act_type_), ActSharding(1, true)));
}

std::string Generator::Condition(const std::string& name, const std::string& state_shape) {
  std::string b;
  std::string p = Emit(b, "pipe.p", fmt::format("{} parameter(0)", state_shape));
  std::string t = Emit(b, "pipe.t", fmt::format("s32[] get-tuple-element({}), index=0", p));
  std::string n = Const(b, DType::kS32, T_);
  std::string root = module_->UniqueName("pipe.more");
  b += fmt::format("  ROOT {} = pred[] compare({}, {}), direction=LT\n", root, t, n);
  return fmt::format("{} {{\n{}}}\n\n", name, b);
}

std::string Generator::StageInput(std::string& b, const std::string& t, const std::string& zero,
                                  const std::string& batches, const std::string& own, int64_t stage, std::string* circ,
                                  const std::string& tag, const std::string& is_tag) {
  const int64_t rank = static_cast<int64_t>(mb_dims_.size());
  const std::vector<int64_t> sdims = Cat({S_}, mb_dims_);
  const std::string act_s = ShapeText(act_type_, sdims), act = ShapeText(act_type_, mb_dims_);
  const std::string last_mb = Const(b, DType::kS32, M_ - 1);
  std::string tc = Emit(b, "pipe.tc", fmt::format("s32[] clamp({}, {}, {})", zero, t, last_mb));
  std::vector<std::string> starts(rank, zero);
  std::string in = Emit(b, tag, fmt::format("{} dynamic-slice({}, {}, {}), dynamic_slice_sizes={}",
                                            ShapeText(act_type_, Cat({1}, mb_dims_)), batches, tc, fmt::join(starts, ", "),
                                            Dims(Cat({1}, mb_dims_))));
  in = Emit(b, tag, fmt::format("{} reshape({})", act, in));
  std::string in_b = Emit(b, tag, fmt::format("{} broadcast({}), dimensions={}", act_s, in, Dims(Range(1, rank + 1))));
  std::string sid_full = Emit(b, "pipe.stage", fmt::format("{} iota(), iota_dimension=0", ShapeText(DType::kS32, sdims)));
  const std::string stage_c = stage == 0 ? zero : Const(b, DType::kS32, stage);
  std::string stage_full = Emit(b, "pipe.c", fmt::format("{} broadcast({}), dimensions={{}}", ShapeText(DType::kS32, sdims), stage_c));
  std::string is_stage = Emit(b, is_tag, fmt::format("{} compare({}, {}), direction=EQ", ShapeText(DType::kPred, sdims), sid_full, stage_full));
  if (circular_) {
    std::string back = CircularInput(b, t, own, circ, stage);
    std::string fresh = Emit(b, "pipe.ok", fmt::format("pred[] compare({}, {}), direction=LT", t, Const(b, DType::kS32, M_)));
    std::string fresh_b = Emit(b, "pipe.ok", fmt::format("{} broadcast({}), dimensions={{}}", ShapeText(DType::kPred, sdims), fresh));
    in_b = Emit(b, tag, fmt::format("{} select({}, {}, {})", act_s, fresh_b, in_b, back));
  }
  return Emit(b, "pipe.in", fmt::format("{} select({}, {}, {}), sharding={}", act_s, is_stage, in_b, own,
                                        ActSharding(1, true)));
}

Generator::StashSlot Generator::SlotMask(std::string& b, int64_t r, const std::string& jbase, const std::string& iota_r,
                                         const std::string& at_m) {
  const std::string smr = ShapeText(DType::kS32, {S_, M_, R_}), pmr = ShapeText(DType::kPred, {S_, M_, R_});
  StashSlot slot;
  slot.rc = Const(b, DType::kS32, r);
  std::string rb = Emit(b, "pipe.r", fmt::format("{} broadcast({}), dimensions={{}}", smr, slot.rc));
  if (circular_) {
    slot.j = Emit(b, "pipe.j", fmt::format("s32[{}] add({}, {})", S_, jbase,
                                           Emit(b, "pipe.c", fmt::format("s32[{}] broadcast({}), dimensions={{}}", S_, slot.rc))));
    rb = Emit(b, "pipe.r", fmt::format("{} broadcast({}), dimensions={{0}}", smr, slot.j));
  }
  std::string at_r = Emit(b, "pipe.at", fmt::format("{} compare({}, {}), direction=EQ", pmr, iota_r, rb));
  std::string mask = Emit(b, "pipe.at", fmt::format("{} and({}, {})", pmr, at_m, at_r));
  slot.mask = Emit(b, "pipe.at", fmt::format("{} broadcast({}), dimensions={{0,1,2}}",
                                             ShapeText(DType::kPred, Cat({S_, M_, R_}, mb_dims_)), mask));
  return slot;
}

std::string Generator::SliceRow(std::string& b, const std::string& buf, DType t, const std::vector<int64_t>& dims,
                                int64_t dim, int64_t r) {
  std::vector<std::string> spec;
  std::vector<int64_t> one = dims;
  one[dim] = 1;
  for (size_t d = 0; d < dims.size(); ++d)
    spec.push_back(static_cast<int64_t>(d) == dim ? fmt::format("[{}:{}]", r, r + 1) : fmt::format("[0:{}]", dims[d]));
  return Emit(b, "pipe.row", fmt::format("{} slice({}), slice={{{}}}", ShapeText(t, one), buf, fmt::join(spec, ", ")));
}

std::string Generator::UpdateRow(std::string& b, const std::string& buf, const std::string& row, DType t,
                                 const std::vector<int64_t>& dims, int64_t dim, int64_t r, const std::string& sharding) {
  std::vector<std::string> starts;
  const std::string zero = Const(b, DType::kS32, 0), at = Const(b, DType::kS32, r);
  for (size_t d = 0; d < dims.size(); ++d) starts.push_back(static_cast<int64_t>(d) == dim ? at : zero);
  return Emit(b, "pipe.row", fmt::format("{} dynamic-update-slice({}, {}, {}), sharding={}", ShapeText(t, dims), buf, row,
                                         fmt::join(starts, ", "), sharding));
}

void Generator::ReadLayerState(std::string& b, const std::string& p, bool backward,
                               std::vector<std::vector<std::string>>* w, std::vector<std::vector<std::string>>* acc) {
  auto gte = [&](const std::string& shape, int64_t i) {
    return Emit(b, "pipe.gte", fmt::format("{} get-tuple-element({}), index={}", shape, p, i));
  };
  int64_t index = 5;
  w->assign(K_, {});
  for (int64_t k = 0; k < K_; ++k)
    for (int64_t r = 0; r < LayerElems(); ++r) (*w)[k].push_back(gte(WeightElemShape(k), index++));
  if (!backward) return;
  acc->assign(J_, {});
  for (int64_t j = 0; j < J_; ++j)
    for (int64_t r = 0; r < LayerElems(); ++r) (*acc)[j].push_back(gte(AccElemShape(j), index++));
}

std::string Generator::ForwardBody(const std::string& name, const std::string& layer) {
  std::string b;
  const std::string state_shape = StateShape(false);
  const int64_t rank = static_cast<int64_t>(mb_dims_.size());
  const std::vector<int64_t> sdims = Cat({S_}, mb_dims_), mdims = Cat({M_}, mb_dims_),
                             stash_dims = Cat({S_, M_, R_}, mb_dims_);
  const std::string act_s = ShapeText(act_type_, sdims), act_m = ShapeText(act_type_, mdims),
                    stash_s = ShapeText(act_type_, stash_dims), act = ShapeText(act_type_, mb_dims_);
  std::string p = Emit(b, "pipe.p", fmt::format("{} parameter(0), sharding={}", state_shape, StateSharding(false)));
  auto gte = [&](const std::string& shape, int64_t i) {
    return Emit(b, "pipe.gte", fmt::format("{} get-tuple-element({}), index={}", shape, p, i));
  };
  std::string t = gte("s32[]", 0), state = gte(act_s, 1), xs = gte(act_m, 2), outs = gte(ShapeText(act_type_, Cat({S_, M_}, mb_dims_)), 3), stash = gte(stash_s, 4);
  std::vector<std::vector<std::string>> w, unused;
  ReadLayerState(b, p, /*backward=*/false, &w, &unused);
  std::string circ = circular_ ? gte(ShapeText(act_type_, Cat({S_, M_}, mb_dims_)), 5 + K_) : "";
  const std::string zero = Const(b, DType::kS32, 0);
  // Stage 0 takes microbatch t (clamped: past the last one its results are never kept, or,
  // circular, it takes what comes back from the last stage).
  std::string cur = StageInput(b, t, zero, xs, state, 0, &circ, "pipe.xt", "pipe.first");
  // Stage s works on virtual step t - s: microbatch (t - s) mod M of repeat (t - s) div M.
  std::string sid = Emit(b, "pipe.stage", fmt::format("s32[{}] iota(), iota_dimension=0", S_));
  std::string tb = Emit(b, "pipe.t", fmt::format("s32[{}] broadcast({}), dimensions={{}}", S_, t));
  std::string m = Emit(b, "pipe.mb", fmt::format("s32[{}] subtract({}, {})", S_, tb, sid));
  std::string jbase;  // per stage: the slot of the group's first layer (circular)
  if (circular_) {
    const std::string mb = Emit(b, "pipe.c", fmt::format("s32[{}] broadcast({}), dimensions={{}}", S_, Const(b, DType::kS32, M_)));
    const std::string q = Emit(b, "pipe.q", fmt::format("s32[{}] divide({}, {})", S_, m, mb));
    m = Emit(b, "pipe.mb", fmt::format("s32[{}] subtract({}, {})", S_, m,
                                       Emit(b, "pipe.q", fmt::format("s32[{}] multiply({}, {})", S_, q, mb))));
    jbase = Emit(b, "pipe.j", fmt::format("s32[{}] multiply({}, {})", S_, q,
                                          Emit(b, "pipe.c", fmt::format("s32[{}] broadcast({}), dimensions={{}}", S_, Const(b, DType::kS32, G_)))));
  }
  const std::string smr = ShapeText(DType::kS32, {S_, M_, R_}), pmr = ShapeText(DType::kPred, {S_, M_, R_});
  std::string iota_m = Emit(b, "pipe.iota", fmt::format("{} iota(), iota_dimension=1", smr));
  std::string iota_r = Emit(b, "pipe.iota", fmt::format("{} iota(), iota_dimension=2", smr));
  std::string m_b = Emit(b, "pipe.mb", fmt::format("{} broadcast({}), dimensions={{0}}", smr, m));
  std::string at_m = Emit(b, "pipe.at", fmt::format("{} compare({}, {}), direction=EQ", pmr, iota_m, m_b));
  // [S, M]: whether stage s works on microbatch m (GPipe's per-row masks).
  const std::string at_sm = AtStageMicrobatch(b, m);
  for (int64_t r = 0; r < (circular_ ? G_ : R_); ++r) {
    // Store the layer's input at [s, t - s, r] (no slot matches when t - s is out of range);
    // circular: at [s, microbatch, slot of group layer r].
    if (!circular_) {
      // Stage s's row of layer r, microbatch t - s.
      const std::vector<int64_t> row_dims = Cat({S_, M_, 1}, mb_dims_);
      const std::string row_s = ShapeText(act_type_, row_dims);
      std::string row = SliceRow(b, stash, act_type_, stash_dims, 2, r);
      std::string at = Emit(b, "pipe.at", fmt::format("{} broadcast({}), dimensions={{0,1}}", ShapeText(DType::kPred, row_dims), at_sm));
      std::string cur_b = Emit(b, "pipe.in", fmt::format("{} broadcast({}), dimensions={}", row_s, cur, Dims(Cat({0}, Range(3, rank + 3)))));
      row = Emit(b, "pipe.stash", fmt::format("{} select({}, {}, {})", row_s, at, cur_b, row));
      stash = UpdateRow(b, stash, row, act_type_, stash_dims, 2, r, ActSharding(3, true, false));
    }
    std::string j;
    if (circular_) {
      const StashSlot slot = SlotMask(b, r, jbase, iota_r, at_m);
      j = slot.j;
      std::string cur_b = Emit(b, "pipe.in", fmt::format("{} broadcast({}), dimensions={}", stash_s, cur, Dims(Cat({0}, Range(3, rank + 3)))));
      stash = Emit(b, "pipe.stash", fmt::format("{} select({}, {}, {}), sharding={}", stash_s, slot.mask, cur_b, stash,
                                                ActSharding(3, true, false)));
    }
    std::vector<std::string> args = {cur};
    for (int64_t k = 0; k < K_; ++k) args.push_back(circular_ ? PickWeight(b, w[k][0], k, j) : w[k][r]);
    cur = Emit(b, "pipe.layer", fmt::format("{} call({}), to_apply={}, sharding={}", act_s, fmt::join(args, ", "), layer,
                                            ActSharding(1, true)));
  }
  // The last stage finishes microbatch t - (S-1) (circular: of its last repeat).
  outs = Collect(b, cur, outs, t, S_ - 1, S_ - 1 + (Rc_ - 1) * M_);
  // Shift: stage s+1's next input is stage s's output; stage 0's is zeros. A pad by one on the
  // stage-sharded dim (low 1, high -1) partitions to one collective-permute between neighbours.
  std::string fzero = Emit(b, "pipe.c", fmt::format("{} constant(0)", ShapeText(act_type_, {})));
  std::string next = circular_ ? Rotate(b, cur, /*up=*/true)
                               : Emit(b, "pipe.shift", fmt::format("{} pad({}, {}), padding={}, sharding={}", act_s, cur, fzero,
                                                                   ShiftPadding(/*up=*/true), ActSharding(1, true)));
  std::string t1 = Emit(b, "pipe.t", fmt::format("s32[] add({}, {})", t, Const(b, DType::kS32, 1)));
  std::vector<std::string> elems = {t1, next, xs, outs, stash};
  for (const auto& per_layer : w) elems.insert(elems.end(), per_layer.begin(), per_layer.end());
  if (circular_) elems.push_back(circ);
  std::string root = module_->UniqueName("pipe.next");
  b += fmt::format("  ROOT {} = {} tuple({}), sharding={}\n", root, state_shape, fmt::join(elems, ", "), StateSharding(false));
  return fmt::format("{} {{\n{}}}\n\n", name, b);
}

std::string Generator::BackwardBody(const std::string& name, const std::string& layer) {
  std::string b;
  const std::string state_shape = StateShape(true);
  const std::vector<int64_t> sdims = Cat({S_}, mb_dims_), mdims = Cat({M_}, mb_dims_),
                             stash_dims = Cat({S_, M_, R_}, mb_dims_);
  const std::string act_s = ShapeText(act_type_, sdims), act_m = ShapeText(act_type_, mdims),
                    stash_s = ShapeText(act_type_, stash_dims), act = ShapeText(act_type_, mb_dims_);
  std::string p = Emit(b, "pipe.p", fmt::format("{} parameter(0), sharding={}", state_shape, StateSharding(true)));
  auto gte = [&](const std::string& shape, int64_t i) {
    return Emit(b, "pipe.gte", fmt::format("{} get-tuple-element({}), index={}", shape, p, i));
  };
  std::string t = gte("s32[]", 0), g = gte(act_s, 1), dys = gte(act_m, 2), dxs = gte(ShapeText(act_type_, Cat({S_, M_}, mb_dims_)), 3), stash = gte(stash_s, 4);
  std::vector<std::vector<std::string>> w, acc;
  ReadLayerState(b, p, /*backward=*/true, &w, &acc);
  std::string circ = circular_ ? gte(ShapeText(act_type_, Cat({S_, M_}, mb_dims_)), 5 + K_ + J_) : "";
  const std::string zero = Const(b, DType::kS32, 0);
  // The last stage takes microbatch t's cotangent (circular, past the first (last-layer) repeat,
  // microbatch t mod M back from stage 0).
  std::string cur = StageInput(b, t, zero, dys, g, S_ - 1, &circ, "pipe.dy", "pipe.last");
  // Stage s works on virtual step t - (S-1-s) (circular: microbatch mod M, repeat R-1 - div M).
  std::string sid = Emit(b, "pipe.stage", fmt::format("s32[{}] iota(), iota_dimension=0", S_));
  std::string tb = Emit(b, "pipe.t", fmt::format("s32[{}] broadcast({}), dimensions={{}}", S_, Emit(b, "pipe.t", fmt::format("s32[] subtract({}, {})", t, Const(b, DType::kS32, S_ - 1)))));
  std::string m = Emit(b, "pipe.mb", fmt::format("s32[{}] add({}, {})", S_, tb, sid));
  std::string lo = Emit(b, "pipe.ok", fmt::format("pred[{}] compare({}, {}), direction=GE", S_, m,
                                                  Emit(b, "pipe.c", fmt::format("s32[{}] broadcast({}), dimensions={{}}", S_, zero))));
  std::string hi = Emit(b, "pipe.ok", fmt::format("pred[{}] compare({}, {}), direction=LT", S_, m,
                                                  Emit(b, "pipe.c", fmt::format("s32[{}] broadcast({}), dimensions={{}}", S_, Const(b, DType::kS32, M_ * Rc_)))));
  std::string valid = Emit(b, "pipe.ok", fmt::format("pred[{}] and({}, {})", S_, lo, hi));
  std::string jbase;  // per stage: the slot of the group's first layer (circular: repeat Rc-1-q)
  if (circular_) {
    const std::string mb = Emit(b, "pipe.c", fmt::format("s32[{}] broadcast({}), dimensions={{}}", S_, Const(b, DType::kS32, M_)));
    const std::string q = Emit(b, "pipe.q", fmt::format("s32[{}] divide({}, {})", S_, m, mb));
    m = Emit(b, "pipe.mb", fmt::format("s32[{}] subtract({}, {})", S_, m,
                                       Emit(b, "pipe.q", fmt::format("s32[{}] multiply({}, {})", S_, q, mb))));
    const std::string rev = Emit(b, "pipe.q", fmt::format("s32[{}] subtract({}, {})", S_,
                                                          Emit(b, "pipe.c", fmt::format("s32[{}] broadcast({}), dimensions={{}}", S_, Const(b, DType::kS32, Rc_ - 1))), q));
    jbase = Emit(b, "pipe.j", fmt::format("s32[{}] multiply({}, {})", S_, rev,
                                          Emit(b, "pipe.c", fmt::format("s32[{}] broadcast({}), dimensions={{}}", S_, Const(b, DType::kS32, G_)))));
  }
  const std::string smr = ShapeText(DType::kS32, {S_, M_, R_}), pmr = ShapeText(DType::kPred, {S_, M_, R_});
  std::string iota_m = Emit(b, "pipe.iota", fmt::format("{} iota(), iota_dimension=1", smr));
  std::string iota_r = Emit(b, "pipe.iota", fmt::format("{} iota(), iota_dimension=2", smr));
  std::string m_b = Emit(b, "pipe.mb", fmt::format("{} broadcast({}), dimensions={{0}}", smr, m));
  std::string at_m = Emit(b, "pipe.at", fmt::format("{} compare({}, {}), direction=EQ", pmr, iota_m, m_b));
  const std::string at_sm = circular_ ? "" : AtStageMicrobatch(b, m);
  const std::string sr = ShapeText(DType::kS32, {S_, R_}), pr = ShapeText(DType::kPred, {S_, R_});
  std::string iota_sr = Emit(b, "pipe.iota", fmt::format("{} iota(), iota_dimension=1", sr));
  std::string valid_sr = Emit(b, "pipe.ok", fmt::format("{} broadcast({}), dimensions={{0}}", pr, valid));
  std::string fzero = Emit(b, "pipe.c", fmt::format("{} constant(0)", ShapeText(act_type_, {})));
  std::string stash_zero = Emit(b, "pipe.c", fmt::format("{} broadcast({}), dimensions={{}}", stash_s, fzero));
  for (int64_t r = (circular_ ? G_ : R_) - 1; r >= 0; --r) {
    // The stored input of layer r for this stage's microbatch (zeros when there is none).
    std::string x, j, rc;
    if (!circular_) {
      const std::vector<int64_t> row_dims = Cat({S_, M_, 1}, mb_dims_);
      const std::string row_s = ShapeText(act_type_, row_dims);
      std::string row = SliceRow(b, stash, act_type_, stash_dims, 2, r);
      std::string at = Emit(b, "pipe.at", fmt::format("{} broadcast({}), dimensions={{0,1}}", ShapeText(DType::kPred, row_dims), at_sm));
      std::string zeros = Emit(b, "pipe.c", fmt::format("{} broadcast({}), dimensions={{}}", row_s, fzero));
      std::string picked = Emit(b, "pipe.x", fmt::format("{} select({}, {}, {})", row_s, at, row, zeros));
      x = Emit(b, "pipe.x", fmt::format("{} reduce({}, {}), dimensions={{1,2}}, to_apply={}, sharding={}", act_s, picked, fzero,
                                         reducer_, ActSharding(1, true, false)));
    } else {
      const StashSlot slot = SlotMask(b, r, jbase, iota_r, at_m);
      j = slot.j;
      rc = slot.rc;
      std::string picked = Emit(b, "pipe.x", fmt::format("{} select({}, {}, {})", stash_s, slot.mask, stash, stash_zero));
      x = Emit(b, "pipe.x", fmt::format("{} reduce({}, {}), dimensions={{1,2}}, to_apply={}, sharding={}", act_s, picked,
                                         fzero, reducer_, ActSharding(1, true, false)));
    }
    std::vector<std::string> args = {x};
    std::vector<std::string> grad_shapes = {act_s};
    std::vector<std::string> grad_shardings = {ActSharding(1, true)};
    for (int64_t k = 0; k < K_; ++k) args.push_back(circular_ ? PickWeight(b, w[k][0], k, j) : w[k][r]);
    for (int64_t g = 0; g < J_; ++g) {
      grad_shapes.push_back(ShapeText(grad_shapes_[g].first, GradLoopDims(g, false)));
      grad_shardings.push_back(call_sharding_[g]);
    }
    args.push_back(cur);
    std::string res = Emit(b, "pipe.layer", fmt::format("({}) call({}), to_apply={}, sharding={{{}}}", fmt::join(grad_shapes, ", "),
                                                                fmt::join(args, ", "), layer, fmt::join(grad_shardings, ", ")));
    std::string keep;
    if (circular_) {
      std::string rsr = Emit(b, "pipe.r", fmt::format("{} broadcast({}), dimensions={{0}}", sr, j));
      std::string at_sr = Emit(b, "pipe.at", fmt::format("{} compare({}, {}), direction=EQ", pr, iota_sr, rsr));
      keep = Emit(b, "pipe.ok", fmt::format("{} and({}, {})", pr, at_sr, valid_sr));
    }
    for (int64_t k = 0; k < J_ && !circular_; ++k) {
      // Layer r's accumulator: its gradient added where the stage works.
      const DType wt = grad_shapes_[k].first;
      const std::vector<int64_t> dims = GradLoopDims(k, false);
      const std::string shape = ShapeText(wt, dims);
      std::string dw = Emit(b, "pipe.dw", fmt::format("{} get-tuple-element({}), index={}", shape, res, k + 1));
      std::string ok = Emit(b, "pipe.ok", fmt::format("{} broadcast({}), dimensions={{0}}", ShapeText(DType::kPred, dims), valid));
      std::string wzero = Emit(b, "pipe.c", fmt::format("{} broadcast({}), dimensions={{}}", shape,
                                                        Emit(b, "pipe.c", fmt::format("{} constant(0)", ShapeText(wt, {})))));
      std::string kept = Emit(b, "pipe.dw", fmt::format("{} select({}, {}, {})", shape, ok, dw, wzero));
      acc[k][r] = Emit(b, "pipe.acc", fmt::format("{} add({}, {}), sharding={}", shape, acc[k][r], kept, call_sharding_[k]));
    }
    for (int64_t k = 0; k < J_ && circular_; ++k) {
      // Sum layer r's gradient over the microbatches this stage really works on.
      const DType wt = grad_shapes_[k].first;
      const std::vector<int64_t> acc_dims = GradLoopDims(k, true);
      const std::string acc_s = ShapeText(wt, acc_dims);
      const int64_t acc_rank = static_cast<int64_t>(acc_dims.size());
      std::string dw = Emit(b, "pipe.dw", fmt::format("{} get-tuple-element({}), index={}", ShapeText(wt, GradLoopDims(k, false)), res, k + 1));
      std::string dw_b = Emit(b, "pipe.dw", fmt::format("{} broadcast({}), dimensions={}", acc_s, dw, Dims(Cat({0}, Range(2, acc_rank)))));
      std::string keep_b = Emit(b, "pipe.ok", fmt::format("{} broadcast({}), dimensions={{0,1}}", ShapeText(DType::kPred, acc_dims), keep));
      std::string wzero = Emit(b, "pipe.c", fmt::format("{} broadcast({}), dimensions={{}}", acc_s,
                                                        Emit(b, "pipe.c", fmt::format("{} constant(0)", ShapeText(wt, {})))));
      std::string kept = Emit(b, "pipe.dw", fmt::format("{} select({}, {}, {})", acc_s, keep_b, dw_b, wzero));
      acc[k][0] = Emit(b, "pipe.acc", fmt::format("{} add({}, {}), sharding={}", acc_s, acc[k][0], kept, acc_sharding_[k]));
    }
    cur = Emit(b, "pipe.dx", fmt::format("{} get-tuple-element({}), index=0, sharding={}", act_s, res, ActSharding(1, true)));
  }
  // Stage 0 finishes microbatch t - (S-1) (circular: of its first-layer repeat).
  dxs = Collect(b, cur, dxs, t, 0, S_ - 1 + (Rc_ - 1) * M_);
  // Shift: stage s-1's next cotangent is stage s's input cotangent (pad low -1, high 1).
  std::string next = circular_ ? Rotate(b, cur, /*up=*/false)
                               : Emit(b, "pipe.shift", fmt::format("{} pad({}, {}), padding={}, sharding={}", act_s, cur, fzero,
                                                                   ShiftPadding(/*up=*/false), ActSharding(1, true)));
  std::string t1 = Emit(b, "pipe.t", fmt::format("s32[] add({}, {})", t, Const(b, DType::kS32, 1)));
  std::vector<std::string> elems = {t1, next, dys, dxs, stash};
  for (const auto& per_layer : w) elems.insert(elems.end(), per_layer.begin(), per_layer.end());
  for (const auto& per_layer : acc) elems.insert(elems.end(), per_layer.begin(), per_layer.end());
  if (circular_) elems.push_back(circ);
  std::string root = module_->UniqueName("pipe.next");
  b += fmt::format("  ROOT {} = {} tuple({}), sharding={}\n", root, state_shape, fmt::join(elems, ", "), StateSharding(true));
  return fmt::format("{} {{\n{}}}\n\n", name, b);
}

std::string Generator::ForwardBlock(const std::string& body, const std::string& cond) {
  std::string b;
  const int64_t rank = static_cast<int64_t>(mb_dims_.size());
  const std::string act_m = ShapeText(act_type_, Cat({M_}, mb_dims_));
  // Strided microbatches: example i·M + j is example i of microbatch j.
  std::string xs = Emit(b, "pipe.xs", fmt::format("{} reshape({})", ShapeText(act_type_, Cat({mb_, M_}, rest_)), chain_.input->name()));
  std::vector<int64_t> perm = Cat({1, 0}, Range(2, rank + 1));
  xs = Emit(b, "pipe.xs", fmt::format("{} transpose({}), dimensions={}, sharding={}", act_m, xs, Dims(perm), ActSharding(1, false)));
  // The weights stacked [S, L/S, ...] (layer LayerAt(s, j) at [s, j]), split over the stages.
  for (int64_t k = 0; k < K_; ++k) {
    const auto& [wt, wd] = weight_shapes_[k];
    if (slot_of_[k] != nullptr) {
      stacked_.push_back(stacked_params_[k]);  // a parameter already
      continue;
    }
    if (row_source_[k] != nullptr) {  // the stages' blocks of the source's rows
      stacked_.push_back(Emit(b, "pipe.w", fmt::format("{} reshape({}), sharding={}", ShapeText(wt, Cat({S_, R_}, wd)),
                                                       row_source_[k]->name(), slot_sharding2_[k])));
      continue;
    }
    std::vector<std::string> parts;
    for (int64_t pos = 0; pos < L_; ++pos)
      parts.push_back(Emit(b, "pipe.w", fmt::format("{} reshape({})", ShapeText(wt, Cat({1}, wd)),
                                                    chain_.weights[LayerAt(pos / R_, pos % R_)][k]->name())));
    // Replicated as the source's weights are: each stage then keeps its block (a local slice).
    std::string all = Emit(b, "pipe.w", fmt::format("{} concatenate({}), dimensions={{0}}, sharding={{replicated}}",
                                                    ShapeText(wt, Cat({L_}, wd)), fmt::join(parts, ", ")));
    stacked_.push_back(Emit(b, "pipe.w", fmt::format("{} reshape({}), sharding={}", ShapeText(wt, Cat({S_, R_}, wd)), all,
                                                     slot_sharding2_[k])));
  }
  std::string fzero = Emit(b, "pipe.c", fmt::format("{} constant(0)", ShapeText(act_type_, {})));
  auto zeros = [&](const std::vector<int64_t>& dims, const std::string& sharding) {
    return Emit(b, "pipe.zeros", fmt::format("{} broadcast({}), dimensions={{}}, sharding={}", ShapeText(act_type_, dims), fzero, sharding));
  };
  std::vector<std::string> elems = {Const(b, DType::kS32, 0), zeros(Cat({S_}, mb_dims_), ActSharding(1, true)),
                                    xs, zeros(Cat({S_, M_}, mb_dims_), ActSharding(2, true)),
                                    zeros(Cat({S_, M_, R_}, mb_dims_), ActSharding(3, true, false))};
  // GPipe: each layer's [S, weight...] sliced once, here, for both loops.
  layer_weights_.assign(K_, {});
  for (int64_t k = 0; k < K_; ++k) {
    if (circular_) {
      layer_weights_[k].push_back(stacked_[k]);
      continue;
    }
    const auto& [wt, wd] = weight_shapes_[k];
    for (int64_t r = 0; r < R_; ++r) {
      std::vector<std::string> spec = {fmt::format("[0:{}]", S_), fmt::format("[{}:{}]", r, r + 1)};
      for (int64_t d : wd) spec.push_back(fmt::format("[0:{}]", d));
      std::string one = Emit(b, "pipe.w", fmt::format("{} slice({}), slice={{{}}}", ShapeText(wt, Cat({S_, 1}, wd)), stacked_[k],
                                                      fmt::join(spec, ", ")));
      layer_weights_[k].push_back(
          Emit(b, "pipe.w", fmt::format("{} reshape({}), sharding={}", ShapeText(wt, Cat({S_}, wd)), one, slot_sharding1_[k])));
    }
  }
  for (const auto& per_layer : layer_weights_) elems.insert(elems.end(), per_layer.begin(), per_layer.end());
  if (circular_) elems.push_back(zeros(Cat({S_, M_}, mb_dims_), ActSharding(2, true)));
  const std::string shape = StateShape(false);
  std::string init = Emit(b, "pipe.init", fmt::format("{} tuple({}), sharding={}", shape, fmt::join(elems, ", "), StateSharding(false)));
  std::string loop = Emit(b, "pipe.forward", fmt::format("{} while({}), condition={}, body={}, sharding={}", shape, init, cond, body, StateSharding(false)));
  std::string outs = Extract(b, loop, S_ - 1);
  stash_ = Emit(b, "pipe.stash", fmt::format("{} get-tuple-element({}), index=4", ShapeText(act_type_, Cat({S_, M_, R_}, mb_dims_)), loop));
  outs = Emit(b, "pipe.outs", fmt::format("{} transpose({}), dimensions={}", ShapeText(act_type_, Cat({mb_, M_}, rest_)), outs, Dims(perm)));
  // The last layer's output over the whole batch, under the name the source gave it.
  b += fmt::format("  {} = {} reshape({})\n", chain_.forward_calls.back()->name(), chain_.forward_calls.back()->shape().ToString(false), outs);
  return b;
}

std::string Generator::BackwardBlock(const std::string& body, const std::string& cond) {
  std::string b;
  const int64_t rank = static_cast<int64_t>(mb_dims_.size());
  const std::string act_m = ShapeText(act_type_, Cat({M_}, mb_dims_));
  std::vector<int64_t> perm = Cat({1, 0}, Range(2, rank + 1));
  std::string dys = Emit(b, "pipe.dys", fmt::format("{} reshape({})", ShapeText(act_type_, Cat({mb_, M_}, rest_)), chain_.cotangent->name()));
  dys = Emit(b, "pipe.dys", fmt::format("{} transpose({}), dimensions={}, sharding={}", act_m, dys, Dims(perm), ActSharding(1, false)));
  std::string fzero = Emit(b, "pipe.c", fmt::format("{} constant(0)", ShapeText(act_type_, {})));
  std::vector<std::string> elems = {
      Const(b, DType::kS32, 0),
      Emit(b, "pipe.zeros", fmt::format("{} broadcast({}), dimensions={{}}, sharding={}", ShapeText(act_type_, Cat({S_}, mb_dims_)), fzero, ActSharding(1, true))),
      dys,
      Emit(b, "pipe.zeros", fmt::format("{} broadcast({}), dimensions={{}}, sharding={}", ShapeText(act_type_, Cat({S_, M_}, mb_dims_)),
                                        fzero, ActSharding(2, true))),
      stash_};
  for (const auto& per_layer : layer_weights_) elems.insert(elems.end(), per_layer.begin(), per_layer.end());
  for (int64_t k = 0; k < J_; ++k) {
    const DType wt = grad_shapes_[k].first;
    std::string z = Emit(b, "pipe.c", fmt::format("{} constant(0)", ShapeText(wt, {})));
    for (int64_t r = 0; r < LayerElems(); ++r)
      elems.push_back(Emit(b, "pipe.zeros", fmt::format("{} broadcast({}), dimensions={{}}, sharding={}", AccElemShape(k), z,
                                                        circular_ ? acc_sharding_[k] : call_sharding_[k])));
  }
  if (circular_)
    elems.push_back(Emit(b, "pipe.zeros", fmt::format("{} broadcast({}), dimensions={{}}, sharding={}", ShapeText(act_type_, Cat({S_, M_}, mb_dims_)),
                                                      fzero, ActSharding(2, true))));
  const std::string shape = StateShape(true);
  std::string init = Emit(b, "pipe.init", fmt::format("{} tuple({}), sharding={}", shape, fmt::join(elems, ", "), StateSharding(true)));
  std::string loop = Emit(b, "pipe.backward", fmt::format("{} while({}), condition={}, body={}, sharding={}", shape, init, cond, body, StateSharding(true)));
  // The source's get-tuple-elements of the backward calls, by name: layer 0's input cotangent
  // and every weight gradient, unstacked.
  const Instruction* first = chain_.backward_calls[0];
  for (const Instruction* u : first->users())
    if (u->tuple_index() == 0) {
      std::string dxs = Extract(b, loop, 0);
      dxs = Emit(b, "pipe.dxs", fmt::format("{} transpose({}), dimensions={}", ShapeText(act_type_, Cat({mb_, M_}, rest_)), dxs, Dims(perm)));
      b += fmt::format("  {} = {} reshape({})\n", u->name(), u->shape().ToString(false), dxs);
    }
  for (int64_t k = 0; k < J_; ++k) {
    const auto& [wt, wd] = grad_shapes_[k];
    // The accumulators, stacked [S, R, (P), ...] (GPipe: the layers' joined once).
    const int64_t first_acc = 5 + K_ * LayerElems() + k * LayerElems();
    std::string acc;
    if (circular_) {
      acc = Emit(b, "pipe.grad", fmt::format("{} get-tuple-element({}), index={}", AccElemShape(k), loop, first_acc));
    } else {
      std::vector<int64_t> one = GradLoopDims(k, true);
      one[1] = 1;
      std::vector<std::string> rows;
      for (int64_t r = 0; r < R_; ++r) {
        std::string e = Emit(b, "pipe.grad", fmt::format("{} get-tuple-element({}), index={}", AccElemShape(k), loop, first_acc + r));
        rows.push_back(Emit(b, "pipe.grad", fmt::format("{} reshape({})", ShapeText(wt, one), e)));
      }
      acc = rows.size() == 1 ? rows[0]
                             : Emit(b, "pipe.grad", fmt::format("{} concatenate({}), dimensions={{1}}, sharding={}",
                                                                ShapeText(wt, GradLoopDims(k, true)), fmt::join(rows, ", "),
                                                                acc_sharding_[k]));
    }
    if (pieces_ > 1) {
      // The data pieces' sums, summed once: one all-reduce (over the data devices) per output.
      const std::string zero = Emit(b, "pipe.c", fmt::format("{} constant(0)", ShapeText(wt, {})));
      acc = Emit(b, "pipe.grad", fmt::format("{} reduce({}, {}), dimensions={{2}}, to_apply={}, sharding={}", ShapeText(wt, Cat({S_, R_}, wd)),
                                             acc, zero, Reducer(wt), grad_sharding2_[k]));
    }
    grads_.push_back(acc);
    if (grad_concat_[k] != nullptr) {
      // The source stacks the layers' outputs in position order: the accumulator's rows.
      const Instruction* c = grad_concat_[k];
      b += fmt::format("  {} = {} reshape({}), sharding={}\n", c->name(), c->shape().ToString(false), acc,
                       ShardingText(c->shape().rank(), true, -1));
      continue;
    }
    // Per-layer gradients where the entry still uses them (a slot without a stacked update, or a
    // value shared by all layers such as a global norm): one all-gather per weight, then every
    // layer's gradient is a local slice.
    std::vector<const Instruction*> used;
    for (int64_t l = 0; l < L_; ++l)
      for (const Instruction* u : chain_.backward_calls[l]->users()) {
        if (u->tuple_index() != k + 1) continue;
        bool outside = false;
        for (const Instruction* uu : u->users()) outside |= !replaced_.contains(uu->name());
        if (outside || u->IsRoot()) used.push_back(u);
      }
    if (used.empty()) continue;
    std::string flat = Emit(b, "pipe.grad", fmt::format("{} reshape({}), sharding={{replicated}}", ShapeText(wt, Cat({L_}, wd)), acc));
    for (int64_t l = 0; l < L_; ++l)
      for (const Instruction* u : chain_.backward_calls[l]->users()) {
        if (u->tuple_index() != k + 1 || std::find(used.begin(), used.end(), u) == used.end()) continue;
        std::vector<std::string> spec = {fmt::format("[{}:{}]", PositionOf(l), PositionOf(l) + 1)};
        for (int64_t d : wd) spec.push_back(fmt::format("[0:{}]", d));
        std::string one = Emit(b, "pipe.grad", fmt::format("{} slice({}), slice={{{}}}", ShapeText(wt, Cat({1}, wd)), flat, fmt::join(spec, ", ")));
        b += fmt::format("  {} = {} reshape({})\n", u->name(), u->shape().ToString(false), one);
      }
  }
  return b;
}

std::string Generator::LayerSlice(const std::string& stacked, int64_t l, const std::string& name, const Shape& shape) {
  std::string b;
  const int64_t pos = PositionOf(l);
  std::vector<std::string> spec = {fmt::format("[{}:{}]", pos / R_, pos / R_ + 1), fmt::format("[{}:{}]", pos % R_, pos % R_ + 1)};
  for (int64_t d : shape.dims()) spec.push_back(fmt::format("[0:{}]", d));
  std::string one = Emit(b, "pipe.w", fmt::format("{} slice({}), slice={{{}}}", ShapeText(shape.dtype(), Cat({1, 1}, shape.dims())),
                                                  stacked, fmt::join(spec, ", ")));
  b += fmt::format("  {} = {} reshape({}), sharding={{replicated}}\n", name, shape.ToString(false), one);
  return b;
}

std::string Generator::StackedUpdate(const StackedSlot& slot, size_t slot_index, std::vector<std::string>* results) {
  std::string b;
  absl::flat_hash_map<const Instruction*, std::string> name;
  absl::flat_hash_map<const Instruction*, bool> stacked;
  // A value of all layers used by a stacked one: broadcast over the [S, L/S] dims.
  auto use = [&](const Instruction* op, bool as_stacked) {
    if (!as_stacked || stacked.at(op)) return name.at(op);
    return Emit(b, "pipe.update", fmt::format("{} broadcast({}), dimensions={}", ShapeText(op->shape().dtype(), Cat({S_, R_}, op->shape().dims())),
                                              name.at(op), Dims(Range(2, op->shape().rank() + 2))));
  };
  for (const ZipNode& n : slot.nodes) {
    const Instruction* i = n.instr;
    stacked[i] = n.stacked;
    switch (n.kind) {
      case ZipNode::kWeight: name[i] = stacked_params_[slot.slot]; continue;
      case ZipNode::kGradient: name[i] = grads_[n.gradient]; continue;
      case ZipNode::kShared: name[i] = i->name(); continue;
      case ZipNode::kCompanion:
        for (size_t c = 0; c < slot.companions.size(); ++c)
          if (slot.companions[c].node == i) name[i] = companion_params_[slot_index][c];
        continue;
      case ZipNode::kOp: break;
    }
    const std::string shape = ShapeText(i->shape().dtype(), n.stacked ? Cat({S_, R_}, i->shape().dims()) : i->shape().dims());
    const std::string sharding = n.stacked ? ", sharding=" + UpdateSharding(slot.slot, i->shape()) : "";
    std::string line = PrintInstruction(*i, PrintOptions{.print_metadata = false, .print_shardings = false});
    std::string rhs = line.substr(line.find(" = ") + 3);
    if (i->opcode() == Opcode::kConstant) {
      name[i] = Emit(b, "pipe.update", rhs);
      continue;
    }
    std::vector<std::string> ops;
    for (const Instruction* op : i->operands()) ops.push_back(i->opcode() == Opcode::kBroadcast ? name.at(op) : use(op, n.stacked));
    std::string attrs;
    if (i->opcode() == Opcode::kBroadcast) {
      std::vector<int64_t> dims;
      if (n.stacked) dims = {0, 1};
      for (int64_t d : i->dimensions()) dims.push_back(n.stacked ? d + 2 : d);
      attrs = ", dimensions=" + Dims(dims);
    } else {
      const size_t open = rhs.find('(');
      attrs = rhs.substr(rhs.find(')', open) + 1);
    }
    name[i] = Emit(b, "pipe.update", fmt::format("{} {}({}){}{}", shape, OpcodeName(i->opcode()), fmt::join(ops, ", "), attrs, sharding));
  }
  for (const StackedSlot::Output& o : slot.outputs) {
    const Shape& shape = o.node->shape();
    results->push_back(module_->UniqueName("pipe.new_" + o.node->name()));
    b += fmt::format("  {} = {} copy({}), sharding={}\n", results->back(), ShapeText(shape.dtype(), Cat({S_, R_}, shape.dims())),
                     name.at(o.node), UpdateSharding(slot.slot, shape));
  }
  return b;
}

// Row p of V: reshape(slice(V, [p:p+1], full...)) to V's shape without dim 0; -1 otherwise.
int64_t RowOf(const Instruction* w, const Instruction** v) {
  if (w->opcode() != Opcode::kReshape || w->operand(0)->opcode() != Opcode::kSlice) return -1;
  const Instruction* slice = w->operand(0);
  const Instruction* src = slice->operand(0);
  const SliceSpec* spec = slice->attr<SliceSpec>(AttrId::kSlice);
  const Shape& vs = src->shape();
  if (spec == nullptr || !vs.IsArray() || vs.rank() != w->shape().rank() + 1) return -1;
  for (int64_t d = 0; d < vs.rank(); ++d) {
    if (spec->strides[d] != 1) return -1;
    if (d > 0 && (spec->starts[d] != 0 || spec->limits[d] != vs.dim(d) || vs.dim(d) != w->shape().dim(d - 1))) return -1;
  }
  if (spec->limits[0] != spec->starts[0] + 1) return -1;
  *v = src;
  return spec->starts[0];
}

void Generator::FindRowStacks() {
  row_source_.assign(K_, nullptr);
  grad_concat_.assign(J_, nullptr);
  auto only_users = [](const Instruction* i, const absl::flat_hash_set<const Instruction*>& allowed) {
    for (const Instruction* u : i->users())
      if (!allowed.contains(u)) return false;
    return !i->IsRoot();
  };
  for (int64_t k = 0; k < K_; ++k) {
    if (slot_of_[k] != nullptr) continue;
    const Instruction* v = nullptr;
    bool ok = true;
    for (int64_t l = 0; l < L_ && ok; ++l) {
      const Instruction* vl = nullptr;
      ok = RowOf(chain_.weights[l][k], &vl) == PositionOf(l) && (v == nullptr || vl == v);
      v = vl;
    }
    if (!ok || v->shape().dim(0) != L_) continue;
    row_source_[k] = v;
    for (int64_t l = 0; l < L_; ++l) {
      const Instruction* w = chain_.weights[l][k];
      absl::flat_hash_set<const Instruction*> calls = {chain_.forward_calls[l], chain_.backward_calls[l]};
      if (!only_users(w, calls) || !only_users(w->operand(0), {w})) continue;
      rows_.insert(w->name());
      rows_.insert(w->operand(0)->name());
    }
  }
  for (int64_t j = 0; j < J_; ++j) {
    const Instruction* concat = nullptr;
    bool ok = true;
    for (int64_t l = 0; l < L_ && ok; ++l) {
      const Instruction* gte = nullptr;
      for (const Instruction* u : chain_.backward_calls[l]->users())
        if (u->tuple_index() == j + 1) ok &= gte == nullptr, gte = u;
      ok &= gte != nullptr && gte->user_count() == 1 && !gte->IsRoot();
      if (!ok) break;
      const Instruction* row = gte->users()[0];
      ok = row->opcode() == Opcode::kReshape && row->user_count() == 1 && !row->IsRoot() &&
           row->shape().rank() == gte->shape().rank() + 1 && row->shape().dim(0) == 1;
      if (!ok) break;
      const Instruction* c = row->users()[0];
      ok = c->opcode() == Opcode::kConcatenate && c->dimensions()[0] == 0 && c->operand_count() == L_ &&
           c->operand(PositionOf(l)) == row && (concat == nullptr || concat == c);
      concat = c;
    }
    if (!ok) continue;
    grad_concat_[j] = concat;
    rows_.insert(concat->name());
    for (const Instruction* row : concat->operands()) rows_.insert(row->name());
  }
}

std::string Generator::PiecesSharding(const Sharding* weight, int64_t rank_g, bool accumulated) const {
  const int64_t rank = rank_g + (accumulated ? 3 : 2);
  const std::string plain = ShardingText(rank, true, accumulated ? 2 : 1);
  if (weight == nullptr || weight->IsReplicated() || !weight->IsTiled() || weight->IsManualSubgroup() ||
      !(weight->subgroup_types().empty() || weight->ReplicateOnLastTileDim()) ||
      weight->tile_assignment().num_elements() != N_)
    return plain;
  const TileAssignment& ta = weight->tile_assignment();
  const bool rep = weight->ReplicateOnLastTileDim();
  std::vector<int64_t> tdims = ta.dims();
  if (rep) tdims.pop_back();
  if (static_cast<int64_t>(tdims.size()) != rank_g) return plain;
  int64_t tiles = 1;
  for (int64_t d : tdims) tiles *= d;
  // The source devices holding each (data piece, weight tile): equally many, else no such split.
  const int64_t per = N_ / data_;
  std::vector<std::vector<int64_t>> groups(data_ * tiles);
  for (int64_t i = 0; i < ta.num_elements(); ++i) {
    const int64_t dev = ta.At(i);
    groups[(dev / per) * tiles + (rep ? i / ta.dims().back() : i)].push_back(dev);
  }
  const size_t c = groups[0].size();
  for (auto& g : groups) {
    if (g.size() != c) return plain;
    std::sort(g.begin(), g.end());
  }
  std::vector<int64_t> dims = {S_};
  if (accumulated) dims.push_back(1);
  dims.push_back(data_);
  dims.insert(dims.end(), tdims.begin(), tdims.end());
  if (c > 1) dims.push_back(static_cast<int64_t>(c));
  std::vector<int64_t> devices;
  for (int64_t st = 0; st < S_; ++st)
    for (const auto& g : groups)
      for (int64_t dev : g) devices.push_back(PipelinedDevice(dev, st, N_));
  return fmt::format("{{devices=[{}]{}{}}}", fmt::join(dims, ","), fmt::join(devices, ","), c > 1 ? " last_tile_dim_replicate" : "");
}

std::string Generator::RowsSharding(const Instruction* source, int64_t lead) const {
  const int64_t rank = source->shape().rank() - 1 + lead;
  const Sharding* s = source->sharding();
  if (s == nullptr || s->IsReplicated() || N_ == 1) return ShardingText(rank, true, -1);
  if (!s->IsTiled() || s->IsManualSubgroup() || !(s->subgroup_types().empty() || s->ReplicateOnLastTileDim()) ||
      s->tile_assignment().dim(0) != 1 || s->tile_assignment().num_elements() != N_)
    return ShardingText(rank, true, -1);
  const TileAssignment& ta = s->tile_assignment();
  std::vector<int64_t> dims = ta.dims();
  dims[0] = S_;
  if (lead == 2) dims.insert(dims.begin() + 1, 1);
  std::vector<int64_t> devices;
  for (int64_t st = 0; st < S_; ++st)
    for (int64_t i = 0; i < ta.num_elements(); ++i) devices.push_back(PipelinedDevice(ta.At(i), st, N_));
  return fmt::format("{{devices=[{}]{}{}}}", fmt::join(dims, ","), fmt::join(devices, ","),
                     s->ReplicateOnLastTileDim() ? " last_tile_dim_replicate" : "");
}

StatusOr<PipelineResult> Generator::Run() {
  S_ = o_.stages;
  M_ = o_.microbatches;
  L_ = chain_.layers();
  K_ = chain_.forward->num_parameters() - 1;
  const Shape& act = chain_.forward->parameter(0)->shape();
  if (S_ < 1 || M_ < 1) return InvalidArgument("pipeline: --stages and --microbatches must be at least 1 (got {} and {})", S_, M_);
  if (L_ % S_ != 0) return InvalidArgument("pipeline: --stages {} does not divide the {} layers", S_, L_);
  if (act.rank() < 1) return Unimplemented("pipeline: the layer input of {} is a scalar (no batch dim)", chain_.forward->name());
  B_ = act.dim(0);
  if (B_ % M_ != 0)
    return InvalidArgument("pipeline: --microbatches {} does not divide the batch {} (dim 0 of the layer input %{})", M_, B_,
                           chain_.input->name());
  R_ = L_ / S_;
  circular_ = o_.schedule == Schedule::kCircular;
  if (circular_) {
    Rc_ = o_.repeats > 0 ? o_.repeats : R_;
    if (R_ % Rc_ != 0)
      return InvalidArgument("pipeline: --repeats {} does not divide the {} layers per stage ({} layers / {} stages)", Rc_, R_,
                             L_, S_);
    if (M_ < S_)
      return InvalidArgument("pipeline: --schedule circular needs --microbatches ({}) >= --stages ({}): a microbatch "
                             "re-enters stage 0 M iterations after it left it",
                             M_, S_);
  } else if (o_.repeats > 1) {
    return InvalidArgument("pipeline: --repeats {} needs --schedule circular", o_.repeats);
  }
  G_ = R_ / Rc_;
  mb_ = B_ / M_;
  T_ = M_ * Rc_ + S_ - 1;
  act_type_ = act.dtype();
  rest_.assign(act.dims().begin() + 1, act.dims().end());
  mb_dims_ = Cat({mb_}, rest_);
  for (int64_t k = 1; k <= K_; ++k) {
    const Shape& ws = chain_.forward->parameter(k)->shape();
    if (!ws.IsArray()) return Unimplemented("pipeline: weight {} of {} is not an array", k - 1, chain_.forward->name());
    weight_shapes_.push_back({ws.dtype(), ws.dims()});
  }
  // The source's devices: its num_partitions, or, where its header sets none (JAX's HLO text),
  // the devices its shardings tile.
  N_ = std::max<int64_t>(1, source_.num_partitions());
  if (N_ == 1)
    for (const Computation* c : source_.computations())
      for (const Instruction* i : c->instructions()) {
        if (!i->has_sharding()) continue;
        std::vector<Sharding> leaves = {*i->sharding()};
        if (leaves[0].IsTuple()) leaves = leaves[0].tuple_elements();
        for (const Sharding& l : leaves)
          if (l.IsTiled()) N_ = std::max(N_, l.tile_assignment().num_elements());
      }
  // The data devices: the layer input split on its batch dim over D of the source's devices in
  // order, each of its N/D-device groups holding one piece (a data axis before the others, as
  // in data=2,model=4): source device d·(N/D) + j has piece d.
  // A layer input without a sharding (a scanned model's embedding output) takes the one
  // propagation gives it from the source's annotations (the tokens' batch split).
  std::shared_ptr<const Sharding> input_sharding = chain_.input->sharding_ptr();
  if (N_ > 1 && input_sharding == nullptr) {
    std::unique_ptr<Module> propagated = source_.Clone();
    if (PropagateShardings(*propagated).ok())
      for (const Instruction* i : propagated->entry()->instructions())
        if (i->name() == chain_.input->name()) input_sharding = i->sharding_ptr();
  }
  if (N_ > 1 && input_sharding != nullptr) {
    // Other dims may be split too (a plan's hidden dim over `model`), as long as the batch's
    // pieces are the major groups of devices: piece d on source devices d·(N/D) ...
    const Sharding& s = *input_sharding;
    const bool replicate = s.ReplicateOnLastTileDim();
    if (s.IsTiled() && (s.subgroup_types().empty() || replicate) &&
        s.tile_assignment().num_dimensions() == act.rank() + (replicate ? 1 : 0) &&
        s.tile_assignment().num_elements() == N_) {
      const TileAssignment& ta = s.tile_assignment();
      const int64_t d0 = ta.dim(0), per = N_ / std::max<int64_t>(1, d0), inner = ta.num_elements() / d0;
      bool ok = d0 > 1 && N_ % d0 == 0 && mb_ % d0 == 0;
      for (int64_t i = 0; i < ta.num_elements() && ok; ++i) ok = ta.At(i) / per == i / inner;
      if (ok) data_ = d0;
    }
  }
  // The layer's own view of its activations (a plan's, layer_plan.h).
  act_ = chain_.forward->parameter(0)->sharding();
  dact_ = chain_.backward->parameter(chain_.backward->num_parameters() - 1)->sharding();

  module_ = source_.Clone();
  for (const Computation* c : module_->computations())
    for (const Instruction* i : c->instructions()) module_->ReserveName(i->name());
  for (Computation* c : module_->computations()) {
    module_->ReserveName(c->name());
    for (Instruction* i : c->instructions())
      if (i->has_sharding()) {
        ASSIGN_OR_RETURN(Sharding r, Remap(*i->sharding(), S_, N_));
        i->set_sharding(std::make_shared<const Sharding>(std::move(r)));
      }
  }
  slots_ = FindStackedUpdates(chain_, source_.entry()->root());
  slot_of_.assign(K_, nullptr);
  stacked_params_.assign(K_, "");
  for (const StackedSlot& slot : slots_) {
    slot_of_[slot.slot] = &slot;
    for (const Instruction* i : slot.replaced) replaced_.insert(i->name());
    stacked_params_[slot.slot] = module_->UniqueName("stacked." + chain_.weights[0][slot.slot]->name());
    companion_params_.emplace_back();
    for (const StackedSlot::Companion& c : slot.companions)
      companion_params_.back().push_back(module_->UniqueName("stacked." + c.node->name()));
  }
  const Shape& groot = chain_.backward->root()->shape();
  J_ = groot.tuple_size() - 1;
  FindRowStacks();
  for (int64_t k = 0; k < K_; ++k) {
    std::vector<const Instruction*> per_layer;
    for (int64_t l = 0; l < L_; ++l) per_layer.push_back(chain_.weights[l][k]);
    // Weights taken stacked keep their own split, and so do a stacked source's rows; the others
    // are stacked replicated.
    const int64_t rank = per_layer[0]->shape().rank();
    if (slot_of_[k] != nullptr) {
      slot_sharding2_.push_back(Composed(per_layer, 2));
      slot_sharding1_.push_back(Composed(per_layer, 1));
    } else if (row_source_[k] != nullptr) {
      slot_sharding2_.push_back(RowsSharding(row_source_[k], 2));
      slot_sharding1_.push_back(RowsSharding(row_source_[k], 1));
    } else {
      slot_sharding2_.push_back(ShardingText(rank + 2, true, -1));
      slot_sharding1_.push_back(ShardingText(rank + 1, true, -1));
    }
  }
  // A stacked source that is an entry parameter is stored as the stages' blocks of rows, and so
  // are the parameters and results of its shape (its optimizer state and its update): each
  // stage device keeps its own layers' rows.
  {
    absl::flat_hash_set<std::string> row_params;
    std::vector<Shape> row_shapes;
    for (const Instruction* v : row_source_)
      if (v != nullptr && v->opcode() == Opcode::kParameter) row_shapes.push_back(v->shape());
    auto is_row_shape = [&](const Shape& sh) { return std::find(row_shapes.begin(), row_shapes.end(), sh) != row_shapes.end(); };
    for (Instruction* p : module_->entry()->parameters()) {
      if (!is_row_shape(p->shape())) continue;
      const Instruction* orig = source_.entry()->parameter(p->parameter_number());
      ASSIGN_OR_RETURN(Sharding sh, ParseSharding(RowsSharding(orig, 1)));
      p->set_sharding(std::make_shared<const Sharding>(std::move(sh)));
    }
    Instruction* root = module_->entry()->root();
    const Instruction* src_root = source_.entry()->root();
    if (root->opcode() == Opcode::kTuple && src_root->has_sharding() && src_root->sharding()->IsTuple()) {
      std::vector<Sharding> elems = root->sharding()->tuple_elements();
      for (int64_t e = 0; e < root->operand_count() && e < static_cast<int64_t>(elems.size()); ++e) {
        if (!is_row_shape(root->operand(e)->shape())) continue;
        // The source's element sharding stands for the value's own split.
        Instruction probe(Opcode::kParameter, root->operand(e)->shape(), "probe");
        probe.set_sharding(std::make_shared<const Sharding>(src_root->sharding()->tuple_elements()[e]));
        ASSIGN_OR_RETURN(elems[e], ParseSharding(RowsSharding(&probe, 1)));
      }
      root->set_sharding(std::make_shared<const Sharding>(Sharding::Tuple(std::move(elems))));
    }
  }
  // Gradient outputs: in the call form output j is weight j's gradient and is split as the
  // weight is; any other output is split over the stages only.
  // Which weight each output is the gradient of: its position in the call form, or the slot
  // whose stacked update reads it.
  std::vector<int64_t> weight_of(J_, -1);
  for (int64_t j = 0; j < J_; ++j)
    if (J_ == K_ && groot.tuple_shape(j + 1) == chain_.forward->parameter(j + 1)->shape()) weight_of[j] = j;
  for (const StackedSlot& slot : slots_)
    for (const ZipNode& n : slot.nodes)
      if (n.kind == ZipNode::kGradient && n.gradient < J_ &&
          groot.tuple_shape(n.gradient + 1) == chain_.forward->parameter(slot.slot + 1)->shape())
        weight_of[n.gradient] = slot.slot;
  for (int64_t j = 0; j < J_; ++j) {
    const Shape& g = groot.tuple_shape(j + 1);
    if (!g.IsArray()) return Unimplemented("pipeline: output {} of {} is not an array", j + 1, chain_.backward->name());
    grad_shapes_.push_back({g.dtype(), g.dims()});
    const int64_t k = weight_of[j];
    // Accumulated as the layer computes it (a plan's gradient split over devices that its weight
    // is not split over is reduced to the weight's layout once, by the update, not in every
    // iteration); else as its weight is split.
    const Instruction* out = chain_.backward->root()->opcode() == Opcode::kTuple ? chain_.backward->root()->operand(j + 1) : nullptr;
    std::optional<Sharding> own1, own2;
    if (out != nullptr && out->has_sharding()) {
      own1 = StageSharding(*out->sharding(), g.rank(), N_, S_, 1, true);
      own2 = StageSharding(*out->sharding(), g.rank(), N_, S_, 2, true);
    }
    if (own1 && own2) {
      grad_sharding2_.push_back(own2->ToString(false));
      grad_sharding1_.push_back(own1->ToString(false));
      continue;
    }
    grad_sharding2_.push_back(k >= 0 ? slot_sharding2_[k] : ShardingText(g.rank() + 2, true, -1));
    grad_sharding1_.push_back(k >= 0 ? slot_sharding1_[k] : ShardingText(g.rank() + 1, true, -1));
  }
  for (const StackedSlot& slot : slots_) {
    companion_sharding_.emplace_back();
    for (const StackedSlot::Companion& c : slot.companions) companion_sharding_.back().push_back(Composed(c.params, 2));
  }
  const Computation* fwd = module_->GetComputation(chain_.forward->name());
  const Computation* bwd = module_->GetComputation(chain_.backward->name());
  // The layer bodies, vmapped over the stages and on a microbatch.
  LayerBatching fb{.stages = S_, .batch = B_, .microbatches = M_, .batched_params = std::vector<bool>(K_ + 1, false)};
  fb.source_devices = N_;
  fb.batched_params[0] = true;
  LayerBatching bb = fb;
  bb.batched_params.push_back(true);
  bb.tuple_root = true;
  const std::string fwd_name = module_->UniqueName(fwd->name() + ".pipelined");
  const std::string bwd_name = module_->UniqueName(bwd->name() + ".pipelined");
  ASSIGN_OR_RETURN(std::string fwd_text, EmitStagedLayer(*chain_.forward, fb, fwd_name, *module_));
  // A layer computation that carries a plan (layer_plan.h) reduces its gradients as the plan
  // says, which is what was priced; else per data piece, once after the loop.
  bool planned = false;
  for (const Instruction* i : chain_.backward->instructions()) planned = planned || i->has_sharding();
  bb.data = planned ? 1 : data_;
  StatusOr<std::string> bwd_pieces = EmitStagedLayer(*chain_.backward, bb, bwd_name, *module_);
  if (!bwd_pieces.ok() && bwd_pieces.status().code() == absl::StatusCode::kFailedPrecondition) {
    bb.data = 1;  // a partial sum that a dot multiplies: summed over the data devices as it comes
    bwd_pieces = EmitStagedLayer(*chain_.backward, bb, bwd_name, *module_);
  }
  RETURN_IF_ERROR(bwd_pieces.status());
  const std::string bwd_text = *bwd_pieces;
  pieces_ = bb.data;
  for (int64_t j = 0; j < J_; ++j) {
    const int64_t k = weight_of[j], rank = static_cast<int64_t>(grad_shapes_[j].second.size());
    const Instruction* w = k >= 0 ? chain_.weights[0][k] : nullptr;
    const Sharding* ws = w != nullptr && w->opcode() == Opcode::kParameter && k >= 0 && slot_of_[k] != nullptr ? w->sharding() : nullptr;
    acc_sharding_.push_back(pieces_ > 1 ? PiecesSharding(ws, rank, true) : grad_sharding2_[j]);
    call_sharding_.push_back(pieces_ > 1 ? PiecesSharding(ws, rank, false) : grad_sharding1_[j]);
  }
  reducer_ = Reducer(act_type_);
  const std::string fbody = module_->UniqueName("pipe.forward_body"), fcond = module_->UniqueName("pipe.forward_cond");
  const std::string bbody = module_->UniqueName("pipe.backward_body"), bcond = module_->UniqueName("pipe.backward_cond");
  std::string loops = ForwardBody(fbody, fwd_name) + Condition(fcond, StateShape(false));
  cotangent_ = true;
  loops += BackwardBody(bbody, bwd_name) + Condition(bcond, StateShape(true));
  cotangent_ = false;
  // The reducers the bodies asked for come first (the parser reads callees before callers).
  std::string text = reducer_text_ + fwd_text + "\n" + bwd_text + "\n" + loops;

  // The entry: the source's instructions in order, the chains replaced by the two blocks.
  const Computation* entry = module_->entry();
  absl::flat_hash_set<std::string> chain_names;
  for (const Instruction* c : chain_.forward_calls) chain_names.insert(c->name());
  for (const Instruction* c : chain_.backward_calls) {
    chain_names.insert(c->name());
    for (const Instruction* u : c->users()) chain_names.insert(u->name());
  }
  // Parameters renumbered: a stacked slot is one [S, L/S, ...] parameter at layer 0's place.
  absl::flat_hash_map<std::string, std::pair<int64_t, int64_t>> layer_weight;  // name -> (l, k)
  for (int64_t l = 0; l < L_; ++l)
    for (int64_t k = 0; k < K_; ++k) layer_weight[chain_.weights[l][k]->name()] = {l, k};
  std::string body;
  int64_t next_param = 0;
  for (int64_t p = 0; p < entry->num_parameters(); ++p) {
    Instruction* param = entry->parameter(p);
    auto it = layer_weight.find(param->name());
    if (it != layer_weight.end() && slot_of_[it->second.second] != nullptr) {
      const auto [l, k] = it->second;
      chain_names.insert(param->name());
      if (l == 0) {
        const auto& [wt, wd] = weight_shapes_[k];
        body += fmt::format("  {} = {} parameter({}), sharding={}\n", stacked_params_[k], ShapeText(wt, Cat({S_, R_}, wd)),
                            next_param++, slot_sharding2_[k]);
        std::vector<int64_t> sources;
        for (int64_t j = 0; j < L_; ++j) sources.push_back(chain_.weights[j][k]->parameter_number());
        parameter_sources_.push_back(InPositionOrder(sources));
      }
      continue;
    }
    bool companion = false;
    for (size_t si = 0; si < slots_.size() && !companion; ++si)
      for (size_t c = 0; c < slots_[si].companions.size() && !companion; ++c) {
        const std::vector<const Instruction*>& ps = slots_[si].companions[c].params;
        for (size_t l = 0; l < ps.size() && !companion; ++l) {
          if (ps[l]->name() != param->name()) continue;
          companion = true;
          chain_names.insert(param->name());
          if (l != 0) continue;
          const Shape& sh = ps[0]->shape();
          body += fmt::format("  {} = {} parameter({}), sharding={}\n", companion_params_[si][c],
                              ShapeText(sh.dtype(), Cat({S_, R_}, sh.dims())), next_param++, companion_sharding_[si][c]);
          std::vector<int64_t> sources;
          for (const Instruction* q : ps) sources.push_back(q->parameter_number());
          parameter_sources_.push_back(InPositionOrder(sources));
        }
      }
    if (companion) continue;
    parameter_sources_.push_back({param->parameter_number()});
    param->set_parameter_number(next_param++);
  }
  // Per-layer weights of stacked slots that the entry still uses elsewhere.
  for (int64_t l = 0; l < L_; ++l)
    for (int64_t k = 0; k < K_; ++k) {
      if (slot_of_[k] == nullptr) continue;
      const Instruction* w = chain_.weights[l][k];
      bool used = false;
      for (const Instruction* u : w->users())
        used |= u != chain_.forward_calls[l] && u != chain_.backward_calls[l] && !replaced_.contains(u->name());
      if (used) body += LayerSlice(stacked_params_[k], l, w->name(), w->shape());
    }
  for (size_t si = 0; si < slots_.size(); ++si)
    for (size_t c = 0; c < slots_[si].companions.size(); ++c)
      for (int64_t l = 0; l < L_; ++l) {
        const Instruction* p = slots_[si].companions[c].params[l];
        bool used = false;
        for (const Instruction* u : p->users()) used |= !replaced_.contains(u->name());
        if (used) body += LayerSlice(companion_params_[si][c], l, p->name(), p->shape());
      }
  for (const Instruction* i : entry->MakeInstructionPostOrder()) {
    if (i == entry->root() && !slots_.empty()) {
      // The stacked updates, then the result with each stacked slot's new weights in one element
      // at layer 0's place.
      std::vector<std::vector<std::string>> results(slots_.size());
      for (size_t k = 0; k < slots_.size(); ++k) body += StackedUpdate(slots_[k], k, &results[k]);
      std::vector<std::string> elems, shapes, shardings;
      for (int64_t e = 0; e < i->operand_count(); ++e) {
        const StackedSlot::Output* first = nullptr;
        std::string first_name;
        int64_t slot_k = -1;
        bool later = false;
        for (size_t k = 0; k < slots_.size(); ++k)
          for (size_t o = 0; o < slots_[k].outputs.size(); ++o) {
            const std::vector<int64_t>& idx = slots_[k].outputs[o].root_indices;
            if (idx[0] == e) {
              first = &slots_[k].outputs[o];
              first_name = results[k][o];
              slot_k = slots_[k].slot;
            }
            for (size_t l = 1; l < idx.size(); ++l) later |= idx[l] == e;
          }
        if (later) continue;
        if (first != nullptr) {
          const Shape& sh = first->node->shape();
          elems.push_back(first_name);
          shapes.push_back(ShapeText(sh.dtype(), Cat({S_, R_}, sh.dims())));
          shardings.push_back(UpdateSharding(slot_k, sh));
          result_sources_.push_back(InPositionOrder(first->root_indices));
          continue;
        }
        elems.push_back(i->operand(e)->name());
        shapes.push_back(i->operand(e)->shape().ToString(false));
        // An unannotated result is replicated (as the source's is, unless propagation to the
        // output is allowed); the stacked weights stay split over the stages.
        if (i->has_sharding())
          shardings.push_back(i->sharding()->IsTuple() ? i->sharding()->tuple_elements()[e].ToString(false)
                                                       : i->sharding()->ToString(false));
        else
          shardings.push_back("{replicated}");
        result_sources_.push_back({e});
      }
      body += fmt::format("  ROOT {} = ({}) tuple({}), sharding={{{}}}\n", i->name(), fmt::join(shapes, ", "),
                          fmt::join(elems, ", "), fmt::join(shardings, ", "));
      continue;
    }
    if (replaced_.contains(i->name())) continue;
    if (i->name() == chain_.forward_calls.back()->name()) {
      body += ForwardBlock(fbody, fcond);
      continue;
    }
    if (i->name() == chain_.backward_calls.back()->name()) {
      cotangent_ = true;
      body += BackwardBlock(bbody, bcond);
      cotangent_ = false;
      continue;
    }
    if (chain_names.contains(i->name()) || rows_.contains(i->name())) continue;
    body += fmt::format("  {}{}\n", i == entry->root() ? "ROOT " : "", PrintInstruction(*i));
  }
  // The source's other computations first (callees before callers, as the parser reads them).
  std::string kept;
  for (const Computation* c : module_->MakeComputationPostOrder(/*include_unreachable=*/true)) {
    if (c == entry || c->name() == chain_.forward->name() || c->name() == chain_.backward->name()) continue;
    kept += PrintComputation(*c) + "\n";
  }
  text = kept + text;
  PipelineInfo info{.stages = S_, .microbatches = M_, .layers = L_, .repeats = Rc_, .schedule = o_.schedule, .axis = o_.axis};
  if (!o_.source_mesh.empty()) {
    info.mesh = fmt::format("{}={},{}", o_.axis, S_, o_.source_mesh);
  } else if (N_ == 1) {
    info.mesh = fmt::format("{}={}", o_.axis, S_);
  } else if (data_ == N_ || data_ == 1) {
    info.mesh = fmt::format("{}={},{}={}", o_.axis, S_, data_ == N_ ? "data" : "source", N_);
  } else {
    info.mesh = fmt::format("{}={},data={},source={}", o_.axis, S_, data_, N_ / data_);
  }
  // Stacked parameters are split over the stages only; the stash over the stages and the data.
  // Each device holds its stage's layers of a weight, split as the source splits it (Composed).
  auto tiles = [](const Instruction* w) -> int64_t {
    const Sharding* sh = w->sharding();
    if (sh == nullptr || !sh->IsTiled()) return 1;
    const TileAssignment& ta = sh->tile_assignment();
    return ta.num_elements() / (sh->ReplicateOnLastTileDim() ? ta.dims().back() : 1);
  };
  for (const StackedSlot& slot : slots_) {
    const Instruction* w = chain_.weights[0][slot.slot];
    const int64_t t = Composed({w}, 2) == ShardingText(w->shape().rank() + 2, true, -1) ? 1 : tiles(w);
    info.stage_parameter_bytes += L_ * w->shape().byte_size() / S_ / t;
    for (const StackedSlot::Companion& c : slot.companions) info.stage_parameter_bytes += L_ * c.node->shape().byte_size() / S_ / t;
  }
  info.stash_bytes = Shape(act_type_, Cat({M_, R_}, mb_dims_)).byte_size() / data_;
  std::string header = fmt::format("HloModule {}, num_partitions={}, frontend_attributes={{spmdc_pipeline=\"{}\"}}\n\n",
                                   source_.name() + "_pipelined", N_ * S_, info.ToAttribute());
  text = header + text + fmt::format("ENTRY {} {{\n{}}}\n", entry->name(), body);
  StatusOr<std::unique_ptr<Module>> parsed = ParseHloModule(text, "<pipelined>");
  if (!parsed.ok()) return Internal("pipeline: the generated module does not parse: {}", parsed.status().message());
  Status verified = VerifyModule(**parsed);
  if (!verified.ok()) return Internal("pipeline: the generated module does not verify: {}", verified.message());
  PipelineResult result;
  result.module = *std::move(parsed);
  result.info = info;
  result.source_devices = N_;
  result.data_devices = data_;
  result.parameter_sources = std::move(parameter_sources_);
  result.result_sources = std::move(result_sources_);
  result.stacked_slots = static_cast<int64_t>(slots_.size());
  return result;
}

}  // namespace

std::vector<Literal> ToPipelinedArguments(const PipelineResult& result, const std::vector<Literal>& source_args) {
  std::vector<Literal> out;
  const Computation* entry = result.module->entry();
  for (size_t p = 0; p < result.parameter_sources.size(); ++p) {
    const std::vector<int64_t>& sources = result.parameter_sources[p];
    if (sources.size() == 1) {
      out.push_back(source_args[sources[0]]);
      continue;
    }
    // [S, L/S, ...] in row-major order is the layers' values one after another.
    Literal stacked(entry->parameter(static_cast<int64_t>(p))->shape());
    std::byte* to = stacked.mutable_raw();
    for (int64_t s : sources) {
      const int64_t bytes = source_args[s].shape().byte_size();
      std::memcpy(to, source_args[s].raw(), bytes);
      to += bytes;
    }
    out.push_back(std::move(stacked));
  }
  return out;
}

StatusOr<std::vector<Literal>> ToSourceResults(const PipelineResult& result, const Literal& pipelined_result,
                                               const Shape& source_result_shape) {
  if (result.result_sources.empty()) {
    // A result that is no tuple: the same value on both sides.
    std::vector<Literal> leaves;
    std::function<void(const Literal&)> walk = [&](const Literal& v) {
      if (!v.shape().IsTuple()) {
        leaves.push_back(v);
        return;
      }
      for (const Literal& e : v.elements()) walk(e);
    };
    walk(pipelined_result);
    return leaves;
  }
  if (!pipelined_result.shape().IsTuple() || !source_result_shape.IsTuple() ||
      pipelined_result.elements().size() != result.result_sources.size())
    return Internal("pipeline: the result has {} elements, the signature {}", pipelined_result.elements().size(),
                    result.result_sources.size());
  std::vector<Literal> out(source_result_shape.tuple_size());
  for (size_t e = 0; e < result.result_sources.size(); ++e) {
    const Literal& v = pipelined_result.elements()[e];
    const std::vector<int64_t>& sources = result.result_sources[e];
    if (sources.size() == 1) {
      out[sources[0]] = v;
      continue;
    }
    const std::byte* from = v.raw();
    for (int64_t s : sources) {
      Literal piece(source_result_shape.tuple_shape(s));
      const int64_t bytes = piece.shape().byte_size();
      std::memcpy(piece.mutable_raw(), from, bytes);
      from += bytes;
      out[s] = std::move(piece);
    }
  }
  return out;
}

StatusOr<PipelineResult> PipelineModule(const Module& module, const PipelineOptions& options) {
  if (options.stages < 1 || options.microbatches < 1)
    return InvalidArgument("pipeline: --stages and --microbatches must be at least 1 (got {} and {})", options.stages,
                           options.microbatches);
  ASSIGN_OR_RETURN(LayerCallModule form, ToLayerCallForm(module));
  ASSIGN_OR_RETURN(LayerChain chain, FindLayerChain(*form.module));
  ASSIGN_OR_RETURN(PipelineResult result, Generator(*form.module, chain, options).Run());
  result.form = form.form;
  result.weight_slots = static_cast<int64_t>(chain.weights[0].size());
  return result;
}

}  // namespace spmdc::pipeline

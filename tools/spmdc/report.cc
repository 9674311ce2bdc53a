#include "report.h"

#include "report_data.h"
#include "report_html.h"

#include <algorithm>
#include <map>

#include "cli.h"
#include "cost/cost.h"
#include "ir/collective_groups.h"
#include "fmt/format.h"
#include "pipeline/pipeline.h"
#include "nlohmann/json.hpp"
#include "partitioner/partitioner.h"
#include "partitioning.h"
#include "sharding/sharding.h"

namespace spmdc::cli {
namespace {

using Json = nlohmann::ordered_json;

// Large values the propagated module keeps whole on every device (n > 1): the first thing to
// shard when memory is short.
std::vector<std::string> ReplicatedWarnings(const Module& module, int64_t n, int64_t peak) {
  struct Big {
    const Instruction* instr;
    int64_t bytes;
  };
  std::vector<Big> big;
  if (n <= 1 || module.entry() == nullptr) return {};
  const int64_t threshold = std::max<int64_t>(int64_t{1} << 20, peak / 20);
  for (const Instruction* i : module.entry()->instructions()) {
    if (!i->shape().IsArray() || i->shape().byte_size() < threshold) continue;
    if (i->has_sharding() && !i->sharding()->IsReplicated()) continue;
    big.push_back({i, i->shape().byte_size()});
  }
  std::stable_sort(big.begin(), big.end(), [](const Big& a, const Big& b) { return a.bytes > b.bytes; });
  std::vector<std::string> out;
  for (size_t k = 0; k < big.size() && k < 5; ++k) {
    SourceInfo s = SourceInfoOf(*big[k].instr);
    out.push_back(fmt::format("large replicated tensor: %{} {} ({} on every device){}{}", big[k].instr->name(),
                              big[k].instr->shape().ToString(false), FormatBytes(big[k].bytes),
                              s.op_name.empty() ? "" : " op_name=" + s.op_name,
                              s.ToString().empty() ? "" : " at " + s.ToString()));
  }
  if (big.size() > 5) out.push_back(fmt::format("... and {} more large replicated tensors", big.size() - 5));
  return out;
}

Json SourceJson(const SourceInfo& s) {
  Json j;
  j["op_name"] = s.op_name;
  j["source_file"] = s.source_file;
  j["source_line"] = s.source_line;
  return j;
}

Json BucketsJson(const std::vector<CostBucket>& buckets, const char* key_name) {
  Json a = Json::array();
  for (const CostBucket& b : buckets) {
    Json j;
    j[key_name] = b.key;
    j["count"] = b.count;
    j["flops"] = b.flops;
    j["compute_seconds"] = b.compute_seconds;
    j["communication_seconds"] = b.communication_seconds;
    j["collective_bytes_per_device"] = b.collective_bytes;
    a.push_back(j);
  }
  return a;
}

std::string ToJson(const CostReport& r, const HardwareProfile& hw, const std::optional<Mesh>& mesh,
                   const std::optional<pipeline::PipelineInfo>& pipe, const std::optional<AppliedWeightUpdate>& update) {
  Json j;
  j["num_partitions"] = r.num_partitions;
  if (update) {
    const WeightUpdateResult::Totals t = update->result.Sum();
    j["weight_update"] = {{"axis", update->options.axis},
                          {"replicas", update->options.mesh.AxisSize(update->options.axis)},
                          {"updates", update->result.updates.size()},
                          {"weights", t.weights},
                          {"optimizer_state_parameters", t.state},
                          {"optimizer_state_bytes_per_device", t.state_bytes_after},
                          {"optimizer_state_bytes_per_device_replicated", t.state_bytes_before},
                          {"padded", t.padded},
                          {"left_alone", update->result.skipped.size()},
                          {"keep_sharded", update->options.keep_sharded}};
  }
  if (pipe) {
    const int64_t per_stage = std::max<int64_t>(1, r.num_partitions / pipe->stages);
    j["pipeline"] = {{"stages", pipe->stages},
                     {"microbatches", pipe->microbatches},
                     {"layers", pipe->layers},
                     {"schedule", pipeline::ScheduleName(pipe->schedule)},
                     {"repeats", pipe->repeats},
                     {"axis", pipe->axis},
                     {"bubble", pipe->Bubble()},
                     {"devices_per_stage", per_stage},
                     {"per_stage_peak_memory_bytes", r.memory.peak_bytes * per_stage},
                     {"stage_parameter_bytes_per_device", pipe->stage_parameter_bytes},
                     {"stash_bytes_per_device", pipe->stash_bytes}};
  }
  j["peak_memory_bytes"] = r.memory.peak_bytes;
  j["flops_per_device"] = r.time.flops;
  j["step_time_seconds"] = r.time.overlapped_seconds;
  Json cs = Json::array();
  for (const KindAxis& k : ByKindAndAxis(r.collectives)) {
    Json c;
    c["kind"] = k.kind;
    c["count"] = k.count;
    c["bytes_per_device"] = k.bytes;
    c["wire_bytes_per_device"] = k.wire;
    c["mesh_axes"] = k.mesh_axes;
    c["axes"] = k.axes;
    c["seconds"] = k.seconds;
    cs.push_back(c);
  }
  j["collectives"] = cs;
  j["hardware"] = {{"name", hw.name}, {"description", hw.description}, {"hbm_bytes", hw.hbm_bytes}};
  if (mesh) {
    Json axes = Json::array();
    for (const Mesh::Axis& a : mesh->axes()) axes.push_back({{"name", a.name}, {"size", a.size}});
    j["mesh"] = {{"axes", axes}};
  } else {
    j["mesh"] = nullptr;
  }
  Json live = Json::array();
  for (const LiveValue& v : r.memory.live_at_peak) {
    Json x;
    x["name"] = v.name;
    x["computation"] = v.computation;
    x["shape"] = v.shape;
    x["bytes"] = v.bytes;
    x["parameter"] = v.parameter;
    x["source"] = SourceJson(v.source);
    live.push_back(x);
  }
  j["memory"] = {{"peak_bytes", r.memory.peak_bytes},
                 {"parameter_bytes", r.memory.parameter_bytes},
                 {"output_bytes", r.memory.output_bytes},
                 {"temporary_peak_bytes", r.memory.temporary_peak_bytes},
                 {"hbm_bytes", hw.hbm_bytes},
                 {"fits", r.fits},
                 {"peak_instruction", r.memory.peak_instruction},
                 {"peak_computation", r.memory.peak_computation},
                 {"live_at_peak", live}};
  j["model_flops_per_device"] = r.time.model_flops;
  j["bytes_accessed_per_device"] = r.time.bytes_accessed;
  j["step_time"] = {{"overlapped_seconds", r.time.overlapped_seconds},
                    {"serial_seconds", r.time.serial_seconds},
                    {"critical_path_seconds", r.time.critical_path_seconds},
                    {"compute_seconds", r.time.compute_seconds},
                    {"communication_seconds", r.time.communication_seconds},
                    {"mfu", r.time.mfu}};
  Json top = Json::array();
  for (const CollectiveCost* c : Costliest(r.collectives, 10)) {
    Json x;
    x["name"] = c->name;
    x["kind"] = c->kind;
    x["async"] = c->async;
    x["mesh_axes"] = c->mesh_axes;
    x["axes"] = c->axes;
    x["group_size"] = c->group_size;
    x["num_groups"] = c->num_groups;
    x["bytes_per_device"] = c->bytes_per_device;
    x["wire_bytes_per_device"] = c->wire_bytes_per_device;
    x["executions"] = c->executions;
    x["algorithm"] = c->algorithm;
    x["link"] = c->link;
    x["seconds"] = c->seconds;
    x["source"] = SourceJson(c->source);
    top.push_back(x);
  }
  j["top_collectives"] = top;
  j["layers"] = BucketsJson(r.time.by_layer, "layer");
  j["op_kinds"] = BucketsJson(r.time.by_kind, "opcode");
  j["warnings"] = r.warnings;
  return j.dump(2) + "\n";
}

// The pipeline line of a module `spmdc pipeline` made: its schedule, the bubble that schedule
// implies, and the memory of one stage (every stage runs the same per-device program on
// n / S devices, so each stage's memory is the per-device peak times its devices).
std::string PipelineText(const pipeline::PipelineInfo& p, const CostReport& r) {
  const int64_t per_stage = std::max<int64_t>(1, r.num_partitions / p.stages);
  const bool circular = p.schedule == pipeline::Schedule::kCircular;
  return fmt::format(
      "pipeline: {} stages x {} microbatches ({}), bubble {:.1f}% = {} = {}/{}, {} layers over mesh axis {}\n"
      "  per-stage memory: peak {} per device x {} devices = {} (each of the {} stages); per device: stage weights "
      "and optimizer state {}, activation stash {}\n",
      p.stages, p.microbatches, circular ? fmt::format("circular, {} repeats", p.repeats) : "gpipe", 100.0 * p.Bubble(),
      circular ? "(S-1)/(M*R+S-1)" : "(S-1)/(M+S-1)", p.stages - 1, p.microbatches * p.repeats + p.stages - 1, p.layers,
      p.axis, FormatBytes(r.memory.peak_bytes), per_stage, FormatBytes(static_cast<double>(r.memory.peak_bytes) * per_stage),
      p.stages, FormatBytes(static_cast<double>(p.stage_parameter_bytes)), FormatBytes(static_cast<double>(p.stash_bytes)));
}

// The weight-update line (--shard-weight-update): what was sharded, and the optimizer state's
// bytes per device against the replicated state's (1/R of it unless shards are padded).
std::string WeightUpdateText(const AppliedWeightUpdate& w) {
  const WeightUpdateResult::Totals t = w.result.Sum();
  const int64_t replicas = w.options.mesh.AxisSize(w.options.axis);
  return fmt::format(
      "weight update: sharded over {} ({} replicas): {} updates, {} left alone; optimizer state {} per device "
      "({} replicated, {}); new weights {}\n",
      w.options.axis, replicas, w.result.updates.size(), w.result.skipped.size(), FormatBytes(t.state_bytes_after),
      FormatBytes(t.state_bytes_before),
      t.state_bytes_after > 0 ? fmt::format("1/{:.3g}", static_cast<double>(t.state_bytes_before) / t.state_bytes_after)
                              : std::string("none sharded"),
      w.options.keep_sharded ? "kept sharded" : "all-gathered");
}

std::string ToText(const Module& module, const CostReport& r, const HardwareProfile& hw,
                   const std::optional<Mesh>& mesh, const std::optional<pipeline::PipelineInfo>& pipe,
                   const std::optional<AppliedWeightUpdate>& update) {
  std::string o;
  o += fmt::format("report: module {} on {} devices{}, hardware {} ({})\n", module.name(), r.num_partitions,
                   mesh ? " (mesh " + mesh->ToString() + ")" : "", hw.name, hw.description);
  const MemoryEstimate& m = r.memory;
  o += fmt::format("memory per device: peak {} ({} bytes): parameters {}, outputs {}, temporaries at the peak {}\n",
                   FormatBytes(m.peak_bytes), m.peak_bytes, FormatBytes(m.parameter_bytes), FormatBytes(m.output_bytes),
                   FormatBytes(m.temporary_peak_bytes));
  o += fmt::format("  {} in {} of HBM ({:.1f}% used)\n", r.fits ? "fits" : "DOES NOT FIT", FormatBytes(hw.hbm_bytes),
                   100.0 * m.peak_bytes / hw.hbm_bytes);
  if (!m.peak_instruction.empty())
    o += fmt::format("  peak while %{} runs (computation {}); live there, largest first:\n", m.peak_instruction,
                     m.peak_computation);
  for (const LiveValue& v : m.live_at_peak) {
    std::string src = v.source.ToString();
    o += fmt::format("    {:>12}  {:<24} %{}{}{}{}\n", FormatBytes(v.bytes), v.shape, v.name, v.parameter ? " (parameter)" : "",
                     v.source.op_name.empty() ? "" : "  " + v.source.op_name, src.empty() ? "" : "  " + src);
  }
  if (pipe) o += PipelineText(*pipe, r);
  if (update) o += WeightUpdateText(*update);
  const StepTime& t = r.time;
  o += fmt::format("step time: {} as scheduled (serial {}, critical path {}); compute {}, communication {}\n",
                   FormatSeconds(t.overlapped_seconds), FormatSeconds(t.serial_seconds), FormatSeconds(t.critical_path_seconds),
                   FormatSeconds(t.compute_seconds), FormatSeconds(t.communication_seconds));
  o += fmt::format("  FLOPs per device {:.4g} (dot/convolution {:.4g}), HBM traffic {}, MFU {:.1f}%\n", t.flops,
                   t.model_flops, FormatBytes(static_cast<double>(t.bytes_accessed)), 100.0 * t.mfu);
  o += "communication per device, by kind and mesh axes:\n";
  std::vector<KindAxis> kinds = ByKindAndAxis(r.collectives);
  if (kinds.empty()) o += "  none\n";
  for (const KindAxis& k : kinds)
    o += fmt::format("  {:<20} {:<16} count {:<5} bytes {:<12} wire {:<12} time {}\n", k.kind, k.axes, k.count,
                     k.bytes, k.wire, FormatSeconds(k.seconds));
  std::vector<const CollectiveCost*> top = Costliest(r.collectives, 10);
  if (!top.empty()) {
    o += "costliest collectives:\n";
    for (const CollectiveCost* c : top) {
      std::string src = c->source.ToString();
      o += fmt::format("  {:>10} x{:<4} {:<18} {:<14} {:>12} wire  %{}{}{}\n", FormatSeconds(c->seconds), c->executions, c->kind,
                       c->axes, c->wire_bytes_per_device, c->name,
                       c->source.op_name.empty() ? "" : "  " + c->source.op_name, src.empty() ? "" : "  " + src);
    }
  }
  o += "per layer (op_name up to its last '/'):\n";
  for (size_t k = 0; k < t.by_layer.size() && k < 30; ++k) {
    const CostBucket& b = t.by_layer[k];
    o += fmt::format("  {:<40} ops {:<6} FLOPs {:<10.4g} compute {:<10} communication {}\n", b.key, b.count, b.flops,
                     FormatSeconds(b.compute_seconds), FormatSeconds(b.communication_seconds));
  }
  if (t.by_layer.size() > 30) o += fmt::format("  ... {} more layers\n", t.by_layer.size() - 30);
  o += "per op kind:\n";
  for (size_t k = 0; k < t.by_kind.size() && k < 12; ++k) {
    const CostBucket& b = t.by_kind[k];
    o += fmt::format("  {:<24} ops {:<6} FLOPs {:<10.4g} time {}\n", b.key, b.count, b.flops,
                     FormatSeconds(b.compute_seconds + b.communication_seconds));
  }
  if (!r.warnings.empty()) {
    o += "warnings:\n";
    for (const std::string& w : r.warnings) o += "  " + w + "\n";
  }
  return o;
}

}  // namespace

const std::vector<std::string>& ReportFormats() {
  static const std::vector<std::string> formats = {"text", "json", "html"};
  return formats;
}

StatusOr<std::string> RenderReport(const ReportOptions& args, std::unique_ptr<Module> module,
                                   int64_t n) {
  ASSIGN_OR_RETURN(HardwareProfile hw, LoadHardwareProfile(args.hardware, args.hardware_dir));
  CostOptions options;
  options.num_partitions = n;
  if (args.mesh) {
    ASSIGN_OR_RETURN(Mesh mesh, Mesh::Parse(*args.mesh));
    options.mesh = mesh;
  }
  std::unique_ptr<Module> per_device;
  std::vector<std::string> partition_warnings;
  std::optional<AppliedWeightUpdate> update;
  const std::optional<pipeline::PipelineInfo> pipe = pipeline::ReadPipelineInfo(*module);
  // A pipelined module names its mesh (stages and the source's devices) unless --mesh does.
  if (!args.mesh && pipe && !pipe->mesh.empty())
    if (StatusOr<Mesh> mesh = Mesh::Parse(pipe->mesh); mesh.ok()) options.mesh = *mesh;
  if (args.partitioned) {
    per_device = std::move(module);
  } else {
    RETURN_IF_ERROR(args.propagation.Propagate(*module));
    RETURN_IF_ERROR(ApplyWeightUpdateSharding(*module, args.weight_update, args.mesh, &update));
    // Collectives are described on the annotated mesh, else one inferred from the shardings.
    options.mesh = MeshForCollectives(*module, options);
    ASSIGN_OR_RETURN(PartitionResult result, PartitionAndCleanUp(*module, PartitionOptions{n}));
    partition_warnings = result.stats.warnings;
    per_device = std::move(result.module);
  }
  if (!options.mesh) options.mesh = MeshForCollectives(*per_device, options);
  // The cost model prices the groups the runtime would form; a module whose groups the runtime
  // could not form is bad input, not a collective priced over the wrong devices.
  RETURN_IF_ERROR(CheckCollectiveGroups(*per_device, std::max<int64_t>(1, per_device->replica_count()), n));
  CostReport report = AnalyzeCost(*per_device, options, hw);
  std::vector<std::string> warnings;
  if (module) warnings = ReplicatedWarnings(*module, n, report.memory.peak_bytes);
  for (const std::string& w : partition_warnings) warnings.push_back("full rematerialization: " + w);
  warnings.insert(warnings.end(), report.warnings.begin(), report.warnings.end());
  report.warnings = std::move(warnings);
  std::string out;
  if (args.format == "html") {
    out = ReportToHtml(
        ReportData{module.get(), per_device.get(), std::move(report), std::move(hw), options.mesh});
  } else {
    out = args.format == "json" ? ToJson(report, hw, options.mesh, pipe, update)
                                : ToText(*per_device, report, hw, options.mesh, pipe, update);
  }
  return out;
}

Status RunReport(const ReportOptions& args, std::unique_ptr<Module> module, int64_t n) {
  ASSIGN_OR_RETURN(std::string out, RenderReport(args, std::move(module), n));
  return WriteOutput(args.out, out);
}

}  // namespace spmdc::cli

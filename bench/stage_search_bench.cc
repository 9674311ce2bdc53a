// Alpa's stage search (`spmdc auto --pipeline auto`, src/auto/stage_search.h) on a GPT-3
// 175B-shaped training step (spmdc example gpt3's shapes, unannotated: 96 layers, d_model 12288,
// batch 8 x 2048 tokens, bf16) over 64 devices of the h100 profile (8 hosts of 8), estimated only:
// the time to plan (layer clustering, the tied intra-op solves, the stage DP) and the chosen
// plan's step time beside the best uniform pipeline + intra-op plan it enumerated; then the
// tying estimate of the longest chosen stage against one intra-op solve of its whole span.
//
//   stage_search_bench [--layers L] [--devices D] [--microbatches M] [--stages S] [--hardware NAME]
//                      [--work-limit W] [--emit]
//
// --emit prints the module instead (for `spmdc auto --pipeline` on the command line). Prints
// figures; asserts nothing.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>

#include "auto/plan.h"
#include "auto/stage_search.h"
#include "cost/hardware.h"
#include "hlo/parser.h"
#include "models/examples.h"
#include "models/models.h"

namespace {

using namespace spmdc::autoshard;

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string Ms(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f ms", s * 1e3);
  return buf;
}

void PrintPlan(const char* what, const PipelineResult& r, const StagePlan& p) {
  std::printf("%s: %zu stages, step time %s (max stage %s)%s\n", what, p.stages.size(), Ms(p.step_seconds).c_str(),
              Ms(p.max_stage_seconds).c_str(), p.uniform ? ", uniform" : "");
  for (const Stage& s : p.stages) {
    const StageOption& o = r.table.at(s.first_layer, s.last_layer, s.submesh)[s.option];
    std::printf("  layers %2d-%2d  %3lld devices %-8s  %-17s %11s/mb  %s  %s\n", s.first_layer, s.last_layer,
                static_cast<long long>(r.submeshes[s.submesh].devices()), r.submeshes[s.submesh].ToString().c_str(),
                o.mesh.c_str(), Ms(s.seconds).c_str(), FormatBytes(s.memory_bytes).c_str(), o.summary.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  int64_t layers = 96, devices = 64, microbatches = 8, work_limit = 0;
  std::optional<int> stages;
  std::string hardware = "h100";
  bool emit = false;
  for (int i = 1; i < argc; ++i) {
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", argv[i]);
        std::exit(2);
      }
      return argv[++i];
    };
    if (!std::strcmp(argv[i], "--layers")) {
      layers = std::atoll(next());
    } else if (!std::strcmp(argv[i], "--devices")) {
      devices = std::atoll(next());
    } else if (!std::strcmp(argv[i], "--microbatches")) {
      microbatches = std::atoll(next());
    } else if (!std::strcmp(argv[i], "--stages")) {
      stages = std::atoi(next());
    } else if (!std::strcmp(argv[i], "--work-limit")) {
      work_limit = std::atoll(next());
    } else if (!std::strcmp(argv[i], "--hardware")) {
      hardware = next();
    } else if (!std::strcmp(argv[i], "--emit")) {
      emit = true;
    } else {
      std::fprintf(stderr,
                   "usage: stage_search_bench [--layers L] [--devices D] [--microbatches M] [--stages S] "
                   "[--hardware NAME] [--work-limit W] [--emit]\n");
      return 2;
    }
  }
  spmdc::TransformerOptions g = spmdc::Gpt3Options();
  g.parallel = {};
  g.layers = layers;
  const double t0 = Now();
  const std::string text = spmdc::BuildTransformerTrainingStep(g);
  if (emit) {
    std::fputs(text.c_str(), stdout);
    return 0;
  }
  auto module = spmdc::ParseHloModule(text);
  if (!module.ok()) {
    std::fprintf(stderr, "parse: %s\n", std::string(module.status().message()).c_str());
    return 1;
  }
  const double t1 = Now();
  auto hw = spmdc::LoadHardwareProfile(hardware);
  if (!hw.ok()) {
    std::fprintf(stderr, "%s\n", std::string(hw.status().message()).c_str());
    return 1;
  }
  PipelineOptions o;
  o.num_devices = devices;
  o.hardware = &*hw;
  o.microbatches = microbatches;
  o.stages = stages;
  o.work_limit = work_limit;
  const double t2 = Now();
  auto r = PlanPipeline(**module, o);
  const double t3 = Now();
  if (!r.ok()) {
    std::fprintf(stderr, "stage search: %s\n", std::string(r.status().message()).c_str());
    return 1;
  }
  std::printf("GPT-3-shaped training step: %lld layers (%lld instructions), %lld devices (%s), %lld microbatches\n",
              static_cast<long long>(layers), static_cast<long long>(spmdc::CountHloInstructions(text)),
              static_cast<long long>(devices), hw->name.c_str(), static_cast<long long>(microbatches));
  std::printf("module generated and parsed in %.2f s (not part of the search)\n", t1 - t0);
  std::printf("stage search: %.2f s wall (intra-op pricing %.2f s: %lld solves over %lld logical meshes; DP %.3f s: "
              "%lld runs over %lld bounds); %d layers, %d tie classes\n",
              t3 - t2, r->pricing_seconds, static_cast<long long>(r->intra_op_solves),
              static_cast<long long>(r->logical_meshes), r->search_seconds,
              static_cast<long long>(r->search.dp_evaluations), static_cast<long long>(r->search.candidate_bounds),
              r->layers.num_layers, r->layers.num_classes);
  PrintPlan("chosen", *r, *r->search.best);
  if (r->search.best_uniform) {
    PrintPlan("best uniform", *r, *r->search.best_uniform);
    std::printf("chosen / best uniform step time: %.4f (<= 1 by construction of the DP)\n",
                r->search.best->step_seconds / r->search.best_uniform->step_seconds);
  } else {
    std::printf("no uniform pipeline fits\n");
  }
  // The tying estimate against a direct solve: the chosen plan's longest stage's span, planned as
  // one module on its logical mesh (the fastest plan, as the table's "fast" variant), against the
  // table's sum of tied layers and pair excesses.
  const Stage* longest = nullptr;
  for (const Stage& s : r->search.best->stages)
    if (!longest || s.last_layer - s.first_layer > longest->last_layer - longest->first_layer) longest = &s;
  const std::vector<StageOption>& opts = r->table.at(longest->first_layer, longest->last_layer, longest->submesh);
  const StageOption& chosen = opts[longest->option];
  const StageOption* fast = nullptr;
  for (const StageOption& x : opts)
    if (x.mesh == chosen.mesh && x.variant == "fast") fast = &x;
  auto span = ExtractLayers(**module, r->layers, longest->first_layer, longest->last_layer);
  if (fast && span.ok()) {
    PlanOptions po(*spmdc::Mesh::Parse(fast->mesh));
    po.hardware = &*hw;
    po.memory_limit = std::numeric_limits<int64_t>::max() / 4;
    po.work_limit = kDefaultStageWork;
    po.keep_annotations = false;
    po.standard_plans = false;
    po.use_milp = false;
    const double t4 = Now();
    auto direct = PlanAuto(**span, po);
    if (direct.ok()) {
      const double direct_mb = direct->Chosen().step_seconds / static_cast<double>(microbatches);
      // Both without the transfers between stages (the direct solve prices the span alone).
      const double tied_mb = fast->seconds - fast->transfer_seconds;
      std::printf("tying check, layers %d-%d on %s: tied estimate %s/mb, one solve of the span %s/mb (%.3fx; %.1f s)\n",
                  longest->first_layer, longest->last_layer, fast->mesh.c_str(), Ms(tied_mb).c_str(),
                  Ms(direct_mb).c_str(), tied_mb / direct_mb, Now() - t4);
    } else {
      std::printf("tying check: %s\n", std::string(direct.status().message()).c_str());
    }
  }
  return 0;
}

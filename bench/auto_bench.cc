// `spmdc auto` over the model zoo (models/examples.h AutoZoo: MLP, GPT with 2, 12 and 96 layers,
// U-Net, DLRM, MoE, each under a memory limit that rules out replicating it) on the meshes 8,
// 2x4, 8x64 and 4x4x8: per model x mesh, the search's plan, auto's best (it or its weight-update-
// sharded variants), the best standard plan (data-parallel, FSDP, expert-parallel, Megatron / 2-D)
// under the same cost model (h100 profile) and memory limit, the chosen plan, the planning time
// (strategy space + search) and the certified gap; then GPT-3 175B-shaped steps (spmdc example
// gpt3's shapes, unannotated) on 512 devices (8 x 64, 8 x 8 x 8 for 2 layers) and on 128 (4 x 4 x
// 8), the 96-layer rows with tied repeated layers. Every row ends with the CPU time of planning
// end to end (strategy space, search, bound, pricing every plan) and its parts.
//
//   auto_bench [--quick] [--gpt3-only] [--model LABEL] [--time-limit S] [--gpt3-layers L] [--emit-gpt3]
//
// --quick leaves out the GPT-3 rows, --gpt3-only the zoo's; --model runs one zoo model's rows;
// --emit-gpt3 (after --gpt3-layers) prints the unannotated GPT-3-shaped module instead. Prints
// figures; asserts nothing (tests/unit/auto_zoo_test.cc checks the small meshes).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include "auto/plan.h"
#include "cost/hardware.h"
#include "hlo/parser.h"
#include "models/examples.h"
#include "models/models.h"

namespace {

using spmdc::Mesh;
using namespace spmdc::autoshard;

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string Time(double s) {
  if (s >= 1) return std::to_string(s).substr(0, 6) + " s";
  char buf[32];
  if (s >= 1e-3) {
    std::snprintf(buf, sizeof buf, "%.3f ms", s * 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.3f us", s * 1e6);
  }
  return buf;
}

// The fastest plan that fits among `plans`; nullptr when none does.
template <typename Plans>
const PricedPlan* Fastest(const Plans& plans) {
  const PricedPlan* best = nullptr;
  for (const PricedPlan* p : plans)
    if (p->fits && (!best || p->step_seconds < best->step_seconds)) best = p;
  return best;
}

// One row: the search's plan, auto's best (the search's plan or its weight-update-sharded
// variants), the best standard plan (data-parallel, fsdp, expert-parallel, megatron / 2-d), the
// chosen plan, and whether auto's best is at most the best standard plan's step time.
void Row(const char* model, const std::string& module_text, const char* mesh_text, std::optional<int64_t> limit,
         const spmdc::HardwareProfile& hw, double time_limit, bool price_standard) {
  auto module = spmdc::ParseHloModule(module_text);
  if (!module.ok()) {
    std::printf("%-10s %-16s parse error: %s\n", model, mesh_text, std::string(module.status().message()).c_str());
    return;
  }
  const double parsed = Now();
  PlanOptions o(*Mesh::Parse(mesh_text));
  o.hardware = &hw;
  o.memory_limit = limit;
  o.time_limit_s = time_limit;
  o.keep_annotations = false;
  o.standard_plans = price_standard;
  auto r = PlanAuto(**module, o);
  const double total = Now() - parsed;
  const std::string lim = limit ? FormatBytes(*limit) : "HBM";
  if (!r.ok()) {
    std::printf("%-10s %-16s %-10s %s\n", model, mesh_text, lim.c_str(), std::string(r.status().message()).c_str());
    return;
  }
  std::vector<const PricedPlan*> autos = {&r->search}, standard;
  for (const PricedPlan& p : r->update_sharded)
    if (p.name.rfind("auto+", 0) == 0) autos.push_back(&p);
  for (const PricedPlan& p : r->standard) standard.push_back(&p);
  const PricedPlan* a = Fastest(autos);
  const PricedPlan* best = Fastest(standard);
  const PricedPlan& c = r->Chosen();
  const PlanTimes& cpu = r->cpu;
  std::string verdict = "-";
  if (a && best) verdict = a->step_seconds <= best->step_seconds ? "yes" : "NO";
  if (a && !best) verdict = "yes";
  std::printf("%-10s %-16s %-10s %7zu %8lld %11s %11s %-9s %11s %-16s %7s %-22s %11s %-5s %7.2f%% %8.2f s %8.2f s"
              " %8.2f s  (cpu: space %.2f, search %.2f, bound %.2f, pricing %.2f, standard %.2f, wus %.2f)\n",
              model, mesh_text, lim.c_str(), r->space->nodes.size(),
              static_cast<long long>(r->space->num_strategies()), Time(r->search.step_seconds).c_str(),
              a ? Time(a->step_seconds).c_str() : "none fits", a ? a->name.c_str() : "-",
              best ? Time(best->step_seconds).c_str() : "none fits", best ? best->name.c_str() : "-",
              a && best && a->step_seconds > 0 ? (std::to_string(best->step_seconds / a->step_seconds).substr(0, 5) + "x").c_str()
                                               : "-",
              c.name.c_str(), Time(c.step_seconds).c_str(), verdict.c_str(), 100 * r->gap, r->search_seconds, total,
              cpu.Total(), cpu.space, cpu.search, cpu.bound, cpu.pricing, cpu.standard, cpu.update_sharded);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false, gpt3_only = false;
  std::string only;
  double time_limit = 60;
  int64_t gpt3_layers = 96;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) {
      quick = true;
    } else if (!std::strcmp(argv[i], "--gpt3-only")) {
      gpt3_only = true;
    } else if (!std::strcmp(argv[i], "--time-limit") && i + 1 < argc) {
      time_limit = std::atof(argv[++i]);
    } else if (!std::strcmp(argv[i], "--gpt3-layers") && i + 1 < argc) {
      gpt3_layers = std::atoll(argv[++i]);
    } else if (!std::strcmp(argv[i], "--model") && i + 1 < argc) {
      only = argv[++i];
    } else if (!std::strcmp(argv[i], "--emit-gpt3")) {
      // The unannotated GPT-3-shaped module with --gpt3-layers layers, for `spmdc auto`.
      spmdc::TransformerOptions g = spmdc::Gpt3Options();
      g.parallel = {};
      g.layers = gpt3_layers;
      std::fputs(spmdc::BuildTransformerTrainingStep(g).c_str(), stdout);
      return 0;
    } else {
      std::fprintf(stderr,
                   "usage: auto_bench [--quick] [--gpt3-only] [--model LABEL] [--time-limit S] [--gpt3-layers L] "
                   "[--emit-gpt3]\n");
      return 2;
    }
  }
  auto hw = spmdc::LoadHardwareProfile("h100");
  if (!hw.ok()) {
    std::fprintf(stderr, "auto_bench: %s\n", std::string(hw.status().message()).c_str());
    return 3;
  }
  std::printf("auto_bench: hardware %s; 'search' = the strategy search's plan, 'auto' = the fastest that fits of\n"
              "it and its weight-update-sharded variants (auto+wus, auto+wus-keep), 'best std' = the fastest\n"
              "standard plan that fits (data-parallel, fsdp, expert-parallel, megatron / 2-d), 'chosen' = the\n"
              "fastest plan that fits of all (standard ones and their +wus variants included); every step time\n"
              "is the cost model's (spmdc report) on the partitioned program; 'auto<=std' = the zoo check;\n"
              "plan s = strategy space + search (wall), total s = that + pricing every plan (wall), cpu = the\n"
              "process's CPU time of all that (one thread), its parts at the end of the row\n",
              hw->name.c_str());
  std::printf("%-10s %-16s %-10s %7s %8s %11s %11s %-9s %11s %-16s %7s %-22s %11s %-5s %8s %10s %10s %10s\n",
              "model", "mesh", "limit", "instrs", "strats", "search", "auto", "(which)", "best std", "(which)",
              "std/auto", "chosen", "", "auto<=std", "gap", "plan", "total", "cpu");
  const char* meshes[] = {"data=8", "data=2,model=4", "data=8,model=64", "a=4,b=4,c=8"};
  for (const spmdc::ZooModel& z : spmdc::AutoZoo()) {
    if (gpt3_only || (!only.empty() && z.label != only)) continue;
    const std::string text = *spmdc::BuildExample(z.example);
    for (const char* mesh : meshes) Row(z.label.c_str(), text, mesh, z.memory_limit, *hw, time_limit, true);
  }
  if (!quick && only.empty()) {
    spmdc::TransformerOptions g = spmdc::Gpt3Options();
    g.parallel = {};
    g.layers = gpt3_layers;
    const std::string gpt3 = spmdc::BuildTransformerTrainingStep(g);
    const std::string name = "gpt3-" + std::to_string(gpt3_layers) + "L";
    Row(name.c_str(), gpt3, "data=8,model=64", std::nullopt, *hw, time_limit, true);
    Row(name.c_str(), gpt3, "a=4,b=4,c=8", std::nullopt, *hw, time_limit, true);
    g.layers = 2;
    const std::string gpt3_small = spmdc::BuildTransformerTrainingStep(g);
    Row("gpt3-2L", gpt3_small, "data=8,fsdp=8,model=8", std::nullopt, *hw, time_limit, true);
  }
  return 0;
}

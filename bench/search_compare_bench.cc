// `spmdc auto --search ilp` against `--search mcts` over the model zoo: per model x mesh x memory
// limit, each search's plan priced by the full cost model (PricePlan: partitioned, then `spmdc
// report`'s step time and peak), the CPU seconds of planning (strategy space, search, pricing
// the search's candidates; no standard plans), and mcts/ilp. Meshes 8, 2x4, and the 512-device
// 8x64 and 4x4x8 (estimated only: nothing here runs them). Limits: the profile's HBM, and half
// of the replicated plan's peak (rules out replication). h100 profile, modules unannotated. A
// plan that hands the next step k carried values (carried_state.h: a weight's update, optimizer
// state) split unlike their parameters is marked *k; their resharding is in its step time.
//
//   search_compare_bench [--models a,b] [--meshes M1;M2] [--time-limit S] [--mcts-work-limit W]
//                        [--no-half]
//
// Models: mlp, transformer, gpt3-2L (the GPT-3 175B shapes with 2 layers), moe, and unet, dlrm
// when `spmdc example` has them. --mcts-work-limit sets the tactic search's work (states
// evaluated; the ILP keeps its default). Prints figures; asserts nothing.
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "auto/plan.h"
#include "cost/hardware.h"
#include "hlo/parser.h"
#include "models/examples.h"
#include "models/models.h"

namespace {

using spmdc::Mesh;
using namespace spmdc::autoshard;

double CpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

std::string Time(double s) {
  char buf[32];
  if (s >= 1) {
    std::snprintf(buf, sizeof buf, "%.3f s", s);
  } else if (s >= 1e-3) {
    std::snprintf(buf, sizeof buf, "%.3f ms", s * 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.3f us", s * 1e6);
  }
  return buf;
}

struct ZooModel {
  std::string name;
  std::string text;
};

struct Outcome {
  std::optional<AutoResult> result;
  std::string error;
  double cpu = 0;
};

Outcome Plan(const spmdc::Module& module, const Mesh& mesh, const spmdc::HardwareProfile& hw,
             std::optional<int64_t> limit, SearchKind search, double time_limit, int64_t work_limit) {
  PlanOptions o(mesh);
  o.hardware = &hw;
  o.memory_limit = limit;
  o.time_limit_s = time_limit;
  o.work_limit = work_limit;
  o.keep_annotations = false;
  o.standard_plans = false;
  o.search = search;
  Outcome out;
  const double t0 = CpuSeconds();
  auto r = PlanAuto(module, o);
  out.cpu = CpuSeconds() - t0;
  if (r.ok()) {
    out.result = std::move(*r);
  } else {
    out.error = std::string(r.status().message());
  }
  return out;
}

// The full model's peak of the module with every value replicated.
std::optional<int64_t> ReplicatedPeak(const spmdc::Module& module, const Mesh& mesh, const spmdc::HardwareProfile& hw) {
  std::unique_ptr<spmdc::Module> m = module.Clone();
  m->set_num_partitions(mesh.num_devices());
  for (spmdc::Computation* c : m->computations())
    for (spmdc::Instruction* i : c->instructions()) i->clear_sharding();
  auto p = PricePlan(std::move(m), mesh, hw, int64_t{1} << 62);
  if (!p.ok()) return std::nullopt;
  return p->peak_bytes;
}

std::string Cell(const spmdc::Module& module, const Mesh& mesh, const Outcome& o) {
  if (!o.result) return "-";
  const PricedPlan& p = o.result->search;
  const int64_t carried = p.carried_resharded;
  return Time(p.step_seconds) + (p.fits ? "" : " (over)") + (carried ? " *" + std::to_string(carried) : "");
}

void Row(const ZooModel& model, const spmdc::Module& module, const char* mesh_text, std::optional<int64_t> limit,
         const spmdc::HardwareProfile& hw, double time_limit, int64_t work_limit) {
  const Mesh mesh = *Mesh::Parse(mesh_text);
  const Outcome ilp = Plan(module, mesh, hw, limit, SearchKind::kIlp, time_limit, 0);
  const Outcome mcts = Plan(module, mesh, hw, limit, SearchKind::kMcts, time_limit, work_limit);
  const std::string lim = limit ? FormatBytes(*limit) : "HBM";
  std::string ratio = "-", winner = "-";
  if (ilp.result && mcts.result) {
    const PricedPlan& a = ilp.result->search;
    const PricedPlan& b = mcts.result->search;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", a.step_seconds > 0 ? b.step_seconds / a.step_seconds : 1.0);
    ratio = buf;
    if (a.fits != b.fits) {
      winner = a.fits ? "ilp (fits)" : "mcts (fits)";
    } else if (b.step_seconds < a.step_seconds * (1 - 1e-3)) {
      winner = "mcts";
    } else if (a.step_seconds < b.step_seconds * (1 - 1e-3)) {
      winner = "ilp";
    } else {
      winner = "tie";
    }
  }
  std::printf("%-12s %-17s %-10s %20s %20s %7s %9.2f %9.2f %6lld  %-11s", model.name.c_str(), mesh_text, lim.c_str(),
              Cell(module, mesh, ilp).c_str(), Cell(module, mesh, mcts).c_str(), ratio.c_str(), ilp.cpu, mcts.cpu,
              mcts.result ? static_cast<long long>(mcts.result->tactic_stats->states) : 0LL, winner.c_str());
  if (mcts.result) {
    std::string t;
    for (const std::string& s : mcts.result->tactics) t += (t.empty() ? "" : "; ") + s;
    std::printf("  %s", t.empty() ? "(no tactics)" : t.c_str());
  }
  if (!ilp.error.empty()) std::printf("  [ilp: %s]", ilp.error.c_str());
  if (!mcts.error.empty()) std::printf("  [mcts: %s]", mcts.error.c_str());
  std::printf("\n");
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  double time_limit = 60;
  int64_t work_limit = 0;
  bool half = true;
  std::vector<std::string> only_models;
  std::vector<std::string> meshes = {"data=8", "data=2,model=4", "data=8,model=64", "a=4,b=4,c=8"};
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--time-limit") && i + 1 < argc) {
      time_limit = std::atof(argv[++i]);
    } else if (!std::strcmp(argv[i], "--mcts-work-limit") && i + 1 < argc) {
      work_limit = std::atoll(argv[++i]);
    } else if (!std::strcmp(argv[i], "--models") && i + 1 < argc) {
      only_models = absl::StrSplit(argv[++i], ',');
    } else if (!std::strcmp(argv[i], "--meshes") && i + 1 < argc) {
      meshes = absl::StrSplit(argv[++i], ';');
    } else if (!std::strcmp(argv[i], "--no-half")) {
      half = false;
    } else {
      std::fprintf(stderr, "usage: search_compare_bench [--models a,b] [--meshes M1;M2] [--time-limit S] "
                           "[--mcts-work-limit W] [--no-half]\n");
      return 2;
    }
  }
  auto hw = spmdc::LoadHardwareProfile("h100");
  if (!hw.ok()) {
    std::fprintf(stderr, "search_compare_bench: %s\n", std::string(hw.status().message()).c_str());
    return 3;
  }
  std::vector<ZooModel> models;
  auto example = [&](const char* name, const char* as) {
    if (std::optional<std::string> text = spmdc::BuildExample(name)) models.push_back({as, *text});
  };
  example("mlp", "mlp");
  example("transformer", "transformer");
  spmdc::TransformerOptions g = spmdc::Gpt3Options();
  g.parallel = {};
  g.layers = 2;
  models.push_back({"gpt3-2L", spmdc::BuildTransformerTrainingStep(g)});
  models.push_back({"moe", spmdc::BuildTransformerTrainingStep(spmdc::MoeOptions(1))});
  example("unet", "unet");
  example("dlrm", "dlrm");
  std::printf("search_compare_bench: hardware %s; each search's plan priced by the full cost model (step time; '(over)': "
              "over the limit;\n'*k': the plan hands the next step k carried values split unlike their parameters, resharding priced in); CPU s = "
              "planning (space, search,\npricing its candidates); states = tactic sets the mcts propagated\n",
              hw->name.c_str());
  std::printf("%-12s %-17s %-10s %20s %20s %7s %9s %9s %6s  %-11s  %s\n", "model", "mesh", "limit", "ilp", "mcts",
              "mcts/ilp", "ilp CPU s", "mcts CPU", "states", "winner", "mcts tactics");
  for (const ZooModel& model : models) {
    if (!only_models.empty() && std::find(only_models.begin(), only_models.end(), model.name) == only_models.end())
      continue;
    auto module = spmdc::ParseHloModule(model.text);
    if (!module.ok()) {
      std::printf("%-12s parse error: %s\n", model.name.c_str(), std::string(module.status().message()).c_str());
      continue;
    }
    for (const std::string& mesh_text : meshes) {
      Row(model, **module, mesh_text.c_str(), std::nullopt, *hw, time_limit, work_limit);
      if (!half) continue;
      if (std::optional<int64_t> peak = ReplicatedPeak(**module, *Mesh::Parse(mesh_text), *hw))
        Row(model, **module, mesh_text.c_str(), *peak / 2, *hw, time_limit, work_limit);
    }
  }
  return 0;
}

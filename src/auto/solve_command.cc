#include "auto/solve_command.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>

namespace spmdc::autoshard {
namespace {

// Time kept back for expanding, checking and printing the answer.
constexpr double kOutputReserveS = 0.3;

std::string GapText(TotalCost cost, TotalCost lb) {
  if (cost == 0) return "0%";
  return fmt::format("{:.4f}%", 100.0 * static_cast<double>(cost - lb) / static_cast<double>(cost));
}

}  // namespace

void PrintProgressLine(std::FILE* err, std::string_view who, double elapsed_s, std::string_view incumbent,
                       std::string_view bound, std::string_view gap, std::string_view note) {
  std::string line = fmt::format("{}: {:7.1f} s  {}", who, elapsed_s, incumbent);
  if (!bound.empty()) line += fmt::format("  lower bound {}", bound);
  if (!gap.empty()) line += fmt::format("  gap {}", gap);
  if (!note.empty()) line += fmt::format("  ({})", note);
  line += "\n";
  std::fputs(line.c_str(), err);
}

Status WriteSolutionLine(std::FILE* out, const Solution& solution) {
  const std::string line = FormatSolution(solution) + "\n";
  if (std::fwrite(line.data(), 1, line.size(), out) != line.size() || std::fflush(out) != 0) {
    return Internal("cannot write the solution to standard output");
  }
  return absl::OkStatus();
}

StatusOr<SolveResult> RunSolve(const std::string& path, const SolveCommandOptions& options,
                               std::FILE* out, std::FILE* err) {
  const auto start = std::chrono::steady_clock::now();
  ASSIGN_OR_RETURN(Problem problem, ReadProblem(path));
  const double read_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  SolveOptions so;
  so.time_limit_s = std::max(0.0, options.time_limit_s - read_s - kOutputReserveS);
  so.work_limit = options.work_limit;
  so.seed = options.seed;
  so.threads = options.threads > 0 ? options.threads
                                   : std::max(1u, std::thread::hardware_concurrency());
  const bool progress = !options.quiet && isatty(fileno(err));
  if (progress) {
    so.progress = [err](const SolveProgress& p) {
      if (p.has_solution) {
        PrintProgressLine(err, "spmdc solve", p.elapsed_s, "cost " + Int128ToString(p.cost),
                          Int128ToString(p.lower_bound), GapText(p.cost, p.lower_bound));
      } else {
        PrintProgressLine(err, "spmdc solve", p.elapsed_s, "no assignment within the limit yet");
      }
    };
  }
  if (!options.quiet) {
    std::fprintf(err, "spmdc solve: %s: %zu nodes, %zu edges, read in %.1f s\n",
                 problem.name.empty() ? path.c_str() : problem.name.c_str(), problem.nodes.size(),
                 problem.edges.size(), read_s);
  }
  ASSIGN_OR_RETURN(SolveResult result, Solve(problem, so));
  RETURN_IF_ERROR(WriteSolutionLine(out, result.solution));
  if (!options.quiet) {
    const double total_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(err, "spmdc solve: presolve: %s\n", result.presolve.ToString().c_str());
    std::fprintf(err, "spmdc solve: cost %s  lower bound %s  gap %s%s  (%s)  %.1f s\n",
                 Int128ToString(result.cost).c_str(), Int128ToString(result.lower_bound).c_str(),
                 GapText(result.cost, result.lower_bound).c_str(),
                 result.optimal ? ", optimal" : "", result.bound_method.c_str(), total_s);
  }
  return result;
}

}  // namespace spmdc::autoshard

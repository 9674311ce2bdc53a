// spmdc solve PROBLEM.json [--time-limit S]: the IOPDDL contest problem (src/auto): the solution
// vector as the last stdout line, cost, lower bound and gap on stderr.
#include "auto/solve_command.h"
#include "commands.h"

namespace spmdc::cli {

Command AddSolveCommand(CLI::App& root) {
  CLI::App* app = root.add_subcommand(
      "solve", "IOPDDL problem (plain or gzip JSON); last stdout line [s0, s1, ...]");
  struct Args {
    std::string path;
    autoshard::SolveCommandOptions options;
  };
  auto args = std::make_shared<Args>();
  app->add_option("PROBLEM", args->path, "the problem file")->required();
  app->add_option("--time-limit", args->options.time_limit_s,
                  "seconds, reading included (default 60)")
      ->check(CLI::Range(0.0, 1e7));
  app->add_option("--threads", args->options.threads, "search threads (0: one per core)")
      ->check(CLI::Range(0, 1024));
  app->add_option("--seed", args->options.seed, "search seed");
  app->add_option("--work-limit", args->options.work_limit,
                  "per-thread work budget (deterministic results; 0: none)")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 62));
  app->add_flag("--quiet", args->options.quiet, "no summary or progress on stderr");
  return {app, [args]() -> Status {
            return autoshard::RunSolve(args->path, args->options).status();
          }};
}

}  // namespace spmdc::cli

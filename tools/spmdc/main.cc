// spmdc command-line tool. The contract (commands, flags, outputs, exit codes) is DESIGN.md's
// "The command-line contract"; extend it, never break it. The flags are CLI11 options: every
// command has --help, and a malformed command line (unknown option, missing or ill-typed value)
// is a usage error, exit 2, naming the option.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <new>
#include <string>
#include <vector>

#include "commands.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "support/check.h"

namespace spmdc::cli {
namespace {

constexpr char kFooter[] =
    "IN may be '-' for standard input. Every command that takes a module also accepts --mesh and\n"
    "--shard NAME=SPEC (repeatable). 'spmdc COMMAND --help' lists a command's options.\n"
    "Exit codes: 0 ok, 1 verification mismatch, 2 bad input or usage, 3 unsupported.";

constexpr char kCommandFooter[] =
    "IN may be '-' for standard input. Exit codes: 0 ok, 1 verification mismatch,\n"
    "2 bad input or usage, 3 unsupported.";

int Main(int argc, char** argv) {
  CLI::App app("spmdc: an automatic SPMD partitioner for XLA HLO modules (the GSPMD system)",
               "spmdc");
  // Set before the subcommands exist: they copy these. A flag given twice keeps its last value
  // (--shard collects every occurrence).
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.get_formatter()->column_width(36);
  app.require_subcommand(1);
  app.footer(kFooter);
  std::vector<Command> commands = {
      AddCheckCommand(app),   AddPrintCommand(app),     AddPropagateCommand(app),
      AddExplainCommand(app), AddPartitionCommand(app), AddCompileCommand(app),
      AddRunCommand(app),     AddVerifyCommand(app),    AddReportCommand(app),
      AddExampleCommand(app), AddCalibrateCommand(app),   AddSolveCommand(app),
      AddAutoCommand(app),    AddPipelineCommand(app),
  };
  for (Command& c : commands) c.app->footer(kCommandFooter);

  // `spmdc` alone prints the command list as a usage error; `spmdc help [COMMAND]` is --help.
  if (argc < 2) {
    std::fputs(app.help().c_str(), stderr);
    return kExitBadInput;
  }
  std::vector<std::string> words(argv + 1, argv + argc);
  if (words[0] == "help") {
    words.erase(words.begin());
    words.push_back("--help");
  }
  if (!words.empty() && !words[0].empty() && words[0][0] != '-' &&
      std::none_of(commands.begin(), commands.end(),
                   [&](const Command& c) { return c.app->get_name() == words[0]; })) {
    std::fprintf(stderr, "spmdc: error: unknown command '%s'\n%s", words[0].c_str(),
                 app.help().c_str());
    return kExitBadInput;
  }
  std::reverse(words.begin(), words.end());  // CLI11 takes the arguments last first
  try {
    app.parse(words);
  } catch (const CLI::CallForHelp&) {
    std::fputs(app.help().c_str(), stdout);
    return kExitOk;
  } catch (const CLI::CallForAllHelp&) {
    std::fputs(app.help("", CLI::AppFormatMode::All).c_str(), stdout);
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    std::vector<CLI::App*> selected = app.get_subcommands();
    std::string command = selected.empty() ? "" : " " + selected.front()->get_name();
    std::string message = e.what();
    if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
      // CLI11 2.1 lists the extra words last first; name them in command-line order.
      std::vector<std::string> extra = app.remaining(/*recurse=*/true);
      message = fmt::format("unexpected argument{}: {}", extra.size() > 1 ? "s" : "",
                            fmt::join(extra, " "));
    }
    std::fprintf(stderr, "spmdc%s: error: %s\nrun 'spmdc%s --help' for usage\n", command.c_str(),
                 message.c_str(), command.c_str());
    return kExitBadInput;
  }
  for (Command& c : commands) {
    if (!c.app->parsed()) continue;
    Status s;
    try {
      s = c.run();
    } catch (const InternalError& e) {
      s = absl::InternalError(e.what());
    } catch (const std::bad_alloc&) {
      // What the estimate of run/verify (memory_guard.h) did not foresee, or a command it does
      // not cover: still a clean refusal, exit 3.
      s = absl::ResourceExhaustedError(
          "out of memory: the module's values do not fit this machine's memory");
    }
    return s.ok() ? kExitOk : Report(s);
  }
  return Report(Internal("no command ran"));
}

}  // namespace
}  // namespace spmdc::cli

int main(int argc, char** argv) { return spmdc::cli::Main(argc, argv); }

// The spmdc commands, one file each (cmd_<name>.cc). Each adds its CLI11 subcommand to the root
// app, with the shared option groups of options.h and its own options, and returns what runs
// once the command line has parsed. main.cc lists them in the order help shows them.
#pragma once

#include "cli.h"
#include "options.h"

namespace spmdc::cli {

Command AddCheckCommand(CLI::App& root);
Command AddPrintCommand(CLI::App& root);
Command AddPropagateCommand(CLI::App& root);
Command AddExplainCommand(CLI::App& root);
Command AddPartitionCommand(CLI::App& root);
Command AddCompileCommand(CLI::App& root);
Command AddRunCommand(CLI::App& root);
Command AddVerifyCommand(CLI::App& root);
Command AddReportCommand(CLI::App& root);
Command AddExampleCommand(CLI::App& root);
Command AddCalibrateCommand(CLI::App& root);
Command AddSolveCommand(CLI::App& root);
Command AddAutoCommand(CLI::App& root);
Command AddPipelineCommand(CLI::App& root);

}  // namespace spmdc::cli

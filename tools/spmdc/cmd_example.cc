// spmdc example NAME [-o OUT]: an example model's training step as HLO text (the table of
// src/models/examples.h, shared with the benchmarks and tests).
#include "commands.h"
#include "models/examples.h"

namespace spmdc::cli {

Command AddExampleCommand(CLI::App& root) {
  CLI::App* app = root.add_subcommand("example", "emit an example model module (" + ExampleNames() + ")");
  struct Args {
    std::string name;
    std::string out;
  };
  auto args = std::make_shared<Args>();
  std::vector<std::string> names;
  for (const ExampleModel& m : ExampleModels()) names.push_back(m.name);
  app->add_option("NAME", args->name, "the example")->required()->check(OneOf(names));
  AddOutput(app, args->out);
  return {app, [args]() -> Status {
            std::optional<std::string> text = BuildExample(args->name);
            if (!text) return InvalidArgument("unknown example '{}'; known: {}", args->name, ExampleNames());
            return WriteOutput(args->out, *text);
          }};
}

}  // namespace spmdc::cli

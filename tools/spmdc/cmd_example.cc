// spmdc example NAME [-o OUT]: an example model's training step as HLO text (src/models).
#include "commands.h"
#include "models/models.h"

namespace spmdc::cli {

namespace {

// The example names, in the order help lists them.
const std::vector<std::string>& ExampleNames() {
  static const std::vector<std::string> names = {"mlp",
                                                 "mlp-2d",
                                                 "transformer",
                                                 "transformer-dp",
                                                 "transformer-tp",
                                                 "transformer-2d",
                                                 "transformer-large"};
  return names;
}

std::string BuildExample(const std::string& name) {
  // Small transformer: B=4 S=16 D=64 H=4 F=256 L=2, softmax cross-entropy over 32 classes.
  TransformerOptions transformer;
  transformer.vocab = 32;
  if (name == "mlp") return BuildMlpTrainingStep(MlpOptions{});
  if (name == "mlp-2d") {
    MlpOptions o;
    o.parallel.data = 2;
    o.parallel.model = 4;
    return BuildMlpTrainingStep(o);
  }
  if (name == "transformer-dp") transformer.parallel.data = 4;
  if (name == "transformer-tp") transformer.parallel.model = 4;
  if (name == "transformer-2d") {
    transformer.parallel.data = 2;
    transformer.parallel.model = 4;
  }
  if (name == "transformer-large")
    return BuildTransformerTrainingStep(TransformerOptionsForInstructionCount(100000, transformer));
  return BuildTransformerTrainingStep(transformer);
}

}  // namespace

Command AddExampleCommand(CLI::App& root) {
  CLI::App* app = root.add_subcommand("example", "emit an example model module");
  struct Args {
    std::string name;
    std::string out;
  };
  auto args = std::make_shared<Args>();
  app->add_option("NAME", args->name, "the example")->required()->check(OneOf(ExampleNames()));
  AddOutput(app, args->out);
  return {app, [args]() -> Status { return WriteOutput(args->out, BuildExample(args->name)); }};
}

}  // namespace spmdc::cli

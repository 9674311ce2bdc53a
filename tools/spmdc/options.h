// The option groups that several spmdc commands share, defined once on CLI11: the input module
// with its --mesh/--shard annotations, --num-partitions, the propagation switches, -o, and the
// validators that turn a bad value into a usage error (exit 2) naming the option and the value.
// Each command (cmd_<name>.cc) adds the groups it takes to its own CLI11 subcommand.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/module.h"
#include "passes/passes.h"
#include "propagation/propagation.h"
#include "support/status.h"
#include "support/timing.h"

namespace spmdc::cli {

// A command: its CLI11 subcommand and what runs once the command line has parsed.
struct Command {
  CLI::App* app = nullptr;
  std::function<Status()> run;
};

// IN (a path, or '-' for standard input) and the annotations applied to it before any pass.
struct ModuleArgs {
  std::string input;
  std::optional<std::string> mesh;  // --mesh data=2,model=4
  std::vector<std::string> shards;  // --shard NAME=SPEC, repeatable
};
void AddModuleArgs(CLI::App* app, ModuleArgs& args);

// --num-partitions N (1 <= N <= 2^20). Absent: the module's num_partitions where it sets one.
void AddNumPartitions(CLI::App* app, std::optional<int64_t>& n);
// The device count of a command that needs one: --num-partitions, else the module's own.
StatusOr<int64_t> NumPartitionsOf(const std::optional<int64_t>& flag, const Module& module);

// --replicate-custom-partitioning (partition, compile, run, verify).
void AddReplicateCustomPartitioning(CLI::App* app, bool& replicate);

// --shard-weight-update[=gather|keep-sharded] and --weight-update-axis AXIS (compile, run,
// verify, report): partitioner/weight_update.h, applied after propagation.
struct WeightUpdateArgs {
  std::string mode;  // "" (off), "gather" or "keep-sharded"
  std::string axis;  // "": "data" when the mesh has it, else the mesh's only axis
};
void AddWeightUpdateArgs(CLI::App* app, WeightUpdateArgs& args);

// The values --calls takes (propagating.h).
const std::vector<std::string>& CallModes();

// --propagate-to-output, --propagate-to-parameters, --calls; with `rule_choices` also --no-spmd
// and --cse-prevention-only (propagate, explain).
struct PropagationArgs {
  bool to_output = false;
  bool to_parameters = false;
  bool no_spmd = false;
  bool cse_prevention_only = false;
  std::string calls = "inline";  // --calls, one of CallModes()
  // These two are defined in propagating.cc (shared with the Python binding).
  PropagationOptions ToOptions() const;
  // What every command that propagates runs: PrepareForPropagation (propagating.h), then
  // PropagateShardings.
  Status Propagate(Module& module, Provenance* provenance = nullptr,
                   InlinedNames* renamed = nullptr, PhaseTimes* times = nullptr) const;
};
void AddPropagationArgs(CLI::App* app, PropagationArgs& args, bool rule_choices = false);

// -o OUT (also --output); empty or '-' is standard output.
void AddOutput(CLI::App* app, std::string& path);

// --seed S, an unsigned 64-bit integer (default 0).
void AddSeed(CLI::App* app, uint64_t& seed);

// Reads, parses and verifies IN, sets num_partitions from `num_partitions` (when given: the
// module's own shardings are validated against it so that a misfit names their line), then
// applies --mesh and --shard. With `times`: "read", LoadModule's phases, "annotate".
StatusOr<std::unique_ptr<Module>> LoadAnnotated(const ModuleArgs& args,
                                                const std::optional<int64_t>& num_partitions,
                                                PhaseTimes* times = nullptr);

// --- Validators (checked on the text, before conversion; the message follows "--flag: ") ------

// An integer in [lo, hi].
CLI::Validator IntegerIn(int64_t lo, int64_t hi);
// An unsigned decimal integer that fits 64 bits.
CLI::Validator UnsignedInteger();
// One of `choices`.
CLI::Validator OneOf(std::vector<std::string> choices);
// A byte count: a number with an optional unit, B, KiB/MiB/GiB/TiB (powers of 1024; K, M, G and
// T mean the same) or KB/MB/GB/TB (powers of 1000): "4GiB", "512M", "1.5GB", "1000000". It
// rewrites the value to the number of bytes, so that the option can bind an integer.
CLI::Validator ByteSize();
// The bytes `text` means, or nullopt when ByteSize() would refuse it.
std::optional<int64_t> ParseByteSize(const std::string& text);

}  // namespace spmdc::cli

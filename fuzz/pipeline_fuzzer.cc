// libFuzzer target: parse -> verify -> propagate -> partition -> clean up, on small modules, as
// `spmdc partition` and `spmdc compile` run them.
//
// The input is HLO text. The device count is read from a `--num-partitions N` in the text (the
// lit files' RUN comment lines carry one, and the parser skips comments), else the module
// header's num_partitions, else 4; `--propagate-to-output` / `--propagate-to-parameters` in the
// text set those options. Each input is partitioned as annotated and again after propagation.
//
// Work per input is bounded so that one execution takes milliseconds: at most kMaxInstructions
// instructions over all computations, kMaxElements elements per array (tuple leaves included)
// and kMaxPartitions devices; larger inputs are skipped (they test size, not logic).
//
// Properties checked (each violation aborts, so libFuzzer keeps the input):
//   * no crash, sanitizer report, CHECK failure or non-clean Status at any stage;
//   * propagation only assigns shardings that are valid for the device count;
//   * the partitioned, cleaned-up module passes the verifier.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "fuzz_common.h"
#include "hlo/parser.h"
#include "hlo/printer.h"
#include "ir/verifier.h"
#include "partitioner/partitioner.h"
#include "propagation/propagation.h"
#include "sharding/validation.h"

using namespace spmdc;

namespace {

constexpr int64_t kMaxInstructions = 64;
constexpr int64_t kMaxElements = 4096;
constexpr int64_t kMaxPartitions = 8;

// Whether every array in `shape` has at most kMaxElements elements (dims checked one by one so
// that the product cannot overflow). Unbounded dynamic dims (-1) count as 1.
bool SmallShape(const Shape& shape) {
  if (shape.IsTuple()) {
    if (shape.tuple_size() > kMaxInstructions) return false;
    for (const Shape& s : shape.tuple_shapes())
      if (!SmallShape(s)) return false;
    return true;
  }
  if (!shape.IsArray()) return true;
  int64_t n = 1;
  for (int64_t d : shape.dims()) {
    if (d > kMaxElements) return false;
    if (d > 0) n *= d;
    if (n > kMaxElements) return false;
  }
  return true;
}

bool SmallModule(const Module& module) {
  int64_t count = 0;
  for (const Computation* c : module.computations()) {
    for (const Instruction* instr : c->instructions()) {
      if (++count > kMaxInstructions) return false;
      if (!SmallShape(instr->shape())) return false;
    }
  }
  return true;
}

// The integer after `flag` in `text` (the first occurrence), or `fallback`.
int64_t FlagValue(std::string_view text, std::string_view flag, int64_t fallback) {
  const size_t at = text.find(flag);
  if (at == std::string_view::npos) return fallback;
  int64_t value = 0;
  size_t i = at + flag.size();
  while (i < text.size() && text[i] == ' ') ++i;
  const size_t digits = i;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9' && i - digits < 6; ++i)
    value = value * 10 + (text[i] - '0');
  return i == digits ? fallback : value;
}

void CheckPartitioned(const StatusOr<PartitionResult>& result, const char* stage) {
  if (!fuzz::CheckClean(result.status(), stage)) return;
  VerifierOptions options;
  if (Status s = VerifyModule(*result->module, nullptr, options); !s.ok())
    fuzz::Fail(std::string(stage) + ": the partitioned module does not verify",
               s.ToString() + "\n" + PrintModule(*result->module));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = ParseHloModule(text, "<fuzz>", fuzz::FuzzParseOptions());
  if (!fuzz::CheckClean(parsed.status(), "parse")) return 0;
  Module& module = **parsed;
  const DiagnosticSource source{"<fuzz>", text};
  if (!fuzz::CheckClean(VerifyModule(module, &source), "verify")) return 0;
  if (!SmallModule(module)) return 0;

  const int64_t header_n = module.num_partitions() > 1 ? module.num_partitions() : 4;
  const int64_t n = FlagValue(text, "--num-partitions", header_n);
  if (n < 1 || n > kMaxPartitions) return 0;
  if (module.num_partitions() > 1 && module.num_partitions() != n) return 0;  // the CLI refuses it
  module.set_num_partitions(n);
  // As the CLI's loader: collectives' groups checked again against the device count given.
  if (!fuzz::CheckClean(VerifyModule(module, &source), "verify for the device count")) return 0;
  if (!fuzz::CheckClean(VerifyModuleShardings(module, &source, n), "verify shardings")) return 0;

  // As annotated (`spmdc partition`).
  CheckPartitioned(PartitionAndCleanUp(module, PartitionOptions{n}), "partition");

  // Propagated first (`spmdc compile`).
  PropagationOptions options;
  if (text.find("--propagate-to-output") != std::string_view::npos) options.allow_to_output = std::vector<bool>{true};
  if (text.find("--propagate-to-parameters") != std::string_view::npos)
    options.allow_to_parameters = std::vector<bool>{true};
  if (!fuzz::CheckClean(PropagateShardings(module, options).status(), "propagate")) return 0;
  if (Status s = VerifyModuleShardings(module, nullptr, n); !s.ok())
    fuzz::Fail("propagation assigned an invalid sharding", s.ToString() + "\n" + PrintModule(module));
  CheckPartitioned(PartitionAndCleanUp(module, PartitionOptions{n}), "compile");
  return 0;
}

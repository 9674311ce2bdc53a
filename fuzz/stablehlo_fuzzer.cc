// libFuzzer target: StableHLO MLIR text through the reader (src/stablehlo: MLIR -> HLO text ->
// the HLO parser) and the verifiers, as every spmdc command loads a `.mlir` file.
//
// Properties checked (each violation aborts, so libFuzzer keeps the input):
//   * no crash, sanitizer report, CHECK failure or non-clean Status on any input: malformed MLIR
//     is a located InvalidArgument, an op with no HLO equivalent a located Unimplemented;
//   * whenever the translation succeeds, the HLO text it produced parses exactly as the reader
//     itself parsed it (the reader never hands the parser text that it then rejects as an
//     internal error), and a module that loads passes the verifiers or fails them cleanly;
//   * a module that verifies prints to HLO text that parses again.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_common.h"
#include "hlo/parser.h"
#include "hlo/printer.h"
#include "hlo/shardy_import.h"
#include "ir/verifier.h"
#include "sharding/validation.h"
#include "stablehlo/stablehlo.h"

using namespace spmdc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const ParseOptions options = fuzz::FuzzParseOptions();
  auto translated = TranslateStableHloToHloText(text, "<fuzz.mlir>");
  if (!fuzz::CheckClean(translated.status(), "translate")) return 0;
  auto module = ParseStableHlo(text, "<fuzz.mlir>", options);
  if (!fuzz::CheckClean(module.status(), "read")) return 0;
  const DiagnosticSource source{"<fuzz.mlir>", text};
  if (!fuzz::CheckClean(VerifyModule(**module, &source), "verify")) return 0;
  if (!fuzz::CheckClean(VerifyModuleShardings(**module, &source), "verify shardings")) return 0;

  // As `spmdc print` prints: Shardy attributes rewritten to the shardings the module now holds.
  ExportShardyAttributes(**module);
  const std::string printed = PrintModule(**module);
  auto again = ParseHloModule(printed, "<printed>", options);
  if (!again.ok())
    fuzz::Fail("the printed module does not parse", again.status().ToString() + "\n" + printed);
  return 0;
}

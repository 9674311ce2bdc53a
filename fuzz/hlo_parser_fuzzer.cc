// libFuzzer target: HLO text through the parser and the verifiers, as `spmdc check` and
// `spmdc print` run them, and the printer's round trip (with `print`'s Shardy export) on every
// module that verifies.
//
// Properties checked (each violation aborts, so libFuzzer keeps the input):
//   * no crash, sanitizer report, CHECK failure or non-clean Status on any input;
//   * a module that verifies prints to text that parses and verifies again, and printing that
//     gives the same bytes (printer.h: "printing a parsed printed module gives the same bytes").
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

using namespace spmdc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const ParseOptions options = fuzz::FuzzParseOptions();
  auto module = ParseHloModule(text, "<fuzz>", options);
  if (!fuzz::CheckClean(module.status(), "parse")) return 0;
  const DiagnosticSource source{"<fuzz>", text};
  if (!fuzz::CheckClean(VerifyModule(**module, &source), "verify")) return 0;
  if (!fuzz::CheckClean(VerifyModuleShardings(**module, &source), "verify shardings")) return 0;

  // As `spmdc print` prints: Shardy attributes rewritten to the shardings the module now holds.
  ExportShardyAttributes(**module);
  const std::string printed = PrintModule(**module);
  auto again = ParseHloModule(printed, "<printed>", options);
  if (!again.ok()) fuzz::Fail("the printed module does not parse", again.status().ToString() + "\n" + printed);
  const DiagnosticSource printed_source{"<printed>", printed};
  if (Status s = VerifyModule(**again, &printed_source); !s.ok())
    fuzz::Fail("the printed module does not verify", s.ToString() + "\n" + printed);
  const std::string reprinted = PrintModule(**again);
  if (reprinted != printed)
    fuzz::Fail("printing is not a fixpoint", "first:\n" + printed + "\nsecond:\n" + reprinted);
  return 0;
}

// libFuzzer target: the text of `sharding={...}` values (classic and mesh-based forms).
//
// Properties checked (each violation aborts, so libFuzzer keeps the input):
//   * no crash, sanitizer report or CHECK failure; a rejection is InvalidArgument with a message
//     and an error offset inside the text;
//   * a parsed sharding prints (ToString) to text that parses to an equal Sharding (operator== is
//     semantic, sharding.h), and printing that gives the same bytes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_common.h"
#include "sharding/sharding.h"
#include "sharding/sharding_text.h"

using namespace spmdc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  size_t error_offset = 0;
  auto sharding = ParseSharding(text, &error_offset);
  if (!sharding.ok()) {
    if (sharding.status().code() != absl::StatusCode::kInvalidArgument ||
        sharding.status().message().empty())
      fuzz::Fail("not a clean rejection", sharding.status().ToString());
    if (error_offset > size)
      fuzz::Fail("error offset past the end of the text", std::to_string(error_offset));
    return 0;
  }
  const std::string printed = sharding->ToString();
  auto again = ParseSharding(printed);
  if (!again.ok()) fuzz::Fail("the printed sharding does not parse", again.status().ToString() + "\n" + printed);
  if (!(*again == *sharding))
    fuzz::Fail("the printed sharding parses to a different value", printed + "\nreprinted: " + again->ToString());
  if (again->ToString() != printed)
    fuzz::Fail("printing is not a fixpoint", printed + "\nreprinted: " + again->ToString());
  return 0;
}

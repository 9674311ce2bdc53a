// Module -> HLO text, canonical: printing a parsed printed module gives the same bytes, and
// XLA's parser accepts the output.
#pragma once

#include <string>

#include "ir/module.h"

namespace spmdc {

struct PrintOptions {
  bool print_layouts = true;    // layouts that are present are printed
  bool print_metadata = true;   // metadata={...}
  bool print_shardings = true;  // sharding={...}
};

std::string PrintModule(const Module& module, const PrintOptions& options = {});
std::string PrintComputation(const Computation& computation, const PrintOptions& options = {});
std::string PrintInstruction(const Instruction& instr, const PrintOptions& options = {});

}  // namespace spmdc

// The state a training step hands to the next one: which of the entry's outputs is the next
// step's value of which entry parameter (a weight and its update, an optimizer moment, a step
// count). A plan that splits such an output unlike its parameter makes every following step
// reshard it before it runs (or, for a donated buffer, copy it), a cost of the plan that no single
// step's program shows. `spmdc auto` prices it: the strategy space has an edge from the output's
// node to the parameter's (the reshard the next step needs), and PricePlan adds what the
// partitioner emits for those reshards to the plan's step time (plan.h).
//
// Which output carries which parameter:
// - the module's `input_output_alias` (JAX's donated arguments: `{k}: (p, {}, may-alias)`), when
//   it has one: exactly its array entries, nothing else;
// - otherwise, found from the data flow: output k carries parameter p when both have the same
//   dims and element type and p is the closest such parameter that k's value reaches backwards
//   through elementwise ops of those dims (w - lr * g reaches w in one step, Adam's moment
//   b1 * m + (1 - b1) * g reaches m in two, the weight w in none); a tie between two parameters
//   is no pairing (the output is not clearly either's next value).
#pragma once

#include <cstdint>
#include <vector>

#include "ir/module.h"

namespace spmdc::autoshard {

struct CarriedValue {
  int64_t parameter = 0;  // entry parameter number (an array)
  int64_t output = 0;     // index in the entry's result tuple (-1: the result is that array)
  bool aliased = false;   // named by input_output_alias
};

// In output order. Tuple-shaped parameters and outputs are not paired.
std::vector<CarriedValue> FindCarriedValues(const Module& module);

}  // namespace spmdc::autoshard

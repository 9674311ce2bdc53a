// The reference interpreter: executes a Module on one device, exactly (XLA semantics), for every
// opcode whose meaning does not depend on the host. Collectives, partition-id and replica-id go
// through a DeviceContext, so the SPMD runtime reuses this interpreter per device.
//
// Values are Literals; reshape, bitcast, get-tuple-element, tuple, copy-free ops share buffers.
#pragma once

#include <memory>
#include <vector>

#include "interpreter/device_context.h"
#include "ir/module.h"
#include "support/status.h"

namespace spmdc {

struct InterpreterOptions {
  // Refuse to allocate any single value larger than this (a clear error, not an OOM kill).
  int64_t max_value_bytes = int64_t{16} << 30;
  // Threads a kernel (dot/conv) may use. The SPMD runtime sets it so that
  // devices x intra-op threads never exceed the machine's cores.
  int intra_op_threads = 0;  // 0: all cores
};

// Runs the entry computation of `module` on `args` (one literal per entry parameter).
// Errors: InvalidArgument for wrong arguments, Unimplemented (exit 3) for opcodes that cannot be
// executed here (infeed/outfeed, send/recv, rng, opaque custom calls), naming the opcode.
StatusOr<Literal> Execute(const Module& module, const std::vector<Literal>& args,
                          DeviceContext* device = nullptr, const InterpreterOptions& options = {});

// Runs one computation of `module` (used for called computations and by tests).
StatusOr<Literal> ExecuteComputation(const Computation& computation,
                                     const std::vector<Literal>& args, DeviceContext* device,
                                     const InterpreterOptions& options = {});

}  // namespace spmdc

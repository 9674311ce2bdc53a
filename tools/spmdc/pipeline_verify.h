// Verifying a pipelined program (src/pipeline) against its source, shared by `spmdc pipeline
// --verify` and `spmdc auto --pipeline --verify`.
#pragma once

#include <cstdint>

#include "ir/module.h"
#include "pipeline/pipeline.h"
#include "support/status.h"

namespace spmdc::cli {

// Runs `source` on one device (the interpreter) and `result`'s program, propagated and
// partitioned, on `n` in-process devices, on the same random inputs (stacked where the program
// stacks them); compares every output as `spmdc verify` does and prints one summary line.
// Aborted (exit 1) on a mismatch.
Status VerifyPipelined(const Module& source, const pipeline::PipelineResult& result, int64_t n, uint64_t seed);

}  // namespace spmdc::cli

// `spmdc report`: per-device memory, FLOPs, communication and step time of a module under a
// hardware profile (src/cost), as text or JSON (schema in README.md, "spmdc report").
#pragma once

#include <memory>
#include <vector>

#include "cli.h"
#include "propagation/propagation.h"

namespace spmdc::cli {

// Flags of `report` besides --mesh/--shard and the propagation switches.
std::vector<FlagSpec> ReportFlags();
// `module` is loaded and annotated, with num_partitions = n. Unless --partitioned it is
// propagated (with `propagation`) and partitioned first, as `compile` does.
Status RunReport(const Args& args, std::unique_ptr<Module> module, int64_t n,
                 const PropagationOptions& propagation);

}  // namespace spmdc::cli

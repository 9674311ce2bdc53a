// `spmdc report`: per-device memory, FLOPs, communication and step time of a module under a
// hardware profile (src/cost), as text or JSON (schema in README.md, "spmdc report").
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/module.h"
#include "options.h"
#include "propagation/propagation.h"
#include "support/status.h"

namespace spmdc::cli {

// The values --format accepts; RunReport writes each.
const std::vector<std::string>& ReportFormats();

// What `report` takes besides the module (its command line: cmd_report.cc).
struct ReportOptions {
  std::optional<std::string> mesh;      // --mesh: collectives are described on it
  std::string hardware = "h100";        // a profile name or a .json path
  std::string hardware_dir;             // searched first for NAME.json
  std::string format = "text";          // one of ReportFormats()
  std::string out;                      // -o; empty: stdout
  bool partitioned = false;             // the module already is a per-device program
  PropagationArgs propagation;          // --calls, --propagate-to-*
  WeightUpdateArgs weight_update;       // --shard-weight-update, after propagation
};
// `module` is loaded and annotated, with num_partitions = n. Unless options.partitioned it is
// propagated and partitioned first, as `compile` does.
// The report of `module` in options.format (options.out is not used): what RunReport writes, and
// what the Python package's Module.report() returns (JSON).
StatusOr<std::string> RenderReport(const ReportOptions& options, std::unique_ptr<Module> module,
                                   int64_t n);
Status RunReport(const ReportOptions& options, std::unique_ptr<Module> module, int64_t n);

}  // namespace spmdc::cli

// What `spmdc report` shows, computed once and rendered three ways (text and JSON in
// report.cc, HTML in report_html.cc): the cost model's report of the per-device program plus the
// annotated program it came from (its shardings draw the device grids), the hardware profile
// and the mesh collectives are described on. Also the summaries every format shares.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cost/cost.h"
#include "ir/module.h"
#include "sharding/mesh.h"

namespace spmdc::cli {

struct ReportData {
  // The propagated one-device program (null with --partitioned: only the per-device program
  // is known, so there are no global shardings to draw).
  const Module* annotated = nullptr;
  const Module* per_device = nullptr;
  CostReport cost;  // of *per_device; warnings include the partitioner's and the replicated ones
  HardwareProfile hardware;
  std::optional<Mesh> mesh;
};

// Collectives summed by kind and mesh axes (over executions: loop bodies count every trip).
struct KindAxis {
  std::string kind, axes;
  std::vector<std::string> mesh_axes;
  int64_t count = 0, bytes = 0, wire = 0;
  double seconds = 0;
};
std::vector<KindAxis> ByKindAndAxis(const std::vector<CollectiveCost>& collectives);

// The `n` collectives of largest total time (executions included), ties by wire bytes.
std::vector<const CollectiveCost*> Costliest(const std::vector<CollectiveCost>& collectives, size_t n);

// "1.50 GiB", "12 B".
std::string FormatBytes(double bytes);
// "3.20 ms", "15.0 ns", "0 s".
std::string FormatSeconds(double seconds);

}  // namespace spmdc::cli

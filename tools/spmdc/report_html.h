// `spmdc report --format html`: the report as one self-contained page (inline CSS, SVG and a
// few lines of JS to sort tables; nothing fetched from the network), for people deciding how to
// shard a model:
//   - summary: peak memory and whether it fits, step time, MFU, FLOPs, communication;
//   - sharding diagrams: for the entry parameters, the outputs and the largest values, the
//     device mesh drawn as a grid of cells, each coloured by which shard of the tensor that
//     device holds (one colour for a replicated tensor, groups of a colour for partial
//     replication); tensors with the same sharding share a diagram;
//   - memory over the schedule: live bytes per device while each entry instruction runs, the
//     peak marked, the values live at the peak in a table;
//   - collectives by kind and mesh axes, then every collective (costliest first) with the
//     user's op_name and source line; per-layer and per-opcode tables; warnings.
// Every name and op_name is HTML-escaped (JAX op_names contain `<lambda>`).
#pragma once

#include <string>
#include <string_view>

#include "report_data.h"

namespace spmdc::cli {

std::string ReportToHtml(const ReportData& data);

// `text` with & < > " ' escaped, for element content and quoted attribute values.
std::string HtmlEscape(std::string_view text);

}  // namespace spmdc::cli

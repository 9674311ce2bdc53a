#include "ir/stack_frames.h"

#include "fmt/format.h"

namespace spmdc {

std::vector<StackFrameIndex::Location> StackFrameIndex::ResolveStackFrame(int64_t frame_id) const {
  std::vector<Location> out;
  std::vector<bool> seen(frames.size(), false);
  const int64_t n = static_cast<int64_t>(frames.size());
  // frame_id is 1-based; a parent printed as p means frame p-1 (p == 1: none).
  while (frame_id >= 1 && frame_id <= n && !seen[frame_id - 1]) {
    seen[frame_id - 1] = true;
    const Frame& f = frames[frame_id - 1];
    if (f.file_location_id < 1 || f.file_location_id > static_cast<int64_t>(file_locations.size())) {
      break;
    }
    const FileLocation& fl = file_locations[f.file_location_id - 1];
    Location loc;
    if (fl.file_name_id >= 1 && fl.file_name_id <= static_cast<int64_t>(file_names.size())) {
      loc.file = file_names[fl.file_name_id - 1];
    }
    if (fl.function_name_id >= 1 &&
        fl.function_name_id <= static_cast<int64_t>(function_names.size())) {
      loc.function = function_names[fl.function_name_id - 1];
    }
    loc.line = fl.line;
    loc.end_line = fl.end_line;
    loc.column = fl.column;
    loc.end_column = fl.end_column;
    out.push_back(loc);
    frame_id = static_cast<int64_t>(f.parent_frame_id) - 1;
  }
  return out;
}

std::vector<StackFrameIndex::Defect> StackFrameIndex::Validate() const {
  std::vector<Defect> out;
  const int64_t files = file_names.size(), functions = function_names.size();
  const int64_t locations = file_locations.size(), n = frames.size();
  for (int64_t i = 0; i < locations; ++i) {
    const FileLocation& fl = file_locations[i];
    if (fl.file_name_id < 1 || fl.file_name_id > files) {
      out.push_back({Defect::kFileLocations, i + 1,
                     fmt::format("file location {}: file_name_id={} is out of range ({} file "
                                 "names)", i + 1, fl.file_name_id, files)});
    }
    if (fl.function_name_id < 1 || fl.function_name_id > functions) {
      out.push_back({Defect::kFileLocations, i + 1,
                     fmt::format("file location {}: function_name_id={} is out of range ({} "
                                 "function names)", i + 1, fl.function_name_id, functions)});
    }
  }
  // 0 = unvisited, 1 = on the current parent chain, 2 = known to reach the outermost frame or a
  // bad id (either way, finite).
  std::vector<uint8_t> state(n, 0);
  for (int64_t i = 0; i < n; ++i) {
    const Frame& f = frames[i];
    if (f.file_location_id < 1 || f.file_location_id > locations) {
      out.push_back({Defect::kStackFrames, i + 1,
                     fmt::format("stack frame {}: file_location_id={} is out of range ({} file "
                                 "locations)", i + 1, f.file_location_id, locations)});
    }
    if (f.parent_frame_id < 1 || f.parent_frame_id > n + 1) {
      out.push_back({Defect::kStackFrames, i + 1,
                     fmt::format("stack frame {}: parent_frame_id={} is out of range (1 for none, "
                                 "2 to {} for frames 1 to {})", i + 1, f.parent_frame_id, n + 1,
                                 n)});
    }
    if (state[i] != 0) continue;
    std::vector<int64_t> chain;
    int64_t k = i;
    while (k >= 0 && k < n && state[k] == 0) {
      state[k] = 1;
      chain.push_back(k);
      k = static_cast<int64_t>(frames[k].parent_frame_id) - 2;
    }
    if (k >= 0 && k < n && state[k] == 1) {
      out.push_back({Defect::kStackFrames, k + 1,
                     fmt::format("stack frame {}: its parent_frame_id chain is a cycle", k + 1)});
    }
    for (int64_t c : chain) state[c] = 2;
  }
  return out;
}

}  // namespace spmdc

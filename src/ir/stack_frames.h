// The module's stack-frame index (SHARDY.md §3.1): the FileNames / FunctionNames / FileLocations /
// StackFrames tables XLA prints between the module header and the first computation, which
// instruction metadata points into with `stack_frame_id=N` instead of source_file/source_line.
//
// The tables are kept exactly as written (ids as printed, 1-based; a frame's parent as printed,
// 1 = no parent, k >= 2 = frame k-1), so that printing gives back the same text. Nothing here
// trusts an id: ResolveStackFrame stops at the first id that is out of range or repeats (a
// cycle), and Validate lists every such defect. XLA drops bad or cyclic ids with a warning when
// it re-interns the tables; spmdc keeps them, warns at parse time, and never follows them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace spmdc {

struct StackFrameIndex {
  struct FileLocation {
    int32_t file_name_id = 0;      // 1-based into file_names
    int32_t function_name_id = 0;  // 1-based into function_names
    int32_t line = 0, end_line = 0, column = 0, end_column = 0;
  };
  struct Frame {
    int32_t file_location_id = 0;  // 1-based into file_locations
    int32_t parent_frame_id = 1;   // as printed: 1 = outermost, k >= 2 = frame k-1
  };
  std::vector<std::string> file_names;
  std::vector<std::string> function_names;
  std::vector<FileLocation> file_locations;
  std::vector<Frame> frames;

  // XLA prints (and so keeps) the tables only when there is at least one file name.
  bool empty() const { return file_names.empty(); }

  // One resolved frame of a stack: where the code is.
  struct Location {
    std::string_view file, function;
    int32_t line = 0, end_line = 0, column = 0, end_column = 0;
  };
  // The frames of stack `frame_id` (1-based, as in metadata stack_frame_id), innermost first,
  // stopping at the first invalid or repeated id. Empty when frame_id itself is invalid.
  std::vector<Location> ResolveStackFrame(int64_t frame_id) const;

  // Every bad id ("stack frame 3: file_location_id=9 is out of range (8 file locations)") and
  // every cycle of parents, with the table row it is about; empty when the tables are sound.
  struct Defect {
    enum Table { kFileLocations, kStackFrames } table;
    int64_t row;  // 1-based
    std::string message;
  };
  std::vector<Defect> Validate() const;
};

}  // namespace spmdc

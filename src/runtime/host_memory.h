// How much more memory this process may allocate before the kernel's OOM killer (or the
// cgroup's) ends it: the smaller of /proc/meminfo's MemAvailable and the headroom under the
// memory limit of the cgroup the process runs in. `run` and `verify` compare it with the cost
// model's estimate of what they will hold, and refuse up front instead of being killed.
//
// Cgroup v2: memory.max − memory.current under /sys/fs/cgroup/<path from /proc/self/cgroup>,
// the tightest over the path's ancestors (each level's limit applies). Cgroup v1: the memory
// controller's memory.limit_in_bytes (memory.stat's hierarchical_memory_limit) −
// memory.usage_in_bytes. In both, page cache the kernel drops before killing anything
// (inactive_file) counts as free, as MemAvailable counts it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace spmdc {

struct HostMemory {
  int64_t available_bytes = 0;               // min of what is known below
  std::optional<int64_t> meminfo_available;  // MemAvailable
  std::optional<int64_t> meminfo_total;      // MemTotal
  std::optional<int64_t> cgroup_limit;       // absent: no limit (or no cgroup found)
  std::optional<int64_t> cgroup_headroom;    // limit − usage + inactive_file
  std::string cgroup_dir;                    // the folder the limit was read from
};

// Reads /proc and /sys now (a few small files).
HostMemory QueryHostMemory();

// --- Parsers (exposed for tests) ---------------------------------------------------------------

// A /proc/meminfo field ("MemAvailable:  18046332 kB"), in bytes.
std::optional<int64_t> MeminfoField(std::string_view meminfo, std::string_view field);
// A cgroup memory limit file: "max" (v2) or a value of 2^62 or more (v1's "unlimited") -> nullopt.
std::optional<int64_t> CgroupLimit(std::string_view text);
// A "key value" line of a cgroup memory.stat file.
std::optional<int64_t> StatField(std::string_view stat, std::string_view key);
// The cgroup path of a controller in /proc/self/cgroup text: "memory" (v1), "" for the v2
// unified line ("0::/path"). nullopt when absent.
std::optional<std::string> CgroupPath(std::string_view proc_self_cgroup,
                                      std::string_view controller);

}  // namespace spmdc

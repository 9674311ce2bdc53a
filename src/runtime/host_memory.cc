#include "runtime/host_memory.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

namespace spmdc {
namespace {

std::optional<std::string> ReadSmallFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::optional<int64_t> ParseInt(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end == s.data()) return std::nullopt;
  return v;
}

// Calls f on each line of `text` (without its newline).
template <typename F>
void ForEachLine(std::string_view text, F&& f) {
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    f(line);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
}

// limit − (usage − inactive_file), clamped at 0.
int64_t Headroom(int64_t limit, int64_t usage, int64_t inactive_file) {
  return std::max<int64_t>(0, limit - std::max<int64_t>(0, usage - inactive_file));
}

}  // namespace

std::optional<int64_t> MeminfoField(std::string_view meminfo, std::string_view field) {
  std::optional<int64_t> out;
  ForEachLine(meminfo, [&](std::string_view line) {
    if (out || line.size() <= field.size() || line.substr(0, field.size()) != field ||
        line[field.size()] != ':')
      return;
    std::string_view rest = line.substr(field.size() + 1);
    std::optional<int64_t> v = ParseInt(rest);
    if (!v) return;
    const bool kb = rest.find("kB") != std::string_view::npos;
    out = kb ? *v * 1024 : *v;
  });
  return out;
}

std::optional<int64_t> CgroupLimit(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  if (text == "max") return std::nullopt;
  std::optional<int64_t> v = ParseInt(text);
  if (!v || *v >= (int64_t{1} << 62)) return std::nullopt;
  return v;
}

std::optional<int64_t> StatField(std::string_view stat, std::string_view key) {
  std::optional<int64_t> out;
  ForEachLine(stat, [&](std::string_view line) {
    if (out || line.size() <= key.size() || line.substr(0, key.size()) != key ||
        line[key.size()] != ' ')
      return;
    out = ParseInt(line.substr(key.size() + 1));
  });
  return out;
}

std::optional<std::string> CgroupPath(std::string_view proc_self_cgroup,
                                      std::string_view controller) {
  std::optional<std::string> out;
  ForEachLine(proc_self_cgroup, [&](std::string_view line) {
    // "ID:CONTROLLERS:PATH"; v2's unified line has no controllers ("0::/path").
    size_t a = line.find(':');
    if (out || a == std::string_view::npos) return;
    size_t b = line.find(':', a + 1);
    if (b == std::string_view::npos) return;
    std::string_view controllers = line.substr(a + 1, b - a - 1);
    std::string_view path = line.substr(b + 1);
    if (controller.empty()) {
      if (controllers.empty()) out = std::string(path);
      return;
    }
    while (!controllers.empty()) {
      size_t comma = controllers.find(',');
      if (controllers.substr(0, comma) == controller) {
        out = std::string(path);
        return;
      }
      if (comma == std::string_view::npos) break;
      controllers.remove_prefix(comma + 1);
    }
  });
  return out;
}

HostMemory QueryHostMemory() {
  HostMemory m;
  if (std::optional<std::string> meminfo = ReadSmallFile("/proc/meminfo")) {
    m.meminfo_available = MeminfoField(*meminfo, "MemAvailable");
    m.meminfo_total = MeminfoField(*meminfo, "MemTotal");
  }
  std::optional<std::string> cgroups = ReadSmallFile("/proc/self/cgroup");
  auto consider = [&](const std::string& dir, int64_t limit, int64_t headroom) {
    if (!m.cgroup_headroom || headroom < *m.cgroup_headroom) {
      m.cgroup_headroom = headroom;
      m.cgroup_limit = limit;
      m.cgroup_dir = dir;
    }
  };
  if (cgroups) {
    // v2: every level from the process's cgroup up to the root may carry a limit.
    if (std::optional<std::string> path = CgroupPath(*cgroups, "")) {
      std::filesystem::path dir =
          std::filesystem::path("/sys/fs/cgroup") / std::filesystem::path(*path).relative_path();
      for (;;) {
        std::optional<std::string> max = ReadSmallFile(dir.string() + "/memory.max");
        std::optional<std::string> current = ReadSmallFile(dir.string() + "/memory.current");
        if (max && current) {
          std::optional<int64_t> limit = CgroupLimit(*max);
          std::optional<int64_t> usage = ParseInt(*current);
          if (limit && usage) {
            std::optional<std::string> stat = ReadSmallFile(dir.string() + "/memory.stat");
            int64_t inactive = stat ? StatField(*stat, "inactive_file").value_or(0) : 0;
            consider(dir.string(), *limit, Headroom(*limit, *usage, inactive));
          }
        }
        if (dir == "/sys/fs/cgroup" || !dir.has_parent_path() || dir.parent_path() == dir) break;
        dir = dir.parent_path();
      }
    }
    // v1: the memory controller's limit, hierarchical (the tightest ancestor) in memory.stat.
    if (std::optional<std::string> path = CgroupPath(*cgroups, "memory")) {
      std::string dir = (std::filesystem::path("/sys/fs/cgroup/memory") /
                         std::filesystem::path(*path).relative_path())
                            .string();
      std::optional<std::string> stat = ReadSmallFile(dir + "/memory.stat");
      std::optional<std::string> usage_text = ReadSmallFile(dir + "/memory.usage_in_bytes");
      std::optional<std::string> limit_text = ReadSmallFile(dir + "/memory.limit_in_bytes");
      std::optional<int64_t> limit;
      if (limit_text) limit = CgroupLimit(*limit_text);
      if (stat) {
        if (std::optional<int64_t> h = StatField(*stat, "hierarchical_memory_limit");
            h && CgroupLimit(std::to_string(*h)))
          limit = limit ? std::min(*limit, *h) : *h;
      }
      std::optional<int64_t> usage = usage_text ? ParseInt(*usage_text) : std::nullopt;
      if (limit && usage) {
        int64_t inactive = stat ? StatField(*stat, "total_inactive_file").value_or(0) : 0;
        consider(dir, *limit, Headroom(*limit, *usage, inactive));
      }
    }
  }
  std::vector<int64_t> known;
  if (m.meminfo_available) known.push_back(*m.meminfo_available);
  if (m.cgroup_headroom) known.push_back(*m.cgroup_headroom);
  // Nothing readable (no /proc): no limit can be told, so none is imposed.
  m.available_bytes = known.empty() ? INT64_MAX : *std::min_element(known.begin(), known.end());
  return m;
}

}  // namespace spmdc

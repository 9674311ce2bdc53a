#include "report_data.h"

#include <algorithm>
#include <map>

#include "fmt/format.h"

namespace spmdc::cli {

std::string FormatBytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) {
    b /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{:.0f} B", b) : fmt::format("{:.2f} {}", b, units[u]);
}

std::string FormatSeconds(double s) {
  if (s == 0) return "0 s";
  if (s < 1e-6) return fmt::format("{:.1f} ns", s * 1e9);
  if (s < 1e-3) return fmt::format("{:.2f} us", s * 1e6);
  if (s < 1) return fmt::format("{:.2f} ms", s * 1e3);
  return fmt::format("{:.3f} s", s);
}

std::vector<KindAxis> ByKindAndAxis(const std::vector<CollectiveCost>& cs) {
  std::map<std::pair<std::string, std::string>, KindAxis> m;
  for (const CollectiveCost& c : cs) {
    KindAxis& k = m[{c.kind, c.axes}];
    k.kind = c.kind;
    k.axes = c.axes;
    k.mesh_axes = c.mesh_axes;
    k.count += c.executions;
    k.bytes += c.bytes_per_device * c.executions;
    k.wire += c.wire_bytes_per_device * c.executions;
    k.seconds += c.seconds * c.executions;
  }
  std::vector<KindAxis> v;
  for (auto& [key, k] : m) v.push_back(k);
  return v;
}

std::vector<const CollectiveCost*> Costliest(const std::vector<CollectiveCost>& cs, size_t n) {
  std::vector<const CollectiveCost*> v;
  for (const CollectiveCost& c : cs) v.push_back(&c);
  std::stable_sort(v.begin(), v.end(), [](const CollectiveCost* a, const CollectiveCost* b) {
    double ta = a->seconds * a->executions, tb = b->seconds * b->executions;
    if (ta != tb) return ta > tb;
    return a->wire_bytes_per_device * a->executions > b->wire_bytes_per_device * b->executions;
  });
  if (v.size() > n) v.resize(n);
  return v;
}

}  // namespace spmdc::cli

#include "cost/hardware.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "ir/opcode.h"
#include "nlohmann/json.hpp"

#ifndef SPMDC_SOURCE_HARDWARE_DIR
#define SPMDC_SOURCE_HARDWARE_DIR ""
#endif

namespace spmdc {
namespace {

using Json = nlohmann::json;

// A figure: {"value": number, "source": "text"}. The source is required: a number nobody can
// check does not belong in a profile.
StatusOr<double> Figure(const Json& parent, const std::string& key, std::string_view file,
                        std::string_view where) {
  auto it = parent.find(key);
  if (it == parent.end()) return InvalidArgument("{}: {} lacks \"{}\"", file, where, key);
  if (!it->is_object() || !it->contains("value") || !(*it)["value"].is_number())
    return InvalidArgument("{}: {}.{} must be {{\"value\": NUMBER, \"source\": \"...\"}}", file,
                           where, key);
  if (!it->contains("source") || !(*it)["source"].is_string() ||
      (*it)["source"].get<std::string>().empty())
    return InvalidArgument("{}: {}.{} has no \"source\" (cite where the figure comes from)", file,
                           where, key);
  double v = (*it)["value"].get<double>();
  if (!(v > 0)) return InvalidArgument("{}: {}.{} must be positive, got {}", file, where, key, v);
  return v;
}

std::string ExecutableDir() {
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  return exe.parent_path().string();
}

}  // namespace

double HardwareProfile::MatmulFlops(DType type) const {
  std::string_view key = DTypeName(type);
  if (auto it = matmul_flops.find(std::string(key)); it != matmul_flops.end()) return it->second;
  if (auto it = matmul_flops.find("f32"); it != matmul_flops.end()) return it->second;
  double best = 0;
  for (const auto& [k, v] : matmul_flops) best = std::max(best, v);
  return best;
}

double HardwareProfile::VectorFlops() const {
  return vector_flops ? *vector_flops : MatmulFlops(DType::kF32);
}

HardwareProfile::Link::Figures HardwareProfile::Link::FiguresFor(const std::string& kind) const {
  if (auto it = collectives.find(kind); it != collectives.end()) return it->second;
  return {bandwidth, latency};
}

const HardwareProfile::Link& HardwareProfile::LinkFor(
    const std::vector<std::vector<int64_t>>& groups) const {
  for (const Link& link : links) {
    if (link.domain_devices <= 0) return link;
    bool inside = true;
    for (const auto& g : groups) {
      for (int64_t d : g) inside &= d / link.domain_devices == g.front() / link.domain_devices;
      if (!inside) break;
    }
    if (inside) return link;
  }
  return links.back();
}

StatusOr<HardwareProfile> ParseHardwareProfile(std::string_view text, std::string_view file) {
  Json j = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    // Re-parse with exceptions for the position nlohmann reports.
    try {
      Json reparsed = Json::parse(text.begin(), text.end());
      (void)reparsed;
    } catch (const Json::parse_error& e) {
      return InvalidArgument("{}: invalid JSON: {}", file, e.what());
    }
    return InvalidArgument("{}: invalid JSON", file);
  }
  if (!j.is_object()) return InvalidArgument("{}: a hardware profile is a JSON object", file);
  HardwareProfile p;
  if (!j.contains("name") || !j["name"].is_string())
    return InvalidArgument("{}: the profile lacks a \"name\" string", file);
  p.name = j["name"].get<std::string>();
  if (j.contains("description") && j["description"].is_string())
    p.description = j["description"].get<std::string>();
  auto mm = j.find("matmul_flops_per_second");
  if (mm == j.end() || !mm->is_object() || mm->empty())
    return InvalidArgument("{}: \"matmul_flops_per_second\" must map dtypes to figures", file);
  for (auto it = mm->begin(); it != mm->end(); ++it) {
    if (!DTypeFromName(it.key()))
      return InvalidArgument("{}: matmul_flops_per_second: unknown dtype '{}'", file, it.key());
    ASSIGN_OR_RETURN(p.matmul_flops[it.key()], Figure(*mm, it.key(), file, "matmul_flops_per_second"));
  }
  if (j.contains("vector_flops_per_second")) {
    ASSIGN_OR_RETURN(p.vector_flops, Figure(j, "vector_flops_per_second", file, "profile"));
  }
  if (j.contains("transcendentals_per_second")) {
    ASSIGN_OR_RETURN(p.transcendental_rate, Figure(j, "transcendentals_per_second", file, "profile"));
  }
  if (j.contains("op_overhead_seconds")) {
    ASSIGN_OR_RETURN(p.op_overhead, Figure(j, "op_overhead_seconds", file, "profile"));
  }
  if (j.contains("dot_overhead_seconds")) {
    ASSIGN_OR_RETURN(p.dot_overhead, Figure(j, "dot_overhead_seconds", file, "profile"));
  }
  if (j.contains("matmul_half_size")) {
    ASSIGN_OR_RETURN(p.matmul_half_size, Figure(j, "matmul_half_size", file, "profile"));
  }
  if (j.contains("dot_setup_seconds")) {
    ASSIGN_OR_RETURN(p.dot_setup, Figure(j, "dot_setup_seconds", file, "profile"));
  }
  ASSIGN_OR_RETURN(p.hbm_bytes, Figure(j, "hbm_bytes", file, "profile"));
  ASSIGN_OR_RETURN(p.hbm_bandwidth, Figure(j, "hbm_bandwidth_bytes_per_second", file, "profile"));
  auto links = j.find("links");
  if (links == j.end() || !links->is_array() || links->empty())
    return InvalidArgument("{}: \"links\" must be a non-empty list", file);
  for (size_t k = 0; k < links->size(); ++k) {
    const Json& l = (*links)[k];
    std::string where = fmt::format("links[{}]", k);
    if (!l.is_object() || !l.contains("name") || !l["name"].is_string())
      return InvalidArgument("{}: {} lacks a \"name\"", file, where);
    HardwareProfile::Link link;
    link.name = l["name"].get<std::string>();
    if (l.contains("domain_devices")) {
      if (!l["domain_devices"].is_number_integer() || l["domain_devices"].get<int64_t>() < 0)
        return InvalidArgument("{}: {}.domain_devices must be an integer >= 0", file, where);
      link.domain_devices = l["domain_devices"].get<int64_t>();
    }
    ASSIGN_OR_RETURN(link.bandwidth, Figure(l, "bandwidth_bytes_per_second", file, where));
    ASSIGN_OR_RETURN(link.latency, Figure(l, "latency_seconds", file, where));
    if (l.contains("collectives")) {
      const Json& kinds = l["collectives"];
      if (!kinds.is_object())
        return InvalidArgument("{}: {}.collectives must map collective kinds to figures", file, where);
      for (auto it = kinds.begin(); it != kinds.end(); ++it) {
        std::optional<Opcode> op = OpcodeFromName(it.key());
        if (!op || !IsCollectiveOpcode(*op))
          return InvalidArgument("{}: {}.collectives: '{}' is not a collective", file, where, it.key());
        std::string at = fmt::format("{}.collectives.{}", where, it.key());
        if (!it->is_object()) return InvalidArgument("{}: {} must be an object", file, at);
        HardwareProfile::Link::Figures f;
        ASSIGN_OR_RETURN(f.bandwidth, Figure(*it, "bandwidth_bytes_per_second", file, at));
        ASSIGN_OR_RETURN(f.latency, Figure(*it, "latency_seconds", file, at));
        link.collectives[it.key()] = f;
      }
    }
    p.links.push_back(std::move(link));
  }
  if (p.links.back().domain_devices != 0)
    return InvalidArgument("{}: the last link must reach every device (domain_devices 0)", file);
  return p;
}

std::vector<std::string> HardwareSearchDirs(const std::string& extra_dir) {
  std::vector<std::string> dirs;
  if (!extra_dir.empty()) dirs.push_back(extra_dir);
  if (const char* env = std::getenv("SPMDC_HARDWARE_DIR"); env && *env) dirs.push_back(env);
  std::string exe = ExecutableDir();
  if (!exe.empty()) {
    dirs.push_back(exe + "/hardware");
    dirs.push_back(exe + "/../share/spmdc/hardware");
  }
  if (*SPMDC_SOURCE_HARDWARE_DIR) dirs.push_back(SPMDC_SOURCE_HARDWARE_DIR);
  return dirs;
}

std::vector<std::string> ListHardwareProfiles(const std::string& extra_dir) {
  std::set<std::string> names;
  for (const std::string& dir : HardwareSearchDirs(extra_dir)) {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
      if (e.path().extension() == ".json") names.insert(e.path().stem().string());
    }
  }
  return {names.begin(), names.end()};
}

StatusOr<HardwareProfile> LoadHardwareProfile(const std::string& name_or_path,
                                              const std::string& extra_dir) {
  std::string path;
  bool is_path = name_or_path.find('/') != std::string::npos ||
                 (name_or_path.size() > 5 && name_or_path.ends_with(".json"));
  if (is_path) {
    path = name_or_path;
  } else {
    for (const std::string& dir : HardwareSearchDirs(extra_dir)) {
      std::string candidate = dir + "/" + name_or_path + ".json";
      std::error_code ec;
      if (std::filesystem::is_regular_file(candidate, ec)) {
        path = candidate;
        break;
      }
    }
    if (path.empty()) {
      std::vector<std::string> known = ListHardwareProfiles(extra_dir);
      std::string hint = name_or_path == "cpu-local"
                             ? " (cpu-local is written by `spmdc calibrate`, which has not been run "
                               "on this machine)"
                             : "";
      return InvalidArgument("unknown hardware '{}'{}; known: {}", name_or_path, hint,
                             known.empty() ? "none found" : fmt::format("{}", fmt::join(known, ", ")));
    }
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidArgument("{}: cannot open hardware profile", path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSIGN_OR_RETURN(HardwareProfile p, ParseHardwareProfile(text, path));
  p.path = path;
  return p;
}

}  // namespace spmdc

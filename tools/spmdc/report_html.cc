#include "report_html.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "fmt/format.h"
#include "ir/computation.h"
#include "sharding/sharding.h"

namespace spmdc::cli {

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

namespace {

std::string E(std::string_view s) { return HtmlEscape(s); }

// Diagrams beyond these are summarised, so that a module with thousands of parameters still
// renders in a browser in well under a second.
constexpr size_t kMaxDiagrams = 24;
constexpr size_t kMaxTensorsListed = 12;
constexpr size_t kLargestValues = 8;
constexpr size_t kMaxCollectiveRows = 300;
constexpr size_t kMaxLayerRows = 200;
constexpr size_t kMaxPlotPoints = 1200;

const char* kStyle = R"css(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{background:#1f3a5f;color:#fff;padding:14px 24px}
header h1{margin:0;font-size:20px}
header p{margin:4px 0 0;opacity:.85}
nav{padding:6px 24px;background:#e6ebf2;position:sticky;top:0;z-index:1}
nav a{margin-right:14px;color:#1f3a5f;text-decoration:none;font-weight:600}
section{margin:18px 24px;padding:14px 18px;background:#fff;border:1px solid #dde2ea;border-radius:6px}
h2{margin:0 0 10px;font-size:17px;color:#1f3a5f}
h3{margin:14px 0 4px;font-size:14px}
.cards{display:flex;flex-wrap:wrap;gap:10px}
.card{border:1px solid #dde2ea;border-radius:6px;padding:8px 12px;min-width:150px;background:#fbfcfd}
.card b{display:block;font-size:18px}
.card.bad{border-color:#c0392b;background:#fdf0ee}
.card.good{border-color:#2e8b57}
table{border-collapse:collapse;margin:6px 0;font-size:13px}
th,td{border-bottom:1px solid #e3e7ee;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#eef2f7;cursor:pointer;user-select:none}
td.n{text-align:right;font-variant-numeric:tabular-nums}
code{font-size:12px;background:#f0f2f5;padding:0 3px;border-radius:3px}
.diagrams{display:flex;flex-wrap:wrap;gap:6px 28px;align-items:flex-start}
.diagram{margin:8px 0 12px;max-width:100%}
.diagram svg{display:block;margin:4px 0}
.legend span{display:inline-block;margin:0 10px 2px 0;font-size:12px}
.legend i{display:inline-block;width:11px;height:11px;margin-right:4px;vertical-align:-1px;border:1px solid #0003}
.muted{color:#6b7585}
ul.warnings li{margin:3px 0}
)css";

// Click a column header to sort its table (numbers by their data-v value). Its last line marks
// <html> with the number of sortable tables, so a test can tell that the script ran.
const char* kScript = R"js(
var sortable=document.querySelectorAll('table.sortable');
sortable.forEach(function(t){
  t.querySelectorAll('th').forEach(function(th,i){
    th.title='click to sort';
    th.addEventListener('click',function(){
      var body=t.tBodies[0],rows=Array.prototype.slice.call(body.rows),asc=th.dataset.asc!=='1';
      th.dataset.asc=asc?'1':'0';
      rows.sort(function(x,y){
        var a=x.cells[i],b=y.cells[i],r;
        if(a.dataset.v!==undefined&&b.dataset.v!==undefined)r=parseFloat(a.dataset.v)-parseFloat(b.dataset.v);
        else r=a.textContent.localeCompare(b.textContent);
        return asc?r:-r;
      });
      rows.forEach(function(r){body.appendChild(r);});
    });
  });
});
document.documentElement.setAttribute('data-sortable-tables',String(sortable.length));
)js";

// A table cell: text, or a number shown as `text` and sorted by `value`.
std::string Td(std::string_view text) { return "<td>" + E(text) + "</td>"; }
std::string TdNum(double value, std::string_view text) {
  return fmt::format("<td class=\"n\" data-v=\"{}\">{}</td>", value, E(text));
}
std::string TdBytes(double bytes) { return TdNum(bytes, FormatBytes(bytes)); }
std::string TdSeconds(double s) { return TdNum(s, FormatSeconds(s)); }
std::string TdInt(int64_t v) { return TdNum(static_cast<double>(v), fmt::format("{}", v)); }

std::string TableHead(const std::vector<std::string>& columns, const std::string& id = "") {
  std::string s = id.empty() ? "<table class=\"sortable\">" : fmt::format("<table class=\"sortable\" id=\"{}\">", id);
  s += "<thead><tr>";
  for (const std::string& c : columns) s += "<th>" + E(c) + "</th>";
  return s + "</tr></thead><tbody>\n";
}

std::string SourceText(const SourceInfo& s) { return s.ToString(); }

std::string Card(std::string_view label, std::string_view value, std::string_view cls = "") {
  return fmt::format("<div class=\"card{}{}\">{}<b>{}</b></div>", cls.empty() ? "" : " ", cls, E(label), E(value));
}

// --- Sharding diagrams -------------------------------------------------------------------------

// One array value of the annotated program whose sharding is drawn.
struct Tensor {
  std::string name;
  std::string role;  // "parameter 3", "output 1", "value"
  Shape shape;
  Sharding sharding;
};

// The device grid the diagrams draw: the mesh's devices row-major, the last mesh axis along
// the columns and the others along the rows (a 1-D mesh wraps into rows of 32).
struct Grid {
  int64_t rows = 1, cols = 1;
  std::vector<int64_t> device;  // rows * cols device ids, row-major
  std::string row_label, col_label;
};

Grid MakeGrid(const std::optional<Mesh>& mesh, int64_t n) {
  Grid g;
  if (mesh && mesh->num_devices() == n && mesh->num_axes() >= 2) {
    const auto& axes = mesh->axes();
    g.cols = axes.back().size;
    g.rows = n / g.cols;
    std::vector<std::string> lead;
    for (size_t a = 0; a + 1 < axes.size(); ++a) lead.push_back(fmt::format("{} ({})", axes[a].name, axes[a].size));
    g.row_label = fmt::format("{}", fmt::join(lead, " x "));
    g.col_label = fmt::format("{} ({})", axes.back().name, axes.back().size);
    for (int64_t i = 0; i < n; ++i) g.device.push_back(mesh->devices().At(i));
    return g;
  }
  g.cols = std::min<int64_t>(n, 32);
  g.rows = (n + g.cols - 1) / g.cols;
  const std::string name = mesh && mesh->num_devices() == n ? mesh->axes()[0].name : "devices";
  g.col_label = fmt::format("{} ({}){}", name, n, g.rows > 1 ? ", wrapped into rows" : "");
  for (int64_t i = 0; i < g.rows * g.cols; ++i)
    g.device.push_back(i < n ? (mesh && mesh->num_devices() == n ? mesh->devices().At(i) : i) : -1);
  return g;
}

// Which shard each device holds: an id in [0, count) (devices with equal ids hold the same
// data), -1 for none. `what` says in words what the colours mean.
struct ShardMap {
  std::vector<int64_t> id;  // by device
  int64_t count = 0;
  std::string what;
};

ShardMap MapShards(const Sharding& s, const Shape& shape, int64_t n) {
  ShardMap m;
  m.id.assign(n, -1);
  if (s.IsReplicated()) {
    std::fill(m.id.begin(), m.id.end(), 0);
    m.count = 1;
    m.what = "replicated: every device holds the whole tensor";
  } else if (s.IsUnreduced()) {
    std::fill(m.id.begin(), m.id.end(), 0);
    m.count = 1;
    m.what = "unreduced: every device holds a partial sum of the whole tensor";
  } else if (s.IsMaximal()) {
    if (auto d = s.UniqueDevice(); d && *d >= 0 && *d < n) m.id[*d] = 0;
    m.count = 1;
    m.what = "maximal: one device holds the whole tensor, the others nothing";
  } else if (s.IsManual()) {
    for (int64_t d = 0; d < n; ++d) m.id[d] = d;
    m.count = n;
    m.what = "manual: each device holds its own (per-device) value";
  } else if (s.IsTiled()) {
    const std::vector<int64_t> tiles = s.DataTileDims();
    m.count = std::max<int64_t>(1, s.NumTiles());
    for (int64_t d = 0; d < n; ++d) {
      if (!s.tile_assignment().UsesDevice(d)) continue;
      std::vector<int64_t> index = s.TileIndexForDevice(d);
      int64_t linear = 0;
      for (size_t k = 0; k < index.size() && k < tiles.size(); ++k) linear = linear * tiles[k] + index[k];
      m.id[d] = linear;
    }
    const int64_t copies = n / m.count;
    m.what = copies > 1 ? fmt::format("{} shards, each held by {} devices (partially replicated){}", m.count, copies,
                                      s.IsManualSubgroup() ? "; manual subgroups" : "")
                        : fmt::format("{} shards, one per device", m.count);
    if (!s.EvenlyPartitions(shape)) m.what += "; uneven: the last shards are padded";
  } else {
    m.what = "sharding unknown";
  }
  return m;
}

// Distinct colours: Tableau 10 for up to 10 shards, then hues spaced by the golden angle with
// three lightness levels (neighbouring shards stay distinguishable).
std::string ShardColour(int64_t k, int64_t count) {
  static const char* kTableau[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                   "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
  if (k < 0) return "#e4e6ea";
  if (count <= 10) return kTableau[k % 10];
  const double hue = std::fmod(k * 137.508, 360.0);
  const int light[] = {45, 60, 72};
  return fmt::format("hsl({:.0f},62%,{}%)", hue, light[k % 3]);
}

std::string TileText(const Sharding& s, const Shape& shape, int64_t device) {
  if (!s.IsTiled() || !s.tile_assignment().UsesDevice(device)) return "";
  std::vector<int64_t> lo = s.TileOffsetForDevice(shape, device), hi = s.TileLimitForDevice(shape, device);
  std::vector<std::string> parts;
  for (size_t d = 0; d < lo.size(); ++d) parts.push_back(fmt::format("{}:{}", lo[d], hi[d]));
  return fmt::format("[{}]", fmt::join(parts, ", "));
}

std::string ShardLabel(const Sharding& s, int64_t device) {
  if (!s.IsTiled() || !s.tile_assignment().UsesDevice(device)) return "";
  return fmt::format("({})", fmt::join(s.TileIndexForDevice(device), ","));
}

// Pixels per cell: a grid is at most about 720 px wide; cells stay between 5 and 36 px.
double CellSize(const Grid& g) { return std::clamp(720.0 / static_cast<double>(g.cols), 5.0, 36.0); }

std::string DiagramSvg(const Grid& g, const ShardMap& m, const Tensor& t, int64_t n) {
  const double cell = CellSize(g);
  const double gap = cell >= 10 ? 1.0 : 0.5;
  const double left = 4, top = 4;
  const double width = left + g.cols * cell + 4, height = top + g.rows * cell + 4;
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"grid\" width=\"{:.0f}\" height=\"{:.0f}\" "
      "viewBox=\"0 0 {:.0f} {:.0f}\">",
      width, height, width, height);
  for (int64_t r = 0; r < g.rows; ++r) {
    for (int64_t c = 0; c < g.cols; ++c) {
      const int64_t d = g.device[r * g.cols + c];
      if (d < 0) continue;
      const int64_t id = d < n ? m.id[d] : -1;
      std::string tip = fmt::format("device {}", d);
      if (id < 0) tip += ": holds nothing";
      else if (m.count > 1) tip += fmt::format(": shard {} {}", ShardLabel(t.sharding, d), TileText(t.sharding, t.shape, d));
      else tip += ": whole tensor";
      svg += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\"><title>{}</title></rect>",
                         left + c * cell, top + r * cell, cell - gap, cell - gap, ShardColour(id, m.count), E(tip));
    }
  }
  return svg + "</svg>";
}

std::string DiagramLegend(const ShardMap& m, const Tensor& t, const Grid& g, int64_t n) {
  std::string s = "<div class=\"legend\">";
  if (m.count <= 16) {
    // One swatch per shard, named by its tile index (the first device holding it).
    std::vector<int64_t> first(m.count, -1), holders(m.count, 0);
    for (int64_t d = 0; d < n; ++d)
      if (m.id[d] >= 0 && m.id[d] < m.count) {
        if (first[m.id[d]] < 0) first[m.id[d]] = d;
        ++holders[m.id[d]];
      }
    for (int64_t k = 0; k < m.count; ++k) {
      std::string label = m.count == 1 ? "whole tensor" : "shard " + ShardLabel(t.sharding, first[k] < 0 ? 0 : first[k]);
      s += fmt::format("<span><i style=\"background:{}\"></i>{} &middot; {} device{}</span>", ShardColour(k, m.count),
                       E(label), holders[k], holders[k] == 1 ? "" : "s");
    }
  } else {
    s += fmt::format("<span>{} colours, one per shard (hover a cell for its device and tile)</span>", m.count);
  }
  s += "</div>";
  s += fmt::format("<div class=\"muted\">rows: {} &middot; columns: {}</div>", E(g.row_label.empty() ? "-" : g.row_label),
                   E(g.col_label));
  return s;
}

std::vector<Tensor> TensorsToDraw(const ReportData& data) {
  std::vector<Tensor> out;
  const Module* m = data.annotated;
  if (m == nullptr || m->entry() == nullptr) return out;
  const Computation* entry = m->entry();
  auto sharding_of = [](const Instruction* i) { return i->has_sharding() ? *i->sharding() : Sharding::Replicate(); };
  std::map<std::string, bool> seen;
  auto add = [&](const Instruction* i, const Shape& shape, const Sharding& s, std::string role) {
    if (!shape.IsArray() || s.IsTuple()) return;
    if (seen[i->name()]) return;
    seen[i->name()] = true;
    out.push_back({i->name(), std::move(role), shape, s});
  };
  for (int64_t p = 0; p < entry->num_parameters(); ++p) {
    const Instruction* param = entry->parameter(p);
    if (param->shape().IsTuple()) {
      for (int64_t k = 0; k < param->shape().tuple_size(); ++k) {
        const int64_t index[] = {k};
        add(param, param->shape().tuple_shape(k), sharding_of(param).GetSubSharding(param->shape(), index),
            fmt::format("parameter {}.{}", p, k));
      }
    } else {
      add(param, param->shape(), sharding_of(param), fmt::format("parameter {}", p));
    }
  }
  const Instruction* root = entry->root();
  if (root != nullptr) {
    if (root->opcode() == Opcode::kTuple) {
      for (int64_t k = 0; k < root->operand_count(); ++k) {
        const Instruction* e = root->operand(k);
        Sharding s = sharding_of(e);
        if (root->has_sharding() && root->sharding()->IsTuple()) {
          const int64_t index[] = {k};
          s = root->sharding()->GetSubSharding(root->shape(), index);
        }
        if (e->opcode() != Opcode::kParameter) add(e, e->shape(), s, fmt::format("output {}", k));
      }
    } else {
      add(root, root->shape(), sharding_of(root), "output");
    }
  }
  // The largest other values (per-device bytes in the annotated program).
  std::vector<const Instruction*> values;
  for (const Instruction* i : entry->instructions())
    if (i->shape().IsArray() && !seen.contains(i->name()) && i->opcode() != Opcode::kParameter &&
        i->opcode() != Opcode::kConstant)
      values.push_back(i);
  auto shard_bytes = [&](const Instruction* i) {
    return i->has_sharding() && i->sharding()->IsTiled() ? i->sharding()->ShardShape(i->shape()).byte_size()
                                                         : i->shape().byte_size();
  };
  std::stable_sort(values.begin(), values.end(),
                   [&](const Instruction* a, const Instruction* b) { return shard_bytes(a) > shard_bytes(b); });
  for (size_t k = 0; k < values.size() && k < kLargestValues; ++k) add(values[k], values[k]->shape(), sharding_of(values[k]), "large value");
  return out;
}

std::string ShardingSection(const ReportData& data) {
  std::string s = "<section id=\"sharding\"><h2>Sharding of the tensors over the devices</h2>\n";
  const int64_t n = data.cost.num_partitions;
  std::vector<Tensor> tensors = TensorsToDraw(data);
  if (tensors.empty()) {
    s += "<p class=\"muted\">No global shardings to draw: the input already is a per-device program "
         "(--partitioned).</p></section>\n";
    return s;
  }
  s += "<p class=\"muted\">Each grid is the device mesh; a cell is one device, coloured by the shard of the tensor it "
       "holds (equal colours: the same data). Tensors with the same sharding share a grid: the entry parameters, the "
       "outputs and the largest values of the propagated program.</p>\n";
  // Group by sharding, in order of first appearance.
  std::vector<std::pair<std::string, std::vector<const Tensor*>>> groups;
  std::map<std::string, size_t> index;
  for (const Tensor& t : tensors) {
    std::string key = fmt::format("{}|{}", t.shape.rank(), t.sharding.ToString(false));
    auto [it, fresh] = index.emplace(key, groups.size());
    if (fresh) groups.push_back({key, {}});
    groups[it->second].second.push_back(&t);
  }
  const Grid grid = MakeGrid(data.mesh, n);
  s += "<div class=\"diagrams\">\n";
  for (size_t gi = 0; gi < groups.size() && gi < kMaxDiagrams; ++gi) {
    const auto& members = groups[gi].second;
    const Tensor& t = *members.front();
    ShardMap m = MapShards(t.sharding, t.shape, n);
    const double svg_width = 8 + grid.cols * CellSize(grid);
    s += fmt::format("<div class=\"diagram\" style=\"max-width:{:.0f}px\">", std::max(480.0, svg_width + 16));
    s += fmt::format("<h3>{}</h3>", E(data.mesh ? DescribeSharding(t.shape, t.sharding, *data.mesh)
                                                  : t.shape.ToString(false)));
    s += fmt::format("<div><code>{}</code> &middot; {}</div>", E(t.sharding.ToString(false)), E(m.what));
    s += DiagramSvg(grid, m, t, n);
    s += DiagramLegend(m, t, grid, n);
    s += "<table><thead><tr><th>tensor</th><th>role</th><th>shape</th><th>per device</th></tr></thead><tbody>";
    for (size_t k = 0; k < members.size() && k < kMaxTensorsListed; ++k) {
      const Tensor& x = *members[k];
      Shape shard = x.sharding.IsTiled() ? x.sharding.ShardShape(x.shape) : x.shape;
      s += "<tr>" + Td("%" + x.name) + Td(x.role) + Td(x.shape.ToString(false)) +
           Td(fmt::format("{} ({})", shard.ToString(false), FormatBytes(static_cast<double>(shard.byte_size())))) + "</tr>";
    }
    if (members.size() > kMaxTensorsListed)
      s += fmt::format("<tr><td colspan=\"4\" class=\"muted\">... and {} more with this sharding</td></tr>",
                       members.size() - kMaxTensorsListed);
    s += "</tbody></table></div>\n";
  }
  s += "</div>\n";
  if (groups.size() > kMaxDiagrams)
    s += fmt::format("<p class=\"muted\">... and {} more shardings not drawn.</p>\n", groups.size() - kMaxDiagrams);
  return s + "</section>\n";
}

// --- Memory over the schedule ------------------------------------------------------------------

std::string MemorySection(const ReportData& data) {
  const MemoryEstimate& m = data.cost.memory;
  std::string s = "<section id=\"memory\"><h2>Memory per device over the schedule</h2>\n";
  const std::vector<int64_t>& tl = m.entry_timeline;
  if (tl.empty()) return s + "<p class=\"muted\">The entry computation is empty.</p></section>\n";
  const double W = 900, H = 280, left = 78, right = 20, top = 16, bottom = 40;
  const double peak = static_cast<double>(m.peak_bytes);
  const double hbm = data.hardware.hbm_bytes;
  const bool show_hbm = hbm > 0 && hbm <= 2 * std::max(peak, 1.0);
  const double ymax = std::max({peak, show_hbm ? hbm : 0.0, 1.0}) * 1.08;
  const size_t N = tl.size();
  auto X = [&](double i) { return left + (N > 1 ? i / static_cast<double>(N - 1) : 0.5) * (W - left - right); };
  auto Y = [&](double b) { return top + (1 - b / ymax) * (H - top - bottom); };
  s += fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"memory-plot\" width=\"{:.0f}\" height=\"{:.0f}\" "
                   "viewBox=\"0 0 {:.0f} {:.0f}\">",
                   W, H, W, H);
  s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#fbfcfd\" stroke=\"#c9d1dc\"/>", left, top,
                   W - left - right, H - top - bottom);
  for (int k = 0; k <= 4; ++k) {
    const double b = ymax / 1.08 * k / 4;
    s += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#e3e7ee\"/>", left, W - right, Y(b), Y(b));
    s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" font-size=\"11\" text-anchor=\"end\" fill=\"#555\">{}</text>", left - 6,
                     Y(b) + 4, E(FormatBytes(b)));
  }
  for (int k = 0; k <= 4; ++k) {
    const double i = (N - 1) * k / 4.0;
    s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\" fill=\"#555\">{:.0f}</text>", X(i),
                     H - bottom + 15, i);
  }
  s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\" fill=\"#333\">position in the "
                   "entry schedule ({} instructions)</text>",
                   (left + W - right) / 2, H - 6, N);
  // The curve, at most kMaxPlotPoints points: each point the largest value of its bucket, so
  // the peak survives the downsampling.
  const size_t buckets = std::min(N, kMaxPlotPoints);
  std::string points, area;
  for (size_t b = 0; b < buckets; ++b) {
    const size_t lo = b * N / buckets, hi = std::max(lo + 1, (b + 1) * N / buckets);
    int64_t v = 0;
    for (size_t i = lo; i < hi; ++i) v = std::max(v, tl[i]);
    points += fmt::format("{:.1f},{:.1f} ", X(static_cast<double>(lo)), Y(static_cast<double>(v)));
  }
  area = fmt::format("{:.1f},{:.1f} {}{:.1f},{:.1f}", X(0), Y(0), points, X(static_cast<double>(N - 1)), Y(0));
  s += fmt::format("<polygon points=\"{}\" fill=\"#4e79a733\"/>", area);
  s += fmt::format("<polyline id=\"memory-curve\" points=\"{}\" fill=\"none\" stroke=\"#1f3a5f\" stroke-width=\"1.5\"/>",
                   points);
  if (m.parameter_bytes > 0) {
    const double y = Y(static_cast<double>(m.parameter_bytes));
    s += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#59a14f\" stroke-dasharray=\"5,3\"/>", left,
                     W - right, y, y);
    s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" font-size=\"11\" fill=\"#3b7a33\">parameters {}</text>", left + 6, y - 4,
                     E(FormatBytes(static_cast<double>(m.parameter_bytes))));
  }
  if (show_hbm) {
    s += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#c0392b\" stroke-dasharray=\"2,2\"/>", left,
                     W - right, Y(hbm), Y(hbm));
    s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" font-size=\"11\" text-anchor=\"end\" fill=\"#c0392b\">HBM {}</text>",
                     W - right - 4, Y(hbm) - 4, E(FormatBytes(hbm)));
  }
  if (m.peak_position >= 0) {
    const double px = X(static_cast<double>(m.peak_position)), py = Y(peak);
    s += fmt::format("<circle id=\"memory-peak\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"5\" fill=\"#e15759\" stroke=\"#fff\"/>", px, py);
    const bool right_half = px > (left + W) / 2;
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"12\" font-weight=\"600\" text-anchor=\"{}\" "
                     "fill=\"#b03030\">peak {} at %{}</text>",
                     right_half ? px - 9 : px + 9, py + 4, right_half ? "end" : "start", E(FormatBytes(peak)),
                     E(m.peak_instruction));
  }
  s += "</svg>\n";
  s += fmt::format("<p>Peak <b>{}</b> per device ({} bytes) while <code>%{}</code> runs (computation <code>{}</code>): "
                   "parameters {}, outputs {}, temporaries at the peak {}.</p>\n",
                   E(FormatBytes(peak)), m.peak_bytes, E(m.peak_instruction), E(m.peak_computation),
                   E(FormatBytes(static_cast<double>(m.parameter_bytes))), E(FormatBytes(static_cast<double>(m.output_bytes))),
                   E(FormatBytes(static_cast<double>(m.temporary_peak_bytes))));
  s += "<h3>Largest values live at the peak</h3>\n";
  s += TableHead({"bytes", "shape (per device)", "value", "kind", "op_name", "source"}, "live-at-peak");
  for (const LiveValue& v : m.live_at_peak)
    s += "<tr>" + TdBytes(static_cast<double>(v.bytes)) + Td(v.shape) + Td("%" + v.name) +
         Td(v.parameter ? "parameter" : "value") + Td(v.source.op_name) + Td(SourceText(v.source)) + "</tr>\n";
  return s + "</tbody></table></section>\n";
}

// --- Collectives, layers, warnings -------------------------------------------------------------

std::string CollectivesSection(const ReportData& data) {
  const std::vector<CollectiveCost>& cs = data.cost.collectives;
  std::string s = "<section id=\"collectives\"><h2>Communication per device</h2>\n";
  if (cs.empty()) return s + "<p>No collectives: the devices never communicate.</p></section>\n";
  s += "<h3>By kind and mesh axes</h3>\n";
  s += TableHead({"kind", "count", "bytes", "wire bytes", "mesh axes", "time"}, "collectives-by-kind");
  for (const KindAxis& k : ByKindAndAxis(cs))
    s += "<tr>" + Td(k.kind) + TdInt(k.count) + TdBytes(static_cast<double>(k.bytes)) +
         TdBytes(static_cast<double>(k.wire)) + Td(k.axes) + TdSeconds(k.seconds) + "</tr>\n";
  s += "</tbody></table>\n";
  s += fmt::format("<h3>Every collective, costliest first{}</h3>\n",
                   cs.size() > kMaxCollectiveRows ? fmt::format(" (the first {} of {})", kMaxCollectiveRows, cs.size()) : "");
  s += "<p class=\"muted\">bytes: operand bytes each device contributes; wire: what it sends under the modelled "
       "algorithm; time: one execution times the count.</p>\n";
  s += TableHead({"kind", "count", "bytes", "wire bytes", "mesh axes", "group", "algorithm", "link", "time", "instruction",
                  "op_name", "source"},
                 "collectives");
  for (const CollectiveCost* c : Costliest(cs, kMaxCollectiveRows))
    s += "<tr>" + Td(c->kind + (c->async ? " (async)" : "")) + TdInt(c->executions) +
         TdBytes(static_cast<double>(c->bytes_per_device)) + TdBytes(static_cast<double>(c->wire_bytes_per_device)) +
         Td(c->axes) + TdInt(c->group_size) + Td(c->algorithm) + Td(c->link) + TdSeconds(c->seconds * c->executions) +
         Td("%" + c->name) + Td(c->source.op_name) + Td(SourceText(c->source)) + "</tr>\n";
  return s + "</tbody></table></section>\n";
}

std::string BucketTable(const std::vector<CostBucket>& buckets, const std::string& key, const std::string& id) {
  std::string s = TableHead({key, "ops", "FLOPs", "compute", "communication", "collective bytes"}, id);
  for (size_t k = 0; k < buckets.size() && k < kMaxLayerRows; ++k) {
    const CostBucket& b = buckets[k];
    s += "<tr>" + Td(b.key) + TdInt(b.count) + TdNum(b.flops, fmt::format("{:.4g}", b.flops)) +
         TdSeconds(b.compute_seconds) + TdSeconds(b.communication_seconds) +
         TdBytes(static_cast<double>(b.collective_bytes)) + "</tr>\n";
  }
  s += "</tbody></table>\n";
  if (buckets.size() > kMaxLayerRows)
    s += fmt::format("<p class=\"muted\">... {} more rows.</p>\n", buckets.size() - kMaxLayerRows);
  return s;
}

std::string SummarySection(const ReportData& data) {
  const CostReport& r = data.cost;
  const StepTime& t = r.time;
  std::string s = "<section id=\"summary\"><h2>Summary</h2><div class=\"cards\">\n";
  s += Card("peak memory per device", FormatBytes(static_cast<double>(r.memory.peak_bytes)), r.fits ? "good" : "bad");
  s += Card(r.fits ? "fits in HBM" : "DOES NOT FIT in HBM",
            fmt::format("{} ({:.1f}%)", FormatBytes(data.hardware.hbm_bytes),
                        100.0 * r.memory.peak_bytes / std::max(data.hardware.hbm_bytes, 1.0)),
            r.fits ? "good" : "bad");
  s += Card("step time (as scheduled)", FormatSeconds(t.overlapped_seconds));
  s += Card("serial / critical path", FormatSeconds(t.serial_seconds) + " / " + FormatSeconds(t.critical_path_seconds));
  s += Card("compute / communication", FormatSeconds(t.compute_seconds) + " / " + FormatSeconds(t.communication_seconds));
  s += Card("MFU", fmt::format("{:.1f}%", 100.0 * t.mfu));
  s += Card("FLOPs per device", fmt::format("{:.4g}", t.flops));
  int64_t wire = 0;
  for (const CollectiveCost& c : r.collectives) wire += c.wire_bytes_per_device * c.executions;
  s += Card("sent per device", FormatBytes(static_cast<double>(wire)));
  s += Card("warnings", fmt::format("{}", r.warnings.size()), r.warnings.empty() ? "good" : "bad");
  return s + "</div></section>\n";
}

}  // namespace

std::string ReportToHtml(const ReportData& data) {
  const CostReport& r = data.cost;
  const std::string module_name = data.per_device ? data.per_device->name() : "";
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  h += fmt::format("<title>spmdc report: {}</title>\n", E(module_name));
  h += "<style>" + std::string(kStyle) + "</style></head><body>\n";
  h += fmt::format("<header><h1>spmdc report: {}</h1><p>{} devices{}; hardware {} ({})</p></header>\n", E(module_name),
                   r.num_partitions, data.mesh ? E(", mesh " + data.mesh->ToString()) : "", E(data.hardware.name),
                   E(data.hardware.description));
  h += "<nav><a href=\"#summary\">summary</a><a href=\"#sharding\">sharding</a><a href=\"#memory\">memory</a>"
       "<a href=\"#collectives\">communication</a><a href=\"#layers\">layers</a><a href=\"#opcodes\">op kinds</a>"
       "<a href=\"#warnings\">warnings</a></nav>\n";
  h += SummarySection(data);
  h += ShardingSection(data);
  h += MemorySection(data);
  h += CollectivesSection(data);
  h += "<section id=\"layers\"><h2>Per layer (op_name up to its last '/')</h2>\n" +
       BucketTable(r.time.by_layer, "layer", "layer-table") + "</section>\n";
  h += "<section id=\"opcodes\"><h2>Per op kind</h2>\n" + BucketTable(r.time.by_kind, "opcode", "opcode-table") +
       "</section>\n";
  h += "<section id=\"warnings\"><h2>Warnings</h2>\n";
  if (r.warnings.empty()) {
    h += "<p>None.</p>\n";
  } else {
    h += "<ul class=\"warnings\">\n";
    for (const std::string& w : r.warnings) h += "<li>" + E(w) + "</li>\n";
    h += "</ul>\n";
  }
  h += "</section>\n<script>" + std::string(kScript) + "</script>\n</body></html>\n";
  return h;
}

}  // namespace spmdc::cli

// Module -> canonical HLO text. Computations are printed callees first with the entry last;
// instructions operands first (text order for parsed modules). Attributes follow the attribute
// table, with sharding={...} between the op attributes and control-predecessors/metadata/... .
#include "hlo/printer.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "fmt/format.h"
#include "hlo/lexer.h"
#include "ir/float_types.h"
#include "sharding/sharding.h"

namespace spmdc {
namespace {

using Buf = fmt::memory_buffer;

void Append(Buf& out, std::string_view s) { out.append(s.data(), s.data() + s.size()); }

// ---- literals --------------------------------------------------------------------------------

// NaN text with sign and payload: nan, -nan, nan(0x1).
void AppendNaN(Buf& out, bool negative, uint64_t mantissa, uint64_t quiet_default) {
  if (negative) out.push_back('-');
  Append(out, "nan");
  if (mantissa != quiet_default) fmt::format_to(std::back_inserter(out), "(0x{:x})", mantissa);
}

template <typename T>
T Load(const std::byte* base, int64_t i) {
  T v;
  std::memcpy(&v, base + i * sizeof(T), sizeof(T));
  return v;
}

void AppendF32(Buf& out, float f) {
  if (std::isnan(f)) {
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    AppendNaN(out, bits >> 31, bits & 0x7fffff, 0x400000);
  } else if (std::isinf(f)) {
    Append(out, f > 0 ? "inf" : "-inf");
  } else {
    fmt::format_to(std::back_inserter(out), "{}", f);
  }
}

void AppendF64(Buf& out, double d) {
  if (std::isnan(d)) {
    uint64_t bits;
    std::memcpy(&bits, &d, 8);
    AppendNaN(out, bits >> 63, bits & ((uint64_t{1} << 52) - 1), uint64_t{1} << 51);
  } else if (std::isinf(d)) {
    Append(out, d > 0 ? "inf" : "-inf");
  } else {
    fmt::format_to(std::back_inserter(out), "{}", d);
  }
}

void AppendElement(Buf& out, const Literal& lit, const std::byte* base, int64_t i) {
  DType t = lit.shape().dtype();
  auto it = std::back_inserter(out);
  switch (t) {
    case DType::kPred: Append(out, Load<uint8_t>(base, i) ? "true" : "false"); return;
    case DType::kS1: case DType::kS2: case DType::kS4: case DType::kS8:
      fmt::format_to(it, "{}", Load<int8_t>(base, i)); return;
    case DType::kS16: fmt::format_to(it, "{}", Load<int16_t>(base, i)); return;
    case DType::kS32: fmt::format_to(it, "{}", Load<int32_t>(base, i)); return;
    case DType::kS64: fmt::format_to(it, "{}", Load<int64_t>(base, i)); return;
    case DType::kU1: case DType::kU2: case DType::kU4: case DType::kU8:
      fmt::format_to(it, "{}", Load<uint8_t>(base, i)); return;
    case DType::kU16: fmt::format_to(it, "{}", Load<uint16_t>(base, i)); return;
    case DType::kU32: fmt::format_to(it, "{}", Load<uint32_t>(base, i)); return;
    case DType::kU64: fmt::format_to(it, "{}", Load<uint64_t>(base, i)); return;
    case DType::kF32: AppendF32(out, Load<float>(base, i)); return;
    case DType::kF64: AppendF64(out, Load<double>(base, i)); return;
    case DType::kF16: {
      uint16_t b = Load<uint16_t>(base, i);
      if ((b & 0x7c00) == 0x7c00 && (b & 0x3ff)) return AppendNaN(out, b >> 15, b & 0x3ff, 0x200);
      break;
    }
    case DType::kBF16: {
      uint16_t b = Load<uint16_t>(base, i);
      if ((b & 0x7f80) == 0x7f80 && (b & 0x7f)) return AppendNaN(out, b >> 15, b & 0x7f, 0x40);
      break;
    }
    case DType::kC64:
      out.push_back('(');
      AppendF32(out, Load<float>(base, 2 * i));
      Append(out, ", ");
      AppendF32(out, Load<float>(base, 2 * i + 1));
      out.push_back(')');
      return;
    case DType::kC128:
      out.push_back('(');
      AppendF64(out, Load<double>(base, 2 * i));
      Append(out, ", ");
      AppendF64(out, Load<double>(base, 2 * i + 1));
      out.push_back(')');
      return;
    default:
      break;
  }
  // f16, bf16, f8: the shortest text that rounds back to the same value of the dtype.
  Append(out, lit.ElementToString(i));
}

void AppendArrayLevel(Buf& out, const Literal& lit, const std::byte* base, int64_t dim,
                      int64_t* index) {
  const Shape& shape = lit.shape();
  out.push_back('{');
  int64_t size = shape.dim(dim);
  bool inner = dim + 1 == shape.rank();
  for (int64_t i = 0; i < size; ++i) {
    if (i > 0) Append(out, ", ");
    if (inner) {
      AppendElement(out, lit, base, (*index)++);
    } else {
      AppendArrayLevel(out, lit, base, dim + 1, index);
    }
  }
  out.push_back('}');
}

void AppendLiteral(Buf& out, const Literal& lit) {
  const Shape& shape = lit.shape();
  if (shape.IsTuple()) {
    out.push_back('(');
    for (size_t i = 0; i < lit.elements().size(); ++i) {
      if (i) Append(out, ", ");
      AppendLiteral(out, lit.elements()[i]);
    }
    out.push_back(')');
    return;
  }
  if (!shape.IsArray()) return;
  if (shape.rank() == 0) return AppendElement(out, lit, lit.raw(), 0);
  int64_t index = 0;
  AppendArrayLevel(out, lit, lit.raw(), 0, &index);
}

// ---- attributes ------------------------------------------------------------------------------

void AppendInts(Buf& out, const std::vector<int64_t>& v, std::string_view sep = ",") {
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) Append(out, sep);
    fmt::format_to(std::back_inserter(out), "{}", v[i]);
  }
}

// As XLA prints them: as long as the highest dimension named, '?' for the others.
std::string DimLabels(int64_t a, char ca, int64_t b, char cb, const std::vector<int64_t>& spatial) {
  int64_t rank = std::max(a, b) + 1;
  for (int64_t d : spatial) rank = std::max(rank, d + 1);
  rank = std::clamp<int64_t>(rank, 0, 64);
  std::string s(rank, '?');
  auto put = [&](int64_t pos, char c) {
    if (pos >= 0 && pos < rank) s[pos] = c;
  };
  put(a, ca);
  put(b, cb);
  for (size_t k = 0; k < spatial.size(); ++k) put(spatial[k], static_cast<char>('0' + k % 10));
  return s;
}

void AppendWindow(Buf& out, const Window& w) {
  out.push_back('{');
  if (!w.dims.empty()) {
    auto field = [&](std::string_view name, auto get, auto is_default) {
      bool all_default = true;
      for (const WindowDim& d : w.dims) all_default &= is_default(d);
      if (all_default && name != "size") return;
      if (name != "size") out.push_back(' ');
      Append(out, name);
      out.push_back('=');
      for (size_t i = 0; i < w.dims.size(); ++i) {
        if (i) out.push_back('x');
        get(w.dims[i]);
      }
    };
    auto it = std::back_inserter(out);
    field("size", [&](const WindowDim& d) { fmt::format_to(it, "{}", d.size); },
          [](const WindowDim&) { return false; });
    field("stride", [&](const WindowDim& d) { fmt::format_to(it, "{}", d.stride); },
          [](const WindowDim& d) { return d.stride == 1; });
    field("pad",
          [&](const WindowDim& d) { fmt::format_to(it, "{}_{}", d.padding_low, d.padding_high); },
          [](const WindowDim& d) { return d.padding_low == 0 && d.padding_high == 0; });
    field("lhs_dilate", [&](const WindowDim& d) { fmt::format_to(it, "{}", d.base_dilation); },
          [](const WindowDim& d) { return d.base_dilation == 1; });
    field("rhs_dilate", [&](const WindowDim& d) { fmt::format_to(it, "{}", d.window_dilation); },
          [](const WindowDim& d) { return d.window_dilation == 1; });
    field("rhs_reversal",
          [&](const WindowDim& d) { fmt::format_to(it, "{}", d.window_reversal ? 1 : 0); },
          [](const WindowDim& d) { return !d.window_reversal; });
  }
  out.push_back('}');
}

void AppendKeyValues(Buf& out, const KeyValueList& kv, std::string_view sep) {
  out.push_back('{');
  for (size_t i = 0; i < kv.size(); ++i) {
    if (i) Append(out, sep);
    Append(out, kv[i].first);
    out.push_back('=');
    Append(out, kv[i].second);
  }
  out.push_back('}');
}

void AppendAttrValue(Buf& out, AttrId id, const AttrValue& value, const PrintOptions& options) {
  auto it = std::back_inserter(out);
  switch (AttrKindOf(id)) {
    case AttrKind::kInt: fmt::format_to(it, "{}", std::get<int64_t>(value)); return;
    case AttrKind::kBool: Append(out, std::get<bool>(value) ? "true" : "false"); return;
    case AttrKind::kFloat: AppendF64(out, std::get<double>(value)); return;
    case AttrKind::kIntList:
      out.push_back('{');
      AppendInts(out, std::get<std::vector<int64_t>>(value));
      out.push_back('}');
      return;
    case AttrKind::kBoolList: {
      const auto& v = std::get<std::vector<bool>>(value);
      out.push_back('{');
      for (size_t i = 0; i < v.size(); ++i) {
        if (i) out.push_back(',');
        Append(out, v[i] ? "true" : "false");
      }
      out.push_back('}');
      return;
    }
    case AttrKind::kString: Append(out, QuoteString(std::get<std::string>(value))); return;
    case AttrKind::kIdent: Append(out, std::get<std::string>(value)); return;
    case AttrKind::kIdentList: {
      const auto& v = std::get<std::vector<std::string>>(value);
      out.push_back('{');
      for (size_t i = 0; i < v.size(); ++i) {
        if (i) out.push_back(',');
        Append(out, v[i]);
      }
      out.push_back('}');
      return;
    }
    case AttrKind::kWindow: AppendWindow(out, std::get<Window>(value)); return;
    case AttrKind::kConvDims: {
      const auto& d = std::get<ConvDims>(value);
      Append(out, DimLabels(d.input_batch, 'b', d.input_feature, 'f', d.input_spatial));
      out.push_back('_');
      Append(out, DimLabels(d.kernel_input_feature, 'i', d.kernel_output_feature, 'o',
                            d.kernel_spatial));
      Append(out, "->");
      Append(out, DimLabels(d.output_batch, 'b', d.output_feature, 'f', d.output_spatial));
      return;
    }
    case AttrKind::kPadding: {
      const auto& p = std::get<PaddingConfig>(value);
      bool interior = std::any_of(p.dims.begin(), p.dims.end(),
                                  [](const PaddingDim& d) { return d.interior != 0; });
      for (size_t i = 0; i < p.dims.size(); ++i) {
        if (i) out.push_back('x');
        fmt::format_to(it, "{}_{}", p.dims[i].low, p.dims[i].high);
        if (interior) fmt::format_to(it, "_{}", p.dims[i].interior);
      }
      return;
    }
    case AttrKind::kSlice: {
      const auto& s = std::get<SliceSpec>(value);
      out.push_back('{');
      for (size_t i = 0; i < s.starts.size(); ++i) {
        if (i) Append(out, ", ");
        fmt::format_to(it, "[{}:{}", s.starts[i], s.limits[i]);
        if (i < s.strides.size() && s.strides[i] != 1) fmt::format_to(it, ":{}", s.strides[i]);
        out.push_back(']');
      }
      out.push_back('}');
      return;
    }
    case AttrKind::kReplicaGroups: {
      const auto& g = std::get<ReplicaGroups>(value);
      if (!g.mesh_form.empty()) {
        Append(out, g.mesh_form);
        return;
      }
      if (g.iota) {
        const auto& iota = *g.iota;
        fmt::format_to(it, "[{},{}]<=[", iota.num_groups, iota.group_size);
        AppendInts(out, iota.reshape_dims);
        out.push_back(']');
        bool identity = true;
        for (size_t i = 0; i < iota.transpose_perm.size(); ++i)
          identity &= iota.transpose_perm[i] == static_cast<int64_t>(i);
        if (!identity) {
          Append(out, "T(");
          AppendInts(out, iota.transpose_perm);
          out.push_back(')');
        }
        return;
      }
      out.push_back('{');
      for (size_t i = 0; i < g.groups.size(); ++i) {
        if (i) out.push_back(',');
        out.push_back('{');
        AppendInts(out, g.groups[i]);
        out.push_back('}');
      }
      out.push_back('}');
      return;
    }
    case AttrKind::kPairs: {
      const auto& pairs = std::get<PairList>(value);
      out.push_back('{');
      for (size_t i = 0; i < pairs.size(); ++i) {
        if (i) out.push_back(',');
        fmt::format_to(it, "{{{},{}}}", pairs[i].first, pairs[i].second);
      }
      out.push_back('}');
      return;
    }
    case AttrKind::kComputation: {
      Computation* c = std::get<Computation*>(value);
      fmt::format_to(it, "%{}", c ? c->name() : "<null>");
      return;
    }
    case AttrKind::kComputationList: {
      const auto& list = std::get<std::vector<Computation*>>(value);
      bool braces = !(id == AttrId::kCalls && list.size() == 1);
      if (braces) out.push_back('{');
      for (size_t i = 0; i < list.size(); ++i) {
        if (i) Append(out, ", ");
        fmt::format_to(it, "%{}", list[i] ? list[i]->name() : "<null>");
      }
      if (braces) out.push_back('}');
      return;
    }
    case AttrKind::kShape:
      Append(out, std::get<Shape>(value).ToString(options.print_layouts));
      return;
    case AttrKind::kShapeList: {
      const auto& list = std::get<std::vector<Shape>>(value);
      out.push_back('{');
      for (size_t i = 0; i < list.size(); ++i) {
        if (i) Append(out, ", ");
        Append(out, list[i].ToString(options.print_layouts));
      }
      out.push_back('}');
      return;
    }
    case AttrKind::kMetadata: AppendKeyValues(out, std::get<KeyValueList>(value), " "); return;
    case AttrKind::kKeyValues: AppendKeyValues(out, std::get<KeyValueList>(value), ", "); return;
    case AttrKind::kRaw: Append(out, std::get<std::string>(value)); return;
    case AttrKind::kInstrList: {
      const auto& list = std::get<std::vector<Instruction*>>(value);
      out.push_back('{');
      for (size_t i = 0; i < list.size(); ++i) {
        if (i) Append(out, ", ");
        fmt::format_to(it, "%{}", list[i]->name());
      }
      out.push_back('}');
      return;
    }
  }
}

// Typed attributes in table order; `split` lets the caller print something (the sharding)
// between the attributes before `split` and the rest.
template <typename F>
void AppendAttributes(Buf& out, const Attributes& attrs, const PrintOptions& options,
                      std::optional<AttrId> split, F&& at_split) {
  std::vector<const std::pair<AttrId, AttrValue>*> entries;
  entries.reserve(attrs.entries().size());
  for (const auto& e : attrs.entries()) {
    if (e.first == AttrId::kMetadata && !options.print_metadata) continue;
    if (e.first == AttrId::kControlPredecessors &&
        std::get<std::vector<Instruction*>>(e.second).empty()) {
      continue;
    }
    entries.push_back(&e);
  }
  std::sort(entries.begin(), entries.end(), [](auto* a, auto* b) { return a->first < b->first; });
  bool split_done = !split.has_value();
  for (const auto* e : entries) {
    if (!split_done && e->first >= *split) {
      at_split();
      split_done = true;
    }
    Append(out, ", ");
    Append(out, AttrName(e->first));
    out.push_back('=');
    AppendAttrValue(out, e->first, e->second, options);
  }
  if (!split_done) at_split();
  for (const auto& [name, raw] : attrs.unknown()) {
    fmt::format_to(std::back_inserter(out), ", {}={}", name, raw);
  }
}

void AppendInstruction(Buf& out, const Instruction& instr, const PrintOptions& options) {
  auto it = std::back_inserter(out);
  fmt::format_to(it, "%{} = ", instr.name());
  Append(out, instr.shape().ToString(options.print_layouts));
  out.push_back(' ');
  Append(out, OpcodeName(instr.opcode()));
  out.push_back('(');
  if (instr.opcode() == Opcode::kParameter) {
    fmt::format_to(it, "{}", instr.parameter_number());
  } else if (instr.opcode() == Opcode::kConstant && instr.literal() != nullptr) {
    if (instr.literal()->elided())
      Append(out, "{...}");
    else
      AppendLiteral(out, *instr.literal());
  } else {
    for (int64_t i = 0; i < instr.operand_count(); ++i) {
      if (i) Append(out, ", ");
      fmt::format_to(it, "%{}", instr.operand(i)->name());
    }
  }
  out.push_back(')');
  AppendAttributes(out, instr.attrs(), options, AttrId::kControlPredecessors, [&] {
    if (options.print_shardings && instr.sharding() != nullptr) {
      Append(out, ", sharding=");
      Append(out, instr.sharding()->ToString());
    }
  });
}

bool IsPlainName(std::string_view s) {
  if (s.empty() || !hlo::IsIdentStart(s[0])) return false;
  for (char c : s)
    if (!hlo::IsIdentChar(c)) return false;
  return true;
}

void AppendComputation(Buf& out, const Computation& comp, const PrintOptions& options) {
  auto it = std::back_inserter(out);
  if (comp.IsEntry()) Append(out, "ENTRY ");
  fmt::format_to(it, "%{} (", comp.name());
  for (int64_t i = 0; i < comp.num_parameters(); ++i) {
    const Instruction* p = comp.parameter(i);
    if (i) Append(out, ", ");
    if (p == nullptr) {
      fmt::format_to(it, "missing.{}: f32[]", i);
      continue;
    }
    fmt::format_to(it, "{}: ", p->name());
    Append(out, p->shape().ToString(options.print_layouts));
  }
  Append(out, ") -> ");
  if (comp.root()) Append(out, comp.root()->shape().ToString(options.print_layouts));
  Append(out, " {\n");
  for (const Instruction* instr : comp.MakeInstructionPostOrder()) {
    Append(out, instr == comp.root() ? "  ROOT " : "  ");
    AppendInstruction(out, *instr, options);
    out.push_back('\n');
  }
  out.push_back('}');
  if (!comp.execution_thread().empty()) {
    fmt::format_to(it, ", execution_thread={}", QuoteString(comp.execution_thread()));
  }
  out.push_back('\n');
}

// The tables as XLA's HloModule::PrintStackFrameIndex writes them: only with metadata and only
// when there is a file name; rows numbered from 1; ids exactly as stored.
void AppendStackFrameIndex(Buf& out, const StackFrameIndex& index, const PrintOptions& options) {
  if (index.empty() || !options.print_metadata) return;
  auto it = std::back_inserter(out);
  Append(out, "\nFileNames\n");
  for (size_t i = 0; i < index.file_names.size(); ++i)
    fmt::format_to(it, "{} {}\n", i + 1, QuoteString(index.file_names[i]));
  Append(out, "\nFunctionNames\n");
  for (size_t i = 0; i < index.function_names.size(); ++i)
    fmt::format_to(it, "{} {}\n", i + 1, QuoteString(index.function_names[i]));
  Append(out, "\nFileLocations\n");
  for (size_t i = 0; i < index.file_locations.size(); ++i) {
    const StackFrameIndex::FileLocation& l = index.file_locations[i];
    fmt::format_to(it, "{} {{file_name_id={} function_name_id={} line={} end_line={} column={} "
                       "end_column={}}}\n", i + 1, l.file_name_id, l.function_name_id, l.line,
                   l.end_line, l.column, l.end_column);
  }
  Append(out, "\nStackFrames\n");
  for (size_t i = 0; i < index.frames.size(); ++i) {
    fmt::format_to(it, "{} {{file_location_id={} parent_frame_id={}}}\n", i + 1,
                   index.frames[i].file_location_id, index.frames[i].parent_frame_id);
  }
}

}  // namespace

std::string PrintInstruction(const Instruction& instr, const PrintOptions& options) {
  Buf out;
  AppendInstruction(out, instr, options);
  return fmt::to_string(out);
}

std::string PrintComputation(const Computation& computation, const PrintOptions& options) {
  Buf out;
  AppendComputation(out, computation, options);
  return fmt::to_string(out);
}

std::string PrintModule(const Module& module, const PrintOptions& options) {
  Buf out;
  Append(out, "HloModule ");
  Append(out, IsPlainName(module.name()) ? module.name() : QuoteString(module.name()));
  AppendAttributes(out, module.config(), options, std::nullopt, [] {});
  Append(out, "\n");
  AppendStackFrameIndex(out, module.stack_frames(), options);
  std::vector<Computation*> order = module.MakeComputationPostOrder(/*include_unreachable=*/true);
  if (Computation* entry = module.entry()) {
    auto pos = std::find(order.begin(), order.end(), entry);
    if (pos != order.end()) {
      order.erase(pos);
      order.push_back(entry);
    }
  }
  for (const Computation* comp : order) {
    out.push_back('\n');
    AppendComputation(out, *comp, options);
  }
  return fmt::to_string(out);
}

}  // namespace spmdc

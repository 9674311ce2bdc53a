#include "sharding/sharding_text.h"

#include <algorithm>
#include <charconv>
#include <cctype>
#include <cstdint>
#include <iterator>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "fmt/ranges.h"
#include "sharding/named_sharding.h"
#include "sharding/text_lexer.h"

namespace spmdc {
namespace {

// Guards against tile arrays too large to ever be valid (and to materialise): 2^20 devices.
constexpr int64_t kMaxDevices = int64_t{1} << 20;

// The shared sharding-text tokenizer in XLA's dialect (text_lexer.h): `devices=` is one token
// (kAttr) but `devices =` is not; `x:` (a mesh sub-axis, `x:(2)4`) is kName.
using sharding_text_lexer::Tok;
using sharding_text_lexer::Token;
class Lexer : public sharding_text_lexer::Lexer {
 public:
  explicit Lexer(std::string_view text) : sharding_text_lexer::Lexer(text, sharding_text_lexer::kXlaDialect) {}
};

struct ParseError {
  size_t offset;
  std::string message;
};

class Parser {
 public:
  explicit Parser(std::string_view text) : lexer_(text) {}

  std::optional<Sharding> Parse() {
    if (!Expect(Tok::kLBrace, "'{' to start a sharding")) return std::nullopt;
    Token t = lexer_.Peek();
    std::optional<Sharding> result;
    if (t.kind == Tok::kRBrace) {
      lexer_.Next();
      result = Sharding::Tuple({});
    } else if (t.kind == Tok::kLBrace) {
      std::vector<Sharding> elements;
      while (true) {
        if (!Expect(Tok::kLBrace, "'{' to start a tuple element sharding")) return std::nullopt;
        if (lexer_.Peek().kind == Tok::kLBrace) {
          return Fail(lexer_.Peek().offset, "nested tuple shardings are not allowed (tuple shardings are flat)");
        }
        auto element = ParseBody();
        if (!element) return std::nullopt;
        elements.push_back(std::move(*element));
        Token sep = lexer_.Next();
        if (sep.kind == Tok::kRBrace) break;
        if (sep.kind != Tok::kComma) return Unexpected(sep, "',' or '}' in a tuple sharding");
      }
      result = Sharding::Tuple(std::move(elements));
    } else {
      result = ParseBody();
      if (!result) return std::nullopt;
    }
    Token end = lexer_.Next();
    if (end.kind != Tok::kEnd) return Unexpected(end, "the end of the sharding");
    return result;
  }

  const std::optional<ParseError>& error() const { return error_; }

 private:
  std::nullopt_t Fail(size_t offset, std::string message) {
    if (!error_) error_ = ParseError{offset, std::move(message)};
    return std::nullopt;
  }

  std::nullopt_t Unexpected(const Token& t, std::string_view expected) {
    if (t.kind == Tok::kError) return Fail(t.offset, std::string(t.text));
    if (t.kind == Tok::kEnd) return Fail(t.offset, fmt::format("expected {}, got the end of input", expected));
    return Fail(t.offset, fmt::format("expected {}, got '{}'", expected, t.text));
  }

  bool Expect(Tok kind, std::string_view what) {
    Token t = lexer_.Next();
    if (t.kind == kind) return true;
    Unexpected(t, what);
    return false;
  }

  // '[' INT (',' INT)* ']' (may be empty when `allow_empty`).
  std::optional<std::vector<int64_t>> ParseIntList(Tok open, Tok close, std::string_view what) {
    if (!Expect(open, what)) return std::nullopt;
    std::vector<int64_t> out;
    if (lexer_.Peek().kind == close) {
      lexer_.Next();
      return out;
    }
    while (true) {
      Token t = lexer_.Next();
      if (t.kind != Tok::kInt) return Unexpected(t, fmt::format("an integer in {}", what));
      out.push_back(t.value);
      Token sep = lexer_.Next();
      if (sep.kind == close) break;
      if (sep.kind != Tok::kComma) return Unexpected(sep, fmt::format("',' or the end of {}", what));
    }
    return out;
  }

  std::optional<TileAssignment> ParseTileAssignment() {
    size_t dims_offset = lexer_.Peek().offset;
    auto dims = ParseIntList(Tok::kLBracket, Tok::kRBracket, "the tile dimensions");
    if (!dims) return std::nullopt;
    if (dims->empty()) return Fail(dims_offset, "the tile assignment needs at least one dimension");
    int64_t n = 1;
    for (int64_t d : *dims) {
      if (d <= 0) return Fail(dims_offset, fmt::format("tile dimension {} is not positive", d));
      if (n > kMaxDevices / d) {
        return Fail(dims_offset, fmt::format("tile assignment has more than {} devices", kMaxDevices));
      }
      n *= d;
    }
    Token t = lexer_.Peek();
    if (t.kind == Tok::kLe) {
      lexer_.Next();
      size_t reshape_offset = lexer_.Peek().offset;
      auto reshape = ParseIntList(Tok::kLBracket, Tok::kRBracket, "the iota reshape dimensions");
      if (!reshape) return std::nullopt;
      int64_t m = 1;
      for (int64_t d : *reshape) {
        if (d <= 0 || m > kMaxDevices / d) {
          return Fail(reshape_offset, fmt::format("invalid iota reshape dimension {}", d));
        }
        m *= d;
      }
      if (reshape->empty() || m != n) {
        return Fail(reshape_offset,
                    fmt::format("iota reshape dimensions hold {} devices but the tile dimensions "
                                "hold {}", m, n));
      }
      std::vector<int64_t> perm(reshape->size());
      for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(i);
      // As in XLA: a single reshape dim takes no transpose (a following `T(..)` is not part of
      // the tile assignment, so it is rejected as an unknown item), and several always need one.
      if (reshape->size() == 1) return TileAssignment(*dims, *reshape, perm);
      Token tt = lexer_.Peek();
      if (tt.kind != Tok::kIdent || tt.text != "T") {
        return Unexpected(tt, "'T(' after several iota reshape dimensions");
      }
      lexer_.Next();
      size_t perm_offset = lexer_.Peek().offset;
      auto p = ParseIntList(Tok::kLParen, Tok::kRParen, "the iota transpose permutation");
      if (!p) return std::nullopt;
      std::vector<bool> seen(reshape->size(), false);
      if (p->size() != reshape->size()) {
        return Fail(perm_offset, fmt::format("transpose permutation has {} entries, expected {}",
                                             p->size(), reshape->size()));
      }
      for (int64_t v : *p) {
        if (v < 0 || v >= static_cast<int64_t>(seen.size()) || seen[v]) {
          return Fail(perm_offset, "transpose is not a permutation");
        }
        seen[v] = true;
      }
      return TileAssignment(*dims, *reshape, *p);
    }
    if (t.kind != Tok::kInt) return Unexpected(t, "device ids or '<=' after the tile dimensions");
    std::vector<int64_t> ids;
    while (true) {
      Token id = lexer_.Next();
      if (id.kind != Tok::kInt) return Unexpected(id, "a device id");
      ids.push_back(id.value);
      if (static_cast<int64_t>(ids.size()) > n) {
        return Fail(id.offset, fmt::format("more device ids than the {} tiles", n));
      }
      if (lexer_.Peek().kind != Tok::kComma) break;
      lexer_.Next();
    }
    if (static_cast<int64_t>(ids.size()) != n) {
      return Fail(t.offset, fmt::format("{} device ids given for {} tiles", ids.size(), n));
    }
    // XLA's parser rejects an explicit list of one device (an iota of one parses, and fails
    // validation instead): a single-device sharding is written {maximal device=N}.
    if (n == 1) {
      return Fail(t.offset, "a tiled sharding needs more than one device; use {maximal device=N} "
                            "or {replicated}");
    }
    return TileAssignment::FromDevices(*dims, std::move(ids));
  }

  // One OpMetadata, `{` field* `}`: the fields XLA's parser knows, each `name=value` at most once,
  // optionally preceded by one comma. Kept as canonical text: XLA's field order, and fields at
  // their proto default (empty string, 0, empty list) dropped, as XLA's printer drops them.
  std::optional<std::string> ParseMetadataEntry() {
    enum class Type { kString, kInt32, kProfileTypes };
    struct Field {
      std::string_view name;
      Type type;
    };
    static constexpr Field kFields[] = {
        {"op_type", Type::kString},          {"op_name", Type::kString},
        {"source_file", Type::kString},      {"source_line", Type::kInt32},
        {"source_end_line", Type::kInt32},   {"source_column", Type::kInt32},
        {"source_end_column", Type::kInt32}, {"profile_type", Type::kProfileTypes},
        {"deduplicated_name", Type::kString}, {"scheduling_name", Type::kString},
        {"stack_frame_id", Type::kInt32}};
    constexpr size_t kNumFields = std::size(kFields);
    if (!Expect(Tok::kLBrace, "'{' starting metadata")) return std::nullopt;
    std::optional<std::string> values[kNumFields];
    while (lexer_.Peek().kind != Tok::kRBrace) {
      if (lexer_.Peek().kind == Tok::kComma) lexer_.Next();
      Token name = lexer_.Next();
      if (name.kind != Tok::kAttr) return Unexpected(name, "a metadata field `name=value`");
      size_t k = 0;
      while (k < kNumFields && kFields[k].name != name.text) ++k;
      if (k == kNumFields) {
        return Fail(name.offset, fmt::format("unknown metadata field '{}'", name.text));
      }
      if (values[k]) return Fail(name.offset, fmt::format("metadata field '{}' given twice", name.text));
      Token v = lexer_.Next();
      switch (kFields[k].type) {
        case Type::kString:
          if (v.kind != Tok::kString) return Unexpected(v, fmt::format("a string for '{}'", name.text));
          values[k] = v.text == "\"\"" ? "" : std::string(v.text);
          break;
        case Type::kInt32:
          if (v.kind != Tok::kInt) return Unexpected(v, fmt::format("an integer for '{}'", name.text));
          if (v.value < INT32_MIN || v.value > INT32_MAX) {
            return Fail(v.offset, fmt::format("'{}' is out of range for int32", name.text));
          }
          values[k] = v.value == 0 ? "" : std::to_string(v.value);
          break;
        case Type::kProfileTypes: {
          if (v.kind != Tok::kLBrace) return Unexpected(v, "'{' starting the profile types");
          std::vector<int64_t> types;
          if (lexer_.Peek().kind == Tok::kRBrace) {
            lexer_.Next();
          } else {
            while (true) {
              Token e = lexer_.Next();
              // ProfileType: INVALID=0, WINDOW=1, FLAG=2, INTEGER=3.
              if (e.kind != Tok::kInt || e.value < 0 || e.value > 3) {
                return Unexpected(e, "a profile type (0 to 3)");
              }
              types.push_back(e.value);
              Token sep = lexer_.Next();
              if (sep.kind == Tok::kRBrace) break;
              if (sep.kind != Tok::kComma) return Unexpected(sep, "',' or '}' in the profile types");
            }
          }
          values[k] = types.empty() ? "" : fmt::format("{{{}}}", fmt::join(types, ","));
          break;
        }
      }
    }
    lexer_.Next();  // '}'
    std::string out;
    for (size_t k = 0; k < kNumFields; ++k) {
      if (!values[k] || values[k]->empty()) continue;
      if (!out.empty()) out += ' ';
      out += fmt::format("{}={}", kFields[k].name, *values[k]);
    }
    return out;
  }

  // metadata := entry | '{' [entry (',' entry)*] '}'. Every entry is kept, even an empty one.
  bool ParseMetadata(ShardingMetadata* out) {
    if (lexer_.Peek().kind != Tok::kLBrace) {
      Unexpected(lexer_.Peek(), "'{' after metadata=");
      return false;
    }
    // A list starts with '{{'; a single entry with '{' and a field (or '}').
    Lexer probe = lexer_;
    probe.Next();
    if (probe.Next().kind != Tok::kLBrace) {
      auto entry = ParseMetadataEntry();
      if (!entry) return false;
      out->push_back(std::move(*entry));
      return true;
    }
    lexer_.Next();
    while (true) {
      auto entry = ParseMetadataEntry();
      if (!entry) return false;
      out->push_back(std::move(*entry));
      Token sep = lexer_.Next();
      if (sep.kind == Tok::kRBrace) return true;
      if (sep.kind != Tok::kComma) {
        Unexpected(sep, "',' or '}' in the metadata list");
        return false;
      }
    }
  }

  // ---- Named (mesh) shardings: XLA's HloShardingV3 text --------------------------------------
  //
  //   named := 'maximal_mesh' '[' 'device_id=' INT ']' [',' 'metadata=' md] '}'
  //          | 'mesh' '[' [NAME= INT (',' NAME= INT)*] ']' [',' 'device_ids=' '(' ids ')'] [',']
  //            ( 'replicated' | 'unreduced' | 'manual' | '[' [dim (',' dim)*] ']' attr* )
  //            [',' 'metadata=' md] '}'
  //   ids   := [INT (',' INT)*] | '[' INT (',' INT)* ']' ['T' '(' perm ')']
  //   dim   := '{' [axis (',' axis)*] [',' '?' | '?'] '}'     (`?`: the dim is open)
  //   axis  := NAME | NAME ['(' PRE ')' SIZE] | NAME: '(' PRE ')' SIZE   (a sub-axis)
  //   attr  := ',' ('replicated=' | 'unreduced=' | 'manual=') '{' [axis (',' axis)*] '}'
  //
  // spmdc keeps the equivalent tile-based sharding (XLA's V3ToV2Sharding), which is what it
  // compares and prints: the mesh's device array, its axes split at every sub-axis boundary,
  // transposed to [dim axes..., manual axes, unreduced axes, remaining (replicated) axes].

  // An axis name: bare (`x`), or quoted (`'x'`, `"x"`, as XLA prints since 2026).
  static std::string_view AxisNameOf(const Token& t) {
    if (t.kind == Tok::kString && t.text.size() >= 2) return t.text.substr(1, t.text.size() - 2);
    return t.text;
  }

  std::optional<AxisRef> ParseAxisRef(const NamedMesh& mesh) {
    Token t = lexer_.Next();
    if (t.kind != Tok::kIdent && t.kind != Tok::kName && t.kind != Tok::kString) {
      return Unexpected(t, "a mesh axis name");
    }
    AxisRef ref{0, 1, 0, t.offset};
    ref.axis = mesh.AxisIndex(AxisNameOf(t));
    if (ref.axis < 0) return Fail(t.offset, fmt::format("no mesh axis '{}'", AxisNameOf(t)));
    if (lexer_.Peek().kind != Tok::kLParen) {
      if (t.kind == Tok::kName) return Unexpected(lexer_.Peek(), "'(' of a sub-axis");
      return ref;
    }
    lexer_.Next();
    Token pre = lexer_.Next();
    if (pre.kind != Tok::kInt) return Unexpected(pre, "a sub-axis pre-size");
    if (!Expect(Tok::kRParen, "')' after the sub-axis pre-size")) return std::nullopt;
    Token size = lexer_.Next();
    if (size.kind != Tok::kInt) return Unexpected(size, "a sub-axis size");
    ref.pre = pre.value;
    ref.size = size.value;
    // XLA's AxisRef rules: pre-size >= 1, 1 < size < axis size, pre-size * size divides it.
    if (Status st = ValidateAxisRef(mesh, ref); !st.ok()) return Fail(t.offset, std::string(st.message()));
    return ref;
  }

  std::optional<std::vector<AxisRef>> ParseAxisRefList(const NamedMesh& mesh) {
    if (!Expect(Tok::kLBrace, "'{' starting a list of mesh axes")) return std::nullopt;
    std::vector<AxisRef> out;
    if (lexer_.Peek().kind == Tok::kRBrace) {
      lexer_.Next();
      return out;
    }
    while (true) {
      auto ref = ParseAxisRef(mesh);
      if (!ref) return std::nullopt;
      out.push_back(*ref);
      Token sep = lexer_.Next();
      if (sep.kind == Tok::kRBrace) return out;
      if (sep.kind != Tok::kComma) return Unexpected(sep, "',' or '}' in a list of mesh axes");
    }
  }

  // `'{' [axis (',' axis)*] [',' '?' | '?'] '}'`; the open/closed mark does not change the layout.
  std::optional<NamedDim> ParseDimSharding(const NamedMesh& mesh) {
    if (!Expect(Tok::kLBrace, "'{' starting a dimension sharding")) return std::nullopt;
    NamedDim out;
    if (lexer_.Peek().kind == Tok::kRBrace) {
      lexer_.Next();
      return out;
    }
    while (true) {
      Token q = lexer_.Peek();
      if (out.open) return Fail(q.offset, "an axis after '?'");
      if (q.kind == Tok::kQuestion) {
        lexer_.Next();
        out.open = true;
      } else {
        auto ref = ParseAxisRef(mesh);
        if (!ref) return std::nullopt;
        out.axes.push_back(*ref);
      }
      Token sep = lexer_.Next();
      if (sep.kind == Tok::kRBrace) return out;
      if (sep.kind != Tok::kComma) return Unexpected(sep, "',' or '}' in a dimension sharding");
    }
  }

  // Optional `',' 'metadata=' md` and the closing '}'.
  bool ParseNamedTail(ShardingMetadata* metadata) {
    if (lexer_.Peek().kind == Tok::kComma) {
      lexer_.Next();
      Token t = lexer_.Next();
      if (t.kind != Tok::kAttr || t.text != "metadata") {
        Unexpected(t, "'metadata='");
        return false;
      }
      if (!ParseMetadata(metadata)) return false;
    }
    return Expect(Tok::kRBrace, "'}' ending the sharding");
  }

  std::optional<Sharding> ParseNamed() {
    Token kw = lexer_.Next();
    ShardingMetadata metadata;
    if (!Expect(Tok::kLBracket, fmt::format("'[' after '{}'", kw.text))) return std::nullopt;
    if (kw.text == "maximal_mesh") {
      Token a = lexer_.Next();
      if (a.kind != Tok::kAttr || a.text != "device_id") return Unexpected(a, "'device_id='");
      Token d = lexer_.Next();
      if (d.kind != Tok::kInt) return Unexpected(d, "a device id");
      if (!Expect(Tok::kRBracket, "']' ending maximal_mesh")) return std::nullopt;
      if (!ParseNamedTail(&metadata)) return std::nullopt;
      return Sharding::AssignDevice(d.value, std::move(metadata));
    }
    NamedMesh mesh;
    size_t mesh_offset = kw.offset;
    int64_t n = 1;
    if (lexer_.Peek().kind != Tok::kRBracket) {
      while (true) {
        Token name = lexer_.Next();
        if (name.kind != Tok::kAttr) return Unexpected(name, "a mesh axis `name=size`");
        if (std::find(mesh.names.begin(), mesh.names.end(), name.text) != mesh.names.end()) {
          return Fail(name.offset, fmt::format("mesh axis '{}' given twice", name.text));
        }
        Token size = lexer_.Next();
        if (size.kind != Tok::kInt) return Unexpected(size, "a mesh axis size");
        if (size.value <= 0 || n > kMaxDevices / size.value) {
          return Fail(size.offset, fmt::format("invalid mesh axis size {}", size.value));
        }
        n *= size.value;
        mesh.names.push_back(std::string(name.text));
        mesh.sizes.push_back(size.value);
        if (lexer_.Peek().kind != Tok::kComma) break;
        lexer_.Next();
      }
    }
    if (!Expect(Tok::kRBracket, "']' ending the mesh axes")) return std::nullopt;
    // XLA's Mesh needs at least one axis (a single device is written maximal_mesh).
    if (mesh.names.empty()) return Fail(mesh_offset, "a mesh needs at least one axis");
    // Optional device_ids=(...): an iota `[reshape]T(perm)` or an explicit list.
    if (lexer_.Peek().kind == Tok::kComma) {
      Lexer probe = lexer_;
      probe.Next();
      if (Token a = probe.Next(); a.kind == Tok::kAttr && a.text == "device_ids") {
        lexer_ = probe;
        if (!Expect(Tok::kLParen, "'(' after device_ids=")) return std::nullopt;
        const size_t ids_offset = lexer_.Peek().offset;
        std::vector<int64_t> sizes = mesh.sizes;
        if (lexer_.Peek().kind == Tok::kLBracket) {
                    auto reshape = ParseIntList(Tok::kLBracket, Tok::kRBracket, "the iota reshape dimensions");
          if (!reshape) return std::nullopt;
          int64_t m = 1;
          for (int64_t d : *reshape) {
            if (d <= 0 || m > kMaxDevices / d) return Fail(ids_offset, "invalid iota reshape dimension");
            m *= d;
          }
          if (reshape->empty() || m != n) {
            return Fail(ids_offset, fmt::format("device_ids hold {} devices but the mesh has {}", m, n));
          }
          std::vector<int64_t> perm(reshape->size());
          std::iota(perm.begin(), perm.end(), 0);
          if (reshape->size() > 1) {
            Token tt = lexer_.Next();
            if (tt.kind != Tok::kIdent || tt.text != "T") {
              return Unexpected(tt, "'T(' after several iota reshape dimensions");
            }
            const size_t perm_offset = lexer_.Peek().offset;
            auto p = ParseIntList(Tok::kLParen, Tok::kRParen, "the iota transpose permutation");
            if (!p) return std::nullopt;
            std::vector<bool> seen(perm.size(), false);
            if (p->size() != perm.size()) return Fail(perm_offset, "transpose is not a permutation");
            for (int64_t v : *p) {
              if (v < 0 || v >= static_cast<int64_t>(seen.size()) || seen[v]) {
                return Fail(perm_offset, "transpose is not a permutation");
              }
              seen[v] = true;
            }
            perm = *p;
          }
          mesh.devices = TileAssignment(sizes, *reshape, perm);
        } else {
          std::vector<int64_t> ids;
          while (lexer_.Peek().kind == Tok::kInt) {
            ids.push_back(lexer_.Next().value);
            if (lexer_.Peek().kind != Tok::kComma) break;
            lexer_.Next();
          }
          if (static_cast<int64_t>(ids.size()) != n) {
            return Fail(ids_offset, fmt::format("{} device ids for a mesh of {} devices", ids.size(), n));
          }
          StatusOr<TileAssignment> devices = MeshDevicesFromIds(sizes, std::move(ids));
          if (!devices.ok()) return Fail(ids_offset, std::string(devices.status().message()));
          mesh.devices = *std::move(devices);
        }
        if (!Expect(Tok::kRParen, "')' ending device_ids")) return std::nullopt;
      }
    }
    if (!mesh.devices) mesh.devices = TileAssignment(mesh.sizes);
    if (lexer_.Peek().kind == Tok::kComma) lexer_.Next();
    Token t = lexer_.Peek();
    NamedSharding named;
    if (t.kind == Tok::kAttr && t.text == "unreduced") {
      // `unreduced=OP [{axes}]` without dimension shardings.
      lexer_.Next();
      if (!ParseReductionOp(&named.unreduced_op)) return std::nullopt;
      if (lexer_.Peek().kind == Tok::kLBrace) {
        auto refs = ParseAxisRefList(mesh);
        if (!refs) return std::nullopt;
        named.unreduced = std::move(*refs);
      }
      if (!ParseNamedTail(&metadata)) return std::nullopt;
      if (named.unreduced.empty()) return Sharding::Unreduced(std::move(metadata));
      return Convert(mesh, mesh_offset, named, std::move(metadata));
    }
    if (t.kind == Tok::kIdent && (t.text == "replicated" || t.text == "unreduced" || t.text == "manual")) {
      lexer_.Next();
      if (!ParseNamedTail(&metadata)) return std::nullopt;
      if (t.text == "replicated") return Sharding::Replicate(std::move(metadata));
      if (t.text == "unreduced") return Sharding::Unreduced(std::move(metadata));
      return Sharding::Manual(std::move(metadata));
    }
    // The dimension shardings.
    std::vector<NamedDim>& dims = named.dims;
    if (!Expect(Tok::kLBracket, "'[' starting the dimension shardings, or replicated / unreduced / manual")) {
      return std::nullopt;
    }
    if (lexer_.Peek().kind == Tok::kRBracket) {
      lexer_.Next();
    } else {
      while (true) {
        auto dim = ParseDimSharding(mesh);
        if (!dim) return std::nullopt;
        dims.push_back(std::move(*dim));
        Token sep = lexer_.Next();
        if (sep.kind == Tok::kRBracket) break;
        if (sep.kind != Tok::kComma) return Unexpected(sep, "',' or ']' in the dimension shardings");
      }
    }
    while (lexer_.Peek().kind != Tok::kRBrace) {
      if (!Expect(Tok::kComma, "',' before the next attribute")) return std::nullopt;
      Token a = lexer_.Next();
      std::vector<AxisRef>* list = nullptr;
      if (a.kind == Tok::kAttr && a.text == "replicated") list = &named.replicated;
      if (a.kind == Tok::kAttr && a.text == "unreduced") {
        list = &named.unreduced;
        if (!ParseReductionOp(&named.unreduced_op)) return std::nullopt;
      }
      if (a.kind == Tok::kAttr && a.text == "manual") list = &named.manual;
      if (a.kind == Tok::kAttr && a.text == "metadata") {
        if (!ParseMetadata(&metadata)) return std::nullopt;
        continue;
      }
      if (!list) return Unexpected(a, "replicated=, unreduced=, manual= or metadata=");
      auto refs = ParseAxisRefList(mesh);
      if (!refs) return std::nullopt;
      list->insert(list->end(), refs->begin(), refs->end());
    }
    lexer_.Next();  // '}'
    return Convert(mesh, mesh_offset, named, std::move(metadata));
  }

  // An optional reduction kind after `unreduced=`: sum, max or min.
  bool ParseReductionOp(std::string* op) {
    Token t = lexer_.Peek();
    if (t.kind != Tok::kIdent) return true;
    if (t.text != "sum" && t.text != "max" && t.text != "min") {
      Unexpected(t, "sum, max, min or '{' after unreduced=");
      return false;
    }
    lexer_.Next();
    *op = std::string(t.text);
    return true;
  }

  // The one conversion (named_sharding.h); its errors point at the reference at fault, or at the
  // mesh when none is.
  std::optional<Sharding> Convert(const NamedMesh& mesh, size_t mesh_offset, const NamedSharding& named,
                                  ShardingMetadata metadata) {
    size_t at = 0;
    StatusOr<Sharding> s = NamedToTiled(mesh, named, std::move(metadata), &at);
    if (!s.ok()) return Fail(at == 0 ? mesh_offset : at, std::string(s.status().message()));
    return *std::move(s);
  }

  // The items of a non-tuple sharding, after its '{' and through its '}'. Items come in any
  // order, as in XLA. Repeating an item with the same value is accepted (XLA accepts it too).
  // Contradicting items are rejected, a deliberate difference: XLA resolves them by precedence
  // (replicated > maximal > manual > unknown > devices=; the last device= or group id wins;
  // last_tile_dim* is ignored without devices=), but its printer never writes such text, and
  // silently dropping half of it would hide the mistake.
  std::optional<Sharding> ParseBody() {
    if (Token t = lexer_.Peek(); t.kind == Tok::kIdent && (t.text == "mesh" || t.text == "maximal_mesh")) {
      return ParseNamed();
    }
    size_t body_offset = lexer_.Peek().offset;
    std::optional<std::string_view> kind;  // replicated / manual / unknown / unreduced / maximal / devices
    size_t kind_offset = 0;
    std::optional<int64_t> device;
    std::optional<TileAssignment> tiles;
    bool last_tile_dim_replicate = false;
    std::optional<std::vector<SubgroupType>> subgroup_types;
    size_t subgroup_offset = 0;
    ShardGroup group;
    ShardingMetadata metadata;
    auto set_kind = [&](const Token& t) -> bool {
      if (kind && *kind == t.text && t.text != "devices") return true;
      if (kind) {
        Fail(t.offset, fmt::format("'{}' conflicts with '{}' in one sharding", t.text, *kind));
        return false;
      }
      kind = t.text;
      kind_offset = t.offset;
      return true;
    };
    while (true) {
      Token t = lexer_.Next();
      if (t.kind == Tok::kRBrace) break;
      const std::string_view w = t.text;
      if (t.kind == Tok::kIdent) {
        if (w == "replicated" || w == "manual" || w == "unknown" || w == "maximal" ||
            w == "unreduced") {
          if (!set_kind(t)) return std::nullopt;
        } else if (w == "last_tile_dim_replicate") {
          last_tile_dim_replicate = true;
        } else if (w == "shard_as" || w == "shard_like") {
          Token v = lexer_.Next();
          if (v.kind != Tok::kInt || v.value < 0) {
            return Unexpected(v, fmt::format("a non-negative group id after '{}'", w));
          }
          const ShardGroup g{v.value, w == "shard_as"};
          if (group.valid() && !(group == g)) {
            return Fail(t.offset, "a sharding belongs to at most one shard group");
          }
          group = g;
        } else {
          return Fail(t.offset, fmt::format("unknown sharding item '{}'", w));
        }
        continue;
      }
      if (t.kind != Tok::kAttr) return Unexpected(t, "a sharding item or '}'");
      if (w == "device") {
        Token v = lexer_.Next();
        if (v.kind != Tok::kInt) return Unexpected(v, "a device id after 'device='");
        if (device && *device != v.value) return Fail(t.offset, "'device=' given twice");
        device = v.value;
      } else if (w == "devices") {
        if (!set_kind(t)) return std::nullopt;
        tiles = ParseTileAssignment();
        if (!tiles) return std::nullopt;
      } else if (w == "last_tile_dims") {
        subgroup_offset = t.offset;
        if (!Expect(Tok::kLBrace, "'{' after 'last_tile_dims='")) return std::nullopt;
        // XLA accepts an empty list (no subgroups) and appends when the item is repeated.
        if (!subgroup_types) subgroup_types.emplace();
        if (lexer_.Peek().kind == Tok::kRBrace) {
          lexer_.Next();
          continue;
        }
        while (true) {
          Token v = lexer_.Next();
          if (v.kind == Tok::kIdent && v.text == "manual") {
            subgroup_types->push_back(SubgroupType::kManual);
          } else if (v.kind == Tok::kIdent && v.text == "replicated") {
            subgroup_types->push_back(SubgroupType::kReplicated);
          } else if (v.kind == Tok::kIdent && (v.text == "maximal" || v.text == "maximul")) {
            subgroup_types->push_back(SubgroupType::kMaximal);
          } else if (v.kind == Tok::kIdent && v.text == "unreduced") {
            subgroup_types->push_back(SubgroupType::kUnreduced);
          } else {
            return Unexpected(v, "a subgroup type (manual, replicated, maximal or unreduced)");
          }
          Token sep = lexer_.Next();
          if (sep.kind == Tok::kRBrace) break;
          if (sep.kind != Tok::kComma) return Unexpected(sep, "',' or '}' in last_tile_dims");
        }
      } else if (w == "metadata") {
        // Repeated metadata= items accumulate, as in XLA.
        if (!ParseMetadata(&metadata)) return std::nullopt;
      } else {
        return Fail(t.offset, fmt::format("unknown sharding attribute '{}='", w));
      }
    }
    if (!kind) {
      return Fail(body_offset,
                  "sharding needs one of replicated, manual, unknown, unreduced, maximal or devices=");
    }
    if (device && *kind != "maximal") return Fail(kind_offset, "'device=' is only valid with 'maximal'");
    if ((last_tile_dim_replicate || subgroup_types) && *kind != "devices") {
      return Fail(kind_offset, "last_tile_dim_replicate/last_tile_dims need devices=");
    }
    Sharding s;
    if (*kind == "replicated") {
      s = Sharding::Replicate(std::move(metadata));
    } else if (*kind == "manual") {
      s = Sharding::Manual(std::move(metadata));
    } else if (*kind == "unknown") {
      s = Sharding::Unknown(std::move(metadata));
    } else if (*kind == "unreduced") {
      s = Sharding::Unreduced(std::move(metadata));
    } else if (*kind == "maximal") {
      if (!device) return Fail(kind_offset, "'maximal' needs 'device=N'");
      s = Sharding::AssignDevice(*device, std::move(metadata));
    } else {
      // An empty last_tile_dims={} means no subgroups (XLA); with last_tile_dim_replicate it is
      // the plain partial tile.
      if (subgroup_types && subgroup_types->empty()) subgroup_types.reset();
      if (last_tile_dim_replicate && subgroup_types) {
        return Fail(subgroup_offset, "last_tile_dim_replicate and last_tile_dims are exclusive");
      }
      if (last_tile_dim_replicate) {
        s = Sharding::PartialTile(std::move(*tiles), std::move(metadata));
      } else if (subgroup_types) {
        if (static_cast<int64_t>(subgroup_types->size()) > tiles->num_dimensions()) {
          return Fail(subgroup_offset,
                      fmt::format("{} subgroup types for a tile array of rank {}",
                                  subgroup_types->size(), tiles->num_dimensions()));
        }
        s = Sharding::Subgroup(std::move(*tiles), std::move(*subgroup_types), std::move(metadata));
      } else {
        s = Sharding::Tile(std::move(*tiles), std::move(metadata));
      }
    }
    return group.valid() ? s.WithShardGroup(group) : s;
  }

  Lexer lexer_;
  std::optional<ParseError> error_;
};

}  // namespace

StatusOr<Sharding> ParseSharding(std::string_view text, size_t* error_offset) {
  Parser parser(text);
  std::optional<Sharding> s = parser.Parse();
  if (s) return *s;
  const ParseError& e = *parser.error();
  if (error_offset) *error_offset = e.offset;
  return InvalidArgument("invalid sharding: {}", e.message);
}

}  // namespace spmdc

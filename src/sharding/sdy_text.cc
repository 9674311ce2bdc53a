#include "sharding/sdy_text.h"

#include <charconv>
#include <optional>

#include "fmt/format.h"
#include "sharding/text_lexer.h"

namespace spmdc {
namespace {

// Guards: nesting and counts stay far below what could exhaust memory on hostile input.
constexpr int64_t kMaxFactors = 1 << 16;
constexpr int64_t kMaxDevices = int64_t{1} << 20;

// The shared sharding-text tokenizer in the MLIR dialect (text_lexer.h): `#sdy.mesh` lexes as
// kHash + identifier `sdy.mesh`; `@name` and `@"name"` as kAt with the name; strings are MLIR
// strings (C escapes), unescaped in `value_text`.
using sharding_text_lexer::Tok;
using sharding_text_lexer::Token;
class Lexer : public sharding_text_lexer::Lexer {
 public:
  explicit Lexer(std::string_view text) : sharding_text_lexer::Lexer(text, sharding_text_lexer::kSdyDialect) {}
};

std::string Describe(const Token& t) {
  switch (t.kind) {
    case Tok::kEnd: return "the end of the attribute";
    case Tok::kError: return "an invalid token";
    default: {
      std::string_view s = t.text.size() > 24 ? t.text.substr(0, 24) : t.text;
      return fmt::format("'{}'", s);
    }
  }
}

class Parser {
 public:
  explicit Parser(std::string_view text) : lexer_(text) {}

  // Sets the error (the first one wins) and returns false.
  bool Fail(size_t offset, std::string message) {
    if (!error_) error_ = std::make_pair(offset, std::move(message));
    return false;
  }
  bool Unexpected(const Token& t, std::string_view what) {
    if (t.kind == Tok::kError) return Fail(t.offset, fmt::format("expected {}", t.text));
    return Fail(t.offset, fmt::format("expected {}, found {}", what, Describe(t)));
  }
  bool Expect(Tok kind, std::string_view what) {
    Token t = lexer_.Next();
    if (t.kind != kind) return Unexpected(t, what);
    return true;
  }
  bool ExpectEnd() {
    Token t = lexer_.Next();
    if (t.kind != Tok::kEnd) return Unexpected(t, "the end of the attribute");
    return true;
  }
  Status Error(size_t* error_offset) const {
    if (error_offset) *error_offset = error_->first;
    return InvalidArgument("{}", error_->second);
  }

  // An optional `#sdy.NAME` / `NAME` prefix before '<' (`want` is e.g. "sdy.mesh" or "mesh").
  bool Prefix(std::initializer_list<std::string_view> accepted, std::string_view what) {
    Token t = lexer_.Peek();
    if (t.kind == Tok::kLAngle) return true;
    if (t.kind == Tok::kHash) {
      lexer_.Next();
      t = lexer_.Peek();
      if (t.kind != Tok::kIdent) return Unexpected(t, what);
    }
    if (t.kind != Tok::kIdent) return Unexpected(t, what);
    for (std::string_view a : accepted) {
      if (t.text == a) {
        lexer_.Next();
        return true;
      }
    }
    return Unexpected(t, what);
  }

  bool Int(int64_t* out, std::string_view what) {
    Token t = lexer_.Next();
    if (t.kind != Tok::kInt) return Unexpected(t, what);
    *out = t.value;
    return true;
  }

  // mesh := ['#sdy.mesh' | 'mesh'] '<' '[' [STRING '=' INT (',' ...)*] ']' [',' 'device_ids=' '[' INT,.. ']'] '>'
  bool Mesh(NamedMesh* mesh) {
    if (!Prefix({"sdy.mesh", "mesh"}, "'#sdy.mesh<'")) return false;
    if (!Expect(Tok::kLAngle, "'<' starting the mesh") || !Expect(Tok::kLBracket, "'[' starting the mesh axes"))
      return false;
    const size_t start = lexer_.pos();
    if (lexer_.Peek().kind != Tok::kRBracket) {
      while (true) {
        Token name = lexer_.Next();
        if (name.kind != Tok::kString) return Unexpected(name, "a quoted mesh axis name");
        if (!Expect(Tok::kEq, "'=' after the axis name")) return false;
        Token size = lexer_.Peek();
        int64_t v;
        if (!Int(&v, "the axis size")) return false;
        if (mesh->AxisIndex(name.value_text) >= 0)
          return Fail(name.offset, fmt::format("mesh axis \"{}\" given twice", name.value_text));
        if (v <= 0 || v > kMaxDevices) return Fail(size.offset, fmt::format("invalid mesh axis size {}", v));
        mesh->names.push_back(name.value_text);
        mesh->sizes.push_back(v);
        if (mesh->num_devices() > kMaxDevices) return Fail(size.offset, "the mesh has too many devices");
        Token sep = lexer_.Next();
        if (sep.kind == Tok::kRBracket) break;
        if (sep.kind != Tok::kComma) return Unexpected(sep, "',' or ']' in the mesh axes");
      }
    } else {
      lexer_.Next();
    }
    if (lexer_.Peek().kind == Tok::kComma) {
      lexer_.Next();
      Token kw = lexer_.Next();
      if (kw.kind != Tok::kIdent || kw.text != "device_ids") return Unexpected(kw, "'device_ids='");
      if (!Expect(Tok::kEq, "'=' after device_ids") || !Expect(Tok::kLBracket, "'[' starting the device ids"))
        return false;
      const size_t ids_offset = lexer_.Peek().offset;
      std::vector<int64_t> ids;
      if (lexer_.Peek().kind != Tok::kRBracket) {
        while (true) {
          int64_t v;
          if (!Int(&v, "a device id")) return false;
          if (static_cast<int64_t>(ids.size()) > kMaxDevices) return Fail(ids_offset, "too many device ids");
          ids.push_back(v);
          Token sep = lexer_.Next();
          if (sep.kind == Tok::kRBracket) break;
          if (sep.kind != Tok::kComma) return Unexpected(sep, "',' or ']' in the device ids");
        }
      } else {
        lexer_.Next();
      }
      if (mesh->names.empty()) {
        // `<[], device_ids=[k]>`: maximal on device k.
        if (ids.size() != 1 || ids[0] < 0) return Fail(ids_offset, "a mesh without axes takes one device id");
        mesh->maximal_device = ids[0];
      } else {
        StatusOr<TileAssignment> devices = MeshDevicesFromIds(mesh->sizes, std::move(ids));
        if (!devices.ok()) return Fail(ids_offset, std::string(devices.status().message()));
        mesh->devices = *std::move(devices);
      }
    }
    if (Status st = ValidateNamedMesh(*mesh); !st.ok()) return Fail(start, std::string(st.message()));
    return Expect(Tok::kRAngle, "'>' ending the mesh");
  }

  // axref := STRING [':' '(' INT ')' INT]
  bool AxisRefOn(const NamedMesh& mesh, AxisRef* ref) {
    Token name = lexer_.Next();
    if (name.kind != Tok::kString) return Unexpected(name, "a quoted mesh axis name");
    ref->axis = mesh.AxisIndex(name.value_text);
    ref->offset = name.offset;
    if (ref->axis < 0) return Fail(name.offset, fmt::format("no mesh axis \"{}\"", name.value_text));
    if (lexer_.Peek().kind != Tok::kColon) return true;
    lexer_.Next();
    if (!Expect(Tok::kLParen, "'(' of a sub-axis") || !Int(&ref->pre, "the sub-axis pre-size") ||
        !Expect(Tok::kRParen, "')' after the sub-axis pre-size") || !Int(&ref->size, "the sub-axis size"))
      return false;
    if (Status st = ValidateAxisRef(mesh, *ref); !st.ok()) return Fail(name.offset, std::string(st.message()));
    return true;
  }

  // axes := '{' [axref (',' axref)*] '}'
  bool AxisList(const NamedMesh& mesh, std::vector<AxisRef>* out) {
    if (!Expect(Tok::kLBrace, "'{' starting a list of axes")) return false;
    if (lexer_.Peek().kind == Tok::kRBrace) {
      lexer_.Next();
      return true;
    }
    while (true) {
      AxisRef ref;
      if (!AxisRefOn(mesh, &ref)) return false;
      out->push_back(ref);
      Token sep = lexer_.Next();
      if (sep.kind == Tok::kRBrace) return true;
      if (sep.kind != Tok::kComma) return Unexpected(sep, "',' or '}' in a list of axes");
    }
  }

  // dim := '{' [axref (',' axref)*] [',' '?'] '}' ['p' INT]      ('{?}': open and empty)
  bool Dim(const NamedMesh& mesh, NamedDim* dim) {
    if (!Expect(Tok::kLBrace, "'{' starting a dimension sharding")) return false;
    if (lexer_.Peek().kind != Tok::kRBrace) {
      while (true) {
        Token t = lexer_.Peek();
        if (dim->open) return Fail(t.offset, "an axis after '?'");
        if (t.kind == Tok::kQuestion) {
          lexer_.Next();
          dim->open = true;
        } else {
          AxisRef ref;
          if (!AxisRefOn(mesh, &ref)) return false;
          dim->axes.push_back(ref);
        }
        Token sep = lexer_.Peek();
        if (sep.kind == Tok::kRBrace) break;
        lexer_.Next();
        if (sep.kind != Tok::kComma) return Unexpected(sep, "',' or '}' in a dimension sharding");
      }
    }
    lexer_.Next();  // '}'
    // A priority follows the '}' directly: `}p2`.
    Token p = lexer_.Peek();
    if (p.kind == Tok::kIdent && p.text.size() >= 2 && p.text[0] == 'p') {
      int64_t v = 0;
      auto [end, ec] = std::from_chars(p.text.data() + 1, p.text.data() + p.text.size(), v);
      if (ec != std::errc() || end != p.text.data() + p.text.size() || v < 0)
        return Fail(p.offset, fmt::format("invalid priority '{}'", p.text));
      lexer_.Next();
      dim->priority = v;
    }
    return true;
  }

  // body := '<' ('@' NAME | mesh) ',' '[' [dim (',' dim)*] ']' [',' 'replicated=' axes]
  //         [',' 'unreduced=' ['max'|'min'|'sum'] axes] '>'
  bool ShardingBody(const SdyMeshes& meshes, SdySharding* out) {
    if (!Expect(Tok::kLAngle, "'<' starting the sharding")) return false;
    Token m = lexer_.Peek();
    if (m.kind == Tok::kAt) {
      lexer_.Next();
      const NamedMesh* mesh = meshes.Find(m.value_text);
      if (!mesh) return Fail(m.offset, fmt::format("unknown mesh @{} (not in xla.sdy.meshes)", m.value_text));
      out->mesh_name = m.value_text;
      out->mesh = *mesh;
    } else if (!Mesh(&out->mesh)) {
      return false;
    }
    if (!Expect(Tok::kComma, "',' after the mesh") || !Expect(Tok::kLBracket, "'[' starting the dimension shardings"))
      return false;
    if (lexer_.Peek().kind != Tok::kRBracket) {
      while (true) {
        if (out->named.dims.size() > static_cast<size_t>(kMaxFactors)) return Fail(lexer_.pos(), "too many dims");
        NamedDim dim;
        if (!Dim(out->mesh, &dim)) return false;
        out->named.dims.push_back(std::move(dim));
        Token sep = lexer_.Next();
        if (sep.kind == Tok::kRBracket) break;
        if (sep.kind != Tok::kComma) return Unexpected(sep, "',' or ']' in the dimension shardings");
      }
    } else {
      lexer_.Next();
    }
    while (lexer_.Peek().kind == Tok::kComma) {
      lexer_.Next();
      Token kw = lexer_.Next();
      if (kw.kind != Tok::kIdent || (kw.text != "replicated" && kw.text != "unreduced"))
        return Unexpected(kw, "'replicated=' or 'unreduced='");
      if (!Expect(Tok::kEq, fmt::format("'=' after {}", kw.text))) return false;
      if (kw.text == "replicated") {
        if (!AxisList(out->mesh, &out->named.replicated)) return false;
      } else {
        Token op = lexer_.Peek();
        if (op.kind == Tok::kIdent) {
          if (op.text != "sum" && op.text != "max" && op.text != "min")
            return Unexpected(op, "sum, max, min or '{'");
          lexer_.Next();
          out->named.unreduced_op = std::string(op.text);
        }
        if (!AxisList(out->mesh, &out->named.unreduced)) return false;
      }
    }
    return Expect(Tok::kRAngle, "'>' ending the sharding");
  }

  bool Sharding(const SdyMeshes& meshes, SdySharding* out) {
    return Prefix({"sdy.sharding"}, "'#sdy.sharding<'") && ShardingBody(meshes, out);
  }

  bool PerValue(const SdyMeshes& meshes, std::vector<SdySharding>* out) {
    Token t = lexer_.Peek();
    if (t.kind == Tok::kHash) {
      // `#sdy.sharding<...>` alone: one value.
      Lexer probe = lexer_;
      probe.Next();
      Token name = probe.Next();
      if (name.kind == Tok::kIdent && name.text == "sdy.sharding") {
        out->emplace_back();
        return Sharding(meshes, &out->back());
      }
    }
    if (!Prefix({"sdy.sharding_per_value"}, "'#sdy.sharding_per_value<'")) return false;
    if (!Expect(Tok::kLAngle, "'<'") || !Expect(Tok::kLBracket, "'[' starting the per-value shardings"))
      return false;
    if (lexer_.Peek().kind != Tok::kRBracket) {
      while (true) {
        out->emplace_back();
        if (!ShardingBody(meshes, &out->back())) return false;
        Token sep = lexer_.Next();
        if (sep.kind == Tok::kRBracket) break;
        if (sep.kind != Tok::kComma) return Unexpected(sep, "',' or ']' in the per-value shardings");
      }
    } else {
      lexer_.Next();
    }
    return Expect(Tok::kRAngle, "'>' ending the per-value shardings");
  }

  bool Meshes(SdyMeshes* out) {
    const bool braced = lexer_.Peek().kind == Tok::kLBrace;
    if (braced) lexer_.Next();
    if (braced && lexer_.Peek().kind == Tok::kRBrace) {
      lexer_.Next();
      return true;
    }
    while (true) {
      Token name = lexer_.Next();
      if (name.kind != Tok::kIdent && name.kind != Tok::kString) return Unexpected(name, "a mesh name");
      std::string n = name.kind == Tok::kString ? name.value_text : std::string(name.text);
      if (out->Find(n)) return Fail(name.offset, fmt::format("mesh '{}' given twice", n));
      if (!Expect(Tok::kEq, "'=' after the mesh name")) return false;
      NamedMesh mesh;
      if (!Mesh(&mesh)) return false;
      out->meshes.emplace_back(std::move(n), std::move(mesh));
      Token sep = lexer_.Next();
      if (braced && sep.kind == Tok::kRBrace) return true;
      if (!braced && sep.kind == Tok::kEnd) return true;
      if (sep.kind != Tok::kComma) return Unexpected(sep, braced ? "',' or '}' between meshes" : "',' between meshes");
    }
  }

  bool ManualAxes(std::vector<std::string>* out) {
    Token t = lexer_.Peek();
    bool wrapped = false;
    if (t.kind == Tok::kHash) {
      lexer_.Next();
      Token name = lexer_.Next();
      if (name.kind != Tok::kIdent || name.text != "sdy") return Unexpected(name, "'#sdy<manual_axes'");
      if (!Expect(Tok::kLAngle, "'<' after #sdy")) return false;
      Token kw = lexer_.Next();
      if (kw.kind != Tok::kIdent || kw.text != "manual_axes") return Unexpected(kw, "'manual_axes'");
      wrapped = true;
    }
    if (!Expect(Tok::kLBrace, "'{' starting the manual axes")) return false;
    if (lexer_.Peek().kind != Tok::kRBrace) {
      while (true) {
        Token name = lexer_.Next();
        if (name.kind != Tok::kString) return Unexpected(name, "a quoted axis name");
        for (const std::string& s : *out)
          if (s == name.value_text) return Fail(name.offset, fmt::format("manual axis \"{}\" given twice", s));
        out->push_back(name.value_text);
        Token sep = lexer_.Next();
        if (sep.kind == Tok::kRBrace) break;
        if (sep.kind != Tok::kComma) return Unexpected(sep, "',' or '}' in the manual axes");
      }
    } else {
      lexer_.Next();
    }
    return !wrapped || Expect(Tok::kRAngle, "'>' ending the manual axes");
  }

  // A factor group `ij`, `z_1k`: one factor per letter, 'z_N' being factor 17 + N.
  bool FactorGroup(const Token& t, std::vector<int64_t>* out) {
    std::string_view s = t.text;
    for (size_t i = 0; i < s.size();) {
      const char c = s[i];
      if (c < 'i' || c > 'z') return Fail(t.offset + i, fmt::format("invalid factor name in '{}'", s));
      int64_t f = c - 'i';
      ++i;
      if (c == 'z' && i < s.size() && s[i] == '_') {
        size_t j = i + 1;
        while (j < s.size() && s[j] >= '0' && s[j] <= '9') ++j;
        int64_t n = 0;
        auto [end, ec] = std::from_chars(s.data() + i + 1, s.data() + j, n);
        if (ec != std::errc() || end == s.data() + i + 1 || n < 1 || n > kMaxFactors)
          return Fail(t.offset + i, fmt::format("invalid factor name in '{}'", s));
        f = 17 + n;
        i = j;
      }
      out->push_back(f);
    }
    return true;
  }

  // '(' tensor (',' tensor)* ')' with tensor := '[' [group (',' group)*] ']'
  bool TensorMaps(std::vector<SdyShardingRule::TensorFactors>* out) {
    if (!Expect(Tok::kLParen, "'(' starting the tensor mappings")) return false;
    if (lexer_.Peek().kind == Tok::kRParen) {
      lexer_.Next();
      return true;
    }
    while (true) {
      if (!Expect(Tok::kLBracket, "'[' starting a tensor mapping")) return false;
      SdyShardingRule::TensorFactors tensor;
      if (lexer_.Peek().kind != Tok::kRBracket) {
        while (true) {
          Token g = lexer_.Next();
          if (g.kind != Tok::kIdent) return Unexpected(g, "factors of a dimension");
          std::vector<int64_t> factors;
          if (!FactorGroup(g, &factors)) return false;
          tensor.push_back(std::move(factors));
          Token sep = lexer_.Next();
          if (sep.kind == Tok::kRBracket) break;
          if (sep.kind != Tok::kComma) return Unexpected(sep, "',' or ']' in a tensor mapping");
        }
      } else {
        lexer_.Next();
      }
      out->push_back(std::move(tensor));
      Token sep = lexer_.Next();
      if (sep.kind == Tok::kRParen) return true;
      if (sep.kind != Tok::kComma) return Unexpected(sep, "',' or ')' between tensor mappings");
    }
  }

  // '{' [F (',' F)*] '}' of factor names.
  bool FactorSet(std::vector<int64_t>* out) {
    if (!Expect(Tok::kLBrace, "'{' starting a factor set")) return false;
    if (lexer_.Peek().kind == Tok::kRBrace) {
      lexer_.Next();
      return true;
    }
    while (true) {
      Token g = lexer_.Next();
      if (g.kind != Tok::kIdent) return Unexpected(g, "a factor name");
      std::vector<int64_t> f;
      if (!FactorGroup(g, &f)) return false;
      if (f.size() != 1) return Fail(g.offset, fmt::format("'{}' is not one factor", g.text));
      out->push_back(f[0]);
      Token sep = lexer_.Next();
      if (sep.kind == Tok::kRBrace) return true;
      if (sep.kind != Tok::kComma) return Unexpected(sep, "',' or '}' in a factor set");
    }
  }

  bool Rule(SdyShardingRule* rule) {
    if (!Prefix({"sdy.op_sharding_rule"}, "'#sdy.op_sharding_rule<'") || !Expect(Tok::kLAngle, "'<'")) return false;
    if (!TensorMaps(&rule->operands) || !Expect(Tok::kArrow, "'->' between operands and results") ||
        !TensorMaps(&rule->results))
      return false;
    int64_t max_factor = -1;
    for (const auto* side : {&rule->operands, &rule->results})
      for (const auto& tensor : *side)
        for (const auto& dim : tensor)
          for (int64_t f : dim) max_factor = std::max(max_factor, f);
    rule->factor_sizes.assign(static_cast<size_t>(max_factor + 1), 0);
    while (true) {
      Token t = lexer_.Peek();
      if (t.kind == Tok::kRAngle) {
        lexer_.Next();
        break;
      }
      if (t.kind == Tok::kComma) {
        lexer_.Next();
        Token kw = lexer_.Next();
        if (kw.kind != Tok::kIdent || kw.text != "custom") return Unexpected(kw, "'custom'");
        rule->custom = true;
        continue;
      }
      if (t.kind == Tok::kLBrace) {
        // {i=8, j=16}
        lexer_.Next();
        while (lexer_.Peek().kind != Tok::kRBrace) {
          Token g = lexer_.Next();
          if (g.kind != Tok::kIdent) return Unexpected(g, "a factor name");
          std::vector<int64_t> f;
          if (!FactorGroup(g, &f)) return false;
          if (f.size() != 1) return Fail(g.offset, fmt::format("'{}' is not one factor", g.text));
          if (f[0] > max_factor) return Fail(g.offset, fmt::format("factor '{}' maps no dimension", g.text));
          if (!Expect(Tok::kEq, "'=' after the factor")) return false;
          Token size = lexer_.Peek();
          int64_t v;
          if (!Int(&v, "the factor size")) return false;
          if (v < 0) return Fail(size.offset, "a factor size is non-negative");
          rule->factor_sizes[f[0]] = v;
          Token sep = lexer_.Peek();
          if (sep.kind == Tok::kComma) lexer_.Next();
          else if (sep.kind != Tok::kRBrace) return Unexpected(sep, "',' or '}' in the factor sizes");
        }
        lexer_.Next();
        continue;
      }
      if (t.kind == Tok::kIdent) {
        lexer_.Next();
        std::vector<int64_t>* set = nullptr;
        if (t.text == "reduction") set = &rule->reduction;
        if (t.text == "need_replication") set = &rule->need_replication;
        if (t.text == "permutation") set = &rule->permutation;
        if (t.text == "blocked_propagation") set = &rule->blocked_propagation;
        if (!set) return Unexpected(t, "a factor set name (reduction, need_replication, permutation, ...)");
        if (!Expect(Tok::kEq, "'='") || !FactorSet(set)) return false;
        for (int64_t f : *set)
          if (f > max_factor) return Fail(t.offset, fmt::format("{} names a factor that maps no dimension", t.text));
        continue;
      }
      return Unexpected(t, "factor sizes, a factor set, ', custom' or '>'");
    }
    return true;
  }

  Lexer lexer_;
  std::optional<std::pair<size_t, std::string>> error_;
};

// Quotes an axis or mesh name as MLIR prints strings.
std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// A symbol name: bare when it is an identifier, quoted otherwise.
std::string Symbol(std::string_view s) {
  bool bare = !s.empty() && !(s[0] >= '0' && s[0] <= '9');
  for (char c : s)
    bare &= (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
            c == '$' || c == '-';
  return bare ? std::string(s) : Quote(s);
}

std::string AxisRefText(const NamedMesh& mesh, const AxisRef& r) {
  std::string out = Quote(mesh.names[r.axis]);
  if (r.size != 0) out += fmt::format(":({}){}", r.pre, r.size);
  return out;
}

std::string AxisListText(const NamedMesh& mesh, const std::vector<AxisRef>& refs) {
  std::string out = "{";
  for (size_t i = 0; i < refs.size(); ++i) out += (i ? ", " : "") + AxisRefText(mesh, refs[i]);
  return out + "}";
}

}  // namespace

const NamedMesh* SdyMeshes::Find(std::string_view name) const {
  for (const auto& [n, m] : meshes)
    if (n == name) return &m;
  return nullptr;
}

bool SdySharding::FullyOpen() const {
  for (const NamedDim& d : named.dims)
    if (!d.open || !d.axes.empty()) return false;
  return named.replicated.empty() && named.unreduced.empty();
}

StatusOr<SdyMeshes> ParseSdyMeshes(std::string_view text, size_t* error_offset) {
  Parser p(text);
  SdyMeshes out;
  if (!p.Meshes(&out) || !p.ExpectEnd()) return p.Error(error_offset);
  return out;
}

StatusOr<NamedMesh> ParseSdyMesh(std::string_view text, size_t* error_offset) {
  Parser p(text);
  NamedMesh mesh;
  if (!p.Mesh(&mesh) || !p.ExpectEnd()) return p.Error(error_offset);
  return mesh;
}

StatusOr<SdySharding> ParseSdySharding(std::string_view text, const SdyMeshes& meshes, size_t* error_offset) {
  Parser p(text);
  SdySharding out;
  if (!p.Sharding(meshes, &out) || !p.ExpectEnd()) return p.Error(error_offset);
  return out;
}

StatusOr<std::vector<SdySharding>> ParseSdyShardingPerValue(std::string_view text, const SdyMeshes& meshes,
                                                            size_t* error_offset) {
  Parser p(text);
  std::vector<SdySharding> out;
  if (!p.PerValue(meshes, &out) || !p.ExpectEnd()) return p.Error(error_offset);
  return out;
}

StatusOr<std::vector<std::string>> ParseSdyManualAxes(std::string_view text, size_t* error_offset) {
  Parser p(text);
  std::vector<std::string> out;
  if (!p.ManualAxes(&out) || !p.ExpectEnd()) return p.Error(error_offset);
  return out;
}

StatusOr<SdyShardingRule> ParseSdyShardingRule(std::string_view text, size_t* error_offset) {
  Parser p(text);
  SdyShardingRule out;
  if (!p.Rule(&out) || !p.ExpectEnd()) return p.Error(error_offset);
  return out;
}

StatusOr<int64_t> ParseSdyInteger(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && text[i] == ' ') ++i;
  size_t j = i;
  if (j < text.size() && text[j] == '-') ++j;
  while (j < text.size() && text[j] >= '0' && text[j] <= '9') ++j;
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data() + i, text.data() + j, v);
  if (ec != std::errc() || end == text.data() + i) return InvalidArgument("expected an integer, found '{}'", text);
  std::string_view rest = text.substr(j);
  while (!rest.empty() && rest[0] == ' ') rest.remove_prefix(1);
  if (!rest.empty()) {
    if (rest[0] != ':') return InvalidArgument("expected an integer, found '{}'", text);
    rest.remove_prefix(1);
    while (!rest.empty() && rest[0] == ' ') rest.remove_prefix(1);
    if (rest != "i64" && rest != "i32" && rest != "index") return InvalidArgument("expected an integer type in '{}'", text);
  }
  return v;
}

std::string SdyMeshToString(const NamedMesh& mesh) {
  std::string out = "#sdy.mesh<[";
  for (size_t i = 0; i < mesh.names.size(); ++i)
    out += fmt::format("{}{}={}", i ? ", " : "", Quote(mesh.names[i]), mesh.sizes[i]);
  out += "]";
  if (mesh.maximal_device) {
    out += fmt::format(", device_ids=[{}]", *mesh.maximal_device);
  } else if (mesh.devices && !(*mesh.devices == TileAssignment(mesh.sizes))) {
    std::vector<int64_t> ids;
    mesh.devices->Each([&](std::span<const int64_t>, int64_t d) { ids.push_back(d); });
    out += ", device_ids=[";
    for (size_t i = 0; i < ids.size(); ++i) out += fmt::format("{}{}", i ? ", " : "", ids[i]);
    out += "]";
  }
  return out + ">";
}

std::string SdyMeshesToString(const SdyMeshes& meshes) {
  std::string out = "{";
  for (size_t i = 0; i < meshes.meshes.size(); ++i)
    out += fmt::format("{}{} = {}", i ? ", " : "", Symbol(meshes.meshes[i].first), SdyMeshToString(meshes.meshes[i].second));
  return out + "}";
}

std::string SdyShardingBodyToString(std::string_view mesh_name, const NamedMesh& mesh, const NamedSharding& named) {
  std::string out = "<";
  out += mesh_name.empty() ? SdyMeshToString(mesh) : "@" + Symbol(mesh_name);
  out += ", [";
  for (size_t i = 0; i < named.dims.size(); ++i) {
    const NamedDim& d = named.dims[i];
    out += i ? ", {" : "{";
    for (size_t j = 0; j < d.axes.size(); ++j) out += (j ? ", " : "") + AxisRefText(mesh, d.axes[j]);
    if (d.open) out += d.axes.empty() ? "?" : ", ?";
    out += "}";
    if (d.priority >= 0) out += fmt::format("p{}", d.priority);
  }
  out += "]";
  if (!named.replicated.empty()) out += ", replicated=" + AxisListText(mesh, named.replicated);
  if (!named.unreduced.empty()) {
    out += ", unreduced=";
    if (!named.unreduced_op.empty() && named.unreduced_op != "sum") out += named.unreduced_op;
    out += AxisListText(mesh, named.unreduced);
  }
  return out + ">";
}

std::string SdyShardingToString(std::string_view mesh_name, const NamedMesh& mesh, const NamedSharding& named) {
  return "#sdy.sharding" + SdyShardingBodyToString(mesh_name, mesh, named);
}

}  // namespace spmdc

#include "sharding/sharding_text.h"

#include <charconv>
#include <cctype>
#include <optional>

#include "fmt/format.h"

namespace spmdc {
namespace {

// Guards against tile arrays too large to ever be valid (and to materialise): 2^20 devices.
constexpr int64_t kMaxDevices = int64_t{1} << 20;

enum class Tok { kLBrace, kRBrace, kLBracket, kRBracket, kLParen, kRParen, kComma, kLe, kEq,
                 kInt, kIdent, kString, kEnd, kError };

struct Token {
  Tok kind = Tok::kEnd;
  size_t offset = 0;
  std::string_view text;
  int64_t value = 0;
};

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  Token Next() {
    SkipSpaceAndComments();
    Token t;
    t.offset = pos_;
    if (pos_ >= text_.size()) return t;
    const char c = text_[pos_];
    auto single = [&](Tok k) {
      t.kind = k;
      t.text = text_.substr(pos_, 1);
      ++pos_;
      return t;
    };
    switch (c) {
      case '{': return single(Tok::kLBrace);
      case '}': return single(Tok::kRBrace);
      case '[': return single(Tok::kLBracket);
      case ']': return single(Tok::kRBracket);
      case '(': return single(Tok::kLParen);
      case ')': return single(Tok::kRParen);
      case ',': return single(Tok::kComma);
      case '=': return single(Tok::kEq);
      default: break;
    }
    if (c == '<' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '=') {
      t.kind = Tok::kLe;
      t.text = text_.substr(pos_, 2);
      pos_ += 2;
      return t;
    }
    if (c == '"') {
      size_t end = pos_ + 1;
      while (end < text_.size() && text_[end] != '"') {
        if (text_[end] == '\\') ++end;
        ++end;
      }
      if (end >= text_.size()) {
        t.kind = Tok::kError;
        t.text = "unterminated string";
        return t;
      }
      t.kind = Tok::kString;
      t.text = text_.substr(pos_, end + 1 - pos_);
      pos_ = end + 1;
      return t;
    }
    if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) {
      size_t end = pos_ + (c == '-' ? 1 : 0);
      while (end < text_.size() && std::isdigit(static_cast<unsigned char>(text_[end]))) ++end;
      auto [ptr, ec] = std::from_chars(text_.data() + pos_, text_.data() + end, t.value);
      if (ec != std::errc() || ptr != text_.data() + end) {
        t.kind = Tok::kError;
        t.text = "invalid integer";
        return t;
      }
      t.kind = Tok::kInt;
      t.text = text_.substr(pos_, end - pos_);
      pos_ = end;
      return t;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t end = pos_;
      while (end < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[end])) || text_[end] == '_' ||
              text_[end] == '.')) {
        ++end;
      }
      t.kind = Tok::kIdent;
      t.text = text_.substr(pos_, end - pos_);
      pos_ = end;
      return t;
    }
    t.kind = Tok::kError;
    t.text = "unexpected character";
    return t;
  }

  Token Peek() {
    size_t save = pos_;
    Token t = Next();
    pos_ = save;
    return t;
  }

  std::string_view text() const { return text_; }

 private:
  void SkipSpaceAndComments() {
    while (pos_ < text_.size()) {
      if (std::isspace(static_cast<unsigned char>(text_[pos_]))) {
        ++pos_;
      } else if (text_.substr(pos_, 2) == "/*") {
        size_t end = text_.find("*/", pos_ + 2);
        pos_ = end == std::string_view::npos ? text_.size() : end + 2;
      } else {
        break;
      }
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
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
      Token tt = lexer_.Peek();
      if (tt.kind == Tok::kIdent && tt.text == "T") {
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
        perm = *p;
      }
      return TileAssignment(*dims, *reshape, perm);
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
    return TileAssignment::FromDevices(*dims, std::move(ids));
  }

  // One OpMetadata: key=value fields separated by spaces or commas, up to (not including) '}'.
  std::optional<std::string> ParseMetadataFields() {
    static constexpr std::string_view kOrder[] = {
        "op_type", "op_name", "source_file", "source_line", "source_end_line", "source_column",
        "source_end_column", "profile_type", "deduplicated_name", "preserve_layout",
        "scheduling_name", "stack_frame_id"};
    std::vector<std::pair<std::string_view, std::string>> fields;
    while (true) {
      Token t = lexer_.Peek();
      if (t.kind == Tok::kRBrace) break;
      if (t.kind == Tok::kComma) {
        lexer_.Next();
        continue;
      }
      lexer_.Next();
      if (t.kind != Tok::kIdent) return Unexpected(t, "a metadata field name");
      if (!Expect(Tok::kEq, "'=' after a metadata field name")) return std::nullopt;
      Token v = lexer_.Next();
      std::string value;
      if (v.kind == Tok::kString || v.kind == Tok::kInt || v.kind == Tok::kIdent) {
        value = std::string(v.text);
      } else if (v.kind == Tok::kLBrace) {
        int depth = 1;
        size_t start = v.offset;
        Token inner;
        while (depth > 0) {
          inner = lexer_.Next();
          if (inner.kind == Tok::kEnd || inner.kind == Tok::kError) {
            return Unexpected(inner, "'}' closing a metadata value");
          }
          if (inner.kind == Tok::kLBrace) ++depth;
          if (inner.kind == Tok::kRBrace) --depth;
        }
        value = std::string(lexer_.text().substr(start, inner.offset + 1 - start));
      } else {
        return Unexpected(v, "a metadata value");
      }
      fields.emplace_back(t.text, std::move(value));
    }
    auto rank = [&](std::string_view key) {
      for (size_t i = 0; i < std::size(kOrder); ++i) {
        if (kOrder[i] == key) return i;
      }
      return std::size(kOrder);
    };
    std::stable_sort(fields.begin(), fields.end(),
                     [&](const auto& a, const auto& b) { return rank(a.first) < rank(b.first); });
    std::string out;
    for (const auto& [key, value] : fields) {
      if (!out.empty()) out += ' ';
      out += fmt::format("{}={}", key, value);
    }
    return out;
  }

  std::optional<ShardingMetadata> ParseMetadata() {
    if (!Expect(Tok::kLBrace, "'{' after metadata=")) return std::nullopt;
    ShardingMetadata out;
    if (lexer_.Peek().kind == Tok::kLBrace) {
      while (true) {
        if (!Expect(Tok::kLBrace, "'{' starting a metadata entry")) return std::nullopt;
        auto entry = ParseMetadataFields();
        if (!entry) return std::nullopt;
        if (!Expect(Tok::kRBrace, "'}' ending a metadata entry")) return std::nullopt;
        out.push_back(std::move(*entry));
        Token sep = lexer_.Next();
        if (sep.kind == Tok::kRBrace) break;
        if (sep.kind != Tok::kComma) return Unexpected(sep, "',' or '}' in the metadata list");
      }
      return out;
    }
    auto entry = ParseMetadataFields();
    if (!entry) return std::nullopt;
    if (!Expect(Tok::kRBrace, "'}' ending the metadata")) return std::nullopt;
    if (!entry->empty()) out.push_back(std::move(*entry));
    return out;
  }

  // The items of a non-tuple sharding, after its '{' and through its '}'.
  std::optional<Sharding> ParseBody() {
    size_t body_offset = lexer_.Peek().offset;
    std::optional<std::string_view> kind;  // replicated / manual / unknown / maximal / devices
    size_t kind_offset = 0;
    std::optional<int64_t> device;
    std::optional<TileAssignment> tiles;
    bool last_tile_dim_replicate = false;
    std::optional<std::vector<SubgroupType>> subgroup_types;
    size_t subgroup_offset = 0;
    ShardGroup group;
    ShardingMetadata metadata;
    auto set_kind = [&](const Token& t) -> bool {
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
      if (t.kind != Tok::kIdent) return Unexpected(t, "a sharding item or '}'");
      const std::string_view w = t.text;
      if (w == "replicated" || w == "manual" || w == "unknown" || w == "maximal") {
        if (!set_kind(t)) return std::nullopt;
      } else if (w == "device") {
        if (!Expect(Tok::kEq, "'=' after 'device'")) return std::nullopt;
        Token v = lexer_.Next();
        if (v.kind != Tok::kInt) return Unexpected(v, "a device id after 'device='");
        if (device) return Fail(t.offset, "'device=' given twice");
        device = v.value;
      } else if (w == "devices") {
        if (!set_kind(t)) return std::nullopt;
        if (!Expect(Tok::kEq, "'=' after 'devices'")) return std::nullopt;
        tiles = ParseTileAssignment();
        if (!tiles) return std::nullopt;
      } else if (w == "last_tile_dim_replicate") {
        last_tile_dim_replicate = true;
      } else if (w == "last_tile_dims") {
        subgroup_offset = t.offset;
        if (!Expect(Tok::kEq, "'=' after 'last_tile_dims'")) return std::nullopt;
        if (!Expect(Tok::kLBrace, "'{' after 'last_tile_dims='")) return std::nullopt;
        std::vector<SubgroupType> types;
        while (true) {
          Token v = lexer_.Next();
          if (v.kind == Tok::kIdent && v.text == "manual") {
            types.push_back(SubgroupType::kManual);
          } else if (v.kind == Tok::kIdent && v.text == "replicated") {
            types.push_back(SubgroupType::kReplicated);
          } else if (v.kind == Tok::kIdent && (v.text == "maximal" || v.text == "maximul")) {
            types.push_back(SubgroupType::kMaximal);
          } else {
            return Unexpected(v, "a subgroup type (manual, replicated or maximal)");
          }
          Token sep = lexer_.Next();
          if (sep.kind == Tok::kRBrace) break;
          if (sep.kind != Tok::kComma) return Unexpected(sep, "',' or '}' in last_tile_dims");
        }
        subgroup_types = std::move(types);
      } else if (w == "shard_as" || w == "shard_like") {
        Token v = lexer_.Next();
        if (v.kind != Tok::kInt || v.value < 0) {
          return Unexpected(v, fmt::format("a non-negative group id after '{}'", w));
        }
        if (group.valid()) return Fail(t.offset, "a sharding belongs to at most one shard group");
        group = ShardGroup{v.value, w == "shard_as"};
      } else if (w == "metadata") {
        if (!Expect(Tok::kEq, "'=' after 'metadata'")) return std::nullopt;
        auto md = ParseMetadata();
        if (!md) return std::nullopt;
        metadata = std::move(*md);
      } else {
        return Fail(t.offset, fmt::format("unknown sharding item '{}'", w));
      }
    }
    if (!kind) {
      return Fail(body_offset, "sharding needs one of replicated, manual, unknown, maximal or devices=");
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
    } else if (*kind == "maximal") {
      if (!device) return Fail(kind_offset, "'maximal' needs 'device=N'");
      s = Sharding::AssignDevice(*device, std::move(metadata));
    } else {
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

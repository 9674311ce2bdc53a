// HLO text parser (GSPMD.md §4). A hand-written recursive-descent parser over the on-demand lexer
// in lexer.h; instructions are built directly into the Module while parsing.
#include "hlo/parser.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "fmt/format.h"
#include "hlo/lexer.h"
#include "hlo/op_attributes.h"
#include "hlo/shardy_import.h"
#include "ir/float_types.h"
#include "ir/shape_inference.h"
#include "sharding/sharding_text.h"

namespace spmdc {
namespace {

using hlo::IsDigit;
using hlo::IsSpace;
using hlo::Lexer;
using hlo::LineTable;
using hlo::Token;
using hlo::TokKind;

constexpr int kMaxDepth = 256;            // tuple/literal/brace nesting, array rank
constexpr int64_t kMaxParameters = 1 << 20;

class Parser {
 public:
  Parser(std::string_view text, std::string_view filename, const ParseOptions& options)
      : text_(text), filename_(filename), options_(options), lexer_(text), lines_(text) {}

  StatusOr<std::unique_ptr<Module>> ParseModule();
  StatusOr<Shape> ParseStandaloneShape();

 private:
  // ---- tokens and errors -------------------------------------------------------------------
  void Advance() {
    last_end_ = tok_.end;
    tok_ = lexer_.Next();
  }
  Token Peek() {
    size_t saved = lexer_.pos();
    Token t = lexer_.Next();
    lexer_.set_pos(saved);
    return t;
  }
  // The token after the next one (Peek's successor).
  Token Peek2() {
    size_t saved = lexer_.pos();
    lexer_.Next();
    Token t = lexer_.Next();
    lexer_.set_pos(saved);
    return t;
  }
  // At `{` opening a nested computation (`{ name = ...` or `{ ROOT name = ...`), not a list of
  // computation names (`{a, b}`).
  bool AtNestedComputation() {
    if (!Is(TokKind::kLBrace)) return false;
    Token first = Peek(), second = Peek2();
    if (first.kind != TokKind::kIdent) return false;
    return second.kind == TokKind::kEqual ||
           (!first.percent && first.text == "ROOT" && second.kind == TokKind::kIdent);
  }
  bool Is(TokKind k) const { return tok_.kind == k; }
  bool IsKeyword(std::string_view word) const {
    return tok_.kind == TokKind::kIdent && !tok_.percent && tok_.text == word;
  }
  std::string Describe(const Token& t) const {
    switch (t.kind) {
      case TokKind::kEof: return "end of input";
      case TokKind::kError:
        if (t.begin < text_.size()) {
          unsigned char c = static_cast<unsigned char>(text_[t.begin]);
          if (c == '"') return "an unterminated string";
          if (c == '/') return "an unterminated comment";
          if (c >= 0x20 && c < 0x7f) return fmt::format("'{}'", static_cast<char>(c));
          return fmt::format("byte 0x{:02x}", c);
        }
        return "invalid input";
      default: {
        std::string_view s = text_.substr(t.begin, t.end - t.begin);
        if (s.size() > 32) return fmt::format("'{}...'", s.substr(0, 32));
        return fmt::format("'{}'", s);
      }
    }
  }
  Status ErrorAt(size_t offset, std::string_view message) const {
    return absl::InvalidArgumentError(
        FormatDiagnostic(filename_, text_, lines_.Locate(offset), message));
  }
  // Valid XLA text that spmdc does not model: exit 3, located.
  Status UnsupportedAt(size_t offset, std::string_view message) const {
    return absl::UnimplementedError(
        FormatDiagnostic(filename_, text_, lines_.Locate(offset), message));
  }
  // "expected <what>, found <current token>" at the current token.
  Status Expected(std::string_view what) const {
    return ErrorAt(tok_.begin, fmt::format("expected {}, found {}", what, Describe(tok_)));
  }
  Status Expect(TokKind k, std::string_view what) {
    if (tok_.kind != k) return Expected(what);
    Advance();
    return absl::OkStatus();
  }
  SourceLocation Loc(size_t offset) const { return lines_.Locate(offset); }

  // ---- numbers -----------------------------------------------------------------------------
  StatusOr<int64_t> ParseInt(std::string_view what);
  StatusOr<double> ParseDouble(std::string_view what);
  Status ParseIntList(std::vector<int64_t>* out, std::string_view what);

  // ---- shapes ------------------------------------------------------------------------------
  bool AtShape() {
    if (Is(TokKind::kLParen)) return true;
    if (!Is(TokKind::kIdent) || tok_.percent) return false;
    if (AtBufferShape()) return true;
    if (tok_.end >= text_.size() || text_[tok_.end] != '[') return false;
    return DTypeFromName(tok_.text).has_value();
  }
  // `b(f32[4])`: XLA's buffer shape (the result of its CreateBuffer / Pin custom calls).
  bool AtBufferShape() const {
    return Is(TokKind::kIdent) && !tok_.percent && tok_.text == "b" && tok_.end < text_.size() &&
           text_[tok_.end] == '(';
  }
  Status ParseShape(Shape* out, int depth = 0);
  Status ParseLayout(Shape* shape);
  StatusOr<std::string> ParseLayoutTail(std::string_view tail, size_t at);

  // ---- module structure --------------------------------------------------------------------
  Status ParseComputation();
  Status ParseInstruction(Computation* comp, Instruction** root, bool* saw_root);
  StatusOr<Instruction*> ParseInstructionRhs(Computation* comp, std::string_view name,
                                             size_t begin, bool allow_attributes);
  Status ParseOperands(Instruction* instr);
  Status ParseAttribute(Attributes* attrs, Instruction* instr);
  Status ParseAttrValue(AttrId id, Attributes* attrs, Instruction* instr, size_t name_begin);
  Status ParseSharding(Instruction* instr);
  Status CheckRequiredAttributes(const Instruction& instr, size_t at);
  // Module header values checked in place (then kept as raw text).
  Status ParseShapeIndex(std::vector<int64_t>* out);
  Status CheckAliasingSyntax(bool buffer_donor);
  Status CheckComputationLayoutSyntax();
  Status CheckHeaderAliasing();
  Status CheckEntryLayout();
  Status CheckDomainSyntax();
  Status CheckStatisticsSyntax();
  Status CheckResultAccuracySyntax();
  Status CheckEnumValue(AttrId id, std::string_view value, size_t at, const Instruction* instr);
  Status CheckEnumName(std::string_view attr, std::string_view value, size_t at);
  Status DesugarAsyncStart(Instruction* start, Opcode wrapped, size_t at);

  // ---- attribute kinds ---------------------------------------------------------------------
  StatusOr<size_t> ScanBalanced(size_t start, bool stop_at_space);
  StatusOr<std::string> ParseRaw(bool stop_at_space);
  StatusOr<std::string_view> ScanChars(bool (*pred)(char));
  StatusOr<Computation*> ParseComputationRef();  // a name, or a nested computation
  StatusOr<Computation*> ParseNestedComputation();
  Status ParseComputationBody(Computation* comp, size_t body_begin);
  Status ParseKeyValues(KeyValueList* out);
  Status ParseMetadata(KeyValueList* out);
  Status ParseStackFrameIndex();
  Status ParseIntSubAttributes(const std::vector<std::string_view>& names, int64_t* values);
  void Warn(size_t offset, std::string_view message) const {
    if (options_.warnings == nullptr) return;
    options_.warnings->push_back(
        FormatDiagnostic(filename_, text_, lines_.Locate(offset), message, "warning"));
  }
  StatusOr<Window> ParseWindow();
  StatusOr<ConvDims> ParseConvDims();
  StatusOr<PaddingConfig> ParsePadding();
  StatusOr<SliceSpec> ParseSlice();
  StatusOr<ReplicaGroups> ParseReplicaGroups();
  StatusOr<ReplicaGroups> ParseMeshReplicaGroups();

  // ---- literals ----------------------------------------------------------------------------
  Status ParseLiteral(const Shape& shape, Literal* out, int depth);
  Status ParseArrayLevel(const Shape& shape, int64_t dim, std::byte* base, int64_t* index);
  Status ParseElement(DType t, std::byte* base, int64_t index);
  StatusOr<double> ParseFloatElement(DType t, uint64_t* nan_payload, bool* negative_nan);

  std::string_view text_;
  std::string_view filename_;
  const ParseOptions& options_;
  Lexer lexer_;
  LineTable lines_;
  Token tok_;
  size_t last_end_ = 0;  // end of the token before tok_

  std::unique_ptr<Module> module_;
  absl::flat_hash_map<std::string_view, Computation*> computations_;
  absl::flat_hash_map<std::string_view, Instruction*> names_;  // current computation
  Computation* entry_ = nullptr;
  Computation* last_parsed_ = nullptr;  // the entry when no computation is marked ENTRY
  size_t entry_offset_ = 0;
  int64_t async_counter_ = 0;
  int rhs_depth_ = 0;
  int nested_computation_depth_ = 0;
  // The attribute set of the instruction being parsed (op_attributes.h); null: any attribute.
  const hlo::OpAttributes* attr_row_ = nullptr;
  std::string_view attr_op_;  // its opcode as written, for messages
  // input_output_alias / buffer_donor entries, checked against the entry once it is parsed.
  struct AliasEntry {
    size_t at;
    std::vector<int64_t> output_index;  // empty for a buffer donor
    int64_t param = 0;
    std::vector<int64_t> param_index;
    bool donor = false;
    bool must_alias = false;
  };
  std::vector<AliasEntry> alias_entries_;
  // entry_computation_layout's shapes, checked against the entry once it is parsed.
  struct EntryLayout {
    size_t at = 0, result_at = 0;
    std::vector<Shape> params;
    std::vector<size_t> param_at;
    Shape result;
  };
  std::optional<EntryLayout> entry_layout_;
  bool in_header_ = false;
  enum class AsyncForm { kNone, kStart, kUpdateOrDone } async_form_ = AsyncForm::kNone;
};

// ---- numbers ---------------------------------------------------------------------------------

// Parses an integer token text ("-12", "0x1f"). Returns false on overflow.
bool ParseIntText(std::string_view s, int64_t* out) {
  bool neg = !s.empty() && s[0] == '-';
  if (neg) s.remove_prefix(1);
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || p != s.data() + s.size()) return false;
  if (neg) {
    if (v > uint64_t{1} << 63) return false;
    *out = static_cast<int64_t>(0 - v);
  } else {
    if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return false;
    *out = static_cast<int64_t>(v);
  }
  return true;
}

bool ParseUintText(std::string_view s, uint64_t* out) {
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out, base);
  return ec == std::errc() && p == s.data() + s.size();
}

bool ParseDoubleText(std::string_view s, double* out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  if (ec == std::errc::result_out_of_range) {
    // Overflow to +-inf, underflow to 0, like strtod.
    std::string tmp(s);
    *out = std::strtod(tmp.c_str(), nullptr);
    return true;
  }
  if (ec == std::errc() && p == s.data() + s.size()) return true;
  if (s.size() > 2 && (s[1] == 'x' || s[1] == 'X' || (s[0] == '-' && s.size() > 3 && s[2] == 'x'))) {
    int64_t v;
    if (ParseIntText(s, &v)) {
      *out = static_cast<double>(v);
      return true;
    }
  }
  // "1." and friends.
  std::string tmp(s);
  char* end = nullptr;
  *out = std::strtod(tmp.c_str(), &end);
  return end == tmp.c_str() + tmp.size();
}

bool ParseFloatText(std::string_view s, float* out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  if (ec == std::errc() && p == s.data() + s.size()) return true;
  double d;
  if (!ParseDoubleText(s, &d)) return false;
  *out = static_cast<float>(d);
  return true;
}

StatusOr<int64_t> Parser::ParseInt(std::string_view what) {
  if (!Is(TokKind::kInt)) return Expected(what);
  int64_t v;
  if (!ParseIntText(tok_.text, &v)) return ErrorAt(tok_.begin, "integer out of range");
  Advance();
  return v;
}

StatusOr<double> Parser::ParseDouble(std::string_view what) {
  double v;
  if (Is(TokKind::kInt) || Is(TokKind::kFloat)) {
    std::string_view s = tok_.text;
    if (s == "-inf") {
      v = -std::numeric_limits<double>::infinity();
    } else if (s == "-nan") {
      v = -std::numeric_limits<double>::quiet_NaN();
    } else if (!ParseDoubleText(s, &v)) {
      return ErrorAt(tok_.begin, fmt::format("invalid number {}", Describe(tok_)));
    } else if (std::isinf(v)) {
      return ErrorAt(tok_.begin, fmt::format("{} is out of range for f64", Describe(tok_)));
    }
  } else if (IsKeyword("inf")) {
    v = std::numeric_limits<double>::infinity();
  } else if (IsKeyword("nan")) {
    v = std::numeric_limits<double>::quiet_NaN();
  } else {
    return Expected(what);
  }
  Advance();
  return v;
}

// {1,2,3} (possibly empty); a bare integer is accepted as a one-element list.
Status Parser::ParseIntList(std::vector<int64_t>* out, std::string_view what) {
  if (Is(TokKind::kInt)) {
    ASSIGN_OR_RETURN(int64_t v, ParseInt(what));
    out->push_back(v);
    return absl::OkStatus();
  }
  RETURN_IF_ERROR(Expect(TokKind::kLBrace, fmt::format("'{{' to start {}", what)));
  if (Is(TokKind::kRBrace)) {
    Advance();
    return absl::OkStatus();
  }
  while (true) {
    ASSIGN_OR_RETURN(int64_t v, ParseInt("an integer"));
    out->push_back(v);
    if (Is(TokKind::kComma)) {
      Advance();
      continue;
    }
    return Expect(TokKind::kRBrace, fmt::format("',' or '}}' in {}", what));
  }
}

// ---- shapes ----------------------------------------------------------------------------------

Status Parser::ParseShape(Shape* out, int depth) {
  if (depth > kMaxDepth) return ErrorAt(tok_.begin, "shape nesting is too deep");
  if (Is(TokKind::kLParen)) {
    Advance();
    std::vector<Shape> elements;
    if (!Is(TokKind::kRParen)) {
      while (true) {
        elements.emplace_back();
        RETURN_IF_ERROR(ParseShape(&elements.back(), depth + 1));
        if (Is(TokKind::kComma)) {
          Advance();
          continue;
        }
        break;
      }
    }
    RETURN_IF_ERROR(Expect(TokKind::kRParen, "',' or ')' in tuple shape"));
    *out = Shape::Tuple(std::move(elements));
    return absl::OkStatus();
  }
  if (AtBufferShape()) {
    // A buffer is a mutable array with identity (XLA's Pin/Unpin custom calls): no value
    // semantics for propagation, the partitioner or the interpreter to follow.
    return UnsupportedAt(tok_.begin, "buffer shapes (b(...)) are not supported");
  }
  if (!Is(TokKind::kIdent) || tok_.percent) return Expected("a shape");
  std::optional<DType> dtype = DTypeFromName(tok_.text);
  if (!dtype) {
    return ErrorAt(tok_.begin, fmt::format("unknown element type '{}'", tok_.text));
  }
  Advance();
  RETURN_IF_ERROR(Expect(TokKind::kLBracket, "'[' after the element type"));
  if (*dtype == DType::kToken) {
    RETURN_IF_ERROR(Expect(TokKind::kRBracket, "']' after 'token['"));
    *out = Shape::Token();
    return absl::OkStatus();
  }
  std::vector<int64_t> dims;
  std::vector<int64_t> dynamic;
  // Element count * 16 bytes must fit in int64 (byte_size of c128 arrays).
  constexpr int64_t kMaxProduct = std::numeric_limits<int64_t>::max() / 16;
  int64_t product = 1;
  if (!Is(TokKind::kRBracket)) {
    while (true) {
      if (static_cast<int>(dims.size()) >= kMaxDepth) {
        return ErrorAt(tok_.begin, fmt::format("rank exceeds {}", kMaxDepth));
      }
      if (Is(TokKind::kQuestion)) {
        Advance();
        dynamic.push_back(static_cast<int64_t>(dims.size()));
        dims.push_back(Shape::kUnbounded);
      } else {
        bool bounded = false;
        if (Is(TokKind::kLeq)) {
          Advance();
          bounded = true;
        }
        size_t at = tok_.begin;
        ASSIGN_OR_RETURN(int64_t d, ParseInt("a dimension size"));
        if (d < 0) return ErrorAt(at, "dimension sizes must be non-negative");
        if (d != 0 && product > kMaxProduct / d) {
          return ErrorAt(at, "shape has too many elements (int64 overflow)");
        }
        product *= d;
        if (bounded) dynamic.push_back(static_cast<int64_t>(dims.size()));
        dims.push_back(d);
      }
      if (Is(TokKind::kComma)) {
        Advance();
        continue;
      }
      break;
    }
  }
  RETURN_IF_ERROR(Expect(TokKind::kRBracket, "',' or ']' in dimensions"));
  *out = Shape(*dtype, std::move(dims));
  for (int64_t d : dynamic) out->set_dynamic_dim(d, true);
  if (Is(TokKind::kLBrace)) {
    Token next = Peek();
    if (next.kind == TokKind::kInt || next.kind == TokKind::kColon) return ParseLayout(out);
  }
  return absl::OkStatus();
}

// The part of a layout after ':' (XLA's ParseLayout), in XLA's fixed order, each optional:
//   D(dlt,..)  dim level types D|C|S|H, each optionally followed by '+' (not unique), '~'
//   T(d,..)(d,..)..  tiles, a dim an integer or '*' (combined)
//   L(n) tail padding alignment, #(uN) index type, *(uN) pointer type, E(n) element size in
//   bits, S(n) memory space, SC(dim:i,..)(..).. split configs, M(n) dynamic-shape metadata bytes.
// P(shape) (a sparse array's physical shape) is refused, as XLA's parser does. Returns the tail
// as XLA prints it: no spaces, and L(1), E(0), S(0), M(0) (the defaults) left out.
StatusOr<std::string> Parser::ParseLayoutTail(std::string_view t, size_t at) {
  size_t i = 0;
  std::string out;
  auto skip = [&] {
    while (i < t.size() && IsSpace(t[i])) ++i;
  };
  auto fail = [&](std::string_view what) -> Status {
    skip();
    std::string found = i < t.size() ? fmt::format("'{}'", t.substr(i, 1)) : std::string("'}'");
    return ErrorAt(at + i, fmt::format("expected {} in the layout, found {}", what, found));
  };
  auto eat = [&](char c) {
    skip();
    if (i < t.size() && t[i] == c) {
      ++i;
      return true;
    }
    return false;
  };
  // An integer (optionally negative): its text.
  auto integer = [&](std::string* text) {
    skip();
    size_t j = i;
    if (j < t.size() && t[j] == '-') ++j;
    size_t d = j;
    while (j < t.size() && IsDigit(t[j])) ++j;
    if (j == d) return false;
    int64_t v;
    if (!ParseIntText(t.substr(i, j - i), &v)) return false;
    *text = std::to_string(v);
    i = j;
    return true;
  };
  auto word = [&](std::string_view w) {
    skip();
    if (t.substr(i, w.size()) != w) return false;
    size_t j = i + w.size();
    // A letter word must end there ('S' is not the start of 'SC').
    if (hlo::IsIdentStart(w[0]) && j < t.size() && hlo::IsIdentChar(t[j])) return false;
    i = j;
    return true;
  };
  // '(' INT ')' -> the integer's text.
  auto int_arg = [&](std::string_view what, std::string* text) -> Status {
    if (!eat('(')) return fail(fmt::format("'(' after {}", what));
    if (!integer(text)) return fail(fmt::format("an integer in {}", what));
    if (!eat(')')) return fail(fmt::format("')' after {}", what));
    return absl::OkStatus();
  };
  auto unsigned_type = [&](std::string_view what) -> StatusOr<std::string> {
    if (!eat('(')) return fail(fmt::format("'(' after '{}'", what));
    skip();
    size_t j = i;
    while (j < t.size() && (hlo::IsIdentChar(t[j]))) ++j;
    std::string_view name = t.substr(i, j - i);
    std::optional<DType> dt = DTypeFromName(name);
    if (!dt || !IsUnsigned(*dt)) return fail(fmt::format("an unsigned integer type in '{}(..)'", what));
    i = j;
    if (!eat(')')) return fail(fmt::format("')' in '{}(..)'", what));
    return std::string(name);
  };
  if (word("D")) {
    out += "D(";
    if (!eat('(')) return fail("'(' after D");
    if (!eat(')')) {
      while (true) {
        skip();
        if (i >= t.size() || (t[i] != 'D' && t[i] != 'C' && t[i] != 'S' && t[i] != 'H'))
          return fail("a dim level type (D, C, S or H)");
        out += t[i++];
        if (eat('+')) out += '+';
        if (eat('~')) out += '~';
        if (eat(')')) break;
        if (!eat(',')) return fail("',' or ')' in the dim level types");
        out += ',';
      }
    }
    out += ')';
  }
  if (word("T")) {
    out += 'T';
    skip();
    if (i >= t.size() || t[i] != '(') return fail("'(' after T");
    while (eat('(')) {
      out += '(';
      if (!eat(')')) {
        while (true) {
          std::string v;
          if (eat('*')) {
            out += '*';
          } else if (integer(&v)) {
            out += v;
          } else {
            return fail("a tile dimension (an integer or '*')");
          }
          if (eat(')')) break;
          if (!eat(',')) return fail("',' or ')' in a tile");
          out += ',';
        }
      }
      out += ')';
      skip();
    }
  }
  std::string v;
  if (word("L")) {
    RETURN_IF_ERROR(int_arg("L", &v));
    if (v != "1") out += "L(" + v + ")";
  }
  if (eat('#')) {
    ASSIGN_OR_RETURN(std::string type, unsigned_type("#"));
    out += "#(" + type + ")";
  }
  if (eat('*')) {
    ASSIGN_OR_RETURN(std::string type, unsigned_type("*"));
    out += "*(" + type + ")";
  }
  if (word("E")) {
    RETURN_IF_ERROR(int_arg("E", &v));
    if (v != "0") out += "E(" + v + ")";
  }
  if (word("S")) {
    RETURN_IF_ERROR(int_arg("S", &v));
    if (v != "0") out += "S(" + v + ")";
  }
  if (word("SC")) {
    out += "SC";
    skip();
    if (i >= t.size() || t[i] != '(') return fail("'(' after SC");
    while (eat('(')) {
      if (!integer(&v)) return fail("the split dimension");
      out += "(" + v + ":";
      if (!eat(':')) return fail("':' after the split dimension");
      if (!eat(')')) {
        while (true) {
          if (!integer(&v)) return fail("a split index");
          out += v;
          if (eat(')')) break;
          if (!eat(',')) return fail("',' or ')' in a split config");
          out += ',';
        }
      }
      out += ')';
      skip();
    }
  }
  skip();
  if (word("P")) {
    return ErrorAt(at + i - 1, "layout has a physical shape (P), but is not for a sparse array");
  }
  if (word("M")) {
    RETURN_IF_ERROR(int_arg("M", &v));
    if (v != "0") out += "M(" + v + ")";
  }
  skip();
  if (i < t.size()) return fail("'}'");
  return out;
}

// {1,0:T(8,128)(2,1)S(1)}: minor_to_major, one entry per dimension, then the tail.
Status Parser::ParseLayout(Shape* shape) {
  size_t open = tok_.begin;
  Advance();  // '{'
  Layout layout;
  while (Is(TokKind::kInt)) {
    ASSIGN_OR_RETURN(int64_t v, ParseInt("a layout dimension"));
    layout.minor_to_major.push_back(v);
    if (!Is(TokKind::kComma)) break;
    Advance();
  }
  if (Is(TokKind::kColon)) {
    size_t start = tok_.end;
    // Scan to the matching '}' (the tail may hold parentheses).
    int depth = 0;
    size_t i = start;
    for (; i < text_.size(); ++i) {
      char c = text_[i];
      if (c == '(' || c == '{' || c == '[') {
        if (++depth > kMaxDepth) return ErrorAt(i, "layout nesting is too deep");
      } else if (c == ')' || c == ']' || (c == '}' && depth > 0)) {
        if (--depth < 0) return ErrorAt(i, fmt::format("unbalanced '{}' in layout", c));
      } else if (c == '}') {
        break;
      } else if (c == '\n') {
        return ErrorAt(i, "expected '}' to end the layout");
      }
    }
    if (i >= text_.size()) return ErrorAt(start, "unterminated layout");
    ASSIGN_OR_RETURN(layout.tail, ParseLayoutTail(text_.substr(start, i - start), start));
    lexer_.set_pos(i);
    Advance();
  }
  RETURN_IF_ERROR(Expect(TokKind::kRBrace, "'}' to end the layout"));
  if (shape->IsArray() && static_cast<int64_t>(layout.minor_to_major.size()) != shape->rank()) {
    return ErrorAt(open, fmt::format("the layout's minor_to_major has {} entries, the shape has {} "
                                     "dimensions", layout.minor_to_major.size(), shape->rank()));
  }
  shape->set_layout(std::move(layout));
  return absl::OkStatus();
}

StatusOr<Shape> Parser::ParseStandaloneShape() {
  if (text_.size() > std::numeric_limits<uint32_t>::max()) {
    return InvalidArgument("{}: input is larger than 4 GiB", filename_);
  }
  Advance();
  Shape shape;
  RETURN_IF_ERROR(ParseShape(&shape));
  if (!Is(TokKind::kEof)) return Expected("end of input after the shape");
  return shape;
}

// ---- module structure ------------------------------------------------------------------------

StatusOr<std::unique_ptr<Module>> Parser::ParseModule() {
  if (text_.size() > std::numeric_limits<uint32_t>::max()) {
    return InvalidArgument("{}: input is larger than 4 GiB", filename_);
  }
  Advance();
  if (!IsKeyword("HloModule")) {
    // Like XLA, text that starts with a computation (`ENTRY ...`, `name {` or
    // `name (p: ...) -> ... {`) is a module without a header, named "_" (XLA's fusion
    // emitter tests and hand-cut dumps are written this way).
    TokKind next = Peek().kind;
    bool computation = Is(TokKind::kIdent) && (IsKeyword("ENTRY") || IsKeyword("FileNames") ||
                                               next == TokKind::kLBrace ||
                                               next == TokKind::kLParen);
    if (!computation) return Expected("'HloModule'");
    module_ = std::make_unique<Module>("_");
  } else {
    Advance();
    if (!Is(TokKind::kIdent) && !Is(TokKind::kString)) return Expected("a module name");
    module_ = std::make_unique<Module>(Is(TokKind::kString) ? UnquoteRaw(tok_.text)
                                                            : std::string(tok_.text));
    Advance();
    // `HloModule name:` (older dumps): XLA's lexer reads a name with a ':' right after it as one
    // name token, so the colon is part of the name's spelling, not a separator.
    if (Is(TokKind::kColon) && tok_.begin == last_end_) Advance();
    in_header_ = true;
    while (Is(TokKind::kComma)) {
      Advance();
      // The header attributes XLA's ParseHloModule accepts.
      static constexpr std::string_view kHeader[] = {
          "is_scheduled", "replica_count", "num_partitions", "input_output_alias",
          "buffer_donor", "alias_passthrough_params", "entry_computation_layout",
          "frontend_attributes", "allow_spmd_sharding_propagation_to_parameters",
          "allow_spmd_sharding_propagation_to_output", "origin_recovery_table"};
      if (Is(TokKind::kIdent) && !tok_.percent &&
          std::find(std::begin(kHeader), std::end(kHeader), tok_.text) == std::end(kHeader)) {
        return ErrorAt(tok_.begin, fmt::format("unexpected module attribute \"{}\"", tok_.text));
      }
      RETURN_IF_ERROR(ParseAttribute(&module_->config(), nullptr));
    }
    in_header_ = false;
  }
  if (IsKeyword("FileNames")) RETURN_IF_ERROR(ParseStackFrameIndex());
  while (!Is(TokKind::kEof)) RETURN_IF_ERROR(ParseComputation());
  std::vector<Computation*> comps = module_->computations();
  if (comps.empty()) return ErrorAt(tok_.begin, "expected a computation, found end of input");
  module_->set_entry(entry_ ? entry_ : last_parsed_);
  RETURN_IF_ERROR(CheckHeaderAliasing());
  RETURN_IF_ERROR(CheckEntryLayout());
  return std::move(module_);
}

Status Parser::ParseComputation() {
  bool is_entry = false;
  size_t begin = tok_.begin;
  if (IsKeyword("ENTRY")) {
    Token next = Peek();
    if (next.kind == TokKind::kIdent) {
      is_entry = true;
      Advance();
    }
  }
  if (!Is(TokKind::kIdent)) return Expected("a computation name");
  std::string_view name = tok_.text;
  size_t name_begin = tok_.begin;
  if (computations_.contains(name)) {
    return ErrorAt(name_begin, fmt::format("duplicate computation name %{}", name));
  }
  Advance();
  std::optional<Shape> signature_result;  // checked against the root, as XLA does
  size_t signature_at = 0;
  if (Is(TokKind::kLParen)) {  // signature: (p: shape, ...) -> shape
    Advance();
    if (!Is(TokKind::kRParen)) {
      while (true) {
        if (!Is(TokKind::kIdent)) return Expected("a parameter name");
        Advance();
        RETURN_IF_ERROR(Expect(TokKind::kColon, "':' after the parameter name"));
        Shape ignored;
        RETURN_IF_ERROR(ParseShape(&ignored));
        if (Is(TokKind::kComma)) {
          Advance();
          continue;
        }
        break;
      }
    }
    RETURN_IF_ERROR(Expect(TokKind::kRParen, "',' or ')' after the parameters"));
    RETURN_IF_ERROR(Expect(TokKind::kArrow, "'->' after the parameters"));
    signature_at = tok_.begin;
    signature_result.emplace();
    RETURN_IF_ERROR(ParseShape(&*signature_result));
  }
  size_t body_begin = tok_.begin;
  RETURN_IF_ERROR(Expect(TokKind::kLBrace, "'{' to start the computation body"));

  auto owned = std::make_unique<Computation>(std::string(name));
  owned->set_location(Loc(begin));
  Computation* comp = module_->AddComputation(std::move(owned));
  computations_[name] = comp;
  last_parsed_ = comp;
  if (is_entry) {
    if (entry_) {
      return ErrorAt(begin, fmt::format("second ENTRY computation (the first is %{})",
                                        entry_->name()));
    }
    entry_ = comp;
    entry_offset_ = begin;
  }
  names_.clear();
  RETURN_IF_ERROR(ParseComputationBody(comp, body_begin));
  Instruction* root = comp->root();
  if (signature_result && !signature_result->Compatible(root->shape())) {
    return ErrorAt(signature_at, fmt::format("the shape of computation %{}, {}, is not compatible "
                                             "with that of its root %{}, {}", name,
                                             signature_result->ToString(false), root->name(),
                                             root->shape().ToString(false)));
  }
  // Optional `, execution_thread="t"`.
  if (Is(TokKind::kComma)) {
    Advance();
    if (!IsKeyword("execution_thread")) return Expected("'execution_thread'");
    Advance();
    RETURN_IF_ERROR(Expect(TokKind::kEqual, "'=' after 'execution_thread'"));
    if (!Is(TokKind::kString)) return Expected("a string");
    comp->set_execution_thread(UnquoteRaw(tok_.text));
    Advance();
  }
  return absl::OkStatus();
}

// The instructions of `comp` up to its closing '}' (the '{' is already consumed); sets the root
// (the ROOT instruction, else the last) and checks that the parameter numbers leave no gap.
Status Parser::ParseComputationBody(Computation* comp, size_t body_begin) {
  Instruction* root = nullptr;
  bool saw_root = false;
  while (!Is(TokKind::kRBrace)) {
    if (Is(TokKind::kEof)) return Expected("'}' to end the computation");
    RETURN_IF_ERROR(ParseInstruction(comp, &root, &saw_root));
  }
  size_t close = tok_.begin;
  Advance();
  if (comp->instruction_count() == 0) return ErrorAt(body_begin, "computation has no instructions");
  if (!root) root = comp->instructions().back();
  comp->set_root(root);
  for (int64_t i = 0; i < comp->num_parameters(); ++i) {
    if (comp->parameter(i) == nullptr) {
      return ErrorAt(close, fmt::format("computation %{} has no parameter({})", comp->name(), i));
    }
  }
  return absl::OkStatus();
}

// `to_apply={ p = f32[] parameter(0) ... }`: a computation written in place of its name (XLA's
// ParseHloComputation). It is named "_" (made unique among the module's computations, as XLA's
// module does) and has its own instruction-name scope; the enclosing instruction's attribute
// parsing state is restored afterwards.
StatusOr<Computation*> Parser::ParseNestedComputation() {
  if (++nested_computation_depth_ > kMaxDepth) {
    return ErrorAt(tok_.begin, "nested computations are too deep");
  }
  struct DepthGuard {
    int* d;
    ~DepthGuard() { --*d; }
  } guard{&nested_computation_depth_};
  size_t begin = tok_.begin;
  RETURN_IF_ERROR(Expect(TokKind::kLBrace, "'{' to start a nested computation"));
  std::string name = "_";
  for (int64_t k = 1; computations_.contains(name); ++k) name = fmt::format("_.{}", k);
  auto owned = std::make_unique<Computation>(name);
  owned->set_location(Loc(begin));
  Computation* comp = module_->AddComputation(std::move(owned));
  computations_[comp->name()] = comp;
  auto outer_names = std::exchange(names_, {});
  const hlo::OpAttributes* row = attr_row_;
  std::string_view op = attr_op_;
  AsyncForm form = async_form_;
  Status body = ParseComputationBody(comp, begin);
  names_ = std::move(outer_names);
  attr_row_ = row;
  attr_op_ = op;
  async_form_ = form;
  RETURN_IF_ERROR(body);
  return comp;
}

// Generic async sugar: `call-start`, `fusion-update`, ... -> the base opcode, or none.
std::optional<std::pair<Opcode, Opcode>> AsyncSugar(std::string_view name) {
  constexpr std::pair<std::string_view, Opcode> kSuffixes[] = {
      {"-start", Opcode::kAsyncStart}, {"-update", Opcode::kAsyncUpdate},
      {"-done", Opcode::kAsyncDone}};
  for (const auto& [suffix, async_op] : kSuffixes) {
    if (name.size() > suffix.size() && name.ends_with(suffix)) {
      std::optional<Opcode> base = OpcodeFromName(name.substr(0, name.size() - suffix.size()));
      if (base) return std::make_pair(async_op, *base);
    }
  }
  return std::nullopt;
}

Status Parser::ParseInstruction(Computation* comp, Instruction** root, bool* saw_root) {
  size_t begin = tok_.begin;
  bool is_root = false;
  if (IsKeyword("ROOT")) {
    Token next = Peek();
    if (next.kind == TokKind::kIdent) {
      is_root = true;
      Advance();
    }
  }
  if (!Is(TokKind::kIdent)) return Expected("an instruction name");
  std::string_view name = tok_.text;
  size_t name_begin = tok_.begin;
  if (names_.contains(name)) {
    return ErrorAt(name_begin, fmt::format("duplicate instruction name %{}", name));
  }
  Advance();
  RETURN_IF_ERROR(Expect(TokKind::kEqual, fmt::format("'=' after %{}", name)));
  ASSIGN_OR_RETURN(Instruction * instr,
                   ParseInstructionRhs(comp, name, begin, /*allow_attributes=*/true));
  names_[name] = instr;
  if (is_root) {
    if (*saw_root) {
      return ErrorAt(begin, fmt::format("second ROOT in computation %{} (the first is %{})",
                                        comp->name(), (*root)->name()));
    }
    *saw_root = true;
    *root = instr;
  }
  return absl::OkStatus();
}

// shape? opcode operands attributes -- the part after `name =`, also the whole of a nested
// operand instruction (XLA's ParseInstructionRhs): those have no name (`name` empty: one is
// generated) and no attributes, since a comma after them separates operands.
StatusOr<Instruction*> Parser::ParseInstructionRhs(Computation* comp, std::string_view name,
                                                   size_t begin, bool allow_attributes) {
  if (++rhs_depth_ > kMaxDepth) return ErrorAt(tok_.begin, "nested instructions are too deep");
  struct DepthGuard {
    int* d;
    ~DepthGuard() { --*d; }
  } guard{&rhs_depth_};
  Shape shape;
  bool has_shape = AtShape();
  if (has_shape) RETURN_IF_ERROR(ParseShape(&shape));
  if (!Is(TokKind::kIdent) || tok_.percent) return Expected("an opcode");
  size_t opcode_begin = tok_.begin;
  std::string_view opcode_text = tok_.text;
  std::optional<Opcode> opcode = OpcodeFromName(tok_.text);
  std::optional<Opcode> wrapped;
  static const hlo::OpAttributes kNoAttributes;
  attr_row_ = hlo::OpAttributesFor(opcode_text);
  attr_op_ = opcode_text;
  async_form_ = AsyncForm::kNone;
  if (!opcode) {
    if (auto sugar = AsyncSugar(tok_.text)) {
      opcode = sugar->first;
      if (*opcode == Opcode::kAsyncStart) {
        wrapped = sugar->second;
        attr_row_ = hlo::OpAttributesFor(OpcodeName(sugar->second));
        async_form_ = AsyncForm::kStart;
      } else {
        // X-update / X-done take the async wrapper's attributes only (XLA inherits the rest).
        attr_row_ = &kNoAttributes;
        async_form_ = AsyncForm::kUpdateOrDone;
      }
    }
  }
  if (!opcode) return ErrorAt(opcode_begin, fmt::format("unknown opcode '{}'", tok_.text));
  Advance();
  if (!has_shape && *opcode == Opcode::kConstant) {
    return ErrorAt(opcode_begin, "a constant needs an explicit shape");
  }
  if (!has_shape && wrapped) {
    return ErrorAt(opcode_begin, "an async start needs an explicit shape");
  }
  if (!has_shape && (async_form_ != AsyncForm::kNone || (attr_row_ && attr_row_->needs_shape))) {
    return ErrorAt(opcode_begin, fmt::format("cannot infer shape for opcode: {} (write the result "
                                             "shape before the opcode)", opcode_text));
  }

  // Module-wide unique names: a name reused in another computation is renamed, as XLA does.
  std::string unique;
  if (name.empty()) {
    unique = module_->UniqueName(fmt::format("{}.anon", OpcodeName(*opcode)));
  } else if (module_->IsNameTaken(std::string(name))) {
    unique = module_->UniqueName(name);
  } else {
    unique = std::string(name);
    module_->ReserveName(unique);
  }
  auto owned = std::make_unique<Instruction>(*opcode, has_shape ? std::move(shape) : Shape::Tuple({}),
                                             std::move(unique));
  owned->set_location(Loc(begin));
  Instruction* instr = owned.get();

  RETURN_IF_ERROR(Expect(TokKind::kLParen, "'(' after the opcode"));
  if (*opcode == Opcode::kParameter) {
    size_t at = tok_.begin;
    ASSIGN_OR_RETURN(int64_t n, ParseInt("a parameter number"));
    if (n < 0 || n >= kMaxParameters) return ErrorAt(at, "parameter number out of range");
    if (n < comp->num_parameters() && comp->parameter(n) != nullptr) {
      return ErrorAt(at, fmt::format("duplicate parameter({}); %{} already has it", n,
                                     comp->parameter(n)->name()));
    }
    instr->set_parameter_number(n);
    comp->AddInstruction(std::move(owned));
  } else if (*opcode == Opcode::kConstant) {
    comp->AddInstruction(std::move(owned));
    Literal literal;
    RETURN_IF_ERROR(ParseLiteral(instr->shape(), &literal, 0));
    instr->set_literal(std::move(literal));
  } else {
    comp->AddInstruction(std::move(owned));
    RETURN_IF_ERROR(ParseOperands(instr));
  }
  RETURN_IF_ERROR(Expect(TokKind::kRParen, "')' after operands"));

  int arity = OpcodeArity(*opcode);
  if (arity != kVariadic && instr->operand_count() != arity && !wrapped) {
    return ErrorAt(opcode_begin, fmt::format("{} takes {} operand{}, found {}", OpcodeName(*opcode),
                                             arity, arity == 1 ? "" : "s", instr->operand_count()));
  }
  size_t attrs_at = tok_.begin;
  while (allow_attributes && Is(TokKind::kComma)) {
    Advance();
    RETURN_IF_ERROR(ParseAttribute(&instr->attrs(), instr));
  }
  RETURN_IF_ERROR(CheckRequiredAttributes(*instr, attrs_at));
  attr_row_ = nullptr;
  async_form_ = AsyncForm::kNone;
  if (wrapped) RETURN_IF_ERROR(DesugarAsyncStart(instr, *wrapped, opcode_begin));
  if (!has_shape) {
    StatusOr<Shape> inferred = InferShape(*instr);
    if (!inferred.ok()) {
      return ErrorAt(opcode_begin, fmt::format("cannot infer the shape of %{}: {}", instr->name(),
                                               std::string(inferred.status().message())));
    }
    *instr->mutable_shape() = std::move(inferred).value();
  }
  if (const auto* replicated = instr->attr<std::vector<bool>>(AttrId::kParameterReplication)) {
    if (static_cast<int64_t>(replicated->size()) != instr->shape().leaf_count()) {
      return ErrorAt(begin, fmt::format("%{} has {} leaf buffers, but parameter_replication has {} elements",
                                        instr->name(), instr->shape().leaf_count(), replicated->size()));
    }
  }
  if (const auto* constraints = instr->attr<std::vector<Shape>>(AttrId::kOperandLayoutConstraints)) {
    // XLA's parser: one layout-constrained shape per operand, each compatible with its operand.
    if (static_cast<int64_t>(constraints->size()) != instr->operand_count()) {
      return ErrorAt(attrs_at, fmt::format("expected {} operand layout constraints, {} given",
                                           instr->operand_count(), constraints->size()));
    }
    for (int64_t i = 0; i < instr->operand_count(); ++i) {
      if (!(*constraints)[i].Compatible(instr->operand(i)->shape())) {
        return ErrorAt(attrs_at, fmt::format("operand layout constraint {} for operand {} is not compatible "
                                             "with the operand's shape {}", (*constraints)[i].ToString(), i,
                                             instr->operand(i)->shape().ToString()));
      }
    }
  }
  // Like XLA's parser, a non-tuple sharding on a tuple-shaped instruction applies to every leaf:
  // store (and print) it as the tuple sharding it stands for.
  if (instr->has_sharding() && instr->shape().IsTuple() && !instr->sharding()->IsTuple()) {
    instr->set_sharding(std::make_shared<const Sharding>(
        instr->sharding()->NormalizeTupleSharding(instr->shape())));
  }
  return instr;
}

Status Parser::ParseOperands(Instruction* instr) {
  if (Is(TokKind::kRParen)) return absl::OkStatus();
  while (true) {
    // An operand is `shape? name`, or a nested instruction `shape? opcode(operands)` (XLA tries
    // the first, then the second).
    size_t operand_begin = tok_.begin;
    std::optional<Shape> declared;
    if (AtShape()) {
      declared.emplace();
      RETURN_IF_ERROR(ParseShape(&*declared));
    }
    if (Is(TokKind::kIdent) && !names_.contains(tok_.text) && Peek().kind == TokKind::kLParen &&
        (OpcodeFromName(tok_.text) || AsyncSugar(tok_.text))) {
      lexer_.set_pos(operand_begin);
      Advance();
      // The outer instruction's attribute set is restored after the nested one.
      const hlo::OpAttributes* row = attr_row_;
      std::string_view op = attr_op_;
      AsyncForm form = async_form_;
      ASSIGN_OR_RETURN(Instruction * nested,
                       ParseInstructionRhs(instr->parent(), "", operand_begin,
                                           /*allow_attributes=*/false));
      attr_row_ = row;
      attr_op_ = op;
      async_form_ = form;
      instr->AppendOperand(nested);
      if (!Is(TokKind::kComma)) return absl::OkStatus();
      Advance();
      continue;
    }
    if (!Is(TokKind::kIdent)) return Expected("an operand name");
    auto it = names_.find(tok_.text);
    if (it == names_.end()) {
      if (!tok_.percent && tok_.end < text_.size() && text_[tok_.end] == '=') {
        return Expected("')' after operands");  // an attribute: the ')' is missing
      }
      return ErrorAt(tok_.begin, fmt::format("undefined operand %{}", tok_.text));
    }
    if (declared && !declared->Compatible(it->second->shape())) {
      return ErrorAt(operand_begin, fmt::format("the declared operand shape {} is not compatible "
                                                "with the shape of %{}, {}",
                                                declared->ToString(false), it->second->name(),
                                                it->second->shape().ToString(false)));
    }
    instr->AppendOperand(it->second);
    Advance();
    if (!Is(TokKind::kComma)) return absl::OkStatus();
    Advance();
  }
}

// `X-start(ops), attrs` -> async-start(ops), calls=%wrapped_X, where the wrapped computation holds
// one X instruction over parameters (as XLA's parser does).
Status Parser::DesugarAsyncStart(Instruction* start, Opcode wrapped, size_t at) {
  const Shape& shape = start->shape();
  if (!shape.IsTuple() || shape.tuple_size() < 2) {
    return ErrorAt(at, "an async start must have a tuple shape ((operands), result, ...)");
  }
  std::string comp_name = fmt::format("wrapped_{}_computation", OpcodeName(wrapped));
  while (module_->GetComputation(comp_name)) {
    comp_name = fmt::format("wrapped_{}_computation.{}", OpcodeName(wrapped), ++async_counter_);
  }
  auto owned = std::make_unique<Computation>(comp_name);
  owned->set_location(start->location());
  Computation* callee = owned.get();
  std::vector<Instruction*> params;
  for (int64_t i = 0; i < start->operand_count(); ++i) {
    auto p = std::make_unique<Instruction>(Opcode::kParameter, start->operand(i)->shape(),
                                           module_->UniqueName(fmt::format("param_{}", i)));
    p->set_parameter_number(i);
    params.push_back(callee->AddInstruction(std::move(p)));
  }
  auto inner = std::make_unique<Instruction>(wrapped, shape.tuple_shape(1),
                                             module_->UniqueName(OpcodeName(wrapped)));
  for (Instruction* p : params) inner->AppendOperand(p);
  Attributes& attrs = start->attrs();
  std::string thread;
  for (auto& [id, value] : attrs.mutable_entries()) {
    if (id == AttrId::kAsyncExecutionThread) {
      thread = std::get<std::string>(value);
      continue;
    }
    if (id == AttrId::kControlPredecessors) continue;
    inner->attrs().Set(id, value);
  }
  inner->attrs().unknown() = attrs.unknown();
  attrs.unknown().clear();
  std::vector<std::pair<AttrId, AttrValue>> kept;
  for (auto& e : attrs.mutable_entries()) {
    if (e.first == AttrId::kAsyncExecutionThread || e.first == AttrId::kControlPredecessors) {
      kept.push_back(std::move(e));
    }
  }
  attrs.mutable_entries() = std::move(kept);
  Instruction* inner_raw = callee->AddInstruction(std::move(inner));
  callee->set_root(inner_raw);
  if (!thread.empty()) callee->set_execution_thread(thread);
  module_->AddComputation(std::move(owned));
  attrs.Set(AttrId::kCalls, std::vector<Computation*>{callee});
  return absl::OkStatus();
}

// ---- attributes ------------------------------------------------------------------------------

Status Parser::ParseAttribute(Attributes* attrs, Instruction* instr) {
  if (!Is(TokKind::kIdent) || tok_.percent) return Expected("an attribute name");
  std::string_view name = tok_.text;
  size_t name_begin = tok_.begin;
  Advance();
  RETURN_IF_ERROR(Expect(TokKind::kEqual, fmt::format("'=' after '{}'", name)));
  if (instr != nullptr && !hlo::IsAllowedAttribute(attr_row_, name) &&
      !(async_form_ != AsyncForm::kNone &&
        hlo::IsAsyncWrapperAttribute(name, async_form_ == AsyncForm::kStart))) {
    return ErrorAt(name_begin, fmt::format("unexpected attribute \"{}\" on {}", name, attr_op_));
  }
  if (instr != nullptr && name == "slice_sizes" &&
      (instr->opcode() == Opcode::kCollectivePermute ||
       instr->opcode() == Opcode::kCollectivePermuteStart)) {
    // The in-place form's per-pair slice sizes, {{..},..}: kept as text.
    if (!Is(TokKind::kLBrace)) return Expected("'{' to start the slice sizes");
    ASSIGN_OR_RETURN(std::string raw, ParseRaw(/*stop_at_space=*/true));
    for (const auto& [k, v] : attrs->unknown())
      if (k == name) return ErrorAt(name_begin, "duplicate attribute 'slice_sizes'");
    attrs->unknown().emplace_back(std::string(name), std::move(raw));
    return absl::OkStatus();
  }
  if (name == "sharding" && instr != nullptr) {
    if (instr->has_sharding()) return ErrorAt(name_begin, "duplicate attribute 'sharding'");
    return ParseSharding(instr);
  }
  std::optional<AttrId> id = AttrIdFromName(name);
  if (!id) {
    if (instr != nullptr && (name == "conv_kind" || name == "mode")) {
      if (!Is(TokKind::kIdent) || tok_.percent) return Expected("an identifier");
      RETURN_IF_ERROR(CheckEnumName(name, tok_.text, tok_.begin));
    }
    ASSIGN_OR_RETURN(std::string raw, ParseRaw(/*stop_at_space=*/true));
    for (const auto& [k, v] : attrs->unknown()) {
      if (k == name) return ErrorAt(name_begin, fmt::format("duplicate attribute '{}'", name));
    }
    attrs->unknown().emplace_back(std::string(name), std::move(raw));
    return absl::OkStatus();
  }
  if (attrs->Has(*id)) return ErrorAt(name_begin, fmt::format("duplicate attribute '{}'", name));
  return ParseAttrValue(*id, attrs, instr, name_begin);
}

// XLA's per-opcode "attribute X is expected but not seen", plus its operand-dependent rules.
Status Parser::CheckRequiredAttributes(const Instruction& instr, size_t at) {
  if (attr_row_ == nullptr) return absl::OkStatus();
  auto has = [&](std::string_view name) {
    if (std::optional<AttrId> id = AttrIdFromName(name)) {
      if (instr.attrs().Has(*id)) return true;
      if (*id == AttrId::kControlPredecessors) return instr.control_predecessors() != nullptr;
    }
    for (const auto& [k, v] : instr.attrs().unknown())
      if (k == name) return true;
    return false;
  };
  auto missing = [&](std::string_view name) {
    return ErrorAt(at, fmt::format("attribute {} is expected but not seen (on {})", name,
                                   attr_op_));
  };
  for (std::string_view name : attr_row_->required)
    if (!has(name)) return missing(name);
  if (async_form_ != AsyncForm::kNone) return absl::OkStatus();
  switch (instr.opcode()) {
    case Opcode::kCollectivePermute:
    case Opcode::kCollectivePermuteStart:
      if (has("slice_sizes") && instr.operand_count() != 4) {
        return ErrorAt(at, "a collective-permute with slice_sizes must have exactly four operands "
                           "(input, output, input and output start indices)");
      }
      break;
    case Opcode::kAllToAll:
    case Opcode::kRaggedAllToAll:
      // XLA's parser takes one split dimension or none.
      if (has("dimensions") && instr.dimensions().size() != 1) {
        return ErrorAt(at, fmt::format("{} takes at most one dimension, got {}", attr_op_,
                                       instr.dimensions().size()));
      }
      break;
    case Opcode::kSendDone:
    case Opcode::kRecvDone: {
      // XLA's parser: the channel_id of a done must be its start's (both absent included).
      const Instruction* start = instr.operand_count() == 1 ? instr.operand(0) : nullptr;
      if (start && (start->opcode() == Opcode::kSend || start->opcode() == Opcode::kRecv)) {
        const bool mine = instr.attrs().Has(AttrId::kChannelId), theirs = start->attrs().Has(AttrId::kChannelId);
        if (mine != theirs || (mine && instr.int_attr(AttrId::kChannelId, 0) != start->int_attr(AttrId::kChannelId, 0))) {
          return ErrorAt(at, fmt::format("the channel_id of %{} must be that of its operand %{}", instr.name(),
                                         start->name()));
        }
      }
      break;
    }
    case Opcode::kBroadcast:
      if (instr.operand_count() == 1 && instr.operand(0)->shape().IsArray() &&
          instr.operand(0)->shape().rank() > 0 && !has("dimensions")) {
        return missing("dimensions");
      }
      break;
    case Opcode::kConditional: {
      if (instr.operand_count() == 0) break;
      const Shape& index = instr.operand(0)->shape();
      if (!index.IsArray() || index.rank() != 0 ||
          (index.dtype() != DType::kPred && index.dtype() != DType::kS32)) {
        return ErrorAt(at, "the first operand of a conditional must be a scalar of pred or s32");
      }
      bool by_pred = index.dtype() == DType::kPred;
      for (std::string_view name : {"true_computation", "false_computation"}) {
        if (by_pred && !has(name)) return missing(name);
        if (!by_pred && has(name)) {
          return ErrorAt(at, fmt::format("unexpected attribute \"{}\": the branch index is s32 "
                                         "(use branch_computations)", name));
        }
      }
      if (!by_pred && !has("branch_computations")) return missing("branch_computations");
      if (by_pred && has("branch_computations")) {
        return ErrorAt(at, "unexpected attribute \"branch_computations\": the branch index is "
                           "pred (use true_computation and false_computation)");
      }
      break;
    }
    default:
      break;
  }
  return absl::OkStatus();
}

// The values XLA's parser accepts for enumeration attributes (StringTo* in XLA). `algorithm` is
// two enumerations: the dot's PrecisionConfig::Algorithm (ALG_* lower-cased without the prefix)
// and rng-bit-generator's RandomAlgorithm.
Status Parser::CheckEnumValue(AttrId id, std::string_view value, size_t at, const Instruction* instr) {
  if (id == AttrId::kAlgorithm) {
    bool rng = instr != nullptr && instr->opcode() == Opcode::kRngBitGenerator;
    static constexpr std::string_view kRandom[] = {"rng_default", "rng_three_fry", "rng_philox"};
    static constexpr std::string_view kDot[] = {
        "unset", "dot_any_f8_any_f8_f32", "dot_any_f8_any_f8_f32_fast_accum", "dot_f16_f16_f16",
        "dot_f16_f16_f32", "dot_bf16_bf16_bf16", "dot_bf16_bf16_f32", "dot_bf16_bf16_f32_x3",
        "dot_bf16_bf16_f32_x6", "dot_tf32_tf32_f32", "dot_tf32_tf32_f32_x3", "dot_f32_f32_f32",
        "dot_f64_f64_f64", "dot_bf16_bf16_f32_x9"};
    auto check = [&](auto& values) -> Status {
      for (std::string_view v : values)
        if (v == value) return absl::OkStatus();
      return ErrorAt(at, fmt::format("invalid {} '{}' (expected one of: {})",
                                     rng ? "random algorithm" : "dot algorithm", value,
                                     fmt::join(values, ", ")));
    };
    return rng ? check(kRandom) : check(kDot);
  }
  struct Enum {
    AttrId id;
    std::vector<std::string_view> values;
  };
  static const Enum kEnums[] = {
      {AttrId::kDirection, {"EQ", "NE", "GE", "GT", "LE", "LT"}},
      {AttrId::kCompareType, {"FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"}},
      {AttrId::kFftType, {"FFT", "IFFT", "RFFT", "IRFFT"}},
      {AttrId::kFusionKind, {"kLoop", "kInput", "kOutput", "kCustom"}},
      {AttrId::kPaddingType, {"PADDING_INVALID", "PADDING_VALID", "PADDING_SAME"}},
      {AttrId::kCustomCallSchedule, {"SCHEDULE_NONE", "SCHEDULE_LATEST", "SCHEDULE_EARLIEST"}},
      {AttrId::kApiVersion, {"API_VERSION_ORIGINAL", "API_VERSION_STATUS_RETURNING",
                             "API_VERSION_STATUS_RETURNING_UNIFIED", "API_VERSION_TYPED_FFI"}},
      {AttrId::kTransposeA, {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"}},
      {AttrId::kDistribution, {"rng_uniform", "rng_normal"}},
      {AttrId::kOperandPrecision, {"default", "high", "highest", "packed_nibble"}},
  };
  for (const Enum& e : kEnums) {
    if (e.id != id) continue;
    for (std::string_view v : e.values) {
      if (v == value) return absl::OkStatus();
    }
    return ErrorAt(at, fmt::format("invalid {} '{}' (expected one of: {})", AttrName(id), value,
                                   fmt::join(e.values, ", ")));
  }
  return absl::OkStatus();
}

// Enumerations of attributes spmdc keeps as text: a convolution's conv_kind (ParseConvKind) and a
// collective's group mode (StringToCollectiveOpGroupMode).
Status Parser::CheckEnumName(std::string_view attr, std::string_view value, size_t at) {
  static constexpr std::string_view kConvKind[] = {"fprop", "wgrad", "dgrad", "unset"};
  static constexpr std::string_view kMode[] = {"cross_replica", "cross_partition",
                                               "cross_replica_and_partition", "flattened_id"};
  auto check = [&](auto& values) -> Status {
    for (std::string_view v : values)
      if (v == value) return absl::OkStatus();
    return ErrorAt(at, fmt::format("invalid {} '{}' (expected one of: {})", attr, value,
                                   fmt::join(values, ", ")));
  };
  return attr == "conv_kind" ? check(kConvKind) : check(kMode);
}

Status Parser::ParseShapeIndex(std::vector<int64_t>* out) {
  RETURN_IF_ERROR(Expect(TokKind::kLBrace, "'{' at the start of a shape index"));
  while (Is(TokKind::kInt)) {
    ASSIGN_OR_RETURN(int64_t v, ParseInt("an index"));
    out->push_back(v);
    if (!Is(TokKind::kComma)) break;
    Advance();
  }
  return Expect(TokKind::kRBrace, "'}' at the end of a shape index");
}

// input_output_alias={ {out}: (param, {index}[, must-alias|may-alias]), ... } or
// buffer_donor={ (param, {index}), ... } (ParseAliasing / ParseBufferDonor in XLA).
Status Parser::CheckAliasingSyntax(bool buffer_donor) {
  RETURN_IF_ERROR(Expect(TokKind::kLBrace, buffer_donor ? "'{' to start the buffer donors"
                                                        : "'{' to start the aliasing"));
  const char* format = buffer_donor
                           ? "(<input_param>, <input_param_shape_index>)"
                           : "<output_shape_index>: (<input_param>, <input_param_shape_index>)";
  while (!Is(TokKind::kRBrace)) {
    AliasEntry e;
    e.at = tok_.begin;
    e.donor = buffer_donor;
    auto expect = [&](TokKind k) -> Status {
      if (!Is(k)) return Expected(fmt::format("the format {}", format));
      Advance();
      return absl::OkStatus();
    };
    if (!buffer_donor) {
      if (!Is(TokKind::kLBrace)) return Expected(fmt::format("the format {}", format));
      RETURN_IF_ERROR(ParseShapeIndex(&e.output_index));
      RETURN_IF_ERROR(expect(TokKind::kColon));
    }
    RETURN_IF_ERROR(expect(TokKind::kLParen));
    size_t param_at = tok_.begin;
    ASSIGN_OR_RETURN(e.param, ParseInt("a parameter number"));
    if (e.param < 0) return ErrorAt(param_at, "parameter number must be >= 0");
    RETURN_IF_ERROR(expect(TokKind::kComma));
    if (!Is(TokKind::kLBrace)) return Expected(fmt::format("the format {}", format));
    RETURN_IF_ERROR(ParseShapeIndex(&e.param_index));
    if (!buffer_donor && Is(TokKind::kComma)) {
      Advance();
      if (!IsKeyword("must-alias") && !IsKeyword("may-alias")) {
        return Expected("'must-alias' or 'may-alias'");
      }
      e.must_alias = IsKeyword("must-alias");
      Advance();
    }
    RETURN_IF_ERROR(expect(TokKind::kRParen));
    alias_entries_.push_back(std::move(e));
    if (!Is(TokKind::kComma)) break;
    Advance();
  }
  return Expect(TokKind::kRBrace, "'}' at the end of the list");
}

// entry_computation_layout={(shape, ...)->shape}; the shapes are kept for CheckEntryLayout.
Status Parser::CheckComputationLayoutSyntax() {
  entry_layout_ = EntryLayout{};  // not emplace(): clang 14 finds the nested struct not yet default-constructible
  entry_layout_->at = tok_.begin;
  RETURN_IF_ERROR(Expect(TokKind::kLBrace, "'{' to start the entry computation layout"));
  RETURN_IF_ERROR(Expect(TokKind::kLParen, "'(' before the parameter shapes"));
  while (!Is(TokKind::kRParen)) {
    entry_layout_->param_at.push_back(tok_.begin);
    entry_layout_->params.emplace_back();
    RETURN_IF_ERROR(ParseShape(&entry_layout_->params.back()));
    if (Is(TokKind::kRParen)) break;
    RETURN_IF_ERROR(Expect(TokKind::kComma, "',' between parameter shapes"));
  }
  Advance();
  RETURN_IF_ERROR(Expect(TokKind::kArrow, "'->' before the result shape"));
  entry_layout_->result_at = tok_.begin;
  RETURN_IF_ERROR(ParseShape(&entry_layout_->result));
  return Expect(TokKind::kRBrace, "'}' at the end of the entry computation layout");
}

// domain={kind="sharding", entry={...}, exit={...}} (XLA's ParseDomain: sub-attributes in any
// order, each once, all required; "sharding" the one kind).
Status Parser::CheckDomainSyntax() {
  const size_t at = tok_.begin;
  RETURN_IF_ERROR(Expect(TokKind::kLBrace, "'{' to start the domain"));
  std::vector<std::string_view> seen;
  while (!Is(TokKind::kRBrace)) {
    if (Is(TokKind::kComma)) Advance();
    if (!Is(TokKind::kIdent) || tok_.percent) return Expected("a domain sub-attribute (kind, entry, exit)");
    std::string_view name = tok_.text;
    size_t name_at = tok_.begin;
    if (name != "kind" && name != "entry" && name != "exit") {
      return ErrorAt(name_at, fmt::format("unexpected domain sub-attribute '{}' (expected kind, entry, exit)", name));
    }
    if (std::find(seen.begin(), seen.end(), name) != seen.end())
      return ErrorAt(name_at, fmt::format("domain sub-attribute '{}' given twice", name));
    seen.push_back(name);
    Advance();
    RETURN_IF_ERROR(Expect(TokKind::kEqual, fmt::format("'=' after '{}'", name)));
    if (name == "kind") {
      if (!Is(TokKind::kString)) return Expected("a string");
      std::string kind = UnquoteRaw(tok_.text);
      if (kind != "sharding") return ErrorAt(tok_.begin, fmt::format("unsupported domain kind: {}", kind));
      Advance();
      continue;
    }
    if (!Is(TokKind::kLBrace)) return Expected("'{' to start the sharding");
    size_t start = tok_.begin;
    ASSIGN_OR_RETURN(size_t end, ScanBalanced(start, /*stop_at_space=*/true));
    std::string_view value = text_.substr(start, end - start);
    size_t error_offset = 0;
    StatusOr<Sharding> sharding = ::spmdc::ParseSharding(value, &error_offset);
    if (!sharding.ok()) return ErrorAt(start + std::min(error_offset, value.size()), std::string(sharding.status().message()));
    lexer_.set_pos(end);
    Advance();
  }
  Advance();
  for (std::string_view required : {"kind", "entry", "exit"})
    if (std::find(seen.begin(), seen.end(), required) == seen.end())
      return ErrorAt(at, fmt::format("domain sub-attribute {} is expected but not seen", required));
  return absl::OkStatus();
}

// result_accuracy={mode=default|highest} or {tolerance={atol=X, rtol=X, ulps=X}} (XLA's
// ParseResultAccuracy; each tolerance field optional).
Status Parser::CheckResultAccuracySyntax() {
  RETURN_IF_ERROR(Expect(TokKind::kLBrace, "'{' to start result_accuracy"));
  if (!Is(TokKind::kIdent) || (tok_.text != "mode" && tok_.text != "tolerance"))
    return Expected("'mode' or 'tolerance' in result_accuracy");
  const bool mode = tok_.text == "mode";
  Advance();
  RETURN_IF_ERROR(Expect(TokKind::kEqual, "'='"));
  if (mode) {
    if (!Is(TokKind::kIdent) || (tok_.text != "default" && tok_.text != "highest")) {
      return ErrorAt(tok_.begin, fmt::format("invalid result_accuracy mode {} (expected default or highest)",
                                             Describe(tok_)));
    }
    Advance();
  } else {
    RETURN_IF_ERROR(Expect(TokKind::kLBrace, "'{' to start the tolerance"));
    while (!Is(TokKind::kRBrace)) {
      if (!Is(TokKind::kIdent) || (tok_.text != "atol" && tok_.text != "rtol" && tok_.text != "ulps"))
        return Expected("atol, rtol or ulps in the tolerance");
      Advance();
      RETURN_IF_ERROR(Expect(TokKind::kEqual, "'='"));
      RETURN_IF_ERROR(ParseDouble("a number").status());
      if (!Is(TokKind::kComma)) break;
      Advance();
    }
    RETURN_IF_ERROR(Expect(TokKind::kRBrace, "'}' to end the tolerance"));
  }
  return Expect(TokKind::kRBrace, "'}' to end result_accuracy");
}

// A layout's minor_to_major must be a permutation of the dimensions (what XLA's
// ValidateShapeWithOptionalLayout requires of the entry computation layout's shapes).
std::optional<std::string> LayoutProblem(const Shape& shape) {
  if (shape.IsTuple()) {
    for (const Shape& e : shape.tuple_shapes())
      if (std::optional<std::string> p = LayoutProblem(e)) return p;
    return std::nullopt;
  }
  if (!shape.IsArray() || !shape.layout()) return std::nullopt;
  std::vector<bool> seen(shape.rank(), false);
  for (int64_t d : shape.layout()->minor_to_major) {
    if (d < 0 || d >= shape.rank()) {
      return fmt::format("the layout of {} names dimension {}, out of bounds", shape.ToString(), d);
    }
    if (seen[d]) return fmt::format("the layout of {} names dimension {} twice", shape.ToString(), d);
    seen[d] = true;
  }
  return std::nullopt;
}

// `shape` with the default layout (major to minor) on every array that has none, as XLA's parser
// fills them in (a scalar's is empty and prints as none).
Shape WithDefaultLayouts(Shape shape) {
  if (shape.IsTuple()) {
    for (Shape& e : shape.mutable_tuple_shapes()) e = WithDefaultLayouts(std::move(e));
  } else if (shape.IsArray() && !shape.layout() && shape.rank() > 0) {
    Layout l;
    for (int64_t d = shape.rank() - 1; d >= 0; --d) l.minor_to_major.push_back(d);
    shape.set_layout(std::move(l));
  }
  return shape;
}

// What XLA's verifier requires of the entry computation layout (VerifyEntryComputationLayout,
// layout-insensitive as its default): valid layouts, one shape per entry parameter, each
// compatible with its parameter and the result with the root, and a must-alias output laid out
// exactly like its parameter.
Status Parser::CheckEntryLayout() {
  Computation* entry = module_->entry();
  if (entry == nullptr || entry->root() == nullptr) return absl::OkStatus();
  std::vector<Shape> params;
  Shape result;
  if (entry_layout_) {
    const EntryLayout& l = *entry_layout_;
    if (std::optional<std::string> p = LayoutProblem(l.result)) return ErrorAt(l.result_at, *p);
    if (!entry->root()->shape().Compatible(l.result)) {
      return ErrorAt(l.result_at, fmt::format("the entry computation layout's result {} is not "
                                              "compatible with the shape of the entry's root %{}, {}",
                                              l.result.ToString(), entry->root()->name(),
                                              entry->root()->shape().ToString()));
    }
    if (static_cast<int64_t>(l.params.size()) != entry->num_parameters()) {
      return ErrorAt(l.at, fmt::format("the entry computation layout has {} parameters, the entry "
                                       "computation %{} has {}", l.params.size(), entry->name(),
                                       entry->num_parameters()));
    }
    for (size_t i = 0; i < l.params.size(); ++i) {
      if (std::optional<std::string> p = LayoutProblem(l.params[i])) return ErrorAt(l.param_at[i], *p);
      const Instruction* param = entry->parameter(static_cast<int64_t>(i));
      if (param != nullptr && !param->shape().Compatible(l.params[i])) {
        return ErrorAt(l.param_at[i], fmt::format("the entry computation layout's parameter {} is {}, "
                                                  "not compatible with %{}, {}", i,
                                                  l.params[i].ToString(), param->name(),
                                                  param->shape().ToString()));
      }
    }
    params = l.params;
    result = l.result;
  } else {
    for (int64_t i = 0; i < entry->num_parameters(); ++i)
      params.push_back(entry->parameter(i) ? entry->parameter(i)->shape() : Shape());
    result = entry->root()->shape();
  }
  const Shape laid_out_result = WithDefaultLayouts(result);
  for (const AliasEntry& e : alias_entries_) {
    if (e.donor || !e.must_alias || e.param >= static_cast<int64_t>(params.size())) continue;
    const Shape laid_out_param = WithDefaultLayouts(params[e.param]);
    const Shape& out = laid_out_result.subshape(e.output_index);
    const Shape& in = laid_out_param.subshape(e.param_index);
    if (!out.Equal(in, /*compare_layout=*/true)) {
      return ErrorAt(e.at, fmt::format("output {{{}}} must alias parameter {} at {{{}}}, but their "
                                       "shapes and layouts differ: {} and {}",
                                       fmt::join(e.output_index, ","), e.param,
                                       fmt::join(e.param_index, ","), out.ToString(), in.ToString()));
    }
  }
  return absl::OkStatus();
}

bool IndexIsValid(const Shape& shape, const std::vector<int64_t>& index) {
  const Shape* s = &shape;
  for (int64_t i : index) {
    if (!s->IsTuple() || i < 0 || i >= s->tuple_size()) return false;
    s = &s->tuple_shape(i);
  }
  return true;
}

// What XLA checks when it sets up the aliasing (SetUpAlias, AddBufferDonor) and what its
// verifier adds: indices valid in the entry's shapes, each output aliased once, a donor not
// also aliased.
Status Parser::CheckHeaderAliasing() {
  Computation* entry = module_->entry();
  if (entry == nullptr || entry->root() == nullptr) return absl::OkStatus();
  std::vector<std::vector<int64_t>> outputs;
  std::vector<std::pair<int64_t, std::vector<int64_t>>> aliased_params;
  // Aliases first, whichever header attribute came first, so donors are checked against all.
  std::stable_partition(alias_entries_.begin(), alias_entries_.end(),
                        [](const AliasEntry& e) { return !e.donor; });
  for (const AliasEntry& e : alias_entries_) {
    if (!e.donor) {
      if (!IndexIsValid(entry->root()->shape(), e.output_index)) {
        return ErrorAt(e.at, fmt::format("output index {{{}}} is not an index of the result shape "
                                         "{}", fmt::join(e.output_index, ","),
                                         entry->root()->shape().ToString(false)));
      }
      if (std::find(outputs.begin(), outputs.end(), e.output_index) != outputs.end()) {
        return ErrorAt(e.at, fmt::format("output {{{}}} is aliased twice",
                                         fmt::join(e.output_index, ",")));
      }
      outputs.push_back(e.output_index);
    }
    if (e.param >= entry->num_parameters() || entry->parameter(e.param) == nullptr) {
      return ErrorAt(e.at, fmt::format("parameter {} does not exist (the entry has {})", e.param,
                                       entry->num_parameters()));
    }
    if (!IndexIsValid(entry->parameter(e.param)->shape(), e.param_index)) {
      return ErrorAt(e.at, fmt::format("{{{}}} is not an index of parameter {}'s shape {}",
                                       fmt::join(e.param_index, ","), e.param,
                                       entry->parameter(e.param)->shape().ToString(false)));
    }
    std::pair<int64_t, std::vector<int64_t>> key(e.param, e.param_index);
    if (e.donor) {
      if (std::find(aliased_params.begin(), aliased_params.end(), key) != aliased_params.end()) {
        return ErrorAt(e.at, fmt::format("parameter {} at {{{}}} is both aliased to an output and "
                                         "a buffer donor", e.param, fmt::join(e.param_index, ",")));
      }
    } else {
      // HloInputOutputAliasConfig::Verify: one output per parameter buffer, both dense arrays of
      // the same byte size.
      if (std::find(aliased_params.begin(), aliased_params.end(), key) != aliased_params.end()) {
        return ErrorAt(e.at, fmt::format("parameter {} at {{{}}} is aliased to two outputs", e.param,
                                         fmt::join(e.param_index, ",")));
      }
      const Shape& in = entry->parameter(e.param)->shape().subshape(e.param_index);
      const Shape& out = entry->root()->shape().subshape(e.output_index);
      if (!in.IsArray() || !out.IsArray()) {
        return ErrorAt(e.at, fmt::format("only arrays can alias: output {{{}}} is {}, parameter {} "
                                         "at {{{}}} is {}", fmt::join(e.output_index, ","),
                                         out.ToString(false), e.param, fmt::join(e.param_index, ","),
                                         in.ToString(false)));
      }
      if (in.byte_size() != out.byte_size()) {
        return ErrorAt(e.at, fmt::format("output {{{}}} ({}, {} bytes) and parameter {} at {{{}}} "
                                         "({}, {} bytes) alias but differ in size",
                                         fmt::join(e.output_index, ","), out.ToString(false),
                                         out.byte_size(), e.param, fmt::join(e.param_index, ","),
                                         in.ToString(false), in.byte_size()));
      }
      aliased_params.push_back(std::move(key));
    }
  }
  return absl::OkStatus();
}

Status Parser::ParseSharding(Instruction* instr) {
  if (!Is(TokKind::kLBrace)) return Expected("'{' to start the sharding");
  size_t start = tok_.begin;
  ASSIGN_OR_RETURN(size_t end, ScanBalanced(start, /*stop_at_space=*/true));
  std::string_view value = text_.substr(start, end - start);
  size_t error_offset = 0;
  StatusOr<Sharding> sharding = ::spmdc::ParseSharding(value, &error_offset);
  if (!sharding.ok()) {
    if (error_offset > value.size()) error_offset = value.size();
    return ErrorAt(start + error_offset, std::string(sharding.status().message()));
  }
  instr->set_sharding(std::make_shared<const Sharding>(std::move(sharding).value()));
  lexer_.set_pos(end);
  Advance();
  return absl::OkStatus();
}

// Returns the end of a value starting at `start`: balanced brackets, strings and comments are
// skipped; at depth 0 the value ends at ',', an unmatched closer, or (if asked) whitespace.
StatusOr<size_t> Parser::ScanBalanced(size_t start, bool stop_at_space) {
  char stack[kMaxDepth + 1];
  int depth = 0;
  size_t i = start;
  const size_t n = text_.size();
  while (i < n) {
    char c = text_[i];
    if (c == '"') {
      size_t j = i + 1;
      while (j < n && text_[j] != '"') j += text_[j] == '\\' ? 2 : 1;
      if (j >= n) return ErrorAt(i, "unterminated string");
      i = j + 1;
      continue;
    }
    if (c == '/' && i + 1 < n && (text_[i + 1] == '*' || text_[i + 1] == '/')) {
      if (depth == 0 && stop_at_space) break;
      if (text_[i + 1] == '*') {
        size_t close = text_.find("*/", i + 2);
        if (close == std::string_view::npos) return ErrorAt(i, "unterminated comment");
        i = close + 2;
      } else {
        size_t nl = text_.find('\n', i);
        i = nl == std::string_view::npos ? n : nl + 1;
      }
      continue;
    }
    if (c == '{' || c == '[' || c == '(') {
      if (depth >= kMaxDepth) return ErrorAt(i, "nesting is too deep");
      stack[depth++] = c == '{' ? '}' : c == '[' ? ']' : ')';
    } else if (c == '}' || c == ']' || c == ')') {
      if (depth == 0) break;
      if (stack[depth - 1] != c) {
        return ErrorAt(i, fmt::format("expected '{}', found '{}'", stack[depth - 1], c));
      }
      if (--depth == 0) {
        ++i;
        continue;
      }
    } else if (depth == 0 && (c == ',' || (stop_at_space && IsSpace(c)))) {
      break;
    }
    ++i;
  }
  if (depth > 0) return ErrorAt(i, fmt::format("expected '{}', found end of input", stack[depth - 1]));
  if (i == start) return Expected("a value");
  return i;
}

// Canonical text of a raw value: comments dropped, whitespace runs (outside strings) collapsed to
// one space, no leading/trailing space.
std::string CanonicalRaw(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  bool pending_space = false;
  for (size_t i = 0; i < s.size();) {
    char c = s[i];
    if (c == '"') {
      size_t j = i + 1;
      while (j < s.size() && s[j] != '"') j += s[j] == '\\' ? 2 : 1;
      j = std::min(j + 1, s.size());
      if (pending_space && !out.empty()) out += ' ';
      pending_space = false;
      out.append(s.substr(i, j - i));
      i = j;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      size_t close = s.find("*/", i + 2);
      i = close == std::string_view::npos ? s.size() : close + 2;
      pending_space = true;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      size_t nl = s.find('\n', i);
      i = nl == std::string_view::npos ? s.size() : nl + 1;
      pending_space = true;
      continue;
    }
    if (IsSpace(c)) {
      pending_space = true;
      ++i;
      continue;
    }
    if (pending_space && !out.empty()) out += ' ';
    pending_space = false;
    out += c;
    ++i;
  }
  return out;
}

StatusOr<std::string> Parser::ParseRaw(bool stop_at_space) {
  if (Is(TokKind::kEof)) return Expected("a value");
  size_t start = tok_.begin;
  ASSIGN_OR_RETURN(size_t end, ScanBalanced(start, stop_at_space));
  lexer_.set_pos(end);
  Advance();
  return CanonicalRaw(text_.substr(start, end - start));
}

// Scans a run of characters satisfying `pred` from the current token's start.
StatusOr<std::string_view> Parser::ScanChars(bool (*pred)(char)) {
  size_t start = tok_.begin;
  size_t i = start;
  while (i < text_.size() && pred(text_[i])) ++i;
  lexer_.set_pos(i);
  Advance();
  return text_.substr(start, i - start);
}

StatusOr<Computation*> Parser::ParseComputationRef() {
  if (Is(TokKind::kLBrace)) return ParseNestedComputation();
  if (!Is(TokKind::kIdent)) return Expected("a computation name");
  auto it = computations_.find(tok_.text);
  if (it == computations_.end()) {
    return ErrorAt(tok_.begin, fmt::format("unknown computation %{}", tok_.text));
  }
  Advance();
  return it->second;
}

// Frontend attributes: {k="v", k2={json dict}}. Like XLA, a value is a string or a balanced
// {...} dictionary; values are kept as raw text.
Status Parser::ParseKeyValues(KeyValueList* out) {
  RETURN_IF_ERROR(Expect(TokKind::kLBrace, "'{'"));
  while (!Is(TokKind::kRBrace)) {
    if (!Is(TokKind::kIdent) && !Is(TokKind::kString)) return Expected("a key or '}'");
    std::string key(tok_.percent ? text_.substr(tok_.begin, tok_.end - tok_.begin) : tok_.text);
    Advance();
    RETURN_IF_ERROR(Expect(TokKind::kEqual, fmt::format("'=' after '{}'", key)));
    if (!Is(TokKind::kString) && !Is(TokKind::kLBrace)) {
      return Expected(fmt::format("a string or a {{...}} dictionary as the value of '{}'", key));
    }
    ASSIGN_OR_RETURN(std::string value, ParseRaw(/*stop_at_space=*/true));
    // A key given twice keeps its last value (XLA's frontend attributes are a map).
    auto same = std::find_if(out->begin(), out->end(), [&](const auto& kv) { return kv.first == key; });
    if (same != out->end()) out->erase(same);
    out->emplace_back(std::move(key), std::move(value));
    if (Is(TokKind::kComma)) Advance();
  }
  Advance();
  return absl::OkStatus();
}

// statistics={} or {visualizing_index=INT, NAME=NUMBER, ...} (XLA's ParseStatisticsViz: the
// first attribute's name is not checked, its value is the index to visualize).
Status Parser::CheckStatisticsSyntax() {
  RETURN_IF_ERROR(Expect(TokKind::kLBrace, "'{' to start the statistics"));
  if (Is(TokKind::kRBrace)) return Expect(TokKind::kRBrace, "'}'");
  if (!Is(TokKind::kIdent) || tok_.percent) return Expected("the statistic index attribute (visualizing_index=)");
  Advance();
  RETURN_IF_ERROR(Expect(TokKind::kEqual, "'='"));
  RETURN_IF_ERROR(ParseInt("the index of the statistic to visualize").status());
  while (Is(TokKind::kComma)) {
    Advance();
    if (!Is(TokKind::kIdent) || tok_.percent) return Expected("a statistic name");
    Advance();
    RETURN_IF_ERROR(Expect(TokKind::kEqual, "'='"));
    if (!Is(TokKind::kInt) && !Is(TokKind::kFloat)) return Expected("a number");
    Advance();
  }
  return Expect(TokKind::kRBrace, "'}' to end the statistics");
}

// OpMetadata: '{' (','? field=value)* '}' with XLA's fields (ParseMetadata in hlo_parser.cc),
// each at most once, strings and int32s typed as XLA types them. Kept as raw text in input order.
Status Parser::ParseMetadata(KeyValueList* out) {
  enum class Kind { kString, kInt32, kProfileTypes };
  static constexpr std::pair<std::string_view, Kind> kFields[] = {
      {"op_type", Kind::kString},         {"op_name", Kind::kString},
      {"source_file", Kind::kString},     {"source_line", Kind::kInt32},
      {"source_end_line", Kind::kInt32},  {"source_column", Kind::kInt32},
      {"source_end_column", Kind::kInt32}, {"profile_type", Kind::kProfileTypes},
      {"deduplicated_name", Kind::kString}, {"scheduling_name", Kind::kString},
      {"stack_frame_id", Kind::kInt32}};
  RETURN_IF_ERROR(Expect(TokKind::kLBrace, "'{' to start the metadata"));
  while (!Is(TokKind::kRBrace)) {
    if (Is(TokKind::kComma)) Advance();
    if (!Is(TokKind::kIdent) || tok_.percent) return Expected("a metadata field or '}'");
    std::string_view key = tok_.text;
    size_t key_at = tok_.begin;
    const Kind* kind = nullptr;
    for (const auto& [name, k] : kFields)
      if (name == key) kind = &k;
    if (kind == nullptr) {
      return ErrorAt(key_at, fmt::format("unexpected metadata field '{}' (XLA's fields: op_type, "
                                         "op_name, source_file, source_line, source_end_line, "
                                         "source_column, source_end_column, profile_type, "
                                         "deduplicated_name, scheduling_name, stack_frame_id)",
                                         key));
    }
    for (const auto& [k, v] : *out)
      if (k == key) return ErrorAt(key_at, fmt::format("metadata field '{}' given twice", key));
    Advance();
    RETURN_IF_ERROR(Expect(TokKind::kEqual, fmt::format("'=' after '{}'", key)));
    size_t value_at = tok_.begin;
    switch (*kind) {
      case Kind::kString:
        if (!Is(TokKind::kString)) return Expected(fmt::format("a string for '{}'", key));
        out->emplace_back(std::string(key), std::string(tok_.text));
        Advance();
        break;
      case Kind::kInt32: {
        ASSIGN_OR_RETURN(int64_t v, ParseInt(fmt::format("an integer for '{}'", key)));
        if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
          return ErrorAt(value_at, fmt::format("'{}' is out of range for int32", key));
        }
        if (key == "stack_frame_id" && v != 0 &&
            (v < 0 || v > static_cast<int64_t>(module_->stack_frames().frames.size()))) {
          Warn(value_at, fmt::format("stack_frame_id={} names no frame of the StackFrames table "
                                     "({} frames); it is ignored", v,
                                     module_->stack_frames().frames.size()));
        }
        out->emplace_back(std::string(key), std::to_string(v));
        break;
      }
      case Kind::kProfileTypes: {
        std::vector<int64_t> types;
        RETURN_IF_ERROR(ParseIntList(&types, "the profile types"));
        for (int64_t t : types) {
          // ProfileType: INVALID=0, WINDOW=1, FLAG=2, INTEGER=3.
          if (t < 0 || t > 3) return ErrorAt(value_at, fmt::format("invalid profile type {}", t));
        }
        out->emplace_back(std::string(key), fmt::format("{{{}}}", fmt::join(types, ",")));
        break;
      }
    }
  }
  Advance();
  return absl::OkStatus();
}

// {name=INT ...}: every name in `names` exactly once (commas between them optional), in any
// order, each an int32 (XLA's ParseSubAttributes with kInt32 attributes).
Status Parser::ParseIntSubAttributes(const std::vector<std::string_view>& names,
                                     int64_t* values) {
  size_t open = tok_.begin;
  RETURN_IF_ERROR(Expect(TokKind::kLBrace, "'{' to start the sub-attributes"));
  std::vector<bool> seen(names.size(), false);
  while (!Is(TokKind::kRBrace)) {
    if (Is(TokKind::kComma)) Advance();
    if (!Is(TokKind::kIdent) || tok_.percent) return Expected("a sub-attribute or '}'");
    size_t k = 0;
    while (k < names.size() && names[k] != tok_.text) ++k;
    if (k == names.size()) {
      return ErrorAt(tok_.begin, fmt::format("unexpected sub-attribute '{}'", tok_.text));
    }
    if (seen[k]) return ErrorAt(tok_.begin, fmt::format("sub-attribute '{}' given twice", names[k]));
    seen[k] = true;
    Advance();
    RETURN_IF_ERROR(Expect(TokKind::kEqual, fmt::format("'=' after '{}'", names[k])));
    size_t at = tok_.begin;
    ASSIGN_OR_RETURN(values[k], ParseInt("an integer"));
    if (values[k] < std::numeric_limits<int32_t>::min() ||
        values[k] > std::numeric_limits<int32_t>::max()) {
      return ErrorAt(at, "value out of range for int32");
    }
  }
  for (size_t k = 0; k < names.size(); ++k) {
    if (!seen[k]) {
      return ErrorAt(open, fmt::format("sub-attribute {} is expected but not seen", names[k]));
    }
  }
  Advance();
  return absl::OkStatus();
}

// FileNames (INT STRING)* FunctionNames (INT STRING)* FileLocations (INT {..})*
// StackFrames (INT {..})* -- the leading integers are row numbers XLA does not check.
Status Parser::ParseStackFrameIndex() {
  StackFrameIndex& index = module_->stack_frames();
  Advance();  // FileNames
  auto names = [&](std::vector<std::string>* out) -> Status {
    while (Is(TokKind::kInt)) {
      Advance();
      if (!Is(TokKind::kString)) return Expected("a quoted name after the row number");
      out->push_back(UnquoteRaw(tok_.text));
      Advance();
    }
    return absl::OkStatus();
  };
  RETURN_IF_ERROR(names(&index.file_names));
  if (!IsKeyword("FunctionNames")) return Expected("'FunctionNames'");
  Advance();
  RETURN_IF_ERROR(names(&index.function_names));
  if (!IsKeyword("FileLocations")) return Expected("'FileLocations'");
  Advance();
  std::vector<size_t> location_rows, frame_rows;
  while (Is(TokKind::kInt)) {
    location_rows.push_back(tok_.begin);
    Advance();
    int64_t v[6];
    RETURN_IF_ERROR(ParseIntSubAttributes(
        {"file_name_id", "function_name_id", "line", "end_line", "column", "end_column"}, v));
    index.file_locations.push_back({static_cast<int32_t>(v[0]), static_cast<int32_t>(v[1]),
                                    static_cast<int32_t>(v[2]), static_cast<int32_t>(v[3]),
                                    static_cast<int32_t>(v[4]), static_cast<int32_t>(v[5])});
  }
  if (!IsKeyword("StackFrames")) return Expected("'StackFrames'");
  Advance();
  while (Is(TokKind::kInt)) {
    frame_rows.push_back(tok_.begin);
    Advance();
    int64_t v[2];
    RETURN_IF_ERROR(ParseIntSubAttributes({"file_location_id", "parent_frame_id"}, v));
    index.frames.push_back({static_cast<int32_t>(v[0]), static_cast<int32_t>(v[1])});
  }
  for (const StackFrameIndex::Defect& d : index.Validate()) {
    const std::vector<size_t>& rows =
        d.table == StackFrameIndex::Defect::kFileLocations ? location_rows : frame_rows;
    Warn(rows[d.row - 1], d.message + "; metadata reaching it stops there");
  }
  return absl::OkStatus();
}

bool IsWindowChar(char c) { return IsDigit(c) || c == 'x' || c == '_' || c == '-'; }
bool IsDimLabelChar(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'z') || c == '_' || c == '-' || c == '>' || c == '?';
}

// "1x2x3" -> {1,2,3}; with `underscore`, "1_2x3_4" -> {{1,2},{3,4}}.
bool SplitDims(std::string_view s, char sep, std::vector<std::vector<int64_t>>* out) {
  out->clear();
  if (s.empty()) return true;
  size_t pos = 0;
  while (true) {
    size_t x = s.find('x', pos);
    std::string_view part = s.substr(pos, x == std::string_view::npos ? std::string_view::npos : x - pos);
    std::vector<int64_t> nums;
    size_t p = 0;
    while (true) {
      // A number may start with '-'; the separator '_' never does.
      size_t q = part.find(sep, p + (p < part.size() && part[p] == '-' ? 1 : 0));
      std::string_view num = part.substr(p, q == std::string_view::npos ? std::string_view::npos : q - p);
      int64_t v;
      if (num.empty() || !ParseIntText(num, &v)) return false;
      nums.push_back(v);
      if (q == std::string_view::npos) break;
      p = q + 1;
    }
    out->push_back(std::move(nums));
    if (x == std::string_view::npos) break;
    pos = x + 1;
  }
  return true;
}

StatusOr<Window> Parser::ParseWindow() {
  RETURN_IF_ERROR(Expect(TokKind::kLBrace, "'{' to start the window"));
  Window window;
  bool have_size = false;
  struct Field {
    std::string_view key;
    std::vector<std::vector<int64_t>> values;
    size_t at;
  };
  std::vector<Field> fields;
  while (!Is(TokKind::kRBrace)) {
    if (!Is(TokKind::kIdent)) return Expected("a window field (size, stride, pad, ...) or '}'");
    std::string_view key = tok_.text;
    size_t at = tok_.begin;
    Advance();
    RETURN_IF_ERROR(Expect(TokKind::kEqual, fmt::format("'=' after '{}'", key)));
    size_t value_at = tok_.begin;
    ASSIGN_OR_RETURN(std::string_view value, ScanChars(IsWindowChar));
    for (const Field& seen : fields)
      if (seen.key == key) return ErrorAt(at, fmt::format("sub-attribute '{}=' already exists", key));
    Field f{key, {}, at};
    if (!SplitDims(value, '_', &f.values) || f.values.empty()) {
      return ErrorAt(value_at, fmt::format("invalid window {} '{}'", key, value));
    }
    if (key == "size") have_size = true;
    fields.push_back(std::move(f));
    if (Is(TokKind::kComma)) Advance();
  }
  Advance();
  if (fields.empty()) return window;
  if (!have_size) return ErrorAt(fields[0].at, "window has no size");
  size_t rank = 0;
  for (const Field& f : fields)
    if (f.key == "size") rank = f.values.size();
  window.dims.resize(rank);
  for (const Field& f : fields) {
    if (f.values.size() != rank) {
      return ErrorAt(f.at, fmt::format("window {} has {} dimensions, size has {}", f.key,
                                       f.values.size(), rank));
    }
    bool pad = f.key == "pad";
    for (size_t i = 0; i < rank; ++i) {
      const std::vector<int64_t>& v = f.values[i];
      if (v.size() != (pad ? 2u : 1u)) {
        return ErrorAt(f.at, fmt::format("invalid window {} entry", f.key));
      }
      WindowDim& d = window.dims[i];
      if (f.key == "size") d.size = v[0];
      else if (f.key == "stride") d.stride = v[0];
      else if (pad) { d.padding_low = v[0]; d.padding_high = v[1]; }
      else if (f.key == "lhs_dilate") d.base_dilation = v[0];
      else if (f.key == "rhs_dilate") d.window_dilation = v[0];
      else if (f.key == "rhs_reversal") d.window_reversal = v[0] != 0;
      else return ErrorAt(f.at, fmt::format("unknown window field '{}'", f.key));
    }
  }
  return window;
}

// lhs_rhs->out, e.g. b01f_01io->b01f. A '?' labels a dimension that is none of the convolution's
// (XLA's ParseConvolutionDimensionNumbers skips it: cuDNN's vectorized layouts add one to
// custom-call convolutions). Each part then has its own length; all three name the same number
// of spatial dims, each digit once and below that number, and b/f (i/o) exactly once.
StatusOr<ConvDims> Parser::ParseConvDims() {
  size_t at = tok_.begin;
  ASSIGN_OR_RETURN(std::string_view s, ScanChars(IsDimLabelChar));
  size_t us = s.find('_');
  size_t arrow = s.find("->");
  if (us == std::string_view::npos || arrow == std::string_view::npos || arrow < us ||
      s.find('_', us + 1) != std::string_view::npos ||
      s.find("->", arrow + 2) != std::string_view::npos) {
    return ErrorAt(at, fmt::format("invalid dim_labels '{}' (expected like b01f_01io->b01f)", s));
  }
  std::string_view parts[3] = {s.substr(0, us), s.substr(us + 1, arrow - us - 1), s.substr(arrow + 2)};
  const char* letters[3] = {"bf", "io", "bf"};
  const char* names[3] = {"input", "kernel", "output"};
  ConvDims dims;
  int64_t* a[3] = {&dims.input_batch, &dims.kernel_input_feature, &dims.output_batch};
  int64_t* b[3] = {&dims.input_feature, &dims.kernel_output_feature, &dims.output_feature};
  std::vector<int64_t>* spatial[3] = {&dims.input_spatial, &dims.kernel_spatial, &dims.output_spatial};
  size_t num_spatial[3] = {0, 0, 0};
  for (int k = 0; k < 3; ++k) {
    if (parts[k].size() > 12) {
      return ErrorAt(at, fmt::format("invalid dim_labels '{}': the {} part names more than 12 "
                                     "dimensions", s, names[k]));
    }
    for (size_t i = 0; i < parts[k].size(); ++i) {
      const char c = parts[k][i];
      if (c == letters[k][0] || c == letters[k][1] || c == '?') continue;
      if (!IsDigit(c)) {
        return ErrorAt(at + (parts[k].data() - s.data()) + i,
                       fmt::format("unexpected '{}' in the {} part of dim_labels '{}' (expected [0-9{}?])", c,
                                   names[k], s, letters[k]));
      }
      ++num_spatial[k];
    }
  }
  if (num_spatial[0] != num_spatial[1] || num_spatial[0] != num_spatial[2]) {
    return ErrorAt(at, fmt::format("invalid dim_labels '{}': input, kernel and output must have "
                                   "the same number of spatial dimensions, got {}, {}, {}", s,
                                   num_spatial[0], num_spatial[1], num_spatial[2]));
  }
  for (int k = 0; k < 3; ++k) {
    std::string_view p = parts[k];
    spatial[k]->assign(num_spatial[k], -1);
    int seen_a = 0, seen_b = 0;
    for (size_t i = 0; i < p.size(); ++i) {
      char c = p[i];
      if (c == '?') continue;
      if (c == letters[k][0]) {
        *a[k] = static_cast<int64_t>(i);
        ++seen_a;
      } else if (c == letters[k][1]) {
        *b[k] = static_cast<int64_t>(i);
        ++seen_b;
      } else if (IsDigit(c) && static_cast<size_t>(c - '0') < num_spatial[k] &&
                 (*spatial[k])[c - '0'] < 0) {
        (*spatial[k])[c - '0'] = static_cast<int64_t>(i);
      } else {
        return ErrorAt(at + (p.data() - s.data()) + i,
                       fmt::format("unexpected '{}' in the {} part of dim_labels '{}'", c, names[k], s));
      }
    }
    if (seen_a != 1 || seen_b != 1) {
      return ErrorAt(at + (p.data() - s.data()),
                     fmt::format("invalid dim_labels '{}': the {} part must name '{}' and '{}' "
                                 "exactly once", s, names[k], letters[k][0], letters[k][1]));
    }
  }
  return dims;
}

StatusOr<PaddingConfig> Parser::ParsePadding() {
  size_t at = tok_.begin;
  ASSIGN_OR_RETURN(std::string_view s, ScanChars(IsWindowChar));
  std::vector<std::vector<int64_t>> parts;
  if (!SplitDims(s, '_', &parts)) return ErrorAt(at, fmt::format("invalid padding '{}'", s));
  PaddingConfig config;
  for (const auto& p : parts) {
    if (p.size() != 2 && p.size() != 3) {
      return ErrorAt(at, fmt::format("invalid padding '{}' (expected low_high[_interior]x...)", s));
    }
    config.dims.push_back({p[0], p[1], p.size() == 3 ? p[2] : 0});
  }
  return config;
}

StatusOr<SliceSpec> Parser::ParseSlice() {
  RETURN_IF_ERROR(Expect(TokKind::kLBrace, "'{' to start the slice"));
  SliceSpec spec;
  while (!Is(TokKind::kRBrace)) {
    RETURN_IF_ERROR(Expect(TokKind::kLBracket, "'[' to start a slice dimension"));
    ASSIGN_OR_RETURN(int64_t start, ParseInt("a slice start"));
    RETURN_IF_ERROR(Expect(TokKind::kColon, "':' after the slice start"));
    ASSIGN_OR_RETURN(int64_t limit, ParseInt("a slice limit"));
    int64_t stride = 1;
    if (Is(TokKind::kColon)) {
      Advance();
      ASSIGN_OR_RETURN(stride, ParseInt("a slice stride"));
    }
    RETURN_IF_ERROR(Expect(TokKind::kRBracket, "']' to end a slice dimension"));
    spec.starts.push_back(start);
    spec.limits.push_back(limit);
    spec.strides.push_back(stride);
    if (Is(TokKind::kComma)) Advance();
  }
  Advance();
  return spec;
}

// mesh[NAME=INT, ...][, device_ids=(ids | [dims]T(perm))] {AXIS[:(PRE)SIZE], ...}
// (MeshAxesReplicaGroupList, SHARDY.md §3.3). Names may be 'quoted', "quoted" or bare; an axis
// may also be named by its index. Scanned character by character: the lexer has no single
// quotes.
StatusOr<ReplicaGroups> Parser::ParseMeshReplicaGroups() {
  size_t i = tok_.begin + 4;  // after "mesh"
  const size_t n = text_.size();
  auto skip = [&] {
    while (i < n && IsSpace(text_[i])) ++i;
  };
  auto fail = [&](std::string_view what) {
    return ErrorAt(i, fmt::format("expected {} in the mesh replica groups", what));
  };
  auto eat = [&](char c) {
    skip();
    if (i < n && text_[i] == c) {
      ++i;
      return true;
    }
    return false;
  };
  auto integer = [&](int64_t* out) -> bool {
    skip();
    size_t j = i;
    if (j < n && text_[j] == '-') ++j;
    while (j < n && IsDigit(text_[j])) ++j;
    if (j == i || !ParseIntText(text_.substr(i, j - i), out)) return false;
    i = j;
    return true;
  };
  // A name: 'x', "x" or x. Returns false if none is there.
  auto name = [&](std::string* out, bool* was_int) -> bool {
    skip();
    *was_int = false;
    if (i < n && (text_[i] == '\'' || text_[i] == '"')) {
      char q = text_[i];
      size_t j = i + 1;
      while (j < n && text_[j] != q && text_[j] != '\n') ++j;
      if (j >= n || text_[j] != q) return false;
      *out = std::string(text_.substr(i + 1, j - i - 1));
      i = j + 1;
      return true;
    }
    size_t j = i;
    while (j < n && (hlo::IsIdentChar(text_[j])) && text_[j] != '-') ++j;
    if (j == i) return false;
    *out = std::string(text_.substr(i, j - i));
    *was_int = std::all_of(out->begin(), out->end(), [](char c) { return IsDigit(c); });
    i = j;
    return true;
  };
  std::vector<std::string> names;
  std::vector<int64_t> sizes;
  constexpr int64_t kMaxDevices = int64_t{1} << 24;
  int64_t total = 1;
  if (!eat('[')) return fail("'['");
  if (!eat(']')) {
    while (true) {
      size_t at = (skip(), i);
      std::string nm;
      bool was_int;
      if (!name(&nm, &was_int)) return fail("an axis name");
      if (was_int) return ErrorAt(at, "a mesh axis name cannot be an integer");
      if (std::find(names.begin(), names.end(), nm) != names.end()) {
        return ErrorAt(at, fmt::format("mesh axis '{}' is named twice", nm));
      }
      if (!eat('=')) return fail("'=' after the axis name");
      size_t size_at = (skip(), i);
      int64_t sz;
      if (!integer(&sz)) return fail("an axis size");
      if (sz <= 0 || total > kMaxDevices / sz) return ErrorAt(size_at, "invalid mesh axis size");
      total *= sz;
      names.push_back(std::move(nm));
      sizes.push_back(sz);
      if (eat(',')) continue;
      if (!eat(']')) return fail("',' or ']'");
      break;
    }
  }
  std::string canonical = "mesh[";
  for (size_t a = 0; a < names.size(); ++a) {
    canonical += fmt::format("{}'{}'={}", a ? "," : "", names[a], sizes[a]);
  }
  canonical += "]";
  // Devices in mesh order (row-major over the axes).
  std::vector<int64_t> devices(total);
  for (int64_t d = 0; d < total; ++d) devices[d] = d;
  skip();
  if (i < n && text_[i] == ',') {
    ++i;
    skip();
    if (text_.substr(i, 10) != "device_ids") return fail("'device_ids='");
    i += 10;
    if (!eat('=') || !eat('(')) return fail("'=(' after device_ids");
    skip();
    if (i < n && text_[i] == '[') {  // iota: [dims]T(perm)
      ++i;
      ReplicaGroups::Iota iota;
      while (true) {
        int64_t d;
        if (!integer(&d) || d <= 0) return fail("a reshape dimension");
        iota.reshape_dims.push_back(d);
        if (eat(',')) continue;
        if (!eat(']')) return fail("',' or ']'");
        break;
      }
      if (eat('T')) {
        if (!eat('(')) return fail("'(' after 'T'");
        while (true) {
          int64_t d;
          if (!integer(&d)) return fail("a transpose dimension");
          iota.transpose_perm.push_back(d);
          if (eat(',')) continue;
          if (!eat(')')) return fail("',' or ')'");
          break;
        }
      } else {
        for (size_t d = 0; d < iota.reshape_dims.size(); ++d) iota.transpose_perm.push_back(d);
      }
      std::vector<int64_t> sorted = iota.transpose_perm;
      std::sort(sorted.begin(), sorted.end());
      int64_t product = 1;
      for (int64_t d : iota.reshape_dims) product = product > kMaxDevices / d ? kMaxDevices + 1 : product * d;
      bool perm_ok = sorted.size() == iota.reshape_dims.size();
      for (size_t d = 0; perm_ok && d < sorted.size(); ++d) perm_ok = sorted[d] == static_cast<int64_t>(d);
      if (!perm_ok || product != total) {
        return ErrorAt(i, fmt::format("device_ids iota does not give the mesh's {} devices", total));
      }
      iota.num_groups = 1;
      iota.group_size = total;
      ReplicaGroups as_groups;
      as_groups.iota = iota;
      devices = as_groups.Expanded()[0];
      canonical += fmt::format(", device_ids=([{}]", fmt::join(iota.reshape_dims, ","));
      if (iota.reshape_dims.size() > 1) canonical += fmt::format("T({})", fmt::join(iota.transpose_perm, ","));
      canonical += ")";
    } else {
      std::vector<int64_t> ids;
      std::vector<bool> seen(total, false);
      while (true) {
        size_t at = (skip(), i);
        int64_t d;
        if (!integer(&d)) return fail("a device id");
        if (d < 0 || d >= total || seen[d]) {
          return ErrorAt(at, fmt::format("device_ids must be a permutation of 0..{}", total - 1));
        }
        seen[d] = true;
        ids.push_back(d);
        if (eat(',')) continue;
        break;
      }
      if (static_cast<int64_t>(ids.size()) != total) {
        return ErrorAt(i, fmt::format("{} device ids for a mesh of {} devices", ids.size(), total));
      }
      devices = ids;
      canonical += fmt::format(", device_ids=({})", fmt::join(ids, ","));
    }
    if (!eat(')')) return fail("')' to end device_ids");
  }
  // The grouping axes.
  struct Ref {
    int64_t axis;
    int64_t pre = 1, size = 0;  // size 0: the whole axis
  };
  std::vector<Ref> refs;
  if (!eat('{')) return fail("'{' to start the grouping axes");
  if (!eat('}')) {
    while (true) {
      size_t at = (skip(), i);
      std::string nm;
      bool was_int;
      if (!name(&nm, &was_int)) return fail("an axis name");
      Ref r;
      auto it = std::find(names.begin(), names.end(), nm);
      if (it != names.end()) {
        r.axis = it - names.begin();
      } else if (was_int && ParseIntText(nm, &r.axis) && r.axis >= 0 &&
                 r.axis < static_cast<int64_t>(names.size())) {
      } else {
        return ErrorAt(at, fmt::format("'{}' is not an axis of the mesh", nm));
      }
      if (eat(':')) {
        if (!eat('(') || !integer(&r.pre) || !eat(')') || !integer(&r.size)) {
          return fail("a sub-axis ':(PRE)SIZE'");
        }
        int64_t full = sizes[r.axis];
        if (r.pre <= 0 || r.size <= 0 || full % r.pre != 0 || (full / r.pre) % r.size != 0 ||
            (r.pre == 1 && r.size == full)) {
          return ErrorAt(at, fmt::format("invalid sub-axis ({}){} of axis '{}' of size {}", r.pre,
                                         r.size, names[r.axis], full));
        }
      }
      refs.push_back(r);
      if (eat(',')) continue;
      if (!eat('}')) return fail("',' or '}'");
      break;
    }
  }
  std::string axes_text;
  for (const Ref& r : refs) {
    if (!axes_text.empty()) axes_text += ",";
    axes_text += fmt::format("'{}'", names[r.axis]);
    if (r.size) axes_text += fmt::format(":({}){}", r.pre, r.size);
  }
  canonical += fmt::format(" {{{}}}", axes_text);
  // Cut every axis at the sub-axis boundaries used, then order the pieces: those not listed in
  // mesh order, the listed ones last in listed order; consecutive chunks are the groups.
  const size_t num_axes = names.size();
  std::vector<std::vector<int64_t>> cuts(num_axes);  // prefix products, 1 .. size
  for (size_t a = 0; a < num_axes; ++a) cuts[a] = {1, sizes[a]};
  for (const Ref& r : refs) {
    if (r.size) {
      cuts[r.axis].push_back(r.pre);
      cuts[r.axis].push_back(r.pre * r.size);
    }
  }
  std::vector<int64_t> piece_sizes;
  std::vector<std::vector<int64_t>> piece_bounds(num_axes);  // per axis: its cut list
  std::vector<size_t> first_piece(num_axes);
  for (size_t a = 0; a < num_axes; ++a) {
    std::vector<int64_t>& c = cuts[a];
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    first_piece[a] = piece_sizes.size();
    for (size_t k = 0; k + 1 < c.size(); ++k) {
      if (c[k + 1] % c[k] != 0) {
        return ErrorAt(tok_.begin, fmt::format("the sub-axes of axis '{}' do not nest",
                                               names[a]));
      }
      piece_sizes.push_back(c[k + 1] / c[k]);
    }
  }
  std::vector<int64_t> listed;  // piece indices, in listed order
  std::vector<bool> used(piece_sizes.size(), false);
  for (const Ref& r : refs) {
    const std::vector<int64_t>& c = cuts[r.axis];
    int64_t lo = r.size ? r.pre : 1, hi = r.size ? r.pre * r.size : sizes[r.axis];
    for (size_t k = 0; k + 1 < c.size(); ++k) {
      if (c[k] >= lo && c[k + 1] <= hi) {
        size_t p = first_piece[r.axis] + k;
        if (used[p]) {
          return ErrorAt(tok_.begin, fmt::format("the grouping axes overlap on axis '{}'",
                                                 names[r.axis]));
        }
        used[p] = true;
        listed.push_back(p);
      }
    }
  }
  std::vector<int64_t> perm;
  for (size_t p = 0; p < piece_sizes.size(); ++p)
    if (!used[p]) perm.push_back(p);
  int64_t group_size = 1;
  for (int64_t p : listed) {
    perm.push_back(p);
    group_size *= piece_sizes[p];
  }
  ReplicaGroups order;
  ReplicaGroups::Iota iota;
  iota.num_groups = 1;
  iota.group_size = total;
  iota.reshape_dims = piece_sizes.empty() ? std::vector<int64_t>{1} : piece_sizes;
  iota.transpose_perm = piece_sizes.empty() ? std::vector<int64_t>{0} : perm;
  order.iota = iota;
  std::vector<int64_t> flat = order.Expanded()[0];
  ReplicaGroups groups;
  for (int64_t g = 0; g < total / group_size; ++g) {
    std::vector<int64_t> group;
    for (int64_t k = 0; k < group_size; ++k) group.push_back(devices[flat[g * group_size + k]]);
    groups.groups.push_back(std::move(group));
  }
  groups.mesh_form = std::move(canonical);
  lexer_.set_pos(i);
  Advance();
  return groups;
}

StatusOr<ReplicaGroups> Parser::ParseReplicaGroups() {
  if (IsKeyword("mesh")) return ParseMeshReplicaGroups();
  ReplicaGroups groups;
  if (Is(TokKind::kLBracket)) {  // [G,S]<=[dims]T(perm)
    size_t at = tok_.begin;
    Advance();
    ReplicaGroups::Iota iota;
    ASSIGN_OR_RETURN(iota.num_groups, ParseInt("the number of groups"));
    RETURN_IF_ERROR(Expect(TokKind::kComma, "',' in [groups,size]"));
    ASSIGN_OR_RETURN(iota.group_size, ParseInt("the group size"));
    RETURN_IF_ERROR(Expect(TokKind::kRBracket, "']' after [groups,size]"));
    RETURN_IF_ERROR(Expect(TokKind::kLeq, "'<=' in iota replica groups"));
    RETURN_IF_ERROR(Expect(TokKind::kLBracket, "'[' after '<='"));
    while (true) {
      ASSIGN_OR_RETURN(int64_t d, ParseInt("a dimension"));
      iota.reshape_dims.push_back(d);
      if (!Is(TokKind::kComma)) break;
      Advance();
      if (iota.reshape_dims.size() > kMaxDepth) return ErrorAt(at, "too many dimensions");
    }
    RETURN_IF_ERROR(Expect(TokKind::kRBracket, "']'"));
    if (IsKeyword("T")) {
      Advance();
      RETURN_IF_ERROR(Expect(TokKind::kLParen, "'(' after 'T'"));
      while (true) {
        ASSIGN_OR_RETURN(int64_t d, ParseInt("a dimension"));
        iota.transpose_perm.push_back(d);
        if (!Is(TokKind::kComma)) break;
        Advance();
        if (iota.transpose_perm.size() > kMaxDepth) return ErrorAt(at, "too many dimensions");
      }
      RETURN_IF_ERROR(Expect(TokKind::kRParen, "')'"));
    } else {
      for (size_t i = 0; i < iota.reshape_dims.size(); ++i) iota.transpose_perm.push_back(i);
    }
    // Validate: a permutation, and G*S == product(reshape_dims) without overflow.
    size_t r = iota.reshape_dims.size();
    std::vector<bool> seen(r, false);
    if (iota.transpose_perm.size() != r) return ErrorAt(at, "the transpose must list every dimension");
    for (int64_t p : iota.transpose_perm) {
      if (p < 0 || p >= static_cast<int64_t>(r) || seen[p]) {
        return ErrorAt(at, "the transpose is not a permutation");
      }
      seen[p] = true;
    }
    constexpr int64_t kMax = int64_t{1} << 40;
    int64_t product = 1;
    for (int64_t d : iota.reshape_dims) {
      if (d <= 0 || product > kMax / d) return ErrorAt(at, "invalid iota replica group dimensions");
      product *= d;
    }
    if (iota.num_groups <= 0 || iota.group_size <= 0 || iota.num_groups > kMax / iota.group_size ||
        iota.num_groups * iota.group_size != product) {
      return ErrorAt(at, "[groups,size] does not match the iota dimensions");
    }
    groups.iota = std::move(iota);
    return groups;
  }
  RETURN_IF_ERROR(Expect(TokKind::kLBrace, "'{' or '[' to start the replica groups"));
  while (!Is(TokKind::kRBrace)) {
    std::vector<int64_t> group;
    RETURN_IF_ERROR(ParseIntList(&group, "a replica group"));
    groups.groups.push_back(std::move(group));
    if (Is(TokKind::kComma)) {
      Advance();
    } else if (!Is(TokKind::kRBrace)) {
      return Expected("',' or '}' in replica groups");
    }
  }
  Advance();
  return groups;
}

Status Parser::ParseAttrValue(AttrId id, Attributes* attrs, Instruction* instr,
                              size_t name_begin) {
  switch (AttrKindOf(id)) {
    case AttrKind::kInt: {
      ASSIGN_OR_RETURN(int64_t v, ParseInt("an integer"));
      attrs->Set(id, v);
      return absl::OkStatus();
    }
    case AttrKind::kBool: {
      if (IsKeyword("true") || IsKeyword("false")) {
        attrs->Set(id, tok_.text == "true");
        Advance();
        return absl::OkStatus();
      }
      return Expected("'true' or 'false'");
    }
    case AttrKind::kFloat: {
      size_t at = tok_.begin;
      ASSIGN_OR_RETURN(double v, ParseDouble("a number"));
      // XLA stores these as float: a value beyond float's range is refused.
      if (v > std::numeric_limits<float>::max() || v < std::numeric_limits<float>::lowest())
        return ErrorAt(at, "value out of range for float");
      attrs->Set(id, v);
      return absl::OkStatus();
    }
    case AttrKind::kIntList: {
      std::vector<int64_t> v;
      RETURN_IF_ERROR(ParseIntList(&v, "an integer list"));
      attrs->Set(id, std::move(v));
      return absl::OkStatus();
    }
    case AttrKind::kBoolList: {
      std::vector<bool> v;
      if (IsKeyword("true") || IsKeyword("false")) {
        v.push_back(tok_.text == "true");
        Advance();
      } else {
        RETURN_IF_ERROR(Expect(TokKind::kLBrace, "'{' or a boolean"));
        while (!Is(TokKind::kRBrace)) {
          if (!IsKeyword("true") && !IsKeyword("false")) return Expected("'true' or 'false'");
          v.push_back(tok_.text == "true");
          Advance();
          if (Is(TokKind::kComma)) {
            Advance();
          } else if (!Is(TokKind::kRBrace)) {
            return Expected("',' or '}'");
          }
        }
        Advance();
      }
      attrs->Set(id, std::move(v));
      return absl::OkStatus();
    }
    case AttrKind::kString: {
      if (!Is(TokKind::kString)) return Expected("a string");
      attrs->Set(id, UnquoteRaw(tok_.text));
      Advance();
      return absl::OkStatus();
    }
    case AttrKind::kIdent: {
      if (!Is(TokKind::kIdent) || tok_.percent) return Expected("an identifier");
      RETURN_IF_ERROR(CheckEnumValue(id, tok_.text, tok_.begin, instr));
      attrs->Set(id, std::string(tok_.text));
      Advance();
      return absl::OkStatus();
    }
    case AttrKind::kIdentList: {
      std::vector<std::string> v;
      RETURN_IF_ERROR(Expect(TokKind::kLBrace, "'{'"));
      while (!Is(TokKind::kRBrace)) {
        if (!Is(TokKind::kIdent) || tok_.percent) return Expected("an identifier");
        RETURN_IF_ERROR(CheckEnumValue(id, tok_.text, tok_.begin, instr));
        v.emplace_back(tok_.text);
        Advance();
        if (Is(TokKind::kComma)) {
          Advance();
        } else if (!Is(TokKind::kRBrace)) {
          return Expected("',' or '}'");
        }
      }
      Advance();
      attrs->Set(id, std::move(v));
      return absl::OkStatus();
    }
    case AttrKind::kWindow: {
      ASSIGN_OR_RETURN(Window w, ParseWindow());
      attrs->Set(id, std::move(w));
      return absl::OkStatus();
    }
    case AttrKind::kConvDims: {
      ASSIGN_OR_RETURN(ConvDims d, ParseConvDims());
      attrs->Set(id, std::move(d));
      return absl::OkStatus();
    }
    case AttrKind::kPadding: {
      ASSIGN_OR_RETURN(PaddingConfig p, ParsePadding());
      attrs->Set(id, std::move(p));
      return absl::OkStatus();
    }
    case AttrKind::kSlice: {
      ASSIGN_OR_RETURN(SliceSpec s, ParseSlice());
      attrs->Set(id, std::move(s));
      return absl::OkStatus();
    }
    case AttrKind::kReplicaGroups: {
      ASSIGN_OR_RETURN(ReplicaGroups g, ParseReplicaGroups());
      attrs->Set(id, std::move(g));
      return absl::OkStatus();
    }
    case AttrKind::kPairs: {
      PairList pairs;
      RETURN_IF_ERROR(Expect(TokKind::kLBrace, "'{'"));
      while (!Is(TokKind::kRBrace)) {
        RETURN_IF_ERROR(Expect(TokKind::kLBrace, "'{' to start a pair"));
        ASSIGN_OR_RETURN(int64_t a, ParseInt("an integer"));
        RETURN_IF_ERROR(Expect(TokKind::kComma, "',' in a pair"));
        ASSIGN_OR_RETURN(int64_t b, ParseInt("an integer"));
        RETURN_IF_ERROR(Expect(TokKind::kRBrace, "'}' to end a pair"));
        pairs.emplace_back(a, b);
        if (Is(TokKind::kComma)) {
          Advance();
        } else if (!Is(TokKind::kRBrace)) {
          return Expected("',' or '}'");
        }
      }
      Advance();
      attrs->Set(id, std::move(pairs));
      return absl::OkStatus();
    }
    case AttrKind::kComputation: {
      ASSIGN_OR_RETURN(Computation * c, ParseComputationRef());
      attrs->Set(id, c);
      return absl::OkStatus();
    }
    case AttrKind::kComputationList: {
      std::vector<Computation*> list;
      if (Is(TokKind::kIdent) || AtNestedComputation()) {
        ASSIGN_OR_RETURN(Computation * c, ParseComputationRef());
        list.push_back(c);
      } else {
        RETURN_IF_ERROR(Expect(TokKind::kLBrace, "'{' or a computation name"));
        while (!Is(TokKind::kRBrace)) {
          ASSIGN_OR_RETURN(Computation * c, ParseComputationRef());
          list.push_back(c);
          if (Is(TokKind::kComma)) {
            Advance();
          } else if (!Is(TokKind::kRBrace)) {
            return Expected("',' or '}'");
          }
        }
        Advance();
      }
      attrs->Set(id, std::move(list));
      return absl::OkStatus();
    }
    case AttrKind::kShape: {
      Shape s;
      RETURN_IF_ERROR(ParseShape(&s));
      attrs->Set(id, std::move(s));
      return absl::OkStatus();
    }
    case AttrKind::kShapeList: {
      std::vector<Shape> list;
      RETURN_IF_ERROR(Expect(TokKind::kLBrace, "'{'"));
      while (!Is(TokKind::kRBrace)) {
        list.emplace_back();
        RETURN_IF_ERROR(ParseShape(&list.back()));
        if (Is(TokKind::kComma)) {
          Advance();
        } else if (!Is(TokKind::kRBrace)) {
          return Expected("',' or '}'");
        }
      }
      Advance();
      attrs->Set(id, std::move(list));
      return absl::OkStatus();
    }
    case AttrKind::kMetadata:
    case AttrKind::kKeyValues: {
      KeyValueList kv;
      RETURN_IF_ERROR(AttrKindOf(id) == AttrKind::kMetadata ? ParseMetadata(&kv)
                                                             : ParseKeyValues(&kv));
      attrs->Set(id, std::move(kv));
      return absl::OkStatus();
    }
    case AttrKind::kRaw: {
      if (id == AttrId::kLiteral) {
        // literal=SHAPE VALUE (a custom call's literal): parsed like a constant, kept as text.
        size_t start = tok_.begin;
        Shape shape;
        RETURN_IF_ERROR(ParseShape(&shape));
        Literal literal;
        RETURN_IF_ERROR(ParseLiteral(shape, &literal, 0));
        attrs->Set(id, CanonicalRaw(text_.substr(start, last_end_ - start)));
        return absl::OkStatus();
      }
      if (instr != nullptr && (id == AttrId::kDomain || id == AttrId::kResultAccuracy || id == AttrId::kStatistics)) {
        size_t start = tok_.begin;
        RETURN_IF_ERROR(id == AttrId::kDomain           ? CheckDomainSyntax()
                        : id == AttrId::kResultAccuracy ? CheckResultAccuracySyntax()
                                                        : CheckStatisticsSyntax());
        lexer_.set_pos(start);
        Advance();
      }
      if (instr == nullptr && in_header_ &&
          (id == AttrId::kInputOutputAlias || id == AttrId::kBufferDonor ||
           id == AttrId::kEntryComputationLayout)) {
        size_t start = tok_.begin;
        RETURN_IF_ERROR(id == AttrId::kEntryComputationLayout
                            ? CheckComputationLayoutSyntax()
                            : CheckAliasingSyntax(id == AttrId::kBufferDonor));
        lexer_.set_pos(start);
        Advance();
      }
      ASSIGN_OR_RETURN(std::string raw, ParseRaw(/*stop_at_space=*/true));
      if (id == AttrId::kEntryComputationLayout && in_header_ && entry_layout_) {
        // As XLA prints it (ComputationLayout::ToString): every shape with its layout.
        std::vector<std::string> params;
        for (const Shape& p : entry_layout_->params) params.push_back(WithDefaultLayouts(p).ToString(true));
        raw = fmt::format("{{({})->{}}}", fmt::join(params, ", "),
                          WithDefaultLayouts(entry_layout_->result).ToString(true));
      }
      attrs->Set(id, std::move(raw));
      return absl::OkStatus();
    }
    case AttrKind::kInstrList: {
      if (instr == nullptr) {
        return ErrorAt(name_begin, fmt::format("'{}' is not a module attribute", AttrName(id)));
      }
      RETURN_IF_ERROR(Expect(TokKind::kLBrace, "'{'"));
      std::vector<Instruction*> preds;
      while (!Is(TokKind::kRBrace)) {
        if (!Is(TokKind::kIdent)) return Expected("an instruction name");
        auto it = names_.find(tok_.text);
        if (it == names_.end() || it->second == instr) {
          return ErrorAt(tok_.begin, fmt::format("undefined instruction %{}", tok_.text));
        }
        preds.push_back(it->second);
        Advance();
        if (Is(TokKind::kComma)) {
          Advance();
        } else if (!Is(TokKind::kRBrace)) {
          return Expected("',' or '}'");
        }
      }
      Advance();
      if (id == AttrId::kControlPredecessors) {
        if (preds.empty()) attrs->Set(id, std::vector<Instruction*>{});
        for (Instruction* p : preds) instr->AddControlPredecessor(p);
      } else {
        attrs->Set(id, std::move(preds));
      }
      return absl::OkStatus();
    }
  }
  return Internal("unhandled attribute kind");
}

// ---- literals --------------------------------------------------------------------------------

// Deterministic "garbage" for elided constants ({...}): small values valid in every dtype.
void FillElided(Literal* lit) {
  int64_t n = lit->num_elements();
  DType t = lit->shape().dtype();
  for (int64_t i = 0; i < n; ++i) {
    int64_t k = (i * 7 + 3) % 11;
    if (t == DType::kPred) {
      lit->SetInt(i, k & 1);
    } else if (IsFloat(t) || IsComplex(t)) {
      lit->SetDouble(i, (k - 5) * 0.25);
    } else {
      lit->SetInt(i, k % 4);
    }
  }
}

Status Parser::ParseLiteral(const Shape& shape, Literal* out, int depth) {
  if (depth > kMaxDepth) return ErrorAt(tok_.begin, "constant nesting is too deep");
  if (shape.IsTuple()) {
    RETURN_IF_ERROR(Expect(TokKind::kLParen, "'(' to start a tuple constant"));
    std::vector<Literal> elements(shape.tuple_size());
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      if (i > 0) RETURN_IF_ERROR(Expect(TokKind::kComma, "',' between tuple elements"));
      RETURN_IF_ERROR(ParseLiteral(shape.tuple_shape(i), &elements[i], depth + 1));
    }
    RETURN_IF_ERROR(Expect(TokKind::kRParen, "')' to end a tuple constant"));
    *out = Literal::Tuple(std::move(elements));
    return absl::OkStatus();
  }
  if (!shape.IsArray()) return ErrorAt(tok_.begin, "a constant cannot have a token shape");
  if (!shape.is_static()) return ErrorAt(tok_.begin, "a constant must have a static shape");
  int64_t n = shape.num_elements();
  if (n > options_.max_constant_elements) {
    return ErrorAt(tok_.begin, fmt::format("constant has {} elements; the limit is {}", n,
                                           options_.max_constant_elements));
  }
  if (shape.rank() > 0 && Is(TokKind::kLBrace) && Peek().kind == TokKind::kEllipsis) {
    if (shape.byte_size() > options_.max_elided_constant_bytes) {
      return ErrorAt(tok_.begin, fmt::format("elided constant of shape {} needs {} bytes; the "
                                             "limit is {}", shape.ToString(false),
                                             shape.byte_size(),
                                             options_.max_elided_constant_bytes));
    }
    Advance();
    Advance();
    RETURN_IF_ERROR(Expect(TokKind::kRBrace, "'}' after '...'"));
    *out = Literal(shape);
    FillElided(out);
    out->set_elided(true);
    return absl::OkStatus();
  }
  if (shape.rank() > 0 && !Is(TokKind::kLBrace) && !Is(TokKind::kLParen) && !IsComplex(shape.dtype())) {
    // `f32[9] constant(0)`: one bare element for an array. XLA's parser accepts it (the "nested
    // array" error of its dense-literal loop is dropped for a bare element) and stores the value
    // at the first element, the rest zero: not a broadcast. Same here, so modules written this way
    // parse and mean what XLA makes of them. Complex elements, `(re, im)`, are refused as XLA does.
    if (n == 0) return ErrorAt(tok_.begin, "a bare element for a constant with no elements");
    // Short text, whole-array memory: the elided constant's limit applies.
    if (shape.byte_size() > options_.max_elided_constant_bytes) {
      return ErrorAt(tok_.begin, fmt::format("constant of shape {} written as one element needs {} "
                                             "bytes; the limit is {}", shape.ToString(false),
                                             shape.byte_size(), options_.max_elided_constant_bytes));
    }
    *out = Literal(shape);  // zero-filled
    return ParseElement(shape.dtype(), out->mutable_raw(), 0);
  }
  // Every element takes at least one byte of text: refuse before allocating.
  if (n > static_cast<int64_t>(text_.size() - tok_.begin)) {
    return ErrorAt(tok_.begin, fmt::format("constant of shape {} has more elements than the "
                                           "text holds", shape.ToString(false)));
  }
  *out = Literal(shape);
  std::byte* base = out->mutable_raw();
  if (shape.rank() == 0) return ParseElement(shape.dtype(), base, 0);
  int64_t index = 0;
  return ParseArrayLevel(shape, 0, base, &index);
}

Status Parser::ParseArrayLevel(const Shape& shape, int64_t dim, std::byte* base, int64_t* index) {
  RETURN_IF_ERROR(Expect(TokKind::kLBrace, fmt::format("'{{' to start dimension {} of the constant", dim)));
  int64_t size = shape.dim(dim);
  bool inner = dim + 1 == shape.rank();
  for (int64_t i = 0; i < size; ++i) {
    if (i > 0) {
      if (Is(TokKind::kRBrace)) {
        return ErrorAt(tok_.begin, fmt::format("expected {} elements in dimension {} of the "
                                               "constant, found {}", size, dim, i));
      }
      RETURN_IF_ERROR(Expect(TokKind::kComma, "',' between constant elements"));
    }
    if (inner) {
      RETURN_IF_ERROR(ParseElement(shape.dtype(), base, (*index)++));
    } else {
      RETURN_IF_ERROR(ParseArrayLevel(shape, dim + 1, base, index));
    }
  }
  if (Is(TokKind::kComma)) {
    return ErrorAt(tok_.begin, fmt::format("too many elements in dimension {} of the constant "
                                           "(expected {})", dim, size));
  }
  return Expect(TokKind::kRBrace, fmt::format("'}}' to end dimension {} of the constant", dim));
}

// A float element: number, inf, -inf, nan, -nan, nan(0x...). Sets the NaN payload (0 = default).
StatusOr<double> Parser::ParseFloatElement(DType t, uint64_t* nan_payload, bool* negative_nan) {
  *nan_payload = 0;
  *negative_nan = false;
  double v = 0;
  if (IsKeyword("nan") || (Is(TokKind::kFloat) && tok_.text == "-nan")) {
    *negative_nan = tok_.text[0] == '-';
    v = std::numeric_limits<double>::quiet_NaN();
    Advance();
    if (Is(TokKind::kLParen)) {
      Advance();
      if (!Is(TokKind::kInt)) return Expected("a NaN payload such as 0x1");
      uint64_t payload;
      if (!ParseUintText(tok_.text, &payload) || payload == 0) {
        return ErrorAt(tok_.begin, "invalid NaN payload");
      }
      *nan_payload = payload;
      Advance();
      RETURN_IF_ERROR(Expect(TokKind::kRParen, "')' after the NaN payload"));
    }
    if (*negative_nan) v = -v;
    return v;
  }
  (void)t;
  return ParseDouble("a floating-point number");
}

// A finite value that the element type cannot hold (rounds to infinity, or to NaN in a type
// without infinity): XLA's CheckParsedValueIsInRange rejects it. Non-finite values are not
// range-checked.
bool OverflowsType(DType t, double v) {
  if (!std::isfinite(v)) return false;
  float f = static_cast<float>(v);
  switch (t) {
    case DType::kF64: return false;
    case DType::kF32: return !std::isfinite(f);
    case DType::kF16: return !std::isfinite(HalfToFloat(FloatToHalf(f)));
    case DType::kBF16: return !std::isfinite(BF16ToFloat(FloatToBF16(f)));
    default:
      if (!std::isfinite(f)) return true;
      return !std::isfinite(F8ToFloat(t, FloatToF8(t, f)));
  }
}

template <typename T>
void Store(std::byte* base, int64_t i, T v) {
  std::memcpy(base + i * sizeof(T), &v, sizeof(T));
}

Status Parser::ParseElement(DType t, std::byte* base, int64_t i) {
  size_t at = tok_.begin;
  switch (DTypeFamilyOf(t)) {
    case DTypeFamily::kBool: {
      if (IsKeyword("true") || IsKeyword("false")) {
        Store<uint8_t>(base, i, tok_.text == "true");
      } else if (Is(TokKind::kInt)) {
        // XLA converts any integer to bool.
        int64_t v;
        if (!ParseIntText(tok_.text, &v)) return ErrorAt(at, "integer out of range");
        Store<uint8_t>(base, i, v != 0);
      } else {
        return Expected("'true' or 'false'");
      }
      Advance();
      return absl::OkStatus();
    }
    case DTypeFamily::kSigned: {
      ASSIGN_OR_RETURN(int64_t v, ParseInt("an integer"));
      int bits = DTypeBitWidth(t);
      if (bits < 64) {
        int64_t lo = -(int64_t{1} << (bits - 1)), hi = (int64_t{1} << (bits - 1)) - 1;
        if (v < lo || v > hi) {
          return ErrorAt(at, fmt::format("{} is out of range for {}", v, DTypeName(t)));
        }
      }
      switch (t) {
        case DType::kS16: Store<int16_t>(base, i, static_cast<int16_t>(v)); break;
        case DType::kS32: Store<int32_t>(base, i, static_cast<int32_t>(v)); break;
        case DType::kS64: Store<int64_t>(base, i, v); break;
        default: Store<int8_t>(base, i, static_cast<int8_t>(v)); break;
      }
      return absl::OkStatus();
    }
    case DTypeFamily::kUnsigned: {
      if (!Is(TokKind::kInt)) return Expected("an unsigned integer");
      uint64_t v;
      if (tok_.text[0] == '-' || !ParseUintText(tok_.text, &v)) {
        return ErrorAt(at, fmt::format("{} is out of range for {}", tok_.text, DTypeName(t)));
      }
      int bits = DTypeBitWidth(t);
      if (bits < 64 && v >= (uint64_t{1} << bits)) {
        return ErrorAt(at, fmt::format("{} is out of range for {}", v, DTypeName(t)));
      }
      Advance();
      switch (t) {
        case DType::kU16: Store<uint16_t>(base, i, static_cast<uint16_t>(v)); break;
        case DType::kU32: Store<uint32_t>(base, i, static_cast<uint32_t>(v)); break;
        case DType::kU64: Store<uint64_t>(base, i, v); break;
        default: Store<uint8_t>(base, i, static_cast<uint8_t>(v)); break;
      }
      return absl::OkStatus();
    }
    case DTypeFamily::kFloat: {
      uint64_t payload;
      bool neg_nan;
      if (t == DType::kF32 && (Is(TokKind::kFloat) || Is(TokKind::kInt)) &&
          tok_.text.back() != 'n') {  // not -nan, which may carry a payload
        // Fast, exactly rounded path for the common case.
        float f;
        if (ParseFloatText(tok_.text, &f)) {
          if (std::isinf(f) && tok_.text.find("inf") == std::string_view::npos) {
            return ErrorAt(at, fmt::format("{} is out of range for f32", tok_.text));
          }
          Store<float>(base, i, f);
          Advance();
          return absl::OkStatus();
        }
      }
      std::string_view value_text = tok_.text;
      ASSIGN_OR_RETURN(double v, ParseFloatElement(t, &payload, &neg_nan));
      if (OverflowsType(t, v)) {
        return ErrorAt(at, fmt::format("{} is out of range for {}", value_text, DTypeName(t)));
      }
      uint64_t sign = std::signbit(v) ? 1 : 0;
      switch (t) {
        case DType::kF64: {
          if (std::isnan(v) && payload) {
            if (payload >= (uint64_t{1} << 52)) return ErrorAt(at, "NaN payload out of range");
            uint64_t bits = (sign << 63) | (uint64_t{0x7ff} << 52) | payload;
            std::memcpy(base + i * 8, &bits, 8);
          } else {
            Store<double>(base, i, v);
          }
          return absl::OkStatus();
        }
        case DType::kF32: {
          if (std::isnan(v) && payload) {
            if (payload >= (uint64_t{1} << 23)) return ErrorAt(at, "NaN payload out of range");
            uint32_t bits = static_cast<uint32_t>((sign << 31) | (uint64_t{0xff} << 23) | payload);
            std::memcpy(base + i * 4, &bits, 4);
          } else {
            Store<float>(base, i, static_cast<float>(v));
          }
          return absl::OkStatus();
        }
        case DType::kF16: {
          uint16_t bits;
          if (std::isnan(v)) {
            if (payload >= (1u << 10)) return ErrorAt(at, "NaN payload out of range");
            if (payload == 0) payload = 0x200;  // the quiet NaN the printer writes as "nan"
            bits = static_cast<uint16_t>((sign << 15) | (0x1fu << 10) | payload);
          } else {
            bits = FloatToHalf(static_cast<float>(v));
          }
          Store<uint16_t>(base, i, bits);
          return absl::OkStatus();
        }
        case DType::kBF16: {
          uint16_t bits;
          if (std::isnan(v)) {
            if (payload >= (1u << 7)) return ErrorAt(at, "NaN payload out of range");
            if (payload == 0) payload = 0x40;
            bits = static_cast<uint16_t>((sign << 15) | (0xffu << 7) | payload);
          } else {
            bits = FloatToBF16(static_cast<float>(v));
          }
          Store<uint16_t>(base, i, bits);
          return absl::OkStatus();
        }
        default: {
          // Like XLA (NanPayloadBits): only the f8 types with IEEE-style NaNs (e5m2, e4m3,
          // e3m4) have payloads; the others have one NaN encoding (or none) and refuse any.
          int mantissa = t == DType::kF8E5M2 ? 2 : t == DType::kF8E4M3 ? 3
                         : t == DType::kF8E3M4 ? 4 : 0;
          if (std::isnan(v) && payload != 0) {
            if (mantissa == 0) {
              return ErrorAt(at, fmt::format("{} does not support NaN payloads", DTypeName(t)));
            }
            if (payload >= (uint64_t{1} << mantissa)) return ErrorAt(at, "NaN payload out of range");
            uint8_t bits = static_cast<uint8_t>((sign << 7) | (((1u << (7 - mantissa)) - 1) << mantissa) |
                                                payload);
            Store<uint8_t>(base, i, bits);
            return absl::OkStatus();
          }
          Store<uint8_t>(base, i, FloatToF8(t, static_cast<float>(v)));
          return absl::OkStatus();
        }
      }
    }
    case DTypeFamily::kComplex: {
      RETURN_IF_ERROR(Expect(TokKind::kLParen, "'(' to start a complex number"));
      uint64_t payload;
      bool neg_nan;
      ASSIGN_OR_RETURN(double re, ParseFloatElement(t, &payload, &neg_nan));
      uint64_t re_payload = payload;
      DType part = t == DType::kC64 ? DType::kF32 : DType::kF64;
      if (OverflowsType(part, re)) {
        return ErrorAt(at, fmt::format("real part {} is out of range for {}", re, DTypeName(t)));
      }
      RETURN_IF_ERROR(Expect(TokKind::kComma, "',' in a complex number"));
      ASSIGN_OR_RETURN(double im, ParseFloatElement(t, &payload, &neg_nan));
      if (OverflowsType(part, im)) {
        return ErrorAt(at, fmt::format("imaginary part {} is out of range for {}", im,
                                       DTypeName(t)));
      }
      RETURN_IF_ERROR(Expect(TokKind::kRParen, "')' to end a complex number"));
      auto store = [&](int64_t slot, double v, uint64_t payload) -> Status {
        uint64_t sign = std::signbit(v) ? 1 : 0;
        if (t == DType::kC64) {
          if (std::isnan(v) && payload) {
            if (payload >= (uint64_t{1} << 23)) return ErrorAt(at, "NaN payload out of range");
            uint32_t bits = static_cast<uint32_t>((sign << 31) | (uint64_t{0xff} << 23) | payload);
            std::memcpy(base + slot * 4, &bits, 4);
          } else {
            Store<float>(base, slot, static_cast<float>(v));
          }
        } else if (std::isnan(v) && payload) {
          if (payload >= (uint64_t{1} << 52)) return ErrorAt(at, "NaN payload out of range");
          uint64_t bits = (sign << 63) | (uint64_t{0x7ff} << 52) | payload;
          std::memcpy(base + slot * 8, &bits, 8);
        } else {
          Store<double>(base, slot, v);
        }
        return absl::OkStatus();
      };
      RETURN_IF_ERROR(store(2 * i, re, re_payload));
      return store(2 * i + 1, im, payload);
    }
    case DTypeFamily::kOther:
      break;
  }
  return ErrorAt(at, fmt::format("cannot parse a constant of type {}", DTypeName(t)));
}

}  // namespace

StatusOr<std::unique_ptr<Module>> ParseHloModule(std::string_view text, std::string_view filename,
                                                 const ParseOptions& options) {
  Parser parser(text, filename, options);
  ASSIGN_OR_RETURN(std::unique_ptr<Module> module, parser.ParseModule());
  if (options.import_shardy) RETURN_IF_ERROR(ImportShardy(*module, text, filename));
  return module;
}

StatusOr<Shape> ParseShape(std::string_view text) {
  ParseOptions options;
  Parser parser(text, "<shape>", options);
  return parser.ParseStandaloneShape();
}

}  // namespace spmdc

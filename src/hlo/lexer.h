// The HLO text lexer (GSPMD.md §4.1). It works on demand over a string_view: the parser asks for
// one token at a time and may reposition the lexer, which lets context-sensitive values (window
// specs, padding, dim labels, raw attribute values) be scanned from the source directly.
//
// Tokens never own memory: their text is a view into the source. Any byte sequence lexes to a
// finite sequence of tokens ending in kEof; bytes that start no token give kError.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "support/diagnostic.h"

namespace spmdc::hlo {

enum class TokKind : uint8_t {
  kEof,
  kError,     // a byte that starts no token, or an unterminated string/comment
  kIdent,     // [A-Za-z_][A-Za-z0-9_.-]* or %[A-Za-z0-9_.-]+ (text excludes the %)
  kInt,       // -?[0-9]+ or -?0x[0-9a-fA-F]+
  kFloat,     // -?digits with '.' or exponent; -inf, -nan (inf/nan alone are identifiers)
  kString,    // "..." with C escapes; text includes the quotes
  kLBrace, kRBrace, kLBracket, kRBracket, kLParen, kRParen,
  kComma, kEqual, kColon, kArrow /* -> */, kLeq /* <= */, kEllipsis /* ... */, kQuestion,
};

struct Token {
  TokKind kind = TokKind::kEof;
  bool percent = false;  // kIdent written as %name
  uint32_t begin = 0;    // byte offset of the token (including a leading %)
  uint32_t end = 0;      // one past the last byte
  std::string_view text;  // the token's text (kIdent: without %)
};

// Human name of a token kind for messages ("'{'", "identifier", ...).
std::string_view TokKindName(TokKind kind);

class Lexer {
 public:
  // The source must outlive the lexer. Sources over 4 GiB are refused by the parser.
  explicit Lexer(std::string_view source) : src_(source) {}

  std::string_view source() const { return src_; }
  // Lexes the token starting at or after the current position and moves past it.
  Token Next();
  // Current byte position (after the last token returned).
  size_t pos() const { return pos_; }
  void set_pos(size_t pos) { pos_ = pos > src_.size() ? src_.size() : pos; }
  // Skips whitespace and comments from the current position; returns the new position.
  size_t SkipTrivia();

 private:
  std::string_view src_;
  size_t pos_ = 0;
};

// Maps byte offsets to 1-based line/column in O(log lines).
class LineTable {
 public:
  explicit LineTable(std::string_view source);
  SourceLocation Locate(size_t offset) const;

 private:
  std::vector<uint32_t> line_starts_;
  size_t size_;
};

inline bool IsIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
inline bool IsIdentChar(char c) {
  return IsIdentStart(c) || (c >= '0' && c <= '9') || c == '.' || c == '-';
}
inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }
inline bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

}  // namespace spmdc::hlo

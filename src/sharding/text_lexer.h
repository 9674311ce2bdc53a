// The tokenizer of the sharding languages spmdc reads inside HLO attribute values: XLA's sharding
// text (`{devices=[2,1]<=[2]}`, the mesh-based `{mesh[...], ...}` form; sharding_text.cc) and
// Shardy's sdy attributes (`#sdy.sharding<@mesh, [{"x"}, {}]>`; sdy_text.cc). One scanner; the two
// dialects differ only in what Dialect says: comments, the whitespace set, quoting and escapes,
// the characters of an identifier, the MLIR punctuation, and whether `name=` / `name:` lex as one
// token (as in XLA's lexer, so that `devices=` is an attribute name and `devices =` is not).
//
// Tokens never own the text they view; strings of the MLIR dialect carry their unescaped value.
// Any input lexes to a finite token sequence ending in kEnd; a byte that starts no token, a bad
// integer, string or escape gives kError, whose `text` is the dialect's message for it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace spmdc::sharding_text_lexer {

enum class Tok {
  kLBrace, kRBrace, kLBracket, kRBracket, kLParen, kRParen, kLAngle, kRAngle, kComma, kEq, kColon,
  kQuestion, kArrow /* -> */, kLe /* <= */, kAt /* @name */, kHash, kInt, kIdent,
  kAttr /* name= */, kName /* name: */, kString, kEnd, kError
};

struct Token {
  Tok kind = Tok::kEnd;
  size_t offset = 0;
  // The token's text: identifiers, integers and punctuation as written; strings with their
  // quotes (kAttr/kName: the name without quotes or suffix); kError: the dialect's message.
  std::string_view text;
  // MLIR strings and @"symbols": the unescaped value; @name: the name.
  std::string value_text;
  int64_t value = 0;  // kInt
};

struct Dialect {
  bool comments;        // `/* */` and `// ...` between tokens
  bool all_whitespace;  // every isspace() byte is whitespace (else only ' ', '\t', '\r', '\n')
  bool attach_suffix;   // IDENT= / "q"= lex as kAttr and IDENT: / "q": as kName
  bool single_quotes;   // 'x' is a string too
  bool mlir;            // MLIR: < > -> : @sym # tokens, `$` and `-` in identifiers, strings
                        // unescaped (\" \\ \n \t \XX); else C escapes, validated, kept as written
  // Messages of kError tokens.
  std::string_view bad_char, bad_int, unterminated_string, bad_escape, bad_symbol;
};

// XLA's HLO sharding text.
inline constexpr Dialect kXlaDialect{true, true, true, true, false,
                                     "unexpected character", "invalid integer", "unterminated string",
                                     "invalid escape sequence in string", ""};
// Shardy's sdy attribute text (MLIR attribute syntax).
inline constexpr Dialect kSdyDialect{false, false, false, false, true,
                                     "a valid character", "an integer in range", "a closing '\"'",
                                     "a valid escape sequence", "a symbol name after '@'"};

class Lexer {
 public:
  Lexer(std::string_view text, const Dialect& dialect) : text_(text), d_(&dialect) {}

  Token Next();
  Token Peek() {
    size_t save = pos_;
    Token t = Next();
    pos_ = save;
    return t;
  }
  size_t pos() const { return pos_; }
  std::string_view text() const { return text_; }

 private:
  void SkipTrivia();
  bool IdentStart(char c) const;
  bool IdentChar(char c) const;
  Token Error(Token t, std::string_view message) const {
    t.kind = Tok::kError;
    t.text = message;
    return t;
  }
  Token QuotedString(Token t);  // XLA dialect
  Token MlirString(Token t);    // MLIR dialect

  std::string_view text_;
  const Dialect* d_;
  size_t pos_ = 0;
};

}  // namespace spmdc::sharding_text_lexer

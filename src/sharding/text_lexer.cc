#include "sharding/text_lexer.h"

#include <cctype>
#include <charconv>

namespace spmdc::sharding_text_lexer {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// XLA unescapes strings with C rules (absl::CUnescape) and rejects the text when that fails.
// Returns the position of the first backslash that starts an invalid escape in `body` (the
// string without its quotes), or npos.
size_t BadEscape(std::string_view body) {
  size_t i = 0;
  while (i < body.size()) {
    if (body[i] != '\\') {
      ++i;
      continue;
    }
    const size_t at = i++;
    if (i >= body.size()) return at;
    const char c = body[i];
    if (std::string_view("abfnrtv\\?'\"").find(c) != std::string_view::npos) {
      ++i;
    } else if (c >= '0' && c <= '7') {  // one to three octal digits, at most \377
      int value = 0;
      for (int n = 0; n < 3 && i < body.size() && body[i] >= '0' && body[i] <= '7'; ++n, ++i) {
        value = value * 8 + (body[i] - '0');
      }
      if (value > 0xff) return at;
    } else if (c == 'x') {  // one or more hex digits, at most \xff
      ++i;
      int value = 0, digits = 0;
      for (; i < body.size() && HexValue(body[i]) >= 0; ++i, ++digits) {
        value = value * 16 + HexValue(body[i]);
        if (value > 0xff) return at;
      }
      if (digits == 0) return at;
    } else if (c == 'u' || c == 'U') {  // exactly 4 / 8 hex digits naming a Unicode scalar
      const size_t len = c == 'u' ? 4 : 8;
      ++i;
      if (body.size() - i < len) return at;
      uint64_t value = 0;
      for (size_t k = 0; k < len; ++k, ++i) {
        if (HexValue(body[i]) < 0) return at;
        value = value * 16 + static_cast<uint64_t>(HexValue(body[i]));
      }
      if (value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) return at;
    } else {
      return at;
    }
  }
  return std::string_view::npos;
}

}  // namespace

bool Lexer::IdentStart(char c) const { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }

bool Lexer::IdentChar(char c) const {
  return IdentStart(c) || (c >= '0' && c <= '9') || c == '.' || (d_->mlir && (c == '$' || c == '-'));
}

void Lexer::SkipTrivia() {
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (d_->all_whitespace ? std::isspace(static_cast<unsigned char>(c)) != 0
                          : (c == ' ' || c == '\t' || c == '\r' || c == '\n')) {
      ++pos_;
    } else if (d_->comments && text_.substr(pos_, 2) == "/*") {
      size_t end = text_.find("*/", pos_ + 2);
      pos_ = end == std::string_view::npos ? text_.size() : end + 2;
    } else if (d_->comments && text_.substr(pos_, 2) == "//") {
      // A line comment, as XLA's lexer allows anywhere between tokens.
      size_t end = text_.find_first_of("\r\n", pos_ + 2);
      pos_ = end == std::string_view::npos ? text_.size() : end;
    } else {
      break;
    }
  }
}

Token Lexer::Next() {
  SkipTrivia();
  Token t;
  t.offset = pos_;
  if (pos_ >= text_.size()) return t;
  const char c = text_[pos_];
  auto single = [&](Tok k) {
    t.kind = k;
    t.text = text_.substr(pos_++, 1);
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
    case '?': return single(Tok::kQuestion);
    default: break;
  }
  if (d_->mlir) {
    switch (c) {
      case '<': return single(Tok::kLAngle);
      case '>': return single(Tok::kRAngle);
      case ':': return single(Tok::kColon);
      case '#': return single(Tok::kHash);
      default: break;
    }
    if (c == '-' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '>') {
      t.kind = Tok::kArrow;
      t.text = text_.substr(pos_, 2);
      pos_ += 2;
      return t;
    }
    if (c == '"') return MlirString(t);
    if (c == '@') {
      ++pos_;
      if (pos_ < text_.size() && text_[pos_] == '"') {
        Token s = MlirString(t);
        if (s.kind == Tok::kError) return s;
        s.kind = Tok::kAt;
        return s;
      }
      size_t end = pos_;
      while (end < text_.size() && IdentChar(text_[end])) ++end;
      if (end == pos_) return Error(t, d_->bad_symbol);
      t.kind = Tok::kAt;
      t.value_text = std::string(text_.substr(pos_, end - pos_));
      pos_ = end;
      return t;
    }
  } else {
    if (c == '<' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '=') {
      t.kind = Tok::kLe;
      t.text = text_.substr(pos_, 2);
      pos_ += 2;
      return t;
    }
    if (c == '"' || (d_->single_quotes && c == '\'')) return QuotedString(t);
  }
  if (c == '-' || (c >= '0' && c <= '9')) {
    size_t end = pos_ + 1;
    while (end < text_.size() && text_[end] >= '0' && text_[end] <= '9') ++end;
    auto [ptr, ec] = std::from_chars(text_.data() + pos_, text_.data() + end, t.value);
    if (ec != std::errc() || ptr != text_.data() + end) return Error(t, d_->bad_int);
    t.kind = Tok::kInt;
    t.text = text_.substr(pos_, end - pos_);
    pos_ = end;
    return t;
  }
  if (IdentStart(c)) {
    size_t end = pos_;
    while (end < text_.size() && IdentChar(text_[end])) ++end;
    t.kind = Tok::kIdent;
    t.text = text_.substr(pos_, end - pos_);
    pos_ = end;
    if (d_->attach_suffix && pos_ < text_.size() && (text_[pos_] == '=' || text_[pos_] == ':')) {
      t.kind = text_[pos_] == '=' ? Tok::kAttr : Tok::kName;
      ++pos_;
    }
    return t;
  }
  return Error(t, d_->bad_char);
}

// "..." (or '...'), escapes validated with C rules and kept as written. A quoted name directly
// followed by '=' or ':' is an attribute / sub-axis name without its quotes.
Token Lexer::QuotedString(Token t) {
  const char quote = text_[pos_];
  size_t end = pos_ + 1;
  while (end < text_.size() && text_[end] != quote) {
    if (text_[end] == '\\') ++end;
    ++end;
  }
  if (end >= text_.size()) return Error(t, d_->unterminated_string);
  if (size_t bad = BadEscape(text_.substr(pos_ + 1, end - pos_ - 1)); bad != std::string_view::npos) {
    t.offset = pos_ + 1 + bad;
    return Error(t, d_->bad_escape);
  }
  t.kind = Tok::kString;
  t.text = text_.substr(pos_, end + 1 - pos_);
  pos_ = end + 1;
  if (d_->attach_suffix && pos_ < text_.size() && (text_[pos_] == '=' || text_[pos_] == ':')) {
    t.kind = text_[pos_] == '=' ? Tok::kAttr : Tok::kName;
    t.text = t.text.substr(1, t.text.size() - 2);
    ++pos_;
  }
  return t;
}

// A "..." string at pos_, unescaped (\" \\ \n \t and \XX hex pairs, as MLIR writes them).
Token Lexer::MlirString(Token t) {
  size_t i = pos_ + 1;
  std::string out;
  while (i < text_.size() && text_[i] != '"') {
    if (text_[i] != '\\') {
      out += text_[i++];
      continue;
    }
    if (i + 1 >= text_.size()) break;
    const char e = text_[i + 1];
    if (e == '"' || e == '\\') {
      out += e;
      i += 2;
    } else if (e == 'n' || e == 't') {
      out += e == 'n' ? '\n' : '\t';
      i += 2;
    } else if (i + 2 < text_.size() && HexValue(e) >= 0 && HexValue(text_[i + 2]) >= 0) {
      out += static_cast<char>(HexValue(e) * 16 + HexValue(text_[i + 2]));
      i += 3;
    } else {
      t.offset = i;
      return Error(t, d_->bad_escape);
    }
  }
  if (i >= text_.size()) return Error(t, d_->unterminated_string);
  t.kind = Tok::kString;
  t.text = text_.substr(pos_, i + 1 - pos_);
  t.value_text = std::move(out);
  pos_ = i + 1;
  return t;
}

}  // namespace spmdc::sharding_text_lexer

#include "hlo/lexer.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace spmdc::hlo {

std::string_view TokKindName(TokKind kind) {
  switch (kind) {
    case TokKind::kEof: return "end of input";
    case TokKind::kError: return "invalid character";
    case TokKind::kIdent: return "identifier";
    case TokKind::kInt: return "integer";
    case TokKind::kFloat: return "number";
    case TokKind::kString: return "string";
    case TokKind::kLBrace: return "'{'";
    case TokKind::kRBrace: return "'}'";
    case TokKind::kLBracket: return "'['";
    case TokKind::kRBracket: return "']'";
    case TokKind::kLParen: return "'('";
    case TokKind::kRParen: return "')'";
    case TokKind::kComma: return "','";
    case TokKind::kEqual: return "'='";
    case TokKind::kColon: return "':'";
    case TokKind::kArrow: return "'->'";
    case TokKind::kLeq: return "'<='";
    case TokKind::kEllipsis: return "'...'";
    case TokKind::kQuestion: return "'?'";
  }
  return "token";
}

size_t Lexer::SkipTrivia() {
  const size_t n = src_.size();
  while (pos_ < n) {
    char c = src_[pos_];
    if (IsSpace(c)) {
      ++pos_;
    } else if (c == '/' && pos_ + 1 < n && src_[pos_ + 1] == '/') {
      const void* nl = std::memchr(src_.data() + pos_, '\n', n - pos_);
      pos_ = nl ? static_cast<const char*>(nl) - src_.data() + 1 : n;
    } else if (c == '/' && pos_ + 1 < n && src_[pos_ + 1] == '*') {
      size_t close = src_.find("*/", pos_ + 2);
      if (close == std::string_view::npos) return pos_;  // unterminated: Next() reports it
      pos_ = close + 2;
    } else {
      break;
    }
  }
  return pos_;
}

Token Lexer::Next() {
  SkipTrivia();
  const size_t n = src_.size();
  Token t;
  t.begin = static_cast<uint32_t>(pos_);
  auto finish = [&](TokKind kind, size_t end) {
    t.kind = kind;
    t.end = static_cast<uint32_t>(end);
    if (t.text.data() == nullptr) t.text = src_.substr(t.begin, end - t.begin);
    pos_ = end;
    return t;
  };
  if (pos_ >= n) return finish(TokKind::kEof, n);
  const char* s = src_.data();
  char c = s[pos_];
  auto scan_ident = [&](size_t i) {
    while (i < n && IsIdentChar(s[i])) {
      if (s[i] == '-' && i + 1 < n && s[i + 1] == '>') break;  // b01f_01io->b01f
      ++i;
    }
    return i;
  };
  auto scan_number = [&](size_t i) -> Token {
    // i points at the first digit.
    if (s[i] == '0' && i + 2 < n && (s[i + 1] == 'x' || s[i + 1] == 'X') &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      i += 2;
      while (i < n && std::isxdigit(static_cast<unsigned char>(s[i]))) ++i;
      return finish(TokKind::kInt, i);
    }
    bool is_float = false;
    while (i < n && IsDigit(s[i])) ++i;
    if (i < n && s[i] == '.' && !(i + 1 < n && s[i + 1] == '.')) {
      is_float = true;
      ++i;
      while (i < n && IsDigit(s[i])) ++i;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
      size_t j = i + 1;
      if (j < n && (s[j] == '+' || s[j] == '-')) ++j;
      if (j < n && IsDigit(s[j])) {
        is_float = true;
        i = j;
        while (i < n && IsDigit(s[i])) ++i;
      }
    }
    return finish(is_float ? TokKind::kFloat : TokKind::kInt, i);
  };

  if (IsIdentStart(c)) return finish(TokKind::kIdent, scan_ident(pos_ + 1));
  if (IsDigit(c)) return scan_number(pos_);
  switch (c) {
    case '%': {
      size_t i = pos_ + 1;
      size_t end = scan_ident(i);
      if (end == i) return finish(TokKind::kError, i);
      t.percent = true;
      t.text = src_.substr(i, end - i);
      return finish(TokKind::kIdent, end);
    }
    case '-': {
      size_t i = pos_ + 1;
      if (i < n && s[i] == '>') return finish(TokKind::kArrow, i + 1);
      if (i < n && IsDigit(s[i])) return scan_number(i);
      if (src_.substr(i, 3) == "inf" || src_.substr(i, 3) == "nan") {
        size_t end = i + 3;
        if (end < n && IsIdentChar(s[end])) return finish(TokKind::kError, i);
        return finish(TokKind::kFloat, end);
      }
      return finish(TokKind::kError, i);
    }
    case '"': {
      size_t i = pos_ + 1;
      while (i < n && s[i] != '"') {
        if (s[i] == '\\') ++i;
        ++i;
      }
      if (i >= n) return finish(TokKind::kError, n);
      return finish(TokKind::kString, i + 1);
    }
    case '{': return finish(TokKind::kLBrace, pos_ + 1);
    case '}': return finish(TokKind::kRBrace, pos_ + 1);
    case '[': return finish(TokKind::kLBracket, pos_ + 1);
    case ']': return finish(TokKind::kRBracket, pos_ + 1);
    case '(': return finish(TokKind::kLParen, pos_ + 1);
    case ')': return finish(TokKind::kRParen, pos_ + 1);
    case ',': return finish(TokKind::kComma, pos_ + 1);
    case '=': return finish(TokKind::kEqual, pos_ + 1);
    case ':': return finish(TokKind::kColon, pos_ + 1);
    case '?': return finish(TokKind::kQuestion, pos_ + 1);
    case '<':
      if (pos_ + 1 < n && s[pos_ + 1] == '=') return finish(TokKind::kLeq, pos_ + 2);
      return finish(TokKind::kError, pos_ + 1);
    case '.':
      if (src_.substr(pos_, 3) == "...") return finish(TokKind::kEllipsis, pos_ + 3);
      return finish(TokKind::kError, pos_ + 1);
    case '/':
      // Only an unterminated block comment gets here.
      return finish(TokKind::kError, n);
    default:
      return finish(TokKind::kError, pos_ + 1);
  }
}

LineTable::LineTable(std::string_view source) : size_(source.size()) {
  line_starts_.push_back(0);
  const char* p = source.data();
  const char* end = p + source.size();
  while (p < end) {
    const void* nl = std::memchr(p, '\n', end - p);
    if (!nl) break;
    p = static_cast<const char*>(nl) + 1;
    line_starts_.push_back(static_cast<uint32_t>(p - source.data()));
  }
}

SourceLocation LineTable::Locate(size_t offset) const {
  if (offset > size_) offset = size_;
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  size_t line = (it - line_starts_.begin());  // 1-based
  size_t col = offset - line_starts_[line - 1] + 1;
  return SourceLocation{static_cast<int>(line), static_cast<int>(col)};
}

}  // namespace spmdc::hlo

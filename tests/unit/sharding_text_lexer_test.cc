// The one tokenizer of the sharding languages (sharding/text_lexer.h) in its two dialects: XLA's
// sharding text and Shardy's sdy attribute text.
#include "sharding/text_lexer.h"

#include <gtest/gtest.h>

#include <vector>

namespace spmdc::sharding_text_lexer {
namespace {

std::vector<Token> All(std::string_view text, const Dialect& d) {
  Lexer lexer(text, d);
  std::vector<Token> out;
  for (int i = 0; i < 64; ++i) {
    Token t = lexer.Next();
    out.push_back(t);
    if (t.kind == Tok::kEnd || t.kind == Tok::kError) break;
  }
  return out;
}

std::vector<Tok> Kinds(const std::vector<Token>& tokens) {
  std::vector<Tok> k;
  for (const Token& t : tokens) k.push_back(t.kind);
  return k;
}

TEST(ShardingTextLexer, XlaAttachesEqualsAndColonAndSkipsComments) {
  auto t = All("{devices=[2,1]<=[2] /* c */ last_tile_dims={manual} x:(2)4 'y'= // end\n}", kXlaDialect);
  EXPECT_EQ(Kinds(t), (std::vector<Tok>{Tok::kLBrace, Tok::kAttr, Tok::kLBracket, Tok::kInt, Tok::kComma, Tok::kInt,
                                        Tok::kRBracket, Tok::kLe, Tok::kLBracket, Tok::kInt, Tok::kRBracket,
                                        Tok::kAttr, Tok::kLBrace, Tok::kIdent, Tok::kRBrace, Tok::kName,
                                        Tok::kLParen, Tok::kInt, Tok::kRParen, Tok::kInt, Tok::kAttr, Tok::kRBrace,
                                        Tok::kEnd}));
  EXPECT_EQ(t[1].text, "devices");
  EXPECT_EQ(t[15].text, "x");
  EXPECT_EQ(t[20].text, "y");  // a quoted name before '=' loses its quotes
  // `devices =` is an identifier then '='.
  EXPECT_EQ(Kinds(All("devices =", kXlaDialect)), (std::vector<Tok>{Tok::kIdent, Tok::kEq, Tok::kEnd}));
}

TEST(ShardingTextLexer, XlaRejectsBadEscapesAndMlirPunctuation) {
  auto bad = All(R"("a\qb")", kXlaDialect);
  ASSERT_EQ(bad.back().kind, Tok::kError);
  EXPECT_EQ(bad.back().offset, 2u);
  EXPECT_EQ(bad.back().text, "invalid escape sequence in string");
  EXPECT_EQ(All("<x", kXlaDialect).back().text, "unexpected character");
  EXPECT_EQ(All("\"abc", kXlaDialect).back().text, "unterminated string");
  EXPECT_EQ(All("99999999999999999999", kXlaDialect).back().text, "invalid integer");
}

TEST(ShardingTextLexer, SdyMlirTokens) {
  auto t = All(R"(#sdy.sharding<@mesh, [{"x", ?}p1, {}]> ([i])->([i]) @"m\22n")", kSdyDialect);
  EXPECT_EQ(Kinds(t), (std::vector<Tok>{Tok::kHash, Tok::kIdent, Tok::kLAngle, Tok::kAt, Tok::kComma,
                                        Tok::kLBracket, Tok::kLBrace, Tok::kString, Tok::kComma, Tok::kQuestion,
                                        Tok::kRBrace, Tok::kIdent, Tok::kComma, Tok::kLBrace, Tok::kRBrace,
                                        Tok::kRBracket, Tok::kRAngle, Tok::kLParen, Tok::kLBracket, Tok::kIdent,
                                        Tok::kRBracket, Tok::kRParen, Tok::kArrow, Tok::kLParen, Tok::kLBracket,
                                        Tok::kIdent, Tok::kRBracket, Tok::kRParen, Tok::kAt, Tok::kEnd}));
  EXPECT_EQ(t[1].text, "sdy.sharding");
  EXPECT_EQ(t[3].value_text, "mesh");
  EXPECT_EQ(t[7].value_text, "x");
  EXPECT_EQ(t[28].value_text, "m\"n");  // \22 is a hex pair
  // `x=` is not one token in MLIR, and '-' continues an identifier.
  EXPECT_EQ(Kinds(All("x=a-b", kSdyDialect)), (std::vector<Tok>{Tok::kIdent, Tok::kEq, Tok::kIdent, Tok::kEnd}));
  EXPECT_EQ(All("'x'", kSdyDialect).back().text, "a valid character");
  EXPECT_EQ(All("@ x", kSdyDialect).back().text, "a symbol name after '@'");
  EXPECT_EQ(All("\"a\\qb\"", kSdyDialect).back().text, "a valid escape sequence");
}

}  // namespace
}  // namespace spmdc::sharding_text_lexer

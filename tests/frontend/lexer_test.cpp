// Lexical structure (docs/language.md, section 1): comments vs floor division, literals,
// strings, invalid characters.
#include <gtest/gtest.h>

#include <string>

#include "test_helpers.h"

namespace shardc::test {
namespace {

using namespace shardc::ast;

TEST(Lexer, FloorDivisionAfterAnOperandOnTheSameLine) {
  auto p = parse_text(wrap_expr("2048 // n"));
  ASSERT_TRUE(p.module) << p.rendered();
  auto* b = dyn_cast<BinaryExpr>(&returned_expr(p));
  ASSERT_TRUE(b);
  EXPECT_EQ(b->op, BinaryOp::floor_div);
}

TEST(Lexer, FloorDivisionAfterClosingBracketAndParen) {
  auto p = parse_text(wrap_expr("x.shape[0] // (a) // 2"));
  ASSERT_TRUE(p.module) << p.rendered();
  auto* outer = dyn_cast<BinaryExpr>(&returned_expr(p));
  ASSERT_TRUE(outer);
  EXPECT_EQ(outer->op, BinaryOp::floor_div);
  EXPECT_EQ(dyn_cast<BinaryExpr>(outer->lhs.get())->op, BinaryOp::floor_div);
}

TEST(Lexer, CommentAfterSemicolonBraceAndOnItsOwnLine) {
  auto p = parse_text(
      "// leading comment\n"
      "mesh grid = [X: 4];   // after ;\n"
      "fn f(x) {   // after {\n"
      "  let a = x\n"
      "  // own line, after an operand on the previous line\n"
      "  ;\n"
      "  return a; }  // after }\n");
  ASSERT_TRUE(p.module) << p.rendered();
  EXPECT_EQ(p.module->decls.size(), 2u);
}

// Old Mac line endings (a lone CR) end a line for the `//` rule as LF and CRLF do: the comment
// on its own line was read as floor division of `x` by `add`.
TEST(Lexer, CommentOnItsOwnLineAfterLoneCarriageReturns) {
  for (const char* eol : {"\n", "\r\n", "\r"}) {
    const std::string e = eol;
    auto p = parse_text("fn f(x) {" + e + "  let y = x" + e + "    // add one" + e + "    + 1.0;" + e + "  return y;" + e +
                        "}" + e);
    EXPECT_TRUE(p.module) << p.rendered();
  }
}

TEST(Lexer, CommentAfterAValueIsDivisionAndTheNoteSaysSo) {
  auto p = parse_text("fn f(a) {\n  let q = a // comment here\n  return q;\n}\n");
  EXPECT_FALSE(p.module);
  ASSERT_GE(p.headlines().size(), 1u);
  EXPECT_EQ(p.headlines()[0], "t.shard:2:24: error: unexpected 'here'; expected ';'");
  EXPECT_NE(p.rendered().find("t.shard:2:13: note: '//' right after a value (a name, a number, ')' or ']') on the same line is floor division"),
            std::string::npos)
      << p.rendered();
}

TEST(Lexer, FloorDivAssign) {
  auto p = parse_text("fn f() { var x = 9; x //= 2; return x; }");
  ASSERT_TRUE(p.module) << p.rendered();
  auto* assign = dyn_cast<AssignStmt>(first_body(*p.module).statements[1].get());
  ASSERT_TRUE(assign);
  EXPECT_EQ(assign->op, AssignOp::floor_div);
}

TEST(Lexer, IntegerLiterals) {
  for (auto [text, value] : std::vector<std::pair<std::string, std::int64_t>>{
           {"0", 0}, {"1024", 1024}, {"1_000", 1000}, {"0x1BD11BDA", 0x1BD11BDA}, {"0xFFFF_FFFF", 0xFFFFFFFF},
           {"9223372036854775807", INT64_MAX}}) {
    auto p = parse_text(wrap_expr(text));
    ASSERT_TRUE(p.module) << text << "\n" << p.rendered();
    auto* lit = dyn_cast<IntLiteral>(&returned_expr(p));
    ASSERT_TRUE(lit) << text;
    EXPECT_EQ(lit->value, value) << text;
  }
}

TEST(Lexer, MalformedDigitSeparatorsAreErrors) {
  for (std::string text : {"1__0", "1_", "0x_1"}) {
    auto p = parse_text(wrap_expr(text));
    EXPECT_FALSE(p.module) << text;
    EXPECT_TRUE(p.diags->has_errors()) << text;
  }
}

TEST(Lexer, FloatLiterals) {
  for (auto [text, value] : std::vector<std::pair<std::string, double>>{
           {"1.0", 1.0}, {"0.5", 0.5}, {"1e-5", 1e-5}, {"2.5E3", 2500.0}, {"1_000.25", 1000.25}}) {
    auto p = parse_text(wrap_expr(text));
    ASSERT_TRUE(p.module) << text << "\n" << p.rendered();
    auto* lit = dyn_cast<FloatLiteral>(&returned_expr(p));
    ASSERT_TRUE(lit) << text;
    EXPECT_DOUBLE_EQ(lit->value, value) << text;
    EXPECT_EQ(lit->spelling, text);
  }
}

TEST(Lexer, RangeIsNotAFloat) {
  auto p = parse_text("fn f() { for i in 0..4 { } return 0; }");
  ASSERT_TRUE(p.module) << p.rendered();
  auto* loop = dyn_cast<ForStmt>(first_body(*p.module).statements[0].get());
  ASSERT_TRUE(loop);
  EXPECT_EQ(dyn_cast<IntLiteral>(loop->begin.get())->value, 0);
  EXPECT_EQ(dyn_cast<IntLiteral>(loop->end.get())->value, 4);
}

TEST(Lexer, StringEscapes) {
  auto p = parse_text(wrap_expr(R"("a\"b\\c")"));
  ASSERT_TRUE(p.module) << p.rendered();
  EXPECT_EQ(dyn_cast<StringLiteral>(&returned_expr(p))->value, "a\"b\\c");
}

TEST(Lexer, UnknownEscapeIsLocated) {
  auto p = parse_text(wrap_expr(R"("ab\n")"));
  EXPECT_FALSE(p.module);
  ASSERT_EQ(p.headlines().size(), 1u);
  EXPECT_EQ(p.headlines()[0], "t.shard:1:20: error: unknown escape sequence '\\n' in a string");
}

TEST(Lexer, UnterminatedStringIsOneError) {
  auto p = parse_text("fn f() {\n  let s = \"abc;\n  return s;\n}\n");
  EXPECT_FALSE(p.module);
  ASSERT_EQ(p.headlines().size(), 1u) << p.rendered();
  EXPECT_EQ(p.headlines()[0], "t.shard:2:11: error: missing terminating '\"' character");
}

TEST(Lexer, InvalidCharacterIsLocatedAndParsingGoesOn) {
  auto p = parse_text("fn f(x) {\n  let a = x + $ 1;\n  let b = ;\n  return a;\n}\n");
  EXPECT_FALSE(p.module);
  auto h = p.headlines();
  ASSERT_EQ(h.size(), 2u) << p.rendered();
  EXPECT_EQ(h[0], "t.shard:2:15: error: invalid character '$'");
  EXPECT_EQ(h[1], "t.shard:3:11: error: unexpected ';'; expected an expression");
}

TEST(Lexer, NonAsciiAllowedInCommentsAndStringsOnly) {
  auto ok = parse_text("// π ≈ 3.14159\nfn f() { return \"héllo\"; }\n");
  ASSERT_TRUE(ok.module) << ok.rendered();
  EXPECT_EQ(dyn_cast<StringLiteral>(&returned_expr(ok))->value, "héllo");

  auto bad = parse_text("fn f() { let é = 1; return 0; }\n");
  EXPECT_FALSE(bad.module);
  ASSERT_FALSE(bad.headlines().empty());
  // One error for the two bytes of 'é', spanning both.
  EXPECT_EQ(bad.headlines()[0], "t.shard:1:14: error: non-ASCII character outside a comment or string");
  EXPECT_EQ(bad.diags->diagnostics()[0].range.end.column, 16u);
  // It stands where a name does, so nothing else is reported (the parser used to miss a name there).
  EXPECT_EQ(bad.headlines().size(), 1u) << bad.rendered();
}

TEST(Lexer, ANameWithNonAsciiCharactersIsOneError) {
  auto p = parse_text("fn f(x) { let b_\xce\xb8 = x; return b_\xce\xb8; }\n");
  EXPECT_FALSE(p.module);
  ASSERT_EQ(p.headlines().size(), 2u) << p.rendered();
  EXPECT_EQ(p.headlines()[0],
            "t.shard:1:15: error: non-ASCII character in the name 'b_\xce\xb8'; names are ASCII letters, digits and '_'");
  // A stray symbol where no name may stand is reported once, for its characters.
  auto stray = parse_text("fn f(x) { return x \xc3\x97 2; }\n");
  EXPECT_FALSE(stray.module);
  ASSERT_EQ(stray.headlines().size(), 1u) << stray.rendered();
  EXPECT_EQ(stray.headlines()[0], "t.shard:1:20: error: non-ASCII character outside a comment or string");
}

TEST(Lexer, AUtf8ByteOrderMarkIsWhitespace) {
  auto p = parse_text("\xef\xbb\xbf" "fn f() { return 1; }\n");
  EXPECT_TRUE(p.module) << p.rendered();
  // Anywhere else it is a character like any other.
  EXPECT_FALSE(parse_text("fn f() { \xef\xbb\xbf return 1; }\n").module);
}

TEST(Lexer, ControlBytesAreInvalidCharacters) {
  std::string text = "fn f() { return 1; }";
  text.insert(9, 1, '\0');
  auto p = parse_text(text);
  EXPECT_FALSE(p.module);
  ASSERT_EQ(p.headlines().size(), 1u) << p.rendered();
  EXPECT_EQ(p.headlines()[0], "t.shard:1:10: error: invalid character '\\x00'");
}

TEST(Lexer, KeywordsAreNotNames) {
  auto p = parse_text("fn f() { let mesh = 1; return mesh; }");
  EXPECT_FALSE(p.module);
  EXPECT_TRUE(p.diags->has_errors());
}

}  // namespace
}  // namespace shardc::test

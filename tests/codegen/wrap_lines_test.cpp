// Line wrapping of the emitted C++ (codegen/wrap_lines.h): where lines break, and where they
// must not.
#include "codegen/wrap_lines.h"

#include <gtest/gtest.h>

namespace {

using shardc::codegen::wrap_long_lines;

TEST(WrapLines, ShortLinesAndTheLastNewlineAreKept) {
  EXPECT_EQ(wrap_long_lines("int a = f(1, 2);\n", 40), "int a = f(1, 2);\n");
  EXPECT_EQ(wrap_long_lines("x\ny", 40), "x\ny");
}

TEST(WrapLines, ALongCallBreaksAfterCommasAlignedAfterItsBracket) {
  EXPECT_EQ(wrap_long_lines("  auto r = call(alpha, beta, gamma, delta);\n", 30),
            "  auto r = call(alpha, beta,\n"
            "                gamma, delta);\n");
}

TEST(WrapLines, TheLongestListIsTheOneBrokenAndItemsAreWrappedAgain) {
  EXPECT_EQ(wrap_long_lines("f(a)(b1, g(c1, c2, c3, c4, c5, c6), b3);", 24),
            "f(a)(b1,\n"
            "     g(c1, c2, c3, c4,\n"
            "       c5, c6),\n"
            "     b3);");
}

TEST(WrapLines, AFarRightBracketHangsItsItemsFourSpacesIn) {
  EXPECT_EQ(wrap_long_lines("  some_long_variable_name = object.method(first, second);", 40),
            "  some_long_variable_name = object.method(\n"
            "      first, second);");
}

TEST(WrapLines, NothingBreaksInsideLiteralsCommentsOrDirectives) {
  const std::string literal = "check(\"a, b, c, d, e, f, g\", 'x');";
  EXPECT_EQ(wrap_long_lines(literal, 20), "check(\"a, b, c, d, e, f, g\",\n      'x');");
  const std::string trailing = "call(aaaa, bbbb, cccc);  // a comment";
  EXPECT_EQ(wrap_long_lines(trailing, 20), trailing);
  const std::string directive = "#define X f(aaaa, bbbb, cccc)";
  EXPECT_EQ(wrap_long_lines(directive, 20), directive);
  const std::string single = "call(aaaaaaaaaaaaaaaaaaaaaaaaaaaaa);";
  EXPECT_EQ(wrap_long_lines(single, 20), single);
}

TEST(WrapLines, CommentLinesAreWordWrapped) {
  EXPECT_EQ(wrap_long_lines("  // one two three four five six", 16),
            "  // one two\n"
            "  // three four\n"
            "  // five six");
}

}  // namespace

// Limits (docs/language.md, section 13.3): each is a located error, never a crash or hang.
#include <gtest/gtest.h>

#include <chrono>

#include "test_helpers.h"

namespace shardc::test {
namespace {

std::string repeat(std::string_view s, std::size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

// `fn f() { return ((...(x)...)); }`: the braces count one level, each '(' one more.
std::string nested_parens(std::size_t n) { return wrap_expr(repeat("(", n) + "x" + repeat(")", n)); }

TEST(Limits, NestingUpToTheLimitParses) {
  auto p = parse_text(nested_parens(199));
  EXPECT_TRUE(p.module) << p.headlines()[0];
}

TEST(Limits, NestingBeyondTheLimitIsLocatedBeforeParsing) {
  auto p = parse_text(nested_parens(200));
  EXPECT_FALSE(p.module);
  ASSERT_EQ(p.headlines().size(), 1u);
  // The 201st level is the 200th '(' at column 16 + 199.
  EXPECT_EQ(p.headlines()[0],
            "t.shard:1:216: error: nesting is too deep: more than 200 levels of brackets and prefix operators");
}

TEST(Limits, HugeNestingDoesNotRecurse) {
  for (std::string open : {"(", "[", "{", "-", "!", "f("}) {
    auto start = std::chrono::steady_clock::now();
    auto p = parse_text("fn f() { return " + repeat(open, 50000) + " }");
    EXPECT_FALSE(p.module) << open;
    ASSERT_FALSE(p.headlines().empty()) << open;
    EXPECT_NE(p.headlines()[0].find("nesting is too deep"), std::string::npos) << open << ": " << p.headlines()[0];
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5)) << open;
  }
}

TEST(Limits, CustomNestingLimit) {
  ParseLimits limits;
  limits.max_nesting_depth = 10;
  EXPECT_TRUE(parse_text(nested_parens(9), limits).module);
  EXPECT_FALSE(parse_text(nested_parens(10), limits).module);
}

TEST(Limits, LongOperatorChainsAreLimitedNotRecursed) {
  auto fine = parse_text(wrap_expr("x" + repeat(" + x", 900)));
  EXPECT_TRUE(fine.module) << fine.rendered();

  auto start = std::chrono::steady_clock::now();
  auto deep = parse_text(wrap_expr("x" + repeat(" + x", 50000)));
  EXPECT_FALSE(deep.module);
  ASSERT_EQ(deep.headlines().size(), 1u);
  EXPECT_NE(deep.headlines()[0].find("nested too deeply: more than 1000 levels"), std::string::npos)
      << deep.headlines()[0];
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST(Limits, LongPostfixAndElseIfChainsAreLimited) {
  auto index = parse_text(wrap_expr("x" + repeat("[0]", 5000)));
  EXPECT_FALSE(index.module);
  ASSERT_EQ(index.headlines().size(), 1u);
  EXPECT_NE(index.headlines()[0].find("nested too deeply"), std::string::npos);

  auto chain = parse_text("fn f() { if a { }" + repeat(" else if a { }", 5000) + " return 0; }");
  EXPECT_FALSE(chain.module);
  ASSERT_EQ(chain.headlines().size(), 1u);
  EXPECT_NE(chain.headlines()[0].find("nested too deeply"), std::string::npos);

  auto short_chain = parse_text("fn f() { if a { }" + repeat(" else if a { }", 500) + " return 0; }");
  EXPECT_TRUE(short_chain.module);
}

TEST(Limits, FileSize) {
  ParseLimits limits;
  limits.max_file_bytes = 64;
  auto p = parse_text("fn f() { return 1; }\n" + repeat("// padding\n", 10), limits);
  EXPECT_FALSE(p.module);
  ASSERT_EQ(p.headlines().size(), 1u);
  EXPECT_EQ(p.headlines()[0], "t.shard:1:1: error: file is larger than the limit of 64 bytes");
}

TEST(Limits, DefaultFileSizeIs1MiB) { EXPECT_EQ(ParseLimits{}.max_file_bytes, std::size_t{1} << 20); }

TEST(Limits, ManyStatementsParseQuickly) {
  std::string text = "fn f(x) {\n";
  for (int i = 0; i < 5000; ++i) text += "  let a" + std::to_string(i) + " = x * 2 + (x // 3) % 4;\n";
  text += "  return x;\n}\n";
  auto start = std::chrono::steady_clock::now();
  auto p = parse_text(text);
  ASSERT_TRUE(p.module) << p.rendered();
  EXPECT_EQ(first_body(*p.module).statements.size(), 5001u);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

}  // namespace
}  // namespace shardc::test

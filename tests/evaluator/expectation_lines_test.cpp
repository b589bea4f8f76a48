// The expectation comments that the example suites check (tests/expectation_lines.h): which
// lines count, and which references name results.
#include <gtest/gtest.h>

#include <sstream>

#include "expectation_lines.h"

namespace {

TEST(ExpectationLines, ReadsValueAndEqualLinesWithTheirLineNumbers) {
  std::istringstream in(
      "mesh m = [x: 2];\n"
      "// expect-value: f.return [[0 1]\n"
      "//   expect-equal:   f.return.1   g.return  \n"
      "  // expect-value: h.return.2 [0. 1.5]   \n"
      "// Prints: the values, as the expect-value lines below.\n"
      "// expect-equal: f.return g.return extra\n"
      "// expect-value: f.return\n"
      "// expect-type: f.x float32[8]\n"
      "let x = 1;  // expect-value: f.return 3\n");
  const auto lines = expectations::read_lines(in);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].kind, "value");
  EXPECT_EQ(lines[0].lhs, "f.return");
  EXPECT_EQ(lines[0].rhs, "[[0 1]");
  EXPECT_EQ(lines[0].line, 2);
  EXPECT_EQ(lines[1].kind, "equal");
  EXPECT_EQ(lines[1].lhs, "f.return.1");
  EXPECT_EQ(lines[1].rhs, "g.return");
  EXPECT_EQ(lines[2].rhs, "[0. 1.5]");
  EXPECT_EQ(lines[2].line, 4);
}

TEST(ExpectationLines, ResultReferences) {
  const auto plain = expectations::parse_result_ref("matmul_run.return");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->function, "matmul_run");
  EXPECT_EQ(plain->index, 0);
  const auto second = expectations::parse_result_ref("f.return.12");
  ASSERT_TRUE(second);
  EXPECT_EQ(second->index, 12);
  for (const char* bad : {"f.y", ".return", "f.return.", "f.return.x", "f.returned", "2f.return", "f-g.return"})
    EXPECT_FALSE(expectations::parse_result_ref(bad)) << bad;
}

}  // namespace

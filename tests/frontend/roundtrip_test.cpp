// Round trips: printing a parsed module as source and parsing that again gives the same
// tree. Run over every example (examples/*.shard) and over a sampler of the whole syntax.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "frontend/ast_printer.h"
#include "frontend/ast_source.h"
#include "test_helpers.h"

namespace shardc::test {
namespace {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The --emit=ast dump without source positions (which printing moves).
std::string shape_of(const ast::Module& m) {
  std::ostringstream out;
  ast::print_ast(m, out);
  return std::regex_replace(out.str(), std::regex(" <[0-9]+:[0-9]+>"), "");
}

void expect_round_trip(std::string_view text, std::string_view name) {
  auto first = parse_text(text, {}, name);
  ASSERT_TRUE(first.module) << first.rendered();
  std::string printed = ast::to_source(*first.module);
  auto second = parse_text(printed, {}, name);
  ASSERT_TRUE(second.module) << "the printed form does not parse:\n" << second.rendered() << "\n" << printed;
  EXPECT_EQ(shape_of(*first.module), shape_of(*second.module)) << printed;
  EXPECT_EQ(ast::to_source(*second.module), printed);
}

TEST(RoundTrip, EveryExample) {
  std::filesystem::path dir = std::filesystem::path(SHARDC_SOURCE_DIR) / "examples";
  std::size_t count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".shard") continue;
    SCOPED_TRACE(entry.path().string());
    expect_round_trip(read_file(entry.path()), entry.path().filename().string());
    ++count;
  }
  EXPECT_GT(count, 0u) << "no examples found in " << dir;
}

TEST(RoundTrip, GoldenSamplers) {
  std::filesystem::path dir = SHARDC_GOLDEN_DIR;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".shard") continue;
    SCOPED_TRACE(entry.path().string());
    expect_round_trip(read_file(entry.path()), entry.path().filename().string());
  }
}

TEST(RoundTrip, TrickyPrecedenceAndSizes) {
  expect_round_trip(
      "fn f(x: f32[(a @ b), B // 2, -(1 + 2)]) {\n"
      "  let y = -(-x) - (a - b) - c // d % -e;\n"
      "  let z = !(a && b) || (c || d) && !e;\n"
      "  let w = (a < b) == (c >= d);\n"
      "  let s = x[(i + 1):, :(j), ::-1][0][x.shape[(0)]];\n"
      "  let t = ((1,), (), [(), [None]], \"q\\\"\\\\\");\n"
      "  return (y,);\n"
      "}\n",
      "tricky.shard");
}

}  // namespace
}  // namespace shardc::test

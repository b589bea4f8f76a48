// Round trips: printing a parsed module as source and parsing that again gives the same
// tree. Run over every example (examples/*.shard) and over a sampler of the whole syntax.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
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
  // Drop every " <LINE:COL>" (std::regex would do, but g++ 12 warns inside it under ASan).
  std::string dump = out.str();
  std::string shape;
  for (std::size_t i = 0; i < dump.size(); ++i) {
    if (dump.compare(i, 2, " <") == 0) {
      std::size_t close = dump.find('>', i);
      std::string_view inside = std::string_view(dump).substr(i + 2, close - i - 2);
      if (close != std::string::npos && !inside.empty() &&
          inside.find_first_not_of("0123456789:") == std::string_view::npos) {
        i = close;
        continue;
      }
    }
    shape += dump[i];
  }
  return shape;
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

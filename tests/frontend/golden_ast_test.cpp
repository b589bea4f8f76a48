// Golden tests of --emit=ast: tests/frontend/golden/NAME.shard is dumped and compared with
// NAME.ast. To regenerate after an intended change of the dump or the syntax, run
//   SHARDC_UPDATE_GOLDENS=1 ctest --test-dir BUILD -R GoldenAst
// and review the diff before committing it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "frontend/ast_printer.h"
#include "test_helpers.h"

namespace shardc::test {
namespace {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(GoldenAst, EverySamplerMatchesItsDump) {
  bool update = std::getenv("SHARDC_UPDATE_GOLDENS") != nullptr;
  std::size_t count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(SHARDC_GOLDEN_DIR)) {
    if (entry.path().extension() != ".shard") continue;
    SCOPED_TRACE(entry.path().string());
    ++count;
    auto p = parse_text(read_file(entry.path()), {}, entry.path().filename().string());
    ASSERT_TRUE(p.module) << p.rendered();
    std::ostringstream dump;
    ast::print_ast(*p.module, dump);
    std::filesystem::path expected_path = entry.path();
    expected_path.replace_extension(".ast");
    if (update) {
      std::ofstream(expected_path, std::ios::binary) << dump.str();
      continue;
    }
    ASSERT_TRUE(std::filesystem::exists(expected_path)) << "missing " << expected_path
                                                        << "; run with SHARDC_UPDATE_GOLDENS=1";
    EXPECT_EQ(dump.str(), read_file(expected_path));
  }
  EXPECT_GT(count, 0u);
}

}  // namespace
}  // namespace shardc::test

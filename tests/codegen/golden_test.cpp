// Golden files of the code generator's output: `shardc --emit=cpp` and `--emit=schedule` of a
// few examples, at small sizes. After an intended change, regenerate and review:
//   SHARDC_UPDATE_GOLDENS=1 ctest --test-dir BUILD -R Golden
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace {

struct GoldenCase {
  const char* name;     // golden/<name>.<kind>.golden
  const char* example;  // examples/<example>.shard
  const char* defines;  // extra shardc arguments
  const char* emit;     // cpp or schedule
};

const GoldenCase kCases[] = {
    {"explicit_matmul_cpp", "explicit_matmul", "-D BATCH=64 -D HIDDEN=128 -D OUT_DIM=32", "cpp"},
    {"explicit_matmul_schedule", "explicit_matmul", "-D BATCH=64 -D HIDDEN=128 -D OUT_DIM=32", "schedule"},
    {"manual_matmul_cpp", "manual_matmul", "-D BATCH=64 -D HIDDEN=128 -D OUT_DIM=32", "cpp"},
    // A body cut into parts (codegen/body_parts.h): keys and a call's result handed between them.
    {"manual_matmul_parts_cpp", "manual_matmul", "-D BATCH=64 -D HIDDEN=128 -D OUT_DIM=32 --part-size 3", "cpp"},
    {"all_gather_cpp", "all_gather", "", "cpp"},
    // The ring algorithms: row chunks of x read in place by the matmuls (windows), permutes started early.
    {"matmul_psum_scatter_cpp", "matmul_psum_scatter", "-D BATCH=64 -D N_IN=128 -D N_OUT=32", "cpp"},
    {"ring_shift_schedule", "ring_shift", "", "schedule"},
    {"all_reduce_schedule", "all_reduce", "-D BATCH=64 -D HIDDEN=128 -D OUT_DIM=32", "schedule"},
};

// Runs a command, returning its standard output and exit status.
std::pair<std::string, int> run(const std::string& command) {
  std::string output;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return {"", -1};
  std::array<char, 4096> buffer{};
  std::size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) output.append(buffer.data(), n);
  int status = pclose(pipe);
  return {output, status};
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class Golden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(Golden, MatchesTheGoldenFile) {
  const GoldenCase& c = GetParam();
  // Run from the examples folder so the generated comment names the file, not a path.
  std::string command = std::string("cd '") + SHARDC_EXAMPLES_DIR + "' && '" + SHARDC_BINARY + "' " + c.example +
                        ".shard " + c.defines + " --emit=" + c.emit + " 2>&1";
  auto [output, status] = run(command);
  ASSERT_EQ(status, 0) << command << "\n" << output;
  std::string golden_path = std::string(SHARDC_GOLDEN_DIR) + "/" + c.name + ".golden";
  const char* update = std::getenv("SHARDC_UPDATE_GOLDENS");
  if (update && std::string(update) == "1") {
    std::ofstream(golden_path, std::ios::binary | std::ios::trunc) << output;
    GTEST_SKIP() << "updated " << golden_path;
  }
  std::string golden = read_file(golden_path);
  ASSERT_FALSE(golden.empty()) << golden_path << " is missing: run with SHARDC_UPDATE_GOLDENS=1";
  EXPECT_EQ(output, golden) << "the output of `" << command << "` differs from " << golden_path
                            << "; if the change is intended, regenerate with SHARDC_UPDATE_GOLDENS=1";
}

std::string case_name(const ::testing::TestParamInfo<GoldenCase>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(Codegen, Golden, ::testing::ValuesIn(kCases), case_name);

}  // namespace

// The evaluator at the seeds' own sizes (what `shardc run` checks generated code against):
// every function of a few large examples on deterministic inputs, timed. Run by hand (see
// CMakeLists.txt): it takes minutes, so it is not part of the test suite.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "checked_source.h"
#include "evaluator/evaluate.h"

namespace shardc::eval {
namespace {

class SeedSize : public ::testing::TestWithParam<std::string> {};

TEST_P(SeedSize, EveryFunctionEvaluates) {
  std::string path = std::string(SHARDC_EXAMPLES_DIR) + "/" + GetParam() + ".shard";
  auto src = testing::check_source(testing::read_file(path), path);
  ASSERT_TRUE(src.module) << src.errors;
  for (const auto& f : src.module->functions) {
    auto inputs = deterministic_inputs(*src.module, f.name, 0);
    auto start = std::chrono::steady_clock::now();
    auto out = evaluate(*src.module, f.name, inputs);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("  %s.%s: %.2f s\n", GetParam().c_str(), f.name.c_str(), seconds);
    EXPECT_EQ(out.size(), f.result_types.size());
    EXPECT_LT(seconds, 120.0) << f.name;
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, SeedSize,
                         ::testing::Values("explicit_matmul", "manual_matmul", "collective_matmul", "transformer_block"));

}  // namespace
}  // namespace shardc::eval

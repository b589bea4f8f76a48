// Compile-and-run tests of generated code: each example's generated library is called
// through its parameterless functions, and the results are checked against the values the
// example records (expect-value) and against each other (expect-equal).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "evaluator/evaluate.h"
#include "example_registry.h"
#include "expectations.h"
#include "frontend/check/check.h"
#include "frontend/defines.h"
#include "frontend/parse.h"

namespace {

class GeneratedExample : public ::testing::TestWithParam<ExampleEntry> {
 protected:
  // Runs each parameterless function once; results by function name.
  std::map<std::string, std::vector<shard::Array>> run_all(shard::Runtime& rt) {
    std::map<std::string, std::vector<shard::Array>> results;
    for (const auto& [name, fn] : GetParam().functions()) results.emplace(name, fn(rt));
    return results;
  }
};

const shard::Array& result_of(const std::map<std::string, std::vector<shard::Array>>& results, const ResultRef& ref) {
  auto it = results.find(ref.function);
  if (it == results.end()) throw std::runtime_error("no parameterless function '" + ref.function + "'");
  if (ref.index >= static_cast<int>(it->second.size()))
    throw std::runtime_error(ref.function + " has no result " + std::to_string(ref.index));
  return it->second[static_cast<std::size_t>(ref.index)];
}

TEST_P(GeneratedExample, ResultsMatchTheExpectations) {
  shard::Runtime rt{8};
  auto results = run_all(rt);
  Expectations expect = read_expectations(GetParam().source);
  ASSERT_FALSE(expect.values.empty() && expect.equals.empty()) << GetParam().source << " records no expectation";
  for (const ValueExpectation& v : expect.values) {
    SCOPED_TRACE(v.result.function + ".return." + std::to_string(v.result.index) + " = " + v.text);
    PrintedNumbers want = parse_printed(v.text);
    const shard::Array& got = result_of(results, v.result);
    // A printed float for an integer result is compared as f32 would be.
    const shard::DType dtype = want.floating && !shard::is_floating(got.type().dtype) ? shard::DType::f32 : got.type().dtype;
    EXPECT_EQ(compare_values(host_values(got), want.values, dtype, want.last_digit), "");
  }
  for (const EqualExpectation& e : expect.equals) {
    SCOPED_TRACE(e.a.function + "." + std::to_string(e.a.index) + " == " + e.b.function + "." + std::to_string(e.b.index));
    const shard::Array& a = result_of(results, e.a);
    const shard::Array& b = result_of(results, e.b);
    EXPECT_EQ(a.type().shape, b.type().shape);
    EXPECT_EQ(compare_values(host_values(a), host_values(b), b.type().dtype), "");
  }
}

// The example checked again, here, with the -D values it was generated with: the evaluator's input.
std::shared_ptr<const shardc::check::CheckedModule> check_example(const ExampleEntry& e) {
  std::ifstream file(e.source);
  std::ostringstream text;
  text << file.rdbuf();
  shardc::Diagnostics diags;
  shardc::Defines defines;
  std::istringstream list(e.defines);
  for (std::string d; std::getline(list, d, ',');)
    if (!d.empty())
      if (auto parsed = shardc::parse_define(d, diags)) defines.push_back(*parsed);
  auto module = shardc::parse(text.str(), e.source, diags, {});
  if (!module) return nullptr;
  auto checked = shardc::check::check(*module, defines, diags);
  // The checked module points into the AST: keep it for the test program's life.
  static std::vector<std::unique_ptr<shardc::ast::Module>> asts;
  asts.push_back(std::move(module));
  std::ostringstream messages;
  diags.render(messages);
  EXPECT_FALSE(diags.has_errors()) << messages.str();
  return checked.module;
}

// Every parameterless function's results equal the reference evaluator's (integers exactly;
// floats within 1e-4*|r| + 1e-5*max|r|), with the same shapes and dtypes.
TEST_P(GeneratedExample, ResultsEqualTheEvaluator) {
  auto checked = check_example(GetParam());
  ASSERT_NE(checked, nullptr);
  shard::Runtime rt{8};
  for (const auto& [name, fn] : GetParam().functions()) {
    SCOPED_TRACE(name);
    std::vector<shard::Array> got = fn(rt);
    std::vector<shardc::eval::HostTensor> want = shardc::eval::evaluate(*checked, name, {});
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      SCOPED_TRACE("result " + std::to_string(i));
      EXPECT_EQ(got[i].type().dtype, want[i].dtype);
      EXPECT_EQ(got[i].type().shape, want[i].shape);
      std::vector<double> reference;
      for (std::int64_t k = 0; k < want[i].size(); ++k) reference.push_back(want[i].as_double(k));
      EXPECT_EQ(compare_values(host_values(got[i]), reference, want[i].dtype), "");
    }
  }
}

std::string example_name(const ::testing::TestParamInfo<ExampleEntry>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(Examples, GeneratedExample, ::testing::ValuesIn(all_examples()), example_name);

}  // namespace

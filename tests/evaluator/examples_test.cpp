// The example ports' recorded expectations (examples/README.md), evaluated by the reference
// evaluator:
//   // expect-value: FUNC.return[.N] VALUE            -- at the file's own sizes
//   // expect-equal: FUNC.return[.N] FUNC.return[.N]  -- at the small sizes of kSmallSizes
//                                                        when the file is listed, else its own
// Integers compare exactly; floats by evaluator/compare.h's rule for their dtype (plus one unit in
// the last printed digit for expect-value). Each evaluation is timed (the budget is 2 s).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>

#include "checked_source.h"
#include "expectation_lines.h"
#include "evaluator/compare.h"
#include "evaluator/evaluate.h"
#include "evaluator/format_numpy.h"
#include "frontend/check/rules_einsum.h"
#include "frontend/defines.h"

namespace shardc::eval {
namespace {

namespace fs = std::filesystem;

// -D overrides that make the big examples small enough for a test (sizes the ports' checker
// accepts: every sharded dimension divides its axes).
const std::map<std::string, std::vector<std::pair<std::string, std::int64_t>>> kSmallSizes = {
    {"all_reduce", {{"BATCH", 64}, {"HIDDEN", 128}, {"OUT_DIM", 16}}},
    {"allreduce_collective_matmul", {{"B", 16}, {"D", 64}, {"F", 128}}},
    {"collective_matmul", {{"B", 16}, {"D", 64}, {"F", 128}}},
    {"collective_matmul_lhs_non_contracting", {{"M", 64}, {"K", 32}, {"N", 64}}},
    {"explicit_matmul", {{"BATCH", 64}, {"HIDDEN", 128}, {"OUT_DIM", 16}}},
    {"fsdp_matmul", {{"BATCH", 64}, {"N_IN", 128}, {"N_OUT", 16}}},
    {"manual_matmul", {{"BATCH", 64}, {"HIDDEN", 128}, {"OUT_DIM", 16}}},
    {"matmul_psum_scatter", {{"BATCH", 64}, {"N_IN", 128}, {"N_OUT", 16}}},
    {"matmul_square", {{"D", 64}, {"F", 128}}},
    {"moe_local", {{"S", 32}, {"D", 16}, {"F", 32}}},
    {"psum_scatter_matmul_overlapped", {{"M", 64}, {"K", 32}, {"N", 64}}},
    {"reducescatter_collective_matmul", {{"B", 16}, {"F", 128}, {"D", 64}}},
    {"transformer_block", {{"B", 16}, {"D", 64}, {"F", 128}}},
};

// A rough count of the multiply-adds a function's trace costs (einsums: the product of all
// letter sizes; other ops: their result size), so that an example too big for a test fails
// at once with a hint instead of running for minutes. Called functions count too.
double estimated_work(const check::CheckedModule& module, const check::CheckedFunction& f, int depth = 0) {
  double work = 0;
  for (const check::Op& op : f.ops) {
    if (op.name == "call" && depth < 8) {
      if (const auto* callee = module.find_function(std::get<std::string>(op.attrs.at("callee"))))
        work += estimated_work(module, *callee, depth + 1);
      continue;
    }
    double out = 1;
    for (check::ValueId v : op.outputs)
      for (std::int64_t d : f.values[v].is_array() ? f.values[v].shape() : Shape{}) out *= static_cast<double>(d);
    if (op.name == "einsum") {
      auto spec = check::parse_einsum(std::get<std::string>(op.attrs.at("spec")));
      std::map<char, std::int64_t> size;
      for (std::size_t k = 0; spec && k < spec->inputs.size() && k < op.inputs.size(); ++k)
        for (std::size_t d = 0; d < spec->inputs[k].size(); ++d) size[spec->inputs[k][d]] = f.values[op.inputs[k]].shape().at(d);
      out = 1;
      for (auto [letter, n] : size) out *= static_cast<double>(n);
    }
    work += out;
  }
  // A shard_map body runs once per device.
  return f.mesh && f.kind == ast::FunctionKind::shard_map ? work * static_cast<double>(f.mesh->device_count()) : work;
}

constexpr double kMaxTestWork = 2e8;

// ---- parsing VALUE: numpy's printout as nested lists ----

struct Expected {
  Shape shape;
  std::vector<double> values;
  std::vector<double> last_digit;  // one unit in the last printed digit of each number
};

class ValueParser {
 public:
  explicit ValueParser(std::string text) : s_(std::move(text)) {}

  Expected parse() {
    Expected e;
    skip();
    if (peek() == '[') {
      std::vector<int> sizes;
      list(e, 0, sizes);
      e.shape.assign(sizes.begin(), sizes.end());
    } else {
      number(e);
    }
    skip();
    if (pos_ != s_.size()) throw std::runtime_error("trailing text in expected value: " + s_.substr(pos_));
    return e;
  }

 private:
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void skip() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == ',')) ++pos_;
  }

  void list(Expected& e, std::size_t depth, std::vector<int>& sizes) {
    ++pos_;  // '['
    int count = 0;
    skip();
    while (peek() != ']') {
      if (pos_ >= s_.size()) throw std::runtime_error("unterminated list in expected value");
      if (peek() == '[') list(e, depth + 1, sizes);
      else number(e);
      ++count;
      skip();
    }
    ++pos_;
    if (sizes.size() <= depth) sizes.resize(depth + 1, -1);
    if (sizes[depth] >= 0 && sizes[depth] != count) throw std::runtime_error("ragged expected value");
    sizes[depth] = count;
  }

  void number(Expected& e) {
    std::size_t start = pos_;
    while (pos_ < s_.size() && std::string("0123456789+-.eE").find(s_[pos_]) != std::string::npos) ++pos_;
    std::string word = s_.substr(start, pos_ - start);
    if (s_.compare(start, 4, "True") == 0 || s_.compare(start, 5, "False") == 0) {
      bool t = s_[start] == 'T';
      pos_ = start + (t ? 4 : 5);
      e.values.push_back(t ? 1 : 0);
      e.last_digit.push_back(0);
      return;
    }
    if (word.empty()) throw std::runtime_error("bad number in expected value at: " + s_.substr(start));
    e.values.push_back(std::stod(word));
    // The unit of the last printed digit: 10^-(digits after the point) times 10^exponent.
    auto epos = word.find_first_of("eE");
    std::string mantissa = word.substr(0, epos);
    int exponent = epos == std::string::npos ? 0 : std::stoi(word.substr(epos + 1));
    auto dot = mantissa.find('.');
    int decimals = dot == std::string::npos ? 0 : static_cast<int>(mantissa.size() - dot - 1);
    e.last_digit.push_back(dot == std::string::npos && epos == std::string::npos ? 0 : std::pow(10.0, exponent - decimals));
  }

  std::string s_;
  std::size_t pos_ = 0;
};

// ---- the expectations of one file ----

std::vector<expectations::Line> read_expectations(const std::string& text) {
  std::istringstream in(text);
  return expectations::read_lines(in);
}

// FUNC.return or FUNC.return.N -> (FUNC, N).
std::pair<std::string, std::size_t> result_ref(const std::string& ref) {
  const auto r = expectations::parse_result_ref(ref);
  if (!r) throw std::runtime_error("'" + ref + "' is not FUNC.return or FUNC.return.N (bindings are not evaluated)");
  return {r->function, static_cast<std::size_t>(r->index)};
}

class Runner {
 public:
  explicit Runner(const check::CheckedModule& module) : module_(module) {}

  const HostTensor& result(const std::string& ref) {
    auto [func, index] = result_ref(ref);
    auto it = cache_.find(func);
    if (it == cache_.end()) {
      const check::CheckedFunction* f = module_.find_function(func);
      if (f && estimated_work(module_, *f) > kMaxTestWork)
        throw std::runtime_error(func + " is too big for a test; give its file small sizes in kSmallSizes");
      auto start = std::chrono::steady_clock::now();
      auto values = evaluate(module_, func, {});
      double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::printf("  evaluated %s in %.3f s\n", func.c_str(), seconds);
      EXPECT_LT(seconds, 2.0) << func << " takes too long for a test";
      it = cache_.emplace(func, std::move(values)).first;
    }
    if (index >= it->second.size()) throw std::runtime_error(ref + ": no such result");
    return it->second[index];
  }

 private:
  const check::CheckedModule& module_;
  std::map<std::string, std::vector<HostTensor>> cache_;
};

void expect_value(const HostTensor& got, const Expected& want, const std::string& where) {
  ASSERT_EQ(got.shape, want.shape) << where << ": got " << format_numpy(got);
  const double scale = reference_scale(want.values.data(), static_cast<std::int64_t>(want.values.size()));
  for (std::int64_t i = 0; i < got.size(); ++i) {
    double r = got.as_double(i), e = want.values[i];
    if (!got.is_float()) {
      EXPECT_EQ(r, e) << where << " element " << i << "; got " << format_numpy(got);
      continue;
    }
    EXPECT_TRUE(element_matches(got.dtype, r, e, scale, want.last_digit[i]))
        << where << " element " << i << ": " << r << " vs " << e << " (tolerance "
        << tolerance(got.dtype, e, scale) + want.last_digit[i] << "); got " << format_numpy(got);
  }
}

void expect_equal(const HostTensor& a, const HostTensor& r, const std::string& where) {
  Comparison c = compare_to_reference(a, r);
  EXPECT_TRUE(c.ok) << where << ": " << c.problem << "\n  got " << format_numpy(a) << "\n  reference " << format_numpy(r);
}

std::string example_path(const std::string& name) { return std::string(SHARDC_EXAMPLES_DIR) + "/" + name + ".shard"; }

// The examples that record expectations (the others have nothing for the evaluator to check).
std::vector<std::string> example_files() {
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(SHARDC_EXAMPLES_DIR)) {
    std::string name = entry.path().stem().string();
    if (entry.path().extension() == ".shard" && !read_expectations(testing::read_file(example_path(name))).empty())
      files.push_back(name);
  }
  std::sort(files.begin(), files.end());
  return files;
}

class Example : public ::testing::TestWithParam<std::string> {};

// expect-value lines run at the file's own sizes (the seeds' printouts; only the functions
// named are evaluated). expect-equal lines run at the small sizes of kSmallSizes when the file
// is listed there, else at its own sizes.
TEST_P(Example, ExpectationsHold) {
  const std::string& name = GetParam();
  std::string text = testing::read_file(example_path(name));
  const auto lines = read_expectations(text);
  ASSERT_FALSE(lines.empty());
  auto own = testing::check_source(text, example_path(name));
  ASSERT_TRUE(own.module) << own.errors;
  Defines small;
  if (auto it = kSmallSizes.find(name); it != kSmallSizes.end())
    for (const auto& [constant, value] : it->second) small.push_back(Define{constant, value, std::to_string(value)});
  auto shrunk = small.empty() ? testing::CheckedSource{} : testing::check_source(text, example_path(name), small);
  if (!small.empty()) {
    ASSERT_TRUE(shrunk.module) << shrunk.errors;
  }
  Runner at_own_sizes(*own.module);
  Runner for_equal(small.empty() ? *own.module : *shrunk.module);
  for (const expectations::Line& e : lines) {
    std::string where = name + ".shard:" + std::to_string(e.line);
    try {
      if (e.kind == "value") expect_value(at_own_sizes.result(e.lhs), ValueParser(e.rhs).parse(), where);
      else expect_equal(for_equal.result(e.lhs), for_equal.result(e.rhs), where);
    } catch (const std::exception& ex) {
      ADD_FAILURE() << where << ": " << ex.what();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, Example, ::testing::ValuesIn(example_files()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// Every function of every example (not only those with recorded expectations) evaluates on
// deterministic inputs without an error, at the sizes used above.
std::vector<std::string> all_example_files() {
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(SHARDC_EXAMPLES_DIR))
    if (entry.path().extension() == ".shard") files.push_back(entry.path().stem().string());
  std::sort(files.begin(), files.end());
  return files;
}

class EveryExample : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryExample, EveryFunctionEvaluates) {
  const std::string& name = GetParam();
  Defines small;
  if (auto it = kSmallSizes.find(name); it != kSmallSizes.end())
    for (const auto& [constant, value] : it->second) small.push_back(Define{constant, value, std::to_string(value)});
  auto src = testing::check_source(testing::read_file(example_path(name)), example_path(name), small);
  ASSERT_TRUE(src.module) << src.errors;
  for (const auto& f : src.module->functions) {
    try {
      if (estimated_work(*src.module, f) > kMaxTestWork) {
        ADD_FAILURE() << name << "." << f.name << " is too big for a test; give its file small sizes in kSmallSizes";
        continue;
      }
      auto start = std::chrono::steady_clock::now();
      auto out = evaluate(*src.module, f.name, deterministic_inputs(*src.module, f.name, 0));
      double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      EXPECT_EQ(out.size(), f.result_types.size()) << f.name;
      EXPECT_LT(seconds, 2.0) << f.name << " takes too long for a test";
    } catch (const std::exception& e) {
      ADD_FAILURE() << name << "." << f.name << ": " << e.what();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, EveryExample, ::testing::ValuesIn(all_example_files()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(ExpectedValueParser, ReadsNumpyPrintouts) {
  Expected e = ValueParser("[[3 0 1 2] [7 4 5 6]]").parse();
  EXPECT_EQ(e.shape, (Shape{2, 4}));
  EXPECT_EQ(e.values[4], 7);
  Expected f = ValueParser("[1. 2.682942 -0.5e-3]").parse();
  EXPECT_EQ(f.shape, (Shape{3}));
  EXPECT_DOUBLE_EQ(f.last_digit[0], 1.0);
  EXPECT_DOUBLE_EQ(f.last_digit[1], 1e-6);
  EXPECT_DOUBLE_EQ(f.last_digit[2], 1e-4);
  Expected s = ValueParser("4.0431547").parse();
  EXPECT_TRUE(s.shape.empty());
  EXPECT_THROW(ValueParser("[[1 2] [3]]").parse(), std::runtime_error);
}

}  // namespace
}  // namespace shardc::eval

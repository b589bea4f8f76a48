// The expectations written in an example (examples/README.md): `// expect-value: F.return.N V`
// and `// expect-equal: F.return.N G.return.M`, and the comparisons they call for.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "expectation_lines.h"
#include "shard/shard.h"

using expectations::ResultRef;

struct ValueExpectation {
  ResultRef result;
  std::string text;  // as numpy prints it
};

struct EqualExpectation {
  ResultRef a, b;
};

struct Expectations {
  std::vector<ValueExpectation> values;
  std::vector<EqualExpectation> equals;
};

// Reads the expect-value and expect-equal lines about results (not bindings) of `path`.
Expectations read_expectations(const std::string& path);

// The array's elements, row-major, as doubles.
std::vector<double> host_values(const shard::Array& a);

// The numbers of a numpy printout ("[[0 1] [2 3]]", "[224. 225.]"), and for each the size
// of one unit in its last printed digit.
struct PrintedNumbers {
  std::vector<double> values;
  std::vector<double> last_digit;
  bool floating = false;
};
PrintedNumbers parse_printed(const std::string& text);

// Empty when equal under the project's rule for `dtype` (evaluator/compare.h: integers exactly;
// f32 within 1e-4*|e| + 1e-5*max|e|, bf16 and f16 within their own bounds) plus `slack[i]` for
// floats; otherwise says where they differ.
std::string compare_values(const std::vector<double>& got, const std::vector<double>& want, shard::DType dtype,
                           const std::vector<double>& slack = {});

#include "evaluator/format_numpy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace shardc::eval {
namespace {

HostTensor ints(Shape shape, std::vector<std::int64_t> v) { return HostTensor::from_ints(DType::i32, std::move(shape), v); }
HostTensor floats(Shape shape, std::vector<double> v) { return HostTensor::from_floats(DType::f32, std::move(shape), v); }

TEST(FormatNumpy, IntegerArrays) {
  EXPECT_EQ(format_numpy(ints({2, 4}, {3, 0, 1, 2, 7, 4, 5, 6})), "[[3 0 1 2]\n [7 4 5 6]]");
  EXPECT_EQ(format_numpy(ints({3}, {6, -22, 118})), "[  6 -22 118]");
  EXPECT_EQ(format_numpy(ints({2, 1, 2}, {0, 1, 10, 11})), "[[[ 0  1]]\n\n [[10 11]]]");
  EXPECT_EQ(format_numpy(ints({}, {496})), "496");
  EXPECT_EQ(format_numpy(ints({0}, {})), "[]");
}

TEST(FormatNumpy, FloatArraysPadToACommonWidth) {
  EXPECT_EQ(format_numpy(floats({4}, {224, 225, 226, 227})), "[224. 225. 226. 227.]");
  EXPECT_EQ(format_numpy(floats({2, 2}, {509.5, 513.5, 1533.5, 1537.5})), "[[ 509.5  513.5]\n [1533.5 1537.5]]");
  EXPECT_EQ(format_numpy(floats({3}, {1.5, 2, -0.25})), "[ 1.5   2.   -0.25]");
  EXPECT_EQ(format_numpy(floats({2}, {0.1, 1.0 / 3})), "[0.1        0.33333334]");
}

TEST(FormatNumpy, ScientificWhenMagnitudesCallForIt) {
  EXPECT_EQ(format_numpy(floats({2}, {1e-5, 1.5e-5})), "[1.0e-05 1.5e-05]");
  EXPECT_EQ(format_numpy(floats({2}, {1, 5000})), "[1.e+00 5.e+03]");
  // A shorter element is printed to the common precision with its own further digits, not
  // zeros: numpy 1.24 printed np.exp(np.arange(-3, 5, dtype=np.float32) * 20) as
  // [8.7565109e-27 4.2483541e-18 2.0611537e-09 ...]; the third needs 7 digits, the first two 6.
  EXPECT_EQ(format_numpy(floats({3}, {8.756511e-27f, 4.2483541e-18f, 2.0611537e-09f})),
            "[8.7565109e-27 4.2483541e-18 2.0611537e-09]");
}

TEST(FormatNumpy, NonFiniteAndBool) {
  EXPECT_EQ(format_numpy(floats({3}, {1, std::nan(""), -std::numeric_limits<double>::infinity()})), "[  1.  nan -inf]");
  EXPECT_EQ(format_numpy(HostTensor::from_ints(DType::boolean, {2}, {1, 0})), "[ True False]");
  // numpy pads True in any array but a 0-d one, even where no False is shown.
  EXPECT_EQ(format_numpy(HostTensor::from_ints(DType::boolean, {2}, {1, 1})), "[ True  True]");
  EXPECT_EQ(format_numpy(HostTensor::from_ints(DType::boolean, {1, 2}, {1, 1})), "[[ True  True]]");
  EXPECT_EQ(format_numpy(HostTensor::from_ints(DType::boolean, {}, {1})), "True");
}

TEST(FormatNumpy, SixteenBitFloatsPrintTheirOwnShortestDigits) {
  // bf16(0.1) is 0.10009765625: ml_dtypes prints the fewest digits that round back to it.
  EXPECT_EQ(format_numpy(HostTensor::from_floats(DType::bf16, {2}, {0.1, 1})), "[0.1 1. ]");
  EXPECT_EQ(format_numpy(HostTensor::from_floats(DType::f16, {}, {0.1})), "0.1");
  EXPECT_EQ(format_numpy(HostTensor::from_floats(DType::f32, {}, {0.10009765625})), "0.100097656");  // scalar: repr
  EXPECT_EQ(format_numpy(HostTensor::from_floats(DType::f32, {1}, {0.10009765625})), "[0.10009766]");  // array: 8 digits
}

// Positional digits are the shortest that read back as the value, then zeros: numpy prints
// np.float32(123456789) (123456792) as 123456790. and 2**31 as 2147483600.
TEST(FormatNumpy, LargeIntegersPrintTheirShortestDigitsThenZeros) {
  EXPECT_EQ(format_numpy(floats({}, {2147483648.0})), "2147483600.0");
  EXPECT_EQ(format_numpy(floats({}, {123456789.0})), "123456790.0");
  EXPECT_EQ(format_numpy(floats({1}, {99999992.0})), "[99999990.]");
  EXPECT_EQ(format_numpy(floats({2}, {16777216.0, -16777218.0})), "[ 16777216. -16777218.]");
}

TEST(FormatNumpy, Scalars) {
  EXPECT_EQ(format_numpy(floats({}, {4.0431547})), "4.0431547");
  EXPECT_EQ(format_numpy(floats({}, {2})), "2.0");
  EXPECT_EQ(format_numpy(floats({}, {1e-5})), "1e-05");
}

TEST(FormatNumpy, LongRowsWrapAt75Columns) {
  std::vector<std::int64_t> v;
  for (int i = 0; i < 40; ++i) v.push_back(i);
  std::string s = format_numpy(ints({40}, v));
  EXPECT_EQ(s,
            "[ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20 21 22 23\n"
            " 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39]");
}

TEST(FormatNumpy, LargeArraysAreSummarised) {
  std::vector<std::int64_t> v(2000);
  for (int i = 0; i < 2000; ++i) v[i] = i;
  EXPECT_EQ(format_numpy(ints({2000}, v)), "[   0    1    2 ... 1997 1998 1999]");
}

}  // namespace
}  // namespace shardc::eval

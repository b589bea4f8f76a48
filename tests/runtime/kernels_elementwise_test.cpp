// Elementwise kernels against double-precision references: every unary op on the oneDNN path
// (large dense f32) and the loop path (small, strided, 16-bit), numpy broadcasting, integer
// wrap-around, Python-style floor division, comparisons and select.
#include <gtest/gtest.h>

#include <limits>

#include "kernels_test_util.h"
#include "shard/errors.h"
#include "shard/kernels/elementwise.h"

namespace sk = shard::kernels;
using kt::Array;
using shard::DType;
using shard::Shape;
using sk::BinaryOp;
using sk::UnaryOp;

namespace {

double reference_unary(UnaryOp op, double x) {
  switch (op) {
    case UnaryOp::neg: return -x;
    case UnaryOp::abs: return std::fabs(x);
    case UnaryOp::sign: return x > 0 ? 1 : x < 0 ? -1 : x;
    case UnaryOp::square: return x * x;
    case UnaryOp::sqrt: return std::sqrt(x);
    case UnaryOp::rsqrt: return 1 / std::sqrt(x);
    case UnaryOp::exp: return std::exp(x);
    case UnaryOp::log: return std::log(x);
    case UnaryOp::log1p: return std::log1p(x);
    case UnaryOp::expm1: return std::expm1(x);
    case UnaryOp::tanh: return std::tanh(x);
    case UnaryOp::sigmoid: return 1 / (1 + std::exp(-x));
    case UnaryOp::relu: return x > 0 ? x : 0;
    case UnaryOp::gelu: return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
    case UnaryOp::gelu_exact: return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
    case UnaryOp::sin: return std::sin(x);
    case UnaryOp::cos: return std::cos(x);
    case UnaryOp::tan: return std::tan(x);
    case UnaryOp::erf: return std::erf(x);
    case UnaryOp::floor: return std::floor(x);
    case UnaryOp::ceil: return std::ceil(x);
    case UnaryOp::round: return std::nearbyint(x);
    case UnaryOp::logical_not: return x == 0;
  }
  return 0;
}

const std::vector<UnaryOp> kFloatUnary = {
    UnaryOp::neg,  UnaryOp::abs,     UnaryOp::sign, UnaryOp::square, UnaryOp::sqrt,       UnaryOp::rsqrt,
    UnaryOp::exp,  UnaryOp::log,     UnaryOp::log1p, UnaryOp::expm1, UnaryOp::tanh,       UnaryOp::sigmoid,
    UnaryOp::relu, UnaryOp::gelu,    UnaryOp::gelu_exact, UnaryOp::sin, UnaryOp::cos,     UnaryOp::tan,
    UnaryOp::erf,  UnaryOp::floor,   UnaryOp::ceil, UnaryOp::round};

bool needs_positive(UnaryOp op) {
  return op == UnaryOp::sqrt || op == UnaryOp::rsqrt || op == UnaryOp::log || op == UnaryOp::log1p;
}

// Tolerance: a few ulp of the dtype relative to the value, plus an absolute floor for ops
// whose result can be near zero where the input is not (sin, tan, erf, gelu...).
double tolerance(DType t, double want) {
  const double ulp = t == DType::f32 ? 1.2e-7 : t == DType::bf16 ? 7.9e-3 : 9.8e-4;
  return 4 * ulp * (std::fabs(want) + 1e-3) + (t == DType::f32 ? 2e-7 : 0);
}

}  // namespace

TEST(KernelsElementwise, EveryFloatUnaryOpOnTheOneDnnAndLoopPaths) {
  std::mt19937 rng(10);
  sk::Context ctx;
  for (UnaryOp op : kFloatUnary) {
    for (DType dtype : {DType::f32, DType::bf16, DType::f16}) {
      // 5000 dense elements take oneDNN for f32; a strided [7, 9] view always loops.
      for (bool strided : {false, true}) {
        Array x(dtype, strided ? Shape{9, 7} : Shape{5000});
        kt::randomize(x, rng, needs_positive(op) ? 0.05 : -3.0, 3.0);
        const sk::View in = strided ? x.view().permuted({1, 0}) : x.view();
        Array y(dtype, in.shape);
        sk::unary(ctx, op, in, y.mut());
        for (std::int64_t i = 0; i < y.size(); ++i) {
          const Shape idx = kt::unravel(i, in.shape);
          const double xv = strided ? x.get(idx[1] * 7 + idx[0]) : x.get(i);
          const double want = kt::round_to(dtype, reference_unary(op, xv));
          ASSERT_NEAR(y.get(i), want, tolerance(dtype, want))
              << sk::op_name(op) << " dtype " << shard::dtype_name(dtype) << " x=" << xv;
        }
      }
    }
  }
}

TEST(KernelsElementwise, IntegerUnaryOpsWrap) {
  sk::Context ctx;
  Array x(DType::i32, {4}), y(DType::i32, {4});
  const std::int64_t in[] = {INT32_MIN, -5, 0, 46341};
  for (int i = 0; i < 4; ++i) x.set_int(i, in[i]);
  sk::unary(ctx, UnaryOp::neg, x.view(), y.mut());
  EXPECT_EQ(y.get_int(0), INT32_MIN);
  EXPECT_EQ(y.get_int(1), 5);
  sk::unary(ctx, UnaryOp::abs, x.view(), y.mut());
  EXPECT_EQ(y.get_int(0), INT32_MIN);
  sk::unary(ctx, UnaryOp::square, x.view(), y.mut());
  EXPECT_EQ(y.get_int(3), static_cast<std::int32_t>(46341u * 46341u));  // 2147488281 wraps negative
  EXPECT_LT(y.get_int(3), 0);
  sk::unary(ctx, UnaryOp::sign, x.view(), y.mut());
  EXPECT_EQ(y.get_int(0), -1);
  EXPECT_EQ(y.get_int(2), 0);
  sk::unary(ctx, UnaryOp::relu, x.view(), y.mut());
  EXPECT_EQ(y.get_int(0), 0);
  EXPECT_EQ(y.get_int(3), 46341);
  sk::unary(ctx, UnaryOp::round, x.view(), y.mut());
  EXPECT_EQ(y.get_int(1), -5);
  EXPECT_THROW(sk::unary(ctx, UnaryOp::exp, x.view(), y.mut()), shard::ArgumentError);
  Array b(DType::boolean, {2}), nb(DType::boolean, {2});
  b.set(0, 1);
  sk::unary(ctx, UnaryOp::logical_not, b.view(), nb.mut());
  EXPECT_EQ(nb.get(0), 0);
  EXPECT_EQ(nb.get(1), 1);
  EXPECT_THROW(sk::unary(ctx, UnaryOp::neg, b.view(), nb.mut()), shard::ArgumentError);
}

TEST(KernelsElementwise, BinaryBroadcastingEveryDtype) {
  std::mt19937 rng(11);
  sk::Context ctx;
  const std::vector<std::pair<Shape, Shape>> cases = {
      {{4, 1, 3}, {5, 1}}, {{}, {2, 3}}, {{2, 3}, {}}, {{1}, {6}}, {{3, 1}, {1, 4}},
      {{0, 3}, {3}},       {{64, 128}, {128}}, {{64, 1}, {64, 128}}, {{2, 1, 1, 5}, {2, 3, 5}}};
  for (DType dtype : {DType::f32, DType::bf16, DType::f16, DType::i32, DType::i64}) {
    for (BinaryOp op : {BinaryOp::add, BinaryOp::sub, BinaryOp::mul, BinaryOp::div, BinaryOp::max, BinaryOp::min}) {
      for (const auto& [sa, sb] : cases) {
        Shape out = sa.size() >= sb.size() ? sa : sb;
        for (std::size_t i = 0; i < out.size(); ++i) {
          const std::size_t r = out.size();
          const std::int64_t da = i + sa.size() >= r ? sa[i + sa.size() - r] : 1;
          const std::int64_t db = i + sb.size() >= r ? sb[i + sb.size() - r] : 1;
          out[i] = da == 1 ? db : da;
        }
        Array a(dtype, sa), b(dtype, sb), c(dtype, out);
        kt::randomize(a, rng, -9, 9);
        kt::randomize(b, rng, 1, 9);  // positive divisors
        sk::binary(ctx, op, a.view(), b.view(), c.mut());
        for (std::int64_t i = 0; i < c.size(); ++i) {
          const Shape idx = kt::unravel(i, out);
          const double x = a.get(kt::broadcast_index(idx, sa)), y = b.get(kt::broadcast_index(idx, sb));
          double want = 0;
          switch (op) {
            case BinaryOp::add: want = x + y; break;
            case BinaryOp::sub: want = x - y; break;
            case BinaryOp::mul: want = x * y; break;
            case BinaryOp::div: want = shard::is_integer(dtype) ? std::trunc(x / y) : x / y; break;
            case BinaryOp::max: want = std::max(x, y); break;
            default: want = std::min(x, y); break;
          }
          want = kt::round_to(dtype, want);
          ASSERT_NEAR(c.get(i), want, shard::is_integer(dtype) ? 0 : tolerance(dtype, want))
              << sk::op_name(op) << " " << shard::dtype_name(dtype) << " " << sk::shape_string(sa) << " "
              << sk::shape_string(sb);
        }
      }
    }
  }
}

TEST(KernelsElementwise, IntegerArithmeticWrapsModulo2ToTheBits) {
  sk::Context ctx;
  Array a(DType::i32, {3}), b(DType::i32, {3}), c(DType::i32, {3});
  a.set_int(0, INT32_MAX);
  b.set_int(0, 1);
  a.set_int(1, INT32_MIN);
  b.set_int(1, 1);
  a.set_int(2, 65536);
  b.set_int(2, 65536);
  sk::binary(ctx, BinaryOp::add, a.view(), b.view(), c.mut());
  EXPECT_EQ(c.get_int(0), INT32_MIN);
  sk::binary(ctx, BinaryOp::sub, a.view(), b.view(), c.mut());
  EXPECT_EQ(c.get_int(1), INT32_MAX);
  sk::binary(ctx, BinaryOp::mul, a.view(), b.view(), c.mut());
  EXPECT_EQ(c.get_int(2), 0);
  Array x(DType::i64, {1}), y(DType::i64, {1}), z(DType::i64, {1});
  x.set_int(0, INT64_MAX);
  y.set_int(0, 2);
  sk::binary(ctx, BinaryOp::mul, x.view(), y.view(), z.mut());
  EXPECT_EQ(z.get_int(0), -2);
}

TEST(KernelsElementwise, FloorDivisionAndModuloFloorLikePython) {
  sk::Context ctx;
  // (a, b, a // b, a % b), Python's values; by zero and MIN / -1 as jnp gives them on XLA
  // (x // 0 = -1 - (x != 0); x % 0 = 0 since jnp.remainder replaces a zero divisor by 1).
  const std::int64_t cases[][4] = {{7, 2, 3, 1},   {-7, 2, -4, 1},  {7, -2, -4, -1}, {-7, -2, 3, -1},
                                   {6, 3, 2, 0},   {-6, 3, -2, 0},  {0, 5, 0, 0},    {5, 0, -2, 0},
                                   {-5, 0, -2, 0}, {0, 0, -1, 0}, {INT32_MIN, -1, INT32_MIN, 0}};
  const int n = sizeof(cases) / sizeof(cases[0]);
  Array a(DType::i32, {n}), b(DType::i32, {n}), q(DType::i32, {n}), r(DType::i32, {n});
  for (int i = 0; i < n; ++i) {
    a.set_int(i, cases[i][0]);
    b.set_int(i, cases[i][1]);
  }
  sk::binary(ctx, BinaryOp::floor_div, a.view(), b.view(), q.mut());
  sk::binary(ctx, BinaryOp::mod, a.view(), b.view(), r.mut());
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(q.get_int(i), cases[i][2]) << cases[i][0] << " // " << cases[i][1];
    EXPECT_EQ(r.get_int(i), cases[i][3]) << cases[i][0] << " % " << cases[i][1];
  }
  // Floats: Python's 7.5 // -2 = -4.0, -7.5 % 2 = 0.5, 7.5 % -2 = -0.5, -7.5 // 2 = -4.0.
  const double fcases[][4] = {{7.5, -2, -4, -0.5}, {-7.5, 2, -4, 0.5}, {7.5, 2, 3, 1.5}, {-7.5, -2, 3, -1.5}};
  Array fa(DType::f32, {4}), fb(DType::f32, {4}), fq(DType::f32, {4}), fr(DType::f32, {4});
  for (int i = 0; i < 4; ++i) {
    fa.set(i, fcases[i][0]);
    fb.set(i, fcases[i][1]);
  }
  sk::binary(ctx, BinaryOp::floor_div, fa.view(), fb.view(), fq.mut());
  sk::binary(ctx, BinaryOp::mod, fa.view(), fb.view(), fr.mut());
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(fq.get(i), fcases[i][2]) << fcases[i][0] << " // " << fcases[i][1];
    EXPECT_EQ(fr.get(i), fcases[i][3]) << fcases[i][0] << " % " << fcases[i][1];
  }
  // Zero divisors: x // 0.0 is +-inf, 0.0 // 0.0 and x % 0.0 are NaN.
  fa.set(0, 3);
  fa.set(1, -3);
  fa.set(2, 0);
  fa.set(3, 3);
  for (int i = 0; i < 4; ++i) fb.set(i, 0);
  sk::binary(ctx, BinaryOp::floor_div, fa.view(), fb.view(), fq.mut());
  sk::binary(ctx, BinaryOp::mod, fa.view(), fb.view(), fr.mut());
  EXPECT_EQ(fq.get(0), INFINITY);
  EXPECT_EQ(fq.get(1), -INFINITY);
  EXPECT_TRUE(std::isnan(fq.get(2)));
  EXPECT_TRUE(std::isnan(fr.get(3)));
}

TEST(KernelsElementwise, PowMaxMinAndLogicalOps) {
  sk::Context ctx;
  // JAX's integer power looks at the exponent's low six bits only: 3 ** -1 is 3 ** 63 mod 2^32.
  std::uint32_t three_to_63 = 1;
  for (int i = 0; i < 63; ++i) three_to_63 *= 3u;
  const std::int64_t pcases[][3] = {{2, 10, 1024}, {3, -1, static_cast<std::int32_t>(three_to_63)}, {-1, -1, -1}, {1, -7, 1},
                                    {0, 0, 1},     {0, 3, 0},  {2, 31, INT32_MIN}, {-2, 3, -8}};
  Array a(DType::i32, {8}), b(DType::i32, {8}), c(DType::i32, {8});
  for (int i = 0; i < 8; ++i) {
    a.set_int(i, pcases[i][0]);
    b.set_int(i, pcases[i][1]);
  }
  sk::binary(ctx, BinaryOp::pow, a.view(), b.view(), c.mut());
  for (int i = 0; i < 8; ++i) EXPECT_EQ(c.get_int(i), pcases[i][2]) << pcases[i][0] << " ** " << pcases[i][1];
  // integer_pow (a static exponent) uses every bit: 3 ** 64 wraps to 2038349057 in int32, where
  // the six bits of pow give 3 ** 0 = 1.
  Array base(DType::i32, {2}), exponent(DType::i32, {2}), power(DType::i32, {2});
  base.set_int(0, 3);
  base.set_int(1, 2);
  exponent.set_int(0, 64);
  exponent.set_int(1, 64);
  sk::binary(ctx, BinaryOp::integer_pow, base.view(), exponent.view(), power.mut());
  EXPECT_EQ(power.get_int(0), 2038349057);
  EXPECT_EQ(power.get_int(1), 0);
  sk::binary(ctx, BinaryOp::pow, base.view(), exponent.view(), power.mut());
  EXPECT_EQ(power.get_int(0), 1);
  // NaN propagates through max and min, as lax.max/min do.
  Array x(DType::f32, {2}), y(DType::f32, {2}), z(DType::f32, {2});
  x.set(0, std::nan(""));
  y.set(0, 1);
  x.set(1, 1);
  y.set(1, std::nan(""));
  sk::binary(ctx, BinaryOp::max, x.view(), y.view(), z.mut());
  EXPECT_TRUE(std::isnan(z.get(0)) && std::isnan(z.get(1)));
  sk::binary(ctx, BinaryOp::min, x.view(), y.view(), z.mut());
  EXPECT_TRUE(std::isnan(z.get(0)) && std::isnan(z.get(1)));
  // +0 against -0: the first operand, as XLA's CPU max and min.
  x.set(0, 0.0);
  y.set(0, -0.0);
  x.set(1, -0.0);
  y.set(1, 0.0);
  for (BinaryOp op : {BinaryOp::max, BinaryOp::min}) {
    sk::binary(ctx, op, x.view(), y.view(), z.mut());
    EXPECT_FALSE(std::signbit(z.get(0))) << sk::op_name(op);
    EXPECT_TRUE(std::signbit(z.get(1))) << sk::op_name(op);
  }
  // bool: add is or, mul is and; sub is not defined.
  Array p(DType::boolean, {4}), q(DType::boolean, {4}), r(DType::boolean, {4});
  for (int i = 0; i < 4; ++i) {
    p.set(i, i & 1);
    q.set(i, i >> 1);
  }
  sk::binary(ctx, BinaryOp::add, p.view(), q.view(), r.mut());
  EXPECT_EQ(r.get(0) + 2 * r.get(1) + 4 * r.get(2) + 8 * r.get(3), 14);
  sk::binary(ctx, BinaryOp::logical_xor, p.view(), q.view(), r.mut());
  EXPECT_EQ(r.get(0) + 2 * r.get(1) + 4 * r.get(2) + 8 * r.get(3), 6);
  EXPECT_THROW(sk::binary(ctx, BinaryOp::sub, p.view(), q.view(), r.mut()), shard::ArgumentError);
  EXPECT_THROW(sk::binary(ctx, BinaryOp::logical_and, x.view(), y.view(), z.mut()), shard::ArgumentError);
}

TEST(KernelsElementwise, CompareAndSelectBroadcast) {
  sk::Context ctx;
  Array a(DType::f32, {2, 3}), b(DType::f32, {3}), m(DType::boolean, {2, 3});
  for (int i = 0; i < 6; ++i) a.set(i, i);
  b.set(0, 1);
  b.set(1, std::nan(""));
  b.set(2, 4);
  sk::compare(sk::CompareOp::lt, a.view(), b.view(), m.mut());
  const int want_lt[] = {1, 0, 1, 0, 0, 0};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(m.get(i), want_lt[i]) << i;
  sk::compare(sk::CompareOp::ne, a.view(), b.view(), m.mut());
  EXPECT_EQ(m.get(1), 1);  // NaN != anything
  Array cond(DType::boolean, {2, 1}), picked(DType::f32, {2, 3}), zero(DType::f32, {});
  cond.set(0, 1);
  sk::select(cond.view(), a.view(), zero.view(), picked.mut());
  for (int i = 0; i < 6; ++i) EXPECT_EQ(picked.get(i), i < 3 ? i : 0.0);
  // The condition may be the largest operand (jnp.where): [2,3] from a [2,3] mask and [3], [] values.
  Array mask(DType::boolean, {2, 3});
  for (int i = 0; i < 6; ++i) mask.set(i, i % 2);
  sk::select(mask.view(), b.view(), zero.view(), picked.mut());
  EXPECT_EQ(picked.get(0), 0.0);
  EXPECT_TRUE(std::isnan(picked.get(1)));  // b[1]
  EXPECT_EQ(picked.get(2), 0.0);
  EXPECT_EQ(picked.get(3), 1.0);  // b[0]
  EXPECT_EQ(picked.get(4), 0.0);
  EXPECT_EQ(picked.get(5), 4.0);  // b[2]
  Array too_big(DType::boolean, {3, 3});
  EXPECT_THROW(sk::select(too_big.view(), a.view(), zero.view(), picked.mut()), shard::ShapeError);
  Array wrong(DType::f32, {3, 3}), not_bool(DType::f32, {2, 3});
  EXPECT_THROW(sk::compare(sk::CompareOp::eq, a.view(), b.view(), not_bool.mut()), shard::ArgumentError);
  EXPECT_THROW(sk::compare(sk::CompareOp::eq, a.view(), b.view(), wrong.mut()), shard::ShapeError);
  EXPECT_THROW(sk::binary(ctx, BinaryOp::add, a.view(), b.view(), wrong.mut()), shard::ShapeError);
  Array c4(DType::f32, {4});
  EXPECT_THROW(sk::binary(ctx, BinaryOp::add, a.view(), c4.view(), a.mut()), shard::ShapeError);
}

TEST(KernelsElementwise, SixteenBitResultsRoundToNearestEven) {
  sk::Context ctx;
  // 1 + 2^-8 is halfway between bf16 neighbours 1 and 1 + 2^-7: ties go to the even one, 1.
  Array a(DType::bf16, {2}), b(DType::bf16, {2}), c(DType::bf16, {2});
  a.set(0, 1.0);
  b.set(0, std::ldexp(1.0, -8));
  a.set(1, 1.0 + std::ldexp(1.0, -7));
  b.set(1, std::ldexp(1.0, -8));
  sk::binary(ctx, BinaryOp::add, a.view(), b.view(), c.mut());
  EXPECT_EQ(c.get(0), 1.0);
  EXPECT_EQ(c.get(1), 1.0 + std::ldexp(1.0, -6));  // 1 + 3*2^-8 ties up to the even 1 + 2^-6
}

TEST(KernelsElementwise, SubnormalResultsAreKeptOnEveryPath) {
  // oneDNN's exp and logistic flush results below FLT_MIN to 0; JAX keeps them (exp(-100) is
  // 3.78e-44), so the kernels must, at sizes below and above the oneDNN threshold.
  sk::Context ctx;
  for (std::int64_t n : {8, 5000}) {
    Array x(DType::f32, {n}), y(DType::f32, {n});
    for (std::int64_t i = 0; i < n; ++i) x.set(i, i % 2 ? -100.0 : -88.0);
    sk::unary(ctx, UnaryOp::exp, x.view(), y.mut());
    EXPECT_EQ(static_cast<float>(y.get(0)), std::exp(-88.0f)) << "n=" << n;
    EXPECT_EQ(static_cast<float>(y.get(1)), std::exp(-100.0f)) << "n=" << n;
    EXPECT_GT(y.get(1), 0.0) << "n=" << n;
    // sigmoid is 1 / (1 + exp(-x)) in f32, as the evaluator computes it: subnormal at -88
    // (exp(88) is finite), 0 at -100 (exp(100) overflows).
    sk::unary(ctx, UnaryOp::sigmoid, x.view(), y.mut());
    EXPECT_EQ(static_cast<float>(y.get(0)), 1.0f / (1.0f + std::exp(88.0f))) << "n=" << n;
    EXPECT_GT(y.get(0), 0.0) << "n=" << n;
    EXPECT_LT(y.get(0), std::numeric_limits<float>::min()) << "n=" << n;
  }
}

// relu is jax.nn.relu's maximum(x, 0), and XLA's maximum keeps its first operand on equal
// values: relu(-0.0) is -0.0, and a negative x gives +0.0, on every path.
TEST(KernelsElementwise, ReluKeepsNegativeZeroAndGivesPositiveZero) {
  sk::Context ctx;
  for (std::int64_t n : {8, 5000}) {
    Array x(DType::f32, {n}), y(DType::f32, {n});
    for (std::int64_t i = 0; i < n; ++i) x.set(i, i % 3 == 0 ? -0.0 : i % 3 == 1 ? -3.0 : 2.0);
    sk::unary(ctx, UnaryOp::relu, x.view(), y.mut());
    for (std::int64_t i = 0; i < 3; ++i) {
      const double want = i == 0 ? -0.0 : i == 1 ? 0.0 : 2.0;
      EXPECT_EQ(y.get(i), want) << "n=" << n << " i=" << i;
      EXPECT_EQ(std::signbit(y.get(i)), std::signbit(want)) << "n=" << n << " i=" << i;
    }
  }
}

TEST(KernelsElementwise, NanStaysNanOnEveryPath) {
  // oneDNN's exp turns NaN into inf (and its relu NaN into 0); the kernels must not.
  sk::Context ctx;
  for (std::int64_t n : {8, 5000}) {
    for (UnaryOp op : kFloatUnary) {
      if (op == UnaryOp::floor || op == UnaryOp::ceil || op == UnaryOp::round || op == UnaryOp::sign) continue;
      Array x(DType::f32, {n}), y(DType::f32, {n});
      for (std::int64_t i = 0; i < n; ++i) x.set(i, 0.5);
      x.set(0, std::nan(""));
      sk::unary(ctx, op, x.view(), y.mut());
      EXPECT_TRUE(std::isnan(y.get(0))) << sk::op_name(op) << " n=" << n;
      sk::unary(ctx, op, x.view(), x.mut());  // in place
      EXPECT_TRUE(std::isnan(x.get(0))) << sk::op_name(op) << " in place, n=" << n;
    }
  }
}

// Reductions over every subset of axes, on both the oneDNN and loop paths, against naive sums;
// keepdims results, integer wrap, bool sums, empty reductions, arg-reductions and softmax.
#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "kernels_test_util.h"
#include "shard/errors.h"
#include "shard/kernels/reduce.h"

namespace sk = shard::kernels;
using kt::Array;
using shard::DType;
using shard::Shape;
using sk::ReduceOp;

namespace {

// Naive reduction: for every element of x, fold it into the output element it maps to.
std::vector<double> naive(ReduceOp op, const Array& x, const std::vector<bool>& reduced, std::int64_t out_size,
                          Shape* kept) {
  kept->clear();
  for (std::size_t d = 0; d < x.shape.size(); ++d)
    if (!reduced[d]) kept->push_back(x.shape[d]);
  double init = op == ReduceOp::prod ? 1 : op == ReduceOp::max ? -INFINITY : op == ReduceOp::min ? INFINITY : 0;
  std::vector<double> acc(static_cast<std::size_t>(out_size), init);
  std::int64_t count = 1;
  for (std::size_t d = 0; d < x.shape.size(); ++d)
    if (reduced[d]) count *= x.shape[d];
  for (std::int64_t i = 0; i < x.size(); ++i) {
    const Shape idx = kt::unravel(i, x.shape);
    std::int64_t o = 0;
    for (std::size_t d = 0; d < idx.size(); ++d)
      if (!reduced[d]) o = o * x.shape[d] + idx[d];
    double& a = acc[static_cast<std::size_t>(o)];
    const double v = x.get(i);
    switch (op) {
      case ReduceOp::sum:
      case ReduceOp::mean: a += v; break;
      case ReduceOp::prod: a *= v; break;
      case ReduceOp::max: a = std::max(a, v); break;
      case ReduceOp::min: a = std::min(a, v); break;
    }
  }
  if (op == ReduceOp::mean)
    for (auto& a : acc) a /= static_cast<double>(count);
  return acc;
}

}  // namespace

TEST(KernelsReduce, EverySubsetOfAxesEveryDtypeBothPaths) {
  std::mt19937 rng(20);
  sk::Context ctx;
  for (const Shape& shape : {Shape{3, 4, 5}, Shape{16, 32, 16}, Shape{2, 1, 7}}) {
    for (DType dtype : {DType::f32, DType::bf16, DType::f16, DType::i32, DType::i64}) {
      for (ReduceOp op : {ReduceOp::sum, ReduceOp::mean, ReduceOp::max, ReduceOp::min, ReduceOp::prod}) {
        for (int mask = 0; mask < 8; ++mask) {
          Array x(dtype, shape);
          kt::randomize(x, rng, op == ReduceOp::prod ? 0.5 : -5, op == ReduceOp::prod ? 1.5 : 5);
          std::vector<int> axes;
          std::vector<bool> reduced(3, false);
          for (int d = 0; d < 3; ++d)
            if (mask >> d & 1) {
              axes.push_back(d);
              reduced[static_cast<std::size_t>(d)] = true;
            }
          Shape kept;
          std::int64_t out_size = 1;
          for (int d = 0; d < 3; ++d)
            if (!reduced[static_cast<std::size_t>(d)]) out_size *= shape[static_cast<std::size_t>(d)];
          const auto want = naive(op, x, reduced, out_size, &kept);
          const DType out_dtype = (op == ReduceOp::mean && shard::is_integer(dtype)) ? DType::f32 : dtype;
          Array out(out_dtype, kept);
          sk::reduce(ctx, op, x.view(), axes, out.mut());
          for (std::int64_t i = 0; i < out.size(); ++i) {
            const double w = kt::round_to(out_dtype, want[static_cast<std::size_t>(i)]);
            const double tol = out_dtype == DType::f32 ? 1e-5 : out_dtype == DType::bf16 ? 1e-2 : out_dtype == DType::f16 ? 2e-3 : 0;
            ASSERT_NEAR(out.get(i), w, tol * (1 + std::fabs(w)))
                << sk::op_name(op) << " " << shard::dtype_name(dtype) << " " << sk::shape_string(shape) << " mask " << mask;
          }
        }
      }
    }
  }
}

// A dense block whose reduced axes are one run is summed whole rows at a time; a strided view
// of the same values takes the per-output walk. Both fold each output's elements in the same
// order, so the results are bitwise equal (f32 sums over axis 0 of a block past oneDNN's size
// used to take its reference code, 70x slower).
TEST(KernelsReduce, RowsAtATimeEqualThePerOutputWalkBitwise) {
  std::mt19937 rng(21);
  sk::Context ctx;
  Array x(DType::f32, {300, 70});
  kt::randomize(x, rng, -3, 3);
  Array xt(DType::f32, {70, 300});  // xt[j, i] = x[i, j]: read back through permuted strides
  for (std::int64_t i = 0; i < 300; ++i)
    for (std::int64_t j = 0; j < 70; ++j) xt.set(j * 300 + i, x.get(i * 70 + j));
  for (ReduceOp op : {ReduceOp::sum, ReduceOp::mean, ReduceOp::max, ReduceOp::prod}) {
    Array dense(DType::f32, {70}), walked(DType::f32, {70});
    sk::reduce(ctx, op, x.view(), {0}, dense.mut());
    sk::reduce(ctx, op, xt.view().permuted({1, 0}), {0}, walked.mut());
    for (std::int64_t j = 0; j < 70; ++j)
      ASSERT_EQ(dense.get(j), walked.get(j)) << sk::op_name(op) << " column " << j;
  }
}

TEST(KernelsReduce, KeepdimsStridedInputAndBadAxes) {
  sk::Context ctx;
  Array x(DType::f32, {4, 3});
  for (int i = 0; i < 12; ++i) x.set(i, i);
  Array out(DType::f32, {1, 3});  // keepdims
  sk::reduce(ctx, ReduceOp::sum, x.view(), {0}, out.mut());
  EXPECT_EQ(out.get(0), 0 + 3 + 6 + 9);
  EXPECT_EQ(out.get(2), 2 + 5 + 8 + 11);
  Array t(DType::f32, {4});  // sum over the rows of x^T, a strided view
  sk::reduce(ctx, ReduceOp::max, x.view().permuted({1, 0}), {0}, t.mut());
  EXPECT_EQ(t.get(3), 11);
  EXPECT_THROW(sk::reduce(ctx, ReduceOp::sum, x.view(), {0, 0}, out.mut()), shard::ShapeError);
  EXPECT_THROW(sk::reduce(ctx, ReduceOp::sum, x.view(), {2}, out.mut()), shard::ShapeError);
  Array wrong(DType::f32, {4});
  EXPECT_THROW(sk::reduce(ctx, ReduceOp::sum, x.view(), {0}, wrong.mut()), shard::ShapeError);
  Array neg(DType::f32, {4});
  sk::reduce(ctx, ReduceOp::sum, x.view(), {-1}, neg.mut());
  EXPECT_EQ(neg.get(1), 3 + 4 + 5);
}

TEST(KernelsReduce, IntegerSumsWrapAndBoolSumsCount) {
  sk::Context ctx;
  Array x(DType::i32, {3}), s(DType::i32, {});
  x.set_int(0, INT32_MAX);
  x.set_int(1, INT32_MAX);
  x.set_int(2, 3);
  sk::reduce(ctx, ReduceOp::sum, x.view(), {0}, s.mut());
  EXPECT_EQ(s.get_int(0), static_cast<std::int32_t>(2u * 2147483647u + 3u));
  Array b(DType::boolean, {5}), count(DType::i32, {}), any(DType::boolean, {}), all(DType::boolean, {});
  for (int i = 0; i < 5; ++i) b.set(i, i % 2);
  sk::reduce(ctx, ReduceOp::sum, b.view(), {0}, count.mut());
  EXPECT_EQ(count.get_int(0), 2);
  Array all_ones(DType::i32, {});
  sk::reduce(ctx, ReduceOp::prod, b.view(), {0}, all_ones.mut());
  EXPECT_EQ(all_ones.get_int(0), 0);  // prod of bool counts in i32: not all true
  Array bool_out(DType::boolean, {});
  EXPECT_THROW(sk::reduce(ctx, ReduceOp::sum, b.view(), {0}, bool_out.mut()), shard::ArgumentError);
  sk::reduce(ctx, ReduceOp::max, b.view(), {0}, any.mut());
  sk::reduce(ctx, ReduceOp::min, b.view(), {0}, all.mut());
  EXPECT_EQ(any.get(0), 1);
  EXPECT_EQ(all.get(0), 0);
  Array m(DType::f32, {});
  sk::reduce(ctx, ReduceOp::mean, x.view(), {0}, m.mut());  // integer mean gives a float
  EXPECT_NEAR(m.get(0), (2.0 * INT32_MAX + 3) / 3, 1e3);
  // Each integer is converted to f32 before the sum, as jnp.mean does: 16777217 counts as
  // 16777216, so the mean of [16777217, -16777216] is 0, not 0.5.
  Array near(DType::i32, {2});
  near.set_int(0, 16777217);
  near.set_int(1, -16777216);
  sk::reduce(ctx, ReduceOp::mean, near.view(), {0}, m.mut());
  EXPECT_EQ(m.get(0), 0.0);
}

// Sums over dimensions that are all of size 1 (one row per device of a data-parallel mean),
// large enough for the oneDNN path: oneDNN 2.6 refused the descriptor and the call failed.
TEST(KernelsReduce, SizeOneReducedDimsOfALargeBlock) {
  sk::Context ctx;
  for (const Shape& shape : {Shape{1, 4096}, Shape{4096, 1}, Shape{64, 1, 64}}) {
    Array x(DType::f32, shape);
    for (std::int64_t i = 0; i < x.size(); ++i) x.set(i, static_cast<double>(i % 97) - 48.0);
    const int axis = shape[0] == 1 ? 0 : 1;
    Shape kept = shape;
    kept.erase(kept.begin() + axis);
    Array sum(DType::f32, kept), mean(DType::f32, kept);
    sk::reduce(ctx, ReduceOp::sum, x.view(), {axis}, sum.mut());
    sk::reduce(ctx, ReduceOp::mean, x.view(), {axis}, mean.mut());
    for (std::int64_t i = 0; i < 4096; ++i) {
      ASSERT_EQ(sum.get(i), x.get(i)) << shard::shape_string(shape) << " element " << i;
      ASSERT_EQ(mean.get(i), x.get(i)) << shard::shape_string(shape) << " element " << i;
    }
  }
}

TEST(KernelsReduce, EmptyReductionsGiveIdentities) {
  sk::Context ctx;
  Array x(DType::f32, {0, 3});
  Array s(DType::f32, {3}), mx(DType::f32, {3}), mn(DType::f32, {3}), mean(DType::f32, {3});
  sk::reduce(ctx, ReduceOp::sum, x.view(), {0}, s.mut());
  sk::reduce(ctx, ReduceOp::max, x.view(), {0}, mx.mut());
  sk::reduce(ctx, ReduceOp::min, x.view(), {0}, mn.mut());
  sk::reduce(ctx, ReduceOp::mean, x.view(), {0}, mean.mut());
  EXPECT_EQ(s.get(0), 0);
  EXPECT_EQ(mx.get(1), -INFINITY);
  EXPECT_EQ(mn.get(2), INFINITY);
  EXPECT_TRUE(std::isnan(mean.get(0)));
  Array xi(DType::i64, {2, 0}), mi(DType::i64, {2});
  sk::reduce(ctx, ReduceOp::max, xi.view(), {1}, mi.mut());
  EXPECT_EQ(mi.get_int(0), INT64_MIN);
}

TEST(KernelsReduce, MaxPropagatesNan) {
  sk::Context ctx;
  Array x(DType::f32, {4}), m(DType::f32, {});
  x.set(0, 1);
  x.set(1, std::nan(""));
  x.set(2, 5);
  sk::reduce(ctx, ReduceOp::max, x.view(), {0}, m.mut());
  EXPECT_TRUE(std::isnan(m.get(0)));
}

TEST(KernelsReduce, ArgmaxArgminFirstIndexAndNan) {
  Array x(DType::f32, {2, 4}), i(DType::i32, {2});
  const double v[] = {1, 7, 7, -2, 3, std::nan(""), 9, std::nan("")};
  for (int k = 0; k < 8; ++k) x.set(k, v[k]);
  sk::argmax(x.view(), 1, i.mut());
  EXPECT_EQ(i.get_int(0), 1);  // first of the ties
  EXPECT_EQ(i.get_int(1), 1);  // the first NaN
  sk::argmin(x.view(), -1, i.mut());
  EXPECT_EQ(i.get_int(0), 3);
  EXPECT_EQ(i.get_int(1), 1);
  Array cols(DType::i64, {1, 4});  // keepdims over axis 0
  sk::argmax(x.view(), 0, cols.mut());
  EXPECT_EQ(cols.get_int(0), 1);
  EXPECT_EQ(cols.get_int(3), 1);
  Array f(DType::f32, {2});
  EXPECT_THROW(sk::argmax(x.view(), 1, f.mut()), shard::ArgumentError);
}

TEST(KernelsReduce, SoftmaxMatchesItsDefinitionOnBothPaths) {
  std::mt19937 rng(21);
  sk::Context ctx;
  for (const Shape& shape : {Shape{3, 5}, Shape{64, 128}}) {
    for (int axis : {0, 1}) {
      for (DType dtype : {DType::f32, DType::bf16}) {
        Array x(dtype, shape), y(dtype, shape);
        kt::randomize(x, rng, -10, 10);
        sk::softmax(ctx, x.view(), axis, y.mut());
        const std::int64_t rows = shape[1 - axis], n = shape[static_cast<std::size_t>(axis)];
        for (std::int64_t r = 0; r < rows; ++r) {
          auto at = [&](std::int64_t i) { return axis == 1 ? r * shape[1] + i : i * shape[1] + r; };
          double m = -INFINITY, sum = 0;
          for (std::int64_t i = 0; i < n; ++i) m = std::max(m, x.get(at(i)));
          for (std::int64_t i = 0; i < n; ++i) sum += std::exp(x.get(at(i)) - m);
          for (std::int64_t i = 0; i < n; ++i) {
            const double want = std::exp(x.get(at(i)) - m) / sum;
            ASSERT_NEAR(y.get(at(i)), want, (dtype == DType::f32 ? 1e-6 : 8e-3) * (want + 1e-6));
          }
        }
      }
    }
  }
  Array i(DType::i32, {3}), o(DType::i32, {3});
  EXPECT_THROW(sk::softmax(ctx, i.view(), 0, o.mut()), shard::ArgumentError);
}

// Softmax along a dimension with others after it walks every column of a dense block at once,
// row by row; a strided view of the same values takes the per-row walk. Both take each
// column's steps in the same order: the results are bitwise equal, a NaN's column included.
TEST(KernelsReduce, SoftmaxColumnsAtATimeEqualThePerRowWalkBitwise) {
  std::mt19937 rng(22);
  sk::Context ctx;
  for (DType dtype : {DType::f32, DType::bf16}) {
    Array x(dtype, {40, 30});
    kt::randomize(x, rng, -4, 4);
    x.set(5 * 30 + 7, std::nan(""));  // column 7 is NaN throughout the result
    Array xt(dtype, {30, 40});
    for (std::int64_t i = 0; i < 40; ++i)
      for (std::int64_t j = 0; j < 30; ++j) xt.set(j * 40 + i, x.get(i * 30 + j));
    Array dense(dtype, {40, 30}), walkedt(dtype, {30, 40});
    sk::softmax(ctx, x.view(), 0, dense.mut());
    sk::softmax(ctx, xt.view().permuted({1, 0}), 0, walkedt.mut().permuted({1, 0}));
    for (std::int64_t i = 0; i < 40; ++i)
      for (std::int64_t j = 0; j < 30; ++j) {
        const double a = dense.get(i * 30 + j), b = walkedt.get(j * 40 + i);
        if (j == 7) {
          ASSERT_TRUE(std::isnan(a) && std::isnan(b)) << i;
        } else {
          ASSERT_EQ(a, b) << shard::dtype_name(dtype) << " " << i << ", " << j;
        }
      }
  }
}

TEST(KernelsReduce, SoftmaxSpreadsNanAndInfinityOverTheRowLikeJax) {
  // jax.nn.softmax: a NaN row is all NaN; a row holding +inf is all NaN (inf - inf); a row of
  // -inf is all NaN. Large rows would go to oneDNN, which gets these wrong: they must not.
  sk::Context ctx;
  for (std::int64_t cols : {8, 128}) {
    Array x(DType::f32, {64, cols}), y(DType::f32, {64, cols});
    for (std::int64_t i = 0; i < x.size(); ++i) x.set(i, 0.5);
    x.set(0, std::nan(""));
    x.set(cols, INFINITY);
    for (std::int64_t i = 0; i < cols; ++i) x.set(2 * cols + i, -INFINITY);
    sk::softmax(ctx, x.view(), 1, y.mut());
    for (std::int64_t row = 0; row < 3; ++row)
      for (std::int64_t i = 0; i < cols; ++i) EXPECT_TRUE(std::isnan(y.get(row * cols + i))) << row << "," << i;
    EXPECT_NEAR(y.get(3 * cols), 1.0 / double(cols), 1e-7);
  }
}

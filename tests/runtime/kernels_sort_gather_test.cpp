// sort/argsort/top_k (order of NaN, ties, descending) and take/take_along_axis/scatter
// (negative indices, clip and fill modes, dropped out-of-range updates), against std:: results.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <numeric>

#include "kernels_test_util.h"
#include "shard/errors.h"
#include "shard/kernels/gather.h"
#include "shard/kernels/sort.h"

namespace sk = shard::kernels;
using kt::Array;
using shard::DType;
using shard::Shape;

TEST(KernelsSort, SortsEveryRowOfEveryAxis) {
  std::mt19937 rng(30);
  for (DType dtype : {DType::f32, DType::bf16, DType::i32, DType::i64}) {
    for (int axis : {0, 1, 2}) {
      Array x(dtype, {3, 5, 4}), y(dtype, {3, 5, 4});
      kt::randomize(x, rng, -4, 4);  // few distinct values in 16-bit and int dtypes: many ties
      sk::sort(x.view(), axis, y.mut());
      // Every row of y along the axis is the sorted row of x.
      for (std::int64_t flat = 0; flat < x.size(); ++flat) {
        Shape idx = kt::unravel(flat, x.shape);
        if (idx[static_cast<std::size_t>(axis)] != 0) continue;
        std::vector<double> row, got;
        for (std::int64_t i = 0; i < x.shape[static_cast<std::size_t>(axis)]; ++i) {
          idx[static_cast<std::size_t>(axis)] = i;
          const std::int64_t at = (idx[0] * 5 + idx[1]) * 4 + idx[2];
          row.push_back(x.get(at));
          got.push_back(y.get(at));
        }
        std::sort(row.begin(), row.end());
        ASSERT_EQ(got, row);
      }
    }
  }
}

TEST(KernelsSort, NanLastDescendingReversesAndArgsortIsStable) {
  Array x(DType::f32, {6}), y(DType::f32, {6}), i(DType::i32, {6});
  const double v[] = {2, std::nan(""), -1, 2, -INFINITY, 0};
  for (int k = 0; k < 6; ++k) x.set(k, v[k]);
  sk::sort(x.view(), 0, y.mut());
  EXPECT_EQ(y.get(0), -INFINITY);
  EXPECT_EQ(y.get(4), 2);
  EXPECT_TRUE(std::isnan(y.get(5)));
  sk::sort(x.view(), 0, y.mut(), /*descending=*/true);
  EXPECT_TRUE(std::isnan(y.get(0)));
  EXPECT_EQ(y.get(5), -INFINITY);
  sk::argsort(x.view(), 0, i.mut());
  const int asc[] = {4, 2, 5, 0, 3, 1};  // the two 2s keep their order
  for (int k = 0; k < 6; ++k) EXPECT_EQ(i.get_int(k), asc[k]) << k;
  sk::argsort(x.view(), 0, i.mut(), /*descending=*/true);
  const int desc[] = {1, 0, 3, 5, 2, 4};  // ties still in index order, as jnp.argsort
  for (int k = 0; k < 6; ++k) EXPECT_EQ(i.get_int(k), desc[k]) << k;
  Array f(DType::f32, {6});
  EXPECT_THROW(sk::argsort(x.view(), 0, f.mut()), shard::ArgumentError);
}

TEST(KernelsSort, TopKLargestFirstLowerIndexOnTies) {
  Array x(DType::f32, {2, 5}), v(DType::f32, {2, 3}), i(DType::i64, {2, 3});
  const double in[] = {1, 5, 3, 5, 2, 0, std::nan(""), -1, 7, 7};
  for (int k = 0; k < 10; ++k) x.set(k, in[k]);
  sk::top_k(x.view(), 3, v.mut(), i.mut());
  const double want_v[] = {5, 5, 3};
  const int want_i[] = {1, 3, 2, 1, 3, 4};
  for (int k = 0; k < 3; ++k) EXPECT_EQ(v.get(k), want_v[k]);
  EXPECT_TRUE(std::isnan(v.get(3)));
  EXPECT_EQ(v.get(4), 7);
  for (int k = 0; k < 6; ++k) EXPECT_EQ(i.get_int(k), want_i[k]) << k;
  Array v9(DType::f32, {2, 6}), i9(DType::i64, {2, 6});
  EXPECT_THROW(sk::top_k(x.view(), 6, v9.mut(), i9.mut()), shard::ShapeError);
  // XLA's TopK orders floats totally: +0 above -0 (JAX: top_k([-0., 0.], 2) has indices [1 0]).
  Array zeros(DType::bf16, {3}), zv(DType::bf16, {3}), zi(DType::i32, {3});
  zeros.set(0, -0.0);
  zeros.set(1, 0.0);
  zeros.set(2, -0.0);
  sk::top_k(zeros.view(), 3, zv.mut(), zi.mut());
  EXPECT_EQ(zi.get_int(0), 1);
  EXPECT_EQ(zi.get_int(1), 0);
  EXPECT_EQ(zi.get_int(2), 2);
  EXPECT_FALSE(std::signbit(zv.get(0)));
  EXPECT_TRUE(std::signbit(zv.get(1)));
  // In that order a NaN whose sign bit is set (x86's 0/0) is below -inf: it comes last.
  Array nans(DType::f32, {4}), nv(DType::f32, {4}), ni(DType::i32, {4});
  nans.set(0, -std::numeric_limits<double>::infinity());
  nans.set(1, std::copysign(std::nan(""), -1.0));
  nans.set(2, 1.0);
  nans.set(3, std::nan(""));
  sk::top_k(nans.view(), 4, nv.mut(), ni.mut());
  const int nan_order[] = {3, 2, 0, 1};
  for (int k = 0; k < 4; ++k) EXPECT_EQ(ni.get_int(k), nan_order[k]) << k;
  std::mt19937 rng(31);
  Array big(DType::i32, {4, 50}), bv(DType::i32, {4, 10}), bi(DType::i32, {4, 10});
  kt::randomize(big, rng, -100, 100);
  sk::top_k(big.view(), 10, bv.mut(), bi.mut());
  for (int r = 0; r < 4; ++r) {
    std::vector<std::int64_t> row;
    for (int c = 0; c < 50; ++c) row.push_back(big.get_int(r * 50 + c));
    std::vector<std::int64_t> order(50);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return row[a] > row[b]; });
    for (int j = 0; j < 10; ++j) {
      EXPECT_EQ(bi.get_int(r * 10 + j), order[j]);
      EXPECT_EQ(bv.get_int(r * 10 + j), row[order[j]]);
    }
  }
}

TEST(KernelsGather, TakeWithNegativeClipAndFill) {
  Array x(DType::f32, {3, 4}), idx(DType::i32, {2, 2});
  for (int k = 0; k < 12; ++k) x.set(k, k);
  const int in[] = {1, -1, 7, -5};  // 7 and -5 are out of range for a dim of 4
  for (int k = 0; k < 4; ++k) idx.set_int(k, in[k]);
  Array out(DType::f32, {3, 2, 2});
  sk::take(x.view(), idx.view(), 1, out.mut(), sk::IndexMode::clip);
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(out.get(r * 4 + 0), r * 4 + 1);
    EXPECT_EQ(out.get(r * 4 + 1), r * 4 + 3);  // -1 -> 3
    EXPECT_EQ(out.get(r * 4 + 2), r * 4 + 3);  // 7 clipped to 3
    EXPECT_EQ(out.get(r * 4 + 3), r * 4 + 0);  // -5 -> -1 clipped to 0
  }
  sk::take(x.view(), idx.view(), 1, out.mut(), sk::IndexMode::fill);
  EXPECT_EQ(out.get(1), 3);
  EXPECT_TRUE(std::isnan(out.get(2)));
  EXPECT_TRUE(std::isnan(out.get(3)));
  Array xi(DType::i32, {4}), oi(DType::i32, {2}), two(DType::i64, {2});
  two.set_int(0, 9);
  two.set_int(1, 0);
  sk::take(xi.view(), two.view(), 0, oi.mut());
  EXPECT_EQ(oi.get_int(0), INT32_MIN);  // jnp.take's fill for signed integers
  Array wrong(DType::f32, {3, 4});
  EXPECT_THROW(sk::take(x.view(), idx.view(), 1, wrong.mut()), shard::ShapeError);
  Array fidx(DType::f32, {2});
  EXPECT_THROW(sk::take(x.view(), fidx.view(), 0, oi.mut()), shard::ArgumentError);
}

TEST(KernelsGather, TakeAlongAxisBroadcasts) {
  Array x(DType::i64, {3, 4}), idx(DType::i32, {3, 1}), out(DType::i64, {3, 1});
  for (int k = 0; k < 12; ++k) x.set_int(k, 10 * k);
  idx.set_int(0, 3);
  idx.set_int(1, -4);
  idx.set_int(2, 1);
  sk::take_along_axis(x.view(), idx.view(), 1, out.mut());
  EXPECT_EQ(out.get_int(0), 30);
  EXPECT_EQ(out.get_int(1), 40);
  EXPECT_EQ(out.get_int(2), 90);
  // indices [1, 2] broadcast over x's rows along axis 0.
  Array rows(DType::i32, {1, 2}), picked(DType::i64, {1, 2}), bcast(DType::i64, {1, 4});
  rows.set_int(0, 2);
  rows.set_int(1, 0);
  EXPECT_THROW(sk::take_along_axis(x.view(), rows.view(), 0, bcast.mut()), shard::ShapeError);
  Array idx2(DType::i32, {1, 4}), out2(DType::i64, {1, 4});
  for (int k = 0; k < 4; ++k) idx2.set_int(k, 2 - k % 3);
  sk::take_along_axis(x.view(), idx2.view(), 0, out2.mut());
  for (int k = 0; k < 4; ++k) EXPECT_EQ(out2.get_int(k), 10 * ((2 - k % 3) * 4 + k));
}

TEST(KernelsGather, ScatterSetAddDropsOutOfRange) {
  sk::Context ctx;
  Array op(DType::i32, {5}), idx(DType::i32, {4}), upd(DType::i32, {4});
  const int ii[] = {1, 1, -1, 5};  // duplicate, negative, out of range
  for (int k = 0; k < 4; ++k) {
    idx.set_int(k, ii[k]);
    upd.set_int(k, 10 * (k + 1));
  }
  sk::scatter(ctx, op.mut(), idx.view(), upd.view(), 0, sk::ScatterOp::add);
  EXPECT_EQ(op.get_int(1), 30);
  EXPECT_EQ(op.get_int(4), 30);
  EXPECT_EQ(op.get_int(0) + op.get_int(2) + op.get_int(3), 0);
  sk::scatter(ctx, op.mut(), idx.view(), upd.view(), 0, sk::ScatterOp::set);
  EXPECT_EQ(op.get_int(1), 20);  // the last duplicate wins
  // Rows of a matrix: x.at[:, [2, 0]].max(updates).
  Array m(DType::f32, {2, 3}), cols(DType::i64, {2}), mu(DType::f32, {2, 2});
  cols.set_int(0, 2);
  cols.set_int(1, 0);
  for (int k = 0; k < 4; ++k) mu.set(k, k - 1.5);
  sk::scatter(ctx, m.mut(), cols.view(), mu.view(), 1, sk::ScatterOp::max);
  EXPECT_EQ(m.get(2), 0);    // max(0, -1.5)
  EXPECT_EQ(m.get(0), 0);    // max(0, -0.5)
  EXPECT_EQ(m.get(5), 0.5);  // max(0, 0.5)
  EXPECT_EQ(m.get(3), 1.5);
}

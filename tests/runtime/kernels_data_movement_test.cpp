// copy/convert, transpose, fill, iota, dynamic_slice and dynamic_window (JAX clamping),
// dynamic_update_slice, concat and roll against direct index arithmetic.
#include <gtest/gtest.h>

#include <limits>

#include "kernels_test_util.h"
#include "shard/errors.h"
#include "shard/kernels/data_movement.h"

namespace sk = shard::kernels;
using kt::Array;
using shard::DType;
using shard::Shape;

TEST(KernelsDataMovement, ConvertBetweenEveryPairOfDtypes) {
  const double values[] = {0.0, 1.0, -1.0, 2.5, -2.5, 3.75, 100.0, -7.0};
  for (DType from : kt::all_dtypes()) {
    for (DType to : kt::all_dtypes()) {
      Array src(from, {8}), dst(to, {8});
      for (int i = 0; i < 8; ++i) src.set(i, values[i]);
      sk::copy(src.view(), dst.mut());
      for (int i = 0; i < 8; ++i) {
        const double v = src.get(i);  // the source's own value (integers truncated, bool 0/1)
        double want;
        if (to == DType::boolean) want = v != 0;
        else if (shard::is_integer(to)) want = std::trunc(v);
        else want = kt::round_to(to, v);
        EXPECT_EQ(dst.get(i), want) << shard::dtype_name(from) << " -> " << shard::dtype_name(to) << " of " << v;
      }
    }
  }
}

TEST(KernelsDataMovement, FloatToIntSaturatesAndMapsNanToZero) {
  Array f(DType::f32, {5}), i(DType::i32, {5});
  const double in[] = {3e9, -3e9, std::nan(""), -0.9, 2147483520.0};
  for (int k = 0; k < 5; ++k) f.set(k, in[k]);
  sk::copy(f.view(), i.mut());
  EXPECT_EQ(i.get_int(0), INT32_MAX);
  EXPECT_EQ(i.get_int(1), INT32_MIN);
  EXPECT_EQ(i.get_int(2), 0);
  EXPECT_EQ(i.get_int(3), 0);
  EXPECT_EQ(i.get_int(4), 2147483520);
  Array l(DType::i64, {1}), n(DType::i32, {1});
  l.set_int(0, (std::int64_t{1} << 32) + 5);
  sk::copy(l.view(), n.mut());  // int -> narrower int wraps
  EXPECT_EQ(n.get_int(0), 5);
}

TEST(KernelsDataMovement, TransposeAndStridedCopy) {
  Array a(DType::i32, {2, 3, 4}), t(DType::i32, {4, 2, 3});
  for (int k = 0; k < 24; ++k) a.set_int(k, k);
  sk::transpose(a.view(), {2, 0, 1}, t.mut());
  for (int x = 0; x < 2; ++x)
    for (int y = 0; y < 3; ++y)
      for (int z = 0; z < 4; ++z) EXPECT_EQ(t.get_int((z * 2 + x) * 3 + y), (x * 3 + y) * 4 + z);
  // A stepped slice a[:, ::2, 1:3] copied out.
  Array s(DType::i32, {2, 2, 2});
  sk::copy(a.view().sliced(1, 0, 2, 2).sliced(2, 1, 2), s.mut());
  EXPECT_EQ(s.get_int(0), 1);
  EXPECT_EQ(s.get_int(3), 10);
  EXPECT_EQ(s.get_int(7), 22);
  EXPECT_THROW(sk::transpose(a.view(), {0, 0, 1}, t.mut()), shard::ShapeError);
  EXPECT_THROW(a.view().sliced(1, 2, 2), shard::ShapeError);
}

// Transposes big enough for the tiled copy (a plane of at least 32 x 32 whose source lines are
// apart along the last dimension), of every element size, sizes that are not multiples of the
// tile, every permutation of a 3-D array, and a 2-D iota along axis 0 (read from a stride-0
// view): element for element as the permutation says.
TEST(KernelsDataMovement, TiledTransposesOfEveryElementSize) {
  const Shape shape{37, 45, 33};
  const std::vector<std::vector<int>> perms{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  for (DType dtype : {DType::boolean, DType::bf16, DType::f32, DType::i64}) {
    Array x(dtype, shape);
    for (std::int64_t i = 0; i < x.size(); ++i) x.set(i, dtype == DType::boolean ? i % 3 == 0 : i % 251);
    for (const auto& perm : perms) {
      Shape out_shape;
      for (int a : perm) out_shape.push_back(shape[static_cast<std::size_t>(a)]);
      Array y(dtype, out_shape);
      sk::transpose(x.view(), perm, y.mut());
      for (std::int64_t i = 0; i < y.size(); ++i) {
        const Shape yi = kt::unravel(i, out_shape);
        Shape xi(3);
        for (std::size_t d = 0; d < 3; ++d) xi[static_cast<std::size_t>(perm[d])] = yi[d];
        ASSERT_EQ(y.get(i), x.get((xi[0] * shape[1] + xi[1]) * shape[2] + xi[2]))
            << shard::dtype_name(dtype) << " perm " << perm[0] << perm[1] << perm[2] << " element " << i;
      }
    }
  }
  Array rows(DType::i32, {40, 50});
  sk::iota(rows.mut(), 0);
  for (std::int64_t i = 0; i < rows.size(); ++i) ASSERT_EQ(rows.get(i), static_cast<double>(i / 50));
}

TEST(KernelsDataMovement, FillAndIota) {
  Array a(DType::bf16, {3, 2});
  sk::fill(a.mut(), 0.1);
  EXPECT_EQ(a.get(5), kt::round_to(DType::bf16, 0.1));
  Array r(DType::i32, {2, 3});
  sk::iota(r.mut(), 1);
  for (int k = 0; k < 6; ++k) EXPECT_EQ(r.get_int(k), k % 3);
  sk::iota(r.mut(), -2);
  for (int k = 0; k < 6; ++k) EXPECT_EQ(r.get_int(k), k / 3);
  Array big(DType::i64, {1});
  sk::fill_int(big.mut(), INT64_MIN);
  EXPECT_EQ(big.get_int(0), INT64_MIN);
  EXPECT_THROW(sk::iota(r.mut(), 2), shard::ShapeError);
}

TEST(KernelsDataMovement, DynamicSliceClampsStartsLikeJax) {
  Array a(DType::f32, {5, 4});
  for (int k = 0; k < 20; ++k) a.set(k, k);
  Array s(DType::f32, {2, 3});
  // A negative start counts from the end, then starts clamp into [0, dim - size]:
  // (4, -3) -> (3, 1); (1, 1) is in range; (100, 100) -> (3, 1); (-1, -10) -> (4, -6) -> (3, 0).
  const std::vector<std::pair<std::vector<std::int64_t>, std::pair<int, int>>> cases = {
      {{4, -3}, {3, 1}}, {{1, 1}, {1, 1}}, {{100, 100}, {3, 1}}, {{-1, -10}, {3, 0}}};
  for (const auto& [starts, at] : cases) {
    sk::dynamic_slice(a.view(), starts, s.mut());
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) EXPECT_EQ(s.get(i * 3 + j), (at.first + i) * 4 + at.second + j);
  }
  Array too_big(DType::f32, {6, 1});
  EXPECT_THROW(sk::dynamic_slice(a.view(), {0, 0}, too_big.mut()), shard::ShapeError);
  EXPECT_THROW(sk::dynamic_slice(a.view(), {0}, s.mut()), shard::ShapeError);
}

TEST(KernelsDataMovement, DynamicWindowIsTheClampedSliceInPlace) {
  Array a(DType::f32, {5, 4});
  for (int k = 0; k < 20; ++k) a.set(k, k);
  const sk::View w = sk::dynamic_window(a.view(), {4, -3}, {2, 3});  // (3, 1), as dynamic_slice
  EXPECT_EQ(w.shape, (Shape{2, 3}));
  EXPECT_EQ(w.strides, (Shape{4, 1}));
  EXPECT_EQ(w.data, static_cast<const float*>(a.view().data) + 3 * 4 + 1);
  EXPECT_THROW(sk::dynamic_window(a.view(), {0, 0}, {6, 1}), shard::ShapeError);
  EXPECT_THROW(sk::dynamic_window(a.view(), {0}, {2, 3}), shard::ShapeError);
}

TEST(KernelsDataMovement, DynamicUpdateSliceClampsAndWritesInPlace) {
  Array a(DType::i32, {4, 4}), u(DType::i32, {2, 2});
  for (int k = 0; k < 4; ++k) u.set_int(k, 100 + k);
  sk::dynamic_update_slice(a.mut(), u.view(), {3, -1});  // (3, 3) from the end, clamped to (2, 2)
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      const bool inside = i >= 2 && j >= 2;
      EXPECT_EQ(a.get_int(i * 4 + j), inside ? 100 + (i - 2) * 2 + (j - 2) : 0);
    }
}

TEST(KernelsDataMovement, ConcatAndRoll) {
  Array a(DType::f16, {2, 1}), b(DType::f16, {2, 3}), c(DType::f16, {2, 4});
  for (int k = 0; k < 2; ++k) a.set(k, -1 - k);
  for (int k = 0; k < 6; ++k) b.set(k, k);
  sk::concat({a.view(), b.view()}, -1, c.mut());
  const double want[] = {-1, 0, 1, 2, -2, 3, 4, 5};
  for (int k = 0; k < 8; ++k) EXPECT_EQ(c.get(k), want[k]);
  Array wrong(DType::f16, {2, 5});
  EXPECT_THROW(sk::concat({a.view(), b.view()}, 1, wrong.mut()), shard::ShapeError);
  // jnp.roll(arange(5), 2) = [3 4 0 1 2]; roll by -7 = roll by 3 = [2 3 4 0 1].
  Array x(DType::i64, {5}), y(DType::i64, {5});
  for (int k = 0; k < 5; ++k) x.set_int(k, k);
  sk::roll(x.view(), 2, 0, y.mut());
  const int r2[] = {3, 4, 0, 1, 2};
  for (int k = 0; k < 5; ++k) EXPECT_EQ(y.get_int(k), r2[k]);
  sk::roll(x.view(), -7, 0, y.mut());
  const int r3[] = {2, 3, 4, 0, 1};
  for (int k = 0; k < 5; ++k) EXPECT_EQ(y.get_int(k), r3[k]);
  Array e(DType::i64, {0}), e2(DType::i64, {0});
  EXPECT_NO_THROW(sk::roll(e.view(), 3, 0, e2.mut()));
}

TEST(KernelsDataMovement, OverlappingResultsAreRejectedDisjointBlocksAreNot) {
  Array x(DType::f32, {4, 4});
  for (int k = 0; k < 16; ++k) x.set(k, k);
  // Two column blocks of one array interleave in memory but share no element: fine.
  sk::copy(x.view().sliced(1, 0, 2), x.mut().sliced(1, 2, 2));
  EXPECT_EQ(x.get(2), 0);
  EXPECT_EQ(x.get(15), 13);
  // Shifted by one column: they share elements.
  EXPECT_THROW(sk::copy(x.view().sliced(1, 0, 2), x.mut().sliced(1, 1, 2)), shard::ArgumentError);
  // An in-place transpose.
  EXPECT_THROW(sk::transpose(x.view(), {1, 0}, x.mut()), shard::ArgumentError);
  // The very same view is a no-op copy, and allowed.
  EXPECT_NO_THROW(sk::copy(x.view(), x.mut()));
}

// Views: strides of contiguous shapes, permute/slice/expand/reshape/broadcast re-views and the
// errors they give.
#include <gtest/gtest.h>

#include "shard/errors.h"
#include "shard/kernels/view.h"

namespace sk = shard::kernels;
using shard::DType;
using shard::Shape;

TEST(KernelsView, ContiguousStridesAndRowMajorTest) {
  float data[24] = {};
  const sk::View v = sk::View::contiguous(data, DType::f32, {2, 3, 4});
  EXPECT_EQ(v.strides, (Shape{12, 4, 1}));
  EXPECT_TRUE(v.is_row_major());
  EXPECT_FALSE(v.permuted({1, 0, 2}).is_row_major());
  EXPECT_TRUE(v.sliced(0, 1, 1).is_row_major());   // one whole block of a row-major array
  EXPECT_FALSE(v.sliced(2, 0, 2).is_row_major());  // every row cut short
  EXPECT_TRUE(sk::View::contiguous(data, DType::f32, {}).is_row_major());
}

TEST(KernelsView, ReViews) {
  float data[24] = {};
  const sk::View v = sk::View::contiguous(data, DType::f32, {2, 3, 4});
  const sk::View t = v.permuted({2, 0, 1});
  EXPECT_EQ(t.shape, (Shape{4, 2, 3}));
  EXPECT_EQ(t.strides, (Shape{1, 12, 4}));
  const sk::View s = v.sliced(2, 1, 2, 2);  // columns 1 and 3
  EXPECT_EQ(s.shape, (Shape{2, 3, 2}));
  EXPECT_EQ(s.strides, (Shape{12, 4, 2}));
  EXPECT_EQ(static_cast<const float*>(s.data), data + 1);
  const sk::View e = v.expanded(1);
  EXPECT_EQ(e.shape, (Shape{2, 1, 3, 4}));
  EXPECT_EQ(v.expanded(3).shape, (Shape{2, 3, 4, 1}));
  const sk::View r = v.reshaped({6, 4});
  EXPECT_EQ(r.strides, (Shape{4, 1}));
  const sk::View b = v.sliced(0, 0, 1).broadcast_to({5, 2, 3, 4});
  EXPECT_EQ(b.strides, (Shape{0, 0, 4, 1}));
}

TEST(KernelsView, BadReViewsAreShapeErrors) {
  float data[24] = {};
  const sk::View v = sk::View::contiguous(data, DType::f32, {2, 3, 4});
  EXPECT_THROW(v.permuted({0, 1}), shard::ShapeError);
  EXPECT_THROW(v.permuted({0, 1, 1}), shard::ShapeError);
  EXPECT_THROW(v.sliced(3, 0, 1), shard::ShapeError);
  EXPECT_THROW(v.sliced(1, 2, 2), shard::ShapeError);
  EXPECT_THROW(v.sliced(1, 0, 2, 0), shard::ShapeError);
  EXPECT_THROW(v.expanded(4), shard::ShapeError);
  EXPECT_THROW(v.reshaped({5, 5}), shard::ShapeError);
  EXPECT_THROW(v.permuted({1, 0, 2}).reshaped({24}), shard::ShapeError);
  EXPECT_THROW(v.broadcast_to({2, 6, 4}), shard::ShapeError);
  EXPECT_THROW(v.broadcast_to({3, 4}), shard::ShapeError);
  EXPECT_THROW(sk::View::contiguous(data, DType::f32, {-1}), shard::ShapeError);
}

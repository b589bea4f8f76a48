// matmul against a naive reference: random shapes, strided (transposed) operands, batch
// broadcasting, accumulation, every dtype, 16-bit products of few rows in chunks, integer
// wrap-around, empty dims, primitive reuse and several device threads at once.
#include <gtest/gtest.h>

#include <omp.h>

#include <thread>

#include "kernels_test_util.h"
#include "shard/errors.h"
#include "shard/kernels/matmul.h"

namespace sk = shard::kernels;
using kt::Array;
using shard::DType;
using shard::Shape;

namespace {

// c[b..., i, j] = sum_k a[b..., i, k] b[b..., k, j] in long double / exact integers.
Array reference(const Array& a, const Array& b, const Shape& c_shape, DType dtype) {
  Array c(dtype, c_shape);
  const std::size_t r = c_shape.size();
  const std::int64_t k = a.shape.back();
  for (std::int64_t flat = 0; flat < c.size(); ++flat) {
    Shape idx = kt::unravel(flat, c_shape);
    Shape ai = idx, bi = idx;
    if (shard::is_integer(dtype)) {
      std::uint64_t acc = 0;
      for (std::int64_t p = 0; p < k; ++p) {
        ai[r - 1] = p;
        bi[r - 2] = p;
        acc += static_cast<std::uint64_t>(a.get_int(kt::broadcast_index(ai, a.shape))) *
               static_cast<std::uint64_t>(b.get_int(kt::broadcast_index(bi, b.shape)));
      }
      c.set_int(flat, dtype == DType::i32 ? static_cast<std::int32_t>(static_cast<std::uint32_t>(acc))
                                          : static_cast<std::int64_t>(acc));
    } else {
      double acc = 0;
      for (std::int64_t p = 0; p < k; ++p) {
        ai[r - 1] = p;
        bi[r - 2] = p;
        acc += a.get(kt::broadcast_index(ai, a.shape)) * b.get(kt::broadcast_index(bi, b.shape));
      }
      c.set(flat, acc);
    }
  }
  return c;
}

// The broadcast_index helper needs operands padded to the result's batch rank with 1s.
Shape padded(const Shape& s, std::size_t rank) {
  Shape p(rank - s.size(), 1);
  p.insert(p.end(), s.begin(), s.end());
  return p;
}

void expect_close(const Array& got, const Array& want, double k_terms) {
  ASSERT_EQ(got.shape, want.shape);
  for (std::int64_t i = 0; i < got.size(); ++i) {
    if (shard::is_integer(got.dtype)) {
      ASSERT_EQ(got.get_int(i), want.get_int(i)) << "at " << i;
    } else {
      const double eps = got.dtype == DType::f32 ? 1e-6 : got.dtype == DType::bf16 ? 8e-3 : 1e-3;
      ASSERT_NEAR(got.get(i), want.get(i), eps * (4 + k_terms) * (1 + std::fabs(want.get(i)))) << "at " << i;
    }
  }
}

}  // namespace

TEST(KernelsMatmul, RandomShapesEveryDtypeAgainstNaive) {
  std::mt19937 rng(1);
  sk::Context ctx;
  for (DType dtype : {DType::f32, DType::bf16, DType::f16, DType::i32, DType::i64}) {
    for (int trial = 0; trial < 12; ++trial) {
      std::uniform_int_distribution<int> dim(1, 9);
      const int batch_rank = trial % 3;
      Shape batch;
      for (int d = 0; d < batch_rank; ++d) batch.push_back(dim(rng) % 3 + 1);
      const std::int64_t m = dim(rng), k = dim(rng) * 3, n = dim(rng);
      Shape as = batch, bs = batch, cs = batch;
      as.insert(as.end(), {m, k});
      bs.insert(bs.end(), {k, n});
      cs.insert(cs.end(), {m, n});
      // Broadcast one operand's batch dims sometimes.
      if (batch_rank > 0 && trial % 2) as[0] = 1;
      Array a(dtype, as), b(dtype, bs), c(dtype, cs);
      kt::randomize(a, rng, -3, 3);
      kt::randomize(b, rng, -3, 3);
      sk::matmul(ctx, a.view(), b.view(), c.mut());
      Array ap = a, bp = b;
      ap.shape = padded(a.shape, cs.size());
      bp.shape = padded(b.shape, cs.size());
      expect_close(c, reference(ap, bp, cs, dtype), static_cast<double>(k));
    }
  }
}

TEST(KernelsMatmul, TransposedOperandsThroughStridesNeedNoCopy) {
  std::mt19937 rng(2);
  sk::Context ctx;
  // einsum "kb,nk->bn": a stored [K, M], b stored [N, K]; both read transposed.
  Array at(DType::f32, {40, 7}), bt(DType::f32, {5, 40}), c(DType::f32, {7, 5});
  kt::randomize(at, rng);
  kt::randomize(bt, rng);
  sk::matmul(ctx, at.view().permuted({1, 0}), bt.view().permuted({1, 0}), c.mut());
  Array a(DType::f32, {7, 40}), b(DType::f32, {40, 5});
  for (int i = 0; i < 7; ++i)
    for (int p = 0; p < 40; ++p) a.set(i * 40 + p, at.get(p * 7 + i));
  for (int p = 0; p < 40; ++p)
    for (int j = 0; j < 5; ++j) b.set(p * 5 + j, bt.get(j * 40 + p));
  expect_close(c, reference(a, b, {7, 5}, DType::f32), 40);
  // Batched, with the batch dim in the middle of the storage: "mbk,bkn->bmn".
  Array a3(DType::f32, {6, 3, 8}), b3(DType::f32, {3, 8, 4}), c3(DType::f32, {3, 6, 4});
  kt::randomize(a3, rng);
  kt::randomize(b3, rng);
  sk::matmul(ctx, a3.view().permuted({1, 0, 2}), b3.view(), c3.mut());
  Array a3c(DType::f32, {3, 6, 8});
  for (int bb = 0; bb < 3; ++bb)
    for (int i = 0; i < 6; ++i)
      for (int p = 0; p < 8; ++p) a3c.set((bb * 6 + i) * 8 + p, a3.get((i * 3 + bb) * 8 + p));
  expect_close(c3, reference(a3c, b3, {3, 6, 4}, DType::f32), 8);
}

TEST(KernelsMatmul, WritesIntoAStridedSliceOfALargerResult) {
  std::mt19937 rng(3);
  sk::Context ctx;
  Array a(DType::f32, {4, 6}), b(DType::f32, {6, 3}), big(DType::f32, {4, 9});
  kt::randomize(a, rng);
  kt::randomize(b, rng);
  for (int i = 0; i < 36; ++i) big.set(i, 100.0 + i);
  sk::matmul(ctx, a.view(), b.view(), big.mut().sliced(1, 3, 3));
  const Array want = reference(a, b, {4, 3}, DType::f32);
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 9; ++j) {
      if (j >= 3 && j < 6) {
        EXPECT_NEAR(big.get(i * 9 + j), want.get(i * 3 + j - 3), 1e-5);
      } else {
        EXPECT_EQ(big.get(i * 9 + j), 100.0 + i * 9 + j);  // untouched
      }
    }
  }
}

TEST(KernelsMatmul, CountsTwiceTheMultiplyAddsOfEveryDtypeAndBatch) {
  sk::Context ctx;
  EXPECT_EQ(ctx.matmul_flops(), 0);
  Array a(DType::f32, {4, 6}), b(DType::f32, {6, 3}), c(DType::f32, {4, 3});
  sk::matmul(ctx, a.view(), b.view(), c.mut());
  EXPECT_EQ(ctx.matmul_flops(), 2 * 4 * 3 * 6);
  Array ai(DType::i32, {2, 5, 7}), bi(DType::i32, {2, 7, 3}), ci(DType::i32, {2, 5, 3});
  sk::matmul(ctx, ai.view(), bi.view(), ci.mut());
  EXPECT_EQ(ctx.matmul_flops(), 2 * 4 * 3 * 6 + 2 * 2 * 5 * 3 * 7);
}

TEST(KernelsMatmul, AccumulateAddsToTheResult) {
  std::mt19937 rng(4);
  sk::Context ctx;
  for (DType dtype : {DType::f32, DType::bf16, DType::i32}) {
    Array a(dtype, {3, 5}), b(dtype, {5, 2}), c(dtype, {3, 2});
    kt::randomize(a, rng, -4, 4);
    kt::randomize(b, rng, -4, 4);
    kt::randomize(c, rng, -4, 4);
    Array want = reference(a, b, {3, 2}, dtype);
    for (int i = 0; i < 6; ++i) want.set(i, kt::round_to(dtype, want.get(i) + c.get(i)));
    sk::matmul(ctx, a.view(), b.view(), c.mut(), {.accumulate = true});
    expect_close(c, want, 5);
  }
}

TEST(KernelsMatmul, FewRowsOfBf16AndF16AreSummedOverChunksOfBOnOneThread) {
  // b has 70000 columns: chunks of 3 rows of widened b (1 MiB of f32), so K = 7 takes three
  // chunks, the last a partial one. Values in {-2..2}: every sum is exact in 16 bits, so each
  // result equals the reference exactly, whichever path and chunking computed it.
  for (DType dtype : {DType::bf16, DType::f16}) {
    for (bool accumulate : {false, true}) {
      std::mt19937 rng(5);
      std::uniform_int_distribution<int> value(-2, 2);
      Array a(dtype, {2, 7}), b(dtype, {7, 70000}), c(dtype, {2, 70000});
      for (Array* x : {&a, &b, &c})
        for (std::int64_t i = 0; i < x->size(); ++i) x->set(i, value(rng));
      Array want = reference(a, b, {2, 70000}, dtype);
      if (accumulate)
        for (std::int64_t i = 0; i < want.size(); ++i) want.set(i, want.get(i) + c.get(i));
      for (int team : {1, 2}) {  // a team runs the chunks on its calling thread, and keeps its size
        Array got = c;
        std::thread device([&] {
          omp_set_num_threads(team);
          sk::Context ctx;
          sk::matmul(ctx, a.view(), b.view(), got.mut(), {.accumulate = accumulate});
          EXPECT_EQ(omp_get_max_threads(), team);
        });
        device.join();
        for (std::int64_t i = 0; i < got.size(); ++i)
          ASSERT_EQ(got.get(i), want.get(i)) << shard::dtype_name(dtype) << " accumulate " << accumulate << " team "
                                             << team << " at " << i;
      }
    }
  }
}

TEST(KernelsMatmul, IntegerProductsWrapModulo2ToTheBits) {
  sk::Context ctx;
  Array a(DType::i32, {1, 2}), b(DType::i32, {2, 1}), c(DType::i32, {1, 1});
  a.set_int(0, 65536);
  a.set_int(1, 2147483647);
  b.set_int(0, 65536);  // 2^32 wraps to 0
  b.set_int(1, 2);      // (2^31 - 1) * 2 wraps to -2
  sk::matmul(ctx, a.view(), b.view(), c.mut());
  EXPECT_EQ(c.get_int(0), -2);
  Array a64(DType::i64, {1, 1}), b64(DType::i64, {1, 1}), c64(DType::i64, {1, 1});
  a64.set_int(0, INT64_MAX);
  b64.set_int(0, 3);
  sk::matmul(ctx, a64.view(), b64.view(), c64.mut());
  EXPECT_EQ(c64.get_int(0), INT64_MAX - 2);  // 3 * (2^63 - 1) mod 2^64, as int64
}

TEST(KernelsMatmul, EmptyDimsAndBadShapes) {
  sk::Context ctx;
  Array a(DType::f32, {3, 0}), b(DType::f32, {0, 2}), c(DType::f32, {3, 2});
  for (int i = 0; i < 6; ++i) c.set(i, 7);
  sk::matmul(ctx, a.view(), b.view(), c.mut());  // K = 0: a sum of nothing
  for (int i = 0; i < 6; ++i) EXPECT_EQ(c.get(i), 0.0);
  Array e(DType::f32, {0, 4}), f(DType::f32, {4, 2}), g(DType::f32, {0, 2});
  EXPECT_NO_THROW(sk::matmul(ctx, e.view(), f.view(), g.mut()));
  Array x(DType::f32, {3, 4}), y(DType::f32, {5, 2}), z(DType::f32, {3, 2});
  EXPECT_THROW(sk::matmul(ctx, x.view(), y.view(), z.mut()), shard::ShapeError);
  Array yi(DType::i32, {4, 2});
  EXPECT_THROW(sk::matmul(ctx, x.view(), yi.view(), z.mut()), shard::ArgumentError);
  Array bb(DType::boolean, {2, 2});
  EXPECT_THROW(sk::matmul(ctx, bb.view(), bb.view(), bb.mut()), shard::ArgumentError);
  Array v(DType::f32, {4});
  EXPECT_THROW(sk::matmul(ctx, x.view(), v.view(), z.mut()), shard::ShapeError);
}

TEST(KernelsMatmul, PrimitivesAreCreatedOncePerShapeAndReused) {
  sk::Context ctx;
  Array a(DType::f32, {17, 33}), b(DType::f32, {33, 19}), c(DType::f32, {17, 19});
  sk::matmul(ctx, a.view(), b.view(), c.mut());
  const auto before = sk::primitive_cache_stats();
  for (int i = 0; i < 5; ++i) sk::matmul(ctx, a.view(), b.view(), c.mut());
  const auto after = sk::primitive_cache_stats();
  EXPECT_EQ(after.entries, before.entries);
  EXPECT_EQ(after.misses, before.misses);
  EXPECT_EQ(after.hits, before.hits + 5);
}

TEST(KernelsMatmul, DeviceThreadsShareTheCacheSafely) {
  // Four threads, each with its own Context, multiply different data of one shape at once.
  std::vector<Array> as, bs, cs;
  std::mt19937 rng(5);
  for (int t = 0; t < 4; ++t) {
    as.emplace_back(DType::f32, Shape{24, 32});
    bs.emplace_back(DType::f32, Shape{32, 16});
    cs.emplace_back(DType::f32, Shape{24, 16});
    kt::randomize(as.back(), rng);
    kt::randomize(bs.back(), rng);
  }
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      sk::Context ctx;
      for (int rep = 0; rep < 20; ++rep) sk::matmul(ctx, as[t].view(), bs[t].view(), cs[t].mut());
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) expect_close(cs[t], reference(as[t], bs[t], {24, 16}, DType::f32), 32);
}

TEST(KernelsMatmul, BroadcastOrNegativeStridedViewsAreClearErrors) {
  sk::Context ctx;
  Array a(DType::f32, {2, 3}), b(DType::f32, {3, 4}), c(DType::f32, {1, 4});
  // A result that is a broadcast of one row: every row would land on the same memory.
  const sk::MutView broadcast_out{c.bytes.data(), DType::f32, {2, 4}, {0, 1}};
  EXPECT_THROW(sk::matmul(ctx, a.view(), b.view(), broadcast_out), shard::ArgumentError);
  // Negative strides are not something oneDNN takes: an ArgumentError, not a oneDNN exception.
  Array big(DType::f32, {3, 4});
  const sk::View reversed{big.bytes.data() + 8 * 4, DType::f32, {3, 4}, {-4, 1}};
  Array out(DType::f32, {2, 4});
  EXPECT_THROW(sk::matmul(ctx, a.view(), reversed, out.mut()), shard::ArgumentError);
}

TEST(KernelsMatmul, APrimitiveIsMadePerOpenMpTeamSize) {
  // oneDNN fixes a primitive's thread count at creation: a device thread given one OpenMP
  // thread must get its own primitive, not one made for a larger team.
  // A shape of its own at every run, so that neither primitive is cached yet when the test is
  // repeated in one process (--gtest_repeat).
  static int run = 0;
  const std::int64_t k = 29 + run++;
  Array a(DType::f32, {13, k}), b(DType::f32, {k, 11}), c(DType::f32, {13, 11});
  const int team = omp_get_max_threads();
  {
    sk::Context ctx;
    sk::matmul(ctx, a.view(), b.view(), c.mut());
  }
  const auto before = sk::primitive_cache_stats();
  std::thread other([&] {
    omp_set_num_threads(team + 1);
    sk::Context ctx;
    sk::matmul(ctx, a.view(), b.view(), c.mut());
  });
  other.join();
  EXPECT_EQ(sk::primitive_cache_stats().entries, before.entries + 1);
}

TEST(KernelsMatmul, AResultThatIsAnOperandIsRejected) {
  sk::Context ctx;
  Array a(DType::f32, {4, 4}), b(DType::f32, {4, 4});
  EXPECT_THROW(sk::matmul(ctx, a.view(), b.view(), a.mut()), shard::ArgumentError);
  EXPECT_THROW(sk::matmul(ctx, a.view(), b.view(), b.mut().permuted({1, 0})), shard::ArgumentError);
  // Two row blocks of one buffer: a = rows 0..1, result = rows 2..3.
  Array buf(DType::f32, {4, 4});
  EXPECT_NO_THROW(sk::matmul(ctx, buf.view().sliced(0, 0, 2), b.view(), buf.mut().sliced(0, 2, 2)));
}

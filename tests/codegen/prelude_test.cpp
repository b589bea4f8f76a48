// The prelude's helpers that generated code calls (templates/shardgen_prelude.h), where they
// do more than forward to a kernel: einsum's letter arrangement (operands read through
// permuted strides, or copied when their dims cannot be grouped) and the windows (slices read
// in place), against naive loops.
#include <gtest/gtest.h>

#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <string>

#include "shardgen_prelude.h"

namespace shardgen::prelude {
namespace {

using Sizes = std::map<char, std::int64_t>;

Tensor random_tensor(const std::string& letters, const Sizes& sizes, std::mt19937& rng) {
  Shape shape;
  for (char c : letters) shape.push_back(sizes.at(c));
  Tensor t(DType::f32, shape);
  std::uniform_int_distribution<int> value(-3, 3);
  for (std::int64_t i = 0; i < t.numel(); ++i) t.as<float>()[i] = static_cast<float>(value(rng));
  return t;
}

// The element of `t` (letters `letters`) at the letters' values in `at`.
float element(const Tensor& t, const std::string& letters, const Sizes& at) {
  std::int64_t flat = 0;
  for (std::size_t d = 0; d < letters.size(); ++d) flat = flat * t.dim(static_cast<int>(d)) + at.at(letters[d]);
  return t.as<float>()[flat];
}

// out[o...] = sum over the other letters of a[...] * b[...], by enumerating every letter value.
Tensor naive_einsum(const std::string& la, const std::string& lb, const std::string& lo, const Tensor& a,
                    const Tensor& b, const Sizes& sizes) {
  Shape shape;
  for (char c : lo) shape.push_back(sizes.at(c));
  Tensor out(DType::f32, shape);
  std::string letters;
  for (const auto& [c, n] : sizes) letters += c;
  Sizes at;
  for (char c : letters) at[c] = 0;
  while (true) {
    std::int64_t flat = 0;
    for (std::size_t d = 0; d < lo.size(); ++d) flat = flat * shape[d] + at[lo[d]];
    out.as<float>()[flat] += element(a, la, at) * element(b, lb, at);
    std::size_t d = letters.size();
    while (d > 0 && ++at[letters[d - 1]] == sizes.at(letters[d - 1])) at[letters[--d]] = 0;
    if (d == 0) return out;
  }
}

TEST(PreludeEinsum, PermutedOperandsMatchNaiveLoops) {
  // Specs whose operands need reordering: read through strides (q @ k^T, transposed lhs) or,
  // when a group's dims do not merge, copied first (bhqd: h and d split by q).
  const char* specs[] = {"ij,kj->ik", "ji,jk->ik", "ji,kj->ik", "bij,bkj->bik", "bji,bjk->bik",
                         "bqhd,bkhd->bhqk", "hqd,dk->qhk", "ijk,kj->i", "bij,jk->bik"};
  const Sizes sizes = {{'b', 2}, {'d', 4}, {'h', 3}, {'i', 5}, {'j', 6}, {'k', 7}, {'q', 3}};
  std::mt19937 rng(7);
  for (const std::string spec : specs) {
    const auto comma = spec.find(','), arrow = spec.find("->");
    const std::string la = spec.substr(0, comma), lb = spec.substr(comma + 1, arrow - comma - 1),
                      lo = spec.substr(arrow + 2);
    Sizes used;
    for (char c : la + lb) used[c] = sizes.at(c);
    const Tensor a = random_tensor(la, used, rng), b = random_tensor(lb, used, rng);
    const Tensor got = einsum(spec, a, b, DType::f32);
    const Tensor want = naive_einsum(la, lb, lo, a, b, used);
    ASSERT_EQ(got.shape(), want.shape()) << spec;
    for (std::int64_t i = 0; i < got.numel(); ++i)
      ASSERT_EQ(got.as<float>()[i], want.as<float>()[i]) << spec << " at " << i;  // small integers: exact
  }
}

TEST(PreludeWindows, SlicesIndexesAndReshapesAreViewsOfTheBlock) {
  Tensor x(DType::f32, {4, 6});
  for (std::int64_t i = 0; i < x.numel(); ++i) x.as<float>()[i] = static_cast<float>(i);
  const float* base = x.as<float>();
  const k::View rows = prelude::dynamic_window(in_view(x), {5, 0}, {2, 6});  // start clamped to 2
  EXPECT_EQ(rows.data, base + 12);
  const k::View cols = prelude::slice_window(in_view(x), {0, 1}, {4, 5}, {1, 2});
  EXPECT_EQ(cols.data, base + 1);
  EXPECT_EQ(cols.shape, (Shape{4, 2}));
  EXPECT_EQ(cols.strides, (Shape{6, 2}));
  const k::View chunks = prelude::reshape_window(in_view(x), {2, 2, 6});
  const k::View second = prelude::index_window(chunks, -1);  // the last chunk, as x[-1]
  EXPECT_EQ(second.data, base + 12);
  EXPECT_EQ(second.shape, (Shape{2, 6}));
  EXPECT_EQ(prelude::index_window(chunks, 7).data, base + 12);  // clamped
  Tensor w(DType::f32, {6, 3});
  for (std::int64_t i = 0; i < w.numel(); ++i) w.as<float>()[i] = static_cast<float>(i % 5);
  const Tensor product = prelude::matmul(second, in_view(w), DType::f32);
  const Tensor want = prelude::einsum("ij,jk->ik", prelude::dynamic_slice(x, {2, 0}, {2, 6}), w, DType::f32);
  EXPECT_TRUE(product.same_bytes(want));
  EXPECT_THROW(prelude::matmul(chunks, in_view(w), DType::f32), shard::ShapeError);
}

// x[::9223372036854775807] has one row (as the checker says): neither the row count nor the
// row stride may overflow on the way.
TEST(PreludeWindows, SliceWithAStepNearI64MaxHasOneRow) {
  Tensor x(DType::f32, {8, 6});
  const std::int64_t huge = std::numeric_limits<std::int64_t>::max();
  const k::View rows = prelude::slice_window(in_view(x), {0, 0}, {8, 6}, {huge, 1});
  EXPECT_EQ(rows.data, x.as<float>());
  EXPECT_EQ(rows.shape, (Shape{1, 6}));
  EXPECT_EQ(rows.strides, (Shape{6, 1}));
  EXPECT_EQ(prelude::slice_window(in_view(x), {3, 0}, {8, 6}, {huge - 1, 1}).shape, (Shape{1, 6}));
  EXPECT_EQ(prelude::slice_window(in_view(x), {8, 0}, {8, 6}, {huge, 1}).shape, (Shape{0, 6}));
}

// all_functions() hands results out through result_vector: each Array must arrive with its own
// blocks, not copies of them (a braced vector list copies; a 128 MiB result took 10-20 ms more).
TEST(PreludeResultVector, MovesEachResultsBlocks) {
  shard::Runtime rt{2};
  const shard::Mesh mesh({{"x", 2}});
  const shard::ArrayType type(DType::f32, {4, 3}, shard::Sharding(mesh, {{"x"}, {}}));
  std::vector<float> host(12);
  std::iota(host.begin(), host.end(), 0.0f);
  shard::Array a = shard::Array::from_host(rt, type, host);
  shard::Array b = shard::Array::from_host(rt, type, host);
  const void* a_block = a.block(1).data();
  const void* b_block = b.block(0).data();
  std::vector<shard::Array> v = result_vector(std::move(a), std::move(b));
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].block(1).data(), a_block);
  EXPECT_EQ(v[1].block(0).data(), b_block);
  EXPECT_EQ(v[1].to_host<float>(), host);
  EXPECT_TRUE(result_vector().empty());
  // The moved-from arguments are named as such at a generated function's boundary.
  try {
    check_argument("f", "x", 0, a, type);  // NOLINT(bugprone-use-after-move): what this checks
    ADD_FAILURE() << "a moved-from argument was accepted";
  } catch (const shard::ArgumentError& e) {
    EXPECT_EQ(std::string(e.what()), "f: argument 0 ('x') holds no blocks: it was moved from");
  }
  // So is a block replaced through block() with one of another shape (the device bodies would
  // read past it).
  v[1].block(1) = Tensor(DType::f32, {1, 3});
  try {
    check_argument("f", "x", 0, v[1], type);
    ADD_FAILURE() << "a block of the wrong shape was accepted";
  } catch (const shard::ArgumentError& e) {
    EXPECT_EQ(std::string(e.what()),
              "f: argument 0 ('x'): device 1's block of float32[4@x,3] must be float32(2, 3), got float32(1, 3)");
  }
}

}  // namespace
}  // namespace shardgen::prelude

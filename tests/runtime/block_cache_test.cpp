// Freed tensor buffers of 64 KiB and more are reused: same buffer, no fresh allocation, and the
// zero-filling constructor still zero-fills a reused (dirty) buffer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <limits>

#include "shard/shard.h"
#include "block_cache.h"

namespace shard {
namespace {

// SHARD_BLOCK_CACHE_MB=0 (or a tiny budget) turns reuse off; the tests then check that nothing
// is reused.
bool caching() { return block_cache_stats().budget_bytes >= (std::size_t{8} << 20); }

TEST(BlockCache, ReusesAFreedLargeBuffer) {
  const void* first = nullptr;
  {
    Tensor t = Tensor::uninitialized(DType::f32, {1024, 1024});  // 4 MiB
    first = t.data();
    std::fill_n(t.as<float>(), t.numel(), 3.0f);
  }
  const BlockCacheStats before = block_cache_stats();
  const Tensor again(DType::f32, {1024, 1024});
  const BlockCacheStats after = block_cache_stats();
  if (caching()) {
    EXPECT_EQ(again.data(), first);
    EXPECT_EQ(after.reused, before.reused + 1);
    EXPECT_EQ(after.fresh, before.fresh);
  } else {
    EXPECT_EQ(after.reused, before.reused);
    EXPECT_EQ(after.fresh, before.fresh + 1);
  }
  EXPECT_TRUE(std::all_of(again.as<float>(), again.as<float>() + again.numel(), [](float v) { return v == 0.0f; }));
}

TEST(BlockCache, NearlyEqualSizesShareABuffer) {
  const void* first = nullptr;
  { first = Tensor::uninitialized(DType::boolean, {(std::int64_t{4} << 20) + 100}).data(); }
  // Counted from here: the first block may itself reuse one that an earlier test (or an
  // earlier --gtest_repeat round) left in the cache.
  const BlockCacheStats before = block_cache_stats();
  // 4 MiB + 100 and 4 MiB + 200 KiB round up to the same class (a multiple of 512 KiB).
  const Tensor again = Tensor::uninitialized(DType::boolean, {(std::int64_t{4} << 20) + 200 * 1024});
  if (caching()) {
    EXPECT_EQ(again.data(), first);
  }
  EXPECT_EQ(block_cache_stats().reused, before.reused + (caching() ? 1 : 0));
}

// A block near 2^64 bytes: its rounded capacity wrapped to a few bytes, and filling the tensor
// overran them (SIGSEGV). Now it is out of memory, as any impossible allocation.
TEST(BlockCache, ImpossiblyLargeBlocksAreOutOfMemory) {
  // The block of f32[3037000498@X, 3037000498] on X: 2, just under 2^64 bytes.
  EXPECT_THROW(Tensor(DType::f32, {1518500249, 3037000498}), std::bad_alloc);
  EXPECT_THROW(detail::block_capacity(std::numeric_limits<std::size_t>::max() - 10), std::bad_alloc);
  EXPECT_EQ(detail::block_capacity(100), 128u);
}

TEST(BlockCache, SmallBuffersAreNotCached) {
  const BlockCacheStats before = block_cache_stats();
  { const Tensor t(DType::f32, {1024}); }
  const Tensor u(DType::f32, {1024});
  const BlockCacheStats after = block_cache_stats();
  EXPECT_EQ(after.fresh, before.fresh);
  EXPECT_EQ(after.reused, before.reused);
}

TEST(BlockCache, ReleaseEmptiesTheCache) {
  { const Tensor t = Tensor::uninitialized(DType::f32, {1 << 20}); }
  release_cached_blocks();
  EXPECT_EQ(block_cache_stats().cached_bytes, 0u);
  const BlockCacheStats before = block_cache_stats();
  const Tensor t = Tensor::uninitialized(DType::f32, {1 << 20});
  EXPECT_EQ(block_cache_stats().fresh, before.fresh + 1);
}

TEST(BlockCache, EvictsTheLeastRecentlyFreedOverBudget) {
  const std::size_t saved = block_cache_stats().budget_bytes;
  release_cached_blocks();
  set_block_cache_budget(std::size_t{10} << 20);  // room for two 4 MiB blocks, not three
  const void* middle = nullptr;
  const void* newest = nullptr;
  {
    Tensor a = Tensor::uninitialized(DType::f32, {1 << 20});
    Tensor b = Tensor::uninitialized(DType::f32, {1 << 20});
    Tensor c = Tensor::uninitialized(DType::f32, {1 << 20});
    middle = b.data();
    newest = c.data();
    a = Tensor();  // freed first: evicted when c comes back
    b = Tensor();
    c = Tensor();
  }
  EXPECT_EQ(block_cache_stats().cached_bytes, std::size_t{8} << 20);
  const BlockCacheStats before = block_cache_stats();
  const Tensor x = Tensor::uninitialized(DType::f32, {1 << 20});
  EXPECT_EQ(x.data(), newest);  // the most recently freed of the class first
  const Tensor y = Tensor::uninitialized(DType::f32, {1 << 20});
  EXPECT_EQ(y.data(), middle);
  const Tensor z = Tensor::uninitialized(DType::f32, {1 << 20});  // a's block went to the system
  EXPECT_EQ(block_cache_stats().reused, before.reused + 2);
  EXPECT_EQ(block_cache_stats().fresh, before.fresh + 1);
  set_block_cache_budget(0);
  EXPECT_EQ(block_cache_stats().cached_bytes, 0u);
  set_block_cache_budget(saved);
}

// SHARD_BLOCK_CACHE_MB: a whole number of MiB, or an error that says so (strtoull alone took
// "-5" as 2^64 - 5 MiB, an unlimited cache, and "abc" as "use the default").
TEST(BlockCache, BudgetVariableIsAWholeNumberOfMiB) {
  EXPECT_EQ(detail::block_cache_budget_from_text("0"), 0u);
  EXPECT_EQ(detail::block_cache_budget_from_text("16"), std::size_t{16} << 20);
  for (const char* bad : {"", "-5", "+5", " 5", "5 ", "abc", "1.5"}) {
    try {
      detail::block_cache_budget_from_text(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const ArgumentError& e) {
      EXPECT_NE(std::string(e.what()).find("SHARD_BLOCK_CACHE_MB must be a whole number of MiB"), std::string::npos);
    }
  }
  // Whole numbers beyond 2^64 bytes are too large, and said so.
  for (const char* large : {"99999999999999999999", "17592186044416"}) {
    try {
      detail::block_cache_budget_from_text(large);
      ADD_FAILURE() << "accepted '" << large << "'";
    } catch (const ArgumentError& e) {
      EXPECT_NE(std::string(e.what()).find("is too large: at most 17592186044415 MiB"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace shard

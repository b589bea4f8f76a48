#include "frontend/check/name_suggestions.h"

#include <algorithm>
#include <array>
#include <utility>

namespace shardc::check {
namespace {

// Optimal string alignment distance: Levenshtein plus the swap of two neighbouring characters.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + substitution});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

// JAX names a newcomer writes first, and this language's way to say them.
constexpr std::array<std::pair<std::string_view, std::string_view>, 26> kJaxSpellings{{
    {"P", "a sharding is a list of axes here: [dp, None] for P('dp', None)"},
    {"PartitionSpec", "a sharding is a list of axes here: [dp, None] for P('dp', None)"},
    {"NamedSharding", "a sharding is a list of axes of the function's mesh here: [dp, None]"},
    {"device_put", "reshard(x, [dp, None]) puts an array on a sharding of the function's mesh"},
    {"with_sharding_constraint", "constrain(x, [dp, None]) is JAX's with_sharding_constraint"},
    {"shard_map", "a shard_map is a function of its own: shard_map name(x: f32[8@dp]) -> ... on mesh { ... }"},
    {"dot", "use a @ b, matmul(a, b) or einsum"},
    {"clip", "there is no clip: write minimum(maximum(x, low), high)"},
    {"silu", "there is no silu: write x * sigmoid(x)"},
    {"swish", "there is no swish: write x * sigmoid(x)"},
    {"log_softmax", "there is no log_softmax: write log(softmax(x, axis))"},
    {"logsumexp",
     "there is no logsumexp: write m + log(sum(exp(x - m), axis, keepdims=true)) with m = max(x, axis, keepdims=true)"},
    {"sort", "there is no sort: top_k(x, k) gives the k largest along the last axis, in order"},
    {"argsort", "there is no argsort: top_k(x, k) gives the k largest and their indices"},
    {"concatenate", "concat(xs, axis) joins arrays along an axis"},
    {"pcast", "pvary(x, axes) marks a block as varying over axes: JAX's pcast(x, axes, to='varying')"},
    {"pbroadcast", "pvary(x, axes) marks a block as varying over axes: JAX's pbroadcast / pcast(..., to='varying')"},
    {"one_hot", "there is no one_hot: astype(arange(n) == i, f32) is a one-hot row"},
    {"take", "indices are scalars here: x[i], or dynamic_slice(x, i, size, axis=d) for a window"},
    {"PRNGKey", "key(seed) makes a key, as jax.random.key(seed)"},
    {"float32", "JAX's float32 is f32 here; the element types are f32, bf16, f16, i32, i64 and bool"},
    {"bfloat16", "JAX's bfloat16 is bf16 here; the element types are f32, bf16, f16, i32, i64 and bool"},
    {"float16", "JAX's float16 is f16 here; the element types are f32, bf16, f16, i32, i64 and bool"},
    {"int32", "JAX's int32 is i32 here; the element types are f32, bf16, f16, i32, i64 and bool"},
    {"int64", "JAX's int64 is i64 here; the element types are f32, bf16, f16, i32, i64 and bool"},
    {"bool_", "JAX's bool_ is bool here; the element types are f32, bf16, f16, i32, i64 and bool"},
}};

constexpr std::array<std::pair<std::string_view, std::string_view>, 9> kJaxKeywords{{
    {"out_sharding", "JAX's out_sharding= is out= here: einsum(\"ij,jk->ik\", a, b, out=[dp, None])"},
    {"out_specs", "a shard_map's out_specs is its result type: -> f32[8@dp] on mesh"},
    {"in_specs", "a shard_map's in_specs are its parameter types: (x: f32[8@dp])"},
    {"axis_name", "the axes are the second argument, bare: psum(x, dp) or psum(x, (dp, tp))"},
    {"scatter_dimension", "JAX's scatter_dimension= is dim= here"},
    {"split_axis", "JAX's split_axis= and concat_axis= are split= and concat= here"},
    {"concat_axis", "JAX's split_axis= and concat_axis= are split= and concat= here"},
    {"minval", "JAX's minval= and maxval= are min= and max= here"},
    {"maxval", "JAX's minval= and maxval= are min= and max= here"},
}};

template <std::size_t N>
std::optional<std::string> hint_for(const std::array<std::pair<std::string_view, std::string_view>, N>& table,
                                    std::string_view name) {
  for (const auto& [jax, hint] : table)
    if (jax == name) return std::string(hint);
  return std::nullopt;
}

}  // namespace

std::optional<std::string> closest_name(std::string_view name, const std::vector<std::string_view>& candidates) {
  // Every name of one or two characters is a slip away from every other: no guess for those.
  if (name.size() <= 2) return std::nullopt;
  const std::size_t allowed = name.size() <= 4 ? 1 : 2;
  std::optional<std::string> best;
  std::size_t best_distance = allowed + 1;
  for (std::string_view c : candidates) {
    if (c == name) continue;
    // Lengths that differ by more than the allowance cannot be within it.
    if ((c.size() > name.size() ? c.size() - name.size() : name.size() - c.size()) > allowed) continue;
    const std::size_t d = edit_distance(name, c);
    if (d < best_distance) {
      best_distance = d;
      best = std::string(c);
    }
  }
  return best;
}

std::optional<std::string> jax_spelling_hint(std::string_view name) { return hint_for(kJaxSpellings, name); }

std::optional<std::string> jax_keyword_hint(std::string_view keyword) { return hint_for(kJaxKeywords, keyword); }

}  // namespace shardc::check

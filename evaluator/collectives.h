// JAX's collectives (JAX-RULES.md, "Collectives") on one group: `blocks[j]` is the block of
// the member with group index j, and the result lists every member's result in the same
// order. The simulator (simulate_shard_map.cpp) calls these once per group; the collective
// vectors test calls them directly. Shape errors use JAX's wording (EvalError).
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "evaluator/host_tensor.h"

namespace shardc::eval {

using Blocks = std::vector<HostTensor>;

enum class ReduceOp { sum, mean, max, min };

// psum / pmean / pmax / pmin. Sums run in group order in f32 (bf16/f16: rounded once at the
// end) or wrap for integers; `result` is the result dtype (psum of bool: i32; pmean of
// integers: f32, the integer psum divided by n).
Blocks all_reduce(ReduceOp op, const Blocks& blocks, DType result);

// Untiled: a new dimension of size n at `axis`; tiled: concatenated along `axis`.
Blocks all_gather(const Blocks& blocks, int axis, bool tiled);

// psum, then member j keeps chunk j along `dim` (untiled: dim size must equal n and is
// removed; tiled: dim divisible by n).
Blocks psum_scatter(const Blocks& blocks, int dim, bool tiled, DType result);

// Tiled: member i gets chunk i of every member's `split` dim, concatenated along `concat`
// in source order. Untiled: shape[split] == n; result insert(delete(shape, split), concat, n).
// `axis_name` (e.g. "dp" or "(dp,tp)") only names the group in JAX's error messages.
Blocks all_to_all(const Blocks& blocks, int split, int concat, bool tiled, std::string_view axis_name = "");

// (source, destination) pairs of group indices; members that are no destination get zeros.
Blocks ppermute(const Blocks& blocks, const std::vector<std::pair<std::int64_t, std::int64_t>>& perm);
// perm [(j, (j + shift) mod n)].
std::vector<std::pair<std::int64_t, std::int64_t>> shift_permutation(std::int64_t n, std::int64_t shift);

// ragged_all_to_all: rows [input_offsets[j], + send_sizes[j]) of member i's operand land at
// rows [output_offsets[j], ...) of member j's output (offsets on the receiver, given by the
// sender); rows nobody writes keep `outputs`' values. recv_sizes[i] of member j must equal
// what i sends to j.
Blocks ragged_all_to_all(const Blocks& operands, const Blocks& outputs, const Blocks& input_offsets,
                         const Blocks& send_sizes, const Blocks& output_offsets, const Blocks& recv_sizes);

}  // namespace shardc::eval

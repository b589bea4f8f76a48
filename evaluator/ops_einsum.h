// einsum with one or two operands, by plain loops over every index letter. The operands are
// converted to the result dtype; float products accumulate in double and round once to the
// result dtype; integer sums wrap modulo 2^bits.
//
//   einsum("bd,df->bf", a[2,3], b[3,4]) -> [2,4]     (d contracted)
//   einsum("ij->j", a[2,3])             -> [3]       (i summed)
#pragma once

#include <string_view>
#include <vector>

#include "evaluator/host_tensor.h"

namespace shardc::eval {

HostTensor einsum(std::string_view spec, const std::vector<HostTensor>& operands, DType result);

// A contracted letter that the generated code splits over devices: each device multiplies its
// `blocks`-th part of the letter's range.
struct SplitLetter {
  char letter;
  std::int64_t blocks;
};

// A two-operand einsum of bf16/f16 as the sharded code computes it (docs/language.md 6.7, as
// XLA does): the product of each combination of the split letters' blocks is rounded to the
// result dtype, then these partial products are summed in f32, the first letter's blocks
// outermost (the collective's rank order), and the sum rounded once. With no split letter it
// is `einsum`.
HostTensor einsum_of_rounded_partials(std::string_view spec, const std::vector<HostTensor>& operands, DType result,
                                      const std::vector<SplitLetter>& split);

// The contracted letters the generated code splits (codegen/lower_einsums.cpp's rule, kept in
// step with it): in order of first appearance, a letter every holder shards over the same
// non-empty axes, none of which an earlier split letter uses; the others are gathered.
// `axes_of[k][d]`: the mesh axes of operand k's dimension d; `axis_sizes`: the mesh's.
std::vector<SplitLetter> split_contracted_letters(std::string_view spec,
                                                  const std::vector<std::vector<std::vector<int>>>& axes_of,
                                                  const std::vector<std::int64_t>& axis_sizes);

}  // namespace shardc::eval

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

}  // namespace shardc::eval

// Reductions (sum prod mean max min argmax argmin), softmax and top_k on HostTensors.
// Float sums accumulate in double and round once to the result dtype (the oracle is at
// least as accurate as the runtime; tests compare floats with a tolerance); integer sums
// and products wrap modulo 2^bits.
#pragma once

#include <string_view>
#include <utility>
#include <vector>

#include "evaluator/host_tensor.h"

namespace shardc::eval {

// `op` is one of sum prod mean max min argmax argmin. `axes` lists the reduced dimensions
// (empty: all). The result has `result` dtype; `keepdims` keeps reduced dims as size 1.
HostTensor reduce(std::string_view op, const HostTensor& x, const std::vector<int>& axes, bool keepdims,
                  DType result);

// A sum, mean or prod of floats over dimensions the generated code splits across devices, as
// it computes it (lower_reductions): each device's block reduced (rounded to f32), then the
// partials combined in f32 in the group's order, the first split dimension's blocks outermost
// (a sum from +0, a mean as the sum of the block means over their count), rounded once to
// `result`. Where f32 partials overflow (a block's product beyond 3.4e38) this gives inf as the
// devices do, not the whole array's exact value. `split`: (dimension, number of blocks), in
// the order of `axes`; none is `reduce`.
HostTensor reduce_of_rounded_partials(std::string_view op, const HostTensor& x, const std::vector<int>& axes,
                                      bool keepdims, DType result,
                                      const std::vector<std::pair<int, std::int64_t>>& split);

// exp(x - max(x, axis)) / sum(exp(...), axis), computed in f32, rounded to `result`.
HostTensor softmax(const HostTensor& x, int axis, DType result);

// The k largest elements along the last axis, descending (ties: lower index first, NaN
// largest), and their indices (i32).
std::pair<HostTensor, HostTensor> top_k(const HostTensor& x, std::int64_t k);

}  // namespace shardc::eval

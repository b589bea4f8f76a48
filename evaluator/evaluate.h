// The reference evaluator's entry points: the meaning of a checked .shard function, computed
// with plain loops and no runtime code, as the oracle that generated code is compared with.
//
//   auto module = ...;  // shardc::check::check(...).module
//   auto inputs = shardc::eval::deterministic_inputs(*module, "matmul", 0);
//   std::vector<HostTensor> out = shardc::eval::evaluate(*module, "matmul", inputs);
//   std::cout << shardc::eval::format_numpy(out[0]);
//
// Arguments and results are global arrays (a func's view; a shard_map's in/out types read
// globally). A `key` parameter or result crosses as an int64 array of shape (2,) holding the
// key's two 32-bit words [k0, k1], as jax.random.key_data prints them.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "evaluator/host_tensor.h"
#include "frontend/check/checked_module.h"

namespace shardc::eval {

// Evaluates `function` (a func or shard_map of `module`) on `inputs`. Throws EvalError when
// the function does not exist or an input's dtype or shape is not its parameter's, and when
// the program itself fails at run time (e.g. ragged_all_to_all sizes that do not match);
// shardc::InternalError when the trace breaks an invariant.
std::vector<HostTensor> evaluate(const check::CheckedModule& module, std::string_view function,
                                 const std::vector<HostTensor>& inputs);

// Deterministic arguments for `function`, one per parameter, the same on every machine:
// parameter p (from 0) draws from key fold_in(key(seed), p) with JAX's random bits over its
// global shape:
//   float dtypes: uniform in [-1, 1) (f32 values, rounded to bf16/f16 for those dtypes);
//   i32 / i64:    integers in [-8, 8): (bits32 >> 28) - 8;
//   bool:         the lowest bit of bits32;
//   key:          fold_in(key(seed), p) itself (as an int64[2] array).
// Generated-code tests and `shardc run` use this function so both sides see the same data.
std::vector<HostTensor> deterministic_inputs(const check::CheckedModule& module, std::string_view function,
                                             std::uint32_t seed);

}  // namespace shardc::eval

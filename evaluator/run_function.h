// The interpreter's internal entry: runs one checked function on global values. A `func`
// runs its trace on global values (run_func.cpp); a `shard_map` is simulated device by device
// (simulate_shard_map.cpp). A `call` op inside a func comes back here with the callee.
#pragma once

#include <vector>

#include "evaluator/eval_value.h"

namespace shardc::eval {

// `args` have the function's global parameter types (checked by the public evaluate()).
std::vector<EvalValue> run_function(const check::CheckedModule& module, const check::CheckedFunction& f,
                                    const std::vector<EvalValue>& args);

std::vector<EvalValue> run_func(const check::CheckedModule& module, const check::CheckedFunction& f,
                                const std::vector<EvalValue>& args);
std::vector<EvalValue> simulate_shard_map(const check::CheckedModule& module, const check::CheckedFunction& f,
                                          const std::vector<EvalValue>& args);

// For each SSA value, the index of the last op that reads it (results: past the end), so
// interpreters can drop values early.
std::vector<std::size_t> last_uses(const check::CheckedFunction& f);

}  // namespace shardc::eval

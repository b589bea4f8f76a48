// Runs one op of a checker trace that needs nothing but its operands: elementwise math,
// reductions, einsum, shape ops, constructors and random numbers. The same code serves a
// func (global values) and each simulated device of a shard_map (its local blocks): the
// trace's types say which shapes to expect. `param`, `call` and collectives are handled by
// the func interpreter and the shard_map simulator.
#pragma once

#include <string_view>
#include <vector>

#include "evaluator/eval_value.h"

namespace shardc::eval {

bool is_collective_op(std::string_view name);  // psum ... axis_index, pvary

// The op's results, checked against the trace's types of its outputs.
std::vector<EvalValue> apply_local_op(const check::CheckedFunction& f, const check::Op& op,
                                      const std::vector<const EvalValue*>& inputs);

}  // namespace shardc::eval

// A value while a trace runs: an array (HostTensor) or a PRNG key.
#pragma once

#include <variant>

#include "evaluator/host_tensor.h"
#include "frontend/check/checked_module.h"
#include "shard/random.h"

namespace shardc::eval {

using EvalValue = std::variant<HostTensor, shard::random::Key>;

// The array of a value; an internal error naming `op` if it is a key.
const HostTensor& array_of(const EvalValue& v, const check::Op& op);
const shard::random::Key& key_of(const EvalValue& v, const check::Op& op);

// Checks a computed value against the checker's type of it (shape and dtype; a weak
// scalar may be held in the wider dtype of its kind, so that static ints keep 64 bits).
// A mismatch is an internal error: the evaluator and the checker disagree.
void check_value_type(const EvalValue& v, const check::Type& type, const check::Op& op);

}  // namespace shardc::eval

#include "evaluator/eval_value.h"

#include "evaluator/op_attrs.h"
#include "frontend/internal_error.h"

namespace shardc::eval {

const HostTensor& array_of(const EvalValue& v, const check::Op& op) {
  const HostTensor* t = std::get_if<HostTensor>(&v);
  SHARDC_ASSERT(t != nullptr, op_location(op) + ": expected an array operand, got a key");
  return *t;
}

const shard::random::Key& key_of(const EvalValue& v, const check::Op& op) {
  const auto* k = std::get_if<shard::random::Key>(&v);
  SHARDC_ASSERT(k != nullptr, op_location(op) + ": expected a key operand, got an array");
  return *k;
}

void check_value_type(const EvalValue& v, const check::Type& type, const check::Op& op) {
  if (type.kind == check::TypeKind::key) {
    SHARDC_ASSERT(std::holds_alternative<shard::random::Key>(v), op_location(op) + " made an array where the checker typed a key");
    return;
  }
  SHARDC_ASSERT(type.kind == check::TypeKind::array, op_location(op) + " has a result that is not an array or a key");
  const HostTensor& t = array_of(v, op);
  SHARDC_ASSERT(t.shape == type.shape(), op_location(op) + " made shape " + shape_text(t.shape) + " where the checker typed " +
                                             check::to_string(type));
  bool same_kind = shard::is_floating(t.dtype) == shard::is_floating(type.dtype) &&
                   (t.dtype == DType::boolean) == (type.dtype == DType::boolean);
  SHARDC_ASSERT(t.dtype == type.dtype || (type.weak && same_kind),
                op_location(op) + " made dtype " + std::string(shard::dtype_name(t.dtype)) + " where the checker typed " +
                    check::to_string(type));
}

}  // namespace shardc::eval

// What a typing rule returns: the result type, or an error the statement walker
// locates at the op (or at one of its operands) and reports with its notes.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "frontend/check/types.h"

namespace shardc::check {

// The families of user errors the checker reports; tests/diagnostics/README.md lists them.
enum class ErrorClass {
  einsum_ambiguous,       // contracting dim sharded on both operands, no out=
  batch_mismatch,         // einsum batch dims sharded differently
  broadcast_mismatch,     // broadcasting operands sharded over different axes
  duplicate_result_axis,  // a result would use one mesh axis twice
  duplicate_type_axis,    // an axis used twice in one written type
  not_divisible,          // a dim not divisible by its axes' product
  unknown_name,           // unknown axis, mesh, const, function or variable
  mesh_mismatch,          // ops on arrays of different meshes
  not_static,             // a per-device value where a static one is needed
  out_of_range,           // static slice or index out of range
  vma_output,             // shard_map output may vary over an axis its type replicates
  gather_invariant,       // all_gather of a value that does not vary over its axes
  var_type_change,        // `var` assigned a value of another type
  auto_not_implemented,   // auto mesh where the explicit rules cannot decide
  shape_mismatch,         // shapes, ranks or dtypes that do not fit the op
  bad_argument,           // a wrong argument count, kind or keyword
  limit,                  // rank, unrolled ops, dimension products beyond the limits
  unsupported_sharding,   // reshape/slice/roll/top_k/... over a sharded dim that JAX rejects
};

struct RuleError {
  ErrorClass cls;
  std::string message;
  std::vector<std::string> notes;
  int operand = -1;  // the operand to point at, or -1 for the whole op
};

template <class T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(RuleError error) : error_(std::move(error)) {}  // NOLINT
  bool ok() const { return value_.has_value(); }
  explicit operator bool() const { return ok(); }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  const T& operator*() const { return *value_; }
  const T* operator->() const { return &*value_; }
  const RuleError& error() const { return *error_; }

 private:
  std::optional<T> value_;
  std::optional<RuleError> error_;
};

inline RuleError rule_error(ErrorClass cls, std::string message, std::vector<std::string> notes = {}, int operand = -1) {
  return RuleError{cls, std::move(message), std::move(notes), operand};
}

// On an `auto` mesh the explicit rules' ambiguity errors become "not implemented yet":
// auto mode would let the compiler choose there (a later issue).
RuleError on_mesh(const Mesh* mesh, RuleError e);

}  // namespace shardc::check

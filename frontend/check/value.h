// What an expression evaluates to while the checker walks a body. Beyond typed values
// (arrays, static scalars, keys) the language has static values that only steer the
// checker: axis groups, einsum strings, None, tuples/lists of values, and types
// written as values (`zeros(f32[4])`, `astype(x, bf16)`).
#pragma once

#include <string>
#include <vector>

#include "frontend/check/checked_module.h"
#include "frontend/check/types.h"

namespace shardc::check {

struct Value {
  enum class Kind {
    error,         // an earlier error: uses stay silent (no cascades)
    typed,         // `type` is an array, static scalar or key; `id` the SSA value (-1 if static)
    axes,          // a mesh axis or a tuple of distinct axes
    string,        // einsum spec
    none,          // None
    seq,           // a tuple (a, b) or list [a, b] of values; also a call's several results
    type_literal,  // a type written as a value; `type` holds it (global in func, local in shard_map)
  };
  Kind kind = Kind::error;
  Type type;
  ValueId id = -1;
  AxisList axes;
  std::string text;
  std::vector<Value> items;
  bool is_list = false;  // seq written with [ ]

  static Value error() { return Value{}; }
  static Value typed_value(Type t, ValueId id) {
    Value v;
    v.kind = Kind::typed;
    v.type = std::move(t);
    v.id = id;
    return v;
  }
  static Value static_value(Type t) { return typed_value(std::move(t), -1); }
  bool is_error() const { return kind == Kind::error; }
  bool is_static_scalar() const { return kind == Kind::typed && type.kind == TypeKind::static_scalar; }
  bool is_array() const { return kind == Kind::typed && type.kind == TypeKind::array; }
  // A pending sum (einsum's or sum's unreduced=): only add, sub and reshard take it.
  bool is_pending_sum() const { return is_array() && type.unreduced != 0; }
};

}  // namespace shardc::check

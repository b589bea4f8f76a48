// Folding of static scalars: exact i64 arithmetic (overflow and division by zero are
// errors), doubles, bools; `//` and `%` floor as in Python.
//
//   (i0 + i) % n   with i0 static  ->  folded;  2048 // 4 -> 512;  7 / 2 -> 3.5;  i < n - 1 -> bool
#pragma once

#include <string>

#include "frontend/ast.h"
#include "frontend/check/rule_result.h"
#include "frontend/check/types.h"

namespace shardc::check {

Result<Type> fold_binary(ast::BinaryOp op, const Type& a, const Type& b);
Result<Type> fold_unary(ast::UnaryOp op, const Type& a);

}  // namespace shardc::check

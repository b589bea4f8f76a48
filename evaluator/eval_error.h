// The evaluator's error for bad input at evaluation time (wrong argument shapes, a function
// that does not exist, ragged sizes that do not match at run time). Broken invariants of the
// checker's trace are internal errors instead (SHARDC_ASSERT, frontend/internal_error.h).
#pragma once

#include <stdexcept>

namespace shardc::eval {

class EvalError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace shardc::eval

// Binds a built-in call's arguments to the parameter names of its signature
// (docs/language.md section 8): positional first, then keywords; reports unknown
// keywords, repeats, too many and missing arguments, and a None where the parameter has no
// None meaning, each located.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "frontend/check/checker.h"

namespace shardc::check {

class Args {
 public:
  // Binds the call of a built-in to the signature of its table entry. None means the same as
  // leaving a parameter out only where the signature lists it as nullable (sum's axis=None,
  // einsum's out=None): elsewhere None has a meaning in NumPy that the parameter does not have
  // here (roll's or concat's axis=None flattens), so it is an error rather than the default.
  Args(Checker& c, const ast::CallExpr& call);

  // False when binding failed or an argument is an earlier error: the handler then
  // returns Value::error() without reporting more.
  bool ok() const { return ok_; }
  // Whether the argument was given (as something other than None).
  bool has(std::string_view name) const;
  const Value& operator[](std::string_view name) const;
  SourceRange range(std::string_view name) const;  // the argument's range (the call's if absent)
  const ast::Expr* expr(std::string_view name) const;
  const ast::CallExpr& call() const { return call_; }
  // How an error names the argument: "psum's argument x".
  std::string argument_name(std::string_view name) const {
    return call_.callee.name + "'s argument " + std::string(name);
  }

 private:
  int index(std::string_view name) const;
  const ast::CallExpr& call_;
  std::vector<std::string_view> params_;
  std::vector<Value> values_;
  std::vector<const ast::Argument*> given_;
  bool ok_ = true;
};

// The structural half of the binding, for a call in code the checker does not trace (an
// uncalled fn, an untaken branch): reports unknown keywords, repeats, too many and missing
// arguments of a built-in, without evaluating anything. False when it reported.
bool check_builtin_arguments(Checker& c, const ast::CallExpr& call, const BuiltinSignature& sig);

}  // namespace shardc::check

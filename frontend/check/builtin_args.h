// Binds a built-in call's arguments to the parameter names of its signature
// (docs/language.md section 8): positional first, then keywords; reports unknown
// keywords, repeats, too many and missing arguments, and a None where the parameter has no
// None meaning, each located.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/check/checker.h"

namespace shardc::check {

class Args {
 public:
  // The first `required` parameters must be given. Only the parameters in `nullable` accept
  // None, which then means the same as leaving them out (sum's axis=None, einsum's out=None):
  // elsewhere None has a meaning in NumPy that the parameter does not have here (roll's or
  // concat's axis=None flattens), so it is an error rather than the default.
  Args(Checker& c, const ast::CallExpr& call, std::initializer_list<std::string_view> params, std::size_t required,
       std::initializer_list<std::string_view> nullable = {});

  // False when binding failed or an argument is an earlier error: the handler then
  // returns Value::error() without reporting more.
  bool ok() const { return ok_; }
  // Whether the argument was given (as something other than None).
  bool has(std::string_view name) const;
  const Value& operator[](std::string_view name) const;
  SourceRange range(std::string_view name) const;  // the argument's range (the call's if absent)
  const ast::Expr* expr(std::string_view name) const;
  const ast::CallExpr& call() const { return call_; }

 private:
  int index(std::string_view name) const;
  const ast::CallExpr& call_;
  std::vector<std::string_view> params_;
  std::vector<Value> values_;
  std::vector<const ast::Argument*> given_;
  bool ok_ = true;
};

}  // namespace shardc::check

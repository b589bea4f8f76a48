#include "frontend/check/builtin_args.h"

#include <algorithm>

#include "frontend/internal_error.h"

namespace shardc::check {

Args::Args(Checker& c, const ast::CallExpr& call, std::initializer_list<std::string_view> params, std::size_t required,
           std::initializer_list<std::string_view> nullable)
    : call_(call), params_(params), values_(params.size()), given_(params.size(), nullptr) {
  const std::string& fname = call.callee.name;
  auto accepted = [&] {
    std::string s;
    for (std::size_t i = 0; i < params_.size(); ++i) s += (i ? ", " : "") + std::string(params_[i]);
    return s;
  };
  std::size_t positional = 0;
  for (const ast::Argument& arg : call.args) {
    int slot;
    if (arg.keyword) {
      slot = index(arg.keyword->name);
      if (slot < 0) {
        c.error(arg.keyword->range, "unknown keyword argument '" + arg.keyword->name + "' of " + fname)
            .note(fname + " accepts: " + accepted());
        ok_ = false;
        continue;
      }
    } else {
      if (positional >= params_.size()) {
        c.error(arg.range, fname + " takes at most " + std::to_string(params_.size()) + " arguments")
            .note("signature: " + fname + "(" + accepted() + ")");
        ok_ = false;
        continue;
      }
      slot = static_cast<int>(positional++);
    }
    if (given_[slot]) {
      c.error(arg.range, "argument '" + std::string(params_[slot]) + "' of " + fname + " is given twice");
      ok_ = false;
      continue;
    }
    given_[slot] = &arg;
    values_[slot] = c.eval(*arg.value);
    if (values_[slot].is_error()) ok_ = false;
    if (values_[slot].kind == Value::Kind::none &&
        std::find(nullable.begin(), nullable.end(), params_[slot]) == nullable.end()) {
      c.error(arg.range, "argument '" + std::string(params_[slot]) + "' of " + fname + " cannot be None")
          .note("signature: " + fname + "(" + accepted() + ")" +
                (required > static_cast<std::size_t>(slot) ? "" : "; leave the argument out for its default"));
      ok_ = false;
    }
  }
  for (std::size_t i = 0; i < required && i < params_.size(); ++i) {
    if (!given_[i] && ok_) {
      c.error(call.range, "missing argument '" + std::string(params_[i]) + "' of " + fname)
          .note("signature: " + fname + "(" + accepted() + ")");
      ok_ = false;
    }
  }
}

int Args::index(std::string_view name) const {
  for (std::size_t i = 0; i < params_.size(); ++i)
    if (params_[i] == name) return static_cast<int>(i);
  return -1;
}

bool Args::has(std::string_view name) const {
  int i = index(name);
  return i >= 0 && given_[i] != nullptr && values_[i].kind != Value::Kind::none;
}

const Value& Args::operator[](std::string_view name) const {
  int i = index(name);
  SHARDC_ASSERT(i >= 0, "unknown built-in parameter " + std::string(name));
  return values_[i];
}

SourceRange Args::range(std::string_view name) const {
  int i = index(name);
  if (i >= 0 && given_[i]) return given_[i]->value->range;
  return call_.range;
}

const ast::Expr* Args::expr(std::string_view name) const {
  int i = index(name);
  return i >= 0 && given_[i] ? given_[i]->value.get() : nullptr;
}

}  // namespace shardc::check

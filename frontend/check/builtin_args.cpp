#include "frontend/check/builtin_args.h"

#include <algorithm>

#include "frontend/check/name_suggestions.h"
#include "frontend/check/rules_elementwise.h"
#include "frontend/internal_error.h"

namespace shardc::check {

namespace {

std::string parameter_list(const BuiltinSignature& sig) {
  std::string s;
  for (std::size_t i = 0; i < sig.params.size(); ++i) s += (i ? ", " : "") + std::string(sig.params[i]);
  return s;
}

const BuiltinSignature& signature_of(const ast::CallExpr& call) {
  const Builtin* b = find_builtin(call.callee.name);
  SHARDC_ASSERT(b, "Args for '" + call.callee.name + "', which is not a built-in");
  return b->signature;
}

// For each parameter, the argument given for it (null where none is). Reports an unknown
// keyword, a positional argument beyond the last parameter and a parameter given twice, and
// clears `ok` for each.
std::vector<const ast::Argument*> match_arguments(Checker& c, const ast::CallExpr& call, const BuiltinSignature& sig,
                                                  bool& ok) {
  const std::string& fname = call.callee.name;
  std::vector<const ast::Argument*> given(sig.params.size(), nullptr);
  std::size_t positional = 0;
  for (const ast::Argument& arg : call.args) {
    std::size_t slot;
    if (arg.keyword) {
      auto it = std::find(sig.params.begin(), sig.params.end(), arg.keyword->name);
      if (it == sig.params.end()) {
        auto b = c.error(arg.keyword->range, "unknown keyword argument '" + arg.keyword->name + "' of " + fname);
        b.note(fname + " accepts: " + parameter_list(sig));
        if (auto hint = jax_keyword_hint(arg.keyword->name)) b.note(*hint);
        ok = false;
        continue;
      }
      slot = static_cast<std::size_t>(it - sig.params.begin());
    } else {
      if (positional >= sig.params.size()) {
        c.error(arg.range, fname + " takes at most " + std::to_string(sig.params.size()) + " arguments")
            .note("signature: " + fname + "(" + parameter_list(sig) + ")");
        ok = false;
        continue;
      }
      slot = positional++;
    }
    if (given[slot]) {
      c.error(arg.range, "argument '" + std::string(sig.params[slot]) + "' of " + fname + " is given twice");
      ok = false;
      continue;
    }
    given[slot] = &arg;
  }
  return given;
}

// Reports the first required parameter that no argument was given for.
bool report_missing(Checker& c, const ast::CallExpr& call, const BuiltinSignature& sig,
                    const std::vector<const ast::Argument*>& given) {
  for (std::size_t i = 0; i < sig.required && i < sig.params.size(); ++i) {
    if (!given[i]) {
      const std::string& fname = call.callee.name;
      c.error(call.range, "missing argument '" + std::string(sig.params[i]) + "' of " + fname)
          .note("signature: " + fname + "(" + parameter_list(sig) + ")");
      return true;
    }
  }
  return false;
}

}  // namespace

Args::Args(Checker& c, const ast::CallExpr& call) : call_(call) {
  const BuiltinSignature& sig = signature_of(call);
  params_ = sig.params;
  given_ = match_arguments(c, call, sig, ok_);
  values_.resize(params_.size());
  // Evaluated in the order written, which is the order their instructions are emitted in.
  for (const ast::Argument& arg : call.args) {
    const auto bound = std::find(given_.begin(), given_.end(), &arg);
    if (bound == given_.end()) continue;  // reported by match_arguments
    const auto slot = static_cast<std::size_t>(bound - given_.begin());
    const ast::Expr& value = *given_[slot]->value;
    values_[slot] = params_[slot] == "axes" ? c.eval_axes_argument(value) : c.eval(value);
    if (values_[slot].is_error()) ok_ = false;
    if (values_[slot].kind == Value::Kind::none &&
        std::find(sig.nullable.begin(), sig.nullable.end(), params_[slot]) == sig.nullable.end()) {
      const std::string& fname = call.callee.name;
      c.error(given_[slot]->range, "argument '" + std::string(params_[slot]) + "' of " + fname + " cannot be None")
          .note("signature: " + fname + "(" + parameter_list(sig) + ")" +
                (sig.required > slot ? "" : "; leave the argument out for its default"));
      ok_ = false;
    }
  }
  if (ok_ && report_missing(c, call, sig, given_)) ok_ = false;
  // A pending sum (unreduced=) is an argument of no built-in but reshard, which reduces it:
  // refused here, under the built-in's own name, before any rule reads its type.
  if (call.callee.name != "reshard")
    for (std::size_t slot = 0; ok_ && slot < values_.size(); ++slot)
      if (values_[slot].is_pending_sum()) {
        c.report(unreduced_operand_error(call.callee.name, values_[slot].type, 0), given_[slot]->range);
        ok_ = false;
      }
}

bool check_builtin_arguments(Checker& c, const ast::CallExpr& call, const BuiltinSignature& sig) {
  bool ok = true;
  const auto given = match_arguments(c, call, sig, ok);
  return ok && !report_missing(c, call, sig, given);
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

#include "frontend/check/static_eval.h"

#include <cmath>

#include "frontend/check/checked_math.h"

namespace shardc::check {
namespace {

using ast::BinaryOp;

RuleError overflow(std::string_view what) {
  return rule_error(ErrorClass::limit, "static integer " + std::string(what) + " overflows 64 bits",
                    {"static arithmetic is exact in i64"});
}

std::optional<bool> compare(BinaryOp op, double a, double b) {
  switch (op) {
    case BinaryOp::eq: return a == b;
    case BinaryOp::ne: return a != b;
    case BinaryOp::lt: return a < b;
    case BinaryOp::le: return a <= b;
    case BinaryOp::gt: return a > b;
    case BinaryOp::ge: return a >= b;
    default: return std::nullopt;
  }
}

}  // namespace

Result<Type> fold_binary(BinaryOp op, const Type& a, const Type& b) {
  const StaticValue& va = *a.value;
  const StaticValue& vb = *b.value;
  bool ab = std::holds_alternative<bool>(va), bb = std::holds_alternative<bool>(vb);
  if (op == BinaryOp::logical_and || op == BinaryOp::logical_or) {
    if (!ab || !bb)
      return rule_error(ErrorClass::shape_mismatch, std::string(ast::binary_op_spelling(op)) + " needs bool operands");
    bool x = std::get<bool>(va), y = std::get<bool>(vb);
    return make_static_bool(op == BinaryOp::logical_and ? (x && y) : (x || y));
  }
  if (ab || bb) {
    if (op == BinaryOp::eq || op == BinaryOp::ne) {
      if (ab && bb) return make_static_bool((std::get<bool>(va) == std::get<bool>(vb)) == (op == BinaryOp::eq));
    }
    return rule_error(ErrorClass::shape_mismatch,
                      "arithmetic on bool: " + std::string(ast::binary_op_spelling(op)) + " needs numbers",
                      {"convert with astype, or use && and ||"});
  }
  if (op == BinaryOp::matmul) return rule_error(ErrorClass::shape_mismatch, "@ needs arrays, not static scalars");
  auto* ia = std::get_if<std::int64_t>(&va);
  auto* ib = std::get_if<std::int64_t>(&vb);
  if (ia && ib) {
    std::int64_t x = *ia, y = *ib;
    if (auto c = compare(op, 0, 0)) {
      (void)c;
      switch (op) {
        case BinaryOp::eq: return make_static_bool(x == y);
        case BinaryOp::ne: return make_static_bool(x != y);
        case BinaryOp::lt: return make_static_bool(x < y);
        case BinaryOp::le: return make_static_bool(x <= y);
        case BinaryOp::gt: return make_static_bool(x > y);
        default: return make_static_bool(x >= y);
      }
    }
    std::optional<std::int64_t> r;
    switch (op) {
      case BinaryOp::add: r = checked_add(x, y); if (!r) return overflow("addition"); break;
      case BinaryOp::sub: r = checked_sub(x, y); if (!r) return overflow("subtraction"); break;
      case BinaryOp::mul: r = checked_mul(x, y); if (!r) return overflow("multiplication"); break;
      case BinaryOp::floor_div:
        if (y == 0) return rule_error(ErrorClass::shape_mismatch, "static division by zero");
        r = floor_div(x, y);
        if (!r) return overflow("division");
        break;
      case BinaryOp::mod:
        if (y == 0) return rule_error(ErrorClass::shape_mismatch, "static modulo by zero");
        r = floor_mod(x, y);
        break;
      case BinaryOp::div:
        if (y == 0) return rule_error(ErrorClass::shape_mismatch, "static division by zero");
        return make_static_float(static_cast<double>(x) / static_cast<double>(y));
      default: return rule_error(ErrorClass::shape_mismatch, "unsupported static operator");
    }
    return make_static_int(*r);
  }
  double x = ia ? static_cast<double>(*ia) : std::get<double>(va);
  double y = ib ? static_cast<double>(*ib) : std::get<double>(vb);
  if (auto c = compare(op, x, y)) return make_static_bool(*c);
  double r = 0;
  switch (op) {
    case BinaryOp::add: r = x + y; break;
    case BinaryOp::sub: r = x - y; break;
    case BinaryOp::mul: r = x * y; break;
    case BinaryOp::div:
      if (y == 0) return rule_error(ErrorClass::shape_mismatch, "static division by zero");
      r = x / y;
      break;
    // Python's float // and % (and jnp's _float_divmod): the remainder is C's fmod moved into
    // the divisor's sign and the quotient comes from it, so 1.0 // 0.1 is 9.0 and 1.0 % 0.1 is
    // 0.09999999999999995, where floor(1.0 / 0.1) would give 10.
    case BinaryOp::floor_div:
    case BinaryOp::mod: {
      if (y == 0)
        return rule_error(ErrorClass::shape_mismatch, op == BinaryOp::mod ? "static modulo by zero" : "static division by zero");
      double mod = std::fmod(x, y);
      double div = (x - mod) / y;
      if (mod != 0 && std::signbit(mod) != std::signbit(y)) {
        mod += y;
        div -= 1.0;
      }
      r = op == BinaryOp::mod ? mod : std::round(div);
      break;
    }
    default: return rule_error(ErrorClass::shape_mismatch, "unsupported static operator");
  }
  if (!std::isfinite(r)) return rule_error(ErrorClass::limit, "static float arithmetic gives a non-finite value");
  return make_static_float(r);
}

Result<Type> fold_unary(ast::UnaryOp op, const Type& a) {
  const StaticValue& v = *a.value;
  switch (op) {
    case ast::UnaryOp::logical_not:
      if (auto* b = std::get_if<bool>(&v)) return make_static_bool(!*b);
      return rule_error(ErrorClass::shape_mismatch, "! needs a bool operand, got " + to_string(a));
    case ast::UnaryOp::plus:
    case ast::UnaryOp::negate:
      if (std::holds_alternative<bool>(v))
        return rule_error(ErrorClass::shape_mismatch, "arithmetic on bool: unary " +
                                                          std::string(ast::unary_op_spelling(op)) + " needs a number");
      if (op == ast::UnaryOp::plus) return a;
      if (auto* i = std::get_if<std::int64_t>(&v)) {
        if (*i == INT64_MIN) return overflow("negation");
        return make_static_int(-*i);
      }
      return make_static_float(-std::get<double>(v));
  }
  return a;
}

}  // namespace shardc::check

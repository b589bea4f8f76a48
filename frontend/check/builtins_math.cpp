// Elementwise math, reductions, softmax, top_k, einsum and matmul.
#include <algorithm>
#include <limits>
#include <set>

#include "frontend/check/builtins.h"
#include "frontend/check/dtype_rules.h"
#include "frontend/check/rules_einsum.h"
#include "frontend/check/rules_elementwise.h"
#include "frontend/check/rules_reduce.h"

namespace shardc::check {
namespace {

const std::set<std::string_view> kFloatUnary = {"exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos",
                                                "tan", "tanh", "erf", "sigmoid", "gelu"};

Value unary(Checker& c, const ast::CallExpr& call) {
  Args a(c, call);
  if (!a.ok() || !c.need_array(a["x"], a.range("x"), "the operand of " + call.callee.name)) return Value::error();
  Value x = a["x"];
  Type t = x.type.kind == TypeKind::static_scalar ? c.materialize(x, call).type : x.type;
  const std::string& n = call.callee.name;
  if (n == "logical_not") {
    if (t.dtype != DType::boolean) {
      c.error(a.range("x"), "logical_not needs a bool operand, got " + to_string(t));
      return Value::error();
    }
  } else if (t.dtype == DType::boolean) {
    c.error(a.range("x"), "arithmetic on bool: " + n + " of " + to_string(t)).note("convert with astype first");
    return Value::error();
  }
  // A weak operand gives a weak result, as lax's elementwise ops keep weak types (jnp.sqrt(2.0)
  // is a weak f32: `bf16_array * sqrt(2.0)` stays bf16); a weak int becomes a weak float.
  const bool weak = t.weak;
  if (kFloatUnary.count(n) && !shard::is_floating(t.dtype)) t = with_dtype(t, DType::f32);
  t.weak = weak;
  return c.emit(n, call, {x}, t);
}

// A static int operand must fit the dtype the operation computes in, as for the operators
// (checker_exprs.cpp): maximum(x_i32, 3000000000) would otherwise wrap the literal.
bool literals_fit(Checker& c, const Args& a, std::initializer_list<std::string_view> params, DType dtype) {
  for (std::string_view p : params) {
    if (auto msg = literal_fits(a[p], dtype)) {
      c.error(a.range(p), *msg).note("JAX raises OverflowError for the same; use an i64 operand");
      return false;
    }
  }
  return true;
}

Value binary(Checker& c, const ast::CallExpr& call) {
  Args a(c, call);
  if (!a.ok() || !c.need_array(a["a"], a.range("a"), a.argument_name("a")) ||
      !c.need_array(a["b"], a.range("b"), a.argument_name("b")))
    return Value::error();
  if (a["a"].type.dtype == DType::boolean && a["b"].type.dtype == DType::boolean && call.callee.name == "pow") {
    c.error(call.range, "arithmetic on bool: pow of bools");
    return Value::error();
  }
  // Only static numbers: the call is a rank-0 runtime array on the function's mesh (section 4),
  // as a unary function of one is, not a value of no mesh.
  Value x = a["a"];
  if (x.is_static_scalar() && a["b"].is_static_scalar()) x = c.materialize(x, call);
  auto t = checked(c, binary_op(call.callee.name, BinaryKind::arithmetic, x.type, a["b"].type), a, {"a", "b"});
  // integer_pow's static exponent (below) is a parameter, never converted to the base's dtype:
  // pow(x_i32, 2147483648) is JAX's integer_pow(x, 2147483648), not an int32 overflow.
  const bool static_int_exponent = call.callee.name == "pow" && a["b"].is_static_scalar() && a["b"].type.value &&
                                   std::holds_alternative<std::int64_t>(*a["b"].type.value);
  if (!t || !literals_fit(c, a, {"a"}, t->dtype) || (!static_int_exponent && !literals_fit(c, a, {"b"}, t->dtype)))
    return Value::error();
  // A static integer exponent makes JAX's power an integer_pow (any base dtype), which refuses
  // a negative one for an integer base and uses every bit of a positive one (an array exponent
  // wraps and uses six bits instead: docs/language.md section 6.7); a float base is multiplied
  // by repeated squaring, each product rounded, as lax.integer_pow does.
  if (call.callee.name == "pow" && t->dtype != DType::boolean && a["b"].is_static_scalar()) {
    const auto* e = a["b"].type.value ? std::get_if<std::int64_t>(&*a["b"].type.value) : nullptr;
    if (e && *e < 0 && shard::is_integer(t->dtype)) {
      c.error(a.range("b"), "Integers cannot be raised to negative powers: pow of " +
                                std::string(shard::dtype_name(t->dtype)) + " by " + std::to_string(*e))
          .note("JAX: jnp.power with a static exponent is lax.integer_pow, which raises this TypeError; convert "
                "the base to a float with astype, or pass the exponent as an array");
      return Value::error();
    }
    // The generated code and the evaluator pass an integer base's exponent in the base's dtype.
    // An int32 one past 2^31 - 1 is replaced by an exponent with the same power modulo 2^32:
    // for odd x, x^(2^30) = 1 (mod 2^32), and for even x any exponent from 32 on gives 0.
    if (e && t->dtype == DType::i32 && *e > std::numeric_limits<std::int32_t>::max()) {
      const std::int64_t same = (std::int64_t{1} << 30) + *e % (std::int64_t{1} << 30);
      return c.emit("integer_pow", call, {x, Value::static_value(make_static_int(same))}, *t, {{"exponent", same}});
    }
    if (e) return c.emit("integer_pow", call, {x, a["b"]}, *t, {{"exponent", *e}});
  }
  return c.emit(call.callee.name, call, {x, a["b"]}, *t);
}

Value where(Checker& c, const ast::CallExpr& call) {
  Args a(c, call);
  if (!a.ok()) return Value::error();
  for (auto p : {"cond", "a", "b"})
    if (!c.need_array(a[p], a.range(p), a.argument_name(p))) return Value::error();
  // Only static values: a rank-0 runtime array on the function's mesh, as in binary().
  Value cond = a["cond"];
  if (cond.is_static_scalar() && a["a"].is_static_scalar() && a["b"].is_static_scalar())
    cond = c.materialize(cond, call);
  // jnp.where takes a numeric condition as `cond != 0` (NaN is true).
  if (cond.type.kind == TypeKind::array && cond.type.dtype != DType::boolean) {
    const Value zero = c.materialize(Value::static_value(make_static_int(0)), call);
    auto ne = checked(c, binary_op("ne", BinaryKind::compare, cond.type, zero.type), a, {"cond", "cond"});
    if (!ne) return Value::error();
    cond = c.emit("ne", call, {cond, zero}, *ne);
  }
  auto t = checked(c, select_op(cond.type, a["a"].type, a["b"].type), a, {"cond", "a", "b"});
  if (!t || !literals_fit(c, a, {"a", "b"}, t->dtype)) return Value::error();
  return c.emit("select", call, {cond, a["a"], a["b"]}, *t);
}

Value astype(Checker& c, const ast::CallExpr& call) {
  Args a(c, call);
  if (!a.ok() || !c.need_array(a["x"], a.range("x"), a.argument_name("x"))) return Value::error();
  auto t = c.type_argument(a["dtype"], a.range("dtype"), "dtype");
  if (!t) return Value::error();
  if (t->kind != TypeKind::array || !t->dims.empty()) {
    c.error(a.range("dtype"), "astype takes a dtype name like f32, not the type " + to_string(*t));
    return Value::error();
  }
  // A static int converts as JAX converts a Python int: one that does not fit an integer dtype
  // is an OverflowError, not a wrapped value.
  if (shard::is_integer(t->dtype) && !literals_fit(c, a, {"x"}, t->dtype)) return Value::error();
  Value x = a["x"].is_static_scalar() ? c.materialize(a["x"], call) : a["x"];
  return c.emit("convert", call, {x}, with_dtype(x.type, t->dtype), {{"dtype", std::string(shard::dtype_short_name(t->dtype))}});
}

ReduceKind reduce_kind(std::string_view n) {
  if (n == "sum") return ReduceKind::sum;
  if (n == "prod") return ReduceKind::prod;
  if (n == "mean") return ReduceKind::mean;
  if (n == "max") return ReduceKind::max;
  if (n == "min") return ReduceKind::min;
  if (n == "argmax") return ReduceKind::argmax;
  return ReduceKind::argmin;
}

Value reduce(Checker& c, const ast::CallExpr& call) {
  const std::string& n = call.callee.name;
  bool arg = n == "argmax" || n == "argmin";
  Args a(c, call);  // argmax/argmin take one axis; the others' axis=None reduces every dimension
  if (!a.ok() || !c.need_array(a["x"], a.range("x"), a.argument_name("x"), false)) return Value::error();
  const Type& x = a["x"].type;
  std::vector<int> axes;
  if (a.has("axis")) {
    auto list = c.static_int_list(a["axis"], a.range("axis"), "axis=");
    if (!list) return Value::error();
    if (arg && list->size() != 1) {
      c.error(a.range("axis"), n + " takes a single axis");
      return Value::error();
    }
    for (auto v : *list) {
      auto r = normalize_axis(n, v, x.rank());
      if (!r) {
        c.report(r.error(), a.range("axis"));
        return Value::error();
      }
      if (std::find(axes.begin(), axes.end(), *r) != axes.end()) {
        c.error(a.range("axis"), n + ": axis " + std::to_string(*r) + " is named twice");
        return Value::error();
      }
      axes.push_back(*r);
    }
  }
  bool keepdims = false;
  if (a.has("keepdims")) {
    auto k = c.static_bool(a["keepdims"], a.range("keepdims"), "keepdims=");
    if (!k) return Value::error();
    keepdims = *k;
  }
  // axis=() reduces over no dimension; otherwise an empty `axes` means every one (axis=None).
  const bool reduces_nothing = a.has("axis") && axes.empty();
  std::optional<AxisList> pending;
  if (a.has("unreduced")) {
    // sum(..., unreduced=A): the sum over A's blocks stays pending (JAX's reduce_sum with an
    // unreduced out_sharding); A must be among the reduced dimensions' axes (none for axis=()).
    if (!require_global_argument(c, a, "unreduced")) return Value::error();
    pending = c.axis_group(a["unreduced"], a.range("unreduced"), "the axes of unreduced=");
    if (!pending) return Value::error();
    AxisSet reduced_axes = 0;  // a local operand has none
    for (int d = 0; d < x.rank() && !x.local && !reduces_nothing; ++d)
      if (axes.empty() || std::find(axes.begin(), axes.end(), d) != axes.end()) reduced_axes |= to_set(x.dims[d].axes);
    if (auto e = check_pending_reduction("sum", x, reduced_axes, to_set(*pending))) {
      c.report(*e, a.range("unreduced"));
      return Value::error();
    }
  }
  if (reduces_nothing) {
    // x itself, in the reduction's result dtype (NumPy's sum(x, axis=()) of bools is an int
    // array of the same shape); a pending sum of no reduced axes is none (checked above).
    auto whole = checked(c, reduce_op(n, reduce_kind(n), x, {}), a, {"x"});
    if (!whole) return Value::error();
    Type same = x;
    same.weak = false;
    return c.emit("convert", call, {a["x"]}, with_dtype(same, whole->dtype),
                  {{"dtype", std::string(shard::dtype_short_name(whole->dtype))}});
  }
  auto t = checked(c, reduce_op(n, reduce_kind(n), x, axes), a, {"x"});
  if (!t) return Value::error();
  if (keepdims) {
    std::vector<int> all = axes;
    if (all.empty())
      for (int i = 0; i < x.rank(); ++i) all.push_back(i);
    std::sort(all.begin(), all.end());
    for (int d : all) t->dims.insert(t->dims.begin() + d, Dim{1, {}});
  }
  std::vector<std::int64_t> attr_axes(axes.begin(), axes.end());
  std::map<std::string, Attr> attrs{{"axes", attr_axes}, {"keepdims", keepdims}};
  if (pending) {
    t->unreduced = to_set(*pending);
    if (!pending->empty()) attrs["unreduced"] = *pending;
  }
  return c.emit("reduce_" + n, call, {a["x"]}, *t, std::move(attrs));
}

Value softmax(Checker& c, const ast::CallExpr& call) {
  Args a(c, call);
  if (!a.ok() || !c.need_array(a["x"], a.range("x"), a.argument_name("x"), false)) return Value::error();
  auto axis = dim_argument(c, a, "axis", a["x"].type.rank(), -1);
  if (!axis) return Value::error();
  auto t = checked(c, softmax_op(a["x"].type, *axis), a, {"x"});
  if (!t) return Value::error();
  return c.emit("softmax", call, {a["x"]}, *t, {{"axis", std::int64_t{*axis}}});
}

Value top_k(Checker& c, const ast::CallExpr& call) {
  Args a(c, call);
  if (!a.ok() || !c.need_array(a["x"], a.range("x"), a.argument_name("x"), false)) return Value::error();
  auto k = c.static_int(a["k"], a.range("k"), "k");
  if (!k) return Value::error();
  auto t = checked(c, top_k_op(a["x"].type, *k), a, {"x"});
  if (!t) return Value::error();
  auto outs = c.emit_multi("top_k", call, {a["x"]}, t->elements, {{"k", *k}});
  Value v;
  v.kind = Value::Kind::seq;
  v.items = outs;
  return v;
}

Value contraction(Checker& c, const ast::CallExpr& call, const std::string& spec, const std::vector<Value>& ops,
                  const Args& a, std::initializer_list<std::string_view> operand_params) {
  std::optional<std::vector<AxisList>> out;
  if (a.has("out")) {
    if (!require_global_argument(c, a, "out")) return Value::error();
    auto parsed = parse_einsum(spec);
    int rank = parsed ? static_cast<int>(parsed->output.size()) : 0;
    out = c.sharding_list(a["out"], rank, a.range("out"));
    if (!out) return Value::error();
  }
  std::vector<Type> types;
  for (const Value& v : ops) types.push_back(v.type);
  std::optional<AxisList> unreduced;
  if (a.has("unreduced")) {
    if (!require_global_argument(c, a, "unreduced")) return Value::error();
    unreduced = c.axis_group(a["unreduced"], a.range("unreduced"), "the axes of unreduced=");
    if (!unreduced) return Value::error();
  }
  auto r = unreduced && !unreduced->empty() ? unreduced_einsum_op(spec, types, *unreduced, out)
                                            : einsum_op(spec, types, out);
  if (!r) {
    std::vector<SourceRange> ranges;
    for (auto p : operand_params) ranges.push_back(a.range(p));
    RuleError e = r.error();
    if (out && (e.cls == ErrorClass::not_divisible || e.cls == ErrorClass::duplicate_type_axis ||
                e.cls == ErrorClass::shape_mismatch))
      c.report(e, a.range("out"));
    else
      c.report(e, call.range, ranges);
    return Value::error();
  }
  // The spec without its spaces (which it may have, as in numpy): code generation and the
  // runtime read the attribute as letters, commas and "->" only.
  std::string compact = spec;
  std::erase(compact, ' ');
  std::map<std::string, Attr> attrs{{"spec", compact}};
  if (out) attrs["out"] = *out;
  if (unreduced && !unreduced->empty()) attrs["unreduced"] = *unreduced;
  return c.emit("einsum", call, ops, *r, std::move(attrs));
}

Value einsum(Checker& c, const ast::CallExpr& call) {
  Args a(c, call);
  if (!a.ok()) return Value::error();
  if (a["spec"].kind != Value::Kind::string) {
    c.error(a.range("spec"), "einsum's first argument must be a spec string like \"bd,df->bf\"");
    return Value::error();
  }
  if (a.has("out") && a["out"].is_array()) {
    // A third operand binds to `out` by position; "a sharding must be a list" would puzzle.
    c.error(a.range("out"), "einsum takes one or two operands; the argument after them is the out= sharding")
        .note("contract three operands in two steps: einsum(\"ij,jk->ik\", einsum(\"ij,jk->ik\", a, b), c)");
    return Value::error();
  }
  std::vector<Value> ops{a["a"]};
  if (a.has("b")) ops.push_back(a["b"]);
  for (std::size_t i = 0; i < ops.size(); ++i)
    if (!c.need_array(ops[i], a.range(i ? "b" : "a"), "an einsum operand", false)) return Value::error();
  return contraction(c, call, a["spec"].text, ops, a, {"a", "b"});
}

Value matmul(Checker& c, const ast::CallExpr& call) {
  Args a(c, call);
  if (!a.ok() || !c.need_array(a["a"], a.range("a"), a.argument_name("a"), false) ||
      !c.need_array(a["b"], a.range("b"), a.argument_name("b"), false))
    return Value::error();
  auto spec = matmul_spec(a["a"].type, a["b"].type);
  if (!spec) {
    c.report(spec.error(), call.range);
    return Value::error();
  }
  return contraction(c, call, *spec, {a["a"], a["b"]}, a, {"a", "b"});
}

}  // namespace

BuiltinList math_builtins() {
  BuiltinList l;
  const Builtin one_operand{unary, {{"x"}, 1}};
  for (auto n : {"abs", "sign", "square", "relu", "floor", "ceil", "round", "logical_not"})
    l.emplace_back(n, one_operand);
  for (auto n : kFloatUnary) l.emplace_back(n, one_operand);
  for (auto n : {"maximum", "minimum", "pow"}) l.emplace_back(n, Builtin{binary, {{"a", "b"}, 2}});
  l.emplace_back("where", Builtin{where, {{"cond", "a", "b"}, 3}});
  l.emplace_back("astype", Builtin{astype, {{"x", "dtype"}, 2}});
  // The reductions' axis=None reduces every dimension; argmax/argmin take exactly one axis.
  l.emplace_back("sum", Builtin{reduce, {{"x", "axis", "keepdims", "unreduced"}, 1, {"axis", "unreduced"}}});
  for (auto n : {"prod", "mean", "max", "min"})
    l.emplace_back(n, Builtin{reduce, {{"x", "axis", "keepdims"}, 1, {"axis"}}});
  for (auto n : {"argmax", "argmin"}) l.emplace_back(n, Builtin{reduce, {{"x", "axis", "keepdims"}, 2}});
  l.emplace_back("softmax", Builtin{softmax, {{"x", "axis"}, 1}});
  l.emplace_back("top_k", Builtin{top_k, {{"x", "k"}, 2}});
  l.emplace_back("einsum", Builtin{einsum, {{"spec", "a", "b", "out", "unreduced"}, 2, {"b", "out", "unreduced"}}});
  l.emplace_back("matmul", Builtin{matmul, {{"a", "b", "out", "unreduced"}, 2, {"out", "unreduced"}}});
  return l;
}

}  // namespace shardc::check

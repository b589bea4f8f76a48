// Shape ops, layout changes, constructors and axis_size.
#include <cmath>
#include <cstdio>

#include "frontend/check/builtins.h"
#include "frontend/check/checked_math.h"
#include "frontend/check/dtype_rules.h"
#include "frontend/check/rules_reduce.h"
#include "frontend/check/rules_shape.h"
#include "frontend/check/sharding_spec.h"

namespace shardc::check {
namespace {

bool array_arg(Checker& c, const Args& a, std::string_view p) {
  return c.need_array(a[p], a.range(p), a.argument_name(p), false);
}

Value reshape(Checker& c, const ast::CallExpr& call) {
  Args a(c, call);
  if (!a.ok() || !array_arg(c, a, "x")) return Value::error();
  auto sizes = c.static_int_list(a["shape"], a.range("shape"), "the shape of reshape");
  if (!sizes) return Value::error();
  if (!a.has("out")) {
    auto t = checked(c, reshape_op(a["x"].type, *sizes), a, {"x"});
    if (!t) return Value::error();
    return c.emit("reshape", call, {a["x"]}, *t, {{"shape", t->shape()}});
  }
  // out= wins over the sharding rule, as JAX's out_sharding does: the result is the operand's
  // global reshape, laid out as asked (code generation moves the data it must).
  if (!require_global_argument(c, a, "out")) return Value::error();
  Type unsharded = a["x"].type;
  for (Dim& d : unsharded.dims) d.axes.clear();
  auto shaped = checked(c, reshape_op(unsharded, *sizes), a, {"x"});
  if (!shaped) return Value::error();
  auto spec = c.sharding_list(a["out"], shaped->rank(), a.range("out"));
  if (!spec) return Value::error();
  auto t = checked(c, reshard_op(*shaped, *spec, "reshape"), a, {"x", "out"});
  if (!t) return Value::error();
  return c.emit("reshape", call, {a["x"]}, *t, {{"shape", t->shape()}, {"out", *spec}});
}

Value broadcast_to(Checker& c, const ast::CallExpr& call) {
  Args a(c, call);
  if (!a.ok() || !c.need_array(a["x"], a.range("x"), a.argument_name("x"))) return Value::error();
  auto shape = c.static_int_list(a["shape"], a.range("shape"), "the shape of broadcast_to");
  if (!shape) return Value::error();
  Value x = a["x"].is_static_scalar() ? c.materialize(a["x"], call) : a["x"];
  auto t = checked(c, broadcast_to_op(x.type, *shape), a, {"x"});
  if (!t) return Value::error();
  return c.emit("broadcast_to", call, {x}, *t, {{"shape", *shape}});
}

Value transpose(Checker& c, const ast::CallExpr& call) {
  Args a(c, call);
  if (!a.ok() || !array_arg(c, a, "x")) return Value::error();
  std::vector<std::int64_t> perm;
  if (a.has("perm")) {
    auto p = c.static_int_list(a["perm"], a.range("perm"), "perm=");
    if (!p) return Value::error();
    perm = *p;
    // Negative entries count from the end, as jnp.transpose's axes do.
    const std::int64_t rank = a["x"].type.rank();
    for (std::int64_t& axis : perm)
      if (axis < 0 && axis >= -rank) axis += rank;
  } else {
    for (int i = a["x"].type.rank() - 1; i >= 0; --i) perm.push_back(i);
  }
  auto t = checked(c, transpose_op(a["x"].type, perm), a, {"x"});
  if (!t) return Value::error();
  return c.emit("transpose", call, {a["x"]}, *t, {{"perm", perm}});
}

Value expand_squeeze(Checker& c, const ast::CallExpr& call) {
  bool expand = call.callee.name == "expand_dims";
  Args a(c, call);
  if (!a.ok() || !array_arg(c, a, "x")) return Value::error();
  auto axis = dim_argument(c, a, "axis", a["x"].type.rank(), 0, expand);
  if (!axis) return Value::error();
  auto t = checked(c, expand ? expand_dims_op(a["x"].type, *axis) : squeeze_op(a["x"].type, *axis), a, {"x"});
  if (!t) return Value::error();
  return c.emit(call.callee.name, call, {a["x"]}, *t, {{"axis", std::int64_t{*axis}}});
}

bool integer_start(Checker& c, const Value& v, const SourceRange& r) {
  if (v.is_static_scalar() && std::holds_alternative<std::int64_t>(*v.type.value)) return true;
  if (v.is_array() && v.type.rank() == 0 && shard::is_integer(v.type.dtype)) return true;
  c.error(r, "a start index must be an integer scalar (static or per-device)").note(Checker::describe_dynamic(v));
  return false;
}

Value dynamic_slice(Checker& c, const ast::CallExpr& call) {
  Args a(c, call);
  if (!a.ok() || !array_arg(c, a, "x")) return Value::error();
  Type t = a["x"].type;
  std::vector<Value> inputs{a["x"]};
  if (a["start"].kind == Value::Kind::seq) {
    if (a.has("axis")) {
      c.error(a.range("axis"), "axis= is only for a single start; tuples give one start per dimension");
      return Value::error();
    }
    auto sizes = c.static_int_list(a["size"], a.range("size"), "the sizes of dynamic_slice");
    if (!sizes) return Value::error();
    if (a["start"].items.size() != static_cast<std::size_t>(t.rank()) || sizes->size() != a["start"].items.size()) {
      c.error(call.range, "dynamic_slice needs one start and one size per dimension of " + to_string(t));
      return Value::error();
    }
    for (int d = 0; d < t.rank(); ++d) {
      if (!integer_start(c, a["start"].items[d], a.range("start"))) return Value::error();
      inputs.push_back(a["start"].items[d]);
    }
    auto r = checked(c, dynamic_slice_op(t, *sizes), a, {"x"});
    if (!r) return Value::error();
    return c.emit("dynamic_slice", call, inputs, varying_with_starts(*r, inputs), {{"sizes", *sizes}});
  }
  if (!integer_start(c, a["start"], a.range("start"))) return Value::error();
  auto size = c.static_int(a["size"], a.range("size"), "the size of dynamic_slice");
  auto axis = dim_argument(c, a, "axis", t.rank(), 0);
  if (!size || !axis) return Value::error();
  auto r = checked(c, dynamic_slice_op(t, *axis, *size), a, {"x"});
  if (!r) return Value::error();
  inputs.push_back(a["start"]);
  return c.emit("dynamic_slice", call, inputs, varying_with_starts(*r, inputs),
                {{"axis", std::int64_t{*axis}}, {"size", *size}});
}

Value dynamic_update_slice(Checker& c, const ast::CallExpr& call) {
  Args a(c, call);
  if (!a.ok() || !array_arg(c, a, "x") || !array_arg(c, a, "update")) return Value::error();
  std::vector<Value> inputs{a["x"], a["update"]};
  int axis = 0;
  if (a["start"].kind == Value::Kind::seq) {
    for (const Value& s : a["start"].items) {
      if (!integer_start(c, s, a.range("start"))) return Value::error();
      inputs.push_back(s);
    }
    if (a["start"].items.size() != static_cast<std::size_t>(a["x"].type.rank())) {
      c.error(a.range("start"), "dynamic_update_slice needs one start per dimension");
      return Value::error();
    }
    axis = -1;
  } else {
    if (!integer_start(c, a["start"], a.range("start"))) return Value::error();
    auto ax = dim_argument(c, a, "axis", a["x"].type.rank(), 0);
    if (!ax) return Value::error();
    axis = *ax;
    inputs.push_back(a["start"]);
  }
  Result<Type> r = dynamic_update_slice_op(a["x"].type, a["update"].type);
  auto t = checked(c, r, a, {"x", "update"});
  if (!t) return Value::error();
  return c.emit("dynamic_update_slice", call, inputs, varying_with_starts(*t, inputs), {{"axis", std::int64_t{axis}}});
}

std::optional<std::vector<Value>> array_tuple(Checker& c, const Args& a, std::string_view p) {
  const Value& v = a[p];
  if (v.kind != Value::Kind::seq || v.items.empty()) {
    c.error(a.range(p), a.call().callee.name + " takes a tuple of arrays: " + a.call().callee.name + "((a, b), axis=0)");
    return std::nullopt;
  }
  for (const Value& i : v.items)
    if (!c.need_array(i, a.range(p), "each operand", false)) return std::nullopt;
  return v.items;
}

Value concat(Checker& c, const ast::CallExpr& call) {
  Args a(c, call);
  if (!a.ok()) return Value::error();
  auto xs = array_tuple(c, a, "xs");
  if (!xs) return Value::error();
  auto axis = dim_argument(c, a, "axis", xs->front().type.rank(), 0);
  if (!axis) return Value::error();
  std::vector<Type> ts;
  for (const Value& v : *xs) ts.push_back(v.type);
  auto r = concat_op(ts, *axis);
  if (!r) {
    c.report(r.error(), a.range("xs"));
    return Value::error();
  }
  return c.emit("concat", call, *xs, *r, {{"axis", std::int64_t{*axis}}});
}

Value stack(Checker& c, const ast::CallExpr& call) {
  Args a(c, call);
  if (!a.ok()) return Value::error();
  auto xs = array_tuple(c, a, "xs");
  if (!xs) return Value::error();
  auto axis = dim_argument(c, a, "axis", xs->front().type.rank(), 0, true);
  if (!axis) return Value::error();
  std::vector<Type> ts;
  for (const Value& v : *xs) ts.push_back(v.type);
  auto r = stack_op(ts, *axis);
  if (!r) {
    c.report(r.error(), a.range("xs"));
    return Value::error();
  }
  return c.emit("stack", call, *xs, *r, {{"axis", std::int64_t{*axis}}});
}

Value roll(Checker& c, const ast::CallExpr& call) {
  Args a(c, call);
  if (!a.ok() || !array_arg(c, a, "x")) return Value::error();
  auto shift = c.static_int(a["shift"], a.range("shift"), "the shift of roll");
  auto axis = dim_argument(c, a, "axis", a["x"].type.rank(), 0);
  if (!shift || !axis) return Value::error();
  auto t = checked(c, roll_op(a["x"].type, *axis), a, {"x"});
  if (!t) return Value::error();
  return c.emit("roll", call, {a["x"]}, *t, {{"shift", *shift}, {"axis", std::int64_t{*axis}}});
}

Value reshard(Checker& c, const ast::CallExpr& call) {
  if (!require_global(c, call)) return Value::error();
  bool assert_only = call.callee.name == "constrain";
  Args a(c, call);
  if (!a.ok() || !array_arg(c, a, "x")) return Value::error();
  auto spec = c.sharding_list(a["sharding"], a["x"].type.rank(), a.range("sharding"));
  if (!spec) return Value::error();
  auto t = checked(c, reshard_op(a["x"].type, *spec, call.callee.name), a, {"x", "sharding"});
  if (!t) return Value::error();
  if (assert_only && c.mesh() && !c.mesh()->auto_mode && !(*t == a["x"].type)) {
    c.error(call.range, "constrain: " + to_string(a["x"].type) + " does not have sharding " +
                            format_spec(*c.mesh(), t->dims))
        .note("on an explicit mesh constrain is an assertion; use reshard to change the layout");
    return Value::error();
  }
  return c.emit("reshard", call, {a["x"]}, *t, {{"sharding", *spec}});
}

Value constructor(Checker& c, const ast::CallExpr& call) {
  const std::string& n = call.callee.name;
  bool like = n == "zeros_like" || n == "ones_like";
  bool full = n == "full";
  Args a(c, call);
  if (!a.ok()) return Value::error();
  Type t;
  if (like) {
    if (!array_arg(c, a, "x")) return Value::error();
    t = a["x"].type;
  } else {
    auto tt = c.type_argument(a["type"], a.range("type"), "the type of " + n);
    if (!tt) return Value::error();
    if (tt->kind != TypeKind::array) {
      c.error(a.range("type"), n + " builds arrays, not " + to_string(*tt));
      return Value::error();
    }
    t = *tt;
  }
  std::vector<Value> inputs;
  std::map<std::string, Attr> attrs{{"type", t}};
  if (full) {
    const Value& v = a["value"];
    if (!(v.is_static_scalar() || (v.is_array() && v.type.rank() == 0))) {
      c.error(a.range("value"), "the fill value of full must be a scalar").note(Checker::describe_dynamic(v));
      return Value::error();
    }
    if (auto msg = literal_fits(v, t.dtype)) {
      c.error(a.range("value"), *msg).note("JAX raises OverflowError for the same; use an i64 array");
      return Value::error();
    }
    inputs.push_back(v);
    if (v.is_array()) t.varying |= v.type.varying;
  }
  return c.emit(like ? (n == "zeros_like" ? "zeros" : "ones") : n, call, inputs, t, std::move(attrs));
}

Value arange(Checker& c, const ast::CallExpr& call) {
  Args a(c, call);
  if (!a.ok()) return Value::error();
  auto num = [&](std::string_view p, double fallback, bool& is_int) -> std::optional<double> {
    if (!a.has(p)) return fallback;
    const Value& v = a[p];
    if (v.is_static_scalar() && std::holds_alternative<double>(*v.type.value)) is_int = false;
    return c.static_number(v, a.range(p), std::string("arange's ") + std::string(p));
  };
  bool all_int = true;
  auto first = num("start", 0, all_int);
  auto stop = a.has("stop") ? num("stop", 0, all_int) : first;
  auto start = a.has("stop") ? first : std::optional<double>(0.0);
  auto step = num("step", 1, all_int);
  if (!first || !stop || !start || !step) return Value::error();
  if (all_int) {
    // The bounds travel as doubles (attributes, the evaluator, the runtime's iota), exact only
    // up to 2^53.
    for (double v : {*start, *stop, *step}) {
      if (std::fabs(v) > 9007199254740992.0) {
        c.error(call.range, "arange's integer bounds must lie within +-2^53 (9007199254740992)");
        return Value::error();
      }
    }
  }
  if (*step == 0) {
    c.error(a.range("step"), "arange's step must not be 0");
    return Value::error();
  }
  double count = std::ceil((*stop - *start) / *step);
  if (count < 0) count = 0;
  if (count > 9.0e15) {
    c.error(call.range, "arange would have too many elements");
    return Value::error();
  }
  DType dt = all_int ? DType::i32 : DType::f32;
  if (a.has("dtype")) {
    auto t = c.type_argument(a["dtype"], a.range("dtype"), "dtype=");
    if (!t) return Value::error();
    dt = t->dtype;
  }
  if (count > 0 && (dt == DType::i32 || dt == DType::i64)) {
    // Every value must fit the dtype, as for any static number (section 7): the first and last
    // are the extremes. They are NumPy's (shard::arange_int_fill): the first two elements are
    // start and start + step truncated, and the rest step by their difference.
    const double first = std::trunc(*start);
    const double last = first + (count - 1) * (std::trunc(*start + *step) - first);
    // Both are whole numbers: [lo, end) with end = 2^31 or 2^63, each exact as a double (the
    // largest i64, 2^63 - 1, is not: it rounds up to 2^63).
    const double lo = dt == DType::i32 ? -2147483648.0 : -9223372036854775808.0;
    const double end = dt == DType::i32 ? 2147483648.0 : 9223372036854775808.0;
    for (double v : {first, last}) {
      if (v < lo || v >= end) {
        char text[32];
        std::snprintf(text, sizeof text, "%.0f", v);
        auto d = c.error(call.range, std::string("arange's value ") + text + " does not fit " +
                                     std::string(shard::dtype_name(dt)));
        if (dt == DType::i32) d.note("give dtype=i64 for a wider range");
        return Value::error();
      }
    }
  }
  Type t = make_array(dt, {Dim{static_cast<std::int64_t>(count), {}}}, c.mesh());
  t.local = c.manual();
  std::map<std::string, Attr> attrs{{"start", *start}, {"stop", *stop}, {"step", *step}};
  if (a.has("out")) {
    if (!require_global_argument(c, a, "out")) return Value::error();
    auto spec = c.sharding_list(a["out"], 1, a.range("out"));
    if (!spec) return Value::error();
    auto r = checked(c, reshard_op(t, *spec, "arange"), a, {"start", "out"});
    if (!r) return Value::error();
    t = *r;
    attrs["out"] = *spec;
  }
  return c.emit("arange", call, {}, t, std::move(attrs));
}

Value axis_size(Checker& c, const ast::CallExpr& call) {
  Args a(c, call);
  if (!a.ok()) return Value::error();
  if (!c.mesh()) {
    c.error(call.range, "axis_size needs a mesh: use it inside a function");
    return Value::error();
  }
  auto axes = c.axis_group(a["axes"], a.range("axes"), "the axes of axis_size");
  if (!axes) return Value::error();
  return Value::static_value(make_static_int(axes_product(*c.mesh(), *axes)));
}

Value slice_fn(Checker& c, const ast::CallExpr& call) {
  Args a(c, call);
  if (!a.ok() || !array_arg(c, a, "x")) return Value::error();
  auto start = c.static_int(a["start"], a.range("start"), "the start of slice");
  auto stop = c.static_int(a["stop"], a.range("stop"), "the stop of slice");
  auto axis = dim_argument(c, a, "axis", a["x"].type.rank(), 0);
  std::int64_t step = 1;
  if (a.has("step")) {
    auto s = c.static_int(a["step"], a.range("step"), "the step of slice");
    if (!s) return Value::error();
    step = *s;
  }
  if (!start || !stop || !axis) return Value::error();
  std::vector<SliceDim> dims(*axis + 1);
  dims[*axis] = SliceDim{*start, *stop, step, false};
  auto t = checked(c, slice_op(a["x"].type, dims), a, {"x"});
  if (!t) return Value::error();
  // The same op as x[start:stop:step] on that axis, so that every later stage knows one form.
  SliceBounds b = slice_bounds(a["x"].type, dims);
  return c.emit("slice", call, {a["x"]}, *t,
                {{"starts", std::move(b.starts)},
                 {"limits", std::move(b.limits)},
                 {"steps", std::move(b.steps)},
                 {"squeezed", std::move(b.squeezed)}});
}

}  // namespace

Type varying_with_starts(Type t, const std::vector<Value>& inputs) {
  for (const Value& v : inputs)
    if (v.is_array()) t.varying |= v.type.varying;
  return t;
}

BuiltinList shape_builtins() {
  return {{"reshape", {reshape, {{"x", "shape", "out"}, 2, {"out"}}}},
          {"transpose", {transpose, {{"x", "perm"}, 1, {"perm"}}}},
          {"broadcast_to", {broadcast_to, {{"x", "shape"}, 2}}},
          {"expand_dims", {expand_squeeze, {{"x", "axis"}, 2}}},
          {"squeeze", {expand_squeeze, {{"x", "axis"}, 2}}},
          {"dynamic_slice", {dynamic_slice, {{"x", "start", "size", "axis"}, 3}}},
          {"dynamic_update_slice", {dynamic_update_slice, {{"x", "update", "start", "axis"}, 3}}},
          {"concat", {concat, {{"xs", "axis"}, 1}}},
          {"stack", {stack, {{"xs", "axis"}, 1}}},
          {"roll", {roll, {{"x", "shift", "axis"}, 3}}},
          {"reshard", {reshard, {{"x", "sharding"}, 2}}},
          {"constrain", {reshard, {{"x", "sharding"}, 2}}},
          {"zeros", {constructor, {{"type"}, 1}}},
          {"ones", {constructor, {{"type"}, 1}}},
          {"full", {constructor, {{"type", "value"}, 2}}},
          {"zeros_like", {constructor, {{"x"}, 1}}},
          {"ones_like", {constructor, {{"x"}, 1}}},
          {"arange", {arange, {{"start", "stop", "step", "dtype", "out"}, 1, {"stop", "dtype", "out"}}}},
          {"axis_size", {axis_size, {{"axes"}, 1}}},
          {"slice", {slice_fn, {{"x", "start", "stop", "axis", "step"}, 3}}}};
}

}  // namespace shardc::check

// Random numbers as JAX makes them: keys, split, fold_in, uniform, normal. Keys are
// replicated in a func; in a shard_map a key varies as the data folded into it does.
// `split` of an array (equal parts) shares the name and lives here too.
#include "frontend/check/builtins.h"
#include "frontend/check/rules_shape.h"

namespace shardc::check {
namespace {

bool integer_scalar(Checker& c, const Value& v, const SourceRange& r, std::string_view what) {
  if (v.is_error()) return false;
  if (v.is_static_scalar() && std::holds_alternative<std::int64_t>(*v.type.value)) return true;
  if (v.is_array() && v.type.rank() == 0 && shard::is_integer(v.type.dtype)) return true;
  c.error(r, std::string(what) + " must be an integer scalar").note(Checker::describe_dynamic(v));
  return false;
}

bool key_arg(Checker& c, const Args& a, std::string_view p) {
  const Value& v = a[p];
  if (v.kind == Value::Kind::typed && v.type.kind == TypeKind::key) return true;
  c.error(a.range(p), a.call().callee.name + " needs a key, made by key(seed)").note(Checker::describe_dynamic(v));
  return false;
}

Type key_type(Checker& c, AxisSet varying) {
  Type k = make_key(c.mesh(), c.manual());
  k.varying = c.manual() ? varying : 0;
  return k;
}

Value key(Checker& c, const ast::CallExpr& call) {
  Args a(c, call);
  if (!a.ok() || !integer_scalar(c, a["seed"], a.range("seed"), "the seed")) return Value::error();
  return c.emit("key", call, {a["seed"]}, key_type(c, a["seed"].type.varying));
}

Value split_array(Checker& c, const ast::CallExpr& call, const Args& a) {
  auto n = c.static_int(a["n"], a.range("n"), "the count of split");
  auto axis = dim_argument(c, a, "axis", a["x"].type.rank(), 0);
  if (!n || !axis) return Value::error();
  std::int64_t size = a["x"].type.dims[*axis].size;
  if (*n < 1 || *n > 65'536) {
    c.error(a.range("n"), "split: the count must be between 1 and 65536, got " + std::to_string(*n));
    return Value::error();
  }
  if (size % *n != 0) {
    c.error(a.range("n"), "split: dimension " + std::to_string(*axis) + " of size " + std::to_string(size) +
                              " does not split into " + std::to_string(*n) + " equal parts");
    return Value::error();
  }
  std::vector<SliceDim> dims(*axis + 1);
  dims[*axis] = SliceDim{0, size / *n, 1, false};
  auto part = checked(c, slice_op(a["x"].type, dims, "split"), a, {"x"});
  if (!part) return Value::error();
  Value v;
  v.kind = Value::Kind::seq;
  v.items = c.emit_multi("split", call, {a["x"]}, std::vector<Type>(*n, *part),
                         {{"axis", std::int64_t{*axis}}, {"n", *n}});
  return v;
}

Value split(Checker& c, const ast::CallExpr& call) {
  if (!call.args.empty() && !call.args[0].keyword) {
    // One name, two functions: the first argument's kind decides (evaluated once).
    Args a(c, call);
    if (!a.ok()) return Value::error();
    if (a["x"].is_array()) {
      if (!a.has("n")) {
        c.error(call.range, "split of an array needs the number of parts: split(x, n, axis=0)");
        return Value::error();
      }
      return split_array(c, call, a);
    }
    if (a.has("axis")) {
      c.error(a.range("axis"), "split of a key takes no axis=");
      return Value::error();
    }
    if (!key_arg(c, a, "x")) return Value::error();
    std::int64_t n = 2;
    if (a.has("n")) {
      auto v = c.static_int(a["n"], a.range("n"), "the count of split");
      if (!v) return Value::error();
      n = *v;
    }
    if (n < 1 || n > 65'536) {
      c.error(a.range("n"), "split count must be between 1 and 65536, got " + std::to_string(n));
      return Value::error();
    }
    Value v;
    v.kind = Value::Kind::seq;
    v.items = c.emit_multi("split_key", call, {a["x"]}, std::vector<Type>(n, a["x"].type), {{"n", n}});
    return v;
  }
  c.error(call.range, "split takes a key or an array as its first, positional argument");
  return Value::error();
}

Value fold_in(Checker& c, const ast::CallExpr& call) {
  Args a(c, call);
  if (!a.ok() || !key_arg(c, a, "k") || !integer_scalar(c, a["data"], a.range("data"), "the data of fold_in"))
    return Value::error();
  return c.emit("fold_in", call, {a["k"], a["data"]}, key_type(c, a["k"].type.varying | a["data"].type.varying));
}

Value sample(Checker& c, const ast::CallExpr& call) {
  bool uniform = call.callee.name == "uniform";
  Args a(c, call);
  if (!a.ok() || !key_arg(c, a, "k")) return Value::error();
  auto t = c.type_argument(a["type"], a.range("type"), "the type of " + call.callee.name);
  if (!t) return Value::error();
  if (t->kind != TypeKind::array || t->dtype != DType::f32) {
    c.error(a.range("type"), call.callee.name + " makes f32 arrays, not " + to_string(*t))
        .note("convert the result with astype");
    return Value::error();
  }
  std::map<std::string, Attr> attrs{{"type", *t}};
  if (uniform) {
    double lo = 0, hi = 1;
    if (a.has("min")) {
      auto v = c.static_number(a["min"], a.range("min"), "min=");
      if (!v) return Value::error();
      lo = *v;
    }
    if (a.has("max")) {
      auto v = c.static_number(a["max"], a.range("max"), "max=");
      if (!v) return Value::error();
      hi = *v;
    }
    attrs["min"] = lo;
    attrs["max"] = hi;
  }
  Type r = *t;
  r.varying |= a["k"].type.varying;
  return c.emit(call.callee.name, call, {a["k"]}, r, std::move(attrs));
}

}  // namespace

BuiltinList random_builtins() {
  return {{"key", {key, {{"seed"}, 1}}},
          {"split", {split, {{"x", "n", "axis"}, 1}}},
          {"fold_in", {fold_in, {{"k", "data"}, 2}}},
          {"uniform", {sample, {{"k", "type", "min", "max"}, 2}}},
          {"normal", {sample, {{"k", "type"}, 2}}}};
}

}  // namespace shardc::check

// Manual-mode built-ins: axis_index, all-reductions, gathers, scatters, permutes,
// all_to_all and pvary. Each checks its axis group, then applies rules_collectives.
#include "frontend/check/builtins.h"
#include "frontend/check/checked_math.h"
#include "frontend/check/rules_collectives.h"

namespace shardc::check {
namespace {

std::optional<AxisList> group(Checker& c, const Args& a) {
  return c.axis_group(a["axes"], a.range("axes"), "the axes of " + a.call().callee.name);
}

bool local_array(Checker& c, const Args& a, std::string_view p) {
  return c.need_array(a[p], a.range(p), a.argument_name(p), false);
}

Value axis_index(Checker& c, const ast::CallExpr& call) {
  if (!require_manual(c, call)) return Value::error();
  Args a(c, call);
  if (!a.ok()) return Value::error();
  auto axes = group(c, a);
  if (!axes) return Value::error();
  return c.emit("axis_index", call, {}, axis_index_type(*c.mesh(), *axes), {{"axes", *axes}});
}

// psum of a static number folds to n * x, as JAX folds psum(1, 'i') to the axis size, and pmean
// (psum(x) / psum(1)) to n * x / n: a Python float in JAX, so a weak f32 here (bf16 +
// pmean(3, 'i') stays bf16; Python divides the two ints exactly, giving float(x)). nullopt: not
// folded (a bool is reduced as an array).
std::optional<Value> fold_static(Checker& c, const ast::CallExpr& call, const StaticValue& v, std::int64_t size) {
  const bool mean = call.callee.name == "pmean";
  const double n = static_cast<double>(size);
  if (auto* i = std::get_if<std::int64_t>(&v)) {
    if (mean) return Value::static_value(make_static_float(static_cast<double>(*i)));
    auto p = checked_mul(*i, size);
    if (!p) {
      c.error(call.range, "static psum overflows 64 bits");
      return Value::error();
    }
    return Value::static_value(make_static_int(*p));
  }
  if (auto* d = std::get_if<double>(&v)) return Value::static_value(make_static_float(mean ? *d * n / n : *d * n));
  return std::nullopt;
}

Value all_reduce(Checker& c, const ast::CallExpr& call) {
  const std::string& n = call.callee.name;
  Args a(c, call);
  if (!a.ok()) return Value::error();
  if ((n == "psum" || n == "pmean") && a["x"].is_static_scalar() && c.mesh()) {
    auto axes = group(c, a);
    if (!axes) return Value::error();
    if (auto folded = fold_static(c, call, *a["x"].type.value, group_size(*c.mesh(), *axes))) return *folded;
  }
  if (!require_manual(c, call)) return Value::error();
  auto axes = group(c, a);
  if (!axes) return Value::error();
  Value x = a["x"].is_static_scalar() ? c.materialize(a["x"], call) : a["x"];
  if (!c.need_array(x, a.range("x"), a.argument_name("x"), false)) return Value::error();
  AllReduceKind kind = n == "psum" ? AllReduceKind::sum
                       : n == "pmean" ? AllReduceKind::mean
                       : n == "pmax" ? AllReduceKind::max
                                     : AllReduceKind::min;
  auto t = checked(c, all_reduce_op(n, kind, x.type, *axes), a, {"x"});
  if (!t) return Value::error();
  return c.emit(n, call, {x}, *t, {{"axes", *axes}});
}

std::optional<bool> tiled_arg(Checker& c, const Args& a) {
  if (!a.has("tiled")) return false;
  return c.static_bool(a["tiled"], a.range("tiled"), "tiled=");
}

Value all_gather(Checker& c, const ast::CallExpr& call) {
  if (!require_manual(c, call)) return Value::error();
  bool invariant = call.callee.name == "all_gather_invariant";
  Args a(c, call);
  if (!a.ok() || !local_array(c, a, "x")) return Value::error();
  auto axes = group(c, a);
  auto tiled = tiled_arg(c, a);
  if (!axes || !tiled) return Value::error();
  auto axis = dim_argument(c, a, "axis", a["x"].type.rank(), 0, !*tiled);
  if (!axis) return Value::error();
  auto t = checked(c, all_gather_op(a["x"].type, *axes, *axis, *tiled, invariant, !c.unchecked()), a, {"x"});
  if (!t) return Value::error();
  return c.emit(call.callee.name, call, {a["x"]}, *t,
                {{"axes", *axes}, {"axis", std::int64_t{*axis}}, {"tiled", *tiled}});
}

Value psum_scatter(Checker& c, const ast::CallExpr& call) {
  if (!require_manual(c, call)) return Value::error();
  Args a(c, call);
  if (!a.ok() || !local_array(c, a, "x")) return Value::error();
  auto axes = group(c, a);
  auto tiled = tiled_arg(c, a);
  auto dim = dim_argument(c, a, "dim", a["x"].type.rank(), 0);
  if (!axes || !tiled || !dim) return Value::error();
  auto t = checked(c, psum_scatter_op(a["x"].type, *axes, *dim, *tiled), a, {"x"});
  if (!t) return Value::error();
  return c.emit("psum_scatter", call, {a["x"]}, *t, {{"axes", *axes}, {"dim", std::int64_t{*dim}}, {"tiled", *tiled}});
}

Value all_to_all(Checker& c, const ast::CallExpr& call) {
  if (!require_manual(c, call)) return Value::error();
  Args a(c, call);
  if (!a.ok() || !local_array(c, a, "x")) return Value::error();
  auto axes = group(c, a);
  auto tiled = tiled_arg(c, a);
  int rank = a["x"].type.rank();
  auto split = dim_argument(c, a, "split", rank, 0);
  auto concat = dim_argument(c, a, "concat", rank, 0);
  if (!axes || !tiled || !split || !concat) return Value::error();
  auto t = checked(c, all_to_all_op(a["x"].type, *axes, *split, *concat, *tiled), a, {"x"});
  if (!t) return Value::error();
  return c.emit("all_to_all", call, {a["x"]}, *t,
                {{"axes", *axes}, {"split", std::int64_t{*split}}, {"concat", std::int64_t{*concat}}, {"tiled", *tiled}});
}

Value ppermute(Checker& c, const ast::CallExpr& call) {
  if (!require_manual(c, call)) return Value::error();
  Args a(c, call);
  if (!a.ok() || !local_array(c, a, "x")) return Value::error();
  auto axes = group(c, a);
  if (!axes) return Value::error();
  if (a.has("perm") == a.has("shift")) {
    c.error(call.range, "ppermute needs exactly one of perm= and shift=");
    return Value::error();
  }
  std::int64_t n = group_size(*c.mesh(), *axes);
  std::vector<std::pair<std::int64_t, std::int64_t>> perm;
  if (a.has("shift")) {
    auto k = c.static_int(a["shift"], a.range("shift"), "shift=");
    if (!k) return Value::error();
    perm = shift_perm(n, *k);
  } else {
    const Value& p = a["perm"];
    if (p.kind != Value::Kind::seq) {
      c.error(a.range("perm"), "perm= must be a list of (source, destination) pairs").note(Checker::describe_dynamic(p));
      return Value::error();
    }
    for (const Value& pair : p.items) {
      auto ints = pair.kind == Value::Kind::seq && pair.items.size() == 2
                      ? c.static_int_list(pair, a.range("perm"), "a perm pair")
                      : std::nullopt;
      if (!ints) {
        if (!(pair.kind == Value::Kind::seq && pair.items.size() == 2))
          c.error(a.range("perm"), "each perm entry must be a (source, destination) pair of static ints");
        return Value::error();
      }
      perm.emplace_back((*ints)[0], (*ints)[1]);
    }
  }
  auto r = ppermute_op(a["x"].type, *axes, perm);
  if (!r) {
    c.report(r.error(), call.range, {a.range("x"), a.range("axes"), a.has("perm") ? a.range("perm") : a.range("shift")});
    return Value::error();
  }
  std::vector<std::int64_t> flat;
  for (auto [s, d] : perm) flat.push_back(s), flat.push_back(d);
  return c.emit("ppermute", call, {a["x"]}, *r, {{"axes", *axes}, {"perm", flat}});
}

Value pvary(Checker& c, const ast::CallExpr& call) {
  if (!require_manual(c, call)) return Value::error();
  Args a(c, call);
  if (!a.ok()) return Value::error();
  Value x = a["x"].is_static_scalar() ? c.materialize(a["x"], call) : a["x"];
  if (!c.need_array(x, a.range("x"), a.argument_name("x"), false)) return Value::error();
  auto axes = group(c, a);
  if (!axes) return Value::error();
  auto t = checked(c, pvary_op(x.type, *axes, !c.unchecked()), a, {"x"});
  if (!t) return Value::error();
  return c.emit("pvary", call, {x}, *t, {{"axes", *axes}});
}

Value ragged_all_to_all(Checker& c, const ast::CallExpr& call) {
  if (!require_manual(c, call)) return Value::error();
  Args a(c, call);
  if (!a.ok()) return Value::error();
  auto axes = group(c, a);
  if (!axes) return Value::error();
  std::vector<Value> inputs;
  std::vector<Type> types;
  for (auto p : {"operand", "output", "input_offsets", "send_sizes", "output_offsets", "recv_sizes"}) {
    if (!local_array(c, a, p)) return Value::error();
    inputs.push_back(a[p]);
    types.push_back(a[p].type);
  }
  auto t = checked(c, ragged_all_to_all_op(types, *axes), a,
                   {"operand", "output", "input_offsets", "send_sizes", "output_offsets", "recv_sizes"});
  if (!t) return Value::error();
  return c.emit("ragged_all_to_all", call, inputs, *t, {{"axes", *axes}});
}

}  // namespace

BuiltinList collective_builtins() {
  const BuiltinSignature over_axes{{"x", "axes"}, 2};
  const BuiltinSignature gather{{"x", "axes", "axis", "tiled"}, 2};
  return {{"axis_index", {axis_index, {{"axes"}, 1}}},
          {"psum", {all_reduce, over_axes}},
          {"pmean", {all_reduce, over_axes}},
          {"pmax", {all_reduce, over_axes}},
          {"pmin", {all_reduce, over_axes}},
          {"all_gather", {all_gather, gather}},
          {"all_gather_invariant", {all_gather, gather}},
          {"psum_scatter", {psum_scatter, {{"x", "axes", "dim", "tiled"}, 2}}},
          {"all_to_all", {all_to_all, {{"x", "axes", "split", "concat", "tiled"}, 4}}},
          {"ppermute", {ppermute, {{"x", "axes", "perm", "shift"}, 2, {"perm", "shift"}}}},
          {"pvary", {pvary, over_axes}},
          {"ragged_all_to_all",
           {ragged_all_to_all,
            {{"operand", "output", "input_offsets", "send_sizes", "output_offsets", "recv_sizes", "axes"}, 7}}}};
}

}  // namespace shardc::check

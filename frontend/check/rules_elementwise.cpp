#include "frontend/check/rules_elementwise.h"

#include <algorithm>

#include "frontend/check/sharding_spec.h"

namespace shardc::check {
namespace {

std::string shape_string(const Type& t) {
  std::string s = "(";
  for (int i = 0; i < t.rank(); ++i) s += (i ? ", " : "") + std::to_string(t.dims[i].size);
  if (t.rank() == 1) s += ",";
  return s + ")";
}

// The spec of `t` as JAX prints it in a broadcasting error: after jnp has promoted the operand to
// the result's rank (leading None dimensions).
std::string spec_string(const Type& t, int rank) {
  if (!t.mesh) return "()";
  const int pad = rank - t.rank();
  std::string s = "(";
  for (int i = 0; i < rank; ++i) s += (i ? ", " : "") + (i < pad ? "None" : format_axes(*t.mesh, t.dims[i - pad].axes));
  return s + ")";
}

// The operands as jnp passes them to the lax primitive: when arrays of different ranks (scalars
// aside) meet, every operand is promoted to the result's rank by leading size-1 dimensions
// (promote_shapes), which JAX's "illegally sharded result" message shows.
std::vector<Type> rank_promoted(const std::vector<Type>& inputs, int rank) {
  int first_rank = 0;
  bool ranks_differ = false;
  for (const Type& t : inputs) {
    if (t.kind != TypeKind::array || t.rank() == 0) continue;
    if (first_rank == 0) first_rank = t.rank();
    ranks_differ = ranks_differ || t.rank() != first_rank;
  }
  if (!ranks_differ) return inputs;
  std::vector<Type> promoted = inputs;
  for (Type& t : promoted)
    if (t.kind == TypeKind::array) t.dims.insert(t.dims.begin(), static_cast<std::size_t>(rank - t.rank()), Dim{1, {}});
  return promoted;
}

}  // namespace

std::optional<RuleError> check_same_mesh(const std::vector<Type>& inputs) {
  const Type* first = nullptr;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Type& t = inputs[i];
    if (t.kind != TypeKind::array || t.mesh == nullptr) continue;
    if (first == nullptr) {
      first = &t;
      continue;
    }
    if (t.mesh != first->mesh)
      return rule_error(ErrorClass::mesh_mismatch,
                        "Mesh for all inputs should be equal. Got one mesh: " + first->mesh->name +
                            " and another mesh: " + t.mesh->name,
                        {"arrays on different meshes live on different devices; move one with a func on its mesh"},
                        static_cast<int>(i));
  }
  return std::nullopt;
}

Result<Type> broadcast_nary(std::string_view op, const std::vector<Type>& inputs) {
  if (auto e = check_same_mesh(inputs)) return *e;
  int rank = 0;
  const Mesh* mesh = nullptr;
  bool local = false;
  AxisSet varying = 0;
  DTypeW dt{DType::boolean, true};
  bool have_dtype = false;
  for (const Type& t : inputs) {
    if (t.kind != TypeKind::array && t.kind != TypeKind::static_scalar)
      return rule_error(ErrorClass::bad_argument, std::string(op) + " needs array or scalar operands, got " + to_string(t));
    rank = std::max(rank, t.rank());
    if (t.mesh && t.kind == TypeKind::array) mesh = t.mesh;
    local = local || t.local;
    varying |= t.varying;
    DTypeW here{t.dtype, t.weak};
    dt = have_dtype ? promote(dt, here) : here;
    have_dtype = true;
  }
  std::vector<Dim> dims(rank);
  for (int i = 0; i < rank; ++i) {
    // Right-aligned: operand dim j = i - (rank - t.rank()).
    std::int64_t size = 1;
    for (const Type& t : inputs) {
      int j = i - (rank - t.rank());
      if (j < 0) continue;
      std::int64_t s = t.dims[j].size;
      if (s == size || s == 1) continue;
      if (size != 1) {
        std::string shapes;
        for (std::size_t k = 0; k < inputs.size(); ++k) shapes += (k ? ", " : "") + shape_string(inputs[k]);
        return rule_error(ErrorClass::shape_mismatch,
                          std::string(op) + " got incompatible shapes for broadcasting: " + shapes,
                          {"dimensions are compared from the right; each pair must be equal or one of them 1"});
      }
      size = s;
    }
    dims[i].size = size;
    // JAX's broadcasting_sharding_rule: size-1 unsharded dims have no opinion;
    // among the others all non-None specs must agree.
    const AxisList* chosen = nullptr;
    for (const Type& t : inputs) {
      int j = i - (rank - t.rank());
      if (j < 0 || t.dims[j].axes.empty()) continue;
      if (chosen == nullptr) {
        chosen = &t.dims[j].axes;
      } else if (*chosen != t.dims[j].axes) {
        std::string specs;
        for (std::size_t k = 0; k < inputs.size(); ++k)
          if (inputs[k].rank() > 0) specs += (specs.empty() ? "" : ", ") + spec_string(inputs[k], rank);
        return on_mesh(mesh, rule_error(ErrorClass::broadcast_mismatch,
                                        std::string(op) + " got incompatible shardings for broadcasting: " + specs,
                                        {"dimension " + std::to_string(i) + " of the result is split over " +
                                             format_axes(*mesh, *chosen) + " by one operand and over " +
                                             format_axes(*mesh, t.dims[j].axes) + " by another; " +
                                             "reshard one operand so that both agree"}));
      }
    }
    if (chosen) dims[i].axes = *chosen;
  }
  Type r = make_array(dt.dtype, std::move(dims), mesh);
  // JAX's weak types: the result of operands that are all weak is weak (`bool_array + 1` is a
  // weak int32, `where(mask, 0.0, -1e9)` a weak float32), and gives way in promotion as a
  // literal does.
  r.weak = dt.weak;
  r.local = local;
  r.varying = local ? varying : 0;
  if (!local) {
    if (auto e = check_result_axes(r, op, rank_promoted(inputs, rank))) return *e;
  }
  return r;
}

// An unreduced operand (a pending sum) meets only add and sub, with an operand unreduced over the
// same axes (JAX's _add_ur_rule, its wording), and here of the same shape and sharding too.
std::optional<RuleError> check_unreduced_operands(std::string_view op, const Type& a, const Type& b) {
  if (!a.unreduced && !b.unreduced) return std::nullopt;
  const Type& u = a.unreduced ? a : b;
  if (op != "add" && op != "sub")
    return unreduced_operand_error(op, u, a.unreduced ? 0 : 1);
  if (!a.unreduced || !b.unreduced) {
    const std::string lhs = a.unreduced ? "lhs" : "rhs", rhs = a.unreduced ? "rhs" : "lhs";
    return rule_error(ErrorClass::unsupported_sharding,
                      lhs + " is unreduced while " + rhs + " is not. `" + std::string(op) +
                          "` operation does not allow this because there will be implicit "
                          "communication. Please reduce " +
                          lhs + " via `reshard` before calling `" + std::string(op) + "`.",
                      {"got " + to_string(a) + " and " + to_string(b)}, a.unreduced ? 0 : 1);
  }
  if (a.unreduced != b.unreduced)
    return rule_error(ErrorClass::unsupported_sharding,
                      "lhs and rhs to `" + std::string(op) + "` must be unreduced along the same mesh axes. Got lhs=" +
                          format_axis_set(*u.mesh, a.unreduced) + ", rhs=" + format_axis_set(*u.mesh, b.unreduced),
                      {}, 1);
  if (a.dims != b.dims)
    return rule_error(ErrorClass::unsupported_sharding,
                      "unreduced operands of " + std::string(op) + " must have one shape and sharding, got " +
                          to_string(a) + " and " + to_string(b),
                      {"shardc does not broadcast or reshard pending sums; reshard the operands "
                       "to one sharding before the einsum that makes them"},
                      1);
  return std::nullopt;
}

RuleError unreduced_operand_error(std::string_view op, const Type& x, int operand) {
  return rule_error(ErrorClass::unsupported_sharding,
                    std::string(op) + " does not accept an unreduced operand: " + to_string(x) +
                        " is a pending sum over " + format_axis_set(*x.mesh, x.unreduced),
                    {"reduce it first with reshard (reshard(x, SPEC) all-reduces or "
                     "reduce-scatters it); only add and sub take pending sums as they are"},
                    operand);
}

namespace {

// The lax primitive whose sharding rule JAX's error names: jnp.maximum and minimum are lax.max
// and min; floor division is lax.div on integers and starts with lax.rem on floats.
std::string_view jax_primitive(std::string_view op, const Type& a, const Type& b) {
  if (op == "maximum") return "max";
  if (op == "minimum") return "min";
  if (op == "floor_div") return shard::is_floating(promote({a.dtype, a.weak}, {b.dtype, b.weak}).dtype) ? "rem" : "div";
  return op;
}

}  // namespace

Result<Type> binary_op(std::string_view op, BinaryKind kind, const Type& a, const Type& b) {
  if (auto e = check_unreduced_operands(op, a, b)) return *e;
  auto r = broadcast_nary(jax_primitive(op, a, b), {a, b});
  if (!r) return r;
  Type t = *r;
  t.unreduced = a.unreduced;
  DTypeW da{a.dtype, a.weak}, db{b.dtype, b.weak};
  switch (kind) {
    case BinaryKind::arithmetic: break;
    case BinaryKind::divide: {
      DTypeW d = true_divide(da, db);
      t.dtype = d.dtype;
      t.weak = d.weak;
      break;
    }
    case BinaryKind::compare: t.dtype = DType::boolean; t.weak = false; break;
    case BinaryKind::logical: {
      DTypeW d = promote(da, db);
      if (shard::is_floating(d.dtype))
        return rule_error(ErrorClass::shape_mismatch,
                          std::string(op) + " needs bool or integer operands, got " + to_string(a) + " and " +
                              to_string(b));
      break;
    }
  }
  return t;
}

namespace {

bool same_sharding(const Type& x, const Type& y) {
  for (int d = 0; d < x.rank(); ++d)
    if (x.dims[d].axes != y.dims[d].axes) return false;
  return true;
}

// jnp.where broadcasts its operands to the result's shape with the join of their shardings (the
// broadcasting rule), but passes an operand that has the result's shape already on as it is,
// sharding and all; lax.select then needs the two cases sharded alike, and a condition that is
// not a scalar sharded as they are (JAX-RULES.md, explicit mode: select). `result` is the
// broadcast type: the shape, and the sharding the other operands get.
std::optional<RuleError> check_select_shardings(const Type& pred, const Type& on_true, const Type& on_false,
                                                const Type& result) {
  if (result.mesh == nullptr) return std::nullopt;
  const auto as_passed = [&](const Type& t) -> const Type& { return t.shape() == result.shape() ? t : result; };
  const Type &which = as_passed(pred), &a = as_passed(on_true), &b = as_passed(on_false);
  const std::string note = "where passes an operand of the result's shape on with its own sharding (it broadcasts "
                           "only the others): reshard the operands to one sharding";
  // lax.select(which, on_true, on_false) is select_n(which, on_false, on_true): JAX lists the
  // cases false first.
  if (!same_sharding(a, b))
    return on_mesh(result.mesh, rule_error(ErrorClass::broadcast_mismatch,
                                           "select cases must have the same shardings, got [" +
                                               format_spec(*result.mesh, b.dims) + ", " +
                                               format_spec(*result.mesh, a.dims) + "]",
                                           {note}, &b == &on_false ? 2 : 1));
  if (pred.rank() > 0 && !same_sharding(which, a))
    return on_mesh(result.mesh, rule_error(ErrorClass::broadcast_mismatch,
                                           "select `which` must be scalar or have the same sharding as cases, got "
                                           "`which` sharding " + format_spec(*result.mesh, which.dims) +
                                               " but case sharding " + format_spec(*result.mesh, a.dims),
                                           {note}, 0));
  return std::nullopt;
}

}  // namespace

Result<Type> select_op(const Type& pred, const Type& on_true, const Type& on_false) {
  if (pred.dtype != DType::boolean)
    return rule_error(ErrorClass::shape_mismatch, "select needs a bool predicate, got " + to_string(pred), {}, 0);
  // Operands of one shape reach select without broadcasting, whose sharding rule never runs; a
  // scalar condition is no reason to broadcast (jnp.where then broadcasts only the cases).
  const bool one_shape =
      on_false.shape() == on_true.shape() && (pred.rank() == 0 || pred.shape() == on_true.shape());
  if (one_shape)
    if (auto e = check_select_shardings(pred, on_true, on_false, on_true)) return *e;
  auto r = broadcast_nary("select", {pred, on_true, on_false});
  if (!r) return r;
  if (!one_shape)
    if (auto e = check_select_shardings(pred, on_true, on_false, *r)) return *e;
  Type t = *r;
  DTypeW d = promote({on_true.dtype, on_true.weak}, {on_false.dtype, on_false.weak});
  t.dtype = d.dtype;
  t.weak = d.weak;  // the cases decide, not the (bool) condition
  return t;
}

Type with_dtype(Type t, DType dtype) {
  t.dtype = dtype;
  t.weak = false;
  return t;
}

}  // namespace shardc::check

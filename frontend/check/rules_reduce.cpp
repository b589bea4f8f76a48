#include "frontend/check/rules_reduce.h"

#include <algorithm>

#include "frontend/check/dtype_rules.h"

namespace shardc::check {

std::optional<RuleError> check_pending_reduction(std::string_view op, const Type& x, AxisSet reduced, AxisSet pending) {
  if ((pending & ~reduced) == 0) return std::nullopt;
  return rule_error(ErrorClass::unsupported_sharding,
                    std::string(op) + "'s unreduced axes " + format_axis_set(*x.mesh, pending) +
                        " must be among the axes of the reduced dimensions, " + format_axis_set(*x.mesh, reduced) +
                        ", of " + to_string(x),
                    {"the other reduced axes are all-reduced; unreduced= keeps the sum over these pending"}, 0);
}

Result<int> normalize_axis(std::string_view op, std::int64_t axis, int rank) {
  if (axis < -rank || axis >= rank)
    return rule_error(ErrorClass::out_of_range,
                      std::string(op) + ": axis " + std::to_string(axis) + " is out of bounds for an array of rank " +
                          std::to_string(rank),
                      {rank == 0 ? std::string("a scalar has no axes")
                                 : "valid axes are " + std::to_string(-rank) + " .. " + std::to_string(rank - 1)});
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

Result<Type> reduce_op(std::string_view op, ReduceKind kind, const Type& x, std::vector<int> axes) {
  if (x.kind != TypeKind::array)
    return rule_error(ErrorClass::bad_argument, std::string(op) + " needs an array, got " + to_string(x), {}, 0);
  if (axes.empty())
    for (int i = 0; i < x.rank(); ++i) axes.push_back(i);
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end())
    return rule_error(ErrorClass::bad_argument, std::string(op) + " names one dimension twice");
  // argmax/argmin have no index to return for an empty reduction, and max/min no identity
  // (sum's 0, prod's 1 and mean's 0/0 = NaN exist): JAX rejects them rather than return a
  // made-up index or -inf / +inf.
  const bool arg = kind == ReduceKind::argmax || kind == ReduceKind::argmin;
  if (arg || kind == ReduceKind::max || kind == ReduceKind::min)
    for (int a : axes)
      if (x.dims.at(a).size == 0)
        return rule_error(ErrorClass::out_of_range,
                          std::string(op) + " over an empty dimension: dimension " + std::to_string(a) + " of " +
                              to_string(x) + " has size 0",
                          {arg ? "there is no index to return (JAX: attempt to get " + std::string(op) +
                                     " of an empty sequence)"
                               : "there is no identity to return (JAX: zero-size array to reduction operation " +
                                     std::string(op) + " which has no identity)"});
  Type r = x;
  r.weak = false;
  r.dims.clear();
  for (int i = 0; i < x.rank(); ++i)
    if (!std::binary_search(axes.begin(), axes.end(), i)) r.dims.push_back(x.dims[i]);
  switch (kind) {
    case ReduceKind::sum:
    case ReduceKind::prod: r.dtype = sum_dtype(x.dtype); break;
    case ReduceKind::mean: r.dtype = mean_dtype(x.dtype); break;
    case ReduceKind::argmax:
    case ReduceKind::argmin: r.dtype = DType::i32; break;
    case ReduceKind::any:
    case ReduceKind::all: r.dtype = DType::boolean; break;
    case ReduceKind::max:
    case ReduceKind::min: break;
  }
  return r;
}

Result<Type> softmax_op(const Type& x, int axis) {
  if (x.kind != TypeKind::array || x.rank() == 0)
    return rule_error(ErrorClass::bad_argument, "softmax needs an array of rank 1 or more, got " + to_string(x), {}, 0);
  Type r = x;
  if (!shard::is_floating(x.dtype)) r.dtype = DType::f32;
  r.weak = false;  // jax.nn.softmax's max and sum end concrete (every jnp reduction does)
  (void)axis;
  return r;
}

namespace {

std::optional<RuleError> unsharded_along(std::string_view what, const Type& x, int axis) {
  if (x.local || x.dims.at(axis).axes.empty()) return std::nullopt;
  return on_mesh(x.mesh, rule_error(ErrorClass::unsupported_sharding,
                                    std::string(what) + " must be unsharded over the dimension it works along; got " +
                                        to_string(x) + " and axis=" + std::to_string(axis),
                                    {"dimension " + std::to_string(axis) + " is split over " +
                                         format_axes(*x.mesh, x.dims[axis].axes) +
                                         "; reshard it to None first (JAX: Input should be unsharded over the axis)"},
                                    0));
}

}  // namespace

Result<Type> top_k_op(const Type& x, std::int64_t k) {
  if (x.kind != TypeKind::array || x.rank() == 0)
    return rule_error(ErrorClass::bad_argument, "top_k needs an array of rank 1 or more, got " + to_string(x), {}, 0);
  int last = x.rank() - 1;
  if (k < 0 || k > x.dims[last].size)
    return rule_error(ErrorClass::out_of_range,
                      "top_k: k=" + std::to_string(k) + " is out of range for a last dimension of size " +
                          std::to_string(x.dims[last].size));
  if (auto e = unsharded_along("top_k's operand", x, last)) return *e;
  Type values = x;
  values.dims[last].size = k;
  Type indices = values;
  indices.dtype = DType::i32;
  indices.weak = false;
  return make_tuple({values, indices});
}

Result<Type> roll_op(const Type& x, int axis) {
  if (auto e = unsharded_along("roll's operand", x, axis)) return *e;
  return x;
}

}  // namespace shardc::check

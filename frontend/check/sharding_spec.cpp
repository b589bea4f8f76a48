#include "frontend/check/sharding_spec.h"

#include "frontend/check/checked_math.h"

namespace shardc::check {

std::int64_t axes_product(const Mesh& mesh, const AxisList& axes) {
  std::int64_t p = 1;
  for (int a : axes) p *= mesh.axis_sizes.at(a);
  return p;
}

std::optional<RuleError> validate_global(const Type& t, std::string_view what) {
  if (t.rank() > kMaxRank)
    return rule_error(ErrorClass::limit,
                      std::string(what) + " has rank " + std::to_string(t.rank()) + ", more than the limit of " +
                          std::to_string(kMaxRank));
  AxisSet seen = 0;
  for (std::size_t i = 0; i < t.dims.size(); ++i) {
    const Dim& d = t.dims[i];
    if (d.size < 0)
      return rule_error(ErrorClass::shape_mismatch,
                        std::string(what) + " has a negative size " + std::to_string(d.size) + " in dimension " +
                            std::to_string(i));
    for (int a : d.axes) {
      AxisSet bit = AxisSet{1} << a;
      if (seen & bit)
        return rule_error(ErrorClass::duplicate_type_axis,
                          "mesh axis '" + t.mesh->axis_names.at(a) + "' is used twice in " + std::string(what) +
                              " " + to_string(t),
                          {"a mesh axis can split at most one dimension of an array, once"});
      seen |= bit;
    }
    if (!d.axes.empty()) {
      std::int64_t p = axes_product(*t.mesh, d.axes);
      if (d.size % p != 0)
        return rule_error(
            ErrorClass::not_divisible,
            "dimension " + std::to_string(i) + " of " + std::string(what) + " " + to_string(t) + " has size " +
                std::to_string(d.size) + ", which is not divisible by " + std::to_string(p) + ", the size of mesh axes " +
                format_axes(*t.mesh, d.axes),
            {"each device holds an equal block: a dimension's size must be a multiple of the product of the mesh "
             "axes it is split over"});
    }
  }
  return std::nullopt;
}

std::optional<RuleError> check_result_axes(const Type& result, std::string_view op, const std::vector<Type>& inputs,
                                           bool out_can_fix) {
  AxisSet seen = 0;
  for (const Dim& d : result.dims) {
    for (int a : d.axes) {
      AxisSet bit = AxisSet{1} << a;
      if (seen & bit) {
        std::string ins;
        for (std::size_t i = 0; i < inputs.size(); ++i) ins += (i ? ", " : "") + to_short_string(inputs[i]);
        return on_mesh(result.mesh,
                       rule_error(ErrorClass::duplicate_result_axis,
                                  std::string(op) + " operation with inputs: " + ins +
                                      " produces an illegally sharded result: " + to_short_string(result),
                                  {"mesh axis '" + result.mesh->axis_names.at(a) +
                                   "' would split two dimensions of the result; reshard an operand first" +
                                   (out_can_fix ? ", or give the result's sharding with out=" : "")}));
      }
      seen |= bit;
    }
  }
  return std::nullopt;
}

Type block_type(const Type& g) {
  Type t = g;
  t.local = true;
  t.varying = 0;
  for (Dim& d : t.dims) {
    if (!d.axes.empty()) {
      d.size /= axes_product(*g.mesh, d.axes);
      t.varying |= to_set(d.axes);
      d.axes.clear();
    }
  }
  return t;
}

std::vector<Dim> replicated_dims(const std::vector<std::int64_t>& shape) {
  std::vector<Dim> dims;
  for (auto s : shape) dims.push_back(Dim{s, {}});
  return dims;
}

RuleError on_mesh(const Mesh* mesh, RuleError e) {
  if (mesh == nullptr || !mesh->auto_mode) return e;
  switch (e.cls) {
    case ErrorClass::einsum_ambiguous:
    case ErrorClass::batch_mismatch:
    case ErrorClass::broadcast_mismatch:
    case ErrorClass::duplicate_result_axis:
    case ErrorClass::unsupported_sharding: break;
    default: return e;
  }
  RuleError r;
  r.cls = ErrorClass::auto_not_implemented;
  r.operand = e.operand;
  r.message = "auto sharding propagation is not implemented yet: mesh '" + mesh->name +
              "' is auto, and the explicit rules cannot decide here";
  r.notes.push_back("explicit mode says: " + e.message);
  r.notes.push_back("until auto mode exists, give the sharding yourself (out=, reshard) as on an explicit mesh");
  return r;
}

}  // namespace shardc::check

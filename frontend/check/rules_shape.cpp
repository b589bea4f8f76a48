#include "frontend/check/rules_shape.h"

#include <algorithm>

#include "frontend/check/checked_math.h"
#include "frontend/check/reshape_layout.h"
#include "frontend/check/rules_elementwise.h"
#include "frontend/check/sharding_spec.h"

namespace shardc::check {
namespace {

std::string sizes_string(const std::vector<std::int64_t>& s) {
  std::string r = "(";
  for (std::size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  if (s.size() == 1) r += ",";
  return r + ")";
}

// JAX's wording, with `out=` for its out_sharding; `why` becomes a note.
RuleError unsupported_reshape(const Type& x, const std::vector<std::int64_t>& sizes, std::string why) {
  return on_mesh(x.mesh, rule_error(ErrorClass::unsupported_sharding,
                                    "This reshape is not supported. Please specify the sharding of the output via "
                                    "the out argument of reshape. Got operand type: " +
                                        to_string(x) + ", new sizes: " + sizes_string(sizes),
                                    {why + "; give out= to choose the result's sharding, or reshard the operand first"},
                                    0));
}

// `result` is the op's result type (its sharding aside), for the message's output shape.
std::optional<RuleError> divisible_after_change(std::string_view op, const Type& x, int d, std::int64_t out,
                                                const Type& result) {
  if (x.local || x.dims[d].axes.empty()) return std::nullopt;
  std::int64_t p = axes_product(*x.mesh, x.dims[d].axes);
  if (out % p == 0) return std::nullopt;
  return on_mesh(x.mesh,
                 rule_error(ErrorClass::not_divisible,
                            std::string(op) + " on sharded dims where out dim (" + std::to_string(out) +
                                ") is not divisible by mesh axes (" + std::to_string(p) + ") with spec (" +
                                format_axes(*x.mesh, x.dims[d].axes) + ") is not implemented. Got input type=" +
                                to_string(x) + " and output shape=" + sizes_string(result.shape()),
                            {"the result keeps the operand's sharding, so each of its sharded dims must still split "
                             "evenly; reshard dimension " + std::to_string(d) + " to None first"},
                            0));
}

}  // namespace

Result<Type> reshape_op(const Type& x, const std::vector<std::int64_t>& req) {
  if (x.kind != TypeKind::array) return rule_error(ErrorClass::bad_argument, "reshape needs an array, got " + to_string(x), {}, 0);
  if (static_cast<int>(req.size()) > kMaxRank)
    return rule_error(ErrorClass::limit, "reshape to rank " + std::to_string(req.size()) + " exceeds the limit of " +
                                             std::to_string(kMaxRank));
  std::int64_t total = 1;
  for (const Dim& d : x.dims) total *= d.size;  // a valid type's element count fits (checked when built)
  std::vector<std::int64_t> sizes = req;
  int infer = -1;
  std::int64_t known = 1;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      if (infer >= 0)
        return rule_error(ErrorClass::bad_argument, "reshape accepts at most one -1, got sizes " + sizes_string(req));
      infer = static_cast<int>(i);
      continue;
    }
    if (sizes[i] < 0)
      return rule_error(ErrorClass::shape_mismatch, "reshape size " + std::to_string(sizes[i]) + " is negative");
    auto p = checked_mul(known, sizes[i]);
    if (!p) return rule_error(ErrorClass::limit, "reshape sizes " + sizes_string(req) + " overflow 64 bits");
    known = *p;
  }
  if (infer >= 0) {
    if (known == 0 || total % known != 0)
      return rule_error(ErrorClass::shape_mismatch,
                        "cannot reshape " + to_string(x) + " to " + sizes_string(req) + ": the -1 cannot be inferred");
    sizes[infer] = total / known;
    known = total;
  }
  if (known != total)
    return rule_error(ErrorClass::shape_mismatch, "cannot reshape " + to_string(x) + " (" + std::to_string(total) +
                                                      " elements) to " + sizes_string(sizes) + " (" +
                                                      std::to_string(known) + " elements)");
  Type r = x;
  r.dims.clear();
  for (auto s : sizes) r.dims.push_back(Dim{s, {}});
  if (x.local || x.sharded_axes() == 0) return r;
  const std::vector<ReshapeGroup> groups = reshape_groups(x.shape(), sizes);
  if (total == 0 && groups.size() != static_cast<std::size_t>(std::count_if(
                                         x.dims.begin(), x.dims.end(), [](const Dim& d) { return d.size != 1; })))
    return unsupported_reshape(x, sizes, "an operand with no elements is sharded and its dimensions change");

  // JAX's rule: size-1 dimensions aside, each group of old dimensions is one dimension kept,
  // one dimension split (its axes spread over the new ones) or several merged (their axes
  // concatenated, with no unsharded dimension before a sharded one). shardc also accepts
  // several such groups in one reshape.
  // A size-1 dimension (sharded only over size-1 axes) belongs to no group: its axes are dropped,
  // as JAX's rule for shapes that differ only in size-1 dimensions drops them.
  for (const ReshapeGroup& g : groups) {
    std::vector<AxisList> old_specs;
    for (int d : g.old_dims) old_specs.push_back(x.dims[d].axes);
    const AxisList axes = concatenated(old_specs);
    if (axes.empty()) continue;
    if (g.old_dims.size() == 1) {
      std::vector<std::int64_t> new_sizes;
      for (int d : g.new_dims) new_sizes.push_back(sizes[static_cast<std::size_t>(d)]);
      auto spread = spread_axes(*x.mesh, axes, new_sizes);
      if (!spread)
        return unsupported_reshape(x, sizes, "the mesh axes " + format_axes(*x.mesh, axes) + " of dimension " +
                                                 std::to_string(g.old_dims[0]) + " cannot be spread over its new sizes " +
                                                 sizes_string(new_sizes) +
                                                 " (each new dimension takes axes in turn while it is larger "
                                                 "than 1, and each axis must divide it)");
      for (std::size_t k = 0; k < g.new_dims.size(); ++k) r.dims[g.new_dims[k]].axes = (*spread)[k];
    } else if (g.new_dims.size() == 1) {
      for (std::size_t k = 1; k < g.old_dims.size(); ++k)
        if (old_specs[k - 1].empty() && !old_specs[k].empty())
          return unsupported_reshape(x, sizes, "dimension " + std::to_string(g.old_dims[k - 1]) +
                                                   " is unsharded but merged before sharded dimension " +
                                                   std::to_string(g.old_dims[k]));
      r.dims[g.new_dims[0]].axes = axes;
    } else {
      return unsupported_reshape(x, sizes, "dimensions " + std::to_string(g.old_dims.front()) + ".." +
                                               std::to_string(g.old_dims.back()) +
                                               " are regrouped, neither split nor merged, and some are sharded");
    }
  }
  return r;
}

Result<Type> transpose_op(const Type& x, const std::vector<std::int64_t>& perm) {
  if (static_cast<int>(perm.size()) != x.rank())
    return rule_error(ErrorClass::bad_argument, "transpose perm has " + std::to_string(perm.size()) +
                                                    " entries, but the operand has rank " + std::to_string(x.rank()));
  std::vector<bool> seen(perm.size(), false);
  Type r = x;
  for (std::size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] < 0 || perm[i] >= x.rank() || seen[perm[i]])
      return rule_error(ErrorClass::bad_argument, "transpose perm is not a permutation of 0.." +
                                                      std::to_string(x.rank() - 1));
    seen[perm[i]] = true;
    r.dims[i] = x.dims[perm[i]];
  }
  return r;
}

namespace {
// The operands of concat (`axis` may differ in size) and stack (`axis` -1: all dims equal)
// must agree in rank, dtype, the other sizes and sharding. `op` names the built-in so that
// the message speaks of what the user wrote.
std::optional<RuleError> check_joined_operands(std::string_view op, const std::vector<Type>& xs, int axis) {
  if (xs.empty()) return rule_error(ErrorClass::bad_argument, std::string(op) + " needs at least one operand");
  if (auto e = check_same_mesh(xs)) return *e;
  const Type& first = xs[0];
  for (std::size_t i = 1; i < xs.size(); ++i) {
    const Type& t = xs[i];
    if (t.kind != TypeKind::array || t.rank() != first.rank() || t.dtype != first.dtype) {
      std::vector<std::string> notes;
      if (t.kind == TypeKind::array && t.rank() == first.rank())
        notes.push_back(std::string(op) + " does not promote dtypes; convert with astype first");
      return rule_error(ErrorClass::shape_mismatch, std::string(op) + " operands must be arrays of one rank and dtype, got " +
                                                        to_string(first) + " and " + to_string(t),
                        std::move(notes), static_cast<int>(i));
    }
    for (int d = 0; d < first.rank(); ++d) {
      if (d != axis && t.dims[d].size != first.dims[d].size)
        return rule_error(ErrorClass::shape_mismatch,
                          std::string(op) + " operands differ in dimension " + std::to_string(d) + ": " +
                              to_string(first) + " and " + to_string(t),
                          {}, static_cast<int>(i));
      if (t.dims[d].axes != first.dims[d].axes) {
        std::string all;
        for (std::size_t k = 0; k < xs.size(); ++k) all += (k ? ", " : "") + format_spec(*xs[k].mesh, xs[k].dims);
        return on_mesh(first.mesh, rule_error(ErrorClass::broadcast_mismatch,
                                              "All operands should have the same sharding. Got shardings " + all,
                                              {std::string(op) + " does not move data between devices; reshard the "
                                                                 "operands to one sharding"},
                                              static_cast<int>(i)));
      }
    }
  }
  return std::nullopt;
}
}  // namespace

Result<Type> concat_op(const std::vector<Type>& xs, int axis) {
  if (auto e = check_joined_operands("concat", xs, axis)) return *e;
  Type r = xs[0];
  for (std::size_t i = 1; i < xs.size(); ++i) {
    auto s = checked_add(r.dims[axis].size, xs[i].dims[axis].size);
    if (!s) return rule_error(ErrorClass::limit, "concat's result size overflows 64 bits");
    r.dims[axis].size = *s;
    r.varying |= xs[i].varying;
    r.weak = r.weak && xs[i].weak;  // weak only when every operand is (a strong one decides)
  }
  return r;
}

Result<Type> stack_op(const std::vector<Type>& xs, int axis) {
  if (auto e = check_joined_operands("stack", xs, -1)) return *e;
  if (xs[0].rank() + 1 > kMaxRank)
    return rule_error(ErrorClass::limit, "stack would exceed the rank limit of " + std::to_string(kMaxRank));
  auto e = expand_dims_op(xs[0], axis);
  if (!e) return e;
  Type r = *e;
  r.dims[axis].size = static_cast<std::int64_t>(xs.size());
  for (const Type& t : xs) {
    r.varying |= t.varying;
    r.weak = r.weak && t.weak;  // weak only when every operand is (a strong one decides)
  }
  return r;
}

SliceBounds slice_bounds(const Type& x, const std::vector<SliceDim>& dims) {
  SliceBounds b;
  for (int d = 0; d < x.rank(); ++d) {
    const std::int64_t n = x.dims[d].size;
    if (d >= static_cast<int>(dims.size())) {
      b.starts.push_back(0), b.limits.push_back(n), b.steps.push_back(1);
      continue;
    }
    const SliceDim& s = dims[d];
    auto norm = [&](std::int64_t v) { return v < 0 ? v + n : v; };
    const std::int64_t start = s.begin ? norm(*s.begin) : 0;
    const std::int64_t limit = s.index ? start + 1 : (s.end ? norm(*s.end) : n);
    b.starts.push_back(start), b.limits.push_back(limit), b.steps.push_back(s.step);
    if (s.index) b.squeezed.push_back(d);
  }
  return b;
}

Result<Type> slice_op(const Type& x, const std::vector<SliceDim>& sl, const char* op) {
  if (x.kind != TypeKind::array)
    return rule_error(ErrorClass::bad_argument, "only arrays can be indexed, got " + to_string(x), {}, 0);
  if (static_cast<int>(sl.size()) > x.rank())
    return rule_error(ErrorClass::out_of_range, "too many indices: " + std::to_string(sl.size()) +
                                                    " for an array of rank " + std::to_string(x.rank()) + ": " +
                                                    to_string(x));
  Type r = x;
  r.dims.clear();
  // Each dimension the op shrinks (an index to 1, a slice to `out`), checked by
  // divisible_after_change once the result, which its message shows, is known.
  struct Change {
    int dim;
    std::int64_t out;
    const char* op;
  };
  std::vector<Change> changed;
  for (int d = 0; d < x.rank(); ++d) {
    const std::int64_t n = x.dims[d].size;
    if (d >= static_cast<int>(sl.size())) {
      r.dims.push_back(x.dims[d]);
      continue;
    }
    const SliceDim& s = sl[d];
    if (s.index) {
      std::int64_t i = *s.begin;
      if (i < -n || i >= n)
        return rule_error(ErrorClass::out_of_range, "index " + std::to_string(i) + " is out of range for dimension " +
                                                        std::to_string(d) + " of size " + std::to_string(n) + " in " +
                                                        to_string(x),
                          {"static indices must lie in [-size, size)"});
      changed.push_back({d, 1, "indexing"});
      continue;
    }
    if (s.step <= 0)
      return rule_error(ErrorClass::bad_argument, "slice step must be 1 or more, got " + std::to_string(s.step));
    auto norm = [&](std::int64_t v) { return v < 0 ? v + n : v; };
    std::int64_t b = s.begin ? norm(*s.begin) : 0;
    std::int64_t e = s.end ? norm(*s.end) : n;
    if (b < 0 || b > n || e < 0 || e > n || b > e)
      return rule_error(ErrorClass::out_of_range,
                        "slice " + (s.begin ? std::to_string(*s.begin) : std::string()) + ":" +
                            (s.end ? std::to_string(*s.end) : std::string()) + " is out of range for dimension " +
                            std::to_string(d) + " of size " + std::to_string(n) + " in " + to_string(x),
                        {"static slices must satisfy 0 <= begin <= end <= size (negative bounds count from the end); "
                         "they never clamp"});
    std::int64_t out = shard::slice_count(b, e, s.step);
    if (out != n) changed.push_back({d, out, op});
    r.dims.push_back(Dim{out, x.dims[d].axes});
  }
  for (const Change& c : changed)
    if (auto err = divisible_after_change(c.op, x, c.dim, c.out, r)) return *err;
  return r;
}

Result<Type> dynamic_slice_op(const Type& x, const std::vector<std::int64_t>& sizes) {
  if (x.kind != TypeKind::array || x.rank() == 0)
    return rule_error(ErrorClass::bad_argument, "dynamic_slice needs an array of rank 1 or more, got " + to_string(x), {}, 0);
  Type r = x;
  for (int d = 0; d < x.rank(); ++d) {
    const std::int64_t size = sizes[static_cast<std::size_t>(d)];
    if (size < 0 || size > x.dims[d].size)
      return rule_error(ErrorClass::out_of_range, "dynamic_slice size " + std::to_string(size) +
                                                      " is out of range for dimension " + std::to_string(d) +
                                                      " of size " + std::to_string(x.dims[d].size) + " in " +
                                                      to_string(x),
                        {"the size must be static and at most the dimension's size (starts clamp, sizes do not)"});
    r.dims[d].size = size;
  }
  // Checked on the whole result, whose shape JAX's message shows.
  for (int d = 0; d < x.rank(); ++d)
    if (r.dims[d].size != x.dims[d].size)
      if (auto e = divisible_after_change("dynamic_slice", x, d, r.dims[d].size, r)) return *e;
  return r;
}

Result<Type> dynamic_slice_op(const Type& x, int axis, std::int64_t size) {
  if (x.kind != TypeKind::array || x.rank() == 0) return dynamic_slice_op(x, std::vector<std::int64_t>{});
  std::vector<std::int64_t> sizes = x.shape();
  sizes[static_cast<std::size_t>(axis)] = size;
  return dynamic_slice_op(x, sizes);
}

Result<Type> dynamic_index_op(const Type& x) {
  if (x.kind != TypeKind::array || x.rank() == 0)
    return rule_error(ErrorClass::bad_argument, "only arrays of rank 1 or more can be indexed, got " + to_string(x), {}, 0);
  if (x.dims[0].size == 0)  // JAX's IndexError, at trace time as there
    return rule_error(ErrorClass::out_of_range, "index is out of bounds for axis 0 with size 0: " + to_string(x),
                      {"a runtime index clamps into the dimension, and this one has no element"}, 0);
  // JAX indexes at run time with a dynamic_slice of size 1 (then drops the dimension), so its
  // error is dynamic_slice's, with the slice's output shape.
  Type sliced = x;
  sliced.dims[0].size = 1;
  if (auto e = divisible_after_change("dynamic_slice", x, 0, 1, sliced)) {
    e->notes = {"a runtime index x[i] is a dynamic_slice of size 1, whose one element lives on one device of the "
                "group; reshard dimension 0 to None first"};
    return *e;
  }
  Type r = x;
  r.dims.erase(r.dims.begin());
  return r;
}

Result<Type> dynamic_update_slice_op(const Type& x, const Type& u) {
  if (auto e = check_same_mesh({x, u})) return *e;
  if (u.kind != TypeKind::array || u.rank() != x.rank() || u.dtype != x.dtype)
    return rule_error(ErrorClass::shape_mismatch, "dynamic_update_slice's update " + to_string(u) +
                                                      " must have the operand's rank and dtype: " + to_string(x),
                      {}, 1);
  for (int d = 0; d < x.rank(); ++d) {
    // Every dimension may be smaller than the operand's: the axis form places the update at
    // its start along the axis and at 0 along the others (JAX's dynamic_update_slice_in_dim).
    if (u.dims[d].size > x.dims[d].size)
      return rule_error(ErrorClass::shape_mismatch, "dynamic_update_slice's update " + to_string(u) +
                                                        " does not fit the operand " + to_string(x) +
                                                        " along dimension " + std::to_string(d),
                        {}, 1);
    if (!x.local && u.dims[d].axes != x.dims[d].axes)
      return on_mesh(x.mesh, rule_error(ErrorClass::broadcast_mismatch,
                                        "dynamic_update_slice: operand and update shardings must be equal, got " +
                                            format_spec(*x.mesh, x.dims) + " and " + format_spec(*x.mesh, u.dims),
                                        {"reshard the update to the operand's sharding"}, 1));
  }
  Type r = x;
  r.varying |= u.varying;
  return r;
}

Result<Type> reshard_op(const Type& x, const std::vector<AxisList>& spec, std::string_view op) {
  if (x.kind != TypeKind::array)
    return rule_error(ErrorClass::bad_argument, std::string(op) + " needs an array, got " + to_string(x), {}, 0);
  if (static_cast<int>(spec.size()) != x.rank())
    return rule_error(ErrorClass::shape_mismatch, std::string(op) + " spec has " + std::to_string(spec.size()) +
                                                      " entries, but the operand " + to_string(x) + " has rank " +
                                                      std::to_string(x.rank()),
                      {"give one entry per dimension: an axis, (a, b), or None"}, 1);
  Type r = x;
  r.unreduced = 0;  // a reshard of a pending sum reduces it (all-reduce or reduce-scatter)
  for (int d = 0; d < x.rank(); ++d) r.dims[d].axes = spec[d];
  if (auto e = validate_global(r, std::string(op) + "'s result")) {
    e->operand = 1;
    return *e;
  }
  return r;
}

Result<Type> broadcast_to_op(const Type& x, const std::vector<std::int64_t>& shape) {
  if (static_cast<int>(shape.size()) > kMaxRank)
    return rule_error(ErrorClass::limit, "broadcast_to a rank above the limit of " + std::to_string(kMaxRank));
  if (static_cast<int>(shape.size()) < x.rank())
    return rule_error(ErrorClass::shape_mismatch, "broadcast_to " + sizes_string(shape) + " has a lower rank than " +
                                                      to_string(x));
  Type r = x;  // a weak operand stays weak, as lax.broadcast_in_dim keeps it
  r.dims.clear();
  int offset = static_cast<int>(shape.size()) - x.rank();
  for (int i = 0; i < static_cast<int>(shape.size()); ++i) {
    if (shape[i] < 0) return rule_error(ErrorClass::shape_mismatch, "broadcast_to size " + std::to_string(shape[i]) + " is negative");
    int j = i - offset;
    if (j < 0) {
      r.dims.push_back(Dim{shape[i], {}});
      continue;
    }
    const Dim& d = x.dims[j];
    if (d.size == shape[i]) r.dims.push_back(d);
    else if (d.size == 1) r.dims.push_back(Dim{shape[i], {}});
    else
      return rule_error(ErrorClass::shape_mismatch, "cannot broadcast " + to_string(x) + " to " + sizes_string(shape),
                        {"dimensions are compared from the right; each must equal the target or be 1"});
  }
  return r;
}

Result<Type> expand_dims_op(const Type& x, int axis) {
  if (x.rank() + 1 > kMaxRank)
    return rule_error(ErrorClass::limit, "expand_dims would exceed the rank limit of " + std::to_string(kMaxRank));
  Type r = x;
  r.dims.insert(r.dims.begin() + axis, Dim{1, {}});
  return r;
}

Result<Type> squeeze_op(const Type& x, int axis) {
  if (x.dims[axis].size != 1)
    return rule_error(ErrorClass::shape_mismatch, "squeeze: dimension " + std::to_string(axis) + " of " + to_string(x) +
                                                      " has size " + std::to_string(x.dims[axis].size) + ", not 1");
  Type r = x;
  r.dims.erase(r.dims.begin() + axis);
  return r;
}

}  // namespace shardc::check

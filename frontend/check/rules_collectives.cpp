#include "frontend/check/rules_collectives.h"

#include <set>

#include "frontend/check/checked_math.h"
#include "frontend/check/dtype_rules.h"
#include "frontend/check/sharding_spec.h"

namespace shardc::check {
namespace {

std::optional<RuleError> need_local_array(std::string_view op, const Type& x) {
  if (x.kind == TypeKind::array && x.local) return std::nullopt;
  if (x.kind == TypeKind::array)
    return rule_error(ErrorClass::bad_argument, std::string(op) + " is a collective: it works on per-device blocks " +
                                                    "inside a shard_map body, not on the global array " + to_string(x),
                      {"in a func, change layouts with reshard; collectives are written in shard_map bodies"}, 0);
  return rule_error(ErrorClass::bad_argument, std::string(op) + " needs an array, got " + to_string(x), {}, 0);
}

std::string names(const Mesh& m, const AxisList& axes) { return format_axes(m, axes); }

}  // namespace

std::int64_t group_size(const Mesh& mesh, const AxisList& axes) { return axes_product(mesh, axes); }

Result<Type> all_reduce_op(std::string_view op, AllReduceKind kind, const Type& x, const AxisList& axes) {
  if (auto e = need_local_array(op, x)) return *e;
  Type r = x;
  r.weak = false;
  r.varying = x.varying & ~to_set(axes);
  if (kind == AllReduceKind::sum) r.dtype = sum_dtype(x.dtype);
  if (kind == AllReduceKind::mean) r.dtype = mean_dtype(x.dtype);
  return r;
}

Result<Type> all_gather_op(const Type& x, const AxisList& axes, int axis, bool tiled, bool invariant, bool checked) {
  std::string_view op = invariant ? "all_gather_invariant" : "all_gather";
  if (auto e = need_local_array(op, x)) return *e;
  const Mesh& m = *x.mesh;
  AxisSet need = to_set(axes);
  // all_gather_invariant pvarys what does not vary over the axes yet (JAX's bind does, and its
  // type rule never refuses); all_gather refuses it, in JAX-RULES.md's words.
  if (checked && !invariant && (x.varying & need) != need)
    return rule_error(ErrorClass::gather_invariant,
                      "Collective " + std::string(op) + " must be applied to a device-varying type, but got " +
                          to_string(x) + " for collective acting over axis " + names(m, axes),
                      {"the value does not vary over " + format_axis_set(m, need & ~x.varying) +
                       ": every device of the group already holds the same block, so gathering would only stack "
                       "copies; use the value as it is, or pvary it first if the copies are intended"},
                      0);
  std::int64_t n = group_size(m, axes);
  Type r = x;
  int lim = tiled ? x.rank() - 1 : x.rank();
  if (axis < 0 || axis > lim)
    return rule_error(ErrorClass::out_of_range, std::string(op) + ": axis=" + std::to_string(axis) +
                                                    " is out of range for " + to_string(x));
  if (tiled) {
    auto grown = checked_mul(r.dims[axis].size, n);
    if (!grown) return rule_error(ErrorClass::limit, std::string(op) + ": the gathered size overflows 64 bits");
    r.dims[axis].size = *grown;
  } else {
    if (x.rank() + 1 > kMaxRank) return rule_error(ErrorClass::limit, std::string(op) + " would exceed the rank limit");
    r.dims.insert(r.dims.begin() + axis, Dim{n, {}});
  }
  if (invariant) r.varying &= ~need;
  return r;
}

Result<Type> psum_scatter_op(const Type& x, const AxisList& axes, int dim, bool tiled) {
  if (auto e = need_local_array("psum_scatter", x)) return *e;
  std::int64_t n = group_size(*x.mesh, axes);
  if (dim < 0 || dim >= x.rank())
    return rule_error(ErrorClass::out_of_range, "psum_scatter: dim=" + std::to_string(dim) + " is out of range for " +
                                                    to_string(x));
  std::int64_t d = x.dims[dim].size;
  Type r = x;
  r.dtype = sum_dtype(x.dtype);
  r.varying |= to_set(axes);
  if (tiled) {
    if (d % n != 0)
      return rule_error(ErrorClass::not_divisible,
                        "tiled reduce_scatter operand scatter dimension size " + std::to_string(d) +
                            " must be divisible by shard_count " + std::to_string(n),
                        {"psum_scatter(tiled=true) gives each of the " + std::to_string(n) + " devices of " +
                         names(*x.mesh, axes) + " an equal part of dimension " + std::to_string(dim)},
                        0);
    r.dims[dim].size = d / n;
  } else {
    if (d != n)
      return rule_error(ErrorClass::shape_mismatch,
                        "reduce_scatter operand scatter dimension size " + std::to_string(d) +
                            " must match shard count " + std::to_string(n),
                        {"untiled psum_scatter removes dimension " + std::to_string(dim) +
                         ", one index per device; use tiled=true to split it instead"},
                        0);
    r.dims.erase(r.dims.begin() + dim);
  }
  return r;
}

Result<Type> all_to_all_op(const Type& x, const AxisList& axes, int split, int concat, bool tiled) {
  if (auto e = need_local_array("all_to_all", x)) return *e;
  std::int64_t n = group_size(*x.mesh, axes);
  int rank = x.rank();
  if (split < 0 || split >= rank)
    return rule_error(ErrorClass::out_of_range, "all_to_all: split=" + std::to_string(split) + " is out of range for " +
                                                    to_string(x));
  int concat_lim = tiled ? rank - 1 : rank - 1;  // untiled: result rank == operand rank
  if (concat < 0 || concat > concat_lim)
    return rule_error(ErrorClass::out_of_range, "all_to_all: concat=" + std::to_string(concat) +
                                                    " is out of range for " + to_string(x));
  Type r = x;
  r.varying |= to_set(axes);
  std::int64_t d = x.dims[split].size;
  if (tiled) {
    if (d % n != 0)
      return rule_error(ErrorClass::not_divisible,
                        "The size of all_to_all split_axis (" + std::to_string(d) +
                            ") has to be divisible by the size of the named axis " + names(*x.mesh, axes) + " (" +
                            std::to_string(n) + ")",
                        {}, 0);
    r.dims[split].size = d / n;
    auto grown = checked_mul(r.dims[concat].size, n);
    if (!grown) return rule_error(ErrorClass::limit, "all_to_all: the concatenated size overflows 64 bits");
    r.dims[concat].size = *grown;
  } else {
    if (d != n)
      return rule_error(ErrorClass::shape_mismatch,
                        "all_to_all requires the size of the mapped axis " + names(*x.mesh, axes) +
                            " to equal x.shape[split_axis], but they are " + std::to_string(n) + " and " +
                            std::to_string(d) + " respectively.",
                        {"untiled all_to_all removes the split dimension and inserts one of size n at concat; use "
                         "tiled=true to split it instead"},
                        0);
    r.dims.erase(r.dims.begin() + split);
    r.dims.insert(r.dims.begin() + concat, Dim{n, {}});
  }
  return r;
}

std::vector<std::pair<std::int64_t, std::int64_t>> shift_perm(std::int64_t n, std::int64_t k) {
  std::vector<std::pair<std::int64_t, std::int64_t>> p;
  if (n <= 0) return p;
  std::int64_t s = ((k % n) + n) % n;
  for (std::int64_t j = 0; j < n; ++j) p.emplace_back(j, (j + s) % n);
  return p;
}

Result<Type> ppermute_op(const Type& x, const AxisList& axes,
                         const std::vector<std::pair<std::int64_t, std::int64_t>>& perm) {
  if (auto e = need_local_array("ppermute", x)) return *e;
  std::int64_t n = group_size(*x.mesh, axes);
  std::set<std::int64_t> src, dst;
  for (auto [s, d] : perm) {
    if (s < 0 || s >= n || d < 0 || d >= n)
      return rule_error(ErrorClass::out_of_range,
                        "ppermute pair (" + std::to_string(s) + ", " + std::to_string(d) +
                            ") names a device outside " + names(*x.mesh, axes) + ", whose indices are 0 to " +
                            std::to_string(n - 1),
                        {}, 2);
    if (!src.insert(s).second || !dst.insert(d).second) {
      // JAX prints the whole perm, as the tuple of pairs it binds.
      std::string pairs;
      for (auto [ps, pd] : perm) pairs += (pairs.empty() ? "(" : ", (") + std::to_string(ps) + ", " + std::to_string(pd) + ")";
      return rule_error(ErrorClass::bad_argument,
                        "ppermute sources and destinations must be unique, got (" + pairs + (perm.size() == 1 ? ",)." : ")."),
                        {"each device sends at most one block and receives at most one; (" + std::to_string(s) + ", " +
                         std::to_string(d) + ") repeats a source or a destination"},
                        2);
    }
  }
  Type r = x;
  r.varying |= to_set(axes);
  return r;
}

Result<Type> pvary_op(const Type& x, const AxisList& axes, bool checked) {
  if (auto e = need_local_array("pvary", x)) return *e;
  AxisSet a = to_set(axes);
  if (checked && (x.varying & a) != 0)
    return rule_error(ErrorClass::bad_argument,
                      "pvary is a invariant->variant collective. This means that the axis names mentioned in "
                      "`axes` passed to `pvary` must not be present in the input's varying axes. Got axes=" +
                          format_axes(*x.mesh, axes) + " and input type=" + to_string(x),
                      {"it already varies over " + format_axis_set(*x.mesh, x.varying & a) +
                       "; name only axes the value does not vary over yet"},
                      0);
  Type r = x;
  r.varying |= a;
  return r;
}

Type axis_index_type(const Mesh& mesh, const AxisList& axes) {
  return make_local(DType::i32, {}, &mesh, to_set(axes));
}

Result<Type> ragged_all_to_all_op(const std::vector<Type>& a, const AxisList& axes) {
  static const char* names[] = {"operand", "output", "input_offsets", "send_sizes", "output_offsets", "recv_sizes"};
  for (int i = 0; i < 6; ++i)
    if (auto e = need_local_array("ragged_all_to_all", a[i])) {
      e->operand = i;
      e->message = std::string("ragged_all_to_all's ") + names[i] + ": " + e->message;
      return *e;
    }
  const Type& op = a[0];
  const Type& out = a[1];
  if (op.dtype != out.dtype || op.rank() != out.rank() || op.rank() == 0)
    return rule_error(ErrorClass::shape_mismatch, "ragged_all_to_all's operand " + to_string(op) +
                                                      " and output " + to_string(out) +
                                                      " must have one dtype and one rank (1 or more)",
                      {}, 1);
  for (int d = 1; d < op.rank(); ++d)
    if (op.dims[d].size != out.dims[d].size)
      return rule_error(ErrorClass::shape_mismatch, "ragged_all_to_all's operand " + to_string(op) + " and output " +
                                                        to_string(out) + " differ beyond dimension 0",
                        {}, 1);
  std::int64_t n = group_size(*op.mesh, axes);
  for (int i = 2; i < 6; ++i)
    if (a[i].rank() != 1 || a[i].dims[0].size != n || !shard::is_integer(a[i].dtype))
      return rule_error(ErrorClass::shape_mismatch,
                        std::string("ragged_all_to_all's ") + names[i] + " must be a 1-D integer array of " +
                            std::to_string(n) + " elements (one per device of the group), got " + to_string(a[i]),
                        {}, i);
  // What lands where depends on every device's offsets and sizes too: a result varies wherever
  // any operand does, and over the group.
  Type r = out;
  for (int i = 0; i < 6; ++i) r.varying |= a[i].varying;
  r.varying |= to_set(axes);
  return r;
}

namespace {

// A spec as JAX prints a PartitionSpec: P('X', None), P(('X', 'Y'),), P().
std::string partition_spec(const Mesh& m, const std::vector<Dim>& dims) {
  std::size_t used = dims.size();
  while (used > 0 && dims[used - 1].axes.empty()) --used;  // JAX's P() omits trailing Nones
  std::string s = "P(";
  for (std::size_t d = 0; d < used; ++d) {
    const AxisList& axes = dims[d].axes;
    std::string entry = axes.empty() ? "None" : "";
    for (std::size_t k = 0; k < axes.size(); ++k) entry += (k ? ", '" : "'") + m.axis_names.at(axes[k]) + "'";
    if (axes.size() > 1) entry = "(" + entry + ")";
    s += (d ? ", " : "") + entry;
  }
  return s + ")";
}

// A set of axes as JAX prints it in this message: names in mesh order joined by commas, {X,Y}.
std::string axis_set(const Mesh& m, AxisSet set) {
  std::string s;
  for (std::size_t a = 0; a < m.axis_names.size(); ++a)
    if (set & (AxisSet{1} << a)) s += (s.empty() ? "" : ",") + m.axis_names[a];
  return "{" + s + "}";
}

// JAX's two wordings (jax.shard_map's replication check), chosen as JAX chooses them: by how
// many mesh axes the out spec leaves unmentioned (one, or more), not by how many of those the
// value varies over. `key` is the output's place in the out_specs tree ("[1]" in a tuple).
std::string jax_vma_message(const Mesh& m, const Type& out, AxisSet extra, AxisSet varying, const std::string& key) {
  const std::string spec = partition_spec(m, out.dims);
  const AxisSet all = m.axis_names.size() >= 8 * sizeof(AxisSet) ? ~AxisSet{0} : (AxisSet{1} << m.axis_names.size()) - 1;
  const AxisSet unmentioned = all & ~out.sharded_axes();
  if ((unmentioned & (unmentioned - 1)) == 0) {
    std::string axis;
    for (std::size_t a = 0; a < m.axis_names.size(); ++a)
      if (unmentioned & (AxisSet{1} << a)) axis = m.axis_names[a];
    return "out_specs" + key + " is " + spec +
           " which implies that the corresponding output value is replicated across mesh axis '" + axis +
           "', but could not infer replication over any axes";
  }
  return "out_specs" + key + " is " + spec + " which implies that the corresponding output value is only varying across mesh axes " +
         axis_set(m, out.sharded_axes()) + " and not " + axis_set(m, extra) +
         ", but it was inferred to be possibly varying over " + axis_set(m, varying);
}

}  // namespace

std::optional<RuleError> check_output(const Type& block, const Type& out, int index, bool in_tuple, bool checked) {
  Type expect = block_type(out);
  std::string which = "result " + std::to_string(index);
  if (block.kind != TypeKind::array)
    return rule_error(ErrorClass::shape_mismatch, "shard_map " + which + " must be an array block, got " +
                                                      to_string(block));
  if (block.dtype != expect.dtype || block.shape() != expect.shape()) {
    // The note explains what differs: the block shape rule, or the dtype (astype converts).
    std::vector<std::string> notes;
    if (block.shape() != expect.shape())
      notes.push_back("the out type's block shape is each global dim // the product of its axes");
    if (block.dtype != expect.dtype)
      notes.push_back("the dtypes differ: convert the result with astype(x, " +
                      std::string(shard::dtype_short_name(expect.dtype)) + ")");
    return rule_error(ErrorClass::shape_mismatch,
                      "shard_map " + which + " has block type " + to_string(block) + ", but its out type " +
                          to_string(out) + " needs blocks of " + to_string(expect),
                      std::move(notes));
  }
  if (!checked) return std::nullopt;
  AxisSet extra = block.varying & ~out.sharded_axes();
  if (extra == 0) return std::nullopt;
  const Mesh& m = *out.mesh;
  return rule_error(ErrorClass::vma_output,
                    "shard_map " + which + " may vary over mesh axes " + format_axis_set(m, extra) +
                        ", but its out type " + to_string(out) + " is replicated over them",
                    {"JAX: " + jax_vma_message(m, out, extra, block.varying,
                                               in_tuple ? "[" + std::to_string(index) + "]" : ""),
                     "reduce over those axes first (psum, pmean, all_gather_invariant), shard the out type over "
                     "them, or declare the shard_map `unchecked` (JAX: check_vma=False)"});
}

std::optional<RuleError> check_var_assignment(std::string_view name, const Type& declared, const Type& assigned) {
  if (declared == assigned) return std::nullopt;
  // A weak static scalar assigned to a static var of the same dtype keeps the var's type.
  if (declared.kind == assigned.kind && declared.kind == TypeKind::static_scalar && declared.dtype == assigned.dtype)
    return std::nullopt;
  std::vector<std::string> notes;
  if (declared.kind == TypeKind::array && assigned.kind == TypeKind::array && declared.local &&
      declared.dtype == assigned.dtype && declared.shape() == assigned.shape() &&
      declared.varying != assigned.varying) {
    AxisSet missing = assigned.varying & ~declared.varying;
    const Mesh& m = *declared.mesh;
    if (missing != 0)
      notes.push_back("the new value varies over " + format_axis_set(m, missing) +
                      ": make the var varying from the start, e.g. `var " + std::string(name) +
                      " = pvary(<initial value>, " + format_axes(m, to_list(missing)) +
                      ");` (JAX: apply pcast(..., to='varying') to the initial carry)");
    else
      notes.push_back("the new value is invariant over " + format_axis_set(m, declared.varying & ~assigned.varying) +
                      "; apply pvary(value, " + format_axes(m, to_list(declared.varying & ~assigned.varying)) +
                      ") to it");
  } else {
    notes.push_back("a var keeps the type of its first value: shape, dtype, sharding and varying axes; use a new "
                    "`let` for a value of another type");
  }
  return rule_error(ErrorClass::var_type_change,
                    "var '" + std::string(name) + "' has type " + to_string(declared) +
                        ", but is assigned a value of type " + to_string(assigned),
                    std::move(notes));
}

}  // namespace shardc::check

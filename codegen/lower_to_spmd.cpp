#include "codegen/lower_to_spmd.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>

#include "codegen/lowering_support.h"
#include "frontend/check/dtype_rules.h"
#include "frontend/check/reshape_layout.h"
#include "frontend/internal_error.h"

namespace shardc::codegen {
namespace {

const std::set<std::string> kUnary = {"neg",  "logical_not", "abs",   "sign",  "square", "relu", "floor",
                                      "ceil", "round",       "exp",   "log",   "log1p",  "expm1", "sqrt",
                                      "rsqrt", "sin",        "cos",   "tan",   "tanh",   "erf",  "sigmoid",
                                      "gelu"};
const std::set<std::string> kBinary = {"add", "sub",     "mul",     "div", "floor_div", "rem",
                                       "pow", "integer_pow", "maximum", "minimum", "and", "or"};
const std::set<std::string> kCompare = {"eq", "ne", "lt", "le", "gt", "ge"};
const std::set<std::string> kCollectives = {"psum",         "pmean",     "pmax",       "pmin",
                                            "all_gather",   "all_gather_invariant",   "psum_scatter",
                                            "all_to_all",   "ppermute",  "pvary",      "ragged_all_to_all"};

// The dtype both operands of a comparison are compared in: JAX's promotion (the checker's),
// where a weak (literal) operand gives way to the other one unless it is of a higher kind
// (`bool_array != -2` compares in int32).
DType common_dtype(const Value& a, const Value& b) {
  return check::promote({a.dtype, a.weak}, {b.dtype, b.weak}).dtype;
}

class SpmdLowering {
 public:
  SpmdLowering(const check::CheckedFunction& cf, Diagnostics& diags) : cf_(cf), diags_(diags) {}

  Function run() {
    f_.name = cf_.name;
    f_.manual = cf_.kind == ast::FunctionKind::shard_map;
    f_.unchecked = cf_.unchecked;
    f_.mesh = cf_.mesh;
    f_.param_names = cf_.param_names;
    f_.param_types = cf_.param_types;
    f_.result_types = cf_.result_types;
    f_.tuple_result = cf_.tuple_result;
    for (const check::Type& t : cf_.values) f_.values.push_back(value_of(t));
    for (const check::Binding& b : cf_.bindings)
      if (b.value >= 0 && f_.values[static_cast<std::size_t>(b.value)].name.empty())
        f_.values[static_cast<std::size_t>(b.value)].name = b.name;
    for (const check::Op& op : cf_.ops) lower(op);
    f_.results = cf_.results;
    return std::move(f_);
  }

 private:
  Value value_of(const check::Type& t) const {
    Value v;
    if (t.kind == check::TypeKind::key) {
      v.kind = ValueKind::key;
      return v;
    }
    v.dtype = t.dtype;
    v.weak = t.weak;
    if (t.local || f_.manual) {
      v.shape = t.shape();
      return v;
    }
    v.global_shape = t.shape();
    for (const check::Dim& d : t.dims) v.spec.push_back(d.axes);
    v.unreduced = check::to_list(t.unreduced);
    v.shape = block_shape(*cf_.mesh, v.global_shape, v.spec);
    return v;
  }

  const Value& val(ValueId id) const { return f_.values.at(static_cast<std::size_t>(id)); }

  void add(OpKind kind, const check::Op& op, Attrs attrs, std::vector<ValueId> inputs = {}) {
    f_.body.push_back(Instr::make(kind, inputs.empty() && kind != OpKind::param ? op.inputs : std::move(inputs),
                                  op.outputs, std::move(attrs), op.range));
  }

  void unsupported(const check::Op& op, const std::string& why) {
    diags_.error(op.range, "code generation does not support " + why);
  }

  // Whether the op, in the global view, reads or writes across the blocks of a sharded
  // dimension, so that it cannot run on blocks as it is.
  bool crosses_blocks(const check::Op& op) const {
    if (f_.manual || op.inputs.empty()) return false;
    const Value& x = val(op.inputs[0]);
    auto sharded = [&](const Value& v, std::int64_t d) {
      return d >= 0 && static_cast<std::size_t>(d) < v.spec.size() && !v.spec[static_cast<std::size_t>(d)].empty();
    };
    auto any_sharded = [&](const Value& v) { return !is_replicated(v.spec); };
    const std::string& n = op.name;
    auto attr_int = [&](const char* a) { return std::get<std::int64_t>(op.attrs.at(a)); };
    if (n == "slice") return !slice_dims_across_blocks(op).empty();
    // These work along one dimension (dynamic_index: dimension 0) and keep the others' blocks:
    // each device runs them on its blocks unless that dimension is sharded. (The checker gives a
    // dynamic_update_slice's update the operand's sharding, stacked operands one type, and
    // top_k an unsharded last dimension.)
    // One start per dimension: it crosses where the window (the slice, the update) covers only
    // part of a sharded dimension.
    auto window_cuts_sharded_dim = [&](const std::vector<std::int64_t>& window) {
      for (std::size_t d = 0; d < window.size(); ++d)
        if (sharded(x, static_cast<std::int64_t>(d)) && window[d] != x.global_shape[d]) return true;
      return false;
    };
    if (n == "dynamic_slice" && op.attrs.count("sizes"))
      return window_cuts_sharded_dim(std::get<std::vector<std::int64_t>>(op.attrs.at("sizes")));
    // (The axis form's update sits at 0 on the other dimensions.) A window as large as the
    // dimension is the whole of it, whatever the start (it clamps to 0): each block is its own.
    if (n == "dynamic_update_slice") return window_cuts_sharded_dim(val(op.inputs[1]).global_shape);
    if (n == "dynamic_slice")
      return sharded(x, attr_int("axis")) && attr_int("size") != x.global_shape[static_cast<std::size_t>(attr_int("axis"))];
    if (n == "split") return sharded(x, attr_int("axis")) && op.outputs.size() > 1;
    if (n == "dynamic_index") return sharded(x, 0);
    if (n == "stack" || n == "top_k") return false;
    if (n == "roll" || n == "softmax" || n == "concat") return sharded(x, attr_int("axis"));
    if (n == "reduce_argmax" || n == "reduce_argmin") {
      for (auto d : std::get<std::vector<std::int64_t>>(op.attrs.at("axes")))
        if (sharded(x, d)) return true;
      return std::get<std::vector<std::int64_t>>(op.attrs.at("axes")).empty() && any_sharded(x);
    }
    return false;
  }

  // The sharded dimensions a slice cannot cut block by block. A block is cut in place when every
  // block keeps the same elements: the whole dimension, or every s-th element from a start
  // below s where s divides the block (x[::2], x[1::2]); an index or any other range reads
  // across blocks.
  std::vector<std::int64_t> slice_dims_across_blocks(const check::Op& op) const {
    const Value& x = val(op.inputs[0]);
    const auto& starts = std::get<std::vector<std::int64_t>>(op.attrs.at("starts"));
    const auto& limits = std::get<std::vector<std::int64_t>>(op.attrs.at("limits"));
    const auto& steps = std::get<std::vector<std::int64_t>>(op.attrs.at("steps"));
    std::vector<std::int64_t> dims;
    for (std::size_t d = 0; d < starts.size() && d < x.spec.size(); ++d)
      if (!x.spec[d].empty() &&
          !(starts[d] < steps[d] && x.shape[d] % steps[d] == 0 &&
            shard::slice_count(starts[d], limits[d], steps[d]) == x.global_shape[d] / steps[d]))
        dims.push_back(static_cast<std::int64_t>(d));
    return dims;
  }

  // The dimensions an op that works along some axes of one operand needs whole (softmax and
  // roll along `axis`, argmax/argmin over `axes`, the dimensions a slice cuts across
  // blocks); every other dimension keeps its blocks,
  // so only the axes of these are gathered. nullopt: the op needs its operands replicated.
  std::optional<std::vector<std::int64_t>> whole_dims(const check::Op& op) const {
    const std::string& n = op.name;
    // concat's operands share one sharding (the checker's rule): each is gathered along `axis`.
    if (n == "concat") return std::vector<std::int64_t>{std::get<std::int64_t>(op.attrs.at("axis"))};
    // dynamic_slice and dynamic_update_slice: the sharded dimensions whose window (the slice's,
    // the update's) covers only part of the dimension; a window as large as a sharded dimension
    // is each device's block.
    if (n == "dynamic_slice" || n == "dynamic_update_slice") {
      const Value& x = val(op.inputs[0]);
      std::vector<std::int64_t> window = x.global_shape;
      if (n == "dynamic_update_slice") window = val(op.inputs[1]).global_shape;
      else if (op.attrs.count("sizes")) window = std::get<std::vector<std::int64_t>>(op.attrs.at("sizes"));
      else window[static_cast<std::size_t>(std::get<std::int64_t>(op.attrs.at("axis")))] = std::get<std::int64_t>(op.attrs.at("size"));
      std::vector<std::int64_t> dims;
      for (std::size_t d = 0; d < window.size() && d < x.spec.size(); ++d)
        if (!x.spec[d].empty() && window[d] != x.global_shape[d]) dims.push_back(static_cast<std::int64_t>(d));
      return dims;
    }
    if (op.inputs.size() != 1 || op.outputs.size() != 1) return std::nullopt;
    if (n == "roll" || n == "softmax") return std::vector<std::int64_t>{std::get<std::int64_t>(op.attrs.at("axis"))};
    if (n == "slice") return slice_dims_across_blocks(op);
    if (n == "reduce_argmax" || n == "reduce_argmin") {
      const auto& axes = std::get<std::vector<std::int64_t>>(op.attrs.at("axes"));
      if (!axes.empty()) return axes;
    }
    return std::nullopt;
  }

  // The sharding the op's result has when its operand has `in`: the same for roll/softmax; a
  // slice drops its indexed dimensions; a reduction drops the reduced dimensions (keeps them, of size 1 and unsplit, with keepdims).
  std::vector<AxisList> result_spec_for(const check::Op& op, const std::vector<AxisList>& in,
                                        const std::vector<std::int64_t>& whole) const {
    if (op.name == "roll" || op.name == "softmax" || op.name == "concat" || op.name == "dynamic_slice" ||
        op.name == "dynamic_update_slice")
      return in;
    if (op.name == "slice") {  // indexed dimensions go; the others keep their (block-cut) specs
      const auto& squeezed = std::get<std::vector<std::int64_t>>(op.attrs.at("squeezed"));
      std::vector<AxisList> out;
      for (std::size_t d = 0; d < in.size(); ++d)
        if (std::find(squeezed.begin(), squeezed.end(), static_cast<std::int64_t>(d)) == squeezed.end())
          out.push_back(in[d]);
      return out;
    }
    const bool keepdims = std::get<bool>(op.attrs.at("keepdims"));
    std::vector<AxisList> out;
    for (std::size_t d = 0; d < in.size(); ++d) {
      const bool reduced = std::find(whole.begin(), whole.end(), static_cast<std::int64_t>(d)) != whole.end();
      if (!reduced) out.push_back(in[d]);
      else if (keepdims) out.push_back({});
    }
    return out;
  }

  // Runs `op` on operands whose dimensions it reads across are gathered (only those, when
  // whole_dims knows them; else every dimension), then reshards its results to their checked
  // shardings.
  void lower_replicated(const check::Op& op) {
    std::vector<ValueId> inputs;
    std::vector<AxisList> natural_out;
    const auto whole = whole_dims(op);
    if (whole) {
      std::vector<AxisList> in_spec = val(op.inputs[0]).spec;
      for (std::int64_t d : *whole) in_spec.at(static_cast<std::size_t>(d)).clear();
      // The operands laid out alike (a dynamic_update_slice's update has its operand's
      // sharding); the scalar starts of the dynamic ops pass as they are.
      const std::size_t laid_out = op.name == "dynamic_slice"          ? 1
                                   : op.name == "dynamic_update_slice" ? 2
                                                                       : op.inputs.size();
      for (std::size_t i = 0; i < op.inputs.size(); ++i)
        inputs.push_back(i < laid_out ? emit_reshard(f_, op.inputs[i], in_spec, op.range) : op.inputs[i]);
      natural_out = result_spec_for(op, in_spec, *whole);
    } else {
      for (ValueId in : op.inputs) {
        const Value& v = val(in);
        inputs.push_back(v.kind == ValueKind::array ? emit_reshard(f_, in, replicated_spec(static_cast<int>(v.spec.size())), op.range) : in);
      }
    }
    std::vector<ValueId> full_outputs;
    for (ValueId o : op.outputs) {
      Value v = val(o);
      std::vector<AxisList> spec = whole ? natural_out : replicated_spec(static_cast<int>(v.spec.size()));
      ValueId id = f_.add_value(with_spec(*f_.mesh, v, spec));
      f_.values[static_cast<std::size_t>(id)].name.clear();
      full_outputs.push_back(id);
    }
    check::Op local = op;
    local.inputs = inputs;
    local.outputs = full_outputs;
    lower_local(local);
    for (std::size_t i = 0; i < op.outputs.size(); ++i) {
      ValueId target = op.outputs[i];
      f_.body.push_back(Instr::make(OpKind::reshard, {full_outputs[i]}, {target},
                                    {{"sharding", val(target).spec}}, op.range));
    }
  }

  // Lowers one global-view op that `op` is rewritten into, defining a new value like `like`;
  // returns that value.
  ValueId lower_step(const check::Op& op, std::string name, std::vector<ValueId> inputs, const Value& like,
                     std::map<std::string, check::Attr> attrs) {
    check::Op o;
    o.name = std::move(name);
    o.node = op.node;
    o.range = op.range;
    o.inputs = std::move(inputs);
    Value unnamed = like;
    unnamed.name.clear();
    o.outputs = {f_.add_value(std::move(unnamed))};
    o.attrs = std::move(attrs);
    lower(o);
    return o.outputs[0];
  }

  // A weak rank-0 value of `dtype`: a literal constant a rewrite adds.
  static Value weak_scalar(DType dtype) {
    Value v;
    v.dtype = dtype;
    v.weak = true;
    return v;
  }

  // pow(x, n) of a float x by a static integer n: lax.integer_pow, which multiplies by repeated
  // squaring, each product rounded to x's dtype (JAX's _integer_pow; a negative n takes the
  // reciprocal at the end, n = 0 gives ones). The evaluator computes the same chain.
  void lower_float_integer_pow(const check::Op& op) {
    const std::int64_t n = std::get<std::int64_t>(op.attrs.at("exponent"));
    const Value out = val(op.outputs[0]);
    if (n == 0) {
      f_.body.push_back(Instr::make(OpKind::fill, {}, op.outputs, {{"value", 1.0}}, op.range));
      return;
    }
    std::optional<ValueId> acc;
    ValueId power = op.inputs[0];
    auto multiply = [&](ValueId a, ValueId b) { return lower_step(op, "mul", {a, b}, out, {}); };
    const std::uint64_t magnitude =
        n < 0 ? static_cast<std::uint64_t>(-(n + 1)) + 1 : static_cast<std::uint64_t>(n);
    for (std::uint64_t y = magnitude; y > 0;) {
      if (y & 1u) acc = acc ? multiply(*acc, power) : power;
      y >>= 1;
      if (y > 0) power = multiply(power, power);
    }
    if (n < 0) {
      const ValueId one = lower_step(op, "constant", {}, weak_scalar(out.dtype), {{"value", 1.0}});
      acc = lower_step(op, "div", {one, *acc}, out, {});
    }
    f_.body.push_back(Instr::make(OpKind::alias, {*acc}, op.outputs, {}, op.range));
  }

  // argmax/argmin along a dimension d of n blocks of b elements (split over the axes G), as a
  // reduction instead of a gather of the whole dimension: each device finds its block's extreme
  // and that element's global index; a gather of one value per block finds the first block that
  // holds the overall extreme (the lowest index on ties and for NaN, as JAX's argmax), and an
  // all-reduce of one index per row gives that block's index to every device. In the global view:
  //   r = reshape(x, [.., n@G, b, ..])          (each device's block, no communication)
  //   v = max(r, d + 1);  i = argmax(r, d + 1) + b * arange(n)@G
  //   k = argmax(v, d, keepdims)                (n values a row: gathered, b is 1 here)
  //   result = sum(where(arange(n)@G == k, i, 0), d)   (one index a row: all-reduced)
  // Per device and row this moves n values and one index instead of (n - 1) * b values, so it
  // is used when b > 2.
  bool lower_arg_reduce_across_blocks(const check::Op& op) {
    const Value x = val(op.inputs[0]);
    const auto& axes = std::get<std::vector<std::int64_t>>(op.attrs.at("axes"));
    if (axes.size() != 1) return false;
    const auto d = static_cast<std::size_t>(axes[0]);
    const AxisList group = x.spec[d];
    const std::int64_t b = x.shape[d];
    const std::int64_t n = group.empty() ? 1 : x.global_shape[d] / b;
    if (n < 2 || b <= 2) return false;
    const bool is_max = op.name == "reduce_argmax";
    const Value& result = val(op.outputs[0]);
    const DType index_dtype = result.dtype;
    auto like = [&](DType dtype, std::vector<std::int64_t> shape, std::vector<AxisList> spec) {
      Value v;
      v.dtype = dtype;
      v.global_shape = std::move(shape);
      return with_spec(*f_.mesh, v, std::move(spec));
    };
    auto insert = [](auto list, std::size_t at, auto item) {
      list.insert(list.begin() + static_cast<std::ptrdiff_t>(at), item);
      return list;
    };
    // [.., n@G, ..]: the rows of blocks; after d, as many 1s as x has dimensions after d.
    std::vector<std::int64_t> rows_shape = x.global_shape;
    rows_shape[d] = n;
    const std::vector<AxisList> rows_spec = x.spec;
    std::vector<std::int64_t> column_shape(x.global_shape.size() - d, 1);
    column_shape[0] = n;
    std::vector<AxisList> column_spec(column_shape.size());
    column_spec[0] = group;
    // b * arange(n) (the blocks' offsets) or arange(n) (their positions), as a column [n@G, 1..].
    auto block_column = [&](std::int64_t step) {
      const ValueId line = lower_step(op, "arange", {}, like(index_dtype, {n}, {group}),
                                      {{"start", 0.0}, {"stop", static_cast<double>(n * step)},
                                       {"step", static_cast<double>(step)}});
      if (column_shape.size() == 1) return line;
      return lower_step(op, "reshape", {line}, like(index_dtype, column_shape, column_spec), {});
    };
    const ValueId r = lower_step(op, "reshape", {op.inputs[0]},
                                 like(x.dtype, insert(rows_shape, d + 1, b), insert(rows_spec, d + 1, AxisList{})), {});
    const std::map<std::string, check::Attr> within_block = {{"axes", std::vector<std::int64_t>{axes[0] + 1}},
                                                             {"keepdims", false}};
    const ValueId v = lower_step(op, is_max ? "reduce_max" : "reduce_min", {r}, like(x.dtype, rows_shape, rows_spec),
                                 within_block);
    const ValueId local = lower_step(op, op.name, {r}, like(index_dtype, rows_shape, rows_spec), within_block);
    const ValueId index = lower_step(op, "add", {local, block_column(b)}, like(index_dtype, rows_shape, rows_spec), {});
    std::vector<std::int64_t> one_shape = rows_shape;
    one_shape[d] = 1;
    std::vector<AxisList> one_spec = rows_spec;
    one_spec[d].clear();
    const ValueId k = lower_step(op, op.name, {v}, like(index_dtype, one_shape, one_spec),
                                 {{"axes", axes}, {"keepdims", true}});
    const ValueId hit = lower_step(op, "eq", {block_column(1), k}, like(DType::boolean, rows_shape, rows_spec), {});
    const ValueId zero = lower_step(op, "constant", {}, weak_scalar(index_dtype), {{"value", std::int64_t{0}}});
    const ValueId picked = lower_step(op, "select", {hit, index, zero}, like(index_dtype, rows_shape, rows_spec), {});
    check::Op sum = op;
    sum.name = "reduce_sum";
    sum.inputs = {picked};
    lower(sum);
    return true;
  }

  // softmax of f32 along a sharded axis, as JAX computes it: exp(x - max) / sum, with the max
  // and the sum reductions over that axis (all-reduces of one row per slice after
  // lower_reductions), instead of gathering the whole axis to every device. Other dtypes keep
  // the gathered form, whose single rounding at the end the evaluator's reference matches.
  bool lower_softmax_across_blocks(const check::Op& op) {
    const Value x = val(op.inputs[0]);
    if (x.dtype != DType::f32 || val(op.outputs[0]).dtype != DType::f32) return false;
    const std::int64_t axis = std::get<std::int64_t>(op.attrs.at("axis"));
    // The max and the sum: the operand's shape and sharding with `axis` kept as one unsplit row.
    Value row = x;
    row.name.clear();
    row.global_shape[static_cast<std::size_t>(axis)] = 1;
    std::vector<AxisList> row_spec = x.spec;
    row_spec[static_cast<std::size_t>(axis)].clear();
    row = with_spec(*f_.mesh, row, row_spec);
    Value whole = x;
    whole.name.clear();
    const std::map<std::string, check::Attr> over_axis = {{"axes", std::vector<std::int64_t>{axis}}, {"keepdims", true}};
    const ValueId max = lower_step(op, "reduce_max", {op.inputs[0]}, row, over_axis);
    const ValueId shifted = lower_step(op, "sub", {op.inputs[0], max}, whole, {});
    const ValueId e = lower_step(op, "exp", {shifted}, whole, {});
    const ValueId sum = lower_step(op, "reduce_sum", {e}, row, over_axis);
    check::Op divide = op;
    divide.name = "div";
    divide.inputs = {e, sum};
    divide.attrs.clear();
    lower(divide);
    return true;
  }

  // How every device reshapes its own block: the operand layout to reshard to first, and the
  // sharding of the reshaped blocks. Per group of dimensions (check::reshape_groups), the
  // result's axes, which must give contiguous blocks, spread over the operand's dimensions as a
  // split would spread them. A group where they do not (the result's blocks are not
  // contiguous runs, or the axes do not divide the operand's dimensions in turn) is reshaped
  // whole: its operand dimensions gathered, its result dimensions cut to their sharding after
  // the reshape (a local take_piece). The other groups keep their blocks, so only the groups
  // that need it move data.
  //   f32[16@(X,Y)] -> [2@X, 8@Y]: [(X,Y)], the operand's own
  //   f32[4@X, 4@Y] -> [16@(X,Y)] with X=Y=2: [(X,Y), None], which a reshard makes first
  //   f32[8@X, 4, 6@Y] -> [8@X, 2, 12@Y]: [X, None, None] (dims 1-2 gathered over Y), reshaped
  //     to [X, None, None], then cut to [X, None, Y]
  struct ReshapePlan {
    std::vector<AxisList> operand_layout;
    std::vector<AxisList> reshaped_spec;  // the result's spec, but for groups reshaped whole
  };
  ReshapePlan reshape_plan(const Value& x, const Value& r) const {
    ReshapePlan plan{replicated_spec(static_cast<int>(x.global_shape.size())), r.spec};
    std::vector<bool> grouped(r.global_shape.size(), false);
    for (const check::ReshapeGroup& g : check::reshape_groups(x.global_shape, r.global_shape)) {
      std::vector<std::int64_t> old_sizes, new_sizes;
      std::vector<AxisList> new_specs;
      for (int d : g.old_dims) old_sizes.push_back(x.global_shape[static_cast<std::size_t>(d)]);
      for (int d : g.new_dims) {
        new_sizes.push_back(r.global_shape[static_cast<std::size_t>(d)]);
        new_specs.push_back(r.spec[static_cast<std::size_t>(d)]);
        grouped[static_cast<std::size_t>(d)] = true;
      }
      const AxisList axes = check::concatenated(new_specs);
      if (axes.empty()) continue;
      std::optional<std::vector<AxisList>> old_specs;
      if (check::spread_axes(*f_.mesh, axes, new_sizes) == new_specs) old_specs = check::spread_axes(*f_.mesh, axes, old_sizes);
      if (!old_specs) {
        for (int d : g.new_dims) plan.reshaped_spec[static_cast<std::size_t>(d)].clear();
        continue;
      }
      for (std::size_t k = 0; k < g.old_dims.size(); ++k)
        plan.operand_layout[static_cast<std::size_t>(g.old_dims[k])] = (*old_specs)[k];
    }
    for (std::size_t d = 0; d < grouped.size(); ++d)
      if (!grouped[d]) plan.reshaped_spec[d].clear();  // a sharded size-1 (or empty) dimension: cut after
    return plan;
  }

  void lower_reshape(const check::Op& op) {
    const Value r = val(op.outputs[0]);
    const ReshapePlan plan = reshape_plan(val(op.inputs[0]), r);
    const ValueId operand = emit_reshard(f_, op.inputs[0], plan.operand_layout, op.range);
    if (plan.reshaped_spec == r.spec) return add(OpKind::reshape, op, {}, {operand});
    Value whole = with_spec(*f_.mesh, r, plan.reshaped_spec);
    whole.name.clear();
    const ValueId reshaped = f_.add_value(std::move(whole));
    f_.body.push_back(Instr::make(OpKind::reshape, {operand}, {reshaped}, {}, op.range));
    f_.body.push_back(Instr::make(OpKind::reshard, {reshaped}, op.outputs, {{"sharding", r.spec}}, op.range));
  }

  void lower(const check::Op& op) {
    if (op.name == "reshape" && !f_.manual) return lower_reshape(op);
    if (op.name == "integer_pow" && shard::is_floating(val(op.outputs[0]).dtype)) return lower_float_integer_pow(op);
    if (crosses_blocks(op)) {
      if (op.name == "split") return lower_split_as_slices(op);
      if (op.name == "slice" && lower_slice_cutting_local_dims_first(op)) return;
      if (op.name == "dynamic_update_slice") return lower_update_across_blocks(op);
      if (op.name == "softmax" && lower_softmax_across_blocks(op)) return;
      if ((op.name == "reduce_argmax" || op.name == "reduce_argmin") && lower_arg_reduce_across_blocks(op)) return;
      return lower_replicated(op);
    }
    if (is_elementwise(op)) return lower_local(align_operands(op));
    lower_local(op);
  }

  // A split along a sharded dimension: one global slice per part, each of which gathers only
  // the dimension it cuts across blocks (the parts share that gather:
  // merge_repeated_communication), as `x[a:b]` does.
  void lower_split_as_slices(const check::Op& op) {
    const std::int64_t axis = std::get<std::int64_t>(op.attrs.at("axis"));
    const std::vector<std::int64_t> shape = val(op.inputs[0]).global_shape;
    const std::int64_t part = shape[static_cast<std::size_t>(axis)] / static_cast<std::int64_t>(op.outputs.size());
    for (std::size_t i = 0; i < op.outputs.size(); ++i) {
      std::vector<std::int64_t> starts(shape.size(), 0), limits = shape, steps(shape.size(), 1);
      starts[static_cast<std::size_t>(axis)] = part * static_cast<std::int64_t>(i);
      limits[static_cast<std::size_t>(axis)] = part * static_cast<std::int64_t>(i + 1);
      check::Op slice;
      slice.name = "slice";
      slice.node = op.node;
      slice.range = op.range;
      slice.inputs = {op.inputs[0]};
      slice.outputs = {op.outputs[i]};
      slice.attrs = {{"starts", starts}, {"limits", limits}, {"steps", steps}, {"squeezed", std::vector<std::int64_t>{}}};
      lower(slice);
    }
  }

  // A slice that reads across blocks along some dimensions and also narrows others (x[0:8, 0:4]
  // of f32[16@X, 64]): the others are cut on each device's block first, so the gather that
  // follows moves only what the result keeps of them ([8, 4] rather than [8, 64]). False when
  // there is nothing to cut first.
  bool lower_slice_cutting_local_dims_first(const check::Op& op) {
    const Value x = val(op.inputs[0]);
    const std::vector<std::int64_t> across = slice_dims_across_blocks(op);
    auto starts = std::get<std::vector<std::int64_t>>(op.attrs.at("starts"));
    auto limits = std::get<std::vector<std::int64_t>>(op.attrs.at("limits"));
    auto steps = std::get<std::vector<std::int64_t>>(op.attrs.at("steps"));
    const auto& squeezed = std::get<std::vector<std::int64_t>>(op.attrs.at("squeezed"));
    // First cut: the dimensions that do not cross blocks, as the slice cuts them (an index as a
    // one-element range, dropped by the second cut); the crossing ones whole.
    std::vector<std::int64_t> first_starts(x.global_shape.size(), 0), first_limits = x.global_shape,
                              first_steps(x.global_shape.size(), 1), cut_shape = x.global_shape;
    bool narrows = false;
    for (std::size_t d = 0; d < x.global_shape.size(); ++d) {
      if (std::find(across.begin(), across.end(), static_cast<std::int64_t>(d)) != across.end()) continue;
      const std::int64_t count = shard::slice_count(starts[d], limits[d], steps[d]);
      if (count == x.global_shape[d]) continue;
      narrows = true;
      first_starts[d] = starts[d];
      first_limits[d] = limits[d];
      first_steps[d] = steps[d];
      cut_shape[d] = count;
      // The second cut takes the whole of what the first left along this dimension.
      starts[d] = 0;
      limits[d] = count;
      steps[d] = 1;
    }
    if (!narrows) return false;
    Value cut = x;
    cut.name.clear();
    cut.global_shape = cut_shape;
    const ValueId cut_id = f_.add_value(with_spec(*f_.mesh, cut, x.spec));
    check::Op first = op;
    first.inputs = {op.inputs[0]};
    first.outputs = {cut_id};
    first.attrs = {{"starts", first_starts}, {"limits", first_limits}, {"steps", first_steps},
                   {"squeezed", std::vector<std::int64_t>{}}};
    lower(first);  // crosses no block: a local slice
    check::Op second = op;
    second.inputs = {cut_id};
    second.attrs = {{"starts", starts}, {"limits", limits}, {"steps", steps}, {"squeezed", squeezed}};
    lower(second);  // gathers only the dimensions it cuts across blocks
    return true;
  }

  // A dynamic_update_slice whose window covers part of a sharded dimension (a KV-cache write at
  // a runtime position): the update, which has the operand's sharding, is gathered along those
  // dimensions, and each device writes the part of the window that falls in its own block of
  // the operand (attribute across_blocks: the dimensions where starts are global). The operand
  // stays where it is; gathering it would move the whole cache at every write.
  void lower_update_across_blocks(const check::Op& op) {
    const auto across = whole_dims(op);  // the sharded dimensions the window covers in part
    std::vector<AxisList> update_spec = val(op.inputs[1]).spec;
    for (std::int64_t d : *across) update_spec.at(static_cast<std::size_t>(d)).clear();
    std::vector<ValueId> inputs = op.inputs;
    inputs[1] = emit_reshard(f_, op.inputs[1], update_spec, op.range);
    add(OpKind::dynamic_update_slice, op, {{"axis", op.attrs.at("axis")}, {"across_blocks", *across}}, inputs);
  }

  bool is_elementwise(const check::Op& op) const {
    return !f_.manual && op.outputs.size() == 1 &&
           (kBinary.count(op.name) || kCompare.count(op.name) || op.name == "select" || op.name == "broadcast_to");
  }

  // An elementwise op whose result is split over axes that an operand of the same extent is not
  // (`f32[4@X] + f32[4]`: JAX's "one sharded + others replicated -> sharded") reads that
  // operand's blocks of the result's split: a reshard, here a local slice with no
  // communication. A broadcast dimension (size 1, or absent on the left) stays whole.
  check::Op align_operands(const check::Op& op) {
    // Copies: emit_reshard adds values, which may move every Value of the function.
    const std::vector<AxisList> out_spec = val(op.outputs[0]).spec;
    const std::vector<std::int64_t> out_shape = val(op.outputs[0]).global_shape;
    check::Op aligned = op;
    for (ValueId& in : aligned.inputs) {
      const Value& v = val(in);
      if (v.kind != ValueKind::array || v.spec.size() > out_spec.size()) continue;
      const std::size_t lead = out_spec.size() - v.spec.size();
      std::vector<AxisList> spec = v.spec;
      for (std::size_t d = 0; d < v.spec.size(); ++d)
        if (v.global_shape[d] == out_shape[lead + d]) spec[d] = out_spec[lead + d];
      in = emit_reshard(f_, in, spec, op.range);  // `v` is not used after this
    }
    return aligned;
  }

  // A call of an unchecked shard_map: its devices may return different blocks for a result
  // replicated over some axes, and the result is the lowest device's block of each group of
  // devices that differ only in those axes (docs/language.md 10.4). Each such result is
  // gathered over those axes (stacked) and every device keeps the group's first block.
  void lower_unchecked_call(const check::Op& op) {
    struct Pending {
      ValueId raw, result;
      AxisList axes;
    };
    std::vector<ValueId> outputs;
    std::vector<Pending> pending;
    for (ValueId id : op.outputs) {
      const Value& v = val(id);
      AxisList replicated;
      if (v.kind == ValueKind::array && v.unreduced.empty())
        for (int axis = 0; axis < static_cast<int>(cf_.mesh->axis_sizes.size()); ++axis) {
          if (cf_.mesh->axis_sizes[static_cast<std::size_t>(axis)] == 1) continue;
          bool named = false;
          for (const AxisList& dim : v.spec) named = named || std::find(dim.begin(), dim.end(), axis) != dim.end();
          if (!named) replicated.push_back(axis);
        }
      if (replicated.empty()) {
        outputs.push_back(id);
        continue;
      }
      Value raw = v;
      raw.name.clear();
      const ValueId raw_id = f_.add_value(raw);
      outputs.push_back(raw_id);
      pending.push_back({raw_id, id, replicated});
    }
    Attrs attrs(op.attrs.begin(), op.attrs.end());
    f_.body.push_back(Instr::make(OpKind::call, op.inputs, outputs, std::move(attrs), op.range));
    for (const Pending& p : pending) {
      Value stacked = val(p.result);
      stacked.name.clear();
      std::int64_t group = 1;
      for (int axis : p.axes) group *= cf_.mesh->axis_sizes[static_cast<std::size_t>(axis)];
      stacked.shape.insert(stacked.shape.begin(), group);
      stacked.global_shape.insert(stacked.global_shape.begin(), group);
      stacked.spec.insert(stacked.spec.begin(), AxisList{});
      const ValueId stacked_id = f_.add_value(stacked);
      f_.body.push_back(Instr::make(OpKind::all_gather, {p.raw}, {stacked_id},
                                    {{"axes", p.axes}, {"axis", std::int64_t{0}}, {"tiled", false}}, op.range));
      const std::vector<std::int64_t>& shape = val(stacked_id).shape;
      std::vector<std::int64_t> starts(shape.size(), 0), limits = shape, steps(shape.size(), 1);
      limits[0] = 1;
      f_.body.push_back(Instr::make(OpKind::slice, {stacked_id}, {p.result},
                                    {{"starts", starts}, {"limits", limits}, {"steps", steps},
                                     {"squeezed", std::vector<std::int64_t>{0}}},
                                    op.range));
    }
  }

  void lower_local(const check::Op& op) {
    const std::string& n = op.name;
    if (n == "param") return add(OpKind::param, op, {{"index", op.attrs.at("index")}});
    if (n == "constant") {
      // A Python-style int literal is a weak int32 that takes the dtype of what it meets (JAX);
      // one beyond int32 can only have met an int64 (the checker rejects it elsewhere), so it is
      // materialised as int64 rather than truncated to 32 bits before the conversion.
      Value& v = f_.values.at(static_cast<std::size_t>(op.outputs.at(0)));
      if (const auto* i = std::get_if<std::int64_t>(&op.attrs.at("value"));
          i && v.weak && v.dtype == DType::i32 && (*i < INT32_MIN || *i > INT32_MAX))
        v.dtype = DType::i64;
      return add(OpKind::constant, op, {{"value", op.attrs.at("value")}});
    }
    if (kUnary.count(n)) return add(OpKind::unary, op, {{"fn", n}});
    if (kBinary.count(n)) {
      DType compute = val(op.outputs[0]).dtype;
      if (n == "div") compute = val(op.outputs[0]).dtype;  // true division: ints go to f32
      return add(OpKind::binary, op, {{"fn", n}, {"dtype", std::string(shard::dtype_short_name(compute))}});
    }
    if (kCompare.count(n)) {
      DType compute = common_dtype(val(op.inputs[0]), val(op.inputs[1]));
      return add(OpKind::compare, op, {{"fn", n}, {"dtype", std::string(shard::dtype_short_name(compute))}});
    }
    if (n == "call" && op.attrs.count("callee_unchecked")) return lower_unchecked_call(op);
    if (n == "select" || n == "convert" || n == "softmax" || n == "top_k" || n == "transpose" || n == "slice" ||
        n == "dynamic_index" || n == "concat" || n == "stack" || n == "roll" || n == "fold_in" ||
        n == "axis_index" || n == "call" || n == "einsum" || n == "reshard") {
      Attrs attrs(op.attrs.begin(), op.attrs.end());
      return add(*op_kind_from_name(n), op, std::move(attrs));
    }
    // expand_dims / squeeze add or drop size-1 dims, never sharded ones: a local reshape.
    if (n == "reshape" || n == "expand_dims" || n == "squeeze") return add(OpKind::reshape, op, {});
    if (n == "dynamic_slice") return add(OpKind::dynamic_slice, op, dynamic_slice_attrs(op));
    if (n == "dynamic_update_slice") return add(OpKind::dynamic_update_slice, op, {{"axis", op.attrs.at("axis")}});
    if (n.rfind("reduce_", 0) == 0) {
      std::string fn = n.substr(7);
      // argmax/argmin over a sharded dimension never get here as they are: crosses_blocks
      // sends them through lower_arg_reduce_across_blocks or lower_replicated (a gathered
      // operand), so the index is global.
      return add(OpKind::reduce, op, {{"fn", fn}, {"axes", op.attrs.at("axes")}, {"keepdims", op.attrs.at("keepdims")}});
    }
    if (n == "split") {
      // An array split: n equal slices along `axis`.
      std::int64_t axis = std::get<std::int64_t>(op.attrs.at("axis"));
      const Value& x = val(op.inputs[0]);
      std::int64_t part = x.shape[static_cast<std::size_t>(axis)] / static_cast<std::int64_t>(op.outputs.size());
      for (std::size_t i = 0; i < op.outputs.size(); ++i) {
        std::vector<std::int64_t> starts(x.shape.size(), 0), limits = x.shape, steps(x.shape.size(), 1);
        starts[static_cast<std::size_t>(axis)] = part * static_cast<std::int64_t>(i);
        limits[static_cast<std::size_t>(axis)] = part * static_cast<std::int64_t>(i + 1);
        f_.body.push_back(Instr::make(OpKind::slice, {op.inputs[0]}, {op.outputs[i]},
                                      {{"starts", starts}, {"limits", limits}, {"steps", steps},
                                       {"squeezed", std::vector<std::int64_t>{}}},
                                      op.range));
      }
      return;
    }
    if (n == "zeros" || n == "ones") return add(OpKind::fill, op, {{"value", n == "zeros" ? 0.0 : 1.0}});
    if (n == "broadcast_to") {
      // where(true, x, x) over the result's block: the runtime's select broadcasts its operands,
      // and chooses x's own values whatever the dtype (x + 0 would turn -0.0 into 0.0).
      Value all_true = val(op.outputs[0]);
      all_true.dtype = DType::boolean;
      all_true.weak = false;
      all_true.name.clear();
      const ValueId cond = f_.add_value(all_true);
      f_.body.push_back(Instr::make(OpKind::fill, {}, {cond}, {{"value", 1.0}}, op.range));
      f_.body.push_back(Instr::make(OpKind::select, {cond, op.inputs[0], op.inputs[0]}, op.outputs, {}, op.range));
      return;
    }
    if (n == "full") return add(OpKind::fill, op, {});
    if (n == "arange") {
      const Value& out = val(op.outputs[0]);
      std::vector<AxisList> spec = out.spec;
      std::int64_t size = f_.manual ? out.shape[0] : out.global_shape[0];
      return add(OpKind::arange, op,
                 {{"start", op.attrs.at("start")}, {"step", op.attrs.at("step")}, {"size", size}, {"spec", spec}});
    }
    if (n == "key") return add(OpKind::key, op, {});
    if (n == "split_key") return add(OpKind::split_key, op, {});
    if (n == "normal" || n == "uniform") {
      const Value& out = val(op.outputs[0]);
      Attrs attrs{{"fn", n},
                  {"global_shape", f_.manual ? out.shape : out.global_shape},
                  {"spec", f_.manual ? std::vector<AxisList>{} : out.spec}};
      if (n == "uniform") {
        attrs["min"] = op.attrs.at("min");
        attrs["max"] = op.attrs.at("max");
      }
      return add(OpKind::random, op, std::move(attrs));
    }
    if (kCollectives.count(n)) {
      Attrs attrs(op.attrs.begin(), op.attrs.end());
      return add(*op_kind_from_name(n), op, std::move(attrs));
    }
    unsupported(op, "the operation '" + n + "' yet");
  }

  // One start per dimension (`sizes`), or a single start along `axis`.
  // Sizes of the device's block: a sharded dimension is only ever taken whole here.
  Attrs dynamic_slice_attrs(const check::Op& op) const {
    const Value& x = val(op.inputs[0]);
    if (op.attrs.count("sizes")) {
      std::vector<std::int64_t> sizes = std::get<std::vector<std::int64_t>>(op.attrs.at("sizes"));
      for (std::size_t d = 0; d < sizes.size() && d < x.spec.size(); ++d)
        if (!x.spec[d].empty()) sizes[d] = x.shape[d];
      return {{"sizes", sizes}};
    }
    std::vector<std::int64_t> sizes = x.shape;
    std::int64_t axis = std::get<std::int64_t>(op.attrs.at("axis"));
    // Along a sharded axis the window is the whole dimension (crosses_blocks): the block's. (In
    // manual mode values are blocks, with no spec.)
    const auto a = static_cast<std::size_t>(axis);
    if (a >= x.spec.size() || x.spec[a].empty()) sizes[a] = std::get<std::int64_t>(op.attrs.at("size"));
    return {{"sizes", sizes}, {"axis", axis}};
  }

  const check::CheckedFunction& cf_;
  Diagnostics& diags_;
  Function f_;
};

}  // namespace

Module lower_to_spmd(std::shared_ptr<const check::CheckedModule> checked, Diagnostics& diags) {
  Module m;
  m.name = checked->name;
  m.checked = checked;
  for (const check::CheckedFunction& cf : checked->functions) m.functions.push_back(SpmdLowering(cf, diags).run());
  return m;
}

}  // namespace shardc::codegen

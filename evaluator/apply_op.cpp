#include "evaluator/apply_op.h"

#include <algorithm>
#include <set>

#include "evaluator/eval_error.h"
#include "evaluator/op_attrs.h"
#include "evaluator/ops_einsum.h"
#include "evaluator/ops_elementwise.h"
#include "evaluator/ops_reduce.h"
#include "evaluator/ops_shape.h"
#include "frontend/check/dtype_rules.h"
#include "frontend/internal_error.h"

namespace shardc::eval {
namespace {

using check::Type;

const std::set<std::string_view> kUnary = {"neg",  "abs",  "sign",  "square", "relu", "floor", "ceil",  "round",
                                           "logical_not", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "sin",
                                           "cos",  "tan",  "tanh",  "erf",    "sigmoid", "gelu"};
const std::set<std::string_view> kArithmetic = {"add", "sub", "mul", "div", "floor_div", "rem", "maximum", "minimum", "pow", "integer_pow"};
const std::set<std::string_view> kCompare = {"eq", "ne", "lt", "le", "gt", "ge", "and", "or"};
const std::set<std::string_view> kCollectives = {"axis_index", "psum", "pmean", "pmax", "pmin", "all_gather",
                                                 "all_gather_invariant", "psum_scatter", "all_to_all", "ppermute",
                                                 "ragged_all_to_all", "pvary"};

struct Call {
  const check::CheckedFunction& f;
  const check::Op& op;
  const std::vector<const EvalValue*>& in;

  const HostTensor& arg(std::size_t i) const {
    SHARDC_ASSERT(i < in.size(), op_location(op) + " has too few operands");
    return array_of(*in[i], op);
  }
  const Type& out_type(std::size_t i = 0) const {
    SHARDC_ASSERT(i < op.outputs.size(), op_location(op) + " has too few results");
    return f.values[op.outputs[i]];
  }
  const Type& in_type(std::size_t i) const { return f.values[op.inputs[i]]; }
  DType out_dtype() const { return out_type().dtype; }
  // A scalar operand (a start index, a seed) as an integer.
  std::int64_t scalar_int(std::size_t i) const {
    const HostTensor& t = arg(i);
    if (t.size() != 1) SHARDC_ASSERT(false, op_location(op) + ": operand " + std::to_string(i) + " is not a scalar");
    return t.as_int(0);
  }
  int axis(const char* name = "axis") const { return static_cast<int>(attr_int(op, name)); }
};

HostTensor constant(const Call& c) {
  const Type& t = c.out_type();
  auto found = c.op.attrs.find("value");
  SHARDC_ASSERT(found != c.op.attrs.end(), op_location(c.op) + " has no attribute 'value'");
  const check::Attr& value = found->second;
  // A weak static int keeps its 64 bits: the dtype it joins decides how it wraps.
  if (const auto* i = std::get_if<std::int64_t>(&value)) {
    DType dt = t.weak && shard::is_integer(t.dtype) ? DType::i64 : t.dtype;
    return HostTensor::from_ints(dt, {}, {*i});
  }
  if (const auto* d = std::get_if<double>(&value)) return HostTensor::from_floats(t.dtype, {}, {*d});
  return HostTensor::from_ints(t.dtype, {}, {std::get<bool>(value) ? 1 : 0});
}

DType compare_dtype(const Call& c) {
  const Type& a = c.in_type(0);
  const Type& b = c.in_type(1);
  return check::promote({a.dtype, a.weak}, {b.dtype, b.weak}).dtype;
}

std::vector<int> reduce_axes(const Call& c) {
  std::vector<int> axes;
  for (auto a : attr_ints(c.op, "axes")) axes.push_back(static_cast<int>(a));
  return axes;
}

HostTensor slice_op(const Call& c) {
  return slice(c.arg(0), attr_ints(c.op, "starts"), attr_ints(c.op, "limits"), attr_ints(c.op, "steps"),
               attr_ints(c.op, "squeezed"));
}

HostTensor dynamic_slice_op(const Call& c) {
  const HostTensor& x = c.arg(0);
  std::vector<std::int64_t> starts(x.rank(), 0), sizes(x.shape.begin(), x.shape.end());
  if (has_attr(c.op, "sizes")) {
    sizes = attr_ints(c.op, "sizes");
    for (int d = 0; d < x.rank(); ++d) starts[d] = c.scalar_int(1 + d);
  } else {
    int axis = c.axis();
    starts.at(axis) = c.scalar_int(1);
    sizes.at(axis) = attr_int(c.op, "size");
  }
  return dynamic_slice(x, starts, sizes);
}

HostTensor dynamic_update_slice_op(const Call& c) {
  const HostTensor& x = c.arg(0);
  std::vector<std::int64_t> starts(x.rank(), 0);
  int axis = c.axis();
  if (axis < 0) {
    for (int d = 0; d < x.rank(); ++d) starts[d] = c.scalar_int(2 + d);
  } else {
    starts.at(axis) = c.scalar_int(2);
  }
  return dynamic_update_slice(x, c.arg(1), starts);
}

// x[i] with a runtime i: negative i counts from the end, then clamps (JAX).
HostTensor dynamic_index_op(const Call& c) {
  const HostTensor& x = c.arg(0);
  if (x.rank() == 0) throw EvalError("indexing a scalar");
  std::int64_t n = x.shape[0];
  std::int64_t i = c.scalar_int(1);
  if (i < 0) i += n;
  i = std::clamp<std::int64_t>(i, 0, std::max<std::int64_t>(n - 1, 0));
  std::vector<std::int64_t> sizes(x.shape.begin(), x.shape.end()), starts(x.rank(), 0);
  starts[0] = i;
  sizes[0] = 1;
  return squeeze(dynamic_slice(x, starts, sizes), 0);
}

std::vector<HostTensor> operands(const Call& c) {
  std::vector<HostTensor> xs;
  for (std::size_t i = 0; i < c.in.size(); ++i) xs.push_back(c.arg(i));
  return xs;
}

// Random arrays: the output type's shape is the whole array this evaluation computes (the
// global array in a func, the local block in a shard_map body, numbered from 0).
HostTensor random_op(const Call& c) {
  const Type& t = c.out_type();
  HostTensor out = HostTensor::zeros(DType::f32, t.shape());
  SHARDC_ASSERT(t.dtype == DType::f32, op_location(c.op) + ": random arrays are f32");
  auto block = shard::random::Block::whole(t.shape());
  shard::random::Key k = key_of(*c.in.at(0), c.op);
  if (c.op.name == "uniform")
    shard::random::uniform(k, DType::f32, block, attr_number(c.op, "min"), attr_number(c.op, "max"), out.floats.data());
  else
    shard::random::normal(k, DType::f32, block, out.floats.data());
  return out;
}

// einsum; in a func, a two-operand bf16/f16 contraction rounds its devices' partial products
// as the sharded code does (einsum_of_rounded_partials). A pending sum (unreduced=) is
// evaluated whole: its rounding depends on what the devices do with their partials.
HostTensor einsum_op(const Call& c) {
  const std::string& spec = attr_string(c.op, "spec");
  const DType result = c.out_dtype();
  const Type& out = c.out_type();
  if (c.in.size() != 2 || (result != DType::bf16 && result != DType::f16) || out.local || out.unreduced != 0)
    return einsum(spec, operands(c), result);
  std::vector<std::vector<std::vector<int>>> axes_of;
  for (std::size_t k = 0; k < 2; ++k) {
    std::vector<std::vector<int>> dims;
    for (const check::Dim& d : c.in_type(k).dims) dims.emplace_back(d.axes.begin(), d.axes.end());
    axes_of.push_back(std::move(dims));
  }
  const check::Mesh* mesh = c.in_type(0).mesh;
  if (!mesh) return einsum(spec, operands(c), result);
  return einsum_of_rounded_partials(spec, operands(c), result, split_contracted_letters(spec, axes_of, mesh->axis_sizes));
}

// A reduction; in a func, a float sum, mean or prod over sharded dimensions combines its
// devices' partials as the sharded code does (reduce_of_rounded_partials). A pending sum
// (unreduced=) is evaluated whole, as a pending einsum is.
HostTensor reduce_op(const Call& c) {
  const std::string_view fn = std::string_view(c.op.name).substr(7);
  const std::vector<int> axes = reduce_axes(c);
  const bool keepdims = attr_bool(c.op, "keepdims");
  const Type& in = c.in_type(0);
  const bool modelled = (fn == "sum" || fn == "mean" || fn == "prod") && shard::is_floating(in.dtype) && !in.local &&
                        in.mesh != nullptr && c.out_type().unreduced == 0;
  std::vector<std::pair<int, std::int64_t>> split;
  for (int d = 0; modelled && d < static_cast<int>(in.dims.size()); ++d) {
    if (!axes.empty() && std::find(axes.begin(), axes.end(), d) == axes.end()) continue;
    std::int64_t blocks = 1;
    for (int a : in.dims[static_cast<std::size_t>(d)].axes) blocks *= in.mesh->axis_sizes.at(static_cast<std::size_t>(a));
    if (blocks > 1) split.emplace_back(d, blocks);
  }
  return reduce_of_rounded_partials(fn, c.arg(0), axes, keepdims, c.out_dtype(), split);
}

std::vector<EvalValue> dispatch(const Call& c) {
  const std::string& n = c.op.name;
  auto one = [](HostTensor t) { return std::vector<EvalValue>{std::move(t)}; };
  if (n == "constant") return one(constant(c));
  if (kUnary.count(n)) return one(unary(n, c.arg(0), c.out_dtype()));
  if (n == "integer_pow" && shard::is_floating(c.out_dtype()))
    return one(float_integer_pow(c.arg(0), attr_int(c.op, "exponent"), c.out_dtype()));
  if (kArithmetic.count(n)) return one(binary(n, c.arg(0), c.arg(1), c.out_dtype()));
  if (kCompare.count(n)) return one(binary(n, c.arg(0), c.arg(1), compare_dtype(c)));
  if (n == "select") return one(select(c.arg(0), c.arg(1), c.arg(2), c.out_dtype()));
  if (n == "convert") return one(convert(c.arg(0), c.out_dtype()));
  if (n.rfind("reduce_", 0) == 0) return one(reduce_op(c));
  if (n == "softmax") return one(softmax(c.arg(0), c.axis(), c.out_dtype()));
  if (n == "top_k") {
    auto [values, indices] = top_k(c.arg(0), attr_int(c.op, "k"));
    return {values, indices};
  }
  if (n == "einsum") return one(einsum_op(c));
  if (n == "reshape") return one(reshape(c.arg(0), attr_ints(c.op, "shape")));
  if (n == "broadcast_to") return one(broadcast_to(c.arg(0), c.out_type().shape()));
  if (n == "transpose") return one(transpose(c.arg(0), attr_ints(c.op, "perm")));
  if (n == "expand_dims") return one(expand_dims(c.arg(0), c.axis()));
  if (n == "squeeze") return one(squeeze(c.arg(0), c.axis()));
  if (n == "slice") return one(slice_op(c));
  if (n == "dynamic_slice") return one(dynamic_slice_op(c));
  if (n == "dynamic_update_slice") return one(dynamic_update_slice_op(c));
  if (n == "dynamic_index") return one(dynamic_index_op(c));
  if (n == "concat") return one(concat(operands(c), c.axis(), c.out_dtype()));
  if (n == "stack") return one(stack(operands(c), c.axis(), c.out_dtype()));
  if (n == "split") {
    std::vector<EvalValue> parts;
    for (HostTensor& p : split(c.arg(0), attr_int(c.op, "n"), c.axis())) parts.emplace_back(std::move(p));
    return parts;
  }
  if (n == "roll") return one(roll(c.arg(0), attr_int(c.op, "shift"), c.axis()));
  if (n == "reshard") return one(c.arg(0));  // a layout change: the values stay
  if (n == "zeros" || n == "ones") {
    HostTensor t = HostTensor::zeros(c.out_dtype(), c.out_type().shape());
    if (n == "ones")
      for (std::int64_t i = 0; i < t.size(); ++i) t.store_int(i, 1);
    return one(std::move(t));
  }
  if (n == "full") return one(full(c.out_dtype(), c.out_type().shape(), c.arg(0)));
  if (n == "arange")
    return one(arange(attr_number(c.op, "start"), attr_number(c.op, "stop"), attr_number(c.op, "step"), c.out_dtype()));
  if (n == "key") return {shard::random::key(c.scalar_int(0))};
  if (n == "split_key") {
    std::vector<EvalValue> keys;
    for (const auto& k : shard::random::split(key_of(*c.in.at(0), c.op), attr_int(c.op, "n"))) keys.emplace_back(k);
    return keys;
  }
  if (n == "fold_in")
    return {shard::random::fold_in(key_of(*c.in.at(0), c.op), static_cast<std::uint32_t>(c.scalar_int(1)))};
  if (n == "uniform" || n == "normal") return one(random_op(c));
  SHARDC_ASSERT(false, op_location(c.op) + " is not known to the evaluator");
}

}  // namespace

bool is_collective_op(std::string_view name) { return kCollectives.count(name) != 0; }

std::vector<EvalValue> apply_local_op(const check::CheckedFunction& f, const check::Op& op,
                                      const std::vector<const EvalValue*>& inputs) {
  Call c{f, op, inputs};
  std::vector<EvalValue> out;
  try {
    out = dispatch(c);
  } catch (const EvalError& e) {
    throw EvalError(op_location(op) + " in " + f.name + ": " + e.what());
  }
  SHARDC_ASSERT(out.size() == op.outputs.size(), op_location(op) + " made " + std::to_string(out.size()) +
                                                     " results for " + std::to_string(op.outputs.size()) + " outputs");
  for (std::size_t i = 0; i < out.size(); ++i) check_value_type(out[i], f.values[op.outputs[i]], op);
  return out;
}

}  // namespace shardc::eval

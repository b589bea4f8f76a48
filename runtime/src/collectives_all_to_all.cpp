// all_to_all (tiled and untiled) and ragged_all_to_all.
#include <string>

#include "collective_plan.h"
#include "row_range.h"
#include "shard/errors.h"

namespace shard {

namespace {

// Untiled all_to_all is JAX's expand_dims -> tiled all_to_all -> squeeze; here the expand and
// the squeeze are only views (in_shape/out_shape) of the same bytes.
detail::Plan all_to_all_plan(Device& dev, const Tensor& x, const Axes& axes, int split, int concat, bool tiled) {
  detail::Plan plan;
  plan.group = &dev.group(axes);
  const int n = plan.group->size();
  if (x.rank() == 0) throw ShapeError("all_to_all needs an operand of rank >= 1, got a scalar");
  split = detail::normalize_axis(split, x.rank(), "all_to_all", "split_axis");
  concat = detail::normalize_axis(concat, x.rank(), "all_to_all", "concat_axis");
  plan.op.kind = CollectiveKind::all_to_all;
  plan.result_dtype = plan.wire_dtype = x.dtype();
  const std::int64_t size = x.dim(split);
  if (tiled) {
    if (size % n != 0)
      throw ShapeError("The size of all_to_all split_axis (" + std::to_string(size) +
                       ") has to be divisible by the size of the named axis " + plan.group->axes + " (" +
                       std::to_string(n) + ")");
    plan.op.in_shape = x.shape();
    plan.op.split_axis = split;
    plan.op.concat_axis = concat;
    plan.result_shape = x.shape();
    plan.result_shape[split] /= n;
    plan.result_shape[concat] *= n;
    plan.op.out_shape = plan.result_shape;
    return plan;
  }
  if (size != n)
    throw ShapeError("all_to_all requires the size of the mapped axis " + plan.group->axes +
                     " to equal x.shape[split_axis], but they are " + std::to_string(n) + " and " +
                     std::to_string(size) + " respectively.");
  plan.result_shape = x.shape();
  plan.result_shape.erase(plan.result_shape.begin() + split);
  plan.result_shape.insert(plan.result_shape.begin() + concat, n);
  if (split == concat) {  // the source rank simply replaces the split dimension
    plan.op.in_shape = x.shape();
    plan.op.out_shape = x.shape();
    plan.op.split_axis = plan.op.concat_axis = split;
    return plan;
  }
  int s = split, c = concat;
  if (s < c)
    ++c;  // concat_axis names a position after the split dimension is removed
  else
    ++s;
  plan.op.in_shape = x.shape();
  plan.op.in_shape.insert(plan.op.in_shape.begin() + c, 1);
  plan.op.out_shape = plan.op.in_shape;
  plan.op.out_shape[s] = 1;
  plan.op.out_shape[c] = n;
  plan.op.split_axis = s;
  plan.op.concat_axis = c;
  return plan;
}

void read_sizes(const Tensor& t, int n, const char* name, std::int64_t* out) {
  if (t.rank() != 1 || t.dim(0) != n)
    throw ShapeError(std::string("ragged_all_to_all: ") + name + " must have shape (" + std::to_string(n) + ",), got " +
                     t.type_string());
  if (t.dtype() == DType::i32) {
    for (int i = 0; i < n; ++i) out[i] = t.as<std::int32_t>()[i];
  } else if (t.dtype() == DType::i64) {
    for (int i = 0; i < n; ++i) out[i] = t.as<std::int64_t>()[i];
  } else {
    throw ArgumentError(std::string("ragged_all_to_all: ") + name + " must be int32 or int64, got " + t.type_string());
  }
}

detail::Plan ragged_plan(Device& dev, const Tensor& operand, const Tensor& output, const Tensor& input_offsets,
                         const Tensor& send_sizes, const Tensor& output_offsets, const Tensor& recv_sizes,
                         const Axes& axes) {
  detail::Plan plan;
  plan.group = &dev.group(axes);
  const int n = plan.group->size();
  if (operand.rank() == 0 || output.rank() != operand.rank() || operand.dtype() != output.dtype())
    throw ShapeError("ragged_all_to_all: operand " + operand.type_string() + " and output " + output.type_string() +
                     " must have the same dtype and rank >= 1");
  for (int d = 1; d < operand.rank(); ++d)
    if (operand.dim(d) != output.dim(d))
      throw ShapeError("ragged_all_to_all: operand " + operand.type_string() + " and output " + output.type_string() +
                       " must agree in every dimension but the first");
  plan.ragged.resize(4 * static_cast<std::size_t>(n));
  read_sizes(input_offsets, n, "input_offsets", plan.ragged.data());
  read_sizes(send_sizes, n, "send_sizes", plan.ragged.data() + n);
  read_sizes(output_offsets, n, "output_offsets", plan.ragged.data() + 2 * n);
  read_sizes(recv_sizes, n, "recv_sizes", plan.ragged.data() + 3 * n);
  for (int j = 0; j < n; ++j)
    for (const auto& [name, first] : {std::pair{"send_sizes", n}, std::pair{"recv_sizes", 3 * n}})
      if (plan.ragged[first + j] < 0)
        throw ShapeError(std::string("ragged_all_to_all: ") + name + "[" + std::to_string(j) + "] is " +
                         std::to_string(plan.ragged[first + j]) + "; sizes must be >= 0");
  for (int j = 0; j < n; ++j) {
    const std::int64_t off = plan.ragged[j], size = plan.ragged[n + j];
    if (!detail::rows_within(off, size, operand.dim(0)))
      throw ShapeError("ragged_all_to_all: input rows " + detail::row_range(off, size) + " for rank " +
                       std::to_string(j) + " are outside the operand's " + std::to_string(operand.dim(0)) + " rows");
  }
  plan.op.kind = CollectiveKind::ragged_all_to_all;
  std::int64_t row = 1;
  for (int d = 1; d < operand.rank(); ++d) row *= operand.dim(d);
  plan.op.row_elements = row;
  plan.result_dtype = plan.wire_dtype = output.dtype();
  plan.result_shape = output.shape();
  plan.initial_output = &output;
  return plan;
}

}  // namespace

Tensor all_to_all(Device& dev, const Tensor& x, const Axes& axes, int split_axis, int concat_axis, bool tiled) {
  auto plan = all_to_all_plan(dev, x, axes, split_axis, concat_axis, tiled);
  return detail::run_plan(dev, x, plan);
}
void all_to_all(Device& dev, const Tensor& x, const Axes& axes, int split_axis, int concat_axis, bool tiled,
                Tensor& out) {
  auto plan = all_to_all_plan(dev, x, axes, split_axis, concat_axis, tiled);
  detail::run_plan_into(dev, x, plan, out, "all_to_all");
}
Pending start_all_to_all(Device& dev, const Tensor& x, const Axes& axes, int split_axis, int concat_axis, bool tiled) {
  return detail::start_plan(dev, x, all_to_all_plan(dev, x, axes, split_axis, concat_axis, tiled));
}

Tensor ragged_all_to_all(Device& dev, const Tensor& operand, const Tensor& output, const Tensor& input_offsets,
                         const Tensor& send_sizes, const Tensor& output_offsets, const Tensor& recv_sizes,
                         const Axes& axes) {
  auto plan = ragged_plan(dev, operand, output, input_offsets, send_sizes, output_offsets, recv_sizes, axes);
  return detail::run_plan(dev, operand, plan);
}
Pending start_ragged_all_to_all(Device& dev, const Tensor& operand, const Tensor& output, const Tensor& input_offsets,
                                const Tensor& send_sizes, const Tensor& output_offsets, const Tensor& recv_sizes,
                                const Axes& axes) {
  // The plan holds copies of the offsets and sizes, and start_plan copies `output` into the
  // result: only the operand is read after this returns.
  return detail::start_plan(
      dev, operand, ragged_plan(dev, operand, output, input_offsets, send_sizes, output_offsets, recv_sizes, axes));
}

const Tensor& pvary(Device& dev, const Tensor& x, const Axes& axes) {
  (void)dev.group(axes);  // checks the names
  return x;
}

int axis_index(Device& dev, const Axes& axes) { return dev.group(axes).rank; }
int axis_size(Device& dev, const Axes& axes) { return dev.group(axes).size(); }

void barrier(Device& dev, const Axes& axes) {
  CollectiveOp op;
  op.kind = CollectiveKind::barrier;
  const Group& group = dev.group(axes);
  const Ticket t = dev.comm().start(dev.id(), group, op);
  dev.comm().finish(dev.id(), t);
}

}  // namespace shard

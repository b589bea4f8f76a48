// all_gather (tiled and stacked) and psum_scatter (tiled and untiled). Both work on the layout
// [outer][n][inner], where outer is the product of the dimensions before the gathered/scattered
// one: stacking at `axis` and concatenating along `axis` have the same bytes.
#include "collective_plan.h"
#include "shard/errors.h"

namespace shard {

namespace {

std::int64_t product(const Shape& shape, int begin, int end) {
  std::int64_t p = 1;
  for (int d = begin; d < end; ++d) p *= shape[d];
  return p;
}

detail::Plan gather_plan(Device& dev, const Tensor& x, const Axes& axes, int axis, bool tiled) {
  detail::Plan plan;
  plan.group = &dev.group(axes);
  const int n = plan.group->size();
  plan.op.kind = CollectiveKind::all_gather;
  plan.result_dtype = plan.wire_dtype = x.dtype();
  if (tiled) {
    if (x.rank() == 0) throw ShapeError("all_gather with tiled=True needs an operand of rank >= 1, got a scalar");
    axis = detail::normalize_axis(axis, x.rank(), "all_gather", "axis");
    plan.result_shape = x.shape();
    plan.result_shape[axis] *= n;
  } else {
    axis = detail::normalize_axis(axis, x.rank() + 1, "all_gather", "axis");
    plan.result_shape = x.shape();
    plan.result_shape.insert(plan.result_shape.begin() + axis, n);
  }
  plan.op.outer = product(x.shape(), 0, axis);
  return plan;
}

detail::Plan scatter_plan(Device& dev, const Tensor& x, const Axes& axes, int dim, bool tiled) {
  detail::Plan plan;
  plan.group = &dev.group(axes);
  const int n = plan.group->size();
  plan.op.kind = CollectiveKind::reduce_scatter;
  plan.op.reduce = ReduceOp::sum;
  plan.op.counts_bool = x.dtype() == DType::boolean;
  plan.wire_dtype = plan.result_dtype = plan.op.counts_bool ? DType::i32 : x.dtype();
  if (x.rank() == 0) throw ShapeError("psum_scatter needs an operand of rank >= 1, got a scalar");
  dim = detail::normalize_axis(dim, x.rank(), "psum_scatter", "scatter_dimension");
  const std::int64_t size = x.dim(dim);
  plan.result_shape = x.shape();
  if (tiled) {
    if (size % n != 0)
      throw ShapeError("tiled reduce_scatter operand scatter dimension size " + std::to_string(size) +
                       " must be divisible by shard_count " + std::to_string(n) + " (axes " + plan.group->axes + ")");
    plan.result_shape[dim] /= n;
  } else {
    if (size != n)
      throw ShapeError("reduce_scatter operand scatter dimension size " + std::to_string(size) +
                       " must match shard count " + std::to_string(n) + " (axes " + plan.group->axes + ")");
    plan.result_shape.erase(plan.result_shape.begin() + dim);
  }
  plan.op.outer = product(x.shape(), 0, dim);
  return plan;
}

}  // namespace

Tensor all_gather(Device& dev, const Tensor& x, const Axes& axes, int axis, bool tiled) {
  auto plan = gather_plan(dev, x, axes, axis, tiled);
  return detail::run_plan(dev, x, plan);
}
void all_gather(Device& dev, const Tensor& x, const Axes& axes, int axis, bool tiled, Tensor& out) {
  auto plan = gather_plan(dev, x, axes, axis, tiled);
  detail::run_plan_into(dev, x, plan, out, "all_gather");
}
Tensor all_gather_invariant(Device& dev, const Tensor& x, const Axes& axes, int axis, bool tiled) {
  return all_gather(dev, x, axes, axis, tiled);
}
Pending start_all_gather(Device& dev, const Tensor& x, const Axes& axes, int axis, bool tiled) {
  return detail::start_plan(dev, x, gather_plan(dev, x, axes, axis, tiled));
}

Tensor psum_scatter(Device& dev, const Tensor& x, const Axes& axes, int scatter_dimension, bool tiled) {
  auto plan = scatter_plan(dev, x, axes, scatter_dimension, tiled);
  return detail::run_plan(dev, x, plan);
}
void psum_scatter(Device& dev, const Tensor& x, const Axes& axes, int scatter_dimension, bool tiled, Tensor& out) {
  auto plan = scatter_plan(dev, x, axes, scatter_dimension, tiled);
  detail::run_plan_into(dev, x, plan, out, "psum_scatter");
}
Pending start_psum_scatter(Device& dev, const Tensor& x, const Axes& axes, int scatter_dimension, bool tiled) {
  return detail::start_plan(dev, x, scatter_plan(dev, x, axes, scatter_dimension, tiled));
}

}  // namespace shard

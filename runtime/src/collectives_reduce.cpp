// psum, pmean, pmax, pmin, pprod: all_reduce over the group.
#include "collective_plan.h"
#include "shard/errors.h"

namespace shard {

namespace {

detail::Plan reduce_plan(Device& dev, const Tensor& x, const Axes& axes, ReduceOp reduce, bool mean) {
  detail::Plan plan;
  plan.group = &dev.group(axes);
  plan.op.kind = CollectiveKind::all_reduce;
  plan.op.reduce = reduce;
  plan.result_shape = x.shape();
  // psum of bool counts in int32 (JAX), and pprod multiplies in int32 as jnp.prod does; bool
  // max/min stay bool (or/and).
  const bool counts = reduce == ReduceOp::sum || reduce == ReduceOp::prod;
  plan.op.counts_bool = x.dtype() == DType::boolean && counts;
  plan.wire_dtype = plan.op.counts_bool ? DType::i32 : x.dtype();
  plan.result_dtype = plan.wire_dtype;
  if (mean) {
    plan.op.mean = true;
    if (!is_floating(plan.wire_dtype)) plan.result_dtype = DType::f32;  // integer mean is f32
  }
  return plan;
}

}  // namespace

Tensor psum(Device& dev, const Tensor& x, const Axes& axes) {
  auto plan = reduce_plan(dev, x, axes, ReduceOp::sum, false);
  return detail::run_plan(dev, x, plan);
}
void psum(Device& dev, const Tensor& x, const Axes& axes, Tensor& out) {
  auto plan = reduce_plan(dev, x, axes, ReduceOp::sum, false);
  detail::run_plan_into(dev, x, plan, out, "psum");
}
Tensor pmean(Device& dev, const Tensor& x, const Axes& axes) {
  auto plan = reduce_plan(dev, x, axes, ReduceOp::sum, true);
  return detail::run_plan(dev, x, plan);
}
Tensor pmax(Device& dev, const Tensor& x, const Axes& axes) {
  auto plan = reduce_plan(dev, x, axes, ReduceOp::max, false);
  return detail::run_plan(dev, x, plan);
}
void pmax(Device& dev, const Tensor& x, const Axes& axes, Tensor& out) {
  auto plan = reduce_plan(dev, x, axes, ReduceOp::max, false);
  detail::run_plan_into(dev, x, plan, out, "pmax");
}
Tensor pmin(Device& dev, const Tensor& x, const Axes& axes) {
  auto plan = reduce_plan(dev, x, axes, ReduceOp::min, false);
  return detail::run_plan(dev, x, plan);
}
void pmin(Device& dev, const Tensor& x, const Axes& axes, Tensor& out) {
  auto plan = reduce_plan(dev, x, axes, ReduceOp::min, false);
  detail::run_plan_into(dev, x, plan, out, "pmin");
}
Tensor pprod(Device& dev, const Tensor& x, const Axes& axes) {
  auto plan = reduce_plan(dev, x, axes, ReduceOp::prod, false);
  return detail::run_plan(dev, x, plan);
}
void pprod(Device& dev, const Tensor& x, const Axes& axes, Tensor& out) {
  auto plan = reduce_plan(dev, x, axes, ReduceOp::prod, false);
  detail::run_plan_into(dev, x, plan, out, "pprod");
}
Pending start_psum(Device& dev, const Tensor& x, const Axes& axes) {
  return detail::start_plan(dev, x, reduce_plan(dev, x, axes, ReduceOp::sum, false));
}
Pending start_pmean(Device& dev, const Tensor& x, const Axes& axes) {
  return detail::start_plan(dev, x, reduce_plan(dev, x, axes, ReduceOp::sum, true));
}
Pending start_pmax(Device& dev, const Tensor& x, const Axes& axes) {
  return detail::start_plan(dev, x, reduce_plan(dev, x, axes, ReduceOp::max, false));
}
Pending start_pmin(Device& dev, const Tensor& x, const Axes& axes) {
  return detail::start_plan(dev, x, reduce_plan(dev, x, axes, ReduceOp::min, false));
}
Pending start_pprod(Device& dev, const Tensor& x, const Axes& axes) {
  return detail::start_plan(dev, x, reduce_plan(dev, x, axes, ReduceOp::prod, false));
}

}  // namespace shard

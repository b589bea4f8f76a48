// The shared path of every collective front end: a Plan says what the communicator must do and
// what the result looks like; the runners allocate (or check) the output, stage the input where
// the dtype changes, run start/finish, and apply the last local step (pmean's division).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "shard/collectives.h"

namespace shard::detail {

struct Plan {
  const Group* group = nullptr;
  CollectiveOp op;  // kind and parameters; the runners bind input, output and the storage below
  DType result_dtype = DType::f32;
  Shape result_shape;
  DType wire_dtype = DType::f32;  // dtype the communicator moves (bool psum: int32)
  std::vector<std::pair<int, int>> perm;
  std::vector<std::int64_t> ragged;  // input_offsets, send_sizes, output_offsets, recv_sizes: n each
  const Tensor* initial_output = nullptr;  // ragged_all_to_all: the result starts as this
  std::vector<BoxCopy> receives, sends;    // reshard
};

// Binds the plan's own storage into plan.op (after the plan reached its final address).
void bind_storage(Plan& plan);

Tensor run_plan(Device& dev, const Tensor& x, Plan& plan);
// Writes the result into `out`, which must have the result's dtype and shape and not be `x`.
void run_plan_into(Device& dev, const Tensor& x, Plan& plan, Tensor& out, const char* what);
Pending start_plan(Device& dev, const Tensor& x, Plan plan);

// Normalises a possibly negative dimension index into [0, bound); ArgumentError otherwise.
int normalize_axis(int axis, int bound, const char* what, const char* parameter);

}  // namespace shard::detail

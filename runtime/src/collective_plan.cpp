#include "collective_plan.h"

#include <cstring>

#include "shard/errors.h"
#include "shard/kernels/float16.h"
#include "shard/runtime.h"

namespace shard {

struct Pending::State {
  // The device that started it: compared by address, and read only when it is the device of the
  // calling thread (so alive) and its call_id is the one recorded here.
  Device* dev = nullptr;
  int device_id = -1;
  std::uint64_t call_id = 0;
  detail::Plan plan;
  const Tensor* input = nullptr;
  Tensor staged;  // the input converted to the wire dtype, when it differs
  Tensor wire_out;
  Ticket ticket;
  bool active = false;
};

namespace detail {

struct PendingAccess {
  static Pending make(std::unique_ptr<Pending::State> s) {
    Pending p;
    p.state_ = std::move(s);
    return p;
  }
};

int normalize_axis(int axis, int bound, const char* what, const char* parameter) {
  const int normalized = axis < 0 ? axis + bound : axis;
  if (normalized < 0 || normalized >= bound)
    throw ArgumentError(std::string(what) + ": " + parameter + "=" + std::to_string(axis) + " is out of range for " +
                        std::to_string(bound) + (bound == 1 ? " position" : " positions"));
  return normalized;
}

void bind_storage(Plan& plan) {
  plan.op.perm = plan.perm;
  plan.op.receives = plan.receives;
  plan.op.sends = plan.sends;
  if (!plan.ragged.empty()) {
    const std::size_t n = plan.ragged.size() / 4;
    plan.op.input_offsets = plan.ragged.data();
    plan.op.send_sizes = plan.ragged.data() + n;
    plan.op.output_offsets = plan.ragged.data() + 2 * n;
    plan.op.recv_sizes = plan.ragged.data() + 3 * n;
  }
}

namespace {

// bool -> int32 (0/1), for psum of bool.
Tensor to_int32(const Tensor& x) {
  Tensor t = Tensor::uninitialized(DType::i32, x.shape());
  const auto* src = static_cast<const std::uint8_t*>(x.data());
  auto* dst = t.as<std::int32_t>();
  for (std::int64_t i = 0; i < x.numel(); ++i) dst[i] = src[i] ? 1 : 0;
  return t;
}

// pmean's last step: sum / n in the result dtype (f32 for integer sums).
void divide_into(const Tensor& sum, int n, Tensor& out) {
  const std::int64_t count = sum.numel();
  switch (sum.dtype()) {
    case DType::f32: {
      const float* s = sum.as<float>();
      float* o = out.as<float>();
      for (std::int64_t i = 0; i < count; ++i) o[i] = s[i] / static_cast<float>(n);
      return;
    }
    case DType::bf16: {
      const auto* s = sum.as<std::uint16_t>();
      auto* o = out.as<std::uint16_t>();
      for (std::int64_t i = 0; i < count; ++i)
        o[i] = kernels::f32_to_bf16(kernels::bf16_to_f32(s[i]) / static_cast<float>(n));
      return;
    }
    case DType::f16: {
      const auto* s = sum.as<std::uint16_t>();
      auto* o = out.as<std::uint16_t>();
      for (std::int64_t i = 0; i < count; ++i) o[i] = kernels::f32_to_f16(kernels::f16_to_f32(s[i]) / static_cast<float>(n));
      return;
    }
    case DType::i32: {
      const auto* s = sum.as<std::int32_t>();
      float* o = out.as<float>();
      for (std::int64_t i = 0; i < count; ++i) o[i] = static_cast<float>(s[i]) / static_cast<float>(n);
      return;
    }
    case DType::i64: {
      const auto* s = sum.as<std::int64_t>();
      float* o = out.as<float>();
      for (std::int64_t i = 0; i < count; ++i) o[i] = static_cast<float>(s[i]) / static_cast<float>(n);
      return;
    }
    case DType::boolean: break;
  }
  SHARD_ASSERT(false, "pmean of an unexpected wire dtype");
}

// The input the communicator reads: x itself, or x converted into `staged`.
const Tensor& wire_input(const Tensor& x, const Plan& plan, Tensor& staged) {
  if (x.dtype() == plan.wire_dtype) return x;
  SHARD_ASSERT(x.dtype() == DType::boolean && plan.wire_dtype == DType::i32, "unexpected staging conversion");
  staged = to_int32(x);
  return staged;
}

// Whether the communicator can write the final result directly.
bool direct(const Plan& plan) { return !plan.op.mean || is_floating(plan.wire_dtype); }

Tensor make_wire_output(const Plan& plan) {
  if (plan.initial_output) return *plan.initial_output;
  return Tensor::uninitialized(plan.wire_dtype, plan.result_shape);
}

void execute(Device& dev, Plan& plan, const Tensor& input, Tensor& wire_out) {
  plan.op.input = &input;
  plan.op.output = &wire_out;
  bind_storage(plan);
  Communicator& comm = dev.comm();
  const Ticket t = comm.start(dev.id(), *plan.group, plan.op);
  comm.finish(dev.id(), t);
}

Tensor finalize(const Plan& plan, Tensor wire_out) {
  if (!plan.op.mean) return wire_out;
  if (is_floating(wire_out.dtype())) {
    divide_into(wire_out, plan.group->size(), wire_out);  // in place: same dtype
    return wire_out;
  }
  Tensor result = Tensor::uninitialized(plan.result_dtype, plan.result_shape);
  divide_into(wire_out, plan.group->size(), result);
  return result;
}

}  // namespace

Tensor run_plan(Device& dev, const Tensor& x, Plan& plan) {
  Tensor staged;
  const Tensor& input = wire_input(x, plan, staged);
  Tensor wire_out = make_wire_output(plan);
  execute(dev, plan, input, wire_out);
  return finalize(plan, std::move(wire_out));
}

void run_plan_into(Device& dev, const Tensor& x, Plan& plan, Tensor& out, const char* what) {
  if (out.dtype() != plan.result_dtype || out.shape() != plan.result_shape)
    throw ShapeError(std::string(what) + ": the output tensor is " + out.type_string() + " but the result is " +
                     std::string(dtype_name(plan.result_dtype)) + shape_string(plan.result_shape));
  if (out.nbytes() > 0 && out.data() == x.data())
    throw ArgumentError(std::string(what) + ": the output tensor must not be the input tensor");
  if (!direct(plan) || x.dtype() != plan.wire_dtype || plan.initial_output) {
    out = run_plan(dev, x, plan);
    return;
  }
  execute(dev, plan, x, out);
  if (plan.op.mean) divide_into(out, plan.group->size(), out);
}

Pending start_plan(Device& dev, const Tensor& x, Plan plan) {
  auto s = std::make_unique<Pending::State>();
  s->dev = &dev;
  s->device_id = dev.id();
  s->call_id = dev.call_id();
  s->plan = std::move(plan);
  s->input = &wire_input(x, s->plan, s->staged);
  s->wire_out = make_wire_output(s->plan);
  s->plan.op.input = s->input;
  s->plan.op.output = &s->wire_out;
  bind_storage(s->plan);
  s->ticket = dev.comm().start(dev.id(), *s->plan.group, s->plan.op);
  s->active = true;
  return PendingAccess::make(std::move(s));
}

}  // namespace detail

namespace {

// A started collective abandoned without wait(): the communicator aborts the call, and the
// device remembers it so that the call's error names it.
// A Pending dropped on another thread (kept past its call, or handed to another device) is
// left alone: the communicator's state of a device is its thread's, and the call of the device
// that started it reports the collective as not waited for when it ends.
void drop(Pending::State& state) noexcept {
  if (current_device() != state.dev || state.dev->call_id() != state.call_id) return;
  if (state.dev->comm().cancel(state.device_id, state.ticket)) state.dev->note_dropped_collective();
}

}  // namespace

Pending::Pending() = default;
Pending::Pending(Pending&&) noexcept = default;

Pending& Pending::operator=(Pending&& other) noexcept {
  if (this != &other) {
    if (state_ && state_->active) drop(*state_);
    state_ = std::move(other.state_);
  }
  return *this;
}

Pending::~Pending() {
  if (state_ && state_->active) drop(*state_);
}

Tensor Pending::wait() {
  if (!state_ || !state_->active) throw ArgumentError("wait() on a collective that is not pending");
  const Device* here = current_device();
  if (here != state_->dev)
    throw ArgumentError("wait() on a collective that device " + std::to_string(state_->device_id) + " started, from " +
                        (here ? "device " + std::to_string(here->id()) + "'s thread"
                              : std::string("a thread that is no device's")) +
                        ": a Pending must be waited for by the device that started it, in the call that started it");
  if (here->call_id() != state_->call_id)
    throw ArgumentError("wait() on a collective started in an earlier call of the runtime: a Pending must be waited "
                        "for in the call that started it");
  state_->active = false;  // finish releases the slot even when it throws
  state_->dev->comm().finish(state_->device_id, state_->ticket);
  Tensor result = detail::finalize(state_->plan, std::move(state_->wire_out));
  state_.reset();
  return result;
}

}  // namespace shard

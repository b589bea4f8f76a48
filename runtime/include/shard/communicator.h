// The one communication interface. It speaks in collectives over a Group of devices and in
// Tensors, never in shared memory: the in-process implementation reads peers' buffers in place,
// and an MPI implementation (one rank per device or per group of devices) can map each
// operation onto its MPI_I* counterpart without changing any caller.
//
// Every operation is split into start() and finish() so that callers can overlap
// communication with computation; a synchronous collective is start() then finish().
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>

#include "shard/group.h"
#include "shard/tensor.h"

namespace shard {

// prod is not a JAX collective: it is the all-reduce of explicit mode's prod over a sharded
// dimension (XLA's all-reduce takes any computation).
enum class ReduceOp : std::uint8_t { sum, max, min, prod };

// Bytes per device (the larger of a collective's input and output) from which the in-process
// communicator splits the collective's copies and reductions over the device's OpenMP team
// (max(1, cores / devices) threads; see runtime/src/device_team.h). Benchmarks use it to give
// their memcpy baseline the same cores.
inline constexpr std::size_t kTeamCopyBytes = std::size_t{1} << 20;

enum class CollectiveKind : std::uint8_t {
  all_reduce,         // out = reduce over ranks of in (same dtype and element count)
  all_gather,         // out[o][k][i] = in_k[o][i]  (layout [outer][n][inner])
  reduce_scatter,     // out[o][i] = reduce over k of in_k[o][rank][i]
  all_to_all,         // tiled all_to_all on the views in_shape/out_shape
  permute,            // out = in of the rank that sends to this one, zeros if none
  ragged_all_to_all,  // rows of in_k go to out at the receiver's offsets; other rows kept
  barrier,            // no data
  reshard,            // boxes of peers' inputs go to boxes of out (`receives`, `sends` below)
};

std::string_view collective_name(CollectiveKind kind);

// One rectangular box moved by a reshard: `extent` elements at `src_offset` in the sender's
// input block go to `dst_offset` in the receiver's output block. `peer` is the group rank of
// the other side (the sender in a receive list, the receiver in a send list).
struct BoxCopy {
  int peer = 0;
  Shape src_offset;
  Shape dst_offset;
  Shape extent;
  friend bool operator==(const BoxCopy&, const BoxCopy&) = default;
};

// One collective as every member of the group describes it. All pointers stay valid, and the
// input unchanged, until finish() returns (or cancel() does).
struct CollectiveOp {
  CollectiveKind kind = CollectiveKind::barrier;
  const Tensor* input = nullptr;
  Tensor* output = nullptr;  // allocated by the caller with its final dtype and shape
  ReduceOp reduce = ReduceOp::sum;
  // all_reduce / reduce_scatter: what the caller does around the wire operation, which the
  // members must agree on as well although the wire operation is the same: pmean divides the
  // sum afterwards, and a bool input is counted in int32 (psum and psum_scatter of bool).
  bool mean = false;
  bool counts_bool = false;
  std::int64_t outer = 1;  // all_gather / reduce_scatter: product of the dims before the split dim
  // all_to_all: tiled on these views of input and output (same element counts as the tensors).
  int split_axis = 0;
  int concat_axis = 0;
  Shape in_shape;
  Shape out_shape;
  // permute: (source rank, destination rank) pairs; sources unique, destinations unique.
  std::span<const std::pair<int, int>> perm;
  // ragged_all_to_all: n entries each, in rows of `row_elements` elements (see collectives.h).
  const std::int64_t* input_offsets = nullptr;
  const std::int64_t* send_sizes = nullptr;
  const std::int64_t* output_offsets = nullptr;
  const std::int64_t* recv_sizes = nullptr;
  std::int64_t row_elements = 1;
  // reshard: input and output blocks have shapes in_shape and out_shape. Each device lists what
  // it receives from every rank (boxes of that rank's input, ordered by rank) and what it sends
  // to every rank (ordered the same way on both sides), so that a message-passing backend can
  // pack one buffer per peer (an alltoallv) without recomputing the shardings; the in-process
  // one pulls the receive boxes from its peers' inputs and checks them against their sends.
  std::span<const BoxCopy> receives;
  std::span<const BoxCopy> sends;
};

// An operation started and not yet finished, as the implementation numbers it, and the call of
// the Runtime it belongs to (a Pending kept past its call must not finish another's operation).
struct Ticket {
  std::uint32_t sequence = 0;
  std::uint32_t call = 0;
};

// Thrown inside the devices of a call after another device failed; the Runtime reports the
// first real error instead. Deliberately not a std::exception, so `catch (std::exception&)` in
// user code does not swallow the unwinding.
struct CallAborted {};

class Communicator {
 public:
  virtual ~Communicator() = default;

  // Collective over `group` (which must stay alive until finish): every member calls start with
  // matching operations in the same order.
  virtual Ticket start(int device, const Group& group, const CollectiveOp& op) = 0;
  // Completes the operation: its output is written. Throws CallAborted if the call is aborted,
  // ShapeError/ArgumentError when the members' operations do not match or the ticket is from
  // an earlier call.
  virtual void finish(int device, Ticket ticket) = 0;
  // Abandons a started operation (stack unwinding, or a Pending dropped without wait): aborts
  // the call, since the peers cannot complete the operation without this device, and returns
  // once no peer can still read this device's buffers. Never throws; nothing for a ticket of an
  // earlier call.
  // Returns whether it aborted the current call (false for an operation of an earlier call).
  virtual bool cancel(int device, Ticket ticket) noexcept = 0;
  // How many operations `device` has started in this call and neither finished nor cancelled.
  virtual int unfinished(int device) const noexcept = 0;

  // Hooks of the Runtime around one call on `devices`. `aborted` is the call's failure flag.
  virtual void begin_call(std::span<const int> devices, std::atomic<bool>* aborted) = 0;
  // Wakes every device of the call blocked in a collective; they throw CallAborted.
  virtual void abort_call(std::span<const int> devices) noexcept = 0;
  // `device`'s part of the call has returned: a peer still waiting for it in a collective gets
  // an ArgumentError instead of waiting forever.
  virtual void leave_call(int device) noexcept = 0;
  // After every device of the call has returned.
  virtual void end_call(std::span<const int> devices) noexcept = 0;
};

}  // namespace shard

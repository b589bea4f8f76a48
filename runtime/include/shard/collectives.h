// Collectives with JAX's semantics (jax.lax.psum, all_gather, psum_scatter, ppermute, all_to_all,
// ragged_all_to_all, ...), called by each device of a Runtime::run call on its local block:
//
//   shard::Tensor y = shard::psum(dev, x, {"dp"});
//   shard::Tensor z = shard::all_gather(dev, x, {"tp", "dp"}, /*axis=*/0, /*tiled=*/true);
//
// `axes` may name several mesh axes: the group is linearised in the order given (the first name
// is major), so {"tp","dp"} and {"dp","tp"} are different orders. Every device of the mesh must
// make the same collective calls in the same order (SPMD), as in a shard_map body.
//
// Each collective also has a form writing into a caller-provided output (no allocation: the
// output must already have the result's dtype and shape, and must not be the input), and most
// have an asynchronous form: start_X(...) returns a Pending whose wait() gives the result, so
// computation can go on in between. The input of a started collective must stay alive and
// unchanged until wait() returns.
#pragma once

#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "shard/communicator.h"
#include "shard/device.h"
#include "shard/sharding.h"
#include "shard/tensor.h"

namespace shard {

namespace detail {
struct PendingAccess;
}

// A started collective. Move-only; wait() exactly once, on the thread of the device that started
// it, in the call of Runtime::run that started it (a device returning with one unwaited fails
// the call; a wait() in a later call or on another thread is an ArgumentError). Every device
// must wait for its collectives in the same order, as it starts them: a wait returns once every
// peer has read this device's input, so device 0 waiting for A while device 1 waits for B (both
// started) never returns. Generated code always does so.
// Destroying a Pending without waiting (e.g. while unwinding) abandons the operation safely; on
// another thread it does nothing (the starting device's call reports the unwaited collective).
class Pending {
 public:
  Pending();
  Pending(Pending&&) noexcept;
  Pending& operator=(Pending&&) noexcept;
  ~Pending();
  bool valid() const { return state_ != nullptr; }
  Tensor wait();

  struct State;

 private:
  friend struct detail::PendingAccess;
  std::unique_ptr<State> state_;
};

// ---- Reductions: psum, pmean, pmax, pmin ------------------------------------------------------
// psum of bool counts in int32; integer sums wrap modulo 2^bits; bf16/f16 sum in f32 and round
// once. pmean = psum / group size: integer and bool inputs give f32.
Tensor psum(Device& dev, const Tensor& x, const Axes& axes);
void psum(Device& dev, const Tensor& x, const Axes& axes, Tensor& out);
Tensor pmean(Device& dev, const Tensor& x, const Axes& axes);
Tensor pmax(Device& dev, const Tensor& x, const Axes& axes);
void pmax(Device& dev, const Tensor& x, const Axes& axes, Tensor& out);
Tensor pmin(Device& dev, const Tensor& x, const Axes& axes);
void pmin(Device& dev, const Tensor& x, const Axes& axes, Tensor& out);
Pending start_psum(Device& dev, const Tensor& x, const Axes& axes);
Pending start_pmean(Device& dev, const Tensor& x, const Axes& axes);
Pending start_pmax(Device& dev, const Tensor& x, const Axes& axes);
Pending start_pmin(Device& dev, const Tensor& x, const Axes& axes);
// The start forms read their input until wait(): a temporary would be gone by then, so they
// take no rvalue (a deleted overload makes `start_psum(dev, a + b, ...)` a compile error).
Pending start_psum(Device&, const Tensor&&, const Axes&) = delete;
Pending start_pmean(Device&, const Tensor&&, const Axes&) = delete;
Pending start_pmax(Device&, const Tensor&&, const Axes&) = delete;
Pending start_pmin(Device&, const Tensor&&, const Axes&) = delete;
// pprod is not one of JAX's collectives: it is the all-reduce that explicit mode's prod over a
// sharded dimension needs (XLA's all-reduce with a multiply). Integers wrap as psum's do, bool
// multiplies in int32, bf16/f16 multiply in f32 and round once.
Tensor pprod(Device& dev, const Tensor& x, const Axes& axes);
void pprod(Device& dev, const Tensor& x, const Axes& axes, Tensor& out);
Pending start_pprod(Device& dev, const Tensor& x, const Axes& axes);
Pending start_pprod(Device&, const Tensor&&, const Axes&) = delete;

// ---- all_gather ------------------------------------------------------------------------------
// Untiled: a new dimension of size n at `axis` (0..rank), chunks in rank order. Tiled: the
// chunks are concatenated along `axis` (0..rank-1). Negative axes count from the end.
// all_gather_invariant gives the same values (its result is invariant over the axes: only the
// type system cares).
Tensor all_gather(Device& dev, const Tensor& x, const Axes& axes, int axis = 0, bool tiled = false);
void all_gather(Device& dev, const Tensor& x, const Axes& axes, int axis, bool tiled, Tensor& out);
Tensor all_gather_invariant(Device& dev, const Tensor& x, const Axes& axes, int axis = 0, bool tiled = false);
Pending start_all_gather(Device& dev, const Tensor& x, const Axes& axes, int axis = 0, bool tiled = false);
Pending start_all_gather(Device&, const Tensor&&, const Axes&, int = 0, bool = false) = delete;

// ---- psum_scatter (reduce-scatter) -------------------------------------------------------------
// Untiled: x.shape[dim] must equal n; the result is psum(x)[rank] along dim (dim removed).
// Tiled: x.shape[dim] must divide by n; the result is the rank-th 1/n of psum(x) along dim.
Tensor psum_scatter(Device& dev, const Tensor& x, const Axes& axes, int scatter_dimension = 0, bool tiled = false);
void psum_scatter(Device& dev, const Tensor& x, const Axes& axes, int scatter_dimension, bool tiled, Tensor& out);
Pending start_psum_scatter(Device& dev, const Tensor& x, const Axes& axes, int scatter_dimension = 0,
                           bool tiled = false);
Pending start_psum_scatter(Device&, const Tensor&&, const Axes&, int = 0, bool = false) = delete;

// ---- ppermute ----------------------------------------------------------------------------------
// perm: (source rank, destination rank) pairs, sources unique and destinations unique; a rank
// that is no destination gets zeros. ppermute_shift(k) is perm [(j, (j + k) mod n)].
using Permutation = std::vector<std::pair<int, int>>;
Tensor ppermute(Device& dev, const Tensor& x, const Axes& axes, std::span<const std::pair<int, int>> perm);
void ppermute(Device& dev, const Tensor& x, const Axes& axes, std::span<const std::pair<int, int>> perm, Tensor& out);
Tensor ppermute_shift(Device& dev, const Tensor& x, const Axes& axes, int shift);
void ppermute_shift(Device& dev, const Tensor& x, const Axes& axes, int shift, Tensor& out);
Pending start_ppermute(Device& dev, const Tensor& x, const Axes& axes, std::span<const std::pair<int, int>> perm);
Pending start_ppermute_shift(Device& dev, const Tensor& x, const Axes& axes, int shift);
Pending start_ppermute(Device&, const Tensor&&, const Axes&, std::span<const std::pair<int, int>>) = delete;
Pending start_ppermute_shift(Device&, const Tensor&&, const Axes&, int) = delete;
// JAX's pshuffle: ppermute with pairs (perm[i], i).
Tensor pshuffle(Device& dev, const Tensor& x, const Axes& axes, std::span<const int> perm);

// ---- all_to_all --------------------------------------------------------------------------------
// Tiled: split_axis is cut into n chunks, chunk j goes to rank j, received chunks are
// concatenated along concat_axis in source order. Untiled: x.shape[split_axis] must equal n; the
// result has that dimension removed and a new one of size n (the source rank) at concat_axis.
Tensor all_to_all(Device& dev, const Tensor& x, const Axes& axes, int split_axis, int concat_axis, bool tiled = false);
void all_to_all(Device& dev, const Tensor& x, const Axes& axes, int split_axis, int concat_axis, bool tiled, Tensor& out);
Pending start_all_to_all(Device& dev, const Tensor& x, const Axes& axes, int split_axis, int concat_axis,
                         bool tiled = false);
Pending start_all_to_all(Device&, const Tensor&&, const Axes&, int, int, bool = false) = delete;

// ---- ragged_all_to_all ---------------------------------------------------------------------------
// Rows (dimension 0) of `operand` [input_offsets[j], + send_sizes[j]) go to rank j, landing at
// rows [output_offsets[j], + send_sizes[j]) of j's output (offsets on the receiver, as in JAX).
// recv_sizes[k] must equal what rank k sends here. The result starts as a copy of `output`:
// rows nobody writes keep its values. Offsets and sizes: int32 or int64 tensors of shape (n).
Tensor ragged_all_to_all(Device& dev, const Tensor& operand, const Tensor& output, const Tensor& input_offsets,
                         const Tensor& send_sizes, const Tensor& output_offsets, const Tensor& recv_sizes,
                         const Axes& axes);
// The asynchronous form: every argument is read before it returns, except `operand`, which must
// stay alive and unchanged until wait().
Pending start_ragged_all_to_all(Device& dev, const Tensor& operand, const Tensor& output, const Tensor& input_offsets,
                                const Tensor& send_sizes, const Tensor& output_offsets, const Tensor& recv_sizes,
                                const Axes& axes);
Pending start_ragged_all_to_all(Device&, const Tensor&&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                const Tensor&, const Axes&) = delete;

// ---- reshard -------------------------------------------------------------------------------------
// Moves this device's block of a global array from layout `from` to layout `to` (same mesh
// and global shape, both shardings of that shape): each device copies exactly the
// intersections of its new block with the old blocks, reading them in place; one
// rendezvous over the mesh axes that either sharding names.
// Where `from` replicates over an axis, a piece is read from the holder whose coordinates on
// the axes `from` does not name equal the reader's own (a device reads itself whenever it can).
// When every new block lies inside the device's old block (each dimension's `to` axes start
// with its `from` axes), nothing crosses devices and the rendezvous is with this device alone.
Tensor reshard(Device& dev, const Tensor& block, const Shape& global_shape,
               const Sharding& from, const Sharding& to);
Pending start_reshard(Device& dev, const Tensor& block, const Shape& global_shape,
                      const Sharding& from, const Sharding& to);
Pending start_reshard(Device&, const Tensor&&, const Shape&, const Sharding&, const Sharding&) = delete;

// ---- the rest ------------------------------------------------------------------------------------
// pvary (JAX's pcast to varying) changes only a value's type: the block is returned as it is.
const Tensor& pvary(Device& dev, const Tensor& x, const Axes& axes);
int axis_index(Device& dev, const Axes& axes);
int axis_size(Device& dev, const Axes& axes);
void barrier(Device& dev, const Axes& axes);

}  // namespace shard

// The in-process Communicator: every device is a thread of this process, so a collective reads
// its peers' buffers in place. A device publishes a pointer to its operation at a rendezvous,
// then copies or reduces what it needs straight from the peers' tensors into its own output.
// No mailbox, no intermediate copy.
//
// Protocol, per device and operation (numbered per call; tag = number + 1; four slots in a ring
// so that up to four started operations may be outstanding):
//   start:  publish op in my slot, ready := tag
//   finish: wait for every peer's ready >= tag; acquired := tag; (abort? stop) ; do the copies,
//           possibly with a mid-way stage barrier (all_reduce: my share is reduced, take theirs);
//           release: finished := tag, then wait for every peer's finished >= tag, since peers
//           may still be reading my input and output, which the caller frees once I return.
// When device threads share cores (each rendezvous costs context switches), small operations
// whose peers read only inputs (all_reduce up to kAllReduceSplitBytes, all_gather,
// reduce_scatter, all_to_all, permute, of at most kStagedBytes per device; and barrier) need
// one rendezvous instead of two: start copies the input into the slot's staging
// buffer, which outlives the caller's tensors, and finish returns right after finished := tag.
// The wait for the peers moves to the slot's next start, kSlots operations later, before the
// buffer is overwritten (by then they are normally long done). What peers compare at the
// rendezvous (kind, dtype, element count, group) is kept in the slot by value for the same
// reason: the caller's CollectiveOp is gone once its finish returns. With a core per device
// the second rendezvous costs about what the copy and the peers' reads of freshly written lines
// do (no gain measured on 16 cores), while reading inputs in place lets a peer reuse lines it
// already holds when the same input is collected again, so there both rendezvous stay.
// Waiting polls (spin, or spin then sched_yield when devices share cores; see wait.h), then
// sleeps on a futex (std::atomic::wait); each slot counts its sleepers so that publishing
// costs a futex call only when someone sleeps on that slot.
// A peer whose ready word holds a later tag than the one awaited (kSlots operations on, same
// slot) was in another group at this point: an error, not a read of its later operation. What
// stays undetected is a non-SPMD program in which such a peer rewrites the slot in the
// nanoseconds between this device's read of its ready word and of its digest, and the new
// digest equals this device's (generated code is SPMD and never reaches this).
// A device whose part of the call returns sets kDeparted on its words: a peer still waiting for
// it gets an ArgumentError (a non-SPMD program) instead of waiting forever.
// On abort the flag words get the kAbort bit and every sleeper wakes. A device unwinding still
// waits for peers that have acquired (are copying from its buffers) but not for the others:
// a peer sets acquired before it checks the abort flag, and the unwinder checks acquired after
// it sees the flag (both sequentially consistent), so no peer reads a freed buffer.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "shard/communicator.h"
#include "shard/kernels/compute_gate.h"
#include "wait.h"

namespace shard::detail {

class InProcessCommunicator final : public Communicator {
 public:
  // `policy`: how a waiting device polls (spin, then yield) before it sleeps on a futex.
  InProcessCommunicator(int devices, WaitPolicy policy);
  // Per device, the compute gate whose permit it holds around large reductions (null: none).
  // Set before the first call.
  void set_compute_gates(std::vector<kernels::ComputeGate*> gates) { gates_ = std::move(gates); }

  Ticket start(int device, const Group& group, const CollectiveOp& op) override;
  void finish(int device, Ticket ticket) override;
  bool cancel(int device, Ticket ticket) noexcept override;
  int unfinished(int device) const noexcept override;
  void begin_call(std::span<const int> devices, std::atomic<bool>* aborted) override;
  void abort_call(std::span<const int> devices) noexcept override;
  void leave_call(int device) noexcept override;
  void end_call(std::span<const int> devices) noexcept override;

  static constexpr int kSlots = 4;
  // Largest input (bytes per device) of an operation that returns early (see above). Copying
  // the input costs ~0.1 us at 4 KiB; the second rendezvous it saves costs ~1 us on a core per
  // device and several times that when devices share cores.
  static constexpr std::size_t kStagedBytes = 16 * 1024;

 private:
  struct alignas(64) Slot {
    // First cache line: what every peer polls and reads at every operation, so that a
    // rendezvous moves one line per peer. The owner writes it three times per operation
    // (ready, finished, and stage for a two-phase all_reduce).
    std::atomic<std::uint32_t> ready{0};
    std::atomic<std::uint32_t> stage{0};
    std::atomic<std::uint32_t> finished{0};
    // Published with ready: a digest of everything check_peers_match compares (group, kind,
    // input, parameters), which peers compare first; only a difference sends them to the
    // fields below, to confirm it and name it.
    std::uint64_t digest = 0;
    // Where peers read the input (the caller's tensor, or `staging` for an early-returning
    // operation), and the operation itself (published with ready).
    const std::byte* input = nullptr;
    const CollectiveOp* op = nullptr;
    const Group* group = nullptr;
    // Second cache line: words peers touch only in the rare cases. `acquired` is read by an
    // unwinding peer of an aborted call; `sleepers` written by a peer about to sleep, and read
    // by the owner at each publish.
    alignas(64) std::atomic<std::uint32_t> acquired{0};
    // Threads sleeping (or about to) on one of this slot's words: a notify costs a futex call
    // only when this is non-zero.
    std::atomic<std::uint32_t> sleepers{0};
    // Owner only: the tags last published in ready, stage and finished (publish adds the
    // difference).
    std::uint32_t ready_tag = 0;
    std::uint32_t stage_tag = 0;
    std::uint32_t finished_tag = 0;
    // What check_peers_match compares when digests differ, kept by value: a peer whose
    // operation returned early has no CollectiveOp any more.
    CollectiveKind kind = CollectiveKind::barrier;
    DType dtype = DType::f32;
    Shape shape;  // of the input
    // What else every member must describe alike (per kind: check_peers_match): the reduction
    // (and the caller's mean or bool counting around it), and the output's shape with the split
    // of all_gather / reduce_scatter / all_to_all.
    ReduceOp reduce = ReduceOp::sum;
    bool mean = false;
    bool counts_bool = false;
    Shape out_shape;
    std::int64_t outer = 1;
    int split_axis = 0;
    int concat_axis = 0;
    // A permute's (source, destination) pairs, folded into one number: members that disagree
    // would read inputs their sources never meant to send.
    std::uint64_t pairs_digest = 0;
    bool early = false;  // finish returns without waiting for the peers (all of them agree)
    bool open = false;   // started and not yet finished or cancelled (owner only)
    // Owner only: the last early operation in this slot, whose peers may still be reading
    // `staging` (0: none), and its group.
    std::uint32_t lent = 0;
    const Group* lent_group = nullptr;
    std::vector<std::byte> staging;
  };
  struct alignas(64) Channel {
    std::array<Slot, kSlots> slots;
    std::uint32_t started = 0;  // operations started in this call (owner only)
    std::uint32_t call = 0;     // calls begun on this device, the current one included
    std::atomic<bool>* aborted = nullptr;
    std::span<const int> call_devices;
  };

  Slot& peer_slot(int device, std::uint32_t tag) { return channels_[device].slots[(tag - 1) % kSlots]; }
  bool aborted(int device) const { return channels_[device].aborted->load(std::memory_order_seq_cst); }
  // Waits until the word reaches `tag`, unless the call is aborted or the word's owner has
  // left the call first.
  // `passed`: the word holds a later operation's tag (same slot, kSlots or more operations on).
  // At a rendezvous that proves a non-SPMD program: a peer reuses a slot only once every member
  // of the slot's last operation has finished it, so a peer that has gone past this operation
  // without this device was in another group here.
  enum class Wait { reached, passed, aborted, departed };
  using Word = std::atomic<std::uint32_t> Slot::*;
  Wait wait_for(int device, Slot& slot, Word word, std::uint32_t tag);
  // Sleeps while slot.*word == seen (registered as a sleeper so that wake() notifies).
  static void sleep_on(Slot& slot, Word word, std::uint32_t seen);
  static void wake(Slot& slot, Word word);
  [[noreturn]] void throw_departed(int device, int peer, const Group& group, std::uint32_t tag);
  [[noreturn]] void throw_passed(int device, int peer, const Group& group, std::uint32_t tag);
  void publish(Slot& slot, Word word, std::uint32_t tag);
  void stage_barrier(int device, const Group& group, std::uint32_t tag);
  void release(int device, const Group& group, std::uint32_t tag) noexcept;
  // Waits until every peer of `group` has finished operation `tag` (or left the call without
  // joining it); a peer of an aborted call that has acquired it is still waited for, since it
  // may be reading this device's buffers. Returns whether the call was aborted.
  bool wait_peers_finished(int device, const Group& group, std::uint32_t tag) noexcept;
  // Whether an operation returns early (see above): decided from what every peer checks equal.
  bool returns_early(const Group& group, const CollectiveOp& op) const;
  void check_peers_match(int device, const Group& group, std::uint32_t tag);
  void execute(int device, const Group& group, const CollectiveOp& op, std::uint32_t tag);

  void run_all_reduce(int device, const Group& group, const CollectiveOp& op, std::uint32_t tag);
  void run_all_gather(const Group& group, const CollectiveOp& op, std::uint32_t tag);
  void run_reduce_scatter(const Group& group, const CollectiveOp& op, std::uint32_t tag);
  void run_all_to_all(const Group& group, const CollectiveOp& op, std::uint32_t tag);
  void run_permute(const Group& group, const CollectiveOp& op, std::uint32_t tag);
  void run_ragged_all_to_all(const Group& group, const CollectiveOp& op, std::uint32_t tag);
  void run_reshard(const Group& group, const CollectiveOp& op, std::uint32_t tag);

  const CollectiveOp& peer_op(const Group& group, int rank, std::uint32_t tag) {
    return *peer_slot(group.members[rank], tag).op;
  }
  // The input bytes of group rank `rank` (its tensor, or its staged copy).
  const std::byte* peer_input(const Group& group, int rank, std::uint32_t tag) {
    return peer_slot(group.members[rank], tag).input;
  }

  std::unique_ptr<Channel[]> channels_;
  WaitPolicy policy_;
  bool early_returns_;  // device threads share cores (they yield instead of spinning)
  std::vector<kernels::ComputeGate*> gates_;  // per device; empty: no gate

  kernels::ComputeGate* gate_of(int device) const { return gates_.empty() ? nullptr : gates_[device]; }
};

}  // namespace shard::detail

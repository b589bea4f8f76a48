#include "inprocess_communicator.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "copy_box.h"
#include "device_team.h"
#include "reduce_elements.h"
#include "row_range.h"
#include "shard/errors.h"
#include "wait.h"

namespace shard {

std::string_view collective_name(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::all_reduce: return "all_reduce";
    case CollectiveKind::all_gather: return "all_gather";
    case CollectiveKind::reduce_scatter: return "reduce_scatter";
    case CollectiveKind::all_to_all: return "all_to_all";
    case CollectiveKind::permute: return "ppermute";
    case CollectiveKind::ragged_all_to_all: return "ragged_all_to_all";
    case CollectiveKind::barrier: return "barrier";
    case CollectiveKind::reshard: return "reshard";
  }
  return "?";
}

}  // namespace shard

namespace shard::detail {

namespace {

// The pairs as a set (members may list them in different orders): a sum of a mixing function
// of each pair, and their count.
std::uint64_t pairs_digest(std::span<const std::pair<int, int>> pairs) {
  std::uint64_t h = pairs.size();
  for (const auto& [source, destination] : pairs) {
    std::uint64_t z = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(source)) << 32) |
                      static_cast<std::uint32_t>(destination);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;  // splitmix64's finaliser
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    h += z ^ (z >> 31);
  }
  return h;
}
// What check_peers_match compares, folded into one number: the group's members in order, the
// kind, the input's dtype and shape where they must agree, and the kind's parameters.
class OperationDigest {
 public:
  void add(std::uint64_t v) {
    std::uint64_t z = h_ ^ (v + 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;  // splitmix64's finaliser
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    h_ = z ^ (z >> 31);
  }
  void add_shape(const Shape& shape) {
    add(shape.size());
    for (std::int64_t d : shape) add(static_cast<std::uint64_t>(d));
  }
  std::uint64_t value() const { return h_; }

 private:
  std::uint64_t h_ = 0;
};

// Everything the members of a collective must describe alike, in one order: the group's members,
// the kind, the input's dtype and shape (not for barrier and ragged_all_to_all, whose inputs
// may differ), and the kind's parameters (a psum against a pmax, or all_gathers along different
// axes, would otherwise mix their results; a psum against a pmean, or of bool against int32,
// would give the devices different results; reshard has checks of its own). Calls
// number(std::int64_t) and dims(const Shape&) for each. The digest hashes this; a mismatch is
// confirmed by comparing it in full.
template <class Slot, class Number, class Dims>
void visit_compared(const Slot& s, Number&& number, Dims&& dims) {
  number(static_cast<std::int64_t>(s.group->members.size()));
  for (int m : s.group->members) number(m);
  number(static_cast<std::int64_t>(s.kind));
  if (s.kind != CollectiveKind::barrier && s.kind != CollectiveKind::ragged_all_to_all) {
    number(static_cast<std::int64_t>(s.dtype));
    dims(s.shape);
  }
  switch (s.kind) {
    case CollectiveKind::all_reduce:
      number(static_cast<std::int64_t>(s.reduce));
      number(s.mean);
      number(s.counts_bool);
      break;
    case CollectiveKind::all_gather:
      number(s.outer);
      dims(s.out_shape);
      break;
    case CollectiveKind::reduce_scatter:
      number(static_cast<std::int64_t>(s.reduce));
      number(s.mean);
      number(s.counts_bool);
      number(s.outer);
      dims(s.out_shape);
      break;
    case CollectiveKind::all_to_all:
      number(s.split_axis);
      number(s.concat_axis);
      dims(s.out_shape);
      break;
    case CollectiveKind::permute: number(static_cast<std::int64_t>(s.pairs_digest)); break;
    default: break;
  }
}

template <class Slot>
std::uint64_t operation_digest(const Slot& s) {
  OperationDigest d;
  visit_compared(s, [&](std::int64_t v) { d.add(static_cast<std::uint64_t>(v)); }, [&](const Shape& shape) { d.add_shape(shape); });
  return d.value();
}

// The same values in full: equal exactly when the operations agree.
template <class Slot>
std::vector<std::int64_t> compared_values(const Slot& s) {
  std::vector<std::int64_t> values;
  visit_compared(s, [&](std::int64_t v) { values.push_back(v); },
                 [&](const Shape& shape) {
                   values.push_back(static_cast<std::int64_t>(shape.size()));
                   values.insert(values.end(), shape.begin(), shape.end());
                 });
  return values;
}

constexpr std::uint32_t kAbort = 0x80000000u;     // the call was aborted
constexpr std::uint32_t kDeparted = 0x40000000u;  // the owner's part of the call has returned
constexpr std::uint32_t kTag = 0x3FFFFFFFu;
// Below this many bytes per device an all_reduce is done by every device over the whole array
// (one rendezvous); above it each device reduces 1/n and then copies the others' shares
// (two rendezvous, n times less reading).
constexpr std::size_t kAllReduceSplitBytes = 32 * 1024;
static_assert(InProcessCommunicator::kStagedBytes <= kAllReduceSplitBytes,
              "an early-returning all_reduce must take the path that reads only its peers' inputs");

// A permit of the compute gate held around one large reduction (nothing waits while it is held).
// Like kernels, a long streaming reduction runs faster to completion on a core of its own than
// time-sliced with the other devices' (reduce-scatter of 64 MiB on 8 devices, 2 cores: -10%).
class Permit {
 public:
  explicit Permit(kernels::ComputeGate* gate) : gate_(gate) {
    if (gate_) gate_->acquire();
  }
  ~Permit() {
    if (gate_) gate_->release();
  }
  Permit(const Permit&) = delete;
  Permit& operator=(const Permit&) = delete;

 private:
  kernels::ComputeGate* gate_;
};
}  // namespace

InProcessCommunicator::InProcessCommunicator(int devices, WaitPolicy policy)
    : channels_(std::make_unique<Channel[]>(devices)), policy_(policy), early_returns_(policy.spin.count() == 0) {}

void InProcessCommunicator::begin_call(std::span<const int> devices, std::atomic<bool>* aborted) {
  for (int d : devices) {
    channels_[d].aborted = aborted;
    channels_[d].call_devices = devices;
    channels_[d].started = 0;
    ++channels_[d].call;
  }
}

void InProcessCommunicator::abort_call(std::span<const int> devices) noexcept {
  for (int d : devices)
    for (Slot& s : channels_[d].slots)
      for (Word word : {&Slot::ready, &Slot::stage, &Slot::finished}) {
        (s.*word).fetch_or(kAbort, std::memory_order_seq_cst);
        wake(s, word);
      }
}

void InProcessCommunicator::leave_call(int device) noexcept {
  Channel& ch = channels_[device];
  for (Slot& s : ch.slots)
    for (auto* word : {&s.ready, &s.stage, &s.finished}) word->fetch_or(kDeparted, std::memory_order_seq_cst);
  // Only one word can have a sleeper that is not already woken: the ready word of the operation
  // this device never started (a peer there is in a collective this device skipped). Waits on
  // earlier operations ended when this device finished them, or by abort_call if it threw.
  // Notifying just that word keeps the launch of an empty call cheap.
  wake(ch.slots[ch.started % kSlots], &Slot::ready);
}

void InProcessCommunicator::end_call(std::span<const int> devices) noexcept {
  // Every device of the call has returned: nobody reads these words until the next call.
  for (int d : devices)
    for (Slot& s : channels_[d].slots) {
      s.ready.store(0, std::memory_order_relaxed);
      s.acquired.store(0, std::memory_order_relaxed);
      s.stage.store(0, std::memory_order_relaxed);
      s.finished.store(0, std::memory_order_relaxed);
      s.ready_tag = s.stage_tag = s.finished_tag = 0;
      s.op = nullptr;
      s.group = nullptr;
      s.digest = 0;
      s.input = nullptr;
      s.early = false;
      s.open = false;
      s.lent = 0;  // every device has returned: nobody reads the staging buffers any more
      s.lent_group = nullptr;
    }
}

void InProcessCommunicator::sleep_on(Slot& slot, Word word, std::uint32_t seen) {
  // Registering before the last check pairs with wake(): either the waker sees a sleeper, or
  // this thread sees the new value (all sequentially consistent).
  slot.sleepers.fetch_add(1, std::memory_order_seq_cst);
  if ((slot.*word).load(std::memory_order_seq_cst) == seen) (slot.*word).wait(seen, std::memory_order_acquire);
  slot.sleepers.fetch_sub(1, std::memory_order_seq_cst);
}

void InProcessCommunicator::wake(Slot& slot, Word word) {
  if (slot.sleepers.load(std::memory_order_seq_cst) != 0) (slot.*word).notify_all();
}

void InProcessCommunicator::publish(Slot& slot, Word word_member, std::uint32_t tag) {
  std::atomic<std::uint32_t>& word = slot.*word_member;
  // Set the word's tag bits to `tag`, keeping the flag bits that other threads may set
  // concurrently. Only the owner writes the tag bits, so it knows them and adds the difference:
  // one locked instruction, without first reading a line that peers are polling.
  std::uint32_t& last = word_member == &Slot::ready ? slot.ready_tag
                        : word_member == &Slot::stage ? slot.stage_tag
                                                      : slot.finished_tag;
  SHARD_ASSERT(tag > last, "a slot's tags only grow within a call");
  word.fetch_add(tag - last, std::memory_order_seq_cst);
  last = tag;
  wake(slot, word_member);
}

InProcessCommunicator::Wait InProcessCommunicator::wait_for(int device, Slot& slot, Word word_member,
                                                            std::uint32_t tag) {
  std::atomic<std::uint32_t>& word = slot.*word_member;
  std::uint32_t v = 0;
  // Whether the value ends the wait: the tag reached, the call aborted, or the owner gone.
  auto settled = [&] {
    v = word.load(std::memory_order_acquire);
    return (v & kTag) >= tag || ((v & kAbort) && aborted(device)) || (v & kDeparted);
  };
  if (!poll_until(policy_, settled))
    while (!settled()) sleep_on(slot, word_member, v);
  if ((v & kTag) > tag) return Wait::passed;
  if ((v & kTag) == tag) return Wait::reached;
  if ((v & kAbort) && aborted(device)) return Wait::aborted;
  return Wait::departed;
}

Ticket InProcessCommunicator::start(int device, const Group& group, const CollectiveOp& op) {
  Channel& ch = channels_[device];
  const std::uint32_t tag = ++ch.started;
  Slot& mine = ch.slots[(tag - 1) % kSlots];
  if (tag > kTag) {
    --ch.started;
    throw ArgumentError("more than " + std::to_string(kTag) + " collectives in one call");
  }
  if (mine.open) {
    --ch.started;
    throw ArgumentError("more than " + std::to_string(kSlots) + " collectives started and not yet waited for");
  }
  SHARD_ASSERT(group.members.at(group.rank) == device, "group does not belong to this device");
  if (mine.lent != 0) {
    // Peers of this slot's last early operation may still be reading its staging buffer.
    const bool call_aborted = wait_peers_finished(device, *mine.lent_group, mine.lent);
    mine.lent = 0;
    if (call_aborted) {
      --ch.started;
      throw CallAborted{};
    }
  }
  mine.op = &op;
  mine.group = &group;
  mine.kind = op.kind;
  mine.dtype = op.input ? op.input->dtype() : DType::f32;
  mine.shape.clear();
  if (op.input) mine.shape.assign(op.input->shape().begin(), op.input->shape().end());
  mine.reduce = op.reduce;
  mine.mean = op.mean;
  mine.counts_bool = op.counts_bool;
  mine.out_shape.clear();
  if (op.output) mine.out_shape.assign(op.output->shape().begin(), op.output->shape().end());
  mine.outer = op.outer;
  mine.split_axis = op.split_axis;
  mine.concat_axis = op.concat_axis;
  mine.pairs_digest = op.kind == CollectiveKind::permute ? pairs_digest(op.perm) : 0;
  mine.digest = operation_digest(mine);
  mine.early = returns_early(group, op);
  mine.input = op.input ? op.input->bytes() : nullptr;
  if (mine.early && op.input && op.input->nbytes() > 0) {
    if (mine.staging.size() < kStagedBytes) mine.staging.resize(kStagedBytes);
    std::memcpy(mine.staging.data(), op.input->bytes(), op.input->nbytes());
    mine.input = mine.staging.data();
  }
  mine.open = true;
  publish(mine, &Slot::ready, tag);
  return Ticket{tag, ch.call};
}

bool InProcessCommunicator::returns_early(const Group& group, const CollectiveOp& op) const {
  if (!early_returns_) return false;
  switch (op.kind) {
    case CollectiveKind::barrier:
      return true;
    case CollectiveKind::all_reduce:
    case CollectiveKind::all_gather:
    case CollectiveKind::reduce_scatter:
    case CollectiveKind::all_to_all:
    case CollectiveKind::permute:
      return group.size() > 1 && op.input != nullptr && op.input->nbytes() <= kStagedBytes;
    case CollectiveKind::ragged_all_to_all:  // peers read the sender's offsets and sizes too
    case CollectiveKind::reshard:            // and its list of boxes
      return false;
  }
  return false;
}

void InProcessCommunicator::check_peers_match(int device, const Group& group, std::uint32_t tag) {
  // Only the slots' own fields: a peer whose operation returned early has no CollectiveOp any more.
  const Slot& mine = peer_slot(device, tag);
  // Equal digests: the peers agree (up to a 64-bit collision of two different operations), and
  // nothing beyond the cache line already read for `ready` is touched. A difference is
  // confirmed on the compared values in full (visit_compared), then named.
  bool digests_agree = true;
  for (int member : group.members) digests_agree &= peer_slot(member, tag).digest == mine.digest;
  if (digests_agree) return;
  auto input_type = [](const Slot& s) {
    if (s.kind == CollectiveKind::barrier) return std::string("nothing");
    // A bool input travels as int32: name what the caller passed.
    return std::string(s.counts_bool ? "bool" : dtype_name(s.dtype)) + shape_string(s.shape);
  };
  auto describe = [&](const Slot& s) {
    std::string d = std::string(collective_name(s.kind));
    if (s.kind == CollectiveKind::all_reduce || s.kind == CollectiveKind::reduce_scatter)
      d += s.mean                      ? " (mean)"
           : s.reduce == ReduceOp::sum ? " (sum)"
           : s.reduce == ReduceOp::max ? " (max)"
           : s.reduce == ReduceOp::min ? " (min)"
                                       : " (prod)";
    if (s.kind == CollectiveKind::all_gather || s.kind == CollectiveKind::reduce_scatter ||
        s.kind == CollectiveKind::all_to_all)
      d += " to " + shape_string(s.out_shape);
    return d;
  };
  const std::vector<std::int64_t> expected = compared_values(mine);
  for (int r = 0; r < group.size(); ++r) {
    const Slot& peer = peer_slot(group.members[r], tag);
    const bool same_kind = peer.kind == mine.kind;
    if (compared_values(peer) != expected)
      throw ArgumentError("devices " + std::to_string(device) + " and " + std::to_string(group.members[r]) +
                          " reached different collectives at the same point: " + describe(mine) + " over " +
                          group.axes + " of " + input_type(mine) + " and " + describe(peer) + " over " +
                          peer.group->axes + " of " + input_type(peer) +
                          (same_kind && mine.kind == CollectiveKind::permute && peer.pairs_digest != mine.pairs_digest
                               ? " with different (source, destination) pairs"
                               : ""));
  }
}

void InProcessCommunicator::finish(int device, Ticket ticket) {
  if (ticket.call != channels_[device].call)
    throw ArgumentError("wait() on a collective started in an earlier call of the runtime: a Pending must be waited "
                        "for in the call that started it");
  const std::uint32_t tag = ticket.sequence;
  Slot& mine = peer_slot(device, tag);
  SHARD_ASSERT(mine.open, "finish of a collective that was not started");
  const Group& group = *mine.group;
  for (int member : group.members) {
    if (member == device) continue;
    const Wait w = wait_for(device, peer_slot(member, tag), &Slot::ready, tag);
    if (w == Wait::reached) continue;
    release(device, group, tag);
    if (w == Wait::aborted) throw CallAborted{};
    if (w == Wait::passed) throw_passed(device, member, group, tag);
    throw_departed(device, member, group, tag);
  }
  // From here on this device reads its peers' operations and buffers.
  mine.acquired.store(tag, std::memory_order_seq_cst);
  if (aborted(device)) {
    release(device, group, tag);
    throw CallAborted{};
  }
  try {
    check_peers_match(device, group, tag);
    execute(device, group, *mine.op, tag);
  } catch (...) {
    release(device, group, tag);
    throw;
  }
  if (mine.early) {
    // Peers read only the staged input: return now, and wait for them when the slot comes round.
    publish(mine, &Slot::finished, tag);
    mine.lent = tag;
    mine.lent_group = &group;
    mine.open = false;
    return;
  }
  release(device, group, tag);
}

bool InProcessCommunicator::cancel(int device, Ticket ticket) noexcept {
  if (ticket.call != channels_[device].call) return false;  // its call is over, and the operation with it
  Slot& mine = peer_slot(device, ticket.sequence);
  if (!mine.open) return false;
  Channel& ch = channels_[device];
  ch.aborted->store(true, std::memory_order_seq_cst);
  abort_call(ch.call_devices);
  release(device, *mine.group, ticket.sequence);
  return true;
}

int InProcessCommunicator::unfinished(int device) const noexcept {
  const Channel& ch = channels_[device];
  return static_cast<int>(std::count_if(ch.slots.begin(), ch.slots.end(), [](const Slot& s) { return s.open; }));
}

void InProcessCommunicator::release(int device, const Group& group, std::uint32_t tag) noexcept {
  Slot& mine = peer_slot(device, tag);
  publish(mine, &Slot::finished, tag);
  wait_peers_finished(device, group, tag);
  mine.open = false;
}

bool InProcessCommunicator::wait_peers_finished(int device, const Group& group, std::uint32_t tag) noexcept {
  bool call_aborted = false;
  for (int member : group.members) {
    if (member == device) continue;
    Slot& peer = peer_slot(member, tag);
    const Wait w = wait_for(device, peer, &Slot::finished, tag);
    if (w == Wait::reached || w == Wait::passed) continue;  // passed: it has used this slot again since
    if (w == Wait::departed) continue;  // it returned without joining: it never read my buffers
    call_aborted = true;
    // Aborted: a peer that already acquired may be copying from my buffers right now; let it end.
    if (peer.acquired.load(std::memory_order_seq_cst) >= tag) {
      std::uint32_t v;
      while (((v = peer.finished.load(std::memory_order_acquire)) & kTag) < tag) sleep_on(peer, &Slot::finished, v);
    }
  }
  return call_aborted;
}

void InProcessCommunicator::stage_barrier(int device, const Group& group, std::uint32_t tag) {
  publish(peer_slot(device, tag), &Slot::stage, tag);
  for (int member : group.members) {
    if (member == device) continue;
    const Wait w = wait_for(device, peer_slot(member, tag), &Slot::stage, tag);
    if (w == Wait::aborted) throw CallAborted{};
    if (w == Wait::passed) throw_passed(device, member, group, tag);
    if (w == Wait::departed) throw_departed(device, member, group, tag);
  }
}

void InProcessCommunicator::throw_passed(int device, int peer, const Group& group, std::uint32_t tag) {
  throw ArgumentError("devices " + std::to_string(device) + " and " + std::to_string(peer) +
                      " reached different collectives at the same point: device " + std::to_string(peer) +
                      " has already gone past the " + std::string(collective_name(peer_slot(device, tag).kind)) +
                      " over " + group.axes + " that device " + std::to_string(device) +
                      " is in (it took part in collectives of other groups instead)");
}

void InProcessCommunicator::throw_departed(int device, int peer, const Group& group, std::uint32_t tag) {
  throw ArgumentError("device " + std::to_string(peer) + " returned from the call without taking part in the " +
                      std::string(collective_name(peer_slot(device, tag).op->kind)) + " over " + group.axes +
                      " that device " + std::to_string(device) + " is in (every device must make the same collective calls)");
}

void InProcessCommunicator::execute(int device, const Group& group, const CollectiveOp& op, std::uint32_t tag) {
  switch (op.kind) {
    case CollectiveKind::all_reduce: return run_all_reduce(device, group, op, tag);
    case CollectiveKind::all_gather: return run_all_gather(group, op, tag);
    case CollectiveKind::reduce_scatter: return run_reduce_scatter(group, op, tag);
    case CollectiveKind::all_to_all: return run_all_to_all(group, op, tag);
    case CollectiveKind::permute: return run_permute(group, op, tag);
    case CollectiveKind::ragged_all_to_all: return run_ragged_all_to_all(group, op, tag);
    case CollectiveKind::barrier: return;
    case CollectiveKind::reshard: return run_reshard(group, op, tag);
  }
}

void InProcessCommunicator::run_all_reduce(int device, const Group& group, const CollectiveOp& op, std::uint32_t tag) {
  const int n = group.size();
  const DType dtype = op.input->dtype();
  const std::size_t esize = dtype_size(dtype);
  const std::int64_t count = op.input->numel();
  std::byte* out = op.output->bytes();
  std::byte* inputs[64];
  std::vector<const std::byte*> many;
  const std::byte** in = const_cast<const std::byte**>(inputs);
  if (n > 64) {
    many.resize(n);
    in = many.data();
  }
  for (int r = 0; r < n; ++r) in[r] = peer_input(group, r, tag);

  const bool streaming = op.output->nbytes() >= kStreamingBytes;
  if (static_cast<std::size_t>(count) * esize <= kAllReduceSplitBytes || n == 1) {
    reduce_elements(dtype, op.reduce, in, n, out, count, streaming);
    return;
  }
  // Share r of the elements, on 64-byte boundaries; each share is cut again over the team.
  const std::int64_t align = std::max<std::int64_t>(1, 64 / static_cast<std::int64_t>(esize));
  auto share_begin = [&](int r) { return std::min(count, (count * r / n + align - 1) / align * align); };
  const int team = team_threads(static_cast<std::size_t>(count) * esize);
  const std::int64_t lo = share_begin(group.rank), hi = share_begin(group.rank + 1);
  if (hi > lo) {
    const Permit permit(streaming ? gate_of(device) : nullptr);
    run_on_team(team, [&](int part, int parts) {
      const auto [b, e] = part_range(hi - lo, part, parts, align);
      if (e <= b) return;
      const std::byte* shifted[64];
      std::vector<const std::byte*> shifted_many(n > 64 ? n : 0);
      const std::byte** s = n > 64 ? shifted_many.data() : shifted;
      for (int r = 0; r < n; ++r) s[r] = in[r] + (lo + b) * esize;
      reduce_elements(dtype, op.reduce, s, n, out + (lo + b) * esize, e - b, streaming);
    });
  }
  stage_barrier(device, group, tag);
  run_on_team(team, [&](int part, int parts) {
    for (int r = 0; r < n; ++r) {
      if (r == group.rank) continue;
      const std::int64_t share = share_begin(r);
      const auto [b, e] = part_range(share_begin(r + 1) - share, part, parts, align);
      if (e <= b) continue;
      const std::size_t offset = (share + b) * esize;
      copy_bytes(out + offset, peer_op(group, r, tag).output->bytes() + offset, (e - b) * esize, streaming);
    }
    if (streaming) streaming_fence();
  });
}

void InProcessCommunicator::run_all_gather(const Group& group, const CollectiveOp& op, std::uint32_t tag) {
  const int n = group.size();
  if (op.output->nbytes() == 0) return;  // also when outer is 0: nothing to copy, no chunk size
  const std::size_t chunk = op.input->nbytes() / op.outer;  // bytes per outer index per device
  std::byte* out = op.output->bytes();
  if (chunk == 0) return;
  const bool streaming = op.output->nbytes() >= kStreamingBytes;
  // Segment r * outer + o: input r's chunk o, which goes to out[o][r].
  run_on_team(team_threads(op.output->nbytes()), [&](int part, int parts) {
    for_part_of_segments(n * op.outer, chunk, part, parts, [&](std::int64_t segment, std::size_t offset, std::size_t bytes) {
      const std::int64_t r = segment / op.outer, o = segment % op.outer;
      copy_bytes(out + (o * n + r) * chunk + offset, peer_input(group, static_cast<int>(r), tag) + o * chunk + offset,
                 bytes, streaming);
    });
    if (streaming) streaming_fence();
  });
}

void InProcessCommunicator::run_reduce_scatter(const Group& group, const CollectiveOp& op, std::uint32_t tag) {
  const int n = group.size();
  const DType dtype = op.input->dtype();
  const std::size_t esize = dtype_size(dtype);
  if (op.output->numel() == 0) return;  // also when outer is 0: nothing to reduce
  const std::int64_t inner = op.output->numel() / op.outer;  // elements per outer index in the output
  std::vector<const std::byte*> in(n);
  for (int r = 0; r < n; ++r) in[r] = peer_input(group, r, tag);
  const bool streaming = op.output->nbytes() >= kStreamingBytes;
  const std::int64_t align = std::max<std::int64_t>(1, 64 / static_cast<std::int64_t>(esize));
  const Permit permit(streaming ? gate_of(group.members[group.rank]) : nullptr);
  run_on_team(team_threads(op.input->nbytes()), [&](int part, int parts) {
    const auto [b, e] = part_range(inner, part, parts, align);
    if (e <= b) return;
    std::vector<const std::byte*> shifted(n);
    for (std::int64_t o = 0; o < op.outer; ++o) {
      for (int r = 0; r < n; ++r) shifted[r] = in[r] + ((o * n + group.rank) * inner + b) * esize;
      reduce_elements(dtype, op.reduce, shifted.data(), n, op.output->bytes() + (o * inner + b) * esize, e - b,
                      streaming);
    }
  });
}

void InProcessCommunicator::run_all_to_all(const Group& group, const CollectiveOp& op, std::uint32_t tag) {
  const int n = group.size();
  const std::size_t esize = dtype_size(op.input->dtype());
  DimScratch chunk(op.in_shape);
  chunk[op.split_axis] /= n;
  const bool streaming = op.output->nbytes() >= kStreamingBytes;
  run_on_team(team_threads(op.output->nbytes()), [&](int part, int parts) {
    DimScratch src_offset(op.in_shape.size(), 0), dst_offset(op.in_shape.size(), 0);
    src_offset[op.split_axis] = group.rank * chunk[op.split_axis];
    for (int k = 0; k < n; ++k) {
      dst_offset[op.concat_axis] = k * chunk[op.concat_axis];
      copy_box_part(peer_input(group, k, tag), op.in_shape, src_offset, op.output->bytes(), op.out_shape, dst_offset,
                    chunk, esize, streaming, part, parts);
    }
  });
}

void InProcessCommunicator::run_permute(const Group& group, const CollectiveOp& op, std::uint32_t tag) {
  for (const auto& [source, destination] : op.perm) {
    if (destination == group.rank) {
      const std::byte* in = peer_input(group, source, tag);
      const std::size_t bytes = op.output->nbytes();
      if (bytes == 0) return;  // an empty tensor may have no storage at all
      const bool streaming = bytes >= kStreamingBytes;
      run_on_team(team_threads(bytes), [&](int part, int parts) {
        const auto [b, e] = part_range(static_cast<std::int64_t>(bytes), part, parts, 64);
        copy_bytes(op.output->bytes() + b, in + b, static_cast<std::size_t>(e - b), streaming);
        if (streaming) streaming_fence();
      });
      return;
    }
  }
  op.output->fill_zero();
}

void InProcessCommunicator::run_ragged_all_to_all(const Group& group, const CollectiveOp& op, std::uint32_t tag) {
  const int n = group.size();
  const std::size_t row_bytes = static_cast<std::size_t>(op.row_elements) * dtype_size(op.output->dtype());
  const std::int64_t out_rows = op.output->dim(0);
  for (int k = 0; k < n; ++k) {
    const CollectiveOp& sender = peer_op(group, k, tag);
    if (sender.input->dtype() != op.output->dtype() || sender.row_elements != op.row_elements)
      throw ShapeError("ragged_all_to_all: device " + std::to_string(group.members[k]) + " sends " +
                       sender.input->type_string() + " rows but this device's output is " + op.output->type_string());
    const std::int64_t in_offset = sender.input_offsets[group.rank];
    const std::int64_t size = sender.send_sizes[group.rank];
    const std::int64_t out_offset = sender.output_offsets[group.rank];
    if (size != op.recv_sizes[k])
      throw ShapeError("ragged_all_to_all: device " + std::to_string(group.members[k]) + " sends " + std::to_string(size) +
                       " rows to rank " + std::to_string(group.rank) + " but recv_sizes[" + std::to_string(k) +
                       "] is " + std::to_string(op.recv_sizes[k]));
    const std::int64_t in_rows = sender.input->dim(0);
    if (!detail::rows_within(in_offset, size, in_rows) || !detail::rows_within(out_offset, size, out_rows))
      throw ShapeError("ragged_all_to_all: rows " + detail::row_range(in_offset, size) + " of device " +
                       std::to_string(group.members[k]) + "'s operand (" + std::to_string(in_rows) + " rows) to rows " +
                       detail::row_range(out_offset, size) + " of an output with " + std::to_string(out_rows) +
                       " rows are out of bounds");
    if (size > 0)
      std::memcpy(op.output->bytes() + out_offset * row_bytes, sender.input->bytes() + in_offset * row_bytes,
                  size * row_bytes);
  }
}

namespace {
// The boxes of `list` (ordered by peer) exchanged with group rank `peer`.
std::span<const BoxCopy> boxes_with(std::span<const BoxCopy> list, int peer) {
  auto first = std::find_if(list.begin(), list.end(), [&](const BoxCopy& b) { return b.peer == peer; });
  auto last = std::find_if(first, list.end(), [&](const BoxCopy& b) { return b.peer != peer; });
  return {first, last};
}

bool same_box(const BoxCopy& a, const BoxCopy& b) {
  return a.src_offset == b.src_offset && a.dst_offset == b.dst_offset && a.extent == b.extent;
}

bool inside(const Shape& offset, const Shape& extent, const Shape& shape) {
  if (offset.size() != shape.size() || extent.size() != shape.size()) return false;
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (offset[d] < 0 || extent[d] < 0 || offset[d] + extent[d] > shape[d]) return false;
  return true;
}
}  // namespace

void InProcessCommunicator::run_reshard(const Group& group, const CollectiveOp& op, std::uint32_t tag) {
  const std::size_t esize = dtype_size(op.output->dtype());
  for (int k = 0; k < group.size(); ++k) {
    const CollectiveOp& sender = peer_op(group, k, tag);
    const auto receives = boxes_with(op.receives, k);
    const auto sends = boxes_with(sender.sends, group.rank);
    // Both sides derive the boxes from the shardings they were given: boxes that disagree mean
    // the devices were given different shardings (a non-SPMD call), and are never copied.
    if (!std::equal(receives.begin(), receives.end(), sends.begin(), sends.end(), same_box))
      throw ArgumentError("reshard: devices " + std::to_string(group.members[group.rank]) + " and " +
                          std::to_string(group.members[k]) +
                          " disagree on the boxes they exchange (were they given different shardings?)");
    for (const BoxCopy& box : receives)
      SHARD_ASSERT(inside(box.src_offset, box.extent, sender.in_shape) && inside(box.dst_offset, box.extent, op.out_shape),
                   "reshard box outside its block");
  }
  const std::size_t larger = std::max(op.output->nbytes(), op.input ? op.input->nbytes() : std::size_t{0});
  run_on_team(team_threads(larger), [&](int part, int parts) {
    for (const BoxCopy& box : op.receives) {
      const CollectiveOp& sender = peer_op(group, box.peer, tag);
      copy_box_part(sender.input->bytes(), sender.in_shape, box.src_offset, op.output->bytes(), op.out_shape,
                    box.dst_offset, box.extent, esize, /*streaming=*/false, part, parts);
    }
  });
}

}  // namespace shard::detail

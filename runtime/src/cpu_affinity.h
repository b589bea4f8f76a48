// Placing device threads on CPUs when they outnumber the cores.
//
// Why pin at all: Linux places a woken thread on one CPU's run queue and rebalances the queues
// only every few milliseconds. When 8 device threads wake on 2 cores, several of them queue
// behind a kernel that is already running, while the other core finishes its work and idles
// (or a peer yields there): a sharded matmul took up to 1.5x its ideal time this way, the
// blocks starting milliseconds late. With device d fixed on core d % cores and one compute
// permit per core, each core runs its own devices' kernels back to back and the run queues
// never hold a device that another core could have run.
#pragma once

#include <thread>
#include <vector>

namespace shard::detail {

// The CPUs this process may run on (sched_getaffinity), in increasing order; empty when the
// system does not say.
std::vector<int> allowed_cpus();

// Restricts `thread` to the one CPU `cpu`, or to all of `cpus` (to undo a pin); false when the
// system refuses (a container may forbid it).
bool pin_thread(std::thread& thread, int cpu);
bool unpin_thread(std::thread& thread, const std::vector<int>& cpus);

// Whether the environment allows pinning device threads: SHARD_PIN_DEVICES=0 turns it off.
bool pinning_enabled();

}  // namespace shard::detail

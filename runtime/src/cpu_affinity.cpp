#include "cpu_affinity.h"

#include <pthread.h>
#include <sched.h>

#include <cstdlib>
#include <cstring>

namespace shard::detail {

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

namespace {
bool set_affinity(std::thread& thread, const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus)
    if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &set);
  return pthread_setaffinity_np(thread.native_handle(), sizeof set, &set) == 0;
}
}  // namespace

bool pin_thread(std::thread& thread, int cpu) { return set_affinity(thread, {cpu}); }

bool unpin_thread(std::thread& thread, const std::vector<int>& cpus) { return set_affinity(thread, cpus); }

bool pinning_enabled() {
  const char* v = std::getenv("SHARD_PIN_DEVICES");
  return v == nullptr || std::strcmp(v, "0") != 0;
}

}  // namespace shard::detail

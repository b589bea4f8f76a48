#include "cpu_affinity.h"

#include <pthread.h>
#include <sched.h>

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

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

int usable_cores() {
  const std::size_t allowed = allowed_cpus().size();
  if (allowed > 0) return static_cast<int>(allowed);
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
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

std::optional<std::uint64_t> busy_ticks(std::string_view proc_stat, const std::vector<int>& cpus) {
  std::uint64_t total = 0;
  for (int cpu : cpus) {
    // The line "cpuN user nice system idle iowait irq softirq ...".
    const std::string head = "\ncpu" + std::to_string(cpu) + " ";
    const std::size_t at = proc_stat.find(head);
    if (at == std::string_view::npos) return std::nullopt;
    std::string_view rest = proc_stat.substr(at + head.size());
    rest = rest.substr(0, rest.find('\n'));
    std::uint64_t fields[7];
    for (std::uint64_t& f : fields) {
      while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
      const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), f);
      if (ec != std::errc{}) return std::nullopt;
      rest.remove_prefix(static_cast<std::size_t>(end - rest.data()));
    }
    total += fields[0] + fields[1] + fields[2] + fields[5] + fields[6];  // not idle, iowait
  }
  return total;
}

std::optional<double> ForeignLoad::sample() {
  const auto now = std::chrono::steady_clock::now();
  if (have_previous_ && now - previous_time_ < kMinForeignLoadWindow) return std::nullopt;
  std::ifstream file("/proc/stat");
  if (!file) return std::nullopt;
  std::string text(1, '\n');  // every CPU's line then starts after a newline
  text.append(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
  const std::optional<std::uint64_t> ticks = busy_ticks(text, cpus_);
  timespec own{};
  if (!ticks || clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &own) != 0) return std::nullopt;
  const auto own_time = std::chrono::seconds(own.tv_sec) + std::chrono::nanoseconds(own.tv_nsec);
  std::optional<double> cores;
  if (have_previous_ && *ticks >= previous_ticks_) {  // the window is kMinForeignLoadWindow or more
    static const double tick_seconds = 1.0 / static_cast<double>(sysconf(_SC_CLK_TCK));
    const double busy = static_cast<double>(*ticks - previous_ticks_) * tick_seconds;
    const double mine = std::chrono::duration<double>(own_time - previous_own_).count();
    cores = std::max(0.0, busy - mine) / std::chrono::duration<double>(now - previous_time_).count();
  }
  have_previous_ = true;
  previous_ticks_ = *ticks;
  previous_own_ = own_time;
  previous_time_ = now;
  return cores;
}

}  // namespace shard::detail

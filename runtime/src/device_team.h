// A collective's large copies and reductions, split over its device's OpenMP team.
//
// The runtime gives each device thread max(1, cores / devices) OpenMP threads for its kernels
// (omp_set_num_threads in the device thread), and those cores idle while the device thread
// copies. Copies and reductions are memory-bound, and one core keeps only so many cache misses
// in flight, so one thread reaches a fraction of what the caches and memory deliver: from
// kTeamCopyBytes per device (the larger of input and output) a collective hands equal parts of
// its work to the team. Below that, forking and joining a parallel region costs more than it
// saves: ~1 us while the team's threads spin, 10-20 us when they sleep (OMP_WAIT_POLICY=passive,
// which the benchmarks use), against ~10 us for a 256 KiB all_gather on 8 devices of a 16-core
// machine (docs/performance.md). Where devices share cores (the team is one thread) nothing
// changes. Split: all_reduce, all_gather, reduce_scatter, all_to_all, ppermute and reshard;
// ragged_all_to_all, whose rows and sizes vary per sender, copies on the device thread alone.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <utility>

#include "shard/communicator.h"

namespace shard::detail {

// Threads for a collective whose larger buffer (input or output) on this device has `bytes`.
inline int team_threads(std::size_t bytes) {
  return bytes >= kTeamCopyBytes ? std::max(1, omp_get_max_threads()) : 1;
}

// Part `part` of `parts` of [0, count): equal parts, cut at multiples of `align` (the last part
// takes the remainder; a part may be empty).
inline std::pair<std::int64_t, std::int64_t> part_range(std::int64_t count, int part, int parts,
                                                        std::int64_t align = 1) {
  auto cut = [&](int p) {
    if (p >= parts) return count;
    return std::min(count, count / parts * p / align * align);
  };
  return {cut(part), cut(part + 1)};
}

// Runs body(part, parts) once per thread of a team of `threads` (the calling thread takes part 0).
// An exception from any part is rethrown here once every part has ended.
template <class Body>
void run_on_team(int threads, Body&& body) {
  if (threads <= 1) {
    body(0, 1);
    return;
  }
  std::exception_ptr error;
#pragma omp parallel num_threads(threads)
  {
    try {
      body(omp_get_thread_num(), omp_get_num_threads());
    } catch (...) {
#pragma omp critical(shard_team_error)
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
}

// Calls copy(segment, offset, bytes) for part `part` of `parts` of the bytes of `segments`
// equally long segments laid end to end: each part gets an equal run of that total (cut at
// 64-byte multiples), split where it crosses from one segment to the next.
template <class Copy>
void for_part_of_segments(std::int64_t segments, std::size_t segment_bytes, int part, int parts, Copy&& copy) {
  if (segments <= 0 || segment_bytes == 0) return;
  const auto sb = static_cast<std::int64_t>(segment_bytes);
  auto [begin, end] = part_range(segments * sb, part, parts, 64);
  std::int64_t segment = begin / sb, offset = begin % sb;
  while (begin < end) {
    const std::int64_t bytes = std::min(sb - offset, end - begin);
    copy(segment, static_cast<std::size_t>(offset), static_cast<std::size_t>(bytes));
    begin += bytes;
    ++segment;
    offset = 0;
  }
}

}  // namespace shard::detail

// What the collective benchmarks measure and how their figures are derived. runtime_bench,
// mpi_collectives_bench and bench_report all include this file, so the in-process runtime and
// Open MPI are measured at the same sizes and judged by the same formulas.
//
// Size: as in nccl-tests, the size S of a collective is the larger of its per-device send and
// receive buffers (all_gather: S out, S/n in; reduce_scatter: S in, S/n out; the rest S and S).
// Bus bandwidth: algbw = S / time, busbw = algbw * factor (nccl-tests' PERFORMANCE.md).
// Data: device r's input element i is (r + 1) + (i % 13), so every result element is a small
// integer that float32 holds exactly in any summation order, and a result taken from the
// wrong peer or the wrong offset shows up when outputs are checked after timing.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace shard_bench {

enum class Op { all_reduce, all_gather, reduce_scatter, all_to_all, permute, memcpy, add };

inline constexpr std::array<Op, 5> kCollectives = {Op::all_reduce, Op::all_gather, Op::reduce_scatter,
                                                   Op::all_to_all, Op::permute};
inline constexpr std::array<Op, 7> kAllOps = {Op::all_reduce, Op::all_gather, Op::reduce_scatter, Op::all_to_all,
                                              Op::permute,    Op::memcpy,     Op::add};

inline constexpr std::string_view op_name(Op op) {
  switch (op) {
    case Op::all_reduce: return "all_reduce";
    case Op::all_gather: return "all_gather";
    case Op::reduce_scatter: return "reduce_scatter";
    case Op::all_to_all: return "all_to_all";
    case Op::permute: return "permute";
    case Op::memcpy: return "memcpy";
    case Op::add: return "add";
  }
  return "?";
}

inline std::optional<Op> op_from_name(std::string_view name) {
  for (Op op : kAllOps)
    if (op_name(op) == name) return op;
  return std::nullopt;
}

// Per-device sizes in bytes: 4 KiB .. 64 MiB. Every size divides by 8 devices * 4 bytes.
inline constexpr std::array<std::int64_t, 6> kSizes = {4 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20, 64 << 20};
inline constexpr std::array<int, 2> kDeviceCounts = {8, 2};

// Back-to-back operations per timed call: enough that small sizes are not dominated by the
// call itself, few enough that 64 MiB stays within the run's budget.
inline int ops_per_call(std::int64_t bytes) {
  return static_cast<int>(std::clamp<std::int64_t>((32 << 20) / bytes, 2, 64));
}

// Calls per timed sample: about 128 MiB per device moved in each sample, 1 to 200 calls.
inline int calls_per_sample(std::int64_t bytes) {
  return static_cast<int>(std::clamp<std::int64_t>((128 << 20) / (bytes * ops_per_call(bytes)), 1, 200));
}

// nccl-tests' bus bandwidth factors; memcpy and add are per-device local copies (factor 1).
inline double busbw_factor(Op op, int n) {
  const double nn = n;
  switch (op) {
    case Op::all_reduce: return 2.0 * (nn - 1) / nn;
    case Op::all_gather:
    case Op::reduce_scatter:
    case Op::all_to_all: return (nn - 1) / nn;
    default: return 1.0;
  }
}

// Bytes of results written per operation over all n devices (each device's own output buffer).
inline double bytes_written(Op op, int n, std::int64_t size) {
  const double s = static_cast<double>(size);
  return op == Op::reduce_scatter ? s : n * s;
}

// The least memory traffic (bytes read + written, all devices) an implementation needs:
//   all_reduce     reduce-scatter then all-gather: each device reads S (n shares) and writes
//                  S/n, then reads and writes the other (n-1)S/n      -> (3n-1) S
//   all_gather     each device reads and writes S                     -> 2n S
//   reduce_scatter each device reads n shares of S/n, writes S/n      -> (n+1) S
//   all_to_all, permute, memcpy: read and write S per device          -> 2n S
//   add (a += b):  read 2S, write S per device                         -> 3n S
inline double min_traffic(Op op, int n, std::int64_t size) {
  const double s = static_cast<double>(size), nn = n;
  switch (op) {
    case Op::all_reduce: return (3 * nn - 1) * s;
    case Op::reduce_scatter: return (nn + 1) * s;
    case Op::add: return 3 * nn * s;
    default: return 2 * nn * s;
  }
}

// The machine's memory bandwidth (traffic/s) as the better of memcpy's and add's, from their
// measured times at the same size and device count; the bound for a collective is its minimum
// traffic at that bandwidth.
inline double bound_seconds(Op op, int n, std::int64_t size, double memcpy_seconds, double add_seconds) {
  const double bandwidth = std::max(min_traffic(Op::memcpy, n, size) / memcpy_seconds,
                                    min_traffic(Op::add, n, size) / add_seconds);
  return min_traffic(op, n, size) / bandwidth;
}

// Input element i of group rank r, and the expected result element i on rank r.
inline float input_value(int rank, std::int64_t i) { return static_cast<float>(rank + 1 + i % 13); }

// `count` = elements of the result on each device.
inline float expected_value(Op op, int n, int rank, std::int64_t count, std::int64_t i) {
  switch (op) {
    case Op::all_reduce: {
      float sum = 0;
      for (int r = 0; r < n; ++r) sum += input_value(r, i);
      return sum;
    }
    case Op::all_gather: {  // chunk j (of count/n) comes from rank j
      const std::int64_t chunk = count / n;
      return input_value(static_cast<int>(i / chunk), i % chunk);
    }
    case Op::reduce_scatter: {  // my share of the sum: elements rank*count ..
      float sum = 0;
      for (int r = 0; r < n; ++r) sum += input_value(r, rank * count + i);
      return sum;
    }
    case Op::all_to_all: {  // chunk j is rank j's chunk number `rank`
      const std::int64_t chunk = count / n;
      return input_value(static_cast<int>(i / chunk), rank * chunk + i % chunk);
    }
    case Op::permute: return input_value((rank + n - 1) % n, i);  // shift by +1
    case Op::memcpy: return input_value(rank, i);
    case Op::add: return 0;  // checked separately: depends on how many times it ran
  }
  return 0;
}

// Elements of each device's input and output for a collective of nccl size `size` bytes (f32).
struct Counts {
  std::int64_t in;
  std::int64_t out;
};
inline Counts element_counts(Op op, int n, std::int64_t size) {
  const std::int64_t s = size / 4;
  if (op == Op::all_gather) return {s / n, s};
  if (op == Op::reduce_scatter) return {s, s / n};
  return {s, s};
}

}  // namespace shard_bench

#include "evaluator/collectives.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "evaluator/eval_error.h"
#include "evaluator/ops_elementwise.h"
#include "evaluator/ops_shape.h"
#include "frontend/internal_error.h"

namespace shardc::eval {
namespace {

std::int64_t group_size(const Blocks& blocks) {
  if (blocks.empty()) throw EvalError("a collective over an empty group");
  for (const HostTensor& b : blocks)
    if (b.shape != blocks.front().shape || b.dtype != blocks.front().dtype)
      throw EvalError("collective blocks differ: " + shape_text(blocks.front().shape) + " and " + shape_text(b.shape));
  return static_cast<std::int64_t>(blocks.size());
}

int normalized(int axis, int limit, const char* what) {
  int a = axis < 0 ? axis + limit : axis;
  if (a < 0 || a >= limit)
    throw EvalError(std::string(what) + ": axis " + std::to_string(axis) + " out of range for " + std::to_string(limit));
  return a;
}

// The elementwise reduction of the group's blocks, in `result` dtype.
HostTensor reduce_blocks(ReduceOp op, const Blocks& blocks, DType result) {
  group_size(blocks);
  const HostTensor& first = blocks.front();
  std::int64_t count = first.size();
  // pmean sums in psum's dtype (bool counts in i32) and divides in the result dtype.
  DType sum_dtype = op != ReduceOp::mean ? result : first.dtype == DType::boolean ? DType::i32 : first.dtype;
  HostTensor out = HostTensor::zeros(sum_dtype, first.shape);
  for (std::int64_t i = 0; i < count; ++i) {
    if (op == ReduceOp::max || op == ReduceOp::min) {
      bool want_max = op == ReduceOp::max;
      if (first.is_float()) {
        float acc = first.floats[i];
        for (const HostTensor& b : blocks) {
          float v = b.floats[i];
          if (std::isnan(acc)) break;
          if (std::isnan(v) || (want_max ? v > acc : v < acc)) acc = v;
        }
        out.store_float(i, acc);
      } else {
        std::int64_t acc = first.ints[i];
        for (const HostTensor& b : blocks) acc = want_max ? std::max(acc, b.ints[i]) : std::min(acc, b.ints[i]);
        out.store_int(i, acc);
      }
    } else if (out.is_float()) {
      float acc = 0;  // in f32, in group order; bf16/f16 rounded once below
      for (const HostTensor& b : blocks) acc += static_cast<float>(b.as_double(i));
      out.store_float(i, acc);
    } else {
      std::uint64_t acc = 0;
      for (const HostTensor& b : blocks) acc += static_cast<std::uint64_t>(b.as_int(i));
      out.store_int(i, static_cast<std::int64_t>(acc));
    }
  }
  if (op != ReduceOp::mean) return out;
  // pmean = psum(x) / n, the division in the result dtype (f32 for integer inputs).
  HostTensor mean = convert(out, result);
  for (std::int64_t i = 0; i < count; ++i)
    mean.store_float(i, static_cast<float>(mean.floats[i]) / static_cast<float>(blocks.size()));
  return mean;
}

}  // namespace

Blocks all_reduce(ReduceOp op, const Blocks& blocks, DType result) {
  HostTensor r = reduce_blocks(op, blocks, result);
  SHARDC_ASSERT(r.dtype == result, "all_reduce result dtype");
  return Blocks(blocks.size(), r);
}

Blocks all_gather(const Blocks& blocks, int axis, bool tiled) {
  group_size(blocks);
  int rank = blocks.front().rank();
  int a = normalized(axis, tiled ? rank : rank + 1, "all_gather");
  HostTensor g = tiled ? concat(blocks, a, blocks.front().dtype) : stack(blocks, a, blocks.front().dtype);
  return Blocks(blocks.size(), g);
}

Blocks psum_scatter(const Blocks& blocks, int dim, bool tiled, DType result) {
  std::int64_t n = group_size(blocks);
  const HostTensor& first = blocks.front();
  int d = normalized(dim, first.rank(), "psum_scatter");
  std::int64_t size = first.shape[d];
  if (!tiled && size != n)
    throw EvalError("reduce_scatter operand scatter dimension size " + std::to_string(size) +
                    " must match shard count " + std::to_string(n));
  if (tiled && size % n != 0)
    throw EvalError("tiled reduce_scatter operand scatter dimension size " + std::to_string(size) +
                    " must be divisible by shard_count " + std::to_string(n));
  HostTensor sum = reduce_blocks(ReduceOp::sum, blocks, result);
  Blocks out = split(sum, n, d);
  if (!tiled)
    for (HostTensor& b : out) b = squeeze(b, d);
  return out;
}

Blocks all_to_all(const Blocks& blocks, int split_axis, int concat_axis, bool tiled, std::string_view axis_name) {
  std::string named = axis_name.empty() ? std::string() : std::string(axis_name) + " ";
  std::int64_t n = group_size(blocks);
  const HostTensor& first = blocks.front();
  int rank = first.rank();
  int s = normalized(split_axis, rank, "all_to_all split_axis");
  if (!tiled) {
    if (first.shape[s] != n)
      throw EvalError("all_to_all requires the size of the mapped axis " + named + "to equal x.shape[split_axis], but they are " +
                      std::to_string(n) + " and " + std::to_string(first.shape[s]) + " respectively.");
    // JAX's definition: concat names a position after split is removed; insert a size-1
    // dim there, run the tiled form, squeeze the split dim (size 1 after the exchange).
    int c = normalized(concat_axis, rank, "all_to_all concat_axis");
    if (s == c) return all_to_all(blocks, s, c, true, axis_name);
    if (s < c) ++c;
    Blocks expanded;
    for (const HostTensor& b : blocks) expanded.push_back(expand_dims(b, c));
    int s2 = s > c ? s + 1 : s;  // the split dim moved by the inserted one
    Blocks tiled_out = all_to_all(expanded, s2, c, true, axis_name);
    for (HostTensor& b : tiled_out) b = squeeze(b, s2);
    return tiled_out;
  }
  int c = normalized(concat_axis, rank, "all_to_all concat_axis");
  if (first.shape[s] % n != 0)
    throw EvalError("The size of all_to_all split_axis (" + std::to_string(first.shape[s]) +
                    ") has to be divisible by the size of the named axis " + named + "(" + std::to_string(n) + ")");
  std::vector<Blocks> chunks;  // chunks[source][destination]
  for (const HostTensor& b : blocks) chunks.push_back(split(b, n, s));
  Blocks out;
  for (std::int64_t dst = 0; dst < n; ++dst) {
    Blocks received;
    for (std::int64_t src = 0; src < n; ++src) received.push_back(chunks[src][dst]);
    out.push_back(concat(received, c, first.dtype));
  }
  return out;
}

Blocks ppermute(const Blocks& blocks, const std::vector<std::pair<std::int64_t, std::int64_t>>& perm) {
  std::int64_t n = group_size(blocks);
  std::set<std::int64_t> sources, destinations;
  std::string pairs;
  for (auto [s, d] : perm) pairs += (pairs.empty() ? "(" : ", (") + std::to_string(s) + ", " + std::to_string(d) + ")";
  for (auto [s, d] : perm) {
    if (s < 0 || s >= n || d < 0 || d >= n)
      throw EvalError("ppermute pair (" + std::to_string(s) + ", " + std::to_string(d) + ") outside a group of " +
                      std::to_string(n));
    if (!sources.insert(s).second || !destinations.insert(d).second)
      throw EvalError("ppermute sources and destinations must be unique, got (" + pairs + (perm.size() == 1 ? ",)." : ")."));
  }
  Blocks out(blocks.size(), HostTensor::zeros(blocks.front().dtype, blocks.front().shape));
  for (auto [s, d] : perm) out[d] = blocks[s];
  return out;
}

std::vector<std::pair<std::int64_t, std::int64_t>> shift_permutation(std::int64_t n, std::int64_t shift) {
  std::vector<std::pair<std::int64_t, std::int64_t>> perm;
  for (std::int64_t j = 0; j < n; ++j) perm.emplace_back(j, (((j + shift) % n) + n) % n);
  return perm;
}

Blocks ragged_all_to_all(const Blocks& operands, const Blocks& outputs, const Blocks& input_offsets,
                         const Blocks& send_sizes, const Blocks& output_offsets, const Blocks& recv_sizes) {
  std::int64_t n = static_cast<std::int64_t>(operands.size());
  for (const Blocks* b : {&outputs, &input_offsets, &send_sizes, &output_offsets, &recv_sizes})
    if (static_cast<std::int64_t>(b->size()) != n) throw EvalError("ragged_all_to_all: arguments of different group sizes");
  for (const Blocks* b : {&input_offsets, &send_sizes, &output_offsets, &recv_sizes})
    for (const HostTensor& t : *b)
      if (t.is_float() || t.dtype == DType::boolean || t.shape != Shape{n})
        throw EvalError("ragged_all_to_all: offsets and sizes must be integer arrays of shape (" + std::to_string(n) +
                        ",), got " + std::string(shard::dtype_name(t.dtype)) + shape_text(t.shape));
  Blocks out = outputs;
  for (std::int64_t src = 0; src < n; ++src) {
    const HostTensor& op = operands[src];
    if (op.rank() == 0 || op.dtype != outputs[src].dtype)
      throw EvalError("ragged_all_to_all: operand and output must be arrays of one dtype, rank >= 1");
    std::int64_t row = op.size() / std::max<std::int64_t>(op.shape[0], 1);
    for (std::int64_t dst = 0; dst < n; ++dst) {
      std::int64_t in_off = input_offsets[src].ints[dst], count = send_sizes[src].ints[dst];
      std::int64_t out_off = output_offsets[src].ints[dst];
      if (recv_sizes[dst].ints[src] != count)
        throw EvalError("ragged_all_to_all: member " + std::to_string(src) + " sends " + std::to_string(count) +
                        " rows to member " + std::to_string(dst) + ", which expects " +
                        std::to_string(recv_sizes[dst].ints[src]));
      HostTensor& target = out[dst];
      Shape row_shape(op.shape.begin() + 1, op.shape.end());
      Shape target_rows(target.shape.begin() + 1, target.shape.end());
      if (row_shape != target_rows)
        throw EvalError("ragged_all_to_all: operand rows " + shape_text(row_shape) + " and output rows " +
                        shape_text(target_rows) + " differ");
      // Without `offset + count`, which may overflow: the sizes are values.
      if (count < 0 || in_off < 0 || in_off > op.shape[0] || count > op.shape[0] - in_off || out_off < 0 ||
          out_off > target.shape[0] || count > target.shape[0] - out_off)
        throw EvalError("ragged_all_to_all: rows [" + std::to_string(in_off) + ", +" + std::to_string(count) +
                        ") to offset " + std::to_string(out_off) + " are out of range");
      for (std::int64_t j = 0; j < count * row; ++j) target.copy_element(out_off * row + j, op, in_off * row + j);
    }
  }
  return out;
}

}  // namespace shardc::eval

#include "evaluator/ops_einsum.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <thread>

#include "evaluator/eval_error.h"
#include "evaluator/ops_elementwise.h"
#include "evaluator/ops_shape.h"
#include "frontend/check/rules_einsum.h"

namespace shardc::eval {
namespace {

using Sizes = std::map<char, std::int64_t>;

HostTensor einsum_loops(const check::EinsumSpec& spec, const std::vector<HostTensor>& ops, const Sizes& size,
                        DType result);
HostTensor einsum_two(const check::EinsumSpec& spec, const std::vector<HostTensor>& ops, const Sizes& size,
                      DType result);

}  // namespace

HostTensor einsum(std::string_view spec_text, const std::vector<HostTensor>& operands_in, DType result) {
  auto spec = check::parse_einsum(spec_text);
  if (!spec) throw EvalError("einsum: bad spec \"" + std::string(spec_text) + "\": " + spec.error().message);
  if (spec->inputs.size() != operands_in.size())
    throw EvalError("einsum \"" + std::string(spec_text) + "\" given " + std::to_string(operands_in.size()) + " operands");
  std::vector<HostTensor> ops;
  for (const HostTensor& t : operands_in) ops.push_back(t.dtype == result ? t : convert(t, result));

  // Every letter's size, checked for agreement between operands.
  Sizes size;
  for (std::size_t k = 0; k < ops.size(); ++k) {
    const std::string& letters = spec->inputs[k];
    if (static_cast<int>(letters.size()) != ops[k].rank())
      throw EvalError("einsum \"" + std::string(spec_text) + "\": operand " + std::to_string(k) + " has shape " +
                      shape_text(ops[k].shape));
    for (std::size_t d = 0; d < letters.size(); ++d) {
      auto [it, fresh] = size.emplace(letters[d], ops[k].shape[d]);
      if (!fresh && it->second != ops[k].shape[d])
        throw EvalError("einsum \"" + std::string(spec_text) + "\": letter " + std::string(1, letters[d]) +
                        " has sizes " + std::to_string(it->second) + " and " + std::to_string(ops[k].shape[d]));
    }
  }
  for (char c : spec->output)
    if (!size.count(c)) throw EvalError("einsum \"" + std::string(spec_text) + "\": output letter " + std::string(1, c) + " is in no operand");
  return ops.size() == 2 ? einsum_two(*spec, ops, size, result) : einsum_loops(*spec, ops, size, result);
}

HostTensor einsum_of_rounded_partials(std::string_view spec_text, const std::vector<HostTensor>& operands, DType result,
                                      const std::vector<SplitLetter>& split) {
  if (split.empty()) return einsum(spec_text, operands, result);
  auto spec = check::parse_einsum(spec_text);
  if (!spec) throw EvalError("einsum: bad spec \"" + std::string(spec_text) + "\": " + spec.error().message);
  std::vector<std::int64_t> counts;
  for (const SplitLetter& l : split) counts.push_back(l.blocks);
  std::vector<std::vector<int>> dims_of;  // per operand, each split letter's dimension or -1
  for (const std::string& letters : spec->inputs) {
    std::vector<int> dims;
    for (const SplitLetter& l : split) {
      const std::size_t d = letters.find(l.letter);
      dims.push_back(d == std::string::npos ? -1 : static_cast<int>(d));
    }
    dims_of.push_back(std::move(dims));
  }
  HostTensor total;
  std::vector<float> sums;  // the rounded partial products summed in f32
  for_each_part_index(counts, [&](const std::vector<std::int64_t>& index) {
    std::vector<HostTensor> parts;
    for (std::size_t k = 0; k < operands.size(); ++k) parts.push_back(block_of(operands[k], dims_of[k], counts, index));
    HostTensor partial = einsum(spec_text, parts, result);  // rounded to the result dtype
    if (sums.empty()) {
      total = partial;
      sums.assign(static_cast<std::size_t>(partial.size()), 0.0f);
    }
    for (std::int64_t i = 0; i < partial.size(); ++i) sums[static_cast<std::size_t>(i)] += static_cast<float>(partial.as_double(i));
  });
  for (std::int64_t i = 0; i < total.size(); ++i) total.store_float(i, sums[static_cast<std::size_t>(i)]);
  return total;
}

std::vector<SplitLetter> split_contracted_letters(std::string_view spec_text,
                                                  const std::vector<std::vector<std::vector<int>>>& axes_of,
                                                  const std::vector<std::int64_t>& axis_sizes) {
  auto spec = check::parse_einsum(spec_text);
  std::vector<SplitLetter> split;
  if (!spec || spec->inputs.size() != axes_of.size()) return split;
  std::vector<int> used;  // axes of the letters split so far
  std::string seen;
  for (const std::string& letters : spec->inputs)
    for (char c : letters) {
      if (spec->output.find(c) != std::string::npos || seen.find(c) != std::string::npos) continue;
      seen += c;
      const std::vector<int>* first = nullptr;
      bool alike = true;
      for (std::size_t k = 0; k < spec->inputs.size(); ++k) {
        const std::size_t d = spec->inputs[k].find(c);
        if (d == std::string::npos) continue;
        const std::vector<int>& axes = axes_of[k].at(d);
        if (!first) first = &axes;
        alike = alike && !axes.empty() && axes == *first;
      }
      const bool overlaps = first && std::any_of(first->begin(), first->end(), [&](int a) {
        return std::find(used.begin(), used.end(), a) != used.end();
      });
      if (!first || !alike || overlaps) continue;
      std::int64_t blocks = 1;
      for (int a : *first) blocks *= axis_sizes.at(static_cast<std::size_t>(a));
      used.insert(used.end(), first->begin(), first->end());
      if (blocks > 1) split.push_back({c, blocks});
    }
  return split;
}

namespace {

// Any einsum, by one loop over every letter (output letters outside, summed ones inside).
HostTensor einsum_loops(const check::EinsumSpec& spec_in, const std::vector<HostTensor>& ops, const Sizes& size,
                        DType result) {
  const check::EinsumSpec* spec = &spec_in;
  // Loop letters: the output's, then the summed ones. Summed letters come from this spec's
  // inputs, not from `size`: einsum_two passes the sizes of both operands when it reduces
  // one of them, and looping over the other operand's letters would scale the sum.
  std::string loop = spec->output;
  auto in_inputs = [&](char letter) {
    for (const std::string& letters : spec->inputs)
      if (letters.find(letter) != std::string::npos) return true;
    return false;
  };
  for (auto [letter, n] : size)
    if (loop.find(letter) == std::string::npos && in_inputs(letter)) loop.push_back(letter);
  Shape out_shape, inner_shape;
  for (char c : spec->output) out_shape.push_back(size.at(c));
  for (std::size_t j = spec->output.size(); j < loop.size(); ++j) inner_shape.push_back(size.at(loop[j]));
  // Each operand's stride per loop letter (0 where the letter is not one of its dims).
  std::vector<std::vector<std::int64_t>> stride(ops.size(), std::vector<std::int64_t>(loop.size(), 0));
  for (std::size_t k = 0; k < ops.size(); ++k) {
    auto s = strides_of(ops[k].shape);
    for (std::size_t d = 0; d < spec->inputs[k].size(); ++d) stride[k][loop.find(spec->inputs[k][d])] = s[d];
  }

  HostTensor out = HostTensor::zeros(result, out_shape);
  std::int64_t outer = out.size(), inner = element_count(inner_shape);
  std::size_t n_out = out_shape.size();
  std::vector<std::int64_t> coord(loop.size(), 0);
  bool is_float = out.is_float();
  std::vector<std::int64_t> offset(ops.size());
  for (std::int64_t o = 0; o < outer; ++o) {
    // Decode the output coordinates; the summed ones restart at 0.
    std::int64_t rest = o;
    for (int d = static_cast<int>(n_out) - 1; d >= 0; --d) {
      coord[d] = rest % out_shape[d];
      rest /= out_shape[d];
    }
    for (std::size_t d = n_out; d < loop.size(); ++d) coord[d] = 0;
    for (std::size_t k = 0; k < ops.size(); ++k) {
      offset[k] = 0;
      for (std::size_t d = 0; d < n_out; ++d) offset[k] += coord[d] * stride[k][d];
    }
    double facc = 0;
    std::uint64_t iacc = 0;
    for (std::int64_t in = 0; in < inner; ++in) {
      if (is_float) {
        double p = 1;
        for (std::size_t k = 0; k < ops.size(); ++k) p *= ops[k].floats[offset[k]];
        facc += p;
      } else {
        std::uint64_t p = 1;
        for (std::size_t k = 0; k < ops.size(); ++k) p *= static_cast<std::uint64_t>(ops[k].ints[offset[k]]);
        iacc += p;
      }
      // Odometer over the summed letters, moving each operand's offset along.
      for (int d = static_cast<int>(loop.size()) - 1; d >= static_cast<int>(n_out); --d) {
        if (++coord[d] < inner_shape[d - n_out]) {
          for (std::size_t k = 0; k < ops.size(); ++k) offset[k] += stride[k][d];
          break;
        }
        coord[d] = 0;
        for (std::size_t k = 0; k < ops.size(); ++k) offset[k] -= (inner_shape[d - n_out] - 1) * stride[k][d];
      }
    }
    if (is_float) out.store_float(o, facc);
    else out.store_int(o, static_cast<std::int64_t>(iacc));
  }
  return out;
}

std::string without(const std::string& letters, const std::string& drop) {
  std::string out;
  for (char c : letters)
    if (drop.find(c) == std::string::npos) out.push_back(c);
  return out;
}

bool has(const std::string& letters, char c) { return letters.find(c) != std::string::npos; }

// `x` (letters `from`) with its dimensions reordered to `to` (the same letters).
HostTensor reorder(const HostTensor& x, const std::string& from, const std::string& to) {
  std::vector<std::int64_t> perm;
  for (char c : to) perm.push_back(static_cast<std::int64_t>(from.find(c)));
  return transpose(x, perm);
}

// acc[i] += a * b[i]: the hot loop of einsum_two. Cloned for AVX2 (chosen at load time on
// CPUs that have it): four doubles per instruction instead of SSE2's two. Not under
// ThreadSanitizer, whose instrumented ifunc resolver would run before its runtime exists.
#if defined(__SANITIZE_THREAD__)
#define SHARDC_EVAL_HOT_LOOP
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SHARDC_EVAL_HOT_LOOP
#endif
#endif
#ifndef SHARDC_EVAL_HOT_LOOP
#define SHARDC_EVAL_HOT_LOOP __attribute__((target_clones("avx2", "default")))
#endif
SHARDC_EVAL_HOT_LOOP void axpy_row(double* acc, double a, const float* b, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) acc[i] += a * static_cast<double>(b[i]);
}

// Two operands as a batched matmul C[b,m,n] = sum_k A[b,m,k] B[b,k,n], in cache-friendly
// tiled i-k-j order (the evaluator must stay usable at the seeds' sizes, e.g. 1024x4096 @ 4096x256).
// Letters summed in one operand only are reduced first.
HostTensor einsum_two(const check::EinsumSpec& spec, const std::vector<HostTensor>& ops, const Sizes& size,
                      DType result) {
  const std::string& out = spec.output;
  std::string a = spec.inputs[0], b = spec.inputs[1];
  HostTensor A = ops[0], B = ops[1];
  // Reduce letters that only one operand has and the output lacks.
  std::string a_only, b_only;
  for (char c : a)
    if (!has(b, c) && !has(out, c)) a_only.push_back(c);
  for (char c : b)
    if (!has(a, c) && !has(out, c)) b_only.push_back(c);
  if (!a_only.empty()) {
    std::string kept = without(a, a_only);
    A = einsum_loops(check::EinsumSpec{{a}, kept}, {A}, size, result);
    a = kept;
  }
  if (!b_only.empty()) {
    std::string kept = without(b, b_only);
    B = einsum_loops(check::EinsumSpec{{b}, kept}, {B}, size, result);
    b = kept;
  }
  std::string batch, m, n, k;
  for (char c : a) {
    if (has(b, c) && has(out, c)) batch.push_back(c);
    else if (has(b, c)) k.push_back(c);
    else m.push_back(c);
  }
  for (char c : b)
    if (!has(a, c)) n.push_back(c);
  auto count = [&](const std::string& letters) {
    std::int64_t p = 1;
    for (char c : letters) p *= size.at(c);
    return p;
  };
  std::int64_t nb = count(batch), nm = count(m), nk = count(k), nn = count(n);
  HostTensor Ar = reorder(A, a, batch + m + k);
  HostTensor Br = reorder(B, b, batch + k + n);
  Shape c_shape;
  for (char c : batch + m + n) c_shape.push_back(size.at(c));
  HostTensor C = HostTensor::zeros(result, c_shape);
  // Tiled over n and k so that a tile of B stays in cache while every row of A passes over
  // it (B at the seeds' sizes is tens of MB); accumulators per (row, column of the tile).
  constexpr std::int64_t kTileN = 256, kTileK = 256;
  bool is_float = C.is_float();
  // One task per (batch, column tile): tasks write disjoint elements of C, each in a fixed
  // order, so the result does not depend on the number of threads.
  auto column_tile = [&](std::int64_t ib, std::int64_t n0) {
    std::int64_t tn = std::min(kTileN, nn - n0);
    std::vector<double> facc(is_float ? static_cast<std::size_t>(nm * tn) : 0, 0.0);
    std::vector<std::uint64_t> iacc(is_float ? 0 : static_cast<std::size_t>(nm * tn), 0);
    for (std::int64_t k0 = 0; k0 < nk; k0 += kTileK) {
      std::int64_t tk = std::min(kTileK, nk - k0);
      for (std::int64_t im = 0; im < nm; ++im) {
        std::int64_t a_row = (ib * nm + im) * nk;
        for (std::int64_t ik = k0; ik < k0 + tk; ++ik) {
          std::int64_t b_row = (ib * nk + ik) * nn + n0;
          if (is_float) {
            axpy_row(facc.data() + im * tn, Ar.floats[a_row + ik], Br.floats.data() + b_row, tn);
          } else {
            auto av = static_cast<std::uint64_t>(Ar.ints[a_row + ik]);
            const std::int64_t* brow = Br.ints.data() + b_row;
            std::uint64_t* acc = iacc.data() + im * tn;
            for (std::int64_t in = 0; in < tn; ++in) acc[in] += av * static_cast<std::uint64_t>(brow[in]);
          }
        }
      }
    }
    for (std::int64_t im = 0; im < nm; ++im)
      for (std::int64_t in = 0; in < tn; ++in) {
        std::int64_t at = (ib * nm + im) * nn + n0 + in;
        if (is_float) C.store_float(at, facc[im * tn + in]);
        else C.store_int(at, static_cast<std::int64_t>(iacc[im * tn + in]));
      }
  };
  std::vector<std::pair<std::int64_t, std::int64_t>> tasks;
  for (std::int64_t ib = 0; ib < nb; ++ib)
    for (std::int64_t n0 = 0; n0 < nn; n0 += kTileN) tasks.emplace_back(ib, n0);
  // Threads only pay off for big products (the seeds' sizes under `shardc run`).
  double work = static_cast<double>(nb) * static_cast<double>(nm) * static_cast<double>(nk) * static_cast<double>(nn);
  unsigned threads = work < 3.0e7 ? 1u : std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, tasks.size()));
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t t = next++; t < tasks.size(); t = next++) column_tile(tasks[t].first, tasks[t].second);
  };
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < threads; ++i) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
  return reorder(C, batch + m + n, out);
}

}  // namespace
}  // namespace shardc::eval

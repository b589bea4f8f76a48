#include "evaluator/ops_einsum.h"

#include <map>

#include "evaluator/eval_error.h"
#include "evaluator/ops_elementwise.h"
#include "frontend/check/rules_einsum.h"

namespace shardc::eval {

HostTensor einsum(std::string_view spec_text, const std::vector<HostTensor>& operands_in, DType result) {
  auto spec = check::parse_einsum(spec_text);
  if (!spec) throw EvalError("einsum: bad spec \"" + std::string(spec_text) + "\": " + spec.error().message);
  if (spec->inputs.size() != operands_in.size())
    throw EvalError("einsum \"" + std::string(spec_text) + "\" given " + std::to_string(operands_in.size()) + " operands");
  std::vector<HostTensor> ops;
  for (const HostTensor& t : operands_in) ops.push_back(t.dtype == result ? t : convert(t, result));

  // Every letter's size, checked for agreement between operands.
  std::map<char, std::int64_t> size;
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
  // Loop letters: the output's, then the summed ones.
  std::string loop = spec->output;
  for (auto [letter, n] : size)
    if (loop.find(letter) == std::string::npos) loop.push_back(letter);
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

}  // namespace shardc::eval

#include "evaluator/evaluate.h"

#include "evaluator/eval_error.h"
#include "evaluator/ops_elementwise.h"
#include "evaluator/run_function.h"
#include "frontend/check/types.h"

namespace shardc::eval {
namespace {

const check::CheckedFunction& find(const check::CheckedModule& module, std::string_view function) {
  const check::CheckedFunction* f = module.find_function(function);
  if (!f) {
    std::string names;
    for (const auto& g : module.functions) names += (names.empty() ? "" : ", ") + g.name;
    throw EvalError("no func or shard_map named '" + std::string(function) + "' in module " + module.name +
                    " (it has: " + names + ")");
  }
  return *f;
}

HostTensor key_as_array(const shard::random::Key& k) {
  return HostTensor::from_ints(DType::i64, {2}, {static_cast<std::int64_t>(k.k0), static_cast<std::int64_t>(k.k1)});
}

}  // namespace

std::vector<HostTensor> evaluate(const check::CheckedModule& module, std::string_view function,
                                 const std::vector<HostTensor>& inputs) {
  const check::CheckedFunction& f = find(module, function);
  if (inputs.size() != f.param_types.size())
    throw EvalError(f.name + " takes " + std::to_string(f.param_types.size()) + " arguments, got " +
                    std::to_string(inputs.size()));
  std::vector<EvalValue> args;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const check::Type& t = f.param_types[i];
    const HostTensor& x = inputs[i];
    std::string which = "argument " + std::to_string(i) + " (" + f.param_names.at(i) + ") of " + f.name;
    if (t.kind == check::TypeKind::key) {
      if (x.dtype != DType::i64 || x.shape != Shape{2})
        throw EvalError(which + " is a key: pass an int64 array of shape (2,) holding [k0, k1]");
      args.emplace_back(shard::random::Key{static_cast<std::uint32_t>(x.ints[0]), static_cast<std::uint32_t>(x.ints[1])});
      continue;
    }
    if (x.dtype != t.dtype || x.shape != t.shape())
      throw EvalError(which + " must be " + std::string(shard::dtype_name(t.dtype)) + shape_text(t.shape()) + " (" +
                      check::to_string(t) + "), got " + std::string(shard::dtype_name(x.dtype)) + shape_text(x.shape));
    args.emplace_back(x);
  }
  std::vector<HostTensor> out;
  auto results = run_function(module, f, args);
  for (std::size_t r = 0; r < results.size(); ++r) {
    if (const auto* k = std::get_if<shard::random::Key>(&results[r])) {
      out.push_back(key_as_array(*k));
      continue;
    }
    HostTensor t = std::get<HostTensor>(std::move(results[r]));
    // A weak scalar returned through a declared dtype takes that dtype.
    if (r < f.result_types.size() && f.result_types[r].is_array() && t.dtype != f.result_types[r].dtype)
      t = convert(t, f.result_types[r].dtype);
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<HostTensor> deterministic_inputs(const check::CheckedModule& module, std::string_view function,
                                             std::uint32_t seed) {
  const check::CheckedFunction& f = find(module, function);
  std::vector<HostTensor> out;
  shard::random::Key base = shard::random::key(seed);
  for (std::size_t p = 0; p < f.param_types.size(); ++p) {
    const check::Type& t = f.param_types[p];
    shard::random::Key k = shard::random::fold_in(base, static_cast<std::uint32_t>(p));
    if (t.kind == check::TypeKind::key) {
      out.push_back(key_as_array(k));
      continue;
    }
    if (t.kind != check::TypeKind::array)
      throw EvalError("parameter " + f.param_names.at(p) + " of " + f.name + " has type " + check::to_string(t) +
                      ", for which no input can be made");
    HostTensor x = HostTensor::zeros(t.dtype, t.shape());
    auto block = shard::random::Block::whole(t.shape());
    if (x.is_float()) {
      std::vector<float> u(static_cast<std::size_t>(x.size()));
      shard::random::uniform(k, DType::f32, block, -1.0, 1.0, u.data());
      for (std::int64_t i = 0; i < x.size(); ++i) x.store_float(i, u[i]);
    } else {
      std::vector<std::uint32_t> bits(static_cast<std::size_t>(x.size()));
      shard::random::bits32(k, block, bits.data());
      for (std::int64_t i = 0; i < x.size(); ++i)
        x.store_int(i, t.dtype == DType::boolean ? (bits[i] & 1u) : static_cast<std::int64_t>(bits[i] >> 28) - 8);
    }
    out.push_back(std::move(x));
  }
  return out;
}

}  // namespace shardc::eval

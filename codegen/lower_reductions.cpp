#include "codegen/lower_reductions.h"

#include <algorithm>

#include "codegen/lowering_support.h"
#include "frontend/internal_error.h"

namespace shardc::codegen {
namespace {

OpKind all_reduce_for(const std::string& fn) {
  if (fn == "sum") return OpKind::psum;
  if (fn == "max") return OpKind::pmax;
  if (fn == "min") return OpKind::pmin;
  if (fn == "mean") return OpKind::pmean;
  if (fn == "prod") return OpKind::pprod;
  SHARDC_ASSERT(false, "reduction '" + fn + "' over a sharded dimension reached lower_reductions");
  return OpKind::psum;
}

// (evaluator/ops_reduce.cpp's reduce_of_rounded_partials computes a float sum, mean or prod
// the way this lowering does, partials in f32: change both together.)
void lower_reduce(Function& out, const InstrPtr& instr) {
  const Value& x = out.values[static_cast<std::size_t>(instr->inputs()[0])];
  std::vector<std::int64_t> axes = instr->ints_attr("axes");
  if (axes.empty())
    for (std::size_t d = 0; d < x.spec.size(); ++d) axes.push_back(static_cast<std::int64_t>(d));
  // sum(..., unreduced=) leaves its result pending over those axes: they are not all-reduced.
  const AxisList& pending = out.values[static_cast<std::size_t>(instr->output())].unreduced;
  AxisList group;
  for (auto d : axes)
    for (int a : x.spec[static_cast<std::size_t>(d)])
      if (std::find(pending.begin(), pending.end(), a) == pending.end()) group.push_back(a);
  if (group.empty()) {
    out.body.push_back(instr);
    return;
  }
  const ValueId result = instr->output();
  Value partial = out.values[static_cast<std::size_t>(result)];
  partial.name.clear();
  // jnp.sum, jnp.mean and jnp.prod of bf16/f16 compute in f32 and round once at the end, so
  // the devices' partial results cross the collective in f32 (the sum of [60000, 60000,
  // -60000, -60000] in f16 over 2 devices is 0, not inf - inf); max and min are exact in any
  // dtype.
  const std::string& fn = instr->string_attr("fn");
  const bool widen = (fn == "sum" || fn == "mean" || fn == "prod") &&
                     (partial.dtype == DType::bf16 || partial.dtype == DType::f16);
  if (widen) partial.dtype = DType::f32;
  const ValueId local = out.add_value(partial);
  out.body.push_back(Instr::make(OpKind::reduce, instr->inputs(), {local}, instr->attrs(), instr->range()));
  if (!widen) {
    out.body.push_back(Instr::make(all_reduce_for(fn), {local}, {result}, axes_attrs(group), instr->range()));
    return;
  }
  const ValueId combined = out.add_value(partial);
  out.body.push_back(Instr::make(all_reduce_for(fn), {local}, {combined}, axes_attrs(group), instr->range()));
  const DType storage = out.values[static_cast<std::size_t>(result)].dtype;
  out.body.push_back(Instr::make(OpKind::convert, {combined}, {result},
                                 {{"dtype", std::string(shard::dtype_short_name(storage))}}, instr->range()));
}

}  // namespace

Module lower_reductions(const Module& module) {
  Module m = module;
  for (Function& f : m.functions) {
    if (f.manual) continue;
    Function out = empty_like(f);
    for (const InstrPtr& instr : f.body) {
      if (instr->kind() == OpKind::reduce) lower_reduce(out, instr);
      else out.body.push_back(instr);
    }
    f = std::move(out);
  }
  return m;
}

}  // namespace shardc::codegen

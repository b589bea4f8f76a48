#include "codegen/drop_size_one_axes.h"

#include "codegen/lowering_support.h"

namespace shardc::codegen {
namespace {

bool is_all_reduce(OpKind kind) {
  return kind == OpKind::psum || kind == OpKind::pmean || kind == OpKind::pmax || kind == OpKind::pmin ||
         kind == OpKind::pprod;
}

}  // namespace

Module drop_size_one_axes(const Module& module) {
  Module m = module;
  for (Function& f : m.functions) {
    if (f.manual) continue;
    Function out = empty_like(f);
    for (const InstrPtr& instr : f.body) {
      if (!is_all_reduce(instr->kind())) {
        out.body.push_back(instr);
        continue;
      }
      const AxisList& axes = instr->axes_attr("axes");
      AxisList kept;
      for (int axis : axes)
        if (f.mesh->axis_sizes[static_cast<std::size_t>(axis)] > 1) kept.push_back(axis);
      const Value& in = f.values[static_cast<std::size_t>(instr->inputs()[0])];
      const Value& result = f.values[static_cast<std::size_t>(instr->output())];
      if (kept.empty() && in.dtype == result.dtype) {
        out.body.push_back(Instr::make(OpKind::alias, instr->inputs(), instr->outputs(), {}, instr->range()));
      } else if (!kept.empty() && kept.size() < axes.size()) {
        Attrs attrs = instr->attrs();
        attrs["axes"] = kept;
        out.body.push_back(Instr::make(instr->kind(), instr->inputs(), instr->outputs(), std::move(attrs), instr->range()));
      } else {
        out.body.push_back(instr);
      }
    }
    f = std::move(out);
  }
  return m;
}

}  // namespace shardc::codegen

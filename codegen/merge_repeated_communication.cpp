#include "codegen/merge_repeated_communication.h"

#include <vector>

#include "codegen/lowering_support.h"

namespace shardc::codegen {
namespace {

bool mergeable(const Instr& instr) {
  return (op_class(instr.kind()) == OpClass::collective || instr.kind() == OpKind::take_piece) &&
         instr.outputs().size() == 1;
}

bool same_operation(const Instr& a, const Instr& b) {
  return a.kind() == b.kind() && a.inputs() == b.inputs() && a.attrs() == b.attrs();
}

}  // namespace

Module merge_repeated_communication(const Module& module) {
  Module m = module;
  for (Function& f : m.functions) {
    Function out = empty_like(f);
    std::vector<const Instr*> seen;  // the first of each distinct operation, in body order
    for (const InstrPtr& instr : f.body) {
      const Instr* earlier = nullptr;
      if (mergeable(*instr))
        for (const Instr* s : seen)
          if (same_operation(*s, *instr)) earlier = s;
      if (!earlier) {
        if (mergeable(*instr)) seen.push_back(instr.get());
        out.body.push_back(instr);
        continue;
      }
      out.body.push_back(Instr::make(OpKind::alias, {earlier->output()}, {instr->output()}, {}, instr->range()));
    }
    f = std::move(out);
  }
  return m;
}

}  // namespace shardc::codegen

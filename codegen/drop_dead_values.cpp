#include "codegen/drop_dead_values.h"

#include <algorithm>
#include <vector>

#include "codegen/lowering_support.h"

namespace shardc::codegen {
namespace {

// A call stays too: its callee may hold collectives, which stay as written. In a func the
// collectives are the compiler's own (a reshard, a reduction over a sharded dimension), and
// one whose result nobody reads goes as a local instruction does, on every device alike.
bool removable(const Instr& instr, bool manual) {
  if (op_class(instr.kind()) == OpClass::collective) return !manual;
  return op_class(instr.kind()) == OpClass::local && instr.kind() != OpKind::param && instr.kind() != OpKind::call;
}

}  // namespace

Module drop_dead_values(const Module& module) {
  Module m = module;
  for (Function& f : m.functions) {
    std::vector<bool> live(f.values.size(), false);
    for (ValueId r : f.results) live[r] = true;
    // Backwards: every reader of a value comes after its producer in the straight-line body.
    std::vector<bool> keep(f.body.size(), false);
    for (std::size_t i = f.body.size(); i-- > 0;) {
      const Instr& instr = *f.body[i];
      const bool read = std::any_of(instr.outputs().begin(), instr.outputs().end(), [&](ValueId o) { return live[o]; });
      if (!read && removable(instr, f.manual)) continue;
      keep[i] = true;
      for (ValueId in : instr.inputs()) live[in] = true;
    }
    if (std::all_of(keep.begin(), keep.end(), [](bool k) { return k; })) continue;
    Function out = empty_like(f);
    for (std::size_t i = 0; i < f.body.size(); ++i)
      if (keep[i]) out.body.push_back(f.body[i]);
    f = std::move(out);
  }
  return m;
}

}  // namespace shardc::codegen

#include "codegen/last_use.h"

#include <algorithm>
#include <map>

namespace shardc::codegen {

LastUses::LastUses(const Function& f) : f_(f) {
  const std::size_t n = f.values.size();
  root_.resize(n);
  for (std::size_t v = 0; v < n; ++v) root_[v] = static_cast<ValueId>(v);
  owned_.assign(n, false);
  last_use_.assign(n, 0);
  returned_.assign(n, false);

  std::map<ValueId, std::vector<ValueId>> in_flight;  // pending handle -> its collective's operands
  for (std::size_t i = 0; i < f.body.size(); ++i) {
    const Instr& instr = *f.body[i];
    auto use = [&](ValueId v) {
      std::size_t& last = last_use_[static_cast<std::size_t>(root(v))];
      last = std::max(last, i);
    };
    for (ValueId in : instr.inputs()) use(in);
    if (instr.kind() == OpKind::start) in_flight[instr.output()] = instr.inputs();
    if (instr.kind() == OpKind::wait)
      for (ValueId operand : in_flight[instr.inputs().at(0)]) use(operand);
    const bool view = instr.kind() == OpKind::alias || instr.kind() == OpKind::pvary;
    for (ValueId out : instr.outputs()) {
      const std::size_t o = static_cast<std::size_t>(out);
      if (view) root_[o] = root(instr.inputs().at(0));
      else owned_[o] = instr.kind() != OpKind::param && f.values[o].kind == ValueKind::array;
    }
  }
  for (ValueId r : f.results) returned_[static_cast<std::size_t>(root(r))] = true;
}

bool LastUses::consumable(std::size_t index, std::size_t operand) const {
  const Instr& instr = *f_.body.at(index);
  const ValueId r = root(instr.inputs().at(operand));
  const std::size_t ri = static_cast<std::size_t>(r);
  if (!owned_[ri] || returned_[ri] || last_use_[ri] != index) return false;
  return std::count_if(instr.inputs().begin(), instr.inputs().end(), [&](ValueId v) { return root(v) == r; }) == 1;
}

bool LastUses::result_movable(std::size_t i) const {
  const ValueId r = root(f_.results.at(i));
  if (!owned_[static_cast<std::size_t>(r)]) return false;
  for (std::size_t j = i + 1; j < f_.results.size(); ++j)
    if (root(f_.results[j]) == r) return false;
  return true;
}

}  // namespace shardc::codegen

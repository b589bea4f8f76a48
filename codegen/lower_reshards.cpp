#include "codegen/lower_reshards.h"

#include <algorithm>

#include "codegen/lowering_support.h"
#include "frontend/internal_error.h"

namespace shardc::codegen {
namespace {

bool is_prefix(const AxisList& a, const AxisList& of) {
  return a.size() <= of.size() && std::equal(a.begin(), a.end(), of.begin());
}

struct Step {
  OpKind kind;
  Attrs attrs;
  std::vector<AxisList> after;
};

Step next_step(const std::vector<AxisList>& state, const std::vector<AxisList>& target) {
  const std::size_t rank = state.size();
  // Prefer an all_to_all: a dropped axis that another dimension needs next.
  for (std::size_t a = 0; a < rank; ++a) {
    if (is_prefix(state[a], target[a])) continue;
    int g = state[a].back();
    for (std::size_t b = 0; b < rank; ++b) {
      if (b == a) continue;
      AxisList grown = state[b];
      grown.push_back(g);
      if (!is_prefix(state[b], target[b]) || !is_prefix(grown, target[b])) continue;
      std::vector<AxisList> after = state;
      after[a].pop_back();
      after[b] = grown;
      return {OpKind::all_to_all,
              {{"axes", AxisList{g}},
               {"split", static_cast<std::int64_t>(b)},
               {"concat", static_cast<std::int64_t>(a)},
               {"tiled", true}},
              after};
    }
  }
  for (std::size_t a = 0; a < rank; ++a) {
    if (is_prefix(state[a], target[a])) continue;
    std::vector<AxisList> after = state;
    int g = after[a].back();
    after[a].pop_back();
    return {OpKind::all_gather,
            {{"axes", AxisList{g}}, {"axis", static_cast<std::int64_t>(a)}, {"tiled", true}},
            after};
  }
  for (std::size_t b = 0; b < rank; ++b) {
    if (state[b].size() == target[b].size()) continue;
    std::vector<AxisList> after = state;
    int g = target[b][state[b].size()];
    after[b].push_back(g);
    return {OpKind::take_piece, {{"axes", AxisList{g}}, {"dim", static_cast<std::int64_t>(b)}}, after};
  }
  SHARDC_ASSERT(false, "lower_reshards: no step between equal shardings");
  return {};
}

void lower_reshard(Function& out, const Instr& instr) {
  const ValueId result = instr.output();
  const std::vector<AxisList> target = out.values[static_cast<std::size_t>(result)].spec;
  ValueId current = instr.inputs()[0];
  if (out.values[static_cast<std::size_t>(current)].spec == target) {
    // A free reshard (same layout): keep the value under the result's id.
    out.body.push_back(Instr::make(OpKind::alias, {current}, {result}, {}, instr.range()));
    return;
  }
  int guard = 0;
  while (out.values[static_cast<std::size_t>(current)].spec != target) {
    SHARDC_ASSERT(++guard < 256, "lower_reshards does not converge");
    Step step = next_step(out.values[static_cast<std::size_t>(current)].spec, target);
    ValueId next = step.after == target ? result : -1;
    if (next < 0) {
      Value v = with_spec(*out.mesh, out.values[static_cast<std::size_t>(current)], step.after);
      v.name.clear();
      next = out.add_value(v);
    }
    out.body.push_back(Instr::make(step.kind, {current}, {next}, step.attrs, instr.range()));
    current = next;
  }
}

}  // namespace

Module lower_reshards(const Module& module) {
  Module m = module;
  for (Function& f : m.functions) {
    Function out = empty_like(f);
    for (const InstrPtr& instr : f.body) {
      if (instr->kind() == OpKind::reshard) lower_reshard(out, *instr);
      else out.body.push_back(instr);
    }
    f = std::move(out);
  }
  return m;
}

}  // namespace shardc::codegen

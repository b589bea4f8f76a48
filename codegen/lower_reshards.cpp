#include "codegen/lower_reshards.h"

#include <algorithm>
#include <optional>

#include "codegen/lowering_support.h"
#include "frontend/internal_error.h"

namespace shardc::codegen {
namespace {

using AxesPerDim = std::vector<AxisList>;

bool is_prefix(const AxisList& a, const AxisList& of) {
  return a.size() <= of.size() && std::equal(a.begin(), a.end(), of.begin());
}

// The axes `longer` has after its prefix `shorter` (which must be one).
AxisList suffix_after(const AxisList& shorter, const AxisList& longer) {
  return AxisList(longer.begin() + static_cast<std::ptrdiff_t>(shorter.size()), longer.end());
}

// Every mesh axis either spec names, in mesh order: the group a reshard exchange talks to.
AxisList axes_named(const AxesPerDim& a, const AxesPerDim& b) {
  AxisList axes;
  for (const AxesPerDim* spec : {&a, &b})
    for (const AxisList& dim : *spec) axes.insert(axes.end(), dim.begin(), dim.end());
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  return axes;
}

// The spec without its size-1 mesh axes: they split nothing, so two specs that differ only in
// them lay out the same blocks, and a reshard between them moves nothing. The lowering below
// compares and moves these forms ([X,Y] -> [Y,X] with X = Y = 1 is free, not an exchange).
AxesPerDim without_size_one_axes(const check::Mesh& mesh, AxesPerDim spec) {
  for (AxisList& dim : spec)
    std::erase_if(dim, [&](int axis) { return mesh.axis_sizes[static_cast<std::size_t>(axis)] == 1; });
  return spec;
}

// Case 2: only axes added. One take_piece per dimension that grows (over the axes it gains,
// which take_piece reads as one combined axis, major first, as the spec means them).
bool lower_as_pieces(Function& out, ValueId current, ValueId result, const AxesPerDim& from, const AxesPerDim& target,
                     const SourceRange& range) {
  std::vector<std::size_t> growing;
  for (std::size_t d = 0; d < from.size(); ++d) {
    if (!is_prefix(from[d], target[d])) return false;
    if (from[d].size() < target[d].size()) growing.push_back(d);
  }
  AxesPerDim state = from;
  for (std::size_t i = 0; i < growing.size(); ++i) {
    const std::size_t d = growing[i];
    const AxisList added = suffix_after(state[d], target[d]);
    state[d] = target[d];
    ValueId next = result;
    if (i + 1 < growing.size()) {
      Value v = with_spec(*out.mesh, out.values[static_cast<std::size_t>(current)], state);
      v.name.clear();
      next = out.add_value(v);
    }
    out.body.push_back(Instr::make(OpKind::take_piece, {current}, {next},
                                   {{"axes", added}, {"dim", static_cast<std::int64_t>(d)}}, range));
    current = next;
  }
  return true;
}

// Cases 3 and 4: the one collective that does the whole change, if there is one.
std::optional<Instr> single_collective(const AxesPerDim& from, const AxesPerDim& target, ValueId in, ValueId result,
                                       const SourceRange& range) {
  std::vector<std::size_t> changed;
  for (std::size_t d = 0; d < from.size(); ++d)
    if (from[d] != target[d]) changed.push_back(d);
  // One dimension drops a suffix: an all_gather along it.
  if (changed.size() == 1) {
    const std::size_t a = changed[0];
    if (!is_prefix(target[a], from[a])) return std::nullopt;
    return Instr(OpKind::all_gather, {in}, {result},
                 {{"axes", suffix_after(target[a], from[a])}, {"axis", static_cast<std::int64_t>(a)}, {"tiled", true}},
                 range);
  }
  // One dimension drops a suffix that another appends: an all_to_all.
  if (changed.size() == 2) {
    for (int flip = 0; flip < 2; ++flip) {
      const std::size_t a = changed[flip], b = changed[1 - flip];
      if (!is_prefix(target[a], from[a]) || !is_prefix(from[b], target[b])) continue;
      const AxisList moved = suffix_after(target[a], from[a]);
      if (moved != suffix_after(from[b], target[b])) continue;
      return Instr(OpKind::all_to_all, {in}, {result},
                   {{"axes", moved},
                    {"split", static_cast<std::int64_t>(b)},
                    {"concat", static_cast<std::int64_t>(a)},
                    {"tiled", true}},
                   range);
    }
  }
  return std::nullopt;
}

void lower_reshard(Function& out, const Instr& instr) {
  const ValueId result = instr.output();
  ValueId input = instr.inputs()[0];
  // A pending sum is reduced first (a reduce-scatter where the target allows), then moved.
  if (const AxisList pending = out.values[static_cast<std::size_t>(input)].unreduced; !pending.empty()) {
    input = emit_partial_sum_reduction(out, input, pending, result, instr.range());
    if (input == result) return;
  }
  const AxesPerDim target = without_size_one_axes(*out.mesh, out.values[static_cast<std::size_t>(result)].spec);
  const AxesPerDim from = without_size_one_axes(*out.mesh, out.values[static_cast<std::size_t>(input)].spec);
  SHARDC_ASSERT(from.size() == target.size(), "lower_reshards: a reshard to another rank");
  if (from == target) {
    // A free reshard (same layout): keep the value under the result's id.
    out.body.push_back(Instr::make(OpKind::alias, {input}, {result}, {}, instr.range()));
    return;
  }
  if (lower_as_pieces(out, input, result, from, target, instr.range())) return;
  if (std::optional<Instr> one = single_collective(from, target, input, result, instr.range())) {
    out.body.push_back(std::make_shared<const Instr>(std::move(*one)));
    return;
  }
  out.body.push_back(Instr::make(OpKind::reshard_exchange, {input}, {result},
                                 {{"axes", axes_named(from, target)}, {"from", from}, {"to", target}},
                                 instr.range()));
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

#include "codegen/lowering_support.h"

#include <algorithm>

#include "frontend/internal_error.h"

namespace shardc::codegen {

std::vector<std::int64_t> block_shape(const check::Mesh& mesh, const std::vector<std::int64_t>& global,
                                      const std::vector<AxisList>& spec) {
  SHARDC_ASSERT(global.size() == spec.size(), "a sharding spec of another rank than its shape");
  std::vector<std::int64_t> shape = global;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    std::int64_t n = axes_size(mesh, spec[d]);
    SHARDC_ASSERT(n > 0 && shape[d] % n == 0, "dimension " + std::to_string(d) + " of size " +
                                                  std::to_string(shape[d]) + " does not divide over " +
                                                  axis_names(mesh, spec[d]));
    shape[d] /= n;
  }
  return shape;
}

Value with_spec(const check::Mesh& mesh, const Value& like, std::vector<AxisList> spec) {
  Value v = like;
  v.shape = block_shape(mesh, like.global_shape, spec);
  v.spec = std::move(spec);
  return v;
}

std::vector<AxisList> replicated_spec(int rank) { return std::vector<AxisList>(static_cast<std::size_t>(rank)); }

bool is_replicated(const std::vector<AxisList>& spec) {
  for (const AxisList& a : spec)
    if (!a.empty()) return false;
  return true;
}

Function empty_like(const Function& f) {
  Function out = f;
  out.body.clear();
  return out;
}

ValueId emit_reshard(Function& out, ValueId src, std::vector<AxisList> spec, const SourceRange& range) {
  const Value& v = out.values.at(static_cast<std::size_t>(src));
  if (v.spec == spec) return src;
  ValueId id = out.add_value(with_spec(*out.mesh, out.values[static_cast<std::size_t>(src)], spec));
  out.values[static_cast<std::size_t>(id)].name.clear();
  out.body.push_back(Instr::make(OpKind::reshard, {src}, {id}, {{"sharding", spec}}, range));
  return id;
}

Attrs axes_attrs(const AxisList& axes) { return Attrs{{"axes", axes}}; }

ValueId emit_partial_sum_reduction(Function& out, ValueId current, const AxisList& partial, ValueId result,
                                   const SourceRange& range) {
  const Value from = out.values[static_cast<std::size_t>(current)];  // copies: out.values grows below
  const std::vector<AxisList> target = out.values[static_cast<std::size_t>(result)].spec;
  AxisList sorted_partial = partial;
  std::sort(sorted_partial.begin(), sorted_partial.end());
  std::vector<AxisList> after = from.spec;
  Attrs attrs = axes_attrs(partial);
  OpKind kind = OpKind::psum;
  for (std::size_t d = 0; d < target.size(); ++d) {
    const AxisList& t = target[d];
    const AxisList& n = from.spec[d];
    // The target splits the dimension further: first over the partial axes (in any order), then
    // perhaps over others, which the caller's reshard adds from the scattered blocks (out=[(Y,X)]
    // of a partial over Y: scatter over Y, then a local split over X, a quarter of the traffic
    // of an all-reduce then a slice).
    if (t.size() < n.size() + partial.size() || !std::equal(n.begin(), n.end(), t.begin())) continue;
    const auto scattered_end = t.begin() + static_cast<std::ptrdiff_t>(n.size() + partial.size());
    AxisList added(t.begin() + static_cast<std::ptrdiff_t>(n.size()), scattered_end);
    AxisList sorted_added = added;
    std::sort(sorted_added.begin(), sorted_added.end());
    if (sorted_added != sorted_partial) continue;
    after[d] = AxisList(t.begin(), scattered_end);
    attrs = {{"axes", added}, {"dim", static_cast<std::int64_t>(d)}, {"tiled", true}};
    kind = OpKind::psum_scatter;
    break;
  }
  Value reduced = with_spec(*out.mesh, from, after);
  reduced.name.clear();
  reduced.unreduced.erase(std::remove_if(reduced.unreduced.begin(), reduced.unreduced.end(),
                                         [&](int a) { return std::binary_search(sorted_partial.begin(),
                                                                                sorted_partial.end(), a); }),
                          reduced.unreduced.end());
  const ValueId next =
      after == target && reduced.unreduced == out.values[static_cast<std::size_t>(result)].unreduced
          ? result
          : out.add_value(reduced);
  out.body.push_back(Instr::make(kind, {current}, {next}, attrs, range));
  return next;
}

}  // namespace shardc::codegen

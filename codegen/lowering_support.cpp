#include "codegen/lowering_support.h"

#include <algorithm>
#include <optional>

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
  auto in = [](const AxisList& list, int axis) { return std::find(list.begin(), list.end(), axis) != list.end(); };
  // An axis the partial blocks may be split by locally first: unused by them and not summed.
  auto free_to_split = [&](int axis) {
    if (in(partial, axis) || in(from.unreduced, axis)) return false;
    return std::none_of(from.spec.begin(), from.spec.end(), [&](const AxisList& dim) { return in(dim, axis); });
  };
  std::vector<AxisList> after = from.spec;
  Attrs attrs = axes_attrs(partial);
  OpKind kind = OpKind::psum;
  std::optional<std::size_t> scattered_dim;
  ValueId source = current;
  // Splits dimension d of `source`'s blocks further by `axes`, locally (take_piece: every
  // device of a reduction group keeps the same piece); `after` follows.
  std::vector<AxisList> source_spec = from.spec;  // `source`'s: `after` may hold the scatter's already
  auto split_locally = [&](std::size_t d, const AxisList& axes) {
    after[d].insert(after[d].end(), axes.begin(), axes.end());
    source_spec[d].insert(source_spec[d].end(), axes.begin(), axes.end());
    Value piece = with_spec(*out.mesh, out.values[static_cast<std::size_t>(source)], source_spec);
    piece.name.clear();
    const ValueId cut = out.add_value(piece);
    out.body.push_back(Instr::make(OpKind::take_piece, {source}, {cut},
                                   {{"axes", axes}, {"dim", static_cast<std::int64_t>(d)}}, range));
    source = cut;
  };
  // A reduce-scatter when the target splits one dimension further by the partial axes (in any
  // order), perhaps after other axes, which a local split of the partial blocks adds first
  // (every device of a reduce-scatter group takes the same piece), and perhaps before others,
  // which the caller's reshard adds after it. out=[(Y, X)] or [(X, Y)] of a product partial
  // over Y: scatter over Y and split by X locally, a quarter of an all-reduce's traffic.
  for (std::size_t d = 0; d < target.size() && kind == OpKind::psum; ++d) {
    const AxisList& t = target[d];
    const AxisList& n = from.spec[d];
    if (t.size() < n.size() + partial.size() || !std::equal(n.begin(), n.end(), t.begin())) continue;
    for (std::size_t first = n.size(); first + partial.size() <= t.size(); ++first) {
      const AxisList split_first(t.begin() + static_cast<std::ptrdiff_t>(n.size()),
                                 t.begin() + static_cast<std::ptrdiff_t>(first));
      if (!std::all_of(split_first.begin(), split_first.end(), free_to_split)) break;
      const auto scattered_end = t.begin() + static_cast<std::ptrdiff_t>(first + partial.size());
      AxisList added(t.begin() + static_cast<std::ptrdiff_t>(first), scattered_end);
      AxisList sorted_added = added;
      std::sort(sorted_added.begin(), sorted_added.end());
      if (sorted_added != sorted_partial) continue;
      if (!split_first.empty()) split_locally(d, split_first);
      after[d] = AxisList(t.begin(), scattered_end);
      attrs = {{"axes", added}, {"dim", static_cast<std::int64_t>(d)}, {"tiled", true}};
      kind = OpKind::psum_scatter;
      scattered_dim = d;
      break;
    }
  }
  // The target's further splits by axes free to split are taken locally first, so that only the
  // rows the device keeps are summed: for an all-reduce (out=[X, None] of a product contracted
  // over Y, its operands replicated over X: half the bytes over Y), and for a reduce-scatter
  // along the other dimensions (out=[X, Y] of a product contracted over X: the Y columns are
  // cut before the scatter over X, half its bytes). The scattered dimension's later axes come
  // after the scatter (the caller's reshard): cut first, they would order the blocks wrongly.
  {
    for (std::size_t d = 0; d < target.size(); ++d) {
      if (scattered_dim == d) continue;
      const AxisList& t = target[d];
      const AxisList& n = after[d];
      if (t.size() <= n.size() || !std::equal(n.begin(), n.end(), t.begin())) continue;
      AxisList split;
      for (std::size_t k = n.size(); k < t.size() && free_to_split(t[k]); ++k) split.push_back(t[k]);
      if (!split.empty()) split_locally(d, split);
    }
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
  out.body.push_back(Instr::make(kind, {source}, {next}, attrs, range));
  return next;
}

}  // namespace shardc::codegen

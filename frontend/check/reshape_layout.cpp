#include "frontend/check/reshape_layout.h"

#include "frontend/check/sharding_spec.h"

namespace shardc::check {

std::vector<ReshapeGroup> reshape_groups(const std::vector<std::int64_t>& old_sizes,
                                         const std::vector<std::int64_t>& new_sizes) {
  auto non_unit = [](const std::vector<std::int64_t>& sizes, std::int64_t& total) {
    std::vector<int> dims;
    total = 1;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      total *= sizes[i];  // callers' shapes are valid types: their element counts fit
      if (sizes[i] != 1) dims.push_back(static_cast<int>(i));
    }
    return dims;
  };
  std::int64_t old_total = 0, new_total = 0;
  const std::vector<int> olds = non_unit(old_sizes, old_total), news = non_unit(new_sizes, new_total);
  std::vector<ReshapeGroup> groups;
  if (old_total != new_total) return groups;
  if (old_total == 0) {
    // No products to match: only dimensions kept as they are correspond (JAX's rule for shapes
    // equal but for size-1 dimensions).
    bool same = olds.size() == news.size();
    for (std::size_t i = 0; same && i < olds.size(); ++i)
      same = old_sizes[static_cast<std::size_t>(olds[i])] == new_sizes[static_cast<std::size_t>(news[i])];
    if (same)
      for (std::size_t i = 0; i < olds.size(); ++i) groups.push_back({{olds[i]}, {news[i]}});
    return groups;
  }
  std::size_t a = 0, b = 0;
  while (a < olds.size() && b < news.size()) {
    ReshapeGroup g{{olds[a++]}, {news[b++]}};
    std::int64_t po = old_sizes[static_cast<std::size_t>(g.old_dims[0])];
    std::int64_t pn = new_sizes[static_cast<std::size_t>(g.new_dims[0])];
    while (po != pn) {  // both products stay <= the element count: no overflow, and they meet
      if (po < pn) {
        g.old_dims.push_back(olds[a++]);
        po *= old_sizes[static_cast<std::size_t>(g.old_dims.back())];
      } else {
        g.new_dims.push_back(news[b++]);
        pn *= new_sizes[static_cast<std::size_t>(g.new_dims.back())];
      }
    }
    groups.push_back(std::move(g));
  }
  return groups;
}

std::optional<std::vector<AxisList>> spread_axes(const Mesh& mesh, const AxisList& axes,
                                                 const std::vector<std::int64_t>& sizes) {
  std::vector<AxisList> out(sizes.size());
  std::size_t next = 0;
  int last = -1;
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    std::int64_t left = sizes[d];
    while (left > 1 && next < axes.size()) {
      const std::int64_t n = axes_product(mesh, {axes[next]});
      if (left % n != 0) return std::nullopt;
      left /= n;
      out[d].push_back(axes[next++]);
      last = static_cast<int>(d);
    }
  }
  for (; next < axes.size(); ++next) {
    if (axes_product(mesh, {axes[next]}) != 1 || last < 0) return std::nullopt;
    out[static_cast<std::size_t>(last)].push_back(axes[next]);
  }
  return out;
}

AxisList concatenated(const std::vector<AxisList>& specs) {
  AxisList all;
  for (const AxisList& s : specs) all.insert(all.end(), s.begin(), s.end());
  return all;
}

}  // namespace shardc::check

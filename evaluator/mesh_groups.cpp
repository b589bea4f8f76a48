#include "evaluator/mesh_groups.h"

#include <algorithm>
#include <map>

#include "frontend/internal_error.h"

namespace shardc::eval {

std::vector<std::int64_t> device_coords(const Mesh& mesh, std::int64_t device) {
  std::vector<std::int64_t> c(mesh.axis_sizes.size());
  for (int a = static_cast<int>(c.size()) - 1; a >= 0; --a) {
    c[a] = device % mesh.axis_sizes[a];
    device /= mesh.axis_sizes[a];
  }
  return c;
}

std::int64_t group_index(const Mesh& mesh, const AxisList& axes, std::int64_t device) {
  auto c = device_coords(mesh, device);
  std::int64_t index = 0;
  for (int a : axes) {
    SHARDC_ASSERT(a >= 0 && a < static_cast<int>(c.size()), "axis index out of range of the mesh");
    index = index * mesh.axis_sizes[a] + c[a];
  }
  return index;
}

std::vector<std::vector<std::int64_t>> groups(const Mesh& mesh, const AxisList& axes) {
  std::int64_t group_size = 1;
  for (int a : axes) group_size *= mesh.axis_sizes[a];
  // Key: the coordinates on the axes outside the group.
  std::map<std::vector<std::int64_t>, std::vector<std::int64_t>> by_rest;
  std::vector<std::vector<std::int64_t>> order;
  for (std::int64_t d = 0; d < mesh.device_count(); ++d) {
    auto c = device_coords(mesh, d);
    for (int a : axes) c[a] = -1;
    auto& members = by_rest[c];
    if (members.empty()) {
      members.assign(static_cast<std::size_t>(group_size), -1);
      order.push_back(c);
    }
    members[group_index(mesh, axes, d)] = d;
  }
  std::vector<std::vector<std::int64_t>> out;
  for (const auto& key : order) out.push_back(by_rest[key]);
  return out;
}

}  // namespace shardc::eval

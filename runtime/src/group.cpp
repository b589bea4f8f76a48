#include "shard/group.h"

#include "shard/errors.h"

namespace shard {

Axes::Axes(std::initializer_list<std::string_view> names) {
  for (auto n : names) push(n);
}

Axes::Axes(const std::vector<std::string>& names) {
  for (const auto& n : names) push(n);
}

void Axes::push(std::string_view name) {
  if (count_ == kMaxAxes) throw ArgumentError("at most " + std::to_string(kMaxAxes) + " axis names per collective");
  names_[count_++] = name;
}

std::string Axes::to_string() const {
  if (count_ == 1) return std::string(names_[0]);
  std::string s = "(";
  for (int i = 0; i < count_; ++i) {
    if (i) s += ',';
    s.append(names_[i]);  // appends, not "," + name: GCC 12 warns falsely (PR 105329) on that
  }
  return s + ")";
}

namespace {
// Mesh positions of the named axes, checked.
std::array<int, Axes::kMaxAxes> positions(const Mesh& mesh, const Axes& axes) {
  std::array<int, Axes::kMaxAxes> pos{};
  for (int i = 0; i < axes.size(); ++i) {
    pos[i] = mesh.axis_position(axes[i]);
    for (int j = 0; j < i; ++j)
      if (pos[j] == pos[i]) throw ArgumentError("axis '" + std::string(axes[i]) + "' is named twice in " + axes.to_string());
  }
  return pos;
}
}  // namespace

int axes_size(const Mesh& mesh, const Axes& axes) {
  const auto pos = positions(mesh, axes);
  int n = 1;
  for (int i = 0; i < axes.size(); ++i) n *= mesh.axes()[pos[i]].size;
  return n;
}

int axes_index(const Mesh& mesh, const Axes& axes, int device) {
  const auto pos = positions(mesh, axes);
  int index = 0;
  for (int i = 0; i < axes.size(); ++i) index = index * mesh.axes()[pos[i]].size + mesh.coord(device, pos[i]);
  return index;
}

Group make_group(const Mesh& mesh, const Axes& axes, int device) {
  const auto pos = positions(mesh, axes);
  Group g;
  g.axes = axes.to_string();
  const int n = axes_size(mesh, axes);
  g.rank = axes_index(mesh, axes, device);
  std::vector<int> coords = mesh.coords(device);
  g.members.resize(n);
  for (int linear = 0; linear < n; ++linear) {
    int rest = linear;
    for (int i = axes.size() - 1; i >= 0; --i) {  // last name varies fastest
      const int size = mesh.axes()[pos[i]].size;
      coords[pos[i]] = rest % size;
      rest /= size;
    }
    g.members[linear] = mesh.device_at(coords);
  }
  return g;
}

}  // namespace shard

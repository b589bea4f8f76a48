#include "shard/mesh.h"

#include <cstdint>
#include <limits>

#include "shard/errors.h"

namespace shard {

Mesh::Mesh(std::vector<MeshAxis> axes, int first_device) : axes_(std::move(axes)), first_device_(first_device) {
  if (first_device < 0) throw ArgumentError("mesh first device must be non-negative, got: " + std::to_string(first_device));
  for (std::size_t i = 0; i < axes_.size(); ++i) {
    if (axes_[i].name.empty()) throw ArgumentError("mesh axis " + std::to_string(i) + " has an empty name");
    if (axes_[i].size < 1)
      throw ArgumentError("mesh axis '" + axes_[i].name + "' must have a positive size, got: " + std::to_string(axes_[i].size));
    for (std::size_t j = 0; j < i; ++j)
      if (axes_[j].name == axes_[i].name) throw ArgumentError("mesh axis name '" + axes_[i].name + "' appears twice");
  }
  // Device ids are ints: the mesh's devices must be numbered within them.
  std::int64_t devices = 1;
  for (const auto& a : axes_) {
    devices *= a.size;
    if (devices > std::numeric_limits<int>::max() - std::int64_t{first_device})
      throw ArgumentError("a mesh of " + std::to_string(rank()) + " axes from device " + std::to_string(first_device) +
                          " numbers its devices beyond the largest int (axis '" + a.name + "' reaches " +
                          std::to_string(devices) + " devices)");
  }
  strides_.assign(axes_.size(), 1);
  for (int i = rank() - 1; i >= 0; --i) {
    strides_[i] = size_;
    size_ *= axes_[i].size;
  }
}

int Mesh::axis_position(std::string_view name) const {
  for (int i = 0; i < rank(); ++i)
    if (axes_[i].name == name) return i;
  throw ArgumentError("mesh " + to_string() + " has no axis named '" + std::string(name) + "'");
}

bool Mesh::has_axis(std::string_view name) const {
  for (const auto& a : axes_)
    if (a.name == name) return true;
  return false;
}

int Mesh::coord(int device, int axis_pos) const {
  if (!contains(device)) throw ArgumentError("device " + std::to_string(device) + " is not in mesh " + to_string());
  if (axis_pos < 0 || axis_pos >= rank())
    throw ArgumentError("axis position " + std::to_string(axis_pos) + " is out of range for mesh " + to_string() +
                        ", which has " + std::to_string(rank()) + (rank() == 1 ? " axis" : " axes"));
  return ((device - first_device_) / strides_[axis_pos]) % axes_[axis_pos].size;
}

std::vector<int> Mesh::coords(int device) const {
  std::vector<int> c(axes_.size());
  for (int i = 0; i < rank(); ++i) c[i] = coord(device, i);
  return c;
}

int Mesh::device_at(const std::vector<int>& coords) const {
  if (static_cast<int>(coords.size()) != rank())
    throw ArgumentError("mesh " + to_string() + " needs " + std::to_string(rank()) + " coordinates, got " +
                        std::to_string(coords.size()));
  int linear = 0;
  for (int i = 0; i < rank(); ++i) {
    if (coords[i] < 0 || coords[i] >= axes_[i].size)
      throw ArgumentError("coordinate " + std::to_string(coords[i]) + " is out of range for mesh axis '" + axes_[i].name +
                          "' of size " + std::to_string(axes_[i].size));
    linear += coords[i] * strides_[i];
  }
  return first_device_ + linear;
}

std::string Mesh::to_string() const {
  std::string s = "[";
  for (int i = 0; i < rank(); ++i) {
    if (i) s += ", ";
    s += axes_[i].name + ": " + std::to_string(axes_[i].size);
  }
  s += "]";
  if (first_device_ != 0) s += " devices " + std::to_string(first_device_) + ".." + std::to_string(end_device());
  return s;
}

}  // namespace shard

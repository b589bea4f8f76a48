// A mesh: named axes with sizes over a contiguous range of device ids, numbered row-major
// (the last axis varies fastest), as `mesh grid = [X: 4, Y: 2] devices 0..8;` declares it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace shard {

struct MeshAxis {
  std::string name;
  int size = 1;
  friend bool operator==(const MeshAxis&, const MeshAxis&) = default;
};

class Mesh {
 public:
  // Devices first_device .. first_device + product(sizes) (half-open). Throws ArgumentError for
  // an empty or duplicate axis name, a size < 1, a negative first device, or devices numbered
  // beyond the largest int.
  explicit Mesh(std::vector<MeshAxis> axes, int first_device = 0);
  // Copied, never moved from: a moved-from Mesh would keep its size with no axes, and every
  // Array or Sharding holding it would then disagree with itself. Meshes are a few names.
  Mesh(const Mesh&) = default;
  Mesh& operator=(const Mesh&) = default;

  const std::vector<MeshAxis>& axes() const { return axes_; }
  int rank() const { return static_cast<int>(axes_.size()); }
  int size() const { return size_; }  // number of devices
  int first_device() const { return first_device_; }
  int end_device() const { return first_device_ + size_; }
  bool contains(int device) const { return device >= first_device_ && device < end_device(); }

  // Position of the axis called `name`; throws ArgumentError naming the mesh otherwise.
  int axis_position(std::string_view name) const;
  bool has_axis(std::string_view name) const;
  int axis_size(std::string_view name) const { return axes_[static_cast<std::size_t>(axis_position(name))].size; }

  // The coordinate of `device` along each axis; throws ArgumentError if it is not in the mesh.
  std::vector<int> coords(int device) const;
  int coord(int device, int axis_pos) const;
  // The device at these coordinates (one per axis).
  int device_at(const std::vector<int>& coords) const;

  // "[dp: 4, tp: 2]", with " devices 4..8" when the mesh does not start at device 0.
  std::string to_string() const;

  friend bool operator==(const Mesh&, const Mesh&) = default;

 private:
  std::vector<MeshAxis> axes_;
  std::vector<int> strides_;  // row-major strides of the axes, in devices
  int first_device_ = 0;
  int size_ = 1;
};

}  // namespace shard

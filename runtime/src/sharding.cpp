#include "shard/sharding.h"

#include "shard/errors.h"
#include "shard/tensor.h"

namespace shard {

Sharding::Sharding(Mesh mesh, std::vector<DimAxes> dims) : mesh_(std::move(mesh)), dims_(std::move(dims)) {
  std::vector<bool> used(mesh_.rank(), false);
  for (const auto& axes : dims_)
    for (const auto& name : axes) {
      const int pos = mesh_.axis_position(name);  // throws for an unknown axis
      if (used[pos]) throw ArgumentError("mesh axis '" + name + "' is used twice in one sharding");
      used[pos] = true;
    }
}

Sharding Sharding::replicated(Mesh mesh, int rank) { return Sharding(std::move(mesh), std::vector<DimAxes>(rank)); }

const DimAxes& Sharding::dim_axes(int dim) const {
  if (dim < 0 || dim >= rank())
    throw ArgumentError("dimension " + std::to_string(dim) + " is out of range for a sharding of " +
                        std::to_string(rank()) + (rank() == 1 ? " dimension" : " dimensions"));
  return dims_[static_cast<std::size_t>(dim)];
}

int Sharding::split_count(int dim) const {
  int n = 1;
  for (const auto& name : dim_axes(dim)) n *= mesh_.axis_size(name);
  return n;
}

void Sharding::check_shape(const Shape& global) const {
  if (static_cast<int>(global.size()) != rank())
    throw ArgumentError("sharding has " + std::to_string(rank()) + " dimensions but the shape has " +
                        std::to_string(global.size()));
  for (int d = 0; d < rank(); ++d) {
    if (global[d] < 0) throw ShapeError("dimension " + std::to_string(d) + " has negative size " + std::to_string(global[d]));
    const int n = split_count(d);
    if (global[d] % n != 0) {
      std::string axes;
      for (const auto& name : dims_[d]) axes += (axes.empty() ? "" : ",") + name;
      throw ShapeError("array axis sizes are not evenly divisible by the corresponding mesh axis sizes: dimension " +
                       std::to_string(d) + " has size " + std::to_string(global[d]) + " but is split over (" + axes +
                       ") of size " + std::to_string(n));
    }
  }
}

Shape Sharding::block_shape(const Shape& global) const {
  check_shape(global);
  Shape block = global;
  for (int d = 0; d < rank(); ++d) block[d] /= split_count(d);
  return block;
}

int Sharding::piece_index(int dim, int device) const {
  int index = 0;
  for (const auto& name : dim_axes(dim)) {
    const int pos = mesh_.axis_position(name);
    index = index * mesh_.axes()[pos].size + mesh_.coord(device, pos);
  }
  return index;
}

Shape Sharding::block_offset(const Shape& global, int device) const {
  const Shape block = block_shape(global);
  Shape offset(block.size());
  for (int d = 0; d < rank(); ++d) offset[d] = piece_index(d, device) * block[d];
  return offset;
}

bool Sharding::is_primary_replica(int device) const {
  std::vector<bool> used(mesh_.rank(), false);
  for (const auto& axes : dims_)
    for (const auto& name : axes) used[mesh_.axis_position(name)] = true;
  for (int pos = 0; pos < mesh_.rank(); ++pos)
    if (!used[pos] && mesh_.coord(device, pos) != 0) return false;
  return true;
}

std::string Sharding::type_string(DType dtype, const Shape& global) const {
  std::string s(dtype_name(dtype));
  s += "[";
  for (std::size_t d = 0; d < global.size(); ++d) {
    if (d) s += ",";
    s += std::to_string(global[d]);
    if (d < dims_.size() && !dims_[d].empty()) {
      s += "@";
      if (dims_[d].size() == 1) {
        s += dims_[d][0];
      } else {
        s += "(";
        for (std::size_t i = 0; i < dims_[d].size(); ++i) s += (i ? "," : "") + dims_[d][i];
        s += ")";
      }
    }
  }
  return s + "]";
}

ArrayType::ArrayType(DType dtype_, Shape shape_, Sharding sharding_)
    : dtype(dtype_), shape(std::move(shape_)), sharding(std::move(sharding_)) {
  sharding.check_shape(shape);
  shape_numel(shape);  // throws for a count beyond int64, before from_host or to_host size anything by it
}

}  // namespace shard

// How a global array is laid out over a mesh: for each dimension, the mesh axes it is split over
// (major to minor), JAX's PartitionSpec. Axes named in no dimension replicate the array.
#pragma once

#include <string>
#include <vector>

#include "shard/dtype.h"
#include "shard/mesh.h"

namespace shard {

using DimAxes = std::vector<std::string>;  // empty: the dimension is not split

class Sharding {
 public:
  // Throws ArgumentError for an unknown axis or an axis used twice.
  Sharding(Mesh mesh, std::vector<DimAxes> dims);
  // Every dimension replicated (JAX's P()).
  static Sharding replicated(Mesh mesh, int rank);

  const Mesh& mesh() const { return mesh_; }
  int rank() const { return static_cast<int>(dims_.size()); }
  const std::vector<DimAxes>& dims() const { return dims_; }
  // The axes dimension `dim` is split over (ArgumentError outside [0, rank), as for every
  // member that takes a dimension).
  const DimAxes& dim_axes(int dim) const;
  // How many pieces dimension `dim` is split into (product of its axes' sizes).
  int split_count(int dim) const;

  // Throws ShapeError, in JAX's words, when the global shape does not fit this sharding.
  void check_shape(const Shape& global) const;
  Shape block_shape(const Shape& global) const;
  // The global index of the first element of `device`'s block.
  Shape block_offset(const Shape& global, int device) const;
  // Which piece of dimension `dim` the device holds (its axes' coordinates, linearised major to minor).
  int piece_index(int dim, int device) const;
  // True when `device` holds a block no lower-numbered device of its replica set holds:
  // its coordinate is 0 along every axis named in no dimension.
  bool is_primary_replica(int device) const;

  // JAX's notation for a type with this sharding: "float32[1024@dp,4096]", "f32[8@(tp,dp)]".
  std::string type_string(DType dtype, const Shape& global) const;

  friend bool operator==(const Sharding&, const Sharding&) = default;

 private:
  Mesh mesh_;
  std::vector<DimAxes> dims_;
};

// A sharded array's type: dtype, global shape and sharding.
struct ArrayType {
  DType dtype;
  Shape shape;
  Sharding sharding;

  // Checks the shape against the sharding (ShapeError) and the ranks (ArgumentError).
  ArrayType(DType dtype, Shape shape, Sharding sharding);
  Shape block_shape() const { return sharding.block_shape(shape); }
  std::string to_string() const { return sharding.type_string(dtype, shape); }
  friend bool operator==(const ArrayType&, const ArrayType&) = default;
};

}  // namespace shard

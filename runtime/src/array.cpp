#include "shard/array.h"

#include "copy_box.h"
#include "shard/runtime.h"

namespace shard {

Array::Array(ArrayType type, int addressable_devices, Fill fill) : type_(std::move(type)) {
  const Mesh& mesh = type_.sharding.mesh();
  if (mesh.end_device() > addressable_devices)
    throw ArgumentError("the mesh " + mesh.to_string() + " of " + type_.to_string() + " needs devices up to " +
                        std::to_string(mesh.end_device() - 1) + " but the runtime has " +
                        std::to_string(addressable_devices));
  blocks_.resize(mesh.size());
  if (fill == Fill::none) return;
  const Shape block_shape = type_.block_shape();
  for (int d = mesh.first_device(); d < mesh.end_device(); ++d) blocks_[slot(d)].emplace(type_.dtype, block_shape);
}

void Array::check_host_elements(const ArrayType& type, std::size_t element_size, std::size_t count) {
  if (element_size != dtype_size(type.dtype))
    throw ArgumentError("host elements of " + std::to_string(element_size) + (element_size == 1 ? " byte" : " bytes") +
                        " do not match " + type.to_string());
  if (count != static_cast<std::size_t>(shape_numel(type.shape)))
    throw ArgumentError("a host array of " + std::to_string(count) + " elements does not match " + type.to_string());
}

std::size_t Array::slot(int device) const {
  if (!holds_blocks()) throw ArgumentError("this array holds no blocks: it was moved from");
  if (!mesh().contains(device))
    throw ArgumentError("device " + std::to_string(device) + " is not in the mesh " + mesh().to_string() + " of " +
                        type_.to_string());
  return static_cast<std::size_t>(device - mesh().first_device());
}

bool Array::addressable(int device) const {
  return holds_blocks() && mesh().contains(device) && blocks_[slot(device)].has_value();
}

Tensor& Array::block(int device) {
  auto& b = blocks_[slot(device)];
  if (!b) throw ArgumentError("the block of device " + std::to_string(device) + " is not addressable in this process");
  return *b;
}

const Tensor& Array::block(int device) const { return const_cast<Array*>(this)->block(device); }

void Array::check_block(int device, const Tensor& block, const Shape& expected) const {
  if (block.dtype() != type_.dtype || block.shape() != expected)
    throw ShapeError("device " + std::to_string(device) + "'s block of " + type_.to_string() + " must be " +
                     std::string(dtype_name(type_.dtype)) + shape_string(expected) + ", got " + block.type_string() +
                     (block.data() == nullptr && shape_numel(expected) > 0 ? " (empty: was it moved from?)" : ""));
}

void Array::check_blocks() const {
  // Every generated call runs this on each argument: the block shape is computed once.
  const Shape expected = type_.block_shape();
  for (int d = mesh().first_device(); d < mesh().end_device(); ++d)
    if (const auto& b = blocks_[slot(d)]) check_block(d, *b, expected);
}

void Array::set_block(int device, Tensor block) {
  const std::size_t at = slot(device);
  check_block(device, block, type_.block_shape());
  blocks_[at] = std::move(block);
}

Array Array::from_blocks(const Runtime& rt, ArrayType type, std::vector<Tensor> blocks) {
  Array a(std::move(type), rt.num_devices(), Fill::none);
  const Mesh& mesh = a.mesh();
  if (static_cast<int>(blocks.size()) != mesh.size())
    throw ArgumentError("Array::from_blocks: " + a.type_.to_string() + " on mesh " + mesh.to_string() + " takes " +
                        std::to_string(mesh.size()) + " blocks, got " + std::to_string(blocks.size()));
  const Shape expected = a.type_.block_shape();
  for (int d = mesh.first_device(); d < mesh.end_device(); ++d) {
    Tensor& block = blocks[static_cast<std::size_t>(d - mesh.first_device())];
    a.check_block(d, block, expected);
    a.blocks_[a.slot(d)] = std::move(block);
  }
  return a;
}

Array Array::zeros(const Runtime& rt, ArrayType type) { return Array(std::move(type), rt.num_devices()); }

Array Array::from_host(const Runtime& rt, ArrayType type, const void* host) {
  // The one check the untyped form can make (of a size it cannot know).
  if (host == nullptr && shape_numel(type.shape) != 0)
    throw ArgumentError("from_host: the host pointer is null for " + type.to_string());
  Array a(std::move(type), rt.num_devices());
  const Shape& global = a.type_.shape;
  const Shape block_shape = a.type_.block_shape();
  const Shape zero(block_shape.size(), 0);
  for (int d = a.mesh().first_device(); d < a.mesh().end_device(); ++d) {
    if (!a.addressable(d)) continue;
    detail::copy_box(static_cast<const std::byte*>(host), global, a.type_.sharding.block_offset(global, d),
                     a.block(d).bytes(), block_shape, zero, block_shape, dtype_size(a.type_.dtype));
  }
  return a;
}

void Array::to_host(void* host) const {
  if (!holds_blocks()) throw ArgumentError("to_host: this array holds no blocks: it was moved from");
  if (host == nullptr && shape_numel(type_.shape) != 0)
    throw ArgumentError("to_host: the host pointer is null for " + type_.to_string());
  check_blocks();
  const Shape& global = type_.shape;
  const Shape block_shape = type_.block_shape();
  const Shape zero(block_shape.size(), 0);
  for (int d = mesh().first_device(); d < mesh().end_device(); ++d) {
    if (!type_.sharding.is_primary_replica(d)) continue;  // one copy of each block is enough
    if (!addressable(d))
      throw ArgumentError("to_host of " + type_.to_string() + " needs the block of device " + std::to_string(d) +
                          ", which this process does not address");
    detail::copy_box(block(d).bytes(), block_shape, zero, static_cast<std::byte*>(host), global,
                     type_.sharding.block_offset(global, d), block_shape, dtype_size(type_.dtype));
  }
}

}  // namespace shard

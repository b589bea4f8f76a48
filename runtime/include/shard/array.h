// A global sharded array: its type (dtype, global shape, sharding) and the blocks of the devices
// this process addresses. In-process every device of the mesh is addressable; nothing here
// assumes it, so an MPI backend can hold only its ranks' blocks. from_host/to_host are the only
// global-view operations.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <optional>
#include <vector>

#include "shard/errors.h"
#include "shard/sharding.h"
#include "shard/tensor.h"

namespace shard {

class Runtime;

class Array {
 public:
  // Zero-filled blocks for every addressable device of the type's mesh.
  static Array zeros(const Runtime& rt, ArrayType type);
  // Takes ownership of computed blocks: blocks[i] is the block of device mesh.first_device() + i,
  // one for every addressable device (no copy, no zero-fill: generated code assembles its results
  // this way after a call). ShapeError when a block's dtype or shape is not the type's.
  static Array from_blocks(const Runtime& rt, ArrayType type, std::vector<Tensor> blocks);
  // Cuts a row-major host array of the global shape into the addressable devices' blocks. Only
  // a null `host` (for a non-empty type) is caught: the size behind it cannot be checked.
  static Array from_host(const Runtime& rt, ArrayType type, const void* host);
  // The typed forms check that T can hold the dtype's elements: float for f32, a 4- or 8-byte
  // integer for i32 / i64, std::uint16_t (bit patterns) for bf16 and f16, a 1-byte integer
  // (std::uint8_t) for bool; anything else (an int vector for an f32 array, say) is an ArgumentError,
  // never a reinterpretation of the bits.
  template <class T>
  static Array from_host(const Runtime& rt, ArrayType type, const std::vector<T>& host) {
    static_assert(!std::is_same_v<T, bool>, "std::vector<bool> has no data(): use std::vector<std::uint8_t> for bool");
    check_host_type<T>(type);
    check_host_elements(type, sizeof(T), host.size());
    return from_host(rt, std::move(type), static_cast<const void*>(host.data()));
  }

  // Writes the global array, row-major, into `host` (numel * dtype size bytes). Needs one
  // addressable replica of every block (ArgumentError otherwise, as for a null `host`).
  void to_host(void* host) const;
  template <class T>
  std::vector<T> to_host() const {
    static_assert(!std::is_same_v<T, bool>, "std::vector<bool> has no data(): use std::vector<std::uint8_t> for bool");
    check_host_type<T>(type_);
    check_host_elements(type_, sizeof(T), static_cast<std::size_t>(shape_numel(type_.shape)));
    std::vector<T> out(static_cast<std::size_t>(shape_numel(type_.shape)));
    to_host(static_cast<void*>(out.data()));
    return out;
  }

  const ArrayType& type() const { return type_; }
  const Mesh& mesh() const { return type_.sharding.mesh(); }
  // False only for an Array that was moved from: every other use of it is an ArgumentError.
  bool holds_blocks() const { return !blocks_.empty(); }
  bool addressable(int device) const;
  // The block of `device`; ArgumentError when the device is not in the mesh or not addressable.
  // Write into it in place (its dtype and shape are the type's); replace it with set_block,
  // which checks: a block assigned through this reference is caught only by check_blocks.
  Tensor& block(int device);
  const Tensor& block(int device) const;
  // Replaces a block; ShapeError unless it has the type's dtype and block shape.
  void set_block(int device, Tensor block);
  // ShapeError unless every addressable block has the type's dtype and block shape. to_host and
  // the entry points of generated code check this before they read the blocks.
  void check_blocks() const;

 private:
  enum class Fill { zeros, none };
  // Blocks for every device of the mesh (all addressable in-process), zero-filled or left
  // empty for the caller to set.
  Array(ArrayType type, int addressable_devices, Fill fill = Fill::zeros);
  // ShapeError unless `block` has the type's dtype and the block shape `expected`.
  void check_block(int device, const Tensor& block, const Shape& expected) const;
  static void check_host_elements(const ArrayType& type, std::size_t element_size, std::size_t count);
  template <class T>
  static void check_host_type(const ArrayType& type) {
    bool fits = false;
    switch (type.dtype) {
      case DType::f32: fits = std::is_same_v<T, float>; break;
      case DType::i32:
      case DType::i64: fits = std::is_integral_v<T> && !std::is_same_v<T, bool>; break;
      case DType::bf16:
      case DType::f16: fits = std::is_same_v<T, std::uint16_t>; break;
      case DType::boolean: fits = std::is_integral_v<T> && sizeof(T) == 1; break;
    }
    if (!fits)
      throw ArgumentError(std::string("a host vector of ") + (std::is_floating_point_v<T> ? "floating-point" : "integer") +
                          " elements of " + std::to_string(sizeof(T)) + " bytes cannot hold the elements of " +
                          type.to_string() +
                          " (f32: float; i32/i64: a 4/8-byte integer; bf16/f16: uint16_t bit patterns; bool: uint8_t)");
  }
  std::size_t slot(int device) const;

  ArrayType type_;
  std::vector<std::optional<Tensor>> blocks_;  // one per mesh device, empty when not addressable
};

}  // namespace shard

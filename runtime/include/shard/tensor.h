// A local block: dtype, shape and an owned, contiguous, row-major, 64-byte aligned buffer.
// Tensors are values: copying copies the data; moving is cheap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "shard/dtype.h"

namespace shard {

std::int64_t shape_numel(const Shape& shape);  // throws ShapeError for a negative size
std::string shape_string(const Shape& shape);  // "(2, 3)"

class Tensor {
 public:
  Tensor() = default;  // an empty f32 tensor of shape (0)
  // Zero-filled.
  Tensor(DType dtype, Shape shape);
  // Uninitialised: for outputs that are about to be overwritten entirely.
  static Tensor uninitialized(DType dtype, Shape shape);
  // Copies numel * dtype_size bytes from `src`.
  static Tensor from_bytes(DType dtype, Shape shape, const void* src);

  Tensor(const Tensor& other);
  Tensor& operator=(const Tensor& other);
  // A moved-from Tensor is the empty one (f32, shape (0)), so that copying or checking it is
  // safe: a block moved out of an Array fails the Array's block check instead of crashing.
  // Neither allocates: the empty Tensor holds no shape vector (see is_empty_placeholder).
  Tensor(Tensor&& other) noexcept
      : dtype_(other.dtype_), shape_(std::move(other.shape_)), numel_(other.numel_), data_(std::move(other.data_)) {
    other.become_empty();
  }
  Tensor& operator=(Tensor&& other) noexcept {
    if (this != &other) {
      dtype_ = other.dtype_;
      shape_ = std::move(other.shape_);
      numel_ = other.numel_;
      data_ = std::move(other.data_);
      other.become_empty();
    }
    return *this;
  }

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return is_empty_placeholder() ? empty_shape() : shape_; }
  int rank() const { return static_cast<int>(shape().size()); }
  // ArgumentError for d outside [0, rank).
  std::int64_t dim(int d) const {
    if (d < 0 || d >= rank()) throw_dim_out_of_range(d);
    return shape()[static_cast<std::size_t>(d)];
  }
  std::int64_t numel() const { return numel_; }
  std::size_t nbytes() const { return static_cast<std::size_t>(numel_) * dtype_size(dtype_); }

  void* data() { return data_.get(); }
  const void* data() const { return data_.get(); }
  std::byte* bytes() { return static_cast<std::byte*>(data()); }
  const std::byte* bytes() const { return static_cast<const std::byte*>(data()); }
  // Typed access; throws ArgumentError when sizeof(T) does not match the dtype (bf16/f16 are
  // std::uint16_t bit patterns, bool is std::uint8_t or bool).
  template <class T>
  T* as() {
    check_element(sizeof(T));
    return static_cast<T*>(data());
  }
  template <class T>
  const T* as() const {
    check_element(sizeof(T));
    return static_cast<const T*>(data());
  }

  // Same data, new shape of equal element count (ShapeError otherwise).
  Tensor reshaped(Shape shape) &&;
  void fill_zero();
  bool same_bytes(const Tensor& other) const;  // equal dtype, shape and bytes
  std::string type_string() const;              // "int32(2, 3)"

 private:
  struct Free {
    std::size_t capacity;  // what the buffer was allocated with (src/block_cache.h)
    void operator()(void* p) const noexcept;
  };
  Tensor(DType dtype, Shape shape, bool zero);
  void become_empty() noexcept {
    dtype_ = DType::f32;
    shape_.clear();
    numel_ = 0;
    data_.reset();
  }
  // The empty Tensor keeps no shape (a one-element vector would cost an allocation at every
  // move): its shape_ is empty, which a scalar's is too, but a scalar has one element.
  bool is_empty_placeholder() const { return shape_.empty() && numel_ == 0; }
  static const Shape& empty_shape();  // (0)
  [[noreturn]] void throw_dim_out_of_range(int d) const;
  void check_element(std::size_t size) const;

  DType dtype_ = DType::f32;
  Shape shape_;  // empty, with numel_ 0: shape (0) (is_empty_placeholder)
  std::int64_t numel_ = 0;
  std::unique_ptr<void, Free> data_;
};

}  // namespace shard

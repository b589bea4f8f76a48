#include "shard/tensor.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

#include "block_cache.h"
#include "shard/errors.h"

namespace shard {

std::int64_t shape_numel(const Shape& shape) {
  std::int64_t n = 1;
  bool overflow = false;
  for (auto d : shape) {
    if (d < 0) throw ShapeError("shape " + shape_string(shape) + " has a negative dimension");
    overflow |= __builtin_mul_overflow(n, d, &n);
  }
  if (!overflow) return n;
  // A dimension of size 0 makes the count 0 whatever the others multiply to.
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 0;
  throw ShapeError("shape " + shape_string(shape) + " has more than 2^63 - 1 elements");
}

std::string shape_string(const Shape& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

void Tensor::Free::operator()(void* p) const noexcept { detail::free_block(p, capacity); }

Tensor::Tensor(DType dtype, Shape shape) : Tensor(dtype, std::move(shape), true) {}

Tensor::Tensor(DType dtype, Shape shape, bool zero) : dtype_(dtype), shape_(std::move(shape)) {
  numel_ = shape_numel(shape_);
  if (static_cast<std::uint64_t>(numel_) > std::numeric_limits<std::size_t>::max() / dtype_size(dtype_))
    throw ShapeError("a tensor " + type_string() + " takes more than 2^64 bytes");
  const std::size_t bytes = nbytes();
  if (bytes > 0) {
    data_ = std::unique_ptr<void, Free>(detail::allocate_block(bytes), Free{detail::block_capacity(bytes)});
    if (!data_) throw std::bad_alloc();
    if (zero) std::memset(data_.get(), 0, bytes);
  }
}

Tensor Tensor::uninitialized(DType dtype, Shape shape) { return Tensor(dtype, std::move(shape), false); }

Tensor Tensor::from_bytes(DType dtype, Shape shape, const void* src) {
  Tensor t(dtype, std::move(shape), false);
  if (t.nbytes()) std::memcpy(t.data(), src, t.nbytes());
  return t;
}

Tensor::Tensor(const Tensor& other) : Tensor(other.dtype_, other.shape(), false) {
  if (nbytes()) std::memcpy(data(), other.data(), nbytes());
}

Tensor& Tensor::operator=(const Tensor& other) {
  if (this != &other) {
    if (other.dtype_ == dtype_ && other.numel_ == numel_) {
      shape_ = other.shape_;  // same byte count: reuse the buffer
      if (nbytes()) std::memcpy(data(), other.data(), nbytes());
    } else {
      *this = Tensor(other);
    }
  }
  return *this;
}

const Shape& Tensor::empty_shape() {
  static const Shape empty{0};
  return empty;
}

void Tensor::throw_dim_out_of_range(int d) const {
  throw ArgumentError("dimension " + std::to_string(d) + " of " + type_string() + ", which has " +
                      std::to_string(rank()) + (rank() == 1 ? " dimension" : " dimensions"));
}

Tensor Tensor::reshaped(Shape shape) && {
  if (shape_numel(shape) != numel_)
    throw ShapeError("cannot reshape " + type_string() + " to " + shape_string(shape) + ": element counts differ");
  shape_ = std::move(shape);
  return std::move(*this);
}

void Tensor::fill_zero() {
  if (nbytes()) std::memset(data(), 0, nbytes());
}

bool Tensor::same_bytes(const Tensor& other) const {
  return dtype_ == other.dtype_ && shape() == other.shape() &&
         (nbytes() == 0 || std::memcmp(data(), other.data(), nbytes()) == 0);
}

std::string Tensor::type_string() const { return std::string(dtype_name(dtype_)) + shape_string(shape()); }

void Tensor::check_element(std::size_t size) const {
  if (size != dtype_size(dtype_))
    throw ArgumentError("a " + std::string(dtype_name(dtype_)) + " tensor cannot be read as " + std::to_string(size) +
                        "-byte elements");
}

}  // namespace shard

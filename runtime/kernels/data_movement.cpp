#include "shard/kernels/data_movement.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "checks.h"
#include "conversions.h"
#include "strided_loop.h"

namespace shard::kernels {
namespace {

template <typename From, typename To>
void convert_loop(const View& src, const MutView& dst) {
  detail::Operands<2> ops;
  ops.base = {static_cast<char*>(dst.data), static_cast<char*>(const_cast<void*>(src.data))};
  ops.strides = {dst.strides, src.strides};
  ops.element_size = {sizeof(typename To::Stored), sizeof(typename From::Stored)};
  detail::strided_loop(dst.shape, ops, [](std::int64_t n, std::array<char*, 2> p, std::array<std::int64_t, 2> s) {
    using TS = typename To::Stored;
    using FS = typename From::Stored;
    if (s[0] == sizeof(TS) && s[1] == sizeof(FS)) {
      auto* out = reinterpret_cast<TS*>(p[0]);
      const auto* in = reinterpret_cast<const FS*>(p[1]);
      for (std::int64_t i = 0; i < n; ++i) out[i] = To::store(detail::convert_value<From, To>(From::load(in[i])));
    } else {
      for (std::int64_t i = 0; i < n; ++i) {
        const auto v = From::load(*reinterpret_cast<const FS*>(p[1] + i * s[1]));
        *reinterpret_cast<TS*>(p[0] + i * s[0]) = To::store(detail::convert_value<From, To>(v));
      }
    }
  });
}

template <typename T>
void fill_typed(const MutView& dst, typename T::Stored stored) {
  detail::Operands<1> ops;
  ops.base = {static_cast<char*>(dst.data)};
  ops.strides = {dst.strides};
  ops.element_size = {sizeof(typename T::Stored)};
  detail::strided_loop(dst.shape, ops, [&](std::int64_t n, std::array<char*, 1> p, std::array<std::int64_t, 1> s) {
    for (std::int64_t i = 0; i < n; ++i) *reinterpret_cast<typename T::Stored*>(p[0] + i * s[0]) = stored;
  });
}

void check_starts(const Shape& operand, const Shape& sizes, const std::vector<std::int64_t>& starts, const char* op) {
  if (starts.size() != operand.size() || sizes.size() != operand.size()) {
    throw ShapeError(std::string(op) + ": operand " + shape_string(operand) + ", slice sizes " + shape_string(sizes) +
                     " and " + std::to_string(starts.size()) + " start indices must have one rank");
  }
  for (std::size_t d = 0; d < operand.size(); ++d) {
    if (sizes[d] > operand[d]) {
      throw ShapeError(std::string(op) + ": slice sizes " + shape_string(sizes) + " exceed operand shape " +
                       shape_string(operand) + " in dimension " + std::to_string(d));
    }
  }
}

// A same-dtype copy into a dense dst from a src whose elements along dst's last dimension are
// apart and along another dimension p side by side (a transpose): walked in 32 x 32 tiles of the
// (p, last) plane, so that each tile's source lines stay in cache while its destination rows are
// written. Element by element at the source's stride, a [1024, 1024] f32 transpose took 8x a
// oneDNN reorder. False when src and dst are not laid out so.
template <typename E>
bool copy_in_tiles(const View& src, const MutView& dst) {
  const std::size_t rank = dst.shape.size();
  if (rank < 2 || !dst.is_row_major() || src.strides[rank - 1] == 1 || dst.shape[rank - 1] < 32) return false;
  std::size_t p = rank;
  for (std::size_t d = 0; d + 1 < rank; ++d)
    if (src.strides[d] == 1 && dst.shape[d] >= 32) p = d;
  if (p == rank) return false;
  constexpr std::int64_t kTile = 32;
  const Shape dst_strides = row_major_strides(dst.shape);
  const std::int64_t rows = dst.shape[p], cols = dst.shape[rank - 1];
  const std::int64_t dst_row = dst_strides[p], src_col = src.strides[rank - 1];
  const auto* in = static_cast<const E*>(src.data);
  auto* out = static_cast<E*>(dst.data);
  // Every index of the other dimensions (all but p and the last), as an odometer.
  Shape index(rank, 0);
  while (true) {
    std::int64_t in_base = 0, out_base = 0;
    for (std::size_t d = 0; d + 1 < rank; ++d) {
      in_base += index[d] * src.strides[d];
      out_base += index[d] * dst_strides[d];
    }
    for (std::int64_t r0 = 0; r0 < rows; r0 += kTile)
      for (std::int64_t c0 = 0; c0 < cols; c0 += kTile) {
        const std::int64_t r_end = std::min(rows, r0 + kTile), c_end = std::min(cols, c0 + kTile);
        for (std::int64_t r = r0; r < r_end; ++r) {
          E* o = out + out_base + r * dst_row;
          const E* i = in + in_base + r;
          for (std::int64_t c = c0; c < c_end; ++c) o[c] = i[c * src_col];
        }
      }
    std::size_t d = rank - 1;  // advance the odometer over the dimensions other than p and last
    while (d-- > 0) {
      if (d == p) continue;
      if (++index[d] < dst.shape[d]) break;
      index[d] = 0;
    }
    if (d == static_cast<std::size_t>(-1)) return true;
  }
}

bool copy_in_tiles_any(const View& src, const MutView& dst) {
  switch (dtype_size(dst.dtype)) {
    case 1: return copy_in_tiles<std::uint8_t>(src, dst);
    case 2: return copy_in_tiles<std::uint16_t>(src, dst);
    case 4: return copy_in_tiles<std::uint32_t>(src, dst);
    case 8: return copy_in_tiles<std::uint64_t>(src, dst);
    default: return false;
  }
}

}  // namespace

std::int64_t clamp_start(std::int64_t start, std::int64_t dim, std::int64_t size) {
  if (start < 0) start += dim;
  return std::clamp<std::int64_t>(start, 0, dim - size);
}

void copy(const View& src, const MutView& dst) {
  detail::check_view(src, "copy", "source");
  detail::check_output(dst, "copy");
  detail::check_same_shape(src.shape, dst.shape, "copy");
  detail::check_no_overlap(dst, src, "copy", true);
  if (dst.size() == 0) return;
  if (src.dtype == dst.dtype && src.is_row_major() && dst.is_row_major()) {
    std::memmove(dst.data, src.data, static_cast<std::size_t>(dst.size()) * dtype_size(dst.dtype));
    return;
  }
  if (src.dtype == dst.dtype && copy_in_tiles_any(src, dst)) return;
  detail::dispatch(src.dtype, [&](auto from) {
    detail::dispatch(dst.dtype, [&](auto to) { convert_loop<decltype(from), decltype(to)>(src, dst); });
  });
}

void transpose(const View& src, const std::vector<int>& axes, const MutView& dst) { copy(src.permuted(axes), dst); }

void fill(const MutView& dst, double value) {
  detail::check_view(dst, "fill", "destination");
  detail::dispatch(dst.dtype, [&](auto tag) {
    using T = decltype(tag);
    typename T::Math m;
    if constexpr (std::is_same_v<T, detail::F32>) {
      m = static_cast<float>(value);
    } else if constexpr (detail::is_float_type<T>) {
      m = f64_to_f32_round_to_odd(value);  // then one rounding to 16 bits, as from the double
    } else if constexpr (std::is_same_v<T, detail::Bool>) {
      m = value != 0.0;
    } else {
      using M = typename T::Math;
      if (std::isnan(value)) {
        m = 0;
      } else if (value >= -static_cast<double>(std::numeric_limits<M>::min())) {
        m = std::numeric_limits<M>::max();
      } else if (value <= static_cast<double>(std::numeric_limits<M>::min())) {
        m = std::numeric_limits<M>::min();
      } else {
        m = static_cast<M>(value);
      }
    }
    fill_typed<T>(dst, T::store(m));
  });
}

void fill_int(const MutView& dst, std::int64_t value) {
  detail::check_view(dst, "fill", "destination");
  detail::dispatch(dst.dtype, [&](auto tag) {
    using T = decltype(tag);
    fill_typed<T>(dst, T::store(detail::convert_value<detail::I64, T>(value)));
  });
}

void iota(const MutView& dst, int axis) {
  detail::check_view(dst, "iota", "destination");
  const int ax = detail::normalize_axis(axis, dst.rank(), "iota");
  // 0, 1, ..., n - 1 once, read through a view that repeats it along the other dimensions
  // (stride 0) and copied with the dtype's conversion: one pass over dst. (Filling one constant
  // slice per index cost a call with its checks per element of a 1-D arange: 150 ms for 1M.)
  const std::int64_t n = dst.shape[static_cast<std::size_t>(ax)];
  std::vector<std::int64_t> indices(static_cast<std::size_t>(n));
  std::iota(indices.begin(), indices.end(), std::int64_t{0});
  Shape strides(dst.shape.size(), 0);
  strides[static_cast<std::size_t>(ax)] = 1;
  copy(View{indices.data(), DType::i64, dst.shape, std::move(strides)}, dst);
}

void dynamic_slice(const View& src, const std::vector<std::int64_t>& starts, const MutView& dst) {
  detail::check_view(src, "dynamic_slice", "operand");
  detail::check_view(dst, "dynamic_slice", "result");
  detail::check_same_dtype(src.dtype, dst.dtype, "dynamic_slice");
  copy(dynamic_window(src, starts, dst.shape), dst);
}

View dynamic_window(const View& src, const std::vector<std::int64_t>& starts, const Shape& sizes) {
  detail::check_view(src, "dynamic_slice", "operand");
  check_starts(src.shape, sizes, starts, "dynamic_slice");
  View window = src;
  for (std::size_t d = 0; d < src.shape.size(); ++d) {
    const auto size = sizes[d];
    window = window.sliced(static_cast<int>(d), clamp_start(starts[d], src.shape[d], size), size);
  }
  return window;
}

void dynamic_update_slice(const MutView& operand, const View& update, const std::vector<std::int64_t>& starts) {
  detail::check_view(operand, "dynamic_update_slice", "operand");
  detail::check_view(update, "dynamic_update_slice", "update");
  detail::check_same_dtype(operand.dtype, update.dtype, "dynamic_update_slice");
  check_starts(operand.shape, update.shape, starts, "dynamic_update_slice");
  MutView window = operand;
  for (std::size_t d = 0; d < operand.shape.size(); ++d) {
    const auto size = update.shape[d];
    window = window.sliced(static_cast<int>(d), clamp_start(starts[d], operand.shape[d], size), size);
  }
  copy(update, window);
}

void concat(const std::vector<View>& inputs, int axis, const MutView& dst) {
  detail::check_view(dst, "concat", "result");
  const int ax = detail::normalize_axis(axis, dst.rank(), "concat");
  std::int64_t at = 0;
  for (const View& in : inputs) {
    detail::check_view(in, "concat", "operand");
    detail::check_same_dtype(in.dtype, dst.dtype, "concat");
    Shape expected = dst.shape;
    expected[static_cast<std::size_t>(ax)] = in.rank() == dst.rank() ? in.shape[static_cast<std::size_t>(ax)] : -1;
    if (in.shape != expected || at + expected[static_cast<std::size_t>(ax)] > dst.shape[static_cast<std::size_t>(ax)]) {
      throw ShapeError("concat: operand " + shape_string(in.shape) + " does not fit result " + shape_string(dst.shape) +
                       " along axis " + std::to_string(ax));
    }
    const auto size = in.shape[static_cast<std::size_t>(ax)];
    copy(in, dst.sliced(ax, at, size));
    at += size;
  }
  if (at != dst.shape[static_cast<std::size_t>(ax)]) {
    throw ShapeError("concat: operands fill " + std::to_string(at) + " of the result's " +
                     std::to_string(dst.shape[static_cast<std::size_t>(ax)]) + " along axis " + std::to_string(ax));
  }
}

void roll(const View& src, std::int64_t shift, int axis, const MutView& dst) {
  detail::check_view(src, "roll", "operand");
  detail::check_same_dtype(src.dtype, dst.dtype, "roll");
  detail::check_same_shape(src.shape, dst.shape, "roll");
  const int ax = detail::normalize_axis(axis, src.rank(), "roll");
  const std::int64_t n = src.shape[static_cast<std::size_t>(ax)];
  if (n == 0) return;
  const std::int64_t s = ((shift % n) + n) % n;
  copy(src.sliced(ax, 0, n - s), dst.sliced(ax, s, n - s));
  copy(src.sliced(ax, n - s, s), dst.sliced(ax, 0, s));
}

}  // namespace shard::kernels

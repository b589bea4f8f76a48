// sort, argsort and top_k: one std::stable_sort / partial_sort of indices per row.
#include "shard/kernels/sort.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "checks.h"
#include "element_types.h"
#include "rows.h"
#include "sort_order.h"

namespace shard::kernels {
namespace {

void store_index(DType dtype, void* base, std::int64_t offset, std::int64_t value) {
  if (dtype == DType::i32) {
    static_cast<std::int32_t*>(base)[offset] = static_cast<std::int32_t>(value);
  } else {
    static_cast<std::int64_t*>(base)[offset] = value;
  }
}

void check_index_dtype(DType dtype, const char* op) {
  if (dtype != DType::i32 && dtype != DType::i64) {
    throw ArgumentError(std::string(op) + ": indices must be int32 or int64, got " + std::string(dtype_name(dtype)));
  }
}

// For each row along `axis`, the order of its elements: stable ascending, or (descending)
// stable by "greater", which equals jnp's reverse-sort-reverse for indices.
template <typename Fn>
void sorted_rows(const View& x, int axis, const Shape& out_strides, bool descending, Fn&& emit) {
  const auto ax = static_cast<std::size_t>(axis);
  const std::int64_t n = x.shape[ax];
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  detail::dispatch(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    const auto* xs = static_cast<const typename T::Stored*>(x.data);
    std::vector<typename T::Math> row(static_cast<std::size_t>(n));
    detail::for_each_row<2>(x.shape, axis, {&x.strides, &out_strides}, [&](std::array<std::int64_t, 2> at) {
      const std::int64_t xo = at[0], oo = at[1];
      for (std::int64_t i = 0; i < n; ++i) row[static_cast<std::size_t>(i)] = T::load(xs[xo + i * x.strides[ax]]);
      std::iota(order.begin(), order.end(), 0);
      auto value = [&](std::int64_t i) { return row[static_cast<std::size_t>(i)]; };
      if (descending) {
        std::stable_sort(order.begin(), order.end(),
                         [&](std::int64_t a, std::int64_t b) { return detail::sort_less(value(b), value(a)); });
      } else {
        std::stable_sort(order.begin(), order.end(),
                         [&](std::int64_t a, std::int64_t b) { return detail::sort_less(value(a), value(b)); });
      }
      emit(xo, oo, order);
    });
  });
}

void check_sort_args(const View& x, const MutView& out, const char* op) {
  detail::check_view(x, op, "operand");
  detail::check_output(out, op);
  detail::check_same_shape(x.shape, out.shape, op);
}

}  // namespace

void sort(const View& x, int axis, const MutView& out, bool descending) {
  check_sort_args(x, out, "sort");
  detail::check_same_dtype(x.dtype, out.dtype, "sort");
  const int ax = detail::normalize_axis(axis, x.rank(), "sort");
  if (x.size() == 0) return;
  const auto a = static_cast<std::size_t>(ax);
  const std::int64_t n = x.shape[a];
  const auto esize = static_cast<std::int64_t>(dtype_size(x.dtype));
  // jnp.sort(descending=True) is the ascending sort reversed: place element k at n - 1 - k.
  sorted_rows(x, ax, out.strides, false, [&](std::int64_t xo, std::int64_t oo, const std::vector<std::int64_t>& order) {
    for (std::int64_t k = 0; k < n; ++k) {
      const std::int64_t dst = descending ? n - 1 - k : k;
      std::memcpy(static_cast<char*>(out.data) + (oo + dst * out.strides[a]) * esize,
                  static_cast<const char*>(x.data) + (xo + order[static_cast<std::size_t>(k)] * x.strides[a]) * esize,
                  static_cast<std::size_t>(esize));
    }
  });
}

void argsort(const View& x, int axis, const MutView& indices, bool descending) {
  check_sort_args(x, indices, "argsort");
  check_index_dtype(indices.dtype, "argsort");
  const int ax = detail::normalize_axis(axis, x.rank(), "argsort");
  if (x.size() == 0) return;
  const auto a = static_cast<std::size_t>(ax);
  sorted_rows(x, ax, indices.strides, descending,
              [&](std::int64_t, std::int64_t oo, const std::vector<std::int64_t>& order) {
                for (std::size_t k = 0; k < order.size(); ++k) {
                  store_index(indices.dtype, indices.data, oo + static_cast<std::int64_t>(k) * indices.strides[a],
                              order[k]);
                }
              });
}

void top_k(const View& x, std::int64_t k, const MutView& values, const MutView& indices) {
  detail::check_view(x, "top_k", "operand");
  detail::check_view(values, "top_k", "values");
  detail::check_view(indices, "top_k", "indices");
  detail::check_same_dtype(x.dtype, values.dtype, "top_k");
  check_index_dtype(indices.dtype, "top_k");
  if (x.rank() < 1) throw ShapeError("top_k: the operand needs at least one dimension");
  const int ax = static_cast<int>(x.rank() - 1);
  const std::int64_t n = x.shape.back();
  if (k < 0 || k > n) {
    throw ShapeError("top_k: k = " + std::to_string(k) + " must lie in [0, " + std::to_string(n) +
                     "] for operand " + shape_string(x.shape));
  }
  Shape want = x.shape;
  want.back() = k;
  detail::check_same_shape(values.shape, want, "top_k");
  detail::check_same_shape(indices.shape, want, "top_k");
  if (values.size() == 0) return;
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  const auto esize = static_cast<std::int64_t>(dtype_size(x.dtype));
  detail::dispatch(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    const auto* xs = static_cast<const typename T::Stored*>(x.data);
    detail::for_each_row<3>(values.shape, ax, {&x.strides, &values.strides, &indices.strides},
                            [&](std::array<std::int64_t, 3> at) {
      const std::int64_t xo = at[0], vo = at[1], io = at[2];
      std::iota(order.begin(), order.end(), 0);
      auto value = [&](std::int64_t i) { return T::load(xs[xo + i * x.strides.back()]); };
      // Larger first; equal values by lower index. XLA's TopK compares in the total order of
      // floats, -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN (sort, like jnp.sort, takes
      // the zeros as equal and every NaN as the largest): a NaN with its sign bit set, as x86's
      // 0/0 and sqrt(-1) give, comes last.
      std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](std::int64_t a, std::int64_t b) {
        const auto va = value(a), vb = value(b);
        if constexpr (std::is_floating_point_v<decltype(va)>) {
          const int na = detail::nan_side(va), nb = detail::nan_side(vb);
          if (na != nb) return na > nb;
          if (na != 0) return a < b;  // NaNs of one sign: by index
          if (std::signbit(va) != std::signbit(vb) && va == 0 && vb == 0) return std::signbit(vb);
        }
        if (vb < va) return true;
        if (va < vb) return false;
        return a < b;
      });
      for (std::int64_t j = 0; j < k; ++j) {
        const std::int64_t src = order[static_cast<std::size_t>(j)];
        std::memcpy(static_cast<char*>(values.data) + (vo + j * values.strides.back()) * esize,
                    static_cast<const char*>(x.data) + (xo + src * x.strides.back()) * esize,
                    static_cast<std::size_t>(esize));
        store_index(indices.dtype, indices.data, io + j * indices.strides.back(), src);
      }
    });
  });
}

}  // namespace shard::kernels

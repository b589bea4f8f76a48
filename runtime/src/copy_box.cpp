#include "copy_box.h"

#include <cstdint>
#include <cstring>
#include <vector>

namespace shard::detail {

void copy_box(const std::byte* src, const Shape& src_shape, const Shape& src_offset, std::byte* dst,
              const Shape& dst_shape, const Shape& dst_offset, const Shape& extent, std::size_t element_size) {
  const int rank = static_cast<int>(extent.size());
  for (auto e : extent)
    if (e == 0) return;
  // Merge the innermost dimensions while the box spans them whole on both sides: they form one
  // contiguous run of `run` elements.
  int inner = rank;  // dimensions [inner, rank) are merged into the run
  std::int64_t run = 1;
  while (inner > 0) {
    const int d = inner - 1;
    run *= extent[d];
    --inner;
    if (extent[d] != src_shape[d] || extent[d] != dst_shape[d]) break;
  }
  // Row-major element strides.
  std::vector<std::int64_t> src_stride(rank + 1, 1), dst_stride(rank + 1, 1);
  for (int d = rank - 1; d >= 0; --d) {
    src_stride[d] = src_stride[d + 1] * src_shape[d];
    dst_stride[d] = dst_stride[d + 1] * dst_shape[d];
  }
  std::int64_t src_base = 0, dst_base = 0;
  for (int d = 0; d < rank; ++d) {
    src_base += src_offset[d] * src_stride[d + 1];
    dst_base += dst_offset[d] * dst_stride[d + 1];
  }
  // src_stride[d + 1] is the stride of dimension d.
  const std::size_t run_bytes = static_cast<std::size_t>(run) * element_size;
  if (inner == 0) {
    std::memcpy(dst + dst_base * element_size, src + src_base * element_size, run_bytes);
    return;
  }
  // Odometer over the outer dimensions [0, inner).
  std::vector<std::int64_t> index(inner, 0);
  while (true) {
    std::int64_t s = src_base, t = dst_base;
    for (int d = 0; d < inner; ++d) {
      s += index[d] * src_stride[d + 1];
      t += index[d] * dst_stride[d + 1];
    }
    std::memcpy(dst + t * element_size, src + s * element_size, run_bytes);
    int d = inner - 1;
    while (d >= 0 && ++index[d] == extent[d]) index[d--] = 0;
    if (d < 0) break;
  }
}

}  // namespace shard::detail

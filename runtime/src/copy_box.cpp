#include "copy_box.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "device_team.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace shard::detail {

void copy_streaming(std::byte* dst, const std::byte* src, std::size_t bytes) {
#if defined(__SSE2__)
  // An ordinary copy up to the first 16-byte boundary of dst, streaming stores from there, and
  // an ordinary copy of the tail.
  const std::size_t head = std::min(bytes, (16 - reinterpret_cast<std::uintptr_t>(dst) % 16) % 16);
  std::memcpy(dst, src, head);
  dst += head;
  src += head;
  bytes -= head;
  auto* d = reinterpret_cast<__m128i*>(dst);
  const auto* s = reinterpret_cast<const __m128i*>(src);
  const std::size_t vectors = bytes / 16;
  std::size_t i = 0;
  for (; i + 4 <= vectors; i += 4) {
    const __m128i a = _mm_loadu_si128(s + i), b = _mm_loadu_si128(s + i + 1);
    const __m128i c = _mm_loadu_si128(s + i + 2), e = _mm_loadu_si128(s + i + 3);
    _mm_stream_si128(d + i, a);
    _mm_stream_si128(d + i + 1, b);
    _mm_stream_si128(d + i + 2, c);
    _mm_stream_si128(d + i + 3, e);
  }
  for (; i < vectors; ++i) _mm_stream_si128(d + i, _mm_loadu_si128(s + i));
  std::memcpy(dst + vectors * 16, src + vectors * 16, bytes % 16);
#else
  std::memcpy(dst, src, bytes);
#endif
}

void streaming_fence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

void copy_box(const std::byte* src, Dims src_shape, Dims src_offset, std::byte* dst, Dims dst_shape, Dims dst_offset,
              Dims extent, std::size_t element_size, bool streaming) {
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
  DimScratch src_stride(rank + 1, 1), dst_stride(rank + 1, 1);
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
  auto copy_run = [&](std::int64_t t, std::int64_t s) {
    copy_bytes(dst + t * element_size, src + s * element_size, run_bytes, streaming);
  };
  if (inner == 0) {
    copy_run(dst_base, src_base);
    if (streaming) streaming_fence();
    return;
  }
  // Odometer over the outer dimensions [0, inner).
  DimScratch index(static_cast<std::size_t>(inner), 0);
  while (true) {
    std::int64_t s = src_base, t = dst_base;
    for (int d = 0; d < inner; ++d) {
      s += index[d] * src_stride[d + 1];
      t += index[d] * dst_stride[d + 1];
    }
    copy_run(t, s);
    int d = inner - 1;
    while (d >= 0 && ++index[d] == extent[d]) index[d--] = 0;
    if (d < 0) break;
  }
  if (streaming) streaming_fence();
}

void copy_box_part(const std::byte* src, Dims src_shape, Dims src_offset, std::byte* dst, Dims dst_shape,
                   Dims dst_offset, Dims extent, std::size_t element_size, bool streaming, int part, int parts) {
  if (parts <= 1) {
    copy_box(src, src_shape, src_offset, dst, dst_shape, dst_offset, extent, element_size, streaming);
    return;
  }
  if (extent.empty()) {  // a scalar: one element, copied by the first part
    if (part == 0) copy_box(src, src_shape, src_offset, dst, dst_shape, dst_offset, extent, element_size, streaming);
    return;
  }
  std::size_t cut = 0;
  while (cut + 1 < extent.size() && extent[cut] == 1) ++cut;
  const auto [begin, end] = part_range(extent[cut], part, parts);
  if (end <= begin) return;
  DimScratch slab(extent), from(src_offset), to(dst_offset);
  slab[cut] = end - begin;
  from[cut] += begin;
  to[cut] += begin;
  copy_box(src, src_shape, from, dst, dst_shape, to, slab, element_size, streaming);
}

}  // namespace shard::detail

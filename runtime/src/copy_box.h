// Copying rectangular boxes between row-major arrays: the one data-movement loop behind
// from_host/to_host, all_to_all and every chunked collective.
#pragma once

#include <cstddef>

#include "shard/dtype.h"

namespace shard::detail {

// Copies the box of size `extent` at `src_offset` inside the row-major array `src` (shape
// `src_shape`) to `dst_offset` inside `dst` (shape `dst_shape`). All shapes have one rank; the
// caller guarantees that both boxes lie inside their arrays. Contiguous inner runs become one memcpy.
void copy_box(const std::byte* src, const Shape& src_shape, const Shape& src_offset, std::byte* dst,
              const Shape& dst_shape, const Shape& dst_offset, const Shape& extent, std::size_t element_size);

}  // namespace shard::detail

#include "codegen/reshard_traffic.h"

#include <algorithm>

namespace shardc::codegen {
namespace {

using Coords = std::vector<std::int64_t>;  // one per mesh axis

Coords coords_of(const check::Mesh& mesh, std::int64_t device) {
  Coords c(mesh.axis_sizes.size());
  for (std::size_t a = mesh.axis_sizes.size(); a-- > 0;) {
    c[a] = device % mesh.axis_sizes[a];
    device /= mesh.axis_sizes[a];
  }
  return c;
}

// The [begin, end) element range of dimension `d` that a device at `c` holds under `spec`.
std::pair<std::int64_t, std::int64_t> range_of(const check::Mesh& mesh, const std::vector<std::int64_t>& global,
                                               const std::vector<AxisList>& spec, const Coords& c, std::size_t d) {
  std::int64_t index = 0, count = 1;
  for (int axis : spec[d]) {
    index = index * mesh.axis_sizes[static_cast<std::size_t>(axis)] + c[static_cast<std::size_t>(axis)];
    count *= mesh.axis_sizes[static_cast<std::size_t>(axis)];
  }
  const std::int64_t size = global[d] / count;
  return {index * size, (index + 1) * size};
}

}  // namespace

std::int64_t reshard_bytes_from_peers(const check::Mesh& mesh, const std::vector<std::int64_t>& global_shape,
                                      std::int64_t element_bytes, const std::vector<AxisList>& from,
                                      const std::vector<AxisList>& to) {
  // The holders a reader reads from are one per block of `from` (those sharing the reader's
  // coordinates off from's axes), and the blocks of `from` partition the array: together they
  // supply the reader's whole new block, the reader itself the part its old block overlaps.
  // So each reader takes (new block - own overlap) from peers, without visiting the pairs of
  // devices (a 256 x 256 mesh has 2^32 of them).
  const std::int64_t devices = mesh.device_count();
  std::int64_t most = 0;
  for (std::int64_t reader = 0; reader < devices; ++reader) {
    const Coords c = coords_of(mesh, reader);
    std::int64_t new_elements = 1, own_elements = 1;
    for (std::size_t d = 0; d < global_shape.size(); ++d) {
      auto [new_begin, new_end] = range_of(mesh, global_shape, to, c, d);
      auto [old_begin, old_end] = range_of(mesh, global_shape, from, c, d);
      new_elements *= new_end - new_begin;
      own_elements *= std::max<std::int64_t>(0, std::min(new_end, old_end) - std::max(new_begin, old_begin));
    }
    most = std::max(most, (new_elements - own_elements) * element_bytes);
  }
  return most;
}

}  // namespace shardc::codegen

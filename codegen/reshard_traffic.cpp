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
  std::vector<bool> named_by_from(mesh.axis_sizes.size(), false);
  for (const AxisList& dim : from)
    for (int axis : dim) named_by_from[static_cast<std::size_t>(axis)] = true;
  const std::int64_t devices = mesh.device_count();
  std::int64_t most = 0;
  for (std::int64_t reader = 0; reader < devices; ++reader) {
    const Coords rc = coords_of(mesh, reader);
    std::int64_t from_peers = 0;
    for (std::int64_t holder = 0; holder < devices; ++holder) {
      if (holder == reader) continue;
      const Coords hc = coords_of(mesh, holder);
      // Only the holder that shares the reader's coordinates off `from`'s axes is read.
      bool chosen = true;
      for (std::size_t a = 0; a < hc.size(); ++a)
        if (!named_by_from[a] && hc[a] != rc[a]) chosen = false;
      if (!chosen) continue;
      std::int64_t elements = 1;
      for (std::size_t d = 0; d < global_shape.size() && elements > 0; ++d) {
        auto [new_begin, new_end] = range_of(mesh, global_shape, to, rc, d);
        auto [old_begin, old_end] = range_of(mesh, global_shape, from, hc, d);
        elements *= std::max<std::int64_t>(0, std::min(new_end, old_end) - std::max(new_begin, old_begin));
      }
      from_peers += elements * element_bytes;
    }
    most = std::max(most, from_peers);
  }
  return most;
}

}  // namespace shardc::codegen

// --emit=layout: for each func/shard_map parameter and result, which devices hold which
// block, drawn like jax.debug.visualize_array_sharding: a box grid for 1-D and 2-D arrays
// (one cell per block, labelled with the ids of the devices holding it), a list of
// blocks for other ranks.
//
//   x: float32[8@X,4@Y] on grid [X: 4, Y: 2]
//   +------+------+
//   |  0   |  1   |     rows 0:2  ...
//   +------+------+
#include <algorithm>
#include <map>
#include <ostream>
#include <sstream>

#include "frontend/check/check.h"
#include "frontend/check/checked_module.h"
#include "frontend/check/sharding_spec.h"

namespace shardc::check {
namespace {

// The block index of `device` (mesh-local, row-major) along each dim of `t`.
std::vector<std::int64_t> block_of(const Type& t, std::int64_t device) {
  const Mesh& m = *t.mesh;
  std::vector<std::int64_t> coord(m.axis_sizes.size());
  for (int a = static_cast<int>(m.axis_sizes.size()) - 1; a >= 0; --a) {
    coord[a] = device % m.axis_sizes[a];
    device /= m.axis_sizes[a];
  }
  std::vector<std::int64_t> idx;
  for (const Dim& d : t.dims) {
    std::int64_t lin = 0;
    for (int a : d.axes) lin = lin * m.axis_sizes[a] + coord[a];
    idx.push_back(lin);
  }
  return idx;
}

std::string device_list(const std::vector<std::int64_t>& ids) {
  std::string s;
  for (std::size_t i = 0; i < ids.size(); ++i) s += (i ? "," : "") + std::to_string(ids[i]);
  return s;
}

void draw(const std::string& label, const Type& t, std::ostream& out) {
  out << label << ": " << to_string(t);
  if (t.kind != TypeKind::array || !t.mesh) {
    out << " (replicated on every device)\n";
    return;
  }
  const Mesh& m = *t.mesh;
  out << " on " << m.name << "\n";
  std::map<std::vector<std::int64_t>, std::vector<std::int64_t>> holders;
  for (std::int64_t d = 0; d < m.device_count(); ++d) holders[block_of(t, d)].push_back(m.first_device + d);
  if (t.rank() == 0 || t.rank() > 2) {
    for (const auto& [blk, ids] : holders) {
      out << "  block [";
      for (int i = 0; i < t.rank(); ++i) {
        std::int64_t n = axes_product(m, t.dims[i].axes), size = t.dims[i].size / n;
        out << (i ? ", " : "") << blk[i] * size << ":" << (blk[i] + 1) * size;
      }
      out << "] on devices " << device_list(ids) << "\n";
    }
    return;
  }
  std::int64_t rows = t.rank() == 2 ? axes_product(m, t.dims[0].axes) : 1;
  std::int64_t cols = axes_product(m, t.dims[t.rank() - 1].axes);
  // Very wide grids would be unreadable; a list says the same.
  std::vector<std::vector<std::string>> cell(rows, std::vector<std::string>(cols));
  std::size_t width = 1;
  for (const auto& [blk, ids] : holders) {
    std::int64_t r = t.rank() == 2 ? blk[0] : 0, c = blk[t.rank() - 1];
    cell[r][c] = device_list(ids);
    width = std::max(width, cell[r][c].size());
  }
  width += 2;
  std::string rule = "  +";
  for (std::int64_t c = 0; c < cols; ++c) rule += std::string(width, '-') + "+";
  out << rule << "\n";
  for (std::int64_t r = 0; r < rows; ++r) {
    out << "  |";
    for (std::int64_t c = 0; c < cols; ++c) {
      const std::string& s = cell[r][c];
      std::size_t left = (width - s.size()) / 2;
      out << std::string(left, ' ') << s << std::string(width - s.size() - left, ' ') << "|";
    }
    out << "\n" << rule << "\n";
  }
}

}  // namespace

void emit_layout(const CheckedModule& m, std::ostream& out) {
  for (const auto& f : m.functions) {
    out << ast::function_kind_name(f.kind) << " " << f.name << " on " << f.mesh->name << " (devices "
        << f.mesh->first_device << ".." << f.mesh->first_device + f.mesh->device_count() << ")\n";
    for (std::size_t i = 0; i < f.param_types.size(); ++i) draw("param " + f.param_names[i], f.param_types[i], out);
    for (std::size_t i = 0; i < f.result_types.size(); ++i) draw("result " + std::to_string(i), f.result_types[i], out);
    out << "\n";
  }
}

}  // namespace shardc::check

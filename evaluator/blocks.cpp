#include "evaluator/blocks.h"

#include <bit>

#include "evaluator/eval_error.h"
#include "evaluator/ops_elementwise.h"
#include "evaluator/ops_shape.h"
#include "frontend/internal_error.h"

namespace shardc::eval {

BlockPlace block_place(const Mesh& mesh, const Shape& global_shape, const Spec& spec, std::int64_t device) {
  if (spec.size() > global_shape.size())
    throw EvalError("a sharding spec of " + std::to_string(spec.size()) + " entries for shape " + shape_text(global_shape));
  BlockPlace p;
  for (std::size_t d = 0; d < global_shape.size(); ++d) {
    const AxisList empty;
    const AxisList& axes = d < spec.size() ? spec[d] : empty;
    std::int64_t parts = 1;
    for (int a : axes) parts *= mesh.axis_sizes.at(a);
    if (global_shape[d] % parts != 0)
      throw EvalError("dimension " + std::to_string(d) + " of size " + std::to_string(global_shape[d]) +
                      " does not divide over " + std::to_string(parts) + " devices");
    std::int64_t size = global_shape[d] / parts;
    p.starts.push_back(axes.empty() ? 0 : group_index(mesh, axes, device) * size);
    p.shape.push_back(size);
  }
  return p;
}

HostTensor block_of(const Mesh& mesh, const HostTensor& global, const Spec& spec, std::int64_t device) {
  BlockPlace p = block_place(mesh, global.shape, spec, device);
  std::vector<std::int64_t> limits(p.starts.size()), steps(p.starts.size(), 1);
  for (std::size_t d = 0; d < p.starts.size(); ++d) limits[d] = p.starts[d] + p.shape[d];
  return slice(global, p.starts, limits, steps);
}

HostTensor assemble(const Mesh& mesh, DType dtype, const Shape& global_shape, const Spec& spec,
                    const std::vector<HostTensor>& blocks, bool check_replicas, const std::string& what) {
  SHARDC_ASSERT(static_cast<std::int64_t>(blocks.size()) == mesh.device_count(), what + ": one block per device");
  HostTensor global = HostTensor::zeros(dtype, global_shape);
  std::vector<bool> written(static_cast<std::size_t>(global.size()), false);
  auto strides = strides_of(global_shape);
  for (std::int64_t d = 0; d < mesh.device_count(); ++d) {
    HostTensor block = blocks[d].dtype == dtype ? blocks[d] : convert(blocks[d], dtype);
    BlockPlace p = block_place(mesh, global_shape, spec, d);
    SHARDC_ASSERT(block.shape == p.shape, what + ": device " + std::to_string(d) + " holds a block of shape " +
                                              shape_text(block.shape) + " where " + shape_text(p.shape) + " belongs");
    std::vector<std::int64_t> c(p.shape.size(), 0);
    for (std::int64_t i = 0; i < block.size(); ++i) {
      std::int64_t g = 0;
      for (std::size_t k = 0; k < c.size(); ++k) g += (p.starts[k] + c[k]) * strides[k];
      if (!written[g]) {
        global.copy_element(g, block, i);
        written[g] = true;
      } else if (check_replicas) {
        bool same = global.is_float()
                        ? std::bit_cast<std::uint32_t>(global.floats[g]) == std::bit_cast<std::uint32_t>(block.floats[i])
                        : global.ints[g] == block.ints[i];
        SHARDC_ASSERT(same, what + ": device " + std::to_string(d) +
                                " holds a replica that differs from a lower device's, although the vma check proved "
                                "the value replicated");
      }
      for (int k = static_cast<int>(c.size()) - 1; k >= 0; --k) {
        if (++c[k] < p.shape[k]) break;
        c[k] = 0;
      }
    }
  }
  return global;
}

}  // namespace shardc::eval

// reshard: a device's block moves from one sharding of a global array to another. Every device
// works out from the two shardings alone which boxes of its new block come from which holder's
// old block, and which boxes of its old block each reader takes; the communicator only copies
// boxes, so no device ever assembles the global array.
#include <algorithm>
#include <string>
#include <vector>

#include "collective_plan.h"
#include "shard/errors.h"

namespace shard {

namespace {

// Per mesh axis: whether some dimension of `s` is split over it.
std::vector<bool> named_positions(const Sharding& s) {
  std::vector<bool> named(s.mesh().rank(), false);
  for (const auto& dim : s.dims())
    for (const auto& name : dim) named[s.mesh().axis_position(name)] = true;
  return named;
}

void check_arguments(Device& dev, const Tensor& block, const Shape& global, const Sharding& from,
                     const Sharding& to) {
  if (!(from.mesh() == to.mesh()))
    throw ArgumentError("reshard: `from` is a sharding over mesh " + from.mesh().to_string() +
                        " but `to` is one over mesh " + to.mesh().to_string());
  if (!(from.mesh() == dev.mesh()))
    throw ArgumentError("reshard: the shardings are over mesh " + from.mesh().to_string() +
                        " but this call runs on mesh " + dev.mesh().to_string());
  const auto rank = static_cast<int>(global.size());
  if (from.rank() != rank || to.rank() != rank)
    throw ShapeError("reshard: the global shape " + shape_string(global) + " has rank " + std::to_string(rank) +
                     " but `from` has " + std::to_string(from.rank()) + " dimensions and `to` has " +
                     std::to_string(to.rank()));
  for (const auto* s : {&from, &to}) {
    try {
      s->check_shape(global);
    } catch (const ShapeError& e) {
      throw ShapeError(std::string("reshard: `") + (s == &from ? "from" : "to") + "` does not fit the global shape " +
                       shape_string(global) + ": " + e.what());
    }
  }
  const Shape expected = from.block_shape(global);
  if (block.shape() != expected)
    throw ShapeError("reshard: the block is " + block.type_string() + " but " + from.type_string(block.dtype(), global) +
                     " gives every device a block of shape " + shape_string(expected));
}

// Whether every device's new block lies inside its own old block: in each dimension the axes of
// `to` begin with the axes of `from` (a finer split of the same pieces).
bool refines(const Sharding& from, const Sharding& to) {
  for (int d = 0; d < from.rank(); ++d) {
    const DimAxes& f = from.dims()[d];
    const DimAxes& t = to.dims()[d];
    if (f.size() > t.size() || !std::equal(f.begin(), f.end(), t.begin())) return false;
  }
  return true;
}

// Appends the box shared by an old block (at `old_offset` in the global array) and a new block
// (at `new_offset`), in the old block's and the new block's local coordinates; nothing if they
// do not meet.
void add_overlap(std::vector<BoxCopy>& list, int peer, const Shape& old_offset, const Shape& old_shape,
                 const Shape& new_offset, const Shape& new_shape) {
  const std::size_t rank = old_shape.size();
  BoxCopy box;
  box.peer = peer;
  box.src_offset.resize(rank);
  box.dst_offset.resize(rank);
  box.extent.resize(rank);
  for (std::size_t d = 0; d < rank; ++d) {
    const std::int64_t lo = std::max(old_offset[d], new_offset[d]);
    const std::int64_t hi = std::min(old_offset[d] + old_shape[d], new_offset[d] + new_shape[d]);
    if (hi <= lo) return;
    box.src_offset[d] = lo - old_offset[d];
    box.dst_offset[d] = lo - new_offset[d];
    box.extent[d] = hi - lo;
  }
  list.push_back(std::move(box));
}

detail::Plan reshard_plan(Device& dev, const Tensor& block, const Shape& global, const Sharding& from,
                          const Sharding& to) {
  check_arguments(dev, block, global, from, to);
  const Mesh& mesh = dev.mesh();
  const std::vector<bool> from_named = named_positions(from), to_named = named_positions(to);
  // The group: every axis either sharding names, in mesh order; only this device when no data
  // crosses devices.
  std::vector<std::string> names;
  if (!refines(from, to))
    for (int pos = 0; pos < mesh.rank(); ++pos)
      if (from_named[pos] || to_named[pos]) names.push_back(mesh.axes()[pos].name);

  detail::Plan plan;
  plan.group = &dev.group(Axes(names));
  plan.op.kind = CollectiveKind::reshard;
  plan.result_dtype = plan.wire_dtype = block.dtype();
  plan.result_shape = to.block_shape(global);
  plan.op.in_shape = block.shape();
  plan.op.out_shape = plan.result_shape;

  // Two devices pair up (one reads the other's old block) exactly when they agree on every axis
  // `from` does not name: among the devices holding a piece, a reader picks the one that shares
  // its own coordinates there, so a device reads itself whenever it holds the piece. The
  // relation is symmetric, so one pass gives both what this device receives and what it sends.
  const std::vector<int> mine = mesh.coords(dev.id());
  const Shape my_old = from.block_offset(global, dev.id());
  const Shape my_new = to.block_offset(global, dev.id());
  const Group& group = *plan.group;
  for (int k = 0; k < group.size(); ++k) {
    const int peer = group.members[k];
    const std::vector<int> theirs = mesh.coords(peer);
    bool pairs = true;
    for (int pos = 0; pos < mesh.rank() && pairs; ++pos) pairs = from_named[pos] || theirs[pos] == mine[pos];
    if (!pairs) continue;
    add_overlap(plan.receives, k, from.block_offset(global, peer), plan.op.in_shape, my_new, plan.op.out_shape);
    add_overlap(plan.sends, k, my_old, plan.op.in_shape, to.block_offset(global, peer), plan.op.out_shape);
  }
  return plan;
}

}  // namespace

Tensor reshard(Device& dev, const Tensor& block, const Shape& global_shape, const Sharding& from,
               const Sharding& to) {
  auto plan = reshard_plan(dev, block, global_shape, from, to);
  return detail::run_plan(dev, block, plan);
}

Pending start_reshard(Device& dev, const Tensor& block, const Shape& global_shape, const Sharding& from,
                      const Sharding& to) {
  return detail::start_plan(dev, block, reshard_plan(dev, block, global_shape, from, to));
}

}  // namespace shard

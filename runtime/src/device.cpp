#include "shard/device.h"

#include "shard/kernels/context.h"

namespace shard {

Device::Device(int id, Communicator& comm) : id_(id), comm_(&comm) {}
Device::~Device() = default;

kernels::Context& Device::kernels() {
  if (!kernels_) {
    kernels_ = std::make_unique<kernels::Context>();
    kernels_->set_compute_gate(gate_);
  }
  return *kernels_;
}

void Device::begin_call(const Mesh& mesh, std::uint64_t call_id) {
  call_id_ = call_id;
  mesh_ = &mesh;
  dropped_collective_ = false;
  if (!cached_for_ || !(*cached_for_ == mesh)) {
    cached_for_ = mesh;
    groups_.clear();
  }
}

const Group& Device::group(const Axes& axes) {
  for (const auto& cached : groups_) {
    if (static_cast<int>(cached->names.size()) != axes.size()) continue;
    bool same = true;
    for (int i = 0; i < axes.size() && same; ++i) same = cached->names[i] == axes[i];
    if (same) return cached->group;
  }
  auto entry = std::make_unique<CachedGroup>();
  entry->group = make_group(*mesh_, axes, id_);  // validates the names first
  for (auto name : axes) entry->names.emplace_back(name);
  groups_.push_back(std::move(entry));
  return groups_.back()->group;
}

}  // namespace shard

// What a device's part of a Runtime::run call sees: its id, the call's mesh, its coordinates,
// the groups it belongs to, and the communicator. Valid only inside the call.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "shard/communicator.h"
#include "shard/group.h"
#include "shard/mesh.h"

namespace shard {

namespace kernels {
class Context;
class ComputeGate;
}

class Device {
 public:
  Device(int id, Communicator& comm);
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  int id() const { return id_; }
  const Mesh& mesh() const { return *mesh_; }
  Communicator& comm() { return *comm_; }
  // JAX's axis_index / axis_size over one or several axes, linearised in the order given.
  int axis_index(const Axes& axes) const { return axes_index(*mesh_, axes, id_); }
  int axis_size(const Axes& axes) const { return axes_size(*mesh_, axes); }
  // This device's group for a collective over `axes`; computed once per mesh and cached, so the
  // reference stays valid for the whole call.
  const Group& group(const Axes& axes);
  // This device thread's kernels context (oneDNN stream and scratch), created on first use and
  // kept for the life of the Runtime.
  kernels::Context& kernels();

  // Used by the Runtime at the start of each call, with the call's id: unique in the process
  // over every Runtime.
  void begin_call(const Mesh& mesh, std::uint64_t call_id);
  // Which call this is: a Pending checks it, since a device of a later Runtime may live at the
  // address of one destroyed.
  std::uint64_t call_id() const { return call_id_; }
  // Set by a Pending of this device destroyed (or overwritten) without wait(), which aborts the
  // call: the Runtime reports this device as the one that failed.
  void note_dropped_collective() { dropped_collective_ = true; }
  bool dropped_collective() const { return dropped_collective_; }
  // Used by the Runtime before the first call: the gate this device's kernels pass through.
  void set_compute_gate(kernels::ComputeGate* gate) { gate_ = gate; }

 private:
  struct CachedGroup {
    std::vector<std::string> names;
    Group group;
  };
  int id_;
  Communicator* comm_;
  const Mesh* mesh_ = nullptr;
  std::optional<Mesh> cached_for_;  // the mesh the cached groups belong to
  std::vector<std::unique_ptr<CachedGroup>> groups_;
  std::unique_ptr<kernels::Context> kernels_;
  kernels::ComputeGate* gate_ = nullptr;
  bool dropped_collective_ = false;
  std::uint64_t call_id_ = 0;
};

}  // namespace shard

// Meshes and type builders shared by the checker's unit tests.
#pragma once

#include "frontend/check/types.h"

namespace shardc::check::testing {

// [dp: 4, tp: 2], explicit: the seeds' global_mesh.
inline const Mesh& dp_tp() {
  static const Mesh m{"global_mesh", {"dp", "tp"}, {4, 2}, false, 0};
  return m;
}
// [X: 4, Y: 2]
inline const Mesh& grid() {
  static const Mesh m{"grid", {"X", "Y"}, {4, 2}, false, 0};
  return m;
}
inline const Mesh& auto_grid() {
  static const Mesh m{"agrid", {"X", "Y"}, {4, 2}, true, 0};
  return m;
}
inline const Mesh& other() {
  static const Mesh m{"other", {"X"}, {4}, false, 4};
  return m;
}

// A global f32 array on `mesh`: arr(m, {{1024, {0}}, {4096, {}}}) is f32[1024@dp,4096].
inline Type arr(const Mesh& mesh, std::vector<Dim> dims, DType dt = DType::f32) { return make_array(dt, std::move(dims), &mesh); }
inline Type blk(const Mesh& mesh, std::vector<std::int64_t> shape, AxisSet varying, DType dt = DType::f32) {
  return make_local(dt, std::move(shape), &mesh, varying);
}
inline constexpr AxisSet bit(int a) { return AxisSet{1} << a; }

}  // namespace shardc::check::testing

// The checker's types: what every value of a .shard program is, in JAX's notation.
//
// An array value is seen either globally (inside a `func`: global shape, and per
// dimension the ordered list of mesh axes it is split over) or locally (inside a
// `shard_map` body: the per-device block's shape, and the set of mesh axes the
// block may vary over, JAX's "vma"). Static scalars carry their folded value.
//
//   float32[1024@dp,4096]        global, dim 0 split over dp
//   float32[1024@(dp,tp)]        global, dim 0 split over dp x tp (dp major)
//   float32[256,4096]{V:dp}      local block varying over dp (axes in mesh order)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "shard/dtype.h"

namespace shardc::check {

using shard::DType;

// Meshes hold at most this many axes, so an axis set fits in a bit mask.
inline constexpr int kMaxMeshAxes = 16;
// Arrays have at most this many dimensions (a located error beyond).
inline constexpr int kMaxRank = 16;

struct Mesh {
  std::string name;
  std::vector<std::string> axis_names;
  std::vector<std::int64_t> axis_sizes;
  bool auto_mode = false;          // declared `auto`: the compiler would choose shardings
  std::int64_t first_device = 0;   // devices first_device .. first_device + device_count()

  std::int64_t device_count() const;
  // Index of the axis named `name`, or nullopt.
  std::optional<int> find_axis(std::string_view name) const;
};

// Ordered mesh axes (indices into Mesh::axis_names), major first.
using AxisList = std::vector<int>;
// A set of mesh axes as a bit mask: bit i = axis i. Iterating bits gives mesh order.
using AxisSet = std::uint32_t;

AxisSet to_set(const AxisList& axes);
AxisList to_list(AxisSet set);  // in mesh order

struct Dim {
  std::int64_t size = 0;  // global size in a func, block size in a shard_map body
  AxisList axes;          // mesh axes this dimension is split over (global view only)
  bool operator==(const Dim&) const = default;
};

using StaticValue = std::variant<std::int64_t, double, bool>;

enum class TypeKind : std::uint8_t {
  array,          // a tensor (rank 0 included): global or local
  static_scalar,  // a compile-time scalar with a known value
  key,            // a PRNG key (replicated / invariant)
  tuple,          // several values, e.g. a call's results
};

struct Type {
  TypeKind kind = TypeKind::array;
  DType dtype = DType::f32;
  // JAX's weak type: a literal's dtype gives way to the other operand's.
  bool weak = false;
  std::vector<Dim> dims;
  const Mesh* mesh = nullptr;  // the mesh the array lives on (null for static values)
  bool local = false;          // true inside a shard_map body: dims are block dims
  AxisSet varying = 0;         // local values: the axes the value may vary over
  // Global values: the axes over which the value is a pending sum (JAX's unreduced, `{U:X}`):
  // each device holds a partial, and the value is their sum over these axes' groups.
  AxisSet unreduced = 0;
  std::optional<StaticValue> value;  // static scalars only
  std::vector<Type> elements;        // tuples only

  int rank() const { return static_cast<int>(dims.size()); }
  bool is_array() const { return kind == TypeKind::array; }
  bool is_static() const { return kind == TypeKind::static_scalar; }
  bool is_scalar_like() const { return kind == TypeKind::static_scalar || (kind == TypeKind::array && dims.empty()); }
  std::vector<std::int64_t> shape() const;
  // The union of the axes of all dims (global view).
  AxisSet sharded_axes() const;

  bool operator==(const Type& other) const;
};

// Constructors.
Type make_array(DType dtype, std::vector<Dim> dims, const Mesh* mesh);
Type make_local(DType dtype, std::vector<std::int64_t> shape, const Mesh* mesh, AxisSet varying);
Type make_static_int(std::int64_t v);     // weak int32, as a Python int
Type make_static_float(double v);         // weak float32, as a Python float
Type make_static_bool(bool v);
Type make_key(const Mesh* mesh, bool local = false);
Type make_tuple(std::vector<Type> elements);

// Printing, in JAX's notation (see the file comment). Static scalars print as
// `static int32 = 4`; keys as `key`; tuples as `(T1, T2)`.
std::string to_string(const Type& type);
// With the short dtype names (`i32[4@X,4]`): how JAX's "illegally sharded result" message prints
// its avals (str_short with short dtypes).
std::string to_short_string(const Type& type);
std::string format_axes(const Mesh& mesh, const AxisList& axes);   // dp or (dp,tp); empty list: None
std::string format_axis_set(const Mesh& mesh, AxisSet set);         // {dp, tp}
std::string format_type_suffix(const Mesh& mesh, char tag, AxisSet set);  // {V:dp,tp} or {U:dp}, mesh order
std::string format_spec(const Mesh& mesh, const std::vector<Dim>& dims);  // [dp, None]
std::string format_static(const StaticValue& v);

}  // namespace shardc::check

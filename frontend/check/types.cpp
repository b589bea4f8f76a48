#include "frontend/check/types.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string_view>

namespace shardc::check {

std::int64_t Mesh::device_count() const {
  std::int64_t n = 1;
  for (auto s : axis_sizes) n *= s;  // mesh sizes are validated with checked math when declared
  return n;
}

std::optional<int> Mesh::find_axis(std::string_view n) const {
  for (std::size_t i = 0; i < axis_names.size(); ++i)
    if (axis_names[i] == n) return static_cast<int>(i);
  return std::nullopt;
}

AxisSet to_set(const AxisList& axes) {
  AxisSet s = 0;
  for (int a : axes) s |= AxisSet{1} << a;
  return s;
}

AxisList to_list(AxisSet set) {
  AxisList out;
  while (set != 0) {
    int a = std::countr_zero(set);
    out.push_back(a);
    set &= set - 1;
  }
  return out;
}

std::vector<std::int64_t> Type::shape() const {
  std::vector<std::int64_t> s;
  s.reserve(dims.size());
  for (const auto& d : dims) s.push_back(d.size);
  return s;
}

AxisSet Type::sharded_axes() const {
  AxisSet s = 0;
  for (const auto& d : dims) s |= to_set(d.axes);
  return s;
}

bool Type::operator==(const Type& o) const {
  if (kind != o.kind) return false;
  switch (kind) {
    case TypeKind::tuple: return elements == o.elements;
    case TypeKind::key: return local == o.local && varying == o.varying;
    case TypeKind::static_scalar: return dtype == o.dtype && value == o.value;
    case TypeKind::array:
      return dtype == o.dtype && dims == o.dims && mesh == o.mesh && local == o.local && varying == o.varying &&
             unreduced == o.unreduced;
  }
  return false;
}

Type make_array(DType dtype, std::vector<Dim> dims, const Mesh* mesh) {
  Type t;
  t.kind = TypeKind::array;
  t.dtype = dtype;
  t.dims = std::move(dims);
  t.mesh = mesh;
  return t;
}

Type make_local(DType dtype, std::vector<std::int64_t> shape, const Mesh* mesh, AxisSet varying) {
  Type t;
  t.kind = TypeKind::array;
  t.dtype = dtype;
  for (auto s : shape) t.dims.push_back(Dim{s, {}});
  t.mesh = mesh;
  t.local = true;
  t.varying = varying;
  return t;
}

Type make_static_int(std::int64_t v) {
  Type t;
  t.kind = TypeKind::static_scalar;
  t.dtype = DType::i32;
  t.weak = true;
  t.value = v;
  return t;
}

Type make_static_float(double v) {
  Type t;
  t.kind = TypeKind::static_scalar;
  t.dtype = DType::f32;
  t.weak = true;
  t.value = v;
  return t;
}

Type make_static_bool(bool v) {
  Type t;
  t.kind = TypeKind::static_scalar;
  t.dtype = DType::boolean;
  t.value = v;
  return t;
}

Type make_key(const Mesh* mesh, bool local) {
  Type t;
  t.kind = TypeKind::key;
  t.mesh = mesh;
  t.local = local;
  return t;
}

Type make_tuple(std::vector<Type> elements) {
  Type t;
  t.kind = TypeKind::tuple;
  t.elements = std::move(elements);
  return t;
}

namespace {

// The axes' names in the given order, `separator` between them.
std::string joined_axis_names(const Mesh& mesh, const AxisList& axes, std::string_view separator) {
  std::string s;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    if (i) s += separator;
    s += mesh.axis_names.at(axes[i]);
  }
  return s;
}

}  // namespace

std::string format_axes(const Mesh& mesh, const AxisList& axes) {
  if (axes.empty()) return "None";
  if (axes.size() == 1) return mesh.axis_names.at(axes[0]);
  return "(" + joined_axis_names(mesh, axes, ",") + ")";
}

std::string format_axis_set(const Mesh& mesh, AxisSet set) {
  return "{" + joined_axis_names(mesh, to_list(set), ", ") + "}";
}

std::string format_type_suffix(const Mesh& mesh, char tag, AxisSet set) {
  return std::string("{") + tag + ":" + joined_axis_names(mesh, to_list(set), ",") + "}";
}

std::string format_spec(const Mesh& mesh, const std::vector<Dim>& dims) {
  std::string s = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ", ";
    s += format_axes(mesh, dims[i].axes);
  }
  return s + "]";
}

std::string format_static(const StaticValue& v) {
  if (auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  if (auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  // As Python's repr prints a float: the shortest text that reads back as the same double, with
  // a ".0" on a whole number (1.0 // 0.1 is 9.0; 1.0 % 0.1 is 0.09999999999999995, not 0.1).
  char buf[64];
  const double d = std::get<double>(v);
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
  std::string text(buf, ec == std::errc() ? end : buf);
  if (text.find_first_not_of("-0123456789") == std::string::npos) text += ".0";
  return text;
}

std::string to_short_string(const Type& t) {
  std::string s = to_string(t);
  if (t.kind == TypeKind::array)
    s.replace(0, shard::dtype_name(t.dtype).size(), shard::dtype_short_name(t.dtype));
  return s;
}

std::string to_string(const Type& t) {
  switch (t.kind) {
    case TypeKind::tuple: {
      std::string s = "(";
      for (std::size_t i = 0; i < t.elements.size(); ++i) {
        if (i) s += ", ";
        s += to_string(t.elements[i]);
      }
      return s + ")";
    }
    case TypeKind::key: {
      std::string s = "key";
      if (t.local && t.varying != 0 && t.mesh) s += format_type_suffix(*t.mesh, 'V', t.varying);
      return s;
    }
    case TypeKind::static_scalar: {
      // An int beyond int32 can only meet an int64 array (the checker rejects the rest), and
      // code generation materialises it so: say int64 rather than a dtype it does not fit.
      DType shown = t.dtype;
      if (const auto* i = std::get_if<std::int64_t>(&*t.value);
          i && shown == DType::i32 && (*i < INT32_MIN || *i > INT32_MAX))
        shown = DType::i64;
      return "static " + std::string(shard::dtype_name(shown)) + " = " + format_static(*t.value);
    }
    case TypeKind::array: break;
  }
  std::string s(shard::dtype_name(t.dtype));
  s += "[";
  for (std::size_t i = 0; i < t.dims.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(t.dims[i].size);
    if (!t.dims[i].axes.empty() && t.mesh) s += "@" + format_axes(*t.mesh, t.dims[i].axes);
  }
  s += "]";
  if (t.local && t.varying != 0 && t.mesh) s += format_type_suffix(*t.mesh, 'V', t.varying);
  if (!t.local && t.unreduced != 0 && t.mesh) s += format_type_suffix(*t.mesh, 'U', t.unreduced);
  return s;
}

}  // namespace shardc::check

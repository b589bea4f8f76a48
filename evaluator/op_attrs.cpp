#include "evaluator/op_attrs.h"

#include "frontend/internal_error.h"

namespace shardc::eval {
namespace {

template <typename T>
const T& get(const Op& op, const std::string& name, const char* kind) {
  auto it = op.attrs.find(name);
  SHARDC_ASSERT(it != op.attrs.end(), op_location(op) + " has no attribute '" + name + "'");
  const T* v = std::get_if<T>(&it->second);
  SHARDC_ASSERT(v != nullptr, op_location(op) + ": attribute '" + name + "' is not " + kind);
  return *v;
}

}  // namespace

std::string op_location(const Op& op) {
  std::string s = "op '" + op.name + "'";
  if (op.range.valid()) s += " at " + std::to_string(op.range.begin.line) + ":" + std::to_string(op.range.begin.column);
  return s;
}

bool has_attr(const Op& op, const std::string& name) { return op.attrs.count(name) != 0; }

std::int64_t attr_int(const Op& op, const std::string& name) { return get<std::int64_t>(op, name, "an int"); }

double attr_number(const Op& op, const std::string& name) {
  auto it = op.attrs.find(name);
  SHARDC_ASSERT(it != op.attrs.end(), op_location(op) + " has no attribute '" + name + "'");
  if (const auto* i = std::get_if<std::int64_t>(&it->second)) return static_cast<double>(*i);
  return get<double>(op, name, "a number");
}

bool attr_bool(const Op& op, const std::string& name) { return get<bool>(op, name, "a bool"); }

const std::string& attr_string(const Op& op, const std::string& name) {
  return get<std::string>(op, name, "a string");
}

const std::vector<std::int64_t>& attr_ints(const Op& op, const std::string& name) {
  return get<std::vector<std::int64_t>>(op, name, "a list of ints");
}

const check::AxisList& attr_axes(const Op& op, const std::string& name) {
  return get<check::AxisList>(op, name, "an axis group");
}

const check::Type& attr_type(const Op& op, const std::string& name) { return get<check::Type>(op, name, "a type"); }

}  // namespace shardc::eval

// Typed access to a checker op's attributes. A missing or mistyped attribute is a broken
// contract between the checker and the evaluator: an internal error naming the op, the
// attribute and the op's source line.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "frontend/check/checked_module.h"

namespace shardc::eval {

using check::Op;

std::string op_location(const Op& op);  // "op 'psum' at 12:9"

bool has_attr(const Op& op, const std::string& name);
std::int64_t attr_int(const Op& op, const std::string& name);
double attr_number(const Op& op, const std::string& name);  // an int or a double attribute
bool attr_bool(const Op& op, const std::string& name);
const std::string& attr_string(const Op& op, const std::string& name);
const std::vector<std::int64_t>& attr_ints(const Op& op, const std::string& name);
const check::AxisList& attr_axes(const Op& op, const std::string& name);
const check::Type& attr_type(const Op& op, const std::string& name);

}  // namespace shardc::eval

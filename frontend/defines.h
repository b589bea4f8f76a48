// `-D NAME=VALUE` overrides of module constants. Values are i64 integers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/diagnostics.h"

namespace shardc {

struct Define {
  std::string name;
  std::int64_t value;
};
using Defines = std::vector<Define>;

// Parses "NAME=VALUE" (NAME an identifier, VALUE a decimal i64, optionally negative).
// On failure reports an unlocated error naming the option and returns nullopt.
std::optional<Define> parse_define(std::string_view option, Diagnostics& diags);

}  // namespace shardc

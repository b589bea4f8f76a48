// `-D NAME=VALUE` overrides of module constants (docs/language.md, section 2.2). A value is
// an integer (decimal or hex, optional leading '-', within i64), a float, `true` or `false`;
// the checker matches it against the kind of the const it replaces.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "frontend/diagnostics.h"

namespace shardc {

struct Define {
  std::string name;
  std::variant<std::int64_t, double, bool> value;
  std::string text;  // the VALUE as written, for messages
};
using Defines = std::vector<Define>;

// Parses "NAME=VALUE". On failure reports an unlocated error naming the option and returns
// nullopt.
std::optional<Define> parse_define(std::string_view option, Diagnostics& diags);

// Parses every -D option of a command line; one naming a const an earlier one named is an
// error too (the last would otherwise win without a word).
Defines parse_defines(const std::vector<std::string>& options, Diagnostics& diags);

}  // namespace shardc

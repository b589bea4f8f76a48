#include "frontend/defines.h"

#include "frontend/identifier.h"
#include "frontend/number_parsing.h"

namespace shardc {
namespace {

bool is_hex(std::string_view s) { return s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'); }

}  // namespace

std::optional<Define> parse_define(std::string_view option, Diagnostics& diags) {
  std::string quoted = "-D " + std::string(option);
  auto eq = option.find('=');
  if (eq == std::string_view::npos) {
    diags.error({}, quoted + ": expected NAME=VALUE");
    return std::nullopt;
  }
  std::string_view name = option.substr(0, eq);
  std::string_view value = option.substr(eq + 1);
  if (!is_identifier(name)) {
    diags.error({}, quoted + ": '" + std::string(name) + "' is not a valid constant name");
    return std::nullopt;
  }
  Define define{std::string(name), std::int64_t{0}, std::string(value)};
  if (value == "true" || value == "false") {
    define.value = value == "true";
    return define;
  }
  auto not_a_number = [&] {
    diags.error({}, quoted + ": '" + std::string(value) + "' is not a number, true or false");
    return std::nullopt;
  };
  bool negative = !value.empty() && value[0] == '-';
  std::string_view magnitude = negative ? value.substr(1) : value;
  bool is_float = !is_hex(magnitude) && magnitude.find_first_of(".eE") != std::string_view::npos;
  if (is_float) {
    ParsedNumber<double> parsed = parse_float_literal(magnitude);
    if (parsed.status == NumberStatus::malformed) return not_a_number();
    if (parsed.status == NumberStatus::out_of_range) {
      diags.error({}, quoted + ": " + std::string(value) + " is too large for a float");
      return std::nullopt;
    }
    define.value = negative ? -parsed.value : parsed.value;
    return define;
  }
  ParsedNumber<std::uint64_t> parsed = parse_unsigned_literal(magnitude);
  if (parsed.status == NumberStatus::malformed) return not_a_number();
  // i64 holds magnitudes up to 2^63 - 1, and 2^63 when negative.
  std::uint64_t limit = negative ? std::uint64_t{1} << 63 : (std::uint64_t{1} << 63) - 1;
  if (parsed.status == NumberStatus::out_of_range || parsed.value > limit) {
    diags.error({}, quoted + ": " + std::string(value) + " does not fit in a 64-bit signed integer (i64)");
    return std::nullopt;
  }
  // Negating in unsigned arithmetic, then converting, is exact for every value (C++20).
  define.value = static_cast<std::int64_t>(negative ? 0 - parsed.value : parsed.value);
  return define;
}

Defines parse_defines(const std::vector<std::string>& options, Diagnostics& diags) {
  Defines defines;
  for (const std::string& option : options) {
    auto define = parse_define(option, diags);
    if (!define) continue;
    for (const Define& earlier : defines)
      if (earlier.name == define->name)
        diags.error({}, "-D " + define->name + " is given twice (" + earlier.text + " and " + define->text + ")");
    defines.push_back(*define);
  }
  return defines;
}

}  // namespace shardc

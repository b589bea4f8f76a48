#include "frontend/defines.h"

#include <charconv>
#include <cmath>

namespace shardc {
namespace {

bool is_identifier(std::string_view s) {
  if (s.empty()) return false;
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (!alpha(s[0])) return false;
  for (char c : s) {
    if (!alpha(c) && !digit(c)) return false;
  }
  return true;
}

// Digits of an integer or float with the language's `_` separators removed; nullopt when a
// separator starts or ends a digit run or two are adjacent (docs/language.md, section 1).
std::optional<std::string> strip_separators(std::string_view digits) {
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (digits[i] != '_') {
      out += digits[i];
      continue;
    }
    auto is_digit_like = [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; };
    if (i == 0 || i + 1 == digits.size() || !is_digit_like(digits[i - 1]) || !is_digit_like(digits[i + 1])) {
      return std::nullopt;
    }
  }
  return out;
}

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
  bool negative = !value.empty() && value[0] == '-';
  std::string_view magnitude = negative ? value.substr(1) : value;
  bool hex = magnitude.size() > 2 && magnitude[0] == '0' && (magnitude[1] == 'x' || magnitude[1] == 'X');
  std::optional<std::string> digits = strip_separators(hex ? magnitude.substr(2) : magnitude);
  if (!digits || digits->empty() || (hex && magnitude[2] == '_')) {
    diags.error({}, quoted + ": '" + std::string(value) + "' is not a number, true or false");
    return std::nullopt;
  }
  std::string text = (negative ? "-" : "") + *digits;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  bool is_float = !hex && text.find_first_of(".eE") != std::string::npos;
  if (is_float) {
    double parsed = 0;
    auto [end, ec] = std::from_chars(first, last, parsed);
    if (ec == std::errc::invalid_argument || end != last) {
      diags.error({}, quoted + ": '" + std::string(value) + "' is not a number, true or false");
      return std::nullopt;
    }
    if (ec == std::errc::result_out_of_range && std::fabs(parsed) > 1) {
      diags.error({}, quoted + ": " + std::string(value) + " is too large for a float");
      return std::nullopt;
    }
    define.value = ec == std::errc::result_out_of_range ? 0.0 : parsed;
    return define;
  }
  std::int64_t parsed = 0;
  std::errc ec;
  const char* end = nullptr;
  if (hex) {
    // from_chars with base 16 takes no sign and no prefix: parse the magnitude, then negate.
    std::uint64_t u = 0;
    auto r = std::from_chars(digits->data(), digits->data() + digits->size(), u, 16);
    ec = r.ec;
    end = r.ptr == digits->data() + digits->size() ? last : nullptr;
    std::uint64_t limit = negative ? (std::uint64_t{1} << 63) : (std::uint64_t{1} << 63) - 1;
    if (ec == std::errc() && u > limit) ec = std::errc::result_out_of_range;
    if (ec == std::errc()) parsed = negative ? static_cast<std::int64_t>(0 - u) : static_cast<std::int64_t>(u);
  } else {
    auto r = std::from_chars(first, last, parsed);
    ec = r.ec;
    end = r.ptr;
  }
  if (ec == std::errc::result_out_of_range) {
    diags.error({}, quoted + ": " + std::string(value) + " does not fit in a 64-bit signed integer (i64)");
    return std::nullopt;
  }
  if (ec != std::errc() || end != last) {
    diags.error({}, quoted + ": '" + std::string(value) + "' is not a number, true or false");
    return std::nullopt;
  }
  define.value = parsed;
  return define;
}

}  // namespace shardc

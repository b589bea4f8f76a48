#include "frontend/number_parsing.h"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>

namespace shardc {
namespace {

bool is_digit(char c, bool hex) {
  return hex ? std::isxdigit(static_cast<unsigned char>(c)) != 0 : (c >= '0' && c <= '9');
}

// Drops the `_` separators of a digit run; nullopt unless each stands between two digits.
std::optional<std::string> strip_separators(std::string_view digits, bool hex) {
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (digits[i] != '_') {
      out += digits[i];
      continue;
    }
    if (i == 0 || i + 1 == digits.size() || !is_digit(digits[i - 1], hex) || !is_digit(digits[i + 1], hex)) {
      return std::nullopt;
    }
  }
  return out;
}

}  // namespace

ParsedNumber<std::uint64_t> parse_unsigned_literal(std::string_view text) {
  ParsedNumber<std::uint64_t> result;
  bool hex = text.size() >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  std::string_view digits = hex ? text.substr(2) : text;
  std::optional<std::string> plain = strip_separators(digits, hex);
  if (!plain || plain->empty()) return result;
  for (char c : *plain) {
    if (!is_digit(c, hex)) return result;
  }
  auto [end, ec] = std::from_chars(plain->data(), plain->data() + plain->size(), result.value, hex ? 16 : 10);
  if (ec == std::errc::result_out_of_range) {
    result.status = NumberStatus::out_of_range;
  } else if (ec == std::errc() && end == plain->data() + plain->size()) {
    result.status = NumberStatus::ok;
  }
  return result;
}

ParsedNumber<double> parse_float_literal(std::string_view text) {
  ParsedNumber<double> result;
  if (text.empty() || !is_digit(text[0], false)) return result;
  // Separators may appear in the integer and fraction digits, never in the exponent.
  std::size_t exponent = text.find_first_of("eE");
  std::string_view mantissa = text.substr(0, exponent);
  std::string plain;
  std::size_t point = mantissa.find('.');
  for (std::string_view part : {mantissa.substr(0, point),
                                point == std::string_view::npos ? std::string_view{} : mantissa.substr(point + 1)}) {
    if (part.empty()) continue;
    std::optional<std::string> digits = strip_separators(part, false);
    if (!digits) return result;
    for (char c : *digits) {
      if (!is_digit(c, false)) return result;
    }
    if (!plain.empty() || point == 0) plain += '.';
    plain += *digits;
  }
  if (point != std::string_view::npos && (point + 1 == mantissa.size())) return result;  // "1." is not a literal
  if (exponent != std::string_view::npos) {
    std::string_view e = text.substr(exponent + 1);
    std::size_t i = !e.empty() && (e[0] == '+' || e[0] == '-') ? 1 : 0;
    if (i == e.size()) return result;
    for (std::size_t j = i; j < e.size(); ++j) {
      if (!is_digit(e[j], false)) return result;
    }
    plain += 'e';
    plain += e;
  }
  // strtod rather than from_chars: it tells overflow (HUGE_VAL) from underflow (tiny or 0).
  errno = 0;
  char* end = nullptr;
  result.value = std::strtod(plain.c_str(), &end);
  if (end != plain.c_str() + plain.size()) return result;
  if (std::isinf(result.value)) {
    result.status = NumberStatus::out_of_range;
    return result;
  }
  result.status = NumberStatus::ok;
  return result;
}

}  // namespace shardc

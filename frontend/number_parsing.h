// Numbers as the language writes them (docs/language.md, section 1): decimal or 0x hex
// integers and decimal floats, with `_` digit separators. Shared by the transformer
// (literals) and -D parsing so both accept exactly the same spellings.
#pragma once

#include <cstdint>
#include <string_view>

namespace shardc {

enum class NumberStatus { ok, malformed, out_of_range };

template <class T>
struct ParsedNumber {
  T value{};
  NumberStatus status = NumberStatus::malformed;
};

// "1024", "1_000", "0x1BD1_1BDA" -> the unsigned magnitude (no sign). out_of_range when it
// exceeds 2^64 - 1.
ParsedNumber<std::uint64_t> parse_unsigned_literal(std::string_view text);

// "1.5", "1e-5", "2.5E3", "1_000.25" (a digit first, no sign). out_of_range when the value
// overflows a double; values too small to represent round to zero, as in Python.
ParsedNumber<double> parse_float_literal(std::string_view text);

}  // namespace shardc

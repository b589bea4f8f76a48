// Whether a text is spelt as a name of the language: an ASCII letter or '_', then letters,
// digits and '_' (a -D name; a keyword the lexer did not make a name is spelt so too).
#pragma once

#include <string_view>

namespace shardc {

inline bool is_identifier(std::string_view s) {
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (s.empty() || !alpha(s[0])) return false;
  for (char c : s)
    if (!alpha(c) && !digit(c)) return false;
  return true;
}

}  // namespace shardc

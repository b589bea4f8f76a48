// The expectation comments of an example (examples/README.md), as written, for the two test
// suites that check them (the evaluator's, and the generated code's in tests/codegen):
//   // expect-value: REF TEXT      TEXT: the value as numpy prints it
//   // expect-equal: REF REF
// where REF is FUNC.return or FUNC.return.N. Header-only and dependency-free: the evaluator's
// tests link neither the runtime nor the code generator.
#pragma once

#include <cctype>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace expectations {

struct Line {
  std::string kind;      // "value" or "equal"
  std::string lhs, rhs;  // REF, and TEXT or REF
  int line = 0;          // 1-based, in the file
};

struct ResultRef {
  std::string function;
  int index = 0;  // `return` is result 0
};

namespace detail {
inline std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}
}  // namespace detail

// Every expectation line of `in`, in order. A line counts when, after leading blanks, it
// starts with "//", then "expect-value:" or "expect-equal:" (blanks allowed after "//"), then
// a REF and the rest (one more REF for expect-equal).
inline std::vector<Line> read_lines(std::istream& in) {
  std::vector<Line> out;
  int n = 0;
  for (std::string text; std::getline(in, text);) {
    ++n;
    std::string_view s = detail::trim(text);
    if (s.substr(0, 2) != "//") continue;
    s = detail::trim(s.substr(2));
    std::string kind;
    for (const char* k : {"value", "equal"})
      if (s.substr(0, 7 + std::string_view(k).size() + 1) == "expect-" + std::string(k) + ":") kind = k;
    if (kind.empty()) continue;
    s = detail::trim(s.substr(7 + kind.size() + 1));
    const std::size_t space = s.find_first_of(" \t");
    if (space == std::string_view::npos) continue;
    const std::string_view rest = detail::trim(s.substr(space));
    if (rest.empty() || (kind == "equal" && rest.find_first_of(" \t") != std::string_view::npos)) continue;
    out.push_back({kind, std::string(s.substr(0, space)), std::string(rest), n});
  }
  return out;
}

// FUNC.return or FUNC.return.N; nullopt for anything else (a binding's name, say).
inline std::optional<ResultRef> parse_result_ref(std::string_view text) {
  const std::size_t dot = text.find(".return");
  if (dot == 0 || dot == std::string_view::npos) return std::nullopt;
  const std::string_view function = text.substr(0, dot), tail = text.substr(dot + 7);
  if (std::isdigit(static_cast<unsigned char>(function.front()))) return std::nullopt;
  for (char c : function)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return std::nullopt;
  if (tail.empty()) return ResultRef{std::string(function), 0};
  if (tail.size() < 2 || tail.front() != '.' || tail.size() > 10) return std::nullopt;
  int index = 0;
  for (char c : tail.substr(1)) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    index = index * 10 + (c - '0');
  }
  return ResultRef{std::string(function), index};
}

}  // namespace expectations

#include "codegen/wrap_lines.h"

#include <optional>
#include <vector>

namespace shardc::codegen {
namespace {

struct Bracket {
  std::size_t open, close;  // positions of the bracket pair in the line
};

// The bracket pairs at nesting depth 0 and the positions of `//` outside literals, skipping
// string and character literals. Unbalanced brackets (the line continues a list) are ignored.
struct Scan {
  std::vector<Bracket> top;
  std::optional<std::size_t> comment;
};

Scan scan(std::string_view line) {
  Scan s;
  std::vector<std::size_t> stack;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '"' || c == '\'') {
      for (++i; i < line.size() && line[i] != c; ++i)
        if (line[i] == '\\') ++i;
      continue;
    }
    if (c == '/' && i + 1 < line.size() && line[i + 1] == '/') {
      s.comment = i;
      return s;
    }
    if (c == '(' || c == '{' || c == '[') stack.push_back(i);
    if (c == ')' || c == '}' || c == ']') {
      if (stack.empty()) continue;  // closes a bracket opened on an earlier line
      const std::size_t open = stack.back();
      stack.pop_back();
      if (stack.empty()) s.top.push_back({open, i});
    }
  }
  return s;
}

// The items of the list between `open` and `close`, split at its top-level commas and trimmed.
std::vector<std::string_view> list_items(std::string_view line, Bracket b) {
  std::vector<std::string_view> items;
  int depth = 0;
  std::size_t start = b.open + 1;
  auto push = [&](std::size_t end) {
    std::string_view item = line.substr(start, end - start);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    items.push_back(item);
  };
  for (std::size_t i = b.open + 1; i < b.close; ++i) {
    const char c = line[i];
    if (c == '"' || c == '\'') {
      for (++i; i < b.close && line[i] != c; ++i)
        if (line[i] == '\\') ++i;
      continue;
    }
    if (c == '(' || c == '{' || c == '[') ++depth;
    if (c == ')' || c == '}' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      push(i);
      start = i + 1;
    }
  }
  push(b.close);
  return items;
}

std::size_t indentation(std::string_view line) {
  const std::size_t n = line.find_first_not_of(' ');
  return n == std::string_view::npos ? line.size() : n;
}

void wrap_comment(std::string_view line, std::size_t width, std::vector<std::string>& out) {
  const std::string prefix = std::string(indentation(line), ' ') + "// ";
  std::string_view words = line.substr(prefix.size() <= line.size() ? prefix.size() : line.size());
  std::string current = prefix;
  while (!words.empty()) {
    const std::size_t end = words.find(' ');
    const std::string_view word = words.substr(0, end);
    words = end == std::string_view::npos ? std::string_view() : words.substr(end + 1);
    if (current.size() > prefix.size() && current.size() + 1 + word.size() > width) {
      out.push_back(current);
      current = prefix;
    }
    if (current.size() > prefix.size()) current += ' ';
    current += word;
  }
  out.push_back(current);
}

void wrap_code(std::string_view line, std::size_t width, std::vector<std::string>& out) {
  if (line.size() <= width || line.substr(indentation(line)).starts_with("#")) {
    out.emplace_back(line);
    return;
  }
  const Scan s = scan(line);
  if (line.substr(indentation(line)).starts_with("//")) {
    wrap_comment(line, width, out);
    return;
  }
  // The longest list with a comma in it; a trailing comment stays on its line, whole.
  std::optional<Bracket> best;
  std::vector<std::string_view> items;
  if (!s.comment)
    for (const Bracket& b : s.top) {
      std::vector<std::string_view> here = list_items(line, b);
      if (here.size() < 2 || (best && b.close - b.open <= best->close - best->open)) continue;
      best = b;
      items = std::move(here);
    }
  if (!best) {
    out.emplace_back(line);
    return;
  }
  // Aligned after the bracket, or, when that is far right, 4 spaces in with the bracket ending
  // the first line.
  const std::size_t indent = indentation(line);
  const bool hanging = best->open + 1 > width / 2 + indent;
  const std::size_t align = hanging ? indent + 4 : best->open + 1;
  std::vector<std::string> lines;
  std::string current(line.substr(0, best->open + 1));
  if (hanging) {
    lines.push_back(current);
    current = std::string(align, ' ');
  }
  const std::string_view tail = line.substr(best->close);
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string piece = std::string(items[i]) + (i + 1 < items.size() ? "," : std::string(tail));
    const bool fresh = current.size() == align || (!hanging && i == 0);
    if (!fresh && current.size() + 1 + piece.size() > width) {
      lines.push_back(current);
      current = std::string(align, ' ');
    } else if (!fresh) {
      current += ' ';
    }
    current += piece;
  }
  lines.push_back(current);
  for (const std::string& l : lines) {
    if (l.size() > width && l != line) wrap_code(l, width, out);
    else out.push_back(l);
  }
}

}  // namespace

std::string wrap_long_lines(std::string_view text, std::size_t width) {
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  std::vector<std::string> wrapped;
  for (std::size_t begin = 0; begin < text.size();) {
    std::size_t end = text.find('\n', begin);
    const bool newline = end != std::string_view::npos;
    if (!newline) end = text.size();
    wrapped.clear();
    wrap_code(text.substr(begin, end - begin), width, wrapped);
    for (std::size_t i = 0; i < wrapped.size(); ++i) {
      out += wrapped[i];
      if (i + 1 < wrapped.size() || newline) out += '\n';
    }
    begin = end + 1;
  }
  return out;
}

}  // namespace shardc::codegen

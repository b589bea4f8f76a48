// Line wrapping of the emitted C++: lines longer than a width are broken where a reader expects
// it, so that generated code reads like hand-written code in review and in a debugger.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace shardc::codegen {

inline constexpr std::size_t kGeneratedLineWidth = 100;

// Returns `text` with every line longer than `width` broken:
//  - a comment line (`// ...`) is word-wrapped into comment lines of the same indentation;
//  - a code line is broken after the commas of its longest bracketed list ((), {}, []), the
//    items packed greedily and aligned after the opening bracket (or 4 spaces in from the line
//    when that column is far right), and each new line is wrapped again the same way.
// Nothing is broken inside a string or character literal; preprocessor lines and code lines
// with a trailing `//` comment are left whole. A line that has no such list stays long.
std::string wrap_long_lines(std::string_view text, std::size_t width = kGeneratedLineWidth);

}  // namespace shardc::codegen

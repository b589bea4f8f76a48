// The note that explains why a `//` meant as a comment was read as floor division (the
// lexer's rule, grammar/Shard.g4's afterOperand): given by the parser's syntax errors and by
// the checker's "unknown name" where such a comment's first word became a divisor.
#pragma once

#include <string_view>

namespace shardc::syntax {

inline constexpr std::string_view kFloorDivisionNote =
    "'//' right after a value (a name, a number, ')' or ']') on the same line is floor division; a comment "
    "must start its own line or follow a token that ends no value, such as ';', '{' or ','";

}  // namespace shardc::syntax

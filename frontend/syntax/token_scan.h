// A pass over the whole token stream before parsing:
//  - reports lexical errors (invalid characters, unterminated strings),
//    which the lexer puts on a hidden channel so the parser recovers as if they were absent;
//  - measures nesting (open brackets plus runs of prefix operators) and stops at the limit,
//    so that the recursive-descent parser never recurses deeper than the limit allows.
#pragma once

#include <cstddef>
#include <vector>

#include "frontend/diagnostics.h"

namespace antlr4 {
class Token;
}

namespace shardc::syntax {

struct TokenScanResult {
  bool lexical_errors = false;
  bool too_deep = false;  // the parser must not run
};

// Token types: an opening or closing bracket ( [ {, ) ] }; a token that can end an operand
// (a name, a literal, a closing bracket, a dtype keyword): after one, `-`, `+` and `!` are
// binary operators rather than prefix ones, and an expression may be complete.
bool is_open(std::size_t type);
bool is_close(std::size_t type);
bool ends_operand(std::size_t type);

// False for a STRING token that the lexer matched without its closing quote.
bool is_terminated_string(const antlr4::Token* token);
// Whether a name has non-ASCII characters (masked bytes: parse.cpp), which scan_tokens reports.
bool is_non_ascii_name(const antlr4::Token* token);

TokenScanResult scan_tokens(const std::vector<antlr4::Token*>& tokens, const SourceFile& file, unsigned max_depth,
                            Diagnostics& diags);

}  // namespace shardc::syntax

// Prints AST nodes back as .shard source. Used by --emit=ast (types and expressions inline),
// by diagnostics that quote code, and by the parser round-trip tests: for every module m,
// parse(to_source(m)) prints to the same text again.
#pragma once

#include <string>

#include "frontend/ast.h"

namespace shardc::ast {

// Minimal parentheses: only where precedence or associativity needs them.
std::string to_source(const Expr& expr);
std::string to_source(const TypeAnnotation& type);
std::string to_source(const Pattern& pattern);
// A whole module, formatted: one declaration per paragraph, two-space indentation.
std::string to_source(const Module& module);

}  // namespace shardc::ast

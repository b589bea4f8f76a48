// --emit=ast: a stable, readable tree dump of a module, used by golden tests.
//
//   Module m
//     FunctionDecl func f on grid <3:1>
//       Param x: f32[8@X, 4] <3:8>
//       Result f32[8@X, 4]
//       BlockStmt <3:40>
//         ReturnStmt <4:3>
//           BinaryExpr + <4:10>
//             NameExpr x <4:10>
//             IntLiteral 1 <4:14>
//
// One node per line, children indented by two spaces, `<line:col>` of the node's start.
// Types and patterns are printed inline in source form (frontend/ast_source.h); labelled
// children (keyword arguments, slice bounds, if branches) get a `name:` line.
#pragma once

#include <iosfwd>

#include "frontend/ast.h"

namespace shardc::ast {

void print_ast(const Module& module, std::ostream& out);

}  // namespace shardc::ast

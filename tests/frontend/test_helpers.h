// Shared helpers of the front-end tests: parse a string, look at what came out.
#pragma once

#include <string>
#include <vector>

#include "frontend/ast.h"
#include "frontend/diagnostics.h"
#include "frontend/parse.h"

namespace shardc::test {

struct Parsed {
  std::unique_ptr<Diagnostics> diags = std::make_unique<Diagnostics>();
  std::unique_ptr<ast::Module> module;

  // "file:line:col: error: message" for every diagnostic, in order.
  std::vector<std::string> headlines() const {
    std::vector<std::string> out;
    for (const Diagnostic& d : diags->diagnostics()) out.push_back(diags->headline(d));
    return out;
  }
  std::string rendered() const { return diags->render(); }
};

inline Parsed parse_text(std::string_view text, const ParseLimits& limits = {}, std::string_view name = "t.shard") {
  Parsed p;
  p.module = parse(text, name, *p.diags, limits);
  return p;
}

// The body statements of the first function of a module.
inline const ast::BlockStmt& first_body(const ast::Module& m) {
  for (const auto& d : m.decls) {
    if (auto* f = ast::dyn_cast<ast::FunctionDecl>(d.get())) return *f->body;
  }
  throw std::runtime_error("no function in module");
}

// Parses `fn f() { return EXPR; }` and returns the returned expression.
inline const ast::Expr& returned_expr(const Parsed& p) {
  const auto& body = first_body(*p.module);
  auto* ret = ast::dyn_cast<ast::ReturnStmt>(body.statements.back().get());
  if (!ret || !ret->value) throw std::runtime_error("last statement is not `return EXPR;`");
  return *ret->value;
}

inline std::string wrap_expr(std::string_view expr) { return "fn f() { return " + std::string(expr) + "; }\n"; }

}  // namespace shardc::test

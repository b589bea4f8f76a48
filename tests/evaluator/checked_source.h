// Test helper: parses and checks .shard text, keeping the AST alive beside the checked
// module (the module points into it). On errors `errors` holds the rendered diagnostics.
#pragma once

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>

#include "frontend/check/check.h"
#include "frontend/check/checked_module.h"
#include "frontend/parse.h"

namespace shardc::eval::testing {

struct CheckedSource {
  std::unique_ptr<Diagnostics> diags = std::make_unique<Diagnostics>();
  std::unique_ptr<ast::Module> ast;
  std::shared_ptr<const check::CheckedModule> module;
  std::string errors;
};

inline CheckedSource check_source(std::string_view text, std::string_view name = "test.shard",
                                  const Defines& defines = {}) {
  CheckedSource s;
  s.ast = parse(text, name, *s.diags);
  if (s.ast) s.module = check::check(*s.ast, defines, *s.diags).module;
  if (s.diags->has_errors() || !s.module) {
    s.errors = s.diags->render();
    s.module.reset();
  }
  return s;
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace shardc::eval::testing

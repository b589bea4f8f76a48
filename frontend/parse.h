// The front end's entry point: .shard text in, AST out. Usable from a fuzzer: no global
// state, no exceptions escape, never exits; every problem becomes a located diagnostic.
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>

#include "frontend/ast.h"
#include "frontend/diagnostics.h"

namespace shardc {

struct ParseLimits {
  // 1 MiB: a pathological file of one-byte tokens costs ANTLR about 280 bytes per token,
  // so 16 MiB could need 2 GiB and tens of seconds; real programs are a few KiB.
  std::size_t max_file_bytes = std::size_t{1} << 20;
  unsigned max_nesting_depth = 200;                   // brackets and braces, checked before parsing
  unsigned max_ast_depth = 1000;                      // long operator/postfix/else-if chains
};

// Registers `text` under `filename` in diags.sources() and parses it. Returns the module,
// or null when the file had lexical, syntax or limit errors (all of them are reported).
std::unique_ptr<ast::Module> parse(std::string_view text, std::string_view filename, Diagnostics& diags,
                                   const ParseLimits& limits = {});

// The module name a file gets: its base name without directories and a `.shard` suffix
// ("<stdin>" becomes "stdin"), made into a valid identifier.
std::string module_name_for_file(std::string_view filename);

}  // namespace shardc

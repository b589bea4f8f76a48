// The interface between the driver (frontend/driver.*) and the type and sharding checker.
// The checker engineer owns this folder and may refine this header; the driver only relies
// on what is declared here.
#pragma once

#include <iosfwd>
#include <memory>

#include "frontend/ast.h"
#include "frontend/defines.h"
#include "frontend/diagnostics.h"

namespace shardc::check {

// Everything the checker learned about one module (types, static values, shardings),
// keyed by ast::NodeId. Defined by the checker.
class CheckedModule;

struct CheckResult {
  // Null when errors stopped the checker before it could describe the module.
  std::shared_ptr<const CheckedModule> module;
};

// Checks one parsed module with the -D overrides applied; reports every error into diags.
CheckResult check(const ast::Module& module, const Defines& defines, Diagnostics& diags);

// --emit=types: every binding with its type in JAX's notation (float32[1024@dp,4096],
// float32[256,4096]{V:dp}).
void emit_types(const CheckedModule& module, std::ostream& out);

// --emit=layout: for each function parameter and result, which devices hold which block.
void emit_layout(const CheckedModule& module, std::ostream& out);

}  // namespace shardc::check

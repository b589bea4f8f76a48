// The interface between the driver (frontend/driver.*) and the type and sharding checker.
// The checker engineer owns this folder and may refine this header; the driver only relies
// on what is declared here.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>

#include "frontend/ast.h"
#include "frontend/defines.h"
#include "frontend/diagnostics.h"

namespace shardc::check {

// Everything the checker learned about one module (types, static values, shardings),
// keyed by ast::NodeId. Defined by the checker.
class CheckedModule;

// Limits that a caller may lower (section 13.3 of docs/language.md gives the defaults).
struct CheckOptions {
  // Ops one function may unroll to (for loops unrolled, fn calls inlined). The fuzzer lowers
  // it: under ASan an input near the default takes ~25 s, which libFuzzer reports as a hang,
  // while the limit's code path is the same at 20,000 ops.
  std::int64_t max_unrolled_ops = 1'000'000;
};

struct CheckResult {
  // Null when errors stopped the checker before it could describe the module.
  std::shared_ptr<const CheckedModule> module;
};

// Checks one parsed module with the -D overrides applied; reports every error into diags.
CheckResult check(const ast::Module& module, const Defines& defines, Diagnostics& diags,
                  const CheckOptions& options = {});

// --emit=types: every binding with its type in JAX's notation (float32[1024@dp,4096],
// float32[256,4096]{V:dp}).
void emit_types(const CheckedModule& module, std::ostream& out);

// --emit=layout: for each function parameter and result, which devices hold which block.
void emit_layout(const CheckedModule& module, std::ostream& out);

}  // namespace shardc::check

// libFuzzer target of the front end: any byte string goes through parse -> check (and the
// --emit=types/layout printers when checking succeeds) exactly as `shardc --check` runs it,
// then through code generation as `shardc --emit=cpp` runs it (lowering passes and emitter:
// its memory errors need a sanitizer to show, not a wrong-looking output).
// The front end's contract (frontend/parse.h, docs/language.md "Limits"): every input gives
// either a module or located diagnostics; it never crashes, hangs, leaks an exception or
// trips a sanitizer. This target turns each broken promise into a libFuzzer crash:
//   - an exception escaping parse() or check() (std::terminate aborts),
//   - an "internal compiler error" diagnostic (a broken invariant, caught and reported),
//   - an error diagnostic without a source location (every error about a file is located).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>

#include "codegen/generate.h"
#include "frontend/check/check.h"
#include "frontend/diagnostics.h"
#include "frontend/parse.h"

namespace {

[[noreturn]] void report_bug(const char* what, const shardc::Diagnostics& diags) {
  std::fprintf(stderr, "frontend_fuzzer: %s\n%s\n", what, diags.render().c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  shardc::Diagnostics diags;
  std::unique_ptr<shardc::ast::Module> module = shardc::parse(text, "fuzz.shard", diags);
  if (module) {
    // The unroll limit's path at 20,000 ops, well inside the per-input timeout under ASan.
    shardc::check::CheckResult checked =
        shardc::check::check(*module, shardc::Defines{}, diags, {.max_unrolled_ops = 20'000});
    if (checked.module && !diags.has_errors()) {
      std::ostringstream sink;
      shardc::check::emit_types(*checked.module, sink);
      shardc::check::emit_layout(*checked.module, sink);
      shardc::codegen::GenerateRequest request;
      request.emit_cpp = true;
      shardc::codegen::generate(checked.module, request, sink, diags);
    }
  } else if (!diags.has_errors()) {
    report_bug("parse() returned no module and reported no error", diags);
  }

  for (const shardc::Diagnostic& d : diags.diagnostics()) {
    if (d.message.find("internal compiler error") != std::string::npos) {
      report_bug("internal compiler error", diags);
    }
    if (d.severity == shardc::Severity::error && !d.range.valid()) {
      report_bug("error diagnostic without a source location", diags);
    }
  }
  // Rendering reads the source lines under each caret: part of the contract too.
  std::string rendered = diags.render();
  (void)rendered;
  return 0;
}

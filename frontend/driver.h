// The compiler pipeline behind the CLI: for each input file, parse -> check -> generate, with
// an --emit after each stage. A new output is an EmitKind and a step in run_file (driver.cpp).
#pragma once

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "frontend/defines.h"
#include "frontend/parse.h"

namespace shardc {

enum class EmitKind { ast, types, layout, ir, schedule, cpp };

struct DriverOptions {
  std::vector<std::string> inputs;          // file paths; "-" reads standard input
  bool check_only = false;                  // --check: stop after checking
  std::vector<EmitKind> emits;              // --emit=..., in the order given
  Defines defines;                          // -D NAME=VALUE
  std::optional<std::string> output_dir;    // -o DIR
  std::string outer_namespace = "shardgen";  // --namespace NS: generated code in NS::MODULE
  std::size_t part_size = 100;               // --part-size N: instructions per generated C++ function
  bool trace_passes = false;                // --trace-passes: the IR after each codegen pass, timed
  ParseLimits limits;
};

// Whether the options ask for what only code generation makes: -o, --emit=ir|schedule|cpp or
// --trace-passes (a plain `shardc FILE`, which writes to the current folder, aside).
bool asks_for_code_generation(const DriverOptions& options);

// Reads a whole source file, or standard input for "-". Reports an unlocated error (a missing
// or unreadable file, a directory) and returns nothing on failure. Reads at most
// max_bytes + 1 bytes: enough for parse() to report a file over its limit
// (ParseLimits::max_file_bytes), and an endless input (/dev/zero, `yes |`) ends there.
std::optional<std::string> read_input(const std::string& path, std::istream& in, Diagnostics& diags,
                                      std::size_t max_bytes = ParseLimits{}.max_file_bytes);

// Runs `step`; an exception it lets out becomes an unlocated error in `diags` instead of ending
// the process: an InternalError (a broken invariant) with its own text, anything else as an
// "internal compiler error". Every mode of the CLI runs its pipeline through it.
void report_internal_errors(Diagnostics& diags, const std::function<void()>& step);

// Runs the pipeline on every input. Emitted text goes to `out`, diagnostics to `err`.
// Returns the process exit status: 0 on success, 1 when any file had errors.
int run_driver(const DriverOptions& options, std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace shardc

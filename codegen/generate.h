// The code generator's entry for the driver (frontend/driver.cpp): lowers a checked module,
// prints --emit=ir / --emit=schedule / --emit=cpp, and writes DIR/NAME.shard.h and
// DIR/NAME.shard.cpp for -o DIR.
#pragma once

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>

#include "frontend/check/checked_module.h"
#include "frontend/diagnostics.h"

namespace shardc::codegen {

struct GenerateRequest {
  bool emit_ir = false;
  bool emit_schedule = false;
  bool emit_cpp = false;
  bool trace_passes = false;              // print the IR after every pass, with its time
  bool check_only = false;                // --check: emit in memory for the emitter's errors, output nothing
  std::optional<std::string> output_dir;  // write the files here
  std::string source_path;                // for the generated files' header comment
  std::string outer_namespace = "shardgen";  // --namespace: the code goes in OUTER::MODULE
  std::size_t part_size = 100;               // --part-size: a longer device body is cut (body_parts.h)
};

void generate(std::shared_ptr<const check::CheckedModule> module, const GenerateRequest& request, std::ostream& out,
              Diagnostics& diags);

}  // namespace shardc::codegen

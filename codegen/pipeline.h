// The code generator's pipeline: the checked module -> lowered SPMD IR, one pass after the
// other (the list is in pipeline.cpp, in order), then the emitter.
#pragma once

#include <iosfwd>
#include <memory>

#include "codegen/emit_cpp.h"
#include "codegen/ir.h"
#include "frontend/diagnostics.h"

namespace shardc::codegen {

struct PipelineOptions {
  // When set, the IR after each pass and the pass's time are printed here (--trace-passes).
  std::ostream* trace = nullptr;
};

// Lowers every function; returns nullopt after reporting located errors in `diags`.
std::optional<Module> lower_module(std::shared_ptr<const check::CheckedModule> checked, Diagnostics& diags,
                                   const PipelineOptions& options = {});

// Checks the invariants of a fully lowered module (no global ops, every value defined before
// use); throws InternalError naming the function and instruction otherwise.
void verify_lowered(const Module& module);

}  // namespace shardc::codegen

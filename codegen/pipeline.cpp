#include "codegen/pipeline.h"

#include <chrono>
#include <ostream>
#include <set>

#include "codegen/drop_dead_values.h"
#include "codegen/drop_size_one_axes.h"
#include "codegen/lower_einsums.h"
#include "codegen/lower_reductions.h"
#include "codegen/lower_reshards.h"
#include "codegen/lower_to_spmd.h"
#include "codegen/merge_repeated_communication.h"
#include "codegen/print_ir.h"
#include "codegen/schedule_collectives.h"
#include "frontend/internal_error.h"

namespace shardc::codegen {

std::optional<Module> lower_module(std::shared_ptr<const check::CheckedModule> checked, Diagnostics& diags,
                                   const PipelineOptions& options) {
  using Clock = std::chrono::steady_clock;
  auto log = [&](const char* pass, const Module& m, Clock::time_point began) {
    if (!options.trace) return;
    double ms = std::chrono::duration<double, std::milli>(Clock::now() - began).count();
    *options.trace << "// ---- after " << pass << " (" << ms << " ms)\n";
    print_ir(m, *options.trace);
  };
  auto began = Clock::now();
  Module m = lower_to_spmd(std::move(checked), diags);
  log("lower_to_spmd", m, began);
  if (diags.has_errors()) return std::nullopt;

  // The passes, in order. Each is a pure function Module -> Module.
  struct Pass {
    const char* name;
    Module (*run)(const Module&);
  };
  const Pass passes[] = {
      {"lower_einsums", lower_einsums},
      {"lower_reductions", lower_reductions},
      {"lower_reshards", lower_reshards},
      {"drop_size_one_axes", drop_size_one_axes},
      {"merge_repeated_communication", merge_repeated_communication},
      {"drop_dead_values", drop_dead_values},
      {"schedule_collectives", schedule_collectives},
  };
  for (const Pass& pass : passes) {
    began = Clock::now();
    m = pass.run(m);
    log(pass.name, m, began);
  }
  verify_lowered(m);
  return m;
}

void verify_lowered(const Module& module) {
  for (const Function& f : module.functions) {
    std::set<ValueId> defined;
    for (std::size_t i = 0; i < f.body.size(); ++i) {
      const Instr& instr = *f.body[i];
      std::string where = f.name + ", instruction " + std::to_string(i) + " (" + std::string(op_kind_name(instr.kind())) + ")";
      SHARDC_ASSERT(op_class(instr.kind()) != OpClass::global, "a global op survived lowering in " + where);
      for (ValueId in : instr.inputs())
        SHARDC_ASSERT(defined.count(in), "value %" + std::to_string(in) + " used before its definition in " + where);
      for (ValueId o : instr.outputs())
        SHARDC_ASSERT(defined.insert(o).second, "value %" + std::to_string(o) + " defined twice in " + where);
    }
    for (ValueId r : f.results)
      SHARDC_ASSERT(defined.count(r), "result %" + std::to_string(r) + " of " + f.name + " is never defined");
  }
}

}  // namespace shardc::codegen

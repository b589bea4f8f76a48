// Text forms of the IR for --emit=ir (every instruction with its local type and, in a func,
// its sharding) and --emit=schedule (each collective in order, with its axes, group size
// and bytes sent per device).
#pragma once

#include <iosfwd>

#include "codegen/ir.h"

namespace shardc::codegen {

void print_ir(const Module& module, std::ostream& out);
void print_function(const Function& f, std::ostream& out);
void print_schedule(const Module& module, std::ostream& out);

}  // namespace shardc::codegen

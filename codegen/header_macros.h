// The macro names generated code sees through shardgen_prelude.h, listed at build time by
// codegen/list_macros.cmake: emit_cpp renames a .shard name that equals one.
#pragma once

#include <set>
#include <string>

namespace shardc::codegen {

const std::set<std::string>& header_macros();

}  // namespace shardc::codegen

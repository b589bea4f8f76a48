// --emit=types: every function's signature and every binding with its type, in the
// order the trace made them. A binding checked several times with the same type (a
// loop body, an inlined fn) prints once; a different type prints again.
#include <ostream>
#include <set>

#include "frontend/check/check.h"
#include "frontend/check/checked_module.h"
#include "frontend/check/sharding_spec.h"

namespace shardc::check {

void emit_types(const CheckedModule& m, std::ostream& out) {
  out << "module " << m.name << "\n";
  for (const auto& mesh : m.meshes) {
    out << "mesh " << mesh->name << " = [";
    for (std::size_t i = 0; i < mesh->axis_names.size(); ++i)
      out << (i ? ", " : "") << mesh->axis_names[i] << ": " << mesh->axis_sizes[i];
    out << "]" << (mesh->auto_mode ? " auto" : "") << " devices " << mesh->first_device << ".."
        << mesh->first_device + mesh->device_count() << "\n";
  }
  for (const auto& c : m.consts)
    out << "const " << c.name << " = " << format_static(c.value) << (c.overridden ? "  (-D)" : "") << "\n";
  for (const auto& f : m.functions) {
    // The signature in global types, then one `FUNC.NAME: TYPE` line per binding
    // (shard_map bindings, parameters included, are local block types).
    out << "\n" << ast::function_kind_name(f.kind) << " " << f.name << "(";
    for (std::size_t i = 0; i < f.param_types.size(); ++i)
      out << (i ? ", " : "") << f.param_names[i] << ": " << to_string(f.param_types[i]);
    out << ")";
    if (!f.result_types.empty()) {
      out << " -> ";
      bool paren = f.tuple_result || f.result_types.size() != 1;
      if (paren) out << "(";
      for (std::size_t i = 0; i < f.result_types.size(); ++i) out << (i ? ", " : "") << to_string(f.result_types[i]);
      if (paren) out << ")";
    }
    out << " on " << f.mesh->name << (f.unchecked ? " unchecked" : "") << "\n";
    std::set<std::pair<ast::NodeId, std::string>> printed;
    for (const auto& b : f.bindings) {
      std::string t = to_string(b.type);
      if (!printed.insert({b.node, t}).second) continue;
      out << f.name << "." << b.name << ": " << t << "\n";
    }
    bool several = f.tuple_result || f.result_types.size() != 1;
    for (std::size_t i = 0; i < f.result_types.size(); ++i)
      out << f.name << ".return" << (several ? "." + std::to_string(i) : std::string()) << ": "
          << to_string(f.result_types[i]) << "\n";
  }
}

}  // namespace shardc::check

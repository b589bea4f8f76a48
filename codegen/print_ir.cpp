#include "codegen/print_ir.h"

#include <algorithm>
#include <ostream>
#include <sstream>

#include "codegen/reshard_traffic.h"

namespace shardc::codegen {
namespace {

std::string value_type(const Function& f, ValueId id) {
  const Value& v = f.values.at(static_cast<std::size_t>(id));
  if (v.kind == ValueKind::key) return "key";
  if (v.kind == ValueKind::pending) return "pending";
  std::ostringstream s;
  s << shard::dtype_short_name(v.dtype) << "[";
  for (std::size_t d = 0; d < v.shape.size(); ++d) s << (d ? "," : "") << v.shape[d];
  s << "]";
  if (!f.manual && f.mesh) s << " " << check::format_spec(*f.mesh, [&] {
    std::vector<check::Dim> dims;
    for (std::size_t d = 0; d < v.spec.size(); ++d) dims.push_back(check::Dim{v.global_shape[d], v.spec[d]});
    return dims;
  }());
  if (!v.unreduced.empty() && f.mesh) s << " " << check::format_type_suffix(*f.mesh, 'U', check::to_set(v.unreduced));
  return s.str();
}

std::string attr_text(const Function& f, const Attr& a) {
  std::ostringstream s;
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::int64_t> || std::is_same_v<T, double>) s << x;
        else if constexpr (std::is_same_v<T, bool>) s << (x ? "true" : "false");
        else if constexpr (std::is_same_v<T, std::string>) s << '"' << x << '"';
        else if constexpr (std::is_same_v<T, std::vector<std::int64_t>>) {
          s << "[";
          for (std::size_t i = 0; i < x.size(); ++i) s << (i ? "," : "") << x[i];
          s << "]";
        } else if constexpr (std::is_same_v<T, AxisList>) s << axis_names(*f.mesh, x);
        else if constexpr (std::is_same_v<T, std::vector<AxisList>>) {
          s << "[";
          for (std::size_t i = 0; i < x.size(); ++i) s << (i ? "," : "") << axis_names(*f.mesh, x[i]);
          s << "]";
        } else s << check::to_string(x);
      },
      a);
  return s.str();
}

}  // namespace

void print_function(const Function& f, std::ostream& out) {
  out << (f.manual ? "shard_map " : "func ") << f.name << " on " << (f.mesh ? f.mesh->name : "?") << " {\n";
  for (const InstrPtr& instr : f.body) {
    out << "  ";
    for (std::size_t i = 0; i < instr->outputs().size(); ++i) out << (i ? ", " : "") << "%" << instr->outputs()[i];
    out << " = " << op_kind_name(instr->kind()) << "(";
    for (std::size_t i = 0; i < instr->inputs().size(); ++i) out << (i ? ", " : "") << "%" << instr->inputs()[i];
    out << ")";
    if (!instr->attrs().empty()) {
      out << " {";
      bool first = true;
      for (const auto& [k, v] : instr->attrs()) {
        out << (first ? "" : ", ") << k << "=" << attr_text(f, v);
        first = false;
      }
      out << "}";
    }
    out << "  :";
    for (ValueId o : instr->outputs()) out << " " << value_type(f, o);
    out << "\n";
  }
  out << "  return";
  for (std::size_t i = 0; i < f.results.size(); ++i) out << (i ? ", " : " ") << "%" << f.results[i];
  out << "\n}\n";
}

void print_ir(const Module& module, std::ostream& out) {
  for (const Function& f : module.functions) print_function(f, out);
}

void print_schedule(const Module& module, std::ostream& out) {
  for (const Function& f : module.functions) {
    out << f.name << ":";
    int step = 0;
    std::ostringstream lines;
    std::vector<std::string> callees;  // their collectives are in their own schedules
    for (std::size_t i = 0; i < f.body.size(); ++i) {
      const Instr& instr = *f.body[i];
      if (instr.kind() == OpKind::call &&
          std::find(callees.begin(), callees.end(), instr.string_attr("callee")) == callees.end())
        callees.push_back(instr.string_attr("callee"));
      bool collective = op_class(instr.kind()) == OpClass::collective;
      bool async = instr.kind() == OpKind::start || instr.kind() == OpKind::wait;
      if (!collective && !async) continue;
      std::string name = async ? instr.string_attr("collective") : std::string(op_kind_name(instr.kind()));
      const AxisList& axes = instr.axes_attr("axes");
      lines << "  " << ++step << ". " << (instr.kind() == OpKind::start ? "start " : instr.kind() == OpKind::wait ? "wait  " : "sync  ")
            << name << " over " << axis_names(*f.mesh, axes) << " (group of " << axes_size(*f.mesh, axes) << ")";
      if (instr.kind() != OpKind::wait) {
        const Value& in = f.values.at(static_cast<std::size_t>(instr.inputs()[0]));
        lines << ": " << in.bytes() << " bytes in per device";
        if (name == op_kind_name(OpKind::reshard_exchange)) {
          std::int64_t elements = 1;
          for (std::int64_t d : in.shape) elements *= d;
          lines << ", " << attr_text(f, instr.attrs().at("from")) << " -> "
                << attr_text(f, instr.attrs().at("to")) << ", at most "
                << reshard_bytes_from_peers(*f.mesh, in.global_shape, elements ? in.bytes() / elements : 0,
                                            instr.spec_attr("from"), instr.spec_attr("to"))
                << " bytes from other devices";
        }
      } else {
        const Value& o = f.values.at(static_cast<std::size_t>(instr.output()));
        lines << ": " << o.bytes() << " bytes out per device";
      }
      lines << "  [instruction " << i << "]\n";
    }
    std::string calls;
    for (const std::string& c : callees) calls += (calls.empty() ? "" : ", ") + c;
    if (step == 0) out << (callees.empty() ? " no collectives\n" : " no collectives of its own; calls " + calls + "\n");
    else out << "\n" << lines.str() << (callees.empty() ? "" : "  calls " + calls + "\n");
  }
}

}  // namespace shardc::codegen

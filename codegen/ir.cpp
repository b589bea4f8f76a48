#include "codegen/ir.h"

#include <limits>

#include "frontend/internal_error.h"

namespace shardc::codegen {

std::string_view op_kind_name(OpKind kind) {
  switch (kind) {
#define SHARDC_IR_NAME(name, cls) \
  case OpKind::name: return #name;
    SHARDC_IR_OPS(SHARDC_IR_NAME)
#undef SHARDC_IR_NAME
  }
  return "?";
}

OpClass op_class(OpKind kind) {
  switch (kind) {
#define SHARDC_IR_CLASS(name, cls) \
  case OpKind::name: return OpClass::cls;
    SHARDC_IR_OPS(SHARDC_IR_CLASS)
#undef SHARDC_IR_CLASS
  }
  return OpClass::local;
}

std::optional<OpKind> op_kind_from_name(std::string_view name) {
#define SHARDC_IR_FROM(n, cls) \
  if (name == #n) return OpKind::n;
  SHARDC_IR_OPS(SHARDC_IR_FROM)
#undef SHARDC_IR_FROM
  return std::nullopt;
}

InstrPtr Instr::make(OpKind kind, std::vector<ValueId> inputs, std::vector<ValueId> outputs, Attrs attrs,
                     SourceRange range) {
  return std::make_shared<const Instr>(kind, std::move(inputs), std::move(outputs), std::move(attrs), range);
}

ValueId Instr::output() const {
  SHARDC_ASSERT(outputs_.size() == 1, std::string(op_kind_name(kind_)) + " does not have exactly one output");
  return outputs_.front();
}

const Attr& Instr::attr(const std::string& name) const {
  auto it = attrs_.find(name);
  SHARDC_ASSERT(it != attrs_.end(), std::string(op_kind_name(kind_)) + " has no attribute '" + name + "'");
  return it->second;
}

namespace {
template <class T>
const T& typed(const Attr& a, OpKind kind, const std::string& name) {
  const T* v = std::get_if<T>(&a);
  SHARDC_ASSERT(v != nullptr, std::string(op_kind_name(kind)) + " attribute '" + name + "' has another type");
  return *v;
}
}  // namespace

std::int64_t Instr::int_attr(const std::string& name) const { return typed<std::int64_t>(attr(name), kind_, name); }
double Instr::float_attr(const std::string& name) const {
  const Attr& a = attr(name);
  if (auto* i = std::get_if<std::int64_t>(&a)) return static_cast<double>(*i);
  return typed<double>(a, kind_, name);
}
bool Instr::bool_attr(const std::string& name) const { return typed<bool>(attr(name), kind_, name); }
const std::string& Instr::string_attr(const std::string& name) const {
  return typed<std::string>(attr(name), kind_, name);
}
const std::vector<std::int64_t>& Instr::ints_attr(const std::string& name) const {
  return typed<std::vector<std::int64_t>>(attr(name), kind_, name);
}
const AxisList& Instr::axes_attr(const std::string& name) const { return typed<AxisList>(attr(name), kind_, name); }
const std::vector<AxisList>& Instr::spec_attr(const std::string& name) const {
  return typed<std::vector<AxisList>>(attr(name), kind_, name);
}

std::int64_t Value::bytes() const {
  // Saturates: the checker bounds element counts by i64, not their size in bytes.
  std::int64_t n = static_cast<std::int64_t>(shard::dtype_size(dtype));
  for (auto d : shape)
    if (__builtin_mul_overflow(n, d, &n)) return std::numeric_limits<std::int64_t>::max();
  return n;
}

ValueId Function::add_value(Value v) {
  values.push_back(std::move(v));
  return static_cast<ValueId>(values.size() - 1);
}

DefUse::DefUse(const Function& f) : producer(f.values.size(), nullptr), readers(f.values.size()) {
  for (const InstrPtr& instr : f.body) {
    for (ValueId out : instr->outputs()) producer.at(static_cast<std::size_t>(out)) = instr.get();
    for (ValueId in : instr->inputs()) readers.at(static_cast<std::size_t>(in)).push_back(instr.get());
  }
}

const Function* Module::find(std::string_view function_name) const {
  for (const Function& f : functions)
    if (f.name == function_name) return &f;
  return nullptr;
}

std::string axis_names(const check::Mesh& mesh, const AxisList& axes) { return check::format_axes(mesh, axes); }

std::int64_t axes_size(const check::Mesh& mesh, const AxisList& axes) {
  std::int64_t n = 1;
  for (int a : axes) n *= mesh.axis_sizes.at(static_cast<std::size_t>(a));
  return n;
}

}  // namespace shardc::codegen

// The walker's shared services: recording ops, reporting rule errors at the right
// place, and turning values into the static ints, axis groups and sharding lists
// that built-ins need (with a located error when they are not).
#include <algorithm>

#include "frontend/check/checked_math.h"
#include "frontend/check/checker.h"
#include "frontend/check/rules_elementwise.h"
#include "frontend/check/sharding_spec.h"
#include "frontend/internal_error.h"

namespace shardc::check {

DiagnosticBuilder Checker::error(const SourceRange& range, std::string message) {
  if (!reported_.emplace(range.file, range.begin.offset, message).second) return DiagnosticBuilder(nullptr, 0);
  DiagnosticBuilder b = diags_.error(range, std::move(message));
  // An error inside an inlined fn helper names the call in the function's own body that led
  // there (docs/language.md 2.3): the fn's lines alone do not say which of its calls failed.
  if (ctx_ && !ctx_->fn_calls.empty())
    b.trailing_note(ctx_->fn_calls.front(), "reached inside '" + ctx_->fn_stack.back()->name.name + "', " +
                                       std::to_string(ctx_->fn_calls.size()) + " fn call" +
                                       (ctx_->fn_calls.size() == 1 ? "" : "s") + " deep from this call in '" +
                                       ctx_->out->name + "'");
  if (ctx_ && !ctx_->loops.empty()) {
    std::string iteration;
    for (const auto& loop : ctx_->loops) iteration += (iteration.empty() ? "" : ", ") + loop.variable + " = " + std::to_string(loop.value);
    b.trailing_note(ctx_->loops.back().range, "in the unrolled iteration " + iteration);
  }
  return b;
}

void Checker::report(const RuleError& e, const SourceRange& whole, const std::vector<SourceRange>& operands) {
  SourceRange where = whole;
  if (e.operand >= 0 && static_cast<std::size_t>(e.operand) < operands.size()) where = operands[e.operand];
  auto b = error(where, e.message);
  for (const auto& n : e.notes) b.note(n);
}

void Checker::count_op(const SourceRange& r) {
  if (!ctx_) return;
  if (++ops_in_function_ > options_.max_unrolled_ops) {
    auto e = error(r, "function '" + ctx_->out->name + "' unrolls to more than " +
                          std::to_string(options_.max_unrolled_ops) + " operations");
    e.note("for loops are unrolled and fn calls inlined at check time; use fewer iterations");
    throw TraceLimitReached{};
  }
}

std::vector<Value> Checker::emit_multi(std::string name, const ast::Node& node, const std::vector<Value>& inputs,
                                       const std::vector<Type>& results, std::map<std::string, Attr> attrs) {
  std::vector<Value> outs;
  if (!ctx_) {
    // Outside a function (a const or mesh initialiser) nothing runs: an operation's result is
    // a runtime value, never static, whatever static operands it had (abs(-3) kept its
    // operand's value -3 as if folded).
    for (Type t : results) {
      if (t.kind == TypeKind::static_scalar) {
        t.kind = TypeKind::array;
        t.value.reset();
      }
      outs.push_back(Value::typed_value(t, -1));
    }
    return outs;
  }
  count_op(node.range);
  // A pending sum (einsum's unreduced=) reaches only add and sub (binary_op checks them) and
  // reshard, which reduces it; every other op would need the reduction done implicitly.
  if (name != "add" && name != "sub" && name != "reshard")
    for (std::size_t i = 0; i < inputs.size(); ++i)
      if (inputs[i].is_pending_sum()) {
        report(unreduced_operand_error(name, inputs[i].type, static_cast<int>(i)), node.range);
        return std::vector<Value>(results.size(), Value::error());
      }
  // Every array the program makes has an element count that fits 64 bits (docs/language.md
  // 13.3): types written in the source are checked where they are read; this catches results
  // that grow (broadcast_to, broadcasting operands, an outer-product einsum, stack).
  for (const Type& t : results) {
    if (t.kind != TypeKind::array) continue;
    std::optional<std::int64_t> elements = 1;
    for (const Dim& d : t.dims) elements = elements ? checked_mul(*elements, d.size) : std::nullopt;
    if (!elements) {
      error(node.range, "the result's element count overflows 64 bits: " + to_string(t));
      return std::vector<Value>(results.size(), Value::error());
    }
  }
  CheckedFunction& f = *ctx_->out;
  Op op;
  op.name = std::move(name);
  op.node = node.id;
  op.range = node.range;
  for (const Value& v : inputs) {
    Value m = materialize(v, node);
    op.inputs.push_back(m.id);
  }
  for (const Type& t : results) {
    ValueId id = static_cast<ValueId>(f.values.size());
    f.values.push_back(t);
    op.outputs.push_back(id);
    outs.push_back(Value::typed_value(t, id));
  }
  op.attrs = std::move(attrs);
  f.ops.push_back(std::move(op));
  return outs;
}

Value Checker::emit(std::string name, const ast::Node& node, const std::vector<Value>& inputs, Type result,
                    std::map<std::string, Attr> attrs) {
  return emit_multi(std::move(name), node, inputs, {std::move(result)}, std::move(attrs)).front();
}

Value Checker::materialize(const Value& v, const ast::Node& node) {
  if (v.kind == Value::Kind::typed && v.id >= 0) return v;
  if (!ctx_) return v;
  SHARDC_ASSERT(v.is_static_scalar(), "only static scalars can be materialised");
  Type t = make_array(v.type.dtype, {}, mesh());
  t.weak = v.type.weak;
  t.local = manual();
  // An int beyond int32 becomes an int64 array (section 4): as an i32 constant it would wrap.
  // It is not weak: a weak int64 would give way to an int32 operand and wrap there
  // (`i32_array + abs(-3000000000)` is int64, not a wrapped int32).
  if (literal_fits(v, DType::i32)) {
    t.dtype = DType::i64;
    t.weak = false;
  }
  std::map<std::string, Attr> attrs;
  std::visit([&](auto x) { attrs["value"] = x; }, *v.type.value);
  return emit("constant", node, {}, t, std::move(attrs));
}

std::string Checker::describe_dynamic(const Value& v) {
  switch (v.kind) {
    case Value::Kind::typed:
      if (v.type.kind == TypeKind::array)
        return "it is a runtime value of type " + to_string(v.type) +
               (v.type.local && v.type.varying ? " (it depends on the device)" : "");
      if (v.type.kind == TypeKind::key) return "it is a key";
      return "it is " + to_string(v.type);
    case Value::Kind::axes: return "it is an axis group";
    case Value::Kind::string: return "it is a string";
    case Value::Kind::none: return "it is None";
    case Value::Kind::seq: return v.is_list ? "it is a list" : "it is a tuple";
    case Value::Kind::type_literal: return "it is a type";
    case Value::Kind::error: return "it has an error";
  }
  return "";
}

std::optional<std::int64_t> Checker::static_int(const Value& v, const SourceRange& r, std::string_view what) {
  if (v.is_error()) return std::nullopt;
  if (v.is_static_scalar()) {
    if (auto* i = std::get_if<std::int64_t>(&*v.type.value)) return *i;
    error(r, std::string(what) + " must be a static integer, got " + to_string(v.type));
    return std::nullopt;
  }
  error(r, std::string(what) + " must be a static integer").note(describe_dynamic(v));
  return std::nullopt;
}

std::optional<bool> Checker::static_bool(const Value& v, const SourceRange& r, std::string_view what) {
  if (v.is_error()) return std::nullopt;
  if (v.is_static_scalar()) {
    if (auto* b = std::get_if<bool>(&*v.type.value)) return *b;
    error(r, std::string(what) + " must be a static bool, got " + to_string(v.type));
    return std::nullopt;
  }
  error(r, std::string(what) + " must be a static bool").note(describe_dynamic(v));
  return std::nullopt;
}

std::optional<double> Checker::static_number(const Value& v, const SourceRange& r, std::string_view what) {
  if (v.is_error()) return std::nullopt;
  if (v.is_static_scalar()) {
    if (auto* i = std::get_if<std::int64_t>(&*v.type.value)) return static_cast<double>(*i);
    if (auto* d = std::get_if<double>(&*v.type.value)) return *d;
  }
  error(r, std::string(what) + " must be a static number").note(describe_dynamic(v));
  return std::nullopt;
}

std::optional<AxisList> Checker::axis_group(const Value& v, const SourceRange& r, std::string_view what) {
  if (v.is_error()) return std::nullopt;
  AxisList axes;
  if (v.kind == Value::Kind::axes) {
    axes = v.axes;
  } else if (v.kind == Value::Kind::seq && !v.is_list) {
    for (const Value& item : v.items) {
      if (item.is_error()) return std::nullopt;
      if (item.kind != Value::Kind::axes || item.axes.size() != 1) {
        auto b = error(r, std::string(what) + " must be a mesh axis or a tuple of mesh axes");
        if (item.kind == Value::Kind::string) {
          std::string bare, quoted;
          for (const Value& i : v.items) {
            const bool axis = i.kind == Value::Kind::axes && i.axes.size() == 1 && mesh();
            const std::string name = i.kind == Value::Kind::string ? i.text
                                     : axis                         ? mesh()->axis_names[i.axes[0]]
                                                                    : "...";
            bare += (bare.empty() ? "" : ", ") + name;
            quoted += (quoted.empty() ? "" : ", ") + (i.kind == Value::Kind::string ? "\"" + i.text + "\"" : name);
          }
          b.note("axis names are written bare, without quotes: (" + bare + "), not (" + quoted + ")");
        }
        return std::nullopt;
      }
      axes.push_back(item.axes[0]);
    }
  } else {
    auto b = error(r, std::string(what) + " must be a mesh axis or a tuple of mesh axes");
    // psum(x, "tp"): JAX names axes with strings, this language with bare names.
    if (v.kind == Value::Kind::string)
      b.note("axis names are written bare, without quotes: " + v.text + ", not \"" + v.text + "\"");
    if (mesh()) b.note("mesh '" + mesh()->name + "' has axes " + format_axis_set(*mesh(), (AxisSet{1} << mesh()->axis_names.size()) - 1));
    return std::nullopt;
  }
  if (axes.empty()) {
    error(r, std::string(what) + " names no mesh axis");
    return std::nullopt;
  }
  for (std::size_t i = 0; i < axes.size(); ++i)
    for (std::size_t j = i + 1; j < axes.size(); ++j)
      if (axes[i] == axes[j]) {
        error(r, "mesh axis '" + mesh()->axis_names[axes[i]] + "' appears twice in " + std::string(what));
        return std::nullopt;
      }
  return axes;
}

std::optional<std::vector<std::int64_t>> Checker::static_int_list(const Value& v, const SourceRange& r,
                                                                  std::string_view what) {
  if (v.is_error()) return std::nullopt;
  std::vector<std::int64_t> out;
  if (v.is_static_scalar()) {
    auto i = static_int(v, r, what);
    if (!i) return std::nullopt;
    out.push_back(*i);
    return out;
  }
  if (v.kind != Value::Kind::seq) {
    error(r, std::string(what) + " must be a static tuple of integers").note(describe_dynamic(v));
    return std::nullopt;
  }
  for (const Value& item : v.items) {
    auto i = static_int(item, r, what);
    if (!i) return std::nullopt;
    out.push_back(*i);
  }
  return out;
}

std::optional<std::vector<AxisList>> Checker::sharding_list(const Value& v, int rank, const SourceRange& r) {
  if (v.is_error()) return std::nullopt;
  if (v.kind != Value::Kind::seq || !v.is_list) {
    error(r, "a sharding must be a list like [X, None] or [(X, Y), None]").note(describe_dynamic(v));
    return std::nullopt;
  }
  if (static_cast<int>(v.items.size()) > rank) {
    error(r, "sharding " + std::to_string(v.items.size()) + " entries long for an array of rank " +
                 std::to_string(rank))
        .note("give at most one entry per dimension (missing trailing entries are None)");
    return std::nullopt;
  }
  std::vector<AxisList> spec(rank);
  for (std::size_t i = 0; i < v.items.size(); ++i) {
    const Value& item = v.items[i];
    if (item.kind == Value::Kind::none) continue;
    auto axes = axis_group(item, r, "a sharding entry");
    if (!axes) return std::nullopt;
    spec[i] = *axes;
  }
  return spec;
}

std::optional<Type> Checker::type_argument(const Value& v, const SourceRange& r, std::string_view what) {
  if (v.is_error()) return std::nullopt;
  if (v.kind == Value::Kind::type_literal) return v.type;
  error(r, std::string(what) + " must be a type, like f32[8, 4]").note(describe_dynamic(v));
  return std::nullopt;
}

bool Checker::need_array(const Value& v, const SourceRange& r, std::string_view what, bool allow_static) {
  if (v.is_error()) return false;
  if (v.is_array()) return true;
  if (allow_static && v.is_static_scalar()) return true;
  error(r, std::string(what) + " must be an array").note(describe_dynamic(v));
  return false;
}

}  // namespace shardc::check

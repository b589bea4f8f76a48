// Expressions: literals, names, operators (static folding or the elementwise and
// einsum rules), indexing and slicing, `x.shape[d]`, tuples and lists, types as values.
#include <algorithm>
#include <limits>
#include <string_view>

#include "frontend/check/builtins.h"
#include "frontend/check/checker.h"
#include "frontend/check/name_suggestions.h"
#include "frontend/check/rules_einsum.h"
#include "frontend/check/rules_elementwise.h"
#include "frontend/check/rules_shape.h"
#include "frontend/check/sharding_spec.h"
#include "frontend/check/static_eval.h"
#include "frontend/internal_error.h"
#include "frontend/syntax/comment_rule.h"

namespace shardc::check {

Value Checker::eval(const ast::Expr& e) {
  Value v;
  switch (e.kind) {
    case ast::NodeKind::IntLiteral:
      v = Value::static_value(make_static_int(static_cast<const ast::IntLiteral&>(e).value));
      break;
    case ast::NodeKind::FloatLiteral:
      v = Value::static_value(make_static_float(static_cast<const ast::FloatLiteral&>(e).value));
      break;
    case ast::NodeKind::BoolLiteral:
      v = Value::static_value(make_static_bool(static_cast<const ast::BoolLiteral&>(e).value));
      break;
    case ast::NodeKind::NoneLiteral: v.kind = Value::Kind::none; break;
    case ast::NodeKind::StringLiteral:
      v.kind = Value::Kind::string;
      v.text = static_cast<const ast::StringLiteral&>(e).value;
      break;
    case ast::NodeKind::NameExpr: v = eval_name(static_cast<const ast::NameExpr&>(e)); break;
    case ast::NodeKind::UnaryExpr: v = eval_unary(static_cast<const ast::UnaryExpr&>(e)); break;
    case ast::NodeKind::BinaryExpr: v = eval_binary(static_cast<const ast::BinaryExpr&>(e)); break;
    case ast::NodeKind::CallExpr: v = eval_call(static_cast<const ast::CallExpr&>(e)); break;
    case ast::NodeKind::TupleExpr: v = eval_seq(static_cast<const ast::TupleExpr&>(e).elements, false); break;
    case ast::NodeKind::ListExpr: v = eval_seq(static_cast<const ast::ListExpr&>(e).elements, true); break;
    case ast::NodeKind::IndexExpr: v = eval_index(static_cast<const ast::IndexExpr&>(e)); break;
    case ast::NodeKind::AttributeExpr: v = eval_attribute(static_cast<const ast::AttributeExpr&>(e)); break;
    case ast::NodeKind::SliceExpr:
      error(e.range, "a slice a:b may only appear inside [ ] indexing");
      break;
    case ast::NodeKind::TypeExpr: {
      auto t = resolve_type(*static_cast<const ast::TypeExpr&>(e).type, in_function());
      if (t) {
        v.kind = Value::Kind::type_literal;
        v.type = *t;
      }
      break;
    }
    default: SHARDC_ASSERT(false, "unhandled expression kind");
  }
  if (v.kind == Value::Kind::typed && e.id < out_->node_types.size()) out_->node_types[e.id] = v.type;
  return v;
}

Value Checker::eval_axes_argument(const ast::Expr& expr) {
  const bool outer = in_axes_argument_;
  in_axes_argument_ = true;
  Value v = eval(expr);
  in_axes_argument_ = outer;
  return v;
}

Value Checker::eval_name(const ast::NameExpr& e) {
  if (Scope::Entry* local = lookup_local(e.name)) return local->value;
  if (auto it = consts_.find(e.name); it != consts_.end()) return it->second;
  if (const Mesh* m = mesh()) {
    if (auto a = m->find_axis(e.name)) {
      Value v;
      v.kind = Value::Kind::axes;
      v.axes = {*a};
      return v;
    }
  }
  if (functions_.count(e.name) || is_builtin_name(e.name)) {
    error(e.range, "'" + e.name + "' is a function; call it with (...)");
  } else if (meshes_.count(e.name)) {
    error(e.range, "'" + e.name + "' is a mesh, not a value");
  } else if (in_axes_argument_ && mesh()) {
    auto b = unknown_axis_error(e.range, e.name, *mesh());
    explain_unknown_name(b, e.name);
  } else {
    auto b = error(e.range, "unknown name '" + e.name + "'");
    explain_unknown_name(b, e.name);
    // `const N = 8 // eight`: the comment parsed as floor division by a name.
    if (const SourceFile* file = diags_.sources().find(e.range.file)) {
      std::string_view before = file->line_text(e.range.begin.line).substr(0, e.range.begin.column - 1);
      while (!before.empty() && (before.back() == ' ' || before.back() == '\t')) before.remove_suffix(1);
      if (before.ends_with("//"))
        b.note(std::string(syntax::kFloorDivisionNote));
    }
  }
  return Value::error();
}

void Checker::explain_unknown_name(DiagnosticBuilder& b, const std::string& name) {
  if (name == "True" || name == "False") {
    b.note("bools are written true and false");
    return;
  }
  if (auto hint = jax_spelling_hint(name)) {  // astype(x, float32)
    b.note(*hint);
    return;
  }
  // `const A = B + 1; const B = 2;`: consts are evaluated in order.
  if (!consts_.count(name))
    for (const auto& d : module_.decls)
      if (const auto* c = ast::dyn_cast<ast::ConstDecl>(d.get()); c && c->name.name == name) {
        b.note(c->name.range, "'" + name + "' is declared further down; a const reads only the consts above it");
        return;
      }
  bool explained = false;
  for (const auto& [mesh_name, m] : meshes_)
    if (m && m->find_axis(name) && m != mesh()) {  // null: a mesh with errors
      b.note("'" + name + "' is an axis of mesh " + mesh_name + ", but this code runs on " +
             (mesh() ? "mesh " + mesh()->name : std::string("no mesh")));
      explained = true;
    }
  // A slip of the keyboard: the nearest name in reach (a binding, a const, an axis of the mesh).
  if (!explained) {
    std::vector<std::string_view> names;
    if (ctx_)
      for (const Scope& scope : ctx_->scopes)
        for (const auto& [bound, entry] : scope.names) names.push_back(bound);
    for (const auto& [const_name, value] : consts_) names.push_back(const_name);
    if (mesh())
      for (const std::string& axis : mesh()->axis_names) names.push_back(axis);
    std::sort(names.begin(), names.end());  // hash maps' order: ties go to the first in name order
    if (auto near = closest_name(name, names)) b.note("did you mean '" + *near + "'?");
  }
  // An element type shardc does not have, written as a value (`zeros(f64[4])`, `astype(x, u8)`).
  std::string_view digits(name);
  for (std::string_view prefix : {"bf", "f", "i", "u", "c"})
    if (digits.starts_with(prefix)) {
      digits.remove_prefix(prefix.size());
      break;
    }
  if (digits.size() < name.size() && !digits.empty() &&
      std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    b.note("'" + name + "' is not one of the element types: " + std::string(ast::kElementTypeList));
}

Value Checker::eval_unary(const ast::UnaryExpr& e) {
  Value a = eval(*e.operand);
  if (a.is_error()) return a;
  if (a.is_static_scalar()) {
    auto r = fold_unary(e.op, a.type);
    if (!r) {
      report(r.error(), e.range);
      return Value::error();
    }
    return Value::static_value(*r);
  }
  if (!need_array(a, e.operand->range, "the operand of " + std::string(ast::unary_op_spelling(e.op)))) return Value::error();
  if (e.op == ast::UnaryOp::logical_not) {
    if (a.type.dtype != DType::boolean) {
      error(e.op_range, "! needs a bool operand, got " + to_string(a.type)).note("compare instead, e.g. x == 0");
      return Value::error();
    }
    return emit("logical_not", e, {a}, a.type);
  }
  if (a.type.dtype == DType::boolean) {
    error(e.op_range, "arithmetic on bool: unary " + std::string(ast::unary_op_spelling(e.op)) + " of " +
                          to_string(a.type))
        .note("convert with astype first");
    return Value::error();
  }
  if (e.op == ast::UnaryOp::plus) return a;
  return emit("neg", e, {a}, a.type);
}

Value Checker::eval_binary(const ast::BinaryExpr& e) {
  Value a = eval(*e.lhs);
  Value b = eval(*e.rhs);
  if (a.is_error() || b.is_error()) return Value::error();
  return binary_values(e.op, a, b, e, e.op_range, e.lhs->range, e.rhs->range);
}

namespace {

const char* op_name(ast::BinaryOp op) {
  switch (op) {
    case ast::BinaryOp::add: return "add";
    case ast::BinaryOp::sub: return "sub";
    case ast::BinaryOp::mul: return "mul";
    case ast::BinaryOp::div: return "div";
    case ast::BinaryOp::floor_div: return "floor_div";
    case ast::BinaryOp::mod: return "rem";
    case ast::BinaryOp::matmul: return "matmul";
    case ast::BinaryOp::eq: return "eq";
    case ast::BinaryOp::ne: return "ne";
    case ast::BinaryOp::lt: return "lt";
    case ast::BinaryOp::le: return "le";
    case ast::BinaryOp::gt: return "gt";
    case ast::BinaryOp::ge: return "ge";
    case ast::BinaryOp::logical_and: return "and";
    case ast::BinaryOp::logical_or: return "or";
  }
  return "?";
}

}  // namespace

std::optional<std::string> literal_fits(const Value& v, DType dt) {
  if (!v.is_static_scalar()) return std::nullopt;
  auto* i = std::get_if<std::int64_t>(&*v.type.value);
  if (!i || dt != DType::i32) return std::nullopt;
  if (*i >= std::numeric_limits<std::int32_t>::min() && *i <= std::numeric_limits<std::int32_t>::max())
    return std::nullopt;
  return "literal " + std::to_string(*i) + " does not fit int32";
}

Value Checker::binary_values(ast::BinaryOp op, const Value& a, const Value& b, const ast::Expr& node,
                             const SourceRange& op_range, const SourceRange& ra, const SourceRange& rb) {
  if (a.is_error() || b.is_error()) return Value::error();
  std::string spelling(ast::binary_op_spelling(op));
  if (a.is_static_scalar() && b.is_static_scalar()) {
    auto r = fold_binary(op, a.type, b.type);
    if (!r) {
      report(r.error(), op_range);
      return Value::error();
    }
    return Value::static_value(*r);
  }
  if (!need_array(a, ra, "the left operand of " + spelling) || !need_array(b, rb, "the right operand of " + spelling))
    return Value::error();
  if (op == ast::BinaryOp::matmul) {
    auto spec = matmul_spec(a.type, b.type);
    if (!spec) {
      report(spec.error(), op_range, {ra, rb});
      return Value::error();
    }
    // Shape mismatches in the operator's own terms, not in those of the einsum it becomes.
    const std::vector<std::int64_t> sa = a.type.shape(), sb = b.type.shape();
    const std::int64_t ka = sa.back(), kb = sb.size() == 1 ? sb.back() : sb[sb.size() - 2];
    const std::string operands = "@ of " + to_string(a.type) + " and " + to_string(b.type);
    if (ka != kb) {
      error(op_range, operands + ": the contracted dimensions have sizes " + std::to_string(ka) + " and " +
                          std::to_string(kb))
          .note("a @ b contracts a's last dimension with b's second-to-last (b's only one when b has rank 1)");
      return Value::error();
    }
    if (sa.size() > 2 && sb.size() == sa.size())
      for (std::size_t d = 0; d + 2 < sa.size(); ++d)
        if (sa[d] != sb[d]) {
          error(op_range, operands + ": batch dimension " + std::to_string(d) + " has sizes " + std::to_string(sa[d]) +
                              " and " + std::to_string(sb[d]))
              .note("@ does not broadcast batch dimensions as NumPy's matmul does: broadcast_to one batch shape "
                    "first, or use einsum");
          return Value::error();
        }
    auto r = einsum_op(*spec, {a.type, b.type}, std::nullopt);
    if (!r) {
      RuleError e = r.error();
      if (e.cls == ErrorClass::einsum_ambiguous)
        e.notes.insert(e.notes.begin(), "write matmul(a, b, out=...) or einsum(\"" + *spec + "\", a, b, out=...)");
      report(e, op_range, {ra, rb});
      return Value::error();
    }
    return emit("einsum", node, {a, b}, *r, {{"spec", *spec}});
  }
  bool is_logical = op == ast::BinaryOp::logical_and || op == ast::BinaryOp::logical_or;
  bool is_compare = op >= ast::BinaryOp::eq && op <= ast::BinaryOp::ge;
  if (is_logical && (a.type.dtype != DType::boolean || b.type.dtype != DType::boolean)) {
    error(op_range, spelling + " needs bool operands, got " + to_string(a.type) + " and " + to_string(b.type));
    return Value::error();
  }
  // A bool operand meeting a numeric one is promoted (`f32_array * bool_mask` is f32, as in
  // JAX); only arithmetic whose promoted dtype is bool is an error, except true division.
  const bool bool_arithmetic = a.type.dtype == DType::boolean && b.type.dtype == DType::boolean;
  if (!is_logical && !is_compare && op != ast::BinaryOp::div && bool_arithmetic) {
    error(op_range, "arithmetic on bool: " + spelling + " of " + to_string(a.type) + " and " + to_string(b.type))
        .note("convert with astype(x, i32) first");
    return Value::error();
  }
  BinaryKind kind = is_logical ? BinaryKind::logical
                    : is_compare ? BinaryKind::compare
                    : op == ast::BinaryOp::div ? BinaryKind::divide
                                               : BinaryKind::arithmetic;
  auto r = binary_op(op_name(op), kind, a.type, b.type);
  if (!r) {
    RuleError e = r.error();
    // JAX names the primitive; ours also names the operator as written.
    report(e, op_range, {ra, rb});
    return Value::error();
  }
  DType operand_dtype = promote({a.type.dtype, a.type.weak}, {b.type.dtype, b.type.weak}).dtype;
  for (const auto* v : {&a, &b}) {
    if (auto msg = literal_fits(*v, operand_dtype)) {
      error(v == &a ? ra : rb, *msg).note("JAX raises OverflowError for the same; use an i64 operand");
      return Value::error();
    }
  }
  return emit(op_name(op), node, {a, b}, *r);
}

Value Checker::eval_seq(const std::vector<ast::Ptr<ast::Expr>>& elements, bool is_list) {
  Value v;
  v.kind = Value::Kind::seq;
  v.is_list = is_list;
  for (const auto& e : elements) {
    Value item = eval(*e);
    if (item.is_error()) return Value::error();
    v.items.push_back(std::move(item));
  }
  // A parenthesised tuple of axis names is one axis group.
  return v;
}

Value Checker::eval_attribute(const ast::AttributeExpr& e) {
  const std::string& name = e.attribute.name;
  if (name == "shape") {
    error(e.range, "x.shape must be indexed: x.shape[d]").note("shapes are not values; take one dimension at a time");
    return Value::error();
  }
  auto b = error(e.attribute.range, "unknown attribute '" + name + "'");
  b.note("only x.shape[d] exists");
  if (name == "T" || name == "mT") b.note("JAX's x.T is transpose(x) here");
  if (auto hint = jax_spelling_hint(name)) b.note(*hint);  // jnp.float32
  if (name == "dtype" || name == "sharding" || name == "ndim")
    b.note("types are static: --emit=types prints every binding's dtype, shape and sharding");
  return Value::error();
}

Value Checker::eval_index(const ast::IndexExpr& e) {
  // x.shape[d]: static, global in a func, local in a shard_map.
  if (auto* attr = ast::dyn_cast<ast::AttributeExpr>(e.base.get()); attr && attr->attribute.name == "shape") {
    Value base = eval(*attr->base);
    if (base.is_error()) return base;
    if (!base.is_array()) {
      error(attr->base->range, "only arrays have a shape").note(describe_dynamic(base));
      return Value::error();
    }
    if (e.indices.size() != 1 || ast::isa<ast::SliceExpr>(*e.indices[0])) {
      error(e.range, "x.shape takes one static index: x.shape[d]");
      return Value::error();
    }
    auto d = static_int(eval(*e.indices[0]), e.indices[0]->range, "the index of x.shape");
    if (!d) return Value::error();
    int rank = base.type.rank();
    if (*d < -rank || *d >= rank) {
      error(e.indices[0]->range, "x.shape[" + std::to_string(*d) + "] is out of range for " + to_string(base.type) +
                                     " of rank " + std::to_string(rank));
      return Value::error();
    }
    return Value::static_value(make_static_int(base.type.dims[*d < 0 ? *d + rank : *d].size));
  }
  Value base = eval(*e.base);
  if (base.is_error()) return base;
  if (base.kind == Value::Kind::seq) {
    // Indexing a tuple with a static index: `split(k, 3)[i]`, `perm[0]`.
    if (e.indices.size() != 1 || ast::isa<ast::SliceExpr>(*e.indices[0])) {
      error(e.range, "a tuple takes one static index");
      return Value::error();
    }
    auto i = static_int(eval(*e.indices[0]), e.indices[0]->range, "a tuple index");
    if (!i) return Value::error();
    auto n = static_cast<std::int64_t>(base.items.size());
    if (*i < -n || *i >= n) {
      error(e.indices[0]->range, "index " + std::to_string(*i) + " is out of range for a tuple of " +
                                     std::to_string(n) + " elements");
      return Value::error();
    }
    return base.items[*i < 0 ? *i + n : *i];
  }
  if (!need_array(base, e.base->range, "the indexed value", false)) return Value::error();
  std::vector<SliceDim> dims;
  std::vector<Value> dynamic;
  for (std::size_t k = 0; k < e.indices.size(); ++k) {
    const ast::Expr& ix = *e.indices[k];
    SliceDim sd;
    if (auto* s = ast::dyn_cast<ast::SliceExpr>(&ix)) {
      auto part = [&](const ast::Ptr<ast::Expr>& p, std::optional<std::int64_t>& out) {
        if (!p) return true;
        auto v = static_int(eval(*p), p->range, "a slice bound");
        if (!v) return false;
        out = *v;
        return true;
      };
      std::optional<std::int64_t> step;
      if (!part(s->begin, sd.begin) || !part(s->end, sd.end) || !part(s->step, step)) return Value::error();
      sd.step = step.value_or(1);
      if (sd.step < 1) {
        error(s->step->range, "slice step must be 1 or more, got " + std::to_string(sd.step));
        return Value::error();
      }
    } else {
      Value iv = eval(ix);
      if (iv.is_error()) return iv;
      if (iv.is_static_scalar()) {
        auto i = static_int(iv, ix.range, "an index");
        if (!i) return Value::error();
        sd.index = true;
        sd.begin = *i;
      } else if (iv.is_array() && iv.type.rank() == 0 && shard::is_integer(iv.type.dtype)) {
        if (k != 0 || e.indices.size() != 1) {
          error(ix.range, "a runtime index is only supported as the single index x[i]")
              .note("use dynamic_slice for other dimensions");
          return Value::error();
        }
        auto r = dynamic_index_op(base.type);
        if (!r) {
          report(r.error(), e.range, {e.base->range});
          return Value::error();
        }
        return emit("dynamic_index", e, {base, iv}, varying_with_starts(*r, {base, iv}));
      } else {
        auto b = error(ix.range, "an index must be an integer (static, or a runtime integer scalar)");
        b.note(describe_dynamic(iv));
        if (iv.kind == Value::Kind::none) b.note("NumPy's x[None] is expand_dims(x, 0) here");
        return Value::error();
      }
    }
    dims.push_back(sd);
  }
  // Indexing a sharded dim gets its own message (language.md E-index). Axes of size 1 split
  // nothing: a dimension sharded over them only is whole on every device.
  for (std::size_t k = 0; k < dims.size() && static_cast<int>(k) < base.type.rank(); ++k) {
    if (dims[k].index && !base.type.local && !base.type.dims[k].axes.empty() &&
        axes_product(*base.type.mesh, base.type.dims[k].axes) > 1) {
      error(e.indices[k]->range, "indexing dimension " + std::to_string(k) + " of " + to_string(base.type) +
                                     ", which is sharded over " + format_axes(*base.type.mesh, base.type.dims[k].axes) +
                                     "; reshard it to replicated first")
          .note("an index keeps one element of the dimension, which lives on one device of the group");
      return Value::error();
    }
  }
  auto r = slice_op(base.type, dims);
  if (!r) {
    report(r.error(), e.range);
    return Value::error();
  }
  SliceBounds b = slice_bounds(base.type, dims);
  return emit("slice", e, {base}, *r,
              {{"starts", std::move(b.starts)},
               {"limits", std::move(b.limits)},
               {"steps", std::move(b.steps)},
               {"squeezed", std::move(b.squeezed)}});
}

Value Checker::eval_call(const ast::CallExpr& e) {
  const std::string& n = e.callee.name;
  if (auto f = functions_.find(n); f != functions_.end()) return call_function(e, *f->second);
  if (const Builtin* b = find_builtin(n)) return b->handler(*this, e);
  if (Scope::Entry* local = lookup_local(n)) {
    error(e.callee.range, "'" + n + "' is a value, not a function").note(local->range, "bound here");
    return Value::error();
  }
  auto b = error(e.callee.range, "unknown function '" + n + "'");
  explain_unknown_function(b, n);
  return Value::error();
}

void Checker::explain_unknown_function(DiagnosticBuilder& b, const std::string& name) {
  if (auto hint = jax_spelling_hint(name)) {
    b.note(*hint);
    return;
  }
  std::vector<std::string_view> names = builtin_names();
  for (const auto& [function_name, function] : functions_) names.push_back(function_name);
  if (auto near = closest_name(name, names)) b.note("did you mean '" + *near + "'?");
}

}  // namespace shardc::check

// The statement walker: let/var bindings, assignments (a var keeps its type), static
// `for` unrolling, static `if`, and `return` with the result checks (JAX's vma check
// for shard_map outputs).
#include <limits>

#include "frontend/check/checked_math.h"
#include "frontend/check/checker.h"
#include "frontend/check/dtype_rules.h"
#include "frontend/check/rules_collectives.h"
#include "frontend/check/sharding_spec.h"
#include "frontend/internal_error.h"

namespace shardc::check {
namespace {

// The printable type of a value bound to a name (static values included).
std::optional<Type> binding_type(const Value& v) {
  if (v.kind == Value::Kind::typed) return v.type;
  if (v.kind == Value::Kind::seq) {
    std::vector<Type> ts;
    for (const Value& i : v.items) {
      auto t = binding_type(i);
      if (!t) return std::nullopt;
      ts.push_back(*t);
    }
    return make_tuple(std::move(ts));
  }
  return std::nullopt;
}

}  // namespace

Checker::Scope::Entry* Checker::lookup_local(const std::string& name) {
  if (!ctx_) return nullptr;
  for (auto it = ctx_->scopes.rbegin(); it != ctx_->scopes.rend(); ++it) {
    auto f = it->names.find(name);
    if (f != it->names.end()) return &f->second;
  }
  return nullptr;
}

void Checker::exec_block(const ast::BlockStmt& b, bool new_scope) {
  if (new_scope) ctx_->scopes.emplace_back();
  for (std::size_t i = 0; i < b.statements.size(); ++i) {
    const ast::Stmt& s = *b.statements[i];
    if (ctx_->returned) {
      error(s.range, "statement after return").note("return must be the last statement of a function body");
      break;
    }
    exec(s);
  }
  if (new_scope) ctx_->scopes.pop_back();
}

void Checker::exec(const ast::Stmt& s) {
  switch (s.kind) {
    case ast::NodeKind::LetStmt: exec_let(static_cast<const ast::LetStmt&>(s)); break;
    case ast::NodeKind::AssignStmt: exec_assign(static_cast<const ast::AssignStmt&>(s)); break;
    case ast::NodeKind::ForStmt: exec_for(static_cast<const ast::ForStmt&>(s)); break;
    case ast::NodeKind::IfStmt: exec_if(static_cast<const ast::IfStmt&>(s)); break;
    case ast::NodeKind::BlockStmt: exec_block(static_cast<const ast::BlockStmt&>(s)); break;
    case ast::NodeKind::ReturnStmt: {
      const auto& r = static_cast<const ast::ReturnStmt&>(s);
      if (ctx_->scopes.size() > 1 && ctx_->fn_stack.empty()) {
        error(r.range, "return inside a block")
            .note("return must be the last statement of a function body")
            .note("to choose a value, return where(c, a, b), or assign a var in the branches and return it "
                  "after the if");
        ctx_->misplaced_return = true;
        return;
      }
      ctx_->returned = r.value ? eval(*r.value) : Value::error();
      if (!r.value) ctx_->returned->kind = Value::Kind::seq;  // `return;` returns nothing
      // Set after eval, whose inlined fn calls return too: an error about result i points at
      // the i-th element of `return (a, b)`.
      ctx_->returned_ranges.clear();
      if (const auto* t = r.value ? ast::dyn_cast<ast::TupleExpr>(r.value.get()) : nullptr)
        for (const auto& e : t->elements) ctx_->returned_ranges.push_back(e->range);
      else if (r.value)
        ctx_->returned_ranges.push_back(r.value->range);
      break;
    }
    case ast::NodeKind::ExprStmt: {
      const auto& e = static_cast<const ast::ExprStmt&>(s);
      Value v = eval(*e.expr);
      if (!v.is_error()) error(e.range, "value computed and discarded").note("bind it with let, or remove it");
      break;
    }
    default: SHARDC_ASSERT(false, "unhandled statement kind");
  }
}

void Checker::exec_let(const ast::LetStmt& s) {
  Value v = eval(*s.value);
  if (s.type && !v.is_error()) {
    auto t = resolve_type(*s.type, true);
    if (!t) {
      v = Value::error();
    } else if (auto msg = literal_fits(v, t->dtype); msg && t->is_array()) {
      error(s.value->range, *msg).note("the binding is declared " + to_string(*t));
      v = Value::error();
    } else if (v.kind != Value::Kind::typed || !(v.type == *t)) {
      bool static_ok = v.is_static_scalar() && t->is_array() && t->dims.empty() && v.type.dtype == t->dtype;
      if (!static_ok) {
        auto b = error(s.value->range, "the value has type " +
                                           (binding_type(v) ? to_string(*binding_type(v)) : describe_dynamic(v)) +
                                           ", but the binding is declared " + to_string(*t));
        if (!manual() && v.is_array() && v.type.shape() == t->shape() && v.type.dtype == t->dtype)
          b.note("shardings differ: use reshard(value, " + format_spec(*mesh(), t->dims) + ") to change the layout");
        v = Value::error();
      }
    }
  }
  bind(*s.target, v, s.is_var, s.type.get());
}

bool Checker::bindable(const ast::Identifier& name) {
  const std::string& n = name.name;
  if (is_builtin_name(n) || functions_.count(n) || consts_.count(n) || meshes_.count(n)) {
    error(name.range, "'" + n + "' is " +
                          (is_builtin_name(n) ? std::string("a built-in function")
                           : functions_.count(n) ? std::string("a function")
                           : consts_.count(n)    ? std::string("a const")
                                                 : std::string("a mesh")) +
                          " and cannot be rebound");
    return false;
  }
  if (mesh() && mesh()->find_axis(n)) {
    error(name.range, "'" + n + "' is an axis of mesh " + mesh()->name + " and cannot be rebound");
    return false;
  }
  return true;
}

void Checker::bind(const ast::Pattern& p, const Value& v, bool is_var, const ast::TypeAnnotation* annotation) {
  switch (p.pattern_kind) {
    case ast::PatternKind::wildcard: return;
    case ast::PatternKind::tuple: {
      if (v.is_error()) {
        for (const auto& e : p.elements) bind(*e, v, is_var, nullptr);
        return;
      }
      if (v.kind != Value::Kind::seq || v.items.size() != p.elements.size()) {
        error(p.range, "cannot destructure into " + std::to_string(p.elements.size()) + " names: " +
                           (v.kind == Value::Kind::seq ? "the value has " + std::to_string(v.items.size()) + " elements"
                                                       : describe_dynamic(v)));
        for (const auto& e : p.elements) bind(*e, Value::error(), is_var, nullptr);
        return;
      }
      for (std::size_t i = 0; i < p.elements.size(); ++i) bind(*p.elements[i], v.items[i], is_var, nullptr);
      return;
    }
    case ast::PatternKind::name: break;
  }
  const std::string& n = p.name.name;
  if (!bindable(p.name)) {
    // Bound to an error so that its uses report nothing more (they would otherwise reach
    // the const, function or axis of that name).
    ctx_->scopes.back().names[n] = Scope::Entry{Value::error(), is_var, p.name.range};
    return;
  }
  // A var array is never weak: its value may be replaced, and in a loop JAX promotes a weak
  // carry to the strong type (`var v = where(c, 0.0, 1.0)` is a float32 var).
  Value bound = v;
  if (is_var && bound.kind == Value::Kind::typed && bound.type.is_array()) bound.type.weak = false;
  ctx_->scopes.back().names[n] = Scope::Entry{bound, is_var, p.name.range};
  if (out_->node_types.size() > p.id)
    if (auto t = binding_type(bound)) out_->node_types[p.id] = *t;
  if (auto t = binding_type(bound); t && ctx_->out)
    ctx_->out->bindings.push_back(Binding{n, p.id, p.name.range, *t, bound.kind == Value::Kind::typed ? bound.id : -1});
}

void Checker::assign(const ast::Pattern& p, const Value& v, const SourceRange& stmt_range) {
  if (p.pattern_kind == ast::PatternKind::wildcard) return;
  if (p.pattern_kind == ast::PatternKind::tuple) {
    if (v.is_error()) return;
    if (v.kind != Value::Kind::seq || v.items.size() != p.elements.size()) {
      error(p.range, "cannot assign to " + std::to_string(p.elements.size()) + " names from this value");
      return;
    }
    for (std::size_t i = 0; i < p.elements.size(); ++i) assign(*p.elements[i], v.items[i], stmt_range);
    return;
  }
  Scope::Entry* e = lookup_local(p.name.name);
  if (!e) {
    error(p.name.range, "unknown name '" + p.name.name + "'").note("declare it first with `var " + p.name.name + " = ...;`");
    return;
  }
  if (!e->is_var) {
    error(p.name.range, "cannot assign to '" + p.name.name + "': it is not a var")
        .note(e->range, "declared here; use `var` to make it assignable");
    return;
  }
  if (v.is_error() || e->value.is_error()) {
    e->value = Value::error();
    return;
  }
  const Value& old = e->value;
  bool ok = old.kind == Value::Kind::typed && v.kind == Value::Kind::typed;
  if (ok && old.is_static_scalar() && !v.is_static_scalar()) {
    error(stmt_range, "var '" + p.name.name + "' holds a static value and cannot be assigned a runtime value of type " +
                          to_string(v.type))
        .note("declare it with a runtime initial value instead");
    return;
  }
  if (ok) {
    auto err = check_var_assignment(p.name.name, old.type, v.type);
    bool vma_only = err && unchecked() && old.type.is_array() && v.type.is_array() &&
                    old.type.shape() == v.type.shape() && old.type.dtype == v.type.dtype;
    if (err && !vma_only) {
      report(*err, stmt_range);
      return;
    }
  } else {
    error(stmt_range, "var '" + p.name.name + "' cannot be assigned this value").note(describe_dynamic(v));
    return;
  }
  Value nv = v;
  if (!old.is_static_scalar()) nv.type = old.type.is_array() && unchecked() ? v.type : old.type;
  e->value = nv;
  if (ctx_->out) ctx_->out->bindings.push_back(Binding{p.name.name, p.id, p.name.range, nv.type, nv.id});
}

void Checker::exec_assign(const ast::AssignStmt& s) {
  Value v = eval(*s.value);
  if (s.op != ast::AssignOp::assign) {
    if (s.target->pattern_kind != ast::PatternKind::name) {
      error(s.op_range, "a compound assignment needs a single name on its left");
      return;
    }
    Scope::Entry* e = lookup_local(s.target->name.name);
    if (!e) {
      error(s.target->name.range, "unknown name '" + s.target->name.name + "'");
      return;
    }
    if (!v.is_error() && !e->value.is_error())
      v = binary_values(ast::compound_binary_op(s.op), e->value, v, *s.value, s.op_range, s.target->range,
                        s.value->range);
    else
      v = Value::error();
  }
  assign(*s.target, v, s.range);
}

void Checker::exec_for(const ast::ForStmt& s) {
  auto b = static_int(eval(*s.begin), s.begin->range, "the bound of a for loop");
  auto e = static_int(eval(*s.end), s.end->range, "the bound of a for loop");
  if (!b || !e) {
    resolve_unrun_loop_body(s);  // its names are still checked, as in a loop of no iterations
    return;
  }
  // The count overflows only beyond i64 (e.g. from INT64_MIN): then it is simply more than the
  // unrolling limit, which stops the loop below.
  std::int64_t n = *e > *b ? checked_sub(*e, *b).value_or(std::numeric_limits<std::int64_t>::max()) : 0;
  if (n == 0) resolve_unrun_loop_body(s);
  for (std::int64_t k = 0; k < n; ++k) {
    std::int64_t i = s.reversed ? *e - 1 - k : *b + k;
    count_op(s.range);  // iterations count toward the unrolling limit, so empty bodies cannot hang
    ctx_->scopes.emplace_back();
    bind(*s.variable, Value::static_value(make_static_int(i)), false, nullptr);
    const std::string variable = s.variable->pattern_kind == ast::PatternKind::name ? s.variable->name.name : "_";
    ctx_->loops.push_back({variable, i, s.variable->range});
    exec_block(*s.body, false);
    ctx_->loops.pop_back();
    ctx_->scopes.pop_back();
    if (ctx_->returned) break;
  }
}

void Checker::exec_if(const ast::IfStmt& s) {
  auto c = static_bool(eval(*s.condition), s.condition->range, "the condition of an if");
  if (!c) {
    // Neither branch can be told to run: both have their names checked, as an untaken one.
    resolve_untaken_branch(*s.then_branch);
    if (s.else_branch) resolve_untaken_branch(*s.else_branch);
    return;
  }
  if (*c) {
    exec_block(*s.then_branch);
    if (s.else_branch) resolve_untaken_branch(*s.else_branch);
  } else {
    resolve_untaken_branch(*s.then_branch);
    if (s.else_branch) exec(*s.else_branch);
  }
}

void Checker::check_results(const ast::FunctionDecl& d, const Value& v, const SourceRange& stmt_range) {
  if (v.is_error()) return;
  CheckedFunction& f = *ctx_->out;
  std::vector<Value> values;
  // `return;` is the empty tuple: zero values (not one value that is a tuple) for the count.
  const bool nothing = v.kind == Value::Kind::seq && v.items.empty();
  // A tuple of several values for one declared result is a count mismatch, reported as one.
  const bool one_result = d.results.size() == 1 && !d.tuple_result;
  if (one_result && !nothing && !(v.kind == Value::Kind::seq && v.items.size() > 1)) values.push_back(v);
  else if (v.kind == Value::Kind::seq) values = v.items;
  else values.push_back(v);
  if (values.size() != f.result_types.size()) {
    auto count = [](std::size_t n, const char* noun) {
      return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
    };
    error(stmt_range, std::string(ast::function_kind_name(d.function_kind)) + " '" + d.name.name + "' returns " +
                 count(values.size(), "value") + ", but declares " + count(f.result_types.size(), "result"));
    return;
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    const Value& val = values[i];
    const Type& want = f.result_types[i];
    // The returned element's own place when the return statement spells the values out.
    const SourceRange r = ctx_->returned_ranges.size() == values.size() ? ctx_->returned_ranges[i] : stmt_range;
    SourceRange where = d.results[i]->range;
    if (val.is_error()) continue;
    if (val.kind != Value::Kind::typed) {
      error(r, "result " + std::to_string(i) + " is not a value").note(describe_dynamic(val));
      continue;
    }
    Value m = val;
    if (val.is_static_scalar() && want.is_array() && want.dims.empty()) {
      // A static result joins the declared dtype as a static operand does (section 7): an
      // int must fit it, and a float or int does not become a narrower kind (2.5 with
      // int32 is float32).
      if (auto msg = literal_fits(val, want.dtype)) {
        error(r, *msg).note(where, "the result type is declared here");
        continue;
      }
      DType joined = promote({val.type.dtype, val.type.weak}, {want.dtype, false}).dtype;
      if (joined != want.dtype) {
        error(r, std::string(ast::function_kind_name(d.function_kind)) + " '" + d.name.name + "' result " +
                     std::to_string(i) + " is " + to_string(val.type) + ", which joins " +
                     std::string(shard::dtype_name(want.dtype)) + " as " + std::string(shard::dtype_name(joined)) +
                     ", but is declared " + to_string(want))
            .note(where, "the result type is declared here");
        continue;
      }
    }
    if (val.is_static_scalar()) {
      m = materialize(val, *d.body);
      // A literal returned as a scalar result takes the result's dtype (it is weak).
      if (want.is_array() && want.dims.empty() && m.type.dims.empty()) {
        m = emit("convert", *d.body, {m}, want, {{"dtype", std::string(shard::dtype_short_name(want.dtype))}});
      }
    }
    // A weak array joins the declared dtype as a literal does: `-> bf16[8@X] { return where(c,
    // 0.5, 1.0); }` converts it, as adding it to a bf16 array would.
    if (m.kind == Value::Kind::typed && m.type.is_array() && m.type.weak && want.is_array() &&
        m.type.dtype != want.dtype && promote({m.type.dtype, true}, {want.dtype, false}).dtype == want.dtype) {
      Type converted = m.type;
      converted.dtype = want.dtype;
      converted.weak = false;
      m = emit("convert", *d.body, {m}, converted, {{"dtype", std::string(shard::dtype_short_name(want.dtype))}});
    }
    if (ctx_->manual) {
      Type block = m.type;
      if (block.is_array() && block.weak && block.dims.empty()) block.dtype = want.dtype;
      if (auto e = check_output(block, want, static_cast<int>(i), d.tuple_result, !f.unchecked)) {
        auto b = error(r, e->message);
        for (const auto& n : e->notes) b.note(n);
        b.note(where, "the out type is declared here");
        continue;
      }
    } else if (!(m.type == want)) {
      auto b = error(r, std::string(ast::function_kind_name(d.function_kind)) + " '" + d.name.name + "' result " +
                            std::to_string(i) + " has type " + to_string(m.type) + ", but is declared " +
                            to_string(want));
      if (m.type.is_array() && m.type.shape() == want.shape() && m.type.dtype == want.dtype)
        b.note("shardings differ: return reshard(value, " + format_spec(*want.mesh, want.dims) + ")");
      if (want.mesh && want.mesh->auto_mode)
        b.note("auto sharding propagation is not implemented yet: on an auto mesh the result would be resharded for you");
      b.note(where, "the result type is declared here");
      continue;
    }
    f.results.push_back(m.id);
  }
}

}  // namespace shardc::check

// Code that is not traced is not type-checked: the branch of a static `if` that is not taken
// (it may mention shapes that only make sense when taken, as JAX's tracing of Python `if`
// does), the body of a `for` whose range is empty, and an fn helper that no func or shard_map
// reaches. Its names are resolved and its calls' arguments bound all the same
// (docs/language.md, "if", "for" and "fn"): a misspelt name, function or keyword is an error
// whichever way a -D flips a condition or a bound, and whether or not a helper is called yet.
#include "frontend/check/builtin_args.h"
#include "frontend/check/checker.h"

namespace shardc::check {

// Names bound inside the untaken branch, innermost block last.
struct Checker::UntakenScopes {
  std::vector<std::vector<std::string>> blocks{{}};

  bool bound(const std::string& name) const {
    for (const auto& b : blocks)
      for (const auto& n : b)
        if (n == name) return true;
    return false;
  }
  void bind(const ast::Pattern& p) {
    if (p.pattern_kind == ast::PatternKind::name) blocks.back().push_back(p.name.name);
    for (const auto& e : p.elements) bind(*e);
  }
};

void Checker::resolve_untaken_branch(const ast::Stmt& branch) {
  if (!first_resolution(branch)) return;
  UntakenScopes scopes;
  resolve_untaken(branch, scopes);
}

void Checker::resolve_unrun_loop_body(const ast::ForStmt& loop) {
  if (!first_resolution(*loop.body)) return;
  UntakenScopes scopes;
  scopes.bind(*loop.variable);
  resolve_untaken(*loop.body, scopes);
}

bool Checker::first_resolution(const ast::Stmt& s) {
  // The names in scope at a statement are the same in every trace (blocks are lexical, fn
  // bodies see only their parameters): only the mesh its axes are checked against can differ.
  return resolved_untaken_.emplace(&s, untaken_axes_mesh()).second;
}

void Checker::resolve_untraced_fns() {
  for (const auto& d : module_.decls)
    if (const auto* f = ast::dyn_cast<ast::FunctionDecl>(d.get());
        f && f->function_kind == ast::FunctionKind::fn && !traced_fns_.count(f))
      resolve_untraced_function(*f);
}

void Checker::resolve_untraced_function(const ast::FunctionDecl& d) {
  // Outside any trace: no locals, and no mesh to take axes from (but a func's or shard_map's own
  // mesh when its signature failed: check_function). The types of a func's or shard_map's
  // parameters were checked with its signature; an fn's are checked at each call.
  UntakenScopes scopes;
  for (const auto& p : d.params) {
    if (p->type && d.function_kind == ast::FunctionKind::fn) resolve_untaken(*p->type, scopes);
    scopes.blocks.back().push_back(p->name.name);
  }
  resolve_untaken(*d.body, scopes);
}

const Mesh* Checker::untaken_axes_mesh() const {
  return ctx_ && ctx_->fn_stack.empty() ? ctx_->mesh : nullptr;
}

bool Checker::is_axis_name(const std::string& name) const {
  if (const Mesh* m = untaken_axes_mesh()) return m->find_axis(name).has_value();
  return declared_axes_.count(name) > 0;
}

void Checker::check_untaken_axis(const ast::Identifier& axis) {
  if (const Mesh* m = untaken_axes_mesh()) {
    mesh_axis(axis, *m);
    return;
  }
  if (!declared_axes_.count(axis.name))
    error(axis.range, "unknown axis '" + axis.name + "'").note("no mesh of this module has an axis of that name");
}

void Checker::resolve_untaken(const ast::Stmt& s, UntakenScopes& scopes) {
  switch (s.kind) {
    case ast::NodeKind::BlockStmt: {
      scopes.blocks.emplace_back();
      for (const auto& st : static_cast<const ast::BlockStmt&>(s).statements) resolve_untaken(*st, scopes);
      scopes.blocks.pop_back();
      return;
    }
    case ast::NodeKind::LetStmt: {
      const auto& l = static_cast<const ast::LetStmt&>(s);
      if (l.type) resolve_untaken(*l.type, scopes);
      resolve_untaken(*l.value, scopes);
      scopes.bind(*l.target);
      return;
    }
    case ast::NodeKind::AssignStmt: {
      const auto& a = static_cast<const ast::AssignStmt&>(s);
      resolve_untaken(*a.value, scopes);
      resolve_untaken_target(*a.target, scopes);
      return;
    }
    case ast::NodeKind::ForStmt: {
      const auto& f = static_cast<const ast::ForStmt&>(s);
      resolve_untaken(*f.begin, scopes);
      resolve_untaken(*f.end, scopes);
      scopes.blocks.emplace_back();
      scopes.bind(*f.variable);
      resolve_untaken(*f.body, scopes);
      scopes.blocks.pop_back();
      return;
    }
    case ast::NodeKind::IfStmt: {
      const auto& i = static_cast<const ast::IfStmt&>(s);
      resolve_untaken(*i.condition, scopes);
      resolve_untaken(*i.then_branch, scopes);
      if (i.else_branch) resolve_untaken(*i.else_branch, scopes);
      return;
    }
    case ast::NodeKind::ReturnStmt: {
      const auto& r = static_cast<const ast::ReturnStmt&>(s);
      if (r.value) resolve_untaken(*r.value, scopes);
      return;
    }
    case ast::NodeKind::ExprStmt:
      resolve_untaken(*static_cast<const ast::ExprStmt&>(s).expr, scopes);
      return;
    default:
      return;
  }
}

void Checker::resolve_untaken_target(const ast::Pattern& p, UntakenScopes& scopes) {
  if (p.pattern_kind == ast::PatternKind::name && !scopes.bound(p.name.name) && !lookup_local(p.name.name))
    error(p.name.range, "unknown name '" + p.name.name + "'");
  for (const auto& e : p.elements) resolve_untaken_target(*e, scopes);
}

void Checker::resolve_untaken(const ast::TypeAnnotation& t, UntakenScopes& scopes) {
  for (const auto& d : t.dims) {
    if (d.size) resolve_untaken(*d.size, scopes);
    for (const auto& a : d.axes) check_untaken_axis(a);
  }
  if (t.varying)
    for (const auto& a : *t.varying) check_untaken_axis(a);
}

void Checker::resolve_untaken(const ast::Expr& e, UntakenScopes& scopes) {
  switch (e.kind) {
    case ast::NodeKind::NameExpr: {
      const std::string& n = static_cast<const ast::NameExpr&>(e).name;
      const bool known = scopes.bound(n) || lookup_local(n) || consts_.count(n) || is_axis_name(n) ||
                         functions_.count(n) || is_builtin_name(n) || meshes_.count(n);
      if (!known) {
        auto b = error(e.range, "unknown name '" + n + "'");
        explain_unknown_name(b, n);
      }
      return;
    }
    case ast::NodeKind::UnaryExpr:
      resolve_untaken(*static_cast<const ast::UnaryExpr&>(e).operand, scopes);
      return;
    case ast::NodeKind::BinaryExpr: {
      const auto& b = static_cast<const ast::BinaryExpr&>(e);
      resolve_untaken(*b.lhs, scopes);
      resolve_untaken(*b.rhs, scopes);
      return;
    }
    case ast::NodeKind::CallExpr: {
      const auto& c = static_cast<const ast::CallExpr&>(e);
      const std::string& n = c.callee.name;
      const auto callee = functions_.find(n);
      if (callee == functions_.end() && !is_builtin_name(n) && !scopes.bound(n) && !lookup_local(n)) {
        auto b = error(c.callee.range, "unknown function '" + n + "'");
        explain_unknown_function(b, n);
      }
      // A call binds its arguments as a traced call would, to the module's own function or to
      // a built-in's signature: a misspelt keyword or a wrong count is reported too.
      if (!scopes.bound(n) && !lookup_local(n)) {
        if (callee != functions_.end())
          bind_arguments(c, *callee->second);
        else if (const Builtin* b = find_builtin(n))
          check_builtin_arguments(*this, c, b->signature);
      }
      for (const auto& a : c.args) resolve_untaken(*a.value, scopes);
      return;
    }
    case ast::NodeKind::TupleExpr:
      for (const auto& x : static_cast<const ast::TupleExpr&>(e).elements) resolve_untaken(*x, scopes);
      return;
    case ast::NodeKind::ListExpr:
      for (const auto& x : static_cast<const ast::ListExpr&>(e).elements) resolve_untaken(*x, scopes);
      return;
    case ast::NodeKind::IndexExpr: {
      const auto& i = static_cast<const ast::IndexExpr&>(e);
      resolve_untaken(*i.base, scopes);
      for (const auto& x : i.indices) resolve_untaken(*x, scopes);
      return;
    }
    case ast::NodeKind::SliceExpr: {
      const auto& s = static_cast<const ast::SliceExpr&>(e);
      for (const auto* part : {s.begin.get(), s.end.get(), s.step.get()})
        if (part) resolve_untaken(*part, scopes);
      return;
    }
    case ast::NodeKind::AttributeExpr:
      resolve_untaken(*static_cast<const ast::AttributeExpr&>(e).base, scopes);
      return;
    case ast::NodeKind::TypeExpr:
      resolve_untaken(*static_cast<const ast::TypeExpr&>(e).type, scopes);
      return;
    default:
      return;  // literals
  }
}

}  // namespace shardc::check

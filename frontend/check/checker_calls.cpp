// Calls of the module's own functions. An `fn` is inlined: its body is walked in the
// caller's context with the parameters bound to the argument values (arrays, static
// values, axis groups, keys). A `func` or `shard_map` called from a func is a call op
// whose arguments must have exactly the parameter types (no silent layout change).
#include <algorithm>
#include <optional>

#include "frontend/check/checker.h"
#include "frontend/check/sharding_spec.h"

namespace shardc::check {

namespace {
// "a -> b -> c -> " for the functions of a cycle, in call order; beyond eight, the first
// three and the last three with a count of those between.
std::string cycle_path(const std::vector<const ast::FunctionDecl*>& cycle) {
  std::string text;
  auto add = [&](std::size_t i) { text += cycle[i]->name.name + " -> "; };
  const std::size_t n = cycle.size();
  if (n <= 8) {
    for (std::size_t i = 0; i < n; ++i) add(i);
    return text;
  }
  for (std::size_t i = 0; i < 3; ++i) add(i);
  text += "... (" + std::to_string(n - 6) + " more) -> ";
  for (std::size_t i = n - 3; i < n; ++i) add(i);
  return text;
}
}  // namespace

std::optional<std::vector<const ast::Expr*>> Checker::bind_arguments(const ast::CallExpr& call,
                                                                    const ast::FunctionDecl& callee) {
  // By position, then keyword.
  const std::string& name = callee.name.name;
  std::vector<const ast::Expr*> bound(callee.params.size(), nullptr);
  std::size_t positional = 0;
  for (const ast::Argument& a : call.args) {
    std::size_t slot = positional;
    if (a.keyword) {
      auto it = std::find_if(callee.params.begin(), callee.params.end(),
                             [&](const auto& p) { return p->name.name == a.keyword->name; });
      if (it == callee.params.end()) {
        error(a.keyword->range, "'" + name + "' has no parameter named '" + a.keyword->name + "'")
            .note(callee.name.range, "declared here");
        return std::nullopt;
      }
      slot = static_cast<std::size_t>(it - callee.params.begin());
    } else {
      ++positional;
    }
    if (slot >= bound.size()) {
      error(a.range, "'" + name + "' takes " + std::to_string(callee.params.size()) + " arguments")
          .note(callee.name.range, "declared here");
      return std::nullopt;
    }
    if (bound[slot]) {
      error(a.range, "parameter '" + callee.params[slot]->name.name + "' of '" + name + "' is given twice");
      return std::nullopt;
    }
    bound[slot] = a.value.get();
  }
  for (std::size_t i = 0; i < bound.size(); ++i)
    if (!bound[i]) {
      error(call.range, "missing argument '" + callee.params[i]->name.name + "' of '" + name + "'")
          .note(callee.name.range, "declared here");
      return std::nullopt;
    }
  return bound;
}

Value Checker::call_function(const ast::CallExpr& call, const ast::FunctionDecl& callee) {
  const std::string& name = callee.name.name;
  if (!ctx_) {
    error(call.range, "functions can only be called inside function bodies");
    return Value::error();
  }
  const auto binding = bind_arguments(call, callee);
  if (!binding) return Value::error();
  const std::vector<const ast::Expr*>& bound = *binding;
  std::vector<Value> args;
  for (const ast::Expr* e : bound) {
    args.push_back(eval(*e));
    if (args.back().is_error()) return Value::error();
  }

  if (callee.function_kind == ast::FunctionKind::fn) {
    if (std::find(ctx_->fn_stack.begin(), ctx_->fn_stack.end(), &callee) != ctx_->fn_stack.end()) {
      std::string cycle;
      bool in = false;
      for (const auto* f : ctx_->fn_stack) {
        in = in || f == &callee;
        if (in) cycle += f->name.name + " -> ";
      }
      error(call.range, "recursive fn: " + cycle + name).note("fn helpers are inlined; recursion cannot be unrolled");
      return Value::error();
    }
    if (static_cast<int>(ctx_->fn_stack.size()) >= kMaxInlineDepth) {
      error(call.range, "fn calls nest deeper than " + std::to_string(kMaxInlineDepth));
      return Value::error();
    }
    // Each inlining counts toward the unrolling limit, as a loop iteration does: helpers that
    // call the next one twice on static values emit no ops, yet would take 2^depth steps.
    count_op(call.range);
    traced_fns_.insert(&callee);
    // Typed fn parameters are checked at each call.
    std::vector<Scope> saved = std::move(ctx_->scopes);
    std::optional<Value> saved_return = std::move(ctx_->returned);
    ctx_->scopes.clear();
    ctx_->scopes.emplace_back();
    ctx_->returned.reset();
    ctx_->fn_stack.push_back(&callee);
    ctx_->fn_calls.push_back(call.range);
    bool ok = true;
    for (std::size_t i = 0; i < args.size() && ok; ++i) {
      const ast::Param& p = *callee.params[i];
      if (p.type) {
        auto t = resolve_type(*p.type, true);
        // A number for a rank-0 parameter becomes an array of its dtype, as a func's argument
        // does (`scale(x, 2.0)` for `s: f32`), when it fits.
        std::optional<std::string> misfit;
        const Value given = args[i];
        if (t && t->is_array() && t->dims.empty() && args[i].is_static_scalar()) {
          misfit = literal_fits(args[i], t->dtype);
          if (!misfit) args[i] = materialize(args[i], *bound[i]);
        }
        if (!t) ok = false;
        else if (misfit || args[i].kind != Value::Kind::typed || !(args[i].type == *t)) {
          // The caller's mistake, reported at its argument: not "reached inside" the callee.
          ctx_->fn_stack.pop_back();
          ctx_->fn_calls.pop_back();
          const Value& a = given;
          auto report = error(bound[i]->range, misfit ? *misfit
                                                      : "argument '" + p.name.name + "' of '" + name + "' has type " +
                                                            (a.kind == Value::Kind::typed ? to_string(a.type) : describe_dynamic(a)) +
                                                            ", but the fn expects " + to_string(*t));
          report.note(p.range, "parameter declared here");
          if (a.kind == Value::Kind::typed && a.type.is_array() && t->is_array() && a.type.local && t->local &&
              a.type.shape() == t->shape() && a.type.dtype == t->dtype && a.type.varying != t->varying) {
            Type written = *t;
            written.varying = a.type.varying;
            report.note("a written type states which axes the block varies over: `" + to_string(written) +
                        "` here; an untyped parameter takes any block");
          } else if (!misfit && !(a.is_static_scalar() && t->is_array() && t->dims.empty()) &&
                     (a.kind != Value::Kind::typed || !a.type.is_array())) {
            report.note("a typed fn parameter takes an array; an untyped one takes static values too");
          }
          ctx_->fn_stack.push_back(&callee);
          ctx_->fn_calls.push_back(call.range);
          ok = false;
        }
      }
      // As `let` (checked per call: the axes are the caller's mesh's).
      ctx_->scopes.back().names[p.name.name] =
          Scope::Entry{bindable(p.name) ? args[i] : Value::error(), false, p.name.range};
    }
    // The parameters after a bad one are not bound; the body's names are still resolved.
    for (std::size_t i = 0; i < args.size(); ++i)
      ctx_->scopes.back().names.try_emplace(callee.params[i]->name.name,
                                            Scope::Entry{Value::error(), false, callee.params[i]->name.range});
    Value result = Value::error();
    try {
      if (ok) exec_block(*callee.body, false);
      else resolve_untaken_branch(*callee.body);
    } catch (...) {
      ctx_->fn_stack.pop_back();
      ctx_->fn_calls.pop_back();
      ctx_->scopes = std::move(saved);
      ctx_->returned = std::move(saved_return);
      throw;
    }
    if (ok && ctx_->returned) result = *ctx_->returned;
    ctx_->fn_stack.pop_back();
    ctx_->fn_calls.pop_back();
    ctx_->scopes = std::move(saved);
    ctx_->returned = std::move(saved_return);
    return result;
  }

  // func / shard_map called from a func (not from a shard_map body or an fn helper).
  if (manual()) {
    error(call.callee.range, "a shard_map body may call fn helpers only; '" + name + "' is a " +
                                 std::string(ast::function_kind_name(callee.function_kind)));
    return Value::error();
  }
  if (!ctx_->fn_stack.empty()) {
    error(call.callee.range, "an fn helper may not call the " +
                                 std::string(ast::function_kind_name(callee.function_kind)) + " '" + name + "'")
        .note("call it from the func that uses the helper");
    return Value::error();
  }
  const ast::FunctionDecl* caller = ctx_->out->decl;
  if (traced_calls_.emplace(caller, &callee).second) call_edges_.push_back(CallEdge{caller, &callee, call.range});
  const Signature* sig = signature_of(callee);
  if (!sig) return Value::error();  // reported once, with the callee
  const Mesh* callee_mesh = sig->mesh;
  const std::vector<Type>& params = sig->params;
  const std::vector<Type>& results = sig->results;
  if (callee_mesh != mesh()) {
    error(call.range, "'" + name + "' runs on mesh " + callee_mesh->name + ", but the caller runs on mesh " +
                          mesh()->name)
        .note("Mesh for all inputs should be equal: a call stays on its caller's mesh");
    return Value::error();
  }
  for (std::size_t i = 0; i < args.size(); ++i) {
    Value a = args[i];
    if (auto msg = literal_fits(a, params[i].dtype); msg && params[i].is_array()) {
      error(bound[i]->range, *msg).note("parameter " + std::to_string(i) + " of " + name + " is " + to_string(params[i]));
      return Value::error();
    }
    if (a.is_static_scalar() && params[i].is_array() && params[i].dims.empty()) a = materialize(a, call);
    if (a.kind != Value::Kind::typed || !(a.type == params[i])) {
      auto b = error(bound[i]->range, "argument " + std::to_string(i) + " of " + name +
                                          (a.kind == Value::Kind::typed ? " has type " + to_string(a.type)
                                                                        : ": " + describe_dynamic(a)) +
                                          ", but " + name + " expects " + to_string(params[i]));
      if (a.is_array() && a.type.shape() == params[i].shape() && a.type.dtype == params[i].dtype)
        b.note("use reshard(x, " + format_spec(*params[i].mesh, params[i].dims) + ") to change the layout first");
      if (mesh()->auto_mode) b.note("auto sharding propagation is not implemented yet: an auto mesh would reshard here");
      return Value::error();
    }
    args[i] = a;
  }
  std::map<std::string, Attr> attrs{{"callee", name},
                                    {"callee_kind", std::string(ast::function_kind_name(callee.function_kind))}};
  // Its replicated results are the lowest device's blocks (docs/language.md 10.4): the lowering
  // hands them to the other devices of each group.
  if (callee.function_kind == ast::FunctionKind::shard_map && callee.unchecked) attrs["callee_unchecked"] = std::int64_t{1};
  auto outs = emit_multi("call", call, args, results, std::move(attrs));
  if (results.size() == 1 && !callee.tuple_result) return outs.front();
  Value seq;
  seq.kind = Value::Kind::seq;
  seq.items = std::move(outs);
  return seq;
}

void Checker::check_call_cycles() {
  // Depth-first over the call edges from each function in declaration order; an edge to a
  // function still on the path closes a cycle (each such edge is reported once). Iterative:
  // a 1 MiB file can chain some 20,000 calls.
  std::unordered_map<const ast::FunctionDecl*, std::vector<const CallEdge*>> calls_from;
  for (const CallEdge& e : call_edges_) calls_from[e.caller].push_back(&e);
  enum class Mark { unvisited, on_path, done };
  std::unordered_map<const ast::FunctionDecl*, Mark> marks;
  struct Frame {
    const ast::FunctionDecl* function;
    const std::vector<const CallEdge*>* edges;
    std::size_t next_edge;
  };
  std::vector<Frame> path;
  for (const auto& d : module_.decls) {
    auto* root = ast::dyn_cast<ast::FunctionDecl>(d.get());
    if (!root || marks[root] != Mark::unvisited) continue;
    marks[root] = Mark::on_path;
    path.push_back({root, &calls_from[root], 0});
    while (!path.empty()) {
      Frame& top = path.back();
      if (top.next_edge == top.edges->size()) {
        marks[top.function] = Mark::done;
        path.pop_back();
        continue;
      }
      const CallEdge& e = *(*top.edges)[top.next_edge++];
      const Mark m = marks[e.callee];
      if (m == Mark::unvisited) {
        marks[e.callee] = Mark::on_path;
        path.push_back({e.callee, &calls_from[e.callee], 0});
      } else if (m == Mark::on_path) {
        auto first = std::find_if(path.begin(), path.end(), [&](const Frame& f) { return f.function == e.callee; });
        std::vector<const ast::FunctionDecl*> cycle;
        for (auto it = first; it != path.end(); ++it) cycle.push_back(it->function);
        error(e.range, "recursive call: " + cycle_path(cycle) + e.callee->name.name)
            .note("a call of a func or shard_map always runs the whole callee (its parameters are arrays, never "
                  "static values), so this cycle never ends");
      }
    }
  }
}

}  // namespace shardc::check

// Module level: meshes, consts with -D overrides, function signatures, and the loop
// that traces every func and shard_map.
#include <algorithm>
#include <cctype>
#include <string_view>

#include "frontend/check/checked_math.h"
#include "frontend/check/checker.h"
#include "frontend/check/sharding_spec.h"
#include "frontend/internal_error.h"

namespace shardc::check {

inline constexpr std::int64_t kMaxDevices = 65'536;

const Mesh* CheckedModule::find_mesh(std::string_view n) const {
  for (const auto& m : meshes)
    if (m->name == n) return m.get();
  return nullptr;
}

const CheckedFunction* CheckedModule::find_function(std::string_view n) const {
  for (const auto& f : functions)
    if (f.name == n) return &f;
  return nullptr;
}

Checker::Checker(const ast::Module& module, const Defines& defines, Diagnostics& diags,
                 const CheckOptions& options)
    : module_(module), defines_(defines), diags_(diags), options_(options), out_(std::make_shared<CheckedModule>()) {
  out_->name = module.name;
  out_->node_types.resize(module.node_count);
}

std::shared_ptr<CheckedModule> Checker::run() {
  declare_meshes_and_consts();
  for (const auto& d : module_.decls)
    if (auto* f = ast::dyn_cast<ast::FunctionDecl>(d.get()); f && f->function_kind != ast::FunctionKind::fn)
      check_function(*f);
  resolve_untraced_fns();
  check_call_cycles();
  // Every diagnostic so far is this module's: the checker's, and what the parser reported about
  // a module it still returned (an unknown element type). The -D notes and the file order take
  // them all in.
  if (diags_.has_errors()) {
    note_overridden_consts();
    diags_.sort_by_location(0);
    return nullptr;
  }
  return out_;
}

namespace {

// Whether `text` contains `name` as a whole identifier.
bool names_identifier(std::string_view text, std::string_view name) {
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (auto at = text.find(name); at != std::string_view::npos; at = text.find(name, at + 1)) {
    bool starts = at == 0 || !ident(text[at - 1]);
    bool ends = at + name.size() == text.size() || !ident(text[at + name.size()]);
    if (starts && ends) return true;
  }
  return false;
}

}  // namespace

void Checker::note_overridden_consts() {
  if (overrides_.empty()) return;
  bool any_named = false;
  std::size_t first_error = diags_.size();
  for (std::size_t i = 0; i < diags_.size(); ++i) {
    const Diagnostic& d = diags_.diagnostics()[i];
    // An unlocated error (a bad -D) says what it is about already.
    if (d.severity != Severity::error || !d.range.valid()) continue;
    first_error = std::min(first_error, i);
    const std::string& text = diags_.sources().file(d.range.file).text();
    std::string_view quoted = std::string_view(text).substr(d.range.begin.offset, d.range.end.offset - d.range.begin.offset);
    for (const Override& o : overrides_) {
      if (!names_identifier(quoted, o.name)) continue;
      DiagnosticBuilder(&diags_, i).note(o.declared_value, "'" + o.name + "' is " + o.given + " here: -D " + o.name +
                                                                "=" + o.spelled + " replaces the declared " + o.declared);
      any_named = true;
    }
  }
  if (any_named || first_error == diags_.size()) return;
  std::string list;
  for (const Override& o : overrides_)
    list += (list.empty() ? "" : ", ") + ("-D " + o.name + "=" + o.spelled + " (declared " + o.declared + ")");
  DiagnosticBuilder(&diags_, first_error).note("this module was checked with " + list);
}

void Checker::declare_meshes_and_consts() {
  std::unordered_map<std::string, SourceRange> seen;
  for (const auto& d : module_.decls) {
    auto [it, fresh] = seen.emplace(d->name.name, d->name.range);
    if (!fresh) {
      error(d->name.range, "'" + d->name.name + "' is declared twice").note(it->second, "first declared here");
      continue;
    }
    if (is_builtin_name(d->name.name)) {
      error(d->name.range, "'" + d->name.name + "' is a built-in function and cannot be redeclared");
      continue;
    }
    if (auto* m = ast::dyn_cast<ast::MeshDecl>(d.get())) check_mesh(*m);
    else if (auto* c = ast::dyn_cast<ast::ConstDecl>(d.get())) check_const(*c);
    else if (auto* f = ast::dyn_cast<ast::FunctionDecl>(d.get())) {
      functions_[f->name.name] = f;
      check_parameter_names(*f);
    }
  }
  for (const Define& def : defines_) {
    bool found = false;
    for (const auto& c : out_->consts) found = found || c.name == def.name;
    if (!found)
      error(SourceRange{}, "-D " + def.name + ": module '" + module_.name + "' declares no const named '" + def.name + "'");
  }
}

void Checker::check_mesh(const ast::MeshDecl& d) {
  // Known but null until it proves valid: a mesh with an error is reported once, here, and
  // its uses (`on m`) report nothing more.
  meshes_[d.name.name] = nullptr;
  for (const ast::MeshAxis& a : d.axes) declared_axes_.insert(a.name.name);
  auto mesh = std::make_unique<Mesh>();
  mesh->name = d.name.name;
  mesh->auto_mode = d.mesh_kind == ast::MeshKind::auto_;
  bool ok = true;
  if (static_cast<int>(d.axes.size()) > kMaxMeshAxes) {
    error(d.range, "mesh '" + d.name.name + "' has " + std::to_string(d.axes.size()) + " axes, more than the limit of " +
                       std::to_string(kMaxMeshAxes));
    return;
  }
  std::int64_t devices = 1;
  for (const ast::MeshAxis& a : d.axes) {
    if (mesh->find_axis(a.name.name)) {
      error(a.name.range, "axis '" + a.name.name + "' appears twice in mesh '" + d.name.name + "'");
      ok = false;
      continue;
    }
    auto size = static_int(eval(*a.size), a.size->range, "a mesh axis size");
    if (!size) {
      ok = false;
      continue;
    }
    if (*size < 1) {
      error(a.size->range, "mesh axis '" + a.name.name + "' has size " + std::to_string(*size) + "; sizes are >= 1");
      ok = false;
      continue;
    }
    auto p = checked_mul(devices, *size);
    if (!p || *p > kMaxDevices) {
      error(a.size->range, "mesh '" + d.name.name + "' has more than " + std::to_string(kMaxDevices) + " devices");
      ok = false;
      break;  // once over, every later axis is too: one error is enough
    }
    devices = *p;
    mesh->axis_names.push_back(a.name.name);
    mesh->axis_sizes.push_back(*size);
  }
  if (d.devices_begin && ok) {
    auto b = static_int(eval(*d.devices_begin), d.devices_begin->range, "a device range bound");
    auto e = static_int(eval(*d.devices_end), d.devices_end->range, "a device range bound");
    if (!b || !e) return;
    if (*b < 0 || *e > kMaxDevices || *e - *b != devices) {
      error(join(d.devices_begin->range, d.devices_end->range),
            "devices " + std::to_string(*b) + ".." + std::to_string(*e) + " do not fit mesh '" + d.name.name +
                "' of " + std::to_string(devices) + " devices")
          .note("the half-open range must start at 0 or more, end at " + std::to_string(kMaxDevices) +
                " or less, and hold exactly the product of the axis sizes");
      return;
    }
    mesh->first_device = *b;
  }
  if (!ok) return;
  meshes_[mesh->name] = mesh.get();
  out_->meshes.push_back(std::move(mesh));
}

void Checker::check_const(const ast::ConstDecl& d) {
  Value v = eval(*d.value);
  if (v.is_error()) {
    consts_[d.name.name] = Value::error();
    return;
  }
  if (!v.is_static_scalar()) {
    // A string, None, a tuple or an axis group is static too, but not a kind a const holds.
    const bool is_static = v.kind != Value::Kind::typed;
    error(d.value->range, "the value of const '" + d.name.name + "' must be " +
                              (is_static ? "an int, float or bool" : "static"))
        .note(describe_dynamic(v));
    consts_[d.name.name] = Value::error();
    return;
  }
  ConstValue cv{d.name.name, *v.type.value, false};
  for (const Define& def : defines_) {
    if (def.name != d.name.name) continue;
    bool want_bool = std::holds_alternative<bool>(cv.value), have_bool = std::holds_alternative<bool>(def.value);
    bool want_int = std::holds_alternative<std::int64_t>(cv.value), have_float = std::holds_alternative<double>(def.value);
    if (want_bool != have_bool || (want_int && have_float)) {
      const char* kind = want_bool ? "bool" : want_int ? "int" : "float";
      error(SourceRange{}, "-D " + def.name + "=" + def.text + " does not match the kind of const '" + def.name +
                               "' (" + kind + ")")
          .note(d.name.range, "the const is declared here");
      continue;
    }
    if (std::holds_alternative<double>(cv.value) && std::holds_alternative<std::int64_t>(def.value))
      cv.value = static_cast<double>(std::get<std::int64_t>(def.value));  // an int may be given for a float const
    else
      cv.value = def.value;
    cv.overridden = true;
    // `given` is the value as the checker reads it (-D B=1_0 is 10), not the spelling.
    overrides_.push_back({d.name.name, d.value->range, format_static(*v.type.value), format_static(cv.value), def.text});
  }
  Type t = v.type;
  t.value = cv.value;
  consts_[d.name.name] = Value::static_value(t);
  out_->consts.push_back(std::move(cv));
}

const Mesh* Checker::function_mesh(const ast::FunctionDecl& d) {
  const bool found = d.mesh ? meshes_.count(d.mesh->name) != 0 : meshes_.size() == 1;
  if (found) return mesh_if_declared(d);  // null for a mesh with errors (reported with it)
  if (d.mesh) {
    auto b = error(d.mesh->range, "unknown mesh '" + d.mesh->name + "'");
    if (!meshes_.empty()) b.note("declared meshes: " + [&] {
      std::string s;
      for (const auto& m : out_->meshes) s += (s.empty() ? "" : ", ") + m->name;
      return s;
    }());
    return nullptr;
  }
  error(d.name.range, std::string(ast::function_kind_name(d.function_kind)) + " '" + d.name.name +
                          "' needs `on MESH`")
      .note(meshes_.empty() ? "the module declares no mesh" : "the module declares several meshes");
  return nullptr;
}

const Mesh* Checker::mesh_if_declared(const ast::FunctionDecl& d) const {
  if (!d.mesh) return meshes_.size() == 1 ? meshes_.begin()->second : nullptr;
  auto it = meshes_.find(d.mesh->name);
  return it == meshes_.end() ? nullptr : it->second;
}

bool Checker::signature(const ast::FunctionDecl& d, const Mesh*& mesh, std::vector<Type>& params,
                        std::vector<Type>& results) {
  mesh = function_mesh(d);
  if (!mesh) return false;
  bool ok = true;
  for (const auto& p : d.params) {
    if (!p->type) {
      error(p->range, "parameter '" + p->name.name + "' of " + std::string(ast::function_kind_name(d.function_kind)) +
                          " '" + d.name.name + "' needs a type");
      ok = false;
      continue;
    }
    auto t = resolve_type(*p->type, false);
    if (!t) ok = false;
    else params.push_back(*t);
  }
  for (const auto& r : d.results) {
    auto t = resolve_type(*r, false);
    if (!t) ok = false;
    else results.push_back(*t);
  }
  return ok;
}

const Checker::Signature* Checker::signature_of(const ast::FunctionDecl& d) {
  if (auto it = signatures_.find(&d); it != signatures_.end()) return it->second ? &*it->second : nullptr;
  signatures_[&d] = std::nullopt;  // a function whose types mention itself cannot loop
  // The signature's types are resolved on the function's mesh, in the global view.
  CheckedFunction scratch;
  FunctionContext sig_ctx;
  sig_ctx.out = &scratch;
  FunctionContext* saved = ctx_;
  ctx_ = &sig_ctx;
  sig_ctx.mesh = function_mesh(d);
  Signature sig;
  bool ok = sig_ctx.mesh && signature(d, sig.mesh, sig.params, sig.results);
  ctx_ = saved;
  if (!ok) return nullptr;
  signatures_[&d] = std::move(sig);
  return &*signatures_[&d];
}

void Checker::check_parameter_names(const ast::FunctionDecl& d) {
  // As in Python: which of two same-named parameters a use or a keyword argument meant would
  // be a guess.
  std::unordered_map<std::string, SourceRange> seen;
  for (const auto& p : d.params) {
    auto [it, fresh] = seen.emplace(p->name.name, p->name.range);
    if (!fresh)
      error(p->name.range, "parameter '" + p->name.name + "' of '" + d.name.name + "' is declared twice")
          .note(it->second, "first declared here");
  }
}

void Checker::check_function(const ast::FunctionDecl& d) {
  FunctionContext ctx;
  CheckedFunction f;
  f.decl = &d;
  f.name = d.name.name;
  f.kind = d.function_kind;
  f.unchecked = d.unchecked;
  f.tuple_result = d.tuple_result;
  const Signature* sig = signature_of(d);
  if (!sig) {
    // Not traced, but a misspelt name in it is still reported, and an axis is checked against
    // the function's mesh when that much of the signature holds.
    FunctionContext names_only;
    names_only.mesh = mesh_if_declared(d);
    if (names_only.mesh) ctx_ = &names_only;
    resolve_untraced_function(d);
    ctx_ = nullptr;
    return;
  }
  const Mesh* mesh = sig->mesh;
  f.param_types = sig->params;
  f.result_types = sig->results;
  f.mesh = mesh;
  ctx.out = &f;
  ctx.mesh = mesh;
  ctx.manual = d.function_kind == ast::FunctionKind::shard_map;
  ctx.unchecked = d.unchecked;
  ctx.scopes.emplace_back();
  ctx_ = &ctx;
  ops_in_function_ = 0;
  for (std::size_t i = 0; i < d.params.size(); ++i) {
    const ast::Param& p = *d.params[i];
    Type local = ctx.manual ? block_type(f.param_types[i]) : f.param_types[i];
    Value v = emit("param", p, {}, local, {{"index", static_cast<std::int64_t>(i)}});
    f.param_names.push_back(p.name.name);
    f.bindings.push_back(Binding{p.name.name, p.id, p.name.range, local, v.id});
    // A parameter follows the naming rule of `let`; one that breaks it is bound to an error.
    ctx.scopes.back().names[p.name.name] = Scope::Entry{bindable(p.name) ? v : Value::error(), false, p.name.range};
  }
  try {
    exec_block(*d.body, false);
    if (!ctx.returned) {
      if (!d.results.empty() && !ctx.misplaced_return)
        error(d.range, std::string(ast::function_kind_name(d.function_kind)) + " '" + d.name.name +
                           "' ends without a return statement");
    } else {
      check_results(d, *ctx.returned, d.body->statements.empty() ? d.range : d.body->statements.back()->range);
    }
  } catch (const TraceLimitReached&) {
    // Reported where the limit was crossed; the function's trace is incomplete.
  }
  ctx_ = nullptr;
  out_->functions.push_back(std::move(f));
}

std::optional<int> Checker::mesh_axis(const ast::Identifier& a, const Mesh& m) {
  if (auto idx = m.find_axis(a.name)) return idx;
  unknown_axis_error(a.range, a.name, m);
  return std::nullopt;
}

DiagnosticBuilder Checker::unknown_axis_error(const SourceRange& range, const std::string& name, const Mesh& m) {
  auto b = error(range, "unknown axis '" + name + "' of mesh " + m.name);
  b.note("mesh " + m.name + " has axes " + format_axis_set(m, (AxisSet{1} << m.axis_names.size()) - 1));
  return b;
}

void Checker::check_type_axes(const ast::TypeAnnotation& t, const Mesh& m) {
  for (const auto& d : t.dims)
    for (const auto& a : d.axes) mesh_axis(a, m);
  if (t.varying)
    for (const auto& a : *t.varying) mesh_axis(a, m);
}

std::optional<AxisSet> Checker::varying_set(const ast::TypeAnnotation& t, const Mesh* m, bool local) {
  if (!t.varying) return AxisSet{0};
  // Outside a shard_map body values are global (arrays and keys alike): nothing varies per device.
  if (!local) {
    error(t.range, "a {V:...} varying set is only meaningful inside a shard_map body");
    return std::nullopt;
  }
  AxisSet set = 0;
  if (!m) return set;
  for (const auto& a : *t.varying) {
    auto idx = mesh_axis(a, *m);
    if (!idx) return std::nullopt;
    const AxisSet bit = AxisSet{1} << *idx;
    if (set & bit) {
      error(a.range, "axis '" + a.name + "' is listed twice in {V:...}");
      return std::nullopt;
    }
    set |= bit;
  }
  return set;
}

std::optional<Type> Checker::resolve_type(const ast::TypeAnnotation& t, bool in_body) {
  // An unknown element type was reported by the transformer (`element` is a placeholder): the
  // rest of the annotation is still checked, but nothing gets a type from it.
  const bool element_unknown = !t.unknown_element.empty();
  const Mesh* m = mesh();
  bool local = in_body && manual();
  if (t.element == ast::ElementType::key) {
    if (!t.dims.empty()) {
      error(t.range, "a key has no dimensions");
      return std::nullopt;
    }
    Type k = make_key(m, local);
    auto varying = varying_set(t, m, local);
    if (!varying) return std::nullopt;
    k.varying = *varying;
    return k;
  }
  DType dt;
  switch (t.element) {
    case ast::ElementType::f32: dt = DType::f32; break;
    case ast::ElementType::bf16: dt = DType::bf16; break;
    case ast::ElementType::f16: dt = DType::f16; break;
    case ast::ElementType::i32: dt = DType::i32; break;
    case ast::ElementType::i64: dt = DType::i64; break;
    case ast::ElementType::boolean: dt = DType::boolean; break;
    default: SHARDC_ASSERT(false, "unhandled element type");
  }
  if (static_cast<int>(t.dims.size()) > kMaxRank) {
    error(t.range, "type has rank " + std::to_string(t.dims.size()) + ", more than the limit of " +
                       std::to_string(kMaxRank));
    return std::nullopt;
  }
  std::vector<Dim> dims;
  std::int64_t elements = 1;
  for (const ast::DimAnnotation& da : t.dims) {
    auto size = static_int(eval(*da.size), da.size->range, "a dimension size");
    if (!size) return std::nullopt;
    if (*size < 0) {
      error(da.size->range, "dimension size " + std::to_string(*size) + " is negative");
      return std::nullopt;
    }
    auto p = checked_mul(elements, *size);
    if (!p) {
      error(da.range, "the element count of this type overflows 64 bits");
      return std::nullopt;
    }
    elements = *p;
    Dim dim{*size, {}};
    for (const auto& a : da.axes) {
      if (local) {
        error(a.range, "sharded dimension in a shard_map body; bodies use local types")
            .note("write the block's shape, e.g. f32[256, 4096]; varying axes go in {V:...}");
        return std::nullopt;
      }
      if (!m) {
        error(a.range, "axis '" + a.name + "' used outside a function on a mesh");
        return std::nullopt;
      }
      auto idx = mesh_axis(a, *m);
      if (!idx) return std::nullopt;
      dim.axes.push_back(*idx);
    }
    dims.push_back(std::move(dim));
  }
  auto varying = varying_set(t, m, local);
  if (!varying) return std::nullopt;
  if (local) {
    if (element_unknown) return std::nullopt;
    Type r = make_array(dt, std::move(dims), m);
    r.local = true;
    r.varying = *varying;
    return r;
  }
  Type r = make_array(dt, std::move(dims), m);
  if (auto e = validate_global(r, "type")) {
    // Point at the dimension that broke the rule when we can tell which.
    SourceRange where = t.range;
    if (e->cls == ErrorClass::not_divisible || e->cls == ErrorClass::duplicate_type_axis) {
      AxisSet seen = 0;
      for (std::size_t i = 0; i < r.dims.size(); ++i) {
        bool bad = false;
        for (int a : r.dims[i].axes) {
          if (seen & (AxisSet{1} << a)) bad = e->cls == ErrorClass::duplicate_type_axis;
          seen |= AxisSet{1} << a;
        }
        if (e->cls == ErrorClass::not_divisible && !r.dims[i].axes.empty() &&
            r.dims[i].size % axes_product(*m, r.dims[i].axes) != 0)
          bad = true;
        if (bad) {
          where = t.dims[i].range;
          break;
        }
      }
    }
    report(*e, where);
    return std::nullopt;
  }
  if (element_unknown) return std::nullopt;
  return r;
}

CheckResult check(const ast::Module& module, const Defines& defines, Diagnostics& diags,
                  const CheckOptions& options) {
  Checker c(module, defines, diags, options);
  return CheckResult{c.run()};
}

}  // namespace shardc::check

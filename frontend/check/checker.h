// The checker's internal interface: the walker state that the statement walker,
// the expression evaluator and the built-in handlers share. Not used outside
// frontend/check/ (the driver sees check.h; later stages see checked_module.h).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "frontend/ast.h"
#include "frontend/check/check.h"
#include "frontend/check/checked_module.h"
#include "frontend/check/rule_result.h"
#include "frontend/check/value.h"
#include "frontend/defines.h"
#include "frontend/diagnostics.h"

namespace shardc::check {

// A limit of section 13.3 of docs/language.md that the checker enforces (the unroll limit is
// in CheckOptions).
inline constexpr int kMaxInlineDepth = 64;

// Aborts the current function's trace (too many unrolled ops): caught by the function loop.
struct TraceLimitReached {};

class Checker {
 public:
  Checker(const ast::Module& module, const Defines& defines, Diagnostics& diags, const CheckOptions& options);
  std::shared_ptr<CheckedModule> run();

  // ---- shared with the expression evaluator and the built-ins ----
  Value eval(const ast::Expr& expr);
  // An argument that names mesh axes (a collective's `axes`): an unknown name in it is reported
  // as an unknown axis of the mesh, with the mesh's axes, as in a type.
  Value eval_axes_argument(const ast::Expr& expr);
  DiagnosticBuilder error(const SourceRange& range, std::string message);
  // Reports a rule's error at the operand it names (or at `whole`), with its notes.
  void report(const RuleError& e, const SourceRange& whole, const std::vector<SourceRange>& operands = {});

  // Records an op in the current trace and returns its (single) result.
  Value emit(std::string name, const ast::Node& node, const std::vector<Value>& inputs, Type result,
             std::map<std::string, Attr> attrs = {});
  // Records an op with several results (a call, top_k, split).
  std::vector<Value> emit_multi(std::string name, const ast::Node& node, const std::vector<Value>& inputs,
                                const std::vector<Type>& results, std::map<std::string, Attr> attrs = {});
  // Static scalars used as array operands become `constant` ops (weak rank-0 values).
  Value materialize(const Value& v, const ast::Node& node);

  const Mesh* mesh() const { return ctx_ ? ctx_->mesh : nullptr; }
  bool manual() const { return ctx_ && ctx_->manual; }
  bool unchecked() const { return ctx_ && ctx_->unchecked; }
  bool in_function() const { return ctx_ != nullptr; }

  // Static extraction: each reports a located error and returns nullopt when the value
  // is not of the needed kind (`what` names the argument in the message).
  std::optional<std::int64_t> static_int(const Value& v, const SourceRange& r, std::string_view what);
  std::optional<bool> static_bool(const Value& v, const SourceRange& r, std::string_view what);
  std::optional<double> static_number(const Value& v, const SourceRange& r, std::string_view what);
  std::optional<AxisList> axis_group(const Value& v, const SourceRange& r, std::string_view what);
  std::optional<std::vector<std::int64_t>> static_int_list(const Value& v, const SourceRange& r, std::string_view what);
  std::optional<std::vector<AxisList>> sharding_list(const Value& v, int rank, const SourceRange& r);
  std::optional<Type> type_argument(const Value& v, const SourceRange& r, std::string_view what);
  // An array operand (static scalars are accepted as weak rank-0 operands).
  bool need_array(const Value& v, const SourceRange& r, std::string_view what, bool allow_static = true);

  // The {V:...} set of a written type (empty when there is none); an error for a set outside a
  // shard_map body, an unknown axis or an axis listed twice.
  std::optional<AxisSet> varying_set(const ast::TypeAnnotation& t, const Mesh* m, bool local);
  // Resolves a written type in the current view (global in a func, local in a shard_map).
  std::optional<Type> resolve_type(const ast::TypeAnnotation& t, bool in_body);
  // The index of axis `a` in mesh `m`; reports "unknown axis", with a note listing m's axes.
  std::optional<int> mesh_axis(const ast::Identifier& a, const Mesh& m);
  // The "unknown axis 'A' of mesh m" error, with the note listing m's axes, for more notes.
  DiagnosticBuilder unknown_axis_error(const SourceRange& range, const std::string& name, const Mesh& m);
  // Reports the unknown axes of a written type (its dimensions and its {V:...} set).
  void check_type_axes(const ast::TypeAnnotation& t, const Mesh& m);

  // Calls of the module's own functions (fn inlined; func / shard_map as calls).
  Value call_function(const ast::CallExpr& call, const ast::FunctionDecl& callee);
  // The argument expression of each parameter of `callee` (checker_calls.cpp); nullopt, with
  // the error reported, when a keyword names no parameter or the count does not fit.
  std::optional<std::vector<const ast::Expr*>> bind_arguments(const ast::CallExpr& call,
                                                              const ast::FunctionDecl& callee);

  // Why a value is not static, for the "expected a static value" note.
  static std::string describe_dynamic(const Value& v);

 private:
  struct Scope {
    struct Entry {
      Value value;
      bool is_var = false;
      SourceRange range;
    };
    std::unordered_map<std::string, Entry> names;
  };
  struct FunctionContext {
    CheckedFunction* out = nullptr;
    const Mesh* mesh = nullptr;
    bool manual = false;
    bool unchecked = false;
    std::vector<Scope> scopes;                        // innermost last
    std::vector<const ast::FunctionDecl*> fn_stack;   // inlined fns, for cycles and depth
    std::vector<SourceRange> fn_calls;                // the call that inlined each of them
    // The unrolled loops being traced, outermost first: an error in a body says which
    // iteration it is in (the same line fails differently per iteration).
    struct LoopIteration {
      std::string variable;  // "_" for a wildcard
      std::int64_t value;
      SourceRange range;  // the loop variable
    };
    std::vector<LoopIteration> loops;
    std::optional<Value> returned;
    std::vector<SourceRange> returned_ranges;  // of each returned value, for result errors
    bool misplaced_return = false;             // a `return` inside a block was reported
  };

  // Declarations (checker_decls.cpp).
  void declare_meshes_and_consts();
  void check_mesh(const ast::MeshDecl& d);
  void check_const(const ast::ConstDecl& d);
  void check_parameter_names(const ast::FunctionDecl& d);
  void check_function(const ast::FunctionDecl& d);
  // A func or shard_map that reaches itself through calls is an error at the call that closes
  // the cycle (checker_calls.cpp): each call is traced once, as a call op, so nothing would end it.
  void check_call_cycles();
  // Errors do not show where a value came from: each error of the module (the parser's
  // recovered ones included) whose quoted text names a const that -D replaced gets a note
  // saying so (the first error gets one listing every -D when none names one).
  void note_overridden_consts();
  struct Signature {
    const Mesh* mesh = nullptr;
    std::vector<Type> params, results;
  };
  // Resolved once per function (errors reported once), null when it has errors.
  const Signature* signature_of(const ast::FunctionDecl& d);
  bool signature(const ast::FunctionDecl& d, const Mesh*& mesh, std::vector<Type>& params, std::vector<Type>& results);
  const Mesh* function_mesh(const ast::FunctionDecl& d);
  // The same without reporting anything: null where function_mesh reports an error.
  const Mesh* mesh_if_declared(const ast::FunctionDecl& d) const;

  // Statements (checker_stmts.cpp).
  void exec_block(const ast::BlockStmt& b, bool new_scope = true);
  void exec(const ast::Stmt& s);
  void exec_let(const ast::LetStmt& s);
  void exec_assign(const ast::AssignStmt& s);
  void exec_for(const ast::ForStmt& s);
  void exec_if(const ast::IfStmt& s);
  // Name resolution of code that is not traced (checker_untaken.cpp): the branch an `if`
  // does not take, the body of a loop of no iterations, and fn helpers no trace reaches.
  void resolve_untaken_branch(const ast::Stmt& branch);
  void resolve_unrun_loop_body(const ast::ForStmt& loop);
  void resolve_untraced_fns();
  void resolve_untraced_function(const ast::FunctionDecl& d);
  // Each untaken statement is resolved once per mesh that it is checked against: a loop of a
  // million iterations around an empty loop must not resolve its body a million times.
  bool first_resolution(const ast::Stmt& s);
  // The mesh whose axes untaken code may name, or null when it may name an axis of any mesh:
  // in an fn helper (called from functions on other meshes, or from none) and outside a trace.
  const Mesh* untaken_axes_mesh() const;
  bool is_axis_name(const std::string& name) const;
  void check_untaken_axis(const ast::Identifier& axis);
  struct UntakenScopes;
  void resolve_untaken(const ast::Stmt& s, UntakenScopes& scopes);
  void resolve_untaken(const ast::Expr& e, UntakenScopes& scopes);
  void resolve_untaken(const ast::TypeAnnotation& t, UntakenScopes& scopes);
  void resolve_untaken_target(const ast::Pattern& p, UntakenScopes& scopes);
  // Whether a local name (let, var, for index, parameter) may be bound: not a built-in, a
  // function, a const, a mesh or an axis of the current mesh (reported, located, if not).
  bool bindable(const ast::Identifier& name);
  void bind(const ast::Pattern& p, const Value& v, bool is_var, const ast::TypeAnnotation* annotation);
  void assign(const ast::Pattern& p, const Value& v, const SourceRange& stmt_range);
  void check_results(const ast::FunctionDecl& d, const Value& v, const SourceRange& stmt_range);

  // Expressions (checker_exprs.cpp).
  Value eval_name(const ast::NameExpr& e);
  // On an "unknown name" error: a note for each other mesh that has an axis of that name, and
  // one when the name looks like an element type (f64, u8).
  void explain_unknown_name(DiagnosticBuilder& b, const std::string& name);
  // A JAX spelling's equivalent, or the nearest built-in or module function.
  void explain_unknown_function(DiagnosticBuilder& b, const std::string& name);
  Value eval_unary(const ast::UnaryExpr& e);
  Value eval_binary(const ast::BinaryExpr& e);
  Value binary_values(ast::BinaryOp op, const Value& a, const Value& b, const ast::Expr& node,
                      const SourceRange& op_range, const SourceRange& ra, const SourceRange& rb);
  Value eval_call(const ast::CallExpr& e);
  Value eval_index(const ast::IndexExpr& e);
  Value eval_attribute(const ast::AttributeExpr& e);
  Value eval_seq(const std::vector<ast::Ptr<ast::Expr>>& elements, bool is_list);

  Scope::Entry* lookup_local(const std::string& name);
  void count_op(const SourceRange& r);

  const ast::Module& module_;
  const Defines& defines_;
  Diagnostics& diags_;
  const CheckOptions options_;
  std::shared_ptr<CheckedModule> out_;
  std::unordered_map<std::string, const Mesh*> meshes_;
  std::unordered_map<std::string, Value> consts_;
  std::unordered_map<std::string, const ast::FunctionDecl*> functions_;
  std::unordered_map<const ast::FunctionDecl*, std::optional<Signature>> signatures_;
  // Calls of a func or shard_map from a func, in the order traced (one per caller and callee).
  struct CallEdge {
    const ast::FunctionDecl* caller;
    const ast::FunctionDecl* callee;
    SourceRange range;  // the first call
  };
  std::vector<CallEdge> call_edges_;
  struct Override {
    std::string name;
    SourceRange declared_value;  // the value in the file, which -D replaced
    std::string declared, given;  // values, as the checker reads them (-D B=1_0 gives 10)
    std::string spelled;          // the -D text as written
  };
  std::vector<Override> overrides_;
  std::set<std::pair<const ast::FunctionDecl*, const ast::FunctionDecl*>> traced_calls_;  // those edges
  std::set<const ast::FunctionDecl*> traced_fns_;  // fn helpers inlined at least once
  std::set<std::pair<const ast::Stmt*, const Mesh*>> resolved_untaken_;
  std::set<std::string> declared_axes_;  // of every mesh, including those with errors
  FunctionContext* ctx_ = nullptr;
  bool in_axes_argument_ = false;  // eval_axes_argument is evaluating
  // (file, offset, message) of every reported error: an error inside an unrolled loop or
  // an fn inlined twice is reported once.
  std::set<std::tuple<FileId, std::uint32_t, std::string>> reported_;
  std::int64_t ops_in_function_ = 0;
};

// A static int operand (or result) must fit the concrete integer dtype it is converted to:
// the message when it does not (checker_exprs.cpp).
std::optional<std::string> literal_fits(const Value& v, DType dt);

// Built-in functions (builtins_*.cpp): the table of section 8 of docs/language.md.
using BuiltinHandler = Value (*)(Checker& c, const ast::CallExpr& call);
// A built-in's parameters, in positional order. The first `required` must be given; only those
// in `nullable` accept None (which then means the same as leaving them out).
struct BuiltinSignature {
  BuiltinSignature(std::initializer_list<std::string_view> params, std::size_t required,
                   std::initializer_list<std::string_view> nullable = {})
      : params(params), required(required), nullable(nullable) {}
  std::vector<std::string_view> params;
  std::size_t required;
  std::vector<std::string_view> nullable;
};
struct Builtin {
  BuiltinHandler handler;
  BuiltinSignature signature;
};
const Builtin* find_builtin(std::string_view name);
bool is_builtin_name(std::string_view name);
std::vector<std::string_view> builtin_names();  // sorted

}  // namespace shardc::check

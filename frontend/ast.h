// The abstract syntax tree of a .shard module: the only thing later stages see of the source.
//
// Invariants (checked by the transformer that builds it, see frontend/README.md):
//  - every node carries the SourceRange of the text it came from;
//  - every node has an id unique within its Module, dense in [0, Module::node_count), so later
//    stages keep their facts (types, static values, shardings) in side tables indexed by id
//    instead of mutating nodes;
//  - nodes are owned by their parent through Ptr<T> = unique_ptr<const T>: once the
//    transformer has built a node nobody can change it;
//  - pointer fields documented "may be null" are the only nullable ones.
//
// The node kinds are listed once, in the X-macros below; NodeKind, the casts and the
// visit() dispatchers are generated from those lists.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "frontend/source.h"

namespace shardc::ast {

#define SHARDC_AST_EXPR_NODES(X) \
  X(IntLiteral)                  \
  X(FloatLiteral)                \
  X(BoolLiteral)                 \
  X(NoneLiteral)                 \
  X(StringLiteral)               \
  X(NameExpr)                    \
  X(UnaryExpr)                   \
  X(BinaryExpr)                  \
  X(CallExpr)                    \
  X(TupleExpr)                   \
  X(ListExpr)                    \
  X(IndexExpr)                   \
  X(SliceExpr)                   \
  X(AttributeExpr)               \
  X(TypeExpr)

#define SHARDC_AST_STMT_NODES(X) \
  X(LetStmt)                     \
  X(AssignStmt)                  \
  X(ForStmt)                     \
  X(IfStmt)                      \
  X(ReturnStmt)                  \
  X(ExprStmt)                    \
  X(BlockStmt)

#define SHARDC_AST_DECL_NODES(X) \
  X(MeshDecl)                    \
  X(ConstDecl)                   \
  X(FunctionDecl)

// Nodes that are neither expressions, statements nor declarations but still get an id,
// because a later stage attaches facts to them (a parameter's type, a pattern's bindings).
#define SHARDC_AST_OTHER_NODES(X) \
  X(TypeAnnotation)               \
  X(Param)                        \
  X(Pattern)

using NodeId = std::uint32_t;

enum class NodeKind : std::uint8_t {
#define SHARDC_AST_ENUM(name) name,
  SHARDC_AST_EXPR_NODES(SHARDC_AST_ENUM) SHARDC_AST_STMT_NODES(SHARDC_AST_ENUM)
      SHARDC_AST_DECL_NODES(SHARDC_AST_ENUM) SHARDC_AST_OTHER_NODES(SHARDC_AST_ENUM)
#undef SHARDC_AST_ENUM
};

std::string_view node_kind_name(NodeKind kind);

template <class T>
using Ptr = std::unique_ptr<const T>;

// Hands out the dense ids of one module; the transformer owns one per parse.
class NodeIdAllocator {
 public:
  NodeId next() { return count_++; }
  NodeId count() const { return count_; }

 private:
  NodeId count_ = 0;
};

struct Node {
  NodeKind kind;
  NodeId id;
  SourceRange range;

  Node(NodeKind kind, NodeId id, SourceRange range) : kind(kind), id(id), range(range) {}
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;
  virtual ~Node() = default;
};

// A name as written, with its location: a function's name, an axis, a keyword argument.
// Not a node: facts about names live on the nodes that use them.
struct Identifier {
  std::string name;
  SourceRange range;
};

// ---------------------------------------------------------------------------------------
// Types as written: f32[1024@dp, 4096], bf16[512, 2048@(sp,tp)], f32[256, 4096]{V:dp}, key
// ---------------------------------------------------------------------------------------

// The element types of the language. `key` is a PRNG key (JAX's key<fry>).
enum class ElementType : std::uint8_t { f32, bf16, f16, i32, i64, boolean, key };

// "f32", "bf16", "f16", "i32", "i64", "bool", "key".
std::string_view element_type_name(ElementType t);
// Every element type a program may write, for the notes of errors about the others.
inline constexpr std::string_view kElementTypeList = "f32, bf16, f16, i32, i64, bool and key";
std::optional<ElementType> element_type_from_name(std::string_view name);

struct Expr;

// One dimension of a type: its global (or, in a shard_map body, local) size and the mesh
// axes it is split over, major first. `B@dp` has axes {dp}; `2048@(sp,tp)` has {sp, tp};
// a replicated dimension has none.
struct DimAnnotation {
  Ptr<Expr> size;  // a static expression: 1024, B, B // 2, -1 (reshape)
  std::vector<Identifier> axes;
  SourceRange range;
};

// A written type. `f32` and `f32[]` are both rank 0. `varying` is the optional {V:a,b}
// suffix of a local (per-device) type; nullopt when not written.
struct TypeAnnotation : Node {
  static constexpr NodeKind kKind = NodeKind::TypeAnnotation;
  ElementType element;
  std::vector<DimAnnotation> dims;
  std::optional<std::vector<Identifier>> varying;
  // The spelling of an element type shardc does not have ("f64", "i8"), which the transformer
  // has reported; `element` is then a placeholder, and the checker types nothing with this
  // annotation (so that the rest of the file is still checked). Empty otherwise.
  std::string unknown_element;

  TypeAnnotation(NodeId id, SourceRange range, ElementType element, std::vector<DimAnnotation> dims,
                 std::optional<std::vector<Identifier>> varying)
      : Node(kKind, id, range), element(element), dims(std::move(dims)), varying(std::move(varying)) {}
};

// ---------------------------------------------------------------------------------------
// Expressions
// ---------------------------------------------------------------------------------------

struct Expr : Node {
  using Node::Node;
};

// A decimal integer literal (hex 0x.. too); always fits in i64 (the transformer reports
// overflow). A leading minus is a UnaryExpr.
struct IntLiteral : Expr {
  static constexpr NodeKind kKind = NodeKind::IntLiteral;
  std::int64_t value;
  IntLiteral(NodeId id, SourceRange range, std::int64_t value) : Expr(kKind, id, range), value(value) {}
};

struct FloatLiteral : Expr {
  static constexpr NodeKind kKind = NodeKind::FloatLiteral;
  double value;
  std::string spelling;  // as written, e.g. "1e-5", for stable dumps
  FloatLiteral(NodeId id, SourceRange range, double value, std::string spelling)
      : Expr(kKind, id, range), value(value), spelling(std::move(spelling)) {}
};

struct BoolLiteral : Expr {
  static constexpr NodeKind kKind = NodeKind::BoolLiteral;
  bool value;
  BoolLiteral(NodeId id, SourceRange range, bool value) : Expr(kKind, id, range), value(value) {}
};

// `None`: a replicated entry in a sharding list (`[X, None]`) or an absent keyword value.
struct NoneLiteral : Expr {
  static constexpr NodeKind kKind = NodeKind::NoneLiteral;
  NoneLiteral(NodeId id, SourceRange range) : Expr(kKind, id, range) {}
};

// A double-quoted string (einsum specs); escapes already decoded.
struct StringLiteral : Expr {
  static constexpr NodeKind kKind = NodeKind::StringLiteral;
  std::string value;
  StringLiteral(NodeId id, SourceRange range, std::string value)
      : Expr(kKind, id, range), value(std::move(value)) {}
};

// A use of a name: a local, a parameter, a const, a mesh axis (in axis positions such as
// `psum(x, X)` or `out=[X, Y]`), or a mesh. Resolution is the checker's job.
struct NameExpr : Expr {
  static constexpr NodeKind kKind = NodeKind::NameExpr;
  std::string name;
  NameExpr(NodeId id, SourceRange range, std::string name) : Expr(kKind, id, range), name(std::move(name)) {}
};

enum class UnaryOp : std::uint8_t { negate, plus, logical_not };
std::string_view unary_op_spelling(UnaryOp op);  // "-", "+", "!"

struct UnaryExpr : Expr {
  static constexpr NodeKind kKind = NodeKind::UnaryExpr;
  UnaryOp op;
  Ptr<Expr> operand;
  SourceRange op_range;
  UnaryExpr(NodeId id, SourceRange range, UnaryOp op, Ptr<Expr> operand, SourceRange op_range)
      : Expr(kKind, id, range), op(op), operand(std::move(operand)), op_range(op_range) {}
};

// `/` is true division; `//` and `%` floor (Python/JAX semantics); `@` is matmul.
enum class BinaryOp : std::uint8_t {
  add, sub, mul, div, floor_div, mod, matmul,
  eq, ne, lt, le, gt, ge,
  logical_and, logical_or,
};
std::string_view binary_op_spelling(BinaryOp op);  // "+", "//", "@", "&&", ...

struct BinaryExpr : Expr {
  static constexpr NodeKind kKind = NodeKind::BinaryExpr;
  BinaryOp op;
  Ptr<Expr> lhs;
  Ptr<Expr> rhs;
  SourceRange op_range;  // the operator token, for diagnostics about the operation itself
  BinaryExpr(NodeId id, SourceRange range, BinaryOp op, Ptr<Expr> lhs, Ptr<Expr> rhs, SourceRange op_range)
      : Expr(kKind, id, range), op(op), lhs(std::move(lhs)), rhs(std::move(rhs)), op_range(op_range) {}
};

// One argument of a call: positional (no keyword) or `name=value`. The value of a keyword
// can be any expression: `out=[X, None]`, `perm=[(0,1),(1,0)]`, `axis=0`, `tiled=true`.
struct Argument {
  std::optional<Identifier> keyword;
  Ptr<Expr> value;
  SourceRange range;  // the whole argument, keyword included
};

// `callee(args)`. Callees are names only (builtins, fn/func/shard_map): no first-class
// functions. Positional arguments always precede keyword ones (the transformer checks).
struct CallExpr : Expr {
  static constexpr NodeKind kKind = NodeKind::CallExpr;
  Identifier callee;
  std::vector<Argument> args;
  CallExpr(NodeId id, SourceRange range, Identifier callee, std::vector<Argument> args)
      : Expr(kKind, id, range), callee(std::move(callee)), args(std::move(args)) {}

  const Argument* keyword(std::string_view name) const;  // null when not given
  std::size_t positional_count() const;
};

// `(a, b)`, `(X, Y)`, `(x,)`, `()`. A parenthesised single expression is not a tuple.
struct TupleExpr : Expr {
  static constexpr NodeKind kKind = NodeKind::TupleExpr;
  std::vector<Ptr<Expr>> elements;
  TupleExpr(NodeId id, SourceRange range, std::vector<Ptr<Expr>> elements)
      : Expr(kKind, id, range), elements(std::move(elements)) {}
};

// `[X, None]`, `[(0, 1), (1, 0)]`, `[None, (sp, tp)]`.
struct ListExpr : Expr {
  static constexpr NodeKind kKind = NodeKind::ListExpr;
  std::vector<Ptr<Expr>> elements;
  ListExpr(NodeId id, SourceRange range, std::vector<Ptr<Expr>> elements)
      : Expr(kKind, id, range), elements(std::move(elements)) {}
};

// `base[i]`, `base[0:4]`, `base[:, 2:]`, `x.shape[d]`. Each index is an expression or a
// SliceExpr (slices appear only here).
struct IndexExpr : Expr {
  static constexpr NodeKind kKind = NodeKind::IndexExpr;
  Ptr<Expr> base;
  std::vector<Ptr<Expr>> indices;
  IndexExpr(NodeId id, SourceRange range, Ptr<Expr> base, std::vector<Ptr<Expr>> indices)
      : Expr(kKind, id, range), base(std::move(base)), indices(std::move(indices)) {}
};

// `begin:end` or `begin:end:step` inside an index; each part may be null (`:`, `2:`, `:4`).
struct SliceExpr : Expr {
  static constexpr NodeKind kKind = NodeKind::SliceExpr;
  Ptr<Expr> begin;  // may be null
  Ptr<Expr> end;    // may be null
  Ptr<Expr> step;   // may be null
  SliceExpr(NodeId id, SourceRange range, Ptr<Expr> begin, Ptr<Expr> end, Ptr<Expr> step)
      : Expr(kKind, id, range), begin(std::move(begin)), end(std::move(end)), step(std::move(step)) {}
};

// `base.name`, e.g. `x.shape` (then indexed: `x.shape[0]`), `x.dtype`.
struct AttributeExpr : Expr {
  static constexpr NodeKind kKind = NodeKind::AttributeExpr;
  Ptr<Expr> base;
  Identifier attribute;
  AttributeExpr(NodeId id, SourceRange range, Ptr<Expr> base, Identifier attribute)
      : Expr(kKind, id, range), base(std::move(base)), attribute(std::move(attribute)) {}
};

// A type used as a value: `zeros(f32[512, 2048])`, `normal(kx, f32[1024@dp, 4096])`,
// `astype(x, bf16)`.
struct TypeExpr : Expr {
  static constexpr NodeKind kKind = NodeKind::TypeExpr;
  Ptr<TypeAnnotation> type;
  TypeExpr(NodeId id, SourceRange range, Ptr<TypeAnnotation> type) : Expr(kKind, id, range), type(std::move(type)) {}
};

// ---------------------------------------------------------------------------------------
// Statements
// ---------------------------------------------------------------------------------------

struct Stmt : Node {
  using Node::Node;
};

// What a let/var/assignment/for binds: a name, `_`, or a (possibly nested) tuple of them.
enum class PatternKind : std::uint8_t { name, wildcard, tuple };

struct Pattern : Node {
  static constexpr NodeKind kKind = NodeKind::Pattern;
  PatternKind pattern_kind;
  Identifier name;                     // PatternKind::name only
  std::vector<Ptr<Pattern>> elements;  // PatternKind::tuple only
  Pattern(NodeId id, SourceRange range, PatternKind pattern_kind, Identifier name,
          std::vector<Ptr<Pattern>> elements)
      : Node(kKind, id, range), pattern_kind(pattern_kind), name(std::move(name)), elements(std::move(elements)) {}
};

struct BlockStmt : Stmt {
  static constexpr NodeKind kKind = NodeKind::BlockStmt;
  std::vector<Ptr<Stmt>> statements;
  BlockStmt(NodeId id, SourceRange range, std::vector<Ptr<Stmt>> statements)
      : Stmt(kKind, id, range), statements(std::move(statements)) {}
};

// `let p = e;` (immutable) or `var p = e;` (reassignable), with an optional type: `let x: f32[4] = e;`.
struct LetStmt : Stmt {
  static constexpr NodeKind kKind = NodeKind::LetStmt;
  bool is_var;
  Ptr<Pattern> target;
  Ptr<TypeAnnotation> type;  // may be null
  Ptr<Expr> value;
  LetStmt(NodeId id, SourceRange range, bool is_var, Ptr<Pattern> target, Ptr<TypeAnnotation> type,
          Ptr<Expr> value)
      : Stmt(kKind, id, range), is_var(is_var), target(std::move(target)), type(std::move(type)),
        value(std::move(value)) {}
};

// `=` and the compound forms. A compound assignment's target is always a single name.
enum class AssignOp : std::uint8_t { assign, add, sub, mul, div, floor_div, mod, matmul };
std::string_view assign_op_spelling(AssignOp op);  // "=", "+=", "//=", "@=", ...
// The binary operator a compound assignment applies (`x += e` is `x = x + e`); not for assign.
BinaryOp compound_binary_op(AssignOp op);

struct AssignStmt : Stmt {
  static constexpr NodeKind kKind = NodeKind::AssignStmt;
  AssignOp op;
  Ptr<Pattern> target;
  Ptr<Expr> value;
  SourceRange op_range;
  AssignStmt(NodeId id, SourceRange range, AssignOp op, Ptr<Pattern> target, Ptr<Expr> value, SourceRange op_range)
      : Stmt(kKind, id, range), op(op), target(std::move(target)), value(std::move(value)), op_range(op_range) {}
};

// `for i in begin..end { }` counts up over [begin, end); `for i in rev(begin..end) { }`
// visits the same values counting down. Bounds must be static (checker).
struct ForStmt : Stmt {
  static constexpr NodeKind kKind = NodeKind::ForStmt;
  Ptr<Pattern> variable;  // always PatternKind::name or wildcard
  Ptr<Expr> begin;
  Ptr<Expr> end;
  bool reversed;
  Ptr<BlockStmt> body;
  ForStmt(NodeId id, SourceRange range, Ptr<Pattern> variable, Ptr<Expr> begin, Ptr<Expr> end, bool reversed,
          Ptr<BlockStmt> body)
      : Stmt(kKind, id, range), variable(std::move(variable)), begin(std::move(begin)), end(std::move(end)),
        reversed(reversed), body(std::move(body)) {}
};

// `if c { } else if d { } else { }`: else_branch is null, a BlockStmt, or an IfStmt.
struct IfStmt : Stmt {
  static constexpr NodeKind kKind = NodeKind::IfStmt;
  Ptr<Expr> condition;
  Ptr<BlockStmt> then_branch;
  Ptr<Stmt> else_branch;  // may be null
  IfStmt(NodeId id, SourceRange range, Ptr<Expr> condition, Ptr<BlockStmt> then_branch, Ptr<Stmt> else_branch)
      : Stmt(kKind, id, range), condition(std::move(condition)), then_branch(std::move(then_branch)),
        else_branch(std::move(else_branch)) {}
};

// `return e;` (several results: `return (a, b);`, a TupleExpr) or `return;`.
struct ReturnStmt : Stmt {
  static constexpr NodeKind kKind = NodeKind::ReturnStmt;
  Ptr<Expr> value;  // may be null
  ReturnStmt(NodeId id, SourceRange range, Ptr<Expr> value) : Stmt(kKind, id, range), value(std::move(value)) {}
};

struct ExprStmt : Stmt {
  static constexpr NodeKind kKind = NodeKind::ExprStmt;
  Ptr<Expr> expr;
  ExprStmt(NodeId id, SourceRange range, Ptr<Expr> expr) : Stmt(kKind, id, range), expr(std::move(expr)) {}
};

// ---------------------------------------------------------------------------------------
// Declarations (the top level of a module)
// ---------------------------------------------------------------------------------------

struct Decl : Node {
  Identifier name;
  Decl(NodeKind kind, NodeId id, SourceRange range, Identifier name)
      : Node(kind, id, range), name(std::move(name)) {}
};

struct MeshAxis {
  Identifier name;
  Ptr<Expr> size;  // static
  SourceRange range;
};

enum class MeshKind : std::uint8_t { explicit_, auto_ };
std::string_view mesh_kind_name(MeshKind kind);  // "explicit", "auto"

// `mesh grid = [X: 4, Y: 2];`, `mesh train = [dp: 4, tp: 2] auto;`,
// `mesh teacher = [tp: 4] devices 0..4;`. Devices are the half-open range
// [devices_begin, devices_end); both null when not written (the checker then uses 0..product).
struct MeshDecl : Decl {
  static constexpr NodeKind kKind = NodeKind::MeshDecl;
  std::vector<MeshAxis> axes;
  MeshKind mesh_kind;
  bool kind_written;            // false when the default (explicit) applies
  Ptr<Expr> devices_begin;      // may be null
  Ptr<Expr> devices_end;        // null exactly when devices_begin is
  MeshDecl(NodeId id, SourceRange range, Identifier name, std::vector<MeshAxis> axes, MeshKind mesh_kind,
           bool kind_written, Ptr<Expr> devices_begin, Ptr<Expr> devices_end)
      : Decl(kKind, id, range, std::move(name)), axes(std::move(axes)), mesh_kind(mesh_kind),
        kind_written(kind_written), devices_begin(std::move(devices_begin)), devices_end(std::move(devices_end)) {}
};

// `const B = 1024;` A -D NAME=VALUE option overrides the value (the checker applies it).
struct ConstDecl : Decl {
  static constexpr NodeKind kKind = NodeKind::ConstDecl;
  Ptr<Expr> value;
  ConstDecl(NodeId id, SourceRange range, Identifier name, Ptr<Expr> value)
      : Decl(kKind, id, range, std::move(name)), value(std::move(value)) {}
};

struct Param : Node {
  static constexpr NodeKind kKind = NodeKind::Param;
  Identifier name;
  Ptr<TypeAnnotation> type;  // may be null (fn helpers' parameters are untyped)
  Param(NodeId id, SourceRange range, Identifier name, Ptr<TypeAnnotation> type)
      : Node(kKind, id, range), name(std::move(name)), type(std::move(type)) {}
};

// fn: a helper, inlined at each call, no mesh, types optional.
// func: global view on a mesh (explicit or auto per the mesh's kind).
// shard_map: local view; `unchecked` is JAX's check_vma=False.
enum class FunctionKind : std::uint8_t { fn, func, shard_map };
std::string_view function_kind_name(FunctionKind kind);  // "fn", "func", "shard_map"

// `func f(x: f32[8@X, 4]) -> (f32[8@X, 4], f32[4]) on grid { ... }`
struct FunctionDecl : Decl {
  static constexpr NodeKind kKind = NodeKind::FunctionDecl;
  FunctionKind function_kind;
  std::vector<Ptr<Param>> params;
  std::vector<Ptr<TypeAnnotation>> results;  // empty when no `->` is written
  bool tuple_result;                         // `-> (A, B)` (also `-> (A,)`) rather than `-> A`
  std::optional<Identifier> mesh;            // `on grid`; nullopt when not written
  bool unchecked;                            // shard_map only
  Ptr<BlockStmt> body;
  FunctionDecl(NodeId id, SourceRange range, Identifier name, FunctionKind function_kind,
               std::vector<Ptr<Param>> params, std::vector<Ptr<TypeAnnotation>> results, bool tuple_result,
               std::optional<Identifier> mesh, bool unchecked, Ptr<BlockStmt> body)
      : Decl(kKind, id, range, std::move(name)), function_kind(function_kind), params(std::move(params)),
        results(std::move(results)), tuple_result(tuple_result), mesh(std::move(mesh)), unchecked(unchecked),
        body(std::move(body)) {}
};

// One file. Its name (the file name without directories and the .shard suffix) names the
// generated C++ namespace.
struct Module {
  std::string name;
  FileId file = kNoFile;
  std::vector<Ptr<Decl>> decls;  // in source order
  NodeId node_count = 0;         // ids of this module's nodes are in [0, node_count)

  const Decl* find(std::string_view decl_name) const;  // first declaration of that name
};

// ---------------------------------------------------------------------------------------
// Casts and dispatch
// ---------------------------------------------------------------------------------------

template <class T>
bool isa(const Node& node) {
  return node.kind == T::kKind;
}

// The node as a T, or null if it is of another kind.
template <class T>
const T* dyn_cast(const Node* node) {
  return node && node->kind == T::kKind ? static_cast<const T*>(node) : nullptr;
}

// Calls f(const Concrete&) with the expression's concrete type; f's overloads (or a generic
// lambda) must all return the same type.
template <class F>
decltype(auto) visit(const Expr& expr, F&& f) {
  switch (expr.kind) {
#define SHARDC_AST_CASE(name) \
  case NodeKind::name:        \
    return f(static_cast<const name&>(expr));
    SHARDC_AST_EXPR_NODES(SHARDC_AST_CASE)
#undef SHARDC_AST_CASE
    default: break;
  }
  __builtin_unreachable();  // an Expr's kind is always an expression kind (constructors ensure it)
}

template <class F>
decltype(auto) visit(const Stmt& stmt, F&& f) {
  switch (stmt.kind) {
#define SHARDC_AST_CASE(name) \
  case NodeKind::name:        \
    return f(static_cast<const name&>(stmt));
    SHARDC_AST_STMT_NODES(SHARDC_AST_CASE)
#undef SHARDC_AST_CASE
    default: break;
  }
  __builtin_unreachable();
}

template <class F>
decltype(auto) visit(const Decl& decl, F&& f) {
  switch (decl.kind) {
#define SHARDC_AST_CASE(name) \
  case NodeKind::name:        \
    return f(static_cast<const name&>(decl));
    SHARDC_AST_DECL_NODES(SHARDC_AST_CASE)
#undef SHARDC_AST_CASE
    default: break;
  }
  __builtin_unreachable();
}

}  // namespace shardc::ast

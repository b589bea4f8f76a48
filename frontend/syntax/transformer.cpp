#include "frontend/syntax/transformer.h"

#include <cstdint>

#include "frontend/internal_error.h"
#include "frontend/number_parsing.h"
#include "frontend/syntax/token_ranges.h"

namespace shardc::syntax {

using namespace shardc::ast;
using P = shard_antlr::ShardParser;

namespace {

// A parse tree without syntax errors has every child the grammar requires; a missing one
// is a bug in the grammar/transformer pairing, not a user error.
template <class T>
T& require(T* ctx, const char* what) {
  SHARDC_ASSERT(ctx != nullptr, std::string("parse tree lacks ") + what);
  return *ctx;
}

BinaryOp binary_op_of(const antlr4::Token* op) {
  switch (op->getType()) {
    case P::PLUS: return BinaryOp::add;
    case P::MINUS: return BinaryOp::sub;
    case P::STAR: return BinaryOp::mul;
    case P::SLASH: return BinaryOp::div;
    case P::SLASHSLASH: return BinaryOp::floor_div;
    case P::PERCENT: return BinaryOp::mod;
    case P::AT: return BinaryOp::matmul;
    case P::EQ: return BinaryOp::eq;
    case P::NE: return BinaryOp::ne;
    case P::LT: return BinaryOp::lt;
    case P::LE: return BinaryOp::le;
    case P::GT: return BinaryOp::gt;
    case P::GE: return BinaryOp::ge;
    case P::ANDAND: return BinaryOp::logical_and;
    case P::OROR: return BinaryOp::logical_or;
    default: break;
  }
  internal_error(__FILE__, __LINE__, "unknown binary operator token '" + op->getText() + "'");
}

UnaryOp unary_op_of(const antlr4::Token* op) {
  switch (op->getType()) {
    case P::MINUS: return UnaryOp::negate;
    case P::PLUS: return UnaryOp::plus;
    case P::NOT: return UnaryOp::logical_not;
    default: break;
  }
  internal_error(__FILE__, __LINE__, "unknown unary operator token '" + op->getText() + "'");
}

bool is_comparison(const antlr4::Token* op) {
  switch (op->getType()) {
    case P::EQ: case P::NE: case P::LT: case P::LE: case P::GT: case P::GE:
      return true;
    default:
      return false;
  }
}

std::optional<ElementType> dtype_of_token(std::size_t type) {
  switch (type) {
    case P::F32: return ElementType::f32;
    case P::BF16: return ElementType::bf16;
    case P::F16: return ElementType::f16;
    case P::I32: return ElementType::i32;
    case P::I64: return ElementType::i64;
    case P::BOOL: return ElementType::boolean;
    default: return std::nullopt;
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Helpers

SourceRange Transformer::range(antlr4::ParserRuleContext* ctx) const { return range_of(file_, ctx); }
SourceRange Transformer::range(const antlr4::Token* token) const { return range_of(file_, token); }

Identifier Transformer::identifier(const antlr4::Token* token) const {
  SHARDC_ASSERT(token != nullptr, "missing identifier token");
  return Identifier{token->getText(), range(token)};
}

Ptr<Expr> Transformer::placeholder(SourceRange where) { return std::make_unique<NoneLiteral>(ids_.next(), where); }

bool Transformer::too_deep(unsigned extra_levels, SourceRange where) {
  if (depth_ + extra_levels <= limits_.max_ast_depth) return false;
  if (!reported_depth_) {
    reported_depth_ = true;
    diags_.error(where, "this is nested too deeply: more than " + std::to_string(limits_.max_ast_depth) +
                            " levels of operators, indexing or else-if branches")
        .note("the limit keeps every later stage's recursion bounded; split it with let bindings");
  }
  return true;
}

// ---------------------------------------------------------------------------------------
// Declarations

std::unique_ptr<Module> Transformer::transformModule(P::Module_Context& ctx, std::string module_name) {
  auto module = std::make_unique<Module>();
  module->name = std::move(module_name);
  module->file = file_.id();
  for (P::DeclContext* decl : ctx.decl()) module->decls.push_back(transformDecl(require(decl, "decl")));
  module->node_count = ids_.count();
  return module;
}

Ptr<Decl> Transformer::transformDecl(P::DeclContext& ctx) {
  if (ctx.meshDecl()) return transformMeshDecl(*ctx.meshDecl());
  if (ctx.constDecl()) return transformConstDecl(*ctx.constDecl());
  return transformFunctionDecl(require(ctx.functionDecl(), "functionDecl"));
}

Ptr<MeshDecl> Transformer::transformMeshDecl(P::MeshDeclContext& ctx) {
  NodeId id = ids_.next();
  std::vector<MeshAxis> axes;
  for (P::MeshAxisContext* axis : ctx.meshAxis()) axes.push_back(transformMeshAxis(require(axis, "meshAxis")));
  MeshKind kind = MeshKind::explicit_;
  P::MeshOptionContext* kind_option = nullptr;
  P::MeshOptionContext* devices_option = nullptr;
  Ptr<Expr> devices_begin;
  Ptr<Expr> devices_end;
  for (P::MeshOptionContext* option : ctx.meshOption()) {
    if (auto* devices = dynamic_cast<P::MeshDevicesOptionContext*>(option)) {
      if (devices_option) {
        diags_.error(range(option), "the device range of mesh '" + ctx.name->getText() + "' is given twice")
            .note(range(devices_option), "first given here");
        continue;
      }
      devices_option = option;
      devices_begin = transformExpr(require(devices->begin, "devices begin"));
      devices_end = transformExpr(require(devices->end, "devices end"));
      continue;
    }
    MeshKind this_kind = dynamic_cast<P::MeshAutoOptionContext*>(option) ? MeshKind::auto_ : MeshKind::explicit_;
    if (kind_option) {
      diags_.error(range(option), "the kind of mesh '" + ctx.name->getText() + "' is given twice")
          .note(range(kind_option), "first given here");
      continue;
    }
    kind_option = option;
    kind = this_kind;
  }
  return std::make_unique<MeshDecl>(id, range(&ctx), identifier(ctx.name), std::move(axes), kind,
                                    kind_option != nullptr, std::move(devices_begin), std::move(devices_end));
}

MeshAxis Transformer::transformMeshAxis(P::MeshAxisContext& ctx) {
  return MeshAxis{identifier(ctx.name), transformExpr(require(ctx.size, "axis size")), range(&ctx)};
}

Ptr<ConstDecl> Transformer::transformConstDecl(P::ConstDeclContext& ctx) {
  NodeId id = ids_.next();
  return std::make_unique<ConstDecl>(id, range(&ctx), identifier(ctx.name),
                                     transformExpr(require(ctx.value, "const value")));
}

Ptr<FunctionDecl> Transformer::transformFunctionDecl(P::FunctionDeclContext& ctx) {
  NodeId id = ids_.next();
  FunctionKind kind = ctx.kind->getType() == P::FN     ? FunctionKind::fn
                      : ctx.kind->getType() == P::FUNC ? FunctionKind::func
                                                       : FunctionKind::shard_map;
  std::vector<Ptr<Param>> params;
  if (ctx.paramList()) {
    for (P::ParamContext* param : ctx.paramList()->param()) params.push_back(transformParam(require(param, "param")));
  }
  std::vector<Ptr<TypeAnnotation>> results;
  bool tuple_result = false;
  if (P::ResultsContext* r = ctx.results()) {
    if (auto* single = dynamic_cast<P::SingleResultContext*>(r)) {
      results.push_back(transformTypeAnnotation(require(single->typeAnnotation(), "result type")));
    } else {
      auto& tuple = require(dynamic_cast<P::TupleResultContext*>(r), "tuple result");
      tuple_result = true;
      for (P::TypeAnnotationContext* t : tuple.typeAnnotation()) {
        results.push_back(transformTypeAnnotation(require(t, "result type")));
      }
    }
  }
  std::optional<Identifier> mesh;
  if (ctx.mesh) mesh = identifier(ctx.mesh);
  bool unchecked = ctx.UNCHECKED() != nullptr;
  std::string name = ctx.name->getText();
  // The three errors below drop what they name and leave a module to check, so that the rest
  // of the file's errors are reported with them.
  if (unchecked && kind != FunctionKind::shard_map) {
    diags_.error(range(ctx.UNCHECKED()->getSymbol()),
                 "'unchecked' applies only to a shard_map, not to " + std::string(function_kind_name(kind)) + " '" +
                     name + "'")
        .note("shard_map ... unchecked is JAX's check_vma=False");
    unchecked = false;
    ++recoverable_errors_;
  }
  if (ctx.results() && kind == FunctionKind::fn) {
    // The grammar shares `-> RESULT` among the three kinds; an fn's result is whatever it
    // returns (it is inlined), so a written type would be silently ignored.
    diags_.error(range(ctx.results()),
                 "fn helper '" + name + "' cannot declare a result type; it returns the type of its return value")
        .note("declare it with 'func' or 'shard_map' to give it result types");
    results.clear();
    tuple_result = false;
    ++recoverable_errors_;
  }
  if (mesh && kind == FunctionKind::fn) {
    diags_.error(mesh->range, "fn helper '" + name + "' cannot name a mesh; it runs on the mesh of its caller")
        .note("declare it with 'func' or 'shard_map' to give it its own mesh");
    mesh.reset();
    ++recoverable_errors_;
  }
  return std::make_unique<FunctionDecl>(id, range(&ctx), identifier(ctx.name), kind, std::move(params),
                                        std::move(results), tuple_result, std::move(mesh), unchecked,
                                        transformBlock(require(ctx.block(), "function body")));
}

Ptr<Param> Transformer::transformParam(P::ParamContext& ctx) {
  NodeId id = ids_.next();
  Ptr<TypeAnnotation> type;
  if (ctx.typeAnnotation()) type = transformTypeAnnotation(*ctx.typeAnnotation());
  return std::make_unique<Param>(id, range(&ctx), identifier(ctx.name), std::move(type));
}

// ---------------------------------------------------------------------------------------
// Types

Ptr<TypeAnnotation> Transformer::transformTypeAnnotation(P::TypeAnnotationContext& ctx) {
  NodeId id = ids_.next();
  P::ElementTypeContext& element_ctx = require(ctx.elementType(), "element type");
  const antlr4::Token* element_token = element_ctx.getStart();
  std::optional<ElementType> element = dtype_of_token(element_token->getType());
  std::string unknown_element;
  if (!element) {
    std::string spelled = element_token->getText();
    if (spelled == "key") {
      element = ElementType::key;
      if (ctx.LBRACK()) {
        diags_.error(range(&ctx), "a key is a scalar; 'key' takes no dimensions")
            .note("split(k, n) returns a tuple of n keys");
      }
    } else if (spelled.find_first_of("\x01\x02") != std::string::npos) {
      // A name with a character the lexer masked (non-ASCII, a control byte) and has already
      // reported; the module is dropped for that error, so a placeholder will do.
      element = ElementType::f32;
    } else {
      diags_.error(range(element_token), "unknown type '" + spelled + "'")
          .note("the element types are " + std::string(kElementTypeList));
      ++recoverable_errors_;
      element = ElementType::f32;
      unknown_element = std::move(spelled);
    }
  }
  auto type = std::make_unique<TypeAnnotation>(id, range(&ctx), *element, transformDimList(ctx.dimList()),
                                               transformVaryingSuffix(ctx.varyingSuffix()));
  type->unknown_element = std::move(unknown_element);
  return type;
}

Ptr<TypeAnnotation> Transformer::transformTypeAnnotationValue(P::TypeAnnotationValueContext& ctx) {
  NodeId id = ids_.next();
  std::optional<ElementType> element = dtype_of_token(ctx.dtype->getType());
  SHARDC_ASSERT(element.has_value(), "type value without a dtype keyword");
  return std::make_unique<TypeAnnotation>(id, range(&ctx), *element, transformDimList(ctx.dimList()),
                                          transformVaryingSuffix(ctx.varyingSuffix()));
}

std::vector<DimAnnotation> Transformer::transformDimList(P::DimListContext* ctx) {
  std::vector<DimAnnotation> dims;
  if (!ctx) return dims;
  for (P::DimContext* dim : ctx->dim()) dims.push_back(transformDim(require(dim, "dim")));
  return dims;
}

DimAnnotation Transformer::transformDim(P::DimContext& ctx) {
  DimAnnotation dim;
  dim.size = transformDimExpr(require(ctx.size, "dimension size"));
  if (ctx.axisSpec()) dim.axes = transformAxisSpec(*ctx.axisSpec());
  dim.range = range(&ctx);
  return dim;
}

std::vector<Identifier> Transformer::transformAxisSpec(P::AxisSpecContext& ctx) {
  std::vector<Identifier> axes;
  if (auto* single = dynamic_cast<P::SingleAxisContext*>(&ctx)) {
    axes.push_back(identifier(single->IDENT()->getSymbol()));
  } else {
    auto& multi = require(dynamic_cast<P::MultiAxisContext*>(&ctx), "multi-axis spec");
    for (antlr4::tree::TerminalNode* name : multi.IDENT()) axes.push_back(identifier(name->getSymbol()));
  }
  return axes;
}

std::optional<std::vector<Identifier>> Transformer::transformVaryingSuffix(P::VaryingSuffixContext* ctx) {
  if (!ctx) return std::nullopt;
  if (ctx->tag->getText() != "V") {
    diags_.error(range(ctx->tag), "expected 'V' in a varying-axes suffix, found '" + ctx->tag->getText() + "'")
        .note("a local type lists the axes it varies over as {V:dp} or {V:X,Y}");
  }
  std::vector<Identifier> axes;
  auto names = ctx->IDENT();
  for (std::size_t i = 1; i < names.size(); ++i) axes.push_back(identifier(names[i]->getSymbol()));
  return axes;
}

Ptr<Expr> Transformer::transformDimExpr(P::DimExprContext& ctx) {
  DepthScope scope(depth_);
  if (too_deep(0, range(&ctx))) return placeholder(range(&ctx));
  if (auto* postfix = dynamic_cast<P::DimPostfixContext*>(&ctx)) {
    return transformPostfixExpr(require(postfix->postfixExpr(), "postfixExpr"));
  }
  if (auto* unary = dynamic_cast<P::DimUnaryContext*>(&ctx)) {
    NodeId id = ids_.next();
    return std::make_unique<UnaryExpr>(id, range(&ctx), unary_op_of(unary->op),
                                       transformDimExpr(require(unary->dimExpr(), "operand")), range(unary->op));
  }
  // A left-deep chain `a * b + c ...`: walk the spine iteratively so that a long chain costs
  // no parse-tree recursion here, and check the resulting depth before building it.
  std::vector<P::DimBinaryContext*> spine;
  P::DimExprContext* innermost = &ctx;
  while (auto* binary = dynamic_cast<P::DimBinaryContext*>(innermost)) {
    spine.push_back(binary);
    innermost = &require(binary->dimExpr(0), "lhs");
  }
  if (too_deep(static_cast<unsigned>(spine.size()), range(&ctx))) return placeholder(range(&ctx));
  DepthScope chain(depth_, static_cast<unsigned>(spine.size()) - 1);
  Ptr<Expr> lhs = transformDimExpr(*innermost);
  for (std::size_t i = spine.size(); i-- > 0;) {
    P::DimBinaryContext* binary = spine[i];
    NodeId id = ids_.next();
    Ptr<Expr> rhs = transformDimExpr(require(binary->dimExpr(1), "rhs"));
    lhs = std::make_unique<BinaryExpr>(id, range(binary), binary_op_of(binary->op), std::move(lhs), std::move(rhs),
                                       range(binary->op));
  }
  return lhs;
}

// ---------------------------------------------------------------------------------------
// Statements

Ptr<BlockStmt> Transformer::transformBlock(P::BlockContext& ctx) {
  DepthScope scope(depth_);
  NodeId id = ids_.next();
  std::vector<Ptr<Stmt>> statements;
  for (P::StatementContext* s : ctx.statement()) statements.push_back(transformStatement(require(s, "statement")));
  return std::make_unique<BlockStmt>(id, range(&ctx), std::move(statements));
}

Ptr<Stmt> Transformer::transformStatement(P::StatementContext& ctx) {
  DepthScope scope(depth_);
  if (auto* let = dynamic_cast<P::LetStatementContext*>(&ctx)) return transformLetStatement(*let);
  if (auto* assign = dynamic_cast<P::AssignStatementContext*>(&ctx)) return transformAssignStatement(*assign);
  if (auto* loop = dynamic_cast<P::ForStatementContext*>(&ctx)) return transformForStatement(*loop);
  if (auto* branch = dynamic_cast<P::IfStatementContext*>(&ctx)) {
    return transformIfChain(require(branch->ifChain(), "if chain"), range(&ctx));
  }
  if (auto* ret = dynamic_cast<P::ReturnStatementContext*>(&ctx)) return transformReturnStatement(*ret);
  if (auto* expr = dynamic_cast<P::ExprStatementContext*>(&ctx)) {
    NodeId id = ids_.next();
    return std::make_unique<ExprStmt>(id, range(&ctx), transformExpr(require(expr->expr(), "expression")));
  }
  auto& block = require(dynamic_cast<P::BlockStatementContext*>(&ctx), "block statement");
  return transformBlock(require(block.block(), "block"));
}

Ptr<Stmt> Transformer::transformLetStatement(P::LetStatementContext& ctx) {
  NodeId id = ids_.next();
  Ptr<TypeAnnotation> type;
  if (ctx.typeAnnotation()) type = transformTypeAnnotation(*ctx.typeAnnotation());
  Ptr<Pattern> target = transformPattern(require(ctx.pattern(), "pattern"));
  return std::make_unique<LetStmt>(id, range(&ctx), ctx.kind->getType() == P::VAR, std::move(target),
                                   std::move(type), transformExpr(require(ctx.value, "value")));
}

Ptr<Stmt> Transformer::transformAssignStatement(P::AssignStatementContext& ctx) {
  NodeId id = ids_.next();
  Ptr<Pattern> target = transformPattern(require(ctx.pattern(), "pattern"));
  AssignOp op = transformAssignOp(require(ctx.op, "assignment operator"));
  if (op != AssignOp::assign && target->pattern_kind != PatternKind::name) {
    diags_.error(target->range, "'" + std::string(assign_op_spelling(op)) + "' needs a single variable on its left")
        .note("only '=' assigns to a tuple of variables or to '_'");
  }
  return std::make_unique<AssignStmt>(id, range(&ctx), op, std::move(target),
                                      transformExpr(require(ctx.value, "value")), range(ctx.op));
}

AssignOp Transformer::transformAssignOp(P::AssignOpContext& ctx) {
  switch (ctx.getStart()->getType()) {
    case P::ASSIGN: return AssignOp::assign;
    case P::PLUS_ASSIGN: return AssignOp::add;
    case P::MINUS_ASSIGN: return AssignOp::sub;
    case P::STAR_ASSIGN: return AssignOp::mul;
    case P::SLASH_ASSIGN: return AssignOp::div;
    case P::SLASHSLASH_ASSIGN: return AssignOp::floor_div;
    case P::PERCENT_ASSIGN: return AssignOp::mod;
    case P::AT_ASSIGN: return AssignOp::matmul;
    default: break;
  }
  internal_error(__FILE__, __LINE__, "unknown assignment operator '" + ctx.getText() + "'");
}

Ptr<Stmt> Transformer::transformForStatement(P::ForStatementContext& ctx) {
  NodeId id = ids_.next();
  Ptr<Pattern> variable = transformPattern(require(ctx.pattern(), "loop variable"));
  if (variable->pattern_kind == PatternKind::tuple) {
    diags_.error(variable->range, "a for loop binds a single index variable, not a tuple");
  }
  P::ForRangeContext& range_ctx = require(ctx.forRange(), "for range");
  Ptr<Expr> begin;
  Ptr<Expr> end;
  bool reversed = false;
  if (auto* forward = dynamic_cast<P::ForwardRangeContext*>(&range_ctx)) {
    begin = transformExpr(require(forward->begin, "range begin"));
    end = transformExpr(require(forward->end, "range end"));
  } else {
    auto& backward = require(dynamic_cast<P::ReversedRangeContext*>(&range_ctx), "reversed range");
    begin = transformExpr(require(backward.begin, "range begin"));
    end = transformExpr(require(backward.end, "range end"));
    reversed = true;
  }
  return std::make_unique<ForStmt>(id, range(&ctx), std::move(variable), std::move(begin), std::move(end), reversed,
                                   transformBlock(require(ctx.block(), "loop body")));
}

// `if a {A} else if b {B} else {C}` becomes If(a, A, If(b, B, C)); the chain is flat in the
// parse tree, so it is built from the back.
Ptr<Stmt> Transformer::transformIfChain(P::IfChainContext& ctx, SourceRange whole) {
  auto conditions = ctx.expr();
  auto blocks = ctx.block();
  std::size_t branches = conditions.size();
  SHARDC_ASSERT(branches >= 1 && blocks.size() == branches + (ctx.elseBlock ? 1 : 0), "malformed if chain");
  if (too_deep(static_cast<unsigned>(branches), whole)) return std::make_unique<ExprStmt>(ids_.next(), whole, placeholder(whole));
  DepthScope chain(depth_, static_cast<unsigned>(branches));
  Ptr<Stmt> else_branch;
  if (ctx.elseBlock) else_branch = transformBlock(*ctx.elseBlock);
  for (std::size_t i = branches; i-- > 0;) {
    // The first branch spans the whole statement; an else-if branch starts at its `if`.
    SourceRange r = whole;
    if (i != 0) r.begin = range(ctx.IF(i - 1)->getSymbol()).begin;
    NodeId id = ids_.next();
    Ptr<Expr> condition = transformExpr(require(conditions[i], "condition"));
    Ptr<BlockStmt> then_branch = transformBlock(require(blocks[i], "branch"));
    else_branch = std::make_unique<IfStmt>(id, r, std::move(condition), std::move(then_branch), std::move(else_branch));
  }
  return else_branch;
}

Ptr<Stmt> Transformer::transformReturnStatement(P::ReturnStatementContext& ctx) {
  NodeId id = ids_.next();
  Ptr<Expr> value;
  if (ctx.value) value = transformExpr(*ctx.value);
  return std::make_unique<ReturnStmt>(id, range(&ctx), std::move(value));
}

Ptr<Pattern> Transformer::transformPattern(P::PatternContext& ctx) {
  DepthScope scope(depth_);
  if (auto* name = dynamic_cast<P::NamePatternContext*>(&ctx)) {
    NodeId id = ids_.next();
    Identifier ident = identifier(name->IDENT()->getSymbol());
    PatternKind kind = ident.name == "_" ? PatternKind::wildcard : PatternKind::name;
    return std::make_unique<Pattern>(id, range(&ctx), kind, std::move(ident), std::vector<Ptr<Pattern>>{});
  }
  auto& tuple = require(dynamic_cast<P::TuplePatternContext*>(&ctx), "tuple pattern");
  auto parts = tuple.pattern();
  // `(a)` is just `a` in parentheses; `(a,)` is a one-element tuple.
  if (parts.size() == 1 && !tuple.trailing) return transformPattern(require(parts[0], "pattern"));
  NodeId id = ids_.next();
  std::vector<Ptr<Pattern>> elements;
  for (P::PatternContext* p : parts) elements.push_back(transformPattern(require(p, "pattern")));
  return std::make_unique<Pattern>(id, range(&ctx), PatternKind::tuple, Identifier{}, std::move(elements));
}

// ---------------------------------------------------------------------------------------
// Expressions

Ptr<Expr> Transformer::transformExpr(P::ExprContext& ctx) {
  DepthScope scope(depth_);
  if (too_deep(0, range(&ctx))) return placeholder(range(&ctx));
  if (auto* postfix = dynamic_cast<P::PostfixExpressionContext*>(&ctx)) {
    return transformPostfixExpr(require(postfix->postfixExpr(), "postfixExpr"));
  }
  if (auto* unary = dynamic_cast<P::UnaryExpressionContext*>(&ctx)) return transformUnaryExpression(*unary);
  return transformBinaryChain(require(dynamic_cast<P::BinaryExpressionContext*>(&ctx), "binary expression"));
}

Ptr<Expr> Transformer::transformUnaryExpression(P::UnaryExpressionContext& ctx) {
  NodeId id = ids_.next();
  return std::make_unique<UnaryExpr>(id, range(&ctx), unary_op_of(ctx.op), transformExpr(require(ctx.expr(), "operand")),
                                     range(ctx.op));
}

// A left-deep chain `a + b - c ...` (the parse tree nests on the left): collect the spine
// iteratively, check the depth it will have, then build it from the innermost operand out.
Ptr<Expr> Transformer::transformBinaryChain(P::BinaryExpressionContext& ctx) {
  std::vector<P::BinaryExpressionContext*> spine;
  P::ExprContext* innermost = &ctx;
  while (auto* binary = dynamic_cast<P::BinaryExpressionContext*>(innermost)) {
    spine.push_back(binary);
    innermost = &require(binary->lhs, "lhs");
  }
  if (too_deep(static_cast<unsigned>(spine.size()), range(&ctx))) return placeholder(range(&ctx));
  // Comparisons do not chain: `a < b < c` would compare a bool with c.
  for (std::size_t i = 0; i + 1 < spine.size(); ++i) {
    if (is_comparison(spine[i]->op) && is_comparison(spine[i + 1]->op)) {
      diags_.error(range(spine[i]->op), "comparisons do not chain: '" + spine[i + 1]->op->getText() + "' and '" +
                                            spine[i]->op->getText() + "' in one expression")
          .note("write (a < b) && (b < c), or parenthesise the comparison you mean");
    }
  }
  DepthScope chain(depth_, static_cast<unsigned>(spine.size()) - 1);
  Ptr<Expr> lhs = transformExpr(*innermost);
  for (std::size_t i = spine.size(); i-- > 0;) {
    P::BinaryExpressionContext* binary = spine[i];
    NodeId id = ids_.next();
    Ptr<Expr> rhs = transformExpr(require(binary->rhs, "rhs"));
    lhs = std::make_unique<BinaryExpr>(id, range(binary), binary_op_of(binary->op), std::move(lhs), std::move(rhs),
                                       range(binary->op));
  }
  return lhs;
}

Ptr<Expr> Transformer::transformPostfixExpr(P::PostfixExprContext& ctx) {
  auto ops = ctx.postfixOp();
  if (too_deep(static_cast<unsigned>(ops.size()), range(&ctx))) return placeholder(range(&ctx));
  DepthScope chain(depth_, static_cast<unsigned>(ops.size()));
  P::PrimaryContext& primary = require(ctx.primary(), "primary");
  Ptr<Expr> base = transformPrimary(primary);
  for (P::PostfixOpContext* op : ops) {
    SourceRange r = join(range(&primary), range(op));
    if (auto* attribute = dynamic_cast<P::AttributeOpContext*>(op)) {
      NodeId id = ids_.next();
      base = std::make_unique<AttributeExpr>(id, r, std::move(base), identifier(attribute->IDENT()->getSymbol()));
      continue;
    }
    auto& index = require(dynamic_cast<P::IndexOpContext*>(op), "index op");
    NodeId id = ids_.next();
    std::vector<Ptr<Expr>> indices;
    for (P::IndexItemContext* item : index.indexItem()) indices.push_back(transformIndexItem(require(item, "index")));
    base = std::make_unique<IndexExpr>(id, r, std::move(base), std::move(indices));
  }
  return base;
}

Ptr<Expr> Transformer::transformIndexItem(P::IndexItemContext& ctx) {
  if (auto* plain = dynamic_cast<P::PlainIndexContext*>(&ctx)) return transformExpr(require(plain->expr(), "index"));
  auto& slice = require(dynamic_cast<P::SliceIndexContext*>(&ctx), "slice");
  NodeId id = ids_.next();
  Ptr<Expr> begin = slice.begin ? transformExpr(*slice.begin) : nullptr;
  Ptr<Expr> end = slice.end ? transformExpr(*slice.end) : nullptr;
  Ptr<Expr> step = slice.step ? transformExpr(*slice.step) : nullptr;
  return std::make_unique<SliceExpr>(id, range(&ctx), std::move(begin), std::move(end), std::move(step));
}

Ptr<Expr> Transformer::transformPrimary(P::PrimaryContext& ctx) {
  SourceRange r = range(&ctx);
  if (auto* literal = dynamic_cast<P::IntLiteralContext*>(&ctx)) return transformIntLiteral(literal->INT()->getSymbol());
  if (auto* literal = dynamic_cast<P::FloatLiteralContext*>(&ctx)) {
    return transformFloatLiteral(literal->FLOAT()->getSymbol());
  }
  if (dynamic_cast<P::BoolLiteralContext*>(&ctx)) {
    return std::make_unique<BoolLiteral>(ids_.next(), r, ctx.getStart()->getType() == P::TRUE);
  }
  if (dynamic_cast<P::NoneLiteralContext*>(&ctx)) return std::make_unique<NoneLiteral>(ids_.next(), r);
  if (auto* literal = dynamic_cast<P::StringLiteralContext*>(&ctx)) {
    return transformStringLiteral(literal->STRING()->getSymbol());
  }
  if (auto* type = dynamic_cast<P::TypeValueContext*>(&ctx)) {
    NodeId id = ids_.next();
    return std::make_unique<TypeExpr>(id, r, transformTypeAnnotationValue(require(type->typeAnnotationValue(), "type")));
  }
  if (auto* call = dynamic_cast<P::CallContext*>(&ctx)) return transformCall(*call);
  if (auto* name = dynamic_cast<P::NameContext*>(&ctx)) {
    return std::make_unique<NameExpr>(ids_.next(), r, name->IDENT()->getText());
  }
  if (auto* paren = dynamic_cast<P::ParenthesizedContext*>(&ctx)) return transformExpr(require(paren->expr(), "expr"));
  if (auto* tuple = dynamic_cast<P::TupleContext*>(&ctx)) {
    NodeId id = ids_.next();
    std::vector<Ptr<Expr>> elements;
    for (P::ExprContext* e : tuple->expr()) elements.push_back(transformExpr(require(e, "element")));
    return std::make_unique<TupleExpr>(id, r, std::move(elements));
  }
  auto& list = require(dynamic_cast<P::ListContext*>(&ctx), "list");
  NodeId id = ids_.next();
  std::vector<Ptr<Expr>> elements;
  for (P::ExprContext* e : list.expr()) elements.push_back(transformExpr(require(e, "element")));
  return std::make_unique<ListExpr>(id, r, std::move(elements));
}

Ptr<Expr> Transformer::transformCall(P::CallContext& ctx) {
  NodeId id = ids_.next();
  std::vector<Argument> args;
  std::optional<std::size_t> first_keyword;  // index into args
  if (ctx.argList()) {
    for (P::ArgumentContext* a : ctx.argList()->argument()) {
      Argument arg = transformArgument(require(a, "argument"));
      if (arg.keyword) {
        for (const Argument& earlier : args) {
          if (earlier.keyword && earlier.keyword->name == arg.keyword->name) {
            diags_.error(arg.keyword->range, "keyword argument '" + arg.keyword->name + "' is given twice")
                .note(earlier.keyword->range, "first given here");
            break;
          }
        }
        if (!first_keyword) first_keyword = args.size();
      } else if (first_keyword) {
        diags_.error(arg.range, "positional argument after keyword argument '" +
                                    args[*first_keyword].keyword->name + "'")
            .note("positional arguments come first, as in Python");
      }
      args.push_back(std::move(arg));
    }
  }
  return std::make_unique<CallExpr>(id, range(&ctx), identifier(ctx.callee), std::move(args));
}

Argument Transformer::transformArgument(P::ArgumentContext& ctx) {
  if (auto* keyword = dynamic_cast<P::KeywordArgumentContext*>(&ctx)) {
    return Argument{identifier(keyword->keyword), transformExpr(require(keyword->expr(), "value")), range(&ctx)};
  }
  auto& positional = require(dynamic_cast<P::PositionalArgumentContext*>(&ctx), "argument");
  return Argument{std::nullopt, transformExpr(require(positional.expr(), "value")), range(&ctx)};
}

namespace {

// A literal as a message quotes it: a very long one (a pasted array, a runaway digit string)
// cut to its first and last digits.
std::string quoted_literal(const std::string& text) {
  constexpr std::size_t kShown = 40;
  if (text.size() <= kShown) return text;
  return text.substr(0, kShown / 2) + "..." + text.substr(text.size() - kShown / 2) + " (" +
         std::to_string(text.size()) + " characters)";
}

}  // namespace

Ptr<Expr> Transformer::transformIntLiteral(antlr4::Token* token) {
  SourceRange r = range(token);
  std::string text = token->getText();
  ParsedNumber<std::uint64_t> parsed = parse_unsigned_literal(text);
  std::int64_t value = 0;
  if (parsed.status == NumberStatus::out_of_range ||
      (parsed.status == NumberStatus::ok && parsed.value > static_cast<std::uint64_t>(INT64_MAX))) {
    diags_.error(r, "integer literal " + quoted_literal(text) + " does not fit in a 64-bit signed integer (i64)")
        .note("the largest is 9223372036854775807");
  } else {
    SHARDC_ASSERT(parsed.status == NumberStatus::ok, "malformed INT token " + text);
    value = static_cast<std::int64_t>(parsed.value);
  }
  return std::make_unique<IntLiteral>(ids_.next(), r, value);
}

Ptr<Expr> Transformer::transformFloatLiteral(antlr4::Token* token) {
  SourceRange r = range(token);
  std::string text = token->getText();
  ParsedNumber<double> parsed = parse_float_literal(text);
  double value = 0;
  if (parsed.status == NumberStatus::out_of_range) {
    diags_.error(r, "floating-point literal " + quoted_literal(text) + " is too large");
  } else {
    SHARDC_ASSERT(parsed.status == NumberStatus::ok, "malformed FLOAT token " + text);
    value = parsed.value;
  }
  return std::make_unique<FloatLiteral>(ids_.next(), r, value, text);
}

// Decoded from the original file bytes, not the token text: the lexer reads a copy of the
// file in which non-ASCII bytes are masked (see parse.cpp).
Ptr<Expr> Transformer::transformStringLiteral(antlr4::Token* token) {
  SourceRange r = range(token);
  std::string_view raw = std::string_view(file_.text()).substr(token->getStartIndex(),
                                                               token->getStopIndex() + 1 - token->getStartIndex());
  SHARDC_ASSERT(!raw.empty() && raw.front() == '"', "malformed STRING token");
  raw.remove_prefix(1);
  // An unterminated string (already reported by the token scan) has no closing quote.
  bool terminated = false;
  if (!raw.empty() && raw.back() == '"') {
    std::size_t backslashes = 0;
    for (std::size_t i = raw.size() - 1; i-- > 0 && raw[i] == '\\';) ++backslashes;
    terminated = backslashes % 2 == 0;
  }
  if (terminated) raw.remove_suffix(1);
  std::string value;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '\\') {
      value += raw[i];
      continue;
    }
    if (i + 1 == raw.size()) break;  // a lone backslash ending an unterminated string
    char escaped = raw[++i];
    switch (escaped) {
      case '"': value += '"'; break;
      case '\\': value += '\\'; break;
      default: {
        auto offset = token->getStartIndex() + 1 + i - 1;
        diags_.error(range_of_offsets(file_, offset, offset + 2),
                     std::string("unknown escape sequence '\\") + escaped + "' in a string")
            .note("the only escapes are \\\" and \\\\");
        value += escaped;
      }
    }
  }
  return std::make_unique<StringLiteral>(ids_.next(), r, std::move(value));
}

}  // namespace shardc::syntax

// Builds the AST from ANTLR's parse tree: one transformX per grammar rule (Kuzu's style).
// Runs only on a parse tree without syntax errors. Reports what the grammar cannot express:
// integer literals beyond i64, unknown types, a bad {V:...} suffix, a positional argument
// after a keyword one, a repeated keyword, a compound assignment to a tuple, `unchecked`
// outside shard_map, repeated mesh options, and ASTs deeper than ParseLimits allow.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ShardParser.h"
#include "frontend/ast.h"
#include "frontend/diagnostics.h"
#include "frontend/parse.h"

namespace shardc::syntax {

class Transformer {
 public:
  using P = shard_antlr::ShardParser;

  Transformer(const SourceFile& file, Diagnostics& diags, const ParseLimits& limits)
      : file_(file), diags_(diags), limits_(limits) {}

  std::unique_ptr<ast::Module> transformModule(P::Module_Context& ctx, std::string module_name);
  // How many of the errors reported leave a module the checker can still read (an unknown
  // element type: ast::TypeAnnotation::unknown_element); any other error drops the module.
  std::size_t recoverable_errors() const { return recoverable_errors_; }

 private:
  // Declarations
  ast::Ptr<ast::Decl> transformDecl(P::DeclContext& ctx);
  ast::Ptr<ast::MeshDecl> transformMeshDecl(P::MeshDeclContext& ctx);
  ast::MeshAxis transformMeshAxis(P::MeshAxisContext& ctx);
  ast::Ptr<ast::ConstDecl> transformConstDecl(P::ConstDeclContext& ctx);
  ast::Ptr<ast::FunctionDecl> transformFunctionDecl(P::FunctionDeclContext& ctx);
  ast::Ptr<ast::Param> transformParam(P::ParamContext& ctx);

  // Types
  ast::Ptr<ast::TypeAnnotation> transformTypeAnnotation(P::TypeAnnotationContext& ctx);
  ast::Ptr<ast::TypeAnnotation> transformTypeAnnotationValue(P::TypeAnnotationValueContext& ctx);
  std::vector<ast::DimAnnotation> transformDimList(P::DimListContext* ctx);
  ast::DimAnnotation transformDim(P::DimContext& ctx);
  std::vector<ast::Identifier> transformAxisSpec(P::AxisSpecContext& ctx);
  std::optional<std::vector<ast::Identifier>> transformVaryingSuffix(P::VaryingSuffixContext* ctx);
  ast::Ptr<ast::Expr> transformDimExpr(P::DimExprContext& ctx);

  // Statements
  ast::Ptr<ast::BlockStmt> transformBlock(P::BlockContext& ctx);
  ast::Ptr<ast::Stmt> transformStatement(P::StatementContext& ctx);
  ast::Ptr<ast::Stmt> transformLetStatement(P::LetStatementContext& ctx);
  ast::Ptr<ast::Stmt> transformAssignStatement(P::AssignStatementContext& ctx);
  ast::Ptr<ast::Stmt> transformForStatement(P::ForStatementContext& ctx);
  ast::Ptr<ast::Stmt> transformIfChain(P::IfChainContext& ctx, SourceRange whole);
  ast::Ptr<ast::Stmt> transformReturnStatement(P::ReturnStatementContext& ctx);
  ast::Ptr<ast::Pattern> transformPattern(P::PatternContext& ctx);
  ast::AssignOp transformAssignOp(P::AssignOpContext& ctx);

  // Expressions
  ast::Ptr<ast::Expr> transformExpr(P::ExprContext& ctx);
  ast::Ptr<ast::Expr> transformBinaryChain(P::BinaryExpressionContext& ctx);
  ast::Ptr<ast::Expr> transformUnaryExpression(P::UnaryExpressionContext& ctx);
  ast::Ptr<ast::Expr> transformPostfixExpr(P::PostfixExprContext& ctx);
  ast::Ptr<ast::Expr> transformPrimary(P::PrimaryContext& ctx);
  ast::Ptr<ast::Expr> transformIndexItem(P::IndexItemContext& ctx);
  ast::Ptr<ast::Expr> transformCall(P::CallContext& ctx);
  ast::Argument transformArgument(P::ArgumentContext& ctx);
  ast::Ptr<ast::Expr> transformIntLiteral(antlr4::Token* token);
  ast::Ptr<ast::Expr> transformFloatLiteral(antlr4::Token* token);
  ast::Ptr<ast::Expr> transformStringLiteral(antlr4::Token* token);

  // Helpers
  SourceRange range(antlr4::ParserRuleContext* ctx) const;
  SourceRange range(const antlr4::Token* token) const;
  ast::Identifier identifier(const antlr4::Token* token) const;
  ast::Ptr<ast::Expr> placeholder(SourceRange where);
  // Reports (once per file) that the AST would be deeper than the limit; true if so.
  bool too_deep(unsigned extra_levels, SourceRange where);

  // Each node-building recursion holds one DepthScope, so depth_ is the AST depth.
  struct DepthScope {
    explicit DepthScope(unsigned& depth, unsigned levels = 1) : depth(depth), levels(levels) { depth += levels; }
    ~DepthScope() { depth -= levels; }
    unsigned& depth;
    unsigned levels;
  };

  const SourceFile& file_;
  Diagnostics& diags_;
  const ParseLimits& limits_;
  ast::NodeIdAllocator ids_;
  unsigned depth_ = 0;
  bool reported_depth_ = false;
  std::size_t recoverable_errors_ = 0;
};

}  // namespace shardc::syntax

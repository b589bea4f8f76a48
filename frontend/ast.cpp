#include "frontend/ast.h"

#include "frontend/internal_error.h"

namespace shardc::ast {

std::string_view node_kind_name(NodeKind kind) {
  switch (kind) {
#define SHARDC_AST_NAME(name) \
  case NodeKind::name:        \
    return #name;
    SHARDC_AST_EXPR_NODES(SHARDC_AST_NAME)
    SHARDC_AST_STMT_NODES(SHARDC_AST_NAME)
    SHARDC_AST_DECL_NODES(SHARDC_AST_NAME)
    SHARDC_AST_OTHER_NODES(SHARDC_AST_NAME)
#undef SHARDC_AST_NAME
  }
  return "?";
}

std::string_view element_type_name(ElementType t) {
  switch (t) {
    case ElementType::f32: return "f32";
    case ElementType::bf16: return "bf16";
    case ElementType::f16: return "f16";
    case ElementType::i32: return "i32";
    case ElementType::i64: return "i64";
    case ElementType::boolean: return "bool";
    case ElementType::key: return "key";
  }
  return "?";
}

std::optional<ElementType> element_type_from_name(std::string_view name) {
  for (auto t : {ElementType::f32, ElementType::bf16, ElementType::f16, ElementType::i32, ElementType::i64,
                 ElementType::boolean, ElementType::key}) {
    if (element_type_name(t) == name) return t;
  }
  return std::nullopt;
}

std::string_view unary_op_spelling(UnaryOp op) {
  switch (op) {
    case UnaryOp::negate: return "-";
    case UnaryOp::plus: return "+";
    case UnaryOp::logical_not: return "!";
  }
  return "?";
}

std::string_view binary_op_spelling(BinaryOp op) {
  switch (op) {
    case BinaryOp::add: return "+";
    case BinaryOp::sub: return "-";
    case BinaryOp::mul: return "*";
    case BinaryOp::div: return "/";
    case BinaryOp::floor_div: return "//";
    case BinaryOp::mod: return "%";
    case BinaryOp::matmul: return "@";
    case BinaryOp::eq: return "==";
    case BinaryOp::ne: return "!=";
    case BinaryOp::lt: return "<";
    case BinaryOp::le: return "<=";
    case BinaryOp::gt: return ">";
    case BinaryOp::ge: return ">=";
    case BinaryOp::logical_and: return "&&";
    case BinaryOp::logical_or: return "||";
  }
  return "?";
}

std::string_view assign_op_spelling(AssignOp op) {
  switch (op) {
    case AssignOp::assign: return "=";
    case AssignOp::add: return "+=";
    case AssignOp::sub: return "-=";
    case AssignOp::mul: return "*=";
    case AssignOp::div: return "/=";
    case AssignOp::floor_div: return "//=";
    case AssignOp::mod: return "%=";
    case AssignOp::matmul: return "@=";
  }
  return "?";
}

BinaryOp compound_binary_op(AssignOp op) {
  switch (op) {
    case AssignOp::add: return BinaryOp::add;
    case AssignOp::sub: return BinaryOp::sub;
    case AssignOp::mul: return BinaryOp::mul;
    case AssignOp::div: return BinaryOp::div;
    case AssignOp::floor_div: return BinaryOp::floor_div;
    case AssignOp::mod: return BinaryOp::mod;
    case AssignOp::matmul: return BinaryOp::matmul;
    case AssignOp::assign: break;
  }
  internal_error(__FILE__, __LINE__, "compound_binary_op of a plain assignment");
}

std::string_view mesh_kind_name(MeshKind kind) { return kind == MeshKind::auto_ ? "auto" : "explicit"; }

std::string_view function_kind_name(FunctionKind kind) {
  switch (kind) {
    case FunctionKind::fn: return "fn";
    case FunctionKind::func: return "func";
    case FunctionKind::shard_map: return "shard_map";
  }
  return "?";
}

const Argument* CallExpr::keyword(std::string_view name) const {
  for (const Argument& a : args) {
    if (a.keyword && a.keyword->name == name) return &a;
  }
  return nullptr;
}

std::size_t CallExpr::positional_count() const {
  std::size_t n = 0;
  for (const Argument& a : args) n += a.keyword ? 0 : 1;
  return n;
}

const Decl* Module::find(std::string_view decl_name) const {
  for (const auto& d : decls) {
    if (d->name.name == decl_name) return d.get();
  }
  return nullptr;
}

}  // namespace shardc::ast

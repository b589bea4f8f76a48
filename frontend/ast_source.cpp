#include "frontend/ast_source.h"

#include <sstream>

#include "frontend/internal_error.h"

namespace shardc::ast {
namespace {

// Binding strength, tightest highest (docs/language.md, section 6.2).
int precedence(BinaryOp op) {
  switch (op) {
    case BinaryOp::logical_or: return 1;
    case BinaryOp::logical_and: return 2;
    case BinaryOp::eq: case BinaryOp::ne: case BinaryOp::lt: case BinaryOp::le: case BinaryOp::gt:
    case BinaryOp::ge:
      return 3;
    case BinaryOp::add: case BinaryOp::sub: return 4;
    case BinaryOp::mul: case BinaryOp::div: case BinaryOp::floor_div: case BinaryOp::mod: case BinaryOp::matmul:
      return 5;
  }
  return 0;
}
constexpr int kUnaryPrecedence = 6;
constexpr int kPostfixPrecedence = 7;

int precedence_of(const Expr& e) {
  if (auto* b = dyn_cast<BinaryExpr>(&e)) return precedence(b->op);
  if (isa<UnaryExpr>(e)) return kUnaryPrecedence;
  return kPostfixPrecedence + 1;
}

std::string join_axes(const std::vector<Identifier>& axes) {
  std::string out;
  for (std::size_t i = 0; i < axes.size(); ++i) out += (i ? ", " : "") + axes[i].name;
  return out;
}

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

class ExprPrinter {
 public:
  // In a dimension size, `@` (and any operator a size cannot hold unparenthesised:
  // comparisons, && and ||) must be parenthesised, since `@` there starts the sharding.
  explicit ExprPrinter(bool dimension_size = false) : dimension_size_(dimension_size) {}

  std::string print(const Expr& e, int min_precedence = 0) {
    std::string text = visit(e, *this);
    return precedence_of(e) < min_precedence ? "(" + text + ")" : text;
  }

  std::string operator()(const IntLiteral& e) { return std::to_string(e.value); }
  std::string operator()(const FloatLiteral& e) { return e.spelling; }
  std::string operator()(const BoolLiteral& e) { return e.value ? "true" : "false"; }
  std::string operator()(const NoneLiteral&) { return "None"; }
  std::string operator()(const StringLiteral& e) { return quote(e.value); }
  std::string operator()(const NameExpr& e) { return e.name; }
  std::string operator()(const UnaryExpr& e) {
    // `- -x` keeps a space so that it never reads as another token.
    std::string operand = print(*e.operand, kUnaryPrecedence);
    return std::string(unary_op_spelling(e.op)) + (isa<UnaryExpr>(*e.operand) ? " " : "") + operand;
  }
  std::string operator()(const BinaryExpr& e) {
    bool size_operator = e.op == BinaryOp::add || e.op == BinaryOp::sub || e.op == BinaryOp::mul ||
                         e.op == BinaryOp::div || e.op == BinaryOp::floor_div || e.op == BinaryOp::mod;
    if (dimension_size_ && !size_operator) {
      return "(" + nested(e) + ")";
    }
    int p = precedence(e.op);
    // Left-associative: the right operand needs parentheses at equal precedence.
    // Comparisons do not chain, so either side at equal precedence needs them.
    bool comparison = p == 3;
    return print(*e.lhs, comparison ? p + 1 : p) + " " + std::string(binary_op_spelling(e.op)) + " " +
           print(*e.rhs, p + 1);
  }
  std::string operator()(const CallExpr& e) {
    std::string out = e.callee.name + "(";
    for (std::size_t i = 0; i < e.args.size(); ++i) {
      if (i) out += ", ";
      if (e.args[i].keyword) out += e.args[i].keyword->name + "=";
      out += nested(*e.args[i].value);
    }
    return out + ")";
  }
  std::string operator()(const TupleExpr& e) {
    std::string out = "(";
    for (std::size_t i = 0; i < e.elements.size(); ++i) out += (i ? ", " : "") + nested(*e.elements[i]);
    return out + (e.elements.size() == 1 ? ",)" : ")");
  }
  std::string operator()(const ListExpr& e) {
    std::string out = "[";
    for (std::size_t i = 0; i < e.elements.size(); ++i) out += (i ? ", " : "") + nested(*e.elements[i]);
    return out + "]";
  }
  std::string operator()(const IndexExpr& e) {
    std::string out = print(*e.base, kPostfixPrecedence) + "[";
    for (std::size_t i = 0; i < e.indices.size(); ++i) out += (i ? ", " : "") + nested(*e.indices[i]);
    return out + "]";
  }
  std::string operator()(const SliceExpr& e) {
    std::string out = (e.begin ? nested(*e.begin) : "") + ":" + (e.end ? nested(*e.end) : "");
    if (e.step) out += ":" + nested(*e.step);
    return out;
  }
  std::string operator()(const AttributeExpr& e) { return print(*e.base, kPostfixPrecedence) + "." + e.attribute.name; }
  std::string operator()(const TypeExpr& e) { return to_source(*e.type); }

 private:
  // Arguments, elements and indices are nested expressions, no longer at the size's level.
  std::string nested(const Expr& e) { return ExprPrinter().print(e); }
  bool dimension_size_;
};

class ModulePrinter {
 public:
  std::string print(const Module& m) {
    for (std::size_t i = 0; i < m.decls.size(); ++i) {
      if (i) out_ << '\n';
      visit(*m.decls[i], *this);
    }
    return out_.str();
  }

  void operator()(const MeshDecl& d) {
    out_ << "mesh " << d.name.name << " = [";
    for (std::size_t i = 0; i < d.axes.size(); ++i) {
      out_ << (i ? ", " : "") << d.axes[i].name.name << ": " << to_source(*d.axes[i].size);
    }
    out_ << "]";
    if (d.kind_written) out_ << ' ' << mesh_kind_name(d.mesh_kind);
    if (d.devices_begin) out_ << " devices " << to_source(*d.devices_begin) << ".." << to_source(*d.devices_end);
    out_ << ";\n";
  }
  void operator()(const ConstDecl& d) { out_ << "const " << d.name.name << " = " << to_source(*d.value) << ";\n"; }
  void operator()(const FunctionDecl& d) {
    out_ << function_kind_name(d.function_kind) << ' ' << d.name.name << '(';
    for (std::size_t i = 0; i < d.params.size(); ++i) {
      out_ << (i ? ", " : "") << d.params[i]->name.name;
      if (d.params[i]->type) out_ << ": " << to_source(*d.params[i]->type);
    }
    out_ << ')';
    if (d.tuple_result) {
      out_ << " -> (";
      for (std::size_t i = 0; i < d.results.size(); ++i) out_ << (i ? ", " : "") << to_source(*d.results[i]);
      out_ << (d.results.size() == 1 ? ",)" : ")");
    } else if (!d.results.empty()) {
      out_ << " -> " << to_source(*d.results[0]);
    }
    if (d.mesh) out_ << " on " << d.mesh->name;
    if (d.unchecked) out_ << " unchecked";
    out_ << ' ';
    block(*d.body, 0);
    out_ << '\n';
  }

  // Statements print at `depth` levels of indentation, without a trailing newline for blocks.
  void block(const BlockStmt& b, int depth) {
    out_ << "{\n";
    for (const auto& s : b.statements) statement(*s, depth + 1);
    indent(depth);
    out_ << '}';
  }

  void statement(const Stmt& s, int depth) {
    indent(depth);
    if (auto* let = dyn_cast<LetStmt>(&s)) {
      out_ << (let->is_var ? "var " : "let ") << to_source(*let->target);
      if (let->type) out_ << ": " << to_source(*let->type);
      out_ << " = " << to_source(*let->value) << ";\n";
    } else if (auto* assign = dyn_cast<AssignStmt>(&s)) {
      out_ << to_source(*assign->target) << ' ' << assign_op_spelling(assign->op) << ' ' << to_source(*assign->value)
           << ";\n";
    } else if (auto* loop = dyn_cast<ForStmt>(&s)) {
      std::string range = to_source(*loop->begin) + ".." + to_source(*loop->end);
      out_ << "for " << to_source(*loop->variable) << " in " << (loop->reversed ? "rev(" + range + ")" : range) << ' ';
      block(*loop->body, depth);
      out_ << '\n';
    } else if (auto* branch = dyn_cast<IfStmt>(&s)) {
      if_chain(*branch, depth);
      out_ << '\n';
    } else if (auto* ret = dyn_cast<ReturnStmt>(&s)) {
      out_ << "return" << (ret->value ? " " + to_source(*ret->value) : "") << ";\n";
    } else if (auto* expr = dyn_cast<ExprStmt>(&s)) {
      out_ << to_source(*expr->expr) << ";\n";
    } else if (auto* inner = dyn_cast<BlockStmt>(&s)) {
      block(*inner, depth);
      out_ << '\n';
    } else {
      internal_error(__FILE__, __LINE__, "unknown statement kind");
    }
  }

  void if_chain(const IfStmt& s, int depth) {
    out_ << "if " << to_source(*s.condition) << ' ';
    block(*s.then_branch, depth);
    if (!s.else_branch) return;
    out_ << " else ";
    if (auto* next = dyn_cast<IfStmt>(s.else_branch.get())) {
      if_chain(*next, depth);
    } else {
      block(static_cast<const BlockStmt&>(*s.else_branch), depth);
    }
  }

 private:
  void indent(int depth) {
    for (int i = 0; i < depth; ++i) out_ << "  ";
  }
  std::ostringstream out_;
};

}  // namespace

std::string to_source(const Expr& expr) { return ExprPrinter().print(expr); }

std::string to_source(const TypeAnnotation& type) {
  std::string out = type.unknown_element.empty() ? std::string(element_type_name(type.element)) : type.unknown_element;
  if (!type.dims.empty() || type.element != ElementType::key) {
    // `f32` and `f32[]` mean the same; the printer always writes the brackets for arrays.
    out += '[';
    for (std::size_t i = 0; i < type.dims.size(); ++i) {
      const DimAnnotation& d = type.dims[i];
      if (i) out += ", ";
      out += ExprPrinter(/*dimension_size=*/true).print(*d.size);
      if (d.axes.size() == 1) out += "@" + d.axes[0].name;
      if (d.axes.size() > 1) out += "@(" + join_axes(d.axes) + ")";
    }
    out += ']';
  }
  if (type.varying) out += "{V:" + join_axes(*type.varying) + "}";
  return out;
}

std::string to_source(const Pattern& pattern) {
  switch (pattern.pattern_kind) {
    case PatternKind::name: return pattern.name.name;
    case PatternKind::wildcard: return "_";
    case PatternKind::tuple: {
      std::string out = "(";
      for (std::size_t i = 0; i < pattern.elements.size(); ++i) out += (i ? ", " : "") + to_source(*pattern.elements[i]);
      return out + (pattern.elements.size() == 1 ? ",)" : ")");
    }
  }
  return "?";
}

std::string to_source(const Module& module) { return ModulePrinter().print(module); }

}  // namespace shardc::ast

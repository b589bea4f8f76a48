#include "frontend/ast_printer.h"

#include <ostream>

#include "frontend/ast_source.h"

namespace shardc::ast {
namespace {

std::string where(const SourceRange& r) {
  return "<" + std::to_string(r.begin.line) + ":" + std::to_string(r.begin.column) + ">";
}

class TreePrinter {
 public:
  explicit TreePrinter(std::ostream& out) : out_(out) {}

  void module(const Module& m) {
    line(0, "Module " + m.name);
    for (const auto& d : m.decls) visit(*d, DeclPrinter{*this, 1});
  }

  void line(int depth, const std::string& text) {
    for (int i = 0; i < depth; ++i) out_ << "  ";
    out_ << text << '\n';
  }

  // A `label:` line with the node under it.
  void labelled(int depth, const std::string& label, const Expr& e) {
    line(depth, label + ":");
    expr(e, depth + 1);
  }

  void expr(const Expr& e, int depth) { visit(e, ExprPrinter{*this, depth}); }
  void stmt(const Stmt& s, int depth) { visit(s, StmtPrinter{*this, depth}); }

 private:
  struct ExprPrinter {
    TreePrinter& p;
    int d;
    void head(const Expr& e, const std::string& details) {
      p.line(d, std::string(node_kind_name(e.kind)) + (details.empty() ? "" : " " + details) + " " + where(e.range));
    }
    void operator()(const IntLiteral& e) { head(e, std::to_string(e.value)); }
    void operator()(const FloatLiteral& e) { head(e, e.spelling); }
    void operator()(const BoolLiteral& e) { head(e, e.value ? "true" : "false"); }
    void operator()(const NoneLiteral& e) { head(e, ""); }
    void operator()(const StringLiteral& e) { head(e, to_source(e)); }
    void operator()(const NameExpr& e) { head(e, e.name); }
    void operator()(const UnaryExpr& e) {
      head(e, std::string(unary_op_spelling(e.op)));
      p.expr(*e.operand, d + 1);
    }
    void operator()(const BinaryExpr& e) {
      head(e, std::string(binary_op_spelling(e.op)));
      p.expr(*e.lhs, d + 1);
      p.expr(*e.rhs, d + 1);
    }
    void operator()(const CallExpr& e) {
      head(e, e.callee.name);
      for (const Argument& a : e.args) {
        if (a.keyword) {
          p.labelled(d + 1, a.keyword->name + "=", *a.value);
        } else {
          p.expr(*a.value, d + 1);
        }
      }
    }
    void operator()(const TupleExpr& e) {
      head(e, "");
      for (const auto& x : e.elements) p.expr(*x, d + 1);
    }
    void operator()(const ListExpr& e) {
      head(e, "");
      for (const auto& x : e.elements) p.expr(*x, d + 1);
    }
    void operator()(const IndexExpr& e) {
      head(e, "");
      p.expr(*e.base, d + 1);
      for (const auto& x : e.indices) p.expr(*x, d + 1);
    }
    void operator()(const SliceExpr& e) {
      head(e, to_source(e));
      if (e.begin) p.labelled(d + 1, "begin", *e.begin);
      if (e.end) p.labelled(d + 1, "end", *e.end);
      if (e.step) p.labelled(d + 1, "step", *e.step);
    }
    void operator()(const AttributeExpr& e) {
      head(e, "." + e.attribute.name);
      p.expr(*e.base, d + 1);
    }
    void operator()(const TypeExpr& e) { head(e, to_source(*e.type)); }
  };

  struct StmtPrinter {
    TreePrinter& p;
    int d;
    void head(const Stmt& s, const std::string& details) {
      p.line(d, std::string(node_kind_name(s.kind)) + (details.empty() ? "" : " " + details) + " " + where(s.range));
    }
    void operator()(const LetStmt& s) {
      head(s, std::string(s.is_var ? "var " : "let ") + to_source(*s.target) +
                  (s.type ? ": " + to_source(*s.type) : ""));
      p.expr(*s.value, d + 1);
    }
    void operator()(const AssignStmt& s) {
      head(s, to_source(*s.target) + " " + std::string(assign_op_spelling(s.op)));
      p.expr(*s.value, d + 1);
    }
    void operator()(const ForStmt& s) {
      head(s, to_source(*s.variable) + (s.reversed ? " rev" : ""));
      p.labelled(d + 1, "begin", *s.begin);
      p.labelled(d + 1, "end", *s.end);
      p.stmt(*s.body, d + 1);
    }
    void operator()(const IfStmt& s) {
      head(s, "");
      p.labelled(d + 1, "condition", *s.condition);
      p.line(d + 1, "then:");
      p.stmt(*s.then_branch, d + 2);
      if (s.else_branch) {
        p.line(d + 1, "else:");
        p.stmt(*s.else_branch, d + 2);
      }
    }
    void operator()(const ReturnStmt& s) {
      head(s, "");
      if (s.value) p.expr(*s.value, d + 1);
    }
    void operator()(const ExprStmt& s) {
      head(s, "");
      p.expr(*s.expr, d + 1);
    }
    void operator()(const BlockStmt& s) {
      head(s, "");
      for (const auto& x : s.statements) p.stmt(*x, d + 1);
    }
  };

  struct DeclPrinter {
    TreePrinter& p;
    int d;
    void operator()(const MeshDecl& m) {
      p.line(d, "MeshDecl " + m.name.name + " " + std::string(mesh_kind_name(m.mesh_kind)) +
                    (m.kind_written ? "" : " (default)") + " " + where(m.range));
      for (const MeshAxis& a : m.axes) p.labelled(d + 1, "axis " + a.name.name, *a.size);
      if (m.devices_begin) {
        p.labelled(d + 1, "devices begin", *m.devices_begin);
        p.labelled(d + 1, "devices end", *m.devices_end);
      }
    }
    void operator()(const ConstDecl& c) {
      p.line(d, "ConstDecl " + c.name.name + " " + where(c.range));
      p.expr(*c.value, d + 1);
    }
    void operator()(const FunctionDecl& f) {
      std::string head = "FunctionDecl " + std::string(function_kind_name(f.function_kind)) + " " + f.name.name;
      if (f.mesh) head += " on " + f.mesh->name;
      if (f.unchecked) head += " unchecked";
      p.line(d, head + " " + where(f.range));
      for (const auto& param : f.params) {
        p.line(d + 1, "Param " + param->name.name + (param->type ? ": " + to_source(*param->type) : "") + " " +
                          where(param->range));
      }
      if (f.tuple_result) p.line(d + 1, "Results (tuple of " + std::to_string(f.results.size()) + ")");
      for (const auto& r : f.results) p.line(d + (f.tuple_result ? 2 : 1), "Result " + to_source(*r));
      p.stmt(*f.body, d + 1);
    }
  };

  std::ostream& out_;
};

}  // namespace

void print_ast(const Module& module, std::ostream& out) { TreePrinter(out).module(module); }

}  // namespace shardc::ast

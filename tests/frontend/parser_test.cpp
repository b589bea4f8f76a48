// The parser and transformer: every construct of the language becomes the AST node that
// frontend/ast.h documents, with the right ranges and ids.
#include <gtest/gtest.h>

#include <set>

#include "frontend/ast_source.h"
#include "test_helpers.h"

namespace shardc::test {
namespace {

using namespace shardc::ast;

const Parsed& ok(const Parsed& p) {
  EXPECT_TRUE(p.module) << p.rendered();
  if (!p.module) throw std::runtime_error("parse failed");
  return p;
}

TEST(Parser, MeshDeclarations) {
  auto p = parse_text(
      "mesh grid = [X: 4, Y: 2];\n"
      "mesh train = [dp: 4, tp: 2] auto;\n"
      "mesh teacher = [tp: 4] explicit devices 0..4;\n"
      "mesh student = [dp: 2 * 2,] devices 4..8;\n");
  ok(p);
  ASSERT_EQ(p.module->decls.size(), 4u);
  auto* grid = dyn_cast<MeshDecl>(p.module->decls[0].get());
  ASSERT_TRUE(grid);
  EXPECT_EQ(grid->name.name, "grid");
  ASSERT_EQ(grid->axes.size(), 2u);
  EXPECT_EQ(grid->axes[1].name.name, "Y");
  EXPECT_EQ(dyn_cast<IntLiteral>(grid->axes[1].size.get())->value, 2);
  EXPECT_EQ(grid->mesh_kind, MeshKind::explicit_);
  EXPECT_FALSE(grid->kind_written);
  EXPECT_FALSE(grid->devices_begin);

  auto* train = dyn_cast<MeshDecl>(p.module->decls[1].get());
  EXPECT_EQ(train->mesh_kind, MeshKind::auto_);
  EXPECT_TRUE(train->kind_written);

  auto* teacher = dyn_cast<MeshDecl>(p.module->decls[2].get());
  EXPECT_EQ(teacher->mesh_kind, MeshKind::explicit_);
  EXPECT_TRUE(teacher->kind_written);
  EXPECT_EQ(dyn_cast<IntLiteral>(teacher->devices_end.get())->value, 4);

  auto* student = dyn_cast<MeshDecl>(p.module->decls[3].get());
  EXPECT_TRUE(isa<BinaryExpr>(*student->axes[0].size));
  EXPECT_EQ(dyn_cast<IntLiteral>(student->devices_begin.get())->value, 4);
}

TEST(Parser, FunctionKindsResultsAndMesh) {
  auto p = parse_text(
      "fn helper(x, axes, k) { return x; }\n"
      "func f(x: f32[8@X, 4]) -> (f32[8@X, 4], f32[4]) on grid { return (x, x); }\n"
      "func one(x: f32[8]) -> (f32[8],) { return (x,); }\n"
      "shard_map g(x: i32[512@(X,Y)]) -> f32[4] on grid unchecked { return x; }\n"
      "func noresult() { return; }\n");
  ok(p);
  auto* helper = dyn_cast<FunctionDecl>(p.module->decls[0].get());
  EXPECT_EQ(helper->function_kind, FunctionKind::fn);
  ASSERT_EQ(helper->params.size(), 3u);
  EXPECT_FALSE(helper->params[0]->type);
  EXPECT_TRUE(helper->results.empty());
  EXPECT_FALSE(helper->mesh);

  auto* f = dyn_cast<FunctionDecl>(p.module->decls[1].get());
  EXPECT_EQ(f->function_kind, FunctionKind::func);
  EXPECT_TRUE(f->tuple_result);
  ASSERT_EQ(f->results.size(), 2u);
  EXPECT_EQ(to_source(*f->results[0]), "f32[8@X, 4]");
  EXPECT_EQ(f->mesh->name, "grid");
  EXPECT_FALSE(f->unchecked);

  auto* one = dyn_cast<FunctionDecl>(p.module->decls[2].get());
  EXPECT_TRUE(one->tuple_result);
  EXPECT_EQ(one->results.size(), 1u);

  auto* g = dyn_cast<FunctionDecl>(p.module->decls[3].get());
  EXPECT_EQ(g->function_kind, FunctionKind::shard_map);
  EXPECT_TRUE(g->unchecked);
  EXPECT_FALSE(g->tuple_result);
  const TypeAnnotation& t = *g->params[0]->type;
  EXPECT_EQ(t.element, ElementType::i32);
  ASSERT_EQ(t.dims.size(), 1u);
  ASSERT_EQ(t.dims[0].axes.size(), 2u);
  EXPECT_EQ(t.dims[0].axes[0].name, "X");
  EXPECT_EQ(t.dims[0].axes[1].name, "Y");

  auto* noresult = dyn_cast<FunctionDecl>(p.module->decls[4].get());
  EXPECT_TRUE(noresult->results.empty());
  EXPECT_FALSE(dyn_cast<ReturnStmt>(noresult->body->statements[0].get())->value);
}

TEST(Parser, TypesScalarsKeysAndVaryingSuffix) {
  auto p = parse_text(
      "fn f(a: f32, b: i64[], c: key, d: bf16[512, 2048@(sp,tp)], e: f32[256, 4096]{V:dp}, g: bool[2]{V:}, "
      "h: key{V:dp}) { return a; }");
  ok(p);
  auto* f = dyn_cast<FunctionDecl>(p.module->decls[0].get());
  EXPECT_TRUE(f->params[0]->type->dims.empty());
  EXPECT_EQ(f->params[0]->type->element, ElementType::f32);
  EXPECT_TRUE(f->params[1]->type->dims.empty());
  EXPECT_EQ(f->params[2]->type->element, ElementType::key);
  EXPECT_FALSE(f->params[2]->type->varying);
  EXPECT_EQ(to_source(*f->params[3]->type), "bf16[512, 2048@(sp, tp)]");
  ASSERT_TRUE(f->params[4]->type->varying);
  EXPECT_EQ((*f->params[4]->type->varying)[0].name, "dp");
  ASSERT_TRUE(f->params[5]->type->varying);
  EXPECT_TRUE(f->params[5]->type->varying->empty());
  EXPECT_EQ(to_source(*f->params[6]->type), "key{V:dp}");
}

TEST(Parser, DimensionSizesAreArithmeticWithoutMatmul) {
  auto p = parse_text("fn f(x: f32[B // 2 + 1, -1, x.shape[0]@dp, (a @ b)]) { return x; }");
  ok(p);
  auto* f = dyn_cast<FunctionDecl>(p.module->decls[0].get());
  const auto& dims = f->params[0]->type->dims;
  ASSERT_EQ(dims.size(), 4u);
  EXPECT_EQ(to_source(*dims[0].size), "B // 2 + 1");
  EXPECT_TRUE(isa<UnaryExpr>(*dims[1].size));
  EXPECT_TRUE(isa<IndexExpr>(*dims[2].size));
  EXPECT_EQ(dims[2].axes[0].name, "dp");
  EXPECT_EQ(dyn_cast<BinaryExpr>(dims[3].size.get())->op, BinaryOp::matmul);
  EXPECT_EQ(to_source(*f->params[0]->type), "f32[B // 2 + 1, -1, x.shape[0]@dp, (a @ b)]");
}

TEST(Parser, OperatorPrecedenceAndAssociativity) {
  struct Case {
    std::string in, out;
  };
  // to_source prints minimal parentheses, so the printed form shows the tree's shape.
  for (const Case& c : std::vector<Case>{
           {"a + b * c", "a + b * c"},
           {"(a + b) * c", "(a + b) * c"},
           {"a - b - c", "a - b - c"},
           {"a - (b - c)", "a - (b - c)"},
           {"a @ b + c", "a @ b + c"},
           {"x @ (w @ v)", "x @ (w @ v)"},
           {"-a * b", "-a * b"},
           {"-(a * b)", "-(a * b)"},
           {"!a && b || c", "!a && b || c"},
           {"a || b && c", "a || b && c"},
           {"(a || b) && c", "(a || b) && c"},
           {"a < b + 1 && c == d", "a < b + 1 && c == d"},
           {"(a < b) == c", "(a < b) == c"},
           {"-x[0]", "-x[0]"},
           {"(-x)[0]", "(-x)[0]"},
           {"- -x", "- -x"},
           {"(i0 + i) % n * chunk", "(i0 + i) % n * chunk"},
       }) {
    auto p = parse_text(wrap_expr(c.in));
    ASSERT_TRUE(p.module) << c.in << "\n" << p.rendered();
    EXPECT_EQ(to_source(returned_expr(p)), c.out) << c.in;
  }
}

TEST(Parser, BinaryTreeShape) {
  auto p = parse_text(wrap_expr("a - b * c"));
  ok(p);
  auto* sub = dyn_cast<BinaryExpr>(&returned_expr(p));
  ASSERT_TRUE(sub);
  EXPECT_EQ(sub->op, BinaryOp::sub);
  EXPECT_EQ(dyn_cast<NameExpr>(sub->lhs.get())->name, "a");
  EXPECT_EQ(dyn_cast<BinaryExpr>(sub->rhs.get())->op, BinaryOp::mul);
  EXPECT_EQ(sub->op_range.begin.column, 19u);
}

TEST(Parser, CallsWithKeywordArguments) {
  auto p = parse_text(wrap_expr(
      "f(x, (X, Y), out=[X, None], perm=[(0, 1), (1, 0)], shift=-1, axis=0, tiled=true, w=a + 1, "
      "spec=[None, (sp, tp)])"));
  ok(p);
  auto* call = dyn_cast<CallExpr>(&returned_expr(p));
  ASSERT_TRUE(call);
  EXPECT_EQ(call->callee.name, "f");
  EXPECT_EQ(call->positional_count(), 2u);
  EXPECT_TRUE(isa<TupleExpr>(*call->args[1].value));
  auto* out = call->keyword("out");
  ASSERT_TRUE(out);
  auto* list = dyn_cast<ListExpr>(out->value.get());
  ASSERT_TRUE(list);
  EXPECT_TRUE(isa<NoneLiteral>(*list->elements[1]));
  auto* perm = dyn_cast<ListExpr>(call->keyword("perm")->value.get());
  ASSERT_EQ(perm->elements.size(), 2u);
  EXPECT_EQ(dyn_cast<TupleExpr>(perm->elements[1].get())->elements.size(), 2u);
  EXPECT_TRUE(isa<UnaryExpr>(*call->keyword("shift")->value));
  EXPECT_TRUE(isa<BoolLiteral>(*call->keyword("tiled")->value));
  EXPECT_TRUE(isa<BinaryExpr>(*call->keyword("w")->value));
  EXPECT_FALSE(call->keyword("missing"));
}

TEST(Parser, TuplesParenthesesAndLists) {
  struct Case {
    std::string in;
    NodeKind kind;
    std::size_t size;
  };
  for (const Case& c : std::vector<Case>{{"()", NodeKind::TupleExpr, 0},
                                         {"(a)", NodeKind::NameExpr, 0},
                                         {"(a,)", NodeKind::TupleExpr, 1},
                                         {"(a, b)", NodeKind::TupleExpr, 2},
                                         {"(a, b,)", NodeKind::TupleExpr, 2},
                                         {"[]", NodeKind::ListExpr, 0},
                                         {"[X, None,]", NodeKind::ListExpr, 2}}) {
    auto p = parse_text(wrap_expr(c.in));
    ASSERT_TRUE(p.module) << c.in << "\n" << p.rendered();
    const Expr& e = returned_expr(p);
    EXPECT_EQ(e.kind, c.kind) << c.in;
    if (auto* t = dyn_cast<TupleExpr>(&e)) {
      EXPECT_EQ(t->elements.size(), c.size) << c.in;
    }
    if (auto* l = dyn_cast<ListExpr>(&e)) {
      EXPECT_EQ(l->elements.size(), c.size) << c.in;
    }
  }
}

TEST(Parser, IndexingSlicingAndShape) {
  auto p = parse_text(wrap_expr("x[:, 2:][0:4, i, ::2, a:b:c][x.shape[-1] - 1]"));
  ok(p);
  auto* outer = dyn_cast<IndexExpr>(&returned_expr(p));
  ASSERT_TRUE(outer);
  auto* middle = dyn_cast<IndexExpr>(outer->base.get());
  ASSERT_TRUE(middle);
  ASSERT_EQ(middle->indices.size(), 4u);
  auto* s0 = dyn_cast<SliceExpr>(middle->indices[0].get());
  EXPECT_EQ(dyn_cast<IntLiteral>(s0->end.get())->value, 4);
  EXPECT_FALSE(s0->step);
  EXPECT_TRUE(isa<NameExpr>(*middle->indices[1]));
  auto* s2 = dyn_cast<SliceExpr>(middle->indices[2].get());
  EXPECT_FALSE(s2->begin);
  EXPECT_FALSE(s2->end);
  EXPECT_TRUE(s2->step);
  auto* inner = dyn_cast<IndexExpr>(middle->base.get());
  auto* all = dyn_cast<SliceExpr>(inner->indices[0].get());
  EXPECT_FALSE(all->begin || all->end || all->step);
  auto* shape_index = dyn_cast<BinaryExpr>(outer->indices[0].get());
  auto* shape = dyn_cast<IndexExpr>(shape_index->lhs.get());
  auto* attr = dyn_cast<AttributeExpr>(shape->base.get());
  ASSERT_TRUE(attr);
  EXPECT_EQ(attr->attribute.name, "shape");
  EXPECT_EQ(to_source(returned_expr(p)), "x[:, 2:][0:4, i, ::2, a:b:c][x.shape[-1] - 1]");
}

TEST(Parser, TypesAsValues) {
  auto p = parse_text(wrap_expr("f(zeros(f32[512, 2048]), normal(kx, f32[1024@dp, 4096]), astype(x, bf16), key(0))"));
  ok(p);
  auto* call = dyn_cast<CallExpr>(&returned_expr(p));
  auto* zeros = dyn_cast<CallExpr>(call->args[0].value.get());
  auto* type = dyn_cast<TypeExpr>(zeros->args[0].value.get());
  ASSERT_TRUE(type);
  EXPECT_EQ(to_source(*type->type), "f32[512, 2048]");
  auto* normal = dyn_cast<CallExpr>(call->args[1].value.get());
  EXPECT_EQ(dyn_cast<TypeExpr>(normal->args[1].value.get())->type->dims[0].axes[0].name, "dp");
  auto* astype = dyn_cast<CallExpr>(call->args[2].value.get());
  auto* bf16 = dyn_cast<TypeExpr>(astype->args[1].value.get());
  ASSERT_TRUE(bf16);
  EXPECT_TRUE(bf16->type->dims.empty());
  EXPECT_EQ(bf16->type->element, ElementType::bf16);
  auto* key = dyn_cast<CallExpr>(call->args[3].value.get());
  ASSERT_TRUE(key);  // `key(0)` is a call, not a type
  EXPECT_EQ(key->callee.name, "key");
}

TEST(Parser, Statements) {
  auto p = parse_text(
      "fn f(x) {\n"
      "  let a = 1;\n"
      "  var acc: f32[4] = zeros(f32[4]);\n"
      "  let (kx, (kw, _)) = split(key(0));\n"
      "  acc += x @ w;\n"
      "  (a, b) = g(x);\n"
      "  for i in 0..n { acc = acc; }\n"
      "  for _ in rev(1..n + 1) { }\n"
      "  if i < n - 1 { } else if c { } else { }\n"
      "  { let inner = 2; }\n"
      "  g(x);\n"
      "  return (acc, a);\n"
      "}\n");
  ok(p);
  const auto& s = first_body(*p.module).statements;
  ASSERT_EQ(s.size(), 11u);
  auto* let = dyn_cast<LetStmt>(s[0].get());
  EXPECT_FALSE(let->is_var);
  EXPECT_EQ(let->target->pattern_kind, PatternKind::name);
  auto* var = dyn_cast<LetStmt>(s[1].get());
  EXPECT_TRUE(var->is_var);
  EXPECT_EQ(to_source(*var->type), "f32[4]");
  auto* destructure = dyn_cast<LetStmt>(s[2].get());
  EXPECT_EQ(destructure->target->pattern_kind, PatternKind::tuple);
  EXPECT_EQ(destructure->target->elements[1]->elements[1]->pattern_kind, PatternKind::wildcard);
  EXPECT_EQ(to_source(*destructure->target), "(kx, (kw, _))");
  auto* compound = dyn_cast<AssignStmt>(s[3].get());
  EXPECT_EQ(compound->op, AssignOp::add);
  EXPECT_EQ(compound_binary_op(compound->op), BinaryOp::add);
  auto* tuple_assign = dyn_cast<AssignStmt>(s[4].get());
  EXPECT_EQ(tuple_assign->target->pattern_kind, PatternKind::tuple);
  auto* loop = dyn_cast<ForStmt>(s[5].get());
  EXPECT_FALSE(loop->reversed);
  EXPECT_EQ(loop->variable->name.name, "i");
  auto* back = dyn_cast<ForStmt>(s[6].get());
  EXPECT_TRUE(back->reversed);
  EXPECT_EQ(back->variable->pattern_kind, PatternKind::wildcard);
  EXPECT_EQ(to_source(*back->end), "n + 1");
  auto* branch = dyn_cast<IfStmt>(s[7].get());
  auto* elif = dyn_cast<IfStmt>(branch->else_branch.get());
  ASSERT_TRUE(elif);
  EXPECT_EQ(elif->range.begin.column, 25u);  // the else-if starts at its `if`
  EXPECT_TRUE(isa<BlockStmt>(*elif->else_branch));
  EXPECT_TRUE(isa<BlockStmt>(*s[8]));
  EXPECT_TRUE(isa<ExprStmt>(*s[9]));
  EXPECT_TRUE(isa<TupleExpr>(*dyn_cast<ReturnStmt>(s[10].get())->value));
}

TEST(Parser, NodeIdsAreDenseAndUnique) {
  auto p = parse_text(
      "mesh g = [X: 2];\nconst B = 4;\n"
      "func f(x: f32[B@X]) -> f32[B@X] on g { let y = x * 2 + x[0:1][0]; return y; }\n");
  ok(p);
  std::set<NodeId> seen;
  // Collect ids by walking everything the module owns.
  struct Walker {
    std::set<NodeId>& seen;
    void node(const Node& n) { EXPECT_TRUE(seen.insert(n.id).second) << "duplicate id " << n.id; }
    void type(const TypeAnnotation& t) {
      node(t);
      for (const auto& d : t.dims) expr(*d.size);
    }
    void expr(const Expr& e) {
      node(e);
      visit(e, [&](const auto& x) { children(x); });
    }
    void children(const BinaryExpr& e) { expr(*e.lhs), expr(*e.rhs); }
    void children(const IndexExpr& e) {
      expr(*e.base);
      for (const auto& i : e.indices) expr(*i);
    }
    void children(const SliceExpr& e) {
      for (const Expr* x : {e.begin.get(), e.end.get(), e.step.get()}) {
        if (x) expr(*x);
      }
    }
    void children(const Expr&) {}
    void stmt(const Stmt& s) {
      node(s);
      if (auto* b = dyn_cast<BlockStmt>(&s)) {
        for (const auto& x : b->statements) stmt(*x);
      } else if (auto* l = dyn_cast<LetStmt>(&s)) {
        node(*l->target);
        expr(*l->value);
      } else if (auto* r = dyn_cast<ReturnStmt>(&s)) {
        expr(*r->value);
      }
    }
  } walker{seen};
  for (const auto& d : p.module->decls) {
    walker.node(*d);
    if (auto* m = dyn_cast<MeshDecl>(d.get())) walker.expr(*m->axes[0].size);
    if (auto* c = dyn_cast<ConstDecl>(d.get())) walker.expr(*c->value);
    if (auto* f = dyn_cast<FunctionDecl>(d.get())) {
      for (const auto& param : f->params) {
        walker.node(*param);
        walker.type(*param->type);
      }
      for (const auto& r : f->results) walker.type(*r);
      walker.stmt(*f->body);
    }
  }
  EXPECT_EQ(seen.size(), p.module->node_count);
  EXPECT_EQ(*seen.rbegin(), p.module->node_count - 1);
}

TEST(Parser, RangesCoverTheirText) {
  auto p = parse_text("fn f() {\n  return einsum(\"bd,df->bf\", sq, W, out=[X, Y]);\n}\n");
  ok(p);
  const Expr& e = returned_expr(p);
  EXPECT_EQ(e.range.begin.line, 2u);
  EXPECT_EQ(e.range.begin.column, 10u);
  EXPECT_EQ(e.range.end.column, 48u);  // one past the ')'
  auto* call = dyn_cast<CallExpr>(&e);
  EXPECT_EQ(call->args[3].range.begin.column, 37u);  // `out=` included
  EXPECT_EQ(call->args[3].keyword->range.begin.column, 37u);
}

TEST(Parser, ModuleNameFromFileName) {
  EXPECT_EQ(module_name_for_file("examples/explicit_matmul.shard"), "explicit_matmul");
  EXPECT_EQ(module_name_for_file("-"), "stdin");
  EXPECT_EQ(module_name_for_file("a-b.c.shard"), "a_b_c");
  EXPECT_EQ(module_name_for_file("3d.shard"), "_3d");
}

}  // namespace
}  // namespace shardc::test

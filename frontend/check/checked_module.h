// What the checker hands to later stages (codegen, the reference evaluator, the
// --emit printers): the module's meshes and consts, and for every func/shard_map its
// signature and its *trace*: the body with `fn` calls inlined, `for` loops unrolled
// and `if`s resolved, as a list of typed ops over SSA values (as JAX traces a jaxpr).
//
//   func f(x: f32[8@X, 4]) -> f32[8@X, 4] on grid { let y = x * 2.0; return y; }
//
//   values: %0 float32[8@X,4] (param 0), %1 float32[8@X,4]
//   ops:    %1 = mul(%0, static 2.0)            node=BinaryExpr  range=1:54
//   bindings: y -> %1;  results: %1
//
// Static values (ints, floats, bools) are folded: they appear as op attributes or
// as `static` operands, never as ops. Every op keeps the AST node and source range
// it came from, so later stages can report located errors too.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "frontend/ast.h"
#include "frontend/check/types.h"

namespace shardc::check {

using ValueId = int;

// An op attribute: ints (axis=, sizes, perm pairs flattened), a string (einsum spec),
// mesh axis groups (collective axes, sharding lists), a type (constructors) or a static scalar.
using Attr = std::variant<std::int64_t, double, bool, std::string, std::vector<std::int64_t>, AxisList,
                          std::vector<AxisList>, Type>;

struct Op {
  std::string name;              // "add", "einsum", "psum", "reshard", "call", "param", ...
  ast::NodeId node = 0;          // the AST node it came from
  SourceRange range;
  std::vector<ValueId> inputs;   // runtime operands (static operands are in attrs)
  std::vector<ValueId> outputs;  // usually one; a call or top_k may have several
  std::map<std::string, Attr> attrs;
};

struct Binding {
  std::string name;
  ast::NodeId node;   // the pattern node that bound it
  SourceRange range;
  Type type;          // static scalars included
  ValueId value = -1; // -1 for static values
};

struct CheckedFunction {
  const ast::FunctionDecl* decl = nullptr;
  std::string name;
  ast::FunctionKind kind = ast::FunctionKind::func;
  const Mesh* mesh = nullptr;
  bool unchecked = false;
  std::vector<std::string> param_names;
  std::vector<Type> param_types;   // global types (shard_map: the in specs)
  std::vector<Type> result_types;  // global types (shard_map: the out specs)
  bool tuple_result = false;
  std::vector<Type> values;        // type of each SSA value
  std::vector<Op> ops;             // in execution order
  std::vector<Binding> bindings;   // every let/var/assign/for binding, in execution order
  std::vector<ValueId> results;
};

struct ConstValue {
  std::string name;
  StaticValue value;
  bool overridden = false;  // set by -D
};

class CheckedModule {
 public:
  std::string name;
  std::vector<std::unique_ptr<Mesh>> meshes;  // stable addresses: types point at them
  std::vector<ConstValue> consts;
  std::vector<CheckedFunction> functions;     // func and shard_map, in source order
  // The type of each expression node, indexed by ast::NodeId (the last instance when a
  // node is checked several times by unrolling or inlining); empty where none.
  std::vector<std::optional<Type>> node_types;

  const Mesh* find_mesh(std::string_view mesh_name) const;
  const CheckedFunction* find_function(std::string_view function_name) const;
};

}  // namespace shardc::check

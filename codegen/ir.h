// The SPMD IR: what every device runs, between the checker's typed trace
// (frontend/check/checked_module.h) and the C++ emitter.
//
// A Function is a straight-line list of instructions over SSA values. Every value has a
// *local* type (the block one device holds: dtype and block shape); values of a `func`
// also remember their global sharding (`spec`, one axis list per dimension), which the
// lowering passes read to decide where communication is needed. After lowering, every
// instruction is per-device: local math on blocks, or a collective over named mesh axes.
//
//   func f(x: f32[8@X, 4]) -> f32[8, 4]            %0 = param {index=0}      f32[4,4]  [X, None]
//   { return reshard(x, []); }                ==>  %1 = all_gather(%0) {axes=X, axis=0, tiled}
//                                                                            f32[8,4]  [None, None]
//
// Instructions are immutable and shared (`Instr::make`); a pass builds a new Function and
// reuses the instructions it does not change. The op kinds are listed once, below.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/check/checked_module.h"
#include "frontend/check/types.h"

namespace shardc::codegen {

using check::Attr;
using check::AxisList;
using check::AxisSet;
using check::DType;
using ValueId = int;

// X(kind, class): `local` ops compute on blocks; `collective` ops talk to other devices;
// `global` ops only exist before lowering (a verifier rejects them before emission);
// `async` ops are the start/wait halves the scheduler makes of a collective.
#define SHARDC_IR_OPS(X)                                                                         \
  X(param, local)                /* index: the device's block of parameter `index` */           \
  X(constant, local)             /* value: a rank-0 literal */                                  \
  X(unary, local)                /* fn: exp, neg, ... */                                        \
  X(binary, local)               /* fn: add, sub, max, pow, ... ; compute dtype in `dtype` */   \
  X(compare, local)              /* fn: eq, lt, ... */                                          \
  X(select, local)               /* where(cond, a, b) */                                        \
  X(convert, local)              /* astype */                                                   \
  X(einsum, local)               /* spec; a global einsum keeps `out` until lower_einsums */    \
  X(reduce, local)               /* fn: sum/mean/max/min/prod, axes, keepdims */                \
  X(softmax, local)              /* axis */                                                     \
  X(top_k, local)                /* k: two results */                                           \
  X(reshape, local)              /* shape */                                                    \
  X(transpose, local)            /* perm */                                                     \
  X(slice, local)                /* starts, limits, steps, squeezed */                          \
  X(dynamic_slice, local)        /* inputs: x, starts...; sizes */                              \
  X(dynamic_update_slice, local) /* inputs: x, update, starts... */                             \
  X(dynamic_index, local)        /* x[i] */                                                     \
  X(concat, local)               /* axis */                                                     \
  X(stack, local)                /* axis */                                                     \
  X(roll, local)                 /* shift, axis */                                              \
  X(fill, local)                 /* value (zeros, ones); or one input (full) */                 \
  X(arange, local)               /* start, step, size, spec */                                  \
  X(key, local)                  /* a PRNG key from a seed */                                   \
  X(split_key, local)            /* n keys */                                                   \
  X(fold_in, local)                                                                             \
  X(random, local)               /* fn: normal/uniform, global shape and spec */                \
  X(axis_index, local)           /* axes */                                                     \
  X(take_piece, local)           /* dim, axes: this device's piece, no communication */         \
  X(call, local)                 /* callee: another function's per-device body */               \
  X(alias, local)                /* the same block under another value id */                   \
  X(psum, collective)            /* axes */                                                     \
  X(pmean, collective)                                                                          \
  X(pmax, collective)                                                                           \
  X(pmin, collective)                                                                           \
  X(pprod, collective)           /* only from explicit mode's prod: no such JAX collective */   \
  X(all_gather, collective)      /* axes, axis, tiled */                                        \
  X(all_gather_invariant, collective)                                                           \
  X(psum_scatter, collective)    /* axes, dim, tiled */                                         \
  X(all_to_all, collective)      /* axes, split, concat, tiled */                               \
  X(ppermute, collective)        /* axes, perm (flattened pairs) */                             \
  X(ragged_all_to_all, collective) /* axes; inputs operand, output, 4 offset/size vectors */   \
  X(reshard_exchange, collective) /* axes (all either spec names), from, to: shard::reshard */ \
  X(pvary, local)                /* changes only the type */                                    \
  X(reshard, global)             /* sharding: removed by lower_reshards */                      \
  X(start, async)                /* a started collective: `collective` names it */              \
  X(wait, async)                 /* the result of a started collective */

enum class OpKind : std::uint8_t {
#define SHARDC_IR_ENUM(name, cls) name,
  SHARDC_IR_OPS(SHARDC_IR_ENUM)
#undef SHARDC_IR_ENUM
};

enum class OpClass : std::uint8_t { local, collective, global, async };

std::string_view op_kind_name(OpKind kind);
OpClass op_class(OpKind kind);
std::optional<OpKind> op_kind_from_name(std::string_view name);

using Attrs = std::map<std::string, Attr>;

class Instr;
using InstrPtr = std::shared_ptr<const Instr>;

class Instr {
 public:
  static InstrPtr make(OpKind kind, std::vector<ValueId> inputs, std::vector<ValueId> outputs, Attrs attrs,
                       SourceRange range);

  OpKind kind() const { return kind_; }
  const std::vector<ValueId>& inputs() const { return inputs_; }
  const std::vector<ValueId>& outputs() const { return outputs_; }
  ValueId output() const;  // the single output (internal error otherwise)
  const Attrs& attrs() const { return attrs_; }
  const SourceRange& range() const { return range_; }

  bool has(const std::string& name) const { return attrs_.count(name) != 0; }
  std::int64_t int_attr(const std::string& name) const;
  double float_attr(const std::string& name) const;
  bool bool_attr(const std::string& name) const;
  const std::string& string_attr(const std::string& name) const;
  const std::vector<std::int64_t>& ints_attr(const std::string& name) const;
  const AxisList& axes_attr(const std::string& name) const;
  const std::vector<AxisList>& spec_attr(const std::string& name) const;

  Instr(OpKind kind, std::vector<ValueId> inputs, std::vector<ValueId> outputs, Attrs attrs, SourceRange range)
      : kind_(kind), inputs_(std::move(inputs)), outputs_(std::move(outputs)), attrs_(std::move(attrs)),
        range_(range) {}

 private:
  const Attr& attr(const std::string& name) const;
  OpKind kind_;
  std::vector<ValueId> inputs_;
  std::vector<ValueId> outputs_;
  Attrs attrs_;
  SourceRange range_;
};

enum class ValueKind : std::uint8_t { array, key, pending };

struct Value {
  ValueKind kind = ValueKind::array;
  DType dtype = DType::f32;
  bool weak = false;                 // a literal's dtype: gives way in promotion
  std::vector<std::int64_t> shape;   // the local block's shape
  // Global view (func only): the mesh axes of each dimension. Empty for shard_map values.
  std::vector<AxisList> spec;
  std::vector<std::int64_t> global_shape;  // func only
  // func only: the axes over which each device's block is a partial of a pending sum (einsum's
  // unreduced=); a reshard reduces it.
  AxisList unreduced;
  std::string name;                  // the source binding, when there is one (for readability)

  std::int64_t bytes() const;
};

struct Function {
  std::string name;
  bool manual = false;     // a shard_map
  bool unchecked = false;  // shard_map ... unchecked
  const check::Mesh* mesh = nullptr;
  std::vector<std::string> param_names;
  std::vector<check::Type> param_types;   // global types (the boundary)
  std::vector<check::Type> result_types;  // global types
  bool tuple_result = false;
  std::vector<Value> values;
  std::vector<InstrPtr> body;
  std::vector<ValueId> results;

  // A new value, returning its id.
  ValueId add_value(Value v);
};

// Who defines and who reads each value of a function (indexed by ValueId), for the analyses
// that follow a value to its readers.
struct DefUse {
  std::vector<const Instr*> producer;              // nullptr for none
  std::vector<std::vector<const Instr*>> readers;  // in body order; an instruction reading a
                                                   // value twice is listed twice
  explicit DefUse(const Function& f);
};

struct Module {
  std::string name;
  std::shared_ptr<const check::CheckedModule> checked;  // owns the meshes the types point at
  std::vector<Function> functions;

  const Function* find(std::string_view function_name) const;
};

// The mesh axes' names, for messages and emission.
std::string axis_names(const check::Mesh& mesh, const AxisList& axes);  // "dp" or "(tp,dp)"
std::int64_t axes_size(const check::Mesh& mesh, const AxisList& axes);

}  // namespace shardc::codegen

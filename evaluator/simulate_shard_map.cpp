// A shard_map, device by device: each global argument is split into the blocks its in-type
// gives each device; the body's ops run in lockstep (op k on every device before op k+1),
// so a collective sees the operands of all devices of each group at once; the results are
// assembled from the blocks the out-types place, a replicated block from the lowest device
// id of its replica group. In a checked shard_map every replica must agree (the vma check
// proved it); a disagreement is an internal error.
#include <algorithm>
#include <bit>
#include <optional>

#include "evaluator/apply_op.h"
#include "evaluator/blocks.h"
#include "evaluator/collectives.h"
#include "evaluator/eval_error.h"
#include "evaluator/mesh_groups.h"
#include "evaluator/op_attrs.h"
#include "evaluator/ops_elementwise.h"
#include "evaluator/ops_shape.h"
#include "evaluator/run_function.h"
#include "frontend/internal_error.h"

namespace shardc::eval {
namespace {

using check::Type;

// The sharding spec of a global type: per dimension, its mesh axes.
Spec spec_of(const Type& t) {
  Spec spec;
  for (const check::Dim& d : t.dims) spec.push_back(d.axes);
  return spec;
}

const Mesh& mesh_of(const check::CheckedFunction& f) {
  SHARDC_ASSERT(f.mesh != nullptr, "shard_map '" + f.name + "' has no mesh");
  return *f.mesh;
}

// Per device: the values of the body's SSA values (released after their last use).
using DeviceValues = std::vector<std::vector<std::optional<EvalValue>>>;

class Simulator {
 public:
  explicit Simulator(const check::CheckedFunction& f) : f_(f), mesh_(mesh_of(f)), devices_(mesh_.device_count()) {
    values_.assign(static_cast<std::size_t>(devices_), std::vector<std::optional<EvalValue>>(f.values.size()));
  }

  std::vector<EvalValue> run(const std::vector<EvalValue>& args) {
    auto last = last_uses(f_);
    for (std::size_t i = 0; i < f_.ops.size(); ++i) {
      const check::Op& op = f_.ops[i];
      try {
        if (op.name == "param") run_param(op, args);
        else if (is_collective_op(op.name)) run_collective(op);
        else run_local(op);
      } catch (const EvalError& e) {
        std::string what = e.what();
        if (what.rfind("op '", 0) == 0) throw;
        throw EvalError(op_location(op) + " in shard_map " + f_.name + ": " + what);
      }
      for (check::ValueId v : op.inputs)
        if (last[v] == i)
          for (auto& dv : values_) dv[v].reset();
    }
    std::vector<EvalValue> results;
    for (std::size_t r = 0; r < f_.results.size(); ++r) results.push_back(assemble_result(r));
    return results;
  }

 private:
  const EvalValue& value(std::int64_t device, check::ValueId v, const check::Op& op) const {
    const auto& slot = values_[device][v];
    SHARDC_ASSERT(slot.has_value(), op_location(op) + " reads a value before it is computed");
    return *slot;
  }

  void set(std::int64_t device, const check::Op& op, std::size_t k, EvalValue v) {
    check_value_type(v, f_.values[op.outputs.at(k)], op);
    values_[device][op.outputs[k]] = std::move(v);
  }

  void run_param(const check::Op& op, const std::vector<EvalValue>& args) {
    auto index = static_cast<std::size_t>(attr_int(op, "index"));
    SHARDC_ASSERT(index < args.size() && index < f_.param_types.size(),
                  op_location(op) + " reads parameter " + std::to_string(index) + " of " + std::to_string(args.size()));
    const EvalValue& global = args[index];
    const Type& global_type = f_.param_types.at(index);
    for (std::int64_t d = 0; d < devices_; ++d) {
      if (global_type.kind == check::TypeKind::key) set(d, op, 0, global);
      else set(d, op, 0, block_of(mesh_, array_of(global, op), spec_of(global_type), d));
    }
  }

  void run_local(const check::Op& op) {
    for (std::int64_t d = 0; d < devices_; ++d) {
      std::vector<const EvalValue*> inputs;
      for (check::ValueId v : op.inputs) inputs.push_back(&value(d, v, op));
      auto out = apply_local_op(f_, op, inputs);
      for (std::size_t k = 0; k < out.size(); ++k) values_[d][op.outputs[k]] = std::move(out[k]);
    }
  }

  // Operand `k` of every member of a group, by group index.
  Blocks gather(const check::Op& op, std::size_t k, const std::vector<std::int64_t>& members) const {
    Blocks b;
    for (std::int64_t d : members) b.push_back(array_of(value(d, op.inputs.at(k), op), op));
    return b;
  }

  void run_collective(const check::Op& op) {
    const std::string& n = op.name;
    const check::AxisList& axes = attr_axes(op, "axes");
    DType out_dtype = f_.values[op.outputs.at(0)].dtype;
    for (const auto& members : groups(mesh_, axes)) {
      Blocks out;
      if (n == "axis_index") {
        for (std::size_t j = 0; j < members.size(); ++j)
          out.push_back(HostTensor::from_ints(DType::i32, {}, {static_cast<std::int64_t>(j)}));
      } else if (n == "pvary") {
        out = gather(op, 0, members);
      } else if (n == "psum" || n == "pmean" || n == "pmax" || n == "pmin") {
        ReduceOp r = n == "psum" ? ReduceOp::sum : n == "pmean" ? ReduceOp::mean : n == "pmax" ? ReduceOp::max : ReduceOp::min;
        out = all_reduce(r, gather(op, 0, members), out_dtype);
      } else if (n == "all_gather" || n == "all_gather_invariant") {
        out = all_gather(gather(op, 0, members), static_cast<int>(attr_int(op, "axis")), attr_bool(op, "tiled"));
      } else if (n == "psum_scatter") {
        out = psum_scatter(gather(op, 0, members), static_cast<int>(attr_int(op, "dim")), attr_bool(op, "tiled"), out_dtype);
      } else if (n == "all_to_all") {
        out = all_to_all(gather(op, 0, members), static_cast<int>(attr_int(op, "split")),
                         static_cast<int>(attr_int(op, "concat")), attr_bool(op, "tiled"), check::format_axes(mesh_, axes));
      } else if (n == "ppermute") {
        const auto& flat = attr_ints(op, "perm");
        SHARDC_ASSERT(flat.size() % 2 == 0, op_location(op) + ": perm is not a list of pairs");
        std::vector<std::pair<std::int64_t, std::int64_t>> perm;
        for (std::size_t k = 0; k < flat.size(); k += 2) perm.emplace_back(flat[k], flat[k + 1]);
        out = ppermute(gather(op, 0, members), perm);
      } else if (n == "ragged_all_to_all") {
        out = ragged_all_to_all(gather(op, 0, members), gather(op, 1, members), gather(op, 2, members),
                                gather(op, 3, members), gather(op, 4, members), gather(op, 5, members));
      } else {
        SHARDC_ASSERT(false, op_location(op) + " is not a collective the evaluator knows");
      }
      SHARDC_ASSERT(out.size() == members.size(), op_location(op) + ": one result per group member");
      for (std::size_t j = 0; j < members.size(); ++j) {
        // The type's dtype may be wider than a pvary'd weak scalar's storage: keep the type's.
        set(members[j], op, 0, std::move(out[j]));
      }
    }
  }

  // Result r as a global array of its out-type, from the devices' blocks.
  EvalValue assemble_result(std::size_t r) {
    const Type& t = f_.result_types.at(r);
    check::ValueId v = f_.results.at(r);
    SHARDC_ASSERT(t.kind == check::TypeKind::array, "shard_map '" + f_.name + "' returns a non-array");
    check::Op where;  // for messages: the function's return, not an op
    where.name = "return";
    std::vector<HostTensor> blocks;
    for (std::int64_t d = 0; d < devices_; ++d) {
      const auto& slot = values_[d][v];
      SHARDC_ASSERT(slot.has_value(), "shard_map '" + f_.name + "' result " + std::to_string(r) + " was never computed");
      blocks.push_back(array_of(*slot, where));
    }
    // A weak scalar returned through a declared dtype takes that dtype (assemble converts).
    return assemble(mesh_, t.dtype, t.shape(), spec_of(t), blocks, !f_.unchecked,
                    "shard_map '" + f_.name + "' result " + std::to_string(r) + " (" + check::to_string(t) + ")");
  }

  const check::CheckedFunction& f_;
  const Mesh& mesh_;
  std::int64_t devices_;
  DeviceValues values_;
};

}  // namespace

std::vector<EvalValue> simulate_shard_map(const check::CheckedModule& module, const check::CheckedFunction& f,
                                          const std::vector<EvalValue>& args) {
  (void)module;  // a shard_map body calls no functions (fn helpers are inlined)
  return Simulator(f).run(args);
}

}  // namespace shardc::eval

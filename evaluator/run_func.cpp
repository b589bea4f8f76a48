// A func: the trace's ops run once, in order, on global values (shardings are types only:
// reshard and out= leave values as they are). Calls of other functions recurse.
#include <optional>

#include "evaluator/apply_op.h"
#include "evaluator/eval_error.h"
#include "evaluator/op_attrs.h"
#include "evaluator/ops_elementwise.h"
#include "evaluator/run_function.h"
#include "frontend/internal_error.h"

namespace shardc::eval {

std::vector<std::size_t> last_uses(const check::CheckedFunction& f) {
  std::vector<std::size_t> last(f.values.size(), 0);
  for (std::size_t i = 0; i < f.ops.size(); ++i)
    for (check::ValueId v : f.ops[i].inputs) {
      SHARDC_ASSERT(v >= 0 && static_cast<std::size_t>(v) < f.values.size(),
                    op_location(f.ops[i]) + " reads an undefined value");
      last[v] = i;
    }
  for (check::ValueId v : f.results) last[v] = f.ops.size();
  return last;
}

std::vector<EvalValue> run_function(const check::CheckedModule& module, const check::CheckedFunction& f,
                                    const std::vector<EvalValue>& args) {
  SHARDC_ASSERT(args.size() == f.param_types.size(), "function '" + f.name + "' called with the wrong number of arguments");
  if (f.kind == ast::FunctionKind::shard_map) return simulate_shard_map(module, f, args);
  return run_func(module, f, args);
}

std::vector<EvalValue> run_func(const check::CheckedModule& module, const check::CheckedFunction& f,
                                const std::vector<EvalValue>& args) {
  std::vector<std::optional<EvalValue>> values(f.values.size());
  auto last = last_uses(f);
  for (std::size_t i = 0; i < f.ops.size(); ++i) {
    const check::Op& op = f.ops[i];
    std::vector<const EvalValue*> inputs;
    for (check::ValueId v : op.inputs) {
      SHARDC_ASSERT(values[v].has_value(), op_location(op) + " reads a value before it is computed");
      inputs.push_back(&*values[v]);
    }
    std::vector<EvalValue> out;
    if (op.name == "param") {
      auto index = static_cast<std::size_t>(attr_int(op, "index"));
      SHARDC_ASSERT(index < args.size(), op_location(op) + " reads parameter " + std::to_string(index) + " of " +
                                             std::to_string(args.size()));
      out.push_back(args[index]);
      check_value_type(out.back(), f.values[op.outputs.at(0)], op);
    } else if (op.name == "call") {
      const check::CheckedFunction* callee = module.find_function(attr_string(op, "callee"));
      SHARDC_ASSERT(callee != nullptr, op_location(op) + " calls an unknown function");
      std::vector<EvalValue> call_args;
      for (std::size_t k = 0; k < inputs.size(); ++k) {
        call_args.push_back(*inputs[k]);
        // A weak argument (a literal: `g(3)`) takes the parameter's dtype, as the checker typed
        // it; the evaluator keeps weak ints in 64 bits until then.
        const check::Type& param = callee->param_types.at(k);
        auto* t = std::get_if<HostTensor>(&call_args.back());
        if (t && f.values[op.inputs[k]].weak && param.kind == check::TypeKind::array && t->dtype != param.dtype)
          *t = convert(*t, param.dtype);
      }
      out = run_function(module, *callee, call_args);
      SHARDC_ASSERT(out.size() == op.outputs.size(), op_location(op) + ": callee result count");
      for (std::size_t k = 0; k < out.size(); ++k) check_value_type(out[k], f.values[op.outputs[k]], op);
    } else {
      SHARDC_ASSERT(!is_collective_op(op.name), op_location(op) + ": a collective in a func");
      out = apply_local_op(f, op, inputs);
    }
    for (std::size_t k = 0; k < out.size(); ++k) values[op.outputs[k]] = std::move(out[k]);
    for (check::ValueId v : op.inputs)
      if (last[v] == i) values[v].reset();
  }
  std::vector<EvalValue> results;
  for (check::ValueId v : f.results) {
    SHARDC_ASSERT(values[v].has_value(), "function '" + f.name + "' returns a value never computed");
    results.push_back(*values[v]);
  }
  return results;
}

}  // namespace shardc::eval

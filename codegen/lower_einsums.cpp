#include "codegen/lower_einsums.h"

#include <algorithm>

#include "codegen/lowering_support.h"
#include "frontend/internal_error.h"

namespace shardc::codegen {
namespace {

struct Spec {
  std::vector<std::string> operands;  // letters per operand
  std::string output;
};

Spec parse_spec(const std::string& text) {
  Spec s;
  auto arrow = text.find("->");
  SHARDC_ASSERT(arrow != std::string::npos, "einsum spec without ->: " + text);
  std::string ins = text.substr(0, arrow);
  s.output = text.substr(arrow + 2);
  std::size_t start = 0;
  while (true) {
    auto comma = ins.find(',', start);
    s.operands.push_back(ins.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return s;
}

void lower_einsum(Function& out, const Instr& instr) {
  const Spec spec = parse_spec(instr.string_attr("spec"));
  std::vector<ValueId> inputs = instr.inputs();
  std::vector<std::vector<AxisList>> want;  // the sharding each operand is used with
  for (ValueId in : inputs) want.push_back(out.values[static_cast<std::size_t>(in)].spec);
  AxisList partial;  // axes over which the local products are partial sums

  auto letter_dim = [&](std::size_t op, char c) {
    return static_cast<std::size_t>(spec.operands[op].find(c));
  };
  // Contracted letters: in an operand, not in the output.
  std::string seen;
  for (std::size_t op = 0; op < spec.operands.size(); ++op) {
    for (char c : spec.operands[op]) {
      if (spec.output.find(c) != std::string::npos || seen.find(c) != std::string::npos) continue;
      seen += c;
      std::vector<std::size_t> holders;
      for (std::size_t o = 0; o < spec.operands.size(); ++o)
        if (spec.operands[o].find(c) != std::string::npos) holders.push_back(o);
      bool all_same = true;
      const AxisList& first = want[holders[0]][letter_dim(holders[0], c)];
      for (std::size_t h : holders) all_same = all_same && want[h][letter_dim(h, c)] == first;
      bool all_sharded = true;
      for (std::size_t h : holders) all_sharded = all_sharded && !want[h][letter_dim(h, c)].empty();
      // (evaluator/ops_einsum.cpp's split_contracted_letters repeats this rule, to round bf16/f16
      // partial products as this code does: change both together.)
      // Each device's product is a partial sum over the letter's axes, which one psum finishes,
      // only if no other letter made it partial over one of them already: with two summed
      // letters over Y ("d,a->" of f32[8@Y] and f32[4@Y]) the devices' products
      // sum_y(a_y) * sum_y(b_y) do not add up to sum(a) * sum(b). Such a letter is gathered.
      const bool overlaps = std::any_of(first.begin(), first.end(), [&](int axis) {
        return std::find(partial.begin(), partial.end(), axis) != partial.end();
      });
      if (all_same && all_sharded && !overlaps) {
        partial.insert(partial.end(), first.begin(), first.end());
      } else {
        for (std::size_t h : holders) want[h][letter_dim(h, c)].clear();  // all-gather it
      }
    }
  }
  // Output letters: take the sharding of the first operand holding them; other operands must
  // agree (batch dims) or are gathered. An axis used twice is gathered where it repeats.
  std::vector<AxisList> natural;
  for (char c : spec.output) {
    AxisList chosen;
    bool found = false;
    for (std::size_t o = 0; o < spec.operands.size(); ++o) {
      if (spec.operands[o].find(c) == std::string::npos) continue;
      AxisList& a = want[o][letter_dim(o, c)];
      if (!found) {
        chosen = a;
        found = true;
      } else if (a != chosen) {
        a = chosen;
      }
    }
    natural.push_back(chosen);
  }
  for (std::size_t d = 0; d < natural.size(); ++d) {
    for (int axis : AxisList(natural[d])) {
      bool earlier = std::find(partial.begin(), partial.end(), axis) != partial.end();
      for (std::size_t e = 0; e < d; ++e)
        earlier = earlier || std::find(natural[e].begin(), natural[e].end(), axis) != natural[e].end();
      if (earlier) {
        natural[d].clear();
        char c = spec.output[d];
        for (std::size_t o = 0; o < spec.operands.size(); ++o)
          if (spec.operands[o].find(c) != std::string::npos) want[o][letter_dim(o, c)].clear();
        break;
      }
    }
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) inputs[i] = emit_reshard(out, inputs[i], want[i], instr.range());

  const ValueId result = instr.output();
  const Value target = out.values[static_cast<std::size_t>(result)];  // a copy: out.values grows below
  const std::vector<AxisList> target_spec = target.spec;
  // unreduced=: the result stays a pending sum over those axes (each device's product is its
  // partial), so only the partial axes beyond them (a one-operand sum's) are reduced here.
  for (int axis : target.unreduced) {
    auto it = std::find(partial.begin(), partial.end(), axis);
    SHARDC_ASSERT(it != partial.end(), "lower_einsums: an unreduced axis the products are not partial over");
    partial.erase(it);
  }
  // A one-operand einsum is a sum (docs/language.md 6.5): of bf16/f16 over a sharded letter its
  // devices' partial sums cross the collective in f32 and are rounded once, as lower_reductions
  // does for `sum` (rounded first, [1000, 1.5] and [-1000, 1.5] summed to 0, not 3). Two-operand
  // contractions round each partial product, as XLA does.
  const bool widen = inputs.size() == 1 && !partial.empty() &&
                     (target.dtype == shard::DType::bf16 || target.dtype == shard::DType::f16);
  ValueId chain_result = result;  // what the collectives below produce
  if (widen) {
    Value wide_input = out.values[static_cast<std::size_t>(inputs[0])];
    wide_input.name.clear();
    wide_input.dtype = shard::DType::f32;
    const ValueId converted = out.add_value(wide_input);
    out.body.push_back(Instr::make(OpKind::convert, {inputs[0]}, {converted}, {{"dtype", std::string("f32")}},
                                   instr.range()));
    inputs[0] = converted;
    Value wide_result = target;
    wide_result.name.clear();
    wide_result.dtype = shard::DType::f32;
    chain_result = out.add_value(wide_result);
  }
  Value local = with_spec(*out.mesh, out.values[static_cast<std::size_t>(chain_result)], natural);
  local.name.clear();
  ValueId current = out.add_value(local);
  out.body.push_back(Instr::make(OpKind::einsum, inputs, {current}, {{"spec", instr.string_attr("spec")}}, instr.range()));

  if (!partial.empty()) current = emit_partial_sum_reduction(out, current, partial, chain_result, instr.range());
  if (current != chain_result) {
    // The last step defines the chain's own result id, so later uses need no renaming.
    if (out.values[static_cast<std::size_t>(current)].spec == target_spec) {
      InstrPtr last = out.body.back();
      out.body.back() = Instr::make(last->kind(), last->inputs(), {chain_result}, last->attrs(), last->range());
    } else {
      out.body.push_back(Instr::make(OpKind::reshard, {current}, {chain_result}, {{"sharding", target_spec}},
                                     instr.range()));
    }
  }
  if (widen)
    out.body.push_back(Instr::make(OpKind::convert, {chain_result}, {result},
                                   {{"dtype", std::string(shard::dtype_short_name(target.dtype))}}, instr.range()));
}

}  // namespace

Module lower_einsums(const Module& module) {
  Module m = module;
  for (Function& f : m.functions) {
    if (f.manual) continue;
    Function out = empty_like(f);
    for (const InstrPtr& instr : f.body) {
      if (instr->kind() == OpKind::einsum) lower_einsum(out, *instr);
      else out.body.push_back(instr);
    }
    f = std::move(out);
  }
  return m;
}

}  // namespace shardc::codegen

#include "codegen/last_use.h"

#include <algorithm>
#include <map>

namespace shardc::codegen {
namespace {

// `ab,bc->ac` with three distinct letters, both operands of the result's dtype: what the
// emitter may call as p::matmul on views.
bool plain_matmul(const Function& f, const Instr& instr) {
  if (instr.kind() != OpKind::einsum || instr.inputs().size() != 2) return false;
  const std::string& spec = instr.string_attr("spec");
  if (spec.size() != 9 || spec[2] != ',' || spec.substr(5, 2) != "->") return false;
  const char a = spec[0], b = spec[1], c = spec[4];
  if (spec[3] != b || spec[7] != a || spec[8] != c) return false;
  if (a == b || b == c || a == c) return false;
  const DType out = f.values.at(static_cast<std::size_t>(instr.output())).dtype;
  for (ValueId in : instr.inputs())
    if (f.values.at(static_cast<std::size_t>(in)).dtype != out) return false;
  return true;
}

bool may_make_window(OpKind kind) {
  return kind == OpKind::slice || kind == OpKind::dynamic_slice || kind == OpKind::dynamic_index ||
         kind == OpKind::reshape;
}

// Whether `instr` can produce a view of its operand 0: slices that keep every dim, dynamic
// slices and indexes (any operand), and reshapes of a block (row-major, unlike a window).
bool can_be_window(const Instr& instr, const DefUse& u) {
  switch (instr.kind()) {
    case OpKind::dynamic_slice:
    case OpKind::dynamic_index: return true;
    case OpKind::slice: return instr.ints_attr("squeezed").empty();
    case OpKind::reshape: {
      const Instr* from = u.producer.at(static_cast<std::size_t>(instr.inputs().at(0)));
      return from == nullptr || !may_make_window(from->kind());
    }
    default: return false;
  }
}

// Per value: whether it is a window. Decided from the last instruction back, so that a value's
// readers are decided before it: a window is read only by plain matmuls and by windows made
// of it (reshape -> dynamic_index -> matmul), and is not a result.
std::vector<bool> find_windows(const Function& f) {
  const std::size_t n = f.values.size();
  const DefUse u(f);
  std::vector<bool> window(n, false), returned(n, false);
  for (ValueId r : f.results) returned[static_cast<std::size_t>(r)] = true;
  for (auto it = f.body.rbegin(); it != f.body.rend(); ++it) {
    const Instr& instr = **it;
    if (!can_be_window(instr, u)) continue;
    const std::size_t out = static_cast<std::size_t>(instr.output());
    if (returned[out] || u.readers[out].empty()) continue;
    window[out] = std::all_of(u.readers[out].begin(), u.readers[out].end(), [&](const Instr* r) {
      if (plain_matmul(f, *r)) return true;
      return can_be_window(*r, u) && r->inputs().at(0) == instr.output() &&
             window[static_cast<std::size_t>(r->output())] &&
             std::count(r->inputs().begin(), r->inputs().end(), instr.output()) == 1;
    });
  }
  return window;
}

}  // namespace

LastUses::LastUses(const Function& f) : f_(f) {
  const std::size_t n = f.values.size();
  root_.resize(n);
  for (std::size_t v = 0; v < n; ++v) root_[v] = static_cast<ValueId>(v);
  owned_.assign(n, false);
  last_use_.assign(n, 0);
  returned_.assign(n, false);
  window_ = find_windows(f);

  std::map<ValueId, std::vector<ValueId>> in_flight;  // pending handle -> its collective's operands
  waited_roots_.resize(f.body.size());
  for (std::size_t i = 0; i < f.body.size(); ++i) {
    const Instr& instr = *f.body[i];
    auto use = [&](ValueId v) {
      std::size_t& last = last_use_[static_cast<std::size_t>(root(v))];
      last = std::max(last, i);
    };
    for (ValueId in : instr.inputs()) use(in);
    if (instr.kind() == OpKind::start) in_flight[instr.output()] = instr.inputs();
    if (instr.kind() == OpKind::wait)
      for (ValueId operand : in_flight[instr.inputs().at(0)]) {
        use(operand);
        waited_roots_[i].push_back(root(operand));
      }
    const bool view = instr.kind() == OpKind::alias || instr.kind() == OpKind::pvary ||
                      (may_make_window(instr.kind()) && is_window(instr.output()));
    for (ValueId out : instr.outputs()) {
      const std::size_t o = static_cast<std::size_t>(out);
      if (view) root_[o] = root(instr.inputs().at(0));
      else owned_[o] = instr.kind() != OpKind::param && f.values[o].kind == ValueKind::array;
    }
  }
  for (ValueId r : f.results) returned_[static_cast<std::size_t>(root(r))] = true;

  released_after_.resize(f.body.size());
  std::vector<bool> read(n, false);
  for (std::size_t i = 0; i < f.body.size(); ++i)
    for (ValueId in : f.body[i]->inputs()) read[static_cast<std::size_t>(root(in))] = true;
  for (std::size_t i = 0; i < f.body.size(); ++i) {
    const Instr& instr = *f.body[i];
    // Last reads here: the operands' roots (a wait ends its collective's operands too).
    std::vector<ValueId> candidates;
    for (ValueId in : instr.inputs()) candidates.push_back(root(in));
    candidates.insert(candidates.end(), waited_roots_[i].begin(), waited_roots_[i].end());
    for (ValueId out : instr.outputs())
      if (!read[static_cast<std::size_t>(out)] && root(out) == out) candidates.push_back(out);
    for (std::size_t k = 0; k < instr.inputs().size(); ++k)
      if (consumable(i, k)) std::erase(candidates, root(instr.inputs()[k]));  // moved from: nothing left
    for (ValueId r : candidates) {
      const std::size_t ri = static_cast<std::size_t>(r);
      // Rank-0 values (constants, indices) are left to the end of the body: releasing them would
      // save a few bytes at the cost of a line each.
      if (!owned_[ri] || returned_[ri] || f.values[ri].shape.empty()) continue;
      if (read[ri] && last_use_[ri] != i) continue;
      if (std::find(released_after_[i].begin(), released_after_[i].end(), r) == released_after_[i].end())
        released_after_[i].push_back(r);
    }
  }
}

bool LastUses::consumable(std::size_t index, std::size_t operand) const {
  const Instr& instr = *f_.body.at(index);
  // The helpers that take a block over: binary_reusing, reshape and dynamic_update_slice, each
  // their first operand (a reshape made a window does not: it views its operand).
  const OpKind kind = instr.kind();
  if (operand != 0) return false;
  if (kind != OpKind::binary && kind != OpKind::reshape && kind != OpKind::dynamic_update_slice) return false;
  if (kind == OpKind::reshape && is_window(instr.output())) return false;
  const ValueId r = root(instr.inputs().at(operand));
  const std::size_t ri = static_cast<std::size_t>(r);
  if (!owned_[ri] || returned_[ri] || last_use_[ri] != index) return false;
  return std::count_if(instr.inputs().begin(), instr.inputs().end(), [&](ValueId v) { return root(v) == r; }) == 1;
}

bool LastUses::result_movable(std::size_t i) const {
  const ValueId r = root(f_.results.at(i));
  if (!owned_[static_cast<std::size_t>(r)]) return false;
  // Every mention of a value returned twice is copied: std::tuple's constructor may build its
  // elements in any order (libstdc++ builds the last first), so a move in one element could
  // empty the value before another copies it.
  for (std::size_t j = 0; j < f_.results.size(); ++j)
    if (j != i && root(f_.results[j]) == r) return false;
  return true;
}

}  // namespace shardc::codegen

#include "codegen/body_parts.h"

#include <algorithm>
#include <map>

#include "frontend/internal_error.h"

namespace shardc::codegen {
namespace {

constexpr std::ptrdiff_t kCaller = -1;  // where a parameter is bound: before every part

}  // namespace

BodyParts::BodyParts(const Function& f, const LastUses& uses, std::size_t part_size) {
  const std::size_t n = f.body.size(), values = f.values.size();
  declared_by_caller_.assign(values, false);
  auto is_param = [&](std::size_t i) { return f.body[i]->kind() == OpKind::param; };
  const auto params = static_cast<std::size_t>(std::count_if(
      f.body.begin(), f.body.end(), [](const InstrPtr& instr) { return instr->kind() == OpKind::param; }));
  if (n - params <= part_size) return;

  // Where each value is defined (the caller binds the parameters, wherever the scheduler put
  // them), and the names each instruction mentions: its operands, the root of an operand it
  // moves from (the emitter writes std::move(root), not the alias) and the roots it releases
  // after (p::release), those two changed by it. Position n is the return, which names the
  // results' roots.
  std::vector<std::ptrdiff_t> def(values, static_cast<std::ptrdiff_t>(n));
  for (std::size_t i = 0; i < n; ++i)
    for (ValueId out : f.body[i]->outputs())
      def[static_cast<std::size_t>(out)] = is_param(i) ? kCaller : static_cast<std::ptrdiff_t>(i);
  auto defined_before = [&](ValueId v, std::size_t position) {
    return def[static_cast<std::size_t>(v)] < static_cast<std::ptrdiff_t>(position);
  };
  struct Mention {
    ValueId value;
    bool changed;  // moved from or released: a Tensor& parameter
  };
  std::vector<std::vector<Mention>> mentions(n + 1);
  for (std::size_t i = 0; i < n; ++i) {
    const Instr& instr = *f.body[i];
    for (std::size_t k = 0; k < instr.inputs().size(); ++k) {
      const bool moved = uses.consumable(i, k);
      mentions[i].push_back({moved ? uses.root(instr.inputs()[k]) : instr.inputs()[k], moved});
    }
    for (ValueId root : uses.released_after(i)) mentions[i].push_back({root, true});
  }
  for (ValueId r : f.results) mentions[n].push_back({uses.root(r), false});

  // A cut before instruction c is possible unless a window defined before c is named at or
  // after c: a View is not handed on (windows live for an instruction or two).
  std::vector<int> opened(n + 2, 0);  // differences: how many windows are alive at each cut
  for (std::size_t m = 0; m <= n; ++m)
    for (const Mention& mention : mentions[m])
      if (uses.is_window(mention.value) && defined_before(mention.value, m)) {
        ++opened[static_cast<std::size_t>(def[static_cast<std::size_t>(mention.value)]) + 1];
        --opened[m + 1];
      }
  // Cut where a part has part_size instructions besides parameters, or at the next place after.
  std::vector<std::size_t> bounds = {0};
  int alive = 0;
  std::size_t in_part = 0;
  for (std::size_t c = 1; c < n; ++c) {
    alive += opened[c];
    if (!is_param(c - 1)) ++in_part;
    if (in_part >= part_size && alive == 0) {
      bounds.push_back(c);
      in_part = 0;
    }
  }
  if (bounds.size() == 1) return;
  bounds.push_back(n);
  std::vector<std::size_t> part_of(n + 1);  // per position: its part (the return: one past the last)
  for (std::size_t p = 0; p + 1 < bounds.size(); ++p) {
    BodyPart part;
    part.begin = bounds[p];
    part.end = bounds[p + 1];
    for (std::size_t i = part.begin; i < part.end; ++i) part_of[i] = p;
    parts_.push_back(std::move(part));
  }
  part_of[n] = parts_.size();

  // A value named in a later part is handed to it by its root's name (an alias is a second
  // name of its root's block), so the caller declares the root. The return is a later part.
  // A collective reads its operand in place until its wait, which does not name it: the
  // operand's block must outlive the start's part when the wait is in a later one.
  std::vector<std::map<ValueId, bool>> inputs(parts_.size());  // per part: value -> changed
  for (std::size_t m = 0; m <= n; ++m) {
    const std::size_t p = part_of[m];
    const std::size_t part_begin = p < parts_.size() ? parts_[p].begin : n;
    for (const Mention& mention : mentions[m]) {
      if (!defined_before(mention.value, part_begin)) continue;  // defined in the same part
      SHARDC_ASSERT(!uses.is_window(mention.value), "a body part would hand on a window");
      if (p < parts_.size()) inputs[p][mention.value] |= mention.changed;
      const ValueId root = uses.root(mention.value);
      if (def[static_cast<std::size_t>(root)] != kCaller) declared_by_caller_[static_cast<std::size_t>(root)] = true;
    }
    if (m == n) continue;
    for (ValueId root : uses.waited_roots(m))
      if (def[static_cast<std::size_t>(root)] != kCaller && defined_before(root, part_begin))
        declared_by_caller_[static_cast<std::size_t>(root)] = true;
  }
  for (std::size_t p = 0; p < parts_.size(); ++p) {
    BodyPart& part = parts_[p];
    for (const auto& [v, changed] : inputs[p]) {
      part.inputs.push_back(v);
      part.moved_from.push_back(changed);
    }
    for (std::size_t i = part.begin; i < part.end; ++i)
      for (ValueId out : f.body[i]->outputs())
        if (declared_by_caller_[static_cast<std::size_t>(out)]) part.outputs.push_back(out);
    std::sort(part.outputs.begin(), part.outputs.end());
  }
}

}  // namespace shardc::codegen

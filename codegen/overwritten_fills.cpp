#include "codegen/overwritten_fills.h"

#include <algorithm>
#include <optional>
#include <utility>

namespace shardc::codegen {
namespace {

// The value whose block `v` names: itself, or the first value of its alias/pvary chain.
ValueId root(const DefUse& u, ValueId v) {
  for (const Instr* p = u.producer[static_cast<std::size_t>(v)];
       p && (p->kind() == OpKind::alias || p->kind() == OpKind::pvary); p = u.producer[static_cast<std::size_t>(v)])
    v = p->inputs().at(0);
  return v;
}

// The integer value of `v` when a constant instruction makes it.
std::optional<std::int64_t> constant_int(const DefUse& u, ValueId v) {
  const Instr* p = u.producer.at(static_cast<std::size_t>(v));
  if (p == nullptr || p->kind() != OpKind::constant) return std::nullopt;
  if (const auto* i = std::get_if<std::int64_t>(&p->attrs().at("value"))) return *i;
  return std::nullopt;
}

// The one instruction that reads the block named `v` (through alias/pvary names), or nullptr
// when there are several readers or none, or when `v` is a result.
const Instr* only_reader(const Function& f, const DefUse& u, ValueId v) {
  const Instr* reader = nullptr;
  std::vector<ValueId> names = {v};
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (std::count(f.results.begin(), f.results.end(), names[i])) return nullptr;
    for (const Instr* r : u.readers[static_cast<std::size_t>(names[i])]) {
      if (r->kind() == OpKind::alias || r->kind() == OpKind::pvary) {
        names.push_back(r->output());
        continue;
      }
      if (reader != nullptr && reader != r) return nullptr;
      reader = r;
    }
  }
  return reader;
}

// The box [begin, end) per dim that a dynamic_update_slice of `instr` writes: a negative start
// counts from the end, then starts are clamped (as the runtime's dynamic_update_slice does).
std::optional<std::vector<std::pair<std::int64_t, std::int64_t>>> written_box(const Function& f, const DefUse& u,
                                                                             const Instr& instr) {
  // Along dimensions written across blocks each device writes what falls in its own block: no
  // one box.
  if (instr.attrs().count("across_blocks")) return std::nullopt;
  const auto& shape = f.values.at(static_cast<std::size_t>(instr.inputs()[0])).shape;
  const auto& update = f.values.at(static_cast<std::size_t>(instr.inputs()[1])).shape;
  if (update.size() != shape.size()) return std::nullopt;
  std::vector<std::int64_t> starts(shape.size(), 0);
  const std::int64_t axis = instr.int_attr("axis");
  if (axis >= 0) {
    const auto s = constant_int(u, instr.inputs().at(2));
    if (!s) return std::nullopt;
    starts.at(static_cast<std::size_t>(axis)) = *s;
  } else {
    if (instr.inputs().size() != shape.size() + 2) return std::nullopt;
    for (std::size_t d = 0; d < shape.size(); ++d) {
      const auto s = constant_int(u, instr.inputs()[d + 2]);
      if (!s) return std::nullopt;
      starts[d] = *s;
    }
  }
  std::vector<std::pair<std::int64_t, std::int64_t>> box;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    const std::int64_t start = starts[d] < 0 ? starts[d] + shape[d] : starts[d];
    const std::int64_t begin = std::clamp<std::int64_t>(start, 0, shape[d] - update[d]);
    box.emplace_back(begin, begin + update[d]);
  }
  return box;
}

// Whether the boxes cover `shape`: all span every dim but one, and cover that one.
bool covers(const std::vector<std::int64_t>& shape, std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> boxes) {
  if (boxes.empty()) return false;
  std::optional<std::size_t> partial;
  for (const auto& box : boxes)
    for (std::size_t d = 0; d < shape.size(); ++d) {
      if (box[d].first == 0 && box[d].second == shape[d]) continue;
      if (partial && *partial != d) return false;
      partial = d;
    }
  if (!partial) return true;  // some box is the whole block
  const std::size_t d = *partial;
  std::sort(boxes.begin(), boxes.end(), [&](const auto& a, const auto& b) { return a[d].first < b[d].first; });
  std::int64_t covered = 0;
  for (const auto& box : boxes) {
    if (box[d].first > covered) return false;
    covered = std::max(covered, box[d].second);
  }
  return covered >= shape[d];
}

}  // namespace

std::vector<bool> find_overwritten_fills(const Function& f) {
  const DefUse u(f);
  std::vector<bool> overwritten(f.values.size(), false);
  for (const InstrPtr& instr : f.body) {
    if (instr->kind() != OpKind::fill || !instr->inputs().empty()) continue;
    const ValueId filled = instr->output();
    const auto& shape = f.values.at(static_cast<std::size_t>(filled)).shape;
    std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> boxes;
    ValueId block = filled;
    while (true) {
      const Instr* next = only_reader(f, u, block);
      if (next == nullptr || next->kind() != OpKind::dynamic_update_slice) break;
      // The block must be the updated operand, and no other input of it (a block updated with
      // a slice of itself would read it).
      if (root(u, next->inputs()[0]) != block) break;
      if (std::any_of(next->inputs().begin() + 1, next->inputs().end(), [&](ValueId v) { return root(u, v) == block; }))
        break;
      const auto box = written_box(f, u, *next);
      if (!box) break;
      boxes.push_back(*box);
      block = next->output();
    }
    overwritten[static_cast<std::size_t>(filled)] = covers(shape, boxes);
  }
  return overwritten;
}

}  // namespace shardc::codegen

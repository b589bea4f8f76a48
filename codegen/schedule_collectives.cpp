#include "codegen/schedule_collectives.h"

#include <algorithm>
#include <map>

#include "frontend/internal_error.h"

namespace shardc::codegen {

bool has_async_form(OpKind kind) {
  switch (kind) {
    case OpKind::psum:
    case OpKind::pmean:
    case OpKind::pmax:
    case OpKind::pmin:
    case OpKind::pprod:
    case OpKind::all_gather:
    case OpKind::psum_scatter:
    case OpKind::ppermute:
    case OpKind::all_to_all:
    case OpKind::reshard_exchange: return true;
    default: return false;
  }
}

namespace {

Function schedule(const Function& f) {
  Function out = f;
  out.body.clear();
  const std::size_t n = f.body.size();
  std::map<ValueId, std::size_t> first_use;
  for (std::size_t i = 0; i < n; ++i)
    for (ValueId in : f.body[i]->inputs()) first_use.emplace(in, i);
  // A call runs the callee's own collectives: no collective of the caller may be in flight
  // across it (the runtime keeps a few collectives in flight per device, in program order, so
  // a start held open across a callee's collectives could be overtaken by them), so a call is
  // a fence like a collective: waits go before it, starts after it.
  auto is_fence = [](const Instr& instr) {
    return op_class(instr.kind()) == OpClass::collective || instr.kind() == OpKind::call;
  };
  std::vector<std::size_t> fences;
  for (std::size_t i = 0; i < n; ++i)
    if (is_fence(*f.body[i])) fences.push_back(i);

  struct Placed {
    double key;
    std::size_t seq;
    InstrPtr instr;
  };
  std::vector<Placed> placed;
  std::map<ValueId, double> def_key;
  double previous_wait = -1;
  std::size_t next_fence = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const InstrPtr& instr = f.body[i];
    if (!is_fence(*instr)) {
      placed.push_back({static_cast<double>(i), placed.size(), instr});
      for (ValueId o : instr->outputs()) def_key[o] = static_cast<double>(i);
      continue;
    }
    ++next_fence;
    const double next = next_fence < fences.size() ? static_cast<double>(fences[next_fence]) : static_cast<double>(n);
    if (instr->kind() == OpKind::call || !has_async_form(instr->kind())) {
      placed.push_back({static_cast<double>(i), placed.size(), instr});
      for (ValueId o : instr->outputs()) def_key[o] = static_cast<double>(i);
      previous_wait = static_cast<double>(i);
      continue;
    }
    double start = previous_wait + 0.01;
    for (ValueId in : instr->inputs()) {
      auto it = def_key.find(in);
      start = std::max(start, (it == def_key.end() ? -1.0 : it->second) + 0.6);
    }
    auto use = first_use.find(instr->output());
    double use_at = use == first_use.end() ? static_cast<double>(n) : static_cast<double>(use->second);
    double wait = std::min(use_at, next) - 0.4;
    SHARDC_ASSERT(start < wait, "schedule_collectives: a start after its wait");
    Value handle;
    handle.kind = ValueKind::pending;
    handle.name = f.values[static_cast<std::size_t>(instr->output())].name;
    ValueId h = out.add_value(handle);
    Attrs attrs = instr->attrs();
    attrs["collective"] = std::string(op_kind_name(instr->kind()));
    placed.push_back({start, placed.size(), Instr::make(OpKind::start, instr->inputs(), {h}, attrs, instr->range())});
    placed.push_back({wait, placed.size(), Instr::make(OpKind::wait, {h}, instr->outputs(), attrs, instr->range())});
    def_key[instr->output()] = wait;
    previous_wait = wait;
  }
  std::stable_sort(placed.begin(), placed.end(),
                   [](const Placed& a, const Placed& b) { return a.key < b.key || (a.key == b.key && a.seq < b.seq); });
  for (Placed& p : placed) out.body.push_back(std::move(p.instr));
  return out;
}

}  // namespace

Module schedule_collectives(const Module& module) {
  Module m = module;
  for (Function& f : m.functions) f = schedule(f);
  return m;
}

}  // namespace shardc::codegen

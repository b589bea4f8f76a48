#include "frontend/check/builtins.h"

#include <algorithm>
#include <unordered_map>

#include "frontend/check/rules_reduce.h"

namespace shardc::check {
namespace {

const std::unordered_map<std::string_view, Builtin>& table() {
  static const auto* t = [] {
    auto* m = new std::unordered_map<std::string_view, Builtin>();
    for (auto family : {math_builtins, shape_builtins, collective_builtins, random_builtins})
      for (auto& [name, b] : family()) m->insert_or_assign(name, b);
    return m;
  }();
  return *t;
}

}  // namespace

const Builtin* find_builtin(std::string_view name) {
  auto it = table().find(name);
  return it == table().end() ? nullptr : &it->second;
}

bool is_builtin_name(std::string_view name) { return find_builtin(name) != nullptr; }

std::vector<std::string_view> builtin_names() {
  std::vector<std::string_view> names;
  for (const auto& [name, builtin] : table()) names.push_back(name);
  std::sort(names.begin(), names.end());  // the table's order is a hash's: ties go to the first
  return names;
}

std::optional<Type> checked(Checker& c, const Result<Type>& r, const Args& args,
                            std::initializer_list<std::string_view> operand_params) {
  if (r) return *r;
  std::vector<SourceRange> ranges;
  for (auto p : operand_params) ranges.push_back(args.range(p));
  c.report(r.error(), args.call().range, ranges);
  return std::nullopt;
}

std::optional<int> dim_argument(Checker& c, const Args& args, std::string_view param, int rank, std::int64_t fallback,
                                bool allow_end) {
  std::int64_t v = fallback;
  if (args.has(param)) {
    auto i = c.static_int(args[param], args.range(param), std::string(param) + "=");
    if (!i) return std::nullopt;
    v = *i;
  }
  if (allow_end && (v < -(rank + 1) || v > rank)) {
    // The axis is a position in the result, which has one dimension more than the input: say
    // so, rather than quote the result's rank as if it were the input's.
    c.error(args.range(param), args.call().callee.name + ": " + std::string(param) + "=" + std::to_string(v) +
                                   " is out of bounds for the new axis of a rank-" + std::to_string(rank) + " array")
        .note("the new axis is a position in the result, of rank " + std::to_string(rank + 1) +
              ": valid values are " + std::to_string(-(rank + 1)) + " .. " + std::to_string(rank));
    return std::nullopt;
  }
  auto r = normalize_axis(args.call().callee.name, v, allow_end ? rank + 1 : rank);
  if (!r) {
    c.report(r.error(), args.range(param));
    return std::nullopt;
  }
  return *r;
}

bool require_manual(Checker& c, const ast::CallExpr& call) {
  if (c.manual()) return true;
  c.error(call.callee.range, call.callee.name + " is a manual-mode collective; use it inside a shard_map")
      .note("in a func, the layout of an array is its type: change it with reshard");
  return false;
}

bool require_global(Checker& c, const ast::CallExpr& call) {
  if (!c.manual()) return true;
  c.error(call.callee.range, call.callee.name + " is a global-view operation and is not allowed in a shard_map body")
      .note("a shard_map body works on per-device blocks; move data with collectives");
  return false;
}

bool require_global_argument(Checker& c, const Args& args, std::string_view param) {
  if (!c.manual()) return true;
  const std::string name = args.call().callee.name;
  c.error(args.range(param), std::string(param) + "= of " + name + " chooses a global sharding and is not allowed in a shard_map body")
      .note(name + " is allowed there without " + std::string(param) + "=; move data between devices with collectives");
  return false;
}

}  // namespace shardc::check

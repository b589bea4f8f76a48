// The built-in function table, split by family (one file each). Each family lists its
// handlers and their signatures; builtins.cpp merges them into one lookup table.
#pragma once

#include <string_view>
#include <utility>
#include <vector>

#include "frontend/check/builtin_args.h"
#include "frontend/check/checker.h"

namespace shardc::check {

// Each family lists its built-ins with their signatures; a handler binds its call's arguments
// with Args(c, call), which takes the signature from this table (one list per built-in, also
// read to check calls in code the checker does not trace).
using BuiltinList = std::vector<std::pair<std::string_view, Builtin>>;

BuiltinList math_builtins();        // elementwise, reductions, einsum, softmax, top_k
BuiltinList shape_builtins();       // reshape, slices, concat, reshard, constructors, axis_size
BuiltinList collective_builtins();  // axis_index, psum, all_gather, ppermute, ...
BuiltinList random_builtins();      // key, split, fold_in, uniform, normal

// Reports a rule's error (located at the argument it names) and returns nullopt.
std::optional<Type> checked(Checker& c, const Result<Type>& r, const Args& args,
                            std::initializer_list<std::string_view> operand_params);
// A static axis/dim argument normalised against `rank` (negative counts from the end).
std::optional<int> dim_argument(Checker& c, const Args& args, std::string_view param, int rank, std::int64_t fallback,
                                bool allow_end = false);
// Errors when a manual-only / global-only built-in is used in the wrong mode.
bool require_manual(Checker& c, const ast::CallExpr& call);
bool require_global(Checker& c, const ast::CallExpr& call);
// The same for one argument of a built-in that both modes allow (einsum's out=).
bool require_global_argument(Checker& c, const Args& args, std::string_view param);
// `t` varying also wherever an array among `inputs` does: a per-device start makes a slice
// vary as the start does (x[axis_index(i)] differs between the devices of i even when x does
// not; JAX's vma of a dynamic slice).
Type varying_with_starts(Type t, const std::vector<Value>& inputs);

}  // namespace shardc::check

// Hints for a name that is not there: the closest spelling among the names that are (a
// misspelt `sqaure`), and what to write for a JAX function or class this language spells
// otherwise or lacks (`P(...)`, `dot`, `clip`).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardc::check {

// The candidate nearest to `name` by edit distance (insertions, deletions, substitutions and
// swaps of neighbours), if it is near enough to be a slip: at most 1 for names of 3 or 4
// characters, 2 beyond, none for shorter names (any two are that close). Ties go to the first
// candidate.
std::optional<std::string> closest_name(std::string_view name, const std::vector<std::string_view>& candidates);

// What to write instead of a JAX name that is not a built-in here, or nullopt.
std::optional<std::string> jax_spelling_hint(std::string_view name);

// The same for a JAX keyword argument this language spells otherwise (out_sharding=, axis_name=).
std::optional<std::string> jax_keyword_hint(std::string_view keyword);

}  // namespace shardc::check

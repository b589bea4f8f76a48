// A note for a syntax error that a Python or JAX spelling caused, read from the tokens around
// the error: methods (`x.sum()`), module prefixes (`jnp.sum(x)`), `x.at[i].set(v)`, item
// assignment, `and`/`or`/`not`, `2.`, `...`, quoted names and default parameter values. The
// grammar has no place for any of them, so the parser's own message ("unexpected '('") says
// nothing of what to write instead.
#pragma once

#include <optional>
#include <string>

namespace antlr4 {
class Token;
class TokenStream;
}  // namespace antlr4

namespace shardc::syntax {

std::optional<std::string> python_spelling_note(antlr4::TokenStream& stream, const antlr4::Token& offending,
                                                bool name_expected);

}  // namespace shardc::syntax

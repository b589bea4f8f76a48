#include "frontend/syntax/python_spellings.h"

#include <antlr4-runtime.h>

#include <array>
#include <string_view>

#include "ShardLexer.h"

namespace shardc::syntax {
namespace {

using Lexer = shard_antlr::ShardLexer;

// Names that prefix JAX's functions; the built-ins here have none.
constexpr std::array<std::string_view, 8> kModulePrefixes{"jnp", "jax", "np", "lax", "nn", "random", "numpy", "math"};

bool is_module_prefix(std::string_view name) {
  for (std::string_view m : kModulePrefixes)
    if (m == name) return true;
  return false;
}

// The tokens before the error, nearest first, skipping the hidden channel (invalid characters).
class TokensBefore {
 public:
  TokensBefore(antlr4::TokenStream& stream, const antlr4::Token& offending)
      : stream_(stream), index_(offending.getTokenIndex()) {}
  // The k-th token before the error (1: the one right before it), or null.
  const antlr4::Token* at(std::size_t k) const {
    std::size_t i = index_;
    while (k > 0) {
      if (i == 0) return nullptr;
      const antlr4::Token* t = stream_.get(--i);
      if (t->getChannel() == antlr4::Token::DEFAULT_CHANNEL) --k;
      if (k == 0) return t;
    }
    return nullptr;
  }
  bool is(std::size_t k, std::size_t type) const {
    const antlr4::Token* t = at(k);
    return t && t->getType() == type;
  }
  bool is_name(std::size_t k, std::string_view text) const { return is(k, Lexer::IDENT) && at(k)->getText() == text; }

 private:
  antlr4::TokenStream& stream_;
  std::size_t index_;
};

// Whether the statement the error is in opens with fn/func/shard_map and the error sits inside
// its parameter list's parentheses.
bool in_parameter_list(const TokensBefore& before) {
  int depth = 0;
  for (std::size_t k = 1;; ++k) {
    const antlr4::Token* t = before.at(k);
    if (!t) return false;
    switch (t->getType()) {
      case Lexer::SEMI: case Lexer::LBRACE: case Lexer::RBRACE: return false;
      case Lexer::RPAREN: case Lexer::RBRACK: ++depth; break;
      case Lexer::LPAREN: case Lexer::LBRACK:
        if (depth == 0) {
          // The list's '(' follows the function's name, which follows its keyword.
          const antlr4::Token* keyword = before.at(k + 2);
          return t->getType() == Lexer::LPAREN && before.is(k + 1, Lexer::IDENT) && keyword &&
                 (keyword->getType() == Lexer::FN || keyword->getType() == Lexer::FUNC ||
                  keyword->getType() == Lexer::SHARD_MAP);
        }
        --depth;
        break;
      default: break;
    }
  }
}

}  // namespace

std::optional<std::string> python_spelling_note(antlr4::TokenStream& stream, const antlr4::Token& offending,
                                                bool name_expected) {
  const TokensBefore before(stream, offending);
  const std::size_t type = offending.getType();
  // NAME(...) after a '.': a method, a module's function, or .at[i].set(v).
  if (type == Lexer::LPAREN && before.is(1, Lexer::IDENT) && before.is(2, Lexer::DOT)) {
    const std::string method = before.at(1)->getText();
    if (before.is(3, Lexer::RBRACK) && (method == "set" || method == "add" || method == "get"))
      return "arrays are values: JAX's x.at[i].set(v) is dynamic_update_slice(x, v, i) here, which returns the "
             "updated array";
    if (before.is(3, Lexer::IDENT) && is_module_prefix(before.at(3)->getText()))
      return "the built-ins have no module prefix: " + before.at(3)->getText() + "." + method + "(x) is " + method +
             "(x) here";
    return "there are no methods: x." + method + "(args) is " + method + "(x, args) here";
  }
  if (type == Lexer::IDENT && (offending.getText() == "and" || offending.getText() == "or"))
    return "Python's and / or are && / || here";
  if (before.is_name(1, "not")) return "Python's not is ! here";
  // `2.`: the lexer read INT '.', and the '.' now wants an attribute name.
  if (before.is(1, Lexer::DOT) && before.is(2, Lexer::INT) &&
      before.at(2)->getStopIndex() + 1 == before.at(1)->getStartIndex())
    return "a float literal has digits after its point: " + before.at(2)->getText() + ".0";
  // `x[..., 0]`: '..' '.' where an index may start.
  if (type == Lexer::DOTDOT && (before.is(1, Lexer::LBRACK) || before.is(1, Lexer::COMMA)))
    return "there is no ellipsis: write ':' for each leading dimension, x[:, :, 0]";
  if (type == Lexer::STRING && name_expected) {
    std::string text = offending.getText();
    return "names, axis names too, are written bare, without quotes: " +
           text.substr(1, text.size() >= 2 ? text.size() - 2 : 0) + ", not " + text;
  }
  if (type == Lexer::ASSIGN) {
    if (in_parameter_list(before)) return "parameters have no default values: every call passes every argument";
    if (before.is(1, Lexer::RBRACK))
      return "arrays are values: y = dynamic_update_slice(y, v, i) writes v at i (JAX's y.at[i].set(v))";
  }
  return std::nullopt;
}

}  // namespace shardc::syntax

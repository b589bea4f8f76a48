#include "frontend/syntax/syntax_error_listener.h"

#include <algorithm>
#include <exception>
#include <vector>

#include "ShardLexer.h"
#include "frontend/identifier.h"
#include "frontend/syntax/comment_rule.h"
#include "frontend/syntax/python_spellings.h"
#include "frontend/syntax/token_ranges.h"
#include "frontend/syntax/token_scan.h"

namespace shardc::syntax {
namespace {

using Lexer = shard_antlr::ShardLexer;

// How an expected token reads in a message.
std::string describe_token_type(const antlr4::dfa::Vocabulary& vocabulary, std::size_t type) {
  switch (type) {
    case antlr4::Token::EOF: return "end of file";
    case Lexer::IDENT: return "a name";
    case Lexer::INT: return "an integer";
    case Lexer::FLOAT: return "a number";
    case Lexer::STRING: return "a string";
    default: break;
  }
  std::string literal = vocabulary.getLiteralName(type);  // already quoted: "';'"
  return literal.empty() ? vocabulary.getSymbolicName(type) : literal;
}

// The token as the file has it (the lexer read a copy with non-ASCII bytes masked: parse.cpp).
std::string describe_token(const antlr4::Token* token, const SourceFile& file) {
  if (token->getType() == antlr4::Token::EOF) return "end of file";
  std::string text = file.text().substr(token->getStartIndex(), token->getStopIndex() + 1 - token->getStartIndex());
  if (text.size() > 32) {
    std::size_t cut = 29;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
    text = text.substr(0, cut) + "...";
  }
  return "'" + text + "'";
}

bool starts_expression(std::size_t type) {
  switch (type) {
    case Lexer::IDENT: case Lexer::INT: case Lexer::FLOAT: case Lexer::STRING: case Lexer::TRUE:
    case Lexer::FALSE: case Lexer::NONE: case Lexer::LPAREN: case Lexer::LBRACK: case Lexer::MINUS:
    case Lexer::PLUS: case Lexer::NOT: case Lexer::F32: case Lexer::BF16: case Lexer::F16:
    case Lexer::I32: case Lexer::I64: case Lexer::BOOL:
      return true;
    default:
      return false;
  }
}

// "';'", "';' or ','", "an expression", or "" when the set is too large to be useful.
std::string describe_expected(const antlr4::dfa::Vocabulary& vocabulary, const antlr4::misc::IntervalSet& expected) {
  std::vector<std::size_t> types;
  for (ssize_t t : expected.toList()) types.push_back(static_cast<std::size_t>(t));
  // A set that holds every token that starts an expression is summarised as "an expression".
  std::size_t expression_starters = 0;
  std::vector<std::string> others;
  for (std::size_t t : types) {
    if (starts_expression(t)) {
      ++expression_starters;
    } else {
      others.push_back(describe_token_type(vocabulary, t));
    }
  }
  // A set of just the dtype keywords and a name is where a type belongs.
  auto is_type_start = [](std::size_t t) {
    return t == Lexer::F32 || t == Lexer::BF16 || t == Lexer::F16 || t == Lexer::I32 || t == Lexer::I64 ||
           t == Lexer::BOOL || t == Lexer::IDENT;
  };
  if (types.size() == 7 && std::all_of(types.begin(), types.end(), is_type_start)) return "a type";
  std::vector<std::string> parts;
  if (expression_starters >= 8) {
    parts.push_back("an expression");
  } else {
    others.clear();
    for (std::size_t t : types) others.push_back(describe_token_type(vocabulary, t));
  }
  for (auto& o : others) parts.push_back(o);
  if (parts.empty() || parts.size() > 5) return "";
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i != 0) out += i + 1 == parts.size() ? " or " : ", ";
    out += parts[i];
  }
  return out;
}

// Where ANTLR chooses between alternatives that share a prefix (`(x` starts a parenthesized
// expression or a tuple), a token that fits none of them is reported with the parser still in
// the state before that prefix: its expected set is what may start the prefix (in `(x;`, "an
// expression"), not what may follow it. The first token of such a decision, or null.
const antlr4::Token* ambiguous_prefix_start(std::exception_ptr error) {
  if (!error) return nullptr;
  try {
    std::rethrow_exception(error);
  } catch (const antlr4::NoViableAltException& e) {
    return e.getStartToken();
  } catch (...) {
  }
  return nullptr;
}

// The parser's token before `token` (hidden ones skipped). Read from the stream: after an
// ambiguous prefix the parser stands before the prefix, so its LT(-1) is not this token. Only
// for a token after the start of a prefix, so there is one.
const antlr4::Token* token_before(antlr4::TokenStream* stream, const antlr4::Token* token) {
  std::size_t i = token->getTokenIndex();
  while (stream->get(--i)->getChannel() != antlr4::Token::DEFAULT_CHANNEL) {
  }
  return stream->get(i);
}

// The innermost bracket opened in tokens [first, end) and not closed there, or null.
const antlr4::Token* unclosed_bracket(antlr4::TokenStream* stream, std::size_t first, std::size_t end) {
  std::vector<const antlr4::Token*> open;
  for (std::size_t i = first; i < end; ++i) {
    const antlr4::Token* t = stream->get(i);
    if (is_open(t->getType())) {
      open.push_back(t);
    } else if (is_close(t->getType()) && !open.empty()) {
      open.pop_back();
    }
  }
  return open.empty() ? nullptr : open.back();
}

std::string closing_bracket(const antlr4::Token* open) {
  switch (open->getType()) {
    case Lexer::LPAREN: return "')'";
    case Lexer::LBRACK: return "']'";
    default: return "'}'";
  }
}

}  // namespace

void SyntaxErrorListener::syntaxError(antlr4::Recognizer* recognizer, antlr4::Token* offending, size_t line,
                                      size_t column, const std::string& message, std::exception_ptr error) {
  auto* parser = dynamic_cast<antlr4::Parser*>(recognizer);
  if (!parser || !offending) {
    // The lexer has a catch-all rule and never errors; keep ANTLR's text if it ever does.
    ++count_;
    SourceLocation where{0, static_cast<std::uint32_t>(line), static_cast<std::uint32_t>(column + 1)};
    diags_.error(SourceRange{file_.id(), where, where}, message);
    return;
  }
  if (offending->getTokenIndex() == last_token_index_) return;
  last_token_index_ = offending->getTokenIndex();
  ++count_;

  std::string expected;
  bool name_expected = false;
  try {
    const antlr4::misc::IntervalSet expected_types = parser->getExpectedTokens();
    expected = describe_expected(parser->getVocabulary(), expected_types);
    name_expected = expected_types.contains(static_cast<ssize_t>(Lexer::IDENT));
  } catch (const std::exception&) {
    expected.clear();  // no expected set in this state: the message just names the token
  }
  // After an ambiguous prefix that ends in an operand the set above is stale: name the bracket
  // the prefix left open, if any (`(x;` expects ')' or ','; ')' is the one to name), else only
  // the unexpected token. A prefix that ends in an operator (`(x + ;`) misses an operand, which
  // is what the set says ("an expression").
  const antlr4::Token* unclosed = nullptr;
  if (const antlr4::Token* start = ambiguous_prefix_start(error);
      start && start->getTokenIndex() < offending->getTokenIndex() &&
      ends_operand(token_before(parser->getTokenStream(), offending)->getType())) {
    unclosed = unclosed_bracket(parser->getTokenStream(), start->getTokenIndex(), offending->getTokenIndex());
    expected = unclosed ? closing_bracket(unclosed) : "";
    name_expected = false;
  }

  // A missing token at the end of a line is reported where it belongs: after the previous
  // token, not at the start of the next line.
  const antlr4::Token* previous = parser->getTokenStream()->LT(-1);
  // An unterminated string swallowed the rest of its line; what the parser misses there is
  // an echo of that (already reported) lexical error.
  if (previous && previous->getType() == Lexer::STRING && !is_terminated_string(previous)) return;
  // The unterminated string itself (a lone '"' where no expression may start) is that error too.
  if (offending->getType() == Lexer::STRING && !is_terminated_string(offending)) return;
  // So is a name with non-ASCII characters where no name may stand (a stray '×'): token_scan
  // reported its characters.
  if (is_non_ascii_name(offending)) return;
  // The parser does not see invalid characters (their channel is hidden), so `a & b` reads as
  // `a b`: what it misses after one on the same line echoes the error token_scan reported.
  for (std::size_t i = offending->getTokenIndex(); i-- > 0;) {
    const antlr4::Token* t = parser->getTokenStream()->get(i);
    if (t->getLine() != offending->getLine()) break;
    if (t->getType() == Lexer::INVALID_CHARACTER) return;
  }
  bool missing_at_line_end = !expected.empty() && previous && previous->getType() != antlr4::Token::EOF &&
                             previous->getTokenIndex() < offending->getTokenIndex() &&
                             previous->getLine() < offending->getLine();
  antlr4::TokenStream* stream = parser->getTokenStream();
  // A `//` on a token's line, up to and including the token, that was meant as a comment but
  // reads as floor division (`w: f32[8, 4])  // weights` stops at the '//' itself).
  auto note_floor_division = [&](DiagnosticBuilder& d, const antlr4::Token* at) {
    for (std::size_t i = at->getTokenIndex() + 1; i-- > 0;) {
      const antlr4::Token* t = stream->get(i);
      if (t->getLine() != at->getLine()) break;
      if (t->getType() == Lexer::SLASHSLASH) {
        d.note(range_of(file_, t), std::string(kFloorDivisionNote));
        break;
      }
    }
  };
  if (missing_at_line_end) {
    // Most often a forgotten ';': name just that when it is one of the choices.
    bool semicolon = expected == "';'" || expected.find("';'") != std::string::npos;
    if (semicolon || expected.find(" or ") == std::string::npos) {
      auto d = diags_.error(range_after(file_, previous), "expected " + (semicolon ? std::string("';'") : expected));
      // `const N = 8 // eight` then a new line: `8 // eight` parsed, the ';' is missing after it.
      note_floor_division(d, previous);
      return;
    }
  }
  std::string text = "unexpected " + describe_token(offending, file_);
  if (!expected.empty()) text += "; expected " + expected;
  auto d = diags_.error(range_of(file_, offending), text);
  if (unclosed) d.note(range_of(file_, unclosed), "to close this '" + unclosed->getText() + "'");
  // A C-style block comment: '/' right before '*'.
  if (offending->getType() == Lexer::SLASH && stream->LT(1) == offending) {
    const antlr4::Token* next = stream->LT(2);  // LT fetches it; get() could be past the buffer
    if (next && next->getType() == Lexer::STAR && next->getStartIndex() == offending->getStopIndex() + 1)
      d.note("there are no block comments (/* */): start each comment line with //");
  }
  // `let in = x;`, `func f16(...)`: a keyword (spelt as a name, but not lexed as one) where a
  // name may stand.
  if (name_expected && offending->getType() != Lexer::IDENT && is_identifier(offending->getText()))
    d.note("'" + offending->getText() + "' is a keyword of the language (docs/language.md, section 1) and cannot be a name");
  // `x ** 2`: Python's power operator.
  if (offending->getType() == Lexer::STAR && previous && previous->getType() == Lexer::STAR &&
      previous->getStopIndex() + 1 == offending->getStartIndex())
    d.note("there is no power operator: use square(x) or pow(x, y)");
  if (auto note = python_spelling_note(*stream, *offending, name_expected)) d.note(*note);
  note_floor_division(d, offending);
}

}  // namespace shardc::syntax

#include "frontend/syntax/token_scan.h"

#include <antlr4-runtime.h>

#include <algorithm>
#include <set>

#include "ShardLexer.h"
#include "frontend/syntax/token_ranges.h"

namespace shardc::syntax {
namespace {
using Lexer = shard_antlr::ShardLexer;
}  // namespace

bool is_open(std::size_t type) { return type == Lexer::LPAREN || type == Lexer::LBRACK || type == Lexer::LBRACE; }
bool is_close(std::size_t type) { return type == Lexer::RPAREN || type == Lexer::RBRACK || type == Lexer::RBRACE; }

bool ends_operand(std::size_t type) {
  switch (type) {
    case Lexer::IDENT: case Lexer::INT: case Lexer::FLOAT: case Lexer::STRING: case Lexer::RPAREN:
    case Lexer::RBRACK: case Lexer::TRUE: case Lexer::FALSE: case Lexer::NONE: case Lexer::F32:
    case Lexer::BF16: case Lexer::F16: case Lexer::I32: case Lexer::I64: case Lexer::BOOL:
      return true;
    default:
      return false;
  }
}

namespace {

bool is_prefix_operator(std::size_t type) { return type == Lexer::MINUS || type == Lexer::PLUS || type == Lexer::NOT; }

std::string describe_invalid(std::string_view bytes) {
  auto c = static_cast<unsigned char>(bytes[0]);
  if (c >= 0x80) return "non-ASCII character outside a comment or string";
  if (c < 0x20 || c == 0x7f) {
    static constexpr char hex[] = "0123456789abcdef";
    return std::string("invalid character '\\x") + hex[c >> 4] + hex[c & 15] + "'";
  }
  return std::string("invalid character '") + static_cast<char>(c) + "'";
}

// What a user coming from Python, NumPy or C most likely meant by a character the language
// does not have; empty for none.
std::string meant_instead(char c) {
  switch (c) {
    case '&': return "the logical and of bools is '&&'; there are no bitwise operators";
    case '|': return "the logical or of bools is '||'; there are no bitwise operators";
    case '~': return "'!' negates a bool; there are no bitwise operators";
    case '^': return "for bools, 'a != b' is their exclusive or; there are no bitwise operators";
    case '?': return "there is no conditional operator: where(cond, a, b) chooses elementwise";
    case '\'':
      return "strings (einsum specs) take double quotes; mesh axes are written bare, without quotes: "
             "psum(x, tp), not psum(x, 'tp')";
    default: return {};
  }
}

}  // namespace

// The lexer gives an unterminated string the STRING type (see Shard.g4).
bool is_terminated_string(const antlr4::Token* token) {
  std::size_t length = token->getStopIndex() + 1 - token->getStartIndex();
  if (length < 2) return false;
  std::string text = token->getText();
  if (text.back() != '"') return false;
  // A closing quote preceded by an odd number of backslashes is escaped.
  std::size_t backslashes = 0;
  for (std::size_t i = text.size() - 1; i-- > 1 && text[i] == '\\';) ++backslashes;
  return backslashes % 2 == 0;
}

bool is_non_ascii_name(const antlr4::Token* token) {
  return token->getType() == Lexer::IDENT && token->getText().find('\x02') != std::string::npos;
}

TokenScanResult scan_tokens(const std::vector<antlr4::Token*>& tokens, const SourceFile& file, unsigned max_depth,
                            Diagnostics& diags) {
  TokenScanResult result;
  const std::string& text = file.text();
  unsigned brackets = 0;
  unsigned prefix_run = 0;
  std::set<char> hinted;  // each character's hint once a file: 'tp' has two quotes
  std::size_t previous_type = 0;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const antlr4::Token* token = tokens[i];
    std::size_t type = token->getType();
    if (type == Lexer::INVALID_CHARACTER) {
      // One error for a run of adjacent invalid characters (a UTF-8 sequence is several bytes).
      std::size_t begin = token->getStartIndex();
      std::size_t end = token->getStopIndex() + 1;
      while (i + 1 < tokens.size() && tokens[i + 1]->getType() == Lexer::INVALID_CHARACTER &&
             tokens[i + 1]->getStartIndex() == end) {
        end = tokens[++i]->getStopIndex() + 1;
      }
      auto d = diags.error(range_of_offsets(file, begin, end), describe_invalid(std::string_view(text).substr(begin)));
      if (const std::string hint = meant_instead(text[begin]); !hint.empty() && hinted.insert(text[begin]).second)
        d.note(hint);
      result.lexical_errors = true;
      continue;
    }
    if (is_non_ascii_name(token)) {
      const std::string_view name =
          std::string_view(text).substr(token->getStartIndex(), token->getStopIndex() + 1 - token->getStartIndex());
      const bool ascii_part = std::any_of(name.begin(), name.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
      diags.error(range_of(file, token), ascii_part ? "non-ASCII character in the name '" + std::string(name) +
                                                          "'; names are ASCII letters, digits and '_'"
                                                    : std::string("non-ASCII character outside a comment or string"));
      result.lexical_errors = true;
    }
    if (type == Lexer::STRING && !is_terminated_string(token)) {
      diags.error(range_of(file, token), "missing terminating '\"' character");
      result.lexical_errors = true;
    }
    if (token->getChannel() != antlr4::Token::DEFAULT_CHANNEL || type == antlr4::Token::EOF) continue;

    if (is_prefix_operator(type) && !ends_operand(previous_type)) {
      ++prefix_run;
    } else {
      prefix_run = 0;
    }
    if (is_open(type)) ++brackets;
    if (is_close(type) && brackets > 0) --brackets;
    if (brackets + prefix_run > max_depth) {
      diags.error(range_of(file, token), "nesting is too deep: more than " + std::to_string(max_depth) +
                                             " levels of brackets and prefix operators")
          .note("the limit keeps the parser's recursion bounded; split the expression with let bindings");
      result.too_deep = true;
      return result;
    }
    previous_type = type;
  }
  return result;
}

}  // namespace shardc::syntax

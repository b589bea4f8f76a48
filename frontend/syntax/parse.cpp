// parse(): text -> tokens -> pre-scan -> parse tree -> AST. See frontend/README.md.
#include "frontend/parse.h"

#include <antlr4-runtime.h>

#include "ShardLexer.h"
#include "ShardParser.h"
#include "frontend/internal_error.h"
#include "frontend/syntax/syntax_error_listener.h"
#include "frontend/syntax/token_scan.h"
#include "frontend/syntax/transformer.h"

namespace shardc {
namespace {

// The lexer reads a copy of the file in which every byte of a non-ASCII character becomes
// '\x02' and every other byte that is not printable ASCII or whitespace '\x01'. ANTLR then
// sees one character per byte, so token offsets are byte offsets (columns in diagnostics
// count bytes, as clang's do), and no byte sequence can upset ANTLR's UTF-8 decoder. Both
// are valid inside comments and strings (whose values are decoded from the original bytes);
// '\x01' is an invalid character anywhere else, and '\x02' lexes as part of a name, which
// token_scan reports: `let é = 1` is one error about the name, not a second one about the
// '=' that follows a missing name. A UTF-8 byte order mark at the start is whitespace.
std::string masked_for_lexer(std::string_view text) {
  std::string masked(text);
  for (char& c : masked) {
    auto u = static_cast<unsigned char>(c);
    bool keep = (u >= 0x20 && u < 0x7f) || c == '\t' || c == '\n' || c == '\r' || c == '\f';
    if (!keep) c = u >= 0x80 ? '\x02' : '\x01';
  }
  if (text.starts_with("\xEF\xBB\xBF")) masked.replace(0, 3, "   ");
  // A lone CR ends a line for the diagnostics (SourceFile) but not for ANTLR, which counts
  // '\n' only: the lexer's "same line" test for `//` (comment or floor division) then read a
  // comment on its own line as division. One byte for one keeps every offset.
  for (std::size_t i = 0; i < masked.size(); ++i)
    if (masked[i] == '\r' && (i + 1 == masked.size() || masked[i + 1] != '\n')) masked[i] = '\n';
  return masked;
}

std::unique_ptr<ast::Module> parse_file(const SourceFile& file, Diagnostics& diags, const ParseLimits& limits) {
  std::size_t errors_before = diags.error_count();
  std::size_t first_diagnostic = diags.size();
  antlr4::ANTLRInputStream input(masked_for_lexer(file.text()));
  shard_antlr::ShardLexer lexer(&input);
  syntax::SyntaxErrorListener listener(file, diags);
  lexer.removeErrorListeners();
  lexer.addErrorListener(&listener);
  antlr4::CommonTokenStream tokens(&lexer);
  tokens.fill();

  syntax::TokenScanResult scan = syntax::scan_tokens(tokens.getTokens(), file, limits.max_nesting_depth, diags);
  if (scan.too_deep) return nullptr;

  shard_antlr::ShardParser parser(&tokens);
  parser.removeErrorListeners();
  parser.addErrorListener(&listener);
  shard_antlr::ShardParser::Module_Context* tree = parser.module_();
  // Lexical errors (found first, by the scan) and syntax errors read in file order.
  diags.sort_by_location(first_diagnostic);
  if (listener.had_errors() || parser.getNumberOfSyntaxErrors() != 0) return nullptr;

  // Lexical errors leave a complete parse tree (the bad tokens were hidden from the parser),
  // so the transformer still runs and reports what it finds; the module is dropped anyway. Of
  // the transformer's own errors, an unknown element type and what an fn or func may not
  // declare (a result type, a mesh, unchecked) leave a module to check: the rest of the file's
  // errors are reported with them.
  syntax::Transformer transformer(file, diags, limits);
  std::unique_ptr<ast::Module> module = transformer.transformModule(*tree, module_name_for_file(file.name()));
  diags.sort_by_location(first_diagnostic);  // it reports a declaration's parts in no fixed order
  if (diags.error_count() != errors_before + transformer.recoverable_errors()) return nullptr;
  return module;
}

}  // namespace

std::unique_ptr<ast::Module> parse(std::string_view text, std::string_view filename, Diagnostics& diags,
                                   const ParseLimits& limits) {
  if (text.size() > limits.max_file_bytes) {
    // Keep only the first line: enough to show where the error is, without a huge copy.
    std::string_view first_line = text.substr(0, std::min<std::size_t>(text.find('\n'), 200));
    FileId id = diags.sources().add(std::string(filename), std::string(first_line));
    const SourceFile& file = diags.sources().file(id);
    // Only "larger": the reader (read_input) stops one byte past the limit, so that an endless
    // input (/dev/zero, a pipe) ends here too instead of filling memory.
    diags.error(SourceRange{id, file.location(0), file.location(0)},
                "file is larger than the limit of " + std::to_string(limits.max_file_bytes) + " bytes");
    return nullptr;
  }
  FileId id = diags.sources().add(std::string(filename), std::string(text));
  const SourceFile& file = diags.sources().file(id);
  try {
    return parse_file(file, diags, limits);
  } catch (const InternalError& e) {
    diags.error(SourceRange{id, file.location(0), file.location(0)}, e.what());
  } catch (const std::exception& e) {
    diags.error(SourceRange{id, file.location(0), file.location(0)},
                std::string("internal compiler error: unexpected exception while parsing: ") + e.what());
  }
  return nullptr;
}

std::string module_name_for_file(std::string_view filename) {
  if (filename == "-" || filename == "<stdin>") return "stdin";
  auto slash = filename.find_last_of('/');
  std::string_view base = slash == std::string_view::npos ? filename : filename.substr(slash + 1);
  constexpr std::string_view suffix = ".shard";
  if (base.size() > suffix.size() && base.substr(base.size() - suffix.size()) == suffix) {
    base.remove_suffix(suffix.size());
  }
  std::string name;
  for (char c : base) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    name += ok ? c : '_';
  }
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) name.insert(name.begin(), '_');
  return name;
}

}  // namespace shardc

// Turns ANTLR's syntax errors into located diagnostics with short messages:
//   "expected ';'" (placed just after the previous token when the next one is on a later
//   line, as clang does), "unexpected 'x'; expected an expression", "unexpected end of file".
// ANTLR's own recovery keeps the parser going, so every syntax error of a file is reported;
// a second error at the same token is dropped (it is the recovery's echo of the first).
#pragma once

#include <antlr4-runtime.h>

#include "frontend/diagnostics.h"

namespace shardc::syntax {

class SyntaxErrorListener : public antlr4::BaseErrorListener {
 public:
  SyntaxErrorListener(const SourceFile& file, Diagnostics& diags) : file_(file), diags_(diags) {}

  void syntaxError(antlr4::Recognizer* recognizer, antlr4::Token* offending, size_t line, size_t column,
                   const std::string& message, std::exception_ptr error) override;

  bool had_errors() const { return count_ != 0; }

 private:
  const SourceFile& file_;
  Diagnostics& diags_;
  std::size_t count_ = 0;
  std::size_t last_token_index_ = static_cast<std::size_t>(-1);
};

}  // namespace shardc::syntax

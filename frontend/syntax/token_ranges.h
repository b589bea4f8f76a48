// Source ranges of ANTLR tokens and parse-tree nodes. The lexer reads a copy of the file in
// which every byte is one character (see parse.cpp), so token indices are byte offsets.
#pragma once

#include "frontend/source.h"

namespace antlr4 {
class Token;
class ParserRuleContext;
}  // namespace antlr4

namespace shardc::syntax {

SourceRange range_of_offsets(const SourceFile& file, std::size_t begin, std::size_t end);
SourceRange range_of(const SourceFile& file, const antlr4::Token* token);
SourceRange range_of(const SourceFile& file, antlr4::ParserRuleContext* context);
// An empty-width range just after the token (where a missing ';' belongs).
SourceRange range_after(const SourceFile& file, const antlr4::Token* token);

}  // namespace shardc::syntax

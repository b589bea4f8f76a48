#include "frontend/syntax/token_ranges.h"

#include <antlr4-runtime.h>

namespace shardc::syntax {

SourceRange range_of_offsets(const SourceFile& file, std::size_t begin, std::size_t end) {
  auto b = static_cast<std::uint32_t>(begin);
  auto e = static_cast<std::uint32_t>(std::max(begin, end));
  return SourceRange{file.id(), file.location(b), file.location(e)};
}

SourceRange range_of(const SourceFile& file, const antlr4::Token* token) {
  if (!token || token->getType() == antlr4::Token::EOF) {
    auto size = file.text().size();
    return range_of_offsets(file, size, size);
  }
  // getStopIndex() is inclusive.
  return range_of_offsets(file, token->getStartIndex(), token->getStopIndex() + 1);
}

SourceRange range_of(const SourceFile& file, antlr4::ParserRuleContext* context) {
  const antlr4::Token* start = context->getStart();
  const antlr4::Token* stop = context->getStop();
  if (!start) return range_of(file, stop);
  if (!stop || stop->getType() == antlr4::Token::EOF || stop->getTokenIndex() < start->getTokenIndex()) {
    return range_of(file, start);
  }
  return range_of_offsets(file, start->getStartIndex(), stop->getStopIndex() + 1);
}

SourceRange range_after(const SourceFile& file, const antlr4::Token* token) {
  std::size_t end = token->getStopIndex() + 1;
  return range_of_offsets(file, end, end);
}

}  // namespace shardc::syntax

#include "frontend/source.h"

#include <algorithm>

#include "frontend/internal_error.h"

namespace shardc {

SourceRange join(const SourceRange& first, const SourceRange& last) {
  if (!first.valid()) return last;
  if (!last.valid() || first.file != last.file) return first;
  SourceRange joined = first;
  if (last.begin.offset < joined.begin.offset) joined.begin = last.begin;
  if (last.end.offset > joined.end.offset) joined.end = last.end;
  return joined;
}

SourceFile::SourceFile(FileId id, std::string name, std::string text)
    : id_(id), name_(std::move(name)), text_(std::move(text)) {
  // A line ends at "\n", "\r\n" or a lone "\r" (old Mac files), as editors count lines.
  line_starts_.push_back(0);
  for (std::uint32_t i = 0; i < text_.size(); ++i) {
    const bool lone_cr = text_[i] == '\r' && (i + 1 == text_.size() || text_[i + 1] != '\n');
    if (text_[i] == '\n' || lone_cr) line_starts_.push_back(i + 1);
  }
}

SourceLocation SourceFile::location(std::uint32_t offset) const {
  offset = std::min<std::uint32_t>(offset, static_cast<std::uint32_t>(text_.size()));
  // The last line start at or before offset.
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  auto line_index = static_cast<std::uint32_t>(it - line_starts_.begin()) - 1;
  return SourceLocation{offset, line_index + 1, offset - line_starts_[line_index] + 1};
}

std::string_view SourceFile::line_text(std::uint32_t line) const {
  if (line == 0 || line > line_starts_.size()) return {};
  std::uint32_t begin = line_starts_[line - 1];
  std::uint32_t end = line < line_starts_.size() ? line_starts_[line] - 1 : static_cast<std::uint32_t>(text_.size());
  std::string_view view(text_);
  view = view.substr(begin, end - begin);
  if (!view.empty() && view.back() == '\r') view.remove_suffix(1);
  return view;
}

FileId SourceManager::add(std::string name, std::string text) {
  auto id = static_cast<FileId>(files_.size());
  files_.push_back(std::make_unique<SourceFile>(id, std::move(name), std::move(text)));
  return id;
}

const SourceFile& SourceManager::file(FileId id) const {
  SHARDC_ASSERT(id < files_.size(), "unknown file id " + std::to_string(id));
  return *files_[id];
}

const SourceFile* SourceManager::find(FileId id) const { return id < files_.size() ? files_[id].get() : nullptr; }

}  // namespace shardc

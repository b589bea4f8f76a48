// Source files, positions and ranges. Every AST node and every diagnostic points into a
// SourceFile held by a SourceManager, so messages can always quote the user's line.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace shardc {

using FileId = std::uint32_t;
inline constexpr FileId kNoFile = ~FileId{0};

// A point in a file. line and column are 1-based; column counts bytes (as clang does).
struct SourceLocation {
  std::uint32_t offset = 0;
  std::uint32_t line = 0;
  std::uint32_t column = 0;

  bool valid() const { return line != 0; }
  friend bool operator==(const SourceLocation&, const SourceLocation&) = default;
};

// A half-open byte range [begin, end) in one file. An invalid range (file == kNoFile)
// stands for "no location" (for example an error about a -D option).
struct SourceRange {
  FileId file = kNoFile;
  SourceLocation begin;
  SourceLocation end;

  bool valid() const { return file != kNoFile && begin.valid(); }
  friend bool operator==(const SourceRange&, const SourceRange&) = default;
};

// Joins two ranges of the same file into the smallest range that covers both.
SourceRange join(const SourceRange& first, const SourceRange& last);

// One file's text, with its line starts indexed for location lookups.
class SourceFile {
 public:
  SourceFile(FileId id, std::string name, std::string text);

  FileId id() const { return id_; }
  const std::string& name() const { return name_; }
  const std::string& text() const { return text_; }

  // The location of a byte offset (clamped to the end of the text).
  SourceLocation location(std::uint32_t offset) const;
  // The text of line `line` (1-based) without its line terminator; empty if out of range.
  std::string_view line_text(std::uint32_t line) const;
  std::uint32_t line_count() const { return static_cast<std::uint32_t>(line_starts_.size()); }

 private:
  FileId id_;
  std::string name_;
  std::string text_;
  std::vector<std::uint32_t> line_starts_;
};

// Owns every file of one compiler run. Files never move once added, so references stay valid.
class SourceManager {
 public:
  FileId add(std::string name, std::string text);
  const SourceFile& file(FileId id) const;
  const SourceFile* find(FileId id) const;
  std::size_t size() const { return files_.size(); }

 private:
  std::vector<std::unique_ptr<SourceFile>> files_;
};

}  // namespace shardc

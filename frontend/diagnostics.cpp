#include "frontend/diagnostics.h"

#include <algorithm>
#include <ostream>
#include <sstream>

namespace shardc {
namespace {

std::string_view severity_name(Severity s) {
  switch (s) {
    case Severity::error: return "error";
    case Severity::warning: return "warning";
    case Severity::note: return "note";
  }
  return "error";
}

// "file:line:col: " or "shardc: " when the range has no location.
std::string location_prefix(const SourceManager& sources, const SourceRange& range) {
  const SourceFile* file = range.valid() ? sources.find(range.file) : nullptr;
  if (!file) return "shardc: ";
  return file->name() + ":" + std::to_string(range.begin.line) + ":" + std::to_string(range.begin.column) + ": ";
}

// Control bytes other than tabs as '?': a message or quoted line never sends them to the
// terminal as they are (an escape sequence in a string literal would colour it).
std::string printable(std::string text) {
  for (char& c : text)
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == '\x7f') c = '?';
  return text;
}

// The quoted source line and, under it, a caret at the start of the range and tildes to its
// end (or to the end of the line for a range spanning several lines). Tabs in the source are
// copied into the marker line so that the caret lines up in any tab width. The marker has one
// column per character: UTF-8 continuation bytes get none (a string "αβγ" before the range
// shifted the caret right by a column per extra byte). A byte order mark is three spaces (as
// the lexer reads it), other control bytes are '?'. A line longer than kSnippetWidth is cut to
// a window around the caret, marked by "...", never inside a UTF-8 character.
void render_snippet(std::ostream& out, const SourceManager& sources, const SourceRange& range) {
  constexpr std::size_t kSnippetWidth = 200;
  const SourceFile* file = range.valid() ? sources.find(range.file) : nullptr;
  if (!file) return;
  std::string line(file->line_text(range.begin.line));
  if (range.begin.line == 1 && line.starts_with("\xEF\xBB\xBF")) line.replace(0, 3, "   ");
  line = printable(std::move(line));
  const auto continuation = [&](std::size_t i) {
    return i < line.size() && (static_cast<unsigned char>(line[i]) & 0xC0) == 0x80;
  };
  const std::size_t caret = range.begin.column - 1;
  std::size_t end = range.end.line == range.begin.line && range.end.column > range.begin.column
                        ? range.end.column - 1
                        : (range.end.line > range.begin.line ? line.size() : caret + 1);
  end = std::max(end, caret + 1);
  std::size_t first = line.size() > kSnippetWidth && caret > kSnippetWidth / 2 ? caret - kSnippetWidth / 2 : 0;
  while (first < caret && continuation(first)) ++first;
  std::size_t last = std::min(line.size(), first + kSnippetWidth);
  while (last > caret + 1 && continuation(last)) --last;
  const char* cut = first > 0 ? "..." : "";
  out << cut << line.substr(first, last - first) << (last < line.size() ? "..." : "") << '\n';
  std::string marker = cut[0] != '\0' ? "   " : "";
  for (std::size_t i = first; i < std::min(end, std::max(last, caret + 1)); ++i) {
    if (i != caret && continuation(i)) continue;
    char c = i < line.size() && line[i] == '\t' ? '\t' : ' ';
    if (i == caret) c = '^';
    else if (i > caret) c = '~';
    marker += c;
  }
  out << marker << '\n';
}

}  // namespace

DiagnosticBuilder& DiagnosticBuilder::note(std::string message) { return note(SourceRange{}, std::move(message)); }

DiagnosticBuilder& DiagnosticBuilder::note(const SourceRange& range, std::string message) {
  if (!owner_) return *this;
  auto& notes = owner_->diagnostics_[index_].notes;
  const auto first_trailing = std::find_if(notes.begin(), notes.end(), [](const DiagnosticNote& n) { return n.trailing; });
  notes.insert(first_trailing, DiagnosticNote{range, std::move(message)});
  return *this;
}

DiagnosticBuilder& DiagnosticBuilder::trailing_note(const SourceRange& range, std::string message) {
  if (owner_) owner_->diagnostics_[index_].notes.push_back(DiagnosticNote{range, std::move(message), true});
  return *this;
}

DiagnosticBuilder Diagnostics::error(const SourceRange& range, std::string message) {
  return add(Severity::error, range, std::move(message));
}

DiagnosticBuilder Diagnostics::warning(const SourceRange& range, std::string message) {
  return add(Severity::warning, range, std::move(message));
}

DiagnosticBuilder Diagnostics::add(Severity severity, const SourceRange& range, std::string message) {
  if (severity == Severity::error) ++error_count_;
  if (diagnostics_.size() >= kMaxKeptErrors) {
    ++dropped_;
    return DiagnosticBuilder(nullptr, 0);
  }
  diagnostics_.push_back(Diagnostic{severity, range, std::move(message), {}});
  return DiagnosticBuilder(this, diagnostics_.size() - 1);
}

void Diagnostics::sort_by_location(std::size_t first) {
  if (first >= diagnostics_.size()) return;
  std::stable_sort(diagnostics_.begin() + static_cast<std::ptrdiff_t>(first), diagnostics_.end(),
                   [](const Diagnostic& a, const Diagnostic& b) {
                     if (a.range.file != b.range.file) return a.range.file < b.range.file;
                     return a.range.begin.offset < b.range.begin.offset;
                   });
}

std::string Diagnostics::headline(const Diagnostic& d) const {
  return location_prefix(sources_, d.range) + std::string(severity_name(d.severity)) + ": " + printable(d.message);
}

void Diagnostics::render(std::ostream& out) const {
  const std::size_t shown = std::min(diagnostics_.size(), kMaxShownErrors);
  for (std::size_t i = 0; i < shown; ++i) {
    const Diagnostic& d = diagnostics_[i];
    out << headline(d) << '\n';
    render_snippet(out, sources_, d.range);
    for (const DiagnosticNote& n : d.notes) {
      if (n.range.valid()) {
        out << location_prefix(sources_, n.range) << "note: " << printable(n.message) << '\n';
        render_snippet(out, sources_, n.range);
      } else {
        out << "note: " << printable(n.message) << '\n';
      }
    }
  }
  if (const std::size_t more = diagnostics_.size() - shown + dropped_; more != 0) {
    out << "shardc: note: " << more << " more diagnostic" << (more == 1 ? "" : "s") << " not shown (limit "
        << kMaxShownErrors << ")\n";
  }
}

std::string Diagnostics::render() const {
  std::ostringstream out;
  render(out);
  return out.str();
}

}  // namespace shardc

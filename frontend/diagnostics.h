// The user-facing error channel: located diagnostics rendered like clang's
//
//   file.shard:3:10: error: einsum "bd,df->bf" contracts dimension d, ...
//     return einsum("bd,df->bf", sq, W);
//            ^~~~~~~~~~~~~~~~~~~~~~~~~~
//   file.shard:3:10: note: out=[X, None] all-reduces over Y; ...
//
// Stages report every error they find into one Diagnostics and keep going where they can;
// the driver renders them all at the end. Internal compiler errors use internal_error.h.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include "frontend/source.h"

namespace shardc {

enum class Severity { error, warning, note };

struct DiagnosticNote {
  SourceRange range;  // may be invalid: the note then prints without a location
  std::string message;
  bool trailing = false;  // context (where the error was reached from): stays after the other notes
};

struct Diagnostic {
  Severity severity = Severity::error;
  SourceRange range;  // may be invalid (e.g. a bad -D option): printed as "shardc: error: ..."
  std::string message;
  std::vector<DiagnosticNote> notes;
};

class Diagnostics;

// Returned by Diagnostics::error/warning so that notes can be chained onto the diagnostic.
class DiagnosticBuilder {
 public:
  DiagnosticBuilder(Diagnostics* owner, std::size_t index) : owner_(owner), index_(index) {}
  DiagnosticBuilder& note(std::string message);
  DiagnosticBuilder& note(const SourceRange& range, std::string message);
  // A note of context that stays last whatever notes are added after it, so that a rule's
  // explanation follows its error directly.
  DiagnosticBuilder& trailing_note(const SourceRange& range, std::string message);

 private:
  Diagnostics* owner_;  // null once the error limit is reached: notes are then dropped
  std::size_t index_;
};

class Diagnostics {
 public:
  // render() shows this many diagnostics (one summary line counts the rest). More are kept, up
  // to kMaxKeptErrors, so that those shown are the first in file order after a sort, not the
  // first found (the checker finds them in trace order; the parser's recovered errors come
  // before all of the checker's). Beyond that they are counted only, which bounds memory.
  static constexpr std::size_t kMaxShownErrors = 200;
  static constexpr std::size_t kMaxKeptErrors = 10 * kMaxShownErrors;

  Diagnostics() = default;
  Diagnostics(const Diagnostics&) = delete;
  Diagnostics& operator=(const Diagnostics&) = delete;

  SourceManager& sources() { return sources_; }
  const SourceManager& sources() const { return sources_; }

  DiagnosticBuilder error(const SourceRange& range, std::string message);
  DiagnosticBuilder warning(const SourceRange& range, std::string message);

  std::size_t error_count() const { return error_count_; }
  bool has_errors() const { return error_count_ != 0; }
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

  // Orders the diagnostics kept since index `first` by file position (stable), so that the
  // errors of one stage read top to bottom even when found in several passes.
  void sort_by_location(std::size_t first);
  std::size_t size() const { return diagnostics_.size(); }

  // Renders the first kMaxShownErrors diagnostics kept, in their order, clang style.
  void render(std::ostream& out) const;
  std::string render() const;
  // One diagnostic's first line only ("file:line:col: error: message"), for tests.
  std::string headline(const Diagnostic& d) const;

 private:
  friend class DiagnosticBuilder;
  DiagnosticBuilder add(Severity severity, const SourceRange& range, std::string message);

  SourceManager sources_;
  std::vector<Diagnostic> diagnostics_;
  std::size_t error_count_ = 0;
  std::size_t dropped_ = 0;
};

}  // namespace shardc
